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
mod format;
mod hf;
mod names;
mod read;
mod reading;
mod report;
mod torchtune;
pub mod tree;

pub use format::JobFormat;
pub use read::read_job_config;
pub use report::{IgnoredKey, JobConfig, ReadKey};
pub use tree::MAX_INPUT_BYTES;
