//! Apertus 1.5 (`apertus1p5`): its class defaults as transformers 5.24
//! builds them on the meta device (`Apertus1p5ForConditionalGeneration`,
//! 8,317,544,000 parameters: the language model and its head
//! 8,091,086,912, `model.vision_tokenizer` 218,153,984 and
//! `model.audio_tokenizer` 8,303,104, `named_parameters`), the tokens its
//! processor writes for an image, the wrapper's tie, and the configs its
//! config class refuses.

mod common;

use common::config_text;
use vramfit_core::hf_config::{from_hf_config, from_hf_configs};
use vramfit_core::image_tokens::{tokens, CodeGrid, ImageRule};

fn class_defaults() -> vramfit_core::model::ModelSpec {
    from_hf_config(&config_text("variants_2026/apertus1p5__0.json")).expect("imports")
}

#[test]
fn the_class_defaults_split_as_transformers_builds_them() {
    let spec = class_defaults();
    let counts = spec.param_counts();
    assert_eq!(counts.total, 8_317_544_000);
    // both tokenizers in the tower's count, no projector: the codes are
    // read as vocabulary ids
    assert_eq!(counts.vision, 218_153_984 + 8_303_104);
    assert_eq!(counts.projector, 0);
    assert_eq!(counts.total - counts.vision, 8_091_086_912);
    // 266,752 × 4096 each, untied
    assert_eq!(
        (counts.embedding, counts.lm_head),
        (1_092_616_192, 1_092_616_192)
    );
    // the bare wrapper is the same class
    let bare = from_hf_config(r#"{"model_type":"apertus1p5"}"#).expect("imports");
    assert_eq!(bare.param_counts().total, counts.total);
}

/// `Apertus1p5Processor.replace_image_token` for the sizes of the
/// analysis (transformers 5.24, the header one token per character):
/// codes + (rows − 1) row breaks + `<boi>`, `<image_wrapper>`, `<eoi>` +
/// the `rows*cols` header.
#[test]
fn the_import_carries_the_processors_rule() {
    let spec = class_defaults();
    let rule = spec.image_rule.as_ref().expect("an image rule");
    assert_eq!(*rule, ImageRule::Apertus1p5(CodeGrid::DEFAULT));
    for (w, h, codes, prompt) in [
        // 480 × 640: 30 × 40, "30*40"
        (640, 480, 1200, 1200 + 29 + 3 + 5),
        // 1040 × 1856: 65 × 116, "65*116"
        (1920, 1080, 7540, 7540 + 64 + 3 + 6),
        // 1200 × 1616: 75 × 101
        (4032, 3024, 7575, 7575 + 74 + 3 + 6),
        // 2000 × 304: 125 × 19
        (300, 2000, 2375, 2375 + 124 + 3 + 6),
        (224, 224, 196, 196 + 13 + 3 + 5),
    ] {
        let t = tokens(rule, w, h).expect("tokens");
        assert_eq!(
            (t.tower_tokens, t.language_model_tokens),
            (codes, prompt),
            "{w}x{h}"
        );
    }
    assert_eq!(tokens(rule, 1, 201).unwrap_err().field, "image");
}

/// The preprocessor's `size.min_pixels`, `size.max_pixels` and
/// `spatial_factor`; without them the vision tokenizer's own factor.
#[test]
fn the_rule_reads_its_processor_and_the_tokenizers_factor() {
    let config = r#"{"model_type":"apertus1p5"}"#;
    let pre = r#"{"size":{"min_pixels":4096,"max_pixels":262144},"spatial_factor":16}"#;
    let spec = from_hf_configs(config, Some(pre)).expect("imports");
    let read = CodeGrid {
        min_pixels: 4096,
        max_pixels: 262_144,
        ..CodeGrid::DEFAULT
    };
    assert_eq!(spec.image_rule, Some(ImageRule::Apertus1p5(read)));
    assert_eq!(
        ImageRule::from_text("apertus1p5:16,4096,262144"),
        Ok(ImageRule::Apertus1p5(read))
    );
    // three stages downsample by 4: the processor must cut 4 px squares
    let small = r#"{"model_type":"apertus1p5","vision_config":{"channel_multiplier":[1,2,4],"codebook_size":1024},
        "image_token_offset":1000,"audio_token_offset":2024}"#;
    let spec = from_hf_config(small).expect("imports");
    let rule = spec.image_rule.expect("a rule");
    assert_eq!(rule.to_text(), "apertus1p5:4,16384,1960000");
    for (text, field) in [
        ("apertus1p5:16,5000,4096", "image rule: min_pixels"),
        ("apertus1p5:0,4096,5000", "image rule: factor"),
        ("apertus1p5:16,1,0", "image rule: max_pixels"),
    ] {
        let e = ImageRule::from_text(text).expect_err(text);
        assert!(e.contains(field), "{text}: {e}");
    }
}

/// Only the wrapper's `tie_word_embeddings` ties the head; tied, the head
/// is the whole embedding whatever `output_vocab_size` says.
#[test]
fn the_wrapper_alone_ties_the_head() {
    let count = |json: &str| {
        from_hf_config(json)
            .expect("imports")
            .param_counts()
            .lm_head
    };
    let text = r#""text_config":{"output_vocab_size":1000,"tie_word_embeddings":true}"#;
    let untied = format!(r#"{{"model_type":"apertus1p5",{text}}}"#);
    assert_eq!(count(&untied), 1000 * 4096);
    let tied = format!(r#"{{"model_type":"apertus1p5","tie_word_embeddings":true,{text}}}"#);
    assert_eq!(count(&tied), 0);
    let spec = from_hf_config(&tied).expect("imports");
    assert_eq!(spec.param_counts().embedding, 266_752 * 4096);
}

fn refusal(json: &str) -> String {
    from_hf_config(json).expect_err(json).to_string()
}

#[test]
fn what_the_config_class_refuses_is_refused_by_name() {
    let offset = refusal(r#"{"model_type":"apertus1p5","image_token_offset":999}"#);
    assert!(
        offset.contains("config.json: image_token_offset") && offset.contains("262344"),
        "{offset}"
    );
    let vocab = refusal(r#"{"model_type":"apertus1p5","text_config":{"vocab_size":266000}}"#);
    assert!(
        vocab.contains("config.json: audio_token_offset") && vocab.contains("266000"),
        "{vocab}"
    );
    for (config, field) in [
        (
            r#""text_config":{"output_vocab_size":300000}"#,
            "text_config.output_vocab_size",
        ),
        (
            r#""audio_config":{"codebook_dim":256}"#,
            "audio_config.codebook_dim",
        ),
        (
            r#""audio_config":{"norm_type":"x"}"#,
            "audio_config.norm_type",
        ),
        (
            r#""audio_config":{"model_type":"wavtokenizer"}"#,
            "audio_config.model_type",
        ),
        (
            r#""audio_config":{"upsampling_ratios":[6,0]}"#,
            "audio_config.upsampling_ratios",
        ),
        (
            r#""vision_config":{"base_channels":48}"#,
            "vision_config.base_channels",
        ),
        (
            r#""vision_config":{"channel_multiplier":[]}"#,
            "vision_config.channel_multiplier",
        ),
        (
            r#""vision_config":{"channel_multiplier":[1,2,"4"]}"#,
            "vision_config.channel_multiplier",
        ),
        (
            r#""vision_config":{"attn_resolutions":[-16]}"#,
            "vision_config.attn_resolutions",
        ),
        (
            r#""vision_config":{"attn_resolutions":16}"#,
            "vision_config.attn_resolutions",
        ),
    ] {
        let e = refusal(&format!(r#"{{"model_type":"apertus1p5",{config}}}"#));
        assert!(
            e.contains(&format!("config.json: {field}")),
            "{config}: {e}"
        );
    }
}
