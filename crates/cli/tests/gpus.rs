//! `vramfit gpus` and `vramfit watch` run as a user runs them: the built
//! binary, on the recorded fixtures of `tests/data/` (test hook
//! `VRAMFIT_FAKE_NVML`) and, for the no-GPU case, on this machine's real NVML.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const MIB: u64 = 1 << 20;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn vramfit(fixture_name: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vramfit"));
    command.args(args).env_remove("VRAMFIT_FAKE_NVML");
    if let Some(name) = fixture_name {
        command.env("VRAMFIT_FAKE_NVML", fixture(name));
    }
    command.output().expect("the vramfit binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A file in the temp directory unique to this test process and name.
fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("vramfit-test-{}-{name}", std::process::id()))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

/// Exit code 2, nothing on stdout, exactly one line on stderr containing `sentence`.
fn assert_one_sentence_failure(output: &Output, sentence: &str) {
    assert_eq!(output.status.code(), Some(2), "stderr: {}", stderr(output));
    assert!(output.stdout.is_empty(), "stdout: {}", stdout(output));
    let err = stderr(output);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("vramfit: ") && err.contains(sentence),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn gpus_on_this_machine_without_a_gpu_says_so_and_exits_2() {
    if Path::new("/proc/driver/nvidia").exists() {
        // A machine with the NVIDIA kernel driver: the real listing must work.
        let output = vramfit(None, &["gpus"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        return;
    }
    let output = vramfit(None, &["gpus"]);
    // No kernel driver: either the library is absent too (this build machine)
    // or it is installed without its kernel module.
    let err = stderr(&output);
    let sentence = if err.contains("driver is not loaded") {
        "the NVIDIA driver is not loaded"
    } else {
        "no NVIDIA driver/library found"
    };
    assert_one_sentence_failure(&output, sentence);
    assert_one_sentence_failure(&vramfit(None, &["gpus", "--json"]), sentence);
    assert_one_sentence_failure(&vramfit(None, &["watch", "--samples", "1"]), sentence);
}

#[test]
fn each_nvml_failure_is_one_sentence_and_exit_2() {
    let cases = [
        ("no_library.json", "no NVIDIA driver/library found"),
        ("no_driver.json", "the NVIDIA driver is not loaded"),
        (
            "no_permission.json",
            "no permission to talk to the NVIDIA driver",
        ),
        (
            "version_mismatch.json",
            "driver and libnvidia-ml.so.1 are different versions",
        ),
        ("no_devices.json", "reports no GPU"),
    ];
    for (name, sentence) in cases {
        assert_one_sentence_failure(&vramfit(Some(name), &["gpus"]), sentence);
        assert_one_sentence_failure(&vramfit(Some(name), &["gpus", "--json"]), sentence);
        let watch = vramfit(
            Some(name),
            &["watch", "--samples", "2", "--interval", "10ms"],
        );
        assert_one_sentence_failure(&watch, sentence);
    }
}

#[test]
fn a_broken_fixture_is_named() {
    let output = vramfit(Some("does_not_exist.json"), &["gpus"]);
    assert_one_sentence_failure(&output, "VRAMFIT_FAKE_NVML fixture: cannot read");
}

#[test]
fn a_fixture_with_a_short_sample_row_is_rejected() {
    let path = temp_path("short_row.json");
    let mut fixture = read_json(&fixture("two_a100_mig.json"));
    fixture["used_samples"] = serde_json::json!([[1, 2], [3]]);
    std::fs::write(&path, fixture.to_string()).expect("temp fixture written");
    let output = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(["watch", "--samples", "1"])
        .env("VRAMFIT_FAKE_NVML", &path)
        .output()
        .expect("vramfit runs");
    let _ = std::fs::remove_file(&path);
    assert_one_sentence_failure(&output, "used_samples[1] has 1 values for 2 devices");
}

#[test]
fn gpus_json_reports_every_field_and_the_catalog_match() {
    let output = vramfit(Some("workstation.json"), &["gpus", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let printed: Value = serde_json::from_str(&stdout(&output)).expect("stdout is JSON");
    let recorded = read_json(&fixture("workstation.json"));
    let printed = printed.as_array().expect("an array of devices");
    let recorded = recorded["devices"].as_array().expect("fixture devices");
    assert_eq!(printed.len(), recorded.len());
    for (device, expected) in printed.iter().zip(recorded) {
        // Every field the GPU reported comes out unchanged, unknowns as null.
        for (field, value) in expected.as_object().expect("device object") {
            assert_eq!(&device[field], value, "field {field}");
        }
    }
    // RTX 4090: 24564 MiB as nvidia-smi prints it; a plain integer.
    assert_eq!(printed[0]["memory_total_bytes"].as_u64(), Some(24564 * MIB));
    assert_eq!(printed[0]["catalog_id"], "rtx-4090");
    // The RTX A2000 12GB is not in the catalog; its UUID query is unsupported.
    assert!(printed[1]["catalog_id"].is_null());
    assert!(printed[1]["uuid"].is_null());
    assert!(printed[0]["mig_enabled"].is_null());
    assert!(printed[0]["processes"][1]["name"].is_null());
}

#[test]
fn gpus_json_is_what_the_web_paste_and_link_read() {
    use vramfit_core::inventory::{Card, Inventory};
    let output = vramfit(Some("workstation.json"), &["gpus", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let inventory = Inventory::parse(&stdout(&output)).expect("the core reads it back");
    assert_eq!(inventory.gpus.len(), 2);
    assert_eq!(
        inventory.gpus[1].device.memory_total_bytes,
        Some(12282 * MIB)
    );
    // The 4090 is the one catalog card; the RTX A2000 12GB is not in the catalog.
    let machine = inventory.machine_gpus().expect("a card to name");
    assert_eq!(
        (machine.card, machine.count),
        (Card::Catalog("rtx-4090".into()), 1)
    );
}

#[test]
fn gpus_table_shows_mig_processes_and_unknowns() {
    let output = vramfit(Some("two_a100_mig.json"), &["gpus"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("NVIDIA driver 535.129.03, CUDA 12.2")
    );
    let rows: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("NVIDIA A100-SXM4-80GB"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in &rows {
        assert!(
            row.contains("a100-sxm4-80gb") && row.contains("8.0"),
            "{row}"
        );
    }
    // GPU 0: 41472 MiB = 40.50 GiB used of 81920 MiB = 80.00 GiB, 50.6% -> 51%.
    assert!(
        rows[0].starts_with('0') && rows[0].contains("40.50 GiB / 80.00 GiB (51%)"),
        "{}",
        rows[0]
    );
    assert!(rows[0].trim_end().ends_with("off"), "{}", rows[0]);
    assert!(
        rows[1].starts_with('1') && rows[1].trim_end().ends_with("on"),
        "{}",
        rows[1]
    );
    // python3 holds 40960 MiB = 40.00 GiB; GPU 1's list is unreadable under MIG.
    assert!(
        text.contains("pid 48213") && text.contains("python3") && text.contains("40.00 GiB"),
        "{text}"
    );
    assert_eq!(text.matches("processes: unknown").count(), 1, "{text}");
    assert!(
        text.contains("uuid GPU-3f1c9c2e-7a55-4b1e-9d0a-5c2f8e6b1a01"),
        "{text}"
    );
}

#[test]
fn gpus_table_with_unsupported_fields() {
    let output = vramfit(Some("workstation.json"), &["gpus"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("uuid unknown"), "{text}");
    assert!(text.contains("processes: none"), "{text}");
    // A process whose name NVML could not read.
    assert!(
        text.lines()
            .any(|l| l.contains("pid 9120") && l.contains("unknown")),
        "{text}"
    );
    // The A2000 row has no catalog id ("-") and MIG is not applicable.
    let a2000 = text
        .lines()
        .find(|l| l.contains("RTX A2000"))
        .expect("A2000 row");
    assert!(
        a2000.contains(" - ") && a2000.trim_end().ends_with("n/a"),
        "{a2000}"
    );
}

/// Parses the CSV: header, then (time_s, gpu, used_bytes, total_bytes) rows.
fn read_csv(path: &Path) -> (String, Vec<(f64, u32, u64, u64)>) {
    let text = std::fs::read_to_string(path).expect("CSV written");
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let rows = lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells.len(), 4, "{line}");
            (
                cells[0].parse().expect("time_s"),
                cells[1].parse().expect("gpu"),
                cells[2].parse().expect("used_bytes"),
                cells[3].parse().expect("total_bytes"),
            )
        })
        .collect();
    (header, rows)
}

#[test]
fn watch_logs_every_gpu_every_sample_and_summarizes() {
    let csv = temp_path("two_a100.csv");
    let csv_arg = csv.to_string_lossy().into_owned();
    let output = vramfit(
        Some("two_a100_mig.json"),
        &[
            "watch",
            "--samples",
            "4",
            "--interval",
            "10ms",
            "--csv",
            &csv_arg,
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let (header, rows) = read_csv(&csv);
    let _ = std::fs::remove_file(&csv);
    assert_eq!(header, "time_s,gpu,used_bytes,total_bytes");
    // 4 samples x 2 GPUs; the fixture has 3 sample rows, the 4th repeats the last.
    let fixture = read_json(&fixture("two_a100_mig.json"));
    let recorded = fixture["used_samples"].as_array().expect("used_samples");
    assert_eq!(rows.len(), 8);
    for (position, row) in rows.iter().enumerate() {
        let sample = (position / 2).min(recorded.len() - 1);
        let gpu = position % 2;
        assert_eq!(row.1 as usize, gpu);
        assert_eq!(
            Some(row.2),
            recorded[sample][gpu].as_u64(),
            "row {position}"
        );
        assert_eq!(row.3, 81920 * MIB);
    }
    assert!(
        rows.windows(2).all(|pair| pair[0].0 <= pair[1].0),
        "time goes forward"
    );
    // Four samples 10 ms apart take well under 10 s even on a loaded machine.
    assert!(rows.iter().all(|row| (0.0..10.0).contains(&row.0)));

    let text = stdout(&output);
    // GPU 0 went 41472 -> 43520 -> 45568 -> 45568 MiB: 40.50, 44.50 GiB.
    assert!(
        text.contains(
            "GPU 0: used min 40.50 GiB, max 44.50 GiB, last 44.50 GiB of 80.00 GiB; growth +"
        ),
        "{text}"
    );
    // GPU 1 stayed at 22 MiB: zero growth.
    assert!(text.contains("GPU 1: used min 22.00 MiB, max 22.00 MiB, last 22.00 MiB of 80.00 GiB; growth +0.0 MiB/min"), "{text}");
    // Not a terminal: one timestamped line per GPU per sample, with a bar.
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("GPU 0 NVIDIA A100-SXM4-80GB"))
            .count(),
        4,
        "{text}"
    );
    assert!(text.contains("[###"), "{text}");
}

#[test]
fn watch_warns_once_when_a_gpu_crosses_the_threshold() {
    let output = vramfit(
        Some("workstation.json"),
        &["watch", "--samples", "3", "--interval", "10ms"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    // RTX 4090: 22528 of 24564 MiB = 91.7% on sample 2, 24064 MiB = 98.0% on
    // sample 3 (still above, so no second warning). The A2000 stays at 8.3%.
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(err.contains("warning: GPU 0 uses 91.7%"), "{err}");
    let quiet = vramfit(
        Some("workstation.json"),
        &[
            "watch",
            "--samples",
            "3",
            "--interval",
            "10ms",
            "--threshold",
            "99",
        ],
    );
    assert!(quiet.status.success());
    assert!(!stderr(&quiet).contains("warning"), "{}", stderr(&quiet));
}

#[test]
fn watch_rejects_bad_flags_naming_them() {
    let cases: [(&[&str], &str); 4] = [
        (&["watch", "--threshold", "0"], "threshold:"),
        (&["watch", "--samples", "0"], "samples:"),
        (&["watch", "--interval", "5ms"], "interval:"),
        (&["watch", "--interval", "soon"], "interval:"),
    ];
    for (args, field) in cases {
        let output = vramfit(Some("two_a100_mig.json"), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains(field),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let output = vramfit(
        Some("two_a100_mig.json"),
        &[
            "watch",
            "--samples",
            "1",
            "--csv",
            "/nonexistent-dir/vramfit/log.csv",
        ],
    );
    assert_one_sentence_failure(
        &output,
        "--csv /nonexistent-dir/vramfit/log.csv: cannot write",
    );
}

#[test]
fn watch_stops_on_ctrl_c_with_a_summary() {
    let csv = temp_path("ctrl_c.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(["watch", "--interval", "20ms", "--csv"])
        .arg(&csv)
        .env("VRAMFIT_FAKE_NVML", fixture("two_a100_mig.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vramfit starts");
    // Wait for at least one logged sample, then interrupt.
    let started = Instant::now();
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no sample logged"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("vramfit ends");
    let (_, rows) = read_csv(&csv);
    let _ = std::fs::remove_file(&csv);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("summary:") && text.contains("GPU 1: used min"),
        "{text}"
    );
    assert!(
        rows.len() >= 2 && rows.len() % 2 == 0,
        "{} rows",
        rows.len()
    );
}
