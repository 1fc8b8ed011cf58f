//! The kinds of training config, and which one a config is, from its keys.

use serde::Serialize;
use serde_json::Value;

use crate::error::{InputError, Result};

/// The kinds of training config read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobFormat {
    /// Hugging Face `TrainingArguments` (with TRL's model arguments).
    HfTrainingArgs,
    /// A DeepSpeed config.
    Deepspeed,
    /// A torchtune recipe config.
    Torchtune,
    /// An axolotl config.
    Axolotl,
}

impl JobFormat {
    pub const ALL: [JobFormat; 4] = [
        JobFormat::HfTrainingArgs,
        JobFormat::Deepspeed,
        JobFormat::Torchtune,
        JobFormat::Axolotl,
    ];

    /// The short name a user types (`--job-format hf`).
    pub fn key(self) -> &'static str {
        match self {
            JobFormat::HfTrainingArgs => "hf",
            JobFormat::Deepspeed => "deepspeed",
            JobFormat::Torchtune => "torchtune",
            JobFormat::Axolotl => "axolotl",
        }
    }

    /// The name in messages.
    pub fn name(self) -> &'static str {
        match self {
            JobFormat::HfTrainingArgs => "Hugging Face TrainingArguments",
            JobFormat::Deepspeed => "DeepSpeed config",
            JobFormat::Torchtune => "torchtune config",
            JobFormat::Axolotl => "axolotl config",
        }
    }

    /// A format by its key.
    pub fn parse(text: &str) -> Option<JobFormat> {
        let text = text.trim().to_ascii_lowercase();
        JobFormat::ALL.into_iter().find(|f| f.key() == text)
    }
}

/// The format from the keys only that format has.
pub(super) fn detect(tree: &Value) -> Result<JobFormat> {
    let Some(top) = tree.as_object() else {
        return Err(InputError::new(
            "job config",
            "expected a mapping of settings (`key: value` lines or a JSON object)",
        ));
    };
    let has = |keys: &[&str]| keys.iter().any(|k| top.contains_key(*k));
    if top.values().any(|v| v.get("_component_").is_some()) {
        Ok(JobFormat::Torchtune)
    } else if has(&["base_model", "micro_batch_size", "sequence_len", "adapter"]) {
        Ok(JobFormat::Axolotl)
    } else if has(&[
        "zero_optimization",
        "train_micro_batch_size_per_gpu",
        "train_batch_size",
    ]) {
        Ok(JobFormat::Deepspeed)
    } else if has(&[
        "per_device_train_batch_size",
        "optim",
        "output_dir",
        "model_name_or_path",
        "gradient_checkpointing",
    ]) {
        Ok(JobFormat::HfTrainingArgs)
    } else {
        Err(InputError::new(
            "job config",
            "cannot tell which framework this config is for: expected a Hugging Face \
             TrainingArguments file (per_device_train_batch_size), a DeepSpeed config \
             (zero_optimization), a torchtune config (model._component_) or an axolotl \
             config (base_model); name it with the format",
        ))
    }
}
