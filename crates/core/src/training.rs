//! Training memory: weights, gradients, optimizer states, activations, loss,
//! and the two moments one of which is the peak (backward start, optimizer step).

use crate::activations::{
    act_fn, has_dropout, layer_bytes, layer_terms, GradNeeds, LayerShape, LoraActs,
};
use crate::model::{Arch, ModelSpec, ParamCounts};
use crate::parallel::Shards;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::report::{Counter, Line, Part};
use crate::scenario::{Checkpointing, Framework, LoraTarget, Method, Optimizer, Scenario};
use crate::weights::{trainable_dtype, WeightBytes};

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
        // after the second (litgpt defaults adapter_prompt_length=10, start_layer=2).
        Method::Adapter => (l.saturating_sub(2)) * (10 * h + spec.heads as u128),
        // Adapter v2 also trains a bias and a scale on every linear's output
        // and the norms (litgpt adapter_v2).
        Method::AdapterV2 => {
            let outs =
                l * (2 * h + 2 * per(layers.k) / h.max(1) + h + 2 * per(layers.up) / h.max(1) + h);
            (l.saturating_sub(2)) * (10 * h + spec.heads as u128) + 2 * outs + layers.norms as u128
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

fn line(part: Part, bytes: u128, formula: String, counter: Counter) -> Line {
    Line {
        part,
        bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
        formula,
        counter,
    }
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
    lines.push(line(
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
            format!("({}){}", weights.formula, shards.weight_note())
        },
        Counter::Allocated,
    ));
    if weights_on_cpu {
        cpu_lines.push(line(
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
        let l = line(
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
    lines.push(line(
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
    let states_line = line(
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
    lines.push(line(
        Part::Activations,
        act_bytes + recompute,
        act_formula,
        Counter::Allocated,
    ));
    lines.push(line(
        Part::LogitsLoss,
        loss_bytes,
        loss_formula,
        Counter::Allocated,
    ));

    // bitsandbytes 4-bit matmuls dequantize a whole weight to 16-bit; litgpt
    // nf4 peaks show two such buffers of the largest linear alive (phi-1.5,
    // stablelm-3b, Llama-2-7B, CodeLlama-34B, Falcon-40B inference within 3%).
    let quant = quant_buffer_bytes(sc, weights);
    if quant > 0 {
        lines.push(line(
            Part::QuantBuffers,
            quant,
            format!(
                "2 × {} elements (largest linear) × {} B",
                weights.largest_quantized_linear,
                sc.compute_dtype.bytes()
            ),
            Counter::Allocated,
        ));
    }

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
        lines.push(line(
            Part::OptimizerStep,
            step,
            step_formula,
            Counter::NotAtPeak,
        ));
    }
    if buckets + gathered > 0 {
        lines.push(line(
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

/// Saved activations of the whole model on one GPU, plus (separately) the
/// extra layer recomputed in backward under checkpointing.
fn activation_bytes(
    spec: &ModelSpec,
    counts: &ParamCounts,
    sc: &Scenario,
    shards: &Shards,
) -> (u128, String, u128) {
    let t = &sc.training;
    let autocast = crate::weights::uses_autocast(sc);
    // fp32 runs and torch autocast (fp32 weights) keep fp32 tensors where the
    // shapes below say so; 16-bit weights (pure, or with an fp32 master copy
    // in the optimizer) keep 16-bit activations.
    let act_dtype = match sc.training_precision {
        TrainingPrecision::Fp32 => 4,
        TrainingPrecision::Amp if autocast => 4,
        _ => 2,
    };
    let lora_like = matches!(t.method, Method::Lora | Method::Qlora);
    let full = matches!(t.method, Method::Full | Method::ForwardBackward);
    // bitsandbytes' 4/8-bit matmul autograd functions save their input even
    // when the weight is frozen, so QLoRA keeps every linear's input.
    let bnb = matches!(
        crate::weights::effective_format(sc),
        WeightFormat::Nf4 | WeightFormat::Fp4 | WeightFormat::Int8
    );
    // litgpt's parameter-efficient runs keep the inputs of frozen linears too:
    // the measured per-sample slopes (litgpt-res-012/015/016 phi-1.5,
    // 022/025 Llama-2-7B, 017/020/021 StableLM-3B) exceed the saved-tensor
    // minimum by 4·h + 2·i bytes per token and layer, exactly those inputs.
    let keeps_inputs = bnb || t.framework == Framework::Litgpt;
    let bnb4 = matches!(
        crate::weights::effective_format(sc),
        WeightFormat::Nf4 | WeightFormat::Fp4
    );
    let targets = &t.lora.targets;
    let grads = if full {
        GradNeeds::all()
    } else {
        // Adapter v2 trains biases/scales on linear outputs: inputs not needed.
        GradNeeds {
            norms: t.method == Method::AdapterV2,
            qkv: keeps_inputs,
            o: keeps_inputs,
            gate_up: keeps_inputs,
            down: keeps_inputs,
        }
    };
    let lora = lora_like.then(|| LoraActs {
        rank: t.lora.rank as u128,
        targets: targets.clone(),
        dropout: t.lora.dropout > 0.0,
    });
    let vision_tokens = match (&spec.vision, t.images_per_sample) {
        (Some(v), n) if n > 0 => n * v.tokens_per_image(),
        _ => 0,
    };
    let seq = t.seq_len as u128;
    let shape = LayerShape {
        batch: t.micro_batch as u128,
        seq,
        hidden: spec.hidden as u128,
        intermediate: moe_active_width(spec) as u128,
        heads: spec.heads as u128,
        kv_heads: spec.kv_heads as u128,
        head_dim: spec.head_dim() as u128,
        act_bytes: if autocast { 4 } else { act_dtype },
        autocast,
        attention: sc.attention,
        grads,
        lora,
        // A forward/backward benchmark runs the model as loaded: eval mode, no dropout.
        dropout: has_dropout(spec) && t.method != Method::ForwardBackward,
        // litgpt QLoRA rows exceed the 16-bit saved inputs by about one fp32
        // copy of every quantized linear's input, as if bitsandbytes computed
        // in fp32: config-hub rows (hub-076/078/080/082/085/087) run 1.4–1.6×
        // this term, resource-table rows (res-014/027) 0.7× — the mechanism
        // is the same, its size differs between litgpt/bitsandbytes versions.
        fp32_linear_inputs: t.framework == Framework::Litgpt && bnb4,
    };
    let act = act_fn(spec, t.framework);
    let terms = layer_terms(&shape, spec, act);
    let per_layer_full: u128 = terms.iter().map(|x| x.bytes).sum();
    let per_layer = layer_bytes(&terms, &shape, t.checkpointing);
    let layers_here =
        shards.layers_per_gpu(spec.layers as u128 + spec.encoder_layers.unwrap_or(0) as u128);
    let in_flight = shards.micro_batches_in_flight(t.grad_accum as u128);
    let mut total = shards.tp_activations(per_layer * layers_here * in_flight);
    // Non-layer saved tensors (cpu/README §3): embeddings output, final norm,
    // lm_head input, RoPE cos/sin: ≈ (4 + 2B)·b·s·h.
    let bsh = shape.batch * seq * shape.hidden;
    let non_layer = (4 + 2 * act_dtype) * bsh;
    total += non_layer;
    // Autocast keeps a 16-bit copy of every linear weight until backward (cpu/README §2).
    let autocast_copies = if autocast {
        2 * counts.layers.linear() as u128 + 2 * counts.lm_head.max(counts.embedding) as u128
    } else {
        0
    };
    total += autocast_copies;
    // Vision tower: a ViT over the image tokens (frozen towers keep no activations).
    let mut vision = 0;
    if let (Some(v), true) = (&spec.vision, vision_tokens > 0) {
        if !t.freeze_vision {
            let vb = shape.batch * vision_tokens as u128 * v.hidden as u128;
            // GPT-2-style block: ≈ (8·B + 2·B·i/h) bytes per token·hidden.
            vision = v.layers as u128
                * vb
                * act_dtype
                * (8 + 2 * v.intermediate as u128 / v.hidden.max(1) as u128);
        }
        total += vision;
    }
    if t.activation_offload {
        // Only the layer being computed (and its successor's prefetch) stays on the GPU.
        total = 2 * per_layer + non_layer;
    }
    let mut recompute = if t.checkpointing == Checkpointing::Off {
        0
    } else {
        shards.tp_activations(per_layer_full)
    };
    // Checkpointing a model of one or two layers saves nothing; it never
    // keeps more than running without it.
    let without = shards.tp_activations(per_layer_full * layers_here * in_flight) + non_layer;
    if total + recompute > without + autocast_copies + vision {
        recompute = 0;
        total = without + autocast_copies + vision;
    }
    let main = terms
        .iter()
        .map(|x| format!("{} {}", x.name, x.formula))
        .collect::<Vec<_>>()
        .join(" + ");
    let formula = format!(
        "{layers_here} layers × {per_layer} B/layer{}{} × {in_flight} micro-batch(es) in flight{}; per layer: {main}; + non-layer (4+2·{act_dtype})·b·s·h = {non_layer}{}{}{}",
        match t.checkpointing {
            Checkpointing::Off => "",
            Checkpointing::Full => " (checkpointed: layer input only)",
            Checkpointing::Selective => " (selective recompute)",
        },
        if shards.tp > 1 { format!(" (tensor-parallel share over tp {})", shards.tp) } else { String::new() },
        if recompute > 0 { format!(" + one recomputed layer {recompute}") } else { String::new() },
        if autocast_copies > 0 { format!(" + autocast 16-bit weight copies {autocast_copies}") } else { String::new() },
        if vision > 0 { format!(" + vision tower {vision}") } else { String::new() },
        if t.activation_offload { " (offloaded: 2 layers on GPU)" } else { "" },
    );
    (total, formula, recompute)
}

/// MLP width one token passes through (MoE: routed experts' widths, summed).
fn moe_active_width(spec: &ModelSpec) -> u64 {
    match &spec.moe {
        Some(m) => {
            m.experts_per_token * m.expert_intermediate
                + m.shared_intermediate
                    .unwrap_or(m.shared_experts * m.expert_intermediate)
        }
        None => spec.intermediate,
    }
}

/// Logits and cross-entropy at their peak, by how the framework computes the loss.
fn loss_bytes(spec: &ModelSpec, sc: &Scenario, shards: &Shards) -> (u128, String) {
    let t = &sc.training;
    let b = t.micro_batch as u128;
    let s = t.seq_len as u128;
    // Encoder classifiers (BERT) predict a few labels, not a vocabulary.
    let v = if spec.arch == Arch::Bert {
        2
    } else {
        spec.vocab as u128
    };
    let bsv = shards.tp_logits(b * s * v);
    let fp32 = sc.training_precision == TrainingPrecision::Fp32;
    let (mult, why) = if t.chunked_loss {
        // Cross-entropy per chunk of rows: the 16-bit logits and their 16-bit
        // gradient exist in full, the fp32 softmax only one chunk at a time.
        (4, "chunked loss: 16-bit logits 2 + their gradient 2")
    } else {
        match t.framework {
            // HF ForCausalLMLoss: 16-bit logits (2) + fp32 log-softmax saved (4)
            // + two fp32 logit-sized gradients in backward (8) = 14·bsV; fp32: 16
            // (cpu/README §3, measured 7.992–8.000·bsV for the backward term).
            Framework::Transformers | Framework::HfTrainer | Framework::Deepspeed => {
                if fp32 {
                    (16, "fp32 logits 4 + log-softmax 4 + 2 fp32 gradients 8")
                } else if spec.arch == Arch::Opt {
                    // OPT's head computes cross-entropy in the model dtype, no
                    // upcast: the hf-sdpa OPT-350m grid grows 0.994 MB per token,
                    // = 24 layers × 24·h + 8·V bytes.
                    (
                        8,
                        "16-bit logits 2 + 16-bit log-softmax 2 + 2 16-bit gradients 4",
                    )
                } else {
                    (
                        14,
                        "16-bit logits 2 + fp32 log-softmax 4 + 2 fp32 gradients 8",
                    )
                }
            }
            // torchtune casts the output to fp32 before the loss: 4 + 4 + 8.
            Framework::Torchtune => (16, "fp32 logits 4 + log-softmax 4 + 2 fp32 gradients 8"),
            // litgpt computes the head and cross-entropy in 128-row chunks of
            // bf16 logits: logits 2 + bf16 log-softmax 2 + bf16 gradients 4.
            Framework::Litgpt => (8, "bf16 logits 2 + log-softmax 2 + 2 bf16 gradients 4"),
        }
    };
    (
        mult * bsv,
        format!("{mult}·b·s·V = {mult} × {b} × {s} × {v} ({why})"),
    )
}

/// Elements of the largest parameter tensor (embedding or an MLP projection).
pub fn largest_param_elements(spec: &ModelSpec) -> u128 {
    let h = spec.hidden as u128;
    (spec.vocab as u128 * h).max(h * spec.intermediate as u128)
}

fn full_training(method: Method) -> bool {
    matches!(method, Method::Full | Method::ForwardBackward)
}
