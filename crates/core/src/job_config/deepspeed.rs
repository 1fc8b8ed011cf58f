//! A DeepSpeed config (`ds_config.json`), alone or inside a
//! `TrainingArguments` file under `deepspeed` (keys then start with
//! `prefix`). Values set to `auto` are filled in by the HF Trainer and are
//! named as such.

use super::reading::Reading;
use crate::error::{InputError, Result};
use crate::scenario::Framework;

pub(super) fn read(r: &mut Reading, prefix: &str) -> Result<()> {
    let key = |name: &str| format!("{prefix}{name}");
    r.sc.training.framework = Framework::Deepspeed;
    r.copy(
        &key("train_micro_batch_size_per_gpu"),
        "training.micro_batch",
    )?;
    r.copy(&key("gradient_accumulation_steps"), "training.grad_accum")?;
    gpus_from_batch(r, &key("train_batch_size"))?;
    precision(r, prefix)?;
    zero(r, prefix)?;
    optimizer(r, &key("optimizer.type"))
}

/// `train_batch_size` = micro batch × accumulation × GPUs: the GPU count,
/// when the config states the other two.
fn gpus_from_batch(r: &mut Reading, key: &str) -> Result<()> {
    let Some(text) = r.text(key)? else {
        return Ok(());
    };
    if !(r.was_read("training.micro_batch") && r.was_read("training.grad_accum")) {
        r.ignore(
            key,
            "the GPU count follows only with the micro batch and the accumulation steps",
        );
        return Ok(());
    }
    let total: u64 = text
        .parse()
        .map_err(|_| InputError::new(key, format!("\"{text}\" is not a whole number")))?;
    let per_gpu =
        r.sc.training
            .micro_batch
            .saturating_mul(r.sc.training.grad_accum);
    if per_gpu > 0 && total >= per_gpu && total.is_multiple_of(per_gpu) {
        r.set(key, "parallel.gpus", &(total / per_gpu).to_string())
    } else {
        r.ignore(
            key,
            format!("{total} is not a multiple of micro batch × accumulation ({per_gpu})"),
        );
        Ok(())
    }
}

/// `fp16.enabled` / `bf16.enabled`: 16-bit module weights with an fp32
/// master copy in the optimizer (DeepSpeed's mixed precision).
fn precision(r: &mut Reading, prefix: &str) -> Result<()> {
    for (section, dtype) in [("fp16", "fp16"), ("bf16", "bf16"), ("bfloat16", "bf16")] {
        let key = format!("{prefix}{section}.enabled");
        if r.flag(&key)? == Some(true) {
            r.set(&key, "weights", dtype)?;
            r.set(&key, "compute_dtype", dtype)?;
            r.set(&key, "training_precision", "amp")?;
        }
    }
    Ok(())
}

/// `zero_optimization`: the stage and what is offloaded to the CPU or NVMe.
fn zero(r: &mut Reading, prefix: &str) -> Result<()> {
    let stage_key = format!("{prefix}zero_optimization.stage");
    if let Some(stage) = r.text(&stage_key)? {
        let strategy = match stage.as_str() {
            "0" => "ddp",
            "1" => "zero1",
            "2" => "zero2",
            "3" => "zero3",
            other => {
                return Err(InputError::new(
                    stage_key,
                    format!("\"{other}\" is not a ZeRO stage: allowed 0 to 3"),
                ))
            }
        };
        r.set(&stage_key, "parallel.strategy", strategy)?;
    }
    let offloaded = |device: Option<String>| {
        device.is_some_and(|d| matches!(d.to_ascii_lowercase().as_str(), "cpu" | "nvme"))
    };
    let optimizer_key = format!("{prefix}zero_optimization.offload_optimizer.device");
    if offloaded(r.text(&optimizer_key)?) {
        r.set(&optimizer_key, "parallel.offload", "optimizer")?;
    }
    // Before `offload_optimizer` existed (DeepSpeed < 0.3.16).
    let legacy_key = format!("{prefix}zero_optimization.cpu_offload");
    if r.flag(&legacy_key)? == Some(true) {
        r.set(&legacy_key, "parallel.offload", "optimizer")?;
    }
    let param_key = format!("{prefix}zero_optimization.offload_param.device");
    if offloaded(r.text(&param_key)?) {
        r.set(&param_key, "parallel.offload", "optimizer_params")?;
    }
    // The parameter coordinator's knobs (zero3.rs); "auto" stays unset.
    for (name, field) in [
        (
            "stage3_prefetch_bucket_size",
            "parallel.zero3_prefetch_bucket",
        ),
        (
            "stage3_param_persistence_threshold",
            "parallel.zero3_persistence_threshold",
        ),
        ("stage3_max_live_parameters", "parallel.zero3_max_live"),
        ("stage3_max_reuse_distance", "parallel.zero3_max_reuse"),
    ] {
        let key = format!("{prefix}zero_optimization.{name}");
        if let Some(value) = r.text(&key)?.filter(|v| v != "auto") {
            // DeepSpeed configs write these as 1e9 or 5e8: whole numbers.
            let elements = crate::decimal::parse_f64(&value)
                .filter(|x| x.is_finite() && *x >= 0.0 && x.fract() == 0.0)
                .ok_or_else(|| {
                    InputError::new(
                        key.clone(),
                        format!("\"{value}\" is not a whole number of elements"),
                    )
                })?;
            r.set(&key, field, &format!("{}", elements as u64))?;
        }
    }
    Ok(())
}

/// `optimizer.type`: DeepSpeed's Adam is AdamW unless `adam_w_mode` is off;
/// both keep the same two states.
fn optimizer(r: &mut Reading, key: &str) -> Result<()> {
    let Some(name) = r.text(key)? else {
        return Ok(());
    };
    let optimizer = match name.to_ascii_lowercase().as_str() {
        "adam" | "adamw" | "fusedadam" | "cpuadam" | "deepspeedcpuadam" => "adamw",
        "lion" => "lion",
        _ => {
            r.ignore(
                key,
                format!("\"{name}\" is not an optimizer vramfit models; its AdamW estimate stands"),
            );
            return Ok(());
        }
    };
    r.set(key, "training.optimizer", optimizer)
}
