//! PaddleOCR-VL (`paddleocr_vl`, `PaddleOCRVLForConditionalGeneration`,
//! transformers 5.24): ERNIE-4.5's language model (`paddleocr_vl_text` is
//! `Ernie4_5Config` with M-RoPE), a SigLIP tower at each image's own
//! resolution (its learned 27 × 27 position table interpolated, 2-D rotary
//! attention, a post-layernorm, no pooling head) and a projector that
//! norms every patch, merges `spatial_merge_size`² of them and maps them
//! through two linears. Its image processor is Qwen2-VL's pipeline with a
//! resize of its own (`image_tokens::resize::paddle_resize`).

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, siglip_params, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_IMAGE_SIZE};

/// The wrapper: its text model (`text_config`, or the text keys at the top
/// of a flat config, as the Hub's is and as the config class moves them),
/// the tower and the projector; tied unless both tie flags are false (both
/// default true, and `__post_init__` raises the wrapper's from the text's).
pub(super) fn import_paddleocr_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let (text, text_tied) = match cfg.object("text_config")? {
        Some(text) => {
            let tied = text.flag("tie_word_embeddings", true)?;
            (text, tied)
        }
        // a flat config's `tie_word_embeddings` is the wrapper's: the text
        // config it builds keeps its default (tied)
        None => (Cfg::new(cfg.obj, &cfg.prefix), true),
    };
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)? || text_tied;
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    // PaddleOCRVisionConfig's defaults (SigLIP-so400m's sizes)
    let (d, m, layers, heads) = super::vlm::so400m_dims(&v)?;
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(384);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(14);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let (dw, h) = (u128::from(d), u128::from(spec.hidden));
    // SigLIP's encoder without its pooling head (the rotary has no weights)
    let tower = siglip_params(d, layers, m, image, patch, channels, false);
    // pre_norm (LayerNorm of the tower width), then linear_1 (D → D) and
    // linear_2 (D → text), both biased, D = tower width × merge²
    let merged = dw * u128::from(merge).pow(2);
    let projector = 2 * dw + (merged * merged + merged) + (merged * h + h);
    spec.name = "paddleocr_vl".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        projector,
    )?);
    Ok(spec)
}
