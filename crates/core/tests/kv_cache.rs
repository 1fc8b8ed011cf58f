//! transformers' KV caches: the default DynamicCache grows one token at a
//! time (torch.cat: a layer's old and new copy coexist), a StaticCache
//! (`cache_implementation="static"`) is allocated for prompt + new tokens
//! before the prefill and never grows.

use vramfit_core::estimate::estimate;
use vramfit_core::report::Part;
use vramfit_core::scenario::{ModelSource, Scenario};

/// Llama-3.2-1B generating `new` tokens after a `prompt` for `batch` sequences.
fn llama_1b(batch: u64, prompt: u64, new: u64) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.2-1B".into()),
        ..Scenario::default()
    };
    sc.inference.batch = batch;
    sc.inference.prompt_len = prompt;
    sc.inference.new_tokens = new;
    sc
}

fn generate(static_cache: bool) -> vramfit_core::report::Estimate {
    let mut sc = llama_1b(4, 2048, 512);
    sc.inference.static_cache = static_cache;
    estimate(&sc).expect("estimates")
}

#[test]
fn a_static_cache_holds_every_token_from_the_prefill_on() {
    let (dynamic, fixed) = (generate(false), generate(true));
    let kv = |e: &vramfit_core::report::Estimate| {
        e.gpus[0]
            .lines
            .iter()
            .find(|l| l.part == Part::KvCache)
            .expect("kv")
            .bytes
    };
    // Same cache at the end: 4 × 2560 tokens × 16 layers × 2 × 8 heads × 64 × 2 B.
    assert_eq!(kv(&dynamic), 4 * 2560 * 16 * 2 * 8 * 64 * 2);
    assert_eq!(kv(&dynamic), kv(&fixed));
    // The prefill of a static cache runs over the whole cache: its peak is
    // the cache plus the prefill's working set, above the dynamic one's.
    assert!(fixed.gpus[0].peak_allocated_bytes > dynamic.gpus[0].peak_allocated_bytes);
    // Nothing grows: the reserved memory beyond the peak is smaller.
    let slack = |e: &vramfit_core::report::Estimate| {
        e.gpus[0].peak_reserved_bytes - e.gpus[0].peak_allocated_bytes
    };
    assert!(slack(&fixed) < slack(&dynamic));
}

#[test]
fn a_harness_case_says_when_its_cache_was_static() {
    // shared/measure/measure_cases.py's generate caveat for cache="static".
    let case = r#"{"id": "vfm-example-llama32-1b-gen-bf16-sdpa-b4-p2048-n512-static-alloc",
      "framework": "transformers", "model": {"name": "meta-llama/Llama-3.2-1B", "arch": "llama"},
      "task": "inference", "precision": {"weights": "bf16", "compute": "bf16", "mixed_precision": "pure"},
      "inference": {"batch": 4, "prompt_len": 2048, "new_tokens": 512, "kv_cache_dtype": "bf16", "engine": "transformers"},
      "attention": "sdpa", "parallel": {"gpus": 1}, "gpu": {},
      "measured": {"metric": "peak_allocated", "bytes": 1},
      "caveats": "measured as: model.generate greedy, batch 4, prompt 2048 random tokens, exactly 512 new tokens (min_new_tokens = max_new_tokens), StaticCache preallocated for prompt+new tokens (cache_implementation='static')"}"#;
    let case: vramfit_core::cases::Case = serde_json::from_str(case).expect("case");
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    assert!(sc.inference.static_cache);
    let dynamic = case
        .caveats
        .replace("StaticCache preallocated", "DynamicCache")
        .replace("cache_implementation='static'", "transformers default");
    let case = vramfit_core::cases::Case {
        caveats: dynamic,
        ..case
    };
    assert!(
        !vramfit_core::cases::case_scenario(&case)
            .expect("expressible")
            .inference
            .static_cache
    );
}

#[test]
fn a_tuple_cache_holds_two_copies_at_the_last_step() {
    // transformers < 4.36: the old tuple of every layer and the new one
    // coexist at the end of a step. Batch 16, 512 + 512 tokens (the shape
    // of the 2023 quantization blog's runs): the last decode step holds one
    // token's working set b·(4h + 3i)·2 B, fp32 logits b·V·4 and the
    // previous cache again, by hand for Llama-3.2-1B (h 2048, i 8192,
    // V 128256, 16 layers × 2 × 8 KV heads × 64 × 2 B per token).
    let mut sc = llama_1b(16, 512, 512);
    sc.inference.tuple_cache = true;
    let tuples = estimate(&sc).expect("estimates");
    let cache: u64 = 16 * 1024 * 16 * 2 * 8 * 64 * 2;
    let working = 16 * (4 * 2048 + 3 * 8192) * 2 + 16 * 128_256 * 4;
    let activations = tuples.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::Activations)
        .expect("activations");
    assert_eq!(
        activations.bytes,
        working + cache,
        "{}",
        activations.formula
    );
    // With today's DynamicCache the prefill holds the peak instead.
    sc.inference.tuple_cache = false;
    assert!(
        estimate(&sc).expect("estimates").gpus[0].peak_allocated_bytes
            < tuples.gpus[0].peak_allocated_bytes
    );
}

/// A static cache allocated for more tokens than the run reaches (gpt-fast's
/// `--cache_size`, transformers' `max_cache_len`) holds its whole length
/// from the start; a length below prompt + new tokens is refused by name.
#[test]
fn a_static_cache_of_a_set_length_holds_that_length() {
    let mut sc = vramfit_core::Scenario {
        model: vramfit_core::scenario::ModelSource::Catalog("meta-llama/Meta-Llama-3-8B".into()),
        task: vramfit_core::scenario::TaskKind::Inference,
        ..vramfit_core::Scenario::default()
    };
    sc.inference.batch = 2;
    sc.inference.prompt_len = 100;
    sc.inference.new_tokens = 28;
    sc.inference.static_cache = true;
    let kv = |sc: &vramfit_core::Scenario| -> u64 {
        vramfit_core::estimate(sc).expect("estimates").gpus[0]
            .lines
            .iter()
            .filter(|l| l.part == vramfit_core::Part::KvCache)
            .map(|l| l.bytes)
            .sum()
    };
    // Llama-3-8B: 32 layers × 2 × 8 KV heads × 128 × 2 B = 131072 B per token.
    assert_eq!(kv(&sc), 2 * 128 * 131_072);
    sc.inference.cache_len = Some(4096);
    assert_eq!(kv(&sc), 2 * 4096 * 131_072);
    sc.inference.cache_len = Some(127);
    let err = vramfit_core::estimate(&sc).unwrap_err();
    assert_eq!(err.field, "inference.cache_len");
    assert!(err.message.contains("128"), "{}", err.message);
}
