//! Bytes kept alive for backward by one training step.
//!
//! The per-layer terms are the tensors autograd saves, read off PyTorch's
//! saved-tensor hooks on real transformers blocks
//! (`shared/groundtruth/cpu/README.md` §2, reproduced exactly there for Llama-
//! and GPT-2-style blocks, eager and SDPA, fp32 / bf16 / autocast). Each term
//! is kept only when something that needs it requires a gradient, which is how
//! LoRA and frozen towers save memory.

use crate::model::{Arch, MlpKind, ModelSpec, NormKind};
use crate::scenario::{Attention, Checkpointing, Framework, LoraTarget};

/// Shape of one micro-batch through one layer, and what is trainable.
#[derive(Clone, Debug)]
pub struct LayerShape {
    pub batch: u128,
    pub seq: u128,
    pub hidden: u128,
    pub intermediate: u128,
    pub heads: u128,
    pub kv_heads: u128,
    pub head_dim: u128,
    /// Bytes of the activation dtype (2 for 16-bit, 4 for fp32).
    pub act_bytes: u128,
    /// Autocast: fp32 residual stream and per-linear 16-bit input copies.
    pub autocast: bool,
    pub attention: Attention,
    /// Which weight groups need weight gradients (trainable or carrying LoRA).
    pub grads: GradNeeds,
    /// LoRA rank and dropout; `None` when no LoRA.
    pub lora: Option<LoraActs>,
    /// Dropout on attention probabilities and residuals (GPT-2, OPT, BERT, T5).
    pub dropout: bool,
    /// Quantized linears keep an fp32 copy of their input (see `training.rs`).
    pub fp32_linear_inputs: bool,
    /// Encoder tokens a decoder layer of an encoder-decoder model (T5)
    /// attends to; 0 for every other layer.
    pub cross_seq: u128,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct GradNeeds {
    pub qkv: bool,
    pub o: bool,
    pub gate_up: bool,
    pub down: bool,
    pub norms: bool,
    /// litgpt adapter v2 scales every linear's output by a trained vector
    /// (`adapter_scale * (linear(x) + adapter_bias)`): autograd saves the
    /// scaled operand, one tensor as wide as each linear's output.
    pub linear_outputs: bool,
}

impl GradNeeds {
    pub fn all() -> Self {
        GradNeeds {
            qkv: true,
            o: true,
            gate_up: true,
            down: true,
            norms: true,
            linear_outputs: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct LoraActs {
    pub rank: u128,
    pub targets: Vec<LoraTarget>,
    /// LoRA dropout > 0 keeps a dropped copy of the input and a 1-byte mask.
    pub dropout: bool,
    /// PEFT style: every adapted module has its own dropout and fp32 adapter
    /// weights (PEFT's `autocast_adapter_dtype=True` default upcasts 16-bit
    /// adapters), so each one keeps an fp32 copy of its own input. Otherwise
    /// (litgpt, torchtune) adapters share the block's input in its dtype.
    pub per_module_fp32: bool,
    /// q, k and v are one linear (litgpt's `attn`), so one LoRA module and
    /// one dropout serve all three; otherwise each adapted projection has its own.
    pub fused_qkv: bool,
}

/// How the feed-forward's activation function saves tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActFn {
    /// SwiGLU / GeGLU: gate, act(gate), up saved (3 tensors of width i).
    Gated,
    /// A fused GELU saves its input (1 tensor of width i).
    Fused,
    /// HF `gelu_new` built from Python ops saves 4 tensors of width i
    /// (cpu/README §2: "+24·bsh" over a fused GELU at i = 4h in bf16).
    PythonGelu,
    /// ReLU saves its output, shared with the next linear's input.
    Relu,
}

/// litgpt writes its own blocks with `torch.nn.functional.gelu` (fused) for
/// every plain MLP; transformers keeps each model's original activation.
pub fn act_fn(spec: &ModelSpec, framework: Framework) -> ActFn {
    match (spec.mlp, spec.arch) {
        (MlpKind::Gated, _) => ActFn::Gated,
        (MlpKind::Plain, _) if framework == Framework::Litgpt => ActFn::Fused,
        (MlpKind::Plain, Arch::Gpt2 | Arch::Phi) => ActFn::PythonGelu,
        (MlpKind::Plain, Arch::Opt | Arch::T5) => ActFn::Relu,
        (MlpKind::Plain, _) => ActFn::Fused,
    }
}

/// Whether the architecture trains with dropout by default.
pub fn has_dropout(spec: &ModelSpec) -> bool {
    matches!(spec.arch, Arch::Gpt2 | Arch::Opt | Arch::Bert | Arch::T5)
}

/// One saved-tensor term: a name, its bytes and the formula in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub name: &'static str,
    pub bytes: u128,
    pub formula: String,
}

/// Saved bytes per layer (no checkpointing), term by term.
pub fn layer_terms(l: &LayerShape, spec: &ModelSpec, act: ActFn) -> Vec<Term> {
    let (b, s, h, i) = (l.batch, l.seq, l.hidden, l.intermediate);
    let bs = b * s;
    let bsh = bs * h;
    let bsi = bs * i;
    let big_b = l.act_bytes;
    let kvd = l.kv_heads * l.head_dim;
    let qd = l.heads * l.head_dim;
    let mut t = Vec::new();
    let mut push = |name: &'static str, bytes: u128, formula: String| {
        if bytes > 0 {
            t.push(Term {
                name,
                bytes,
                formula,
            })
        }
    };
    // Norms: RMSNorm upcasts to fp32 and keeps that copy (4 B) plus 1/rms
    // (4 B per token); LayerNorm keeps its input and fp32 mean + rstd (8 B per token).
    // Autocast keeps an fp32 residual stream, so the copy is 4 B there too.
    let norms_per_layer: u128 = if matches!(spec.arch, Arch::Phi | Arch::Falcon) {
        1 // parallel block with one shared norm
    } else {
        2
    };
    let (norm_in, norm_stat) = match spec.norm {
        NormKind::Rms => (4, 4),
        NormKind::Layer => (if l.autocast { 4 } else { big_b }, 8),
    };
    push(
        "norm inputs",
        norms_per_layer * (norm_in * bsh + norm_stat * bs),
        format!("{norms_per_layer} norms × ({norm_in}·b·s·h + {norm_stat}·b·s)"),
    );
    if l.grads.norms && spec.norm == NormKind::Rms {
        // RMSNorm multiplies by its weight in Python: the normalized tensor is
        // saved for the weight's gradient. LayerNorm is one fused op.
        push(
            "normalized (norm weight grad)",
            norms_per_layer * big_b * bsh,
            format!("{norms_per_layer} × {big_b}·b·s·h"),
        );
    }
    // Shared-input LoRA (litgpt, torchtune) is counted with the input of
    // each group of linears; PEFT's per-module copies are counted below.
    // How many LoRA modules read one group's input: each applies its own
    // dropout to it (litgpt and torchtune `LoRALinear`), so each keeps a
    // dropped copy and a mask.
    let lora_on = |targets: &[LoraTarget]| -> u128 {
        let Some(lo) = l.lora.as_ref().filter(|lo| !lo.per_module_fp32) else {
            return 0;
        };
        let adapted = lo.targets.iter().filter(|x| targets.contains(x)).count() as u128;
        let fused = lo.fused_qkv && targets.contains(&LoraTarget::Q);
        if fused {
            adapted.min(1)
        } else {
            adapted
        }
    };
    // Input of a group of linears: saved for their weight gradient or LoRA's A.
    // Autocast re-casts the input inside each linear: one 16-bit copy per linear.
    let linear_input = |needs: bool, lora_modules: u128, width: u128, copies: u128| -> u128 {
        let mut bytes = 0;
        if needs {
            bytes += if l.autocast { 2 * copies } else { big_b } * bs * width;
        }
        if lora_modules > 0 {
            if l.lora.as_ref().is_some_and(|lo| lo.dropout) {
                // each module's dropped copy + 1-byte mask
                bytes += lora_modules * (big_b + 1) * bs * width;
            } else if !needs {
                // the shared input itself, for every A's gradient
                bytes += big_b * bs * width;
            }
        }
        bytes
    };
    push(
        "attention input",
        linear_input(
            l.grads.qkv,
            lora_on(&[LoraTarget::Q, LoraTarget::K, LoraTarget::V]),
            h,
            3,
        ),
        "b·s·h (q/k/v weight or LoRA grad)".into(),
    );
    let attn_bytes = if l.autocast { 2 } else { big_b };
    match l.attention {
        Attention::Sdpa | Attention::Flash => {
            // q, un-repeated k and v, the output and fp32 logsumexp.
            push(
                "q, k, v",
                attn_bytes * (bs * qd + 2 * bs * kvd),
                format!("{attn_bytes}·b·s·({qd} + 2·{kvd})"),
            );
            // Also o_proj's input: selective recompute keeps it when o_proj
            // needs its weight gradient, and drops it with the core otherwise.
            let o_needs = linear_input(l.grads.o, lora_on(&[LoraTarget::O]), qd, 1) > 0;
            push(
                if o_needs {
                    "attention output (o_proj input)"
                } else {
                    "attention output"
                },
                attn_bytes * bs * qd,
                format!("{attn_bytes}·b·s·{qd}"),
            );
            push("logsumexp", 4 * b * l.heads * s, "4·a·b·s".into());
            if linear_input(l.grads.o, lora_on(&[LoraTarget::O]), qd, 1) > attn_bytes * bs * qd {
                push("o_proj input copy", l.act_bytes * bs * qd, "b·s·a·d".into());
            }
        }
        Attention::Eager => {
            // q, k and v repeated to every head, the output for o_proj.
            let o_in = linear_input(l.grads.o, lora_on(&[LoraTarget::O]), qd, 1);
            push(
                "q, k, v (repeated), attention output",
                attn_bytes * 3 * bs * qd + o_in,
                format!("{attn_bytes}·3·b·s·{qd} + o_proj input"),
            );
            let per_score = eager_score_bytes(spec.arch, l.act_bytes, l.autocast);
            push(
                "attention scores",
                per_score * b * l.heads * s * s,
                format!("{per_score}·a·b·s²"),
            );
            if l.dropout {
                // 1-byte mask + the dropped probabilities P·V reads. Under
                // autocast P·V reads a 16-bit copy, already one of the score
                // bytes above; the fp32 dropout output is saved by nothing
                // (dropout's backward needs only its mask) and is freed.
                let dropped = attention_dropout_copy_bytes(attn_bytes, l.autocast);
                push(
                    "attention dropout",
                    (1 + dropped) * b * l.heads * s * s,
                    format!("(1 + {dropped})·a·b·s² mask + dropped probs"),
                );
            }
        }
    }
    if l.cross_seq > 0 {
        // T5's decoder layers add a cross-attention block (transformers
        // T5LayerCrossAttention): its own norm (input + normalized), q over
        // the target tokens, k and v over the encoder's, the attention output
        // for o, and the scores over target × source like self-attention's.
        let src = l.cross_seq;
        push(
            "cross-attention norm",
            norm_in * bsh + norm_stat * bs + big_b * bsh,
            format!("{norm_in}·b·s·h + {norm_stat}·b·s + {big_b}·b·s·h"),
        );
        push(
            "cross-attention q, k, v, output",
            attn_bytes * (2 * bs * qd + 2 * b * src * kvd),
            format!("{attn_bytes}·(2·b·s·{qd} + 2·b·{src}·{kvd})"),
        );
        match l.attention {
            Attention::Sdpa | Attention::Flash => push(
                "cross-attention logsumexp",
                4 * b * l.heads * s,
                "4·a·b·s".into(),
            ),
            Attention::Eager => {
                let per_score = eager_score_bytes(spec.arch, l.act_bytes, l.autocast)
                    + if l.dropout {
                        1 + attention_dropout_copy_bytes(attn_bytes, l.autocast)
                    } else {
                        0
                    };
                push(
                    "cross-attention scores",
                    per_score * b * l.heads * s * src,
                    format!("{per_score}·a·b·s·{src}"),
                );
            }
        }
    }
    // Feed-forward.
    let mlp_act = if l.autocast { 2 } else { big_b };
    let (n, what) = match act {
        ActFn::Gated => (3, "gate, act(gate), up"),
        ActFn::Fused => (1, "activation input"),
        ActFn::PythonGelu => (4, "gelu_new intermediates"),
        ActFn::Relu => (1, "relu output"),
    };
    push(
        "feed-forward",
        n * mlp_act * bsi,
        format!("{n}·{mlp_act}·b·s·i ({what})"),
    );
    if l.dropout && spec.arch == Arch::T5 {
        // T5DenseActDense drops out the intermediate itself (wi → act →
        // dropout → wo): a 1-byte mask and the dropped copy wo reads.
        push(
            "feed-forward dropout",
            (1 + mlp_act) * bsi,
            format!("(1 + {mlp_act})·b·s·i mask + dropped copy"),
        );
    }
    push(
        "feed-forward input",
        linear_input(
            l.grads.gate_up,
            // A plain MLP has one up projection (`fc`), whatever the targets say.
            if act == ActFn::Gated {
                lora_on(&[LoraTarget::Gate, LoraTarget::Up])
            } else {
                lora_on(&[LoraTarget::Gate, LoraTarget::Up]).min(1)
            },
            h,
            if act == ActFn::Gated { 2 } else { 1 },
        ),
        "b·s·h (gate/up weight or LoRA grad)".into(),
    );
    if act != ActFn::Relu {
        push(
            "down_proj input",
            linear_input(l.grads.down, lora_on(&[LoraTarget::Down]), i, 1),
            "b·s·i (down weight or LoRA grad)".into(),
        );
    }
    if l.grads.linear_outputs {
        // q/k/v (fused in litgpt) and o; the MLP's up projections and down.
        let mlp_out = if act == ActFn::Gated {
            2 * i + h
        } else {
            i + h
        };
        push(
            "linear outputs (adapter v2 scale grad)",
            big_b * bs * (qd + 2 * kvd + h + mlp_out),
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
    if let Some(lo) = &l.lora {
        // Each adapted linear keeps its A output (rank wide) for B's gradient.
        let n = lo
            .targets
            .iter()
            .filter(|x| **x != LoraTarget::Head)
            .count() as u128;
        let a_bytes = if lo.per_module_fp32 { 4 } else { big_b };
        push(
            "LoRA A outputs",
            n * a_bytes * bs * lo.rank,
            format!("{n} targets × {a_bytes}·b·s·r"),
        );
        if lo.per_module_fp32 {
            // Each adapted module: its input cast to fp32 (4 B) and, with
            // dropout, the 1-byte mask; under autocast also the 16-bit copy
            // lora_A's matmul casts.
            let width: u128 = lo
                .targets
                .iter()
                .map(|t| match t {
                    LoraTarget::Q
                    | LoraTarget::K
                    | LoraTarget::V
                    | LoraTarget::Gate
                    | LoraTarget::Up => h,
                    LoraTarget::O => qd,
                    LoraTarget::Down => i,
                    LoraTarget::Head => 0,
                })
                .sum();
            let per = 4 + u128::from(lo.dropout) + if l.autocast { 2 } else { 0 };
            push(
                "LoRA inputs (fp32, per module)",
                per * bs * width,
                format!("{per}·b·s × Σ adapted input widths ({width})"),
            );
        }
    }
    if l.fp32_linear_inputs {
        // Each quantized linear casts its input to fp32 and keeps that copy:
        // 4 B × the input width of every linear, less the 16-bit copies above.
        let (linears_on_h, mlp_in): (u128, u128) = match act {
            ActFn::Gated => (3, i), // attn, gate, up on h; down on i
            _ => (2, i),            // attn, fc on h; proj on i
        };
        let fp32 = 4 * bs * (linears_on_h * h + qd + mlp_in);
        let counted = big_b * bs * (2 * h + qd + mlp_in);
        push(
            "fp32 inputs of quantized linears",
            fp32.saturating_sub(counted),
            format!("4·b·s·({linears_on_h}·h + a·d + i) − the 16-bit copies"),
        );
    }
    if l.dropout {
        push(
            "residual dropout masks",
            2 * bsh,
            "2 × 1-byte b·s·h masks".into(),
        );
    }
    t
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

/// Bytes per score of the dropped probabilities that P·V saves, beyond the
/// mask: the probabilities in the activation dtype; none extra under
/// autocast, whose 16-bit copy for P·V [`eager_score_bytes`] counts.
fn attention_dropout_copy_bytes(attn_bytes: u128, autocast: bool) -> u128 {
    if autocast {
        0
    } else {
        attn_bytes
    }
}

/// Bytes eager attention keeps per attention score (b·a·s² of them), by how
/// each transformers implementation writes its softmax:
/// * Llama and its copies: fp32 softmax output + 16-bit copy for P·V = 6 B in
///   16-bit, 4 B in fp32 (cpu/README §2, exact over 48 grid rows).
/// * OPT: also clamps scores with `torch.max`, which saves its 16-bit input:
///   2 + 4 + 2 = 8 B (hf-sdpa-158/160: eager − sdpa = 8.0 and 7.7 B per score).
/// * GPT-NeoX/Pythia: 6 B per score (hf-sdpa-169, the eager run at s = 2048).
/// * GPT-2-style blocks softmax in the activation dtype: B per score
///   (cpu/README §2, GPT-2 rows); under autocast fp32 softmax + 16-bit copy = 6.
/// * BERT under autocast: fp32 softmax output 4 + 16-bit copy for P·V 2 = 6;
///   its fp32 dropout output is saved by nothing (dropout keeps only its
///   1-byte mask, added separately), so it is gone at the peak.
pub fn eager_score_bytes(arch: Arch, act_bytes: u128, autocast: bool) -> u128 {
    let sixteen = act_bytes == 2 || autocast;
    match arch {
        Arch::Opt if sixteen => 8,
        Arch::GptNeox | Arch::Stablelm if sixteen => 6,
        Arch::Bert | Arch::T5 if autocast => 6,
        Arch::Gpt2 | Arch::Bert | Arch::T5 | Arch::Bloom | Arch::GptBigcode | Arch::Phi => {
            if autocast {
                6
            } else {
                act_bytes
            }
        }
        _ if sixteen => 6,
        _ => 4,
    }
}
