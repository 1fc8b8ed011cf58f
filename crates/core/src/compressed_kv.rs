//! The cache of DeepSeek-V4's compressed attention, beside its window
//! (`DeepseekV4CSACache` and `DeepseekV4HCACache` in transformers 5.24's
//! `modeling_deepseek_v4.py`; measured in `tests/data/cache/`).
//!
//! After T tokens, with s the cache dtype's bytes, D = `head_dim`,
//! Di = `index_head_dim`, m the layer's rate:
//! - a compressed-sparse (CSA) layer keeps ⌊T/m⌋ entries of its compressor
//!   (D) and of its indexer (Di); the kv and gate projections of the
//!   T mod m tokens of the entry being filled, each 2·(D + Di) wide (its
//!   entries overlap their neighbours'); and, once T ≥ m, the previous
//!   entry's m rows of kv (model dtype) and gate (fp32, as its position
//!   bias is), D + Di wide.
//! - a heavily compressed (HCA) layer keeps ⌊T/m⌋ entries of D, and the kv
//!   and gate of the T mod m tokens of the open entry, D each.
//!
//! The window (every layer, T capped at `sliding_window` − 1) is the KV
//! cache's own: one head that is key and value, kept once on the
//! compressing layers and twice (keys, values) on the sliding-only ones.

use crate::model::ModelSpec;
use crate::parallel::Shards;
use crate::precision::Dtype;

/// The busiest pipeline stage's layers: (sliding only, CSA, HCA).
fn stage_layers(spec: &ModelSpec, shards: &Shards) -> Option<(u128, u128, u128)> {
    let c = spec.compressed_attention.as_ref()?;
    let layers = shards.stage_attention(spec).0;
    let pp = shards.pp.max(1);
    let csa = u128::from(c.csa_layers).div_ceil(pp).min(layers);
    let hca = u128::from(c.hca_layers).div_ceil(pp).min(layers - csa);
    Some((layers - csa - hca, csa, hca))
}

/// KV bytes per token of the window on the busiest stage, and the formula:
/// one head that is key and value, kept once on the layers that compress
/// (`values` is the `keys` tensor) and as two tensors on the sliding-only
/// ones. The window caps them at `sliding_window` − 1 tokens
/// (`inference::kv_cache_bytes`).
pub fn window_per_token(spec: &ModelSpec, shards: &Shards, b: u128) -> Option<(u128, String)> {
    let (plain, csa, hca) = stage_layers(spec, shards)?;
    let compressing = csa + hca;
    let d = spec.head_dim() as u128;
    Some((
        (2 * plain + compressing) * d * b,
        format!("({plain} sliding layers × 2 (K,V) + {compressing} compressing layers × 1 (K = V)) × {d} × {b} B"),
    ))
}

/// The compressed entries and open-entry buffers of one sequence after
/// `tokens` tokens, on the busiest pipeline stage, and the formula.
pub fn compressed_bytes_per_sequence(
    spec: &ModelSpec,
    shards: &Shards,
    kv: Dtype,
    tokens: u128,
) -> Option<(u128, String)> {
    let (bytes, formula, _) = layer_bytes(spec, shards, kv, tokens)?;
    Some((bytes, formula))
}

/// What one sequence's cache holds right after a prefill of `prompt`
/// tokens into an empty cache: the window and the open-entry buffers are
/// views of the step's whole projections, which stay alive until the next
/// step (every layer's window `prompt` rows, every buffer `prompt` rows;
/// measured to the byte on CPU, `tests/data/cache/README.md`).
pub fn prefill_retained_per_sequence(
    spec: &ModelSpec,
    shards: &Shards,
    kv: Dtype,
    prompt: u128,
) -> Option<u128> {
    layer_bytes(spec, shards, kv, prompt).map(|(_, _, retained)| retained)
}

/// (entries and buffers after `tokens`, their formula, everything a
/// prefill of `tokens` leaves alive, windows included).
fn layer_bytes(
    spec: &ModelSpec,
    shards: &Shards,
    kv: Dtype,
    tokens: u128,
) -> Option<(u128, String, u128)> {
    let c = spec.compressed_attention.as_ref()?;
    let (plain, csa_layers, hca_layers) = stage_layers(spec, shards)?;
    let s = kv.bytes() as u128;
    let d = u128::from(spec.head_dim());
    let wide = d + u128::from(c.index_head_dim);
    // validated ≥ 1; a rate of 0 would divide by zero
    let (m, big_m) = (u128::from(c.csa_rate).max(1), u128::from(c.hca_rate).max(1));
    let t = tokens;
    // the fp32 overlap gate beside the model-dtype overlap kv
    let overlap = if t >= m { m * wide * (s + 4) } else { 0 };
    let csa = s * wide * (t / m) + 4 * s * wide * (t % m) + overlap;
    let hca = s * d * (t / big_m + 2 * (t % big_m));
    let bytes = csa_layers * csa + hca_layers * hca;
    // a prefill's views: every window `t` rows (two on sliding layers), the
    // buffers `t` rows of their projections
    let retained = s * t * d * (2 * plain + csa_layers + hca_layers)
        + csa_layers * (csa - 4 * s * wide * (t % m) + 4 * s * wide * t)
        + hca_layers * (hca - 2 * s * d * (t % big_m) + 2 * s * d * t);
    let formula = format!(
        "{csa_layers} CSA layers × ⌊{t}/{m}⌋ entries × {wide} + {hca_layers} HCA layers × ⌊{t}/{big_m}⌋ × {d}, × {s} B, with the open entries' rows"
    );
    Some((bytes, formula, retained))
}
