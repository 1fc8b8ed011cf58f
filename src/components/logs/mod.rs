//! The memory-log analyzer: paste training-log lines; the core reads every
//! memory series (`vramfit_core::logs::parse_log_with`), picks the one that
//! will run out first and fits its trend (`analyze_log`: steady, linear,
//! accelerating). The view says which series and why, how the units were
//! read and what the x axis counts; the plot shows the chosen series (at
//! most `MAX_PLOTTED` points), the others as thin lines, the fitted trend
//! and the capacity line; below it the growth, the predicted OOM step and
//! the usual causes. The capacity is the log's own (companion CSV,
//! nvidia-smi, torchtitan's share) or the chosen GPU's.

use leptos::prelude::*;
use vramfit_core::decimal::Decimal;

use crate::components::controls::PastePanel;
use vramfit_core::logs::{analyze_log, parse_log_with, GpuPick, LogAnalysis, Text, Trend, XUnit};
use vramfit_core::plan::target_capacity;
use vramfit_core::InputError;

use crate::analysis::{downsample, MAX_PLOTTED};
use crate::components::gpu_picker::GpuPicker;
use crate::format::{grouped, num, Units};
use crate::i18n::{colon, lang, space, text, text_with, tr};
use crate::state::{debounced, use_state, PASTE_DELAY};
use vramfit_core::logs::fit::Fit;

/// Drawing area in SVG user units; the margins hold the axis labels.
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 280.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 30.0;
/// Points of the drawn trend curve (smooth at this width).
const CURVE_SAMPLES: usize = 100;
/// The plot reaches a predicted OOM step at most this many run lengths past
/// the last reading, so a far-off prediction does not squash the readings.
const MAX_EXTRAPOLATION: f64 = 3.0;

fn trend_key(trend: Trend) -> &'static str {
    match trend {
        Trend::Steady => "trend-steady",
        Trend::Linear => "trend-linear",
        Trend::Accelerating => "trend-accelerating",
    }
}

/// Most series drawn besides the chosen one: more lines than this stop
/// being readable (Lightning's metrics.csv holds some thirty).
const MAX_OTHER_SERIES: usize = 5;

/// Reads and fits a paste: `None` for an empty one. The log's own capacity
/// wins over the picked GPU's.
fn examine(text: &str, fallback_capacity: Option<u64>) -> Option<Result<LogAnalysis, InputError>> {
    if text.trim().is_empty() {
        return None;
    }
    let parsed = parse_log_with(text, GpuPick::Max);
    let capacity = parsed.capacity_bytes.or(fallback_capacity);
    Some(analyze_log(&parsed, capacity))
}

fn x_key(x: XUnit) -> &'static str {
    match x {
        XUnit::Step => "logs-x-step",
        XUnit::Sample => "logs-x-sample",
        XUnit::Seconds => "logs-x-seconds",
    }
}

fn text_of(lang: crate::i18n::Lang, t: &Text) -> String {
    match lang {
        crate::i18n::Lang::En => t.en.clone(),
        crate::i18n::Lang::Zh => t.zh.clone(),
    }
}

#[component]
pub fn Logs() -> impl IntoView {
    let state = use_state();
    let pasted = RwSignal::new(String::new());
    let settled = debounced(pasted, PASTE_DELAY);
    let gpu_capacity = Memo::new(move |_| state.settled.with(|sc| target_capacity(sc).ok()));
    let analysis = Memo::new(move |_| {
        let capacity = gpu_capacity.get();
        settled.with(|t| examine(t, capacity))
    });
    view! {
        <section class="inputs" aria-label=tr("inputs")>
            <PastePanel
                name="logs"
                heading="logs-heading"
                label="logs-paste-label"
                hint="logs-hint"
                placeholder="Step 100: Loss=2.34, Memory=18.2GB"
                pasted
            />
            <GpuPicker/>
        </section>
        <section class="outputs" aria-label=tr("results")>
            {move || {
                let units = state.units.get();
                match analysis.get() {
                    None => view! { <p class="panel hint">{tr("logs-empty")}</p> }.into_any(),
                    Some(Err(e)) => view! {
                        <p class="panel error" role="alert" data-testid="logs-error">
                            {tr("logs-not-enough")}" ("{e.message}")"
                        </p>
                    }.into_any(),
                    Some(Ok(a)) => view! { <LogReport log=a units/> }.into_any(),
                }
            }}
        </section>
    }
}

#[component]
fn LogReport(log: LogAnalysis, units: Units) -> impl IntoView {
    let others: Vec<Vec<(f64, u64)>> = log
        .all_series
        .iter()
        .filter(|s| s.name != log.series)
        .take(MAX_OTHER_SERIES)
        .map(|s| s.points.iter().map(|p| (p.step, p.bytes)).collect())
        .collect();
    let (series, reason, note, x_unit) = (
        log.series.clone(),
        log.series_reason.clone(),
        log.units_note.clone(),
        log.x_unit,
    );
    let analysis = log.analysis;
    let trend = analysis.trend;
    let readings: Vec<(f64, u64)> = analysis.points.iter().map(|p| (p.step, p.bytes)).collect();
    let growth = analysis.growth_bytes_per_step;
    let final_growth = analysis.final_growth_bytes_per_step;
    let predicted = analysis.predicted_oom_step;
    let capacity = analysis.capacity_bytes;
    let growth_text = move |bytes_per_step: f64| {
        let rounded = bytes_per_step.round();
        // Clamped into i128: a fit on absurd pastes may be huge, never a panic.
        units.signed_bytes(rounded.clamp(-1e30, 1e30) as i128)
    };
    let summary = move || {
        let lang = lang();
        let mut lines = vec![text_with(
            lang,
            "logs-growth",
            &[
                ("average", growth_text(growth)),
                ("last", growth_text(final_growth)),
            ],
        )];
        lines.push(match (predicted, capacity) {
            (Some(step), Some(c)) => text_with(
                lang,
                "logs-predicted",
                &[
                    ("step", grouped(step.max(0.0).round() as u64)),
                    ("capacity", units.bytes(c)),
                ],
            ),
            (None, Some(_)) => text(lang, "logs-no-oom"),
            _ => text(lang, "logs-no-capacity"),
        });
        lines.join(" ")
    };
    let causes = analysis.causes.clone();
    view! {
        <section class="panel logs-result" aria-live="polite">
            <h2>{tr("logs-result")}</h2>
            <p class="trend">
                {tr("logs-trend")}{move || colon(lang())}
                <strong data-testid="logs-trend" data-trend=trend.name()>{tr(trend_key(trend))}</strong>
            </p>
            <p data-testid="logs-series" data-series=series.clone()>
                {tr("logs-series")}{move || colon(lang())}<strong>{series.clone()}</strong>" — "{move || text_of(lang(), &reason)}
            </p>
            <p data-testid="logs-units">{tr("logs-units")}{move || colon(lang())}{move || text_of(lang(), &note)}</p>
            <p class="hint" data-testid="logs-x" data-x-unit=x_unit.name()>{tr(x_key(x_unit))}</p>
            <MemoryPlot readings others predicted capacity trend units/>
            <p data-testid="logs-summary">{summary}</p>
            <h3>{tr("logs-causes")}</h3>
            <ul class="diagnoses" data-testid="logs-causes">
                {causes
                    .into_iter()
                    .map(|c| {
                        let code = c.code;
                        view! { <li data-code=code>{move || c.text(lang()).to_owned()}</li> }
                    })
                    .collect_view()}
            </ul>
        </section>
    }
}

#[component]
fn MemoryPlot(
    readings: Vec<(f64, u64)>,
    /// The other series of the log, drawn thin for comparison.
    others: Vec<Vec<(f64, u64)>>,
    predicted: Option<f64>,
    capacity: Option<u64>,
    trend: Trend,
    units: Units,
) -> impl IntoView {
    let as_f64: Vec<(f64, f64)> = readings.iter().map(|&(x, y)| (x, y as f64)).collect();
    let curved = trend == Trend::Accelerating;
    let fit = Fit::new(&as_f64);
    let shown = downsample(&readings, MAX_PLOTTED);
    let x_min = readings.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_last = readings
        .iter()
        .map(|p| p.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = (x_last - x_min).max(1.0);
    let x_max = predicted.map_or(x_last, |p| {
        p.clamp(x_last, x_last + MAX_EXTRAPOLATION * span)
    });
    let curve: Vec<(f64, f64)> = fit
        .map(|f| {
            (0..=CURVE_SAMPLES)
                .map(|i| {
                    let x = x_min + (x_max - x_min) * i as f64 / CURVE_SAMPLES as f64;
                    (x, f.trend_at(x, curved))
                })
                .collect()
        })
        .unwrap_or_default();
    let top = readings
        .iter()
        .chain(others.iter().flatten())
        .map(|p| p.1 as f64)
        .chain(capacity.map(|c| c as f64))
        .chain(curve.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    // 10% above the highest value so lines stay inside the frame.
    let y_max = top * 1.1;
    let sx = move |x: f64| LEFT + (x - x_min) / (x_max - x_min).max(1e-9) * (WIDTH - LEFT - RIGHT);
    let sy = move |y: f64| TOP + (1.0 - y.clamp(0.0, y_max) / y_max) * (HEIGHT - TOP - BOTTOM);
    let path = |points: &mut dyn Iterator<Item = (f64, f64)>| {
        points
            .map(|(x, y)| format!("{:.1},{:.1}", Decimal(sx(x)), Decimal(sy(y))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let has_others = !others.is_empty();
    let readings_path = path(&mut shown.iter().map(|&(x, y)| (x, y as f64)));
    let other_paths = others
        .iter()
        .map(|series| {
            let points = path(
                &mut downsample(series, MAX_PLOTTED)
                    .into_iter()
                    .filter(|(x, _)| (x_min..=x_max).contains(x))
                    .map(|(x, y)| (x, y as f64)),
            );
            view! { <polyline class="series other" points=points/> }
        })
        .collect_view();
    let curve_path = path(&mut curve.iter().copied());
    let capacity_line = capacity.map(|c| {
        let y = sy(c as f64);
        view! {
            <line class="cap" x1=num(LEFT) x2=num(WIDTH - RIGHT) y1=num(y) y2=num(y)/>
            <text class="cap-label" x=num(WIDTH - RIGHT - 4.0) y=num(y - 4.0) text-anchor="end">
                {move || format!("{} {}", text(lang(), "logs-capacity"), units.bytes(c))}
            </text>
        }
    });
    let oom_mark = predicted.filter(|p| *p <= x_max).map(|p| {
        let x = sx(p);
        view! { <line class="oom" x1=num(x) x2=num(x) y1=num(TOP) y2=num(HEIGHT - BOTTOM)/> }
    });
    let y_top = units.bytes(y_max.min(u64::MAX as f64) as u64);
    view! {
        <figure class="log-plot">
            <svg viewBox=format!("0 0 {} {}", num(WIDTH), num(HEIGHT)) role="img" aria-label=tr("logs-plot") data-testid="logs-plot" data-points=shown.len().to_string()>
                <text class="tick" x=num(LEFT - 6.0) y=num(TOP + 10.0) text-anchor="end">{y_top}</text>
                <text class="tick" x=num(LEFT - 6.0) y=num(HEIGHT - BOTTOM) text-anchor="end">"0"</text>
                <text class="tick" x=num(LEFT) y=num(HEIGHT - 10.0) text-anchor="start">{grouped(x_min.max(0.0) as u64)}</text>
                <text class="tick" x=num(WIDTH - RIGHT) y=num(HEIGHT - 10.0) text-anchor="end">{grouped(x_max.max(0.0) as u64)}</text>
                <line class="axis" x1=num(LEFT) x2=num(LEFT) y1=num(TOP) y2=num(HEIGHT - BOTTOM)/>
                <line class="axis" x1=num(LEFT) x2=num(WIDTH - RIGHT) y1=num(HEIGHT - BOTTOM) y2=num(HEIGHT - BOTTOM)/>
                {capacity_line}
                {oom_mark}
                {other_paths}
                <polyline class="fit" points=curve_path/>
                <polyline class="series" points=readings_path/>
            </svg>
            <figcaption>{tr("logs-plot-caption")}{move || space(lang())}{has_others.then(|| tr("logs-other-series"))}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_gets_the_series_the_core_picks_and_its_x_axis() {
        // torchtune prints three series per step; active stays flat at 47.32 GiB
        let text = include_str!("../../../crates/core/tests/data/logs/corpus/torchtune_mps.log");
        let log = examine(text, Some(64 << 30))
            .expect("not empty")
            .expect("fits");
        assert_ne!(log.series, "peak_memory_active");
        assert_eq!(log.all_series.len(), 3);
        assert_eq!(log.x_unit, XUnit::Step);
        assert_eq!(x_key(log.x_unit), "logs-x-step");
        // the log's own capacity (torchtitan's share) wins over the picked GPU's
        let titan = include_str!("../../../crates/core/tests/data/logs/corpus/torchtitan.log");
        let log = examine(titan, Some(1 << 30))
            .expect("not empty")
            .expect("fits");
        // 9.46 GiB is 64.99 % of the card: 10,157,597,655 / 0.6499
        assert_eq!(log.analysis.capacity_bytes, Some(15_629_477_850));
        assert!(examine("  \n", None).is_none());
    }
}
