//! `vramfit plan` and `vramfit wizard` run as a user runs them: the built
//! binary, scenario files in a temp directory, answers on stdin.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

mod common;
use common::{stderr, stdout, vramfit_with_stdin as vramfit};

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("vramfit-plan-test-{}-{name}", std::process::id()))
}

/// Llama-2-7B full fine-tuning, micro-batch 4 × accumulation 2 at 1024 tokens:
/// 12.55 GiB of bf16 weights plus 25.1 GiB of AdamW states cannot fit 16 GiB.
const SCENARIO: &str = r#"{
  "model": {"catalog": "meta-llama/Llama-2-7b-hf"},
  "task": "training",
  "training": {"micro_batch": 4, "grad_accum": 2, "seq_len": 1024}
}"#;

fn assert_one_line_error(o: &Output, field: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(o.stdout.is_empty(), "{}", stdout(o));
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("vramfit: {field}")), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn plan_json_lists_plans_whose_scenarios_estimate_to_the_same_fit() {
    let file = temp_path("scenario.json");
    std::fs::write(&file, SCENARIO).unwrap();
    let path = file.to_str().unwrap();
    let o = vramfit(
        &["plan", "--scenario", path, "--gpu", "rtx-4080", "--json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let plans: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let plans = plans.as_array().expect("a list of plans");
    assert_eq!(plans.len(), 3);
    let mut last_score = f64::MIN;
    for (i, plan) in plans.iter().enumerate() {
        for key in ["changes", "cost", "peak_allocated_bytes", "scenario"] {
            assert!(plan.get(key).is_some(), "plan {i} lacks {key}");
        }
        let score = plan["cost"]["score"].as_f64().unwrap();
        assert!(score >= last_score, "sorted by cost");
        last_score = score;
        let change = &plan["changes"][0];
        assert!(change["id"].is_string() && change["en"].is_string() && change["zh"].is_string());
        // The plan's scenario is what `vramfit estimate --scenario` accepts.
        let plan_file = temp_path(&format!("plan-{i}.json"));
        std::fs::write(&plan_file, plan["scenario"].to_string()).unwrap();
        let e = vramfit(
            &[
                "estimate",
                "--scenario",
                plan_file.to_str().unwrap(),
                "--json",
            ],
            None,
        );
        assert!(e.status.success(), "{}", stderr(&e));
        let e: Value = serde_json::from_str(&stdout(&e)).unwrap();
        assert_eq!(e["peak_allocated_bytes"], plan["peak_allocated_bytes"]);
        assert_eq!(e["device_used_bytes"], plan["device_used_bytes"]);
        assert_eq!(e["fits"], Value::Bool(true));
        // And its share link opens the same setup in the web calculator.
        let url = plan["url"].as_str().expect("each plan has a share link");
        let linked = vramfit(&["estimate", "--url", url, "--json"], None);
        assert!(linked.status.success(), "{}", stderr(&linked));
        let linked: Value = serde_json::from_str(&stdout(&linked)).unwrap();
        assert_eq!(
            linked["device_used_bytes"], plan["device_used_bytes"],
            "{url}"
        );
        let t = &plan["scenario"]["training"];
        assert_eq!(
            t["micro_batch"].as_u64().unwrap() * t["grad_accum"].as_u64().unwrap(),
            8,
            "effective batch 4 × 2 kept"
        );
        let _ = std::fs::remove_file(plan_file);
    }
    let text = vramfit(&["plan", "--scenario", path, "--gpu", "rtx-4080"], None);
    assert!(text.status.success());
    let out = stdout(&text);
    assert!(out.starts_with("does NOT fit"), "{out}");
    assert!(out.contains("plan 1:") && out.contains("source: "), "{out}");
    let _ = std::fs::remove_file(file);
}

#[test]
fn plan_on_a_card_that_fits_proposes_nothing() {
    let o = vramfit(
        &[
            "plan",
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--gpu",
            "a100-sxm4-80gb",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout(&o)).unwrap(),
        Value::Array(vec![])
    );
}

#[test]
fn plan_bad_input_is_one_line_naming_the_field() {
    assert_one_line_error(
        &vramfit(&["plan", "--model", "meta-llama/Llama-2-7b-hf"], None),
        "gpu",
    );
    assert_one_line_error(
        &vramfit(
            &[
                "plan",
                "--model",
                "meta-llama/Llama-2-7b-hf",
                "--gpu",
                "gtx-9999",
            ],
            None,
        ),
        "gpu.name",
    );
    assert_one_line_error(
        &vramfit(
            &[
                "plan",
                "--model",
                "meta-llama/Llama-2-7b-hf",
                "--gpu",
                "t4",
                "--max-plans",
                "0",
            ],
            None,
        ),
        "max_plans",
    );
}

#[test]
fn wizard_flags_give_the_table_row_and_its_estimate() {
    // Llama-2-7B on an RTX 3060 12 GB: 12 GiB ÷ 6.738e9 = 1.91 B/param, the
    // 000 table's "12-16GB: 8-bit" serving row.
    let o = vramfit(
        &[
            "wizard",
            "--goal",
            "serve",
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--gpu",
            "rtx-3060-12gb",
            "--gpus",
            "1",
            "--priority",
            "quality",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["row_id"], "serve_12_to_16gb_8bit");
    assert_eq!(r["scenario"]["weights"], "int8");
    assert_eq!(r["fits"], Value::Bool(true));
    let ratio = r["bytes_per_param"].as_f64().unwrap();
    assert!((ratio - 12.0 * (1u64 << 30) as f64 / 6_738_415_616.0).abs() < 1e-9);
    assert!(r["why"]["en"]
        .as_str()
        .unwrap()
        .contains("1.91 bytes per parameter"));
}

#[test]
fn wizard_asks_for_missing_answers_on_stdin() {
    // No GPU at all: the 000 table's CPU row.
    let o = vramfit(
        &["wizard"],
        Some("serve\nmeta-llama/Llama-2-7b-hf\nnone\ncost\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("row serve_no_gpu:"), "{out}");
    assert!(out.contains("CPU"), "{out}");
    // A fine-tuning setup that falls short shows plans.
    let o = vramfit(
        &[
            "wizard",
            "--goal",
            "fine_tune",
            "--gpu",
            "rtx-4090",
            "--gpus",
            "1",
        ],
        Some("meta-llama/Llama-2-7b-hf\nspeed\n"),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("does NOT fit") && out.contains("plan 1:"),
        "{out}"
    );
}

#[test]
fn wizard_bad_answers_are_one_line_naming_the_field() {
    assert_one_line_error(
        &vramfit(
            &[
                "wizard",
                "--goal",
                "fine_tune",
                "-m",
                "meta-llama/Llama-2-7b-hf",
                "--gpus",
                "0",
                "--gpu",
                "t4",
                "--priority",
                "cost",
            ],
            None,
        ),
        "gpu_count",
    );
    assert_one_line_error(
        &vramfit(
            &[
                "wizard",
                "--goal",
                "serve",
                "-m",
                "meta-llama/Llama-2-7b-hf",
                "--gpu",
                "gtx-9999",
                "--gpus",
                "1",
                "--priority",
                "cost",
            ],
            None,
        ),
        "gpu",
    );
    assert_one_line_error(&vramfit(&["wizard", "--goal", "sing"], None), "--goal");
    // Stdin ends before the model is given.
    assert_one_line_error(
        &vramfit(&["wizard", "--goal", "serve"], Some("")),
        "--model",
    );
}
