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
/// (HQQ, Quanto, AQLM, NVFP4: the weights stay as the scenario says).
pub fn checkpoint_weights(json: &str) -> Result<Option<CheckpointWeights>> {
    let root = super::pyjson::config_root(json)?;
    let cfg = Cfg::new(&root, "");
    // A VLM wrapper may keep it on its language model.
    let q = match cfg.object("quantization_config")? {
        Some(q) => q,
        None => match cfg.object("text_config")? {
            Some(text) => match text.object("quantization_config")? {
                Some(q) => q,
                None => return Ok(None),
            },
            None => return Ok(None),
        },
    };
    read(&q)
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
        "mxfp4" => Some(plain(WeightFormat::Mxfp4)),
        "modelopt" if q.string("quant_algo")? == Some("FP8") => Some(plain(WeightFormat::Fp8)),
        "compressed-tensors" => compressed_tensors(q)?,
        _ => None,
    })
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
