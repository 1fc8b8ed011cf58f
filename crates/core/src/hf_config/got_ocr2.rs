//! GOT-OCR 2.0 (`got_ocr2`, `GotOcr2ForConditionalGeneration`,
//! transformers 5.24): SAM's ViT-B (its `vision_config`), a projector of
//! two stride-2 3 × 3 convolutions (O → 2O → text width, no biases) and a
//! biased linear, over a Qwen2 language model (Qwen2-0.5B-sized by default;
//! a `text_config` dict replaces those defaults whole, as the config class
//! does). Only the wrapper's `tie_word_embeddings` (default True) ties the
//! head. The parameters are exact (`tests/data/params/hf_variants_2026.csv`);
//! images are InternVL's tiles when the processor crops
//! (`ImageRule::GotOcr2`).

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_TOTAL_PARAMS};

/// The wrapper: the text model, SAM and the projector.
pub(super) fn import_got_ocr2(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    // GotOcr2Config's text default
    let small = cfg.object_over_defaults(
        "text_config",
        r#"{"model_type":"qwen2","vocab_size":151860,"hidden_size":1024,"intermediate_size":2816,
        "num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16}"#,
        false,
    )?;
    let text = Cfg::new(&small, "text_config.");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let t = u128::from(spec.hidden);
    // SAM as DeepSeek-OCR counts it, its two stride-2 convolutions being
    // this projector's (O → 2O → text width)
    let mut sam_config = match cfg.obj.get("vision_config") {
        Some(Value::Object(v)) => v.clone(),
        _ => Map::new(),
    };
    let out = sam_config
        .get("output_channels")
        .and_then(Value::as_u64)
        .unwrap_or(256)
        .min(MAX_DIM);
    sam_config.insert(
        "downsample_channels".into(),
        Value::from(vec![2 * out, spec.hidden]),
    );
    let mut wrapped = Map::new();
    wrapped.insert("sam_config".into(), Value::Object(sam_config));
    let (sam, shape) =
        super::deepseek_ocr2::sam(&Cfg::new(&wrapped, "vision_config."), (512, 1024))?;
    let linear = t * t + t;
    let total = u128::from(spec.total_params()) + sam + linear;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.vision = Some(super::vlm::counted(shape, sam, linear)?);
    spec.name = "got_ocr2".to_string();
    Ok(spec)
}

/// The tiles' rule from `preprocessor_config.json` (`size`,
/// `crop_to_patches`, `min_patches`, `max_patches`) and the processor's
/// `num_image_tokens` (256); without a size, the tower's `image_size`
/// (the class's 384 px tiles do not run its 1024 px tower).
pub(super) fn image_rule(cfg: &Value, pre: &Value) -> crate::image_tokens::ImageRule {
    use super::json_path::number;
    let tower = number(cfg, &[&["vision_config", "image_size"]], 1024);
    let crop = pre
        .get("crop_to_patches")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    crate::image_tokens::ImageRule::GotOcr2 {
        tile: number(pre, &[&["size", "height"]], tower),
        patch: number(cfg, &[&["vision_config", "patch_size"]], 16),
        min_tiles: number(pre, &[&["min_patches"]], 1),
        max_tiles: if crop {
            number(pre, &[&["max_patches"]], 12)
        } else {
            1
        },
        tokens_per_tile: number(pre, &[&["num_image_tokens"]], 256),
    }
}
