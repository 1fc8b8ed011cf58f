//! Florence-2 (transformers 5.24's `Florence2ForConditionalGeneration`):
//! its parameter counts are in `params_2025.rs`; here its image tokens,
//! which do not depend on the photo: the processor resizes every image to
//! its square and the DaViT backbone's strides (4·2·2·2) leave a grid of
//! side / 32, beside which the projector puts one pooled token.

use vramfit_core::hf_config::rule_from_configs;
use vramfit_core::image_tokens::tokens;

#[test]
fn every_image_is_the_backbones_grid_and_one_pooled_token() {
    let config = r#"{"model_type": "florence2"}"#;
    let rule = rule_from_configs(config, None).expect("a rule");
    for (w, h) in [
        (336, 336),
        (768, 768),
        (1920, 1080),
        (4032, 3024),
        (500, 2000),
    ] {
        let t = tokens(&rule, w, h).expect("tokens");
        assert_eq!(
            (t.tower_tokens, t.language_model_tokens),
            (576, 577),
            "{w}×{h}"
        );
    }
    // a processor at 384 px: a 12 × 12 grid
    let small = rule_from_configs(config, Some(r#"{"size": {"height": 384, "width": 384}}"#))
        .expect("a rule");
    let t = tokens(&small, 1000, 700).expect("tokens");
    assert_eq!((t.tower_tokens, t.language_model_tokens), (144, 145));
    // a backbone with one stage less (strides 4·2·2): a grid of side / 16
    let three = r#"{"model_type": "florence2", "vision_config": {"patch_stride": [4, 2, 2]}}"#;
    let t = tokens(&rule_from_configs(three, None).expect("a rule"), 640, 480).expect("tokens");
    assert_eq!(t.language_model_tokens, 48 * 48 + 1);
}
