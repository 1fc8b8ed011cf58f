//! SGLang's start-up log, as 0.5.5 prints it (`file:line` under
//! `sglang/srt/` of the PyPI wheel):
//! - `server_args=ServerArgs(model_path='…', tp_size=…, …)`: the settings;
//! - "Load weight begin. avail mem=X GB" and "Load weight end. type=…,
//!   dtype=torch.bfloat16, avail mem=…, mem usage=W GB."
//!   (`model_executor/model_runner.py:799`): the weights;
//! - "KV Cache is allocated. #tokens: N, K size: a GB, V size: b GB", or
//!   "KV size: c GB" for a latent cache (`mem_cache/memory_pool.py:509`,
//!   `:515`): the pool;
//! - "Capture cuda graph end. … mem usage=g GB." (`model_runner.py:2000`);
//! - "max_total_num_tokens=N, chunked_prefill_size=…, max_prefill_tokens=…,
//!   max_running_requests=R, context_len=L, …" (`managers/scheduler.py:408`).
//!
//! SGLang's "GB" is GiB: free bytes over `1 << 30` (`utils/common.py`,
//! `get_available_gpu_memory`), K and V sizes over `1024³`
//! (`memory_pool.py:66`), printed to 0.01.

use crate::decimal::Decimal;
use crate::doctor::size::read_number;
use crate::precision::Dtype;
use crate::scenario::{Engine, ModelSource, Scenario, TaskKind};

use super::reading::{Figure, Reading, RuntimeLog};

const GIB: f64 = (1u64 << 30) as f64;

/// A size SGLang prints with two decimals: half a hundredth of a GiB.
const ROUNDING: f64 = 0.005 * GIB;

/// Reads an SGLang log; `None` when no line carries an SGLang figure.
pub fn read(text: &str) -> Option<RuntimeLog> {
    let mut log = RuntimeLog {
        engine: "sglang".to_owned(),
        ..RuntimeLog::default()
    };
    let mut settings = Settings::default();
    for raw in text.lines() {
        let line = super::vllm::cut(raw.trim(), super::vllm::MAX_LINE);
        let lower = line.to_ascii_lowercase();
        settings.read(&lower, line);
        read_figures(&lower, line, &mut log, &mut settings);
    }
    if log.readings.is_empty() {
        return None;
    }
    log.model = settings.model.clone();
    log.scenario = settings.scenario(&mut log.assumed);
    Some(log)
}

/// The number after `label` on the line, in GiB as SGLang prints it.
fn gib_after(lower: &str, label: &str) -> Option<f64> {
    let at = lower.find(label)? + label.len();
    read_number(lower.as_bytes(), at).map(|(v, _, _)| v)
}

fn push(log: &mut RuntimeLog, figure: Figure, value: f64, rounding: f64, line: &str) {
    // The first reading stands: every tensor-parallel rank prints its own.
    if log.reading(figure).is_none() {
        log.readings.push(Reading {
            figure,
            value,
            rounding,
            line: line.to_owned(),
        });
    }
}

fn read_figures(lower: &str, line: &str, log: &mut RuntimeLog, settings: &mut Settings) {
    if lower.contains("load weight begin") {
        settings.free_before_weights = settings
            .free_before_weights
            .or(gib_after(lower, "avail mem="));
    }
    if lower.contains("load weight end") {
        if let Some(w) = gib_after(lower, "mem usage=") {
            push(log, Figure::Weights, w * GIB, ROUNDING, line);
        }
        if settings.dtype.is_none() {
            settings.dtype = super::vllm::value_of(lower, line, "dtype").map(str::to_owned);
        }
    }
    if lower.contains("kv cache is allocated") {
        if let Some(n) = gib_after(lower, "#tokens: ") {
            push(log, Figure::KvTokens, n, 0.0, line);
        }
        let pool = match (gib_after(lower, "k size: "), gib_after(lower, "v size: ")) {
            (Some(k), Some(v)) => Some((k + v, 2.0 * ROUNDING)),
            _ => gib_after(lower, "kv size: ").map(|kv| (kv, ROUNDING)),
        };
        if let Some((gib, rounding)) = pool {
            push(log, Figure::KvPool, gib * GIB, rounding, line);
        }
    }
    if lower.contains("capture cuda graph end") {
        if let Some(g) = gib_after(lower, "mem usage=") {
            push(log, Figure::CudaGraphs, g * GIB, ROUNDING, line);
        }
    }
    if let Some(n) = gib_after(lower, "max_total_num_tokens=") {
        push(log, Figure::KvTokens, n, 0.0, line);
    }
}

/// The engine settings the log states.
#[derive(Default)]
struct Settings {
    model: Option<String>,
    tp: Option<u64>,
    pp: Option<u64>,
    dtype: Option<String>,
    quantization: Option<String>,
    kv_cache_dtype: Option<String>,
    mem_fraction_static: Option<f64>,
    chunked_prefill_size: Option<u64>,
    max_running_requests: Option<u64>,
    context_len: Option<u64>,
    /// GiB free before the weights: SGLang's `total_gpu_memory`.
    free_before_weights: Option<f64>,
}

impl Settings {
    fn read(&mut self, lower: &str, line: &str) {
        let text = |key: &str| super::vllm::value_of(lower, line, key);
        let number = |key: &str| text(key).and_then(|v| v.parse::<u64>().ok());
        self.model = self.model.take().or(text("model_path").map(str::to_owned));
        self.tp = self.tp.or(number("tp_size"));
        self.pp = self.pp.or(number("pp_size"));
        self.chunked_prefill_size = self.chunked_prefill_size.or(number("chunked_prefill_size"));
        self.max_running_requests = self.max_running_requests.or(number("max_running_requests"));
        self.context_len = self
            .context_len
            .or(number("context_length"))
            .or(number("context_len"));
        self.mem_fraction_static = self
            .mem_fraction_static
            .or(text("mem_fraction_static").and_then(|v| v.parse().ok()));
        if lower.contains("serverargs(") {
            self.dtype = self.dtype.take().or(text("dtype").map(str::to_owned));
            self.quantization = self
                .quantization
                .take()
                .or(text("quantization").map(|v| v.to_ascii_lowercase()));
            self.kv_cache_dtype = self
                .kv_cache_dtype
                .take()
                .or(text("kv_cache_dtype").map(|v| v.to_ascii_lowercase()));
        }
    }

    /// The scenario: an SGLang engine on the card whose free memory the
    /// log printed, serving one request of the model's context.
    fn scenario(&self, assumed: &mut Vec<String>) -> Scenario {
        let mut sc = Scenario {
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        sc.inference.engine = Engine::Sglang;
        match &self.model {
            Some(id) => sc.model = ModelSource::Catalog(id.clone()),
            None => assumed.push("the log names no model".to_owned()),
        }
        let (tp, pp) = (self.tp.unwrap_or(1).max(1), self.pp.unwrap_or(1).max(1));
        sc.parallel.tp = tp;
        sc.parallel.pp = pp;
        sc.parallel.gpus = tp * pp;
        let dtype = self.dtype.as_deref().map(str::to_ascii_lowercase);
        let compute = match dtype.as_deref() {
            Some(d) if d.contains("bfloat16") => Dtype::Bf16,
            Some(d) if d.contains("float16") => Dtype::Fp16,
            _ => {
                assumed.push("dtype not printed: bf16".to_owned());
                Dtype::Bf16
            }
        };
        sc.compute_dtype = compute;
        sc.weights = super::reading::served_weights(self.quantization.as_deref(), compute, assumed);
        sc.inference.kv_cache_dtype = match self.kv_cache_dtype.as_deref() {
            Some(k) if k.starts_with("fp8") => Some(Dtype::Fp8),
            _ => None,
        };
        match self.context_len {
            Some(len) => sc.inference.prompt_len = len.max(1),
            None => assumed.push(format!(
                "context_len not printed: {} tokens",
                sc.inference.prompt_len
            )),
        }
        sc.inference.new_tokens = 0;
        sc.inference.batch = 1;
        sc.inference.mem_fraction_static =
            self.mem_fraction_static.filter(|f| *f > 0.0 && *f < 1.0);
        sc.inference.chunked_prefill_size = self.chunked_prefill_size;
        sc.inference.max_num_seqs = self.max_running_requests;
        match self.free_before_weights {
            // SGLang sizes its pool from the memory free after the CUDA
            // context and the communicators: the card is that much larger.
            Some(free) => {
                let context = crate::overhead::cuda_context_bytes(None).0;
                let communicators = if tp * pp > 1 {
                    crate::serving::communicator_bytes()
                } else {
                    0
                };
                let total = (free * GIB).round() as u64 + context + communicators;
                sc.gpu.memory_bytes = Some(total);
                assumed.push(format!(
                    "the card's total: the {:.2} GiB free before the weights, plus the CUDA context and communicators as the estimator counts them",
                    Decimal(free)
                ));
            }
            None => assumed
                .push("the memory free before the weights is not printed: give the GPU".to_owned()),
        }
        sc
    }
}
