//! Which series to analyse when a log prints several (allocated, reserved,
//! active, max): the one that will run out first. With a capacity, the one
//! whose trend reaches it soonest; without one (or when none reaches it),
//! the fastest-growing; when all are steady, the highest. GPU series go
//! before host RAM series. The choice is said, with its reason, in both
//! languages.

use crate::decimal::Decimal;
use serde::Serialize;

use super::analyze::{analyze, Analysis, Trend};
use super::parsed::{ParsedLog, Series, XUnit};
use super::units::UnitReading;
use crate::doctor::size::human_bytes as hb;
use crate::error::InputError;

/// A sentence in English and Chinese.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

/// The analysis of a log: the trend of the series chosen, which series and
/// why, what the x axis counts and how the numbers became bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogAnalysis {
    #[serde(flatten)]
    pub analysis: Analysis,
    /// The series used for the trend and the prediction.
    pub series: String,
    pub series_reason: Text,
    pub x_unit: XUnit,
    pub units: UnitReading,
    pub units_note: Text,
    /// Every series read, for plotting.
    pub all_series: Vec<Series>,
}

enum Reason {
    Only,
    ReachesFirst(f64),
    GrowsFastest(f64),
    AllSteady(u64),
}

pub(super) struct Choice {
    pub index: usize,
    reason: Reason,
    analysis: Analysis,
    candidates: usize,
}

/// The series to analyse, if any has three readings at two or more steps.
pub(super) fn pick(parsed: &ParsedLog, capacity: Option<u64>) -> Option<Choice> {
    let fits: Vec<(usize, &Series)> = parsed
        .series
        .iter()
        .enumerate()
        .filter(|(_, s)| s.points.len() >= 3)
        .collect();
    let gpu_only: Vec<(usize, &Series)> = fits.iter().copied().filter(|(_, s)| !s.host).collect();
    let pool = if gpu_only.is_empty() { fits } else { gpu_only };
    let analysed: Vec<(usize, Analysis)> = pool
        .iter()
        .filter_map(|(i, s)| analyze(s.points.clone(), capacity).ok().map(|a| (*i, a)))
        .collect();
    let candidates = analysed.len();
    let reaching = analysed
        .iter()
        .filter_map(|(i, a)| a.predicted_oom_step.map(|step| (*i, step, a)))
        .min_by(|x, y| {
            x.1.total_cmp(&y.1).then(
                y.2.final_growth_bytes_per_step
                    .total_cmp(&x.2.final_growth_bytes_per_step),
            )
        })
        .map(|(i, step, _)| (i, Reason::ReachesFirst(step)));
    let growing = || {
        analysed
            .iter()
            .filter(|(_, a)| a.trend != Trend::Steady && a.growth_bytes_per_step > 0.0)
            .max_by(|x, y| {
                x.1.growth_bytes_per_step
                    .total_cmp(&y.1.growth_bytes_per_step)
            })
            .map(|(i, a)| (*i, Reason::GrowsFastest(a.growth_bytes_per_step)))
    };
    let highest = || {
        analysed
            .iter()
            .map(|(i, a)| (*i, a.points.iter().map(|p| p.bytes).max().unwrap_or(0)))
            .max_by_key(|(_, peak)| *peak)
            .map(|(i, peak)| (i, Reason::AllSteady(peak)))
    };
    let (index, reason) = reaching.or_else(growing).or_else(highest)?;
    let reason = if candidates == 1 {
        Reason::Only
    } else {
        reason
    };
    let analysis = analysed.into_iter().find(|(i, _)| *i == index)?.1;
    Some(Choice {
        index,
        reason,
        analysis,
        candidates,
    })
}

/// Reads the trend of the series that will run out first (see the module).
/// `capacity` defaults to the one the log states.
pub fn analyze_log(parsed: &ParsedLog, capacity: Option<u64>) -> Result<LogAnalysis, InputError> {
    let capacity = capacity.or(parsed.capacity_bytes);
    let Some(choice) = pick(parsed, capacity) else {
        // no series can be fitted: the longest one says why
        let longest = parsed
            .series
            .iter()
            .max_by_key(|s| s.points.len())
            .map(|s| s.points.clone())
            .unwrap_or_default();
        return Err(analyze(longest, capacity).err().unwrap_or_else(|| {
            InputError::new(
                "points",
                "no series with three readings at two or more steps",
            )
        }));
    };
    let series = parsed
        .series
        .get(choice.index)
        .ok_or_else(|| InputError::new("points", "no series"))?;
    let series_reason = explain(&choice, &series.name, parsed.x_unit);
    let (en, zh) = series.units.describe();
    Ok(LogAnalysis {
        analysis: choice.analysis,
        series: series.name.clone(),
        series_reason,
        x_unit: parsed.x_unit,
        units: series.units,
        units_note: Text { en, zh },
        all_series: parsed.series.clone(),
    })
}

fn explain(choice: &Choice, name: &str, x: XUnit) -> Text {
    let n = choice.candidates;
    let (unit, unit_zh) = (x.name(), x.name_zh());
    match choice.reason {
        Reason::Only => Text {
            en: format!("\"{name}\": the only memory series with enough readings"),
            zh: format!("“{name}”：唯一有足够读数的显存序列"),
        },
        Reason::ReachesFirst(at) => {
            let at = Decimal(at);
            Text {
            en: format!(
                "\"{name}\": of the {n} series read, its trend reaches the capacity first ({unit} {at:.0})"
            ),
            zh: format!("“{name}”：读到的 {n} 个序列中，它的趋势最先达到容量（第 {at:.0} {unit_zh}）"),
        }
        }
        Reason::GrowsFastest(per) => Text {
            en: format!(
                "\"{name}\": of the {n} series read, it grows fastest ({} per {unit})",
                hb(per.max(0.0) as u64)
            ),
            zh: format!(
                "“{name}”：读到的 {n} 个序列中，它增长最快（每{unit_zh} {}）",
                hb(per.max(0.0) as u64)
            ),
        },
        Reason::AllSteady(peak) => Text {
            en: format!(
                "\"{name}\": all {n} series are steady; this one is the highest (peak {})",
                hb(peak)
            ),
            zh: format!("“{name}”：{n} 个序列都平稳；它最高（峰值 {}）", hb(peak)),
        },
    }
}
