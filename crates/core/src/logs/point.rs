//! One memory reading of a log, the unit every log reader produces.

use serde::Serialize;

/// One memory reading: `step` is the x axis (training step, sample index or
/// seconds, as `ParsedLog::x_unit` says).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    pub step: f64,
    pub bytes: u64,
}
