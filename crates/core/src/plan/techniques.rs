//! The memory-saving changes of `data/techniques.json`: their documented
//! costs (data) and how each one rewrites a scenario (code, keyed by id).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::gpu::{Generation, GpuSpec};
use crate::model::ModelSpec;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::limits::MAX_GRAD_ACCUM;
use crate::scenario::{
    Attention, CacheType, Checkpointing, Engine, Method, Offload, Optimizer, Scenario, Strategy,
    TaskKind,
};

/// Every change the planner knows. The JSON names them in snake_case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TechniqueId {
    SmallerMicroBatch,
    GradientCheckpointing,
    HalfPrecision,
    MixedPrecision,
    FlashAttention,
    #[serde(rename = "adamw_8bit")]
    Adamw8bit,
    #[serde(rename = "paged_adamw_8bit")]
    PagedAdamw8bit,
    FusedOptimizer,
    Adafactor,
    Lora,
    #[serde(rename = "quantize_8bit")]
    Quantize8bit,
    #[serde(rename = "quantize_4bit")]
    Quantize4bit,
    FreezeVision,
    ShorterSequence,
    ShorterGeneration,
    SmallerBatch,
    DynamicCache,
    ExpandableSegments,
    #[serde(rename = "kv_cache_8bit")]
    KvCache8bit,
    ChunkedLoss,
    TensorParallel,
    Zero1,
    Zero2,
    Zero3,
    OffloadOptimizer,
    OffloadOptimizerParams,
    MoreGpus,
    CpuOffload,
    RaiseWiredLimit,
    FewerImagePixels,
    FewerVideoFrames,
}

impl TechniqueId {
    /// Every id, for checks that the data covers the code and back.
    pub const ALL: [TechniqueId; 31] = [
        TechniqueId::SmallerMicroBatch,
        TechniqueId::GradientCheckpointing,
        TechniqueId::HalfPrecision,
        TechniqueId::MixedPrecision,
        TechniqueId::FlashAttention,
        TechniqueId::Adamw8bit,
        TechniqueId::PagedAdamw8bit,
        TechniqueId::FusedOptimizer,
        TechniqueId::Adafactor,
        TechniqueId::Lora,
        TechniqueId::Quantize8bit,
        TechniqueId::Quantize4bit,
        TechniqueId::FreezeVision,
        TechniqueId::ShorterSequence,
        TechniqueId::ShorterGeneration,
        TechniqueId::SmallerBatch,
        TechniqueId::DynamicCache,
        TechniqueId::ExpandableSegments,
        TechniqueId::KvCache8bit,
        TechniqueId::Zero1,
        TechniqueId::Zero2,
        TechniqueId::Zero3,
        TechniqueId::OffloadOptimizer,
        TechniqueId::OffloadOptimizerParams,
        TechniqueId::MoreGpus,
        TechniqueId::ChunkedLoss,
        TechniqueId::TensorParallel,
        TechniqueId::CpuOffload,
        TechniqueId::RaiseWiredLimit,
        TechniqueId::FewerImagePixels,
        TechniqueId::FewerVideoFrames,
    ];
}

/// English and Chinese text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

/// Which task a technique applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    Training,
    Inference,
    Both,
}

/// One entry of `data/techniques.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Technique {
    pub id: TechniqueId,
    pub task: Applies,
    /// At most one technique of a group per plan (optimizers, ZeRO stages, ...).
    pub group: Option<String>,
    /// May apply several times (each halving, each doubling).
    pub repeatable: bool,
    /// Kept in the search even when it saves nothing by itself (more GPUs as
    /// plain replicas enable ZeRO sharding).
    pub enabler: bool,
    pub name: Text,
    pub change: Text,
    /// Step-time multiplier (≥ 1).
    pub speed_factor: f64,
    pub speed_cost: Text,
    /// Documented accuracy loss, percentage points.
    pub quality_risk_pct: f64,
    pub quality_risk: Text,
    /// vramfit's ranking points for changing the workload itself.
    pub penalty: f64,
    /// Not in the web build (it does not show it): see `build.rs`.
    #[serde(default)]
    pub penalty_reason: Option<String>,
    /// Not in the web build (it does not show it): see `build.rs`.
    #[serde(default)]
    pub memory_effect: String,
    pub sources: Vec<String>,
}

#[derive(Deserialize)]
struct TechniquesFile {
    techniques: Vec<Technique>,
}

const TECHNIQUES_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/techniques.json"));

/// Parses a techniques file in the format of `data/techniques.json`.
pub fn parse_techniques(json: &str) -> Result<Vec<Technique>, serde_json::Error> {
    serde_json::from_str::<TechniquesFile>(json).map(|f| f.techniques)
}

/// The shipped techniques, parsed once (empty if the embedded JSON were
/// broken; `tests/plan.rs` guards against that).
pub fn techniques() -> &'static [Technique] {
    static ALL: OnceLock<Vec<Technique>> = OnceLock::new();
    ALL.get_or_init(|| parse_techniques(TECHNIQUES_JSON).unwrap_or_default())
}

/// Shortest training sequence the planner halves to: below 256 tokens most
/// text tasks lose their context (vramfit's floor, not a documented figure).
const MIN_SEQ_LEN: u64 = 256;
/// Shortest prompt the planner halves to when serving (same reasoning).
const MIN_PROMPT_LEN: u64 = 256;
/// Fewest new tokens the planner halves to: 000's case cut 512 → 128–200.
const MIN_NEW_TOKENS: u64 = 64;

/// What the search knows besides the scenario.
pub struct Context<'a> {
    pub spec: &'a ModelSpec,
    pub gpu: Option<&'a GpuSpec>,
    pub max_gpus: u64,
}

/// bf16 where the GPU has it (or is unknown), fp16 otherwise (T4, V100).
fn sixteen_bit(ctx: &Context) -> (WeightFormat, Dtype) {
    match ctx.gpu {
        Some(g) if !g.bf16 => (WeightFormat::Fp16, Dtype::Fp16),
        _ => (WeightFormat::Bf16, Dtype::Bf16),
    }
}

fn smallest_prime_factor(n: u64) -> u64 {
    (2..)
        .take_while(|p| p * p <= n)
        .find(|p| n.is_multiple_of(*p))
        .unwrap_or(n)
}

fn zero_stage(s: Strategy) -> u8 {
    match s {
        Strategy::None | Strategy::Ddp => 0,
        Strategy::Zero1 => 1,
        Strategy::Zero2 => 2,
        Strategy::Zero3 | Strategy::Fsdp => 3,
    }
}

fn is_four_bit(w: WeightFormat) -> bool {
    matches!(
        w,
        WeightFormat::Nf4
            | WeightFormat::Fp4
            | WeightFormat::Gptq4
            | WeightFormat::Awq4
            | WeightFormat::Mxfp4
            | WeightFormat::GgufQ4KM
            | WeightFormat::GgufQ4_0
            | WeightFormat::GgufQ3KM
            | WeightFormat::GgufQ2K
    )
}

/// The scenario after `id`, or `None` where the change makes no sense there.
pub fn apply(id: TechniqueId, sc: &Scenario, ctx: &Context) -> Option<Scenario> {
    use TechniqueId as T;
    let training = sc.task == TaskKind::Training;
    let mut s = sc.clone();
    let ok = match id {
        T::SmallerMicroBatch => smaller_micro_batch(&mut s, training),
        T::GradientCheckpointing => {
            let t = &mut s.training;
            let on = training && t.checkpointing != Checkpointing::Full;
            t.checkpointing = Checkpointing::Full;
            on
        }
        T::HalfPrecision => half_precision(&mut s, training, ctx),
        T::MixedPrecision => {
            let fp32 = training && s.training_precision == TrainingPrecision::Fp32;
            s.training_precision = TrainingPrecision::Amp;
            s.compute_dtype = sixteen_bit(ctx).1;
            fp32
        }
        T::FlashAttention => flash_attention(&mut s, ctx),
        T::Adamw8bit => lighter_optimizer(&mut s, training, Optimizer::Adamw8bit),
        T::PagedAdamw8bit => lighter_optimizer(&mut s, training, Optimizer::PagedAdamw8bit),
        T::Adafactor => lighter_optimizer(&mut s, training, Optimizer::Adafactor),
        T::DynamicCache => {
            let old = s.inference.tuple_cache;
            s.inference.tuple_cache = false;
            !training && old && s.inference.engine == Engine::Transformers
        }
        T::ExpandableSegments => {
            let old = s.expandable_segments;
            s.expandable_segments = true;
            !old && s.uses_pytorch_allocator()
        }
        T::FusedOptimizer => fused_optimizer(&mut s, training),
        T::Lora => {
            let full = s.training.method == Method::Full;
            s.training.method = Method::Lora;
            training && full
        }
        T::Quantize8bit => quantize(&mut s, training, false),
        T::Quantize4bit => quantize(&mut s, training, true),
        T::FreezeVision => {
            let t = &mut s.training;
            // Adapters too: a tower LoRA reaches (PEFT's `q_proj`/`v_proj`
            // match CLIP's, `gate_proj`… Qwen2.5-VL's MLPs) saves its
            // activations; targets in the language model only save none.
            let ok = training
                && ctx.spec.vision.is_some()
                && !t.freeze_vision
                && matches!(
                    t.method,
                    Method::Full | Method::ForwardBackward | Method::Lora | Method::Qlora
                );
            t.freeze_vision = true;
            ok
        }
        T::ShorterSequence => shorter_sequence(&mut s, training),
        T::ShorterGeneration => {
            let ok = !training && s.inference.new_tokens >= 2 * MIN_NEW_TOKENS;
            s.inference.new_tokens /= 2;
            ok
        }
        T::SmallerBatch => {
            let ok = !training && s.inference.batch > 1;
            s.inference.batch = s.inference.batch.div_ceil(2);
            ok
        }
        T::KvCache8bit => kv_cache_8bit(&mut s, training),
        T::Zero1 => zero(&mut s, training, 1, Strategy::Zero1),
        T::Zero2 => zero(&mut s, training, 2, Strategy::Zero2),
        T::Zero3 => zero(&mut s, training, 3, Strategy::Zero3),
        T::OffloadOptimizer => offload(&mut s, training, Offload::Optimizer, 2, Strategy::Zero2),
        T::OffloadOptimizerParams => offload(
            &mut s,
            training,
            Offload::OptimizerParams,
            3,
            Strategy::Zero3,
        ),
        T::MoreGpus => more_gpus(&mut s, training, ctx),
        T::ChunkedLoss => {
            let off = training && !s.training.chunked_loss;
            s.training.chunked_loss = true;
            off
        }
        T::TensorParallel => tensor_parallel(&mut s, training, ctx),
        T::CpuOffload => cpu_offload(&mut s, training, ctx),
        T::FewerImagePixels => fewer_image_pixels(&mut s, ctx.spec),
        // Half the video's frames, never fewer than two: the Qwen-VL
        // processors' temporal patch (`temporal_patch_size`).
        T::FewerVideoFrames => match s.video_frames {
            Some(frames) if frames >= 4 => {
                s.video_frames = Some(frames / 2);
                true
            }
            _ => false,
        },
        T::RaiseWiredLimit => {
            // macOS's default share, raised to all but what the OS needs.
            let apple = ctx
                .gpu
                .is_some_and(|g| g.generation == Generation::AppleSilicon);
            let ok = apple && s.gpu.os_reserved_bytes.is_none() && s.gpu.memory_bytes.is_none();
            s.gpu.os_reserved_bytes = Some(OS_KEEPS_ON_MACOS);
            ok
        }
    };
    ok.then_some(s)
}

/// What [`TechniqueId::RaiseWiredLimit`] leaves macOS: 8 GiB, the margin
/// llama.cpp users leave when they raise `iogpu.wired_limit_mb` (source in
/// `data/techniques.json`).
const OS_KEEPS_ON_MACOS: u64 = 8 << 30;

/// llama.cpp: the offload planner's placement (experts, else layers in
/// host memory) where everything does not fit on the GPU.
fn cpu_offload(s: &mut Scenario, training: bool, ctx: &Context) -> bool {
    if training
        || s.inference.engine != Engine::LlamaCpp
        || s.inference.gpu_layers.is_some()
        || s.inference.cpu_moe_layers > 0
    {
        return false;
    }
    match crate::offload::plan_offload(s, ctx.spec) {
        Ok(p)
            if p.placement != crate::offload::Placement::AllOnGpu
                && p.placement != crate::offload::Placement::CpuOnly =>
        {
            s.inference.gpu_layers = p.scenario.inference.gpu_layers;
            s.inference.cpu_moe_layers = p.scenario.inference.cpu_moe_layers;
            true
        }
        _ => false,
    }
}

/// Serving on GPUs already chosen as full copies (tp = pp = 1): split the
/// model across them by tensor parallelism instead.
fn tensor_parallel(s: &mut Scenario, training: bool, ctx: &Context) -> bool {
    let p = &mut s.parallel;
    if training || p.gpus < 2 || p.tp * p.pp != 1 {
        return false;
    }
    match crate::estimate::tensor_parallel_for(p.gpus, ctx.spec.heads) {
        Some(tp) => {
            p.tp = tp;
            true
        }
        None => false,
    }
}

/// Halves the micro-batch by its smallest prime factor, accumulating more
/// micro-batches so the optimizer sees the same batch.
fn smaller_micro_batch(s: &mut Scenario, training: bool) -> bool {
    let t = &mut s.training;
    let p = smallest_prime_factor(t.micro_batch);
    let accum = t.grad_accum.checked_mul(p).filter(|&a| a <= MAX_GRAD_ACCUM);
    match accum {
        Some(a) if training && t.micro_batch > 1 => {
            t.micro_batch /= p;
            t.grad_accum = a;
            true
        }
        _ => false,
    }
}

/// 16-bit weights and compute (bf16 where the GPU has it), no fp32 anywhere.
fn half_precision(s: &mut Scenario, training: bool, ctx: &Context) -> bool {
    let fp32 = s.weights == WeightFormat::Fp32
        || (training && s.training_precision == TrainingPrecision::Fp32);
    let (w, d) = sixteen_bit(ctx);
    if s.weights.plain_dtype().is_some() {
        s.weights = w;
    }
    s.compute_dtype = d;
    s.training_precision = TrainingPrecision::Pure16;
    fp32
}

/// FlashAttention where the GPU runs it (Ampere on), SDPA otherwise; a
/// change only from eager attention to a kernel the model runs.
fn flash_attention(s: &mut Scenario, ctx: &Context) -> bool {
    // The FA3/FA4 builds the families with sinks load run on Hopper on.
    let hopper_only = ctx.spec.transformers_kernels().flash_needs_hopper();
    let flash_capable = ctx.gpu.is_none_or(|g| match g.generation {
        Generation::Hopper | Generation::Blackwell => true,
        Generation::Ampere | Generation::Ada => !hopper_only,
        _ => false,
    });
    // What runs, not what was asked: transformers runs Gemma-2's default
    // SDPA eager (`model/kernels.rs`), and runs nothing but eager for some.
    let eager = crate::attention_run::attention_run(s, ctx.spec) == Attention::Eager;
    s.attention = if flash_capable {
        Attention::Flash
    } else {
        Attention::Sdpa
    };
    eager && crate::attention_run::attention_run(s, ctx.spec) != Attention::Eager
}

/// An optimizer with smaller states in place of Adam's.
fn lighter_optimizer(s: &mut Scenario, training: bool, optimizer: Optimizer) -> bool {
    let t = &mut s.training;
    let adam = matches!(
        t.optimizer,
        Optimizer::Adam | Optimizer::Adamw | Optimizer::PagedAdamw
    );
    t.optimizer = optimizer;
    training && adam && !t.optimizer_in_backward
}

/// torch has fused kernels for Adam, AdamW and SGD; a step already fused
/// into backward has no separate step to fuse.
fn fused_optimizer(s: &mut Scenario, training: bool) -> bool {
    let t = &mut s.training;
    let fusable = matches!(
        t.optimizer,
        Optimizer::Adam | Optimizer::Adamw | Optimizer::SgdMomentum
    );
    let before = t.fused_optimizer;
    t.fused_optimizer = true;
    training && fusable && !before && !t.optimizer_in_backward
}

/// Half the training sequence, or half the prompt.
fn shorter_sequence(s: &mut Scenario, training: bool) -> bool {
    if training {
        let t = &mut s.training;
        let ok = t.seq_len >= 2 * MIN_SEQ_LEN;
        t.seq_len /= 2;
        ok
    } else {
        let ok = s.inference.prompt_len >= 2 * MIN_PROMPT_LEN;
        s.inference.prompt_len /= 2;
        ok
    }
}

/// The image processor's own limit lowered: Qwen-VL's (GLM-4V's, Apertus
/// 1.5's) `max_pixels` to a quarter (at least its `min_pixels`), InternVL's and Aya Vision's
/// `max_patches` tiles halved (at least their minimum). The scenario then carries the model with the
/// changed rule, as a pasted config with that preprocessor would.
fn fewer_image_pixels(s: &mut Scenario, spec: &ModelSpec) -> bool {
    use crate::image_tokens::ImageRule;
    let model = match &s.model {
        crate::scenario::ModelSource::Spec(own) => own.as_ref().clone(),
        _ => spec.clone(),
    };
    let Some(rule) = &model.image_rule else {
        return false;
    };
    let lowered = match rule {
        ImageRule::QwenVl { .. }
        | ImageRule::QwenVlRows { .. }
        | ImageRule::HunyuanVl { .. }
        | ImageRule::PaddleOcr { .. }
        | ImageRule::Glm4v { .. }
        | ImageRule::Apertus1p5(_) => {
            let (min, max) = rule.pixel_limits().unwrap_or_default();
            (max / 4 >= min).then(|| rule.with_max_pixels(max / 4))
        }
        ImageRule::InternVl { .. }
        | ImageRule::AyaVision { .. }
        | ImageRule::GraniteDocling { .. }
        | ImageRule::GotOcr2 { .. } => {
            let [tile, patch, min_tiles, max_tiles, per_tile] =
                rule.tile_fields().unwrap_or_default();
            (max_tiles / 2 >= min_tiles)
                .then(|| {
                    ImageRule::tiled(
                        rule.tiled_key().unwrap_or("intern_vl"),
                        [tile, patch, min_tiles, max_tiles / 2, per_tile],
                    )
                })
                .flatten()
        }
        ImageRule::PerceptionLm(t) => {
            (t.max_tiles >= 2).then_some(ImageRule::PerceptionLm(crate::image_tokens::PlmTiles {
                max_tiles: t.max_tiles / 2,
                ..*t
            }))
        }
        // a quarter of the patch budget (`max_num_patches`)
        ImageRule::Radio(r) => (r.budget / 4 >= r.min_patches).then(|| {
            ImageRule::Radio(crate::image_tokens::PatchBudget {
                budget: r.budget / 4,
                ..r.clone()
            })
        }),
        // half the crops (`max_crops`)
        ImageRule::Molmo2(c) => (c.max_crops >= 2).then(|| {
            ImageRule::Molmo2(crate::image_tokens::OverlapCrops {
                max_crops: c.max_crops / 2,
                ..c.clone()
            })
        }),
        // a quarter of the squares (`max_image_tokens`)
        ImageRule::Muse {
            patch,
            merge,
            max_tokens,
        } => (*max_tokens >= 4).then_some(ImageRule::Muse {
            patch: *patch,
            merge: *merge,
            max_tokens: max_tokens / 4,
        }),
        _ => None,
    };
    let Some(lowered) = lowered else {
        return false;
    };
    if s.images() == 0 {
        return false;
    }
    let mut changed = model;
    changed.image_rule = Some(lowered);
    s.model = crate::scenario::ModelSource::Spec(Box::new(changed));
    true
}

/// An 8-bit KV cache: fp8 in vLLM, int8 elsewhere.
fn kv_cache_8bit(s: &mut Scenario, training: bool) -> bool {
    let compute = s.compute_dtype;
    let i = &mut s.inference;
    // llama.cpp: -ctk q8_0 -ctv q8_0.
    if i.engine == Engine::LlamaCpp {
        let wide = i.cache_type == CacheType::F16;
        i.cache_type = CacheType::Q8_0;
        return !training && wide;
    }
    let wide = i.kv_cache_dtype.unwrap_or(compute).bytes() >= 2;
    // vLLM and SGLang store an fp8 KV cache (`--kv-cache-dtype fp8*`).
    i.kv_cache_dtype = Some(if i.engine.sizes_pool() {
        Dtype::Fp8
    } else {
        Dtype::Int8
    });
    !training && wide
}

/// ZeRO stage `stage` over the data-parallel GPUs.
fn zero(s: &mut Scenario, training: bool, stage: u8, strategy: Strategy) -> bool {
    let p = &mut s.parallel;
    let data_parallel = p.gpus / (p.tp * p.pp).max(1) > 1;
    let ok = training && data_parallel && zero_stage(p.strategy) < stage;
    p.strategy = strategy;
    ok
}

/// Optimizer states (and parameters) offloaded to the CPU, under the ZeRO
/// stage that shards them at least.
fn offload(
    s: &mut Scenario,
    training: bool,
    offload: Offload,
    min_stage: u8,
    strategy: Strategy,
) -> bool {
    let has_optimizer = s.training.optimizer != Optimizer::None;
    let p = &mut s.parallel;
    let ok =
        training && p.offload != offload && p.offload != Offload::OptimizerParams && has_optimizer;
    p.offload = offload;
    if zero_stage(p.strategy) < min_stage {
        p.strategy = strategy;
    }
    ok
}

/// Quantizes the weights: the base model of LoRA training, or the served model.
fn quantize(s: &mut Scenario, training: bool, four_bit: bool) -> bool {
    let current = s.weights;
    if training {
        let lora = matches!(s.training.method, Method::Lora | Method::Qlora);
        if four_bit {
            let ok = lora && !is_four_bit(current);
            s.training.method = Method::Qlora;
            s.weights = WeightFormat::Nf4;
            s.double_quant = true;
            ok
        } else {
            let ok = lora && current.plain_dtype().is_some();
            s.training.method = Method::Lora;
            s.weights = WeightFormat::Int8;
            ok
        }
    } else {
        let engine = s.inference.engine;
        s.weights = match (engine, four_bit) {
            (Engine::Vllm | Engine::Sglang, false) => WeightFormat::Fp8,
            (Engine::Vllm | Engine::Sglang, true) => WeightFormat::Awq4,
            (Engine::LlamaCpp, false) => WeightFormat::GgufQ8_0,
            (Engine::LlamaCpp, true) => WeightFormat::GgufQ4KM,
            (_, false) => WeightFormat::Int8,
            (_, true) => WeightFormat::Nf4,
        };
        if four_bit {
            !is_four_bit(current)
        } else {
            current.plain_dtype().is_some()
        }
    }
}

/// Doubles the GPUs: replicas for training (ZeRO changes shard them), tensor
/// parallelism for serving where the heads divide, else pipeline stages.
fn more_gpus(s: &mut Scenario, training: bool, ctx: &Context) -> bool {
    let p = &mut s.parallel;
    let Some(gpus) = p.gpus.checked_mul(2).filter(|&g| g <= ctx.max_gpus) else {
        return false;
    };
    if training {
        if p.strategy == Strategy::None {
            p.strategy = Strategy::Ddp;
        }
        p.gpus = gpus;
        return true;
    }
    let replicas = (p.gpus / (p.tp * p.pp).max(1)).max(1);
    if ctx.spec.heads.is_multiple_of(p.tp * 2) {
        p.tp *= 2;
    } else if p.pp * 2 <= ctx.spec.layers {
        p.pp *= 2;
    } else {
        return false;
    }
    p.gpus = p.tp * p.pp * replicas;
    true
}

/// The concrete change from `before` to `after`, in English and Chinese.
pub fn describe(id: TechniqueId, before: &Scenario, after: &Scenario) -> Text {
    use TechniqueId as T;
    let (b, a) = (&before.training, &after.training);
    let (bi, ai) = (&before.inference, &after.inference);
    let (bp, ap) = (&before.parallel, &after.parallel);
    let text = |en: String, zh: String| Text { en, zh };
    match id {
        T::SmallerMicroBatch => text(
            format!(
                "micro-batch {} → {}, gradient accumulation {} → {} (effective batch {} kept)",
                b.micro_batch,
                a.micro_batch,
                b.grad_accum,
                a.grad_accum,
                a.micro_batch * a.grad_accum
            ),
            format!(
                "微批大小 {} → {}，梯度累积 {} → {}（有效批大小 {} 不变）",
                b.micro_batch,
                a.micro_batch,
                b.grad_accum,
                a.grad_accum,
                a.micro_batch * a.grad_accum
            ),
        ),
        T::ShorterSequence if after.task == TaskKind::Training => text(
            format!("sequence length {} → {}", b.seq_len, a.seq_len),
            format!("序列长度 {} → {}", b.seq_len, a.seq_len),
        ),
        T::ShorterSequence => text(
            format!("prompt length {} → {}", bi.prompt_len, ai.prompt_len),
            format!("提示长度 {} → {}", bi.prompt_len, ai.prompt_len),
        ),
        T::ShorterGeneration => text(
            format!("max_new_tokens {} → {}", bi.new_tokens, ai.new_tokens),
            format!("max_new_tokens {} → {}", bi.new_tokens, ai.new_tokens),
        ),
        T::FusedOptimizer => {
            let name = crate::url::Choice::key(a.optimizer);
            text(
                format!("{name} with fused=True (no foreach temporary)"),
                format!("{name} 设为 fused=True（无 foreach 临时缓冲）"),
            )
        }
        T::FewerImagePixels => fewer_pixels_text(before, after),
        T::SmallerBatch => text(
            format!("generation batch {} → {}", bi.batch, ai.batch),
            format!("推理批大小 {} → {}", bi.batch, ai.batch),
        ),
        T::Quantize8bit | T::Quantize4bit => text(
            format!(
                "weights {} → {}",
                before.weights.name(),
                after.weights.name()
            ),
            format!("权重 {} → {}", before.weights.name(), after.weights.name()),
        ),
        T::HalfPrecision => text(
            format!(
                "weights {} → {}, pure 16-bit training",
                before.weights.name(),
                after.weights.name()
            ),
            format!(
                "权重 {} → {}，纯 16 位训练",
                before.weights.name(),
                after.weights.name()
            ),
        ),
        T::RaiseWiredLimit => text(
            format!(
                "GPU share of unified memory raised: the OS keeps {} GiB",
                after.gpu.os_reserved_bytes.unwrap_or(0) >> 30
            ),
            format!(
                "提高 GPU 可用的统一内存：系统保留 {} GiB",
                after.gpu.os_reserved_bytes.unwrap_or(0) >> 30
            ),
        ),
        T::CpuOffload => cpu_offload_text(after),
        T::TensorParallel => text(
            format!(
                "tensor parallel 1 → {} over the {} GPUs already chosen",
                ap.tp, ap.gpus
            ),
            format!("在已选的 {} 张 GPU 上张量并行 1 → {}", ap.gpus, ap.tp),
        ),
        T::MoreGpus => {
            let strategy = crate::url::Choice::key(ap.strategy);
            let (en, zh) = if after.task == TaskKind::Training {
                (
                    format!("strategy {strategy}"),
                    format!("并行策略 {strategy}"),
                )
            } else {
                let tp_pp = format!("tp {} × pp {}", ap.tp, ap.pp);
                (tp_pp.clone(), tp_pp)
            };
            text(
                format!("GPUs {} → {} ({en})", bp.gpus, ap.gpus),
                format!("GPU {} → {} 块（{zh}）", bp.gpus, ap.gpus),
            )
        }
        _ => {
            let t = techniques().iter().find(|t| t.id == id);
            t.map(|t| t.name.clone()).unwrap_or_default()
        }
    }
}

/// The description of a lowered image-processor limit, before → after.
fn fewer_pixels_text(before: &Scenario, after: &Scenario) -> Text {
    let text = |en: String, zh: String| Text { en, zh };
    use crate::image_tokens::ImageRule;
    let rule = |sc: &Scenario| match &sc.model {
        crate::scenario::ModelSource::Spec(spec) => spec.image_rule.clone(),
        _ => None,
    };
    match (rule(before), rule(after)) {
        (Some(a), Some(b)) if a.pixel_limits().is_some() && b.pixel_limits().is_some() => {
            let max = |r: &ImageRule| r.pixel_limits().unwrap_or_default().1;
            let (a, b) = (max(&a), max(&b));
            text(
                format!("image processor max_pixels {a} → {b}"),
                format!("图像处理器 max_pixels {a} → {b}"),
            )
        }
        (Some(a), Some(b)) if a.tile_fields().is_some() && b.tile_fields().is_some() => {
            let max_tiles = |r: &ImageRule| r.tile_fields().unwrap_or_default()[3];
            let (a, b) = (max_tiles(&a), max_tiles(&b));
            text(
                format!("image processor max tiles {a} → {b}"),
                format!("图像处理器最大切片数 {a} → {b}"),
            )
        }
        (_, Some(r)) => text(
            format!("image processor limit → {}", r.to_text()),
            format!("图像处理器上限 → {}", r.to_text()),
        ),
        _ => text(String::new(), String::new()),
    }
}

/// The description of a llama.cpp offload split.
fn cpu_offload_text(after: &Scenario) -> Text {
    let text = |en: String, zh: String| Text { en, zh };
    let ai = &after.inference;
    let ngl = ai.gpu_layers.unwrap_or(0);
    let ncmoe = ai.cpu_moe_layers;
    if ncmoe > 0 {
        text(
            format!("llama.cpp -ngl {ngl} --n-cpu-moe {ncmoe}: the routed experts of the first {ncmoe} layers in host memory"),
            format!("llama.cpp -ngl {ngl} --n-cpu-moe {ncmoe}：前 {ncmoe} 层的路由专家放在内存"),
        )
    } else {
        text(
            format!("llama.cpp -ngl {ngl}: the other layers on the CPU"),
            format!("llama.cpp -ngl {ngl}：其余层在 CPU 上"),
        )
    }
}
