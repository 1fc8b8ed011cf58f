//! Measured cases (`shared/groundtruth/FORMAT.md`, version 1): turn one into
//! a scenario, estimate the metric it measured, and score the estimate.

use serde::{Deserialize, Serialize};

use crate::estimate::{effective_counts, estimate_with_model};
use crate::gpu::find_gpu;
use crate::model::{Arch, MlpKind, ModelSpec, Moe, NormKind, SlidingWindow};
use crate::overhead::cuda_context_bytes;
use crate::precision::{Dtype, TrainingPrecision, WeightFormat};
use crate::scenario::*;

/// One measured run, as in `cases.jsonl`. Unknown fields are ignored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Case {
    pub id: String,
    pub reliability: String,
    pub framework: String,
    pub model: CaseModel,
    pub task: String,
    pub precision: CasePrecision,
    pub training: Option<CaseTraining>,
    pub inference: Option<CaseInference>,
    pub attention: Option<String>,
    pub parallel: CaseParallel,
    pub gpu: CaseGpu,
    pub measured: CaseMeasured,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseModel {
    pub name: String,
    pub arch: String,
    pub params: Option<u64>,
    pub layers: Option<u64>,
    pub hidden: Option<u64>,
    pub heads: Option<u64>,
    pub kv_heads: Option<u64>,
    pub head_dim: Option<u64>,
    pub intermediate: Option<u64>,
    pub vocab: Option<u64>,
    pub tied_embeddings: Option<bool>,
    pub max_position: Option<u64>,
    pub encoder_layers: Option<u64>,
    pub decoder_layers: Option<u64>,
    pub experts: Option<u64>,
    pub experts_per_token: Option<u64>,
    pub shared_experts: Option<u64>,
    pub moe_intermediate: Option<u64>,
    pub sliding_window: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CasePrecision {
    pub weights: Option<String>,
    pub double_quant: Option<bool>,
    pub group_size: Option<u64>,
    pub compute: Option<String>,
    pub mixed_precision: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseLora {
    pub rank: Option<u64>,
    pub alpha: Option<f64>,
    pub dropout: Option<f64>,
    pub targets: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseTraining {
    pub method: Option<String>,
    pub lora: Option<CaseLora>,
    pub trainable_params: Option<u64>,
    pub optimizer: Option<String>,
    pub optimizer_state_dtype: Option<String>,
    pub optimizer_in_backward: Option<bool>,
    pub micro_batch: Option<u64>,
    pub grad_accum: Option<u64>,
    pub seq_len: Option<u64>,
    pub gradient_checkpointing: Option<String>,
    pub activation_offload: Option<bool>,
    pub chunked_loss: Option<bool>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseInference {
    pub batch: Option<u64>,
    pub prompt_len: Option<u64>,
    pub new_tokens: Option<u64>,
    pub kv_cache_dtype: Option<String>,
    pub engine: Option<String>,
    pub gpu_memory_utilization: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseParallel {
    pub gpus: Option<u64>,
    pub strategy: Option<String>,
    pub tp: Option<u64>,
    pub pp: Option<u64>,
    pub offload: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseGpu {
    pub name: Option<String>,
    pub memory_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseMeasured {
    pub metric: String,
    pub bytes: Option<u64>,
}

/// How a case came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Unsupported,
    BoundPass,
    BoundFail,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseScore {
    pub id: String,
    pub metric: String,
    pub estimate_bytes: Option<u64>,
    pub measured_bytes: Option<u64>,
    pub rel_error: Option<f64>,
    pub status: Status,
    /// Why a case is unsupported, or what a bound was compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

fn unsupported(why: impl Into<String>) -> String {
    why.into()
}

fn dtype(s: &str) -> Option<Dtype> {
    match s {
        "fp32" => Some(Dtype::Fp32),
        "fp16" => Some(Dtype::Fp16),
        "bf16" => Some(Dtype::Bf16),
        "fp8" => Some(Dtype::Fp8),
        "int8" => Some(Dtype::Int8),
        _ => None,
    }
}

/// Architecture defaults the case fields leave out (biases, norms, MLP shape),
/// from each family's transformers implementation.
fn arch_defaults(arch: &str) -> Option<(Arch, MlpKind, NormKind, bool, bool, bool)> {
    // (arch, mlp, norm, qkv_bias, out_bias, tied by default)
    Some(match arch {
        "llama" => (
            Arch::Llama,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "mistral" => (
            Arch::Mistral,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "mixtral" => (
            Arch::Mixtral,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "qwen2" => (
            Arch::Qwen2,
            MlpKind::Gated,
            NormKind::Rms,
            true,
            false,
            false,
        ),
        "qwen2_moe" => (
            Arch::Qwen2Moe,
            MlpKind::Gated,
            NormKind::Rms,
            true,
            false,
            false,
        ),
        "qwen3" => (
            Arch::Qwen3,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "qwen3_moe" => (
            Arch::Qwen3Moe,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "gemma" => (
            Arch::Gemma,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            true,
        ),
        "gemma2" => (
            Arch::Gemma2,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            true,
        ),
        "phi" => (
            Arch::Phi,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            false,
        ),
        "phi3" => (
            Arch::Phi3,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "gpt2" => (
            Arch::Gpt2,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            true,
        ),
        "gpt_neox" | "stablelm" => (
            Arch::GptNeox,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            false,
        ),
        "opt" => (Arch::Opt, MlpKind::Plain, NormKind::Layer, true, true, true),
        "falcon" => (
            Arch::Falcon,
            MlpKind::Plain,
            NormKind::Layer,
            false,
            false,
            false,
        ),
        "bloom" => (
            Arch::Bloom,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            true,
        ),
        "gpt_bigcode" => (
            Arch::GptBigcode,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            true,
        ),
        "bert" | "deberta_v2" => (
            Arch::Bert,
            MlpKind::Plain,
            NormKind::Layer,
            true,
            true,
            true,
        ),
        "t5" => (Arch::T5, MlpKind::Gated, NormKind::Rms, false, false, false),
        "deepseek_v2" => (
            Arch::DeepseekV2,
            MlpKind::Gated,
            NormKind::Rms,
            false,
            false,
            false,
        ),
        "gpt_oss" => (
            Arch::GptOss,
            MlpKind::Gated,
            NormKind::Rms,
            true,
            true,
            false,
        ),
        _ => return None,
    })
}

/// The model of a case: the catalog entry when the case names one, else its fields.
pub fn case_model(case: &Case) -> Result<ModelSpec, String> {
    let m = &case.model;
    if let Some(entry) = crate::catalog::find_model(&m.name) {
        let close = |spec: &ModelSpec, target: u64| {
            let total = spec.param_counts().total;
            total.abs_diff(target) * 1000 <= target
        };
        match m.params {
            None => return Ok(entry.spec.clone()),
            Some(target) if close(&entry.spec, target) => return Ok(entry.spec.clone()),
            // Some frameworks (litgpt) keep a separate copy of a tied head.
            Some(target) => {
                let mut untied = entry.spec.clone();
                untied.tied_embeddings = false;
                if close(&untied, target) {
                    return Ok(untied);
                }
            }
        }
    }
    let (arch, mlp, norm, qkv_bias, out_bias, tied) = arch_defaults(&m.arch).ok_or_else(|| {
        unsupported(format!(
            "architecture \"{}\" is not a transformer LLM the estimator models",
            m.arch
        ))
    })?;
    let need =
        |v: Option<u64>, f: &str| v.ok_or_else(|| unsupported(format!("model.{f} not stated")));
    let hidden = need(m.hidden, "hidden")?;
    let heads = need(m.heads, "heads")?;
    let layers = need(m.layers.or(m.decoder_layers), "layers")?;
    let moe = match (m.experts, m.experts_per_token) {
        (Some(e), Some(k)) => Some(Moe {
            experts: e,
            experts_per_token: k,
            shared_experts: m.shared_experts.unwrap_or(0),
            expert_intermediate: m.moe_intermediate.or(m.intermediate).unwrap_or(hidden),
            shared_intermediate: None,
            dense_layers: 0,
        }),
        _ => None,
    };
    let spec = ModelSpec {
        name: m.name.clone(),
        arch,
        hidden,
        layers,
        heads,
        kv_heads: m.kv_heads.unwrap_or(heads),
        head_dim: m.head_dim,
        intermediate: m.intermediate.unwrap_or(4 * hidden),
        vocab: need(m.vocab, "vocab")?,
        max_position: m.max_position.unwrap_or(2048),
        tied_embeddings: m.tied_embeddings.unwrap_or(tied),
        mlp,
        norm,
        qkv_bias,
        out_bias,
        moe,
        mla: None,
        sliding_window: m.sliding_window.map(|w| SlidingWindow {
            window: w,
            layers: 0,
        }),
        encoder_layers: m.encoder_layers,
        vision: None,
        params_override: m.params,
        approximate: false,
        ..ModelSpec::default()
    };
    spec.validate().map_err(|e| e.to_string())?;
    Ok(spec)
}

/// The scenario a case describes, or why it cannot be expressed.
pub fn case_scenario(case: &Case) -> Result<Scenario, String> {
    let mut sc = Scenario::default();
    let p = &case.precision;
    let compute = p.compute.as_deref().and_then(dtype).unwrap_or(Dtype::Bf16);
    sc.compute_dtype = if compute == Dtype::Fp32 {
        Dtype::Bf16
    } else {
        compute
    };
    sc.weights = match p.weights.as_deref() {
        None => WeightFormat::Bf16,
        Some("w8a8") => WeightFormat::Int8,
        Some(w) => {
            WeightFormat::parse(w).ok_or_else(|| unsupported(format!("weight format \"{w}\"")))?
        }
    };
    sc.double_quant = p.double_quant.unwrap_or(false);
    sc.group_size = p.group_size.unwrap_or(128);
    sc.training_precision = match p.mixed_precision.as_deref() {
        Some("amp") => TrainingPrecision::Amp,
        Some("none") => TrainingPrecision::Fp32,
        _ => TrainingPrecision::Pure16,
    };
    if sc.training_precision == TrainingPrecision::Fp32 && sc.weights == WeightFormat::Fp32 {
        sc.compute_dtype = Dtype::Fp16;
    }
    sc.attention = match case.attention.as_deref() {
        Some("eager") => Attention::Eager,
        Some("flash") => Attention::Flash,
        _ => Attention::Sdpa,
    };
    let framework = match case.framework.as_str() {
        "litgpt" => Framework::Litgpt,
        "torchtune" => Framework::Torchtune,
        "deepspeed" => Framework::Deepspeed,
        "hf-trainer" => Framework::HfTrainer,
        "diffusers" => {
            return Err(unsupported(
                "diffusers (UNet) training is not a transformer LLM the estimator models",
            ))
        }
        _ => Framework::Transformers,
    };
    // DeepSpeed "fp16" keeps 16-bit module weights and an fp32 master copy in
    // the optimizer (FORMAT maps it to weights fp32 / amp).
    if framework == Framework::Deepspeed && sc.training_precision == TrainingPrecision::Amp {
        sc.weights = WeightFormat::Fp16;
        sc.compute_dtype = Dtype::Fp16;
    }
    let par = &case.parallel;
    sc.parallel.gpus = par.gpus.unwrap_or(1);
    sc.parallel.tp = par.tp.unwrap_or(1);
    sc.parallel.pp = par.pp.unwrap_or(1);
    sc.parallel.strategy = match par.strategy.as_deref() {
        Some("ddp") => Strategy::Ddp,
        Some("zero1") => Strategy::Zero1,
        Some("zero2") => Strategy::Zero2,
        Some("zero3") => Strategy::Zero3,
        Some("fsdp") => Strategy::Fsdp,
        _ => Strategy::None,
    };
    sc.parallel.offload = match par.offload.as_deref() {
        Some("optimizer") => Offload::Optimizer,
        Some("optimizer+params") => Offload::OptimizerParams,
        _ => Offload::None,
    };
    if let Some(name) = &case.gpu.name {
        if find_gpu(name).is_some() {
            sc.gpu.name = Some(name.clone());
        }
    }
    sc.gpu.memory_bytes = case.gpu.memory_bytes;

    match case.task.as_str() {
        "training" | "model_load" => {
            sc.task = TaskKind::Training;
            let t = case.training.clone().unwrap_or_default();
            let tr = &mut sc.training;
            tr.framework = framework;
            tr.method = match t.method.as_deref() {
                Some("lora") => Method::Lora,
                Some("qlora") => Method::Qlora,
                Some("adapter") => Method::Adapter,
                Some("adapter_v2") => Method::AdapterV2,
                Some("fwd_bwd_only") => Method::ForwardBackward,
                _ => Method::Full,
            };
            if let Some(l) = &t.lora {
                tr.lora.rank = l.rank.unwrap_or(8);
                let mut targets = Vec::new();
                for name in &l.targets {
                    targets.extend(
                        LoraTarget::parse(name)
                            .ok_or_else(|| unsupported(format!("LoRA target \"{name}\"")))?,
                    );
                }
                targets.dedup();
                if !targets.is_empty() {
                    tr.lora.targets = targets;
                }
                // Framework defaults when the case does not say: litgpt 0.05
                // (finetune/lora.py), torchtune 0.0 (lora builders), PEFT examples 0.1.
                tr.lora.dropout = l.dropout.unwrap_or(match framework {
                    Framework::Litgpt => 0.05,
                    Framework::Torchtune => 0.0,
                    _ => 0.1,
                });
            }
            tr.trainable_params = t.trainable_params;
            tr.optimizer = match t.optimizer.as_deref() {
                Some("adam") => Optimizer::Adam,
                Some("adamw_8bit") => Optimizer::Adamw8bit,
                Some("paged_adamw") => Optimizer::PagedAdamw,
                Some("paged_adamw_8bit") => Optimizer::PagedAdamw8bit,
                Some("adafactor") => Optimizer::Adafactor,
                Some("sgd") => Optimizer::Sgd,
                Some("sgd_momentum") => Optimizer::SgdMomentum,
                Some("none") => Optimizer::None,
                _ => Optimizer::Adamw,
            };
            tr.optimizer_state_dtype = t
                .optimizer_state_dtype
                .as_deref()
                .and_then(dtype)
                .filter(|d| *d != Dtype::Int8);
            tr.optimizer_in_backward = t.optimizer_in_backward.unwrap_or(false);
            tr.micro_batch = t.micro_batch.unwrap_or(1);
            tr.grad_accum = t.grad_accum.unwrap_or(1);
            tr.checkpointing = match t.gradient_checkpointing.as_deref() {
                Some("full") => Checkpointing::Full,
                Some("selective") => Checkpointing::Selective,
                _ => Checkpointing::Off,
            };
            tr.activation_offload = t.activation_offload.unwrap_or(false);
            tr.chunked_loss = t.chunked_loss.unwrap_or(false);
            if case.task == "training" {
                tr.seq_len = t
                    .seq_len
                    .ok_or_else(|| unsupported("training.seq_len not stated"))?;
            }
        }
        "inference" => {
            sc.task = TaskKind::Inference;
            let i = case.inference.clone().unwrap_or_default();
            let inf = &mut sc.inference;
            inf.engine = match (case.framework.as_str(), i.engine.as_deref()) {
                (_, Some("vllm")) | ("vllm", _) => Engine::Vllm,
                (_, Some("litgpt")) | ("litgpt", _) => Engine::Litgpt,
                (_, Some("llama.cpp" | "llama_cpp")) => Engine::LlamaCpp,
                _ => Engine::Transformers,
            };
            inf.kv_cache_dtype = i.kv_cache_dtype.as_deref().and_then(dtype);
            inf.gpu_memory_utilization = i.gpu_memory_utilization.unwrap_or(0.9);
            inf.batch = i.batch.unwrap_or(1);
            let per_token_only = matches!(
                case.measured.metric.as_str(),
                "weights_only" | "kv_bytes_per_token"
            );
            inf.prompt_len = match i.prompt_len {
                Some(p) => p.max(1),
                None if per_token_only => 1,
                None => return Err(unsupported("inference.prompt_len not stated")),
            };
            inf.new_tokens = i.new_tokens.unwrap_or(0);
        }
        "cuda_context" => {}
        other => return Err(unsupported(format!("task \"{other}\""))),
    }
    Ok(sc)
}

/// Estimates the case's metric and compares it with the measurement.
pub fn score_case(case: &Case) -> CaseScore {
    let metric = case.measured.metric.clone();
    let mut out = CaseScore {
        id: case.id.clone(),
        metric: metric.clone(),
        estimate_bytes: None,
        measured_bytes: case.measured.bytes,
        rel_error: None,
        status: Status::Unsupported,
        reason: None,
    };
    let result = (|| -> Result<u64, String> {
        let sc = case_scenario(case)?;
        if case.task == "cuda_context" {
            let gpu = case.gpu.name.as_deref().and_then(find_gpu);
            // The probe allocates one tiny tensor: PyTorch reserves a 2 MiB block.
            return Ok(cuda_context_bytes(gpu).0 + (2 << 20));
        }
        let spec = case_model(case)?;
        let mut sc = sc;
        sc.model = ModelSource::Spec(Box::new(spec.clone()));
        if case.task == "model_load" {
            return model_load_bytes(&sc, &spec, &metric);
        }
        let e = estimate_with_model(&sc, &spec).map_err(|e| e.to_string())?;
        let g = e.worst_gpu();
        Ok(match metric.as_str() {
            "peak_allocated" | "peak_active" => g.peak_allocated_bytes,
            "peak_reserved" => g.peak_reserved_bytes,
            "device_used" | "oom_lower_bound" | "fits_upper_bound" => g.device_used_bytes,
            "allocated_plus_context" => g.peak_allocated_bytes + context_of(g),
            "weights_only" => g.weights_bytes,
            "kv_bytes_per_token" => g.kv_bytes_per_token,
            other => return Err(unsupported(format!("metric \"{other}\""))),
        })
    })();
    match result {
        Err(why) => out.reason = Some(why),
        Ok(estimate) => {
            out.estimate_bytes = Some(estimate);
            let capacity = case.gpu.memory_bytes;
            match (metric.as_str(), capacity, case.measured.bytes) {
                ("oom_lower_bound", Some(cap), _) => {
                    out.status = if estimate > cap {
                        Status::BoundPass
                    } else {
                        Status::BoundFail
                    };
                    out.reason = Some(format!("estimate must exceed capacity {cap}"));
                }
                ("fits_upper_bound", Some(cap), _) => {
                    out.status = if estimate <= cap {
                        Status::BoundPass
                    } else {
                        Status::BoundFail
                    };
                    out.reason = Some(format!("estimate must be at most capacity {cap}"));
                }
                (_, _, Some(measured)) if measured > 0 => {
                    out.rel_error = Some((estimate as f64 - measured as f64) / measured as f64);
                    out.status = Status::Ok;
                }
                _ => out.reason = Some("no measured bytes to compare with".into()),
            }
        }
    }
    out
}

fn context_of(g: &crate::report::GpuReport) -> u64 {
    g.lines
        .iter()
        .filter(|l| l.part == crate::report::Part::CudaContext)
        .map(|l| l.bytes)
        .sum()
}

/// Right after loading: weights (+ adapter parameters), the loading
/// transient the allocator keeps cached, and the context.
fn model_load_bytes(sc: &Scenario, spec: &ModelSpec, metric: &str) -> Result<u64, String> {
    let counts = effective_counts(spec);
    let w = crate::weights::weight_bytes(spec, &counts, sc);
    let trainable = crate::training::trainable_params(spec, &counts, sc);
    let adapters = if matches!(sc.training.method, Method::Lora | Method::Qlora) {
        trainable * 2
    } else {
        0
    };
    let allocated = w.total + adapters;
    let h = spec.hidden as u128;
    let largest = (spec.vocab as u128 * h).max(h * spec.intermediate as u128) * 2;
    let reserved = allocated + 2 * largest;
    let gpu = sc.gpu.name.as_deref().and_then(find_gpu);
    let context = cuda_context_bytes(gpu).0 as u128;
    let bytes = match metric {
        "peak_allocated" | "weights_only" => allocated,
        "peak_reserved" => reserved,
        "device_used" => reserved + context,
        other => return Err(format!("metric \"{other}\" for model_load")),
    };
    u64::try_from(bytes).map_err(|_| "too large".to_string())
}

/// Summary over scored cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub scored: usize,
    pub unsupported: usize,
    pub median_abs_rel_error: Option<f64>,
    pub p90_abs_rel_error: Option<f64>,
    pub within_10pct: usize,
    pub bound_pass: usize,
    pub bound_fail: usize,
}

pub fn summarize(scores: &[CaseScore]) -> Summary {
    let mut errors: Vec<f64> = scores
        .iter()
        .filter_map(|s| s.rel_error.map(f64::abs))
        .collect();
    errors.sort_by(|a, b| a.total_cmp(b));
    let quantile = |q: f64| -> Option<f64> {
        if errors.is_empty() {
            return None;
        }
        // Nearest-rank quantile.
        let rank = ((q * errors.len() as f64).ceil() as usize).clamp(1, errors.len());
        Some(errors[rank - 1])
    };
    Summary {
        scored: errors.len(),
        unsupported: scores
            .iter()
            .filter(|s| s.status == Status::Unsupported)
            .count(),
        median_abs_rel_error: quantile(0.5),
        p90_abs_rel_error: quantile(0.9),
        within_10pct: errors.iter().filter(|e| **e <= 0.10).count(),
        bound_pass: scores
            .iter()
            .filter(|s| s.status == Status::BoundPass)
            .count(),
        bound_fail: scores
            .iter()
            .filter(|s| s.status == Status::BoundFail)
            .count(),
    }
}

/// Parses a JSONL file: one case per non-empty line; a bad line is reported
/// with its line number.
pub fn parse_cases(text: &str) -> Vec<Result<Case, String>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| serde_json::from_str::<Case>(l).map_err(|e| format!("line {}: {e}", n + 1)))
        .collect()
}
