//! BLIP-2 and InstructBLIP (`blip-2`, `instructblip`; their
//! `ForConditionalGeneration` classes, transformers 5.24): an EVA-CLIP ViT
//! (biased q/k/v by `qkv_bias`, CLIP's layer), a Q-Former of BERT layers
//! whose `num_query_tokens` learned queries cross-attend to the patches
//! every `cross_attention_frequency` layers, a linear to the text width,
//! and any language model transformers builds from `text_config` (OPT by
//! default; Llama, Qwen2, T5 …), tied by its own flag. InstructBLIP's
//! Q-Former also reads the instruction: its word and position embeddings
//! and a second MLP in every layer. The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`); an image is the tower's
//! `(image/patch)² + 1` tokens and `num_query_tokens` placeholders in the
//! text (`ImageRule::Fixed`).

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_TOTAL_PARAMS};

/// The wrapper: the language model, the tower, the Q-Former and the
/// projection.
pub(super) fn import_blip2(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "opt")?;
    let mut spec = import_text(&text)?;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let vi = |key: &'static str, default: u64, max: u64| -> Result<u64> {
        Ok(v.int(&[key], 1, max)?.unwrap_or(default))
    };
    let e = vi("hidden_size", 1408, MAX_DIM)?;
    let inter = vi("intermediate_size", 6144, MAX_DIM)?;
    let layers = vi("num_hidden_layers", 39, MAX_LAYERS)?;
    let heads = vi("num_attention_heads", 16, MAX_HEADS)?;
    let image = vi("image_size", 224, MAX_IMAGE_SIZE)?;
    let patch = vi("patch_size", 14, image)?;
    let (ee, ii) = (u128::from(e), u128::from(inter));
    let qkv_bias = u128::from(v.flag("qkv_bias", true)?);
    let positions = u128::from(image / patch).pow(2) + 1;
    // class embedding, a biased patch conv, the positions; per layer q/k/v
    // (biased by `qkv_bias`), a biased output, fc1, fc2 and two LayerNorms;
    // the post-LayerNorm
    let tower = ee
        + 3 * u128::from(patch).pow(2) * ee
        + ee
        + positions * ee
        + u128::from(layers) * (4 * ee * ee + 2 * ee * ii + ii + 6 * ee + 3 * ee * qkv_bias)
        + 2 * ee;
    let q = cfg.object_or_empty("qformer_config", &empty)?;
    let qi = |key: &'static str, default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(q.int(&[key], 1, max)?.unwrap_or(default)))
    };
    let h = qi("hidden_size", 768, MAX_DIM)?;
    let q_inter = qi("intermediate_size", 3072, MAX_DIM)?;
    let q_layers = qi("num_hidden_layers", 12, MAX_LAYERS)?;
    let every = qi("cross_attention_frequency", 2, MAX_LAYERS)?;
    let instruct = model_type == "instructblip";
    // the query MLP, and the text MLP where the Q-Former reads text
    let mlps = if instruct || q.flag("use_qformer_text_input", false)? {
        2
    } else {
        1
    };
    let ffn = 2 * h * q_inter + q_inter + 3 * h;
    let cross_layers = q_layers.div_ceil(every);
    let extra = if instruct {
        (qi("vocab_size", 30_522, MAX_DIM)? + qi("max_position_embeddings", 512, MAX_DIM)?) * h
            + 2 * h
    } else {
        2 * h
    };
    let qformer = q_layers * (4 * h * h + 6 * h + mlps * ffn)
        + cross_layers * (2 * h * h + 2 * ee * h + 6 * h)
        + extra;
    let queries = u128::from(cfg.int(&["num_query_tokens"], 1, MAX_DIM)?.unwrap_or(32));
    let t = u128::from(spec.hidden);
    let glue = queries * h + h * t + t;
    let total = u128::from(spec.total_params()) + tower + qformer + glue;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    let shape = super::vlm::tower_shape(e, layers, heads, inter, image, patch);
    spec.vision = Some(super::vlm::counted(shape, tower, qformer + glue)?);
    spec.name = model_type.to_string();
    Ok(spec)
}

/// Every image: the tower's patches and class token, `num_query_tokens`
/// placeholders in the text.
pub(super) fn image_rule(cfg: &Value) -> crate::image_tokens::ImageRule {
    use super::json_path::number;
    let image = number(cfg, &[&["vision_config", "image_size"]], 224);
    let patch = number(cfg, &[&["vision_config", "patch_size"]], 14).max(1);
    crate::image_tokens::ImageRule::Fixed {
        tower: (image / patch).pow(2) + 1,
        language_model: number(cfg, &[&["num_query_tokens"]], 32),
    }
}
