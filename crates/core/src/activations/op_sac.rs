//! What a layer keeps under per-op selective activation checkpointing
//! (torchtitan's `SelectiveAC`, "op" SAC).
//!
//! torchtitan wraps each transformer block in a non-reentrant `checkpoint`
//! whose `create_selective_checkpoint_contexts` policy saves the outputs of
//! the compute-intensive ops (matmuls, the attention kernels) and recomputes
//! everything else, except that it counts `aten.mm` calls per block and
//! recomputes every second one (`torchtitan/distributed/activation_checkpoint.py`).
//! A linear with a bias dispatches to `aten.addmm`, which is saved but not
//! counted; batched matmuls (`bmm`, eager attention) are saved uncounted too.
//! So what a layer keeps is its input (the checkpoint recomputes from it) plus
//! the outputs of the odd-numbered bias-free linears, every biased linear and
//! the attention core.
//!
//! Checked to the byte against the SAC cache of transformers 5.24 / torch
//! 2.15 layers on CPU (Llama eager and SDPA, Qwen2's biased q/k/v, Qwen3,
//! Gemma, Phi-3's fused projections, GPT-NeoX's all-biased linears, PEFT
//! LoRA on two and on seven projections) and of a block written as
//! torchtitan's Llama 3, four shapes each in fp32 and bf16
//! (`tests/data/sac/sac_saved.csv`, `tests/op_sac.rs`).

use super::shape::{LayerShape, Term, Terms};
use crate::model::{Arch, MlpKind, ModelSpec};
use crate::scenario::{Attention, LoraTarget};

/// One linear of the block, in the order the forward calls it.
struct Linear {
    target: Option<LoraTarget>,
    width: u128,
    bias: bool,
}

/// The saved terms of one layer under op SAC, or `None` where the rule was
/// not measured (mixture-of-experts and MLA layers, cross-attention,
/// quantized linears, parallel attention/MLP blocks written differently):
/// the caller keeps every eager term there.
pub fn op_sac_terms(l: &LayerShape, spec: &ModelSpec) -> Option<Vec<Term>> {
    let covered = spec.moe.is_none()
        && spec.mla.is_none()
        && l.cross_seq == 0
        && !l.fp32_linear_inputs
        && !l.grads.linear_outputs
        && !matches!(spec.arch, Arch::T5 | Arch::Falcon | Arch::Bloom);
    if !covered {
        return None;
    }
    let bs = l.tokens();
    let out_b = l.compute_bytes();
    let mut t = Terms::default();
    // The checkpoint's input: fp32 under autocast, like full checkpointing.
    let residual = if l.autocast { 4 } else { l.act_bytes };
    t.push(
        "layer input (checkpoint)",
        residual * bs * l.hidden,
        format!("{residual}·b·s·h"),
    );
    let (mut counted, mut saved) = (0u32, 0u128);
    let mut widths = Vec::new();
    for lin in linears(l, spec) {
        saved += keep_output(&mut counted, lin.bias, lin.width, &mut widths);
        let adapter = lin
            .target
            .and_then(|x| l.lora.as_ref().filter(|lo| lo.targets.contains(&x)));
        if let Some(lo) = adapter {
            // PEFT/litgpt LoRA: lora_A then lora_B, two more bias-free matmuls.
            saved += keep_output(&mut counted, false, lo.rank, &mut widths);
            saved += keep_output(&mut counted, false, lin.width, &mut widths);
        }
    }
    t.push(
        "kept matmul outputs (every second mm, every addmm)",
        out_b * bs * saved,
        format!("{out_b}·b·s·({})", widths.join(" + ")),
    );
    let qd = l.heads * l.head_dim;
    match l.attention {
        Attention::Sdpa | Attention::Flash => t.push(
            "attention kernel output + logsumexp",
            out_b * bs * qd + 4 * l.batch * l.heads * l.seq,
            format!("{out_b}·b·s·{qd} + 4·b·a·s"),
        ),
        // Eager attention's two batched matmuls: the scores and P·V.
        Attention::Eager => t.push(
            "attention scores + P·V (bmm outputs)",
            out_b * (l.batch * l.heads * l.seq * l.seq + bs * qd),
            format!("{out_b}·(a·b·s² + b·s·{qd})"),
        ),
    }
    Some(t.0)
}

/// Adds one matmul's output to the kept set when the policy saves it:
/// every `addmm`, and the odd-numbered `mm` calls.
fn keep_output(counted: &mut u32, bias: bool, width: u128, widths: &mut Vec<String>) -> u128 {
    if !bias {
        *counted += 1;
        if counted.is_multiple_of(2) {
            return 0;
        }
    }
    widths.push(width.to_string());
    width
}

/// The block's linears in call order: q, k, v (or one fused projection),
/// o, then gate and up (or one fused projection, or a plain fc) and down.
fn linears(l: &LayerShape, spec: &ModelSpec) -> Vec<Linear> {
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    let qkv_bias = spec.qkv_bias || spec.arch == Arch::Gpt2;
    let mlp_bias = spec.mlp_bias.unwrap_or(spec.out_bias) || spec.arch == Arch::Gpt2;
    let out_bias = spec.out_bias || spec.arch == Arch::Gpt2;
    let lin = |target, width, bias| Linear {
        target,
        width,
        bias,
    };
    let mut v = Vec::new();
    // Fused q/k/v projections: Phi-3's qkv_proj, GPT-NeoX's
    // query_key_value, GPT-2's and StarCoder's c_attn.
    if matches!(
        spec.arch,
        Arch::Phi3 | Arch::GptNeox | Arch::Gpt2 | Arch::GptBigcode
    ) {
        v.push(lin(Some(LoraTarget::Q), qd + 2 * kvd, qkv_bias));
    } else {
        v.push(lin(Some(LoraTarget::Q), qd, qkv_bias));
        v.push(lin(Some(LoraTarget::K), kvd, qkv_bias));
        v.push(lin(Some(LoraTarget::V), kvd, qkv_bias));
    }
    v.push(lin(Some(LoraTarget::O), l.hidden, out_bias));
    let i = l.intermediate;
    match spec.mlp {
        MlpKind::Gated if spec.arch == Arch::Phi3 => {
            v.push(lin(Some(LoraTarget::Gate), 2 * i, mlp_bias))
        }
        MlpKind::Gated => {
            v.push(lin(Some(LoraTarget::Gate), i, mlp_bias));
            v.push(lin(Some(LoraTarget::Up), i, mlp_bias));
        }
        _ => v.push(lin(Some(LoraTarget::Up), i, mlp_bias)),
    }
    v.push(lin(Some(LoraTarget::Down), l.hidden, mlp_bias));
    v
}
