//! Helpers of the browser tests (wasm-bindgen-test in headless Chromium):
//! mount the app on a link, let it settle, find elements by test id, type
//! and paste as a person does.
#![allow(dead_code)] // each test file uses its own share of them

use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub fn set_query(query: &str) {
    let history = window().history().expect("history");
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")))
        .expect("replaceState");
}

thread_local! {
    static PAGE_LOADS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The last page load the mounted app asked for (`tools/?...`, `../?...`).
pub fn last_page_load() -> Option<String> {
    PAGE_LOADS.with(|loads| loads.borrow().last().cloned())
}

pub fn query() -> String {
    window().location().search().expect("search")
}

/// Mounts, in a fresh container, the page the current link opens (the
/// calculator, or the tools page for `view=wizard|doctor|logs`), as the
/// site does; dropping the handle unmounts it.
pub fn mount() -> (web_sys::HtmlElement, impl Drop) {
    // Both pages' texts, as each page has its own.
    vramfit_web::i18n::add_tool_texts();
    // The tests run inside one page: a load of the other page is recorded.
    vramfit_web::intercept_page_loads(|address| {
        PAGE_LOADS.with(|loads| loads.borrow_mut().push(address.to_owned()))
    });
    let container: web_sys::HtmlElement = document()
        .create_element("div")
        .expect("div")
        .unchecked_into();
    document()
        .body()
        .expect("body")
        .append_child(&container)
        .expect("append");
    let page = vramfit_web::link::read(query().trim_start_matches('?'))
        .settings
        .view
        .page();
    // Dropping the box drops the handle, which unmounts.
    let handle: Box<dyn std::any::Any> = match page {
        vramfit_web::link::Page::Calculator => {
            Box::new(leptos::mount::mount_to(container.clone(), vramfit_web::App))
        }
        vramfit_web::link::Page::Tools => Box::new(leptos::mount::mount_to(
            container.clone(),
            vramfit_web::ToolsApp,
        )),
    };
    let guard = DropGuard(Some(handle), container.clone());
    (container, guard)
}

pub struct DropGuard<T>(Option<T>, web_sys::HtmlElement);
impl<T> Drop for DropGuard<T> {
    fn drop(&mut self) {
        self.0.take();
        self.1.remove();
    }
}

/// Lets effects, re-renders and the settle timer of the heavy views run.
pub async fn settle() {
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

pub fn by_testid(root: &web_sys::HtmlElement, testid: &str) -> web_sys::Element {
    root.query_selector(&format!("[data-testid='{testid}']"))
        .expect("valid selector")
        .unwrap_or_else(|| panic!("no element with data-testid={testid}"))
}

pub fn shown_totals(root: &web_sys::HtmlElement) -> [u64; 3] {
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

pub fn type_into(input: &web_sys::Element, text: &str) {
    let input: &web_sys::HtmlInputElement = input.unchecked_ref();
    input.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).expect("event");
    input.dispatch_event(&event).expect("dispatch");
}

/// Waits `ms` milliseconds of browser time, then lets the page react.
pub async fn wait_ms(ms: i32) {
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
    settle().await;
}

/// A paste: sets the textarea's text and fires `input`, as a browser does.
pub fn paste_into(area: &web_sys::Element, text: &str) {
    let area: &web_sys::HtmlTextAreaElement = area.unchecked_ref();
    area.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).expect("event");
    area.dispatch_event(&event).expect("dispatch");
}

/// The three totals the core computes for `sc` (what the page must show).
pub fn core_totals(sc: &vramfit_core::Scenario) -> [u64; 3] {
    let e = vramfit_core::estimate(sc).expect("the scenario estimates");
    let g = &e.gpus[0];
    [
        g.peak_allocated_bytes,
        g.peak_reserved_bytes,
        g.device_used_bytes,
    ]
}
