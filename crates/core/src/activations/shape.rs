//! The shape of one layer's micro-batch and what in it needs a gradient:
//! what every saved-tensor term of the layer reads.

use crate::model::{Arch, MlpKind, ModelSpec, NormKind, QkNorm};
use crate::scenario::{Attention, Framework, LoraTarget};

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
    /// Quantized linears keep an fp32 copy of their input (see `training/saved.rs`).
    pub fp32_linear_inputs: bool,
    /// Encoder tokens a decoder layer of an encoder-decoder model (T5)
    /// attends to; 0 for every other layer.
    pub cross_seq: u128,
    /// Copies of the hidden state in the residual stream: 1, or a
    /// hyper-connected model's streams (what a checkpointed layer keeps).
    pub streams: u128,
    /// A sliding-window layer over at least its window: transformers hands
    /// SDPA a boolean mask, which it turns into an additive one it keeps.
    pub window_mask: bool,
    /// Experts a Switch Transformers layer routes its tokens to; 0: a
    /// dense feed-forward.
    pub routed_experts: u128,
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
    /// T5's gated GELU (`feed_forward_proj: "gated-gelu"` runs `gelu_new`
    /// on `wi_0`): the 4 Python GELU intermediates, then the product's two
    /// operands (measured on CPU: `tests/data/t5/`).
    GatedPythonGelu,
}

impl ActFn {
    /// Two up projections (gate and up), both reading the norm's output.
    pub fn is_gated(self) -> bool {
        matches!(self, ActFn::Gated | ActFn::GatedPythonGelu)
    }
}

/// litgpt writes its own blocks with `torch.nn.functional.gelu` (fused) for
/// every plain MLP; transformers keeps each model's original activation.
pub fn act_fn(spec: &ModelSpec, framework: Framework) -> ActFn {
    match (spec.mlp, spec.arch) {
        (MlpKind::Gated, Arch::T5) => ActFn::GatedPythonGelu,
        (MlpKind::Gated, _) => ActFn::Gated,
        (MlpKind::Plain, _) if framework == Framework::Litgpt => ActFn::Fused,
        // GPT-Neo's `gelu_new` is GPT-2's Python GELU
        (MlpKind::Plain, Arch::Gpt2 | Arch::GptNeo | Arch::Phi) => ActFn::PythonGelu,
        (MlpKind::Plain, Arch::Opt | Arch::T5) => ActFn::Relu,
        (MlpKind::Plain, _) if spec.relu_mlp => ActFn::Relu,
        (MlpKind::Plain, _) => ActFn::Fused,
    }
}

/// Whether the architecture trains with dropout by default.
pub fn has_dropout(spec: &ModelSpec) -> bool {
    matches!(
        spec.arch,
        Arch::Gpt2 | Arch::Opt | Arch::Bert | Arch::T5 | Arch::Bart
    )
}

/// One saved-tensor term: a name, its bytes and the formula in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub name: &'static str,
    pub bytes: u128,
    pub formula: String,
}

/// The terms of one layer as they are found; a term of 0 bytes is left out.
#[derive(Default)]
pub(super) struct Terms(pub(super) Vec<Term>);

impl Terms {
    /// A term computed in 64-bit numbers (the recurrent mixers').
    pub(super) fn push64(&mut self, name: &'static str, bytes: u64, formula: String) {
        self.push(name, u128::from(bytes), formula);
    }

    // called at about a hundred places: one copy, not one inlined at each
    // (kilobytes of the page's wasm)
    #[inline(never)]
    pub(super) fn push(&mut self, name: &'static str, bytes: u128, formula: String) {
        if bytes > 0 {
            self.0.push(Term {
                name,
                bytes,
                formula,
            });
        }
    }
}

impl LayerShape {
    /// Tokens of the micro-batch: b·s.
    pub(super) fn tokens(&self) -> u128 {
        self.batch * self.seq
    }

    /// Bytes of the tensors autocast computes in 16-bit (attention, MLP);
    /// the activation dtype otherwise.
    pub(super) fn compute_bytes(&self) -> u128 {
        if self.autocast {
            2
        } else {
            self.act_bytes
        }
    }

    /// How many LoRA modules read one group's input. Shared-input LoRA
    /// (litgpt, torchtune) is counted with the input of each group of
    /// linears; PEFT's per-module copies are counted with the LoRA terms.
    /// Each module applies its own dropout to the input (litgpt and
    /// torchtune `LoRALinear`), so each keeps a dropped copy and a mask.
    pub(super) fn lora_modules_on(&self, targets: &[LoraTarget]) -> u128 {
        if self.lora_copies_per_module() {
            return 0;
        }
        let Some(lo) = self.lora.as_ref() else {
            return 0;
        };
        let adapted = lo.targets.iter().filter(|x| targets.contains(x)).count() as u128;
        let fused = lo.fused_qkv && targets.contains(&LoraTarget::Q);
        if fused {
            adapted.min(1)
        } else {
            adapted
        }
    }

    /// Width SDPA keeps k and v at. Handed a mask, transformers repeats
    /// them to every query head before SDPA (`use_gqa_in_sdpa` holds only
    /// without one) and SDPA keeps the repeat; one key-value head's repeat
    /// is a stride-0 view, kept one head wide (measured on CPU:
    /// tests/data/attention/masked_gqa.jsonl).
    pub(super) fn sdpa_kv_width(&self, masked: bool) -> u128 {
        if masked && self.attention == Attention::Sdpa && self.kv_heads > 1 {
            self.heads * self.head_dim
        } else {
            self.kv_heads * self.head_dim
        }
    }

    /// Whether each PEFT-style adapted module keeps its own fp32 copy of its
    /// input: a 16-bit or autocast input's `.to(float32)` is a new tensor,
    /// an fp32 one's is the input itself, which the modules reading it
    /// share (measured on CPU: tests/data/t5gemma2/, fp32 LoRA rows).
    pub(super) fn lora_copies_per_module(&self) -> bool {
        self.lora.as_ref().is_some_and(|lo| lo.per_module_fp32)
            && (self.act_bytes != 4 || self.autocast)
    }

    /// Input of a group of linears: saved for their weight gradient or LoRA's A.
    /// Autocast re-casts the input inside each linear: one 16-bit copy per linear.
    pub(super) fn linear_input(
        &self,
        needs: bool,
        lora_modules: u128,
        width: u128,
        copies: u128,
    ) -> u128 {
        let big_b = self.act_bytes;
        let bs = self.tokens();
        let mut bytes = 0;
        if needs {
            bytes += if self.autocast { 2 * copies } else { big_b } * bs * width;
        }
        if lora_modules > 0 {
            if self.lora.as_ref().is_some_and(|lo| lo.dropout) {
                // each module's dropped copy + 1-byte mask
                bytes += lora_modules * (big_b + 1) * bs * width;
            } else if !needs {
                // the shared input itself, for every A's gradient
                bytes += big_b * bs * width;
            }
        }
        bytes
    }

    /// o_proj's input, saved for its weight gradient or LoRA.
    pub(super) fn o_proj_input(&self) -> u128 {
        let qd = self.heads * self.head_dim;
        self.linear_input(self.grads.o, self.lora_modules_on(&[LoraTarget::O]), qd, 1)
    }
}

/// How a layer's norms keep their input and statistics.
pub(super) struct NormSaves {
    /// Norms per layer (1 in a parallel block sharing one norm; 4 in
    /// Gemma-2/3's sandwich layout).
    pub(super) count: u128,
    /// Bytes per element of the kept input.
    pub(super) input: u128,
    /// Bytes per token of the kept statistics.
    pub(super) stat: u128,
    /// How the RMSNorm applies its weight (`None` for LayerNorm).
    pub(super) rms: Option<RmsWeight>,
}

/// How an RMSNorm applies its weight, which decides what it keeps for the
/// weight's gradient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RmsWeight {
    /// `weight * normalized.to(input_dtype)` (LlamaRMSNorm and its copies,
    /// Qwen3RMSNorm): the normalized tensor in the input dtype.
    InputDtype,
    /// GemmaRMSNorm (Gemma, Gemma-2, Gemma-3): `normalized * (1.0 +
    /// weight.float())` in fp32, cast back afterwards: the normalized tensor
    /// in fp32 and the fp32 `1 + weight`, a new tensor of the weight's width.
    GemmaOffset,
}

/// The hidden-width norms of a layer. RMSNorm upcasts to fp32 and keeps that
/// copy (4 B) plus 1/rms (4 B per token); LayerNorm keeps its input and fp32
/// mean + rstd (8 B per token). Autocast keeps an fp32 residual stream, so
/// the copy is 4 B there too.
pub(super) fn norm_saves(l: &LayerShape, spec: &ModelSpec) -> NormSaves {
    let count = match spec.arch {
        Arch::Phi | Arch::Falcon => 1, // parallel block with one shared norm
        // transformers `Gemma2DecoderLayer` / `Gemma3DecoderLayer`: input,
        // post-attention, pre-feed-forward and post-feed-forward norms; the
        // two post-norms' inputs and statistics, 2·(4·b·s·h + 4·b·s), were
        // measured (tests/data/compile/compile_saved.csv, eager gemma2 rows).
        Arch::Gemma2 | Arch::Gemma3 => 4,
        _ => 2,
    };
    let (input, stat) = match spec.norm {
        // T5LayerNorm multiplies the 16-bit input itself by the fp32 1/rms,
        // so it keeps that input beside its fp32 copy (measured on CPU:
        // tests/data/t5/, 8·h + 4 bytes per token in bf16 and fp32 alike)
        NormKind::Rms if spec.arch == Arch::T5 && !l.autocast && l.act_bytes < 4 => {
            (4 + l.act_bytes, 4)
        }
        NormKind::Rms => (4, 4),
        NormKind::Layer => (if l.autocast { 4 } else { l.act_bytes }, 8),
    };
    NormSaves {
        count,
        input,
        stat,
        rms: rms_weight(spec),
    }
}

/// How the model's RMSNorms apply their weight; `None` with LayerNorm. Read
/// from the architecture: the `1 + weight` offset is GemmaRMSNorm's (its
/// weight is stored zero-centred), shared by Gemma, Gemma-2 and Gemma-3.
fn rms_weight(spec: &ModelSpec) -> Option<RmsWeight> {
    match (spec.norm, spec.arch) {
        (NormKind::Layer, _) => None,
        (NormKind::Rms, Arch::Gemma | Arch::Gemma2 | Arch::Gemma3) => Some(RmsWeight::GemmaOffset),
        (NormKind::Rms, _) => Some(RmsWeight::InputDtype),
    }
}

/// Rows the q/k norms normalize per token, with their formula; `None`
/// without q/k norms.
pub(super) fn qk_norm_rows(spec: &ModelSpec, l: &LayerShape) -> Option<(u128, &'static str)> {
    match spec.qk_norm_kind() {
        QkNorm::Off => None,
        // One row per q head and per k head.
        QkNorm::Head | QkNorm::PerHead => Some((l.heads + l.kv_heads, "(a + kv)")),
        // One row for q and one for k over the whole projection (OLMo-2).
        QkNorm::Full => Some((2, "2")),
    }
}

/// The RMSNorm module of the architecture's q/k norms, where its saves were
/// measured or are the same module: Qwen3 and Qwen3-MoE (`Qwen3RMSNorm`,
/// `Qwen3MoeRMSNorm`, the same code) and Gemma-3 (`Gemma3RMSNorm`, GemmaRMSNorm's
/// code). Other families with q/k norms (OLMo-2's fp32 product, Cohere's
/// LayerNorm, Hunyuan, EXAONE-4, Apertus) were not measured and keep no term.
pub(super) fn qk_norm_weight(spec: &ModelSpec) -> Option<RmsWeight> {
    if spec.qk_norm_kind() == QkNorm::Off {
        return None;
    }
    match spec.arch {
        Arch::Qwen3 | Arch::Qwen3Moe => Some(RmsWeight::InputDtype),
        Arch::Gemma3 => Some(RmsWeight::GemmaOffset),
        _ => None,
    }
}
