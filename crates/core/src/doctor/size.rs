//! Byte sizes as PyTorch, training scripts and people print them:
//! `2.50 GiB`, `1,024 MiB`, `512 bytes`, `18.2GB`, `mem=18.2G`.
//!
//! Hand-written scanners over bytes: every function looks at a bounded number
//! of characters, so callers stay linear in the length of the text.

use crate::decimal::Decimal;
use crate::error::InputError;

/// What a bare `GB`/`MB`/`G`/`M` label means in the text being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GbMeaning {
    /// `GB` = 10^9 bytes (SI).
    Decimal,
    /// `GB` = 2^30 bytes: what scripts print after `bytes / 1024**3`, what
    /// PyTorch's MPS allocator prints, and what GPU marketing means
    /// (a "24GB" RTX 4090 has 24 GiB).
    Binary,
}

/// A size read from text, with the rounding its printed precision implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedSize {
    pub bytes: u64,
    /// Half of the last printed digit: `2.50 GiB` is 2.50 ± 0.005 GiB.
    pub rounding_bytes: u64,
}

/// Longest number we read (digits, separators, point). Longer runs of digits
/// are not sizes; the bound keeps each read O(1).
const MAX_NUMBER_CHARS: usize = 40;
/// Longest unit word we read (`bytes`).
const MAX_UNIT_CHARS: usize = 5;

/// Multiplier for a unit word (any case), or `None` if it is not a unit.
pub fn unit_multiplier(unit: &str, gb: GbMeaning) -> Option<f64> {
    let decimal = gb == GbMeaning::Decimal;
    let pick = |binary_power: i32, decimal_power: i32| {
        if decimal {
            10f64.powi(decimal_power)
        } else {
            1024f64.powi(binary_power)
        }
    };
    let multiplier = match unit.to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => 1.0,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        "k" | "kb" => pick(1, 3),
        "m" | "mb" => pick(2, 6),
        "g" | "gb" => pick(3, 9),
        "t" | "tb" => pick(4, 12),
        _ => return None,
    };
    Some(multiplier)
}

/// A number printed at `start`: digits, optional thousands commas (`1,234`),
/// optional fraction. Returns (value, digits after the point, end index).
pub fn read_number(text: &[u8], start: usize) -> Option<(f64, u32, usize)> {
    let mut digits = String::new();
    let mut decimals = 0u32;
    let mut seen_point = false;
    let mut i = start;
    while i < text.len() && i - start < MAX_NUMBER_CHARS {
        let c = text.get(i).copied().unwrap_or(0);
        if c.is_ascii_digit() {
            digits.push(c as char);
            if seen_point {
                decimals += 1;
            }
        } else if c == b'.' && !seen_point && next_is_digit(text, i) && !digits.is_empty() {
            seen_point = true;
            digits.push('.');
        } else if c == b',' && !seen_point && !digits.is_empty() && is_thousands_group(text, i) {
            // thousands separator: skip it
        } else {
            break;
        }
        i += 1;
    }
    if digits.is_empty() {
        return None;
    }
    let value: f64 = digits.parse().ok()?;
    value.is_finite().then_some((value, decimals, i))
}

fn next_is_digit(text: &[u8], i: usize) -> bool {
    text.get(i + 1).is_some_and(u8::is_ascii_digit)
}

/// `,` followed by exactly three digits and then a non-digit.
fn is_thousands_group(text: &[u8], comma: usize) -> bool {
    (1..=3).all(|k| text.get(comma + k).is_some_and(u8::is_ascii_digit))
        && !text.get(comma + 4).is_some_and(u8::is_ascii_digit)
}

/// Reads `number [spaces] unit` at `start`. Returns the size and the end index.
/// A number without a recognised unit is `None`.
pub fn size_at(text: &[u8], start: usize, gb: GbMeaning) -> Option<(ParsedSize, usize)> {
    let (value, decimals, after_number) = read_number(text, start)?;
    let unit_start = skip_spaces(text, after_number, 2);
    let unit_end = letters_end(text, unit_start);
    let unit = std::str::from_utf8(text.get(unit_start..unit_end)?).ok()?;
    let multiplier = unit_multiplier(unit, gb)?;
    Some((to_size(value, decimals, multiplier), unit_end))
}

/// Converts a printed value to bytes, saturating at `u64::MAX`.
pub fn to_size(value: f64, decimals: u32, multiplier: f64) -> ParsedSize {
    let half_last_digit = 0.5 * 10f64.powi(-(decimals.min(30) as i32));
    ParsedSize {
        // `as` saturates for f64 -> u64 and maps NaN to 0: no panic, no wrap.
        bytes: (value * multiplier).round() as u64,
        rounding_bytes: (half_last_digit * multiplier).round() as u64,
    }
}

/// Index after at most `max` spaces from `i`.
pub fn skip_spaces(text: &[u8], mut i: usize, max: usize) -> usize {
    let mut skipped = 0;
    while skipped < max && text.get(i) == Some(&b' ') {
        i += 1;
        skipped += 1;
    }
    i
}

fn letters_end(text: &[u8], start: usize) -> usize {
    let mut i = start;
    while i - start < MAX_UNIT_CHARS + 1 && text.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    i
}

/// Parses a whole string as a size: plain bytes (`85899345920`) or a number
/// with a unit (`80GiB`, `24GB`, `1,024 MiB`). `field` names the input in errors.
pub fn parse_size(text: &str, gb: GbMeaning, field: &str) -> Result<u64, InputError> {
    let trimmed = text.trim();
    let bytes = trimmed.as_bytes();
    let explain = || {
        InputError::new(
            field,
            format!(
                "`{}` is not a size: write bytes (85899345920) or a number with a unit \
                 B, KiB, MiB, GiB, TiB, KB, MB, GB, TB (80GiB, 24GB); allowed 1 to {} bytes",
                trimmed.chars().take(40).collect::<String>(),
                u64::MAX
            ),
        )
    };
    let (value, decimals, after) = read_number(bytes, 0).ok_or_else(explain)?;
    let unit_start = skip_spaces(bytes, after, 2);
    let unit = trimmed.get(unit_start..).ok_or_else(explain)?;
    let multiplier = if unit.is_empty() {
        1.0
    } else {
        unit_multiplier(unit, gb).ok_or_else(explain)?
    };
    let size = to_size(value, decimals, multiplier);
    if size.bytes == 0 || value * multiplier >= u64::MAX as f64 {
        return Err(explain());
    }
    Ok(size.bytes)
}

/// Bytes for people, binary units with two decimals: `1.23 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("B");
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{:.2} {name}", Decimal(value))
    }
}
