//! Florence-2 (`florence2`, `Florence2ForConditionalGeneration`,
//! transformers 5.24): a DaViT vision backbone, a projector, and a BART
//! language model (`text_config`) whose encoder reads the image's tokens
//! beside the text. Counted as `modeling_florence2.py` builds it
//! (`tests/data/params/hf_variants_2026.csv`):
//! - each DaViT stage opens with a strided convolution (biased) and a
//!   LayerNorm over its input (`patch_prenorm`) or its output, then
//!   `depths[k]` blocks, each a spatial (window attention over `num_heads`)
//!   and a channel (attention over `num_groups`) sub-block: two depthwise
//!   3×3 convolutions (biased), two LayerNorms, qkv (biased with
//!   `qkv_bias`) and a biased proj, and a biased MLP of `mlp_ratio` × width;
//! - the projector: an unbiased linear to `projection_dim`, its LayerNorm,
//!   and row and column position tables of `max_position_embeddings` rows
//!   that share the last stage's width (the temporal table is a buffer);
//! - the head, tied by the wrapper's flag (default tied).
//!
//! Every image is resized to the processor's square (768 px) and leaves the
//! backbone as a grid of side / 32 (the product of the stages' strides)
//! plus one pooled token. The tower's shape here is its last stage's; its
//! earlier, wider-grid stages are not in the activations of a trained tower.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_LAYERS};

/// Florence2VisionConfig's defaults (Florence-2-base's backbone).
const DEPTHS: [u64; 4] = [1, 1, 9, 1];
const WIDTHS: [u64; 4] = [128, 256, 512, 1024];
const HEADS: [u64; 4] = [4, 8, 16, 32];
const PATCHES: [u64; 4] = [7, 3, 3, 3];
const STRIDES: [u64; 4] = [4, 2, 2, 2];
const PRENORM: [bool; 4] = [false, true, true, true];

/// The processor's square (`size` 768 × 768 in Florence-2's checkpoints).
pub(super) const IMAGE_SIDE: u64 = 768;

/// A per-stage list of numbers (at least `least` each), or the class's.
fn stage_ints(v: &Cfg, key: &str, least: u64, default: &[u64]) -> Result<Vec<u64>> {
    Ok(v.ints(key, least, MAX_DIM)?
        .unwrap_or_else(|| default.to_vec()))
}

/// Reads a Florence-2 config; its language model is BART's (`text_config`,
/// a `bart` config, whose class fills what it leaves out).
pub(super) fn import_florence2(cfg: &Cfg) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("bart");
    let mut spec = super::bart::import_bart(&text, "bart")?;
    // the language model is `BartModel` (no head of its own); the wrapper's
    // head is tied by its own flag
    let counts = spec.param_counts();
    let body =
        u128::from(spec.params_override.unwrap_or(counts.total)) - u128::from(counts.lm_head);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let head = u128::from(spec.param_counts().lm_head);
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (tower, shape) = backbone(&v)?;
    let last = u128::from(shape.hidden);
    let projection = u128::from(v.int(&["projection_dim"], 1, MAX_DIM)?.unwrap_or(1024));
    let positions = u128::from(
        v.int(&["max_position_embeddings"], 1, MAX_DIM)?
            .unwrap_or(50),
    );
    let projector = last * projection + 2 * projection + positions * last;
    spec.vision = Some(super::vlm::counted(shape, tower, projector)?);
    let total = body + head + tower + projector;
    spec.params_override = Some(super::vlm::narrow(total, "config.json")?);
    spec.name = "florence2".to_string();
    Ok(spec)
}

/// DaViT's parameters and its last stage's shape.
fn backbone(v: &Cfg) -> Result<(u128, crate::model::VisionTower)> {
    // a stage may have no blocks (its convolution still runs)
    let depths = stage_ints(v, "depths", 0, &DEPTHS)?;
    let widths = stage_ints(v, "embed_dim", 1, &WIDTHS)?;
    let heads = stage_ints(v, "num_heads", 1, &HEADS)?;
    let patches = stage_ints(v, "patch_size", 1, &PATCHES)?;
    let prenorm: Vec<bool> = match v.array("patch_prenorm")? {
        Some(list) => list.iter().map(|b| b.as_bool().unwrap_or(false)).collect(),
        None => PRENORM.to_vec(),
    };
    let stages = widths.len();
    for (key, n) in [
        ("depths", depths.len()),
        ("num_heads", heads.len()),
        ("patch_size", patches.len()),
        ("patch_prenorm", prenorm.len()),
    ] {
        if n != stages {
            return Err(InputError::new(
                v.field(key),
                format!("lists {n} stages but embed_dim lists {stages}"),
            ));
        }
    }
    let channels = u128::from(v.int(&["in_channels"], 1, 64)?.unwrap_or(3));
    let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let qkv_bias = u128::from(v.flag("qkv_bias", true)?);
    let mut total: u128 = 0;
    let mut input = channels;
    for k in 0..stages {
        let d = u128::from(widths[k]);
        let p = u128::from(patches[k]);
        let norm = if prenorm[k] { input } else { d };
        total += input * d * p * p + d + 2 * norm;
        // `int(embed_dim * mlp_ratio)`
        let m = (widths[k] as f64 * ratio) as u128;
        let sub_block = 2 * (9 * d + d)
            + 2 * 2 * d
            + (3 * d * d + 3 * d * qkv_bias)
            + (d * d + d)
            + (d * m + m)
            + (m * d + d);
        total += u128::from(depths[k]) * 2 * sub_block;
        input = d;
    }
    let last = *widths.last().unwrap_or(&1);
    let layers: u64 = depths.iter().sum::<u64>().clamp(1, MAX_LAYERS);
    let side = IMAGE_SIDE;
    let stride = v
        .ints("patch_stride", 1, 64)?
        .unwrap_or_else(|| STRIDES.to_vec())
        .iter()
        .product::<u64>()
        .clamp(1, side);
    let shape = super::vlm::tower_shape(
        last,
        layers,
        heads.last().copied().unwrap_or(1).clamp(1, MAX_HEADS),
        (last as f64 * ratio) as u64,
        side,
        stride,
    );
    Ok((total, shape))
}
