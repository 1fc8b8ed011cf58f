//! What one encoder layer of a trained vision tower saves for backward.
//!
//! CLIP's and SigLIP's layers (`CLIPEncoderLayer`, `SiglipEncoderLayer`)
//! keep, per token: both LayerNorms' inputs and statistics, the q/k/v
//! projection's input, the attention's saved tensors, the MLP's input, its
//! activation's tensors and the second linear's input. The attention output
//! that SDPA returns is laid out (b, s, heads, d), so the out-projection
//! reads it without a copy: one tensor serves both. Measured to the byte on
//! CPU (transformers 5.24, torch 2.15; `tests/data/tower_acts/`,
//! `tests/tower_activations.rs`): 32 CLIP and SigLIP rows, SDPA and eager,
//! fp32 and bf16. On the GPU LayerNorm keeps its mean and 1/std in fp32
//! (8 B per token); the CPU keeps them in the input dtype.

use super::shape::{Term, Terms};
use crate::model::{TowerBlock, TowerMlp, VisionTower};
use crate::scenario::Attention;

/// The images a tower runs in one micro-batch.
#[derive(Clone, Copy, Debug)]
pub struct TowerBatch {
    /// Images in the micro-batch.
    pub images: u128,
    /// Tokens of one image in the tower (CLIP's class token included).
    pub tokens_per_image: u128,
    /// Bytes of the activation dtype.
    pub act_bytes: u128,
    pub attention: Attention,
}

impl TowerBatch {
    /// Attention scores of all the passes: a·n·S².
    fn scores(&self, heads: u128) -> u128 {
        heads * self.images * self.tokens_per_image * self.tokens_per_image
    }
}

/// A tower layer's widths: hidden, intermediate, heads.
fn widths(v: &VisionTower) -> (u128, u128, u128) {
    (
        u128::from(v.hidden),
        u128::from(v.intermediate),
        u128::from(v.heads),
    )
}

/// Bytes per score of the 16-bit copy an fp32 softmax is cast back to
/// (none in fp32: the cast is the same tensor).
fn fp32_softmax_cast(act_bytes: u128) -> u128 {
    if act_bytes == 4 {
        0
    } else {
        act_bytes
    }
}

/// One tower layer's saved terms; `None` for a layer family that was not
/// measured ([`TowerBlock::Other`]).
pub fn tower_layer_terms(v: &VisionTower, b: &TowerBatch) -> Option<Vec<Term>> {
    if v.block == TowerBlock::Qwen25Vl {
        return Some(qwen25_vl_terms(v, b));
    }
    if v.block == TowerBlock::Pixtral {
        return Some(pixtral_terms(v, b));
    }
    // Llama 4's rotary keeps only the (shared) frequencies: measured,
    // its layer saves SigLIP's bytes.
    let activation_tensors: u128 = match v.block.mlp() {
        // quick_gelu: its input and the sigmoid's output.
        TowerMlp::QuickGelu => 2,
        // A fused GELU keeps its input.
        TowerMlp::Gelu => 1,
        TowerMlp::Gated | TowerMlp::Unknown => return None,
    };
    // Qwen2-VL's and Qwen3-VL's one qkv projection: its whole output stays
    // (v is a view of it) beside the rotated q and k, and the attention's
    // output is copied for the projection (measured: 3·B·T·h more than
    // CLIP's separate q, k, v under SDPA, 2·B·T·h under eager).
    let fused = if matches!(v.block, TowerBlock::Qwen2Vl | TowerBlock::Qwen3Vl) {
        3
    } else {
        0
    };
    let big_b = b.act_bytes;
    let tokens = b.images * b.tokens_per_image;
    let (h, i, heads) = widths(v);
    let mut t = Terms::default();
    if v.block.rms_norm() {
        // InternVLVisionRMSNorm: the fp32 input (the input itself in
        // fp32), 1/rms and the normalized tensor.
        t.push(
            "RMSNorm fp32 inputs, 1/rms and outputs",
            2 * (4 * tokens * h + 4 * tokens + big_b * tokens * h),
            format!("2 norms × (4·T·h + 4·T + {big_b}·T·h)"),
        );
    } else {
        t.push(
            "LayerNorm inputs and statistics",
            2 * (big_b * tokens * h + 8 * tokens),
            format!("2 norms × ({big_b}·T·h + 8·T)"),
        );
    }
    if v.block.qk_norm() {
        // InternViT-6B's q_norm and k_norm: RMSNorms over the whole q and k
        // projections, the same three tensors as the layer's RMSNorms
        // (measured with and without them: `internvl_qk`, `internvl_rms_qk`).
        t.push(
            "q/k RMSNorm fp32 inputs, 1/rms and outputs",
            2 * (4 * tokens * h + 4 * tokens + big_b * tokens * h),
            format!("2 norms × (4·T·h + 4·T + {big_b}·T·h)"),
        );
    }
    if v.block.intern_vit() {
        // `lambda_1 * attention_output`, `lambda_2 * mlp_output`: each
        // layer scale keeps its input for its own gradient.
        t.push(
            "layer-scale inputs",
            2 * big_b * tokens * h,
            format!("2 × {big_b}·T·h"),
        );
    }
    t.push(
        "q/k/v and MLP inputs",
        2 * big_b * tokens * h,
        format!("2 × {big_b}·T·h"),
    );
    match b.attention {
        Attention::Sdpa | Attention::Flash => t.push(
            "attention q, k, v, output + logsumexp",
            (4 + fused) * big_b * tokens * h + 4 * heads * tokens,
            format!("{} × {big_b}·T·h + 4·a·T", 4 + fused),
        ),
        // Eager: q and kᵀ for the scores, the fp32 softmax, its cast for
        // P·V with v (none in fp32: the cast is the same tensor), and the
        // out-projection's copy of the output.
        Attention::Eager => {
            let scores = b.scores(heads);
            // InternVL's and Llama 4's eager softmax runs in the input
            // dtype (one tensor); the others' in fp32, then cast.
            let input_dtype = v.block.input_dtype_softmax();
            let cast = if input_dtype {
                0
            } else {
                fp32_softmax_cast(big_b)
            };
            let softmax = if input_dtype { big_b } else { 4 };
            let kept = 4 + fused.saturating_sub(1);
            t.push(
                "attention q, k, v, output + softmax (and its cast)",
                kept * big_b * tokens * h + (softmax + cast) * scores,
                format!("{kept} × {big_b}·T·h + ({softmax} + {cast})·a·n·S²"),
            )
        }
    }
    t.push(
        "MLP activation and second linear's input",
        (activation_tensors + 1) * big_b * tokens * i,
        format!("{} × {big_b}·T·i", activation_tensors + 1),
    );
    Some(t.0)
}

/// Qwen2.5-VL's block (measured: `qwen2_5_vl` rows, windowed and
/// full-attention, SDPA and eager). Each RMSNorm keeps its fp32 input (the
/// input itself in fp32), 1/rms and the normalized 16-bit tensor; the fused
/// qkv's output stays whole (v is a view of it) beside the rotated q and k;
/// SDPA runs per window or per image, its outputs and logsumexp adding up
/// to one b·s·h and 4·a·T, and their concatenation feeds the projection;
/// the gated MLP keeps gate, SiLU, up and their product. Windows change the
/// bytes only under eager attention, whose scores this counts per image
/// (the full-attention layers' span): an upper bound for windowed layers.
fn qwen25_vl_terms(v: &VisionTower, b: &TowerBatch) -> Vec<Term> {
    let big_b = b.act_bytes;
    let tokens = b.images * b.tokens_per_image;
    let (h, i, heads) = widths(v);
    let bth = big_b * tokens * h;
    let mut t = Terms::default();
    t.push(
        "RMSNorm fp32 inputs, 1/rms and outputs",
        2 * (4 * tokens * h + 4 * tokens + bth),
        format!("2 norms × (4·T·h + 4·T + {big_b}·T·h)"),
    );
    t.push(
        "qkv and MLP inputs, qkv output, rotated q and k, projection input",
        8 * bth,
        format!("8 × {big_b}·T·h"),
    );
    match b.attention {
        Attention::Sdpa | Attention::Flash => t.push(
            "attention outputs + logsumexp (per window or image)",
            bth + 4 * heads * tokens,
            format!("{big_b}·T·h + 4·a·T"),
        ),
        Attention::Eager => {
            let scores = b.scores(heads);
            let cast = fp32_softmax_cast(big_b);
            t.push(
                "fp32 softmax and its cast, over each image",
                (4 + cast) * scores,
                format!("(4 + {cast})·a·n·S²"),
            )
        }
    }
    t.push(
        "gated MLP: gate, SiLU, up and their product",
        4 * big_b * tokens * i,
        format!("4 × {big_b}·T·i"),
    );
    t.0
}

/// Pixtral's block (measured: `pixtral` rows, two images as one masked
/// sequence, SDPA and eager, fp32 and bf16; all exact). Each RMSNorm keeps
/// its fp32 input (the input itself in fp32), 1/rms and the normalized
/// tensor before its weight; its output feeds q/k/v and the gated MLP;
/// SDPA keeps the rotated q and k, v and its output (laid out for o_proj)
/// with the fp32 logsumexp, eager the fp32 softmax over the whole sequence
/// (and its cast in 16-bit) with o_proj's contiguous input; the MLP keeps
/// gate, its activation, up and their product. The mask and the rotary
/// tables are the tower's, once: [`tower_shared_bytes`].
fn pixtral_terms(v: &VisionTower, b: &TowerBatch) -> Vec<Term> {
    let big_b = b.act_bytes;
    let tokens = b.images * b.tokens_per_image;
    let (h, i, heads) = widths(v);
    let bth = big_b * tokens * h;
    let mut t = Terms::default();
    t.push(
        "RMSNorm fp32 inputs, 1/rms, normalized tensors and outputs",
        2 * (4 * tokens * h + 4 * tokens + bth) + 2 * bth,
        format!("2 norms × (4·T·h + 4·T + {big_b}·T·h) + 2 × {big_b}·T·h"),
    );
    match b.attention {
        Attention::Sdpa | Attention::Flash => t.push(
            "attention q, k, v, output + logsumexp",
            4 * bth + 4 * heads * tokens,
            format!("4 × {big_b}·T·h + 4·a·T"),
        ),
        Attention::Eager => {
            let scores = b.scores(heads);
            let cast = fp32_softmax_cast(big_b);
            t.push(
                "attention q, k, v, o_proj input + softmax over the sequence (and its cast)",
                4 * bth + (4 + cast) * scores,
                format!("4 × {big_b}·T·h + (4 + {cast})·a·S²"),
            )
        }
    }
    t.push(
        "gated MLP: gate, its activation, up and their product",
        4 * big_b * tokens * i,
        format!("4 × {big_b}·T·i"),
    );
    t.0
}

/// What a tower keeps once for all its layers: Pixtral's block-diagonal
/// additive mask over the whole sequence (`generate_block_attention_mask`,
/// `B·T²`; none under FlashAttention, which takes `cu_seqlens`), or Llama
/// 3.2 Vision's aspect-ratio mask over each image's tile slots
/// (`_prepare_aspect_ratio_attention_mask`: one `B·S²` per image of S
/// tokens, built whatever the attention). `passes` as [`TowerBatch`]es
/// count them: (images, tokens of each).
pub fn tower_shared_bytes(v: &VisionTower, passes: &[(u128, u128)], b: &TowerBatch) -> u128 {
    match v.block {
        TowerBlock::Pixtral if b.attention != Attention::Flash => {
            let tokens: u128 = passes.iter().map(|&(n, t)| n * t).sum();
            b.act_bytes * tokens * tokens
        }
        TowerBlock::Mllama => passes.iter().map(|&(n, t)| n * b.act_bytes * t * t).sum(),
        _ => 0,
    }
}

/// The extra tensors of a tower's gated layers (Llama 3.2 Vision's global
/// layers: `gate_attn.tanh() * attn`, `gate_ffn.tanh() * mlp`): each keeps
/// the two gated tensors and the two tanh scalars (measured:
/// `tests/data/tower_acts/`, `mllama_global` rows, exact).
pub fn tower_gate_bytes(v: &VisionTower, tokens: u128, b: &TowerBatch) -> u128 {
    u128::from(v.gated_layers) * 2 * b.act_bytes * (tokens * u128::from(v.hidden) + 1)
}
