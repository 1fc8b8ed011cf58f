//! MiniMax-M3 VL (`minimax_m3_vl`, `MiniMaxM3SparseForConditionalGeneration`,
//! transformers 5.24): the MiniMax-M3 language model (`minimax_m3_vl_text`),
//! a CLIP-like ViT with a bias-free Conv3d patch embedding and 3D rotary
//! positions (no position table, no post-norm, no merger inside it), and a
//! projector that lifts every patch to the text width before merging
//! `spatial_merge_size`² of them. Its image processor is Qwen2-VL's rule
//! (`hf_config/image_rule.rs`).

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, tower_shape, QWEN_DEFAULT_IMAGE};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, TowerBlock, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: its text model, `MiniMaxM3VLVisionModel` and
/// `MiniMaxM3VLMultiModalProjector`. The head is tied when the wrapper's
/// flag or the text config's says so (`__post_init__` raises the wrapper's
/// from the text's).
pub(super) fn import_minimax_m3_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "minimax_m3_vl_text")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings =
        cfg.flag("tie_word_embeddings", false)? || text.flag("tie_word_embeddings", false)?;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1280);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(5120);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(32);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!("{heads} heads do not divide hidden_size {d}: the tower refuses it"),
        ));
    }
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(14);
    let temporal = v.int(&["temporal_patch_size"], 1, 64)?.unwrap_or(2);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let projector_width = cfg
        .int(&["projector_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(6144);
    let (dw, mw) = (u128::from(d), u128::from(m));
    // embeddings.proj: Conv3d(C → d, (T, p, p)) without bias; pre_layrnorm
    let embed =
        u128::from(channels) * u128::from(temporal) * u128::from(patch).pow(2) * dw + 2 * dw;
    // each layer: biased q, k, v, out_proj; fc1, fc2; two LayerNorms
    let block = 4 * (dw * dw + dw) + 2 * dw * mw + mw + dw + 4 * dw;
    let tower = embed + u128::from(layers) * block;
    // linear_1 (d → P) and linear_2 (P → text) on every patch, then
    // merge_linear_1 (text·merge² → P) and merge_linear_2 (P → text), all
    // biased
    let (p, h) = (u128::from(projector_width), u128::from(spec.hidden));
    let merged = h * u128::from(merge).pow(2);
    let projector = (dw * p + p) + (p * h + h) + (merged * p + p) + (p * h + h);
    let mut shape = tower_shape(d, layers, heads, m, QWEN_DEFAULT_IMAGE.max(patch), patch);
    // Not measured for training: a CLIP-layout layer with an exact GELU
    // saves what SigLIP's does.
    shape.block = TowerBlock::Siglip;
    spec.name = "minimax_m3_vl".to_string();
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}
