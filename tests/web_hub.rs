//! Any Hub model in the browser, against the fake Hub of
//! `scripts/fake_hub.py` (scripts/test-web.sh starts it and passes its
//! address at build time): a valid config is fetched, read and put into the
//! link as architecture fields that reproduce the same bytes; a gated, a
//! missing, a malformed, an absurd, an oversized and a slow answer each get
//! their message and keep what the user typed; a fetched config works
//! offline from its saved copy.
#![cfg(target_arch = "wasm32")]

use vramfit_core::scenario::ModelSource;
use vramfit_core::url::decode;
use vramfit_web::storage;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod browser;
use browser::*;

// Read at build time, but not `env!`: clippy and plain builds of the tests
// compile without the fake Hub; only running them needs it.
#[allow(clippy::option_env_unwrap)]
fn fake_hub() -> &'static str {
    option_env!("VRAMFIT_FAKE_HUB")
        .expect("run through scripts/test-web.sh, which starts the fake Hub")
}

/// Types `id` into the catalog search of a fresh page on the fake Hub and
/// presses the fetch button; returns the page once the status settles.
async fn fetch(id: &str, hub: &str, wait: i32) -> (web_sys::HtmlElement, impl Drop) {
    assert!(storage::set("vramfit-hub-url", hub), "storage");
    set_query("v=1");
    let (root, guard) = mount();
    settle().await;
    type_into(&by_testid(&root, "model-search"), id);
    settle().await;
    by_testid(&root, "hub-fetch")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    wait_ms(wait).await;
    (root, guard)
}

fn text_of(root: &web_sys::HtmlElement, testid: &str) -> String {
    by_testid(root, testid).text_content().unwrap_or_default()
}

fn search_text(root: &web_sys::HtmlElement) -> String {
    by_testid(root, "model-search")
        .unchecked_ref::<web_sys::HtmlInputElement>()
        .value()
}

#[wasm_bindgen_test]
async fn a_hub_config_is_read_into_the_link_and_estimates_as_the_core() {
    let (root, _guard) = fetch("https://huggingface.co/org/tiny-llama", fake_hub(), 800).await;
    let status = text_of(&root, "hub-status");
    assert!(status.starts_with("Read org/tiny-llama: llama"), "{status}");
    // The fake Hub's model API counts twice ours: the cross-check says so.
    assert!(status.contains("The Hub counts"), "{status}");
    let link = decode(&query());
    let ModelSource::Spec(spec) = &link.scenario.model else {
        panic!("the link holds the architecture: {}", query());
    };
    assert_eq!(spec.name, "org/tiny-llama");
    assert_eq!((spec.hidden, spec.layers, spec.kv_heads), (256, 4, 2));
    assert!(query().contains("s.arch=llama"), "{}", query());
    assert_eq!(shown_totals(&root), core_totals(&link.scenario));
}

#[wasm_bindgen_test]
async fn a_fetched_config_works_offline_from_its_saved_copy() {
    {
        let _ = fetch("org/tiny-llama", fake_hub(), 800).await;
    }
    // Nothing listens on port 9 of loopback: the Hub cannot be reached.
    let (root, _guard) = fetch("org/tiny-llama", "http://127.0.0.1:9", 800).await;
    let status = text_of(&root, "hub-status");
    assert!(status.contains("copy saved"), "{status}");
    assert!(query().contains("s.arch=llama"), "{}", query());
}

#[wasm_bindgen_test]
async fn failed_answers_say_why_and_keep_what_was_typed() {
    for (id, expect, retry) in [
        ("org/gated", "gated or private", false),
        ("org/missing", "no config.json", false),
        ("org/malformed", "config.json", false),
        ("org/absurd", "num_hidden_layers", false),
        ("org/huge", "which no config.json is", false),
        ("org/unknown", "no config.json", false),
    ] {
        let (root, _guard) = fetch(id, fake_hub(), 600).await;
        let status = text_of(&root, "hub-status");
        assert!(status.contains(expect), "{id}: {status}");
        assert_eq!(search_text(&root), id, "{id}: the typed id is kept");
        assert_eq!(
            root.query_selector("[data-testid='hub-retry']")
                .unwrap()
                .is_some(),
            retry,
            "{id}"
        );
        // The link still holds the model it had.
        assert!(!query().contains("s.arch"), "{id}: {}", query());
    }
}

#[wasm_bindgen_test]
async fn a_slow_hub_times_out_with_a_retry() {
    let (root, _guard) = fetch("org/slow", fake_hub(), 10_800).await;
    let status = text_of(&root, "hub-status");
    assert!(
        status.contains("did not answer within 10 seconds"),
        "{status}"
    );
    assert!(root
        .query_selector("[data-testid='hub-retry']")
        .unwrap()
        .is_some());
}

#[wasm_bindgen_test]
async fn a_bad_hub_address_is_refused_by_name() {
    assert!(storage::set("vramfit-hub-url", fake_hub()), "storage");
    set_query("v=1");
    let (root, _guard) = mount();
    settle().await;
    type_into(&by_testid(&root, "model-search"), "org/tiny-llama");
    settle().await;
    let field = by_testid(&root, "hub-base");
    let input: &web_sys::HtmlInputElement = field.unchecked_ref();
    input.set_value("hf-mirror.com");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    field
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).expect("event"))
        .expect("dispatch");
    settle().await;
    let panel = text_of(&root, "hub-panel");
    assert!(panel.contains("is not an http(s) address"), "{panel}");
    assert_eq!(storage::get("vramfit-hub-url").as_deref(), Some(fake_hub()));
}
