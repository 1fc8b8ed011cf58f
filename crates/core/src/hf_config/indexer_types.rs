//! Which layers run their own DeepSeek Sparse Attention indexer, as the
//! config classes of GLM-MoE-DSA, GLM-5.3-Flash and Mistral Large 4 derive
//! it.

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::MAX_LAYERS;

/// Per layer, whether it runs its own indexer: `indexer_types` (`"full"`;
/// `"shared"` layers reuse the previous top-k), which GLM-MoE-DSA's and
/// GLM-5.3-Flash's configs derive only when it is absent, from `index_topk_pattern`
/// ("F"/"S" per layer, or a list of the two names) or from
/// `index_topk_freq` and `index_skip_topk_offset` (defaults 1 and 2: layer
/// i is full when max(i - offset + 1, 0) % freq == 0).
pub(super) fn full_indexers(cfg: &Cfg, layers: u64) -> Result<Vec<bool>> {
    let per_layer = |key: &str, listed: usize| -> Result<()> {
        if listed as u64 == layers {
            return Ok(());
        }
        Err(InputError::new(
            cfg.field(key),
            format!("needs one entry per layer ({layers}), not {listed}"),
        ))
    };
    let pattern = cfg.obj.get("index_topk_pattern").and_then(|v| v.as_str());
    if let (Some(pattern), None) = (pattern, cfg.array("indexer_types")?) {
        per_layer("index_topk_pattern", pattern.chars().count())?;
        return pattern
            .chars()
            .map(|c| match c {
                'F' => Ok(true),
                'S' => Ok(false),
                _ => Err(InputError::new(
                    cfg.field("index_topk_pattern"),
                    format!("needs one \"F\" or \"S\" per layer ({layers}), not '{c}'"),
                )),
            })
            .collect();
    }
    let (key, types) = match cfg.array("indexer_types")? {
        Some(types) => ("indexer_types", types),
        None => match cfg.array("index_topk_pattern")? {
            Some(types) => ("index_topk_pattern", types),
            None => {
                let freq = cfg
                    .int(&["index_topk_freq"], 0, MAX_LAYERS)?
                    .unwrap_or(1)
                    .max(1);
                let offset = cfg
                    .int(&["index_skip_topk_offset"], 0, MAX_LAYERS)?
                    .unwrap_or(2);
                return Ok((0..layers)
                    .map(|i| (i + 1).saturating_sub(offset) % freq == 0)
                    .collect());
            }
        },
    };
    per_layer(key, types.len())?;
    types
        .iter()
        .map(|t| match t.as_str() {
            Some("full") => Ok(true),
            Some("shared") => Ok(false),
            _ => Err(InputError::new(
                cfg.field(key),
                "entries must be \"full\" or \"shared\"",
            )),
        })
        .collect()
}
