//! The cache of Llama 3.2 Vision's cross-attention layers
//! (`MllamaTextCrossAttention` in transformers' `modeling_mllama.py`).
//!
//! On the prefill each cross-attention layer projects the vision tower's
//! output, `cross_attention_states` of shape (B, images · tiles · (side² + 1),
//! hidden), to keys (normed by `k_norm`) and values of `kv_heads × head_dim`
//! and stores them with `cache.update` at its own index of the
//! `DynamicCache`; every later step reads them back and never adds to them.
//! So the layer holds, per sequence, K and V over every tower token of the
//! sequence's images (padded tile slots included), fixed for the whole
//! generation, and no per-token cache at all. Checked to the byte against
//! the cache objects transformers creates (`tests/data/cache/cross_cache.jsonl`).

use crate::model::ModelSpec;
use crate::precision::Dtype;

/// Bytes the cross-attention layers of one GPU keep for one sequence whose
/// images give the tower `vision_tokens` tokens, and the formula; `None`
/// for a model without cross-attention layers.
pub fn cross_cache_bytes_per_sequence(
    spec: &ModelSpec,
    dtype: Dtype,
    (tp, pp): (u128, u128),
    vision_tokens: u64,
) -> Option<(u128, String)> {
    let (layers, tokens, what) = match spec.encoder_tokens {
        // Whisper: every decoder layer keeps K/V over the encoder's frames
        // (`EncoderDecoderCache.cross_attention_cache`, filled on the first
        // step and constant after)
        Some(frames) if spec.encoder_layers.is_some() => (spec.layers, frames, "encoder frames"),
        _ if spec.cross_attention_layers == 0 => return None,
        _ => (spec.cross_attention_layers, vision_tokens, "image tokens"),
    };
    // A pipeline stage keeps its own layers; tensor parallelism splits the
    // KV heads (at least one per rank).
    let layers = u128::from(layers).div_ceil(pp.max(1));
    let kv_heads = u128::from(spec.kv_heads).div_ceil(tp.max(1)).max(1);
    let d = u128::from(spec.head_dim());
    let b = u128::from(dtype.bytes());
    let tokens = u128::from(tokens);
    let bytes = layers * 2 * kv_heads * d * tokens * b;
    Some((
        bytes,
        format!(
            "{layers} cross-attention layers × 2 (K,V) × {kv_heads} kv heads × {d} × {tokens} {what} × {b} B"
        ),
    ))
}
