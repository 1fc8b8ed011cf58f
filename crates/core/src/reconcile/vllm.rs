//! vLLM's start-up log: the engine's config line (or its non-default args),
//! the memory profile (`gpu_worker.py`: "Memory profiling takes ... weights
//! memory ...; torch peak memory increase ...; non-torch forward increase
//! memory ..." in V1, "model weights take ...; non_torch_memory takes ...;
//! PyTorch activation peak memory takes ...; the rest of the memory reserved
//! for KV Cache is ..." in V0), "Available KV cache memory", "GPU KV cache
//! size: N tokens", "# GPU blocks: N", "Maximum concurrency for N tokens
//! per request: Xx" and the CUDA-graph capture line.

use crate::decimal::Decimal;
use crate::doctor::size::{read_number, size_at, GbMeaning, ParsedSize};
use crate::precision::Dtype;
use crate::scenario::{Engine, ModelSource, Scenario, TaskKind};

use super::reading::{Figure, Reading, RuntimeLog};

/// Longest line read: a log line longer than this is cut (pastes of whole
/// JSON configs on one line stay bounded).
pub(super) const MAX_LINE: usize = 8192;

/// Labels after which vLLM prints a size, per figure, across versions.
const SIZES: [(&str, Figure); 11] = [
    ("model loading took ", Figure::Weights),
    ("weights memory: ", Figure::Weights),
    ("model weights take ", Figure::Weights),
    ("torch peak memory increase: ", Figure::ActivationPeak),
    ("activation peak memory takes ", Figure::ActivationPeak),
    ("non-torch forward increase memory: ", Figure::NonTorch),
    ("non_torch_memory takes ", Figure::NonTorch),
    ("non_torch_memory=", Figure::NonTorch),
    ("kv_cache_size=", Figure::KvPool),
    ("available kv cache memory: ", Figure::KvPool),
    ("reserved for kv cache is ", Figure::KvPool),
];

/// Labels after which vLLM prints a count.
const COUNTS: [(&str, Figure); 4] = [
    ("gpu kv cache size: ", Figure::KvTokens),
    ("# gpu blocks: ", Figure::KvBlocks),
    ("# cuda blocks: ", Figure::KvBlocks),
    ("num_gpu_blocks is: ", Figure::KvBlocks),
];

/// Reads a vLLM log; `None` when no line carries a vLLM figure.
pub fn read(text: &str) -> Option<RuntimeLog> {
    let mut log = RuntimeLog {
        engine: "vllm".to_owned(),
        ..RuntimeLog::default()
    };
    let mut settings = Settings::default();
    for raw in text.lines() {
        let line = cut(raw.trim(), MAX_LINE);
        let lower = line.to_ascii_lowercase();
        settings.read(&lower, line);
        read_figures(&lower, line, &mut log);
    }
    if log.readings.is_empty() {
        return None;
    }
    log.version = settings.version.clone();
    log.model = settings.model.clone();
    log.scenario = settings.scenario(&mut log.assumed);
    Some(log)
}

pub(super) fn cut(line: &str, max: usize) -> &str {
    if line.len() <= max {
        return line;
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

fn push(log: &mut RuntimeLog, figure: Figure, value: f64, rounding: f64, line: &str) {
    // The first reading of each figure stands (a log may repeat them per worker).
    if log.reading(figure).is_none() {
        log.readings.push(Reading {
            figure,
            value,
            rounding,
            line: line.to_owned(),
        });
    }
}

fn read_figures(lower: &str, line: &str, log: &mut RuntimeLog) {
    let bytes = lower.as_bytes();
    for (label, figure) in SIZES {
        if let Some(at) = lower.find(label) {
            if let Some((size, _)) = size_at(bytes, at + label.len(), GbMeaning::Binary) {
                push(
                    log,
                    figure,
                    size.bytes as f64,
                    size.rounding_bytes as f64,
                    line,
                );
            }
        }
    }
    for (label, figure) in COUNTS {
        if let Some(at) = lower.find(label) {
            if let Some((value, _, _)) = read_number(bytes, at + label.len()) {
                push(log, figure, value, 0.0, line);
            }
        }
    }
    if let Some(at) = lower.find("maximum concurrency for ") {
        let after = at + "maximum concurrency for ".len();
        if let Some(per) = lower[after..].find("per request: ") {
            let start = after + per + "per request: ".len();
            if let Some((value, decimals, _)) = read_number(bytes, start) {
                let rounding = 0.5 * 10f64.powi(-(decimals.min(30) as i32));
                push(log, Figure::MaxConcurrency, value, rounding, line);
            }
        }
    }
    if lower.contains("graph capturing finished") {
        if let Some(at) = lower.find(" took ") {
            if let Some((size, _)) = size_at(bytes, at + " took ".len(), GbMeaning::Binary) {
                push(
                    log,
                    Figure::CudaGraphs,
                    size.bytes as f64,
                    size.rounding_bytes as f64,
                    line,
                );
            }
        }
    }
}

/// The engine settings the log states.
#[derive(Default)]
struct Settings {
    version: Option<String>,
    model: Option<String>,
    tp: Option<u64>,
    pp: Option<u64>,
    dtype: Option<String>,
    quantization: Option<String>,
    kv_cache_dtype: Option<String>,
    max_model_len: Option<u64>,
    utilization: Option<f64>,
    total: Option<ParsedSize>,
    max_num_seqs: Option<u64>,
    max_num_batched_tokens: Option<u64>,
    /// "Initializing a V0 LLM engine": the V0 engine whatever the version.
    v0_engine: bool,
}

/// The tokens vLLM's V0 scheduler steps through without chunked prefill,
/// which V0 turned on by itself only past 32K tokens of context
/// (`SchedulerConfig`: `max(max_model_len, 2048)`; `EngineArgs`'
/// long-context rule), and its `max_num_seqs` default, 256.
const V0_LONG_CONTEXT: u64 = 32_768;
const V0_MIN_BATCHED_TOKENS: u64 = 2048;
const V0_MAX_NUM_SEQS: u64 = 256;

/// The value after `key=` or `'key': ` in a config line or an args dict.
/// The model of "Starting to load model Qwen/Qwen2.5-7B-Instruct..."
/// (`GPUModelRunner.load_model`), which a log cut before the engine's
/// config line still shows.
fn loading_model<'a>(lower: &str, line: &'a str) -> Option<&'a str> {
    const LABEL: &str = "starting to load model ";
    let at = lower.find(LABEL)? + LABEL.len();
    let rest = line.get(at..)?.trim_end();
    let name = rest.trim_end_matches('.');
    let name = name.split_whitespace().next()?;
    (!name.is_empty()).then_some(name)
}

pub(super) fn value_of<'a>(lower: &str, line: &'a str, key: &str) -> Option<&'a str> {
    for sep in ["=", "': ", "\": "] {
        let pattern = format!("{key}{sep}");
        // The key itself, not the end of a longer one (`kv_cache_dtype=`
        // is not `dtype=`).
        let Some(at) = lower.match_indices(&pattern).map(|(i, _)| i).find(|&i| {
            !lower[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        }) else {
            continue;
        };
        let start = at + pattern.len();
        let rest = line.get(start..)?;
        let rest = rest.trim_start_matches(['\'', '"']);
        let end = rest
            .find([',', '\'', '"', '}', ')', ' '])
            .unwrap_or(rest.len());
        let value = &rest[..end];
        if !value.is_empty() {
            return Some(value);
        }
    }
    None
}

impl Settings {
    fn read(&mut self, lower: &str, line: &str) {
        let number = |key: &str| value_of(lower, line, key).and_then(|v| v.parse::<u64>().ok());
        if self.version.is_none() {
            // "LLM engine (v0.19.0)", "vLLM API server version 0.9.1".
            for label in ["llm engine (v", "vllm api server version "] {
                if let Some(at) = lower.find(label) {
                    let rest = &line[at + label.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '+'))
                        .unwrap_or(rest.len());
                    if end > 0 && rest.as_bytes()[0].is_ascii_digit() {
                        self.version = Some(rest[..end].to_owned());
                        break;
                    }
                }
            }
        }
        self.v0_engine |= lower.contains("v0 llm engine");
        if self.model.is_none() {
            self.model = value_of(lower, line, "model")
                .or_else(|| loading_model(lower, line))
                .map(str::to_owned);
        }
        self.tp = self.tp.or(number("tensor_parallel_size"));
        self.pp = self.pp.or(number("pipeline_parallel_size"));
        self.max_model_len = self
            .max_model_len
            .or(number("max_seq_len"))
            .or(number("max_model_len"));
        self.max_num_seqs = self.max_num_seqs.or(number("max_num_seqs"));
        self.max_num_batched_tokens = self
            .max_num_batched_tokens
            .or(number("max_num_batched_tokens"));
        if self.dtype.is_none() {
            self.dtype = value_of(lower, line, "dtype").map(|v| v.to_ascii_lowercase());
        }
        if self.quantization.is_none() {
            self.quantization =
                value_of(lower, line, "quantization").map(|v| v.to_ascii_lowercase());
        }
        if self.kv_cache_dtype.is_none() {
            self.kv_cache_dtype =
                value_of(lower, line, "kv_cache_dtype").map(|v| v.to_ascii_lowercase());
        }
        if self.utilization.is_none() {
            self.utilization = value_of(lower, line, "gpu_memory_utilization")
                .and_then(|v| v.parse().ok())
                .or_else(|| {
                    let at =
                        lower.find("gpu_memory_utilization (")? + "gpu_memory_utilization (".len();
                    read_number(lower.as_bytes(), at).map(|(v, _, _)| v)
                });
        }
        // V1: "Requested memory: 0.90 (util), 71.20 GiB" (gpu_worker.py).
        if let Some(at) = lower.find("requested memory: ") {
            let start = at + "requested memory: ".len();
            let util = read_number(lower.as_bytes(), start).map(|(v, _, _)| v);
            let size = lower[start..].find("(util), ").and_then(|k| {
                size_at(
                    lower.as_bytes(),
                    start + k + "(util), ".len(),
                    GbMeaning::Binary,
                )
            });
            if let (Some(u), Some((requested, _))) = (util, size) {
                if u > 0.0 && u <= 1.0 {
                    self.utilization = self.utilization.or(Some(u));
                    self.total = self.total.or(Some(ParsedSize {
                        bytes: (requested.bytes as f64 / u).round() as u64,
                        rounding_bytes: (requested.rounding_bytes as f64 / u).round() as u64,
                    }));
                }
            }
        }
        if self.total.is_none() {
            if let Some(at) = lower.find("total_gpu_memory (") {
                self.total = size_at(
                    lower.as_bytes(),
                    at + "total_gpu_memory (".len(),
                    GbMeaning::Binary,
                )
                .map(|(s, _)| s);
            }
        }
    }

    /// The scenario: a vLLM engine serving one sequence of `max_model_len`
    /// tokens (the figure vLLM's concurrency line is about).
    fn scenario(&self, assumed: &mut Vec<String>) -> Scenario {
        let mut sc = Scenario {
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        sc.inference.engine = Engine::Vllm;
        match &self.model {
            Some(id) => sc.model = ModelSource::Catalog(id.clone()),
            None => assumed.push("the log names no model".to_owned()),
        }
        let tp = self.tp.unwrap_or(1).max(1);
        let pp = self.pp.unwrap_or(1).max(1);
        sc.parallel.tp = tp;
        sc.parallel.pp = pp;
        sc.parallel.gpus = tp * pp;
        let compute = match self.dtype.as_deref() {
            Some(d) if d.contains("float16") && !d.contains("bfloat16") => Dtype::Fp16,
            Some(d) if d.contains("float32") => Dtype::Fp32,
            Some(_) => Dtype::Bf16,
            None => {
                assumed.push("dtype not printed: bf16".to_owned());
                Dtype::Bf16
            }
        };
        sc.compute_dtype = if compute == Dtype::Fp32 {
            Dtype::Bf16
        } else {
            compute
        };
        sc.weights = super::reading::served_weights(self.quantization.as_deref(), compute, assumed);
        sc.inference.kv_cache_dtype = match self.kv_cache_dtype.as_deref() {
            Some(k) if k.starts_with("fp8") => Some(Dtype::Fp8),
            Some("fp32" | "float32") => Some(Dtype::Fp32),
            _ if compute == Dtype::Fp32 => Some(Dtype::Fp32),
            _ => None,
        };
        match self.max_model_len {
            Some(len) => sc.inference.prompt_len = len.max(1),
            None => assumed.push(format!(
                "max_model_len not printed: {} tokens",
                sc.inference.prompt_len
            )),
        }
        sc.inference.new_tokens = 0;
        sc.inference.batch = 1;
        match self.utilization {
            Some(u) if u > 0.0 && u <= 1.0 => sc.inference.gpu_memory_utilization = u,
            _ => assumed.push(format!(
                "gpu_memory_utilization not printed: {}",
                Decimal(sc.inference.gpu_memory_utilization)
            )),
        }
        match self.total {
            Some(total) => sc.gpu.memory_bytes = Some(total.bytes),
            None => assumed.push("the GPU's total memory is not printed: give the GPU".to_owned()),
        }
        sc.inference.max_num_seqs = self.max_num_seqs;
        sc.inference.max_num_batched_tokens = self.max_num_batched_tokens;
        if self.v0() {
            self.v0_defaults(&mut sc, assumed);
        }
        sc
    }

    /// The V0 engine: every vLLM before 0.8, and a later one that says so.
    fn v0(&self) -> bool {
        let before_0_8 = self.version.as_deref().is_some_and(|v| {
            let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
            matches!((parts.next(), parts.next()), (Some(Some(0)), Some(Some(minor))) if minor < 8)
        });
        self.v0_engine || before_0_8
    }

    /// V0's scheduler defaults where the log states none: its profile run
    /// steps through `max(max_model_len, 2048)` tokens over 256 sequences,
    /// not V1's 8192 tokens over 1024.
    fn v0_defaults(&self, sc: &mut Scenario, assumed: &mut Vec<String>) {
        let len = sc.inference.prompt_len;
        if sc.inference.max_num_seqs.is_none() {
            sc.inference.max_num_seqs = Some(V0_MAX_NUM_SEQS);
        }
        if sc.inference.max_num_batched_tokens.is_none() {
            if len <= V0_LONG_CONTEXT {
                let tokens = len.max(V0_MIN_BATCHED_TOKENS);
                sc.inference.max_num_batched_tokens = Some(tokens);
                assumed.push(format!(
                    "V0 engine: a profile of max(max_model_len, 2048) = {tokens} tokens over 256 sequences (its scheduler's defaults without chunked prefill)"
                ));
            } else {
                assumed.push(
                    "V0 engine past 32K tokens: chunked prefill was on by default; V1's step of 8192 tokens (2048 on smaller cards) assumed"
                        .to_owned(),
                );
            }
        }
    }
}
