//! Cosmos3-Edge (`cosmos3_edge`, `Cosmos3EdgeForConditionalGeneration`,
//! transformers 5.24): a Llama decoder with Arcee's relu² MLP of two
//! matrices (`fc1`, `fc2`) and interleaved M-RoPE (`cosmos3_edge_text`),
//! a SigLIP2 tower (a linear patch embedding, a learned 16 × 16 position
//! table resized to each image's grid, a post-layernorm, no head) and a
//! projector that norms every patch before merging `spatial_merge_size`²
//! of them through `fc1` and `fc2`. Its head is never tied. Its image
//! processor is GLM-4V's resize (`image_rule.rs`).

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, siglip_encoder, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM};

/// The wrapper: its text model, the tower and the projector; the head
/// always its own (`_tied_weights_keys` is empty).
pub(super) fn import_cosmos3_edge(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "cosmos3_edge_text")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = false;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    // Cosmos3EdgeVisionConfig's defaults (SigLIP2's so400m sizes)
    let (d, m, layers, heads) = super::vlm::so400m_dims(&v)?;
    let patch = v.int(&["patch_size"], 1, 4096)?.unwrap_or(16);
    let positions = v.int(&["num_patches"], 1, MAX_DIM)?.unwrap_or(256);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let width = cfg
        .int(&["projector_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(11520);
    let (dw, h, p) = (u128::from(d), u128::from(spec.hidden), u128::from(width));
    // SigLIP2's encoder (a linear patch embedding, `num_patches` position
    // rows) without a head
    let tower = siglip_encoder(d, layers, m, patch, channels, u128::from(positions), false);
    // a LayerNorm over each unmerged patch, fc1 (merge²·d → P), fc2 (P → text)
    let projector = 2 * dw + (u128::from(merge).pow(2) * dw * p + p) + (p * h + h);
    // the side of the position grid, for the estimate's default image
    let side = (positions as f64).sqrt() as u64;
    spec.name = "cosmos3_edge".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, side.max(1) * patch, patch),
        tower,
        projector,
    )?);
    Ok(spec)
}
