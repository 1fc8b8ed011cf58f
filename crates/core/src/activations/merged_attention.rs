//! T5Gemma 2's attention (transformers 5.24 `modeling_t5gemma2.py`):
//! `T5Gemma2SelfAttention` in the encoder and `T5Gemma2MergedAttention` in
//! the decoder ([`ModelSpec::merged_cross_attention`]).
//!
//! Both stacks always hand the attention a materialized mask ("no
//! `is_causal` skip"): SDPA converts it to the activation dtype and keeps
//! it, and transformers repeats k and v to every query head before SDPA
//! (`use_gqa_in_sdpa` is false whenever a mask is given). A decoder layer
//! projects the encoder's output with its own k and v, k-norms it with
//! the same norm (which keeps its fp32 input, statistics, normalized
//! output and `1 + weight` a second time) and attends over its own keys
//! and then the source's in one softmax. Measured with saved-tensor hooks
//! on CPU: `tests/data/t5gemma2/t5gemma2_layers.jsonl`.

use super::attention::{eager_kv_widths, eager_saved_score_bytes};
use super::shape::{qk_norm_weight, LayerShape, RmsWeight, Terms};
use crate::model::{ModelSpec, QkNorm};
use crate::scenario::{Attention, LoraTarget};

/// The attention core of an encoder layer (`l.cross_seq` 0) or a decoder
/// layer (keys over its `l.seq` tokens and the `l.cross_seq` source tokens).
pub(super) fn merged_attention_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec) {
    let (b, s, src) = (l.batch, l.seq, l.cross_seq);
    let keys = s + src;
    let qd = l.heads * l.head_dim;
    let attn_bytes = l.compute_bytes();
    // the model always hands the attention its mask
    let (k_width, v_width) = match l.attention {
        Attention::Eager => eager_kv_widths(l),
        Attention::Sdpa | Attention::Flash => (l.sdpa_kv_width(true), l.sdpa_kv_width(true)),
    };
    // SDPA keeps its output, which o_proj reads; eager attention keeps
    // only what o_proj's weight or adapter needs
    let output = match l.attention {
        Attention::Eager => l.o_proj_input(),
        Attention::Sdpa | Attention::Flash => (attn_bytes * b * s * qd).max(l.o_proj_input()),
    };
    t.push(
        "q, k and v over target and source (repeated), attention output",
        attn_bytes * (b * s * qd + b * keys * (k_width + v_width)) + output,
        format!("{attn_bytes}·(b·s·{qd} + b·(s + {src})·({k_width} + {v_width})) + output"),
    );
    match l.attention {
        Attention::Eager => {
            let per_score = eager_saved_score_bytes(spec, l.act_bytes, l.autocast);
            t.push(
                "attention scores",
                per_score * b * l.heads * s * keys,
                format!("{per_score}·a·b·s·(s + {src})"),
            );
        }
        Attention::Sdpa | Attention::Flash => {
            t.push("logsumexp", 4 * b * l.heads * s, "4·a·b·s".into());
            if l.attention == Attention::Sdpa {
                t.push(
                    "attention mask (activation dtype)",
                    l.act_bytes * b * s * keys,
                    format!("B·b·s·(s + {src})"),
                );
            }
        }
    }
    if src > 0 {
        source_key_norm_terms(t, l, spec);
        source_adapter_terms(t, l);
    }
}

/// LoRA on k or v runs its adapter over the source too: each adapted
/// module's A output over the source tokens and, where it copies its input
/// (a 16-bit model's fp32 cast, or dropout), that copy; an fp32 model's
/// encoder output is one tensor every layer shares, not a layer's.
fn source_adapter_terms(t: &mut Terms, l: &LayerShape) {
    let Some(lo) = &l.lora else {
        return;
    };
    let adapted = lo
        .targets
        .iter()
        .filter(|x| matches!(x, LoraTarget::K | LoraTarget::V))
        .count() as u128;
    if adapted == 0 {
        return;
    }
    let tokens = l.batch * l.cross_seq;
    let a_bytes = if lo.per_module_fp32 { 4 } else { l.act_bytes };
    let per_input = if l.lora_copies_per_module() {
        4 + u128::from(lo.dropout) + if l.autocast { 2 } else { 0 }
    } else if lo.dropout {
        l.act_bytes + 1
    } else {
        0
    };
    t.push(
        "LoRA on k and v over the source",
        adapted * tokens * (a_bytes * lo.rank + per_input * l.hidden),
        format!(
            "{adapted} targets × b·{}·({a_bytes}·r + {per_input}·h)",
            l.cross_seq
        ),
    );
}

/// The k norm over the source's keys, as the layer's q/k norm terms count
/// it over its own (see `qk_norm_terms`).
fn source_key_norm_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec) {
    let Some(rms) = qk_norm_weight(spec) else {
        return;
    };
    let (rows, weight) = match spec.qk_norm_kind() {
        QkNorm::Off => return,
        QkNorm::Head | QkNorm::PerHead => (l.kv_heads, l.head_dim),
        QkNorm::Full => (1, l.kv_heads * l.head_dim),
    };
    let keys = l.batch * l.cross_seq;
    let kvd = l.kv_heads * l.head_dim;
    let normalized = match (l.grads.norms, rms) {
        (false, _) => 0,
        (true, RmsWeight::InputDtype) => l.compute_bytes(),
        (true, RmsWeight::GemmaOffset) => 4,
    };
    let offset = if rms == RmsWeight::GemmaOffset {
        4 * weight
    } else {
        0
    };
    t.push(
        "source keys' k norm",
        keys * ((4 + normalized) * kvd + 4 * rows) + offset,
        format!(
            "b·{}·((4 + {normalized})·{kvd} + 4·{rows}) + {offset}",
            l.cross_seq
        ),
    );
}
