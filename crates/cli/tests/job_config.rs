//! `vramfit check --job-config`: training configs checked against the
//! recorded GPUs of `tests/data/` (test hook `VRAMFIT_FAKE_NVML`).

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use vramfit_core::job_config::read_job_config;
use vramfit_core::scenario::Scenario;

// GPU 0 of two_a100_mig.json: an A100-SXM4-80GB with 41,859,153,920 bytes free.
const FREE_GPU0: u64 = 41_859_153_920;

fn job_config(name: &str) -> String {
    format!(
        "{}/../core/tests/data/job_configs/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn check(fixture: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .arg("check")
        .args(args)
        .env(
            "VRAMFIT_FAKE_NVML",
            format!("{}/tests/data/{fixture}", env!("CARGO_MANIFEST_DIR")),
        )
        .output()
        .expect("run vramfit")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_torchtune_qlora_recipe_fits_an_a100_and_says_what_it_read() {
    let path = job_config("torchtune_llama3_1_8b_qlora.yaml");
    let o = check(
        "two_a100_mig.json",
        &["--job-config", &path, "--gpu", "0", "--json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    // The needed bytes are the core's estimate of the config's scenario on that card.
    let text = std::fs::read_to_string(&path).unwrap();
    let mut sc = read_job_config(&text, None, Scenario::default())
        .unwrap()
        .scenario;
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    sc.gpu.memory_bytes = Some(85_899_345_920);
    let needed = vramfit_core::estimate(&sc)
        .unwrap()
        .headline_gpu()
        .device_used_bytes;
    assert_eq!(v["gpus"][0]["needed_bytes"].as_u64(), Some(needed));
    assert_eq!(
        v["gpus"][0]["headroom_bytes"].as_i64(),
        Some(FREE_GPU0 as i64 - needed as i64)
    );
    let job = &v["job_configs"][0];
    assert_eq!(job["format"], "torchtune");
    assert_eq!(job["model"], "meta-llama/Llama-3.1-8B");
    let compile = job["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["key"] == "compile")
        .expect("compile named as ignored");
    assert!(compile["reason"]
        .as_str()
        .unwrap()
        .contains("does not model"));
    // For people: what was used, what was ignored, and the calculator link.
    let err = stderr(&o);
    assert!(err.contains("used: model._component_"), "{err}");
    assert!(err.contains("meth=qlora"), "{err}");
}

#[test]
fn flags_apply_over_the_config_and_a_short_job_exits_1_with_a_plan() {
    let path = job_config("axolotl_mistral_qlora.yaml");
    let o = check(
        "two_a100_mig.json",
        &["--job-config", &path, "--micro-batch", "64", "--gpu", "0"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("GPU 0 (NVIDIA A100-SXM4-80GB): short by"),
        "{out}"
    );
    assert!(out.contains("best plan"), "{out}");
    assert!(out.contains("micro-batch 64 → 32"), "{out}");
}

#[test]
fn a_config_without_a_catalog_model_needs_one_from_the_flags() {
    let path = job_config("hf_zero3_auto.json");
    let o = check("two_a100_mig.json", &["--job-config", &path, "--gpu", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("names no model: give it with -m"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    let o = check(
        "two_a100_mig.json",
        &[
            "--job-config",
            &path,
            "-m",
            "Qwen/Qwen2.5-0.5B",
            "--gpu",
            "0",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["job_configs"][0]["format"], "hf_training_args");
}

#[test]
fn a_trainer_file_then_its_deepspeed_file() {
    let dir = std::env::temp_dir().join(format!("vramfit-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = dir.join("args.json");
    let ds = dir.join("ds.json");
    std::fs::write(
        &args,
        r#"{"model_name_or_path": "Qwen/Qwen2.5-0.5B", "per_device_train_batch_size": 3, "bf16": true, "deepspeed": "ds.json"}"#,
    )
    .unwrap();
    std::fs::write(&ds, r#"{"zero_optimization": {"stage": 2}}"#).unwrap();
    let o = check(
        "two_a100_mig.json",
        &[
            "--job-config",
            args.to_str().unwrap(),
            "--job-config",
            ds.to_str().unwrap(),
            "--gpu",
            "0",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("ignored deepspeed: a file (ds.json)"), "{err}");
    assert!(err.contains("mb=3") && err.contains("par=zero2"), "{err}");
}

#[test]
fn hostile_configs_exit_2_quickly() {
    let dir = std::env::temp_dir().join(format!("vramfit-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = dir.join("huge.yaml");
    std::fs::write(&huge, format!("base_model: \"{}\"\n", "x".repeat(8 << 20))).unwrap();
    let mut bomb = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (prev, next) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
    {
        bomb += &format!(
            "{next}: &{next} [{}]\n",
            vec![format!("*{prev}"); 9].join(", ")
        );
    }
    let laughs = dir.join("laughs.yaml");
    std::fs::write(&laughs, bomb).unwrap();
    for (file, message) in [
        (&huge, "larger than 1048576 bytes"),
        (&laughs, "expands to more than"),
    ] {
        let start = Instant::now();
        let o = check(
            "two_a100_mig.json",
            &["--job-config", file.to_str().unwrap()],
        );
        assert!(start.elapsed() < Duration::from_secs(5), "{file:?}");
        assert_eq!(o.status.code(), Some(2), "{file:?}");
        assert!(stderr(&o).contains(message), "{}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_driver_is_exit_2_even_with_a_good_config() {
    let path = job_config("torchtune_llama3_1_8b_qlora.yaml");
    let o = check("no_driver.json", &["--job-config", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}
