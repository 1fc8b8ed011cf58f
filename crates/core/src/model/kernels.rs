//! The attention kernels transformers lets a family run.
//!
//! Every transformers model class says which kernels its attention can
//! dispatch to (`_supports_sdpa`, `_supports_flash_attn` on its
//! `PreTrainedModel`). `PreTrainedModel.get_correct_attn_implementation`
//! starts from SDPA when the user asks for nothing and falls back to eager
//! where the class has no SDPA; asking for a kernel the class lacks raises.
//! Gemma-2 (logit softcapping), gpt-oss and the families with attention
//! sinks have FlashAttention but no SDPA, so their default is eager, which
//! materializes every layer's b·a·s² score matrix. Measured:
//! `tests/data/attention/` (each family's class flags, and the attention a
//! `from_config` with no choice builds).

use serde::{Deserialize, Serialize};

/// The attention kernels the family's transformers class offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HfKernels {
    /// SDPA, FlashAttention and eager (most families).
    #[default]
    All,
    /// FlashAttention and eager, no SDPA: the default runs eager.
    FlashOrEager,
    /// As `FlashOrEager`, but the only flash kernels the class loads
    /// (`_compatible_flash_implementations`: vLLM's FA3 build, FA4) run on
    /// Hopper and newer: gpt-oss and the other families with attention
    /// sinks.
    HopperFlashOrEager,
    /// Eager only (Bloom's ALiBi, MPT, DeepSeek-V4, HY-V4, Inkling2).
    EagerOnly,
}

impl HfKernels {
    pub fn is_all(&self) -> bool {
        *self == HfKernels::All
    }

    /// From a model class's `_supports_sdpa` and `_supports_flash_attn`,
    /// and whether its flash kernels need Hopper (FA3 and FA4 builds only).
    pub fn from_flags(sdpa: bool, flash: bool, hopper_flash: bool) -> HfKernels {
        match (sdpa, flash, hopper_flash) {
            (true, _, _) => HfKernels::All,
            (false, true, false) => HfKernels::FlashOrEager,
            (false, true, true) => HfKernels::HopperFlashOrEager,
            (false, false, _) => HfKernels::EagerOnly,
        }
    }

    /// Whether FlashAttention needs a Hopper or newer GPU.
    pub fn flash_needs_hopper(self) -> bool {
        self == HfKernels::HopperFlashOrEager
    }
}

/// The kernels transformers offers the language model of a `model_type`
/// (its causal-LM class, else its image-text-to-text class, else an
/// encoder's sequence-classification class), where they
/// are not all three: `tests/data/attention/attention_kernels.jsonl`, read
/// from transformers 5.24's classes, lists every family; a test keeps this
/// table equal to it for the families the importer reads.
pub const WITHOUT_SDPA: [(&str, HfKernels); 64] = [
    ("big_bird", HfKernels::EagerOnly),
    ("bigbird_pegasus", HfKernels::EagerOnly),
    ("blip", HfKernels::EagerOnly),
    ("bloom", HfKernels::EagerOnly),
    ("canine", HfKernels::EagerOnly),
    ("convbert", HfKernels::EagerOnly),
    ("cpmant", HfKernels::EagerOnly),
    ("deberta", HfKernels::EagerOnly),
    ("deberta-v2", HfKernels::EagerOnly),
    ("deepseek_v4", HfKernels::EagerOnly),
    ("falcon_mamba", HfKernels::EagerOnly),
    ("flaubert", HfKernels::EagerOnly),
    ("flint", HfKernels::HopperFlashOrEager),
    ("fnet", HfKernels::EagerOnly),
    ("funnel", HfKernels::EagerOnly),
    ("gemma2", HfKernels::FlashOrEager),
    ("git", HfKernels::EagerOnly),
    ("got_ocr2", HfKernels::EagerOnly),
    ("gpt_neo", HfKernels::FlashOrEager),
    ("gpt_neox_japanese", HfKernels::EagerOnly),
    ("gpt_oss", HfKernels::HopperFlashOrEager),
    ("granite_swa", HfKernels::HopperFlashOrEager),
    ("granitemoe_swa", HfKernels::HopperFlashOrEager),
    ("hy_v4", HfKernels::EagerOnly),
    ("hy_v4_vl", HfKernels::EagerOnly),
    ("ibert", HfKernels::EagerOnly),
    ("inkling2", HfKernels::EagerOnly),
    ("inkling2_loop", HfKernels::EagerOnly),
    ("inkling2_loop_text", HfKernels::EagerOnly),
    ("inkling2_text", HfKernels::EagerOnly),
    ("layoutlmv2", HfKernels::EagerOnly),
    ("lilt", HfKernels::EagerOnly),
    ("longformer", HfKernels::EagerOnly),
    ("longt5", HfKernels::EagerOnly),
    ("luke", HfKernels::EagerOnly),
    ("mamba", HfKernels::EagerOnly),
    ("mamba2", HfKernels::EagerOnly),
    ("markuplm", HfKernels::EagerOnly),
    ("megatron-bert", HfKernels::EagerOnly),
    ("mimo_v2_flash", HfKernels::HopperFlashOrEager),
    ("mpnet", HfKernels::EagerOnly),
    ("mpt", HfKernels::EagerOnly),
    ("mra", HfKernels::EagerOnly),
    ("mvp", HfKernels::EagerOnly),
    ("nystromformer", HfKernels::EagerOnly),
    ("openai-gpt", HfKernels::EagerOnly),
    ("perceiver", HfKernels::EagerOnly),
    ("pp_chart2table", HfKernels::EagerOnly),
    ("prophetnet", HfKernels::EagerOnly),
    ("reformer", HfKernels::EagerOnly),
    ("rembert", HfKernels::EagerOnly),
    ("roformer", HfKernels::EagerOnly),
    ("rwkv", HfKernels::EagerOnly),
    ("squeezebert", HfKernels::EagerOnly),
    ("switch_transformers", HfKernels::EagerOnly),
    ("t5gemma", HfKernels::FlashOrEager),
    ("tapas", HfKernels::EagerOnly),
    ("trocr", HfKernels::EagerOnly),
    ("vaultgemma", HfKernels::FlashOrEager),
    ("xglm", HfKernels::EagerOnly),
    ("xlm", HfKernels::EagerOnly),
    ("xlnet", HfKernels::EagerOnly),
    ("xlstm", HfKernels::EagerOnly),
    ("yoso", HfKernels::EagerOnly),
];

/// The kernels of a `model_type`'s language model.
pub fn for_model_type(model_type: &str) -> HfKernels {
    WITHOUT_SDPA
        .iter()
        .find(|(t, _)| *t == model_type)
        .map_or(HfKernels::All, |(_, k)| *k)
}

/// How a family's own eager attention holds its scores, where that differs
/// from its architecture's rule (`activations/attention.rs`). Measured on
/// CPU with transformers 5.24 (`tests/data/attention/eager_prefill.jsonl`,
/// `eager_saved.jsonl`) and read from each family's `eager_attention_forward`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EagerPath {
    /// The architecture's rule.
    #[default]
    Architecture,
    /// Flint: the scores are computed in fp32 from upcast q and k, the
    /// per-head sink is concatenated, and the softmax runs in fp32: 12 B
    /// per score at a prefill's worst moment in any dtype; what training
    /// saves is Llama's.
    Fp32Sinks,
    /// MiMo-V2-Flash: scores, sinks and softmax in the input dtype, as
    /// gpt-oss: 2·B per score in a prefill, B saved for backward.
    InputDtypeSinks,
    /// Granite-SWA: training saves 8 B per score in 16-bit and fp32 alike
    /// (its sink concatenation keeps an fp32 copy beside the softmax); a
    /// prefill holds Llama's.
    SavedFp32Sinks,
    /// MPT: a boolean 4-D mask (1 B per b·p²) instead of one in the
    /// activation dtype; its scores as Llama's.
    BoolMask,
}

impl EagerPath {
    pub fn is_architecture(&self) -> bool {
        *self == EagerPath::Architecture
    }
}

/// The eager paths that differ from their architecture's, by `model_type`.
pub const EAGER_PATHS: [(&str, EagerPath); 4] = [
    ("flint", EagerPath::Fp32Sinks),
    ("granite_swa", EagerPath::SavedFp32Sinks),
    ("mimo_v2_flash", EagerPath::InputDtypeSinks),
    ("mpt", EagerPath::BoolMask),
];

/// The eager path of a `model_type`'s attention.
pub fn eager_path_for(model_type: &str) -> EagerPath {
    EAGER_PATHS
        .iter()
        .find(|(t, _)| *t == model_type)
        .map_or(EagerPath::Architecture, |(_, p)| *p)
}
