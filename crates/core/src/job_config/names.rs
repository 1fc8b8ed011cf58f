//! The frameworks' names for optimizers, dtypes, attention kernels and LoRA
//! modules, as the scenario's keys. Each table lists the names the
//! framework documents; a name not listed is reported, never guessed.

use crate::scenario::{Choice, LoraTarget};

/// An HF Trainer `optim` name (transformers `OptimizerNames`; axolotl's
/// `optimizer` takes the same): the scenario's optimizer key and whether
/// it is torch's fused implementation.
pub fn hf_optimizer(name: &str) -> Option<(&'static str, bool)> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "adamw_torch"
        | "adamw_hf"
        | "adamw_torch_xla"
        | "adamw_torch_npu_fused"
        | "adamw_apex_fused"
        | "adamw_anyprecision"
        | "adamw" => ("adamw", false),
        "adamw_torch_fused" => ("adamw", true),
        // bitsandbytes 8-bit AdamW (adamw_8bit is its alias), torchao's 8-bit AdamW.
        "adamw_bnb_8bit" | "adamw_8bit" | "adamw_torch_8bit" => ("adamw8bit", false),
        "paged_adamw_32bit" | "paged_adamw" => ("paged_adamw", false),
        "paged_adamw_8bit" => ("paged_adamw8bit", false),
        "adafactor" => ("adafactor", false),
        "lion_32bit" => ("lion", false),
        "sgd" => ("sgd", false),
        _ => return None,
    })
}

/// A torch dtype name (`bfloat16`, `torch.float16`, `bf16`) as a weight
/// format key.
pub fn dtype_key(name: &str) -> Option<&'static str> {
    let name = name.trim().to_ascii_lowercase();
    Some(match name.strip_prefix("torch.").unwrap_or(&name) {
        "bfloat16" | "bf16" => "bf16",
        "float16" | "fp16" | "half" => "fp16",
        "float32" | "fp32" | "float" => "fp32",
        _ => return None,
    })
}

/// transformers' `attn_implementation` as an attention key.
pub fn attention_key(name: &str) -> Option<&'static str> {
    Some(match name.trim() {
        "eager" => "eager",
        "sdpa" => "sdpa",
        "flash_attention_2" | "flash_attention_3" => "flash",
        _ => return None,
    })
}

/// LoRA module names (PEFT `target_modules`, torchtune `lora_attn_modules`,
/// `all-linear`) as the registry's target list (`q,k,v,o`), and the names
/// that are none of the scenario's targets.
pub fn lora_targets(names: &[String]) -> (Option<String>, Vec<String>) {
    let mut keys: Vec<&'static str> = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        // torchtune calls the attention output projection `output_proj`.
        let name = if name.trim() == "output_proj" {
            "o_proj"
        } else {
            name.as_str()
        };
        match LoraTarget::parse(name) {
            Some(targets) => {
                for t in targets {
                    if !keys.contains(&t.key()) {
                        keys.push(t.key());
                    }
                }
            }
            None => unknown.push(name.to_owned()),
        }
    }
    let list = (!keys.is_empty()).then(|| keys.join(","));
    (list, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimizer_names_map_to_keys() {
        assert_eq!(hf_optimizer("adamw_torch_fused"), Some(("adamw", true)));
        assert_eq!(
            hf_optimizer("paged_adamw_8bit"),
            Some(("paged_adamw8bit", false))
        );
        assert_eq!(hf_optimizer("adamw_bnb_8bit"), Some(("adamw8bit", false)));
        assert_eq!(hf_optimizer("galore_adamw"), None);
    }

    #[test]
    fn module_names_become_targets_and_unknown_ones_are_kept() {
        let names: Vec<String> = ["q_proj", "v_proj", "output_proj", "c_attn"]
            .map(String::from)
            .to_vec();
        let (list, unknown) = lora_targets(&names);
        assert_eq!(list.as_deref(), Some("q,v,o"));
        assert_eq!(unknown, ["c_attn"]);
        let (all, none) = lora_targets(&["all-linear".to_owned()]);
        assert_eq!(all.as_deref(), Some("q,k,v,o,gate,up,down"));
        assert!(none.is_empty());
    }
}
