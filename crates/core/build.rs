//! Compiles the data catalogs in as minified JSON, the GPU catalog as Rust
//! rows (`gpus.rs`, no JSON to parse at start). For the web build
//! (wasm32) the model and GPU catalogs also drop their citation fields
//! (`source`, `notes`) and the techniques their `memory_effect` and
//! `penalty_reason` explanations: the web app does not show them and every
//! byte counts against its first-load budget; the data files and the CLI
//! keep them.

use std::path::Path;

fn drop_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// Spec members that read a missing member as `false`/`0`
/// (`#[serde(default)]` on plain fields of `ModelSpec`): left out of the
/// compiled catalog when they hold that value. Option fields are not here:
/// `None` and `Some(0)` mean different things.
const SPEC_DEFAULTS: &[&str] = &[
    "tied_embeddings",
    "qkv_bias",
    "out_bias",
    "approximate",
    "parallel_block",
    "lm_head_bias",
    "type_vocab",
    "conv_kernel",
    "classifier_labels",
    "layer_extra_params",
    "gated_attention",
    "cross_attention_layers",
];

/// Trims a catalog entry's spec: the defaults above, and the name when it
/// repeats the entry's (`catalog::parse` puts it back).
fn trim_spec(entry: &mut serde_json::Value) {
    let name = entry.get("name").cloned();
    let Some(spec) = entry.get_mut("spec").and_then(|s| s.as_object_mut()) else {
        return;
    };
    spec.retain(|key, value| {
        let default = value == &serde_json::json!(false) || value == &serde_json::json!(0);
        !(default && SPEC_DEFAULTS.contains(&key.as_str()))
    });
    if name.is_some() && spec.get("name") == name.as_ref() {
        spec.remove("name");
    }
}

/// A Rust string literal of `text`.
fn literal(text: &str) -> String {
    format!("{text:?}")
}

/// `snake_case` to the `CamelCase` of a `Generation` variant.
fn variant(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The GPU catalog as Rust rows (`gpu::GpuRow`), so no program parses JSON
/// to read it: the web page then carries no JSON reader of the catalog.
fn gpu_rows(catalog: &serde_json::Value) -> String {
    let text = |e: &serde_json::Value, k: &str| {
        e.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string()
    };
    let int = |e: &serde_json::Value, k: &str| match e.get(k).and_then(|v| v.as_u64()) {
        Some(n) => format!("Some({n})"),
        None => "None".to_string(),
    };
    let mut rows = String::from("&[\n");
    for e in catalog.as_array().into_iter().flatten() {
        let aliases: Vec<String> = e
            .get("aliases")
            .and_then(|a| a.as_array())
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(literal))
            .collect();
        let bandwidth = e
            .get("bandwidth_gb_s")
            .and_then(|v| v.as_f64())
            .expect("bandwidth_gb_s");
        let notes = e
            .get("notes")
            .and_then(|v| v.as_str())
            .map_or("None".to_string(), |n| format!("Some({})", literal(n)));
        rows.push_str(&format!(
            "GpuRow {{ id: {}, name: {}, vendor: {}, generation: Generation::{}, memory_bytes: {}, \
             bf16: {}, fp8: {}, bandwidth_gb_s: {bandwidth:?}, aliases: &[{}], source: {}, \
             usable_memory_bytes: {}, cuda_total_bytes: {}, notes: {notes} }},\n",
            literal(&text(e, "id")),
            literal(&text(e, "name")),
            literal(&text(e, "vendor")),
            variant(&text(e, "generation")),
            e.get("memory_bytes").and_then(|v| v.as_u64()).expect("memory_bytes"),
            e.get("bf16").and_then(|v| v.as_bool()).unwrap_or(false),
            e.get("fp8").and_then(|v| v.as_bool()).unwrap_or(false),
            aliases.join(", "),
            literal(&text(e, "source")),
            int(e, "usable_memory_bytes"),
            int(e, "cuda_total_bytes"),
        ));
    }
    rows.push(']');
    rows
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    const CITATIONS: &[&str] = &["source", "notes"];
    const EXPLANATIONS: &[&str] = &["memory_effect", "penalty_reason"];
    // Where a wizard row's thresholds come from: for maintainers, not shown.
    const PROVENANCE: &[&str] = &["provenance"];
    let none: &[&str] = &[];
    for (name, strip) in [
        ("models.json", if wasm { CITATIONS } else { none }),
        ("gpus.json", if wasm { CITATIONS } else { none }),
        ("techniques.json", if wasm { EXPLANATIONS } else { none }),
        ("decision_table.json", if wasm { PROVENANCE } else { none }),
    ] {
        let path = Path::new("data").join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // The catalogs are arrays; techniques.json and decision_table.json
        // hold theirs in `techniques` and `rows`.
        let entries = match value.get_mut("techniques") {
            Some(list) => list.as_array_mut(),
            None => match value.get_mut("rows") {
                Some(rows) => rows.as_array_mut(),
                None => value.as_array_mut(),
            },
        };
        for entry in entries.into_iter().flatten() {
            if name == "models.json" {
                trim_spec(entry);
            }
            if let Some(entry) = entry.as_object_mut() {
                for field in strip {
                    entry.remove(*field);
                }
            }
        }
        if wasm {
            // The files' own `about` notes, and nulls (serde reads a missing
            // Option as None), are for readers of the data, not the app.
            if let Some(file) = value.as_object_mut() {
                file.remove("about");
            }
            drop_nulls(&mut value);
        }
        if name == "gpus.json" {
            let rows = gpu_rows(&value);
            std::fs::write(Path::new(&out).join("gpus.rs"), rows).expect("OUT_DIR is writable");
            continue;
        }
        let minified = serde_json::to_string(&value).expect("JSON writes");
        std::fs::write(Path::new(&out).join(name), minified).expect("OUT_DIR is writable");
    }
}
