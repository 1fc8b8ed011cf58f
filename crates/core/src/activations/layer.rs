//! One layer's saved tensors, term by term, and what checkpointing keeps of them.

use super::attention::{cross_attention_terms, eager_attention_terms, fused_attention_terms};
use super::shape::{norm_saves, ActFn, LayerShape, LoraActs, NormSaves, Term, Terms};
use crate::model::{Arch, ModelSpec, NormKind};
use crate::scenario::{Attention, Checkpointing, LoraTarget};

/// Saved bytes per layer (no checkpointing), term by term.
pub fn layer_terms(l: &LayerShape, spec: &ModelSpec, act: ActFn) -> Vec<Term> {
    let mut t = Terms::default();
    let norms = norm_saves(l, spec);
    norm_terms(&mut t, l, spec, &norms);
    t.push(
        "attention input",
        l.linear_input(
            l.grads.qkv,
            l.lora_modules_on(&[LoraTarget::Q, LoraTarget::K, LoraTarget::V]),
            l.hidden,
            3,
        ),
        "b·s·h (q/k/v weight or LoRA grad)".into(),
    );
    match l.attention {
        Attention::Sdpa | Attention::Flash => fused_attention_terms(&mut t, l),
        Attention::Eager => eager_attention_terms(&mut t, l, spec),
    }
    if l.cross_seq > 0 {
        cross_attention_terms(&mut t, l, spec, &norms);
    }
    feed_forward_terms(&mut t, l, spec, act);
    if l.grads.linear_outputs {
        linear_outputs_term(&mut t, l, act);
    }
    if let Some(lo) = &l.lora {
        lora_terms(&mut t, l, lo);
    }
    if l.fp32_linear_inputs {
        fp32_linear_inputs_term(&mut t, l, act);
    }
    if l.dropout {
        t.push(
            "residual dropout masks",
            2 * l.tokens() * l.hidden,
            "2 × 1-byte b·s·h masks".into(),
        );
    }
    t.0
}

fn norm_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, norms: &NormSaves) {
    let bs = l.tokens();
    let bsh = bs * l.hidden;
    let NormSaves { count, input, stat } = *norms;
    t.push(
        "norm inputs",
        count * (input * bsh + stat * bs),
        format!("{count} norms × ({input}·b·s·h + {stat}·b·s)"),
    );
    if l.grads.norms && spec.norm == NormKind::Rms {
        // RMSNorm multiplies by its weight in Python: the normalized tensor is
        // saved for the weight's gradient. LayerNorm is one fused op.
        let big_b = l.act_bytes;
        t.push(
            "normalized (norm weight grad)",
            count * big_b * bsh,
            format!("{count} × {big_b}·b·s·h"),
        );
    }
}

/// The feed-forward's activation, its dropout (T5) and the inputs of its linears.
fn feed_forward_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, act: ActFn) {
    let bsi = l.tokens() * l.intermediate;
    let mlp_act = l.compute_bytes();
    let (n, what) = match act {
        ActFn::Gated => (3, "gate, act(gate), up"),
        ActFn::Fused => (1, "activation input"),
        ActFn::PythonGelu => (4, "gelu_new intermediates"),
        ActFn::Relu => (1, "relu output"),
    };
    t.push(
        "feed-forward",
        n * mlp_act * bsi,
        format!("{n}·{mlp_act}·b·s·i ({what})"),
    );
    if l.dropout && spec.arch == Arch::T5 {
        // T5DenseActDense drops out the intermediate itself (wi → act →
        // dropout → wo): a 1-byte mask and the dropped copy wo reads.
        t.push(
            "feed-forward dropout",
            (1 + mlp_act) * bsi,
            format!("(1 + {mlp_act})·b·s·i mask + dropped copy"),
        );
    }
    let gate_up_lora = l.lora_modules_on(&[LoraTarget::Gate, LoraTarget::Up]);
    t.push(
        "feed-forward input",
        l.linear_input(
            l.grads.gate_up,
            // A plain MLP has one up projection (`fc`), whatever the targets say.
            if act == ActFn::Gated {
                gate_up_lora
            } else {
                gate_up_lora.min(1)
            },
            l.hidden,
            if act == ActFn::Gated { 2 } else { 1 },
        ),
        "b·s·h (gate/up weight or LoRA grad)".into(),
    );
    if act != ActFn::Relu {
        t.push(
            "down_proj input",
            l.linear_input(
                l.grads.down,
                l.lora_modules_on(&[LoraTarget::Down]),
                l.intermediate,
                1,
            ),
            "b·s·i (down weight or LoRA grad)".into(),
        );
    }
}

/// Adapter v2's scaled outputs: q/k/v (fused in litgpt) and o; the MLP's
/// up projections and down.
fn linear_outputs_term(t: &mut Terms, l: &LayerShape, act: ActFn) {
    let (h, i) = (l.hidden, l.intermediate);
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    let big_b = l.act_bytes;
    let mlp_out = if act == ActFn::Gated {
        2 * i + h
    } else {
        i + h
    };
    t.push(
        "linear outputs (adapter v2 scale grad)",
        big_b * l.tokens() * (qd + 2 * kvd + h + mlp_out),
        format!(
            "{big_b}·b·s·({qd} + 2·{kvd} + h + {})",
            if act == ActFn::Gated {
                "2·i + h"
            } else {
                "i + h"
            }
        ),
    );
}

/// Each adapted linear keeps its A output (rank wide) for B's gradient;
/// PEFT's modules also keep their own fp32 input.
fn lora_terms(t: &mut Terms, l: &LayerShape, lo: &LoraActs) {
    let bs = l.tokens();
    let n = lo
        .targets
        .iter()
        .filter(|x| **x != LoraTarget::Head)
        .count() as u128;
    let a_bytes = if lo.per_module_fp32 { 4 } else { l.act_bytes };
    t.push(
        "LoRA A outputs",
        n * a_bytes * bs * lo.rank,
        format!("{n} targets × {a_bytes}·b·s·r"),
    );
    if lo.per_module_fp32 {
        // Each adapted module: its input cast to fp32 (4 B) and, with
        // dropout, the 1-byte mask; under autocast also the 16-bit copy
        // lora_A's matmul casts.
        let qd = l.heads * l.head_dim;
        let width: u128 = lo
            .targets
            .iter()
            .map(|x| match x {
                LoraTarget::Q
                | LoraTarget::K
                | LoraTarget::V
                | LoraTarget::Gate
                | LoraTarget::Up => l.hidden,
                LoraTarget::O => qd,
                LoraTarget::Down => l.intermediate,
                LoraTarget::Head => 0,
            })
            .sum();
        let per = 4 + u128::from(lo.dropout) + if l.autocast { 2 } else { 0 };
        t.push(
            "LoRA inputs (fp32, per module)",
            per * bs * width,
            format!("{per}·b·s × Σ adapted input widths ({width})"),
        );
    }
}

/// Each quantized linear casts its input to fp32 and keeps that copy:
/// 4 B × the input width of every linear, less the 16-bit copies above.
fn fp32_linear_inputs_term(t: &mut Terms, l: &LayerShape, act: ActFn) {
    let (bs, h, i) = (l.tokens(), l.hidden, l.intermediate);
    let qd = l.heads * l.head_dim;
    let (linears_on_h, mlp_in): (u128, u128) = match act {
        ActFn::Gated => (3, i), // attn, gate, up on h; down on i
        _ => (2, i),            // attn, fc on h; proj on i
    };
    let fp32 = 4 * bs * (linears_on_h * h + qd + mlp_in);
    let counted = l.act_bytes * bs * (2 * h + qd + mlp_in);
    t.push(
        "fp32 inputs of quantized linears",
        fp32.saturating_sub(counted),
        format!("4·b·s·({linears_on_h}·h + a·d + i) − the 16-bit copies"),
    );
}

/// Saved bytes of one layer under the chosen checkpointing.
pub fn layer_bytes(terms: &[Term], l: &LayerShape, ckpt: Checkpointing) -> u128 {
    let full: u128 = terms.iter().map(|t| t.bytes).sum();
    match ckpt {
        Checkpointing::Off => full,
        // Only the layer input (fp32 under autocast) is kept (cpu/README §2).
        Checkpointing::Full => {
            let residual = if l.autocast { 4 } else { l.act_bytes };
            residual * l.batch * l.seq * l.hidden
        }
        // Megatron selective recompute drops the attention core (scores,
        // probabilities, dropout) and keeps the rest.
        Checkpointing::Selective => terms
            .iter()
            .filter(|t| {
                !matches!(
                    t.name,
                    "attention scores" | "attention dropout" | "logsumexp" | "attention output"
                )
            })
            .map(|t| t.bytes)
            .sum(),
    }
}
