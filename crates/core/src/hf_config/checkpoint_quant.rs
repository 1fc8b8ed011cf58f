//! The weight format of a checkpoint, read from its `quantization_config`
//! as transformers' quantizers name it (`quantizers/auto.py`): the faces
//! start the scenario from it instead of 16-bit weights.

use super::reader::Cfg;
use crate::error::Result;
use crate::precision::WeightFormat;
use crate::scenario::checkpoint::CheckpointWeights;
use crate::scenario::limits::MAX_GROUP_SIZE;

/// The format a `config.json`'s `quantization_config` stores the weights
/// in; `None` without one, or for a method the estimator has no format for
/// (HQQ, AQLM, VPTQ, HIGGS, NVFP4: the weights stay as the scenario says,
/// and [`unmodelled_quantization`] names the method).
pub fn checkpoint_weights(json: &str) -> Result<Option<CheckpointWeights>> {
    let root = super::pyjson::config_root(json)?;
    match quantization_config(&Cfg::new(&root, ""))? {
        Some(q) => read(&q),
        None => Ok(None),
    }
}

/// The `quant_method` of a `quantization_config` that sets no weight
/// format here, so that the faces can say the weights were not read from
/// it; `None` without one or when [`checkpoint_weights`] reads it.
pub fn unmodelled_quantization(json: &str) -> Option<String> {
    let root = super::pyjson::config_root(json).ok()?;
    let q = quantization_config(&Cfg::new(&root, "")).ok()??;
    if read(&q).ok()?.is_some() {
        return None;
    }
    let method = q.string("quant_method").ok()?.unwrap_or("unnamed");
    // a name, not a paste: at most 40 characters of it
    Some(method.chars().take(40).collect())
}

/// The config's `quantization_config`, or its language model's (a VLM
/// wrapper may keep it there).
fn quantization_config<'a>(cfg: &Cfg<'a>) -> Result<Option<Cfg<'a>>> {
    if let Some(q) = cfg.object("quantization_config")? {
        return Ok(Some(q));
    }
    match cfg.object("text_config")? {
        Some(text) => text.object("quantization_config"),
        None => Ok(None),
    }
}

fn read(q: &Cfg) -> Result<Option<CheckpointWeights>> {
    let bits = q.int(&["bits", "w_bit"], 1, 64)?;
    let group_size = group(q, &["group_size", "q_group_size"])?;
    let plain = |weights| CheckpointWeights {
        weights,
        group_size: None,
        double_quant: false,
    };
    let grouped = |weights| CheckpointWeights {
        weights,
        group_size,
        double_quant: false,
    };
    Ok(match q.string("quant_method")?.unwrap_or_default() {
        "awq" if bits.is_none_or(|b| b == 4) => Some(grouped(WeightFormat::Awq4)),
        // AutoRound exports GPTQ's packing
        "gptq" | "auto-round" | "autoround" if bits == Some(4) => {
            Some(grouped(WeightFormat::Gptq4))
        }
        "gptq" if bits == Some(8) => Some(plain(WeightFormat::Int8)),
        "bitsandbytes" => {
            let four = q.flag("load_in_4bit", false)? || q.flag("_load_in_4bit", false)?;
            let eight = q.flag("load_in_8bit", false)? || q.flag("_load_in_8bit", false)?;
            if four {
                let fp4 = q.string("bnb_4bit_quant_type")? == Some("fp4");
                Some(CheckpointWeights {
                    weights: if fp4 {
                        WeightFormat::Fp4
                    } else {
                        WeightFormat::Nf4
                    },
                    group_size: None,
                    double_quant: q.flag("bnb_4bit_use_double_quant", false)?,
                })
            } else {
                eight.then(|| plain(WeightFormat::Int8))
            }
        }
        "fp8" | "fbgemm_fp8" => Some(plain(WeightFormat::Fp8)),
        // Quanto's and EETQ's `weights` (`QuantoConfig`, `EetqConfig`):
        // int8 with a scale per channel, float8
        "quanto" | "eetq" => match q.string("weights")?.unwrap_or("int8") {
            "int8" => Some(plain(WeightFormat::Int8)),
            "float8" => Some(plain(WeightFormat::Fp8)),
            _ => None,
        },
        "torchao" => torchao(q)?,
        "mxfp4" => Some(plain(WeightFormat::Mxfp4)),
        "modelopt" if q.string("quant_algo")? == Some("FP8") => Some(plain(WeightFormat::Fp8)),
        "compressed-tensors" => compressed_tensors(q)?,
        _ => None,
    })
}

/// torchao (`TorchAoConfig`): its `quant_type`, a name (`int4_weight_only`)
/// or a serialized config (`{"_type": "Int4WeightOnlyConfig", "_data":
/// {"group_size": 128}}`): int4 weight-only as GPTQ's packing with its
/// group's scale, int8 and float8 as themselves.
fn torchao(q: &Cfg) -> Result<Option<CheckpointWeights>> {
    let text = match q.obj.get("quant_type") {
        Some(value) => value.to_string().to_ascii_lowercase(),
        None => return Ok(None),
    };
    let weights = if text.contains("int4") {
        WeightFormat::Gptq4
    } else if text.contains("int8") {
        WeightFormat::Int8
    } else if text.contains("float8") || text.contains("fp8") {
        WeightFormat::Fp8
    } else {
        return Ok(None);
    };
    let group_size = match weights {
        WeightFormat::Gptq4 => group_in(&text).or(Some(128)),
        _ => None,
    };
    Ok(Some(CheckpointWeights {
        weights,
        group_size,
        double_quant: false,
    }))
}

/// The `group_size` a serialized torchao config states, if any.
fn group_in(text: &str) -> Option<u64> {
    let at = text.find("\"group_size\"")? + "\"group_size\"".len();
    let rest = text[at..].trim_start_matches([':', ' ']);
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end]
        .parse()
        .ok()
        .filter(|g| (1..=MAX_GROUP_SIZE).contains(g))
}

/// compressed-tensors (llm-compressor's checkpoints): the weights of its
/// first config group, `{num_bits, type, group_size}`.
fn compressed_tensors(q: &Cfg) -> Result<Option<CheckpointWeights>> {
    let Some(groups) = q.object("config_groups")? else {
        return Ok(None);
    };
    let Some(first) = groups.obj.keys().next() else {
        return Ok(None);
    };
    let Some(group_cfg) = groups.object(first)? else {
        return Ok(None);
    };
    let Some(weights) = group_cfg.object("weights")? else {
        return Ok(None);
    };
    let bits = weights.int(&["num_bits"], 1, 64)?;
    let float = weights.string("type")? == Some("float");
    let group_size = group(&weights, &["group_size"])?;
    let format = match (bits, float) {
        (Some(8), true) => WeightFormat::Fp8,
        (Some(8), false) => WeightFormat::Int8,
        // W4A16: GPTQ-style int4 with a scale per group
        (Some(4), false) => WeightFormat::Gptq4,
        _ => return Ok(None),
    };
    Ok(Some(CheckpointWeights {
        weights: format,
        group_size: group_size.filter(|_| format == WeightFormat::Gptq4),
        double_quant: false,
    }))
}

/// A quantization group; GPTQ's -1 (one scale per column) as the largest group.
fn group(q: &Cfg, keys: &[&str]) -> Result<Option<u64>> {
    for key in keys {
        if let Some(g) = q.float(key, -1.0, MAX_GROUP_SIZE as f64)? {
            return Ok(Some(if g < 1.0 { MAX_GROUP_SIZE } else { g as u64 }));
        }
    }
    Ok(None)
}
