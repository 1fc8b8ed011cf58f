//! Dots3-Note (transformers 5.24's `Dots3NoteForCausalLM` and
//! `Dots3NoteForConditionalGeneration`): its parameter counts are in
//! `params_2025.rs`, its cache objects in `hybrid_cache.rs`; here the class
//! defaults' cache at a long context, its images, and the refusals.

mod common;

use common::{data_dir, one_gpu};
use vramfit_core::hf_config::{from_hf_config, from_hf_configs};
use vramfit_core::image_tokens::tokens;
use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes};
use vramfit_core::precision::Dtype;

fn config(name: &str) -> String {
    std::fs::read_to_string(data_dir().join(format!("configs/variants_2026/{name}.json")))
        .expect("config")
}

/// The class defaults: 13 indexed layers caching a 512-wide latent and a
/// 64-wide rope key in bf16 plus a 128-wide fp32 indexer key, that is
/// 13 × (576 × 2 plus 128 × 4) = 21,632 B per token; 33 sliding layers
/// caching their own 1,024 plus 64 in bf16 over their last 511 tokens, that
/// is 33 × 1,088 × 2 × 511 = 36,693,888 B per sequence once the window is
/// full (the per-layer sizes measured in `data/cache/hybrid_cache.jsonl`).
#[test]
fn a_long_context_holds_the_indexed_layers_per_token_and_the_windows_once() {
    let spec = from_hf_config(&config("dots3_note_text__0")).expect("imports");
    let shards = one_gpu(spec.layers);
    let (per_token, formula) = kv_bytes_per_token(&spec, Dtype::Bf16, &shards);
    assert_eq!(per_token, 21_632 + 33 * 1_088 * 2, "{formula}");
    assert!(formula.contains("128 indexer key × 4 B"), "{formula}");
    let context = 100_000;
    let bytes = kv_cache_bytes(
        &spec,
        &shards,
        (per_token, Dtype::Bf16),
        1,
        (context, context),
    );
    assert_eq!(bytes, 21_632 * context + 36_693_888);
    // two sequences hold twice as much
    let two = kv_cache_bytes(
        &spec,
        &shards,
        (per_token, Dtype::Bf16),
        2,
        (context, context),
    );
    assert_eq!(two, 2 * bytes);
}

/// A 1080p frame and a phone photo through Qwen2VLImageProcessor at its
/// defaults (14 px patches, merge 2, at most 1,003,520 pixels): grids of
/// 52 × 94 and 60 × 82 patches (transformers 5.24 on CPU), a quarter of
/// them for the language model.
#[test]
fn images_take_qwen2_vl_processor_grids() {
    let spec = from_hf_configs(&config("dots3_note__0"), None).expect("imports");
    let rule = spec.image_rule.expect("an image rule");
    for ((w, h), grid) in [((1920, 1080), 52 * 94), ((4032, 3024), 60 * 82)] {
        let t = tokens(&rule, w, h).expect("tokens");
        assert_eq!(t.tower_tokens, grid, "{w}×{h}");
        assert_eq!(t.language_model_tokens, grid / 4, "{w}×{h}");
    }
    assert!(spec.video.is_some(), "Qwen3-VL's video processor");
}

/// What transformers refuses, or this importer cannot model, is an error
/// naming the field.
#[test]
fn refusals_name_the_field() {
    let mut text: serde_json::Value = serde_json::from_str(&config("dots3_note_text__1")).unwrap();
    let cases: [(&str, serde_json::Value, &str); 3] = [
        ("q_lora_rank", serde_json::Value::Null, "q_lora_rank"),
        (
            "layer_types",
            serde_json::json!(["sliding_attention"; 5]
                .into_iter()
                .chain(["chunked_attention"])
                .collect::<Vec<_>>()),
            "layer_types",
        ),
        (
            "per_layer_config",
            serde_json::json!({"2": {"kv_lora_rank": 12}, "3": {"kv_lora_rank": 20}}),
            "per_layer_config",
        ),
    ];
    for (key, value, field) in cases {
        let before = text[key].clone();
        text[key] = value;
        let e = from_hf_config(&text.to_string()).expect_err(key);
        assert!(e.field.ends_with(field), "{key}: {e}");
        text[key] = before;
    }
}
