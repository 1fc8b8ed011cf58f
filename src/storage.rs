//! The browser's local storage, for the few strings the page keeps (the
//! last setup, the Hub address, fetched configs). Values are stored as JSON
//! strings, as they were when gloo-storage wrote them, so what a browser
//! saved before keeps reading; the browser's own JSON encodes and decodes
//! them, which keeps a Rust JSON library out of the page's wasm.

use wasm_bindgen::JsValue;

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The string under `key`, when storage is available and holds one.
pub fn get(key: &str) -> Option<String> {
    let text = local()?.get_item(key).ok()??;
    js_sys::JSON::parse(&text).ok()?.as_string()
}

/// Keeps `value` under `key`; `false` when storage is full or disabled
/// (private windows), where the page works the same without it.
pub fn set(key: &str, value: &str) -> bool {
    let Ok(json) = js_sys::JSON::stringify(&JsValue::from_str(value)) else {
        return false;
    };
    let Some(json) = json.as_string() else {
        return false;
    };
    local().is_some_and(|s| s.set_item(key, &json).is_ok())
}
