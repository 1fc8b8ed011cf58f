//! VipLLaVA and Video-LLaVA (transformers 5.24): their class defaults as
//! transformers builds them on the meta device (`data/params/
//! hf_variants_2026.csv`): VipLLaVA 7,079,690,240 parameters (CLIP-L/14 at
//! 336 px 303,507,456, the projector over five tower layers 37,767,168),
//! Video-LLaVA 7,365,754,880 (two CLIP-L/14 towers at 224 px, 303,179,776
//! each, and LLaVA's projector 20,979,712); the image tokens their
//! processors give (576 and 256: the class token dropped).

mod common;

use common::config_text;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::vision::image_tokens;

#[test]
fn vipllava_reads_five_tower_layers() {
    let spec = from_hf_config(&config_text("variants_2026/vipllava__0.json")).expect("imports");
    let counts = spec.param_counts();
    assert_eq!(counts.total, 7_079_690_240);
    assert_eq!((counts.vision, counts.projector), (303_507_456, 37_767_168));
    let tower = spec.vision.as_ref().expect("a tower");
    assert_eq!(image_tokens(tower, None).language_model, 576);
    // a single feature layer: LayerNorm(1024) and Linear(1024, 4096) instead
    let one =
        from_hf_config(r#"{"model_type":"vipllava","vision_feature_layers":-2}"#).expect("imports");
    assert_eq!(
        counts.projector - one.param_counts().projector,
        4 * 1024 * 4096 + 2 * 4 * 1024
    );
}

#[test]
fn video_llava_keeps_a_second_tower() {
    let spec = from_hf_config(&config_text("variants_2026/video_llava__0.json")).expect("imports");
    let counts = spec.param_counts();
    assert_eq!(counts.total, 7_365_754_880);
    assert_eq!(
        (counts.vision, counts.projector),
        (2 * 303_179_776, 20_979_712)
    );
    let tower = spec.vision.as_ref().expect("a tower");
    assert_eq!(image_tokens(tower, None).language_model, 256);
}

#[test]
fn another_tower_family_is_refused_by_field() {
    let e = from_hf_config(
        r#"{"model_type":"vipllava","vision_config":{"model_type":"siglip_vision_model"}}"#,
    )
    .expect_err("a SigLIP tower");
    assert!(e.field.ends_with("vision_config.model_type"), "{}", e.field);
}

/// LightOnOCR without sub-configs is LightOnOCR-1B (its class's init
/// arguments): 1,005,647,872 parameters, tied; its processor writes one
/// token per merged 28 px cell and no break tokens: a 1920 × 1080 page
/// under its 1540 px limit is 1,705 tokens, a 14 px thumbnail is refused
/// (the model's patch merger has no 2 × 2 cell to fold).
#[test]
fn lighton_ocr_is_its_one_billion_model_by_default() {
    let spec = from_hf_config(r#"{"model_type":"lighton_ocr"}"#).expect("imports");
    assert_eq!(spec.param_counts().total, 1_005_647_872);
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let page = vramfit_core::image_tokens::tokens(rule, 1920, 1080).expect("tokens");
    assert_eq!(page.language_model_tokens, 1_705);
    assert!(vramfit_core::image_tokens::tokens(rule, 14, 14).is_err());
}
