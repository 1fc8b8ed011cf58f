//! GLM-5.3-Flash (`glm5_next`): its class defaults as transformers 5.24
//! builds them on the meta device (`Glm5NextForConditionalGeneration`,
//! 313,786,889,214 parameters, of which `model.visual` without its
//! downsample and merger is 404,231,168 and they 55,841,280:
//! `named_parameters`), its cache per token and per sequence from the
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
    from_hf_config(&config_text("variants_2026/glm5_next__0.json")).expect("imports")
}

#[test]
fn the_class_defaults_split_as_transformers_builds_them() {
    let spec = class_defaults();
    let counts = spec.param_counts();
    assert_eq!(counts.total, 313_786_889_214);
    assert_eq!((counts.vision, counts.projector), (404_231_168, 55_841_280));
    // 154,880 × 4096 each, untied
    assert_eq!(
        (counts.embedding, counts.lm_head),
        (634_388_480, 634_388_480)
    );
    // the import carries the processor's rule: a 1080p frame is 2,691
    // tokens in the language model (Glm5NextImageProcessor: 54 × 50 merged
    // patches of 28 px after aligning each side up), four times that in
    // the tower; a 640 × 480 photo 414
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let frame = tokens(rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (10_764, 2_691)
    );
    let photo = tokens(rule, 640, 480).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (1_656, 414)
    );
    // the bare wrapper is the same class
    let bare = from_hf_config(r#"{"model_type":"glm5_next"}"#).expect("imports");
    assert_eq!(bare.param_counts().total, counts.total);
}

/// Eleven MLA layers (3, 7, …, 43) of the 45 cache their 512-wide latent
/// and, each with its own indexer, 2·128 + 1 more; the 34 KDA layers keep
/// a bf16 convolution window of 4 over 3 × 64 × 128 channels and an fp32
/// 64 × 128 × 128 state.
#[test]
fn the_cache_is_eleven_latents_and_thirty_four_delta_states() {
    let spec = class_defaults();
    assert_eq!(spec.attention_layer_count(), 11);
    let (per_token, text) = kv_bytes_per_token(&spec, Dtype::Bf16, &one_gpu(spec.layers));
    assert_eq!(per_token, 11 * (512 + 257) * 2, "{text}");
    assert!(text.contains("(2 × 128 + 1)"), "{text}");
    let (state, _) =
        state_bytes_per_sequence(&spec, Dtype::Bf16, 1, Engine::Transformers).expect("a state");
    assert_eq!(state, 34 * (3 * 64 * 128 * 4 * 2 + 64 * 128 * 128 * 4));
}

fn refusal(text_config: &str) -> String {
    let json = format!(r#"{{"model_type":"glm5_next","text_config":{text_config}}}"#);
    from_hf_config(&json).expect_err("refused").to_string()
}

#[test]
fn what_the_config_class_refuses_is_refused_by_name() {
    let rope = refusal(r#"{"qk_rope_head_dim":64}"#);
    assert!(rope.contains("text_config.qk_rope_head_dim"), "{rope}");
    // 32 heads against the class's 64 key-value heads
    let heads = refusal(r#"{"num_attention_heads":32}"#);
    assert!(heads.contains("num_key_value_heads"), "{heads}");
    let pool = refusal(r#"{"index_kpool":3}"#);
    assert!(
        pool.contains("index_kpool") && pool.contains("2048"),
        "{pool}"
    );
    let layers = refusal(r#"{"num_hidden_layers":2,"layer_types":["mamba","linear_attention"]}"#);
    assert!(layers.contains("\"mamba\""), "{layers}");
}

/// A saved `head_dim` (the class overwrites it with the rotary width, 0)
/// and a `first_k_dense_replace` (not read) change nothing; a flat config
/// is the text config.
#[test]
fn keys_the_class_ignores_change_nothing() {
    let text = r#"{"num_hidden_layers":6,"hidden_size":256,"num_attention_heads":4,"num_key_value_heads":4,"vocab_size":1000,"pad_token_id":0}"#;
    let nested = format!(r#"{{"model_type":"glm5_next","text_config":{text}}}"#);
    let base = from_hf_config(&nested)
        .expect("imports")
        .param_counts()
        .total;
    let ignored = nested.replace(
        "\"pad_token_id\":0",
        "\"pad_token_id\":0,\"head_dim\":0,\"first_k_dense_replace\":1",
    );
    assert_eq!(
        from_hf_config(&ignored)
            .expect("imports")
            .param_counts()
            .total,
        base
    );
    let flat = text.replace('{', r#"{"model_type":"glm5_next","#);
    assert_eq!(
        from_hf_config(&flat).expect("imports").param_counts().total,
        base
    );
}
