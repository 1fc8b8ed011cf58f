//! Fetches a model's `config.json` from a Hugging Face Hub in the browser
//! (the address is a setting: the public Hub, a mirror, or the tests' fake
//! Hub on loopback). Answers are untrusted input: the size is capped before
//! the body is read (`vramfit_core::hub::MAX_CONFIG_BYTES`) and the text goes
//! to the same importer the fuzzer covers. Fetched configs are kept in local
//! storage, so a model fetched once works offline.

use crate::storage;
use leptos::prelude::window;
use std::cell::Cell;
use std::rc::Rc;
use vramfit_core::hub::{
    api_url, config_url, normalize_base, HubFailure, DEFAULT_HUB, MAX_CONFIG_BYTES,
};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// How long the Hub has to answer.
pub const TIMEOUT_MS: i32 = 10_000;
const BASE_KEY: &str = "vramfit-hub-url";
const CACHE_PREFIX: &str = "vramfit-hub-config:";

/// The Hub address in use (the setting, else the public Hub).
pub fn hub_base() -> String {
    storage::get(BASE_KEY)
        .and_then(|b| normalize_base(&b))
        .unwrap_or_else(|| DEFAULT_HUB.to_owned())
}

/// Keeps `text` as the Hub address when it is one; `false` otherwise.
pub fn set_hub_base(text: &str) -> bool {
    match normalize_base(text) {
        Some(base) => storage::set(BASE_KEY, &base),
        None => false,
    }
}

/// The config of `id` saved when it was last fetched.
pub fn saved_config(id: &str) -> Option<String> {
    storage::get(&format!("{CACHE_PREFIX}{id}"))
}

fn save_config(id: &str, text: &str) {
    // Storage may be full or disabled: the fetch still counts.
    storage::set(&format!("{CACHE_PREFIX}{id}"), text);
}

/// `GET url`, aborted after [`TIMEOUT_MS`]: the response, or why not.
async fn get(url: &str) -> Result<web_sys::Response, HubFailure> {
    let controller = web_sys::AbortController::new().map_err(|_| HubFailure::Offline)?;
    let init = web_sys::RequestInit::new();
    init.set_signal(Some(&controller.signal()));
    let timed_out = Rc::new(Cell::new(false));
    let on_timeout = {
        let timed_out = timed_out.clone();
        let controller = controller.clone();
        Closure::once(move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let timer = window()
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            on_timeout.as_ref().unchecked_ref(),
            TIMEOUT_MS,
        )
        .ok();
    let answer = JsFuture::from(window().fetch_with_str_and_init(url, &init)).await;
    if let Some(timer) = timer {
        window().clear_timeout_with_handle(timer);
    }
    drop(on_timeout);
    match answer {
        Ok(response) => response.dyn_into().map_err(|_| HubFailure::Offline),
        Err(_) if timed_out.get() => Err(HubFailure::TimedOut),
        Err(_) => Err(HubFailure::Offline),
    }
}

/// The body of a successful answer, refused unread above the size cap.
async fn body(response: web_sys::Response) -> Result<String, HubFailure> {
    if let Some(failure) = HubFailure::of_status(response.status()) {
        return Err(failure);
    }
    let declared = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|n| n.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_CONFIG_BYTES) {
        return Err(HubFailure::TooLarge);
    }
    let text = response.text().map_err(|_| HubFailure::Offline)?;
    let text = JsFuture::from(text)
        .await
        .ok()
        .and_then(|v: JsValue| v.as_string())
        .ok_or(HubFailure::Offline)?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(HubFailure::TooLarge);
    }
    Ok(text)
}

/// A file of the site itself (`models.links`), by a path relative to the
/// page; `None` when it cannot be read (the page then starts without it).
pub async fn site_file(path: &str) -> Option<String> {
    body(get(path).await.ok()?).await.ok()
}

/// What a fetch produced: the config's text, and whether it is the saved
/// copy because the Hub could not be reached.
pub struct Fetched {
    pub text: String,
    pub from_cache: bool,
}

/// The `config.json` of `id` from the Hub at `base`; when the Hub cannot be
/// reached, the copy saved earlier.
pub async fn fetch_config(base: &str, id: &str) -> Result<Fetched, HubFailure> {
    let answer = match get(&config_url(base, id)).await {
        Ok(response) => body(response).await,
        Err(failure) => Err(failure),
    };
    match answer {
        Ok(text) => {
            save_config(id, &text);
            Ok(Fetched {
                text,
                from_cache: false,
            })
        }
        Err(failure @ (HubFailure::Offline | HubFailure::TimedOut)) => match saved_config(id) {
            Some(text) => Ok(Fetched {
                text,
                from_cache: true,
            }),
            None => Err(failure),
        },
        Err(failure) => Err(failure),
    }
}

/// The Hub's own parameter count of `id` (`safetensors.total`), if it says.
pub async fn hub_param_count(base: &str, id: &str) -> Option<u64> {
    let response = get(&api_url(base, id)).await.ok()?;
    let text = body(response).await.ok()?;
    crate::importer::hub_param_count(&text).await
}
