//! `vramfit doctor` and `vramfit logs` run as a user would, on the core's
//! fixtures (provenance in crates/core/tests/data/*/README.md).

use std::process::Output;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn data(path: &str) -> String {
    format!("{}/../core/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

mod common;
use common::{stderr, stdout, vramfit_with_stdin as vramfit};

fn json(output: &Output) -> serde_json::Value {
    assert!(output.status.success(), "{}", stderr(output));
    serde_json::from_slice(&output.stdout).expect("valid JSON")
}

#[test]
fn doctor_json_on_the_seed_003_message() {
    let value = json(&vramfit(
        &["doctor", &data("oom/modern_seed003.txt"), "--json"],
        None,
    ));
    // printed numbers × 2^30
    assert_eq!(value["requested_bytes"], (1.23 * GIB).round() as u64);
    assert_eq!(value["total_bytes"], (19.58 * GIB).round() as u64);
    assert_eq!(value["free_bytes"], (1.06 * GIB).round() as u64);
    assert_eq!(value["allocated_bytes"], (14.94 * GIB).round() as u64);
    assert_eq!(
        value["reserved_unallocated_bytes"],
        (3.18 * GIB).round() as u64
    );
    assert_eq!(
        value["reserved_bytes"],
        (14.94 * GIB).round() as u64 + (3.18 * GIB).round() as u64
    );
    assert!(value["non_pytorch_bytes"].is_u64());
    let codes: Vec<&str> = value["diagnoses"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"fragmentation"), "{codes:?}");
    assert!(value["diagnoses"][0]["message"].is_string());
}

#[test]
fn doctor_json_nulls_what_the_message_does_not_say() {
    let value = json(&vramfit(
        &["doctor", "-", "--json"],
        Some("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB."),
    ));
    assert_eq!(value["requested_bytes"], 512 * 1024 * 1024);
    for field in [
        "total_bytes",
        "free_bytes",
        "allocated_bytes",
        "reserved_bytes",
        "reserved_unallocated_bytes",
        "non_pytorch_bytes",
    ] {
        assert!(value[field].is_null(), "{field}: {}", value[field]);
    }
}

#[test]
fn doctor_text_has_a_bar_and_diagnoses() {
    let output = vramfit(
        &["doctor"],
        Some(&std::fs::read_to_string(data("oom/legacy_seed004.txt")).expect("fixture")),
    );
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("GPU 0 · 23.69 GiB"), "{text}");
    assert!(text.contains("[####"), "{text}");
    assert!(text.contains("[card_too_small]"), "{text}");
}

#[test]
fn doctor_without_a_message_exits_2() {
    let output = vramfit(&["doctor", "-"], Some("Traceback: ValueError: bad shape"));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no out-of-memory message found"));
    let missing = vramfit(&["doctor", &data("oom/does_not_exist.txt")], None);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn logs_json_on_the_seed_004_leak() {
    let value = json(&vramfit(
        &[
            "logs",
            &data("logs/leak_seed004.txt"),
            "--capacity",
            "32GiB",
            "--json",
        ],
        None,
    ));
    assert_eq!(value["points"].as_array().map(Vec::len), Some(9));
    assert_eq!(value["trend"], "accelerating");
    // hand least squares: 0.0074167 GB/step (see crates/core/tests/logs.rs)
    let growth = value["growth_bytes_per_step"].as_f64().expect("number");
    assert!((growth - 7_416_667.0).abs() < 1_000.0, "{growth}");
    let step = value["predicted_oom_step"]
        .as_f64()
        .expect("capacity given");
    assert!((step - 1495.478).abs() < 0.5, "{step}");
    // `Memory=18.2GB` names no tool: read as 10^9 and said so
    assert_eq!(value["series"], "memory");
    assert_eq!(value["x_unit"], "step");
    assert_eq!(value["units"]["assumed"], "decimal");
    assert!(value["units_note"]["zh"]
        .as_str()
        .is_some_and(|t| !t.is_empty()));
}

#[test]
fn logs_capacity_units_and_nulls() {
    // no capacity: no prediction
    let value = json(&vramfit(
        &["logs", &data("logs/hf_trainer.txt"), "--json"],
        None,
    ));
    assert!(value["predicted_oom_step"].is_null());
    assert_eq!(value["trend"], "linear");
    // plain bytes = 16 GiB: 13.5 + 0.05·(x − 40) = 16 → x = 90
    let value = json(&vramfit(
        &[
            "logs",
            &data("logs/hf_trainer.txt"),
            "--capacity",
            "17179869184",
            "--json",
        ],
        None,
    ));
    // 13.5 GB + 0.05 GB·(x − 40) = 17.179869184 GB → x = 113.597
    assert!((value["predicted_oom_step"].as_f64().expect("step") - 113.597).abs() < 1e-3);
    // the companion CSV carries its capacity; the run shrinks: steady
    let value = json(&vramfit(
        &["logs", &data("logs/companion.csv"), "--json"],
        None,
    ));
    assert_eq!(value["trend"], "steady");
    assert_eq!(value["capacity_bytes"], 25_769_803_776u64);
    assert_eq!(value["x_unit"], "seconds");
    assert_eq!(value["series"], "used_bytes");
}

#[test]
fn logs_pick_the_series_growing_toward_the_card() {
    // torchtune prints three series per step (bare GiB); alloc and reserved
    // grow by about 1 GiB a step, active stays flat
    let value = json(&vramfit(
        &[
            "logs",
            &data("logs/corpus/torchtune_mps.log"),
            "--capacity",
            "64GiB",
            "--json",
        ],
        None,
    ));
    // alloc and reserved print the same numbers and reach 64 GiB together;
    // the flat `active` is never the one
    assert!(
        ["peak_memory_alloc", "peak_memory_reserved"]
            .contains(&value["series"].as_str().unwrap_or("")),
        "{}",
        value["series"]
    );
    assert_eq!(value["units"]["tool"], "torchtune");
    assert_eq!(value["all_series"].as_array().map(Vec::len), Some(3));
    assert!(value["series_reason"]["en"]
        .as_str()
        .is_some_and(|r| r.contains("reaches the capacity first")));
    // a log without steps is read by sample
    let value = json(&vramfit(
        &["logs", &data("logs/corpus/axolotl.log"), "--json"],
        None,
    ));
    assert_eq!(value["x_unit"], "sample");
}

#[test]
fn doctor_names_the_stack_and_the_memory() {
    let value = json(&vramfit(
        &[
            "doctor",
            &data("oom/corpus/dataloader_killed.txt"),
            "--json",
        ],
        None,
    ));
    assert_eq!(value["out_of_memory"], true);
    assert_eq!(value["memory"], "host");
    assert_eq!(value["framework"], "pytorch");
    let value = json(&vramfit(
        &[
            "doctor",
            &data("oom/corpus/vllm_v1_kv_needed_estimate.txt"),
            "--json",
        ],
        None,
    ));
    assert_eq!(value["framework"], "vllm");
    assert_eq!(value["tokens_available"], 122_080);
    let output = vramfit(
        &["doctor", &data("oom/corpus/not_oom_nccl_timeout.txt")],
        None,
    );
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("NCCL: not an out-of-memory error"), "{text}");
    assert!(text.contains("[nccl_timeout]"), "{text}");
}

#[test]
fn logs_bad_input_exits_2() {
    let output = vramfit(
        &["logs", "-", "--capacity", "lots"],
        Some("Step 1: Memory=1GB"),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--capacity"));
    let output = vramfit(&["logs", "-"], Some("nothing to see"));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("need at least 3"));
}

/// A vLLM start-up log: the engine's printed figures beside ours, as text
/// and as JSON, with the model the log names from the catalog.
#[test]
fn doctor_reconciles_a_vllm_start_up_log() {
    let log = data("reconcile/vllm_0.19_llama31_8b_tp2.log");
    let text = stdout(&vramfit(&["doctor", &log], None));
    assert!(text.contains("vllm 0.19.0 start-up log"), "{text}");
    assert!(text.contains("tp 2"), "{text}");
    let pool_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("KV cache tokens"))
        .expect("a KV-token row");
    assert!(pool_row.contains("1044688"), "{pool_row}");
    let value = json(&vramfit(&["doctor", &log, "--json"], None));
    let rows = value["reconciliation"]["rows"].as_array().expect("rows");
    let tokens = rows
        .iter()
        .find(|r| r["figure"] == "kv_tokens")
        .expect("tokens compared");
    assert_eq!(tokens["runtime"], 1_044_688.0);
    let ours = tokens["ours"].as_f64().expect("ours");
    assert!((ours / 1_044_688.0 - 1.0).abs() < 0.005, "{ours}");
    assert!(value["oom"].is_null());
}

/// `ollama ps` with nvidia-smi under it (hand-written samples): the size,
/// GPU share and used memory beside ours, the layers the share implies, and
/// the rows that could not be read named.
#[test]
fn doctor_reconciles_ollama_ps_and_nvidia_smi() {
    let ps =
        std::fs::read_to_string(data("reconcile/ollama_ps_qwen25_14b_split.txt")).expect("sample");
    let smi = std::fs::read_to_string(data("reconcile/nvidia_smi_rtx3090.txt")).expect("sample");
    let text = stdout(&vramfit(&["doctor", "-"], Some(&format!("{ps}\n{smi}"))));
    assert!(
        text.starts_with("ollama ps · Qwen2.5-14B · -ngl "),
        "{text}"
    );
    for row in [
        "size (ollama ps)",
        "share on the GPU",
        "memory used (nvidia-smi)",
    ] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(row)),
            "{row}: {text}"
        );
    }
    assert!(text.contains("52%"), "{text}");
    let bad = data("reconcile/ollama_ps_bad.txt");
    let text = stdout(&vramfit(&["doctor", &bad], None));
    assert!(text.contains("not read: ollama ps, row 1: SIZE"), "{text}");
    let value = json(&vramfit(&["doctor", &bad, "--json"], None));
    assert_eq!(
        value["reconciliation"]["log"]["unread"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}
