//! A Hugging Face `TrainingArguments` file (JSON or YAML, as
//! `HfArgumentParser` reads it), with the model arguments TRL and the
//! transformers example scripts keep in the same file (`model_name_or_path`,
//! `torch_dtype`, `use_peft`, `lora_r`, `load_in_4bit`, ...). A `deepspeed`
//! mapping inside is read as a DeepSpeed config.

use serde_json::Value;

use super::names::{attention_key, dtype_key, hf_optimizer, lora_targets};
use super::reading::{Reading, NOT_MODELED};
use crate::error::Result;
use crate::precision::{TrainingPrecision, WeightFormat};
use crate::scenario::Choice;

pub(super) fn read(r: &mut Reading) -> Result<()> {
    r.name_model("model_name_or_path")?;
    r.copy("per_device_train_batch_size", "training.micro_batch")?;
    r.copy("gradient_accumulation_steps", "training.grad_accum")?;
    // TRL's SFTConfig (`max_seq_length`, later `max_length`), run_clm's `block_size`.
    for key in ["max_seq_length", "max_length", "block_size"] {
        r.copy(key, "training.seq_len")?;
    }
    checkpointing(r, "gradient_checkpointing")?;
    optimizer(r, "optim")?;
    trainer_precision(r, &["torch_dtype", "dtype"])?;
    peft(r)?;
    if let Some(name) = r.text("attn_implementation")? {
        match attention_key(&name) {
            Some(key) => r.set("attn_implementation", "attention", key)?,
            None => r.ignore(
                "attn_implementation",
                format!("\"{name}\" is not a kernel vramfit models"),
            ),
        }
    }
    // Liger's fused linear cross-entropy never materializes the logits.
    r.copy_flag("use_liger_kernel", "training.chunked_loss")?;
    fsdp(r, "fsdp")?;
    if r.take("torch_compile").is_some() {
        r.ignore("torch_compile", NOT_MODELED);
    }
    deepspeed(r)
}

/// `deepspeed`: a mapping is read in place; a path names a file to give too.
fn deepspeed(r: &mut Reading) -> Result<()> {
    if !r.has("deepspeed") {
        return Ok(());
    }
    if let Some(value) = r.take("deepspeed") {
        if let Value::String(path) = value {
            r.ignore(
                "deepspeed",
                format!("a file ({path}): give it as another job config to read it"),
            );
        }
        return Ok(());
    }
    super::deepspeed::read(r, "deepspeed.")?;
    // The DeepSpeed engine casts the model to the 16-bit type the Trainer
    // asks for and keeps the fp32 master copy in its optimizer.
    if r.sc.training_precision == TrainingPrecision::Amp && r.sc.weights == WeightFormat::Fp32 {
        let half = r.sc.compute_dtype.key();
        r.set("deepspeed", "weights", half)?;
    }
    Ok(())
}

/// A `gradient_checkpointing` switch.
pub(super) fn checkpointing(r: &mut Reading, key: &str) -> Result<()> {
    if let Some(on) = r.flag(key)? {
        r.set(
            key,
            "training.checkpointing",
            if on { "full" } else { "off" },
        )?;
    }
    Ok(())
}

/// An HF optimizer name: the optimizer and, for `adamw_torch_fused`, fused.
pub(super) fn optimizer(r: &mut Reading, key: &str) -> Result<()> {
    let Some(name) = r.text(key)? else {
        return Ok(());
    };
    match hf_optimizer(&name) {
        Some((optimizer, fused)) => {
            r.set(key, "training.optimizer", optimizer)?;
            r.set(
                key,
                "training.fused_optimizer",
                if fused { "1" } else { "0" },
            )?;
        }
        None => r.ignore(
            key,
            format!("\"{name}\" is not an optimizer vramfit models; its AdamW estimate stands"),
        ),
    }
    Ok(())
}

/// The Trainer's precision: `bf16`/`fp16` turn on autocast over the weights
/// as loaded, fp32 unless `loaded_keys` (`torch_dtype`) name a 16-bit type;
/// 16-bit weights then train without an fp32 copy. Both switches off is
/// fp32 training.
fn trainer_precision(r: &mut Reading, loaded_keys: &[&str]) -> Result<()> {
    let mut half: Option<(&str, &str)> = None;
    let mut switch_seen = None;
    for (key, dtype) in [("bf16", "bf16"), ("fp16", "fp16")] {
        match r.flag(key)? {
            Some(true) if half.is_none() => half = Some((key, dtype)),
            Some(_) => switch_seen = switch_seen.or(Some(key)),
            None => {}
        }
    }
    let mut loaded: Option<(&str, &str)> = None;
    for key in loaded_keys {
        if let Some(name) = r.text(key)? {
            match dtype_key(&name) {
                Some(dtype) => loaded = Some((key, dtype)),
                None => r.ignore(key, format!("\"{name}\" is not a torch dtype")),
            }
        }
    }
    let sixteen_bit_load = loaded.filter(|(_, dtype)| *dtype != "fp32");
    match (half, sixteen_bit_load) {
        (_, Some((key, dtype))) => {
            if let Some((half_key, half_dtype)) = half {
                r.set(half_key, "compute_dtype", half_dtype)?;
            } else {
                r.set(key, "compute_dtype", dtype)?;
            }
            r.set(key, "weights", dtype)?;
            r.set(key, "training_precision", "pure16")?;
        }
        (Some((key, dtype)), None) => {
            r.set(key, "compute_dtype", dtype)?;
            r.set(key, "weights", "fp32")?;
            r.set(key, "training_precision", "amp")?;
        }
        (None, None) => {
            if let Some(key) = switch_seen.or(loaded.map(|(key, _)| key)) {
                r.set(key, "weights", "fp32")?;
                r.set(key, "training_precision", "fp32")?;
            }
        }
    }
    Ok(())
}

/// TRL's PEFT and bitsandbytes model arguments.
fn peft(r: &mut Reading) -> Result<()> {
    if let Some(on) = r.flag("use_peft")? {
        r.set(
            "use_peft",
            "training.method",
            if on { "lora" } else { "full" },
        )?;
    }
    r.copy("lora_r", "training.lora.rank")?;
    r.copy("lora_dropout", "training.lora.dropout")?;
    lora_target_modules(r, "lora_target_modules")?;
    bnb_quantization(r, "load_in_4bit", "load_in_8bit")?;
    r.copy_flag("use_bnb_nested_quant", "double_quant")?;
    r.copy_flag("bnb_4bit_use_double_quant", "double_quant")
}

/// PEFT `target_modules` names (or `all-linear`) as the LoRA targets;
/// names that are none of the scenario's targets are reported.
pub(super) fn lora_target_modules(r: &mut Reading, key: &str) -> Result<()> {
    let Some(names) = r.list(key)? else {
        return Ok(());
    };
    let (list, unknown) = lora_targets(&names);
    if !unknown.is_empty() {
        r.ignore(
            key,
            format!(
                "module(s) {} are not among q, k, v, o, gate, up, down, lm_head",
                unknown.join(", ")
            ),
        );
    }
    if let Some(list) = list {
        r.set(key, "training.lora.targets", &list)?;
    }
    Ok(())
}

/// bitsandbytes loading (`load_in_4bit`/`load_in_8bit`): quantized frozen
/// weights, so the method is QLoRA (only adapters train over them).
pub(super) fn bnb_quantization(r: &mut Reading, key4: &str, key8: &str) -> Result<()> {
    let four_bit = r.flag(key4)? == Some(true);
    let eight_bit = r.flag(key8)? == Some(true);
    if four_bit {
        let fp4 = r
            .text("bnb_4bit_quant_type")?
            .is_some_and(|t| t.eq_ignore_ascii_case("fp4"));
        let (key, format) = if fp4 {
            ("bnb_4bit_quant_type", "fp4")
        } else {
            (key4, "nf4")
        };
        r.set(key, "weights", format)?;
        r.set(key4, "training.method", "qlora")?;
    } else if eight_bit {
        r.set(key8, "weights", "int8")?;
        r.set(key8, "training.method", "qlora")?;
    }
    Ok(())
}

/// The Trainer's `fsdp` option (`"full_shard auto_wrap offload"` or a
/// list): the sharding and whether FSDP offloads to the CPU.
pub(super) fn fsdp(r: &mut Reading, key: &str) -> Result<()> {
    let Some(options) = r.list(key)? else {
        return Ok(());
    };
    let words: Vec<String> = options
        .iter()
        .flat_map(|o| o.split_whitespace().map(str::to_ascii_lowercase))
        .collect();
    let strategy = words.iter().find_map(|w| match w.as_str() {
        "full_shard" | "hybrid_shard" => Some("fsdp"),
        "shard_grad_op" | "hybrid_shard_zero2" => Some("zero2"),
        "no_shard" => Some("ddp"),
        _ => None,
    });
    if let Some(strategy) = strategy {
        r.set(key, "parallel.strategy", strategy)?;
    }
    if words.iter().any(|w| w == "offload") {
        r.set(key, "parallel.offload", "optimizer_params")?;
    }
    Ok(())
}
