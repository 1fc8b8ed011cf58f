//! FastVLM (`fast_vlm`, `FastVlmForConditionalGeneration`, transformers
//! 5.24): LLaVA's layout over a Qwen2 language model, its tower timm's
//! FastViT (`hf_config::fastvit`; FastViTHD, `fastvit_mci3`, by default),
//! pooled to `vision_config.hidden_size` features per token and a
//! two-linear projector (biased by `multimodal_projector_bias`). The head
//! is tied when either tie flag is set (the config copies the text's onto
//! the wrapper). Absent sub-configs take FastVLM-7B's (a dict replaces
//! them whole, as the config class does). The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`); images are CLIP's resize and
//! centre crop, a token per 64 px square (`ImageRule::Fixed`).

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_TOTAL_PARAMS};

/// The wrapper: the text model, the tower and the projector.
pub(super) fn import_fast_vlm(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    // FastVlmConfig's text default: Qwen2-7B's shape
    let seven_b = cfg.object_over_defaults(
        "text_config",
        r#"{"model_type":"qwen2","hidden_size":3584,"vocab_size":152128,"intermediate_size":18944,
        "num_attention_heads":28,"num_key_value_heads":4,"num_hidden_layers":28}"#,
        false,
    )?;
    let text = Cfg::new(&seven_b, "text_config.");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings =
        cfg.flag("tie_word_embeddings", false)? || text.flag("tie_word_embeddings", false)?;
    let mci3: Map<String, Value> = serde_json::from_str(
        r#"{"architecture":"fastvit_mci3","hidden_size":3072,"model_args":{"inference_mode":true}}"#,
    )
    .unwrap_or_default();
    let v = match cfg.object("vision_config")? {
        Some(v) => v,
        None => Cfg::new(&mci3, "vision_config."),
    };
    let (tower, (blocks, width, mlp)) = super::fastvit::fastvit(&v)?;
    let features = u128::from(v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(3072));
    let h = u128::from(spec.hidden);
    let bias = u128::from(cfg.flag("multimodal_projector_bias", true)?);
    let projector = features * h + h * h + 2 * h * bias;
    let total = u128::from(spec.total_params()) + tower + projector;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    // A hybrid of convolutions and attention: its saved tensors were not
    // measured, a GPT-2-style block of its widest stage stands in, over the
    // tokens it hands on (a 64 px square each at its 1024 px square).
    let heads = (width / 64).max(1);
    let shape = super::vlm::tower_shape(width, blocks, heads, mlp, 1024, 64);
    spec.vision = Some(super::vlm::counted(shape, tower, projector)?);
    spec.name = "fast_vlm".to_string();
    Ok(spec)
}

/// The image rule from `preprocessor_config.json` (CLIPImageProcessor's
/// `crop_size`, 1024 in the checkpoints) and the processor's `patch_size`
/// (64): every image is cropped to the square, a token per `patch` square
/// for the tower to hand on. Without the crop the processor keeps the
/// aspect and its token count (floored) disagrees with the tower's
/// (rounded up), which the model refuses unless both sides are multiples
/// of the patch: refused here.
pub(super) fn image_rule(pre: &Value) -> Result<crate::image_tokens::ImageRule> {
    use super::json_path::number;
    if pre.get("do_center_crop").and_then(Value::as_bool) == Some(false) {
        return Err(InputError::new(
            "preprocessor_config.json: do_center_crop",
            "is false: FastVLM's tower and its placeholders then disagree for most image sizes \
             (its model refuses them); supported: the centre crop its checkpoints ship",
        ));
    }
    let crop = |side: &str| number(pre, &[&["crop_size", side]], 1024);
    let patch = number(pre, &[&["patch_size"]], 64).max(1);
    let (height, width) = (crop("height"), crop("width"));
    if height % patch != 0 || width % patch != 0 {
        return Err(InputError::new(
            "preprocessor_config.json: crop_size",
            format!(
                "{width}x{height} is not a multiple of {patch} px a side: the tower hands on a token per started {patch} px square, the processor writes one per whole square, and the model refuses the difference"
            ),
        ));
    }
    let tokens = (height / patch) * (width / patch);
    Ok(crate::image_tokens::ImageRule::Fixed {
        tower: tokens,
        language_model: tokens,
    })
}
