//! An axolotl config (YAML). axolotl trains through the HF Trainer, so the
//! optimizer names and `fsdp` options are the Trainer's; it loads the model
//! in the 16-bit type its `bf16`/`fp16` ask for, and quantizes QLoRA's base
//! with bitsandbytes double quantization unless `bnb_config_kwargs` say not.

use serde_json::Value;

use super::hf::{bnb_quantization, checkpointing, fsdp, lora_target_modules, optimizer};
use super::reading::{Reading, NOT_MODELED};
use crate::error::Result;
use crate::precision::WeightFormat;
use crate::scenario::Framework;

pub(super) fn read(r: &mut Reading) -> Result<()> {
    r.sc.training.framework = Framework::Transformers;
    r.name_model("base_model")?;
    adapter(r)?;
    r.copy("sequence_len", "training.seq_len")?;
    r.copy("micro_batch_size", "training.micro_batch")?;
    r.copy("gradient_accumulation_steps", "training.grad_accum")?;
    optimizer(r, "optimizer")?;
    precision(r)?;
    gradient_checkpointing(r)?;
    for (key, kernel) in [
        ("flash_attention", "flash"),
        ("sdp_attention", "sdpa"),
        ("eager_attention", "eager"),
    ] {
        if r.flag(key)? == Some(true) {
            r.set(key, "attention", kernel)?;
        }
    }
    // Losses that never hold the full fp32 logits.
    for key in [
        "chunked_cross_entropy",
        "cut_cross_entropy",
        "liger_fused_linear_cross_entropy",
    ] {
        if r.flag(key)? == Some(true) {
            r.set(key, "training.chunked_loss", "1")?;
        }
    }
    fsdp(r, "fsdp")?;
    for key in [
        "fsdp_config.fsdp_offload_params",
        "fsdp_config.offload_params",
    ] {
        if r.flag(key)? == Some(true) {
            r.set(key, "parallel.offload", "optimizer_params")?;
        }
    }
    if let Some(Value::String(path)) = r.take("deepspeed") {
        r.ignore(
            "deepspeed",
            format!("a file ({path}): give it as another job config to read it"),
        );
    }
    if r.take("torch_compile").is_some() {
        r.ignore("torch_compile", NOT_MODELED);
    }
    Ok(())
}

/// `adapter` (lora, qlora, none), the LoRA settings and the quantization.
fn adapter(r: &mut Reading) -> Result<()> {
    let key = "adapter";
    let method = match r.text(key)?.as_deref() {
        Some("lora") => "lora",
        Some("qlora") => "qlora",
        None | Some("") => "full",
        Some(other) => {
            r.ignore(
                key,
                format!("\"{other}\" is not lora or qlora: a full fine-tune is estimated"),
            );
            "full"
        }
    };
    r.set(key, "training.method", method)?;
    if method == "full" {
        return Ok(());
    }
    // axolotl's lora_dropout defaults to 0.0.
    r.set(key, "training.lora.dropout", "0")?;
    r.copy("lora_r", "training.lora.rank")?;
    r.copy("lora_dropout", "training.lora.dropout")?;
    lora_target_modules(r, "lora_target_modules")?;
    if r.flag("lora_target_linear")? == Some(true) {
        r.set(
            "lora_target_linear",
            "training.lora.targets",
            "q,k,v,o,gate,up,down",
        )?;
    }
    bnb_quantization(r, "load_in_4bit", "load_in_8bit")?;
    if r.sc.weights == WeightFormat::Nf4 {
        r.set("load_in_4bit", "double_quant", "1")?;
    }
    for key in [
        "bnb_4bit_use_double_quant",
        "bnb_config_kwargs.bnb_4bit_use_double_quant",
    ] {
        r.copy_flag(key, "double_quant")?;
    }
    Ok(())
}

/// `bf16` (`true` or `auto`: bf16 where the GPU has it, as every GPU since
/// Ampere does) or `fp16`: the model is loaded and trained in that type.
/// Neither: fp32.
fn precision(r: &mut Reading) -> Result<()> {
    let bf16 = match r.take("bf16") {
        Some(Value::String(s)) if s.eq_ignore_ascii_case("auto") => Some(true),
        _ => r.flag("bf16")?,
    };
    let fp16 = r.flag("fp16")?;
    let quantized = r.sc.weights.is_quantized();
    let (key, dtype) = match (bf16, fp16) {
        (Some(true), _) => ("bf16", "bf16"),
        (_, Some(true)) => ("fp16", "fp16"),
        (Some(false), _) => ("bf16", "fp32"),
        (None, Some(false)) => ("fp16", "fp32"),
        (None, None) => return Ok(()),
    };
    if dtype == "fp32" {
        r.set(key, "training_precision", "fp32")?;
    } else {
        r.set(key, "compute_dtype", dtype)?;
        r.set(key, "training_precision", "pure16")?;
    }
    if !quantized {
        r.set(key, "weights", dtype)?;
    }
    Ok(())
}

/// `gradient_checkpointing`: a switch, or `offload` (checkpoints kept in
/// CPU memory).
fn gradient_checkpointing(r: &mut Reading) -> Result<()> {
    let key = "gradient_checkpointing";
    if let Some(Value::String(mode)) = r.take(key) {
        if mode.starts_with("offload") {
            r.set(key, "training.checkpointing", "full")?;
            return r.set(key, "training.activation_offload", "1");
        }
    }
    checkpointing(r, key)
}
