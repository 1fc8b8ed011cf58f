//! Trend of memory readings: steady, linear leak or accelerating growth, by
//! least squares, and the step where the fit reaches the card's capacity.

use crate::decimal::Decimal;
use serde::Serialize;

use super::fit::Fit;
use super::point::Point;
use crate::doctor::size::human_bytes as hb;
use crate::doctor::Diagnosis;
use crate::error::InputError;

/// A likely cause of growth, with a stable `code` and EN/ZH text.
pub type Cause = Diagnosis;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    /// Not growing beyond noise (shrinking runs count as steady too).
    Steady,
    /// Growing by about the same number of bytes every step.
    Linear,
    /// Growing by more bytes every step.
    Accelerating,
}

impl Trend {
    pub fn name(self) -> &'static str {
        match self {
            Trend::Steady => "steady",
            Trend::Linear => "linear",
            Trend::Accelerating => "accelerating",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    pub points: Vec<Point>,
    pub trend: Trend,
    /// Slope of the least-squares line: average growth over the run.
    pub growth_bytes_per_step: f64,
    /// Growth per step at the last reading (the quadratic's slope there when
    /// accelerating, else the line's slope).
    pub final_growth_bytes_per_step: f64,
    /// Step where the fitted trend reaches `capacity_bytes`; `None` when
    /// steady or no capacity is known. The last reading's step when the fit is
    /// already there.
    pub predicted_oom_step: Option<f64>,
    pub capacity_bytes: Option<u64>,
    pub causes: Vec<Cause>,
}

/// Growth over the whole run below this share of the mean reading is steady.
/// Seed 004 §9.3.5 flags a possible leak above 5 % growth; readings of a
/// healthy run wander by about that much as batch shapes and the allocator's
/// cache change.
const STEADY_SHARE: f64 = 0.05;
/// Accelerating when the quadratic leaves at most this share of the straight
/// line's squared error: it explains three quarters of what the line misses.
/// One extra parameter fitted to pure noise removes on average 1/(n−2) of it
/// (an eighth for ten readings), far from three quarters.
const ACCEL_RESIDUAL_SHARE: f64 = 0.25;
/// ...and bends the curve visibly: at the ends of the run the quadratic term
/// adds at least this share of the linear term.
const ACCEL_MIN_BEND: f64 = 0.10;
/// At or above this share of capacity a steady run has no headroom (seed 003 Q2: > 90 % "危险").
const NEAR_CAPACITY_SHARE: f64 = 0.90;

/// Fits the readings and names the trend. Needs three readings at two or
/// more distinct steps.
pub fn analyze(points: Vec<Point>, capacity_bytes: Option<u64>) -> Result<Analysis, InputError> {
    if points.len() < 3 {
        return Err(InputError::new(
            "points",
            format!(
                "{} memory readings found: need at least 3 to see a trend",
                points.len()
            ),
        ));
    }
    let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.step, p.bytes as f64)).collect();
    let fit = Fit::new(&xy).ok_or_else(|| {
        InputError::new(
            "points",
            "all readings share one step: need readings at different steps",
        )
    })?;
    let growth_over_run = fit.slope * (fit.x_max - fit.x_min);
    let trend = if growth_over_run < STEADY_SHARE * fit.y_mean {
        Trend::Steady
    } else if points.len() >= 4
        && fit.quad[2] > 0.0
        && fit.quad_sse <= ACCEL_RESIDUAL_SHARE * fit.line_sse
        && fit.quad[2] >= ACCEL_MIN_BEND * fit.quad[1].abs()
    {
        Trend::Accelerating
    } else {
        Trend::Linear
    };
    let final_growth = match trend {
        Trend::Accelerating => fit.quad_slope_at(fit.x_last),
        _ => fit.slope,
    };
    let predicted_oom_step = capacity_bytes
        .filter(|_| trend != Trend::Steady)
        .and_then(|cap| reaches(&fit, trend, cap as f64));
    let max_reading = points.iter().map(|p| p.bytes).max().unwrap_or(0);
    let causes = causes(trend, fit.slope, max_reading, capacity_bytes);
    Ok(Analysis {
        points,
        trend,
        growth_bytes_per_step: fit.slope,
        final_growth_bytes_per_step: final_growth,
        predicted_oom_step,
        capacity_bytes,
        causes,
    })
}

/// First step at or after the last reading where the fitted curve reaches
/// `capacity`.
fn reaches(fit: &Fit, trend: Trend, capacity: f64) -> Option<f64> {
    let last = fit.x_last.max(fit.x_max);
    let step = match trend {
        Trend::Steady => return None,
        Trend::Linear => {
            let at_last = fit.y_mean + fit.slope * (last - fit.x_mean);
            if at_last >= capacity {
                return Some(last);
            }
            last + (capacity - at_last) / fit.slope
        }
        Trend::Accelerating => {
            if fit.quad_at(last) >= capacity {
                return Some(last);
            }
            // c2·u² + c1·u + (c0 + y_mean − capacity) = 0, larger root (c2 > 0)
            let [c0, c1, c2] = fit.quad;
            let discriminant = c1 * c1 - 4.0 * c2 * (c0 + fit.y_mean - capacity);
            let root = (-c1 + discriminant.max(0.0).sqrt()) / (2.0 * c2);
            fit.x_mean + root * fit.x_scale
        }
    };
    step.is_finite().then_some(step.max(last))
}

fn cause(code: &'static str, message: String, message_zh: String) -> Cause {
    Diagnosis {
        code,
        message,
        message_zh,
    }
}

/// The usual causes of growth, most likely first for the trend seen.
fn causes(trend: Trend, slope: f64, max_reading: u64, capacity: Option<u64>) -> Vec<Cause> {
    if trend == Trend::Steady {
        return capacity
            .filter(|cap| *cap > 0 && max_reading as f64 >= NEAR_CAPACITY_SHARE * *cap as f64)
            .map(|cap| {
                let used = Decimal(max_reading as f64 / cap as f64 * 100.0);
                vec![cause(
                    "near_capacity",
                    format!("Steady, but peaks at {} = {used:.0}% of the card: any longer batch may OOM.", hb(max_reading)),
                    format!("显存平稳，但峰值 {} 占显卡 {used:.0}%：稍长的 batch 就可能 OOM。", hb(max_reading)),
                )]
            })
            .unwrap_or_default();
    }
    let per_step = hb(slope.max(0.0) as u64);
    let graph_kept = cause(
        "graph_kept",
        format!(
            "About {per_step} kept per step: a tensor held with its graph each step, e.g. \
             `total_loss += loss` instead of `total_loss += loss.item()`, or outputs appended to a list without `.detach()`."
        ),
        format!(
            "每步约多占 {per_step}：每步都有张量连同计算图被保留，例如 `total_loss += loss` 而不是 \
             `total_loss += loss.item()`，或把输出存进列表却没有 `.detach()`。"
        ),
    );
    let growing_cache = cause(
        "growing_cache",
        "A list, dict or cache on the GPU that only grows: metrics or predictions kept on the device, \
         a cache keyed by image size or sequence length. Move them to the CPU or bound their size."
            .into(),
        "GPU 上只增不减的列表、字典或缓存：留在显卡上的指标或预测、按图像尺寸或序列长度建的缓存。\
         把它们移到 CPU 或限制大小。"
            .into(),
    );
    let hooks = cause(
        "hooks_not_removed",
        "Hooks registered again and again (register_forward_hook each step) and never removed, \
         each keeping activations: keep the handle and call handle.remove()."
            .into(),
        "反复注册的 hook（每步调用 register_forward_hook）从未移除，每个都保留激活值：保存句柄并调用 handle.remove()。"
            .into(),
    );
    let fragmentation = cause(
        "fragmentation",
        "If the readings are reserved memory or nvidia-smi while torch.cuda.memory_allocated() stays flat, \
         the allocator's cache is fragmenting on varying shapes: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
            .into(),
        "如果读数是 reserved 或 nvidia-smi，而 torch.cuda.memory_allocated() 保持平稳，说明形状变化导致缓存碎片化：\
         设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True。"
            .into(),
    );
    match trend {
        Trend::Accelerating => vec![
            cause(
                "growing_inputs",
                "Growth per step is itself growing: inputs get longer over the run (length-sorted or \
                 curriculum data, growing generation length) or kept tensors get larger each step."
                    .into(),
                "每步增长量本身在变大：输入越来越长（按长度排序或课程式数据、生成长度增加），或每步保留的张量越来越大。".into(),
            ),
            growing_cache,
            graph_kept,
            hooks,
            fragmentation,
        ],
        _ => vec![graph_kept, growing_cache, hooks, fragmentation],
    }
}
