//! A torchtune recipe config (`recipes/configs/*.yaml`): components named by
//! `_component_` (the model builder says the model and the method), the
//! recipe's switches at the top level.

use super::names::lora_targets;
use super::reading::{Reading, NOT_MODELED};
use crate::error::Result;
use crate::scenario::{Framework, Method};

/// torchtune model builders (without `lora_`/`qlora_` and `_base`/`_instruct`)
/// and the catalog model each builds.
const BUILDERS: &[(&str, &str)] = &[
    ("llama2_7b", "meta-llama/Llama-2-7b-hf"),
    ("llama2_13b", "meta-llama/Llama-2-13b-hf"),
    ("llama2_70b", "meta-llama/Llama-2-70b-hf"),
    ("code_llama2_7b", "codellama/CodeLlama-7b-hf"),
    ("llama3_8b", "meta-llama/Meta-Llama-3-8B"),
    ("llama3_1_8b", "meta-llama/Llama-3.1-8B"),
    ("llama3_1_70b", "meta-llama/Llama-3.1-70B"),
    ("llama3_1_405b", "meta-llama/Llama-3.1-405B"),
    ("llama3_2_1b", "meta-llama/Llama-3.2-1B"),
    ("llama3_2_3b", "meta-llama/Llama-3.2-3B"),
    ("llama3_3_70b", "meta-llama/Llama-3.3-70B-Instruct"),
    ("mistral_7b", "mistralai/Mistral-7B-v0.1"),
    ("gemma_2b", "google/gemma-2b"),
    ("gemma_7b", "google/gemma-7b"),
    ("gemma2_9b", "google/gemma-2-9b"),
    ("gemma2_27b", "google/gemma-2-27b"),
    ("phi3_mini", "microsoft/Phi-3-mini-4k-instruct"),
    ("qwen2_5_0_5b", "Qwen/Qwen2.5-0.5B"),
    ("qwen2_5_1_5b", "Qwen/Qwen2.5-1.5B"),
    ("qwen2_5_7b", "Qwen/Qwen2.5-7B"),
    ("qwen2_5_14b", "Qwen/Qwen2.5-14B"),
    ("qwen2_5_32b", "Qwen/Qwen2.5-32B"),
    ("qwen2_5_72b", "Qwen/Qwen2.5-72B"),
    ("qwen3_8b", "Qwen/Qwen3-8B"),
    ("qwen3_32b", "Qwen/Qwen3-32B"),
];

/// The last part of a dotted component path (`torch.optim.AdamW` → `AdamW`).
fn class_name(component: &str) -> &str {
    component.rsplit('.').next().unwrap_or(component)
}

/// A builder's method and the model it builds (a catalog id when known,
/// else the builder's own name).
fn builder(component: &str) -> (Method, String) {
    let name = class_name(component);
    let (method, base) = if let Some(base) = name.strip_prefix("qlora_") {
        (Method::Qlora, base)
    } else if let Some(base) = name.strip_prefix("lora_") {
        (Method::Lora, base)
    } else {
        (Method::Full, name)
    };
    let base = base
        .strip_suffix("_base")
        .or_else(|| base.strip_suffix("_instruct"))
        .unwrap_or(base);
    let model = BUILDERS
        .iter()
        .find(|(builder, _)| *builder == base)
        .map_or(name, |(_, id)| id);
    (method, model.to_owned())
}

pub(super) fn read(r: &mut Reading) -> Result<()> {
    r.sc.training.framework = Framework::Torchtune;
    model(r)?;
    r.copy("batch_size", "training.micro_batch")?;
    r.copy("gradient_accumulation_steps", "training.grad_accum")?;
    r.copy("tokenizer.max_seq_len", "training.seq_len")?;
    precision(r)?;
    if let Some(on) = r.flag("enable_activation_checkpointing")? {
        let value = if on { "full" } else { "off" };
        r.set(
            "enable_activation_checkpointing",
            "training.checkpointing",
            value,
        )?;
    }
    r.copy_flag(
        "enable_activation_offloading",
        "training.activation_offload",
    )?;
    r.copy_flag("optimizer_in_bwd", "training.optimizer_in_backward")?;
    optimizer(r)?;
    loss(r)?;
    if let Some(on) = r.flag("fsdp_cpu_offload")? {
        // Only the distributed recipes have the key: they shard with FSDP.
        r.set("fsdp_cpu_offload", "parallel.strategy", "fsdp")?;
        if on {
            r.set("fsdp_cpu_offload", "parallel.offload", "optimizer_params")?;
        }
    }
    if r.take("compile").is_some() {
        r.ignore("compile", NOT_MODELED);
    }
    Ok(())
}

/// `model._component_` and the LoRA builder's arguments.
fn model(r: &mut Reading) -> Result<()> {
    let key = "model._component_";
    let Some(component) = r.text(key)? else {
        return Ok(());
    };
    let (mut method, name) = builder(&component);
    if r.flag("model.quantize_base")? == Some(true) {
        method = Method::Qlora;
    }
    r.set_model(key, name);
    match method {
        Method::Qlora => {
            r.set(key, "training.method", "qlora")?;
            // torchtune quantizes the frozen base to NF4 (torchao).
            r.set(key, "weights", "nf4")?;
        }
        Method::Lora => r.set(key, "training.method", "lora")?,
        _ => return r.set(key, "training.method", "full"),
    }
    // The LoRA builders' dropout defaults to 0.0.
    r.set(key, "training.lora.dropout", "0")?;
    r.copy("model.lora_rank", "training.lora.rank")?;
    r.copy("model.lora_dropout", "training.lora.dropout")?;
    lora_modules(r)
}

/// `lora_attn_modules`, `apply_lora_to_mlp`, `apply_lora_to_output`.
fn lora_modules(r: &mut Reading) -> Result<()> {
    let attn_key = "model.lora_attn_modules";
    let mut names = r.list(attn_key)?.unwrap_or_default();
    let mut keys = vec![attn_key];
    for (key, module) in [
        ("model.apply_lora_to_mlp", "mlp"),
        ("model.apply_lora_to_output", "lm_head"),
    ] {
        if let Some(on) = r.flag(key)? {
            keys.push(key);
            if on {
                names.push(module.to_owned());
            }
        }
    }
    let (list, unknown) = lora_targets(&names);
    if !unknown.is_empty() {
        r.ignore(
            attn_key,
            format!(
                "module(s) {} are not among q_proj, k_proj, v_proj, output_proj",
                unknown.join(", ")
            ),
        );
    }
    if let Some(list) = list {
        for key in keys {
            r.set(key, "training.lora.targets", &list)?;
        }
    }
    Ok(())
}

/// `dtype`: torchtune trains in one dtype, without an fp32 copy.
fn precision(r: &mut Reading) -> Result<()> {
    let key = "dtype";
    let Some(dtype) = r.text(key)? else {
        return Ok(());
    };
    let quantized = r.sc.training.method == Method::Qlora;
    match dtype.as_str() {
        "bf16" | "fp16" => {
            r.set(key, "compute_dtype", &dtype)?;
            r.set(key, "training_precision", "pure16")?;
            if !quantized {
                r.set(key, "weights", &dtype)?;
            }
        }
        "fp32" => {
            r.set(key, "training_precision", "fp32")?;
            if !quantized {
                r.set(key, "weights", "fp32")?;
            }
        }
        other => r.ignore(key, format!("\"{other}\" is not one of bf16, fp16, fp32")),
    }
    Ok(())
}

/// `optimizer._component_` (torch, bitsandbytes, torchao) and `fused`.
fn optimizer(r: &mut Reading) -> Result<()> {
    let key = "optimizer._component_";
    if let Some(component) = r.text(key)? {
        let momentum = r
            .text("optimizer.momentum")?
            .and_then(|m| m.parse::<f64>().ok())
            .is_some_and(|m| m > 0.0);
        let optimizer = match class_name(&component).to_ascii_lowercase().as_str() {
            "adamw" => Some("adamw"),
            "adam" => Some("adam"),
            "sgd" if momentum => Some("sgd_momentum"),
            "sgd" => Some("sgd"),
            "adamw8bit" => Some("adamw8bit"),
            "pagedadamw" | "pagedadamw32bit" => Some("paged_adamw"),
            "pagedadamw8bit" => Some("paged_adamw8bit"),
            "adafactor" => Some("adafactor"),
            "lion" => Some("lion"),
            _ => None,
        };
        match optimizer {
            Some(name) => r.set(key, "training.optimizer", name)?,
            None => r.ignore(
                key,
                format!(
                    "\"{component}\" is not an optimizer vramfit models; its AdamW estimate stands"
                ),
            ),
        }
    }
    r.copy_flag("optimizer.fused", "training.fused_optimizer")
}

/// `loss._component_`: the chunked losses never hold the full fp32 logits.
fn loss(r: &mut Reading) -> Result<()> {
    let key = "loss._component_";
    let Some(component) = r.text(key)? else {
        return Ok(());
    };
    match class_name(&component) {
        "CEWithChunkedOutputLoss" | "LinearCrossEntropyLoss" => {
            r.set(key, "training.chunked_loss", "1")
        }
        "CrossEntropyLoss" => r.set(key, "training.chunked_loss", "0"),
        _ => {
            r.ignore(
                key,
                "not a loss vramfit knows: the plain cross-entropy estimate stands",
            );
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_give_the_method_and_the_catalog_model() {
        assert_eq!(
            builder("torchtune.models.llama3_1.qlora_llama3_1_8b"),
            (Method::Qlora, "meta-llama/Llama-3.1-8B".to_owned())
        );
        assert_eq!(
            builder("torchtune.models.qwen2_5.lora_qwen2_5_7b_instruct"),
            (Method::Lora, "Qwen/Qwen2.5-7B".to_owned())
        );
        assert_eq!(
            builder("torchtune.models.foo.foo_9b"),
            (Method::Full, "foo_9b".to_owned())
        );
        // Every builder's model is in the catalog.
        for (_, id) in BUILDERS {
            assert!(crate::catalog::find_model(id).is_some(), "{id}");
        }
    }
}
