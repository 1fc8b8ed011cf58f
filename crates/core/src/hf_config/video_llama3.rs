//! VideoLLaMA3 (`video_llama_3`, `VideoLlama3ForConditionalGeneration`,
//! transformers 5.24): a language model from `text_config` (Qwen2 by
//! default, any `model_type` it names), SigLIP's encoder as its tower
//! without the position table (2-D axial rotary instead, no weights) and
//! without the pooling head, and a projector `Linear(tower → text)`,
//! GELU, `Linear(text → text)`. Its image processor is Qwen2-VL's resize
//! at 14 px patches with `merge_size` 1: every patch is a language-model
//! token (up to 5,120 per image). Its video processor splits the pixel
//! budget over the frames and prunes unchanged tokens by content, which
//! the estimate does not model: video is refused rather than guessed.

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, siglip_encoder, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: the text model (`Qwen2Config()` without a `text_config`),
/// tied when either tie flag is set (`__post_init__` raises the wrapper's
/// from the text's; the model reads the wrapper's), the tower at
/// `VideoLlama3VisionConfig`'s defaults (SigLIP-base's sizes, 16 px
/// patches) and the projector.
pub(super) fn import_video_llama3(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "qwen2")?;
    let text_tied = text.flag("tie_word_embeddings", false)?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)? || text_tied;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(768);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(12);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    // no position table: 0 rows
    let tower = siglip_encoder(d, layers, m, patch, channels, 0, false);
    let (dw, h) = (u128::from(d), u128::from(spec.hidden));
    let projector = (dw * h + h) + (h * h + h);
    // the tower reads each image at its own size (the image rule's); its
    // shape's square is the processor's smallest side (56 px)
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, patch.max(56), patch),
        tower,
        projector,
    )?);
    spec.name = "video_llama_3".to_string();
    Ok(spec)
}
