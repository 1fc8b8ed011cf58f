//! The scenario fields of a v=1 link: key, how to write it, how to read it.
//!
//! Numeric ranges are the estimator's own (`estimate::validate_scenario`), so
//! a value the estimator would reject is caught here, named in a notice, and
//! replaced by the default instead of producing an error page.

use super::choice::Choice;
use crate::estimate::MAX_TOKENS;
use crate::model::{MAX_IMAGE_SIZE, MAX_TOTAL_PARAMS};
use crate::scenario::{LoraTarget, Scenario};

/// One query parameter. `get` returns `None` when the field has its default.
pub(super) struct Field {
    pub key: &'static str,
    pub get: fn(&Scenario, &Scenario) -> Option<String>,
    pub set: fn(&mut Scenario, &str) -> Result<(), String>,
}

/// Largest micro-batch, batch and GPU count the estimator accepts.
const MAX_COUNT: u64 = 65_536;
/// Largest images per sample or prompt the estimator accepts.
const MAX_IMAGES: u64 = 1024;
/// Smallest and largest custom GPU capacity the estimator accepts (1 MiB, 1 PiB).
const MIN_MEMORY: u64 = 1 << 20;
const MAX_MEMORY: u64 = 1 << 50;
const GIB: u64 = 1 << 30;

macro_rules! choice {
    ($key:literal, $($f:ident).+) => {
        Field {
            key: $key,
            get: |sc, d| (sc.$($f).+ != d.$($f).+).then(|| sc.$($f).+.key().to_owned()),
            set: |sc, v| {
                sc.$($f).+ = parse_choice(v)?;
                Ok(())
            },
        }
    };
}

/// An `Option<T: Choice>` whose default is `None` ("auto").
macro_rules! optional_choice {
    ($key:literal, $($f:ident).+) => {
        Field {
            key: $key,
            get: |sc, d| (sc.$($f).+ != d.$($f).+)
                .then(|| sc.$($f).+.map_or("auto", |c| c.key()).to_owned()),
            set: |sc, v| {
                sc.$($f).+ = if v == "auto" { None } else { Some(parse_choice(v)?) };
                Ok(())
            },
        }
    };
}

macro_rules! count {
    ($key:literal, $min:expr, $max:expr, $($f:ident).+) => {
        Field {
            key: $key,
            get: |sc, d| (sc.$($f).+ != d.$($f).+).then(|| sc.$($f).+.to_string()),
            set: |sc, v| {
                sc.$($f).+ = parse_u64_in(v, $min, $max)?;
                Ok(())
            },
        }
    };
}

macro_rules! optional_count {
    ($key:literal, $min:expr, $max:expr, $($f:ident).+) => {
        Field {
            key: $key,
            get: |sc, d| (sc.$($f).+ != d.$($f).+)
                .then(|| sc.$($f).+.map_or("auto".to_owned(), |n| n.to_string())),
            set: |sc, v| {
                sc.$($f).+ = if v == "auto" { None } else { Some(parse_u64_in(v, $min, $max)?) };
                Ok(())
            },
        }
    };
}

macro_rules! flag {
    ($key:literal, $($f:ident).+) => {
        Field {
            key: $key,
            get: |sc, d| (sc.$($f).+ != d.$($f).+).then(|| bool_text(sc.$($f).+)),
            set: |sc, v| {
                sc.$($f).+ = parse_bool(v)?;
                Ok(())
            },
        }
    };
}

/// Every scenario field but the model, in the order links write them.
pub(super) const V1: &[Field] = &[
    choice!("t", task),
    choice!("w", weights),
    flag!("dq", double_quant),
    flag!("ec", empty_cache_after_load),
    flag!("ao01", unchunked_nf4_quantizer),
    count!("gs", 1, 1 << 20, group_size),
    choice!("dt", compute_dtype),
    choice!("prec", training_precision),
    choice!("attn", attention),
    choice!("fw", training.framework),
    choice!("meth", training.method),
    count!("r", 1, MAX_COUNT, training.lora.rank),
    Field {
        key: "lt",
        get: |sc, d| {
            (sc.training.lora.targets != d.training.lora.targets).then(|| {
                let keys: Vec<&str> = sc.training.lora.targets.iter().map(|t| t.key()).collect();
                keys.join(",")
            })
        },
        set: |sc, v| {
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
            sc.training.lora.targets = targets;
            Ok(())
        },
    },
    Field {
        key: "ld",
        get: |sc, d| {
            (sc.training.lora.dropout != d.training.lora.dropout)
                .then(|| sc.training.lora.dropout.to_string())
        },
        set: |sc, v| {
            sc.training.lora.dropout = parse_f64(v, |p| (0.0..1.0).contains(&p), "0 to below 1")?;
            Ok(())
        },
    },
    choice!("opt", training.optimizer),
    optional_choice!("osd", training.optimizer_state_dtype),
    flag!("oib", training.optimizer_in_backward),
    flag!("fused", training.fused_optimizer),
    count!("mb", 1, MAX_COUNT, training.micro_batch),
    optional_count!("tgt", 1, MAX_TOKENS, training.target_len),
    count!("ga", 1, 1 << 20, training.grad_accum),
    count!("seq", 1, MAX_TOKENS, training.seq_len),
    choice!("ckpt", training.checkpointing),
    flag!("cl", training.chunked_loss),
    flag!("ao", training.activation_offload),
    flag!("fv", training.freeze_vision),
    count!("img", 0, MAX_IMAGES, training.images_per_sample),
    optional_count!("imgsz", 1, MAX_IMAGE_SIZE, training.image_size),
    optional_count!("trp", 0, MAX_TOTAL_PARAMS, training.trainable_params),
    count!("bs", 1, MAX_COUNT, inference.batch),
    count!("pl", 1, MAX_TOKENS, inference.prompt_len),
    count!("nt", 0, MAX_TOKENS, inference.new_tokens),
    optional_choice!("kv", inference.kv_cache_dtype),
    choice!("eng", inference.engine),
    Field {
        key: "gmu",
        get: |sc, d| {
            (sc.inference.gpu_memory_utilization != d.inference.gpu_memory_utilization)
                .then(|| sc.inference.gpu_memory_utilization.to_string())
        },
        set: |sc, v| {
            sc.inference.gpu_memory_utilization =
                parse_f64(v, |u| u > 0.0 && u <= 1.0, "above 0 up to 1")?;
            Ok(())
        },
    },
    count!("ipp", 0, MAX_IMAGES, inference.images_per_prompt),
    flag!("static", inference.static_cache),
    flag!("tuple", inference.tuple_cache),
    count!("n", 1, MAX_COUNT, parallel.gpus),
    choice!("par", parallel.strategy),
    count!("tp", 1, MAX_COUNT, parallel.tp),
    count!("pp", 1, MAX_COUNT, parallel.pp),
    flag!("sp", parallel.sequence_parallel),
    choice!("off", parallel.offload),
    Field {
        key: "gpu",
        get: |sc, d| (sc.gpu.name != d.gpu.name).then(|| sc.gpu.name.clone().unwrap_or_default()),
        set: |sc, v| {
            super::check_gpu(v)?;
            sc.gpu.name = Some(v.to_owned());
            Ok(())
        },
    },
    Field {
        key: "mem",
        get: |sc, d| {
            (sc.gpu.memory_bytes != d.gpu.memory_bytes).then(|| match sc.gpu.memory_bytes {
                Some(b) if b % GIB == 0 => format!("{}GiB", b / GIB),
                Some(b) => b.to_string(),
                None => "auto".to_owned(),
            })
        },
        set: |sc, v| {
            sc.gpu.memory_bytes = if v == "auto" {
                None
            } else {
                Some(parse_memory(v)?)
            };
            Ok(())
        },
    },
];

fn parse_choice<T: Choice>(v: &str) -> Result<T, String> {
    T::parse(v).ok_or_else(|| format!("\"{v}\" is not one of: {}", T::allowed()))
}

pub(super) fn parse_u64_in(v: &str, min: u64, max: u64) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("\"{v}\" is not a whole number from {min} to {max}")),
    }
}

fn parse_f64(v: &str, ok: impl Fn(f64) -> bool, range: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && ok(x) => Ok(x),
        _ => Err(format!("\"{v}\" is not a number from {range}")),
    }
}

pub(super) fn parse_bool(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("\"{v}\" is not 1 or 0")),
    }
}

pub(super) fn bool_text(b: bool) -> String {
    if b { "1" } else { "0" }.to_owned()
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
        _ => match number.parse::<f64>() {
            // Fractional sizes (`23.5GiB`) round to whole bytes.
            Ok(x) if scale > 0 && x.is_finite() => {
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
