//! Reading field values from text (links, CLI arguments): each parser
//! returns the value or a message saying what is allowed.

use crate::decimal::parse_f64;
use crate::scenario::limits::{MAX_MEMORY, MIN_MEMORY};
use crate::scenario::{Choice, LoraTarget};

/// A finite decimal number within `range`.
pub(super) fn parse_fraction(v: &str, range: Fraction) -> Result<f64, String> {
    match parse_f64(v.trim()) {
        Some(x) if range.contains(x) => Ok(x),
        _ => Err(format!("\"{v}\" is not a number from {}", range.text())),
    }
}

/// A comma-separated list of LoRA targets, groups (`mlp`, `attn`, `all`)
/// expanded in place; empty items are skipped.
pub(super) fn parse_lora_targets(v: &str) -> Result<Vec<LoraTarget>, String> {
    let mut targets = Vec::new();
    for name in v.split(',').filter(|n| !n.trim().is_empty()) {
        let parsed = LoraTarget::parse(name).ok_or_else(|| {
            format!(
                "\"{name}\" is not a LoRA target (allowed: {}, mlp, attn, all)",
                LoraTarget::allowed()
            )
        })?;
        targets.extend(parsed);
    }
    Ok(targets)
}

/// Bytes as a whole number, or with a unit: `24GiB`, `80GB`, `512MiB`.
pub fn parse_memory(v: &str) -> Result<u64, String> {
    let text = v.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    // Binary units are powers of 1024, decimal units powers of 1000 (IEC 80000-13).
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => 0,
    };
    let bytes = match number.parse::<u64>() {
        Ok(n) if scale > 0 => n.checked_mul(scale),
        _ => match parse_f64(number) {
            // Fractional sizes (`23.5GiB`) round to whole bytes.
            Some(x) if scale > 0 => {
                let b = (x * scale as f64).round();
                (b >= 0.0 && b < MAX_MEMORY as f64 * 2.0).then_some(b as u64)
            }
            _ => None,
        },
    };
    match bytes {
        Some(b) if (MIN_MEMORY..=MAX_MEMORY).contains(&b) => Ok(b),
        _ => Err(format!(
            "\"{v}\" is not a memory size from 1MiB to 1PiB (bytes, or with KiB/MiB/GiB/TiB/KB/MB/GB/TB)"
        )),
    }
}

/// The range of a decimal field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fraction {
    /// `0 ≤ x < 1` (a dropout probability).
    ZeroToBelowOne,
    /// `0 < x ≤ 1` (a share of the card).
    AboveZeroToOne,
}

impl Fraction {
    pub fn contains(self, x: f64) -> bool {
        match self {
            Fraction::ZeroToBelowOne => (0.0..1.0).contains(&x),
            Fraction::AboveZeroToOne => x > 0.0 && x <= 1.0,
        }
    }

    /// The range in words, for messages.
    pub fn text(self) -> &'static str {
        match self {
            Fraction::ZeroToBelowOne => "0 to below 1",
            Fraction::AboveZeroToOne => "above 0 up to 1",
        }
    }
}
