//! What a VLM's vision tower holds at the peak of its forward pass when
//! serving (eval, `no_grad`): nothing is kept between layers, so the peak
//! is one layer's working set over all of the batch's tower tokens (every
//! family runs the batch's images in one call), at whichever of three
//! moments is largest. Measured on CPU with a dispatch tracker of live
//! storages (transformers 5.24, torch 2.15: `tests/data/tower_forward/`,
//! `tests/tower_forward.rs`); the peak does not grow with depth.
//!
//! - **MLP**: the residual stream and the layer's input, the MLP's first
//!   linear output and its activation's tensors: `T·(4·h + k·i)·B`, with
//!   k = 3 for quick_gelu (CLIP, Qwen2-VL) and the gated MLPs (Qwen2.5-VL,
//!   Pixtral), 2 for a fused GELU (SigLIP, InternViT, Qwen3-VL).
//!   InternViT's layer scale adds `T·h·B`; Qwen3-VL's interpolated
//!   position embedding an fp32 `4·T·h`; Pixtral's patch convolution
//!   output `T·h·B`, positions `16·T`, rotary tables `2·T·d·B` and its
//!   block-diagonal mask `B·T²` over the whole sequence.
//! - **Rotary** (the Qwen-VL towers): q and k cast to fp32 for
//!   `apply_rotary_pos_emb_vision` beside the fused qkv:
//!   `T·h·(5·B + 24) + 8·T·d` with the fp32 cos and sin tables.
//! - **Eager attention**: each pass's scores `a·Σ S²` (S the tokens of one
//!   pass) beside the layer's hidden states; transformers' eager softmax
//!   runs in fp32 (the scaled scores in B, their fp32 copy and the softmax:
//!   `(B + 8)·a·ΣS²`, `8·a·ΣS²` in fp32), InternViT's and Llama 4's in the
//!   input dtype.
//!   CLIP's, SigLIP's, InternViT's, Pixtral's and Llama 4's layers return
//!   their attention weights, which stay referenced through the MLP:
//!   `B·a·ΣS²` more there.
//! - **Llama 4** adds its rotary step (complex64 products, fp32 copies of
//!   q and k in 16-bit) and its patch unfold before the first layer.
//!
//! SDPA and FlashAttention keep no scores (their kernels tile them).

use crate::model::{TowerBlock, TowerMlp, VisionTower};
use crate::scenario::Attention;

/// The forward peak of `v` over `tokens` tower tokens in `passes` (count,
/// tokens each), in the activation dtype of `act_bytes`, and its formula.
pub fn tower_forward_bytes(
    v: &VisionTower,
    tokens: u128,
    passes: &[(u128, u128)],
    act_bytes: u128,
    attention: Attention,
) -> (u128, String) {
    let (h, i, heads) = (
        u128::from(v.hidden),
        u128::from(v.intermediate),
        u128::from(v.heads).max(1),
    );
    let (t, b) = (tokens, act_bytes);
    let block = v.block;
    let qwen = block.dynamic_resolution();
    // The first linear's output and what its activation makes: one more
    // tensor for quick_gelu's sigmoid; the gated MLP's up and product.
    let k: u128 = match block.mlp() {
        TowerMlp::Gelu => 2,
        TowerMlp::QuickGelu | TowerMlp::Gated | TowerMlp::Unknown => 3,
    };
    let square_sum: u128 = passes.iter().map(|&(n, s)| n * s * s).sum();
    // What lives through layer 0 beside the layer: Qwen3-VL's position
    // embedding, summed in fp32; Pixtral's patch convolution output, its
    // int64 2D positions, the rotary cos and sin, and the block-diagonal
    // mask over the whole sequence (none under FlashAttention); Llama 3.2
    // Vision's aspect-ratio mask over each image's tile slots (not
    // measured: read from `_prepare_aspect_ratio_attention_mask`).
    let positions = match block {
        TowerBlock::Mllama => b * square_sum,
        TowerBlock::Qwen3Vl => 4 * t * h,
        TowerBlock::Pixtral => {
            let mask = if attention == Attention::Flash {
                0
            } else {
                b * t * t
            };
            t * h * b + 16 * t + 2 * t * (h / heads) * b + mask
        }
        _ => 0,
    };
    let eager = attention == Attention::Eager;
    let mut mlp = t * (4 * h + k * i) * b + positions;
    if block.intern_vit() {
        // The layer scale's output.
        mlp += t * h * b;
    }
    if eager && !qwen {
        // The layer returns its attention weights: they live to its end.
        mlp += b * heads * square_sum;
    }
    let mut peak = (mlp, "MLP: T·(4·h + k·i)·B");
    if qwen {
        let rotary = t * h * (5 * b + 24) + 8 * t * (h / heads) + positions;
        if rotary > peak.0 {
            peak = (
                rotary,
                "rotary step: T·h·(5·B + 24) + 8·T·d, fp32 q, k, cos, sin",
            );
        }
    }
    if block == TowerBlock::Llama4 {
        // Six hidden-sized tensors (norm outputs, the residual, q, k, v),
        // the complex64 products of q and k with the frequencies and, in
        // 16-bit, q's and k's fp32 copies and their cast-back results.
        let per = 6 * b + 8 + if b < 4 { 8 + 2 * b } else { 0 };
        let rotary = per * t * h;
        if rotary > peak.0 {
            peak = (rotary, "rotary step: T·h·(6·B + 8), + (8 + 2·B) in 16-bit");
        }
        // The patch embedding unfolds the pixels (im2col and its copy)
        // beside its output, before any layer.
        let patches = t.saturating_sub(passes.iter().map(|&(n, _)| n).sum());
        let p = u128::from(v.patch_size);
        let unfold = (2 * 3 * p * p + h) * patches * b;
        if unfold > peak.0 {
            peak = (unfold, "patch unfold: (2·3·p² + h)·patches·B");
        }
    }
    if eager {
        let (hidden_states, per_score) = if block.input_dtype_softmax() {
            (6, 2 * b)
        } else {
            // Pixtral's seventh, its convolution output, is in `positions`.
            (if qwen { 7 } else { 6 }, b + 4 + if b < 4 { 4 } else { 0 })
        };
        let scores = hidden_states * t * h * b + per_score * heads * square_sum + positions;
        if scores > peak.0 {
            peak = (
                scores,
                "eager attention: hidden states + scores and softmax a·ΣS² per pass",
            );
        }
    }
    (
        peak.0,
        format!(
            "vision tower forward at its {}; T = {t} tower tokens, B = {b}",
            peak.1
        ),
    )
}
