//! Training memory: weights, gradients, optimizer states, activations, loss,
//! and the two moments one of which is the peak (backward start, optimizer step).

use crate::model::{ModelSpec, ParamCounts};
use crate::parallel::Shards;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::report::{Counter, Line, Part};
use crate::scenario::{Framework, LoraTarget, Method, Optimizer, Scenario};
use crate::weights::{trainable_dtype, WeightBytes};

mod saved;
use saved::{activation_bytes, loss_bytes};

/// First layer with adapter prompts in litgpt's LLaMA-Adapter v1 and v2
/// (`adapter_start_layer` default 2, litgpt `adapter.py` Config).
pub const ADAPTER_START_LAYER: u128 = 2;

/// Trainable parameters for the chosen method.
pub fn trainable_params(spec: &ModelSpec, counts: &ParamCounts, sc: &Scenario) -> u128 {
    let t = &sc.training;
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
        Method::Lora | Method::Qlora => {
            let r = t.lora.rank as u128;
            let qd = (spec.heads * spec.head_dim()) as u128;
            let experts = spec.moe.as_ref().map_or(1, |m| m.experts as u128);
            let mlp_width = |n: u64| {
                // in + out of one projection of width i: n / (h·i) matrices of h×i
                per(n)
            };
            let mut sum = 0u128;
            for target in &t.lora.targets {
                // r·(in + out) for each adapted matrix, in every layer.
                let per_layer = match target {
                    LoraTarget::Q => r * (h + qd),
                    LoraTarget::K | LoraTarget::V => r * (h + per(layers.k) / h.max(1)),
                    LoraTarget::O => r * (qd + h),
                    LoraTarget::Gate | LoraTarget::Up | LoraTarget::Down => {
                        let width = mlp_width(layers.up) / h.max(1) / experts.max(1);
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

/// Optimizer state bytes per trainable parameter ×1024 (integer), and a formula note.
pub fn optimizer_state_millibytes(sc: &Scenario) -> (u128, &'static str) {
    let t = &sc.training;
    let state = t
        .optimizer_state_dtype
        .unwrap_or(match sc.training_precision {
            TrainingPrecision::Pure16 => trainable_dtype(sc),
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
fn adafactor_bytes(spec: &ModelSpec, counts: &ParamCounts, trainable: u128) -> u128 {
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
    4 * (matrices + vectors) * trainable.min(full) / full
}

pub struct TrainingMemory {
    pub lines: Vec<Line>,
    pub cpu_lines: Vec<Line>,
    pub peak_allocated: u128,
    pub peak_phase: &'static str,
}

/// Everything one GPU holds during training.
pub fn training_memory(
    spec: &ModelSpec,
    counts: &ParamCounts,
    sc: &Scenario,
    weights: &WeightBytes,
    shards: &Shards,
) -> TrainingMemory {
    let t = &sc.training;
    let trainable = trainable_params(spec, counts, sc);
    let tdtype = trainable_dtype(sc);
    let mut lines = Vec::new();
    let mut cpu_lines = Vec::new();

    // Weights on this GPU.
    let w_gpu = shards.weights(weights.total);
    let weights_on_cpu = shards.params_offloaded();
    lines.push(Line::new(
        Part::Weights,
        if weights_on_cpu {
            shards.gathered_layers(weights.total, 2)
        } else {
            w_gpu
        },
        if weights_on_cpu {
            format!(
                "parameters offloaded to CPU; 2 layers gathered at a time of {}",
                weights.formula
            )
        } else {
            shards.sharded_weights(&weights.formula)
        },
        Counter::Allocated,
    ));
    if weights_on_cpu {
        cpu_lines.push(Line::new(
            Part::Weights,
            weights.total,
            weights.formula.clone(),
            Counter::Device,
        ));
    }

    // fp32 master copy: 16-bit weights trained with mixed precision keep one in
    // the optimizer (DeepSpeed/Megatron layout). HF AMP keeps fp32 weights instead.
    let sixteen_bit_weights = matches!(sc.weights, WeightFormat::Fp16 | WeightFormat::Bf16);
    let master = if sc.training_precision == TrainingPrecision::Amp && sixteen_bit_weights {
        shards.optimizer(4 * trainable)
    } else {
        0
    };
    let optimizer_on_cpu = shards.optimizer_offloaded();
    if master > 0 {
        let l = Line::new(
            Part::MasterWeights,
            master,
            format!("{trainable} trainable × 4 B{}", shards.optimizer_note()),
            Counter::Allocated,
        );
        if optimizer_on_cpu {
            cpu_lines.push(l);
        } else {
            lines.push(l);
        }
    }

    // Gradients.
    let grad_bytes_full = trainable * tdtype.bytes() as u128;
    let grads = if t.optimizer_in_backward {
        // Each gradient is applied and freed as soon as it is produced.
        grad_bytes_full / (spec.layers.max(1) as u128)
    } else {
        shards.gradients(grad_bytes_full)
    };
    lines.push(Line::new(
        Part::Gradients,
        grads,
        format!(
            "{trainable} trainable × {} B ({}){}{}",
            tdtype.bytes(),
            tdtype.name(),
            shards.gradient_note(),
            if t.optimizer_in_backward {
                ", freed per layer (optimizer in backward)"
            } else {
                ""
            }
        ),
        Counter::Allocated,
    ));

    // Optimizer states.
    let (millibytes, what) = optimizer_state_millibytes(sc);
    let mut states_full = trainable * millibytes / 1024;
    if t.optimizer == Optimizer::Adafactor {
        states_full = adafactor_bytes(spec, counts, trainable);
    }
    let states = shards.optimizer(states_full);
    let paged = matches!(
        t.optimizer,
        Optimizer::PagedAdamw | Optimizer::PagedAdamw8bit
    );
    let states_line = Line::new(
        if paged {
            Part::PagedOptimizer
        } else {
            Part::OptimizerStates
        },
        states,
        format!(
            "{trainable} trainable × {:.3} B ({what}){}",
            millibytes as f64 / 1024.0,
            shards.optimizer_note()
        ),
        if paged {
            Counter::Device
        } else {
            Counter::Allocated
        },
    );
    if optimizer_on_cpu {
        cpu_lines.push(states_line);
    } else {
        lines.push(states_line);
    }
    let states_alloc = if optimizer_on_cpu || paged { 0 } else { states };
    let master_alloc = if optimizer_on_cpu { 0 } else { master };

    // Activations.
    let (act_bytes, act_formula, recompute) = activation_bytes(spec, counts, sc, shards);
    let (loss_bytes, loss_formula) = loss_bytes(spec, sc, shards);
    lines.push(Line::new(
        Part::Activations,
        act_bytes + recompute,
        act_formula,
        Counter::Allocated,
    ));
    lines.push(Line::new(
        Part::LogitsLoss,
        loss_bytes,
        loss_formula,
        Counter::Allocated,
    ));

    // bitsandbytes 4-bit matmuls dequantize a whole weight to 16-bit; litgpt
    // nf4 peaks show two such buffers of the largest linear alive (phi-1.5,
    // stablelm-3b, Llama-2-7B, CodeLlama-34B, Falcon-40B inference within 3%).
    let quant = quant_buffer_bytes(sc, weights);
    lines.extend(quant_buffer_line(sc, weights));

    // Optimizer step scratch: torch's foreach AdamW (the CUDA default) holds one
    // parameter-sized temporary (cpu/optimizer_states.csv: 1.0× param bytes).
    let largest_param = largest_param_elements(spec) * tdtype.bytes() as u128;
    let (step, step_formula) = if optimizer_on_cpu || t.optimizer_in_backward {
        (0, String::new())
    } else if t.framework == Framework::HfTrainer {
        // A for-loop step holds temporaries of one tensor at a time: ≈ 2× the
        // largest (cpu/optimizer_states.csv, for-loop rows).
        (
            2 * largest_param,
            "2 × largest parameter tensor (for-loop step)".to_string(),
        )
    } else {
        match t.optimizer {
            // torch's fused kernels (Adam, AdamW, SGD) update each tensor in
            // place: no list of full-size intermediates.
            Optimizer::Adam | Optimizer::Adamw | Optimizer::SgdMomentum if t.fused_optimizer => {
                (0, String::new())
            }
            Optimizer::Adam | Optimizer::Adamw | Optimizer::Lion | Optimizer::SgdMomentum => (
                shards.optimizer(trainable * tdtype.bytes() as u128),
                "one trainable-parameter-sized temporary (foreach step, the CUDA default)"
                    .to_string(),
            ),
            // HF Adafactor: ≈ 2× the largest tensor in fp32 (optimizer_states.csv).
            Optimizer::Adafactor => (
                2 * largest_param_elements(spec) * 4,
                "2 × largest tensor in fp32 (Adafactor)".to_string(),
            ),
            _ => (0, String::new()),
        }
    };
    // DDP's reducer keeps flat gradient buckets beside .grad (gradient_as_bucket_view=False).
    let buckets = shards.ddp_bucket_bytes(grad_bytes_full);
    let gathered = shards.zero3_gathered(weights.total, 2);
    if step > 0 {
        lines.push(Line::new(
            Part::OptimizerStep,
            step,
            step_formula,
            Counter::NotAtPeak,
        ));
    }
    if buckets + gathered > 0 {
        lines.push(Line::new(
            Part::Workspace,
            buckets + gathered,
            if buckets > 0 {
                "DDP gradient buckets = gradient bytes".into()
            } else {
                "2 layers of gathered parameters (ZeRO-3/FSDP prefetch)".into()
            },
            Counter::Allocated,
        ));
    }

    let weights_alloc = if weights_on_cpu {
        shards.gathered_layers(weights.total, 2)
    } else {
        w_gpu
    };
    // Gradients are alive during forward/backward when they accumulate over
    // micro-batches, or when zero_grad keeps them (legacy HF Trainer stack).
    let accumulating = t.grad_accum > 1 || t.framework == Framework::HfTrainer;
    let backward = weights_alloc
        + master_alloc
        + states_alloc
        + act_bytes
        + recompute
        + loss_bytes
        + quant
        + buckets
        + gathered
        + if accumulating { grads } else { 0 };
    let step_peak = weights_alloc + master_alloc + states_alloc + grads + step + buckets;
    // End of backward: every gradient exists; a 16-bit embedding's backward
    // accumulates its gradient in an fp32 buffer (hf-sdpa-156/167 at s = 128:
    // peak − weights − gradients ≈ vocab × h × 4 B).
    let embedding_trainable = full_training(t.method);
    let embedding_grad_buffer = if embedding_trainable && tdtype.bytes() == 2 {
        shards.gradients(counts.embedding as u128 * 4)
    } else {
        0
    };
    let backward_end =
        weights_alloc + master_alloc + states_alloc + grads + buckets + embedding_grad_buffer;
    let (peak, phase) = if step_peak >= backward.max(backward_end) {
        (step_peak, "optimizer step")
    } else if backward_end > backward {
        (backward_end, "end of backward")
    } else {
        (backward, "forward/backward")
    };
    // Mark what is not alive at the chosen peak.
    for l in &mut lines {
        let at_backward =
            !matches!(l.part, Part::OptimizerStep) && (accumulating || l.part != Part::Gradients);
        let at_step = matches!(
            l.part,
            Part::Weights
                | Part::MasterWeights
                | Part::OptimizerStates
                | Part::Gradients
                | Part::OptimizerStep
                | Part::Workspace
        );
        let at_backward_end = matches!(
            l.part,
            Part::Weights
                | Part::MasterWeights
                | Part::OptimizerStates
                | Part::Gradients
                | Part::Workspace
        );
        let alive = match phase {
            "optimizer step" => at_step,
            "end of backward" => at_backward_end,
            _ => at_backward,
        };
        if l.counter == Counter::Allocated && !alive {
            l.counter = Counter::NotAtPeak;
        } else if l.counter == Counter::NotAtPeak && alive {
            l.counter = Counter::Allocated;
        }
    }
    TrainingMemory {
        lines,
        cpu_lines,
        peak_allocated: peak,
        peak_phase: phase,
    }
}

fn quant_buffer_bytes(sc: &Scenario, weights: &WeightBytes) -> u128 {
    if matches!(
        crate::weights::effective_format(sc),
        WeightFormat::Nf4 | WeightFormat::Fp4
    ) {
        2 * weights.largest_quantized_linear * sc.compute_dtype.bytes() as u128
    } else {
        0
    }
}

pub fn inference_quant_buffer_bytes(sc: &Scenario, weights: &WeightBytes) -> u128 {
    quant_buffer_bytes(sc, weights)
}

/// The dequantization-buffer line, when the format has one.
pub fn quant_buffer_line(sc: &Scenario, weights: &WeightBytes) -> Option<Line> {
    let quant = quant_buffer_bytes(sc, weights);
    (quant > 0).then(|| {
        Line::new(
            Part::QuantBuffers,
            quant,
            format!(
                "2 × {} elements (largest linear) × {} B",
                weights.largest_quantized_linear,
                sc.compute_dtype.bytes()
            ),
            Counter::Allocated,
        )
    })
}

/// Elements of the largest parameter tensor (embedding or an MLP projection).
pub fn largest_param_elements(spec: &ModelSpec) -> u128 {
    let h = spec.hidden as u128;
    (spec.vocab as u128 * h).max(h * spec.intermediate as u128)
}

fn full_training(method: Method) -> bool {
    matches!(method, Method::Full | Method::ForwardBackward)
}
