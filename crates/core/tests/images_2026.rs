//! The 2026 VLMs whose images became inputs (DeepSeek-OCR 2, Unlimited-OCR, GOT-OCR 2.0, Chameleon, Emu3, Ovis2, FastVLM, BLIP-2, InstructBLIP, Nemotron-H
//! Omni, Molmo2, Muse Glimmer and Spark, Inkling 2): an image reaches the
//! language model's sequence as its processor's tokens, and the tower's
//! activations grow with the image.

mod common;

use common::{import, part_bytes};
use vramfit_core::image_tokens::tokens;
use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};
use vramfit_core::vision::sample_images;
use vramfit_core::Part;

const CONFIGS: [&str; 14] = [
    "variants_2026/chameleon__0.json",
    "variants_2026/emu3__0.json",
    "variants_2026/got_ocr2__0.json",
    "variants_2026/blip-2__0.json",
    "variants_2026/instructblip__3.json",
    "variants_2026/fast_vlm__6.json",
    "variants_2026/ovis2__6.json",
    "variants_2026/deepseek_ocr2__0.json",
    "variants_2026/unlimited_ocr__0.json",
    "variants_2026/nemotron_h_omni__0.json",
    "variants_2026/molmo2__0.json",
    "variants_2026/muse_glimmer__0.json",
    "variants_2026/muse_spark__0.json",
    "variants_2026/inkling2__0.json",
];

fn training(config: &str, size: (u64, u64)) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(import(config))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.seq_len = 256;
    sc.training.images_per_sample = 1;
    sc.image_mix = vec![size];
    sc
}

/// The tower's share of the activations: trained minus frozen.
fn tower_activations(config: &str, size: (u64, u64)) -> u64 {
    let mut sc = training(config, size);
    let trained = part_bytes(&sc, Part::Activations);
    sc.training.freeze_vision = true;
    trained - part_bytes(&sc, Part::Activations)
}

#[test]
fn an_image_is_its_processors_tokens_in_the_sequence() {
    for config in CONFIGS {
        let spec = import(config);
        let rule = spec.image_rule.clone().expect("an image rule");
        for size in [(1920, 1080), (640, 480)] {
            let sc = training(config, size);
            let sized = sample_images(&sc, &spec)
                .expect("sizes")
                .expect("images reach the estimate");
            let want = tokens(&rule, size.0, size.1).expect("tokens");
            assert_eq!(
                sized.groups[0].tokens.language_model, want.language_model_tokens,
                "{config}"
            );
            assert_eq!(sized.groups[0].tokens.tower, want.tower_tokens, "{config}");
        }
    }
}

/// A larger image costs the trained tower more exactly when its processor
/// gives it more tower tokens (FastVLM crops every image to one square).
#[test]
fn a_larger_image_costs_the_trained_tower_more_when_it_has_more_tokens() {
    for config in CONFIGS {
        let rule = import(config).image_rule.expect("an image rule");
        let tower = |(w, h)| tokens(&rule, w, h).expect("tokens").tower_tokens;
        let (small_size, large_size) = ((320, 240), (1920, 1080));
        let small = tower_activations(config, small_size);
        let large = tower_activations(config, large_size);
        assert!(small > 0, "{config}: the tower saves nothing");
        if tower(large_size) > tower(small_size) {
            assert!(large > small, "{config}: {large} <= {small}");
        } else {
            assert_eq!(large, small, "{config}");
        }
    }
}

#[test]
fn a_share_link_carries_the_rule_and_the_tower() {
    for config in CONFIGS {
        let spec = import(config);
        let rule = spec.image_rule.clone().expect("an image rule");
        assert_eq!(
            vramfit_core::image_tokens::ImageRule::from_text(&rule.to_text()),
            Ok(rule.clone()),
            "{config}"
        );
        let link = vramfit_core::url::encode_spec(&spec);
        let back = vramfit_core::url::decode_spec(&link).expect("the link reads back");
        assert_eq!(back.image_rule, Some(rule), "{config}");
        assert_eq!(back.vision, spec.vision, "{config}");
        assert_eq!(back.total_params(), spec.total_params(), "{config}");
    }
}

/// Emu3's processor (`Emu3ImageProcessor` and `Emu3Processor`, transformers
/// 5.24, run on synthetic images): `smart_resize` at 8 px cells within 512²
/// to 1024² px, a code a cell and an end-of-line token a row; Chameleon's
/// every image a 512 px square of 1,024 codes between two markers.
#[test]
fn emu3_and_chameleon_count_as_their_processors() {
    let emu3 = import("variants_2026/emu3__0.json")
        .image_rule
        .expect("rule");
    for ((w, h), lm) in [
        ((64, 64), 4160),
        ((512, 512), 4160),
        ((640, 480), 4860),
        ((1920, 1080), 16_416),
        ((4032, 3024), 16_280),
        ((300, 2000), 9750),
    ] {
        assert_eq!(
            tokens(&emu3, w, h).expect("tokens").language_model_tokens,
            lm,
            "{w}x{h}"
        );
    }
    // an aspect ratio of 400: refused, as the processor refuses it
    assert!(tokens(&emu3, 10, 4000).is_err());
    let chameleon = import("variants_2026/chameleon__0.json")
        .image_rule
        .expect("rule");
    for (w, h) in [(1, 1), (1920, 1080), (10, 4000)] {
        assert_eq!(
            tokens(&chameleon, w, h)
                .expect("tokens")
                .language_model_tokens,
            1026
        );
    }
}
