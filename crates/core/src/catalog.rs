//! Catalog of well-known models, compiled in from `data/models.json` (the
//! web build: from its link-text twin `data/models.links`).
//!
//! Each entry carries the architecture imported from the checkpoint's public
//! `config.json` and an exact parameter count measured with transformers (its
//! `source` says where each comes from); `tests/catalog.rs` checks that the
//! computed count equals the stated one.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::model::ModelSpec;

/// One catalog model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogModel {
    /// Hugging Face repository id (`meta-llama/Llama-2-7b-hf`).
    pub id: String,
    /// Short display name (`Llama-2-7B`).
    pub name: String,
    pub family: String,
    /// Exact total parameter count.
    pub params: u64,
    /// Where the architecture and the count come from (empty in the web
    /// build, which compiles the catalog without citations: see build.rs).
    #[serde(default)]
    pub source: String,
    pub spec: ModelSpec,
}

#[cfg(not(target_arch = "wasm32"))]
const MODELS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/models.json"));

/// The catalog as the web app reads it: `data/models.json` written by
/// [`links_text`] (`tests/catalog.rs` keeps the two equal), so the page
/// reads its models with the link reader it has anyway and carries no JSON
/// reader of a model (about 30 KB of its wasm).
#[cfg(all(target_arch = "wasm32", not(feature = "fetched-catalog")))]
const MODELS_LINKS: &str = include_str!("../data/models.links");

static MODELS: OnceLock<Vec<CatalogModel>> = OnceLock::new();

/// Every catalog model, parsed once. Empty if the embedded catalog were
/// broken (a test guards against that), never a panic; with
/// `fetched-catalog`, empty until [`install_links`] hands it over.
pub fn models() -> &'static [CatalogModel] {
    #[cfg(all(target_arch = "wasm32", feature = "fetched-catalog"))]
    return MODELS.get_or_init(Vec::new);
    #[cfg(all(target_arch = "wasm32", not(feature = "fetched-catalog")))]
    return MODELS.get_or_init(|| parse_links(MODELS_LINKS));
    #[cfg(not(target_arch = "wasm32"))]
    MODELS.get_or_init(|| parse(MODELS_JSON).unwrap_or_default())
}

/// Sets the catalog from [`links_text`]'s lines (the page's fetched
/// `models.links`), before anything reads it; later calls change nothing.
pub fn install_links(text: &str) {
    let _ = MODELS.set(parse_links(text));
}

/// The catalog as lines of `id`, `name`, `family`, `params` and the
/// architecture's link text ([`crate::url::encode_spec`]), tab-separated;
/// a spec's name is left out where it is the entry's.
pub fn links_text(models: &[CatalogModel]) -> String {
    let mut out = String::new();
    for m in models {
        let mut spec = m.spec.clone();
        if spec.name == m.name {
            spec.name.clear();
        }
        let spec = crate::url::model_spec::to_text(&spec);
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{spec}\n",
            m.id, m.name, m.family, m.params
        ));
    }
    out
}

/// The models of [`links_text`]'s lines (a line that is not one is left
/// out: a test checks that none is).
pub fn parse_links(text: &str) -> Vec<CatalogModel> {
    text.lines()
        .filter_map(|line| {
            let mut cells = line.split('\t');
            let (id, name, family) = (cells.next()?, cells.next()?, cells.next()?);
            let params = cells.next()?.parse().ok()?;
            let mut spec = crate::url::model_spec::from_text(cells.next()?)?;
            if spec.name.is_empty() {
                spec.name = name.to_owned();
            }
            Some(CatalogModel {
                id: id.to_owned(),
                name: name.to_owned(),
                family: family.to_owned(),
                params,
                source: String::new(),
                spec,
            })
        })
        .collect()
}

/// Parses a catalog file (the embedded one, or another in the same format).
pub fn parse(json: &str) -> Result<Vec<CatalogModel>, serde_json::Error> {
    let mut models: Vec<CatalogModel> = serde_json::from_str(json)?;
    // The compiled catalog leaves out a spec's name when it is the entry's.
    for m in &mut models {
        if m.spec.name.is_empty() {
            m.spec.name = m.name.clone();
        }
    }
    Ok(models)
}

/// Catalog models whose id, name or family carry every word of `query` (the
/// catalog search of `crate::search`), in catalog order. An empty query lists all.
pub fn search_models(query: &str) -> Vec<&'static CatalogModel> {
    let query = crate::search::Query::new(query);
    models()
        .iter()
        .filter(|m| query.matches([m.id.as_str(), m.name.as_str(), m.family.as_str()]))
        .collect()
}

/// Finds a model by exact id (case-insensitive), then by short name, then by
/// a suffix after the last `/` that only one id has (`Llama-2-7b-hf`).
pub fn find_model(query: &str) -> Option<&'static CatalogModel> {
    let query = query.trim();
    if query.is_empty() {
        return None;
    }
    let all = models();
    if let Some(m) = all.iter().find(|m| m.id.eq_ignore_ascii_case(query)) {
        return Some(m);
    }
    if let Some(m) = all.iter().find(|m| m.name.eq_ignore_ascii_case(query)) {
        return Some(m);
    }
    let mut by_suffix = all.iter().filter(|m| {
        let tail = m.id.rsplit('/').next().unwrap_or(&m.id);
        tail.eq_ignore_ascii_case(query)
    });
    match (by_suffix.next(), by_suffix.next()) {
        (Some(m), None) => Some(m),
        _ => None,
    }
}
