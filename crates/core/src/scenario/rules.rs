//! What makes a scenario valid: each field that applies within its range
//! (the registry, `fields.rs`), and the rules across fields: the parallel
//! layout, the weight formats an engine or method can use.

use super::fields::FIELDS;
use super::{Engine, Framework, KbitPrep, Method, Scenario, Strategy, TaskKind};
use crate::error::{check_range, InputError, Result};
use crate::precision::WeightFormat;

impl Scenario {
    /// Checks the scenario's own fields (the model is checked by
    /// `ModelSpec::validate`): every field that applies within its range,
    /// then the rules across fields. The error names the field's path.
    pub fn validate(&self) -> Result<()> {
        for field in FIELDS.iter().filter(|f| f.applies(self)) {
            field.check(self)?;
        }
        self.check_layout()?;
        self.check_cache_len()?;
        self.check_weight_format()
    }

    /// A static cache holds at least the tokens generation reaches.
    fn check_cache_len(&self) -> Result<()> {
        let inf = &self.inference;
        let needed = inf.prompt_len.saturating_add(inf.new_tokens);
        match inf.cache_len {
            Some(len) if inf.static_cache && len < needed => Err(InputError::new(
                "inference.cache_len",
                format!(
                    "{len} is shorter than prompt + new tokens ({needed}): allowed {needed} to {}, or auto",
                    crate::scenario::limits::MAX_TOKENS
                ),
            )),
            _ => Ok(()),
        }
    }

    /// PyTorch's caching allocator holds the job's tensors: every training
    /// run and transformers or litgpt serving (llama.cpp's ggml and the
    /// pool engines size their own buffers), so its configuration
    /// (`expandable_segments`) matters.
    pub fn uses_pytorch_allocator(&self) -> bool {
        self.task == TaskKind::Training
            || matches!(self.inference.engine, Engine::Transformers | Engine::Litgpt)
    }

    /// Whether the 4-bit preparation applies: LoRA on a bitsandbytes 4-bit
    /// model trained through PEFT (transformers, the HF Trainer). The `kp`
    /// field is offered exactly here.
    pub fn kbit_prep_applies(&self) -> bool {
        self.task == TaskKind::Training
            && matches!(self.training.method, Method::Lora | Method::Qlora)
            && matches!(
                self.effective_weights(),
                WeightFormat::Nf4 | WeightFormat::Fp4
            )
            && matches!(
                self.training.framework,
                Framework::Transformers | Framework::HfTrainer
            )
    }

    /// The 4-bit preparation in effect: only a bitsandbytes 4-bit model
    /// trained through PEFT (transformers, HF Trainer) gets one; `Auto`
    /// follows the framework (see [`KbitPrep`]).
    pub fn kbit_prep_in_effect(&self) -> KbitPrep {
        if !self.kbit_prep_applies() {
            return KbitPrep::None;
        }
        match self.training.kbit_prep {
            KbitPrep::Auto => {
                // TRL skips the casts when the 4-bit weights are sharded
                // (`is_sharded_qlora` in trl/models/utils.py).
                let sharded = matches!(self.parallel.strategy, Strategy::Fsdp | Strategy::Zero3);
                if self.training.framework == Framework::HfTrainer && !sharded {
                    KbitPrep::Trl
                } else {
                    KbitPrep::None
                }
            }
            chosen => chosen,
        }
    }

    /// The weight format in effect: QLoRA on a 16-bit choice means NF4.
    pub fn effective_weights(&self) -> WeightFormat {
        if self.task == TaskKind::Training
            && self.training.method == Method::Qlora
            && !self.weights.is_quantized()
        {
            WeightFormat::Nf4
        } else {
            self.weights
        }
    }

    /// Tensor × pipeline parallelism splits the GPUs into whole groups.
    fn check_layout(&self) -> Result<()> {
        let p = &self.parallel;
        check_range("parallel.tp", p.tp, 1, p.gpus)?;
        check_range("parallel.pp", p.pp, 1, p.gpus)?;
        if !p.gpus.is_multiple_of(p.tp * p.pp) {
            return Err(InputError::new(
                "parallel.gpus",
                format!("{} must be a multiple of tp × pp = {}", p.gpus, p.tp * p.pp),
            ));
        }
        Ok(())
    }

    fn check_weight_format(&self) -> Result<()> {
        let format = self.effective_weights();
        if format.applies(self) {
            return Ok(());
        }
        let allowed: Vec<&str> = WeightFormat::ALL
            .into_iter()
            .filter(|w| w.applies(self))
            .map(WeightFormat::name)
            .collect();
        Err(InputError::new(
            "weights",
            format!(
                "{} does not apply: {}; allowed here: {}",
                format.name(),
                WeightSetting::of(self).reason(),
                allowed.join(", ")
            ),
        ))
    }
}

/// What decides which weight formats can be loaded.
enum WeightSetting {
    /// Serving with llama.cpp.
    LlamaCpp,
    /// QLoRA training.
    Qlora,
    /// Any other training or engine.
    Other,
}

impl WeightSetting {
    fn of(sc: &Scenario) -> Self {
        match sc.task {
            TaskKind::Inference if sc.inference.engine == Engine::LlamaCpp => Self::LlamaCpp,
            TaskKind::Training if sc.training.method == Method::Qlora => Self::Qlora,
            _ => Self::Other,
        }
    }

    fn reason(&self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp (engine llama_cpp) loads GGUF files or 16/32-bit weights",
            Self::Qlora => {
                "QLoRA trains over bitsandbytes 4- or 8-bit weights (a 16-bit choice means nf4)"
            }
            Self::Other => "GGUF weights load only in llama.cpp (inference with engine llama_cpp)",
        }
    }
}

impl WeightFormat {
    /// Whether the format can be used in `sc`: GGUF files only load in
    /// llama.cpp, which reads nothing else but 16/32-bit weights, and QLoRA
    /// trains over bitsandbytes NF4, FP4 or LLM.int8 weights.
    /// [`Scenario::validate`] rejects the others; menus offer only these.
    pub fn applies(self, sc: &Scenario) -> bool {
        match WeightSetting::of(sc) {
            WeightSetting::LlamaCpp => self.is_gguf() || self.plain_dtype().is_some(),
            WeightSetting::Qlora => matches!(
                self,
                WeightFormat::Nf4 | WeightFormat::Fp4 | WeightFormat::Int8
            ),
            WeightSetting::Other => !self.is_gguf(),
        }
    }
}
