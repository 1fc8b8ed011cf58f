//! The optimizer's memory: its states per trainable parameter and the
//! temporaries of its step.

use crate::precision::{Dtype, TrainingPrecision};
use crate::resolved::Resolved;
use crate::scenario::{Framework, LoraTarget, Method, Optimizer};

/// Optimizer state bytes per trainable parameter ×1024 (integer), and a formula note.
pub(super) fn state_millibytes(r: &Resolved) -> (u128, &'static str) {
    state_millibytes_in(r, r.trainable_dtype)
}

/// The same for parameters of `param_dtype` (pure 16-bit training keeps the
/// states in the parameter's dtype: fp32 for PEFT's adapters).
pub(super) fn state_millibytes_in(r: &Resolved, param_dtype: Dtype) -> (u128, &'static str) {
    let t = r.training;
    let state = t.optimizer_state_dtype.unwrap_or(match r.precision {
        TrainingPrecision::Pure16 => param_dtype,
        _ => Dtype::Fp32,
    });
    let s = state.bytes() as u128 * 1024;
    match t.optimizer {
        Optimizer::Sgd | Optimizer::None => (0, "no state"),
        Optimizer::SgdMomentum => (s, "momentum"),
        Optimizer::Lion => (s, "momentum (Lion)"),
        Optimizer::Adam | Optimizer::Adamw => (2 * s, "exp_avg + exp_avg_sq"),
        // bitsandbytes block-wise 8-bit states: 2 × 1 B + an fp32 absmax per
        // 2048-element block (Dettmers et al. 2022, "8-bit optimizers").
        Optimizer::Adamw8bit | Optimizer::PagedAdamw8bit => {
            (2 * 1024 + 2 * 2, "2 × int8 + block absmax")
        }
        Optimizer::PagedAdamw => (2 * 4 * 1024, "2 × fp32, paged"),
        // Adafactor's factored second moment is counted separately (rows + cols).
        Optimizer::Adafactor => (0, "factored second moment"),
    }
}

/// Adafactor state: 4 B × (rows + cols) per matrix, 4 B per element of vectors
/// (cpu/optimizer_states.csv: HF Adafactor, beta1 = None).
pub(super) fn adafactor_bytes(r: &Resolved) -> u128 {
    let spec = r.spec;
    let counts = &r.counts;
    let l = spec.layers as u128;
    let h = spec.hidden as u128;
    let i = spec.intermediate as u128;
    let qd = (spec.heads * spec.head_dim()) as u128;
    let kvd = (spec.kv_heads * spec.head_dim()) as u128;
    let per_layer = (h + qd) * 2 + (h + kvd) * 2 + 3 * (h + i);
    let matrices = l * per_layer + 2 * (spec.vocab as u128 + h);
    let vectors = counts.layers.norms as u128 + counts.layers.biases as u128;
    // Scale with the trainable share (LoRA trains small matrices).
    let full = counts.total.max(1) as u128;
    4 * (matrices + vectors) * r.trainable.min(full) / full
}

/// Temporaries of the optimizer step on one GPU, and the formula; none
/// when the step runs on the CPU or inside backward.
pub(super) fn step_bytes(r: &Resolved) -> (u128, String) {
    let t = r.training;
    // Optimizer step scratch: torch's foreach AdamW (the CUDA default) holds one
    // parameter-sized temporary (cpu/optimizer_states.csv: 1.0× param bytes).
    let largest_param = largest_trainable_elements(r) * r.adapter_dtype.bytes() as u128;
    if r.shards.optimizer_offloaded() || t.optimizer_in_backward {
        return (0, String::new());
    }
    if t.optimizer == Optimizer::Adafactor {
        // transformers' Adafactor.step, one tensor at a time: `update =
        // grad**2 + eps` beside its operand, then `_approx_sq_grad`'s new
        // update beside the old: two fp32 copies of the largest tensor; a
        // 16-bit parameter adds `grad.float()` and `p.float()`, two more.
        // On an H100 this closes Llama-3-8B's and Mistral-7B's bf16
        // Adafactor peaks (h100_measured.jsonl); fp32 rows measured 2
        // (cpu/optimizer_states.csv).
        let copies = if r.adapter_dtype.bytes() < 4 { 4 } else { 2 };
        return (
            copies * largest_trainable_elements(r) * 4,
            format!("{copies} × largest tensor in fp32 (Adafactor)"),
        );
    }
    if t.framework == Framework::HfTrainer {
        // A for-loop step holds temporaries of one tensor at a time: ≈ 2× the
        // largest (cpu/optimizer_states.csv, for-loop rows).
        return (
            2 * largest_param,
            "2 × largest trainable tensor (for-loop step)".to_string(),
        );
    }
    match t.optimizer {
        // torch's fused kernels (Adam, AdamW, SGD) update each tensor in
        // place: no list of full-size intermediates.
        Optimizer::Adam | Optimizer::Adamw | Optimizer::SgdMomentum if t.fused_optimizer => {
            (0, String::new())
        }
        // SGD with momentum updates its buffers and the parameters in place
        // (`_foreach_mul_`, `_foreach_add_` in torch.optim.sgd's
        // `_multi_tensor_sgd`; with no weight decay nothing is copied):
        // measured on an H100, Llama-3-8B SGD momentum peaks at weights +
        // gradients + momentum (h100_measured.jsonl).
        Optimizer::Adam | Optimizer::Adamw | Optimizer::Lion => (
            r.shards.optimizer(r.trainable_bytes()),
            "one trainable-parameter-sized temporary (foreach step, the CUDA default)".to_string(),
        ),
        _ => (0, String::new()),
    }
}

/// Elements of the largest tensor the optimizer steps: the embedding or an
/// MLP projection when every weight trains; an adapter matrix (LoRA's
/// `r × width`, the head's when it is adapted) for parameter-efficient
/// methods, whose step never touches the frozen weights. Measured on an H100:
/// QLoRA of Llama-3-8B dims steps only the adapters (tests/data/qlora).
fn largest_trainable_elements(r: &Resolved) -> u128 {
    let spec = r.spec;
    let h = spec.hidden as u128;
    let full = spec.largest_weight_elements();
    let t = r.training;
    let adapted = match t.method {
        Method::Full | Method::ForwardBackward => return full,
        Method::Lora | Method::Qlora => {
            let q = (spec.heads * spec.head_dim()) as u128;
            let width = h.max(q).max(spec.intermediate as u128);
            let head = if t.lora.targets.contains(&LoraTarget::Head) {
                spec.vocab as u128
            } else {
                0
            };
            t.lora.rank as u128 * width.max(head)
        }
        // litgpt's adapter prompts: `adapter_prompt_length` (10) × hidden.
        Method::Adapter | Method::AdapterV2 => 10 * h,
    };
    adapted.min(full).min(r.trainable.max(1))
}
