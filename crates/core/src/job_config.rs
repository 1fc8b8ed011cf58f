//! Training configs as scenarios: a Hugging Face `TrainingArguments` file, a
//! DeepSpeed `ds_config.json`, a torchtune or an axolotl YAML. Pure: text
//! in, a [`JobConfig`] out (the scenario, the model the config names, which
//! keys set which scenario fields, and every key left unused, with the
//! reason where there is one).
//!
//! Only what changes memory is read: batch, sequence length, checkpointing,
//! precision, optimizer, LoRA, quantization, ZeRO/FSDP sharding and offload.
//! Each value goes through the field registry, so it is range-checked as a
//! share link's is, and an error names the config's key and the field.
//! Hostile text (a YAML bomb, deep nesting, megabytes) is an error quickly:
//! see [`tree`].

mod axolotl;
mod deepspeed;
mod hf;
mod names;
mod reading;
mod torchtune;
pub mod tree;

use serde::Serialize;
use serde_json::Value;

use crate::catalog::{find_model, CatalogModel};
use crate::error::{InputError, Result};
use crate::scenario::{ModelSource, Scenario, TaskKind};
use reading::Reading;

pub use tree::MAX_INPUT_BYTES;

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

/// A config key that set a scenario field (`model` for the model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadKey {
    pub key: String,
    pub field: &'static str,
}

/// A config key the estimate does not use, and why when it is not simply
/// a setting without effect on memory (`auto`, an unknown optimizer, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IgnoredKey {
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a training config says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobConfig {
    pub format: JobFormat,
    /// The base scenario with the config's settings: a training run. The
    /// model is the config's when it is a catalog model.
    #[serde(skip)]
    pub scenario: Scenario,
    /// The model the config names, as it names it (a Hugging Face id, a
    /// torchtune builder).
    pub model: Option<String>,
    pub read: Vec<ReadKey>,
    pub ignored: Vec<IgnoredKey>,
}

impl JobConfig {
    /// The catalog model the config names, when it names one.
    pub fn catalog_model(&self) -> Option<&'static CatalogModel> {
        self.model.as_deref().and_then(find_model)
    }
}

/// Reads a training config over `base` (the default scenario, or what an
/// earlier config set: a `TrainingArguments` file then its DeepSpeed file).
/// `format` `None`: told from the keys.
pub fn read_job_config(text: &str, format: Option<JobFormat>, base: Scenario) -> Result<JobConfig> {
    let tree = tree::parse(text)?;
    let format = match format {
        Some(f) => f,
        None => detect(&tree)?,
    };
    let mut r = Reading::new(tree, base)?;
    r.sc.task = TaskKind::Training;
    match format {
        JobFormat::HfTrainingArgs => hf::read(&mut r)?,
        JobFormat::Deepspeed => deepspeed::read(&mut r, "")?,
        JobFormat::Torchtune => torchtune::read(&mut r)?,
        JobFormat::Axolotl => axolotl::read(&mut r)?,
    }
    let (mut scenario, model, read, ignored) = r.finish();
    if let Some(found) = model.as_deref().and_then(find_model) {
        scenario.model = ModelSource::Catalog(found.id.clone());
    }
    Ok(JobConfig {
        format,
        scenario,
        model,
        read,
        ignored,
    })
}

/// The format from the keys only that format has.
fn detect(tree: &Value) -> Result<JobFormat> {
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
