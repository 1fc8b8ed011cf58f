//! The inputs of one estimate: model, task, precision, parallelism, GPU.
//!
//! Serialized as JSON for `vramfit estimate --scenario FILE`; every field but
//! the model has a default so a scenario file only says what differs.
//! `fields` describes each field once (link key, range, CLI flag, when it
//! applies), `limits` holds every numeric limit, `rules` what makes a
//! scenario valid.

pub mod checkpoint;
pub mod choice;
pub mod fields;
pub mod limits;
mod rules;

use serde::{Deserialize, Serialize};

use crate::model::ModelSpec;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};

pub use choice::Choice;

/// Where the model comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelSource {
    /// A catalog entry by id (`meta-llama/Llama-2-7b-hf`) or short name.
    Catalog(String),
    /// Architecture fields given directly.
    Spec(Box<ModelSpec>),
    /// A bare parameter count: the last resort, marked approximate.
    Params(u64),
}

impl Default for ModelSource {
    fn default() -> Self {
        ModelSource::Catalog("meta-llama/Llama-3.1-8B".into())
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Training,
    #[default]
    Inference,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    #[default]
    Full,
    Lora,
    /// LoRA over 4-bit (or 8-bit) quantized frozen weights.
    Qlora,
    /// LLaMA-Adapter: prompt tokens and gates, all base weights frozen.
    Adapter,
    /// LLaMA-Adapter v2: adapter plus trainable biases and norm scales.
    AdapterV2,
    /// Forward and backward with no optimizer (activation benchmarks).
    ForwardBackward,
}

/// Linear layers LoRA can adapt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoraTarget {
    Q,
    K,
    V,
    O,
    Gate,
    Up,
    Down,
    /// The output head.
    Head,
}

impl LoraTarget {
    pub const ATTENTION: [LoraTarget; 4] =
        [LoraTarget::Q, LoraTarget::K, LoraTarget::V, LoraTarget::O];
    pub const MLP: [LoraTarget; 3] = [LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down];

    /// Parses `q`, `k_proj`, `mlp` (gate+up+down), `all` ...; several may come back.
    pub fn parse(s: &str) -> Option<Vec<LoraTarget>> {
        let s = s.trim().to_ascii_lowercase();
        let s = s.strip_suffix("_proj").unwrap_or(&s);
        Some(match s {
            "q" => vec![LoraTarget::Q],
            "k" => vec![LoraTarget::K],
            "v" => vec![LoraTarget::V],
            "o" => vec![LoraTarget::O],
            "gate" | "w1" => vec![LoraTarget::Gate],
            "up" | "w3" => vec![LoraTarget::Up],
            "down" | "w2" => vec![LoraTarget::Down],
            "head" | "lm_head" => vec![LoraTarget::Head],
            "mlp" => LoraTarget::MLP.to_vec(),
            "attn" | "attention" => LoraTarget::ATTENTION.to_vec(),
            "all" | "all-linear" | "all_linear" => {
                let mut v = LoraTarget::ATTENTION.to_vec();
                v.extend(LoraTarget::MLP);
                v
            }
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lora {
    pub rank: u64,
    pub targets: Vec<LoraTarget>,
    /// LoRA dropout probability (> 0 keeps a dropped copy of each adapted input).
    #[serde(default)]
    pub dropout: f64,
}

impl Default for Lora {
    fn default() -> Self {
        Lora {
            rank: 8,
            targets: vec![LoraTarget::Q, LoraTarget::V],
            dropout: 0.05,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    Sgd,
    SgdMomentum,
    Adam,
    #[default]
    Adamw,
    /// bitsandbytes 8-bit AdamW (block-wise quantized states).
    Adamw8bit,
    /// bitsandbytes paged AdamW: 32-bit states in unified (managed) memory.
    PagedAdamw,
    /// bitsandbytes paged AdamW with 8-bit states.
    PagedAdamw8bit,
    /// HF Adafactor: factored second moment, no first moment.
    Adafactor,
    Lion,
    /// No optimizer (forward/backward only).
    None,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Checkpointing {
    #[default]
    Off,
    /// Keep only each layer's input; recompute the layer in backward.
    Full,
    /// Recompute the attention core only (Megatron "selective").
    Selective,
    /// Per-op selective checkpointing (torchtitan's `SelectiveAC`): keep
    /// the matmul and attention outputs, except every second `mm`, and
    /// recompute the rest (`activations/op_sac.rs`).
    Op,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attention {
    /// Materializes the L×L score matrix.
    Eager,
    /// torch scaled_dot_product_attention (flash / memory-efficient kernels).
    #[default]
    Sdpa,
    /// FlashAttention-2/3.
    Flash,
}

/// The training framework: decides what it keeps alive (loss implementation,
/// which linears it quantizes, LoRA dropout defaults).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framework {
    /// Hugging Face transformers / PEFT / TRL with a PyTorch 2.x training loop.
    #[default]
    Transformers,
    /// Hugging Face Trainer as measured in the transformers performance docs
    /// (PyTorch 1.x stack): `zero_grad()` kept gradient tensors allocated
    /// (set_to_none=False was the default before PyTorch 2.0) and transformers'
    /// own AdamW stepped parameter by parameter.
    HfTrainer,
    Litgpt,
    Torchtune,
    Deepspeed,
}

impl Framework {
    /// Hugging Face's stack (transformers, its Trainer, PEFT; DeepSpeed
    /// runs under it): PEFT's adapters and hooks, transformers' loss.
    pub fn is_hugging_face(self) -> bool {
        matches!(
            self,
            Framework::Transformers | Framework::HfTrainer | Framework::Deepspeed
        )
    }
}

/// What runs the recurrent token mixers of hybrid and state-space models
/// (Mamba, Mamba-2, Gated DeltaNet, short convolutions) in training.
/// transformers picks the fused kernel whenever its package imports
/// (`use_kernel_func_from_hub_with_fallback`: mamba_ssm and causal_conv1d
/// for the Mamba mixers and LFM2's convolution, flash-linear-attention for
/// Gated DeltaNet) and its PyTorch reference code otherwise (and on a CPU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MixerKernels {
    /// The kernels' autograd functions (`MambaInnerFn`,
    /// `MambaSplitConv1dScanCombinedFn`, `ChunkGatedDeltaRuleFunction`,
    /// `CausalConv1dFn`). The default: anyone training these models on a
    /// CUDA GPU installs the packages (transformers warns that the fallback
    /// is "much slower", and its sequential Mamba scan keeps a state per
    /// token), and a link made before this field existed meant this.
    #[default]
    Fused,
    /// transformers' PyTorch reference code (no kernel package installed).
    Torch,
}

/// How a bitsandbytes 4-bit (QLoRA) model's unquantized parameters are cast
/// before training. Measured on an H100 with each recipe (tests/data/qlora).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KbitPrep {
    /// What the framework does: TRL's order for the HF Trainer (TRL's
    /// SFTTrainer, which axolotl and most QLoRA scripts run), none
    /// otherwise and for sharded (FSDP/ZeRO-3) QLoRA, which TRL leaves
    /// as loaded. Links made before the field existed meant this.
    #[default]
    Auto,
    /// Left as loaded: 16-bit embeddings, norms and head.
    None,
    /// PEFT `prepare_model_for_kbit_training`: every parameter that is not
    /// 4-bit cast to fp32, the forward under autocast.
    Fp32,
    /// TRL `prepare_peft_model`: prepare as above, then
    /// `peft_module_casting_to_bf16` puts embeddings and head back in 16-bit
    /// (the norms stay fp32), the forward under autocast.
    Trl,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Training {
    pub framework: Framework,
    pub method: Method,
    pub lora: Lora,
    pub optimizer: Optimizer,
    /// dtype of optimizer states; `None` follows the weights (pure 16-bit
    /// keeps states in 16-bit, AMP and fp32 in fp32).
    pub optimizer_state_dtype: Option<Dtype>,
    /// Optimizer step fused into backward (no full gradient buffer).
    pub optimizer_in_backward: bool,
    /// torch's fused Adam/AdamW/SGD (`fused=True`, HF `adamw_torch_fused`):
    /// one kernel updates each tensor in place, without the full-size
    /// temporary of the default foreach step.
    pub fused_optimizer: bool,
    pub micro_batch: u64,
    pub grad_accum: u64,
    pub seq_len: u64,
    /// Decoder (target) tokens of an encoder-decoder model (T5); `None`:
    /// as many as `seq_len`. Decoder-only models ignore it.
    pub target_len: Option<u64>,
    pub checkpointing: Checkpointing,
    /// Loss computed in chunks, never materializing full fp32 logits.
    pub chunked_loss: bool,
    /// Saved activations moved to CPU memory between forward and backward.
    pub activation_offload: bool,
    /// The model runs under `torch.compile` (inductor): AOTAutograd's
    /// min-cut partitioner decides what the forward saves for backward.
    pub compile: bool,
    /// Fused kernels or PyTorch code for recurrent mixers (hybrid models).
    pub mixer_kernels: MixerKernels,
    /// The casts a 4-bit (QLoRA) model gets before training.
    pub kbit_prep: KbitPrep,
    /// Vision tower frozen (VLMs).
    pub freeze_vision: bool,
    /// Images per sample and their side in pixels (VLMs); 0 images = text only.
    pub images_per_sample: u64,
    pub image_size: Option<u64>,
    /// Trainer-reported trainable parameters, when known (overrides the method's count).
    pub trainable_params: Option<u64>,
}

impl Default for Training {
    fn default() -> Self {
        Training {
            framework: Framework::Transformers,
            method: Method::Full,
            lora: Lora::default(),
            optimizer: Optimizer::Adamw,
            optimizer_state_dtype: None,
            optimizer_in_backward: false,
            fused_optimizer: false,
            micro_batch: 1,
            grad_accum: 1,
            seq_len: 2048,
            target_len: None,
            checkpointing: Checkpointing::Off,
            chunked_loss: false,
            activation_offload: false,
            compile: false,
            mixer_kernels: MixerKernels::Fused,
            kbit_prep: KbitPrep::Auto,
            freeze_vision: false,
            images_per_sample: 0,
            image_size: None,
            trainable_params: None,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// Hugging Face transformers `generate` (dynamic KV cache).
    #[default]
    Transformers,
    /// litgpt `generate` (KV cache preallocated for prompt + new tokens).
    Litgpt,
    /// vLLM: preallocates `gpu_memory_utilization` of the card; KV cache fills the rest.
    Vllm,
    /// llama.cpp: GGUF weights, KV cache for the full context.
    LlamaCpp,
    /// SGLang: weights and KV pool take `mem_fraction_static` of the free
    /// memory; activations and CUDA graphs live in the rest.
    Sglang,
}

impl Engine {
    /// A serving engine that sizes a KV pool from the card it runs on
    /// (vLLM, SGLang): its verdict is the pool's.
    pub fn sizes_pool(self) -> bool {
        matches!(self, Engine::Vllm | Engine::Sglang)
    }
}

/// llama.cpp's KV-cache types (`-ctk`/`-ctv`), by GGML block layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheType {
    #[default]
    F16,
    Q8_0,
    Q4_0,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Inference {
    pub batch: u64,
    pub prompt_len: u64,
    pub new_tokens: u64,
    /// `None` follows the compute dtype.
    pub kv_cache_dtype: Option<Dtype>,
    pub engine: Engine,
    /// vLLM's share of the card it may use (0 < u ≤ 1).
    pub gpu_memory_utilization: f64,
    /// vLLM's `--max-num-seqs`: sequences scheduled at once, and the rows
    /// its profile run samples (`None`: vLLM's default for the card).
    pub max_num_seqs: Option<u64>,
    /// vLLM's `--max-num-batched-tokens`: the tokens of one scheduler step
    /// (chunked prefill splits longer prompts); its profile run forwards
    /// this many (`None`: vLLM's default for the card).
    pub max_num_batched_tokens: Option<u64>,
    /// Prompt tokens every request shares (a system prompt): with vLLM's
    /// prefix caching their full blocks are stored once for all sequences.
    pub shared_prefix_tokens: u64,
    /// llama.cpp `-ngl`: layers on the GPUs; more than the model's layers
    /// also offloads the output layer (`None`: all of them, `-ngl 999`).
    pub gpu_layers: Option<u64>,
    /// The layer order of llama.cpp builds before PR #18148 (December 2025)
    /// and of Ollama's vendored runner: `-ngl N` counts the last N repeating
    /// layers and the output layer goes to the GPU last. Off: today's
    /// llama.cpp, which moves the output layer first.
    #[serde(default)]
    pub output_layer_last: bool,
    /// llama.cpp `--n-cpu-moe`: the routed experts of the first N layers
    /// stay in host memory.
    pub cpu_moe_layers: u64,
    /// llama.cpp `-fa` (on by default on CUDA since `-fa auto`).
    pub flash_attn: bool,
    /// llama.cpp `-ctk`/`-ctv`.
    pub cache_type: CacheType,
    /// llama.cpp `-ub`: tokens per compute step (its buffers scale with it).
    pub ubatch: u64,
    /// Images per prompt (VLMs).
    pub images_per_prompt: u64,
    /// transformers' `cache_implementation="static"`: the KV cache for
    /// prompt + new tokens is allocated before the prefill and never grows.
    pub static_cache: bool,
    /// Tokens per sequence of a static cache allocated up front, when it is
    /// longer than prompt + new tokens: transformers' `max_cache_len`,
    /// gpt-fast's `--cache_size`, AutoAWQ's fused `max_seq_len` (`None`:
    /// prompt + new tokens).
    #[serde(default)]
    pub cache_len: Option<u64>,
    /// transformers before v4.36 (December 2023) passed `past_key_values` as
    /// tuples: each decode step builds the whole new cache by torch.cat
    /// while the old one is still referenced.
    pub tuple_cache: bool,
    /// SGLang's `--mem-fraction-static` (0 < f ≤ 1): the share of the free
    /// memory its weights and KV pool take (`None`: SGLang's default for
    /// the card and tensor parallelism).
    #[serde(default)]
    pub mem_fraction_static: Option<f64>,
    /// SGLang's `--chunked-prefill-size`: prompt tokens per prefill chunk,
    /// which sets SGLang's default `mem_fraction_static` (`None`: SGLang's
    /// default for the card).
    #[serde(default)]
    pub chunked_prefill_size: Option<u64>,
    /// The GPTQ/AWQ matmul kernel transformers runs, for its scratch buffers.
    #[serde(default)]
    pub quant_kernel: QuantKernel,
}

/// The kernel behind a GPTQ or AWQ linear in transformers (optimum,
/// auto-gptq / gptqmodel, AutoAWQ): each keeps its own scratch on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuantKernel {
    /// GPTQ: exllama (transformers' `GPTQConfig` default `exllama_config
    /// = {"version": 1}`); AWQ: AutoAWQ's GEMM, without scratch.
    #[default]
    Auto,
    /// A kernel without a scratch buffer (cuda-old, triton, AWQ GEMM/GEMV).
    None,
    Exllama,
    ExllamaV2,
    Marlin,
}

impl Default for Inference {
    fn default() -> Self {
        Inference {
            batch: 1,
            prompt_len: 512,
            new_tokens: 256,
            kv_cache_dtype: None,
            engine: Engine::Transformers,
            gpu_memory_utilization: 0.9,
            max_num_seqs: None,
            max_num_batched_tokens: None,
            shared_prefix_tokens: 0,
            gpu_layers: None,
            output_layer_last: false,
            cpu_moe_layers: 0,
            flash_attn: true,
            cache_type: CacheType::F16,
            ubatch: 512,
            images_per_prompt: 0,
            static_cache: false,
            cache_len: None,
            tuple_cache: false,
            mem_fraction_static: None,
            chunked_prefill_size: None,
            quant_kernel: QuantKernel::Auto,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// One GPU, or each GPU holds a full replica (inference).
    #[default]
    None,
    Ddp,
    Zero1,
    Zero2,
    Zero3,
    /// PyTorch FSDP full shard (= ZeRO-3 layout).
    Fsdp,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Offload {
    #[default]
    None,
    Optimizer,
    OptimizerParams,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Parallel {
    pub gpus: u64,
    pub strategy: Strategy,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Pipeline-parallel degree.
    pub pp: u64,
    /// Sequence parallelism (shards norm/dropout activations across TP ranks).
    pub sequence_parallel: bool,
    pub offload: Offload,
    /// DeepSpeed ZeRO-3's `stage3_prefetch_bucket_size` (elements); `None`:
    /// "auto" (0.9·h² under the Trainer or accelerate, else 5e7).
    #[serde(default)]
    pub zero3_prefetch_bucket: Option<u64>,
    /// `stage3_param_persistence_threshold` (elements); `None`: "auto"
    /// (10·h under the Trainer or accelerate, else 1e5).
    #[serde(default)]
    pub zero3_persistence_threshold: Option<u64>,
    /// `stage3_max_live_parameters` (elements); `None`: 1e9.
    #[serde(default)]
    pub zero3_max_live: Option<u64>,
    /// `stage3_max_reuse_distance` (elements); `None`: 1e9.
    #[serde(default)]
    pub zero3_max_reuse: Option<u64>,
}

impl Default for Parallel {
    fn default() -> Self {
        Parallel {
            gpus: 1,
            strategy: Strategy::None,
            tp: 1,
            pp: 1,
            sequence_parallel: false,
            offload: Offload::None,
            zero3_prefetch_bucket: None,
            zero3_persistence_threshold: None,
            zero3_max_live: None,
            zero3_max_reuse: None,
        }
    }
}

/// Which GPU the estimate targets (for fit, headroom, context and library overheads).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GpuChoice {
    /// Catalog id (`h100-sxm-80gb`) or a name NVML prints (`NVIDIA A100-SXM4-40GB`).
    pub name: Option<String>,
    /// Capacity in bytes when not from the catalog (or to override it).
    pub memory_bytes: Option<u64>,
    /// Unified memory: what the OS and desktop keep (`None`: the device's
    /// default share, e.g. macOS's GPU wired limit).
    #[serde(default)]
    pub os_reserved_bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scenario {
    pub model: ModelSource,
    pub task: TaskKind,
    pub weights: WeightFormat,
    /// bitsandbytes double quantization (NF4/FP4).
    pub double_quant: bool,
    /// GPTQ/AWQ group size.
    pub group_size: u64,
    /// 16-bit type used for compute and for unquantized tensors.
    pub compute_dtype: Dtype,
    pub training_precision: TrainingPrecision,
    pub attention: Attention,
    pub training: Training,
    pub inference: Inference,
    pub parallel: Parallel,
    pub gpu: GpuChoice,
    /// `torch.cuda.empty_cache()` after loading, or weights created on the
    /// GPU from a config: no loading temporaries stay cached.
    pub empty_cache_after_load: bool,
    /// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` (torchtitan's
    /// `run_train.sh` sets it): the caching allocator grows one segment per
    /// stream by mapping pages instead of caching fixed-size segments, so
    /// freed blocks below the top are the only memory it keeps unused.
    pub expandable_segments: bool,
    /// NF4 weights quantized on the GPU by torchao before 0.2 (torchtune
    /// pinned torchao 0.1 until June 2024), whose quantizer compares every
    /// element with all 16 NF4 codes at once: tens of bytes of working
    /// memory per element while loading, which the allocator keeps cached.
    pub unchunked_nf4_quantizer: bool,
    /// Width of each image in pixels (VLMs; training and inference, one
    /// size for all images); `None`: the model's own image size
    /// (`training.image_size` when set). Presets: [`IMAGE_PRESETS`].
    pub image_width: Option<u64>,
    /// Height of each image in pixels; `None`: the width (a square).
    pub image_height: Option<u64>,
    /// Frames of one video per training sample or prompt, at the image
    /// size (Qwen-VL family); `None`: no video.
    #[serde(default)]
    pub video_frames: Option<u64>,
    /// The video's own frame rate, which Qwen3-VL samples from (`None`:
    /// its processor's 24 when unknown).
    #[serde(default)]
    pub video_fps: Option<u64>,
    /// Images of different sizes in one batch (VLMs): image `i` of the
    /// micro-batch (training) or of the batch of prompts (inference) is
    /// `image_mix[i % len]` (width, height), sample `s` holding images
    /// `s·k … s·k + k − 1` for `k` images per sample. Empty: every image is
    /// `image_width` × `image_height`.
    #[serde(default)]
    pub image_mix: Vec<(u64, u64)>,
}

/// Named image sizes the link and CLI accept for `image_width` /
/// `image_height` (either sets both): (name, width, height).
pub const IMAGE_PRESETS: [(&str, u64, u64); 5] = [
    ("720p", 1280, 720),
    ("1080p", 1920, 1080),
    ("4k", 3840, 2160),
    // A 12 MP phone photo (4:3).
    ("phone", 4032, 3024),
    // A letter page scanned at 200 dpi.
    ("page", 1700, 2200),
];

/// A preset name or `WxH` as (width, height); `None` for anything else.
pub fn image_preset(text: &str) -> Option<(u64, u64)> {
    let t = text.trim().to_ascii_lowercase();
    if let Some(&(_, w, h)) = IMAGE_PRESETS.iter().find(|(name, _, _)| *name == t) {
        return Some((w, h));
    }
    let (w, h) = t.split_once(['x', '×'])?;
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

/// Most sizes `image_mix` lists: one batch's worth of distinct images.
pub const MAX_IMAGE_MIX: usize = 64;

/// `image_mix` as text: comma-separated sizes, each a preset, `WxH` or a
/// side in pixels (a square); `""` for none. The message names the item
/// that is wrong and what is allowed.
pub fn parse_image_mix(text: &str) -> std::result::Result<Vec<(u64, u64)>, String> {
    let mut sizes = Vec::new();
    for item in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        let size = image_preset(item).or_else(|| item.parse().ok().map(|s| (s, s)));
        match size {
            Some((w, h)) if image_mix_size_ok((w, h)) && sizes.len() < MAX_IMAGE_MIX => {
                sizes.push((w, h))
            }
            _ => return Err(format!("\"{item}\": {IMAGE_MIX_ALLOWED}")),
        }
    }
    Ok(sizes)
}

/// What `image_mix` accepts, for messages and help.
pub const IMAGE_MIX_ALLOWED: &str = "up to 64 comma-separated sizes, each WxH (4032x3024), a side (336) or a preset (720p, 1080p, 4k, phone, page), 1 to 65536 px a side";

/// Whether a listed size is within 1 to `MAX_IMAGE_SIZE` pixels a side.
pub fn image_mix_size_ok((w, h): (u64, u64)) -> bool {
    let range = 1..=limits::MAX_IMAGE_SIZE;
    range.contains(&w) && range.contains(&h)
}

/// `image_mix` as its link text (`4032x3024,336x336`).
pub fn image_mix_text(mix: &[(u64, u64)]) -> String {
    let sizes: Vec<String> = mix.iter().map(|(w, h)| format!("{w}x{h}")).collect();
    sizes.join(",")
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            model: ModelSource::default(),
            task: TaskKind::Inference,
            weights: WeightFormat::Bf16,
            double_quant: false,
            group_size: 128,
            compute_dtype: Dtype::Bf16,
            training_precision: TrainingPrecision::Pure16,
            attention: Attention::Sdpa,
            training: Training::default(),
            inference: Inference::default(),
            parallel: Parallel::default(),
            gpu: GpuChoice::default(),
            empty_cache_after_load: false,
            expandable_segments: false,
            unchunked_nf4_quantizer: false,
            image_width: None,
            image_height: None,
            video_frames: None,
            video_fps: None,
            image_mix: Vec::new(),
        }
    }
}

impl Scenario {
    /// Images per sample (training) or per prompt (inference).
    pub fn images(&self) -> u64 {
        match self.task {
            TaskKind::Training => self.training.images_per_sample,
            TaskKind::Inference => self.inference.images_per_prompt,
        }
    }

    /// Parses a scenario file, naming the field of any error
    /// (`training.micro_batch: invalid type: string "4", expected u64`).
    pub fn from_json(text: &str) -> crate::error::Result<Scenario> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." || path.is_empty() {
                "scenario".to_string()
            } else {
                path
            };
            crate::error::InputError::new(field, e.into_inner().to_string())
        })
    }
}
