//! The headline: the estimator against measured runs of real frameworks.
//!
//! Cases: `tests/data/groundtruth/cases.jsonl` (provenance in the README
//! beside it). Targets from the product's accuracy goal: on high- and
//! medium-reliability cases, median |error| ≤ 5 %, p90 ≤ 15 %, weights-only
//! and KV-per-token cases within 1 %, every bound case right, at most 5 %
//! of the cases unsupported.

use vramfit_core::cases::{parse_cases, score_case, summarize, Case, CaseScore, Status};

fn cases() -> Vec<Case> {
    let text = include_str!("data/groundtruth/cases.jsonl");
    parse_cases(text)
        .into_iter()
        .map(|c| c.expect("every line of cases.jsonl parses"))
        .collect()
}

fn scored(filter: impl Fn(&Case) -> bool) -> Vec<CaseScore> {
    cases()
        .iter()
        .filter(|c| filter(c))
        .map(score_case)
        .collect()
}

fn trusted(c: &Case) -> bool {
    c.reliability == "high" || c.reliability == "medium"
}

#[test]
fn median_and_p90_error_on_trusted_cases() {
    let scores = scored(trusted);
    let s = summarize(&scores);
    let median = s.median_abs_rel_error.expect("some cases scored");
    let p90 = s.p90_abs_rel_error.expect("some cases scored");
    for c in &scores {
        if let Some(e) = c.rel_error {
            eprintln!("{:<28} {:<22} {:+7.1}%", c.id, c.metric, e * 100.0);
        }
    }
    eprintln!("summary: {s:?}");
    assert!(median <= 0.05, "median |error| {:.1}% > 5%", median * 100.0);
    assert!(p90 <= 0.15, "p90 |error| {:.1}% > 15%", p90 * 100.0);
}

#[test]
fn weights_and_kv_per_token_within_one_percent() {
    let scores = scored(|c| {
        trusted(c)
            && matches!(
                c.measured.metric.as_str(),
                "weights_only" | "kv_bytes_per_token"
            )
    });
    assert!(
        scores.len() >= 20,
        "expected the vLLM weight/KV cases, got {}",
        scores.len()
    );
    for s in &scores {
        let e = s.rel_error.unwrap_or(f64::INFINITY);
        assert!(
            e.abs() <= 0.01,
            "{} {}: error {:+.2}%",
            s.id,
            s.metric,
            e * 100.0
        );
    }
}

#[test]
fn trusted_bound_cases_are_right() {
    let scores = scored(|c| trusted(c) && c.measured.metric.ends_with("_bound"));
    for s in &scores {
        assert_eq!(s.status, Status::BoundPass, "{}: {:?}", s.id, s.reason);
    }
}

#[test]
fn bound_cases_mostly_right_at_any_reliability() {
    // Low-reliability bounds (OOM rows, capacity claims) are reported; one
    // miss is tolerated among them: litgpt-res-066 failed inside cuBLAS
    // initialization with an estimate 2% under the card, a margin within the
    // CUDA context's spread between driver versions.
    let scores = scored(|c| c.measured.metric.ends_with("_bound"));
    let passed = scores
        .iter()
        .filter(|s| s.status == Status::BoundPass)
        .count();
    for s in &scores {
        eprintln!("{} {:?} estimate {:?}", s.id, s.status, s.estimate_bytes);
    }
    assert!(scores.len() >= 6);
    assert!(
        passed + 1 >= scores.len(),
        "{passed}/{} bound cases right",
        scores.len()
    );
}

#[test]
fn few_cases_are_unsupported_and_each_says_why() {
    let scores = scored(trusted);
    let unsupported: Vec<_> = scores
        .iter()
        .filter(|s| s.status == Status::Unsupported)
        .collect();
    for s in &unsupported {
        let reason = s.reason.as_deref().unwrap_or("");
        assert!(!reason.is_empty(), "{} unsupported without a reason", s.id);
        assert!(
            s.estimate_bytes.is_none(),
            "{} unsupported but guessed",
            s.id
        );
    }
    assert!(
        unsupported.len() * 20 <= scores.len(),
        "{} of {} cases unsupported (> 5%)",
        unsupported.len(),
        scores.len()
    );
}

/// Runs measured on an H100 80GB with the project's harness
/// (`data/groundtruth/h100_measured.jsonl`, provenance in the README there):
/// cases the estimator was not calibrated on when they were measured. The
/// live-tensor peak is held tight; the allocator's cache and NVML's "used"
/// add fragmentation the estimator models only on average (see the README).
#[test]
fn h100_measured_runs() {
    let scores = scored_file(
        include_str!("data/groundtruth/h100_measured.jsonl"),
        "h100_measured.jsonl",
    );
    assert!(scores.len() >= 390, "{} H100 cases", scores.len());
    let errors = |metric: &str| sorted_errors(&scores, metric);
    let allocated = errors("peak_allocated");
    assert!(
        allocated.len() >= 120,
        "{} allocated cases",
        allocated.len()
    );
    let (median, p90) = median_p90(&allocated);
    eprintln!("peak_allocated: median {median:.4}, p90 {p90:.4}");
    assert!(median <= 0.01, "peak_allocated median |error| {median:.3}");
    assert!(p90 <= 0.08, "peak_allocated p90 |error| {p90:.3}");
    let s = summarize(&scores);
    let all_median = s.median_abs_rel_error.expect("scored");
    assert!(
        all_median <= 0.04,
        "all metrics: median |error| {all_median:.3}"
    );
    for metric in ["weights_only", "kv_bytes_per_token"] {
        for e in errors(metric) {
            assert!(e <= 0.001, "{metric} off by {e}");
        }
    }
    // Reserved with fixed segments: the stranded logits block, the blocks
    // the gradients outgrow (training/reuse.rs) or a share of the per-step
    // tensors (overhead.rs). With a quarter of the per-step tensors and no
    // block this was 5.0 % and 16 %; with the block and a tenth, 3.4 % and
    // 11.7 %; then 2.3 % and 7.2 %; with gelu_new's fp32 chain under
    // autocast, 2.1 % and 7.2 %.
    let (median, p90) = median_p90(&errors("peak_reserved"));
    eprintln!("peak_reserved: median {median:.4}, p90 {p90:.4}");
    assert!(median <= 0.03, "peak_reserved median |error| {median:.3}");
    assert!(p90 <= 0.09, "peak_reserved p90 |error| {p90:.3}");
}

/// GPT-2's Python GELU under autocast: `torch.pow` is on autocast's fp32
/// list, so the chain from the cube on saves fp32 tensors. What AMP adds
/// over pure bf16 on the same GPT-2 run (8 × 1024, no checkpointing),
/// estimated against measured: it was 48 % short of the measured 2.90 GiB
/// with the chain counted in 16 bits, now 10 % over.
#[test]
fn python_gelu_under_autocast() {
    let scores = scored_file(
        include_str!("data/groundtruth/h100_measured.jsonl"),
        "h100_measured.jsonl",
    );
    let bytes = |id: &str| {
        let s = scores
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("{id}"));
        (
            s.estimate_bytes.expect("estimated") as f64,
            s.measured_bytes.expect("measured") as f64,
        )
    };
    let (amp, pure) = (
        bytes("vfm-h100-gpt2-full-ampbf16-adamw-mb8-s1024-nogc-sdpa-alloc"),
        bytes("vfm-h100-gpt2-full-bf16-adamw-mb8-s1024-nogc-sdpa-alloc"),
    );
    let (estimated, measured) = (amp.0 - pure.0, amp.1 - pure.1);
    let err = estimated / measured - 1.0;
    eprintln!(
        "AMP over bf16: est {estimated} measured {measured} ({:+.1}%)",
        err * 100.0
    );
    assert!(err.abs() <= 0.12, "AMP over bf16: {:+.1}%", err * 100.0);
}

/// One rank of FSDP1/FSDP2 and DeepSpeed ZeRO jobs measured on an H100
/// under PyTorch's fake process group (`data/sharded/sharded_cases.jsonl`,
/// written from `sharded.jsonl` by `to_cases.py`; README there), read
/// through the case translator as any measured run: the live-tensor peak
/// within 1 % on every run. Peak reserved was median 5.8 %, p90 13.3 %
/// before FSDP's stream pools were counted (`training/sharded.rs`; the 8B
/// FSDP2 run −24 %), and ZeRO-3's flat reduce bucket on its own stream;
/// now 1.3 % and 6.3 %, every run within 8 % (ZeRO-3's 8B run with
/// everything offloaded the worst, −7.6 %).
#[test]
fn sharded_runs_through_the_case_translator() {
    let scores = scored_file(
        include_str!("data/sharded/sharded_cases.jsonl"),
        "sharded_cases.jsonl",
    );
    assert!(scores.len() >= 40, "{} sharded cases", scores.len());
    let allocated = sorted_errors(&scores, "peak_allocated");
    assert_eq!(allocated.len(), 20, "every run scored");
    let worst = allocated.last().copied().unwrap_or(1.0);
    assert!(worst <= 0.01, "peak_allocated worst |error| {worst:.4}");
    let reserved = sorted_errors(&scores, "peak_reserved");
    let (median, p90) = median_p90(&reserved);
    eprintln!("sharded peak_reserved: median {median:.4}, p90 {p90:.4}");
    assert!(median <= 0.02, "peak_reserved median |error| {median:.3}");
    assert!(p90 <= 0.07, "peak_reserved p90 |error| {p90:.3}");
    let worst = reserved.last().copied().unwrap_or(1.0);
    assert!(worst <= 0.08, "peak_reserved worst |error| {worst:.4}");
}

/// Every case of a JSONL file, scored.
fn scored_file(text: &str, name: &str) -> Vec<CaseScore> {
    parse_cases(text)
        .into_iter()
        .map(|c| score_case(&c.unwrap_or_else(|e| panic!("a line of {name}: {e}"))))
        .collect()
}

/// The |relative errors| of one metric's scored cases, smallest first.
fn sorted_errors(scores: &[CaseScore], metric: &str) -> Vec<f64> {
    let mut e: Vec<f64> = scores
        .iter()
        .filter(|s| s.metric == metric)
        .filter_map(|s| s.rel_error.map(f64::abs))
        .collect();
    e.sort_by(f64::total_cmp);
    e
}

fn median_p90(sorted: &[f64]) -> (f64, f64) {
    (sorted[sorted.len() / 2], sorted[sorted.len() * 9 / 10])
}

/// The same harness with `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`
/// (`data/groundtruth/h100_expandable_segments.jsonl`): one growing segment,
/// so what is reserved beyond the live tensors is the freed 16-bit logits'
/// block alone. Estimated as fixed segments, reserved was 12.7 % high at the
/// median and 17 % at p90.
#[test]
fn h100_expandable_segment_runs() {
    let scores = scored_file(
        include_str!("data/groundtruth/h100_expandable_segments.jsonl"),
        "h100_expandable_segments.jsonl",
    );
    assert!(scores.len() >= 150, "{} cases", scores.len());
    let reserved = sorted_errors(&scores, "peak_reserved");
    assert!(reserved.len() >= 50, "{} reserved cases", reserved.len());
    let (median, p90) = median_p90(&reserved);
    eprintln!("expandable peak_reserved: median {median:.4}, p90 {p90:.4}");
    assert!(median <= 0.015, "peak_reserved median |error| {median:.3}");
    assert!(p90 <= 0.08, "peak_reserved p90 |error| {p90:.3}");
}
