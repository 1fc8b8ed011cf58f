//! Catalog of well-known models, compiled in from `data/models.json`.
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

const MODELS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/models.json"));

/// Every catalog model, parsed once. Empty if the embedded JSON were broken
/// (a test guards against that), never a panic.
pub fn models() -> &'static [CatalogModel] {
    static MODELS: OnceLock<Vec<CatalogModel>> = OnceLock::new();
    MODELS.get_or_init(|| parse(MODELS_JSON).unwrap_or_default())
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
