//! The OOM doctor: paste the error a stack printed (PyTorch, JAX/XLA,
//! TensorFlow, vLLM, SGLang, llama.cpp, NCCL, cuBLAS, a killed process) or a
//! `torch.cuda.memory_summary()` table; the core reads it
//! (`vramfit_core::doctor::parse_oom`). The view says which stack printed it
//! and which memory ran out (GPU, unified, host RAM), or that it is not an
//! out-of-memory error; the card is drawn as a stacked bar (allocated,
//! reserved-but-unallocated, outside PyTorch, free, and the request that
//! failed) when the message gives its parts; the diagnoses are listed, and
//! "plan a fix" runs the fix-it plans for the calculator's scenario against
//! the card in the message. What a runtime printed (vLLM's start-up log,
//! llama.cpp's load log, `ollama ps`, nvidia-smi) is compared with the
//! estimator line by line instead (`components::reconcile`), with the model
//! picker when the text names no model the catalog has.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vramfit_core::decimal::Decimal;

use crate::components::controls::PastePanel;
use vramfit_core::doctor::size::GbMeaning;
use vramfit_core::doctor::{parse_oom, picture, Memory, OomReport, Segment};
use vramfit_core::plan::PlanReport;
use vramfit_core::reconcile::read_runtime_log;
use vramfit_core::Scenario;

use crate::components::model_picker::ModelPicker;
use crate::components::plans::PlanList;
use crate::components::reconcile::{names_known_model, Reconcile};
use crate::format::{num, Units};
use crate::i18n::{colon, lang, pick, text, tr};
use crate::state::{debounced, use_state, PASTE_DELAY};

/// Width of the bar's drawing in SVG user units (scaled to the page).
const BAR_WIDTH: f64 = 1000.0;
/// Height of one bar row in SVG user units.
const ROW: f64 = 28.0;

/// Where each segment of the card starts and how wide it is, in bar units;
/// the request is drawn on a second row from where free memory starts, so it
/// shows how far past the free memory it reaches.
pub fn layout(segments: &[Segment], total: Option<u64>) -> Vec<(&Segment, f64, f64)> {
    let card: u64 = segments
        .iter()
        .filter(|s| s.key != "request")
        .map(|s| s.bytes)
        .sum();
    let free_start: u64 = segments
        .iter()
        .take_while(|s| s.key != "free" && s.key != "request")
        .map(|s| s.bytes)
        .sum();
    let request = segments
        .iter()
        .find(|s| s.key == "request")
        .map_or(0, |s| s.bytes);
    let scale = total
        .unwrap_or(0)
        .max(card)
        .max(free_start + request)
        .max(1) as f64;
    let mut x = 0.0;
    segments
        .iter()
        .map(|s| {
            let width = s.bytes as f64 / scale * BAR_WIDTH;
            if s.key == "request" {
                (s, free_start as f64 / scale * BAR_WIDTH, width)
            } else {
                let start = x;
                x += width;
                (s, start, width)
            }
        })
        .collect()
}

#[component]
pub fn Doctor() -> impl IntoView {
    let state = use_state();
    let pasted = RwSignal::new(String::new());
    let settled = debounced(pasted, PASTE_DELAY);
    let report = Memo::new(move |_| settled.with(|t| (!t.trim().is_empty()).then(|| parse_oom(t))));
    // A runtime's start-up log: its figures beside ours.
    let runtime = Memo::new(move |_| settled.with(|t| read_runtime_log(t)));
    let needs_model = move || runtime.with(|l| l.as_ref().is_some_and(|l| !names_known_model(l)));
    // `Some(None)`: the plan search could not answer.
    let plans = RwSignal::new(None::<Option<PlanReport>>);
    // A new paste invalidates the plans made for the previous one.
    Effect::new(move |_| {
        report.track();
        plans.set(None);
    });
    let scenario_set = move || state.scenario.with(|sc| *sc != Scenario::default());
    let plan_fix = move |_| {
        let capacity = report.with_untracked(|r| {
            r.as_ref()
                .and_then(|r| r.as_ref().ok())
                .and_then(|r| r.total_bytes)
        });
        let Some(capacity) = capacity else { return };
        // The card in the message is the capacity to fit in; the search runs
        // in the importer worker, as the calculator's plans do, so that its
        // code is not part of the first load.
        let mut sc = state.scenario.get_untracked();
        sc.gpu.memory_bytes = Some(capacity);
        spawn_local(async move {
            let answer = crate::importer::plans(&sc).await;
            plans.set(Some(answer));
        });
    };
    view! {
        <section class="inputs" aria-label=tr("inputs")>
            <PastePanel
                name="doctor"
                heading="doctor-heading"
                label="doctor-paste-label"
                hint="doctor-hint"
                placeholder="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate … / RESOURCE_EXHAUSTED: … / cudaMalloc failed: out of memory"
                pasted
            />
            <Show when=needs_model>
                <p class="panel hint" data-testid="reconcile-pick-model">{tr("reconcile-pick-model")}</p>
                <ModelPicker/>
            </Show>
        </section>
        <section class="outputs" aria-label=tr("results")>
            {move || runtime.get().map(|log| view! { <Reconcile log/> })}
            {move || {
                let units = state.units.get();
                let log_read = runtime.with(Option::is_some);
                match report.get() {
                    None => view! { <p class="panel hint">{tr("doctor-empty")}</p> }.into_any(),
                    // A start-up log shows its error only where it ends with one.
                    Some(Ok(r)) if log_read && !r.out_of_memory => ().into_any(),
                    Some(Err(_)) if log_read => ().into_any(),
                    Some(Err(_)) => view! {
                        <p class="panel error" role="alert" data-testid="doctor-error">{tr("doctor-not-found")}</p>
                    }.into_any(),
                    Some(Ok(r)) => view! { <Stack report=r.clone()/><OomPicture report=r units/> }.into_any(),
                }
            }}
            <Show when=move || {
                scenario_set()
                    && report.with(|r| matches!(r, Some(Ok(r)) if r.total_bytes.is_some()))
            }>
                <section class="panel doctor-plans">
                    <button type="button" data-testid="doctor-plan" on:click=plan_fix>
                        {tr("doctor-plan-fix")}
                    </button>
                    {move || {
                        let units = state.units.get();
                        plans.get().map(|p| match p {
                            Some(p) if p.fits => view! { <p data-testid="doctor-plan-fits">{tr("doctor-plan-fits")}</p> }.into_any(),
                            Some(p) => view! { <PlanList plans=p.plans units/> }.into_any(),
                            None => view! { <p class="error">{tr("importer-unavailable")}</p> }.into_any(),
                        })
                    }}
                </section>
            </Show>
        </section>
    }
}

/// The Fluent key of the memory that ran out.
fn memory_key(memory: Memory) -> &'static str {
    match memory {
        Memory::Gpu => "doctor-memory-gpu",
        Memory::Unified => "doctor-memory-unified",
        Memory::Host => "doctor-memory-host",
    }
}

/// Which stack printed the error, which memory ran out (or that it is not
/// an out-of-memory error), how ambiguous units were read, and the message read.
#[component]
fn Stack(report: OomReport) -> impl IntoView {
    let stack = report.framework.name();
    let kind = if report.out_of_memory {
        view! {
            <p data-testid="doctor-memory" data-memory=format!("{:?}", report.memory).to_lowercase()>
                {tr("doctor-memory")}{move || colon(lang())}<strong>{tr(memory_key(report.memory))}</strong>
            </p>
        }
        .into_any()
    } else {
        view! { <p class="not-oom" data-testid="doctor-not-oom"><strong>{tr("doctor-not-oom")}</strong></p> }.into_any()
    };
    let binary = (report.gb_meaning == Some(GbMeaning::Binary)).then(
        || view! { <p class="hint" data-testid="doctor-units">{tr("doctor-units-binary")}</p> },
    );
    let excerpt = report
        .excerpt
        .chars()
        .take(EXCERPT_CHARS)
        .collect::<String>();
    view! {
        <section class="panel doctor-stack" aria-live="polite">
            <p data-testid="doctor-stack">{tr("doctor-stack")}": "<strong>{stack}</strong></p>
            {kind}
            {binary}
            <details>
                <summary>{tr("doctor-excerpt")}</summary>
                <pre class="excerpt">{excerpt}</pre>
            </details>
        </section>
    }
}

/// Characters of the message shown back (the core reads up to 5 KiB).
const EXCERPT_CHARS: usize = 1200;

fn segment_class(key: &str) -> &'static str {
    match key {
        "allocated" => "seg-allocated",
        "reserved_unallocated" => "seg-reserved",
        "non_pytorch" => "seg-outside",
        "other_processes" => "seg-others",
        "free" => "seg-free",
        _ => "seg-request",
    }
}

#[component]
fn OomPicture(report: OomReport, units: Units) -> impl IntoView {
    let segments = picture(&report);
    let placed: Vec<(Segment, f64, f64)> = layout(&segments, report.total_bytes)
        .into_iter()
        .map(|(s, x, w)| (s.clone(), x, w))
        .collect();
    let rects = placed
        .iter()
        .map(|(s, x, w)| {
            let y = if s.key == "request" { ROW + 6.0 } else { 0.0 };
            let (en, zh, bytes) = (s.label, s.label_zh, s.bytes);
            view! {
                <rect class=segment_class(s.key) x=format!("{:.2}", Decimal(*x)) y=num(y) width=format!("{:.2}", Decimal(*w)) height=num(ROW)>
                    <title>{move || { let lang = lang(); format!("{}{}{}", pick(lang, en, zh), colon(lang), units.bytes(bytes)) }}</title>
                </rect>
            }
        })
        .collect_view();
    let legend = segments
        .iter()
        .map(|s| {
            let (en, zh, bytes, key) = (s.label, s.label_zh, s.bytes, s.key);
            view! {
                <li data-segment=key data-bytes=bytes.to_string()>
                    <span class=format!("swatch {}", segment_class(key))></span>
                    {move || pick(lang(), en, zh).to_owned()}
                    {move || colon(lang())}
                    <strong>{units.bytes(bytes)}</strong>
                </li>
            }
        })
        .collect_view();
    let diagnoses = report.diagnoses.clone();
    let total = report.total_bytes;
    let drawn = !segments.is_empty();
    view! {
        <section class="panel doctor-result" aria-live="polite">
            <Show when=move || drawn>
            <h2>{tr("doctor-picture")}</h2>
            </Show>
            <figure class="oom-bar" data-testid="doctor-picture" hidden=!drawn>
                <svg viewBox=format!("0 0 {} {}", num(BAR_WIDTH), num(2.0 * ROW + 6.0)) preserveAspectRatio="none" role="img" aria-label=tr("doctor-picture")>
                    <rect class="track" x="0" y="0" width=num(BAR_WIDTH) height=num(ROW)/>
                    {rects}
                </svg>
                <figcaption>
                    {move || total.map(|t| format!("{} {}", text(lang(), "doctor-total"), units.bytes(t)))}
                </figcaption>
            </figure>
            <ul class="oom-legend">{legend}</ul>
            <h3>{tr("doctor-diagnoses")}</h3>
            <ul class="diagnoses" data-testid="doctor-diagnoses">
                {diagnoses
                    .into_iter()
                    .map(|d| {
                        let code = d.code;
                        view! {
                            <li data-code=code>{move || d.text(lang()).to_owned()}</li>
                        }
                    })
                    .collect_view()}
            </ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_message_lays_out_the_card_and_the_request() {
        // Seed 004 §9.2 (crates/core/tests/data/oom/legacy_seed004.txt):
        // 23.69 GiB card, 21.45 GiB allocated, 1.89 GiB free, 2.50 GiB asked.
        let text = include_str!("../../../crates/core/tests/data/oom/legacy_seed004.txt");
        let report = parse_oom(text).expect("the seed message parses");
        let segments = picture(&report);
        let placed = layout(&segments, report.total_bytes);
        let request = placed
            .iter()
            .find(|p| p.0.key == "request")
            .expect("request");
        let free = placed.iter().find(|p| p.0.key == "free").expect("free");
        // The request starts where free memory starts and is wider than it
        // (2.50 GiB asked > 1.89 GiB free): it visibly does not fit.
        assert!((request.1 - free.1).abs() < 1e-9);
        assert!(request.2 > free.2);
        // The card's parts fill at most the bar.
        let end = placed
            .iter()
            .filter(|p| p.0.key != "request")
            .map(|p| p.1 + p.2)
            .fold(0.0, f64::max);
        assert!(end <= BAR_WIDTH + 1e-9, "{end}");
    }
}
