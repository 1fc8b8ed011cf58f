//! One config being read: its values by dotted key (`zero_optimization.stage`),
//! the scenario they set through the field registry (so every value is
//! range-checked once, as a link's is), and the record of what was read and
//! what was not.

use serde_json::Value;

use super::report::{IgnoredKey, ReadKey};
use crate::error::{InputError, Result};
use crate::scenario::fields::FIELDS;
use crate::scenario::Scenario;

/// Why a value set to `auto` is not used.
pub(super) const AUTO: &str =
    "\"auto\": decided by the trainer at run time; vramfit keeps its own value";
/// Why a `null` value is not used.
pub(super) const NULL: &str = "null: vramfit keeps its own value";
/// `torch.compile` and the like: real, but not in the model.
pub(super) const NOT_MODELED: &str = "vramfit does not model its effect on memory";

/// A value of the config with its dotted key, and whether a reader used it.
struct Leaf {
    key: String,
    value: Value,
    used: bool,
}

pub(super) struct Reading {
    leaves: Vec<Leaf>,
    pub sc: Scenario,
    pub model: Option<String>,
    pub read: Vec<ReadKey>,
    pub ignored: Vec<IgnoredKey>,
}

/// Every value that is not a mapping, under its dotted key; lists are
/// values. An empty mapping is a value too, so that it is named.
fn flatten(prefix: &str, value: Value, out: &mut Vec<Leaf>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        value => out.push(Leaf {
            key: prefix.to_owned(),
            value,
            used: false,
        }),
    }
}

/// A value as the registry's text (`4`, `true`, `bf16`).
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Reading {
    /// The config's tree (a mapping) over `base`.
    pub fn new(tree: Value, base: Scenario) -> Result<Self> {
        if !tree.is_object() {
            return Err(InputError::new(
                "job config",
                "expected a mapping of settings (`key: value` lines or a JSON object)",
            ));
        }
        let mut leaves = Vec::new();
        flatten("", tree, &mut leaves);
        Ok(Reading {
            leaves,
            sc: base,
            model: None,
            read: Vec::new(),
            ignored: Vec::new(),
        })
    }

    /// Whether the config has `key` (a value, or a mapping under it).
    pub fn has(&self, key: &str) -> bool {
        let nested = format!("{key}.");
        self.leaves
            .iter()
            .any(|l| l.key == key || l.key.starts_with(&nested))
    }

    /// Whether a key of the config set the scenario field at `field`.
    pub fn was_read(&self, field: &str) -> bool {
        self.read.iter().any(|r| r.field == field)
    }

    /// The value at `key`, marked as used; `None` when absent.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        let leaf = self.leaves.iter_mut().find(|l| l.key == key)?;
        leaf.used = true;
        Some(leaf.value.clone())
    }

    /// Names `key` as read but not used, with the reason.
    pub fn ignore(&mut self, key: &str, reason: impl Into<String>) {
        self.ignored.push(IgnoredKey {
            key: key.to_owned(),
            reason: Some(reason.into()),
        });
    }

    /// The value at `key` as text; `auto` and `null` are named as ignored
    /// and give `None`, as does an absent key.
    pub fn text(&mut self, key: &str) -> Result<Option<String>> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Null) => {
                self.ignore(key, NULL);
                Ok(None)
            }
            Some(value) => match text_of(&value) {
                Some(t) if t.eq_ignore_ascii_case("auto") => {
                    self.ignore(key, AUTO);
                    Ok(None)
                }
                Some(t) => Ok(Some(t)),
                None => Err(InputError::new(
                    key,
                    format!("expected one value, found {value}"),
                )),
            },
        }
    }

    /// The value at `key` as a switch (`true`/`false`, `1`/`0`).
    pub fn flag(&mut self, key: &str) -> Result<Option<bool>> {
        let Some(text) = self.text(key)? else {
            return Ok(None);
        };
        match text.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Some(true)),
            "false" | "0" | "no" | "off" => Ok(Some(false)),
            _ => Err(InputError::new(
                key,
                format!("\"{text}\" is not true or false"),
            )),
        }
    }

    /// The list at `key` as texts (a single text is a list of one).
    pub fn list(&mut self, key: &str) -> Result<Option<Vec<String>>> {
        match self.take(key) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    text_of(v).ok_or_else(|| {
                        InputError::new(key, format!("expected a list of names, found {v}"))
                    })
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(Value::Null) => {
                self.ignore(key, NULL);
                Ok(None)
            }
            Some(value) => match text_of(&value) {
                Some(t) => Ok(Some(vec![t])),
                None => Err(InputError::new(
                    key,
                    format!("expected a list of names, found {value}"),
                )),
            },
            None => Ok(None),
        }
    }

    /// Sets the scenario field at `field` (a registry path) from `text`,
    /// recording that `key` set it. The error names both.
    pub fn set(&mut self, key: &str, field: &'static str, text: &str) -> Result<()> {
        let target = FIELDS
            .iter()
            .find(|f| f.path == field)
            .ok_or_else(|| InputError::new(key, format!("{field} is not a scenario field")))?;
        target
            .set_text(&mut self.sc, text)
            .map_err(|message| InputError::new(format!("{key} ({field})"), message))?;
        if !self.read.iter().any(|r| r.key == key && r.field == field) {
            self.read.push(ReadKey {
                key: key.to_owned(),
                field,
            });
        }
        Ok(())
    }

    /// `key`'s value, when there is one, into `field`.
    pub fn copy(&mut self, key: &str, field: &'static str) -> Result<()> {
        if let Some(text) = self.text(key)? {
            self.set(key, field, &text)?;
        }
        Ok(())
    }

    /// `key`'s switch, when there is one, into the switch `field`.
    pub fn copy_flag(&mut self, key: &str, field: &'static str) -> Result<()> {
        if let Some(on) = self.flag(key)? {
            self.set(key, field, if on { "1" } else { "0" })?;
        }
        Ok(())
    }

    /// The model named at `key`, when it is the first to name one.
    pub fn name_model(&mut self, key: &str) -> Result<()> {
        if let Some(name) = self.text(key)? {
            self.set_model(key, name);
        }
        Ok(())
    }

    /// `name` is the model, read from `key`, unless one was named before.
    pub fn set_model(&mut self, key: &str, name: String) {
        if self.model.is_none() && !name.is_empty() {
            self.model = Some(name);
            self.read.push(ReadKey {
                key: key.to_owned(),
                field: "model",
            });
        }
    }

    /// Every value no reader used, named as ignored, after those ignored
    /// with a reason.
    pub fn finish(mut self) -> (Scenario, Option<String>, Vec<ReadKey>, Vec<IgnoredKey>) {
        let unused: Vec<IgnoredKey> = self
            .leaves
            .iter()
            .filter(|l| !l.used)
            .map(|l| IgnoredKey {
                key: l.key.clone(),
                reason: None,
            })
            .collect();
        self.ignored.extend(unused);
        (self.sc, self.model, self.read, self.ignored)
    }
}
