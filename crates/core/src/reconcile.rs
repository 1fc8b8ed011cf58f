//! Reconciling with what a runtime printed: read a serving engine's start-up
//! log, set up the scenario it implies, and put the engine's own figures
//! beside the estimator's, line by line, with the difference and what the
//! estimator's line counts.
//!
//! The readers ([`vllm`], [`sglang`], [`llama_cpp`], [`ollama`] for `ollama ps`,
//! [`nvidia_smi`]) take any paste: lines they do not know are skipped, each
//! reading keeps the line it came from, and sizes keep the rounding their
//! printed precision implies (vLLM prints GiB to 0.01). nvidia-smi's table
//! pasted with a log adds its figures to the log's.

pub mod llama_cpp;
pub mod llama_cpp_breakdown;
pub mod nvidia_smi;
pub mod ollama;
pub mod reading;
pub mod sglang;
pub mod vllm;

pub use reading::{Figure, Reading, RuntimeLog};

use serde::{Deserialize, Serialize};

use crate::doctor::size::human_bytes;
use crate::error::{InputError, Result};
use crate::estimate::{estimate_with_model, resolve_model};
use crate::model::ModelSpec;
use crate::report::{Estimate, Part};
use crate::scenario::GpuChoice;

/// One row: the runtime's figure, ours, the difference, and our formula.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub figure: Figure,
    pub runtime: f64,
    pub runtime_rounding: f64,
    pub ours: f64,
    /// `ours − runtime` as a share of the runtime's figure.
    pub difference: f64,
    /// True when the difference is within the printed rounding.
    pub within_rounding: bool,
    /// What the estimator's figure counts (its formula).
    pub ours_formula: String,
    pub runtime_line: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reconciliation {
    pub log: RuntimeLog,
    pub estimate: Estimate,
    pub rows: Vec<Row>,
}

/// Reads a runtime log: `None` when it holds no figure of a known engine
/// (vLLM, llama.cpp, `ollama ps`) nor nvidia-smi's table. nvidia-smi's
/// figures pasted with a log join the log's, its card the log's scenario.
pub fn read_runtime_log(text: &str) -> Option<RuntimeLog> {
    let engine = sglang::read(text)
        .or_else(|| vllm::read(text))
        .or_else(|| llama_cpp::read(text))
        .or_else(|| ollama::read(text));
    let smi = nvidia_smi::read(text);
    match (engine, smi) {
        (Some(mut log), Some(smi)) => {
            log.readings.extend(smi.readings);
            log.unread.extend(smi.unread);
            log.assumed.extend(smi.assumed);
            if log.scenario.gpu == GpuChoice::default() {
                log.scenario.gpu = smi.scenario.gpu;
            }
            Some(log)
        }
        (Some(log), None) => Some(log),
        (None, Some(mut smi)) => {
            smi.assumed.push(
                "nvidia-smi names no workload: the model given, served as the calculator's defaults"
                    .to_owned(),
            );
            Some(smi)
        }
        (None, None) => None,
    }
}

/// Sets up the scenario the log implies with `model` (or the model the log
/// names, from the catalog) and compares every figure both sides have.
pub fn reconcile(log: &RuntimeLog, model: Option<&ModelSpec>) -> Result<Reconciliation> {
    let resolved;
    let spec = match model {
        Some(spec) => spec,
        // Never a silent guess: a log without a model name needs one given.
        None if log.model.is_none() => return Err(InputError::new(
            "model",
            "the log names no model: give the model (a catalog id or config.json) to compare with",
        )),
        None => {
            resolved = resolve_model(&log.scenario.model).map_err(|e| {
                InputError::new(
                    "model",
                    format!(
                        "{}: give the model (a catalog id or config.json) to compare with",
                        e.message
                    ),
                )
            })?;
            &resolved
        }
    };
    let mut log = log.clone();
    if let Some(n) = context_for_kv(&log, spec) {
        log.scenario.inference.prompt_len = n;
        log.assumed.retain(|a| !a.starts_with("n_ctx not printed"));
        log.assumed.push(format!(
            "-c {n}: n_ctx not printed, the context whose KV cache is the printed one"
        ));
    }
    if let Some(n) = layers_for_share(&log, spec) {
        log.scenario.inference.gpu_layers = Some(n);
        log.assumed
            .retain(|a| !a.starts_with("offloaded layers not printed"));
        log.assumed.push(format!(
            "-ngl {n}: the layers on the GPU whose share is nearest the printed one"
        ));
    }
    let estimate = estimate_with_model(&log.scenario, spec)?;
    let rows = log
        .readings
        .iter()
        .filter_map(|r| row(r, &estimate))
        .collect();
    if let Some(n) = log.model_layers.filter(|n| *n != spec.layers) {
        log.assumed.push(format!(
            "the log counts {n} layers, the model compared with has {}: is it the same model?",
            spec.layers
        ));
    }
    Ok(Reconciliation {
        log,
        estimate,
        rows,
    })
}

/// llama.cpp without its `n_ctx` line: the context (in llama.cpp's cells of
/// 256) whose KV cache, on the GPUs and in host memory, is the one printed.
fn context_for_kv(log: &RuntimeLog, spec: &ModelSpec) -> Option<u64> {
    if !log.context_from_kv {
        return None;
    }
    let printed = log.reading(Figure::KvBufferGpu).map_or(0.0, |r| r.value)
        + log.reading(Figure::KvBufferHost).map_or(0.0, |r| r.value);
    if printed <= 0.0 {
        return None;
    }
    const CELLS: u64 = 256;
    let mut sc = log.scenario.clone();
    sc.inference.prompt_len = CELLS;
    sc.inference.new_tokens = 0;
    let e = estimate_with_model(&sc, spec).ok()?;
    let kv = |lines: &[crate::report::Line]| -> f64 {
        lines
            .iter()
            .filter(|l| l.part == Part::KvCache)
            .map(|l| l.bytes as f64)
            .sum()
    };
    let per_cell = (kv(&e.headline_gpu().lines) + kv(&e.cpu_lines)) / CELLS as f64;
    if per_cell <= 0.0 {
        return None;
    }
    let blocks = (printed / per_cell / CELLS as f64).round().max(1.0);
    Some((blocks as u64).saturating_mul(CELLS))
}

/// `ollama ps` split between CPU and GPU: the layer count (llama.cpp's
/// `-ngl`, the output layer counted last) whose GPU share is nearest the
/// printed one. `None` where the share is all or nothing, or not printed.
fn layers_for_share(log: &RuntimeLog, spec: &ModelSpec) -> Option<u64> {
    let share = log.reading(Figure::GpuShare)?.value;
    if share <= 0.0 || share >= 1.0 || log.scenario.inference.gpu_layers.is_some() {
        return None;
    }
    (0..=spec.layers + 1)
        .filter_map(|n| {
            let mut sc = log.scenario.clone();
            sc.inference.gpu_layers = Some(n);
            let e = estimate_with_model(&sc, spec).ok()?;
            let (gpu, host) = buffers(&e);
            let ours = gpu / (gpu + host).max(1.0);
            Some((n, (ours - share).abs()))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(n, _)| n)
}

/// The buffers a runtime sizes (weights, KV cache, compute) on the GPUs,
/// and everything in host memory: no CUDA context, no workspaces.
fn buffers(e: &Estimate) -> (f64, f64) {
    let buffer = |p: Part| {
        matches!(
            p,
            Part::Weights
                | Part::KvCache
                | Part::Activations
                | Part::RecurrentState
                | Part::CrossAttentionCache
        )
    };
    let per_gpu: u64 = e
        .headline_gpu()
        .lines
        .iter()
        .filter(|l| buffer(l.part))
        .map(|l| l.bytes)
        .sum();
    let host: u64 = e.cpu_lines.iter().map(|l| l.bytes).sum();
    (per_gpu as f64 * e.gpu_count.max(1) as f64, host as f64)
}

/// Our figure for a reading, with its formula.
fn ours(figure: Figure, e: &Estimate) -> Option<(f64, String)> {
    let line = |part: Part| {
        e.headline_gpu()
            .lines
            .iter()
            .find(|l| l.part == part)
            .map(|l| (l.bytes as f64, l.formula.clone()))
    };
    let host = |part: Part| {
        e.cpu_lines
            .iter()
            .find(|l| l.part == part)
            .map(|l| (l.bytes as f64, l.formula.clone()))
    };
    let pool = e.serving.as_ref();
    match figure {
        Figure::Weights => line(Part::Weights),
        Figure::ActivationPeak => line(Part::Activations),
        Figure::NonTorch => line(Part::NonTorch),
        Figure::KvPool => line(Part::KvCache),
        Figure::KvTokens => pool.map(|p| {
            (
                p.kv_pool_tokens as f64,
                format!(
                    "{} blocks × {} tokens",
                    p.kv_pool_tokens / p.block_tokens.max(1),
                    p.block_tokens
                ),
            )
        }),
        Figure::KvBlocks => pool.map(|p| {
            (
                (p.kv_pool_tokens / p.block_tokens.max(1)) as f64,
                format!("KV pool ÷ {} B per block", p.block_bytes),
            )
        }),
        Figure::MaxConcurrency => pool.map(|p| {
            let per_request = p.requested_context.div_ceil(p.block_tokens.max(1)) * p.block_tokens;
            (
                p.kv_pool_tokens as f64 / per_request.max(1) as f64,
                format!(
                    "{} pool tokens ÷ {per_request} tokens per request",
                    p.kv_pool_tokens
                ),
            )
        }),
        Figure::CudaGraphs => None,
        Figure::ModelBufferGpu => line(Part::Weights),
        Figure::KvBufferGpu => line(Part::KvCache),
        Figure::ComputeBufferGpu => line(Part::Activations),
        Figure::ModelBufferHost => host(Part::Weights),
        Figure::KvBufferHost => host(Part::KvCache),
        Figure::HostBuffers => host(Part::Activations),
        Figure::OllamaSize => {
            let (gpu, host) = buffers(e);
            let gpus = match e.gpu_count {
                0 | 1 => String::new(),
                n => format!(" (busiest GPU × {n})"),
            };
            Some((
                gpu + host,
                format!(
                    "GPU weights, KV cache and compute buffer {}{gpus} + host memory {} (no CUDA context)",
                    human_bytes(gpu as u64),
                    human_bytes(host as u64)
                ),
            ))
        }
        Figure::GpuShare => {
            let (gpu, host) = buffers(e);
            Some((
                gpu / (gpu + host).max(1.0),
                format!(
                    "GPU buffers {} ÷ all buffers {}",
                    human_bytes(gpu as u64),
                    human_bytes((gpu + host) as u64)
                ),
            ))
        }
        Figure::DeviceUsed => {
            let g = e.headline_gpu();
            Some((
                g.device_used_bytes as f64,
                "device used: the buffers + CUDA context and libraries; nvidia-smi's used also counts other processes and the driver's own"
                    .to_owned(),
            ))
        }
        Figure::ProcessMemory => {
            let g = e.headline_gpu();
            Some((
                g.device_used_bytes as f64,
                "device used: the buffers + CUDA context and libraries".to_owned(),
            ))
        }
    }
}

fn row(reading: &Reading, e: &Estimate) -> Option<Row> {
    let (ours, formula) = ours(reading.figure, e)?;
    let runtime = reading.value;
    let difference = if runtime == 0.0 {
        0.0
    } else {
        (ours - runtime) / runtime
    };
    Some(Row {
        figure: reading.figure,
        runtime,
        runtime_rounding: reading.rounding,
        ours,
        difference,
        within_rounding: (ours - runtime).abs() <= reading.rounding,
        ours_formula: formula,
        runtime_line: reading.line.clone(),
    })
}
