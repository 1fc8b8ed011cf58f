//! Peak memory against micro-batch (training) or context (inference), with
//! the card's capacity as a line. Drawn as SVG by the app.

use leptos::prelude::*;

use vramfit_core::estimate::{estimate_with_model, resolve_model};

use crate::format::{grouped, num, Units};
use crate::i18n::{lang, text, text_with};
use crate::state::use_state;
use vramfit_core::decimal::Decimal;
use vramfit_core::solver::{sweep, SweepAxis};

/// Drawing area in SVG user units; the margins hold the axis labels.
const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 30.0;

/// The y axis shows at most this many times the card's capacity: a sweep
/// whose last points need 20× the card would otherwise squash the region
/// around the capacity line, where the decision is, into the bottom rows.
/// (vramfit's choice of layout, not a measured figure.)
const MAX_CAPACITY_MULTIPLE: u64 = 3;

/// The top of the y axis: the highest point (at most
/// [`MAX_CAPACITY_MULTIPLE`] × the capacity) or the capacity, whichever is
/// higher, plus 10% so the line and the capacity stay inside.
pub fn y_axis_top(points: &[(u64, u64)], capacity: Option<u64>) -> u64 {
    let highest = points.iter().map(|p| p.1).max().unwrap_or(0);
    let top = match capacity {
        Some(c) => highest.min(c.saturating_mul(MAX_CAPACITY_MULTIPLE)).max(c),
        None => highest,
    };
    top.saturating_add(top / 10)
}

/// Screen coordinates of `(x, bytes)` points on a log2 x axis and linear y;
/// a point above `y_max` sits on the top edge (its dot says the exact value).
pub fn plot(points: &[(u64, u64)], y_max: u64) -> Vec<(f64, f64)> {
    let xs: Vec<f64> = points.iter().map(|p| (p.0.max(1) as f64).log2()).collect();
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let span = (x_hi - x_lo).max(1.0);
    let y_max = y_max.max(1) as f64;
    points
        .iter()
        .zip(xs)
        .map(|(p, x)| {
            let sx = LEFT + (x - x_lo) / span * (WIDTH - LEFT - RIGHT);
            let sy = TOP + (1.0 - (p.1 as f64).min(y_max) / y_max) * (HEIGHT - TOP - BOTTOM);
            (sx, sy)
        })
        .collect()
}

/// Where the curve crosses the card: the last swept point that fits and the
/// first that does not (`None` when all fit, none fit, or no card).
pub fn crossing(points: &[(u64, u64)], capacity: Option<u64>) -> Option<(u64, u64)> {
    let c = capacity?;
    let first_over = points.iter().position(|p| p.1 > c)?;
    let last_fit = first_over.checked_sub(1)?;
    Some((points.get(last_fit)?.0, points.get(first_over)?.0))
}

#[component]
pub fn SweepChart() -> impl IntoView {
    let state = use_state();
    let data = Memo::new(move |_| {
        let sc = state.settled.get();
        let spec = resolve_model(&sc.model).ok()?;
        let capacity = estimate_with_model(&sc, &spec)
            .ok()
            .and_then(|e| e.capacity_bytes);
        Some((SweepAxis::of(sc.task), sweep(&sc, &spec), capacity))
    });
    view! {
        <section class="panel sweep-chart" aria-labelledby="sweep-heading">
            <h2 id="sweep-heading">
                {move || {
                    let lang = lang();
                    match data.get() {
                        Some((axis, _, _)) => text(lang, heading_key(axis)),
                        None => text(lang, "sweep-heading"),
                    }
                }}
            </h2>
            {move || {
                let units: Units = state.units.get();
                let (axis, points, capacity) = data.get()?;
                let y_max = y_axis_top(&points, capacity);
                let coords = plot(&points, y_max);
                let path = coords
                    .iter()
                    .map(|(x, y)| format!("{:.1},{:.1}", Decimal(*x), Decimal(*y)))
                    .collect::<Vec<_>>()
                    .join(" ");
                let capacity_line = capacity.map(|c| {
                    let y = TOP + (1.0 - c as f64 / y_max.max(1) as f64) * (HEIGHT - TOP - BOTTOM);
                    let label = format!("{} {}", text(lang(), "capacity"), units.bytes(c));
                    view! {
                        <line class="cap" x1=num(LEFT) x2=num(WIDTH - RIGHT) y1=num(y) y2=num(y)/>
                        <text class="cap-label" x=num(WIDTH - RIGHT - 4.0) y=num(y - 4.0) text-anchor="end">{label}</text>
                    }
                });
                let dots = points
                    .iter()
                    .zip(&coords)
                    .map(|(p, (x, y))| {
                        let over = capacity.is_some_and(|c| p.1 > c);
                        let title = format!("{}: {}", grouped(p.0), units.bytes(p.1));
                        // Off the chart: an arrow at the top edge with the value,
                        // never a dot that reads as data at the cap.
                        let mark = if p.1 > y_max {
                            let arrow = [(x - 5.0, y + 8.0), (*x, *y), (x + 5.0, y + 8.0)]
                                .map(|(x, y)| format!("{:.1},{:.1}", Decimal(x), Decimal(y)))
                                .join(" ");
                            view! {
                                <g class="off-chart" data-testid="off-chart">
                                    <polyline class="arrow" points=arrow><title>{title.clone()}</title></polyline>
                                    <text class="tick off-value" x=num(*x) y=num(y + 20.0) text-anchor="middle">{units.bytes(p.1)}</text>
                                </g>
                            }
                            .into_any()
                        } else {
                            view! { <circle class:over=over cx=num(*x) cy=num(*y) r="4"><title>{title}</title></circle> }.into_any()
                        };
                        view! {
                            {mark}
                            <text class="tick" x=num(*x) y=num(HEIGHT - 10.0) text-anchor="middle">{short(p.0)}</text>
                        }
                    })
                    .collect_view();
                let crossing_text = crossing(&points, capacity).map(|(fits, over)| {
                    view! {
                        <p class="crossing" data-testid="sweep-crossing">
                            {text_with(lang(), "sweep-crossing", &[("fits", grouped(fits)), ("over", grouped(over))])}
                        </p>
                    }
                });
                let summary = format!(
                    "{}: {}",
                    text(lang(), heading_key(axis)),
                    points.iter().map(|p| format!("{} → {}", grouped(p.0), units.bytes(p.1))).collect::<Vec<_>>().join(", ")
                );
                Some(view! {
                    <svg viewBox=format!("0 0 {} {}", num(WIDTH), num(HEIGHT)) role="img" aria-label=summary>
                        <text class="tick" x=num(LEFT - 6.0) y=num(TOP + 10.0) text-anchor="end">{units.bytes(y_max)}</text>
                        <text class="tick" x=num(LEFT - 6.0) y=num(HEIGHT - BOTTOM) text-anchor="end">"0"</text>
                        <line class="axis" x1=num(LEFT) x2=num(LEFT) y1=num(TOP) y2=num(HEIGHT - BOTTOM)/>
                        <line class="axis" x1=num(LEFT) x2=num(WIDTH - RIGHT) y1=num(HEIGHT - BOTTOM) y2=num(HEIGHT - BOTTOM)/>
                        {capacity_line}
                        <polyline class="series" points=path/>
                        {dots}
                    </svg>
                    {crossing_text}
                })
            }}
        </section>
    }
}

/// `512`, `4K`, `128K`: tick labels that fit under a point.
fn short(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}K", n / 1024)
    } else {
        n.to_string()
    }
}

/// The text key of the chart's heading.
fn heading_key(axis: SweepAxis) -> &'static str {
    match axis {
        SweepAxis::MicroBatch => "sweep-heading-batch",
        SweepAxis::Context => "sweep-heading-context",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_spans_the_drawing_area() {
        // x: 1, 2, 4 -> log2 0, 1, 2 spread over [LEFT, WIDTH - RIGHT];
        // y: 0 at the bottom edge, y_max at the top edge.
        let coords = plot(&[(1, 0), (2, 50), (4, 100)], 100);
        assert_eq!(coords[0], (LEFT, HEIGHT - BOTTOM));
        assert_eq!(coords[1].0, (LEFT + WIDTH - RIGHT) / 2.0);
        assert_eq!(coords[2], (WIDTH - RIGHT, TOP));
    }

    #[test]
    fn the_axis_keeps_the_capacity_line_readable() {
        const GB: u64 = 1_000_000_000;
        let exploding = [(1, 10 * GB), (2, 20 * GB), (4, 500 * GB)];
        // Capped at 3 × 24 GB (+10%): the capacity line sits at a third of the height.
        assert_eq!(
            y_axis_top(&exploding, Some(24 * GB)),
            72 * GB + 72 * GB / 10
        );
        // Without a card, the highest point; below the card, the card.
        assert_eq!(y_axis_top(&exploding, None), 550 * GB);
        assert_eq!(y_axis_top(&[(1, 10 * GB)], Some(80 * GB)), 88 * GB);
        // The clipped point sits on the top edge, not above the drawing.
        let coords = plot(&exploding, y_axis_top(&exploding, Some(24 * GB)));
        assert_eq!(coords[2].1, TOP);
        assert!(coords[1].1 > TOP);
    }

    #[test]
    fn the_crossing_is_between_the_last_fit_and_the_first_miss() {
        let points = [(512, 10), (1024, 20), (2048, 40), (4096, 80)];
        assert_eq!(crossing(&points, Some(30)), Some((1024, 2048)));
        assert_eq!(crossing(&points, Some(100)), None);
        assert_eq!(crossing(&points, Some(5)), None);
        assert_eq!(crossing(&points, None), None);
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(short(131_072), "128K");
        assert_eq!(short(512), "512");
        assert_eq!(short(1500), "1500");
    }
}
