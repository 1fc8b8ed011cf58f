//! Which parameters a training method trains, and how many.

use crate::model::{ModelSpec, ParamCounts};
use crate::scenario::{LoraTarget, Method, Training};

/// First layer with adapter prompts in litgpt's LLaMA-Adapter v1 and v2
/// (`adapter_start_layer` default 2, litgpt `adapter.py` Config).
pub const ADAPTER_START_LAYER: u128 = 2;

/// Whether the method trains every weight (so the embedding has a gradient).
pub fn trains_every_weight(method: Method) -> bool {
    matches!(method, Method::Full | Method::ForwardBackward)
}

/// Trainable parameters for the chosen method.
pub fn trainable_params(spec: &ModelSpec, counts: &ParamCounts, t: &Training) -> u128 {
    if let Some(n) = t.trainable_params {
        return n as u128;
    }
    let l = spec.layers.max(1) as u128;
    let h = spec.hidden as u128;
    let layers = &counts.layers;
    let per = |x: u64| x as u128 / l;
    match t.method {
        Method::Full | Method::ForwardBackward => {
            let frozen = if t.freeze_vision {
                counts.vision as u128
            } else {
                0
            };
            counts.total as u128 - frozen
        }
        Method::Lora | Method::Qlora => lora_params(spec, counts, t),
        // LLaMA-Adapter: a 10-token prompt and a gate per head in every layer
        // from `ADAPTER_START_LAYER` on (litgpt default adapter_prompt_length=10).
        Method::Adapter => (l.saturating_sub(ADAPTER_START_LAYER)) * (10 * h + spec.heads as u128),
        // Adapter v2 also trains a bias and a scale on every linear's output
        // and the norms (litgpt adapter_v2).
        Method::AdapterV2 => {
            let outs =
                l * (2 * h + 2 * per(layers.k) / h.max(1) + h + 2 * per(layers.up) / h.max(1) + h);
            (l.saturating_sub(ADAPTER_START_LAYER)) * (10 * h + spec.heads as u128)
                + 2 * outs
                + layers.norms as u128
        }
    }
}

/// LoRA's A and B matrices: r·(in + out) for each adapted matrix, in every layer.
pub fn lora_params(spec: &ModelSpec, counts: &ParamCounts, t: &Training) -> u128 {
    let l = spec.layers.max(1) as u128;
    let h = spec.hidden as u128;
    let layers = &counts.layers;
    let per = |x: u64| x as u128 / l;
    let r = t.lora.rank as u128;
    let qd = (spec.heads * spec.head_dim()) as u128;
    let experts = spec.moe.as_ref().map_or(1, |m| m.experts as u128);
    let mut sum = 0u128;
    for target in &t.lora.targets {
        let per_layer = match target {
            LoraTarget::Q => r * (h + qd),
            LoraTarget::K | LoraTarget::V => r * (h + per(layers.k) / h.max(1)),
            LoraTarget::O => r * (qd + h),
            LoraTarget::Gate | LoraTarget::Up | LoraTarget::Down => {
                // One projection of width i per expert: up's parameters / (h · experts).
                let width = per(layers.up) / h.max(1) / experts.max(1);
                if width == 0 {
                    0
                } else {
                    experts * r * (h + width)
                }
            }
            LoraTarget::Head => 0,
        };
        sum += per_layer * l;
        if *target == LoraTarget::Head {
            sum += r * (h + spec.vocab as u128);
        }
    }
    sum
}
