//! The video rule of a VLM read from its `config.json`: the processor
//! transformers' `video_processing_auto` maps the model type to, with the
//! tower's patch, merge and temporal sizes.

use serde_json::Value;

use crate::error::{InputError, Result};
use crate::video_tokens::VideoRule;

/// `None` for a model whose processor takes no video; an error for text
/// that is not a config.
pub fn video_rule_from_config(json: &str) -> Result<Option<VideoRule>> {
    let cfg: Value = serde_json::from_str(&super::pyjson::strict_json(json))
        .map_err(|e| InputError::new("config.json", format!("not JSON: {e}")))?;
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("");
    let vision = cfg.get("vision_config").unwrap_or(&Value::Null);
    let size = |key: &str, default: u64| -> Result<u64> {
        match vision.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=4096).contains(n))
                .ok_or_else(|| {
                    InputError::new(
                        format!("config.json: vision_config.{key}"),
                        format!("expected a whole number from 1 to 4096, got {v}"),
                    )
                }),
        }
    };
    Ok(match model_type {
        // Qwen2VLVideoProcessor (video_processing_auto: qwen2_vl, qwen2_5_vl)
        "qwen2_vl" | "qwen2_5_vl" => Some(VideoRule::qwen2(
            size("patch_size", 14)?,
            size("spatial_merge_size", 2)?,
            size("temporal_patch_size", 2)?,
        )),
        // Qwen3VLVideoProcessor (qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe,
        // qwen4_exp); LFM3-VL maps to it too.
        // Cosmos3-Nano's video processor is Qwen3-VL's too.
        "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" | "qwen4_exp" | "lfm3_vl"
        | "cosmos3_omni" => Some(VideoRule::qwen3(
            size("patch_size", 16)?,
            size("spatial_merge_size", 2)?,
            size("temporal_patch_size", 2)?,
        )),
        // Dots3-Note maps to Qwen3VLVideoProcessor over a tower that embeds
        // single frames (a 2-D patch convolution): one frame per temporal patch
        "dots3_note" => Some(VideoRule::qwen3(
            size("patch_size", 14)?,
            size("spatial_merge_size", 2)?,
            size("temporal_patch_size", 1)?,
        )),
        // VideoLlavaVideoProcessor: frames cropped to the tower's square.
        // VideoLlavaConfig's own tower is CLIP-L/14 at 224 px; a
        // `vision_config` it is given fills its gaps from CLIPVisionConfig
        // (224 px, 32 px patches).
        "video_llava" => {
            let patch_default = if vision.is_null() { 14 } else { 32 };
            let side = size("image_size", 224)? / size("patch_size", patch_default)?;
            (side > 0).then_some(VideoRule::Frames { side })
        }
        _ => None,
    })
}
