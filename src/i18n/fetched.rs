//! The Chinese texts of the calculator page fetched beside it (`zh.ftl`,
//! which the service worker precaches) instead of compiled into its wasm:
//! an English reader's first load carries none of them. Read here with the
//! subset of Fluent `build.rs` accepts (one-line `key = value` messages of
//! text and `{ $variable }`); a test holds this reader to `build.rs`'s
//! tables for both languages' files.

use std::sync::OnceLock;

static ZH: OnceLock<Vec<&'static str>> = OnceLock::new();

/// The messages of a Fluent file, as (key, text with `{$name}`), the first
/// definition of a key winning as in Fluent; comments and blank lines
/// skipped.
pub fn parse(source: &str) -> Vec<(&str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for line in source.lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || out.iter().any(|(k, _)| *k == key) {
            continue;
        }
        out.push((key, placeables(value.trim())));
    }
    out
}

/// `{ $name }` written as `{$name}`, the form the tables hold.
fn placeables(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else {
            break;
        };
        out.push('{');
        out.push_str(after[..end].trim());
        out.push('}');
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The texts of `source` in the order of `keys` (a key it lacks: empty,
/// which falls back to English).
pub fn ordered(source: &str, keys: &[&str]) -> Vec<String> {
    let parsed = parse(source);
    keys.iter()
        .map(|k| {
            parsed
                .iter()
                .find(|(key, _)| key == k)
                .map_or_else(String::new, |(_, text)| text.clone())
        })
        .collect()
}

/// Installs the fetched Chinese texts (once; a second call is ignored).
pub fn install(source: &str, keys: &[&str]) {
    let texts = ordered(source, keys)
        .into_iter()
        .map(|t| &*Box::leak(t.into_boxed_str()))
        .collect();
    let _ = ZH.set(texts);
}

/// The installed Chinese texts, if fetched.
pub fn texts() -> Option<&'static [&'static str]> {
    ZH.get().map(Vec::as_slice)
}
