//! Inputs that must never go silently wrong, in a real browser: multi-digit
//! typing keeps the field (and its focus), a select shows the value the
//! estimate uses, a stale result says so, the wizard keeps the user's setup,
//! and the fit table never answers past the model.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use vramfit_core::scenario::fields::{Kind, FIELDS};
use vramfit_core::scenario::{Engine, Method, ModelSource, Scenario, TaskKind};
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
        // The text stays as typed: never replaced by the value read back.
        let shown = field.unchecked_ref::<web_sys::HtmlInputElement>().value();
        assert_eq!(shown, typed, "{testid} rewrote {typed:?}");
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

#[wasm_bindgen_test]
async fn decimals_stay_as_typed_while_they_mean_the_same_value() {
    // 23.9 GiB is stored in whole bytes and reads back as 23.90000000037253;
    // a parameter count in billions is stored whole too.
    let sc = lora_scenario();
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    let capacity = "custom-capacity-gib-or-gb-0-card-s";
    type_digits(&root, capacity, "23.9").await;
    let expected_bytes = (23.9 * (1u64 << 30) as f64).round() as u64;
    assert_eq!(
        decode(&query()).scenario.gpu.memory_bytes,
        Some(expected_bytes)
    );
    // Another field's edit keeps the text as typed.
    type_digits(&root, "micro-batch", "3").await;
    let field: web_sys::HtmlInputElement = by_testid(&root, capacity).unchecked_into();
    assert_eq!(field.value(), "23.9");
    // The parameter count (its own mode of the model picker).
    let params_mode: web_sys::HtmlInputElement = root
        .query_selector_all("input[name='model-mode']")
        .expect("selector")
        .item(3)
        .expect("the parameter-count mode")
        .unchecked_into();
    params_mode.click();
    settle().await;
    type_digits(&root, "parameters-billions", "7.1234567891").await;
    let now = decode(&query()).scenario;
    assert_eq!(now.model, ModelSource::Params(7_123_456_789));
    assert_eq!(shown_totals(&root), core_totals(&now));
    // An outside change of the value does replace the text.
    let mut other = now.clone();
    other.gpu.memory_bytes = Some(40 << 30);
    set_query(&encode(&other));
    let _ = window().dispatch_event(&web_sys::Event::new("popstate").expect("event"));
    settle().await;
    let field: web_sys::HtmlInputElement = by_testid(&root, capacity).unchecked_into();
    assert_eq!(field.value(), "40");
}

/// Picks `key` in the select with `testid`, as a person does.
fn choose(root: &web_sys::HtmlElement, testid: &str, key: &str) {
    let select: web_sys::HtmlSelectElement = by_testid(root, testid).unchecked_into();
    select.set_value(key);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("change", &init).expect("event");
    select.dispatch_event(&event).expect("dispatch");
}

/// Every menu of the calculator shows what the link (the estimate) holds:
/// each choice field of the core's registry, the GPU and the model.
fn check_selects(root: &web_sys::HtmlElement, when: &str) {
    let sc = decode(&query()).scenario;
    let mut checked = 0;
    for field in FIELDS {
        let (Kind::Choice(choices), Some(label)) = (field.kind, field.label) else {
            continue;
        };
        let testid = label.trim_start_matches("field-");
        let Some(select) = root
            .query_selector(&format!("select[data-testid='{testid}']"))
            .expect("selector")
        else {
            assert!(
                !field.applies(&sc) || testid == "gpu",
                "{when}: no menu for {testid}"
            );
            continue;
        };
        let select: web_sys::HtmlSelectElement = select.unchecked_into();
        let expected = if field.key == "w" {
            sc.effective_weights().key()
        } else {
            choices.current(&sc)
        };
        assert_eq!(select.value(), expected, "{when}: {testid}");
        checked += 1;
    }
    assert!(checked >= 5, "{when}: only {checked} menus checked");
    let gpu: web_sys::HtmlSelectElement = by_testid(root, "gpu-select").unchecked_into();
    assert_eq!(
        gpu.value(),
        sc.gpu.name.clone().unwrap_or_default(),
        "{when}: GPU"
    );
    let model: web_sys::HtmlSelectElement = by_testid(root, "model-select").unchecked_into();
    if let ModelSource::Catalog(id) = &sc.model {
        assert_eq!(&model.value(), id, "{when}: model");
    }
}

#[wasm_bindgen_test]
async fn every_select_shows_the_value_in_the_link_across_methods_and_engines() {
    set_query(&encode(&lora_scenario()));
    let (root, _guard) = mount();
    settle().await;
    // Searches that leave the chosen GPU and model out of their matches.
    let gpu_search = root
        .query_selector(".gpu-picker input[type='search']")
        .expect("selector")
        .expect("the GPU search");
    type_into(&gpu_search, "a100");
    type_into(&by_testid(&root, "model-search"), "qwen");
    settle().await;
    let gpu: web_sys::HtmlSelectElement = by_testid(&root, "gpu-select").unchecked_into();
    assert_eq!(gpu.value(), "rtx-4090");
    let shown = gpu
        .query_selector("option:checked")
        .expect("selector")
        .and_then(|o| o.text_content())
        .unwrap_or_default();
    assert!(shown.contains("4090"), "{shown}");
    check_selects(&root, "searching");
    for method in Method::ALL {
        choose(&root, "method", method.key());
        settle().await;
        check_selects(&root, method.key());
    }
    by_testid(&root, &format!("task-{}", TaskKind::Inference.key()))
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    for engine in Engine::ALL {
        choose(&root, "engine", engine.key());
        settle().await;
        check_selects(&root, engine.key());
    }
    // A custom capacity without a card is named as such, not "none (no fit check)".
    choose(&root, "gpu-select", "");
    type_into(
        &by_testid(&root, "custom-capacity-gib-or-gb-0-card-s"),
        "24",
    );
    settle().await;
    let gpu: web_sys::HtmlSelectElement = by_testid(&root, "gpu-select").unchecked_into();
    let shown = gpu
        .query_selector("option:checked")
        .expect("selector")
        .and_then(|o| o.text_content())
        .unwrap_or_default();
    assert_eq!(shown, "custom");
}

/// Full fine-tuning of Llama-2-7B on a 24 GB card: far over, with plans.
fn over_the_card() -> Scenario {
    let mut sc = lora_scenario();
    sc.training.method = Method::Full;
    sc
}

fn count(root: &web_sys::HtmlElement, selector: &str) -> u32 {
    root.query_selector_all(selector)
        .expect("selector")
        .length()
}

/// The text drawn before `selector`'s element (its `::before`), as shown.
fn mark_before(root: &web_sys::HtmlElement, selector: &str) -> String {
    let element = root
        .query_selector(selector)
        .expect("selector")
        .unwrap_or_else(|| panic!("no {selector}"));
    let style = window()
        .get_computed_style_with_pseudo_elt(&element, "::before")
        .expect("computed style")
        .expect("a style");
    style.get_property_value("content").expect("content")
}

#[wasm_bindgen_test]
async fn every_view_of_a_stale_result_is_marked() {
    // The page's stylesheet draws the mark (the test page has none).
    let style = document().create_element("style").expect("style");
    style.set_text_content(Some(include_str!("../src/components/result/result.css")));
    document()
        .head()
        .expect("head")
        .append_child(&style)
        .expect("append");
    set_query(&encode(&over_the_card()));
    let (root, _guard) = mount();
    wait_ms(300).await;
    let places = [
        "[data-testid='verdict-bar']",
        ".plans h2",
        ".sweep-chart h2",
        ".fit-table h2",
    ];
    for place in places {
        assert_eq!(
            mark_before(&root, place),
            "none",
            "{place} marked while fresh"
        );
    }
    type_into(&by_testid(&root, "model-search"), "acme/no-such-model-9b");
    settle().await;
    let mark = vramfit_web::i18n::text(vramfit_web::i18n::Lang::En, "stale-tag");
    for place in places {
        let shown = mark_before(&root, place);
        assert_eq!(shown, format!("\"{mark}\""), "{place} is not marked stale");
    }
    type_into(&by_testid(&root, "micro-batch"), "2");
    wait_ms(300).await;
    for place in places {
        assert_eq!(mark_before(&root, place), "none", "{place} still marked");
    }
    style.remove();
}

#[wasm_bindgen_test]
async fn plans_fold_their_details_and_name_a_changed_workload() {
    // Serving 16 prompts of 16k tokens on 24 GB: plans shorten the prompt.
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.1-8B".into()),
        ..Scenario::default()
    };
    sc.inference.batch = 16;
    sc.inference.prompt_len = 16_384;
    sc.gpu.name = Some("rtx-4090".into());
    let report = vramfit_core::plan::fix_plans(&sc, &Default::default()).expect("plans");
    assert!(report
        .plans
        .iter()
        .any(|p| p.changes.iter().any(|c| c.changes_workload)));
    for lang in ["", "&lang=zh"] {
        set_query(&format!("{}{lang}", encode(&sc)));
        let (root, _guard) = mount();
        wait_ms(500).await;
        let plans = root
            .query_selector_all("[data-testid='plan']")
            .expect("selector");
        assert_eq!(plans.length() as usize, report.plans.len());
        for (i, plan) in report.plans.iter().enumerate() {
            let item: web_sys::Element = plans.item(i as u32).expect("plan").unchecked_into();
            // Each change's details fold under its name, shown.
            let details = item.query_selector_all("details").expect("selector");
            assert_eq!(details.length() as usize, plan.changes.len(), "plan {i}");
            for d in 0..details.length() {
                let d: web_sys::Element = details.item(d).expect("details").unchecked_into();
                assert!(!d.has_attribute("open"), "plan {i} is unfolded");
            }
            let names = item
                .query_selector_all("details > summary")
                .expect("selector");
            for (n, change) in plan.changes.iter().enumerate() {
                let name = if lang.is_empty() {
                    &change.en
                } else {
                    &change.zh
                };
                let shown = names
                    .item(n as u32)
                    .and_then(|s| s.text_content())
                    .unwrap_or_default();
                assert_eq!(&shown, name, "plan {i}");
            }
            // The saving stays in sight, outside the folded details.
            let memory = item
                .query_selector(":scope > .plan-memory")
                .expect("selector")
                .and_then(|m| m.text_content())
                .unwrap_or_default();
            assert!(!memory.is_empty(), "plan {i} hides its memory");
            let summary = item
                .query_selector("[data-testid='plan-summary']")
                .expect("selector")
                .and_then(|s| s.text_content())
                .unwrap_or_default();
            let workload = plan.changes.iter().any(|c| c.changes_workload);
            let says = ["changes your workload", "改变了你的工作负载"]
                .iter()
                .any(|w| summary.contains(w));
            assert_eq!(says, workload, "plan {i}: {summary}");
            if workload && plan.cost.quality_risk_pct == 0.0 {
                assert!(!summary.contains("0.0"), "plan {i}: {summary}");
            }
        }
    }
}

#[wasm_bindgen_test]
async fn several_serving_gpus_offer_tensor_parallel_at_the_gpu_count() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.1-8B".into()),
        ..Scenario::default()
    };
    sc.gpu.name = Some("rtx-4090".into());
    sc.parallel.gpus = 2;
    set_query(&encode(&sc));
    let (root, _guard) = mount();
    settle().await;
    let e = vramfit_core::estimate(&sc).expect("estimates");
    let note = e
        .notes
        .iter()
        .find(|n| n.code == "serving_replicas")
        .expect("the core's note");
    let shown = root
        .query_selector(".gpu-picker [data-testid='replica-note']")
        .expect("selector")
        .expect("the note at the GPU count")
        .text_content()
        .unwrap_or_default();
    assert!(shown.contains(&note.message), "{shown}");
    by_testid(&root, "set-tp")
        .unchecked_ref::<web_sys::HtmlElement>()
        .click();
    settle().await;
    let now = decode(&query()).scenario;
    assert_eq!(now.parallel.tp, 2);
    assert_eq!(shown_totals(&root), core_totals(&now));
    assert_eq!(count(&root, "[data-testid='replica-note']"), 0);
}

/// Fails on a space beside Chinese text (CJK punctuation, or between two
/// CJK characters) or an English term the Chinese page should not show.
fn check_chinese_text(text: &str) {
    let chars: Vec<char> = text.chars().collect();
    let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    let punct =
        |c: char| ('\u{3000}'..='\u{303f}').contains(&c) || ('\u{ff00}'..='\u{ffef}').contains(&c);
    for (i, w) in chars.windows(3).enumerate() {
        if w[1] == ' ' && (punct(w[0]) || punct(w[2]) || (cjk(w[0]) && cjk(w[2]))) {
            let from = i.saturating_sub(20);
            let around: String = chars[from..(i + 20).min(chars.len())].iter().collect();
            panic!("a space beside Chinese text: {around:?}");
        }
    }
    for english in ["KV cache", "最大 micro-batch", "none", "strategy"] {
        assert!(!text.contains(english), "{english:?} in the Chinese page");
    }
}

#[wasm_bindgen_test]
async fn chinese_result_texts_have_no_stray_spaces_or_english_terms() {
    // Training with a guessed model (the note after the summary), over the
    // card (plans); serving on two GPUs (KV cache, the replica note).
    let mut train = over_the_card();
    train.model = ModelSource::Params(7_000_000_000);
    let mut serve = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.1-8B".into()),
        ..Scenario::default()
    };
    serve.gpu.name = Some("rtx-4090".into());
    serve.parallel.gpus = 2;
    for sc in [train, serve] {
        set_query(&format!("{}&lang=zh", encode(&sc)));
        let (root, _guard) = mount();
        wait_ms(300).await;
        // Folded plan details are text too: unfold them.
        let details = root.query_selector_all("details").expect("selector");
        for i in 0..details.length() {
            let d: web_sys::Element = details.item(i).expect("details").unchecked_into();
            d.set_attribute("open", "").expect("open");
        }
        check_chinese_text(&root.text_content().unwrap_or_default());
    }
    // The guessed-model note follows the summary without a space.
    let mut guessed = lora_scenario();
    guessed.model = ModelSource::Params(7_000_000_000);
    set_query(&format!("{}&lang=zh", encode(&guessed)));
    let (root, _guard) = mount();
    settle().await;
    let summary = by_testid(&root, "model-summary")
        .text_content()
        .unwrap_or_default();
    assert!(summary.contains("个参数（"), "{summary}");
    drop(_guard);
    // The embed's GPU menu names "no card" in Chinese.
    set_query("v=1&embed=1&show=gpu&lang=zh");
    let (root, _guard) = mount();
    settle().await;
    let none = by_testid(&root, "gpu-select")
        .query_selector("option[value='']")
        .expect("selector")
        .and_then(|o| o.text_content())
        .unwrap_or_default();
    assert!(none.starts_with('无'), "{none}");
}

/// A vLLM scenario answers with its KV pool (what the core's pool holds),
/// and a llama.cpp one shows its split between the GPU and host RAM.
#[wasm_bindgen_test]
async fn serving_answers_with_the_pool_and_llama_cpp_with_its_split() {
    let link = "v=1&m=meta-llama/Llama-3.1-8B&eng=vllm&gpu=l40s&bs=6&pl=16000&nt=2000";
    set_query(link);
    let (root, guard) = mount();
    settle().await;
    let pool = vramfit_core::estimate(&decode(link).scenario)
        .expect("estimates")
        .serving
        .expect("a pool");
    // Numbers are shown grouped (327,744).
    let shown = by_testid(&root, "pool")
        .text_content()
        .unwrap_or_default()
        .replace(',', "");
    assert!(
        shown.contains(&pool.kv_pool_tokens.to_string())
            && shown.contains(&format!(" {} ", pool.max_concurrent_sequences))
            && shown.contains(&pool.max_context.to_string()),
        "{shown}"
    );
    let verdict = by_testid(&root, "headroom")
        .text_content()
        .unwrap_or_default();
    assert!(verdict.contains("KV pool"), "{verdict}");
    // The fit table gives every card's concurrency at this context.
    let rows = vramfit_core::solver::fit_table(&decode(link).scenario).expect("fit table");
    assert_eq!(
        count(&root, "[data-testid='fit-concurrent']") as usize,
        rows.len()
    );
    drop(guard);
    set_query("v=1&m=Qwen/Qwen3-30B-A3B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4080&pl=4000&nt=96&ngl=49&ncmoe=12");
    let (root, _guard) = mount();
    settle().await;
    let split = by_testid(&root, "offload")
        .text_content()
        .unwrap_or_default();
    assert!(
        split.contains("GPU") && split.contains("host RAM"),
        "{split}"
    );
    assert_eq!(count(&root, ".offload-bar rect"), 2);
}
