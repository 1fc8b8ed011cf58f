//! JSON as Python writes it. transformers saves configs with `json.dumps`,
//! whose default `allow_nan=True` writes a float infinity as a bare
//! `Infinity` (Mamba-2's and Nemotron-H's `time_step_limit` default is
//! `(0.0, inf)`) and NaN as `NaN`: not JSON, so a strict parser refuses a
//! real `config.json`. Outside strings those tokens read as `null` here
//! (nothing the importer reads is infinite; a field it needs that reads
//! `null` is reported missing, by name).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::{InputError, Result};

/// Python's non-finite tokens, longest first (`-Infinity` before `Infinity`).
const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// `text` with Python's non-finite number tokens outside strings replaced
/// by `null`; borrowed when there are none.
pub fn strict_json(text: &str) -> Cow<'_, str> {
    if !TOKENS.iter().any(|t| text.contains(t)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(t) = TOKENS.iter().find(|t| rest.starts_with(**t)) {
            out.push_str("null");
            rest = &rest[t.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// A `config.json`'s top-level object (Python's bare `Infinity` / `NaN`
/// read as JSON), or what is wrong with the text.
pub(super) fn config_root(json: &str) -> Result<Map<String, Value>> {
    let value: Value = serde_json::from_str(&strict_json(json)).map_err(|e| {
        InputError::new(
            "config.json",
            format!("is not valid JSON ({e}); paste the whole config.json file"),
        )
    })?;
    match value {
        Value::Object(root) => Ok(root),
        _ => Err(InputError::new(
            "config.json",
            "must be a JSON object ({ ... }), as in a model's config.json",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::strict_json;

    #[test]
    fn python_tokens_become_null_outside_strings_only() {
        let text = r#"{"time_step_limit": [0.0, Infinity], "a": -Infinity, "b": NaN, "s": "NaN \" Infinity"}"#;
        let fixed = strict_json(text);
        assert_eq!(
            fixed,
            r#"{"time_step_limit": [0.0, null], "a": null, "b": null, "s": "NaN \" Infinity"}"#
        );
        let v: serde_json::Value = serde_json::from_str(&fixed).expect("valid JSON now");
        assert_eq!(v["s"], "NaN \" Infinity");
        assert!(matches!(
            strict_json(r#"{"x": 1}"#),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
