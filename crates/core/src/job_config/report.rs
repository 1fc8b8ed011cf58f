//! What reading a training config gives: the scenario, the model named,
//! the keys read and the keys ignored.

use serde::Serialize;

use super::format::JobFormat;
use crate::catalog::{find_model, CatalogModel};
use crate::scenario::Scenario;

/// A config key that set a scenario field (`model` for the model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadKey {
    pub key: String,
    pub field: &'static str,
}

/// A config key the estimate does not use, and why when it is not simply
/// a setting without effect on memory (`auto`, an unknown optimizer, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IgnoredKey {
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a training config says.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobConfig {
    pub format: JobFormat,
    /// The base scenario with the config's settings: a training run. The
    /// model is the config's when it is a catalog model.
    #[serde(skip)]
    pub scenario: Scenario,
    /// The model the config names, as it names it (a Hugging Face id, a
    /// torchtune builder).
    pub model: Option<String>,
    pub read: Vec<ReadKey>,
    pub ignored: Vec<IgnoredKey>,
}

impl JobConfig {
    /// The catalog model the config names, when it names one.
    pub fn catalog_model(&self) -> Option<&'static CatalogModel> {
        self.model.as_deref().and_then(find_model)
    }
}
