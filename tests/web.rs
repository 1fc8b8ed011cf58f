//! Components and the codec in a real browser (wasm-bindgen-test, headless
//! Chromium): `cargo test --target wasm32-unknown-unknown -p vramfit-web`.
//! The expected numbers come from `vramfit_core::estimate` on the scenario
//! the link describes: the page must show exactly what the core computes.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use vramfit_core::catalog::models;
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
use vramfit_core::url::{decode, encode};
use vramfit_web::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn set_query(query: &str) {
    let history = window().history().expect("history");
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")))
        .expect("replaceState");
}

fn query() -> String {
    window().location().search().expect("search")
}

/// Mounts the app in a fresh container (dropping the handle unmounts it).
fn mount() -> (web_sys::HtmlElement, impl Drop) {
    let container: web_sys::HtmlElement = document()
        .create_element("div")
        .expect("div")
        .unchecked_into();
    document()
        .body()
        .expect("body")
        .append_child(&container)
        .expect("append");
    let handle = leptos::mount::mount_to(container.clone(), App);
    let guard = DropGuard(Some(handle), container.clone());
    (container, guard)
}

struct DropGuard<T>(Option<T>, web_sys::HtmlElement);
impl<T> Drop for DropGuard<T> {
    fn drop(&mut self) {
        self.0.take();
        self.1.remove();
    }
}

/// Lets effects, re-renders and the settle timer of the heavy views run.
async fn settle() {
    for _ in 0..10 {
        leptos::task::tick().await;
    }
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        // 200 ms: several times the app's 30 ms settle delay.
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 200);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
    for _ in 0..10 {
        leptos::task::tick().await;
    }
}

fn by_testid(root: &web_sys::HtmlElement, testid: &str) -> web_sys::Element {
    root.query_selector(&format!("[data-testid='{testid}']"))
        .expect("valid selector")
        .unwrap_or_else(|| panic!("no element with data-testid={testid}"))
}

fn shown_totals(root: &web_sys::HtmlElement) -> [u64; 3] {
    [
        "peak-allocated-bytes",
        "peak-reserved-bytes",
        "device-used-bytes",
    ]
    .map(|t| {
        by_testid(root, t)
            .get_attribute("data-bytes")
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("{t} has no integer data-bytes"))
    })
}

fn core_totals(sc: &Scenario) -> [u64; 3] {
    let e = vramfit_core::estimate(sc).expect("the scenario estimates");
    let g = &e.gpus[0];
    [
        g.peak_allocated_bytes,
        g.peak_reserved_bytes,
        g.device_used_bytes,
    ]
}

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

fn type_into(input: &web_sys::Element, text: &str) {
    let input: &web_sys::HtmlInputElement = input.unchecked_ref();
    input.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).expect("event");
    input.dispatch_event(&event).expect("dispatch");
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
