//! What a Llama 3.2 Vision cross-attention layer saves for backward
//! (`MllamaCrossAttentionDecoderLayer`, transformers' `modeling_mllama.py`),
//! term by term, as measured on CPU with saved-tensor hooks
//! (`tests/data/cross_acts/`: 64 rows over four shapes, SDPA and eager,
//! fp32 and bf16, trainable or frozen weights, the image states needing a
//! gradient or not; every row exact).
//!
//! Notation: T = b·s text tokens, V = b·v image tokens (the sequence's
//! tower tokens, padded tile slots included), a heads and k KV heads of d,
//! B the activation dtype's bytes. The layer's inputs (the text stream, the
//! image states and the two masks) are not here: the text stream is the
//! previous layer's, and the image states and masks are one tensor each,
//! shared by every cross-attention layer (`outside_layers`).
//!
//! - Its RMSNorms keep, like Llama's, their fp32 input (the input itself in
//!   fp32), the fp32 1/rms and, when the weight trains, the normalized copy;
//!   q_norm and k_norm do the same over a·d and k·d, k_norm only when the
//!   keys need a gradient (k_proj trains or the image states need one).
//! - Attention runs with the 4-D cross-attention mask, so transformers'
//!   SDPA path repeats K and V to all heads (`repeat_kv`; GQA in SDPA is
//!   used only without a mask): SDPA keeps q, the repeated k and v (one KV
//!   head: its view), its output (also o_proj's input) and the fp32
//!   logsumexp, trainable or not; eager keeps the repeated k and v, the
//!   fp32 softmax, and q and the softmax's B-byte copy only for the
//!   gradients of the keys and values, and o_proj's input.
//! - Each tanh gate keeps its scalar and, when it trains, the gated tensor.
//! - The MLP keeps Llama's SwiGLU tensors.

use super::recurrent::LayerStack;
use super::shape::{ActFn, LayerShape, LoraActs, Term, Terms};
use crate::model::ModelSpec;
use crate::scenario::{Attention, LoraTarget};

/// The self- and cross-attention stacks of a model with cross-attention
/// layers; `None` for any other model. `l.cross_seq` is the image tokens
/// each sequence's cross-attention reads; `images_need_grad` when the
/// projector trains (every weight does).
pub fn cross_attention_stacks(
    l: &LayerShape,
    spec: &ModelSpec,
    act: ActFn,
    images_need_grad: bool,
) -> Option<Vec<LayerStack>> {
    if spec.cross_attention_layers == 0 {
        return None;
    }
    let text = LayerShape {
        cross_seq: 0,
        ..l.clone()
    };
    let mut stacks = vec![
        LayerStack {
            what: "self-attention",
            layers: u128::from(spec.attention_layer_count()),
            terms: super::layer::layer_terms(&text, spec, act),
        },
        LayerStack {
            what: "cross-attention",
            layers: u128::from(spec.cross_attention_layers),
            terms: cross_layer_terms(l, images_need_grad),
        },
    ];
    stacks.retain(|s| s.layers > 0);
    Some(stacks)
}

/// One cross-attention layer's saved tensors; `images_need_grad` when the
/// image states come from a trained tower or projector.
pub fn cross_layer_terms(l: &LayerShape, images_need_grad: bool) -> Vec<Term> {
    let mut t = Terms::default();
    let b = l.act_bytes;
    let (tt, vv) = (l.tokens(), l.batch * l.cross_seq);
    let (h, i) = (l.hidden, l.intermediate);
    let (qd, kd) = (l.heads * l.head_dim, l.kv_heads * l.head_dim);
    let g = &l.grads;
    // An fp32 model's norm keeps its input itself (the layer's input, or
    // the residual sum before the MLP's norm, a tensor of its own).
    let cast = if b == 4 { 0 } else { 4 };
    let copy = if g.norms { b } else { 0 };
    t.push(
        "input norm",
        cast * tt * h + 4 * tt + copy * tt * h,
        format!("{cast}·T·h + 4·T + {copy}·T·h"),
    );
    if g.qkv {
        t.push("q_proj input", b * tt * h, format!("{b}·T·h"));
    }
    t.push(
        "q_norm",
        4 * tt * qd + 4 * tt * l.heads + copy * tt * qd,
        format!("4·T·{qd} + 4·a·T + {copy}·T·{qd}"),
    );
    if g.qkv || images_need_grad {
        t.push(
            "k_norm over the image",
            4 * vv * kd + 4 * vv * l.kv_heads + copy * vv * kd,
            format!("4·V·{kd} + 4·k·V + {copy}·V·{kd}"),
        );
    }
    // `repeat_kv` copies K and V to every head, except for one KV head,
    // whose expand is a view that SDPA keeps as it is (eager's matmuls fold
    // it into a copy of every head all the same).
    let sdpa_kv_width = if l.kv_heads == 1 { kd } else { qd };
    let keys_need_grad = g.qkv || images_need_grad;
    match l.attention {
        Attention::Eager => {
            // q·kᵀ keeps q only for the keys' gradient; P·V keeps P (its
            // B-byte copy of the fp32 softmax, a tensor of its own in
            // 16-bit) only for the values'.
            let q = if keys_need_grad { b * tt * qd } else { 0 };
            let copy = if keys_need_grad && b != 4 { b } else { 0 };
            let o_in = if g.o { b * tt * h } else { 0 };
            t.push(
                "cross-attention repeated k and v, q",
                2 * b * vv * qd + q,
                format!("2·{b}·V·{qd} + {q}"),
            );
            t.push(
                "cross-attention scores",
                (4 + copy) * l.heads * tt * l.cross_seq,
                format!("(4 + {copy})·a·T·v"),
            );
            t.push("o_proj input", o_in, format!("{b}·T·h"));
        }
        _ => {
            t.push(
                "cross-attention q, repeated k and v, output",
                b * (2 * tt * qd + 2 * vv * sdpa_kv_width),
                format!("{b}·(2·T·{qd} + 2·V·{sdpa_kv_width})"),
            );
            t.push("logsumexp", 4 * l.heads * tt, "4·a·T".into());
        }
    }
    // The two tanh gates: their scalars, and the gated tensors when they train.
    let gated = if g.norms { 2 * b * tt * h } else { 0 };
    t.push(
        "tanh gates",
        2 * b + gated,
        format!("2·{b} + {}·T·h", if g.norms { 2 * b } else { 0 }),
    );
    t.push(
        "post-attention norm",
        4 * tt * h + 4 * tt + copy * tt * h,
        format!("4·T·h + 4·T + {copy}·T·h"),
    );
    let up_in = if g.gate_up { b * tt * h } else { 0 };
    let down_in = if g.down { b * tt * i } else { 0 };
    t.push(
        "SwiGLU MLP",
        up_in + 3 * b * tt * i + down_in,
        format!("{up_in} + 3·{b}·T·i + {down_in}"),
    );
    if let Some(lo) = &l.lora {
        lora_terms(&mut t, l, lo);
    }
    t.0
}

/// LoRA on a cross-attention layer: the adapters of k_proj and v_proj read
/// the image states (V tokens), the others the text (T tokens).
fn lora_terms(t: &mut Terms, l: &LayerShape, lo: &LoraActs) {
    let on_image = |x: &LoraTarget| matches!(x, LoraTarget::K | LoraTarget::V);
    let split = |image: bool| LoraActs {
        targets: lo
            .targets
            .iter()
            .copied()
            .filter(|x| on_image(x) == image)
            .collect(),
        ..lo.clone()
    };
    super::layer::lora_terms(t, l, &split(false));
    let image = LayerShape {
        seq: l.cross_seq,
        ..l.clone()
    };
    super::layer::lora_terms(t, &image, &split(true));
}
