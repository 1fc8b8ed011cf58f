//! A row of the band table and the metric classes it is kept by.

use serde::{Deserialize, Serialize};

/// Which kind of number a measurement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricClass {
    /// Live tensors: `max_memory_allocated`, peak active, + context.
    Allocated,
    /// The allocator's reserve or the whole device (nvidia-smi).
    Total,
}

impl MetricClass {
    /// The class of a case's `measured.metric`; `None` for per-token,
    /// weights-only and bound rows, which are not totals of a run.
    pub fn of_metric(metric: &str) -> Option<MetricClass> {
        match metric {
            "peak_allocated" | "peak_active" | "allocated_plus_context" => {
                Some(MetricClass::Allocated)
            }
            "peak_reserved" | "device_used" => Some(MetricClass::Total),
            _ => None,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            MetricClass::Allocated => "allocated",
            MetricClass::Total => "total",
        }
    }
}

/// One regime's measured spread (signed errors `estimate / measured − 1`,
/// in permille).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandRow {
    pub regime: &'static str,
    pub metric: MetricClass,
    pub cases: u32,
    /// 10th percentile of the signed error (the estimate's low side).
    pub p10_permille: i32,
    /// 90th percentile.
    pub p90_permille: i32,
    /// Share of runs the estimate was below the measurement.
    pub under_permille: u32,
}
