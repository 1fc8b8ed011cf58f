//! ERNIE-4.5-VL (`ernie4_5_vl_moe`): its class defaults as transformers
//! 5.24 builds them on the meta device
//! (`Ernie4_5_VLMoeForConditionalGeneration`, 29,399,294,336 parameters:
//! the tower 630,433,280, the resampler 144,225,280, the 27 sparse layers'
//! vision expert groups 6,799,197,888, by `named_parameters`), the two
//! routers per sparse layer it keeps in fp32, its cache per token, and its
//! image processor's limits (`data/vision/image_tokens.jsonl`).

mod common;

use common::{config_text, one_gpu, part_bytes};
use vramfit_core::hf_config::{from_hf_config, from_hf_configs};
use vramfit_core::image_tokens::tokens;
use vramfit_core::inference::kv_bytes_per_token;
use vramfit_core::precision::Dtype;
use vramfit_core::report::Part;
use vramfit_core::scenario::{Engine, ModelSource, Scenario};

fn class_defaults() -> vramfit_core::model::ModelSpec {
    from_hf_config(&config_text("variants_2026/ernie4_5_vl_moe__0.json")).expect("imports")
}

#[test]
fn the_class_defaults_split_as_transformers_builds_them() {
    let spec = class_defaults();
    let counts = spec.param_counts();
    assert_eq!(counts.total, 29_399_294_336);
    assert_eq!(
        (counts.vision, counts.projector),
        (630_433_280, 144_225_280)
    );
    // tied by the wrapper's flag: one 103,424 × 2,560 table
    assert_eq!((counts.embedding, counts.lm_head), (264_765_440, 0));
    // the vision experts (64 of 512 wide, their router and bias) in each
    // of the 27 sparse layers: resident, outside the text MoE
    assert_eq!(spec.model_extra_params, 6_799_197_888);
    let moe = spec.moe.as_ref().expect("text experts");
    assert_eq!(
        (moe.experts, moe.experts_per_token, moe.expert_intermediate),
        (64, 6, 1536)
    );
    assert_eq!((moe.dense_layers, moe.shared_intermediate), (1, Some(3072)));
    // both routers of every sparse layer and their correction biases:
    // 27 · 2 · (64 · 2560 + 64)
    assert_eq!(spec.fp32_params, 8_850_816);
    // the bare wrapper is the same class
    let bare = from_hf_config(r#"{"model_type":"ernie4_5_vl_moe"}"#).expect("imports");
    assert_eq!(bare.param_counts().total, counts.total);
}

/// Every layer is full attention: 2 · 4 KV heads · 128 · 2 B per token
/// and layer, 57,344 B per token over 28 layers in bf16.
#[test]
fn every_layer_caches_its_keys_and_values() {
    let spec = class_defaults();
    let (per_token, _) = kv_bytes_per_token(&spec, Dtype::Bf16, &one_gpu(spec.layers));
    assert_eq!(per_token, 57_344);
}

/// A transformers load in bf16 charges the fp32 routers 4 B.
#[test]
fn a_bf16_load_keeps_the_routers_in_fp32() {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(class_defaults())),
        ..Scenario::default()
    };
    sc.inference.engine = Engine::Transformers;
    assert_eq!(
        part_bytes(&sc, Part::Weights),
        29_399_294_336 * 2 + 8_850_816 * 2
    );
}

/// Its processor's own limits: 56² to 28²·6177 pixels, so a 1080p frame
/// is 2,691 tokens (78 × 138 patches of 14 px, merged 2 × 2), a 4032 ×
/// 3024 photo is scaled into 6,120; a `preprocessor_config.json`'s
/// `size` changes them (28²·1280: 1,230 tokens, as its processor gave),
/// its top-level `max_pixels` does not (the class never reads it).
#[test]
fn its_images_follow_its_processors_limits() {
    let spec = class_defaults();
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let frame = tokens(rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (10_764, 2_691)
    );
    let photo = tokens(rule, 4032, 3024).expect("tokens");
    assert_eq!(photo.language_model_tokens, 6_120);
    assert!(tokens(rule, 1, 300).is_err(), "aspect ratio over 200");
    let config = config_text("variants_2026/ernie4_5_vl_moe__0.json");
    let capped = from_hf_configs(
        &config,
        Some(r#"{"size": {"shortest_edge": 3136, "longest_edge": 1003520}, "max_pixels": 99}"#),
    )
    .expect("imports");
    let rule = capped.image_rule.as_ref().expect("an image rule");
    assert_eq!(
        tokens(rule, 4032, 3024)
            .expect("tokens")
            .language_model_tokens,
        1_230
    );
}

/// The importer refuses what the config class refuses, by field.
#[test]
fn a_width_that_is_not_two_entries_is_refused() {
    let e = from_hf_config(
        r#"{"model_type":"ernie4_5_vl_moe","text_config":{"moe_intermediate_size":[1536]}}"#,
    )
    .expect_err("one width");
    assert!(e.field.ends_with("moe_intermediate_size"), "{}", e.field);
    let e = from_hf_config(
        r#"{"model_type":"ernie4_5_vl_moe","text_config":{"num_hidden_layers":2,"mlp_layer_types":["dense","moe"]}}"#,
    )
    .expect_err("an unknown MLP type");
    assert!(e.field.ends_with("mlp_layer_types"), "{}", e.field);
}
