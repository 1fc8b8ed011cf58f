//! Measured cases (`shared/groundtruth/FORMAT.md`, version 1): turn one into
//! a scenario, estimate the metric it measured, and score the estimate.

use serde::{Deserialize, Serialize};

mod format;
mod translate;
pub use format::*;
pub use translate::{case_model, case_scenario};

use crate::estimate::estimate_with_model;
use crate::gpu::find_gpu;
use crate::model::ModelSpec;
use crate::overhead::{cuda_context_bytes, loading_cache_bytes_in};
use crate::resolved::Resolved;
use crate::scenario::*;

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
            return model_load_bytes(&sc, &spec, &metric, !sc.empty_cache_after_load);
        }
        let e = estimate_with_model(&sc, &spec).map_err(|e| e.to_string())?;
        let g = e.headline_gpu();
        Ok(match metric.as_str() {
            "peak_allocated" | "peak_active" => g.peak_allocated_bytes,
            "peak_reserved" => g.peak_reserved_bytes,
            "device_used" | "oom_lower_bound" | "fits_upper_bound" => g.device_used_bytes,
            "allocated_plus_context" => g.peak_allocated_bytes + context_of(g),
            "weights_only" => g.weights_bytes,
            "kv_bytes_per_token" => g.kv_bytes_per_token,
            other => return Err(format!("metric \"{other}\"")),
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
/// transient the allocator keeps cached (when a checkpoint was read), and
/// the context.
fn model_load_bytes(
    sc: &Scenario,
    spec: &ModelSpec,
    metric: &str,
    from_checkpoint: bool,
) -> Result<u64, String> {
    let r = Resolved::new(sc, spec);
    let adapters = if matches!(sc.training.method, Method::Lora | Method::Qlora) {
        r.trainable * 2
    } else {
        0
    };
    let allocated = r.weights.total + adapters;
    // The loading copies counted in 16-bit, as in the row they come from
    // (torchtune-tutorial-114, a bf16 checkpoint).
    let loading = loading_cache_bytes_in(&r, 2).0;
    let reserved = if from_checkpoint {
        allocated + loading
    } else {
        allocated
    };
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
