//! The rows of the field registry, in the order a v=1 link writes them.
//!
//! The order, the keys and the text of each value are the v=1 link format:
//! a new field goes at the end, and no key is ever renamed.

use super::field::{Choices, Field, Kind};
use super::text::Fraction;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::limits::{
    MAX_COUNT, MAX_GRAD_ACCUM, MAX_GROUP_SIZE, MAX_IMAGES, MAX_IMAGE_SIZE, MAX_TOKENS,
    MAX_TOTAL_PARAMS,
};
use crate::scenario::{
    Attention, CacheType, Checkpointing, Choice, Engine, Framework, KbitPrep, Method, MixerKernels,
    Offload, Optimizer, QuantKernel, Scenario, Strategy, TaskKind,
};

macro_rules! count {
    ($min:expr, $max:expr, $($f:ident).+) => {
        Kind::Count { min: $min, max: $max, get: |sc| sc.$($f).+, set: |sc, n| sc.$($f).+ = n }
    };
}

macro_rules! optional_count {
    ($min:expr, $max:expr, $($f:ident).+) => {
        Kind::OptionalCount {
            min: $min,
            max: $max,
            get: |sc| sc.$($f).+,
            set: |sc, n| sc.$($f).+ = n,
        }
    };
}

macro_rules! flag {
    ($($f:ident).+) => {
        Kind::Flag { get: |sc| sc.$($f).+, set: |sc, b| sc.$($f).+ = b }
    };
}

macro_rules! choice {
    ($t:ty, $($f:ident).+) => {
        Choices::of::<$t>(
            |sc| Choice::key(sc.$($f).+),
            |sc, v| {
                sc.$($f).+ = <$t as Choice>::parse_or_explain(v)?;
                Ok(())
            },
        )
    };
}

/// An `Option<T: Choice>` whose `None` is written `auto`.
macro_rules! optional_choice {
    ($t:ty, $($f:ident).+) => {
        Choices::of::<$t>(
            |sc| sc.$($f).+.map_or("auto", Choice::key),
            |sc, v| {
                sc.$($f).+ = match v {
                    "auto" => None,
                    v => Some(<$t as Choice>::parse_or_explain(v)?),
                };
                Ok(())
            },
        )
        .optional()
    };
}

/// A row: link key, path, CLI flag, help, when it applies, kind.
const fn row(
    key: &'static str,
    path: &'static str,
    flag: &'static str,
    help: &'static str,
    applies: fn(&Scenario) -> bool,
    kind: Kind,
) -> Field {
    Field {
        key,
        path,
        flag,
        // The help is the CLI's (`--help`): the web labels fields from its
        // locale files, so its build leaves these sentences out of the wasm.
        help: if cfg!(target_arch = "wasm32") {
            ""
        } else {
            help
        },
        label: None,
        embeddable: false,
        kind,
        applies,
        preset: None,
    }
}

impl Field {
    /// The web labels the field with the Fluent message `id`.
    const fn labelled(mut self, id: &'static str) -> Self {
        self.label = Some(id);
        self
    }

    /// Named values (presets) that set more than this field.
    const fn with_preset(mut self, preset: super::field::Preset) -> Self {
        self.preset = Some(preset);
        self
    }

    /// An embed may expose the field (`show=`).
    const fn for_embeds(mut self) -> Self {
        self.embeddable = true;
        self
    }
}

fn always(_: &Scenario) -> bool {
    true
}

fn training(sc: &Scenario) -> bool {
    sc.task == TaskKind::Training
}

fn inference(sc: &Scenario) -> bool {
    sc.task == TaskKind::Inference
}

/// LoRA and QLoRA training: the adapters' own settings.
fn lora(sc: &Scenario) -> bool {
    training(sc) && matches!(sc.training.method, Method::Lora | Method::Qlora)
}

/// Training a model with recurrent mixer layers (hybrid and state-space
/// models): which kernels run them. A bare parameter count has none.
fn recurrent_training(sc: &Scenario) -> bool {
    training(sc)
        && crate::estimate::resolve_model(&sc.model).is_ok_and(|spec| {
            spec.recurrent
                .is_some_and(|r| r.layers > 0 && r.kind.has_fused_kernels())
        })
}

/// A model whose processor takes video (its spec names a video family).
fn video_model(sc: &Scenario) -> bool {
    crate::estimate::resolve_model(&sc.model).is_ok_and(|spec| spec.video.is_some())
}

/// A bitsandbytes 4-bit model trained through PEFT: the casts it gets first.
fn qlora(sc: &Scenario) -> bool {
    sc.kbit_prep_applies()
}

/// Training that steps an optimizer (forward/backward benchmarks do not).
fn optimizer(sc: &Scenario) -> bool {
    training(sc) && sc.training.method != Method::ForwardBackward
}

/// An optimizer that has a step to fuse into backward.
fn optimizer_step(sc: &Scenario) -> bool {
    optimizer(sc) && sc.training.optimizer != Optimizer::None
}

/// torch ships a fused kernel for Adam, AdamW and SGD with momentum only.
fn fusable_optimizer(sc: &Scenario) -> bool {
    optimizer(sc)
        && matches!(
            sc.training.optimizer,
            Optimizer::Adam | Optimizer::Adamw | Optimizer::SgdMomentum
        )
}

/// ZeRO and FSDP shard the states that offloading moves to the CPU.
fn sharded(sc: &Scenario) -> bool {
    training(sc) && !matches!(sc.parallel.strategy, Strategy::None | Strategy::Ddp)
}

/// DeepSpeed ZeRO-3's parameter coordinator (`zero3.rs`).
fn deepspeed_zero3(sc: &Scenario) -> bool {
    training(sc) && sc.parallel.strategy == Strategy::Zero3
}

/// Sequence parallelism splits activations across tensor-parallel ranks.
fn tensor_parallel_training(sc: &Scenario) -> bool {
    training(sc) && sc.parallel.tp > 1
}

/// A device whose memory the CPU and OS share.
fn unified_gpu(sc: &Scenario) -> bool {
    sc.gpu
        .name
        .as_deref()
        .and_then(crate::gpu::find_gpu)
        .is_some_and(|g| g.is_unified())
}

fn pytorch_allocator(sc: &Scenario) -> bool {
    sc.uses_pytorch_allocator()
}

fn llama_cpp(sc: &Scenario) -> bool {
    inference(sc) && sc.inference.engine == Engine::LlamaCpp
}

fn vllm(sc: &Scenario) -> bool {
    inference(sc) && sc.inference.engine == Engine::Vllm
}

fn sglang(sc: &Scenario) -> bool {
    inference(sc) && sc.inference.engine == Engine::Sglang
}

/// An engine that sizes a KV pool (vLLM, SGLang): sequences at once and a
/// shared prefix mean the same in both.
fn pool_engine(sc: &Scenario) -> bool {
    inference(sc) && sc.inference.engine.sizes_pool()
}

/// transformers' `generate` options (cache implementation).
fn transformers_generate(sc: &Scenario) -> bool {
    inference(sc) && sc.inference.engine == Engine::Transformers
}

/// GPTQ or AWQ weights in transformers, whose kernel keeps a scratch buffer.
fn gptq_awq_generate(sc: &Scenario) -> bool {
    transformers_generate(sc)
        && matches!(
            sc.effective_weights(),
            WeightFormat::Gptq4 | WeightFormat::Awq4
        )
}

/// A transformers static cache, whose length can be set.
fn static_cache(sc: &Scenario) -> bool {
    transformers_generate(sc) && sc.inference.static_cache
}

/// bitsandbytes 4-bit weights (double quantization applies to them).
fn bnb_four_bit(sc: &Scenario) -> bool {
    matches!(
        sc.effective_weights(),
        WeightFormat::Nf4 | WeightFormat::Fp4
    )
}

fn nf4(sc: &Scenario) -> bool {
    sc.effective_weights() == WeightFormat::Nf4
}

/// GPTQ and AWQ store a scale per group of weights.
fn grouped(sc: &Scenario) -> bool {
    matches!(sc.weights, WeightFormat::Gptq4 | WeightFormat::Awq4)
}

/// A VLM scenario with images: their size matters.
fn with_images(sc: &Scenario) -> bool {
    sc.images() > 0
}

/// An image size preset (`1080p`, `phone`, `page`, ...) or `WxH` sets both
/// sides; a plain number sets one side (the other, when unset, follows it).
fn image_size_preset(sc: &mut Scenario, v: &str) -> std::result::Result<bool, String> {
    let Some((w, h)) = crate::scenario::image_preset(v) else {
        return Ok(false);
    };
    for side in [w, h] {
        if !(1..=MAX_IMAGE_SIZE).contains(&side) {
            return Err(format!(
                "\"{v}\" is {w}×{h}: each side must be from 1 to {MAX_IMAGE_SIZE} pixels"
            ));
        }
    }
    sc.image_width = Some(w);
    sc.image_height = Some(h);
    Ok(true)
}

/// The weight formats a menu offers: those that apply to the scenario.
fn offered_weights(sc: &Scenario) -> Vec<&'static str> {
    WeightFormat::ALL
        .into_iter()
        .filter(|w| w.applies(sc))
        .map(WeightFormat::name)
        .collect()
}

/// Every scenario field but the model, in the order links write them.
// One row per field reads best as a table: rustfmt would put each argument
// on its own line.
#[rustfmt::skip]
pub static FIELDS: &[Field] = &[
    row("t", "task", "task", "What to estimate: training or inference",
        always, Kind::Choice(choice!(TaskKind, task))),
    row("w", "weights", "weights", "How the weights are stored on the GPU",
        always, Kind::Choice(choice!(WeightFormat, weights).offering(offered_weights)))
        .labelled("field-weights")
        .for_embeds(),
    row("dq", "double_quant", "double-quant", "bitsandbytes double quantization of the NF4/FP4 scales",
        bnb_four_bit, flag!(double_quant))
        .labelled("field-double-quantization"),
    row("ec", "empty_cache_after_load", "empty-cache",
        "torch.cuda.empty_cache() after loading: no loading blocks stay reserved",
        always, flag!(empty_cache_after_load))
        .labelled("field-empty-cache-after-loading"),
    row("es", "expandable_segments", "expandable-segments",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the allocator grows one segment instead of caching fixed ones",
        pytorch_allocator, flag!(expandable_segments))
        .labelled("field-expandable-segments"),
    row("ao01", "unchunked_nf4_quantizer", "unchunked-nf4",
        "NF4 quantized by torchao 0.1 (torchtune before June 2024): large loading working sets",
        nf4, flag!(unchunked_nf4_quantizer))
        .labelled("field-nf4-by-torchao-0-1-torchtune-before-june-2024"),
    row("gs", "group_size", "group-size", "Weights per GPTQ/AWQ quantization group",
        grouped, count!(1, MAX_GROUP_SIZE, group_size))
        .labelled("field-group-size"),
    row("dt", "compute_dtype", "compute-dtype", "16-bit type of compute and unquantized tensors",
        always, Kind::Choice(choice!(Dtype, compute_dtype)))
        .labelled("field-compute-dtype"),
    row("prec", "training_precision", "precision",
        "How training keeps its numbers: pure 16-bit, AMP (fp32 master weights) or fp32",
        training, Kind::Choice(choice!(TrainingPrecision, training_precision)))
        .labelled("field-precision-mode"),
    row("attn", "attention", "attention", "Attention kernel (eager materializes the score matrix)",
        always, Kind::Choice(choice!(Attention, attention)))
        .labelled("field-attention-kernel"),
    row("fw", "training.framework", "framework", "Training framework",
        training, Kind::Choice(choice!(Framework, training.framework)))
        .labelled("field-framework"),
    row("meth", "training.method", "method", "What is trained: every weight, LoRA adapters, ...",
        training, Kind::Choice(choice!(Method, training.method)))
        .labelled("field-method")
        .for_embeds(),
    row("r", "training.lora.rank", "lora-rank", "LoRA rank",
        lora, count!(1, MAX_COUNT, training.lora.rank))
        .labelled("field-rank")
        .for_embeds(),
    row("lt", "training.lora.targets", "lora-targets", "Layers LoRA adapts",
        lora, Kind::LoraTargets)
        .labelled("lora-targets"),
    row("ld", "training.lora.dropout", "lora-dropout",
        "LoRA dropout probability (above 0 keeps a dropped copy of each adapted input)",
        lora, Kind::Fraction {
            range: Fraction::ZeroToBelowOne,
            get: |sc| sc.training.lora.dropout,
            set: |sc, p| sc.training.lora.dropout = p,
        })
        .labelled("field-dropout"),
    row("opt", "training.optimizer", "optimizer", "Optimizer",
        optimizer, Kind::Choice(choice!(Optimizer, training.optimizer)))
        .labelled("field-optimizer"),
    row("osd", "training.optimizer_state_dtype", "optimizer-state-dtype",
        "dtype of the optimizer states (auto: follows the precision mode)",
        optimizer, Kind::Choice(optional_choice!(Dtype, training.optimizer_state_dtype)))
        .labelled("field-optimizer-state-dtype"),
    row("oib", "training.optimizer_in_backward", "optimizer-in-backward",
        "Optimizer step fused into backward: no full gradient buffer",
        optimizer_step, flag!(training.optimizer_in_backward))
        .labelled("field-optimizer-step-in-backward"),
    row("fused", "training.fused_optimizer", "fused-optimizer",
        "torch's fused AdamW/Adam/SGD step (fused=True): no foreach temporary",
        fusable_optimizer, flag!(training.fused_optimizer))
        .labelled("field-fused-optimizer-fused-true"),
    row("mb", "training.micro_batch", "micro-batch", "Sequences per GPU per forward pass",
        training, count!(1, MAX_COUNT, training.micro_batch))
        .labelled("field-micro-batch")
        .for_embeds(),
    row("tgt", "training.target_len", "target-len",
        "Decoder (target) tokens of an encoder-decoder model such as T5 (auto: the sequence length)",
        training, optional_count!(1, MAX_TOKENS, training.target_len))
        .labelled("field-target-tokens-0-sequence-length"),
    row("ga", "training.grad_accum", "grad-accum", "Micro-batches accumulated per optimizer step",
        training, count!(1, MAX_GRAD_ACCUM, training.grad_accum))
        .labelled("field-gradient-accumulation")
        .for_embeds(),
    row("seq", "training.seq_len", "seq-len", "Training sequence length in tokens",
        training, count!(1, MAX_TOKENS, training.seq_len))
        .labelled("field-sequence-length")
        .for_embeds(),
    row("ckpt", "training.checkpointing", "checkpointing", "Activation (gradient) checkpointing",
        training, Kind::Choice(choice!(Checkpointing, training.checkpointing)))
        .labelled("field-checkpointing"),
    row("cl", "training.chunked_loss", "chunked-loss",
        "Loss computed in chunks, never materializing the full fp32 logits",
        training, flag!(training.chunked_loss))
        .labelled("field-chunked-loss"),
    row("ao", "training.activation_offload", "activation-offload",
        "Saved activations moved to CPU memory between forward and backward",
        training, flag!(training.activation_offload))
        .labelled("field-activation-offload-to-cpu"),
    row("cmp", "training.compile", "compile",
        "The model runs under torch.compile (inductor): the min-cut partitioner recomputes cheap ops instead of saving them",
        training, flag!(training.compile))
        .labelled("field-torch-compile"),
    row("fv", "training.freeze_vision", "freeze-vision", "Vision tower frozen (VLMs)",
        training, flag!(training.freeze_vision))
        .labelled("field-freeze-vision-tower"),
    row("img", "training.images_per_sample", "images-per-sample", "Images per training sample (VLMs)",
        training, count!(0, MAX_IMAGES, training.images_per_sample))
        .labelled("field-images-per-sample"),
    row("imgsz", "training.image_size", "image-size",
        "Side of each training image in pixels (auto: the model's)",
        training, optional_count!(1, MAX_IMAGE_SIZE, training.image_size))
        .labelled("field-image-side-px-0-model-s"),
    row("trp", "training.trainable_params", "trainable-params",
        "Trainable parameters the trainer reported (auto: counted from the method)",
        training, optional_count!(0, MAX_TOTAL_PARAMS, training.trainable_params)),
    row("bs", "inference.batch", "batch", "Sequences generated at once",
        inference, count!(1, MAX_COUNT, inference.batch))
        .labelled("field-batch")
        .for_embeds(),
    row("pl", "inference.prompt_len", "prompt-len", "Prompt tokens per sequence",
        inference, count!(1, MAX_TOKENS, inference.prompt_len))
        .labelled("field-prompt-tokens")
        .for_embeds(),
    row("nt", "inference.new_tokens", "new-tokens", "Tokens generated per sequence",
        inference, count!(0, MAX_TOKENS, inference.new_tokens))
        .labelled("field-new-tokens")
        .for_embeds(),
    row("kv", "inference.kv_cache_dtype", "kv-dtype",
        "dtype of the KV cache (auto: the compute dtype)",
        inference, Kind::Choice(optional_choice!(Dtype, inference.kv_cache_dtype)))
        .labelled("field-kv-cache-dtype"),
    row("eng", "inference.engine", "engine", "Inference engine",
        inference, Kind::Choice(choice!(Engine, inference.engine)))
        .labelled("field-engine")
        .for_embeds(),
    row("gmu", "inference.gpu_memory_utilization", "gpu-memory-utilization",
        "vLLM's share of the card (its KV cache fills the rest)",
        vllm, Kind::Fraction {
            range: Fraction::AboveZeroToOne,
            get: |sc| sc.inference.gpu_memory_utilization,
            set: |sc, u| sc.inference.gpu_memory_utilization = u,
        })
        .labelled("field-gpu-memory-utilization"),
    row("ipp", "inference.images_per_prompt", "images-per-prompt", "Images per prompt (VLMs)",
        inference, count!(0, MAX_IMAGES, inference.images_per_prompt))
        .labelled("field-images-per-prompt"),
    row("static", "inference.static_cache", "static-cache",
        "transformers' static KV cache (cache_implementation=\"static\")",
        transformers_generate, flag!(inference.static_cache))
        .labelled("field-static-kv-cache"),
    row("tuple", "inference.tuple_cache", "tuple-cache",
        "transformers before 4.36: past_key_values as tuples (the old and new cache coexist)",
        transformers_generate, flag!(inference.tuple_cache))
        .labelled("field-tuple-kv-cache-transformers-4-36"),
    row("n", "parallel.gpus", "gpus", "GPUs the job runs on",
        always, count!(1, MAX_COUNT, parallel.gpus))
        .labelled("field-gpu-count")
        .for_embeds(),
    row("par", "parallel.strategy", "strategy", "Data-parallel sharding: DDP, ZeRO stage, FSDP",
        training, Kind::Choice(choice!(Strategy, parallel.strategy)))
        .labelled("field-zero-fsdp"),
    row("tp", "parallel.tp", "tp", "Tensor-parallel degree",
        always, count!(1, MAX_COUNT, parallel.tp))
        .labelled("field-tensor-parallel"),
    row("pp", "parallel.pp", "pp", "Pipeline-parallel degree",
        always, count!(1, MAX_COUNT, parallel.pp))
        .labelled("field-pipeline-parallel"),
    row("sp", "parallel.sequence_parallel", "sequence-parallel",
        "Sequence parallelism: norm and dropout activations sharded across tensor-parallel ranks",
        tensor_parallel_training, flag!(parallel.sequence_parallel))
        .labelled("field-sequence-parallel"),
    row("off", "parallel.offload", "offload", "ZeRO/FSDP offload of states to CPU memory",
        sharded, Kind::Choice(choice!(Offload, parallel.offload)))
        .labelled("field-offload"),
    row("z3pb", "parallel.zero3_prefetch_bucket", "zero3-prefetch-bucket",
        "DeepSpeed stage3_prefetch_bucket_size, elements (auto: 0.9·h² under the HF Trainer or accelerate, else 5e7)",
        deepspeed_zero3, optional_count!(1, MAX_TOTAL_PARAMS, parallel.zero3_prefetch_bucket))
        .labelled("field-zero-3-prefetch-bucket-elements-0-auto"),
    row("z3pt", "parallel.zero3_persistence_threshold", "zero3-persistence-threshold",
        "DeepSpeed stage3_param_persistence_threshold, elements (auto: 10·h under the HF Trainer or accelerate, else 1e5)",
        deepspeed_zero3, optional_count!(1, MAX_TOTAL_PARAMS, parallel.zero3_persistence_threshold))
        .labelled("field-zero-3-persistence-threshold-elements-0-auto"),
    row("z3ml", "parallel.zero3_max_live", "zero3-max-live",
        "DeepSpeed stage3_max_live_parameters, elements (auto: 1e9)",
        deepspeed_zero3, optional_count!(1, MAX_TOTAL_PARAMS, parallel.zero3_max_live))
        .labelled("field-zero-3-max-live-parameters-elements-0-auto"),
    row("z3rd", "parallel.zero3_max_reuse", "zero3-max-reuse",
        "DeepSpeed stage3_max_reuse_distance, elements (auto: 1e9)",
        deepspeed_zero3, optional_count!(1, MAX_TOTAL_PARAMS, parallel.zero3_max_reuse))
        .labelled("field-zero-3-max-reuse-distance-elements-0-auto"),
    row("gpu", "gpu.name", "gpu", "The GPU to fit on (e.g. a100-sxm4-40gb, \"RTX 4090\")",
        always, Kind::GpuName)
        .labelled("field-gpu")
        .for_embeds(),
    row("mem", "gpu.memory_bytes", "gpu-memory",
        "Capacity of a GPU not in the catalog, or to override it (24GiB, 80GB, bytes)",
        always, Kind::Memory {
            get: |sc| sc.gpu.memory_bytes,
            set: |sc, b| sc.gpu.memory_bytes = b,
        })
        .labelled("field-custom-capacity-gib-or-gb-0-card-s"),
    row("mns", "inference.max_num_seqs", "max-num-seqs",
        "vLLM --max-num-seqs, SGLang --max-running-requests: sequences at once (auto: the engine's default for the card)",
        pool_engine, optional_count!(1, MAX_COUNT, inference.max_num_seqs))
        .labelled("field-max-num-seqs-0-default"),
    row("mnbt", "inference.max_num_batched_tokens", "max-num-batched-tokens",
        "vLLM --max-num-batched-tokens: tokens per scheduler step (auto: vLLM's default for the card)",
        vllm, optional_count!(1, MAX_TOKENS, inference.max_num_batched_tokens))
        .labelled("field-max-num-batched-tokens-0-default"),
    row("pfx", "inference.shared_prefix_tokens", "shared-prefix-tokens",
        "Prompt tokens all requests share (system prompt), stored once by vLLM's prefix caching or SGLang's radix cache",
        pool_engine, count!(0, MAX_TOKENS, inference.shared_prefix_tokens))
        .labelled("field-shared-prefix-tokens"),
    row("ngl", "inference.gpu_layers", "gpu-layers",
        "llama.cpp -ngl: layers on the GPU, more than the model's also offloads the output (auto: all)",
        llama_cpp, optional_count!(0, MAX_COUNT, inference.gpu_layers))
        .labelled("field-gpu-layers-ngl-0-all"),
    row("olast", "inference.output_layer_last", "output-layer-last",
        "llama.cpp before Dec 2025 and Ollama: -ngl counts repeating layers, the output layer last",
        llama_cpp, flag!(inference.output_layer_last))
        .labelled("field-output-layer-last"),
    row("ncmoe", "inference.cpu_moe_layers", "n-cpu-moe",
        "llama.cpp --n-cpu-moe: the routed experts of the first N layers stay in host memory",
        llama_cpp, count!(0, MAX_COUNT, inference.cpu_moe_layers))
        .labelled("field-experts-on-cpu-n-cpu-moe"),
    row("fa", "inference.flash_attn", "flash-attn", "llama.cpp -fa: flash attention",
        llama_cpp, flag!(inference.flash_attn))
        .labelled("field-flash-attention"),
    row("ctk", "inference.cache_type", "cache-type",
        "llama.cpp -ctk/-ctv: KV cache type",
        llama_cpp, Kind::Choice(choice!(CacheType, inference.cache_type)))
        .labelled("field-kv-cache-type-ctk-ctv"),
    row("ub", "inference.ubatch", "ubatch", "llama.cpp -ub: tokens per compute step",
        llama_cpp, count!(1, MAX_TOKENS, inference.ubatch))
        .labelled("field-ubatch-ub"),
    row("osr", "gpu.os_reserved_bytes", "os-reserved",
        "Unified memory: what the OS and desktop keep (auto: the device's default share)",
        unified_gpu, Kind::Memory {
            get: |sc| sc.gpu.os_reserved_bytes,
            set: |sc, b| sc.gpu.os_reserved_bytes = b,
        })
        .labelled("field-os-and-desktop-keep-gib-0-default"),
    row("imgw", "image_width", "image-width",
        "Width of each image in pixels (VLMs; auto: the model's image size)",
        with_images, optional_count!(1, MAX_IMAGE_SIZE, image_width))
        .with_preset(image_size_preset)
        .labelled("field-image-width"),
    row("imgh", "image_height", "image-height",
        "Height of each image in pixels (VLMs; auto: the width)",
        with_images, optional_count!(1, MAX_IMAGE_SIZE, image_height))
        .with_preset(image_size_preset)
        .labelled("field-image-height"),
    row("vfr", "video_frames", "video-frames",
        "Frames of one video per training sample or prompt, at the image size (Qwen-VL family; auto: no video)",
        video_model, optional_count!(1, crate::video_tokens::MAX_FRAMES, video_frames))
        .labelled("field-video-frames-0-none"),
    row("vfps", "video_fps", "video-fps",
        "The video's own frame rate, which Qwen3-VL samples at 2 fps from (auto: 24)",
        video_model, optional_count!(1, 1000, video_fps))
        .labelled("field-video-fps-0-unknown"),
    row("qk", "inference.quant_kernel", "quant-kernel",
        "GPTQ/AWQ kernel and its scratch buffer: exllama (v1), exllama_v2, marlin, none (auto: exllama for GPTQ, as transformers' GPTQConfig; none for AWQ)",
        gptq_awq_generate, Kind::Choice(choice!(QuantKernel, inference.quant_kernel)))
        .labelled("field-gptq-awq-kernel"),
    row("clen", "inference.cache_len", "cache-len",
        "Tokens per sequence a static cache is allocated for (max_cache_len, gpt-fast --cache_size; auto: prompt + new tokens)",
        static_cache, optional_count!(1, MAX_TOKENS, inference.cache_len))
        .labelled("field-static-cache-length-tokens-0-prompt-new"),
    row("mfs", "inference.mem_fraction_static", "mem-fraction-static",
        "SGLang --mem-fraction-static: the share of the free memory its weights and KV pool take (auto: SGLang's default for the card and tp)",
        sglang, Kind::OptionalFraction {
            range: Fraction::AboveZeroToOne,
            get: |sc| sc.inference.mem_fraction_static,
            set: |sc, f| sc.inference.mem_fraction_static = f,
        })
        .labelled("field-mem-fraction-static-0-sglang-s-default"),
    row("cps", "inference.chunked_prefill_size", "chunked-prefill-size",
        "SGLang --chunked-prefill-size: prompt tokens per prefill chunk, which sets the default mem_fraction_static (auto: SGLang's default for the card)",
        sglang, optional_count!(1, MAX_TOKENS, inference.chunked_prefill_size))
        .labelled("field-chunked-prefill-size-0-sglang-s-default"),
    row("mk", "training.mixer_kernels", "mixer-kernels",
        "Recurrent mixers (Mamba, Gated DeltaNet, short convolutions) in training: fused kernels (mamba_ssm, causal_conv1d, flash-linear-attention installed) or transformers' PyTorch fallback",
        recurrent_training, Kind::Choice(choice!(MixerKernels, training.mixer_kernels)))
        .labelled("field-recurrent-mixer-kernels"),
    row("kp", "training.kbit_prep", "kbit-prep",
        "QLoRA casts before training: auto (TRL's for the HF Trainer), none, fp32 (PEFT prepare_model_for_kbit_training) or trl (fp32 norms, 16-bit embeddings and head)",
        qlora, Kind::Choice(choice!(KbitPrep, training.kbit_prep)))
        .labelled("field-kbit-prep"),
    row("imix", "image_mix", "image-mix",
        "Images of different sizes in one batch, comma-separated (4032x3024,336x336 or phone,page): image i of the batch takes size i mod the list's length (auto: every image at the image size)",
        with_images, Kind::ImageMix)
        .labelled("field-image-mix"),
];

/// The field whose link key is `key`.
pub fn by_key(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}
