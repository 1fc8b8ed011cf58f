//! The doctor's reading of a runtime's start-up log (vLLM's, llama.cpp's
//! load log): the core reads it (`vramfit_core::reconcile`), sets up the
//! scenario it implies and puts every figure the runtime printed beside the
//! estimator's, with the difference and the estimator's formula. The model
//! is the one the log names when the catalog has it, else the calculator's
//! (as `vramfit doctor -m` gives it); "open in the calculator" loads the
//! implied scenario.

use leptos::prelude::*;
use vramfit_core::decimal::Decimal;
use vramfit_core::estimate::resolve_model;
use vramfit_core::reconcile::{reconcile, Figure, Reconciliation, Row, RuntimeLog};
use vramfit_core::scenario::{Engine, GpuChoice, TaskKind};
use vramfit_core::{InputError, Scenario};

use crate::components::controls::InputErrorText;
use crate::format::{grouped, Units};
use crate::i18n::{colon, lang, space, text, text_with, tr};
use crate::link::View;
use crate::state::use_state;

/// Whose model the runtime's figures are compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum ComparedWith {
    /// The model the log names (the catalog has it).
    Log,
    /// The calculator's: the log names no model.
    CalculatorUnnamed,
    /// The calculator's: the log names one the catalog does not have.
    CalculatorUnknown(String),
}

/// A runtime's log compared with the estimator.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    pub log: RuntimeLog,
    pub with: ComparedWith,
    pub result: Result<Reconciliation, InputError>,
    /// The scenario the log implies, with the model compared with: what
    /// "open in the calculator" loads.
    pub scenario: Scenario,
}

/// Whether the log names a model the catalog has (else the calculator's
/// model is compared with, and the doctor shows the model picker).
pub fn names_known_model(log: &RuntimeLog) -> bool {
    log.model.is_some() && resolve_model(&log.scenario.model).is_ok()
}

/// Compares `log` with the model it names, else with the calculator's
/// (`calculator`'s model); the GPU stays the calculator's where the log
/// names none. nvidia-smi alone names no workload: the calculator's
/// scenario is compared, on the card nvidia-smi shows where it has none.
pub fn compare(log: &RuntimeLog, calculator: &Scenario) -> Compared {
    let mut log = log.clone();
    if log.engine == "nvidia-smi" {
        let card = std::mem::replace(&mut log.scenario, calculator.clone()).gpu;
        if log.scenario.gpu == GpuChoice::default() {
            log.scenario.gpu = card;
        }
    }
    let (with, model) = if names_known_model(&log) {
        (ComparedWith::Log, log.scenario.model.clone())
    } else {
        let with = match &log.model {
            Some(name) => ComparedWith::CalculatorUnknown(name.clone()),
            None => ComparedWith::CalculatorUnnamed,
        };
        (with, calculator.model.clone())
    };
    let result = resolve_model(&model).and_then(|spec| reconcile(&log, Some(&spec)));
    // The setup as compared (with the layers an `ollama ps` split implies).
    let mut scenario = match &result {
        Ok(r) => r.log.scenario.clone(),
        Err(_) => log.scenario.clone(),
    };
    scenario.model = model;
    if scenario.gpu == GpuChoice::default() {
        scenario.gpu = calculator.gpu.clone();
    }
    Compared {
        log,
        with,
        result,
        scenario,
    }
}

/// The Fluent key of a figure's name.
pub fn figure_key(figure: Figure) -> &'static str {
    match figure {
        Figure::Weights => "reconcile-figure-weights",
        Figure::ActivationPeak => "reconcile-figure-activation-peak",
        Figure::NonTorch => "reconcile-figure-non-torch",
        Figure::KvPool => "reconcile-figure-kv-pool",
        Figure::KvTokens => "reconcile-figure-kv-tokens",
        Figure::KvBlocks => "reconcile-figure-kv-blocks",
        Figure::MaxConcurrency => "reconcile-figure-max-concurrency",
        Figure::CudaGraphs => "reconcile-figure-cuda-graphs",
        Figure::ModelBufferGpu => "reconcile-figure-model-buffer-gpu",
        Figure::ModelBufferHost => "reconcile-figure-model-buffer-host",
        Figure::KvBufferGpu => "reconcile-figure-kv-buffer-gpu",
        Figure::KvBufferHost => "reconcile-figure-kv-buffer-host",
        Figure::ComputeBufferGpu => "reconcile-figure-compute-buffer-gpu",
        Figure::HostBuffers => "reconcile-figure-host-buffers",
        Figure::OllamaSize => "reconcile-figure-ollama-size",
        Figure::GpuShare => "reconcile-figure-gpu-share",
        Figure::DeviceUsed => "reconcile-figure-device-used",
        Figure::ProcessMemory => "reconcile-figure-process-memory",
    }
}

/// A figure's value: a size in `units`, a share in percent, a count
/// grouped, a ratio to 0.01.
pub fn value_text(figure: Figure, value: f64, units: Units) -> String {
    if figure.is_share() {
        format!("{:.0} %", Decimal(100.0 * value))
    } else if figure.is_bytes() {
        units.bytes(value.max(0.0).round() as u64)
    } else if value.fract() == 0.0 && value >= 0.0 {
        grouped(value as u64)
    } else {
        format!("{:.2}", Decimal(value))
    }
}

/// `ours − runtime` as a share, in percent to 0.01: `+1.25 %`, `−0.11 %`,
/// and `0.00 %` (no sign) when it rounds to nothing.
pub fn percent_text(difference: f64) -> String {
    let hundredths = (difference * 10_000.0).round();
    if hundredths == 0.0 || !hundredths.is_finite() {
        return "0.00 %".to_owned();
    }
    let magnitude = hundredths.abs() / 100.0;
    let sign = if hundredths > 0.0 { "+" } else { "\u{2212}" };
    format!("{sign}{:.2} %", Decimal(magnitude))
}

/// The engine as people write it.
pub fn engine_name(engine: &str) -> &str {
    match engine {
        "vllm" => "vLLM",
        "sglang" => "SGLang",
        "ollama" => "ollama ps",
        "ollama log" => "Ollama server log",
        other => other,
    }
}

/// The settings the scenario was set up with, as the engine's own flags
/// (none for a scenario that no serving engine runs).
pub fn setup_flags(sc: &Scenario) -> Vec<String> {
    let inf = &sc.inference;
    if sc.task != TaskKind::Inference {
        Vec::new()
    } else if inf.engine == Engine::LlamaCpp {
        vec![
            format!(
                "-ngl {}",
                inf.gpu_layers
                    .map_or_else(|| "all".to_owned(), |n| n.to_string())
            ),
            format!("-c {}", inf.prompt_len),
            format!("-ub {}", inf.ubatch),
            format!("-fa {}", if inf.flash_attn { "on" } else { "off" }),
        ]
    } else if inf.engine == Engine::Sglang {
        let mut flags = vec![
            format!("--tp-size {}", sc.parallel.tp),
            format!("--pp-size {}", sc.parallel.pp),
            format!("--context-length {}", inf.prompt_len),
        ];
        flags.extend(
            inf.mem_fraction_static
                .map(|f| format!("--mem-fraction-static {}", Decimal(f))),
        );
        flags
    } else if inf.engine.sizes_pool() {
        vec![
            format!("--tensor-parallel-size {}", sc.parallel.tp),
            format!("--pipeline-parallel-size {}", sc.parallel.pp),
            format!("--max-model-len {}", inf.prompt_len),
            format!(
                "--gpu-memory-utilization {}",
                Decimal(inf.gpu_memory_utilization)
            ),
        ]
    } else {
        Vec::new()
    }
}

/// The runtime's log beside the estimator's figures, with the model picker
/// hint and the button that opens the setup in the calculator.
#[component]
pub fn Reconcile(log: RuntimeLog) -> impl IntoView {
    let state = use_state();
    let compared = Memo::new(move |_| state.scenario.with(|sc| compare(&log, sc)));
    let open = move |_| {
        let scenario = compared.with_untracked(|c| c.scenario.clone());
        state.scenario.set(scenario);
        state.view.set(View::Calculator);
    };
    view! {
        <section class="panel reconcile" aria-labelledby="reconcile-heading" data-testid="reconcile">
            <h2 id="reconcile-heading">{tr("reconcile-heading")}</h2>
            {move || compared.with(|c| view! { <Setup compared=c.clone()/> })}
            {move || {
                let units = state.units.get();
                compared.with(|c| match &c.result {
                    Ok(r) => view! { <Table reconciliation=r.clone() units/> }.into_any(),
                    Err(e) => view! {
                        <p class="error" role="alert" data-testid="reconcile-error"><InputErrorText err=e.clone()/></p>
                    }.into_any(),
                })
            }}
            <Assumed compared/>
            <Unread compared/>
            <button type="button" data-testid="reconcile-open" on:click=open>
                {tr("reconcile-open")}
            </button>
        </section>
    }
}

/// Which engine printed the log, the model compared with, and the flags read.
#[component]
fn Setup(compared: Compared) -> impl IntoView {
    let engine = engine_name(&compared.log.engine).to_owned();
    let version = compared.log.version.clone().unwrap_or_default();
    let model = compared
        .result
        .as_ref()
        .map(|r| r.estimate.model.clone())
        .unwrap_or_default();
    let gpus = compared.scenario.parallel.gpus;
    let with = compared.with.clone();
    let whose = move || {
        let lang = lang();
        match &with {
            ComparedWith::Log => text(lang, "reconcile-model-from-log"),
            ComparedWith::CalculatorUnnamed => text(lang, "reconcile-model-unnamed"),
            ComparedWith::CalculatorUnknown(name) => {
                text_with(lang, "reconcile-model-unknown", &[("name", name.clone())])
            }
        }
    };
    let flags = setup_flags(&compared.scenario);
    let setup = (!flags.is_empty()).then(|| {
        let flags = flags
            .into_iter()
            .map(|f| view! { <code class="flag">{f}</code>" " })
            .collect_view();
        view! {
            <p>
                {tr("reconcile-setup")}{move || colon(lang())}{flags}"· "
                {move || text_with(lang(), "reconcile-gpus", &[("gpus", gpus.to_string())])}
            </p>
        }
    });
    view! {
        <p data-testid="reconcile-engine">
            {tr("reconcile-engine")}{move || colon(lang())}<strong>{format!("{engine} {version}").trim().to_owned()}</strong>
        </p>
        <p data-testid="reconcile-model">
            {tr("reconcile-model")}{move || colon(lang())}<strong>{model}</strong>{move || space(lang())}<span class="hint">{whose}</span>
        </p>
        {setup}
    }
}

/// One row per figure the runtime printed: its value, ours, the difference
/// and what our figure counts; figures we do not estimate say so.
#[component]
fn Table(reconciliation: Reconciliation, units: Units) -> impl IntoView {
    let rows = reconciliation
        .rows
        .iter()
        .map(|row| view! { <RowView row=row.clone() units/> })
        .collect_view();
    let printed_only = reconciliation
        .log
        .readings
        .iter()
        .filter(|r| !reconciliation.rows.iter().any(|row| row.figure == r.figure))
        .map(|r| {
            let key = figure_key(r.figure);
            view! {
                <tr data-testid="reconcile-row" data-figure=r.figure.key() data-compared="false">
                    <th scope="row">{tr(key)}<PrintedLine line=r.line.clone()/></th>
                    <td data-label=tr("reconcile-printed")>{value_text(r.figure, r.value, units)}</td>
                    <td data-label="vramfit">"—"</td>
                    <td data-label=tr("reconcile-difference")>"—"</td>
                    <td class="explanation">{tr("reconcile-not-estimated")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="reconcile-scroll" tabindex="0" role="region" aria-labelledby="reconcile-heading">
            <table>
                <thead>
                    <tr>
                        <th scope="col">{tr("reconcile-figure")}</th>
                        <th scope="col">{tr("reconcile-printed")}</th>
                        <th scope="col">"vramfit"</th>
                        <th scope="col">{tr("reconcile-difference")}</th>
                        <th scope="col">{tr("reconcile-explanation")}</th>
                    </tr>
                </thead>
                <tbody data-testid="reconcile-rows">{rows}{printed_only}</tbody>
            </table>
        </div>
    }
}

#[component]
fn RowView(row: Row, units: Units) -> impl IntoView {
    let key = figure_key(row.figure);
    let difference = percent_text(row.difference);
    let within = row.within_rounding;
    view! {
        <tr data-testid="reconcile-row" data-figure=row.figure.key() data-compared="true" class:within=within>
            <th scope="row">{tr(key)}<PrintedLine line=row.runtime_line.clone()/></th>
            <td data-label=tr("reconcile-printed")>{value_text(row.figure, row.runtime, units)}</td>
            <td data-label="vramfit">{value_text(row.figure, row.ours, units)}</td>
            <td class="difference" data-label=tr("reconcile-difference") data-testid="reconcile-difference">{difference}</td>
            <td class="explanation">
                <code>{row.ours_formula.clone()}</code>
                {within.then(|| view! { <span class="within-note">{tr("reconcile-within-rounding")}</span> })}
            </td>
        </tr>
    }
}

/// The line(s) the runtime printed, folded.
#[component]
fn PrintedLine(line: String) -> impl IntoView {
    view! {
        <details class="printed-line">
            <summary>{tr("reconcile-line")}</summary>
            <pre>{line}</pre>
        </details>
    }
}

/// What the log did not say, and what the scenario assumed instead (the
/// core's words).
#[component]
fn Assumed(compared: Memo<Compared>) -> impl IntoView {
    let assumed = move || {
        compared.with(|c| match &c.result {
            Ok(r) => r.log.assumed.clone(),
            Err(_) => c.log.assumed.clone(),
        })
    };
    view! {
        <Show when=move || !assumed().is_empty()>
            <h3>{tr("reconcile-assumed")}</h3>
            <ul class="reconcile-assumed" data-testid="reconcile-assumed" lang="en">
                {move || assumed().into_iter().map(|a| view! { <li>{a}</li> }).collect_view()}
            </ul>
        </Show>
    }
}

/// What the reader recognised but could not read (the core's words).
#[component]
fn Unread(compared: Memo<Compared>) -> impl IntoView {
    let unread = move || compared.with(|c| c.log.unread.clone());
    view! {
        <Show when=move || !unread().is_empty()>
            <h3>{tr("reconcile-unread")}</h3>
            <ul class="reconcile-assumed" data-testid="reconcile-unread" lang="en">
                {move || unread().into_iter().map(|u| view! { <li>{u}</li> }).collect_view()}
            </ul>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vramfit_core::reconcile::read_runtime_log;
    use vramfit_core::scenario::ModelSource;

    const LLAMA_LOG: &str = include_str!(
        "../../../crates/core/tests/data/llama_cpp/logs/01_llama3-8b-korean-q4km-rtx3070-full.txt"
    );
    const VLLM_LOG: &str =
        include_str!("../../../crates/core/tests/data/reconcile/vllm_0.19_llama31_8b_tp2.log");

    fn calculator(model: &str) -> Scenario {
        let mut sc = Scenario {
            model: ModelSource::Catalog(model.to_owned()),
            ..Scenario::default()
        };
        sc.gpu.name = Some("rtx-4090".to_owned());
        sc
    }

    #[test]
    fn a_log_naming_an_unknown_model_is_compared_with_the_calculators() {
        let log = read_runtime_log(LLAMA_LOG).expect("a llama.cpp log");
        let c = compare(&log, &calculator("meta-llama/Meta-Llama-3-8B"));
        assert_eq!(
            c.with,
            ComparedWith::CalculatorUnknown("llama-3-Korean-Bllossom-8B".to_owned())
        );
        let r = c.result.expect("compares");
        assert!(r.rows.len() >= 3, "{} rows", r.rows.len());
        let model = r
            .rows
            .iter()
            .find(|row| row.figure == Figure::ModelBufferGpu)
            .expect("model buffer row");
        assert_eq!(percent_text(model.difference), "0.00 %");
        // The setup to open: the log's flags and card (its `Device 0:` line
        // names an RTX 3070), the calculator's model.
        assert_eq!(
            c.scenario.model,
            ModelSource::Catalog("meta-llama/Meta-Llama-3-8B".to_owned())
        );
        assert_eq!(c.scenario.gpu.name.as_deref(), Some("rtx-3070"));
        assert_eq!(c.scenario.inference.gpu_layers, Some(33));
        assert_eq!(c.scenario.inference.prompt_len, 512);
        // The calculator shows the table's figures for it (the GPU changes none)…
        let spec = resolve_model(&c.scenario.model).expect("model");
        let e = vramfit_core::estimate::estimate_with_model(&c.scenario, &spec).expect("estimate");
        let weights = e
            .headline_gpu()
            .lines
            .iter()
            .find(|l| l.part == vramfit_core::report::Part::Weights)
            .expect("weights line");
        assert_eq!(weights.bytes as f64, model.ours);
        // …and the link the calculator opens carries the whole setup.
        let decoded = vramfit_core::url::decode(&vramfit_core::url::encode(&c.scenario));
        assert_eq!(decoded.scenario, c.scenario);
        assert!(decoded.notices.is_empty(), "{:?}", decoded.notices);
    }

    #[test]
    fn a_log_naming_a_catalog_model_is_compared_with_it() {
        let log = read_runtime_log(VLLM_LOG).expect("a vLLM log");
        assert!(names_known_model(&log));
        let c = compare(&log, &calculator("Qwen/Qwen2.5-7B"));
        assert_eq!(c.with, ComparedWith::Log);
        assert_eq!(c.scenario.model, log.scenario.model);
        // vLLM's log gives the card's memory: the calculator's GPU is not used.
        assert_eq!(c.scenario.gpu, log.scenario.gpu);
        let r = c.result.expect("compares");
        assert!(r.rows.iter().any(|row| row.figure == Figure::KvPool));
        assert_eq!(
            setup_flags(&c.scenario)[0],
            "--tensor-parallel-size 2".to_owned()
        );
    }

    #[test]
    fn a_log_naming_no_model_uses_the_calculators() {
        let log = read_runtime_log(
            "llama_context: n_ctx = 4096\nload_tensors: CUDA0 model buffer size = 1000.00 MiB\n",
        )
        .expect("a llama.cpp log");
        assert!(!names_known_model(&log));
        let c = compare(&log, &calculator("Qwen/Qwen2.5-3B"));
        assert_eq!(c.with, ComparedWith::CalculatorUnnamed);
        assert!(c.result.is_ok());
        assert_eq!(setup_flags(&c.scenario)[1], "-c 4096");
    }

    #[test]
    fn ollama_ps_opens_with_the_layers_its_split_implies() {
        let ps = include_str!(
            "../../../crates/core/tests/data/reconcile/ollama_ps_qwen25_14b_split.txt"
        );
        let log = read_runtime_log(ps).expect("ollama ps");
        let c = compare(&log, &calculator("meta-llama/Llama-3.1-8B"));
        assert_eq!(c.with, ComparedWith::Log);
        let r = c.result.expect("compares");
        assert_eq!(
            c.scenario.inference.gpu_layers,
            r.log.scenario.inference.gpu_layers
        );
        assert!(c.scenario.inference.gpu_layers.is_some());
        assert_eq!(setup_flags(&c.scenario)[1], "-c 8192");
        let share = r
            .rows
            .iter()
            .find(|row| row.figure == Figure::GpuShare)
            .expect("share");
        assert_eq!(
            value_text(Figure::GpuShare, share.runtime, Units::Binary),
            "52 %"
        );
    }

    #[test]
    fn nvidia_smi_alone_compares_the_calculators_scenario_on_its_card() {
        let smi = include_str!("../../../crates/core/tests/data/reconcile/nvidia_smi_rtx3090.txt");
        let log = read_runtime_log(smi).expect("nvidia-smi");
        let mut calc = calculator("Qwen/Qwen2.5-7B");
        calc.gpu = GpuChoice::default();
        calc.inference.prompt_len = 1234;
        let c = compare(&log, &calc);
        assert_eq!(c.with, ComparedWith::CalculatorUnnamed);
        assert_eq!(c.scenario.inference.prompt_len, 1234);
        assert_eq!(c.scenario.gpu.name.as_deref(), Some("rtx-3090"));
        let r = c.result.expect("compares");
        assert!(r.rows.iter().any(|row| row.figure == Figure::DeviceUsed));
        // The calculator's own card is kept.
        let c = compare(&log, &calculator("Qwen/Qwen2.5-7B"));
        assert_eq!(c.scenario.gpu.name.as_deref(), Some("rtx-4090"));
    }

    #[test]
    fn differences_and_values_read_as_people_write_them() {
        assert_eq!(percent_text(0.0), "0.00 %");
        assert_eq!(percent_text(-0.000_01), "0.00 %");
        assert_eq!(percent_text(0.0125), "+1.25 %");
        assert_eq!(percent_text(-0.0011), "\u{2212}0.11 %");
        assert_eq!(percent_text(f64::NAN), "0.00 %");
        let gib = (1u64 << 30) as f64;
        assert_eq!(
            value_text(Figure::KvPool, 63.76 * gib, Units::Binary),
            "63.76 GiB"
        );
        assert_eq!(
            value_text(Figure::KvTokens, 1_044_688.0, Units::Binary),
            "1,044,688"
        );
        assert_eq!(
            value_text(Figure::MaxConcurrency, 127.53, Units::Binary),
            "127.53"
        );
        assert_eq!(engine_name("vllm"), "vLLM");
    }

    #[test]
    fn every_figure_has_its_name_in_both_languages() {
        crate::i18n::add_tool_texts();
        for figure in Figure::ALL {
            for lang in [crate::i18n::Lang::En, crate::i18n::Lang::Zh] {
                let name = text(lang, figure_key(figure));
                assert_ne!(name, figure_key(figure), "{lang:?} {figure:?}");
            }
        }
    }
}
