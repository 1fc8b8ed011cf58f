//! What one training step keeps alive between forward and backward: the
//! saved activations of every layer and the logits and loss.

use crate::activations::{
    act_fn, has_dropout, layer_bytes, layer_terms, GradNeeds, LayerShape, LoraActs,
};
use crate::model::{Arch, ModelSpec, ParamCounts};
use crate::parallel::Shards;
use crate::precision::{TrainingPrecision, WeightFormat};
use crate::scenario::{Checkpointing, Framework, Method, Scenario};

/// Saved activations of the whole model on one GPU, plus (separately) the
/// extra layer recomputed in backward under checkpointing.
pub(super) fn activation_bytes(
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
            linear_outputs: t.method == Method::AdapterV2,
        }
    };
    let lora = lora_like.then(|| LoraActs {
        rank: t.lora.rank as u128,
        targets: targets.clone(),
        dropout: t.lora.dropout > 0.0,
        per_module_fp32: matches!(t.framework, Framework::Transformers | Framework::HfTrainer),
        fused_qkv: t.framework == Framework::Litgpt,
    });
    let vision_tokens = match (&spec.vision, t.images_per_sample) {
        (Some(v), n) if n > 0 => n * crate::vision::image_tokens(v, t.image_size).tower,
        _ => 0,
    };
    let seq = t.seq_len as u128;
    let layer_shape = |seq: u128, cross_seq: u128| LayerShape {
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
        lora: lora.clone(),
        // A forward/backward benchmark runs the model as loaded: eval mode, no dropout.
        dropout: has_dropout(spec) && t.method != Method::ForwardBackward,
        // litgpt QLoRA rows exceed the 16-bit saved inputs by about one fp32
        // copy of every quantized linear's input, as if bitsandbytes computed
        // in fp32: config-hub rows (hub-076/078/080/082/085/087) run 1.4–1.6×
        // this term, resource-table rows (res-014/027) 0.7× — the mechanism
        // is the same, its size differs between litgpt/bitsandbytes versions.
        fp32_linear_inputs: t.framework == Framework::Litgpt && bnb4,
        cross_seq,
    };
    let act = act_fn(spec, t.framework);
    let shape = layer_shape(seq, 0);
    // Stacks of (layers, tokens, encoder tokens attended to): one for a
    // decoder-only model; an encoder-decoder (T5) runs its encoder over the
    // input and `layers` decoder layers over the target tokens, attending to
    // the encoder's. Per layer below is the mean over the stacks, which is
    // what the layer count multiplies.
    let encoder = spec.encoder_layers.filter(|&e| e > 0);
    let target = decoder_tokens(spec, t);
    let stacks = match encoder {
        Some(e) => vec![(e as u128, seq, 0), (spec.layers as u128, target, seq)],
        None => vec![(spec.layers as u128, seq, 0)],
    };
    let mut terms = Vec::new();
    let (mut kept, mut full, mut layer_count) = (0u128, 0u128, 0u128);
    // The layer recomputed in backward under checkpointing: the largest one.
    let mut largest_layer_full = 0;
    for &(layers, tokens, cross) in &stacks {
        let stack_shape = layer_shape(tokens, cross);
        let stack_terms = layer_terms(&stack_shape, spec, act);
        let stack_full: u128 = stack_terms.iter().map(|x| x.bytes).sum();
        kept += layers * layer_bytes(&stack_terms, &stack_shape, t.checkpointing);
        full += layers * stack_full;
        layer_count += layers;
        largest_layer_full = largest_layer_full.max(stack_full);
        if terms.is_empty() {
            // The formula spells out the first stack's terms.
            terms = stack_terms;
        }
    }
    let per_layer = kept.div_ceil(layer_count.max(1));
    let per_layer_full = full.div_ceil(layer_count.max(1));
    let decoder_note = match encoder {
        Some(e) => format!(
            " (mean of {e} encoder layers over {seq} tokens and {} decoder layers over {target} target tokens with cross-attention)",
            spec.layers
        ),
        None => String::new(),
    };
    let layers_here =
        shards.layers_per_gpu(spec.layers as u128 + spec.encoder_layers.unwrap_or(0) as u128);
    let in_flight = shards.micro_batches_in_flight(t.grad_accum as u128);
    // Layers before the first trainable parameter build no autograd graph:
    // with LLaMA-Adapter v1 the frozen embedding feeds layers 0 and 1 tensors
    // that need no gradient and hold no parameter that does, so they save
    // nothing (v2 trains every linear's scale, so its graph starts at once).
    let graph_free = if t.method == Method::Adapter && shards.pp == 1 {
        super::ADAPTER_START_LAYER.min(layers_here.saturating_sub(1))
    } else {
        0
    };
    let graph_layers = layers_here - graph_free;
    let mut total = shards.tp_activations(per_layer * graph_layers * in_flight);
    // Non-layer saved tensors (cpu/README §3): embeddings output, final norm,
    // lm_head input, RoPE cos/sin: ≈ (4 + 2B)·b·s·h.
    let bsh = shape.batch * seq * shape.hidden;
    let mut non_layer = (4 + 2 * act_dtype) * bsh;
    // T5 adds a learned relative-position bias to every layer's scores: one
    // (b, heads, s, s) tensor per stack (encoder over the input, decoder over
    // the targets), built in the first layer and kept by all of them.
    if spec.arch == Arch::T5 {
        let heads = shape.heads;
        non_layer += act_dtype * shape.batch * heads * (seq * seq + target * target);
    }
    // Adapter v2 scales the head's output too: the logits-sized operand is saved.
    let head_output = if t.method == Method::AdapterV2 {
        act_dtype * shape.batch * seq * spec.vocab as u128
    } else {
        0
    };
    non_layer += head_output;
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
            let per_layer =
                vb * act_dtype * (8 + 2 * v.intermediate as u128 / v.hidden.max(1) as u128);
            vision = match t.checkpointing {
                // transformers checkpoints the CLIP encoder's layers too
                // (CLIPEncoder supports gradient checkpointing): each keeps
                // its input, and one layer is rebuilt at a time in backward.
                Checkpointing::Full => v.layers as u128 * vb * act_dtype + per_layer,
                _ => v.layers as u128 * per_layer,
            };
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
        shards.tp_activations(largest_layer_full)
    };
    // Checkpointing a model of one or two layers saves nothing; it never
    // keeps more than running without it.
    let without = shards.tp_activations(per_layer_full * graph_layers * in_flight) + non_layer;
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
        "{graph_layers} layers{} × {per_layer} B/layer{decoder_note}{}{} × {in_flight} micro-batch(es) in flight{}; per layer: {main}; + non-layer (4+2·{act_dtype})·b·s·h{} = {non_layer}{}{}{}",
        if graph_free > 0 { format!(" (the first {graph_free} of {layers_here}, before any trainable parameter, save nothing)") } else { String::new() },
        match t.checkpointing {
            Checkpointing::Off => "",
            Checkpointing::Full => " (checkpointed: layer input only)",
            Checkpointing::Selective => " (selective recompute)",
        },
        if shards.tp > 1 { format!(" (tensor-parallel share over tp {})", shards.tp) } else { String::new() },
        if recompute > 0 { format!(" + one recomputed layer {recompute}") } else { String::new() },
        if spec.arch == Arch::T5 { format!(" + position bias {act_dtype}·b·a·(s² + t²)") } else if head_output > 0 { format!(" + head output (adapter v2 scale grad) {act_dtype}·b·s·V") } else { String::new() },
        if autocast_copies > 0 { format!(" + autocast 16-bit weight copies {autocast_copies}") } else { String::new() },
        if vision > 0 { format!(" + vision tower {vision}") } else { String::new() },
        if t.activation_offload { " (offloaded: 2 layers on GPU)" } else { "" },
    );
    (total, formula, recompute)
}

/// Tokens the decoder of an encoder-decoder model runs over (the target);
/// the sequence length for every other model.
pub(super) fn decoder_tokens(spec: &ModelSpec, t: &crate::scenario::Training) -> u128 {
    match (spec.encoder_layers, t.target_len) {
        (Some(e), Some(target)) if e > 0 => target as u128,
        _ => t.seq_len as u128,
    }
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
pub(super) fn loss_bytes(spec: &ModelSpec, sc: &Scenario, shards: &Shards) -> (u128, String) {
    let t = &sc.training;
    let b = t.micro_batch as u128;
    // An encoder-decoder predicts its target tokens.
    let s = decoder_tokens(spec, t);
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
