//! `vramfit watch -- CMD`: the command runs while the recorded GPUs of
//! `tests/data/workstation.json` are sampled (test hook `VRAMFIT_FAKE_NVML`);
//! its exit code passes through, each GPU's peak is printed, signals reach
//! it, and it never outlives the companion.

#![cfg(unix)]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn watch() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vramfit"));
    command.arg("watch").env(
        "VRAMFIT_FAKE_NVML",
        format!("{}/tests/data/workstation.json", env!("CARGO_MANIFEST_DIR")),
    );
    command
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_exit_code_passes_through_and_the_peak_is_printed() {
    let o = watch()
        .args([
            "--interval",
            "10ms",
            "--",
            "sh",
            "-c",
            "echo from-child; sleep 0.3; exit 3",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // The command's output is its own; the companion reports on stderr.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "from-child\n");
    let err = stderr(&o);
    // GPU 0 reads 20.00, 22.00 then 23.50 GiB; GPU 1 stays at 1 GiB.
    assert!(
        err.contains("peak GPU 0 (NVIDIA GeForce RTX 4090): 23.50 GiB of 23.99 GiB (98.0%)"),
        "{err}"
    );
    assert!(
        err.contains("20.00 GiB in use before the command (+3.50 GiB)"),
        "{err}"
    );
    assert!(
        err.contains("peak GPU 1 (NVIDIA RTX A2000 12GB): 1.00 GiB"),
        "{err}"
    );
    assert!(err.contains("sh exited with code 3"), "{err}");
}

#[test]
fn a_missing_command_is_127_and_the_csv_logs_while_the_command_runs() {
    let o = watch()
        .args(["--", "vramfit-no-such-command"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).contains("cannot run vramfit-no-such-command"));

    let csv = std::env::temp_dir().join(format!("vramfit-watch-cmd-{}.csv", std::process::id()));
    let o = watch()
        .args(["--interval", "10ms", "--csv"])
        .arg(&csv)
        .args(["--", "sleep", "0.2"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::remove_file(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "time_s,gpu,used_bytes,total_bytes");
    // A header, then one row per GPU per sample (at least 3 samples in 0.2 s),
    // starting before the command.
    let rows = lines.len() - 1;
    assert!(rows >= 2 * 3, "{text}");
    assert!(lines[1].starts_with("0.000,0,21474836480,"), "{}", lines[1]);
}

#[test]
fn sigterm_to_the_companion_reaches_the_command() {
    let companion = watch()
        .args([
            "--interval",
            "10ms",
            "--",
            "sh",
            "-c",
            "trap 'exit 7' TERM; sleep 3 >/dev/null 2>&1 & wait",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-TERM", &companion.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    let o = companion.wait_with_output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    // The command's trap ran: its code, not a signal death of the companion.
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(stderr(&o).contains("peak GPU 0"));
}

#[cfg(target_os = "linux")]
#[test]
fn the_command_dies_with_a_killed_companion() {
    let pid_file = std::env::temp_dir().join(format!("vramfit-orphan-{}", std::process::id()));
    let script = format!("echo $$ > {}; exec sleep 30", pid_file.display());
    let mut companion = watch()
        .args(["--interval", "10ms", "--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let child_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    std::fs::remove_file(&pid_file).unwrap();
    // SIGKILL: no code of the companion runs; the kernel must end the command.
    companion.kill().unwrap();
    companion.wait().unwrap();
    let alive = || {
        std::fs::read_to_string(format!("/proc/{child_pid}/stat"))
            .is_ok_and(|stat| !stat.contains(") Z "))
    };
    let start = Instant::now();
    while alive() && start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "the command {child_pid} outlived the companion");
}

#[test]
fn a_sample_count_and_a_command_do_not_go_together() {
    let o = watch()
        .args(["--samples", "2", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--samples"), "{}", stderr(&o));
}
