//! Offline support: registers the service worker (`sw.js` beside
//! `index.html`, written by the build's hook, scripts/precache.py).

use leptos::prelude::{window, RwSignal, Set};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// The service worker script, relative to each page (the calculator's
/// `sw.js`, the tools page's `../sw.js`): one worker whose scope is the
/// directory the site is served from (`/` or `/vramfit/`), both pages inside.
pub const SERVICE_WORKER: &str = "sw.js";
pub const SERVICE_WORKER_FROM_TOOLS: &str = "../sw.js";

/// Only release builds served over http(s) register: a development build
/// must always show fresh code, and `file:` pages cannot have a worker.
pub fn should_register(protocol: &str, debug_build: bool) -> bool {
    !debug_build && matches!(protocol, "http:" | "https:")
}

/// Registers the worker when [`should_register`] says so and the browser
/// has service workers (not in private modes of some browsers, nor on plain
/// http other than localhost). A failure only means no offline copy: the
/// page itself works online as before, so it is not reported.
pub fn register_service_worker(script: &str) {
    let window = window();
    let protocol = window.location().protocol().unwrap_or_default();
    if !should_register(&protocol, cfg!(debug_assertions)) {
        return;
    }
    let navigator = window.navigator();
    let has_workers = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    if !has_workers {
        return;
    }
    let options = web_sys::RegistrationOptions::new();
    // Check for a new release on every visit, past the HTTP cache.
    options.set_update_via_cache(web_sys::ServiceWorkerUpdateViaCache::None);
    let registering = navigator
        .service_worker()
        .register_with_options(script, &options);
    leptos::task::spawn_local(async move {
        let _ = wasm_bindgen_futures::JsFuture::from(registering).await;
    });
}

/// Sets `ready` when a new release's worker takes over a page that an
/// earlier release's worker was serving: the page runs the old release
/// until it reloads. The first install (no worker before) is not news.
pub fn watch_for_updates(ready: RwSignal<bool>) {
    let navigator = window().navigator();
    let has_workers = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    if !has_workers {
        return;
    }
    let container = navigator.service_worker();
    if container.controller().is_none() {
        return;
    }
    let on_change = Closure::<dyn FnMut()>::new(move || ready.set(true));
    container.set_oncontrollerchange(Some(on_change.as_ref().unchecked_ref()));
    // Lives as long as the page.
    on_change.forget();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_only_for_release_builds_over_http() {
        assert!(should_register("https:", false));
        assert!(should_register("http:", false));
        assert!(!should_register("https:", true));
        assert!(!should_register("file:", false));
    }
}
