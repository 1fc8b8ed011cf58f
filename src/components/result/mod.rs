//! The result: a stacked bar per GPU against the card, the three totals with
//! what each one means, the formula behind every line, and the headroom.
//!
//! A stale result (`state.stale`: this panel's class `stale`) is marked
//! wherever it shows, by result.css: dimmed, and the phone's answer bar and
//! the plans', chart's and table's headings open with the page's `--stale`
//! text (set on `<main>` in lib.rs from the locales' `stale-tag`).

use leptos::prelude::*;
use vramfit_core::decimal::Decimal;

use crate::components::controls::InputErrorText;
use vramfit_core::report::{Counter, GpuReport, Part, Verdict};
use vramfit_core::scenario::{Engine, TaskKind};
use vramfit_core::Estimate;

use crate::analysis::{bar_lines, distinct_gpus};
use crate::components::totals::Totals;
use crate::format::{grouped, Units};
use crate::i18n::{
    colon, lang, lang_untracked, part_label, phase_label, space, text, text_with, tr,
};
use crate::state::{use_state, Pinned, Stale};

/// Width of the bar's drawing in SVG user units (scaled to the page).
const BAR_WIDTH: f64 = 1000.0;

/// CSS class giving each part its colour (see result.css).
pub fn part_class(part: Part) -> &'static str {
    match part {
        Part::Weights => "p-weights",
        Part::Gradients => "p-grads",
        Part::OptimizerStates | Part::PagedOptimizer => "p-optim",
        Part::MasterWeights => "p-master",
        Part::Activations => "p-acts",
        Part::LogitsLoss => "p-logits",
        Part::KvCache | Part::CrossAttentionCache => "p-kv",
        Part::RecurrentState => "p-state",
        Part::QuantBuffers | Part::OptimizerStep | Part::Workspace | Part::LibraryWorkspace => {
            "p-work"
        }
        Part::CudaContext | Part::NonTorch => "p-context",
        Part::AllocatorSlack => "p-slack",
    }
}

fn counter_key(counter: Counter) -> &'static str {
    match counter {
        Counter::Allocated => "counter-allocated",
        Counter::Reserved => "counter-reserved",
        Counter::Device => "counter-device",
        Counter::NotAtPeak => "counter-not-at-peak",
    }
}

#[component]
pub fn ResultPanel() -> impl IntoView {
    let state = use_state();
    view! {
        <section class="panel result" class:stale=move || state.stale.with(Option::is_some) aria-labelledby="result-heading">
            <h2 id="result-heading">{tr("memory-heading")}</h2>
            {move || state.stale.get().map(|why| view! {
                <p class="stale-note" role="status" data-testid="stale-result">{stale_text(lang(), &why)}</p>
            })}
            {move || {
                // Re-rendered on a language switch too: the breakdown's texts are built once.
                lang();
                match state.estimate.get() {
                    Ok(e) => view! { <Breakdown estimate=e units=state.units.get()/> }.into_any(),
                    Err(err) => view! {
                        <p class="error" role="alert" data-testid="estimate-error">
                            <InputErrorText err=err.clone()/>
                        </p>
                    }.into_any(),
                }
            }}
        </section>
    }
}

/// Why the result on screen is for the previous input.
fn stale_text(lang: crate::i18n::Lang, why: &Stale) -> String {
    match why {
        Stale::ConfigError => text(lang, "stale-config"),
        Stale::NoCatalogMatch(query) => {
            text_with(lang, "stale-no-match", &[("query", query.clone())])
        }
    }
}

#[component]
fn Breakdown(estimate: Estimate, units: Units) -> impl IntoView {
    let state = use_state();
    let capacity = estimate.capacity_bytes;
    if estimate.gpus.is_empty() {
        return view! { <p class="error">{tr("no-gpu-in-estimate")}</p> }.into_any();
    }
    let first = estimate.headline_gpu().clone();
    let verdict = estimate.verdict();
    let lang = lang_untracked();
    let bars = distinct_gpus(&estimate)
        .into_iter()
        .map(|(from, to, report)| {
            let name = if from == to {
                text_with(lang, "gpu-one", &[("index", from.to_string())])
            } else {
                text_with(
                    lang,
                    "gpu-range",
                    &[("from", from.to_string()), ("to", to.to_string())],
                )
            };
            view! { <Bar name report=report.clone() capacity units/> }
        })
        .collect_view();
    let pin_report = first.clone();
    let model = estimate.model.clone();
    view! {
        <div class="bars">{bars}</div>
        <Totals report=first.clone() units/>
        // Only the verdict is announced as it changes, not the whole panel.
        <p class="headroom" data-testid="headroom" aria-live="polite">
            {match verdict {
                // A serving engine fills its share of the card: the verdict
                // is about its KV pool.
                Verdict::Fits { spare_bytes, .. } if estimate.serving.is_some() => view! {
                    <span class="fits">{text_with(lang, "pool-fits", &[("spare", units.bytes(spare_bytes))])}{space(lang)}</span>
                }.into_any(),
                Verdict::ShortBy { short_bytes, .. } if estimate.serving.is_some() => view! {
                    <span class="short">{text_with(lang, "pool-short", &[("short", units.bytes(short_bytes))])}{space(lang)}</span>
                }.into_any(),
                Verdict::Fits { spare_bytes, capacity_bytes } => view! {
                    <span class="fits">{text_with(lang, "fits-spare", &[("spare", units.bytes(spare_bytes)), ("capacity", units.bytes(capacity_bytes))])}{space(lang)}</span>
                }.into_any(),
                Verdict::ShortBy { short_bytes, capacity_bytes } => view! {
                    <span class="short">{text_with(lang, "short-by", &[("short", units.bytes(short_bytes)), ("capacity", units.bytes(capacity_bytes))])}{space(lang)}</span>
                }.into_any(),
                Verdict::Unknown => view! { <span>{text(lang, "pick-gpu")}{space(lang)}</span> }.into_any(),
            }}
            <span class="phase">{text_with(lang, "peak-during", &[("phase", phase_label(lang, &first.peak_phase))])}</span>
        </p>
        {estimate.band.as_ref().map(|b| band_line(b, first.device_used_bytes, estimate.capacity_bytes, units, lang))}
        {estimate.serving.as_ref().map(|p| view! {
            <p class="pool" data-testid="pool">
                {text_with(lang, "pool-holds", &[
                    ("tokens", grouped(p.kv_pool_tokens)),
                    ("seqs", grouped(p.max_concurrent_sequences)),
                    ("context", grouped(p.requested_context)),
                    ("asked", grouped(p.requested_sequences)),
                ])}
                {space(lang)}
                {text_with(lang, "pool-longest", &[
                    ("asked", grouped(p.requested_sequences)),
                    ("context", grouped(p.max_context)),
                ])}
            </p>
        })}
        {offload_split(&estimate, &first, units, lang)}
        <h3>{text(lang, "show-math")}</h3>
        <ul class="math">
            {first
                .lines
                .iter()
                .map(|line| {
                    view! {
                        <li>
                            <details>
                                <summary>
                                    <span class=format!("swatch {}", part_class(line.part))></span>
                                    <span class="label">{part_label(lang, line.part)}</span>
                                    <span class="bytes">{units.bytes(line.bytes)}</span>
                                </summary>
                                <code>{line.formula.clone()}</code>
                                <p class="counter">{text(lang, counter_key(line.counter))}</p>
                            </details>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
        {(!estimate.notes.is_empty()).then(|| view! {
            <ul class="notes">{estimate.notes.iter().map(|n| view! { <li>{n.text(lang).to_owned()}</li> }).collect_view()}</ul>
        })}
        <button
            type="button"
            data-testid="pin"
            on:click=move |_| state.pinned.set(Some(Pinned {
                model: model.clone(),
                query: state.query.get_untracked(),
                report: pin_report.clone(),
            }))
        >
            {text(lang, "pin")}
        </button>
    }
    .into_any()
}

/// llama.cpp's split between the GPU and host memory, as a bar: the GPU's
/// buffers against what stays in host RAM (weights, KV cache, buffers).
fn offload_split(
    estimate: &Estimate,
    gpu: &GpuReport,
    units: Units,
    lang: crate::i18n::Lang,
) -> Option<impl IntoView> {
    let llama = use_state().scenario.with_untracked(|sc| {
        sc.task == TaskKind::Inference && sc.inference.engine == Engine::LlamaCpp
    });
    if !llama {
        return None;
    }
    // llama.cpp's host buffers (it maps the file: no loading copy).
    let host: u64 = estimate.cpu_lines.iter().map(|l| l.bytes).sum();
    let on_gpu = gpu.device_used_bytes;
    let share = on_gpu as f64 / (on_gpu + host).max(1) as f64;
    Some(view! {
        <p class="offload" data-testid="offload">
            {text_with(lang, "offload-split", &[("gpu", units.bytes(on_gpu)), ("host", units.bytes(host))])}
        </p>
        <svg class="offload-bar" viewBox="0 0 1000 12" preserveAspectRatio="none" aria-hidden="true">
            <rect class="p-weights" x="0" y="0" width=format!("{:.0}", Decimal(share * 1000.0)) height="12"/>
            <rect class="p-context" x=format!("{:.0}", Decimal(share * 1000.0)) y="0" width=format!("{:.0}", Decimal((1.0 - share) * 1000.0)) height="12"/>
        </svg>
    })
}

#[component]
pub fn Bar(name: String, report: GpuReport, capacity: Option<u64>, units: Units) -> impl IntoView {
    let lines = bar_lines(&report);
    let lang = lang_untracked();
    let used = report.device_used_bytes;
    let scale = capacity.unwrap_or(0).max(used).max(1) as f64;
    let mut x = 0.0;
    let rects = lines
        .iter()
        .map(|&(part, bytes, _)| {
            let width = bytes as f64 / scale * BAR_WIDTH;
            let rect = view! {
                <rect class=part_class(part) x=format!("{:.2}", Decimal(x)) y="0" width=format!("{:.2}", Decimal(width)) height="28">
                    <title>{format!("{}{}{}", part_label(lang, part), colon(lang), units.bytes(bytes))}</title>
                </rect>
            };
            x += width;
            rect
        })
        .collect_view();
    let capacity_mark = capacity.map(|c| {
        let cx = format!("{:.2}", Decimal(c as f64 / scale * BAR_WIDTH));
        view! { <line class="capacity" x1=cx.clone() x2=cx y1="0" y2="36"/> }
    });
    let caption = match capacity {
        Some(c) => text_with(
            lang,
            "bar-caption",
            &[
                ("name", name),
                ("used", units.bytes(used)),
                ("capacity", units.bytes(c)),
            ],
        ),
        None => format!("{name}{}{}", colon(lang), units.bytes(used)),
    };
    view! {
        <figure class="bar">
            <svg viewBox="0 0 1000 36" preserveAspectRatio="none" role="img" aria-label=caption.clone()>
                <rect class="track" x="0" y="0" width="1000" height="28"/>
                {rects}
                {capacity_mark}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

/// How far to trust the total: its regime's measured spread, and the fit
/// read through it ("fits unless the estimate is more than N % low").
fn band_line(
    b: &vramfit_core::band::ErrorBand,
    used: u64,
    capacity: Option<u64>,
    units: Units,
    lang: crate::i18n::Lang,
) -> impl IntoView {
    let (low, high) = (
        units.bytes(b.band_low_bytes),
        units.bytes(b.band_high_bytes),
    );
    let spread = if b.few_runs {
        text_with(
            lang,
            "band-few",
            &[("low", low), ("high", high), ("regime", b.regime.clone())],
        )
    } else {
        text_with(
            lang,
            "band",
            &[
                ("low", low),
                ("high", high),
                ("regime", b.regime.clone()),
                ("cases", b.regime_cases.to_string()),
                ("under", b.under_estimate_percent.to_string()),
            ],
        )
    };
    let unless = capacity.and_then(|c| match b.fit(used, c) {
        vramfit_core::band::BandedFit::FitsUnless { margin_percent } => Some(text_with(
            lang,
            "band-fits-unless",
            &[("margin", margin_percent.to_string())],
        )),
        _ => None,
    });
    view! {
        <p class="band" data-testid="band">
            {unless.map(|u| view! { <strong>{u}</strong>{space(lang)} })}
            {spread}
        </p>
    }
}
