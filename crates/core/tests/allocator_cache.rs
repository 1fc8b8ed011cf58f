//! What the caching allocator keeps reserved beyond the live tensors of a
//! training step: the freed 16-bit logits' block the loss's fp32 gradients
//! do not fit in, and, with fixed segments only, a share of the per-step
//! tensors left in split segments (`overhead.rs`). The whole-run accuracy on
//! measured H100 runs with and without expandable segments is in
//! `accuracy.rs`.

use vramfit_core::cases::{case_scenario, parse_cases};
use vramfit_core::estimate::estimate;
use vramfit_core::plan::{fix_plans, PlanOptions, TechniqueId};
use vramfit_core::precision::TrainingPrecision;
use vramfit_core::report::{Estimate, Part};
use vramfit_core::scenario::{Framework, ModelSource, Scenario, TaskKind};

/// Llama-3.2-1B full fine-tune under transformers: V = 128256.
fn llama_step(micro_batch: u64, seq_len: u64) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.2-1B".into()),
        task: TaskKind::Training,
        empty_cache_after_load: true,
        ..Scenario::default()
    };
    sc.training.framework = Framework::Transformers;
    sc.training.micro_batch = micro_batch;
    sc.training.seq_len = seq_len;
    sc
}

fn part(report: &Estimate, part: Part) -> u64 {
    report.gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == part)
        .map(|l| l.bytes)
        .sum()
}

fn slack(sc: &Scenario) -> u64 {
    part(&estimate(sc).expect("estimates"), Part::AllocatorSlack)
}

#[test]
fn expandable_segments_keep_only_the_freed_logits_block() {
    for (b, s) in [(1, 512), (4, 1024), (2, 4096)] {
        let mut sc = llama_step(b, s);
        sc.expandable_segments = true;
        // bf16 logits of b × s tokens over the 128256-token vocabulary.
        assert_eq!(slack(&sc), 2 * b * s * 128_256, "b {b} s {s}");
    }
}

#[test]
fn fixed_segments_add_a_twentieth_of_the_per_step_tensors() {
    let sc = llama_step(4, 1024);
    let mut expandable = sc.clone();
    expandable.expandable_segments = true;
    let report = estimate(&sc).expect("estimates");
    let per_step = part(&report, Part::Activations)
        + part(&report, Part::LogitsLoss)
        + part(&report, Part::OptimizerStep);
    assert_eq!(slack(&sc) - slack(&expandable), per_step * 5 / 100);
    // Expandable segments move reserved, never the live tensors.
    assert_eq!(
        report.gpus[0].peak_allocated_bytes,
        estimate(&expandable).expect("estimates").gpus[0].peak_allocated_bytes
    );
}

/// The measured Llama-3-8B SGD step at 1 × 2048 tokens, no checkpointing
/// (`h100_measured.jsonl`: 30.28 GiB allocated, 40.16 GiB reserved).
fn llama3_sgd_step() -> (Scenario, u64) {
    let id = "vfm-h100-llama3-8b-full-bf16-sgd-mb1-s2048-nogc-sdpa-reserved";
    let case = parse_cases(include_str!("data/groundtruth/h100_measured.jsonl"))
        .into_iter()
        .map(|c| c.expect("parses"))
        .find(|c| c.id == id)
        .expect("the case");
    (
        case_scenario(&case).expect("translates"),
        case.measured.bytes.expect("measured bytes"),
    )
}

fn cache_formula(report: &Estimate) -> String {
    report.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::AllocatorSlack)
        .map(|l| l.formula.clone())
        .unwrap_or_default()
}

#[test]
fn gradients_larger_than_the_freed_blocks_take_new_segments() {
    // An MLP projection's gradient, 4096 × 14336 in bf16 (117 MB), fits
    // in no b·s·i activation block of 2048 × 14336 × 2 B (59 MB): the
    // freed activations stay cached beside the gradients' new segments.
    let (sc, measured) = llama3_sgd_step();
    let report = estimate(&sc).expect("estimates");
    let g = &report.gpus[0];
    assert!(cache_formula(&report).contains("new segments"));
    let error = g.peak_reserved_bytes as f64 / measured as f64 - 1.0;
    assert!(error.abs() < 0.03, "reserved off by {error:.3}");
    // The cache alone is about a third of what is allocated at the peak.
    let cache = g.peak_reserved_bytes - g.peak_allocated_bytes;
    assert!(cache > g.peak_allocated_bytes / 5, "cache {cache}");
    // Eight sequences make every activation block 470 MB: the gradients
    // fit in them, and the cache is the split-segment share again.
    let mut wide = sc.clone();
    wide.training.micro_batch = 8;
    let wide = estimate(&wide).expect("estimates");
    assert!(!cache_formula(&wide).contains("new segments"));
    let g = &wide.gpus[0];
    assert!(g.peak_reserved_bytes - g.peak_allocated_bytes < cache);
    // Expandable segments map freed pages to any size: no such cache.
    let mut expandable = sc;
    expandable.expandable_segments = true;
    assert!(!cache_formula(&estimate(&expandable).expect("estimates")).contains("new segments"));
}

#[test]
fn the_cache_never_falls_as_the_batch_grows() {
    // From 1 to 2 sequences the MLP gradients come to fit in the b·s·i
    // blocks (117 MB at 2 × 2048): the estimate keeps what the run just
    // short of that needed, so the solver's search over batches holds.
    let (sc, _) = llama3_sgd_step();
    let mut last = 0;
    for (b, s) in [
        (1, 2048),
        (1, 3000),
        (1, 4095),
        (2, 2048),
        (2, 2100),
        (3, 2048),
    ] {
        let mut run = sc.clone();
        run.training.micro_batch = b;
        run.training.seq_len = s;
        let used = estimate(&run).expect("estimates").gpus[0].device_used_bytes;
        assert!(used >= last, "b {b} s {s}: {used} < {last}");
        last = used;
    }
}

#[test]
fn no_logits_block_where_the_loss_does_not_free_16_bit_logits() {
    let mut fp32 = llama_step(2, 1024);
    fp32.training_precision = TrainingPrecision::Fp32;
    fp32.expandable_segments = true;
    assert_eq!(slack(&fp32), 0, "fp32: float() is the same tensor");
    let mut chunked = llama_step(2, 1024);
    chunked.training.chunked_loss = true;
    chunked.expandable_segments = true;
    assert_eq!(
        slack(&chunked),
        0,
        "a chunked loss never holds whole logits"
    );
    let mut litgpt = llama_step(2, 1024);
    litgpt.training.framework = Framework::Litgpt;
    litgpt.expandable_segments = true;
    assert_eq!(slack(&litgpt), 0, "litgpt's loss runs in bf16 chunks");
}

#[test]
fn loading_blocks_stay_with_expandable_segments() {
    let mut kept = llama_step(1, 512);
    kept.expandable_segments = true;
    let mut released = kept.clone();
    kept.empty_cache_after_load = false;
    released.empty_cache_after_load = true;
    // Two copies of the largest tensor, the 128256 × 2048 bf16 embedding.
    assert_eq!(slack(&kept) - slack(&released), 2 * 128_256 * 2048 * 2);
}

#[test]
fn cases_read_the_allocator_configuration() {
    let line = |framework: &str, version: &str| {
        format!(
            r#"{{"id":"x","source":{{"repo":"r","file":"f","version":"{version}","quote":"q"}},"reliability":"high","inferred":[],"framework":"{framework}","model":{{"name":"meta-llama/Llama-3.2-1B","arch":"llama","params":1235814400,"layers":16,"hidden":2048,"heads":32,"kv_heads":8,"head_dim":64,"intermediate":8192,"vocab":128256,"tied_embeddings":true}},"task":"training","precision":{{"weights":"bf16","compute":"bf16","mixed_precision":"pure"}},"training":{{"method":"full","optimizer":"adamw","micro_batch":1,"grad_accum":1,"seq_len":512,"gradient_checkpointing":"off"}},"inference":null,"attention":"sdpa","parallel":{{"gpus":1,"strategy":"none","tp":1,"pp":1,"offload":"none"}},"gpu":{{"name":"H100","memory_bytes":85520809984}},"measured":{{"metric":"peak_reserved","bytes":1,"as_published":"1","includes_cuda_context":false}},"caveats":""}}"#
        )
    };
    let expandable = |framework: &str, version: &str| {
        let case = parse_cases(&line(framework, version))
            .pop()
            .expect("one line")
            .expect("parses");
        case_scenario(&case)
            .expect("translates")
            .expandable_segments
    };
    assert!(expandable(
        "transformers",
        "torch 2.11; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    ));
    assert!(!expandable("transformers", "torch 2.11"));
    // torchtitan's run_train.sh sets it for every run.
    assert!(expandable("torchtitan", "commit abc"));
}

#[test]
fn the_planner_offers_expandable_segments_when_the_cache_decides() {
    // A card with room for the live tensors and half the split segments:
    // the allocator can free whole free segments (the freed logits block)
    // but not split ones, so the run does not fit with fixed segments and
    // does with expandable ones: the exact change is offered.
    let mut sc = llama_step(8, 1024);
    let report = estimate(&sc).expect("estimates");
    let g = &report.gpus[0];
    let used = g.device_used_bytes;
    let live = used - (g.peak_reserved_bytes - g.peak_allocated_bytes);
    let mut expandable = sc.clone();
    expandable.expandable_segments = true;
    let relieved = estimate(&expandable).expect("estimates").gpus[0].device_used_bytes;
    assert!(relieved < used);
    let split = used - relieved;
    sc.gpu.memory_bytes = Some(live + split / 2);
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    let first = report.plans.first().expect("a plan");
    assert_eq!(first.changes.len(), 1);
    assert_eq!(first.changes[0].id, TechniqueId::ExpandableSegments);
}
