//! Share links: a [`Scenario`] as a compact, readable query string.
//!
//! `v=1&m=meta-llama/Llama-2-7b-hf&t=train&w=nf4&mb=4&seq=2048&gpu=a100-sxm4-40gb`
//!
//! The version comes first; every field equal to its default is left out, so
//! a link only says what differs. [`decode`] never fails: a parameter it does
//! not know, or a value it cannot use, becomes a [`Notice`] naming it, and the
//! field keeps its default. The web app and `vramfit link` share this codec.
//!
//! Versioning: every link carries `v`. A later format adds a `decode_v2`
//! branch in [`decode_with`]; links written as v=1 keep decoding through
//! [`decode_v1`] forever.

mod choice;
mod model_spec;
mod notice;

use crate::catalog::find_model;
use crate::scenario::fields::{parse_u64_in, FIELDS};
use crate::scenario::limits::MAX_TOTAL_PARAMS;
use crate::scenario::{ModelSource, Scenario};

pub use choice::Choice;
pub use notice::Notice;

/// The version [`encode`] writes.
pub const VERSION: u32 = 1;

/// Where the web calculator is published (GitHub Pages of the project).
pub const DEFAULT_BASE: &str = "https://vramfit.github.io/vramfit/";

/// The scenario a link describes, and what in it could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub scenario: Scenario,
    pub notices: Vec<Notice>,
}

/// The query string (without `?`) for a scenario: `v=1` first, defaults omitted.
pub fn encode(sc: &Scenario) -> String {
    let defaults = Scenario::default();
    let mut out = Query::default();
    out.push("v", &VERSION.to_string());
    if sc.model != defaults.model {
        match &sc.model {
            ModelSource::Catalog(id) => out.push("m", id),
            ModelSource::Params(n) => out.push("p", &n.to_string()),
            ModelSource::Spec(spec) => {
                for (key, value) in model_spec::encode(spec) {
                    out.push(&key, &value);
                }
            }
        }
    }
    for field in FIELDS.iter().filter(|f| f.differs(sc, &defaults)) {
        out.push(field.key, &field.get_text(sc));
    }
    out.0.join("&")
}

/// `base` (its own query and fragment dropped) with the scenario's query string.
pub fn share_url(base: &str, sc: &Scenario) -> String {
    let base = base.split(['?', '#']).next().unwrap_or(base);
    format!("{base}?{}", encode(sc))
}

/// The scenario of a query string (with or without the leading `?`).
pub fn decode(query: &str) -> Decoded {
    decode_with(query, &[])
}

/// Like [`decode`], leaving the parameters in `passthrough` to the caller
/// (the web app keeps display settings such as units beside the scenario).
pub fn decode_with(query: &str, passthrough: &[&str]) -> Decoded {
    decode_pairs(&query_pairs(query), passthrough)
}

/// Like [`decode_with`], over a query already split by [`query_pairs`] (the
/// web page splits its query once and reads its own parameters from it).
pub fn decode_pairs(query: &[(String, String)], passthrough: &[&str]) -> Decoded {
    let mut notices = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in query.iter().cloned() {
        if passthrough.contains(&key.as_str()) {
            continue;
        }
        if pairs.iter().any(|(k, _)| *k == key) {
            notices.push(Notice::new(
                &key,
                "given more than once; the first value is used",
            ));
            continue;
        }
        pairs.push((key, value));
    }
    let version = pairs.iter().find(|(k, _)| k == "v").map(|(_, v)| v.clone());
    match version.as_deref() {
        None | Some("1") => {}
        Some(other) => notices.push(Notice::new(
            "v",
            &format!("version \"{other}\" is not one this app reads (1); read as version 1"),
        )),
    }
    let scenario = decode_v1(&pairs, &mut notices);
    Decoded { scenario, notices }
}

/// Version 1 of the format: the registry's keys (`scenario::fields`) plus
/// the model keys.
fn decode_v1(pairs: &[(String, String)], notices: &mut Vec<Notice>) -> Scenario {
    let mut sc = Scenario::default();
    let mut spec_pairs = Vec::new();
    let mut catalog = None;
    let mut params = None;
    for (key, value) in pairs {
        let key = key.as_str();
        if key == "v" {
            continue;
        }
        if key.starts_with(model_spec::PREFIX) {
            spec_pairs.push((key, value.as_str()));
        } else if key == "m" {
            catalog = Some(value);
        } else if key == "p" {
            params = Some(value);
        } else if let Some(field) = FIELDS.iter().find(|f| f.key == key) {
            if let Err(message) = field.set_text(&mut sc, value) {
                notices.push(Notice::new(key, &format!("{message}; the default is used")));
            }
        } else {
            notices.push(Notice::new(key, "unknown parameter; ignored"));
        }
    }
    let mut chosen = None;
    if !spec_pairs.is_empty() {
        let spec = model_spec::decode(&spec_pairs, notices);
        chosen = Some(("s.*", ModelSource::Spec(Box::new(spec))));
    }
    if let Some(p) = params {
        match parse_u64_in(p, 1, MAX_TOTAL_PARAMS) {
            Ok(n) if chosen.is_none() => chosen = Some(("p", ModelSource::Params(n))),
            Ok(_) => notices.push(Notice::new(
                "p",
                "a custom model (s.*) is also given; ignored",
            )),
            Err(message) => notices.push(Notice::new("p", &format!("{message}; ignored"))),
        }
    }
    if let Some(id) = catalog {
        if find_model(id).is_none() {
            notices.push(Notice::new(
                "m",
                &format!("\"{id}\" is not in the model catalog; the default model is used"),
            ));
        } else if let Some((key, _)) = &chosen {
            notices.push(Notice::new(
                "m",
                &format!("{key} also gives the model; ignored"),
            ));
        } else {
            chosen = Some(("m", ModelSource::Catalog(id.clone())));
        }
    }
    if let Some((_, model)) = chosen {
        sc.model = model;
    }
    sc
}

/// Splits a query string into percent-decoded `(key, value)` pairs, in order.
/// `+` is a space; a `%` not followed by two hex digits stays as it is.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let query = query.split('#').next().unwrap_or(query);
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect()
}

/// Characters kept as they are in a value: RFC 3986 unreserved plus the
/// query-safe `/ : , @` so that model ids stay readable.
fn keep_literal(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b':' | b',' | b'@')
}

pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep_literal(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                // Two hex digits are at most 0xFF: the cast cannot truncate.
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Default)]
struct Query(Vec<String>);

impl Query {
    fn push(&mut self, key: &str, value: &str) {
        self.0.push(format!("{key}={}", percent_encode(value)));
    }
}
