//! Bad input never panics: every config the parameter tests measured
//! (`data/configs/`: published configs, VLMs, the 2025 families' class
//! defaults, the 2026 families' variants, the Omni models and the encoders), with each of its keys (and each key
//! of its sub-configs) replaced in turn by an absurd value, either imports
//! or is refused with an error naming a field; and what imports estimates
//! (training and inference) without a panic.

mod common;

use common::data_dir;
use serde_json::{json, Value};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};

fn absurd() -> [Value; 9] {
    [
        json!(0),
        json!(1),
        json!(1u64 << 40),
        json!(-1),
        json!(1e300),
        json!("x"),
        json!([]),
        json!({}),
        Value::Null,
    ]
}

/// Every way to replace one key of `config` or of one of its sub-objects.
fn mutations(config: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let Some(top) = config.as_object() else {
        return out;
    };
    for (key, value) in top {
        if key == "model_type" {
            continue;
        }
        for bad in absurd() {
            let mut c = config.clone();
            c[key] = bad;
            out.push(c);
        }
        if let Some(sub) = value.as_object() {
            for inner in sub.keys().filter(|k| *k != "model_type") {
                for bad in absurd() {
                    let mut c = config.clone();
                    c[key][inner] = bad;
                    out.push(c);
                }
            }
        }
    }
    out
}

#[test]
fn absurd_values_in_measured_configs_never_panic() {
    let mut imported = 0;
    let mut refused = 0;
    let mut files: Vec<_> = [
        "configs/variants_2026",
        "configs/defaults_2025",
        "configs",
        "configs/vlm",
        "configs/omni",
        "configs/encoders",
    ]
    .iter()
    .flat_map(|d| std::fs::read_dir(data_dir().join(d)).expect("configs"))
    .filter_map(|e| e.ok().map(|e| e.path()))
    .filter(|p| p.extension().is_some_and(|x| x == "json"))
    .collect();
    files.sort();
    for path in files {
        {
            let text = std::fs::read_to_string(&path).expect("config");
            let config: Value = serde_json::from_str(&text).expect("json");
            for m in mutations(&config) {
                match from_hf_config(&m.to_string()) {
                    Ok(spec) => {
                        imported += 1;
                        for task in [TaskKind::Training, TaskKind::Inference] {
                            let sc = Scenario {
                                model: ModelSource::Spec(Box::new(spec.clone())),
                                task,
                                ..Scenario::default()
                            };
                            let _ = vramfit_core::estimate::estimate(&sc);
                        }
                    }
                    Err(e) => {
                        assert!(
                            e.field.starts_with("config.json"),
                            "{}: {e}\n{m}",
                            path.display()
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        imported > 100 && refused > 100,
        "{imported} imported, {refused} refused"
    );
}
