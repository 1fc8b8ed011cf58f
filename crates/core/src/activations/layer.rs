//! One layer's saved tensors, term by term, and what checkpointing keeps of them.

use super::attention::{
    cross_attention_terms, eager_attention_terms, fused_attention_terms, math_sdpa_terms,
    sdpa_falls_back_to_math,
};
use super::local_attention::local_attention_terms;
use super::merged_attention::merged_attention_terms;
use super::shape::{
    norm_saves, qk_norm_rows, qk_norm_weight, ActFn, LayerShape, LoraActs, NormSaves, RmsWeight,
    Term, Terms,
};
use crate::model::{Arch, ModelSpec, QkNorm};
use crate::scenario::{Attention, Checkpointing, LoraTarget};

/// Saved bytes per layer (no checkpointing), term by term.
pub fn layer_terms(l: &LayerShape, spec: &ModelSpec, act: ActFn) -> Vec<Term> {
    block_terms(l, spec, act, Block::Layer)
}

/// What a block of layers holds: a whole layer (norms, attention and
/// feed-forward), or one of Nemotron-H's single-purpose blocks, attention
/// or feed-forward alone behind one norm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Layer,
    Attention,
    FeedForward,
}

/// Saved bytes of one block (no checkpointing), term by term.
pub fn block_terms(l: &LayerShape, spec: &ModelSpec, act: ActFn, block: Block) -> Vec<Term> {
    let mut t = Terms::default();
    let mut norms = norm_saves(l, spec);
    if block != Block::Layer {
        norms.count = 1;
    }
    norm_terms(&mut t, l, &norms);
    if block != Block::FeedForward {
        attention_block_terms(&mut t, l, spec, &norms);
    }
    if block != Block::Attention {
        feed_forward_terms(&mut t, l, spec, act);
    }
    if block != Block::Layer {
        return t.0;
    }
    if l.grads.linear_outputs {
        linear_outputs_term(&mut t, l, act);
    }
    if let Some(lo) = &l.lora {
        lora_terms(&mut t, l, lo);
    }
    if l.fp32_linear_inputs {
        fp32_linear_inputs_term(&mut t, l, act);
    }
    if let Some(hc) = &spec.hyper_connections {
        super::hyper::hyper_terms(&mut t, l, hc);
    }
    if l.dropout {
        // BART's and T5's decoder layers drop their cross-attention's
        // output too (measured: `tests/data/bart/`, `tests/data/t5/`)
        let masks = 2 + u128::from(matches!(spec.arch, Arch::Bart | Arch::T5) && l.cross_seq > 0);
        t.push(
            "residual dropout masks",
            masks * l.tokens() * l.hidden,
            format!("{masks} × 1-byte b·s·h masks"),
        );
    }
    t.0
}

/// The attention's input, its q/k norms, its core and any cross-attention.
fn attention_block_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, norms: &NormSaves) {
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
    qk_norm_terms(t, l, spec);
    match (spec.local_attention(), l.attention) {
        // LongT5's encoder layers (no cross-attention) attend in blocks
        (Some(local), _) if l.cross_seq == 0 => local_attention_terms(t, l, local),
        // T5Gemma 2: the cross-attention is the self-attention's own
        _ if spec.merged_cross_attention => merged_attention_terms(t, l, spec),
        (_, Attention::Sdpa) if sdpa_falls_back_to_math(l, spec) => math_sdpa_terms(t, l),
        (_, Attention::Sdpa | Attention::Flash) => fused_attention_terms(t, l),
        (_, Attention::Eager) => eager_attention_terms(t, l, spec),
    }
    if l.window_mask && l.attention == Attention::Sdpa {
        // SDPA turns transformers' boolean sliding-window mask into an
        // additive (b, 1, s, s) one in the activation dtype
        // (`convert_boolean_attn_mask`) and keeps it for backward, a new one
        // in every sliding layer (measured on CPU: tests/data/modernbert_decoder/)
        t.push(
            "sliding-window mask",
            l.act_bytes * l.batch * l.seq * l.seq,
            "B·b·s²".into(),
        );
    }
    if spec.relative_bias_every_layer {
        // UMT5's own bias table in every layer: its embedding keeps the
        // (s, s) int64 bucket ids, without a batch dimension; with SDPA and
        // no dropout the fused cross-attention keeps each layer's zero
        // bias, (1, a, s, source) (measured on CPU: tests/data/t5/)
        let zero_bias = l.cross_seq > 0 && l.attention != Attention::Eager && !l.dropout;
        t.push(
            "position buckets (int64), zero cross bias",
            8 * l.seq * l.seq + u128::from(zero_bias) * l.act_bytes * l.heads * l.seq * l.cross_seq,
            "8·s² (+ B·a·s·source, SDPA without dropout)".into(),
        );
    }
    if l.attention == Attention::Sdpa && l.cross_seq > 0 && spec.arch == Arch::T5 {
        // T5's decoder hands SDPA its position bias as a float mask that
        // each layer rebuilds with `torch.where` over the boolean causal
        // mask, which the `where` keeps (measured on CPU: tests/data/t5/)
        t.push("causal mask (bool)", l.seq * l.seq, "s²".into());
    }
    if output_copied(l, spec) {
        // Whisper makes q, k and v contiguous head-major before SDPA, so
        // the kernel's output is head-major too and o_proj reads a copy
        // (measured: 9·s·h kept per encoder layer, not 8)
        t.push(
            "o_proj input (head-major copy)",
            l.o_proj_input(),
            "b·s·h (o weight or LoRA grad)".into(),
        );
    }
    if l.cross_seq > 0 && !spec.merged_cross_attention {
        cross_attention_terms(t, l, spec, norms);
        if output_copied(l, spec) {
            t.push(
                "cross-attention o_proj input (head-major copy)",
                l.o_proj_input(),
                "b·s·h (o weight or LoRA grad)".into(),
            );
        }
    }
}

/// Whisper's SDPA output reaches o_proj as a contiguous copy.
fn output_copied(l: &LayerShape, spec: &ModelSpec) -> bool {
    spec.arch == Arch::Whisper && l.attention == Attention::Sdpa
}

fn norm_terms(t: &mut Terms, l: &LayerShape, norms: &NormSaves) {
    let bs = l.tokens();
    let bsh = bs * l.hidden;
    let NormSaves {
        count,
        input,
        stat,
        rms,
    } = *norms;
    t.push(
        "norm inputs",
        count * (input * bsh + stat * bs),
        format!("{count} norms × ({input}·b·s·h + {stat}·b·s)"),
    );
    let Some(rms) = rms else {
        // LayerNorm is one fused op: its input and statistics are all it keeps.
        return;
    };
    if l.grads.norms {
        // RMSNorm multiplies by its weight in Python: the normalized tensor is
        // saved for the weight's gradient, in the input dtype (LlamaRMSNorm:
        // `weight * hidden.to(input_dtype)`) or in fp32 (GemmaRMSNorm:
        // `output * (1.0 + weight.float())` before the cast back; measured:
        // tests/data/compile/compile_saved.csv, eager gemma and gemma2 rows,
        // (4 − B)·b·s·h per norm over the input-dtype copy).
        let bytes = match rms {
            RmsWeight::InputDtype => l.act_bytes,
            RmsWeight::GemmaOffset => 4,
        };
        t.push(
            "normalized (norm weight grad)",
            count * bytes * bsh,
            format!("{count} × {bytes}·b·s·h"),
        );
    }
    if rms == RmsWeight::GemmaOffset {
        // GemmaRMSNorm's fp32 `1.0 + weight.float()` is a new tensor the
        // product saves for the normalized input's gradient, 4·h per norm
        // (tests/data/compile/compile_saved.csv, eager gemma and gemma2 rows).
        t.push(
            "norm `1 + weight` (fp32)",
            count * 4 * l.hidden,
            format!("{count} × 4·h"),
        );
    }
}

/// The q/k norms of attention (Qwen3, Qwen3-MoE, Gemma-3: an RMSNorm over
/// every q head and every k head, before RoPE). Each keeps what a hidden
/// norm keeps, over the q and k projections instead of the residual: its
/// fp32 input copy, 1/rms per normalized row and, for the weight's gradient,
/// the normalized tensor; GemmaRMSNorm also its fp32 `1 + weight`.
/// Measured: tests/data/compile/compile_saved.csv, eager qwen3 rows
/// (transformers `Qwen3RMSNorm` as `Qwen3Attention.q_norm` / `k_norm`):
/// (4 + B)·b·s·(a·d + kv·d) + 4·b·s·(a + kv) per layer.
fn qk_norm_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec) {
    let (Some(rms), Some((rows, what))) = (qk_norm_weight(spec), qk_norm_rows(spec, l)) else {
        return;
    };
    let bs = l.tokens();
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    t.push(
        "q/k norm inputs",
        4 * bs * (qd + kvd) + 4 * bs * rows,
        format!("4·b·s·({qd} + {kvd}) + 4·b·s·{what}"),
    );
    if l.grads.norms {
        // The q and k projections' outputs are in the compute dtype (16-bit
        // under autocast), the dtype LlamaRMSNorm-style norms cast back to.
        let bytes = match rms {
            RmsWeight::InputDtype => l.compute_bytes(),
            RmsWeight::GemmaOffset => 4,
        };
        t.push(
            "q/k normalized (norm weight grad)",
            bytes * bs * (qd + kvd),
            format!("{bytes}·b·s·({qd} + {kvd})"),
        );
    }
    if rms == RmsWeight::GemmaOffset {
        // Gemma3RMSNorm's fp32 `1 + weight`, as wide as each norm's weight.
        let width = match spec.qk_norm_kind() {
            QkNorm::Head => 2 * l.head_dim,
            QkNorm::PerHead | QkNorm::Full => qd + kvd,
            QkNorm::Off => 0,
        };
        t.push(
            "q/k norm `1 + weight` (fp32)",
            4 * width,
            format!("4·{width}"),
        );
    }
}

/// The feed-forward's activation, its dropout (T5) and the inputs of its linears.
pub(super) fn feed_forward_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, act: ActFn) {
    let bsi = l.tokens() * l.intermediate;
    let mlp_act = l.compute_bytes();
    let routed = l.routed_experts > 0;
    if routed {
        // Switch Transformers' top-1 router (`SwitchTransformersTop1Router`):
        // the fp32 input and its jitter noise, the fp32 softmax and int64
        // expert ids; then per routed token its int64 (row, token) pair,
        // the gathered input (the expert's input), the weighted output and
        // `index_add_`'s source, and its weight; the expert's ReLU and
        // dropout below (measured on CPU: tests/data/t5/). Every token
        // counts as kept, an upper bound where the capacity drops some.
        let tokens = l.tokens();
        t.push(
            "router (fp32 input, jitter, softmax, ids)",
            tokens * (8 * l.hidden + 4 * l.routed_experts + 8),
            "b·s·(8·h + 4·E + 8)".into(),
        );
        t.push(
            "routed tokens",
            tokens * (16 + mlp_act * (3 * l.hidden + 1)),
            format!("b·s·(16 + {mlp_act}·(3·h + 1))"),
        );
    }
    let (n, what) = match act {
        ActFn::Gated => (3, "gate, act(gate), up"),
        ActFn::Fused => (1, "activation input"),
        ActFn::PythonGelu => (4, "gelu_new intermediates"),
        ActFn::Relu => (1, "relu output"),
        ActFn::GatedPythonGelu => (6, "gelu_new intermediates, act(gate), up"),
    };
    // Under autocast `torch.pow` runs in fp32 (its CUDA fp32 list, PyTorch's
    // "Automatic Mixed Precision" notes), so gelu_new's chain is fp32 from
    // the cube on: the cube's cast input, tanh's output and 1 + tanh keep 4
    // bytes, 0.5·x 2 (measured on an H100: GPT-2 under AMP at 8 × 1024,
    // tests/data/groundtruth/h100_measured.jsonl, was 11.5 % low).
    let (per, formula) = if act == ActFn::PythonGelu && l.autocast {
        (
            4 + 4 + 2 + 4,
            format!("(4+4+2+4)·b·s·i ({what}, fp32 from the cube under autocast)"),
        )
    } else {
        (n * mlp_act, format!("{n}·{mlp_act}·b·s·i ({what})"))
    };
    t.push("feed-forward", per * bsi, formula);
    let t5_dropout = l.dropout && spec.arch == Arch::T5;
    if t5_dropout {
        // T5DenseActDense drops out the intermediate itself (wi → act →
        // dropout → wo): a 1-byte mask and the dropped copy wo reads.
        t.push(
            "feed-forward dropout",
            (1 + mlp_act) * bsi,
            format!("(1 + {mlp_act})·b·s·i mask + dropped copy"),
        );
    }
    // a routed token's gathered input is the expert's input, counted above
    if routed {
        return;
    }
    let gate_up_lora = l.lora_modules_on(&[LoraTarget::Gate, LoraTarget::Up]);
    t.push(
        "feed-forward input",
        l.linear_input(
            l.grads.gate_up,
            // A plain MLP has one up projection (`fc`), whatever the targets say.
            if act.is_gated() {
                gate_up_lora
            } else {
                gate_up_lora.min(1)
            },
            l.hidden,
            if act.is_gated() { 2 } else { 1 },
        ),
        "b·s·h (gate/up weight or LoRA grad)".into(),
    );
    // ReLU's output and T5's dropped copy are the down projection's input
    if act != ActFn::Relu && !t5_dropout {
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
    let mlp_out = if act.is_gated() { 2 * i + h } else { i + h };
    t.push(
        "linear outputs (adapter v2 scale grad)",
        big_b * l.tokens() * (qd + 2 * kvd + h + mlp_out),
        format!(
            "{big_b}·b·s·({qd} + 2·{kvd} + h + {})",
            if act.is_gated() { "2·i + h" } else { "i + h" }
        ),
    );
}

/// Each adapted linear keeps its A output (rank wide) for B's gradient;
/// PEFT's modules also keep their own fp32 input.
pub(super) fn lora_terms(t: &mut Terms, l: &LayerShape, lo: &LoraActs) {
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
    if l.lora_copies_per_module() {
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
        ActFn::Gated | ActFn::GatedPythonGelu => (3, i), // attn, gate, up on h; down on i
        _ => (2, i),                                     // attn, fc on h; proj on i
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
        // A layer op SAC was not measured on keeps every eager term
        // (activations/op_sac.rs covers the others).
        Checkpointing::Off | Checkpointing::Op => full,
        // Only the layer input (fp32 under autocast) is kept (cpu/README §2),
        // all its streams in a hyper-connected model.
        Checkpointing::Full => {
            let residual = if l.autocast { 4 } else { l.act_bytes };
            residual * l.batch * l.seq * l.hidden * l.streams.max(1)
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
