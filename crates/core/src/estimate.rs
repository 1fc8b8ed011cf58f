//! `estimate`: one scenario in, the full per-GPU and CPU breakdown out.

use crate::decimal::Decimal;
use crate::error::{check_range, InputError, Result};
use crate::gpu::{find_gpu, GpuSpec};
use crate::inference::{inference_memory, ServingEngine, VllmEngine};
use crate::model::{Arch, MlpKind, ModelSpec, NormKind};
use crate::overhead::{
    allocator_slack_bytes, cuda_context_bytes, library_workspace_bytes, loading_cache_bytes,
    split_segment_bytes, used_within_card, AllocatorCache,
};
use crate::precision::{Dtype, WeightFormat};
use crate::report::{Counter, Estimate, GpuReport, Line, Note, Part};
use crate::resolved::Resolved;
use crate::scenario::limits::{MAX_TOTAL_PARAMS, MIN_PARAMS};
use crate::scenario::{Engine, ModelSource, Parallel, Scenario, Strategy};
use crate::serving::sglang::{self, SglangEngine};
use crate::serving::{
    communicator_bytes, engine_limits, engine_total, non_torch_bytes, ServingPool,
};
use crate::training::training_memory;

pub use crate::scenario::limits::MAX_TOKENS;

/// The model a scenario refers to, with its exact parameter groups.
pub fn resolve_model(source: &ModelSource) -> Result<ModelSpec> {
    match source {
        ModelSource::Catalog(id) => crate::catalog::find_model(id)
            .map(|m| m.spec.clone())
            .ok_or_else(|| {
                InputError::new(
                    "model",
                    format!("\"{id}\" is not in the catalog: give a Hugging Face id from `vramfit catalog models`, a config.json, or architecture fields"),
                )
            }),
        ModelSource::Spec(spec) => {
            spec.validate()?;
            Ok((**spec).clone())
        }
        ModelSource::Params(n) => {
            check_range("model.params", *n, MIN_PARAMS, MAX_TOTAL_PARAMS)?;
            Ok(spec_from_param_count(*n))
        }
    }
}

/// A Llama-shaped model of about `params` parameters, for when nothing else
/// is known: hidden from the Chinchilla-era aspect ratio (layers ≈ hidden/128),
/// marked approximate so every figure says so.
pub fn spec_from_param_count(params: u64) -> ModelSpec {
    // 12·L·h² with L = h/128  ⇒  h ≈ (params · 128 / 12)^(1/3), rounded to 256.
    let h = ((params as f64 * 128.0 / 12.0).cbrt() / 256.0)
        .round()
        .max(1.0) as u64
        * 256;
    let layers = (h / 128).max(1);
    let per_layer = 12 * h * h;
    let layers = (params / per_layer.max(1)).clamp(1, layers.max(1) * 2);
    ModelSpec {
        name: format!("~{:.1}B parameters", Decimal(params as f64 / 1e9)),
        arch: Arch::Custom,
        hidden: h,
        layers,
        heads: (h / 128).max(1),
        kv_heads: (h / 128).max(1),
        head_dim: Some(128),
        intermediate: h * 8 / 3,
        vocab: 32000,
        max_position: 4096,
        tied_embeddings: false,
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        qkv_bias: false,
        out_bias: false,
        moe: None,
        mla: None,
        sliding_window: None,
        encoder_layers: None,
        vision: None,
        params_override: Some(params),
        approximate: true,
        ..ModelSpec::default()
    }
}

fn to_u64(field: &str, bytes: u128) -> Result<u64> {
    u64::try_from(bytes).map_err(|_| {
        InputError::new(
            field,
            "the memory needed exceeds 16 EiB: inputs are too large",
        )
    })
}

/// The GPU the scenario names, if any; an unknown name is an error.
pub fn resolve_gpu(sc: &Scenario) -> Result<Option<&'static GpuSpec>> {
    match &sc.gpu.name {
        Some(name) if !name.trim().is_empty() => find_gpu(name)
            .map(Some)
            .ok_or_else(|| InputError::new("gpu.name", format!("\"{name}\" is not in the GPU catalog (`vramfit catalog gpus` lists it); give gpu.memory_bytes for a custom card"))),
        _ => Ok(None),
    }
}

/// Estimates one scenario.
pub fn estimate(sc: &Scenario) -> Result<Estimate> {
    let spec = resolve_model(&sc.model)?;
    estimate_with_model(sc, &spec)
}

/// Estimates a scenario whose model is already resolved.
pub fn estimate_with_model(sc: &Scenario, spec: &ModelSpec) -> Result<Estimate> {
    spec.validate()?;
    sc.validate()?;
    // A VLM's images are sequence positions of its language model.
    let with_images = crate::vision::with_image_tokens(sc, spec)?;
    let (sc, image_note) = match &with_images {
        Some((adjusted, note)) => (adjusted, Some(note.clone())),
        None => (sc, None),
    };
    check_model_split(&sc.parallel, spec)?;
    refuse_unmodelled_training(sc, spec)?;
    let gpu = resolve_gpu(sc)?;
    let capacity = sc
        .gpu
        .memory_bytes
        .or(gpu.map(|g| g.budget_bytes(sc.gpu.os_reserved_bytes)));
    let r = Resolved::new(sc, spec);
    let (context, context_source) = cuda_context_bytes(gpu);
    let engine = serving_engine(&r, capacity, gpu)?;
    let task = task_memory(&r, engine.as_ref());
    let mut notes: Vec<Note> = image_note.into_iter().collect();
    notes.extend(scenario_notes(&r));
    notes.extend(crate::positions::beyond_positions_note(&r));
    notes.extend(crate::attention_run::fallback_note(
        sc.attention,
        r.attention,
        spec,
    ));
    notes.extend(task.serving.as_ref().and_then(|p| serving_note(p, spec)));
    notes.extend(vllm_encoder_note(&task, spec));
    notes.extend(
        gpu.map(|g| gpu_notes(&r, g, sc.gpu.os_reserved_bytes))
            .unwrap_or_default(),
    );
    let mut lines = task.lines;
    // vLLM measures its libraries' memory itself, outside PyTorch's
    // counters (its `non_torch_memory`); SGLang finds its communicators
    // already there when it first measures, and loads cuBLAS inside what it
    // leaves beside the pool; other engines get cuBLAS's workspaces through
    // the caching allocator.
    let (workspace, workspace_source, outside_torch) = match &engine {
        Some(ServingEngine::Vllm(v)) => (
            v.non_torch,
            non_torch_bytes(r.shards.tp * r.shards.pp > 1).1,
            v.non_torch,
        ),
        Some(ServingEngine::Sglang(s)) if s.communicators > 0 => (
            s.communicators,
            "NCCL communicators and custom all-reduce buffers SGLang creates before it measures the free memory (tp/pp > 1)",
            s.communicators,
        ),
        Some(ServingEngine::Sglang(_)) => (
            0,
            "cuBLAS workspaces: loaded after SGLang sizes its pool, inside what it leaves beside it",
            0,
        ),
        None => {
            let (bytes, source) = library_workspace_bytes(gpu);
            (bytes, source, 0)
        }
    };
    let peak_allocated = task.peak_allocated + (workspace - outside_torch) as u128;
    lines.push(Line {
        part: if outside_torch > 0 {
            Part::NonTorch
        } else {
            Part::LibraryWorkspace
        },
        bytes: workspace,
        formula: workspace_source.to_string(),
        counter: if outside_torch > 0 {
            Counter::Device
        } else {
            Counter::Allocated
        },
    });
    let (slack, slack_formula, releasable) = cache_on_card(
        at_least(
            allocator_slack(&r, per_step_bytes(&lines, task.churn), task.stream_pools),
            task.peak_allocated,
            task.reserved_floor,
        ),
        peak_allocated + (context + outside_torch) as u128 + paged_bytes(&lines),
        capacity,
    );
    lines.push(Line {
        part: Part::AllocatorSlack,
        bytes: to_u64("allocator slack", slack)?,
        formula: slack_formula,
        counter: Counter::Reserved,
    });
    lines.push(Line {
        part: Part::CudaContext,
        bytes: context,
        formula: context_source.to_string(),
        counter: Counter::Device,
    });
    let totals = Totals {
        peak_allocated,
        peak_reserved: peak_allocated + slack,
        context: context + outside_torch,
        releasable,
    };
    let report = gpu_report(lines, &totals, task.kv_per_token, task.phase)?;
    let mut cpu_lines = task.cpu_lines;
    // llama.cpp memory-maps the GGUF file: no loading copy.
    if !llama_cpp_loads(&r) {
        cpu_lines.push(checkpoint_loading_line(&r)?);
    }
    let cpu_ram: u128 = cpu_lines.iter().map(|l| l.bytes as u128).sum();
    // vLLM's and SGLang's verdict is their pool, sized by the engine's own
    // rule; every other total gets the spread of its regime's measured errors.
    let band = (task.serving.is_none()).then(|| crate::band::band(sc, report.device_used_bytes));
    Ok(Estimate {
        model: spec.name.clone(),
        params: r.counts.total,
        trainable_params: to_u64(
            "trainable params",
            if r.is_training() { r.trainable } else { 0 },
        )?,
        approximate: spec.approximate,
        gpu_count: sc.parallel.gpus,
        gpus: vec![report],
        cpu_ram_bytes: to_u64("CPU RAM", cpu_ram)?,
        cpu_lines,
        capacity_bytes: capacity,
        serving: task.serving,
        band,
        notes,
    })
}

/// vLLM refuses a `max_model_len` beyond the model's positions at start-up,
/// SGLang a request beyond `context_len − 1` tokens: say so rather than a
/// shortfall of bytes.
fn serving_note(pool: &ServingPool, spec: &ModelSpec) -> Option<Note> {
    let limit = spec.context_limit();
    if pool.engine == Engine::Sglang {
        // `max_req_len = min(context_len - 1, ...)` (SGLang 0.5.5,
        // managers/tp_worker.py:295-298).
        let most = limit.saturating_sub(1);
        return (pool.requested_context > most).then(|| {
            Note::new(
                "context_beyond_model",
                format!(
                    "{} tokens per sequence is more than SGLang serves for this model: at most context_len − 1 = {most} tokens per request (the model has {limit} positions).",
                    pool.requested_context
                ),
                format!(
                    "每个序列 {} 个 token 超过了 SGLang 对该模型的上限：每个请求最多 context_len − 1 = {most} 个 token（模型有 {limit} 个位置）。",
                    pool.requested_context
                ),
            )
        });
    }
    (pool.requested_context > limit).then(|| {
        Note::new(
            "context_beyond_model",
            format!(
                "{} tokens per sequence is beyond the model's {limit} positions: vLLM refuses a max_model_len above it.",
                pool.requested_context
            ),
            format!(
                "每个序列 {} 个 token 超出了模型的 {limit} 个位置：vLLM 不接受超过它的 max_model_len。",
                pool.requested_context
            ),
        )
    })
}

/// vLLM runs a VLM's encoder on dummy items of the processor's largest
/// size before it sizes the KV pool (`GPUModelRunner.profile_run`, "Encoder
/// cache will be initialized with a budget of N tokens"), counted in the
/// profile peak (`serving::encoder`): the note says so and names the knobs
/// that lower it.
fn vllm_encoder_note(task: &TaskMemory, spec: &ModelSpec) -> Option<Note> {
    let pool = task.serving.as_ref()?;
    if pool.engine != Engine::Vllm || spec.vision.is_none() || spec.layers == 0 {
        return None;
    }
    Some(Note::new(
        "vllm_encoder_profile",
        "vLLM profiles the vision encoder on its processor's largest images (as many as max_num_batched_tokens holds) before it sizes the KV pool; the activation line counts it. A lower max_pixels, fewer tiles or fewer batched tokens lower it; --skip-mm-profiling skips it.".to_owned(),
        "vLLM 在确定 KV 池之前，会用处理器允许的最大图像（max_num_batched_tokens 能容纳的张数）分析视觉编码器的显存，激活一行已计入。降低 max_pixels、图块数或批处理 token 数可以降低它；--skip-mm-profiling 会跳过它。".to_owned(),
    ))
}

/// The engine a serving scenario runs on, when it sizes a KV pool (vLLM,
/// SGLang); a model SGLang's rule is not modelled for is refused.
fn serving_engine(
    r: &Resolved,
    capacity: Option<u64>,
    gpu: Option<&GpuSpec>,
) -> Result<Option<ServingEngine>> {
    if r.is_training() {
        return Ok(None);
    }
    let total = engine_total(capacity, gpu);
    let split = r.shards.tp * r.shards.pp > 1;
    let inf = r.inference;
    Ok(match inf.engine {
        Engine::Vllm | Engine::Sglang
            if r.spec.cross_attention_layers > 0 || r.spec.encoder_tokens.is_some() =>
        {
            return Err(InputError::new(
                "inference.engine",
                "this model's cross-attention layers keep K/V over each request's images or encoder frames, which vLLM's and SGLang's KV-pool rules here do not model: choose the transformers engine for it",
            ));
        }
        Engine::Vllm | Engine::Sglang | Engine::LlamaCpp
            if r.spec.arch == Arch::Bart
                || (r.spec.encoder_layers.is_some() && r.spec.arch != Arch::T5) =>
        {
            return Err(InputError::new(
                "inference.engine",
                "this engine does not run BART-family encoder-decoders (BART, mBART, Marian, Pegasus, M2M-100/NLLB, BlenderBot), T5Gemma or T5Gemma 2: choose the transformers engine for it",
            ));
        }
        // vLLM's, SGLang's and llama.cpp's model registries have no RWKV-4
        // (llama.cpp's RWKV architectures are RWKV-6 and RWKV-7)
        Engine::Vllm | Engine::Sglang | Engine::LlamaCpp if r.spec.arch == Arch::Rwkv => {
            return Err(InputError::new(
                "inference.engine",
                "this engine does not run RWKV-4: choose the transformers engine for it",
            ));
        }
        Engine::Vllm => Some(ServingEngine::Vllm(VllmEngine {
            total,
            limits: engine_limits(r, gpu, total),
            non_torch: non_torch_bytes(split).0,
        })),
        Engine::Sglang => {
            if let Some(why) = sglang::unsupported(r.spec) {
                return Err(InputError::new("inference.engine", why));
            }
            let parallel = (
                u64::try_from(r.shards.tp).unwrap_or(u64::MAX),
                u64::try_from(r.shards.pp).unwrap_or(u64::MAX),
            );
            Some(ServingEngine::Sglang(SglangEngine {
                total,
                context: cuda_context_bytes(gpu).0,
                communicators: if split { communicator_bytes() } else { 0 },
                settings: sglang::settings(
                    sglang::gpu_mem_mib(capacity),
                    parallel,
                    inf.chunked_prefill_size,
                    inf.mem_fraction_static,
                    r.spec.vision.as_ref(),
                ),
                max_running_requests: inf.max_num_seqs,
            }))
        }
        // whisper.cpp, not llama.cpp, runs Whisper, with buffers of its own
        Engine::LlamaCpp if r.spec.encoder_tokens.is_some() => {
            return Err(InputError::new(
                "inference.engine",
                "llama.cpp does not run this audio encoder-decoder (whisper.cpp does, with buffers not modelled here): choose the transformers engine for it",
            ));
        }
        Engine::Transformers | Engine::Litgpt | Engine::LlamaCpp => None,
    })
}

/// xLSTM trains through `mlstm_kernels`' Triton kernels (transformers'
/// native path fails in 16 bits), RWKV-4 through the WKV CUDA kernel
/// transformers compiles at load; neither's saved tensors are modelled.
fn refuse_unmodelled_training(sc: &Scenario, spec: &ModelSpec) -> Result<()> {
    use crate::model::RecurrentKind;
    if sc.task != crate::scenario::TaskKind::Training {
        return Ok(());
    }
    let kind = spec
        .recurrent
        .as_ref()
        .filter(|r| r.layers > 0)
        .map(|r| r.kind);
    let what = match kind {
        Some(RecurrentKind::Mlstm) => "an xLSTM (mLSTM layers) is not modelled yet: its activations depend on mlstm_kernels' chunkwise kernels",
        Some(RecurrentKind::Rwkv) => "an RWKV-4 model is not modelled yet: its activations depend on the WKV CUDA kernel transformers compiles at load",
        _ => return Ok(()),
    };
    Err(InputError::new(
        "task",
        format!("training {what}; inference is"),
    ))
}

/// Tensor parallelism splits the attention heads, pipeline parallelism the layers.
fn check_model_split(p: &Parallel, spec: &ModelSpec) -> Result<()> {
    if !spec.heads.is_multiple_of(p.tp) {
        return Err(InputError::new(
            "parallel.tp",
            format!(
                "{} must divide the model's {} attention heads",
                p.tp, spec.heads
            ),
        ));
    }
    if p.pp > spec.layers {
        return Err(InputError::new(
            "parallel.pp",
            format!(
                "{} is out of range: allowed 1 to the model's {} layers",
                p.pp, spec.layers
            ),
        ));
    }
    Ok(())
}

/// What the task holds on one GPU, training or serving.
struct TaskMemory {
    lines: Vec<Line>,
    cpu_lines: Vec<Line>,
    peak_allocated: u128,
    phase: String,
    kv_per_token: u128,
    /// Serving's per-step churn; training's is read off its lines.
    churn: Option<u128>,
    serving: Option<ServingPool>,
    /// Training: what stays reserved by the end of the step.
    reserved_floor: Option<(u128, String)>,
    /// Training: blocks cached for the collectives' streams.
    stream_pools: Option<(u128, String)>,
}

fn task_memory(r: &Resolved, engine: Option<&ServingEngine>) -> TaskMemory {
    if r.is_training() {
        let m = training_memory(r);
        let churn = per_step_bytes(&m.lines, None) + m.rebuilt_off_peak;
        return TaskMemory {
            lines: m.lines,
            cpu_lines: m.cpu_lines,
            peak_allocated: m.peak_allocated,
            phase: m.peak_phase.to_string(),
            kv_per_token: 0,
            churn: Some(churn),
            serving: None,
            reserved_floor: m.reserved_floor,
            stream_pools: m.stream_pools,
        };
    }
    let m = inference_memory(r, engine);
    TaskMemory {
        lines: m.lines,
        cpu_lines: m.cpu_lines,
        peak_allocated: m.peak_allocated,
        phase: if r.spec.arch.is_encoder_only() {
            "forward".to_string()
        } else {
            "generation".to_string()
        },
        kv_per_token: m.kv_per_token,
        churn: Some(m.per_step),
        serving: m.serving,
        reserved_floor: None,
        stream_pools: None,
    }
}

/// Notes on the scenario itself: a guessed model, replicas without a strategy.
fn scenario_notes(r: &Resolved) -> Vec<Note> {
    let mut notes = Vec::new();
    if r.spec.approximate {
        notes.push(Note::new(
            "approximate_model",
            "Model given as a bare parameter count: shapes are guessed, figures are approximate."
                .into(),
            "模型只给了参数量：形状是推测的，数字是近似值。".into(),
        ));
    }
    let s = &r.shards;
    if s.strategy == Strategy::None && s.gpus > 1 && s.tp * s.pp == 1 && r.is_training() {
        notes.push(Note::new(
            "full_replicas",
            "Several GPUs with strategy \"none\": each GPU holds a full replica (as DDP without buckets).".into(),
            "多卡但未选并行策略：每张卡各放一份完整副本（同不分桶的 DDP）。".into(),
        ));
    }
    // Serving on several GPUs with tensor and pipeline parallel at 1 runs one
    // full copy of the model per GPU (data-parallel replicas): say so, with
    // the tensor-parallel degree that would split it instead.
    if s.gpus > 1 && s.tp * s.pp == 1 && !r.is_training() {
        let tp = tensor_parallel_for(u64::try_from(s.gpus).unwrap_or(u64::MAX), r.spec.heads);
        let (en_hint, zh_hint) = match tp {
            Some(tp) => (
                format!(" Set tensor parallel to {tp} to split the model across them."),
                format!("把张量并行设为 {tp} 可把模型切分到各卡上。"),
            ),
            None => (String::new(), String::new()),
        };
        notes.push(Note::new(
            "serving_replicas",
            format!(
                "{} GPUs with tensor and pipeline parallel at 1: each GPU holds a full copy of the model and serves its own requests.{en_hint}",
                s.gpus
            ),
            format!("{} 张 GPU、张量与流水线并行均为 1：每张卡各放一份完整模型，各自处理请求。{zh_hint}", s.gpus),
        ));
    }
    notes
}

/// The largest tensor-parallel degree up to `gpus` that divides both the
/// GPU count and the attention heads (a split vLLM and transformers accept).
pub fn tensor_parallel_for(gpus: u64, heads: u64) -> Option<u64> {
    (2..=gpus)
        .rev()
        .find(|d| gpus.is_multiple_of(*d) && heads.is_multiple_of(*d))
}

/// Notes on what the chosen card cannot do (bf16, fp8).
fn gpu_notes(r: &Resolved, g: &GpuSpec, os_reserved: Option<u64>) -> Vec<Note> {
    let mut notes = Vec::new();
    let uses = |d: Dtype| r.compute == d || r.chosen_format.plain_dtype() == Some(d);
    if !g.bf16 && uses(Dtype::Bf16) {
        notes.push(Note::new(
            "no_bf16",
            format!(
                "{} has no bf16 support: use fp16 (with loss scaling for training).",
                g.name
            ),
            format!(
                "{} 不支持 bf16：请用 fp16（训练时配合 loss scaling）。",
                g.name
            ),
        ));
    }
    if !g.fp8
        && (r.chosen_format == WeightFormat::Fp8 || r.inference.kv_cache_dtype == Some(Dtype::Fp8))
    {
        notes.push(Note::new(
            "no_fp8",
            format!("{} has no fp8 units: fp8 weights or KV cache are stored in 8 bits but computed in 16.", g.name),
            format!("{} 没有 fp8 计算单元：fp8 权重或 KV cache 以 8 位存储，但按 16 位计算。", g.name),
        ));
    }
    if g.is_unified() {
        notes.push(unified_memory_note(g, os_reserved));
    }
    notes
}

/// What a unified-memory device lets the GPU use, and the knob that raises it.
fn unified_memory_note(g: &GpuSpec, os_reserved: Option<u64>) -> Note {
    let gib = |b: u64| Decimal(b as f64 / (1u64 << 30) as f64);
    let budget = g.budget_bytes(os_reserved);
    if g.generation == crate::gpu::Generation::AppleSilicon && os_reserved.is_none() {
        let raise_mb = (g.memory_bytes.saturating_sub(8 << 30)) >> 20;
        return Note::new(
            "unified_memory",
            format!("{} shares {:.0} GiB with macOS, which lets the GPU wire about {:.0} GiB by default (Metal's recommendedMaxWorkingSetSize). `sudo sysctl iogpu.wired_limit_mb={raise_mb}` raises it until reboot; leave the OS at least 8 GiB or it swaps or stalls.", g.name, gib(g.memory_bytes), gib(budget)),
            format!("{} 与 macOS 共享 {:.0} GiB 内存，macOS 默认只允许 GPU 使用约 {:.0} GiB（Metal 的 recommendedMaxWorkingSetSize）。`sudo sysctl iogpu.wired_limit_mb={raise_mb}` 可临时提高（重启后恢复）；请至少给系统留 8 GiB，否则会换页或卡死。", g.name, gib(g.memory_bytes), gib(budget)),
        );
    }
    Note::new(
        "unified_memory",
        format!("{} shares {:.0} GiB with the CPU and the OS: {:.0} GiB is planned for the GPU, the rest is left to the system (set what the OS and desktop keep to change it).", g.name, gib(g.memory_bytes), gib(budget)),
        format!("{} 与 CPU 和操作系统共享 {:.0} GiB：按 {:.0} GiB 给 GPU 规划，其余留给系统（可设置系统保留量来调整）。", g.name, gib(g.memory_bytes), gib(budget)),
    )
}

/// Tensors created and freed every step, whichever phase holds the peak:
/// serving's churn, or training's per-step lines.
fn per_step_bytes(lines: &[Line], churn: Option<u128>) -> u128 {
    churn.unwrap_or_else(|| {
        lines
            .iter()
            .filter(|l| {
                matches!(
                    l.part,
                    Part::Activations | Part::LogitsLoss | Part::QuantBuffers | Part::OptimizerStep
                )
            })
            .map(|l| l.bytes as u128)
            .sum()
    })
}

/// Reserved: what the caching allocator keeps beyond live tensors.
fn llama_cpp_loads(r: &Resolved) -> bool {
    !r.is_training()
        && r.inference.engine == Engine::LlamaCpp
        && crate::llama_cpp::file_type_of(r.format).is_some()
}

/// The cache at the peak, its formula and the part of it split segments
/// hold ([`split_segment_bytes`]).
fn allocator_slack(
    r: &Resolved,
    per_step: u128,
    stream_pools: Option<(u128, String)>,
) -> (u128, String, u128) {
    if llama_cpp_loads(r) {
        return (
            0,
            "llama.cpp allocates its buffers once at their reserved sizes (ggml-alloc)".to_string(),
            0,
        );
    }
    if r.inference.engine == Engine::Vllm && !r.is_training() {
        return (
            0,
            "vLLM allocates its KV cache up front: no growth of the cache".to_string(),
            0,
        );
    }
    if r.inference.engine == Engine::Sglang && !r.is_training() {
        return (
            0,
            "SGLang allocates its KV pool up front; its steps run in what it leaves beside it"
                .to_string(),
            0,
        );
    }
    let cache = AllocatorCache {
        loading: loading_cache_bytes(r),
        per_step_bytes: per_step,
        stranded_block: if r.is_training() {
            crate::training::freed_logits_block(r)
        } else {
            None
        },
        empty_cache_after_load: r.empty_cache_after_load,
        expandable_segments: r.expandable_segments,
        churn_percent: crate::overhead::churn_percent(r),
        stream_pools,
    };
    let unreleasable = split_segment_bytes(&cache);
    let (bytes, formula) = allocator_slack_bytes(cache);
    (bytes, formula, unreleasable)
}

/// The cache reaches at least what `floor` says stays reserved (beyond
/// `peak_allocated`, both without the workspaces); that part is whole free
/// segments, which the allocator can release when a `cudaMalloc` fails.
fn at_least(
    (slack, formula, unreleasable): (u128, String, u128),
    peak_allocated: u128,
    floor: Option<(u128, String)>,
) -> (u128, String, u128) {
    match floor {
        Some((reserved, why)) if reserved > peak_allocated + slack => {
            (reserved - peak_allocated, why, unreleasable)
        }
        _ => (slack, formula, unreleasable),
    }
}

/// The allocator's cache at the peak on the chosen card ([`used_within_card`]:
/// it shrinks to the card's room, split segments kept) beside `live` bytes,
/// with its formula and the part the allocator could still free.
fn cache_on_card(
    (slack, formula, unreleasable): (u128, String, u128),
    live: u128,
    capacity: Option<u64>,
) -> (u128, String, u128) {
    let capped = used_within_card(
        live + slack,
        slack.saturating_sub(unreleasable),
        capacity.map(u128::from),
    );
    let (slack, formula) = if capped < live + slack {
        (
            capped - live,
            format!("{formula}; capped at the card's room, split segments kept"),
        )
    } else {
        (slack, formula)
    };
    (slack, formula, slack.saturating_sub(unreleasable))
}

/// Paged optimizer states live in unified memory: nvidia-smi sees them.
fn paged_bytes(lines: &[Line]) -> u128 {
    lines
        .iter()
        .filter(|l| l.part == Part::PagedOptimizer)
        .map(|l| l.bytes as u128)
        .sum()
}

/// One GPU's three totals before the report is written.
struct Totals {
    peak_allocated: u128,
    peak_reserved: u128,
    /// CUDA context and libraries.
    context: u64,
    /// The cache beyond its split segments ([`GpuReport::releasable_cache_bytes`]).
    releasable: u128,
}

fn gpu_report(
    lines: Vec<Line>,
    totals: &Totals,
    kv_per_token: u128,
    phase: String,
) -> Result<GpuReport> {
    let device_used = totals.peak_reserved + totals.context as u128 + paged_bytes(&lines);
    let weights_bytes = lines
        .iter()
        .find(|l| l.part == Part::Weights)
        .map_or(0, |l| l.bytes);
    Ok(GpuReport {
        index: 0,
        lines,
        peak_allocated_bytes: to_u64("peak allocated", totals.peak_allocated)?,
        peak_reserved_bytes: to_u64("peak reserved", totals.peak_reserved)?,
        device_used_bytes: to_u64("device used", device_used)?,
        weights_bytes,
        kv_bytes_per_token: to_u64("KV cache", kv_per_token)?,
        peak_phase: phase,
        releasable_cache_bytes: to_u64("allocator cache", totals.releasable)?,
    })
}

/// Loading reads the checkpoint shard by shard through host memory:
/// transformers writes shards of at most 5 GB (`max_shard_size` default),
/// stored in 16-bit unless the checkpoint is pre-quantized.
fn checkpoint_loading_line(r: &Resolved) -> Result<Line> {
    const SHARD_BYTES: u128 = 5_000_000_000;
    let chosen = r.chosen_format;
    let stored = if chosen.is_quantized()
        && !matches!(
            chosen,
            WeightFormat::Nf4 | WeightFormat::Fp4 | WeightFormat::Int8
        ) {
        r.weights.total
    } else {
        r.counts.total as u128 * chosen.plain_dtype().unwrap_or(r.compute).bytes() as u128
    };
    Ok(Line {
        part: Part::Weights,
        bytes: to_u64("CPU RAM", stored.min(SHARD_BYTES))?,
        formula: format!("checkpoint loading: one shard of at most 5 GB of the {stored}-byte checkpoint (transient)"),
        counter: Counter::NotAtPeak,
    })
}
