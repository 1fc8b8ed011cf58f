//! `vramfit check` against the recorded GPUs of `tests/data/` (test hook
//! `VRAMFIT_FAKE_NVML`, see tests/data/README.md): exit 0 fits, 1 does not,
//! 2 error.

use std::process::{Command, Output};

use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};

fn fixture(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn check(fixture_name: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .arg("check")
        .args(args)
        .env("VRAMFIT_FAKE_NVML", fixture(fixture_name))
        .output()
        .expect("run vramfit")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

// GPU 0 of two_a100_mig.json: an A100-SXM4-80GB with 85,899,345,920 bytes,
// 41,859,153,920 free (another process holds 40 GiB).
const FREE_GPU0: u64 = 41_859_153_920;

#[test]
fn a_lora_job_fits_the_free_memory_and_exits_0() {
    let o = check(
        "two_a100_mig.json",
        &[
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--task",
            "training",
            "--method",
            "lora",
            "--gpu",
            "0",
            "--json",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json(&o);
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    sc.gpu.memory_bytes = Some(85_899_345_920);
    let needed = vramfit_core::estimate(&sc)
        .unwrap()
        .headline_gpu()
        .device_used_bytes;
    let g = &v["gpus"][0];
    assert_eq!(g["free_bytes"].as_u64(), Some(FREE_GPU0));
    assert_eq!(g["needed_bytes"].as_u64(), Some(needed));
    assert_eq!(
        g["headroom_bytes"].as_i64(),
        Some(FREE_GPU0 as i64 - needed as i64)
    );
    assert_eq!(g["catalog_id"], "a100-sxm4-80gb");
    assert_eq!(v["fits"], true);
}

#[test]
fn a_full_fine_tune_is_short_exits_1_and_brings_a_plan_that_fits() {
    let o = check(
        "two_a100_mig.json",
        &[
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--task",
            "training",
            "--micro-batch",
            "4",
            "--gpu",
            "0",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["fits"], false);
    let g = &v["gpus"][0];
    assert!(g["needed_bytes"].as_u64().unwrap() > FREE_GPU0);
    let plan = &v["best_plan"];
    assert!(
        plan["device_used_bytes"].as_u64().unwrap() <= FREE_GPU0,
        "{plan}"
    );
    assert!(!plan["changes"].as_array().unwrap().is_empty());
}

#[test]
fn the_default_is_the_first_gpus_and_too_many_is_an_error() {
    // Two GPUs, both checked: GPU 1 is empty, GPU 0 half full.
    let o = check(
        "two_a100_mig.json",
        &[
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--gpus",
            "2",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["gpus"].as_array().unwrap().len(), 2);
    let o = check(
        "two_a100_mig.json",
        &["--model", "meta-llama/Llama-2-7b-hf", "--gpus", "4"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("this machine has 2"));
    let o = check(
        "two_a100_mig.json",
        &["--model", "meta-llama/Llama-2-7b-hf", "--gpu", "7"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--gpu"));
}

#[test]
fn no_driver_is_one_sentence_and_exit_2() {
    let o = check("no_driver.json", &["--model", "meta-llama/Llama-2-7b-hf"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn link_detect_fills_in_this_machines_gpus_and_check_reads_the_link() {
    let link = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args([
            "link",
            "--model",
            "meta-llama/Llama-2-7b-hf",
            "--task",
            "training",
            "--method",
            "lora",
            "--detect",
        ])
        .env("VRAMFIT_FAKE_NVML", fixture("two_a100_mig.json"))
        .output()
        .expect("run vramfit");
    assert!(
        link.status.success(),
        "{}",
        String::from_utf8_lossy(&link.stderr)
    );
    let url = String::from_utf8(link.stdout).unwrap().trim().to_string();
    let query = url.split_once('?').unwrap().1;
    let decoded = vramfit_core::url::decode(query);
    assert!(decoded.notices.is_empty(), "{:?}", decoded.notices);
    // Two A100-SXM4-80GB in the fixture: the link carries the model and the count.
    assert_eq!(decoded.scenario.gpu.name.as_deref(), Some("a100-sxm4-80gb"));
    assert_eq!(decoded.scenario.parallel.gpus, 2);
    assert_eq!(decoded.scenario.training.method, Method::Lora);

    let o = check("two_a100_mig.json", &["--url", &url, "--json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        json(&o)["gpus"].as_array().unwrap().len(),
        2,
        "both detected GPUs are checked"
    );
}

#[test]
fn link_detect_without_a_driver_is_exit_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(["link", "--detect"])
        .env("VRAMFIT_FAKE_NVML", fixture("no_library.json"))
        .output()
        .expect("run vramfit");
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

#[test]
fn a_link_with_a_bad_parameter_warns_and_uses_the_default() {
    let o = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args([
            "estimate",
            "--url",
            "https://vramfit.github.io/vramfit/?v=1&m=meta-llama/Llama-2-7b-hf&mb=abc",
            "--json",
        ])
        .output()
        .expect("run vramfit");
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("`mb`"));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["params"].as_u64(), Some(6_738_415_616));
    let o = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(["estimate", "--url", "not a link"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
