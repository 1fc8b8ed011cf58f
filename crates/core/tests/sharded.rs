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

/// Each run's peak-allocated score, by run id.
fn allocated() -> Vec<(String, CaseScore)> {
    parse_cases(include_str!("data/sharded/sharded_cases.jsonl"))
        .into_iter()
        .map(|c| score_case(&c.expect("a case")))
        .filter(|s| s.metric == "peak_allocated")
        .map(|s| {
            let run = s.id["vfm-h100-sharded-".len()..s.id.len() - "-alloc".len()].to_string();
            (run, s)
        })
        .collect()
}

/// Each mechanism on its own: what one setting changes, estimated against
/// measured, so a run right only by compensating errors fails.
#[test]
fn what_each_setting_changes_matches_the_measured_difference() {
    let all = allocated();
    assert_eq!(all.len(), 20, "every run");
    let bytes = |id: &str| {
        let s = &all
            .iter()
            .find(|(run, _)| run == id)
            .unwrap_or_else(|| panic!("{id}"))
            .1;
        (
            s.estimate_bytes.expect("estimated") as f64,
            s.measured_bytes.expect("measured") as f64,
        )
    };
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
        let ((ea, ma), (eb, mb)) = (bytes(a), bytes(b));
        let (e, m) = (ea - eb, ma - mb);
        let err = e / m - 1.0;
        eprintln!("{a} - {b}: est {e} measured {m} ({:+.1}%)", err * 100.0);
        assert!(
            err.abs() <= 0.05,
            "{a} - {b}: est {e} vs measured {m} ({:+.1}%)",
            err * 100.0
        );
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
