//! One rank of a sharded training job against what one H100 measured
//! (`tests/data/sharded/`: `measure_sharded.py`, torch 2.11.0+cu130,
//! transformers 5.17.0, DeepSpeed 0.19.8; README there). The GPU stood for
//! rank 0 of a world of N under PyTorch's fake process group, whose
//! collectives launch nothing while the frameworks allocate every buffer a
//! real rank does. The runs are read as measured cases
//! (`sharded_cases.jsonl`) through the case translator, as `vramfit score`
//! reads them; `tests/accuracy.rs` holds every run within 1 %.

mod common;

use common::json_lines;
use vramfit_core::cases::{parse_cases, score_case, CaseScore};

/// Each run's score of one metric (`alloc` or `reserved`), by run id.
fn scores(metric: &str) -> Vec<(String, CaseScore)> {
    let suffix = format!("-{metric}");
    parse_cases(include_str!("data/sharded/sharded_cases.jsonl"))
        .into_iter()
        .map(|c| score_case(&c.expect("a case")))
        .filter(|s| s.id.ends_with(&suffix))
        .map(|s| {
            let run = s.id["vfm-h100-sharded-".len()..s.id.len() - suffix.len()].to_string();
            (run, s)
        })
        .collect()
}

/// Estimated and measured bytes of one run's score.
fn bytes(all: &[(String, CaseScore)], id: &str) -> (f64, f64) {
    let s = &all
        .iter()
        .find(|(run, _)| run == id)
        .unwrap_or_else(|| panic!("{id}"))
        .1;
    (
        s.estimate_bytes.expect("estimated") as f64,
        s.measured_bytes.expect("measured") as f64,
    )
}

/// The estimated against the measured difference between two runs.
fn difference_error(all: &[(String, CaseScore)], a: &str, b: &str) -> f64 {
    let ((ea, ma), (eb, mb)) = (bytes(all, a), bytes(all, b));
    let (e, m) = (ea - eb, ma - mb);
    eprintln!(
        "{a} - {b}: est {e} measured {m} ({:+.1}%)",
        (e / m - 1.0) * 100.0
    );
    e / m - 1.0
}

/// Each mechanism on its own: what one setting changes, estimated against
/// measured, so a run right only by compensating errors fails.
#[test]
fn what_each_setting_changes_matches_the_measured_difference() {
    let all = scores("alloc");
    assert_eq!(all.len(), 20, "every run");
    let pairs = [
        // DeepSpeed's 5e8-element bucket against the Trainer's h²
        ("ds-z3-w8", "ds-z3-w8-auto"),
        // the optimizer's fp32 partitions, states and gradients to the CPU
        ("ds-z3-w8", "ds-z3-w8-offopt"),
        // FSDP2: a world of 2 against 8 (the shards)
        ("fsdp2-titan-w2-ac", "fsdp2-titan-w8-ac"),
        // torchtitan's fp32 shards against torchtune's bf16 ones
        ("fsdp2-titan-w8-ac", "fsdp2-bf16-w8-ac"),
        // FSDP2's CPU offload
        ("fsdp2-bf16-w8-ac", "fsdp2-bf16-w8-ac-cpuoffload"),
        // per-op SAC against full checkpointing under FSDP2
        ("fsdp2-titan-w8-op", "fsdp2-titan-w8-ac"),
    ];
    for (a, b) in pairs {
        let err = difference_error(&all, a, b);
        assert!(err.abs() <= 0.05, "{a} - {b}: {:+.1}%", err * 100.0);
    }
}

/// FSDP2's reduce-scatter outputs (the gradient shards) are cached for its
/// reduce-scatter stream, beside everything the compute stream caches: the
/// reserved bytes grow by them as the world shrinks, and the 8B run's root
/// reduce-scatter input, 16 KiB larger than the loss's freed blocks, takes
/// a segment of its own.
#[test]
fn fsdp_reserves_its_streams_pools() {
    let all = scores("reserved");
    for (a, b) in [
        ("fsdp2-titan-w1-nccl-ac", "fsdp2-titan-w8-ac"),
        ("fsdp2-titan-w2-ac", "fsdp2-titan-w8-ac"),
        ("fsdp2-titan-8b-w8-ac", "fsdp2-titan-w8-ac"),
    ] {
        let err = difference_error(&all, a, b);
        assert!(err.abs() <= 0.10, "{a} - {b}: {:+.1}%", err * 100.0);
    }
    for (run, s) in all.iter().filter(|(run, _)| run.starts_with("fsdp")) {
        let err = s.rel_error.expect("scored");
        assert!(err.abs() <= 0.05, "{run}: reserved {:+.1}%", err * 100.0);
    }
}

/// At a world of one, PyTorch's fake process group allocated what NCCL's
/// did, to the byte: the method the other rows rest on.
#[test]
fn the_fake_group_allocates_what_nccl_does() {
    let rows = json_lines("sharded/sharded.jsonl");
    let row = |id: &str| &rows.iter().find(|(r, _)| r["id"] == id).expect(id).0;
    let (fake, nccl) = (row("fsdp2-titan-w1-fake-ac"), row("fsdp2-titan-w1-nccl-ac"));
    for k in ["peak_allocated", "peak_reserved", "start_allocated"] {
        assert_eq!(fake[k], nccl[k], "{k}");
    }
}
