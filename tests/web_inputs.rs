//! Inputs that must never go silently wrong, in a real browser: multi-digit
//! typing keeps the field (and its focus), a select shows the value the
//! estimate uses, a stale result says so, the wizard keeps the user's setup,
//! and the fit table never answers past the model.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};
use vramfit_core::url::{decode, encode, Choice};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod browser;
use browser::*;

fn lora_scenario() -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.gpu.name = Some("rtx-4090".into());
    sc
}

/// Types `text` one character at a time, as a keyboard does, into the
/// field with `testid`, checking after every keystroke that the page kept
/// the same element (a rebuilt field loses focus and the next digit).
async fn type_digits(root: &web_sys::HtmlElement, testid: &str, text: &str) {
    let field = by_testid(root, testid);
    let input: &web_sys::HtmlElement = field.unchecked_ref();
    input.focus().expect("focus");
    let mut typed = String::new();
    for c in text.chars() {
        typed.push(c);
        type_into(&field, &typed);
        settle().await;
        let now = by_testid(root, testid);
        assert!(
            now.is_same_node(Some(&field)),
            "{testid} was rebuilt after {typed:?}"
        );
        let active = document().active_element();
        assert!(
            active.is_some_and(|a| a.is_same_node(Some(&field))),
            "{testid} lost focus after {typed:?}"
        );
    }
}

#[wasm_bindgen_test]
async fn every_number_field_takes_multi_digit_typing() {
    let sc = lora_scenario();
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    type_digits(&root, "rank", "16").await;
    type_digits(&root, "micro-batch", "12").await;
    type_digits(&root, "sequence-length", "4096").await;
    type_digits(&root, "dropout", "0.15").await;
    let mut expected = sc.clone();
    expected.training.lora.rank = 16;
    expected.training.micro_batch = 12;
    expected.training.seq_len = 4096;
    expected.training.lora.dropout = 0.15;
    assert_eq!(decode(&query()).scenario, expected);
    assert_eq!(shown_totals(&root), core_totals(&expected));
}

#[wasm_bindgen_test]
async fn the_weight_menu_shows_what_the_estimate_uses() {
    // QLoRA over the default 16-bit choice computes NF4: the menu says nf4.
    let mut sc = lora_scenario();
    sc.training.method = Method::Qlora;
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    let select: web_sys::HtmlSelectElement = by_testid(&root, "weights").unchecked_into();
    assert_eq!(select.value(), sc.effective_weights().key());
    assert_eq!(select.value(), "nf4");
}

#[wasm_bindgen_test]
async fn a_result_for_the_previous_model_is_marked_stale() {
    set_query(&encode(&lora_scenario()));
    let (root, _guard) = mount();
    settle().await;
    assert!(root
        .query_selector("[data-testid='stale-result']")
        .unwrap()
        .is_none());
    let search = by_testid(&root, "model-search");
    type_into(&search, "acme/no-such-model-9b");
    settle().await;
    let note = by_testid(&root, "stale-result")
        .text_content()
        .unwrap_or_default();
    assert!(note.contains("acme/no-such-model-9b"), "{note}");
    assert!(root
        .query_selector("[data-testid='model-paste-instead']")
        .unwrap()
        .is_some());
    // A new scenario is a fresh result.
    type_into(&by_testid(&root, "micro-batch"), "2");
    settle().await;
    assert!(root
        .query_selector("[data-testid='stale-result']")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn the_wizard_keeps_the_users_sequence_and_rank() {
    let mut sc = lora_scenario();
    sc.training.seq_len = 4096;
    sc.training.lora.rank = 16;
    set_query(&format!("{}&view=wizard", encode(&sc)));
    let (root, _guard) = mount();
    wait_ms(300).await;
    by_testid(&root, "wizard-open")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    // The calculator is the other page: it is loaded with the same link.
    let load = last_page_load().expect("the calculator page is loaded");
    let load_query = load.strip_prefix("../?").expect("the calculator page");
    assert_eq!(format!("?{load_query}"), query());
    let opened = decode(load_query).scenario;
    assert_eq!(opened.training.seq_len, 4096);
    assert_eq!(opened.training.lora.rank, 16);
}

#[wasm_bindgen_test]
async fn the_fit_table_stops_at_the_models_context() {
    // Llama-3.1-8B serving: the largest cards could hold more than its
    // 131,072 positions; the table says the model is the bound.
    set_query("v=1");
    let (root, _guard) = mount();
    wait_ms(300).await;
    let bound = root
        .query_selector_all("[data-testid='model-bound']")
        .expect("selector")
        .length();
    assert!(bound > 0, "no row bounded by the model");
    let rows = by_testid(&root, "fit-rows")
        .text_content()
        .unwrap_or_default();
    assert!(!rows.contains("239,731"), "{rows}");
}

#[wasm_bindgen_test]
async fn a_returning_user_gets_their_last_setup_but_a_link_wins() {
    let mut mine = lora_scenario();
    mine.training.micro_batch = 3;
    set_query(&encode(&mine));
    {
        let (_root, _guard) = mount();
        settle().await;
    }
    // Opened again with no query: the last setup, not the defaults.
    set_query("");
    {
        let (root, _guard) = mount();
        settle().await;
        assert_eq!(decode(&query()).scenario, mine);
        assert_eq!(shown_totals(&root), core_totals(&mine));
    }
    // A share link is never overridden.
    set_query("v=1&bs=2");
    let (_root, _guard) = mount();
    settle().await;
    assert_eq!(decode(&query()).scenario.inference.batch, 2);
    assert_eq!(decode(&query()).scenario.task, TaskKind::Inference);
}
