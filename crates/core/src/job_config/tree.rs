//! A training config's text as a JSON tree, within bounds: JSON through
//! serde_json (its own nesting limit of 128), YAML through saphyr's event
//! parser with a tree built here, so that hostile YAML is an error and never
//! a hang or an exhausted memory: the input is capped at [`MAX_INPUT_BYTES`],
//! nesting at [`MAX_DEPTH`], and the nodes built at [`MAX_NODES`] with every
//! alias counted at the full size it expands to (a "billion laughs" file
//! stops at the first alias that would pass the budget).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use serde_json::{Map, Number, Value};

use crate::error::{InputError, Result};

/// Largest config read: real training configs are a few KiB.
pub const MAX_INPUT_BYTES: usize = 1 << 20;
/// Deepest nesting of mappings and lists (real configs: under 6).
pub const MAX_DEPTH: usize = 64;
/// Most nodes a YAML file may expand to, aliases counted in full.
pub const MAX_NODES: usize = 100_000;

/// The error every bound and syntax problem is reported under.
const FIELD: &str = "job config";

/// Checks the size cap before any parsing.
pub fn check_size(text: &str) -> Result<()> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(InputError::new(
            FIELD,
            format!(
                "{} bytes is too large for a training config: allowed at most {MAX_INPUT_BYTES} bytes (1 MiB)",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// Parses JSON (text starting with `{`) or YAML into one tree.
pub fn parse(text: &str) -> Result<Value> {
    check_size(text)?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') {
        serde_json::from_str(trimmed)
            .map_err(|e| InputError::new(FIELD, format!("not valid JSON: {e}")))
    } else {
        parse_yaml(text)
    }
}

/// A mapping or list being built, with the anchor to record when it ends.
enum Open {
    List {
        items: Vec<Value>,
        anchor: usize,
        nodes_at_start: usize,
    },
    Map {
        entries: Map<String, Value>,
        key: Option<String>,
        anchor: usize,
        nodes_at_start: usize,
    },
}

/// Builds the tree from saphyr's events with an explicit stack (no recursion).
struct Builder {
    open: Vec<Open>,
    /// Anchored nodes and the number of nodes each expands to.
    anchors: HashMap<usize, (Value, usize)>,
    nodes: usize,
    root: Option<Value>,
}

fn yaml_error(message: impl Into<String>) -> InputError {
    InputError::new(FIELD, message)
}

impl Builder {
    fn count(&mut self, nodes: usize) -> Result<()> {
        self.nodes = self.nodes.saturating_add(nodes);
        if self.nodes > MAX_NODES {
            return Err(yaml_error(format!(
                "the YAML expands to more than {MAX_NODES} values (aliases counted in full): \
                 not a training config"
            )));
        }
        Ok(())
    }

    fn open(&mut self, open: Open) -> Result<()> {
        self.count(1)?;
        if self.open.len() >= MAX_DEPTH {
            return Err(yaml_error(format!(
                "the YAML nests deeper than {MAX_DEPTH} levels: not a training config"
            )));
        }
        self.open.push(open);
        Ok(())
    }

    /// A finished value: into the enclosing list or mapping, or the root.
    fn place(&mut self, value: Value, anchor: usize, size: usize) -> Result<()> {
        if anchor != 0 {
            // The kept copy counts too, so anchors cannot multiply memory.
            self.count(size)?;
            self.anchors.insert(anchor, (value.clone(), size));
        }
        match self.open.last_mut() {
            None => {
                if self.root.is_some() {
                    return Err(yaml_error("more than one YAML document: give one config"));
                }
                self.root = Some(value);
            }
            Some(Open::List { items, .. }) => items.push(value),
            Some(Open::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(key_text(value)?),
                Some(k) if k == "<<" => merge(entries, value)?,
                Some(k) => {
                    entries.insert(k, value);
                }
            },
        }
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        let (value, anchor, start) = match self.open.pop() {
            Some(Open::List {
                items,
                anchor,
                nodes_at_start,
            }) => (Value::Array(items), anchor, nodes_at_start),
            Some(Open::Map {
                entries,
                anchor,
                nodes_at_start,
                ..
            }) => (Value::Object(entries), anchor, nodes_at_start),
            None => return Err(yaml_error("unbalanced YAML events")),
        };
        let size = self.nodes - start;
        self.place(value, anchor, size)
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1)?;
                self.place(scalar(&text, style, tag.as_deref()), anchor, 1)
            }
            Event::Alias(id) => {
                let (value, size) = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| yaml_error("an alias names no anchor"))?;
                // Counted before the copy is kept: a bomb stops here.
                self.count(size)?;
                self.place(value, 0, size)
            }
            Event::SequenceStart(anchor, _) => {
                let nodes_at_start = self.nodes;
                self.open(Open::List {
                    items: Vec::new(),
                    anchor,
                    nodes_at_start,
                })
            }
            Event::MappingStart(anchor, _) => {
                let nodes_at_start = self.nodes;
                self.open(Open::Map {
                    entries: Map::new(),
                    key: None,
                    anchor,
                    nodes_at_start,
                })
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd => Ok(()),
        }
    }
}

/// `<<: *defaults` (and `<<: [*a, *b]`): the merged mappings' entries that
/// the mapping does not set itself.
fn merge(entries: &mut Map<String, Value>, value: Value) -> Result<()> {
    let sources = match value {
        Value::Object(map) => vec![map],
        Value::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
        _ => return Err(yaml_error("`<<` merges a mapping or a list of mappings")),
    };
    for source in sources {
        for (k, v) in source {
            entries.entry(k).or_insert(v);
        }
    }
    Ok(())
}

/// Mapping keys are text; numbers and booleans are written as such.
fn key_text(value: Value) -> Result<String> {
    match value {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".into()),
        _ => Err(yaml_error(
            "a mapping key is itself a list or mapping: not a training config",
        )),
    }
}

/// A scalar's value. Quoted and block scalars, and `!!str`, are text; plain
/// ones read as PyYAML reads them (the frameworks load their configs with
/// it): `true`/`yes`/`on` and their opposites, `null`/`~`/empty, integers,
/// and decimals with an exponent (`3e-4`, as OmegaConf reads it).
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    let is_str_tag = tag.is_some_and(|t| t.suffix == "str");
    if style != ScalarStyle::Plain || is_str_tag {
        return Value::String(text.to_owned());
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    let numeric = text
        .trim_start_matches(['+', '-'])
        .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if numeric {
        if let Ok(n) = text.parse::<i64>() {
            return Value::Number(n.into());
        }
        if let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(n);
        }
    }
    Value::String(text.to_owned())
}

fn parse_yaml(text: &str) -> Result<Value> {
    let mut builder = Builder {
        open: Vec::new(),
        anchors: HashMap::new(),
        nodes: 0,
        root: None,
    };
    for next in Parser::new_from_str(text) {
        let (event, _) = next.map_err(|e| yaml_error(format!("not valid YAML: {e}")))?;
        builder.event(event)?;
    }
    Ok(builder.root.unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_scalars_read_as_pyyaml_reads_them() {
        let v = parse("a: 3e-4\nb: 16\nc: True\nd: off\ne: ~\nf: '8'\ng: bf16\nh: -2\n")
            .expect("parses");
        assert_eq!(
            v,
            json!({"a": 3e-4, "b": 16, "c": true, "d": false, "e": null, "f": "8", "g": "bf16", "h": -2})
        );
    }

    #[test]
    fn anchors_aliases_and_merge_keys_expand() {
        let v = parse("base: &b\n  r: 8\n  d: 0.1\nrun:\n  <<: *b\n  r: 16\nagain: *b\n")
            .expect("parses");
        assert_eq!(v["run"], json!({"r": 16, "d": 0.1}));
        assert_eq!(v["again"], json!({"r": 8, "d": 0.1}));
    }

    #[test]
    fn json_text_goes_through_serde_json() {
        assert_eq!(
            parse(" {\"a\": [1, 2]}").expect("json"),
            json!({"a": [1, 2]})
        );
        let err = parse("{\"a\": ").expect_err("truncated");
        assert!(err.message.starts_with("not valid JSON"), "{}", err.message);
    }

    #[test]
    fn two_documents_are_refused() {
        let err = parse("a: 1\n---\nb: 2\n").expect_err("two docs");
        assert!(err.message.contains("more than one YAML document"));
    }
}
