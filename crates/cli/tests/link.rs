//! `vramfit link`: the printed URL decodes (with the core codec) to the
//! scenario the same flags give `vramfit estimate`, for a scenario file and a
//! measured case.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use vramfit_core::url::{decode, DEFAULT_BASE};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn vramfit(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .output()
        .expect("the vramfit binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The first GPU's three totals from `vramfit estimate --json`.
fn estimate_totals(args: &[&str]) -> Value {
    let mut full = vec!["estimate", "--json"];
    full.extend_from_slice(args);
    let (ok, stdout, stderr) = vramfit(&full);
    assert!(ok, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).expect("JSON");
    json["gpus"][0].clone()
}

fn link_totals(url: &str) -> Value {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let decoded = decode(query);
    assert!(decoded.notices.is_empty(), "{url}: {:?}", decoded.notices);
    let e = vramfit_core::estimate(&decoded.scenario).expect("the linked scenario estimates");
    serde_json::to_value(&e.gpus[0]).expect("serializes")
}

#[test]
fn a_scenario_file_links_to_the_same_estimate() {
    let dir = std::env::temp_dir().join(format!("vramfit-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("scenario.json");
    std::fs::write(
        &file,
        r#"{"model":{"catalog":"meta-llama/Llama-2-7b-hf"},"task":"training","weights":"nf4",
            "training":{"method":"qlora","micro_batch":4,"seq_len":2048},"gpu":{"name":"a100-sxm4-40gb"}}"#,
    )
    .expect("write scenario");
    let path = file.to_string_lossy().into_owned();
    let (ok, url, stderr) = vramfit(&["link", "--scenario", &path]);
    assert!(ok, "{stderr}");
    assert!(url.starts_with(&format!("{DEFAULT_BASE}?v=1&")), "{url}");
    for part in [
        "m=meta-llama/Llama-2-7b-hf",
        "t=train",
        "w=nf4",
        "mb=4",
        "gpu=a100-sxm4-40gb",
    ] {
        assert!(url.contains(part), "{part} missing from {url}");
    }
    // 2048 is the default sequence length: left out.
    assert!(!url.contains("seq="), "{url}");
    assert_eq!(link_totals(&url), estimate_totals(&["--scenario", &path]));

    let (ok, local, _) = vramfit(&[
        "link",
        "--scenario",
        &path,
        "--base",
        "http://127.0.0.1:8080/",
    ]);
    assert!(
        ok && local.starts_with("http://127.0.0.1:8080/?v=1&"),
        "{local}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_measured_case_links_to_its_setup() {
    let cases = data("link/cases.jsonl").to_string_lossy().into_owned();
    for id in ["litgpt-res-022", "litgpt-hub-067"] {
        let (ok, url, stderr) = vramfit(&["link", "--case", &cases, "--id", id]);
        assert!(ok, "{id}: {stderr}");
        assert_eq!(
            link_totals(&url),
            estimate_totals(&["--case", &cases, "--id", id]),
            "{id}"
        );
    }
}

#[test]
fn a_missing_file_is_an_error_not_a_link() {
    let (ok, stdout, stderr) = vramfit(&["link", "--scenario", "/nonexistent/scenario.json"]);
    assert!(!ok && stdout.is_empty());
    assert!(stderr.contains("/nonexistent/scenario.json"), "{stderr}");
}
