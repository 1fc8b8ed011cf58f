//! Memory right after building a model. Loading a checkpoint leaves its
//! transient blocks cached (torchtune's model-init rows); building from a
//! config with random weights on the GPU, as shared/measure/measure_cases.py
//! does ("random init, no checkpoint"), reads nothing and leaves none; nor
//! does a run that empties the cache after loading.

use vramfit_core::cases::{score_case, Case};

fn load_case(caveats: &str, metric: &str) -> Case {
    let json = format!(
        r#"{{"id": "load-example", "framework": "transformers",
        "model": {{"name": "meta-llama/Llama-3.2-1B", "arch": "llama"}},
        "task": "model_load", "precision": {{"weights": "bf16", "mixed_precision": "pure"}},
        "parallel": {{"gpus": 1}}, "gpu": {{"name": "NVIDIA H100 80GB HBM3"}},
        "measured": {{"metric": "{metric}", "bytes": 1}}, "caveats": "{caveats}"}}"#
    );
    serde_json::from_str(&json).expect("case")
}

#[test]
fn a_random_init_build_caches_no_loading_transient() {
    let weights = score_case(&load_case("", "weights_only"))
        .estimate_bytes
        .expect("weights");
    // Llama-3.2-1B: 1,235,814,400 parameters in bf16.
    assert_eq!(weights, 2 * 1_235_814_400);
    let random = score_case(&load_case(
        "measured as: from_config(dtype=bf16) under torch.device('cuda') (random init, no checkpoint)",
        "device_used",
    ))
    .estimate_bytes
    .expect("device used");
    let checkpoint = score_case(&load_case("loaded from the hub checkpoint", "device_used"))
        .estimate_bytes
        .expect("device used");
    // The checkpoint's transient: two of the largest tensor (the 128256 × 2048 embedding, 2 B).
    assert_eq!(checkpoint - random, 2 * 128_256 * 2048 * 2);
    // What remains above the weights is the CUDA context of a Hopper card.
    assert!(random > weights && random - weights < 1 << 30);
}

#[test]
fn empty_cache_after_loading_releases_the_loading_blocks() {
    use vramfit_core::estimate::estimate;
    use vramfit_core::scenario::{ModelSource, Scenario};
    let loaded = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-3.2-1B".into()),
        ..Scenario::default()
    };
    let emptied = Scenario {
        empty_cache_after_load: true,
        ..loaded.clone()
    };
    let (a, b) = (
        estimate(&loaded).expect("a"),
        estimate(&emptied).expect("b"),
    );
    assert_eq!(
        a.gpus[0].peak_allocated_bytes,
        b.gpus[0].peak_allocated_bytes
    );
    // Two of the largest tensor: the 128256 × 2048 bf16 embedding.
    assert_eq!(
        a.gpus[0].peak_reserved_bytes - b.gpus[0].peak_reserved_bytes,
        2 * 128_256 * 2048 * 2
    );
}

#[test]
fn cases_of_the_measuring_harness_build_without_a_checkpoint() {
    let mut case = load_case("measured as: 2 training steps", "peak_reserved");
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    assert!(!sc.empty_cache_after_load);
    case.source.file = "shared/measure/measure_cases.py".into();
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    assert!(sc.empty_cache_after_load);
}
