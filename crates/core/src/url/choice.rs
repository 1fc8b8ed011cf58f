//! The named values of each enum a link carries, in one place: the codec
//! reads and writes them, the web app lists them in its selects, the CLI's
//! flags accept them.
//!
//! Keys equal the serde (JSON scenario) names, except the task (`train`,
//! `infer`), where the link favours brevity; [`Choice::parse`] accepts the
//! serde name too.

use crate::model::kernels::{EagerPath, HfKernels};
use crate::model::{Arch, MlpKind, NormKind, QkNorm, RecurrentKind};
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::choice::choice;
pub use crate::scenario::choice::Choice;
use crate::scenario::{
    Attention, CacheType, Checkpointing, Engine, Framework, KbitPrep, LoraTarget, Method,
    MixerKernels, Offload, Optimizer, QuantKernel, Strategy, TaskKind,
};

/// The task's link keys are short; scenario files spell the serde names.
impl Choice for TaskKind {
    const ALL: &'static [Self] = &[TaskKind::Inference, TaskKind::Training];
    fn key(self) -> &'static str {
        match self {
            TaskKind::Inference => "infer",
            TaskKind::Training => "train",
        }
    }
    fn aliases() -> &'static [(&'static str, Self)] {
        &[
            ("inference", TaskKind::Inference),
            ("training", TaskKind::Training),
        ]
    }
}
// The serde names (`model::kernels`); `all` is never written.
choice!(HfKernels {
    All => "all",
    FlashOrEager => "flash_or_eager",
    HopperFlashOrEager => "hopper_flash_or_eager",
    EagerOnly => "eager_only",
});
choice!(EagerPath {
    Architecture => "architecture",
    Fp32Sinks => "fp32_sinks",
    InputDtypeSinks => "input_dtype_sinks",
    SavedFp32Sinks => "saved_fp32_sinks",
    BoolMask => "bool_mask",
});
choice!(QuantKernel {
    Auto => "auto",
    None => "none",
    Exllama => "exllama",
    ExllamaV2 => "exllama_v2",
    Marlin => "marlin",
});
choice!(CacheType {
    F16 => "f16",
    Q8_0 => "q8_0",
    Q4_0 => "q4_0",
});
choice!(Method {
    Full => "full",
    Lora => "lora",
    Qlora => "qlora",
    Adapter => "adapter",
    AdapterV2 => "adapter_v2",
    ForwardBackward => "forward_backward",
});
choice!(LoraTarget {
    Q => "q",
    K => "k",
    V => "v",
    O => "o",
    Gate => "gate",
    Up => "up",
    Down => "down",
    Head => "head",
});
choice!(Optimizer {
    Adamw => "adamw",
    Adam => "adam",
    Adamw8bit => "adamw8bit",
    PagedAdamw => "paged_adamw",
    PagedAdamw8bit => "paged_adamw8bit",
    Adafactor => "adafactor",
    Lion => "lion",
    Sgd => "sgd",
    SgdMomentum => "sgd_momentum",
    None => "none",
});
choice!(Checkpointing { Off => "off", Full => "full", Selective => "selective", Op => "op" });
choice!(MixerKernels { Fused => "fused", Torch => "torch" });
choice!(KbitPrep { Auto => "auto", None => "none", Fp32 => "fp32", Trl => "trl" });
choice!(Attention { Sdpa => "sdpa", Flash => "flash", Eager => "eager" });
choice!(Framework {
    Transformers => "transformers",
    HfTrainer => "hf_trainer",
    Litgpt => "litgpt",
    Torchtune => "torchtune",
    Deepspeed => "deepspeed",
});
choice!(Engine {
    Transformers => "transformers",
    Litgpt => "litgpt",
    Vllm => "vllm",
    LlamaCpp => "llama_cpp",
    Sglang => "sglang",
});
choice!(Strategy {
    None => "none",
    Ddp => "ddp",
    Zero1 => "zero1",
    Zero2 => "zero2",
    Zero3 => "zero3",
    Fsdp => "fsdp",
});
choice!(Offload { None => "none", Optimizer => "optimizer", OptimizerParams => "optimizer_params" });
choice!(Dtype { Bf16 => "bf16", Fp16 => "fp16", Fp32 => "fp32", Fp8 => "fp8", Int8 => "int8" });
choice!(TrainingPrecision { Pure16 => "pure16", Amp => "amp", Fp32 => "fp32" });
choice!(MlpKind { Gated => "gated", Plain => "plain" });
choice!(NormKind { Rms => "rms", Layer => "layer" });
choice!(QkNorm { Off => "off", Head => "head", PerHead => "per_head", Full => "full" });
choice!(RecurrentKind {
    Mamba => "mamba",
    Mamba2 => "mamba2",
    GatedDeltaNet => "gated_delta_net",
    ShortConv => "short_conv",
    Lightning => "lightning",
    KimiDelta => "kimi_delta",
    RgLru => "rg_lru",
    Mlstm => "mlstm",
    Rwkv => "rwkv",
});
/// Architectures are keyed by the one architecture table (`model::arch`).
impl Choice for Arch {
    const ALL: &'static [Self] = &crate::model::arch::ALL;
    fn key(self) -> &'static str {
        crate::model::arch::row_of(self).key
    }
}

impl Choice for WeightFormat {
    const ALL: &'static [Self] = &WeightFormat::ALL;
    fn key(self) -> &'static str {
        self.name()
    }
    fn parse(text: &str) -> Option<Self> {
        WeightFormat::parse(text)
    }
}
