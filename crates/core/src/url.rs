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
pub(crate) mod model_spec;
mod notice;
pub(crate) mod query;

use crate::catalog::find_model;
use crate::model::ModelSpec;
use crate::scenario::fields::FIELDS;
use crate::scenario::limits::MAX_TOTAL_PARAMS;
use crate::scenario::{ModelSource, Scenario};

pub use choice::Choice;
pub use notice::Notice;
use query::parse_u64_in;
pub use query::{percent_decode, percent_encode, query_pairs};

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

/// A model's architecture as the `s.*` parameters of a link
/// (`s.arch=llama&s.h=4096&…`): see [`model_spec::to_text`].
pub fn encode_spec(spec: &ModelSpec) -> String {
    model_spec::to_text(spec)
}

/// The architecture [`encode_spec`] wrote: see [`model_spec::from_text`].
pub fn decode_spec(text: &str) -> Option<ModelSpec> {
    model_spec::from_text(text)
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

#[derive(Default)]
struct Query(Vec<String>);

impl Query {
    fn push(&mut self, key: &str, value: &str) {
        self.0.push(format!("{key}={}", percent_encode(value)));
    }
}
