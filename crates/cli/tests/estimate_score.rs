//! `vramfit estimate`, `score` and `catalog` run as a user would.

mod common;

use std::process::Output;

use common::{stderr, stdout};

use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};

fn vramfit(args: &[&str]) -> Output {
    common::vramfit_with_stdin(args, None)
}

const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/data/groundtruth/cases.jsonl"
);

#[test]
fn estimate_json_equals_the_core_for_the_same_scenario() {
    let o = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-2-7b-hf",
        "--task",
        "training",
        "--method",
        "lora",
        "--micro-batch",
        "2",
        "--seq-len",
        "1024",
        "--gpu",
        "a100-sxm4-40gb",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.micro_batch = 2;
    sc.training.seq_len = 1024;
    sc.gpu.name = Some("a100-sxm4-40gb".into());
    let e = vramfit_core::estimate(&sc).unwrap();
    let g = e.headline_gpu();
    assert_eq!(
        v["params"].as_u64(),
        Some(6_738_415_616),
        "Llama-2-7B has 6,738,415,616 parameters"
    );
    assert_eq!(
        v["peak_allocated_bytes"].as_u64(),
        Some(g.peak_allocated_bytes)
    );
    assert_eq!(
        v["peak_reserved_bytes"].as_u64(),
        Some(g.peak_reserved_bytes)
    );
    assert_eq!(v["device_used_bytes"].as_u64(), Some(g.device_used_bytes));
    assert_eq!(
        v["gpus"][0]["device_used_bytes"].as_u64(),
        Some(g.device_used_bytes)
    );
    assert!(v["cpu_ram_bytes"].is_u64());
    // bf16 weights alone are 13,476,831,232 bytes: the peak holds them and more.
    assert!(g.peak_allocated_bytes > 13_476_831_232);
}

#[test]
fn estimate_reads_a_scenario_file_and_a_config() {
    let dir = std::env::temp_dir().join(format!("vramfit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("s.json");
    std::fs::write(
        &scenario,
        r#"{"model": {"params": 7000000000}, "task": "inference"}"#,
    )
    .unwrap();
    let o = vramfit(&["estimate", "--scenario", scenario.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("APPROXIMATE"),
        "a bare count is marked approximate"
    );

    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/configs/meta-llama__Llama-2-7b-hf.json"
    );
    let o = vramfit(&["estimate", "--config", config, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["params"].as_u64(), Some(6_738_415_616));
    // --config alone: inference at batch 1, 128 + 128 tokens: the KV cache is
    // 32 layers × 2 × 4096 × 2 B = 512 KiB per token × 256 tokens = 128 MiB.
    let kv = v["gpus"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["part"] == "kv_cache")
        .unwrap();
    assert_eq!(kv["bytes"].as_u64(), Some(256 * 524_288));
    std::fs::remove_dir_all(&dir).ok();
}

/// A quantization with no weight format here (HQQ) is named on stderr, not
/// estimated in 16 bits unannounced; --weights silences it.
#[test]
fn an_unmodelled_quantization_is_named() {
    let dir = std::env::temp_dir().join(format!("vramfit-hqq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.json");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/configs/meta-llama__Llama-2-7b-hf.json"
    ))
    .unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&text).unwrap();
    config["quantization_config"] = serde_json::json!({"quant_method": "hqq", "nbits": 4});
    std::fs::write(&path, config.to_string()).unwrap();
    let file = path.to_str().unwrap();
    let o = vramfit(&["estimate", "--config", file, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("\"hqq\" has no weight format"),
        "{}",
        stderr(&o)
    );
    let o = vramfit(&["estimate", "--config", file, "--weights", "nf4", "--json"]);
    assert!(!stderr(&o).contains("hqq"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// A quantized checkpoint's config loads as it is stored (gpt-oss: MXFP4
/// experts), unless --weights says otherwise.
#[test]
fn a_quantized_config_loads_in_its_own_format() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/configs/openai__gpt-oss-20b.json"
    );
    let weights = |extra: &[&str]| {
        let mut args = vec!["estimate", "--config", config, "--json"];
        args.extend_from_slice(extra);
        let o = vramfit(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let line = v["gpus"][0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["part"] == "weights")
            .unwrap()
            .clone();
        (
            line["bytes"].as_u64().unwrap(),
            v["params"].as_u64().unwrap(),
        )
    };
    let (mxfp4, params) = weights(&[]);
    let (bf16, _) = weights(&["--weights", "bf16"]);
    assert_eq!(bf16, 2 * params, "16-bit when asked");
    // the experts (most of the parameters) at 4.25 bits, the rest in 16 bits
    assert!(mxfp4 * 3 < bf16, "{mxfp4} vs {bf16}");
}

#[test]
fn bad_input_names_the_field_and_exits_2() {
    let o = vramfit(&["estimate", "--task", "training", "--micro-batch", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("training.micro_batch"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("1 to 65536"), "{}", stderr(&o));

    let o = vramfit(&[
        "estimate",
        "--model",
        "meta-llama/Llama-2-7b-hf",
        "--gpus",
        "3",
        "--tp",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("parallel.tp"), "{}", stderr(&o));

    let o = vramfit(&["estimate", "--optimizer", "adamx"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--optimizer"), "{}", stderr(&o));

    let o = vramfit(&["estimate", "--gpu", "no such card"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("gpu.name"), "{}", stderr(&o));
}

#[test]
fn score_json_has_one_object_per_case_and_a_summary() {
    let o = vramfit(&["score", CASES, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let cases = std::fs::read_to_string(CASES)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert_eq!(lines.len(), cases + 1);
    for c in &lines[..cases] {
        for key in [
            "id",
            "metric",
            "estimate_bytes",
            "measured_bytes",
            "rel_error",
            "status",
        ] {
            assert!(c.get(key).is_some(), "{key} missing in {c}");
        }
        let status = c["status"].as_str().unwrap();
        assert!(["ok", "unsupported", "bound_pass", "bound_fail"].contains(&status));
        if status == "ok" {
            let (e, m) = (
                c["estimate_bytes"].as_f64().unwrap(),
                c["measured_bytes"].as_f64().unwrap(),
            );
            let rel = c["rel_error"].as_f64().unwrap();
            assert!(
                ((e - m) / m - rel).abs() < 1e-9,
                "rel_error is (estimate − measured) / measured"
            );
        }
    }
    let s = &lines[cases]["summary"];
    for key in [
        "scored",
        "unsupported",
        "median_abs_rel_error",
        "p90_abs_rel_error",
        "within_10pct",
        "bound_pass",
        "bound_fail",
    ] {
        assert!(s.get(key).is_some(), "summary.{key} missing");
    }
    assert_eq!(
        s["scored"].as_u64().unwrap()
            + s["unsupported"].as_u64().unwrap()
            + s["bound_pass"].as_u64().unwrap()
            + s["bound_fail"].as_u64().unwrap(),
        cases as u64
    );
}

#[test]
fn score_table_prints_a_summary_line() {
    let o = vramfit(&["score", CASES, "--reliability", "high,medium"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("scored "), "{last}");
    assert!(out.contains("vllm-llmd-177"));
    assert!(
        !out.contains("litgpt-res-066"),
        "low-reliability rows filtered out"
    );
}

#[test]
fn catalog_lists_models_and_gpus() {
    let o = vramfit(&["catalog", "models", "llama-2"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("meta-llama/Llama-2-7b-hf"));
    let o = vramfit(&["catalog", "gpus", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v.as_array().unwrap().len() >= 30);
}

#[test]
fn flags_for_images_targets_fused_steps_and_empty_cache_reach_the_core() {
    let o = vramfit(&[
        "estimate",
        "--model",
        "llava-hf/llava-1.5-7b-hf",
        "--task",
        "training",
        "--seq-len",
        "512",
        "--images",
        "4",
        "--fused-optimizer",
        "--empty-cache",
        "--checkpointing",
        "full",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    let mut sc = Scenario {
        model: ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into()),
        task: TaskKind::Training,
        empty_cache_after_load: true,
        ..Scenario::default()
    };
    sc.training.seq_len = 512;
    sc.training.images_per_sample = 4;
    sc.training.fused_optimizer = true;
    sc.training.checkpointing = vramfit_core::scenario::Checkpointing::Full;
    let e = vramfit_core::estimate(&sc).unwrap();
    assert_eq!(
        v["gpus"][0]["peak_reserved_bytes"].as_u64(),
        Some(e.headline_gpu().peak_reserved_bytes)
    );
    assert_eq!(v["notes"][0]["code"], "image_tokens");
    // T5's target length.
    let t5 = |extra: &[&str]| {
        let mut args = vec![
            "estimate",
            "-m",
            "google-t5/t5-base",
            "--task",
            "training",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = vramfit(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
        v["gpus"][0]["peak_allocated_bytes"]
            .as_u64()
            .expect("bytes")
    };
    assert!(t5(&["--target-len", "128"]) < t5(&[]));
}

/// A VLM's preprocessor_config.json sets its image rule: given with
/// --preprocessor, or read from beside the config.json. Llama 3.2 Vision
/// with `max_image_tiles: 2` keeps K/V over 2 tile slots per image, not 4.
#[test]
fn the_preprocessor_beside_a_config_sets_the_image_rule() {
    let config = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/data/configs/vlm/made_up__mllama_11b_shape.json"
    );
    let cross = |args: &[&str]| -> u64 {
        let o = vramfit(args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["gpus"][0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["part"] == "cross_attention_cache")
            .and_then(|l| l["bytes"].as_u64())
            .expect("a cross-attention line")
    };
    let base = [
        "estimate",
        "--task",
        "inference",
        "--images-per-prompt",
        "1",
        "--json",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| (*s).to_owned()).collect()
    };
    let run = |extra: &[&str]| {
        let args = with(extra);
        cross(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // 8 layers × 2 × 8 KV heads × 128 × tiles × 1601 tokens × 2 B.
    let per_tile = 8 * 2 * 8 * 128 * 1601 * 2;
    assert_eq!(run(&["--config", config]), 4 * per_tile);
    let dir = std::env::temp_dir().join(format!("vramfit-cli-pre-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pre = dir.join("preprocessor_config.json");
    std::fs::write(&pre, r#"{"max_image_tiles": 2}"#).unwrap();
    assert_eq!(
        run(&["--config", config, "--preprocessor", pre.to_str().unwrap()]),
        2 * per_tile
    );
    let beside = dir.join("config.json");
    std::fs::copy(config, &beside).unwrap();
    assert_eq!(run(&["--config", beside.to_str().unwrap()]), 2 * per_tile);
    std::fs::remove_dir_all(&dir).ok();
}
