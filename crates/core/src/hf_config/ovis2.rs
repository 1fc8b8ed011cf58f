//! Ovis2 (`ovis2`, `Ovis2ForConditionalGeneration`, transformers 5.24): a
//! Qwen2 language model (`text_config`), an AIMv2-like tower (RMSNorms,
//! a SwiGLU MLP, a learned position table, no class token), its visual
//! tokenizer (a linear to `vocab_size − num_visual_indicator_tokens`
//! visual words over `hidden_stride²` merged patches, with a LayerNorm) and
//! the table of visual-word embeddings. The head and the visual table are
//! sized by the wrapper's `hidden_size` and `vocab_size` (the checkpoints
//! set them to the text model's); only the wrapper's `tie_word_embeddings`
//! (default True) ties the head. The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`); images are its processor's
//! tiles (`ImageRule::Ovis2`).

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_TOTAL_PARAMS};

/// The wrapper: the text model, the tower, the visual tokenizer and table.
pub(super) fn import_ovis2(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "qwen2")?;
    let mut spec = import_text(&text)?;
    // the text model alone: its embedding counted once
    spec.tied_embeddings = true;
    let text_model = u128::from(spec.param_counts().total);
    let tied = cfg.flag("tie_word_embeddings", true)?;
    spec.tied_embeddings = tied;
    let wrapper_hidden = u128::from(cfg.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1536));
    let wrapper_vocab = u128::from(cfg.int(&["vocab_size"], 1, MAX_DIM)?.unwrap_or(151_643));
    let head = if tied {
        0
    } else {
        wrapper_hidden * wrapper_vocab
    };
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let w = |key: &'static str, default: u64, max: u64| -> Result<u64> {
        Ok(v.int(&[key], 1, max)?.unwrap_or(default))
    };
    let d = w("hidden_size", 1024, MAX_DIM)?;
    let inter = w("intermediate_size", 2816, MAX_DIM)?;
    let layers = w("num_hidden_layers", 24, MAX_LAYERS)?;
    let heads = w("num_attention_heads", 8, MAX_HEADS)?;
    let channels = w("num_channels", 3, 64)?;
    let image = w("image_size", 224, MAX_IMAGE_SIZE)?;
    let patch = w("patch_size", 14, image)?;
    let words = w("vocab_size", 16_384, MAX_DIM)?;
    let stride = w("hidden_stride", 1, 64)?;
    let indicators = v
        .int(&["num_visual_indicator_tokens"], 0, MAX_DIM)?
        .unwrap_or(5);
    if indicators >= words {
        return Err(InputError::new(
            v.field("num_visual_indicator_tokens"),
            format!("is {indicators}: it must be under the visual vocabulary ({words})"),
        ));
    }
    let (dd, ii) = (u128::from(d), u128::from(inter));
    let qkv_bias = u128::from(v.flag("qkv_bias", false)?);
    let mlp_bias = u128::from(v.flag("mlp_bias", false)?);
    // patch projection with its bias, its RMSNorm, the position table; per
    // layer q/k/v/o (biased by `qkv_bias`), SwiGLU (by `mlp_bias`), two
    // RMSNorms; the final RMSNorm
    let tower = u128::from(channels) * u128::from(patch).pow(2) * dd
        + dd
        + u128::from(image / patch).pow(2) * dd
        + dd
        + u128::from(layers)
            * (4 * dd * dd + 4 * dd * qkv_bias + 3 * dd * ii + (2 * ii + dd) * mlp_bias + 2 * dd)
        + dd;
    let visual = u128::from(words - indicators);
    // the visual head (no bias) and its LayerNorm, then the visual table
    let tokenizer = dd * u128::from(stride).pow(2) * visual + 2 * visual;
    let table = u128::from(words) * wrapper_hidden;
    let total = text_model + head + tower + tokenizer + table;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    // its layers' saved tensors were not measured: a GPT-2-style block
    // stands in (`TowerBlock::Other`)
    let shape = super::vlm::tower_shape(d, layers, heads, inter, image, patch);
    spec.vision = Some(super::vlm::counted(shape, tower, tokenizer + table)?);
    spec.params_override = Some(total as u64);
    spec.name = "ovis2".to_string();
    Ok(spec)
}

/// The tiles' rule from `preprocessor_config.json` (`size`,
/// `crop_to_patches`, `min_patches`, `max_patches`,
/// `use_covering_area_grid`) and the processor's `image_seq_length` (read
/// from the same file when there). Without a file: the checkpoints'
/// conversion settings (448 px tiles cropped, up to 12 by the covering
/// grid), the tile the tower's `image_size`.
pub(super) fn image_rule(cfg: &Value, pre: &Value) -> crate::image_tokens::ImageRule {
    use super::json_path::number;
    let image = number(cfg, &[&["vision_config", "image_size"]], 448);
    let flag = |key: &str, default: bool| pre.get(key).and_then(Value::as_bool).unwrap_or(default);
    let crop = flag("crop_to_patches", true);
    crate::image_tokens::ImageRule::Ovis2(crate::image_tokens::OvisTiles {
        tile: number(pre, &[&["size", "height"]], image),
        patch: number(cfg, &[&["vision_config", "patch_size"]], 14),
        seq: number(pre, &[&["image_seq_length"]], 256),
        min_tiles: number(pre, &[&["min_patches"]], 1),
        max_tiles: if crop {
            number(pre, &[&["max_patches"]], 12)
        } else {
            1
        },
        covering: flag("use_covering_area_grid", true),
    })
}
