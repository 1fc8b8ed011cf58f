//! Qwen4-Exp (`qwen4_exp`): its class defaults with the five QSA keys
//! they need (transformers 5.24 cannot build the class without them), as
//! transformers builds them on the meta device (67,864,414,064 parameters,
//! of which `model.visual` without its merger is 415,891,440 and the
//! merger 37,759,232), its cache per token and per sequence from the
//! formulas the cache objects were checked against
//! (`data/cache/hybrid_cache.jsonl`), and the configs its config class
//! refuses.

mod common;

use common::{config_text, one_gpu};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::image_tokens::tokens;
use vramfit_core::inference::kv_bytes_per_token;
use vramfit_core::precision::Dtype;
use vramfit_core::recurrent_state::state_bytes_per_sequence;
use vramfit_core::scenario::Engine;

fn class_defaults() -> vramfit_core::model::ModelSpec {
    from_hf_config(&config_text("variants_2026/qwen4_exp__0.json")).expect("imports")
}

#[test]
fn the_class_defaults_split_as_transformers_builds_them() {
    let spec = class_defaults();
    let counts = spec.param_counts();
    assert_eq!(counts.total, 67_864_414_064);
    assert_eq!((counts.vision, counts.projector), (415_891_440, 37_759_232));
    // no norms: the hyper-connections replace them
    assert_eq!(spec.norms_per_layer, Some(0));
    // Qwen3.5's image rule: a 1080p frame is 1,920 × 1,088 in 32 px cells
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let frame = tokens(rule, 1920, 1080).expect("tokens");
    assert_eq!(frame.language_model_tokens, 60 * 34);
}

/// Ten attention layers of 40 cache two KV heads of 256 and the QSA key of
/// 256 per token, and the first of them the tokens' three int64 position
/// ids; the 30 Gated DeltaNet layers a conv window of 4 over 8,192
/// channels and a 32 × 128 × 128 fp32 state.
#[test]
fn the_cache_is_keys_indexer_keys_and_delta_states() {
    let spec = class_defaults();
    let (per_token, text) = kv_bytes_per_token(&spec, Dtype::Bf16, &one_gpu(spec.layers));
    assert_eq!(per_token, 10 * (2 * 2 * 256 + 256) * 2 + 24, "{text}");
    let (state, _) =
        state_bytes_per_sequence(&spec, Dtype::Bf16, 1, Engine::Transformers).expect("a state");
    assert_eq!(state, 30 * (8192 * 4 * 2 + 32 * 128 * 128 * 4));
}

/// Two n-gram layers at the default base of 2·10⁷ (16 heads each, tables
/// of the next 32 primes' sum, padded to 128 rows): each keeps 4 streams ×
/// 32 channels × 9 conv steps (bf16) and two int64 token ids per sequence.
#[test]
fn ngram_layers_count_their_prime_sized_tables_and_their_state() {
    let spec = from_hf_config(&config_text("variants_2026/qwen4_exp__3.json")).expect("imports");
    assert_eq!(spec.param_counts().total, 1_280_155_668);
    let ngram = spec.ngram_embedding.as_ref().expect("n-gram layers");
    assert_eq!((ngram.layers, ngram.width), (2, 2));
    let plain = {
        let mut s = spec.clone();
        s.ngram_embedding = None;
        state_bytes_per_sequence(&s, Dtype::Bf16, 1, Engine::Transformers)
            .expect("a state")
            .0
    };
    let (state, text) =
        state_bytes_per_sequence(&spec, Dtype::Bf16, 1, Engine::Transformers).expect("a state");
    assert_eq!(state - plain, 2 * (4 * 32 * 9 * 2 + 2 * 8), "{text}");
}

fn refusal(text_config: &str) -> String {
    let qsa = r#""indexer_n_heads":16,"indexer_kv_heads":1,"indexer_head_dim":256,"indexer_budget":2048,"indexer_compress_ratio":4"#;
    let json = format!(r#"{{"model_type":"qwen4_exp","text_config":{{{qsa}{text_config}}}}}"#);
    from_hf_config(&json).expect_err("refused").to_string()
}

#[test]
fn what_the_config_class_refuses_is_refused_by_name() {
    let bare = from_hf_config(r#"{"model_type":"qwen4_exp"}"#)
        .expect_err("no QSA keys")
        .to_string();
    assert!(bare.contains("text_config.indexer_n_heads"), "{bare}");
    let streams = refusal(r#","hc_count":1"#);
    assert!(streams.contains("hc_count"), "{streams}");
    // a later key wins: two key heads
    let kv = refusal(r#","indexer_kv_heads":2"#);
    assert!(kv.contains("indexer_kv_heads"), "{kv}");
    // layer 4 attends (every fourth by default)
    let ple = refusal(r#","ple_layer_ids":[4],"eos_token_id":1"#);
    assert!(
        ple.contains("ple_layer_ids") && ple.contains("layer 4"),
        "{ple}"
    );
    let eos = refusal(r#","ple_layer_ids":[1]"#);
    assert!(eos.contains("eos_token_id"), "{eos}");
    let rotary = refusal(r#","indexer_head_dim":128"#);
    assert!(rotary.contains("indexer_head_dim"), "{rotary}");
}
