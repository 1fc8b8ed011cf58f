//! Components and the codec in a real browser (wasm-bindgen-test, headless
//! Chromium): `cargo test --target wasm32-unknown-unknown -p vramfit-web`.
//! The expected numbers come from `vramfit_core::estimate` on the scenario
//! the link describes: the page must show exactly what the core computes.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use vramfit_core::catalog::models;
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
use vramfit_core::url::{decode, encode};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod browser;
use browser::*;

fn training_scenario() -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.seq_len = 1024;
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    sc
}

#[wasm_bindgen_test]
async fn an_opened_link_shows_the_core_estimate() {
    let sc = training_scenario();
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    assert_eq!(shown_totals(&root), core_totals(&sc));
    assert!(root
        .query_selector("[data-testid='link-notices']")
        .unwrap()
        .is_none());
    // The fit table lists every catalog GPU.
    let rows = by_testid(&root, "fit-rows").child_element_count();
    assert_eq!(rows as usize, vramfit_core::gpu::gpus().len());
}

#[wasm_bindgen_test]
async fn typing_replaces_the_address_and_recomputes() {
    let sc = training_scenario();
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    let history_length = window().history().unwrap().length().unwrap();
    type_into(&by_testid(&root, "micro-batch"), "4");
    settle().await;
    let mut expected = sc.clone();
    expected.training.micro_batch = 4;
    assert_eq!(decode(&query()).scenario, expected);
    assert_eq!(shown_totals(&root), core_totals(&expected));
    assert_eq!(
        window().history().unwrap().length().unwrap(),
        history_length
    );
    // An invalid entry is reported next to the field and changes nothing.
    type_into(&by_testid(&root, "micro-batch"), "0");
    settle().await;
    assert_eq!(decode(&query()).scenario, expected);
    let invalid = by_testid(&root, "micro-batch").get_attribute("aria-invalid");
    assert_eq!(invalid.as_deref(), Some("true"));
}

#[wasm_bindgen_test]
async fn a_malformed_link_names_each_bad_parameter() {
    set_query("v=1&mb=zero&bogus=1&gpu=no-such-card");
    let (root, _guard) = mount();
    settle().await;
    let notice = by_testid(&root, "link-notices")
        .text_content()
        .unwrap_or_default();
    for param in ["mb", "bogus", "gpu"] {
        assert!(notice.contains(param), "{param} not in {notice}");
    }
    assert_eq!(shown_totals(&root), core_totals(&Scenario::default()));
    // The address now holds the defaults the page uses.
    assert_eq!(query(), "?v=1");
}

#[wasm_bindgen_test]
async fn units_toggle_and_pin_compare() {
    let sc = training_scenario();
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    let gb_button = root
        .query_selector(".units button:last-child")
        .unwrap()
        .expect("GB button");
    gb_button.unchecked_ref::<web_sys::HtmlElement>().click();
    settle().await;
    assert!(query().ends_with("&u=gb"), "{}", query());
    let shown = by_testid(&root, "device-used-bytes")
        .text_content()
        .unwrap_or_default();
    assert!(shown.ends_with(" GB"), "{shown}");

    by_testid(&root, "pin")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    type_into(&by_testid(&root, "micro-batch"), "2");
    settle().await;
    let table = by_testid(&root, "compare-table")
        .text_content()
        .unwrap_or_default();
    assert!(
        table.contains("activations") && table.contains('+'),
        "{table}"
    );
}

#[wasm_bindgen_test]
fn the_codec_round_trips_every_catalog_model_in_wasm() {
    for m in models() {
        let mut sc = training_scenario();
        sc.model = ModelSource::Spec(Box::new(m.spec.clone()));
        sc.training.lora.dropout = 0.1;
        let d = decode(&encode(&sc));
        assert!(d.notices.is_empty(), "{}: {:?}", m.id, d.notices);
        assert_eq!(d.scenario, sc);
    }
}

// ---- The views of issue 4 and the languages of issue 5 ----

use vramfit_core::doctor::{parse_oom, picture};
use vramfit_core::logs::{analyze, parse_log, Trend};
use vramfit_core::plan::target_capacity;
use vramfit_core::wizard::recommend;
use vramfit_web::components::wizard::answers;
use vramfit_web::link::WizardChoice;

/// The decision-table row the wizard shows (an attribute: the page shows its text).
fn row_of(root: &web_sys::HtmlElement) -> Option<String> {
    by_testid(root, "wizard-row-text").get_attribute("data-row")
}

fn text_of(root: &web_sys::HtmlElement, testid: &str) -> String {
    by_testid(root, testid).text_content().unwrap_or_default()
}

/// Llama-2-7B on one 16 GB card (NVIDIA T4, 16 GB: catalog `t4`).
fn seven_b_on_sixteen_gb(task: TaskKind) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task,
        ..Scenario::default()
    };
    sc.gpu.name = Some("t4".into());
    sc
}

const SEED_OOM: &str = include_str!("../crates/core/tests/data/oom/legacy_seed004.txt");
const SEED_LEAK_LOG: &str = include_str!("../crates/core/tests/data/logs/leak_seed004.txt");

#[wasm_bindgen_test]
async fn wizard_shows_the_row_the_core_picks_for_7b_on_16gb() {
    let sc = seven_b_on_sixteen_gb(TaskKind::Inference);
    set_query(&format!("{}&view=wizard", encode(&sc)));
    let (root, _guard) = mount();
    wait_ms(300).await;
    let expected = recommend(&answers(&sc, WizardChoice::default())).expect("recommends");
    assert_eq!(row_of(&root), Some(expected.row_id.clone()));
    assert_eq!(text_of(&root, "wizard-row-text"), expected.row_text.en);
    assert_eq!(text_of(&root, "wizard-why"), expected.why.en);
    // A changed answer goes into the link and re-walks the table.
    by_testid(&root, "prio-quality")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    wait_ms(300).await;
    assert!(query().contains("prio=quality"), "{}", query());
    let choice = WizardChoice {
        priority: vramfit_core::wizard::Priority::Quality,
        ..WizardChoice::default()
    };
    let expected = recommend(&answers(&sc, choice)).expect("recommends");
    assert_eq!(row_of(&root), Some(expected.row_id.clone()));
}

#[wasm_bindgen_test]
async fn plans_appear_when_the_setup_does_not_fit_and_each_link_fits() {
    // Full fine-tuning of 7B on 16 GB: far over (weights alone are 13.5 GB in bf16).
    let sc = seven_b_on_sixteen_gb(TaskKind::Training);
    let estimate = vramfit_core::estimate(&sc).expect("estimates");
    assert_eq!(estimate.fits(), Some(false));
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    wait_ms(300).await;
    let links = root
        .query_selector_all("[data-testid='plan-link']")
        .expect("selector");
    assert!(links.length() > 0, "no plan shown");
    for i in 0..links.length() {
        let link: web_sys::Element = links.item(i).expect("link").unchecked_into();
        let href = link.get_attribute("href").expect("href");
        assert!(href.starts_with("?v=1"), "{href}");
        let decoded = decode(&href);
        assert!(decoded.notices.is_empty(), "{:?}", decoded.notices);
        let used = vramfit_core::estimate(&decoded.scenario)
            .expect("the plan estimates")
            .headline_gpu()
            .device_used_bytes;
        let capacity = target_capacity(&decoded.scenario).expect("capacity");
        assert!(used <= capacity, "plan {i}: {used} > {capacity}");
    }
    // A setup that fits shows no plans.
    let mut fits = sc.clone();
    fits.gpu.name = Some("a100-sxm4-80gb".into());
    fits.training.method = vramfit_core::scenario::Method::Lora;
    set_query(&encode(&fits));
    let (root, _guard2) = mount();
    wait_ms(300).await;
    assert!(root
        .query_selector("[data-testid='plans']")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn doctor_draws_the_picture_and_lists_the_diagnoses() {
    set_query("v=1&view=doctor");
    let (root, _guard) = mount();
    settle().await;
    paste_into(&by_testid(&root, "doctor-paste"), SEED_OOM);
    wait_ms(500).await;
    let report = parse_oom(SEED_OOM).expect("the seed message parses");
    let segments = by_testid(&root, "doctor-picture")
        .parent_element()
        .expect("panel")
        .query_selector_all("[data-segment]")
        .expect("selector");
    let expected = picture(&report);
    assert_eq!(segments.length() as usize, expected.len());
    for (i, seg) in expected.iter().enumerate() {
        let el: web_sys::Element = segments.item(i as u32).expect("segment").unchecked_into();
        assert_eq!(el.get_attribute("data-segment").as_deref(), Some(seg.key));
        assert_eq!(el.get_attribute("data-bytes"), Some(seg.bytes.to_string()));
    }
    let shown = by_testid(&root, "doctor-diagnoses");
    assert_eq!(shown.child_element_count() as usize, report.diagnoses.len());
    assert!(!report.diagnoses.is_empty());
    let first = shown.first_element_child().expect("a diagnosis");
    assert_eq!(
        first.get_attribute("data-code").as_deref(),
        Some(report.diagnoses[0].code)
    );
    assert_eq!(
        first.text_content().unwrap_or_default(),
        report.diagnoses[0].message
    );
    // No setup in the calculator: nothing to plan.
    assert!(root
        .query_selector("[data-testid='doctor-plan']")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn doctor_hands_the_calculators_setup_to_the_plans() {
    // Full training of 7B against the seed's 23.69 GiB card: does not fit.
    let sc = seven_b_on_sixteen_gb(TaskKind::Training);
    set_query(&format!("{}&view=doctor", encode(&sc)));
    let (root, _guard) = mount();
    settle().await;
    paste_into(&by_testid(&root, "doctor-paste"), SEED_OOM);
    wait_ms(500).await;
    by_testid(&root, "doctor-plan")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    let capacity = parse_oom(SEED_OOM)
        .expect("parses")
        .total_bytes
        .expect("total");
    let links = root
        .query_selector_all("[data-testid='plan-link']")
        .expect("selector");
    assert!(links.length() > 0, "no plan shown");
    let first: web_sys::Element = links.item(0).expect("link").unchecked_into();
    let plan = decode(&first.get_attribute("href").expect("href")).scenario;
    let used = vramfit_core::estimate(&plan)
        .expect("estimates")
        .headline_gpu()
        .device_used_bytes;
    assert!(used <= capacity, "{used} > {capacity}");
}

#[wasm_bindgen_test]
async fn logs_call_the_seed_leak_accelerating() {
    set_query("v=1&view=logs");
    let (root, _guard) = mount();
    settle().await;
    paste_into(&by_testid(&root, "logs-paste"), SEED_LEAK_LOG);
    wait_ms(500).await;
    // The seed's own reading (004 §9.8): the growth speeds up, a leak.
    let core = analyze(parse_log(SEED_LEAK_LOG), None).expect("analyzes");
    assert_eq!(core.trend, Trend::Accelerating);
    let trend = by_testid(&root, "logs-trend");
    assert_eq!(
        trend.get_attribute("data-trend").as_deref(),
        Some("accelerating")
    );
    assert!(by_testid(&root, "logs-causes").child_element_count() > 0);
}

#[wasm_bindgen_test]
async fn a_ten_megabyte_paste_returns_and_plots_at_most_1000_points() {
    // 10 MB of log lines with a slow linear leak (+1 MB per 100 steps).
    let mut log = String::with_capacity(10_500_000);
    let mut step = 0u64;
    while log.len() < 10_000_000 {
        step += 1;
        log.push_str(&format!(
            "step {step}: loss=1.23 mem={:.3}GB filler text that makes lines long\n",
            10.0 + step as f64 * 1e-5
        ));
    }
    set_query("v=1&view=logs");
    let (root, _guard) = mount();
    settle().await;
    let started = js_sys::Date::now();
    paste_into(&by_testid(&root, "logs-paste"), &log);
    wait_ms(500).await;
    let plotted: usize = by_testid(&root, "logs-plot")
        .get_attribute("data-points")
        .and_then(|n| n.parse().ok())
        .expect("data-points");
    assert!((2..=1000).contains(&plotted), "{plotted} points drawn");
    assert_eq!(
        by_testid(&root, "logs-trend")
            .get_attribute("data-trend")
            .as_deref(),
        Some("linear")
    );
    // And the doctor, given the same 10 MB with no message in it.
    set_query("v=1&view=doctor");
    let (root, _guard2) = mount();
    settle().await;
    paste_into(&by_testid(&root, "doctor-paste"), &log);
    wait_ms(500).await;
    assert!(root
        .query_selector("[data-testid='doctor-error']")
        .unwrap()
        .is_some());
    let elapsed = js_sys::Date::now() - started;
    // Generous for an unoptimized test build on a shared machine (10 to 30 s
    // measured); the release build is many times faster. A hang never gets here.
    assert!(elapsed < 60_000.0, "{elapsed} ms");
}

#[wasm_bindgen_test]
async fn lang_zh_shows_chinese_and_the_switch_goes_back_to_english() {
    set_query("v=1&lang=zh");
    let (root, _guard) = mount();
    settle().await;
    let tab = text_of(&root, "tab-calculator");
    assert_eq!(tab, "计算器");
    let heading = root
        .query_selector("#result-heading")
        .unwrap()
        .expect("heading")
        .text_content()
        .unwrap_or_default();
    assert_eq!(heading, "显存");
    assert!(query().ends_with("&lang=zh"), "{}", query());
    by_testid(&root, "lang-en")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    assert_eq!(text_of(&root, "tab-calculator"), "Calculator");
    assert!(!query().contains("lang="), "{}", query());
}

/// Within the tools page a tab switches the view in place and puts it in the
/// link (tabs of the other page load it: `Page::address_of`, whose unit test
/// is in `src/link.rs`; a page load would end this test run).
#[wasm_bindgen_test]
async fn tabs_put_the_view_in_the_link() {
    set_query("v=1&view=doctor");
    let (root, _guard) = mount();
    settle().await;
    by_testid(&root, "tab-logs")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    assert_eq!(query(), "?v=1&view=logs");
    assert!(root
        .query_selector("[data-testid='logs-paste']")
        .unwrap()
        .is_some());
    by_testid(&root, "tab-wizard")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    assert_eq!(query(), "?v=1&view=wizard");
}
