//! What one training step keeps alive between forward and backward: the
//! saved activations of every layer, the tensors outside the layers, the
//! vision tower's, and the layer recomputed under checkpointing.

use crate::activations::{
    act_fn, compiled_layer_terms, cross_attention_stacks, has_dropout, hybrid_stacks, layer_bytes,
    layer_terms, op_sac_terms, GradNeeds, LayerShape, LoraActs, Term,
};
use crate::model::Arch;
use crate::precision::{TrainingPrecision, WeightFormat};
use crate::resolved::Resolved;
use crate::scenario::{Attention, Checkpointing, Framework, KbitPrep, Method};
use crate::trainable::ADAPTER_START_LAYER;

/// Saved activations of the whole model on one GPU: the bytes, the formula,
/// (separately) the extra layer recomputed in backward under checkpointing,
/// and the part of the bytes the text's length does not scale (autocast's
/// weight copies, the vision tower's).
/// `loss` is the loss's transient: layers rebuilt in backward come after
/// it, so they add to the peak only beyond it (see `recompute_beyond_loss`).
pub(super) fn activation_bytes(r: &Resolved, loss: u128) -> (u128, String, u128, u128) {
    let t = r.training;
    let act_dtype = activation_dtype_bytes(r);
    let base = layer_shape(r, act_dtype);
    let stacks = layer_stacks(r, &base);
    let graph = GraphLayers::of(r);
    let shards = &r.shards;
    let mut total = shards.tp_activations(stacks.per_layer * graph.layers * graph.in_flight);
    let outside = outside_layers(r, &base, act_dtype, stacks.compiled);
    total += outside.bytes;
    let autocast_copies = autocast_copy_bytes(r);
    total += autocast_copies;
    let kbit_residual = kbit_fp32_residual(r, base.batch * base.seq * base.hidden * graph.layers);
    total += shards.tp_activations(kbit_residual);
    let vision = vision_tower_bytes(r, base.batch, act_dtype);
    total += vision;
    let mut recompute = if t.checkpointing == Checkpointing::Off {
        0
    } else {
        shards.tp_activations(stacks.largest_layer_full)
    };
    if t.activation_offload {
        // Every layer's saved tensors wait in CPU memory; in backward they
        // come back one layer at a time (with the next one's prefetch),
        // after the loss's backward, like a recomputed layer (measured on an
        // H100 with torch.autograd.graph.save_on_cpu: Llama-3.2-1B, mb 4 ×
        // 2048, peaks at weights + states + the loss alone,
        // tests/data/mechanisms/mechanisms.jsonl).
        total = outside.bytes;
        recompute = 2 * stacks.per_layer;
        let without = shards.tp_activations(stacks.per_layer_full * graph.layers * graph.in_flight)
            + outside.bytes;
        if total + recompute.saturating_sub(loss) <= without {
            return (
                total,
                formula_offloaded(r, &stacks, &outside, recompute),
                recompute,
                0,
            );
        }
        // A model of one layer: bringing two back costs more than keeping all.
        return (without, formula_offloaded(r, &stacks, &outside, 0), 0, 0);
    }
    // Checkpointing a model of one or two layers saves nothing; it never
    // keeps more than running without it.
    let without = shards.tp_activations(stacks.per_layer_full * graph.layers * graph.in_flight)
        + outside.bytes;
    if total + recompute.saturating_sub(loss) > without + autocast_copies + vision {
        recompute = 0;
        total = without + autocast_copies + vision;
    }
    let extras = Extras {
        recompute,
        autocast_copies,
        vision,
    };
    let mut formula = formula(r, act_dtype, &stacks, &graph, &outside, &extras);
    if kbit_residual > 0 {
        formula.push_str(&format!(
            " + fp32 residual stream of the checkpointed layers (fp32 norms before 4-bit linears) {kbit_residual}"
        ));
    }
    (total, formula, recompute, autocast_copies + vision)
}

/// Autocast keeps a 16-bit copy of every linear weight until backward
/// (cpu/README §2).
fn autocast_copy_bytes(r: &Resolved) -> u128 {
    if r.autocast {
        2 * r.counts.layers.linear() as u128 + 2 * r.counts.lm_head.max(r.counts.embedding) as u128
    } else if r.kbit_prep == KbitPrep::Fp32 {
        // The fp32 head's 16-bit autocast copy, saved by its matmul (measured:
        // a bf16 vocab × hidden leaf among the saved tensors, tests/data/qlora).
        2 * r.counts.lm_head.max(r.counts.embedding) as u128
    } else {
        0
    }
}

/// Extra bytes of the checkpointed layer inputs when a QLoRA recipe keeps
/// the norms in fp32 (PEFT's prepare, TRL): bitsandbytes' `Linear4bit`
/// returns its output in its input's dtype (`out.to(inp_dtype)`), so the
/// MLP's fp32 output turns the residual stream fp32 and every checkpoint
/// holds 4 B per element instead of 2. Measured on an H100 (Llama-3-8B dims,
/// mb 4 × 2048, checkpointed): 1.94 GiB more saved than the 16-bit recipe,
/// 2 B × tokens × hidden × 32 layers = 2.0 GiB (tests/data/qlora).
fn kbit_fp32_residual(r: &Resolved, layer_elements: u128) -> u128 {
    let fp32_norms = matches!(r.kbit_prep, KbitPrep::Fp32 | KbitPrep::Trl);
    if fp32_norms
        && r.training.checkpointing != Checkpointing::Off
        && !r.training.activation_offload
    {
        2 * layer_elements
    } else {
        0
    }
}

/// Bytes of the activation dtype: fp32 runs and torch autocast (fp32
/// weights) keep fp32 tensors where the layer's shapes say so; 16-bit
/// weights (pure, or with an fp32 master copy in the optimizer) keep 16-bit
/// activations.
fn activation_dtype_bytes(r: &Resolved) -> u128 {
    match r.precision {
        TrainingPrecision::Fp32 => 4,
        TrainingPrecision::Amp if r.autocast => 4,
        _ => 2,
    }
}

/// One layer over the whole sequence (a decoder-only layer; the stacks of
/// an encoder-decoder change the tokens), with what needs a gradient.
fn layer_shape(r: &Resolved, act_dtype: u128) -> LayerShape {
    let t = r.training;
    let spec = r.spec;
    let full = matches!(t.method, Method::Full | Method::ForwardBackward);
    // bitsandbytes' 8-bit matmul (`MatMul8bitLt`) keeps its input for
    // backward even when the weight is frozen (`ctx.tensors = (CAt, subA,
    // A)`); the 4-bit one keeps only the packed weight (`ctx.tensors =
    // (None, B)` in bitsandbytes 0.50's `MatMul4Bit`), measured on an H100:
    // QLoRA of Llama-3-8B dims saves no linear input (tests/data/qlora).
    let bnb = r.format == WeightFormat::Int8;
    // litgpt's parameter-efficient runs keep the inputs of frozen linears too:
    // the measured per-sample slopes (litgpt-res-012/015/016 phi-1.5,
    // 022/025 Llama-2-7B, 017/020/021 StableLM-3B) exceed the saved-tensor
    // minimum by 4·h + 2·i bytes per token and layer, exactly those inputs.
    let keeps_inputs = bnb || t.framework == Framework::Litgpt;
    let bnb4 = matches!(r.format, WeightFormat::Nf4 | WeightFormat::Fp4);
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
    let lora = matches!(t.method, Method::Lora | Method::Qlora).then(|| LoraActs {
        rank: t.lora.rank as u128,
        targets: t.lora.targets.clone(),
        dropout: t.lora.dropout > 0.0,
        per_module_fp32: matches!(t.framework, Framework::Transformers | Framework::HfTrainer),
        fused_qkv: t.framework == Framework::Litgpt,
    });
    LayerShape {
        batch: t.micro_batch as u128,
        seq: t.seq_len as u128,
        hidden: spec.hidden as u128,
        intermediate: moe_active_width(r) as u128,
        heads: spec.heads as u128,
        kv_heads: spec.kv_heads as u128,
        head_dim: spec.head_dim() as u128,
        act_bytes: if r.autocast { 4 } else { act_dtype },
        autocast: r.autocast,
        attention: r.attention,
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
        cross_seq: 0,
        streams: spec
            .hyper_connections
            .as_ref()
            .map_or(1, |hc| hc.streams as u128),
        window_mask: false,
        routed_experts: 0,
    }
}

/// MLP width one token passes through (MoE: routed experts' widths, summed).
fn moe_active_width(r: &Resolved) -> u64 {
    match &r.spec.moe {
        Some(m) => {
            m.experts_per_token * m.expert_intermediate
                + m.shared_intermediate
                    .unwrap_or(m.shared_experts * m.expert_intermediate)
        }
        None => r.spec.intermediate,
    }
}

/// Saved bytes per layer, averaged over the model's stacks of layers.
struct Stacks {
    /// The first stack's terms, which the formula spells out.
    terms: Vec<Term>,
    /// Per layer under the chosen checkpointing, and without any.
    per_layer: u128,
    per_layer_full: u128,
    /// The layer recomputed in backward under checkpointing: the largest one.
    largest_layer_full: u128,
    /// How an encoder-decoder's mean is made up; empty otherwise.
    note: String,
    /// `torch.compile` is on and its measured terms cover these layers.
    compiled: bool,
    /// `torch.compile` is on but these layers are outside what was measured:
    /// they keep the eager terms.
    compile_uncovered: bool,
    /// Per-op SAC is on and its measured rule covers these layers.
    op_sac: bool,
    /// A hybrid model's stacks (kind, layers, their terms, bytes per layer),
    /// which the formula spells out instead of `terms`; empty otherwise.
    parts: Vec<(String, u128, Vec<Term>, u128)>,
}

/// Stacks of (layers, tokens, encoder tokens attended to): one for a
/// decoder-only model; an encoder-decoder (T5) runs its encoder over the
/// input and `layers` decoder layers over the target tokens, attending to
/// the encoder's. Per layer is the mean over the stacks, which is what the
/// layer count multiplies.
fn layer_stacks(r: &Resolved, base: &LayerShape) -> Stacks {
    let spec = r.spec;
    let seq = base.seq;
    let act = act_fn(spec, r.training.framework);
    let encoder = spec.encoder_layers.filter(|&e| e > 0);
    if encoder.is_none() {
        // Cross-attention layers read each sample's image tokens.
        let with_images = LayerShape {
            cross_seq: cross_image_tokens(r),
            ..base.clone()
        };
        let images_need_grad = crate::trainable::trains_every_weight(r.training.method);
        if let Some(parts) = hybrid_stacks(base, spec, act, r.training.mixer_kernels)
            .or_else(|| cross_attention_stacks(&with_images, spec, act, images_need_grad))
        {
            return hybrid_layer_stacks(r, base, parts);
        }
    }
    let target = r.decoder_tokens();
    // Whisper's encoder runs over its fixed frames, whatever the input
    let source = spec.encoder_tokens.map_or(seq, u128::from);
    let stacks = match encoder {
        Some(e) => {
            let (e, decoder) = (u128::from(e), u128::from(spec.layers));
            // Switch Transformers' sparse layers route their tokens
            let (encoder_sparse, decoder_sparse, experts) = match &spec.moe {
                Some(m) if spec.arch == Arch::T5 => (
                    u128::from(spec.encoder_moe_layers).min(e),
                    decoder - u128::from(m.dense_layers).min(decoder),
                    u128::from(m.experts),
                ),
                _ => (0, 0, 0),
            };
            vec![
                (e - encoder_sparse, source, 0, false, 0),
                (encoder_sparse, source, 0, false, experts),
                (decoder - decoder_sparse, target, source, false, 0),
                (decoder_sparse, target, source, false, experts),
            ]
        }
        // only the runs that keep autograd save (HRM-Text's `grad_runs`);
        // transformers' sliding layers over at least their window keep
        // SDPA's mask (`_ignore_causal_mask_sdpa` skips it below the window)
        None => {
            let runs = u128::from(spec.saving_runs());
            let masked = spec
                .sliding_window
                .as_ref()
                .filter(|w| {
                    base.attention == Attention::Sdpa
                        && r.training.framework.is_hugging_face()
                        && seq >= u128::from(w.window)
                })
                .map_or(0, |w| u128::from(w.layers).min(runs));
            vec![(runs - masked, seq, 0, false, 0), (masked, seq, 0, true, 0)]
        }
    };
    let mut terms = Vec::new();
    let (mut kept, mut full, mut layer_count) = (0u128, 0u128, 0u128);
    let mut largest_layer_full = 0;
    let (mut compiled, mut compile_uncovered, mut op_sac) = (false, false, false);
    for &(layers, tokens, cross_seq, window_mask, routed_experts) in &stacks {
        // a stack without layers (no sliding one, or no other) is no stack
        if layers == 0 && stacks.iter().any(|s| s.0 > 0) {
            continue;
        }
        let stack_shape = LayerShape {
            seq: tokens,
            cross_seq,
            window_mask,
            routed_experts,
            ..base.clone()
        };
        // Under torch.compile the partitioned forward saves its own set
        // (activations/compiled.rs); a layer it does not cover keeps eager's.
        // bitsandbytes' quantized linears under compile were not measured.
        let quantized_lora = stack_shape.lora.is_some() && r.format.is_quantized();
        let compiled_terms = if r.training.compile && !quantized_lora {
            compiled_layer_terms(&stack_shape, spec)
        } else {
            None
        };
        compiled |= compiled_terms.is_some();
        compile_uncovered |= r.training.compile && compiled_terms.is_none();
        let stack_terms = compiled_terms.unwrap_or_else(|| layer_terms(&stack_shape, spec, act));
        let stack_full: u128 = stack_terms.iter().map(|x| x.bytes).sum();
        // Per-op SAC keeps its own set, the same compiled or not (the
        // partitioner honours the policy's MUST_SAVE tags).
        let op_terms = if r.training.checkpointing == Checkpointing::Op {
            op_sac_terms(&stack_shape, spec)
        } else {
            None
        };
        op_sac |= op_terms.is_some();
        kept += layers
            * match &op_terms {
                Some(op) => op.iter().map(|x| x.bytes).sum(),
                None => layer_bytes(&stack_terms, &stack_shape, r.training.checkpointing),
            };
        full += layers * stack_full;
        layer_count += layers;
        largest_layer_full = largest_layer_full.max(stack_full);
        if terms.is_empty() {
            terms = op_terms.unwrap_or(stack_terms);
        }
    }
    let note = match encoder {
        Some(e) => format!(
            " (mean of {e} encoder layers over {source} tokens and {} decoder layers over {target} target tokens with cross-attention)",
            spec.layers
        ),
        None => String::new(),
    };
    Stacks {
        terms,
        per_layer: kept.div_ceil(layer_count.max(1)),
        per_layer_full: full.div_ceil(layer_count.max(1)),
        largest_layer_full,
        note,
        compiled: compiled && !compile_uncovered,
        compile_uncovered,
        op_sac,
        parts: Vec::new(),
    }
}

/// A model with recurrent mixers or cross-attention layers: its attention,
/// recurrent, cross-attention and feed-forward-only layers
/// (`activations/recurrent.rs`, `activations/cross_layer.rs`), averaged per
/// layer like the stacks of an encoder-decoder. torch.compile was measured
/// on attention layers only: these keep the eager terms.
fn hybrid_layer_stacks(
    r: &Resolved,
    base: &LayerShape,
    parts: Vec<crate::activations::LayerStack>,
) -> Stacks {
    let ckpt = r.training.checkpointing;
    let (mut kept, mut full, mut count, mut largest) = (0u128, 0u128, 0u128, 0u128);
    let mut spelled = Vec::new();
    for part in parts {
        let layer_full: u128 = part.terms.iter().map(|x| x.bytes).sum();
        kept = kept.saturating_add(part.layers.saturating_mul(layer_bytes(
            &part.terms,
            base,
            ckpt,
        )));
        full = full.saturating_add(part.layers.saturating_mul(layer_full));
        count += part.layers;
        largest = largest.max(layer_full);
        spelled.push((part.what.to_string(), part.layers, part.terms, layer_full));
    }
    let kernels = match (&r.spec.recurrent, r.training.mixer_kernels) {
        (None, _) => "",
        // transformers has no kernel for MiniMax's or RecurrentGemma's mixer
        (Some(rec), _) if !rec.kind.has_fused_kernels() => {
            "; recurrent mixers in PyTorch (no fused kernel)"
        }
        (Some(_), crate::scenario::MixerKernels::Fused) => "; recurrent mixers on fused kernels",
        (Some(_), crate::scenario::MixerKernels::Torch) => "; recurrent mixers on PyTorch fallback",
    };
    let note = format!(
        " (mean of {}{kernels})",
        spelled
            .iter()
            .map(|(what, n, _, bytes)| format!("{n} {what} layers × {bytes} B"))
            .collect::<Vec<_>>()
            .join(" + ")
    );
    Stacks {
        terms: spelled.first().map(|p| p.2.clone()).unwrap_or_default(),
        per_layer: kept.div_ceil(count.max(1)),
        per_layer_full: full.div_ceil(count.max(1)),
        largest_layer_full: largest,
        note,
        compiled: false,
        compile_uncovered: r.training.compile,
        op_sac: false,
        parts: spelled,
    }
}

/// The layers on this GPU that build an autograd graph, and the
/// micro-batches whose activations are alive at once.
struct GraphLayers {
    /// Layers on this GPU (its pipeline stage).
    here: u128,
    /// The first of them, before any trainable parameter, that save nothing.
    free: u128,
    layers: u128,
    in_flight: u128,
}

impl GraphLayers {
    fn of(r: &Resolved) -> GraphLayers {
        let spec = r.spec;
        let shards = &r.shards;
        let here = shards.layers_per_gpu(
            u128::from(spec.saving_runs()) + spec.encoder_layers.unwrap_or(0) as u128,
        );
        // Layers before the first trainable parameter build no autograd graph:
        // with LLaMA-Adapter v1 the frozen embedding feeds layers 0 and 1 tensors
        // that need no gradient and hold no parameter that does, so they save
        // nothing (v2 trains every linear's scale, so its graph starts at once).
        let free = if r.training.method == Method::Adapter && shards.pp == 1 {
            ADAPTER_START_LAYER.min(here.saturating_sub(1))
        } else {
            0
        };
        GraphLayers {
            here,
            free,
            layers: here - free,
            in_flight: shards.micro_batches_in_flight(r.training.grad_accum as u128),
        }
    }
}

/// The image tokens one sample's cross-attention layers read (its images'
/// tower tokens); 0 without cross-attention layers or images.
fn cross_image_tokens(r: &Resolved) -> u128 {
    if r.spec.cross_attention_layers == 0 {
        return 0;
    }
    r.images
        .as_ref()
        .map_or(0, |i| u128::from(i.tower_tokens()))
}

/// Saved tensors outside the layers.
struct OutsideLayers {
    bytes: u128,
    /// Adapter v2's saved head output (part of `bytes`).
    head_output: u128,
}

/// Non-layer saved tensors (cpu/README §3): embeddings output, final norm,
/// lm_head input, RoPE cos/sin: ≈ (4 + 2B)·b·s·h; T5's position bias;
/// adapter v2's head output. Compiled (tests/data/compile, `outside`
/// column): the embedding output and the final norm's output, 2B·b·s·h, and
/// its fp32 1/rms, 4·b·s (its fp32 input and cos/sin are recomputed), plus,
/// with SDPA, the additive
/// 4-D mask transformers builds while traced (`where(mask, 0, -inf)` in the
/// activation dtype, B·b·s², shared by all layers).
fn outside_layers(
    r: &Resolved,
    base: &LayerShape,
    act_dtype: u128,
    compiled: bool,
) -> OutsideLayers {
    let seq = base.seq;
    let bsh = base.batch * seq * base.hidden;
    let mut bytes = if compiled {
        let mask = if r.attention == Attention::Sdpa {
            act_dtype * base.batch * seq * seq
        } else {
            0
        };
        2 * act_dtype * bsh + 4 * base.batch * seq + mask
    } else {
        (4 + 2 * act_dtype) * bsh
    };
    // T5 adds a learned relative-position bias to every layer's scores: one
    // (b, heads, s, s) tensor per stack (encoder over the input, decoder over
    // the targets), built in the first layer and kept by all of them;
    // LongT5's encoder bias is blocked like its scores.
    if r.spec.arch == Arch::T5 {
        let target = r.decoder_tokens();
        let source = crate::activations::encoder_score_pairs(r.spec, seq);
        bytes += act_dtype * base.batch * base.heads * (source + target * target);
    }
    bytes += crate::activations::encoder_stem_bytes(
        r.spec,
        base.batch,
        act_dtype,
        crate::trainable::trains_every_weight(r.training.method),
    );
    // Cross-attention layers (Llama 3.2 Vision) all read one tensor of image
    // states (b·v·h, the projector's output) under one 4-D mask (b·s·v, in
    // the activation dtype, `_prepare_cross_attention_mask`): kept once.
    let v = cross_image_tokens(r);
    bytes += act_dtype * base.batch * v * (base.hidden + seq);
    // Adapter v2 scales the head's output too: the logits-sized operand is saved.
    let head_output = if r.training.method == Method::AdapterV2 {
        act_dtype * base.batch * seq * r.spec.vocab as u128
    } else {
        0
    };
    OutsideLayers {
        bytes: bytes + head_output,
        head_output,
    }
}

/// Vision tower: a ViT over the image tokens (frozen towers keep no
/// activations, except [`hooked_frozen_tower`]'s).
fn vision_tower_bytes(r: &Resolved, batch: u128, act_dtype: u128) -> u128 {
    let t = r.training;
    let Some(v) = &r.spec.vision else {
        return 0;
    };
    if t.freeze_vision {
        return hooked_frozen_tower(r, v, batch, act_dtype);
    }
    let (tokens, passes) = tower_passes(r, v, batch);
    if tokens == 0 {
        return 0;
    }
    let vb = tokens * v.hidden as u128;
    let mut per_layer = 0;
    for &(images, tokens_per_image) in &passes {
        let tower_batch = crate::activations::TowerBatch {
            images,
            tokens_per_image,
            act_bytes: act_dtype,
            attention: r.attention,
        };
        // The measured layer families (activations/tower.rs): their terms
        // are per pass, so passes of different lengths add up.
        match crate::activations::tower_layer_terms(v, &tower_batch) {
            Some(terms) => per_layer += terms.iter().map(|x| x.bytes).sum::<u128>(),
            None => {
                // Another family's layer: a GPT-2-style block stands in,
                // ≈ (8·B + 2·B·i/h) bytes per token·hidden, over the real tokens.
                per_layer =
                    vb * act_dtype * (8 + 2 * v.intermediate as u128 / v.hidden.max(1) as u128);
                break;
            }
        }
    }
    let whole = crate::activations::TowerBatch {
        images: 1,
        tokens_per_image: passes.iter().map(|&(n, t)| n * t).sum(),
        act_bytes: act_dtype,
        attention: r.attention,
    };
    // Pixtral's and Llama 3.2 Vision's masks, kept once for all layers.
    let shared = crate::activations::tower_shared_bytes(v, &passes, &whole);
    // Gated layers (Llama 3.2 Vision's global ones) keep their gated tensors.
    let gates = crate::activations::tower_gate_bytes(v, whole.tokens_per_image, &whole);
    // OpenGVLab's remote-code InternViT checkpoints its own layers.
    let checkpointing = if v.block.always_checkpointed() {
        Checkpointing::Full
    } else {
        t.checkpointing
    };
    shared
        + match checkpointing {
            // transformers checkpoints the CLIP encoder's layers too
            // (CLIPEncoder supports gradient checkpointing): each keeps
            // its input, and one layer is rebuilt at a time in backward.
            Checkpointing::Full => v.layers as u128 * vb * act_dtype + per_layer,
            _ => v.layers as u128 * per_layer + gates,
        }
}

/// A frozen tower's graph under PEFT with checkpointing. PEFT then calls
/// `enable_input_require_grads`, which since transformers 5 (PR #41993)
/// hooks every sub-model's input embeddings, the tower's patch embedding
/// too, unless its model names none ([`crate::model::VisionTower::unhooked`]).
/// The patches then need a gradient, so the frozen, checkpointed tower keeps
/// each layer's input, its output and the merger's hidden, `(layers + 2)·T·h`
/// (Qwen2.5-VL: + its window reorder and its merger's fp32 RMSNorm input,
/// 2 more), and a rotary tower its fp32 angles `4·T·d`. Measured: CPU
/// storages at the loss, and an H200 (tests/data/vlm_gpu).
fn hooked_frozen_tower(
    r: &Resolved,
    v: &crate::model::VisionTower,
    batch: u128,
    act: u128,
) -> u128 {
    use crate::model::TowerBlock as B;
    let t = r.training;
    let peft = match t.method {
        Method::Lora => true,
        // Only `prepare_model_for_kbit_training` hooks a quantized model.
        Method::Qlora => r.kbit_prep != KbitPrep::None,
        _ => false,
    };
    if !peft
        || !t.framework.is_hugging_face()
        || v.unhooked
        || t.checkpointing != Checkpointing::Full
    {
        return 0;
    }
    let (tokens, _) = tower_passes(r, v, batch);
    let kept = u128::from(v.layers) + 2 + if v.block == B::Qwen25Vl { 2 } else { 0 };
    let rotary = if matches!(v.block, B::Qwen2Vl | B::Qwen25Vl | B::Qwen3Vl) {
        4 * tokens * u128::from(v.hidden / v.heads.max(1))
    } else {
        0
    };
    kept * tokens * u128::from(v.hidden) * act + rotary
}

/// The tower's tokens in one micro-batch, and its passes (see
/// [`crate::vision::SampleImages::tower_passes`]); without sized images,
/// `training.image_size` squares.
fn tower_passes(
    r: &Resolved,
    v: &crate::model::VisionTower,
    batch: u128,
) -> (u128, Vec<(u128, u128)>) {
    match &r.images {
        // Sized for the micro-batch: `batch` is its samples.
        Some(sized) => sized.tower_passes(v),
        None => {
            let images = batch * r.training.images_per_sample as u128;
            let each = crate::vision::image_tokens(v, r.training.image_size).tower as u128;
            (images * each, vec![(images, each)])
        }
    }
}

/// Saved activations that wait in pinned CPU memory when offloaded: every
/// layer's, on this GPU's share; none without offloading.
pub(super) fn offloaded_bytes(r: &Resolved) -> u128 {
    if !r.training.activation_offload {
        return 0;
    }
    let base = layer_shape(r, activation_dtype_bytes(r));
    let stacks = layer_stacks(r, &base);
    let graph = GraphLayers::of(r);
    r.shards
        .tp_activations(stacks.per_layer * graph.layers * graph.in_flight)
}

/// The formula when the saved activations are offloaded to the CPU.
fn formula_offloaded(
    r: &Resolved,
    stacks: &Stacks,
    outside: &OutsideLayers,
    in_flight: u128,
) -> String {
    format!(
        "saved activations offloaded to CPU memory: {} layers × {} B/layer there; on the GPU the non-layer tensors {} and, in backward, 2 layers brought back at a time {in_flight}",
        r.shards.layers_per_gpu(
            u128::from(r.spec.saving_runs()) + r.spec.encoder_layers.unwrap_or(0) as u128
        ),
        stacks.per_layer,
        outside.bytes
    )
}

/// Which rule sized the tower's tokens, for the formula.
fn vision_rule(r: &Resolved) -> String {
    match &r.images {
        Some(sized) if sized.mixed() => format!(
            " ({}: images of {} sizes, packed = {} tower tokens per batch of {})",
            sized.rule.unwrap_or("the tower's square"),
            sized.groups.len(),
            sized.batch_tower_tokens(),
            sized.samples
        ),
        Some(sized) => format!(
            " ({}: {} image(s) of {}×{} = {} tower tokens per sample)",
            sized.rule.unwrap_or("the tower's square"),
            sized.images,
            sized.first().width,
            sized.first().height,
            sized.tower_tokens()
        ),
        None => String::new(),
    }
}

/// The terms added to the layers' and the outside tensors' bytes.
struct Extras {
    recompute: u128,
    autocast_copies: u128,
    vision: u128,
}

fn formula(
    r: &Resolved,
    act_dtype: u128,
    stacks: &Stacks,
    graph: &GraphLayers,
    outside: &OutsideLayers,
    extras: &Extras,
) -> String {
    let t = r.training;
    let spell = |terms: &[Term]| {
        terms
            .iter()
            .map(|x| format!("{} {}", x.name, x.formula))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let main = if stacks.parts.is_empty() {
        spell(&stacks.terms)
    } else {
        stacks
            .parts
            .iter()
            .map(|(what, _, terms, _)| format!("{what} layer: {}", spell(terms)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let (graph_layers, graph_free, layers_here) = (graph.layers, graph.free, graph.here);
    let (per_layer, decoder_note, in_flight) = (stacks.per_layer, &stacks.note, graph.in_flight);
    let (recompute, autocast_copies, vision) =
        (extras.recompute, extras.autocast_copies, extras.vision);
    let non_layer = outside.bytes;
    format!(
        "{graph_layers} layers{} × {per_layer} B/layer{decoder_note}{}{}{} × {in_flight} micro-batch(es) in flight{}; per layer: {main}; + non-layer {}{} = {non_layer}{}{}",
        if graph_free > 0 { format!(" (the first {graph_free} of {layers_here}, before any trainable parameter, save nothing)") } else { String::new() },
        match t.checkpointing {
            Checkpointing::Off => "",
            Checkpointing::Full => " (checkpointed: layer input only)",
            Checkpointing::Selective => " (selective recompute)",
            Checkpointing::Op if stacks.op_sac => " (per-op SAC: layer input, every second mm output, attention outputs)",
            Checkpointing::Op => " (per-op SAC not measured for this layer: eager terms)",
        },
        if r.shards.tp > 1 { format!(" (tensor-parallel share over tp {})", r.shards.tp) } else { String::new() },
        if stacks.compiled {
            " (torch.compile: what the min-cut partitioned forward saves)"
        } else if stacks.compile_uncovered {
            " (torch.compile: eager terms, this setup was not measured compiled)"
        } else {
            ""
        },
        if recompute > 0 { format!(" + one recomputed layer {recompute}") } else { String::new() },
        if stacks.compiled {
            if r.attention == Attention::Sdpa {
                format!("2·{act_dtype}·b·s·h + 4·b·s + 4-D mask {act_dtype}·b·s²")
            } else {
                format!("2·{act_dtype}·b·s·h + 4·b·s")
            }
        } else {
            format!("(4+2·{act_dtype})·b·s·h")
        },
        if r.spec.arch == Arch::T5 { format!(" + position bias {act_dtype}·b·a·({} + t²)", if r.spec.local_radius.is_some() { "n·L·K" } else { "s²" }) } else if outside.head_output > 0 { format!(" + head output (adapter v2 scale grad) {act_dtype}·b·s·V") } else if let Some(frames) = r.spec.encoder_tokens { format!(" + encoder stem, final norm and output {act_dtype}·b·(stem + 2·{frames}·h) + 8·b·{frames}") } else if cross_image_tokens(r) > 0 { format!(" + image states and cross-attention mask {act_dtype}·b·v·(h + s), v = {}", cross_image_tokens(r)) } else { String::new() },
        if autocast_copies > 0 { format!(" + autocast 16-bit weight copies {autocast_copies}") } else { String::new() },
        if vision > 0 { format!(" + vision tower {vision}{}{}", if t.freeze_vision { " (frozen, PEFT-hooked)" } else { "" }, vision_rule(r)) } else { String::new() },
    )
}
