//! VLMs with dynamic resolution or tiles: Qwen2-VL / Qwen2.5-VL / Qwen3-VL /
//! Qwen3.5, LLaVA-NeXT, LLaVA-OneVision, Gemma 3, PaliGemma, Mistral 3,
//! Idefics3 / SmolVLM, InternVL and Llama 4 configs
//! import with their vision tower counted exactly as transformers
//! builds it (`data/params/hf_measured_vlm.csv`, `measure_hf_vlm.py`,
//! torch 2.15.0, transformers 5.24.0, meta device), and an image's width ×
//! height sets its tokens in the language model's sequence by the family's
//! rule.

mod common;

use common::{config_text, csv_rows, get, get_u64};
use vramfit_core::estimate::{estimate, estimate_with_model};
use vramfit_core::hf_config::rule_from_configs;
use vramfit_core::hf_config::{from_hf_config, from_hf_configs};
use vramfit_core::image_tokens::{tokens, ImageRule};
use vramfit_core::model::ModelSpec;
use vramfit_core::report::Part;
use vramfit_core::scenario::{Checkpointing, Method, ModelSource, Scenario, TaskKind};
use vramfit_core::url::{decode, encode};

fn qwen25_7b() -> ModelSpec {
    from_hf_config(&config_text("vlm/Qwen__Qwen2.5-VL-7B-Instruct.json")).expect("imports")
}

#[test]
fn every_vlm_config_counts_exactly_what_transformers_builds() {
    let rows = csv_rows("hf_measured_vlm.csv");
    assert!(rows.len() >= 48, "{} rows", rows.len());
    for row in &rows {
        let config = get(row, "config");
        let spec = from_hf_config(&config_text(config)).unwrap_or_else(|e| panic!("{config}: {e}"));
        let counts = spec.param_counts();
        assert_eq!(
            (counts.total, counts.vision, counts.projector),
            (
                get_u64(row, "num_parameters"),
                get_u64(row, "vision"),
                get_u64(row, "projector")
            ),
            "{config}"
        );
        assert_eq!(spec.tied_embeddings, get(row, "tied") == "true", "{config}");
        assert!(spec.image_rule.is_some(), "{config} has an image rule");
    }
}

#[test]
fn the_image_rule_comes_from_the_config_and_the_preprocessor() {
    let spec = qwen25_7b();
    assert_eq!(
        spec.image_rule,
        Some(ImageRule::QwenVl {
            patch: 14,
            merge: 2,
            min_pixels: 3136,
            max_pixels: 1_003_520
        })
    );
    // A preprocessor that lowers max_pixels (the usual memory remedy).
    let lowered = from_hf_configs(
        &config_text("vlm/Qwen__Qwen2.5-VL-7B-Instruct.json"),
        Some(r#"{"min_pixels": 3136, "max_pixels": 401408}"#),
    )
    .expect("imports");
    let rule = lowered.image_rule.expect("rule");
    // smart_resize(1080, 1920, 28, 3136, 401408) = 448 × 840: 1920 patches.
    let hd = tokens(&rule, 1920, 1080).expect("fits");
    assert_eq!((hd.tower_tokens, hd.language_model_tokens), (1920, 480));
    let next = from_hf_config(&config_text("vlm/llava-hf__llava-v1.6-mistral-7b-hf.json"))
        .expect("imports");
    assert!(matches!(
        next.image_rule,
        Some(ImageRule::LlavaNext {
            crop: 336,
            patch: 14,
            ..
        })
    ));
    assert_eq!(next.vision.as_ref().map(|v| v.image_size), Some(336));
}

fn lora(spec: &ModelSpec) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec.clone())),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.seq_len = 512;
    sc.training.images_per_sample = 1;
    sc.training.freeze_vision = true;
    // Not checkpointed: under checkpointing PEFT hooks a frozen tower and it
    // keeps its graph (tests/vlm_gpu.rs); here images cost their tokens alone.
    sc.training.checkpointing = Checkpointing::Off;
    sc
}

fn peak(sc: &Scenario) -> u64 {
    estimate(sc).expect("estimates").gpus[0].peak_allocated_bytes
}

fn activations(sc: &Scenario) -> u64 {
    common::part_bytes(sc, Part::Activations)
}

#[test]
fn a_1080p_image_costs_its_qwen_tokens_in_the_sequence() {
    let spec = qwen25_7b();
    // smart_resize(1080, 1920, 28, 3136, 1003520) = 728 × 1316: 52 × 94 =
    // 4888 patches, 1222 tokens after the 2 × 2 merge; 336 px: 576 / 144.
    let mut hd = lora(&spec);
    hd.image_width = Some(1920);
    hd.image_height = Some(1080);
    let mut small = lora(&spec);
    small.image_width = Some(336);
    let mut as_text = lora(&spec);
    as_text.training.images_per_sample = 0;
    as_text.training.seq_len = 512 + 1222;
    assert_eq!(peak(&hd), peak(&as_text));
    as_text.training.seq_len = 512 + 144;
    assert_eq!(peak(&small), peak(&as_text));
    let est = estimate(&hd).expect("estimates");
    let note = est
        .notes
        .iter()
        .find(|n| n.code == "image_tokens")
        .expect("a note");
    assert!(
        note.message.contains("Qwen-VL dynamic resolution"),
        "{}",
        note.message
    );
    assert!(
        note.message
            .contains("1920×1080 image is 4888 tower tokens and 1222"),
        "{}",
        note.message
    );
    assert!(note
        .message
        .contains("512 text tokens + 1 image(s) × 1222 image tokens = 1734"));
    // Without a size the tower's default square (448 px: 256 tokens).
    let mut default = lora(&spec);
    as_text.training.seq_len = 512 + 256;
    assert_eq!(peak(&default), peak(&as_text));
    // Inference: the prompt grows the same way (KV cache of 1222 more positions).
    default.task = TaskKind::Inference;
    default.inference.images_per_prompt = 1;
    default.inference.prompt_len = 64;
    default.image_width = Some(4032);
    default.image_height = Some(3024);
    let phone = tokens(spec.image_rule.as_ref().expect("rule"), 4032, 3024).expect("fits");
    let mut text = default.clone();
    text.inference.images_per_prompt = 0;
    text.inference.prompt_len = 64 + phone.language_model_tokens;
    assert_eq!(peak(&default), peak(&text));
    // smart_resize(3024, 4032, ...) = 840 × 1148: 4920 patches, 1230 tokens.
    assert_eq!(phone.language_model_tokens, 1230);
}

#[test]
fn a_trainable_tower_keeps_activations_over_its_own_patches() {
    let spec = qwen25_7b();
    let mut frozen = lora(&spec);
    frozen.training.method = Method::Full;
    frozen.training.checkpointing = Checkpointing::Off;
    frozen.image_width = Some(1920);
    frozen.image_height = Some(1080);
    let mut trainable = frozen.clone();
    trainable.training.freeze_vision = false;
    // 4888 tower tokens (T) of 1280 (h), 16 heads, MLP 3420 (i), bf16, 32
    // Qwen2.5-VL blocks (activations/tower.rs, measured on CPU): two
    // RMSNorms 2·(4·T·h + 4·T + 2·T·h), 8 × 2·T·h of inputs, qkv and
    // rotated q/k, SDPA's outputs 2·T·h and logsumexp 4·16·T, the gated
    // MLP 4 × 2·T·i.
    let (t, h, i) = (4888u64, 1280u64, 3420u64);
    let per = 2 * (4 * t * h + 4 * t + 2 * t * h)
        + 8 * 2 * t * h
        + 2 * t * h
        + 4 * 16 * t
        + 4 * 2 * t * i;
    assert_eq!(activations(&trainable) - activations(&frozen), 32 * per);
    let est = estimate(&trainable).expect("estimates");
    let line = est.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::Activations)
        .expect("activations");
    assert!(
        line.formula
            .contains("Qwen-VL dynamic resolution: 1 image(s) of 1920×1080 = 4888 tower tokens"),
        "{}",
        line.formula
    );
}

#[test]
fn image_sizes_travel_in_links_with_presets() {
    let d = decode("v=1&t=train&img=2&imgw=1080p");
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(
        (d.scenario.image_width, d.scenario.image_height),
        (Some(1920), Some(1080))
    );
    assert_eq!(encode(&d.scenario), "v=1&t=train&img=2&imgw=1920&imgh=1080");
    for (preset, size) in [
        ("phone", (4032, 3024)),
        ("page", (1700, 2200)),
        ("640x480", (640, 480)),
    ] {
        let d = decode(&format!("v=1&ipp=1&imgh={preset}"));
        assert!(d.notices.is_empty(), "{preset}: {:?}", d.notices);
        assert_eq!(
            (d.scenario.image_width, d.scenario.image_height),
            (Some(size.0), Some(size.1))
        );
    }
    // A number sets one side; the other, unset, follows it (a square).
    let d = decode("v=1&ipp=1&imgw=336");
    assert_eq!(
        (d.scenario.image_width, d.scenario.image_height),
        (Some(336), None)
    );
    // Bad sizes are noticed, naming the parameter and the range.
    for bad in ["imgw=0", "imgw=100000", "imgh=70000x10", "imgw=big"] {
        let d = decode(&format!("v=1&ipp=1&{bad}"));
        assert_eq!(d.notices.len(), 1, "{bad}");
        assert!(
            d.notices[0].message.contains("65536"),
            "{bad}: {}",
            d.notices[0].message
        );
    }
    // The old square field decodes as before.
    let d = decode("v=1&t=train&img=2&imgsz=672");
    assert_eq!(d.scenario.training.image_size, Some(672));
    assert_eq!(d.scenario.image_width, None);
}

#[test]
fn a_custom_vlm_keeps_its_tower_count_and_rule_in_its_link() {
    let spec = qwen25_7b();
    let mut sc = lora(&spec);
    sc.image_width = Some(1920);
    sc.image_height = Some(1080);
    let link = encode(&sc);
    assert!(link.contains("s.ir=qwen_vl:14,2,3136,1003520"), "{link}");
    let d = decode(&link);
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, sc);
    assert_eq!(peak(&d.scenario), peak(&sc));
}

#[test]
fn absurd_images_are_errors_naming_the_field() {
    let spec = qwen25_7b();
    let mut sc = lora(&spec);
    // A 1 px × 60000 px strip: Qwen-VL's processor refuses aspect ratios over 200.
    sc.image_width = Some(1);
    sc.image_height = Some(60_000);
    let err = estimate_with_model(&sc, &spec).expect_err("refused");
    assert_eq!(err.field, "image_width");
    assert!(
        err.message.contains("aspect ratio over 200"),
        "{}",
        err.message
    );
    sc.image_height = Some(1 << 20);
    let err = estimate_with_model(&sc, &spec).expect_err("out of range");
    assert_eq!(err.field, "image_height");
    // 1024 phone photos per sample pass the sequence limit.
    sc.image_width = Some(4032);
    sc.image_height = Some(3024);
    sc.training.images_per_sample = 1024;
    sc.training.seq_len = 1 << 24;
    let err = estimate_with_model(&sc, &spec).expect_err("too long");
    assert_eq!(err.field, "training.images_per_sample");
}

#[test]
fn gemma3_costs_256_tokens_per_image_whatever_its_size() {
    let spec = from_hf_config(&config_text("vlm/google__gemma-3-4b-it.json")).expect("imports");
    assert_eq!(
        spec.image_rule,
        Some(ImageRule::Fixed {
            tower: 4096,
            language_model: 256
        })
    );
    assert_a_1080p_image_costs_its_tokens_as_text(&spec, 256);
}

/// A 1920×1080 image in a LoRA step costs what `tokens` more text tokens
/// cost (a fixed-token rule, the tower frozen).
fn assert_a_1080p_image_costs_its_tokens_as_text(spec: &ModelSpec, tokens: u64) {
    let mut hd = lora(spec);
    hd.image_width = Some(1920);
    hd.image_height = Some(1080);
    let mut as_text = lora(spec);
    as_text.training.images_per_sample = 0;
    as_text.training.seq_len = 512 + tokens;
    assert_eq!(peak(&hd), peak(&as_text));
}

#[test]
fn mistral3_reads_the_pixtral_rule_with_its_patch_merger() {
    for fixture in [
        "vlm/defaults__mistral3.json",
        "vlm/mistralai__Mistral-Small-3.1-24B-Instruct-2503.json",
    ] {
        let rule = rule_from_configs(&config_text(fixture), None).expect("a rule");
        assert_eq!(
            rule,
            ImageRule::Pixtral {
                patch: 14,
                merge: 2,
                longest_edge: 1540
            },
            "{fixture}"
        );
    }
    // A preprocessor's longest_edge overrides the 1540 px default.
    let rule = rule_from_configs(
        &config_text("vlm/mistralai__Mistral-Small-3.1-24B-Instruct-2503.json"),
        Some(r#"{"size": {"longest_edge": 1024}}"#),
    )
    .expect("a rule");
    assert_eq!(
        rule,
        ImageRule::Pixtral {
            patch: 14,
            merge: 2,
            longest_edge: 1024
        }
    );
}

#[test]
fn qwen3_vl_reads_its_16_px_rule_and_the_processor_limits() {
    for fixture in [
        "vlm/defaults__qwen3_vl.json",
        "vlm/Qwen__Qwen3-VL-4B-Instruct.json",
        "vlm/Qwen__Qwen3-VL-8B-Instruct.json",
    ] {
        let rule = rule_from_configs(&config_text(fixture), None).expect("a rule");
        assert_eq!(
            rule,
            ImageRule::QwenVl {
                patch: 16,
                merge: 2,
                min_pixels: 65_536,
                max_pixels: 16_777_216
            },
            "{fixture}"
        );
    }
    // Qwen3-VL's processor keeps its limits under `size`.
    let rule = rule_from_configs(
        &config_text("vlm/Qwen__Qwen3-VL-8B-Instruct.json"),
        Some(r#"{"size": {"shortest_edge": 3136, "longest_edge": 1003520}}"#),
    )
    .expect("a rule");
    assert_eq!(
        rule,
        ImageRule::QwenVl {
            patch: 16,
            merge: 2,
            min_pixels: 3136,
            max_pixels: 1_003_520
        }
    );
}

/// The image rule of each pixel-shuffle wrapper: tiles of the tower's size,
/// and the tokens per tile its shuffle leaves (SmolVLM-256M: 32² patches of
/// 16 px, folded 4 × 4 into 64; InternVL3: 32² folded 2 × 2 into 256).
#[test]
fn pixel_shuffle_wrappers_read_their_tiles_from_the_config() {
    let idefics3 = |longest_edge, tile, patch, seq_len| ImageRule::Idefics3 {
        longest_edge,
        tile,
        patch,
        seq_len,
    };
    let internvl = |tile, patch, tokens_per_tile| ImageRule::InternVl {
        tile,
        patch,
        min_tiles: 1,
        max_tiles: 12,
        tokens_per_tile,
    };
    for (fixture, rule) in [
        (
            "vlm/HuggingFaceM4__Idefics3-8B-Llama3.json",
            idefics3(1456, 364, 14, 169),
        ),
        (
            "vlm/HuggingFaceTB__SmolVLM-256M-Instruct.json",
            idefics3(2048, 512, 16, 64),
        ),
        (
            "vlm/HuggingFaceTB__SmolVLM2-2.2B-Instruct.json",
            idefics3(1536, 384, 14, 81),
        ),
        // Idefics3VisionConfig()'s 224 px in 32 px patches: int(7² / 2²) = 12.
        ("vlm/defaults__idefics3.json", idefics3(896, 224, 32, 12)),
        (
            "vlm/made_up__idefics3_mistral_tied.json",
            idefics3(400, 100, 16, 4),
        ),
        (
            "vlm/OpenGVLab__InternVL3-1B-hf.json",
            internvl(448, 14, 256),
        ),
        (
            "vlm/OpenGVLab__InternVL3-8B-hf.json",
            internvl(448, 14, 256),
        ),
        ("vlm/defaults__internvl.json", internvl(448, 14, 256)),
        // downsample_ratio 0.25: 16² patches folded 4 × 4.
        (
            "vlm/made_up__internvl_qwen3_rms.json",
            internvl(224, 14, 16),
        ),
        (
            "vlm/made_up__internvl_llama_no_positions.json",
            internvl(336, 14, 144),
        ),
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        assert_eq!(spec.image_rule, Some(rule), "{fixture}");
    }
    // The preprocessor's tile limits and sizes override the defaults.
    let spec = from_hf_configs(
        &config_text("vlm/OpenGVLab__InternVL3-8B-hf.json"),
        Some(r#"{"min_patches": 1, "max_patches": 6}"#),
    )
    .expect("imports");
    assert_eq!(
        spec.image_rule,
        Some(ImageRule::InternVl {
            tile: 448,
            patch: 14,
            min_tiles: 1,
            max_tiles: 6,
            tokens_per_tile: 256
        })
    );
    let spec = from_hf_configs(
        &config_text("vlm/HuggingFaceTB__SmolVLM-256M-Instruct.json"),
        Some(r#"{"size": {"longest_edge": 1024}, "max_image_size": {"longest_edge": 512}}"#),
    )
    .expect("imports");
    assert_eq!(spec.image_rule, Some(idefics3(1024, 512, 16, 64)));
}

/// A 1080p image costs what the processors give (`data/vision/image_tokens.jsonl`:
/// 3 × 4 tiles + the global image for SmolVLM, 9 tiles for InternVL, 3 × 5
/// tiles + the base image for LLaVA-OneVision; PaliGemma's 256 whatever the size).
#[test]
fn a_1080p_image_costs_its_tiles_in_the_sequence() {
    for (fixture, lm_tokens) in [
        ("vlm/HuggingFaceM4__Idefics3-8B-Llama3.json", 2197),
        ("vlm/HuggingFaceTB__SmolVLM-256M-Instruct.json", 832),
        ("vlm/HuggingFaceTB__SmolVLM2-2.2B-Instruct.json", 1053),
        ("vlm/OpenGVLab__InternVL3-1B-hf.json", 2304),
        ("vlm/llava-hf__llava-onevision-qwen2-0.5b-ov-hf.json", 7269),
        ("vlm/google__paligemma-3b-pt-224.json", 256),
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        let rule = spec.image_rule.as_ref().expect("a rule");
        assert_eq!(
            tokens(rule, 1920, 1080)
                .expect("fits")
                .language_model_tokens,
            lm_tokens,
            "{fixture}"
        );
        let mut hd = lora(&spec);
        hd.image_width = Some(1920);
        hd.image_height = Some(1080);
        let mut as_text = lora(&spec);
        as_text.training.images_per_sample = 0;
        as_text.training.seq_len = 512 + lm_tokens;
        assert_eq!(peak(&hd), peak(&as_text), "{fixture}");
    }
}

/// What the importers cannot model is an error naming the field, never a
/// panic or a guess.
#[test]
fn unmodelled_pixel_shuffle_configs_are_errors_naming_the_field() {
    let base: serde_json::Value =
        serde_json::from_str(&config_text("vlm/made_up__internvl_qwen3_rms.json")).expect("json");
    let refused = |edit: &dyn Fn(&mut serde_json::Value), field: &str, words: &str| {
        let mut cfg = base.clone();
        edit(&mut cfg);
        let e = from_hf_config(&cfg.to_string()).expect_err("refused");
        assert_eq!(e.field, format!("config.json: {field}"), "{e}");
        assert!(e.message.contains(words), "{field}: {}", e.message);
    };
    refused(
        &|c| c["downsample_ratio"] = serde_json::json!(0.3),
        "downsample_ratio",
        "only 1/k",
    );
    refused(
        &|c| c["vision_config"]["image_size"] = serde_json::json!([448, 336]),
        "vision_config.image_size",
        "only square",
    );
    refused(
        &|c| c["vision_config"]["norm_type"] = serde_json::json!("batch_norm"),
        "vision_config.norm_type",
        "layer_norm or rms_norm",
    );
    refused(
        &|c| c["vision_config"]["num_attention_heads"] = serde_json::json!(7),
        "vision_config.num_attention_heads",
        "do not divide",
    );
    refused(
        &|c| {
            c.as_object_mut().map(|o| o.remove("text_config"));
        },
        "text_config",
        "is missing",
    );
    let smol: serde_json::Value =
        serde_json::from_str(&config_text("vlm/made_up__smolvlm_llama_diff.json")).expect("json");
    let mut cfg = smol.clone();
    cfg["vision_config"]["image_size"] = serde_json::json!(16);
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(e.field, "config.json: vision_config.patch_size", "{e}");
    let mut cfg = smol;
    cfg["scale_factor"] = serde_json::json!("2");
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(e.field, "config.json: scale_factor", "{e}");
    // Absurd values anywhere the new importers and rules read: an answer,
    // never a panic (overflow included).
    let absurd = [
        serde_json::json!(u64::MAX),
        serde_json::json!(0),
        serde_json::json!(-1),
        serde_json::json!(1e30),
        serde_json::json!([0, 0]),
        serde_json::json!([u64::MAX, u64::MAX]),
        serde_json::json!("x"),
    ];
    let preprocessors = [
        r#"{"max_image_size": {"longest_edge": 18446744073709551615}, "size": {"height": 0}}"#,
        r#"{"min_patches": 0, "max_patches": 18446744073709551615}"#,
    ];
    for fixture in [
        "vlm/made_up__idefics3_mistral_tied.json",
        "vlm/made_up__internvl_qwen3_rms.json",
        "vlm/made_up__paligemma_head_untied.json",
        "vlm/made_up__llava_onevision_layers_nobias.json",
    ] {
        let base: serde_json::Value = serde_json::from_str(&config_text(fixture)).expect("json");
        for key in [
            "scale_factor",
            "downsample_ratio",
            "projection_dim",
            "vision_aspect_ratio",
            "image_grid_pinpoints",
            "tie_word_embeddings",
        ]
        .iter()
        .map(|k| (None, *k))
        .chain(
            [
                "hidden_size",
                "image_size",
                "patch_size",
                "num_attention_heads",
                "num_channels",
                "num_hidden_layers",
            ]
            .iter()
            .map(|k| (Some("vision_config"), *k)),
        ) {
            for value in &absurd {
                let mut cfg = base.clone();
                match key {
                    (Some(sub), k) => cfg[sub][k] = value.clone(),
                    (None, k) => cfg[k] = value.clone(),
                }
                let text = cfg.to_string();
                let _ = from_hf_config(&text);
                for pre in preprocessors {
                    let _ = from_hf_configs(&text, Some(pre));
                    let _ = rule_from_configs(&text, Some(pre));
                }
            }
        }
    }
}

/// PaliGemma: one token per patch of the tower's square (16² = 256 at
/// 224 px, 32² at 448 px); LLaVA-OneVision: the any-resolution grid, shrunk
/// past 9 tiles' worth (1920×1080: 3 × 5 tiles of 384 px, 75 × 135 unpadded
/// features shrunk by 1.24 to 60 × 108 + 60 newlines, + the 729 of the base
/// image: 7,269, as its processor counts).
#[test]
fn paligemma_and_onevision_read_their_rules() {
    for (fixture, side) in [
        ("vlm/google__paligemma-3b-pt-224.json", 16),
        ("vlm/google__paligemma2-3b-pt-448.json", 32),
        ("vlm/defaults__paligemma.json", 16),
        ("vlm/made_up__paligemma_head_untied.json", 7),
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        assert_eq!(
            spec.image_rule,
            Some(ImageRule::Fixed {
                tower: side * side,
                language_model: side * side
            }),
            "{fixture}"
        );
    }
    let spec = from_hf_config(&config_text(
        "vlm/llava-hf__llava-onevision-qwen2-7b-ov-hf.json",
    ))
    .expect("imports");
    let rule = spec.image_rule.clone().expect("a rule");
    let ImageRule::LlavaOneVision {
        crop,
        patch,
        max_patches,
        ref pinpoints,
    } = rule
    else {
        panic!("{rule:?}")
    };
    assert_eq!(
        (crop, patch, max_patches, pinpoints.len()),
        (384, 14, 9, 36)
    );
    let hd = tokens(&rule, 1920, 1080).expect("fits");
    assert_eq!((hd.language_model_tokens, hd.tiles), (7269, Some(16)));
    // The rule travels in a link and reads back the same.
    assert_eq!(ImageRule::from_text(&rule.to_text()), Ok(rule.clone()));
    let mut sc = lora(&spec);
    sc.image_width = Some(1920);
    sc.image_height = Some(1080);
    let d = decode(&encode(&sc));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, sc);
    // Only `anyres_max_N` is modelled.
    let mut cfg: serde_json::Value = serde_json::from_str(&config_text(
        "vlm/llava-hf__llava-onevision-qwen2-0.5b-ov-hf.json",
    ))
    .expect("json");
    cfg["vision_aspect_ratio"] = serde_json::json!("anyres");
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(e.field, "config.json: vision_aspect_ratio", "{e}");
    cfg["vision_aspect_ratio"] = serde_json::json!("anyres_max_4");
    cfg["vision_config"]["model_type"] = serde_json::json!("clip_vision_model");
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(e.field, "config.json: vision_config.model_type", "{e}");
    assert!(e.message.contains("siglip_vision_model"), "{}", e.message);
}

fn llama4_rule(tile: u64, patch: u64, tokens_per_tile: u64) -> ImageRule {
    ImageRule::Llama4 {
        tile,
        patch,
        max_tiles: 16,
        tokens_per_tile,
        max_canvas: false,
    }
}

/// Llama 4: tiles of the tower's square (Scout and Maverick: 336 px in
/// 14 px patches, 24² folded 2 × 2 into 144 tokens), at most 16 of them;
/// Qwen3.5 (dense and MoE): Qwen3-VL's 16 px dynamic resolution.
#[test]
fn llama4_and_qwen3_5_read_their_rules_from_the_config() {
    for (fixture, rule) in [
        (
            "vlm/meta-llama__Llama-4-Scout-17B-16E-Instruct.json",
            llama4_rule(336, 14, 144),
        ),
        (
            "vlm/meta-llama__Llama-4-Maverick-17B-128E-Instruct.json",
            llama4_rule(336, 14, 144),
        ),
        // Llama4VisionConfig()'s 448 px tower: 32² patches, 256 tokens.
        ("vlm/defaults__llama4.json", llama4_rule(448, 14, 256)),
        // pixel_shuffle_ratio 0.25: 16² patches folded 4 × 4.
        (
            "vlm/made_up__llama4_moe_layers_untied.json",
            llama4_rule(256, 16, 16),
        ),
        (
            "vlm/made_up__llama4_text_diff_tied.json",
            llama4_rule(112, 14, 16),
        ),
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        assert_eq!(spec.image_rule, Some(rule), "{fixture}");
    }
    for fixture in [
        "vlm/Qwen__Qwen3.5-0.8B.json",
        "vlm/Qwen__Qwen3.5-35B-A3B.json",
        "vlm/defaults__qwen3_5.json",
        "vlm/defaults__qwen3_5_moe.json",
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        assert_eq!(
            spec.image_rule,
            Some(ImageRule::QwenVl {
                patch: 16,
                merge: 2,
                min_pixels: 65_536,
                max_pixels: 16_777_216
            }),
            "{fixture}"
        );
    }
    // The preprocessor's tile size, tile limit and canvas choice win.
    let scout = config_text("vlm/meta-llama__Llama-4-Scout-17B-16E-Instruct.json");
    let spec = from_hf_configs(
        &scout,
        Some(r#"{"size": {"height": 336, "width": 336}, "max_patches": 4, "resize_to_max_canvas": true}"#),
    )
    .expect("imports");
    let rule = ImageRule::Llama4 {
        tile: 336,
        patch: 14,
        max_tiles: 4,
        tokens_per_tile: 144,
        max_canvas: true,
    };
    assert_eq!(spec.image_rule, Some(rule.clone()));
    assert_eq!(rule.to_text(), "llama4:336,14,4,144,1");
    assert_eq!(ImageRule::from_text(&rule.to_text()), Ok(rule));
    assert!(ImageRule::from_text("llama4:336,14,4,144,2").is_err());
}

/// A 1080p image under Scout's rule: a 3 × 5 canvas of 336 px tiles and the
/// global tile, 16 × 577 tower tokens; the prompt holds 16 × 144 patch
/// tokens, 15 tile separators and the start, image and end markers: 2,322
/// (`data/vision/image_tokens.jsonl`, as `Llama4Processor` writes it).
#[test]
fn a_1080p_image_costs_its_llama4_tiles_in_the_sequence() {
    let spec = from_hf_config(&config_text(
        "vlm/meta-llama__Llama-4-Scout-17B-16E-Instruct.json",
    ))
    .expect("imports");
    let rule = spec.image_rule.as_ref().expect("a rule");
    let hd = tokens(rule, 1920, 1080).expect("fits");
    assert_eq!(
        (hd.tower_tokens, hd.language_model_tokens, hd.tiles),
        (9232, 2322, Some(16))
    );
    // One tile alone: 144 patches and 3 markers, no global tile.
    let small = tokens(rule, 336, 336).expect("fits");
    assert_eq!(
        (small.tower_tokens, small.language_model_tokens, small.tiles),
        (577, 147, Some(1))
    );
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec.clone())),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.inference.images_per_prompt = 1;
    sc.inference.prompt_len = 64;
    sc.image_width = Some(1920);
    sc.image_height = Some(1080);
    let mut text = sc.clone();
    text.inference.images_per_prompt = 0;
    text.inference.prompt_len = 64 + 2322;
    assert_eq!(peak(&sc), peak(&text));
    let note = estimate(&sc)
        .expect("estimates")
        .notes
        .into_iter()
        .find(|n| n.code == "image_tokens")
        .expect("a note");
    assert!(
        note.message
            .contains("Llama 4 tiles rule: each 1920×1080 image is 9232 tower tokens and 2322"),
        "{}",
        note.message
    );
    let d = decode(&encode(&sc));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    assert_eq!(d.scenario, sc);
}

/// A wrapper without its `vision_config` gets the class defaults' tower,
/// as transformers builds it; one without a `text_config` reads its
/// fields flat, with no tower.
#[test]
fn llama4_and_qwen3_5_wrappers_without_a_vision_config_get_the_default_tower() {
    for (fixture, tower) in [
        (
            "vlm/meta-llama__Llama-4-Scout-17B-16E-Instruct.json",
            415_856_640,
        ),
        ("vlm/Qwen__Qwen3.5-0.8B.json", 415_891_440),
    ] {
        let mut cfg: serde_json::Value = serde_json::from_str(&config_text(fixture)).expect("json");
        cfg.as_object_mut().map(|o| o.remove("vision_config"));
        let spec = from_hf_config(&cfg.to_string()).expect("imports");
        assert_eq!(spec.param_counts().vision, tower, "{fixture}");
    }
    let text = config_text("defaults_2025/llama4_text.json");
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["model_type"] = serde_json::json!("llama4");
    let spec = from_hf_config(&cfg.to_string()).expect("imports");
    assert!(spec.vision.is_none());
    assert_eq!(spec.param_counts().total, 107_769_861_120);
}

/// What the Llama 4 and Qwen3.5 importers cannot model is an error naming
/// the field; absurd values are answers, never panics.
#[test]
fn unmodelled_llama4_and_qwen3_5_configs_are_errors_naming_the_field() {
    let llama: serde_json::Value =
        serde_json::from_str(&config_text("vlm/made_up__llama4_moe_layers_untied.json"))
            .expect("json");
    let qwen: serde_json::Value =
        serde_json::from_str(&config_text("vlm/made_up__qwen3_5_text_diff_tied.json"))
            .expect("json");
    let refused = |base: &serde_json::Value,
                   edit: &dyn Fn(&mut serde_json::Value),
                   field: &str,
                   words: &str| {
        let mut cfg = base.clone();
        edit(&mut cfg);
        let e = from_hf_config(&cfg.to_string()).expect_err("refused");
        assert_eq!(e.field, format!("config.json: {field}"), "{e}");
        assert!(e.message.contains(words), "{field}: {}", e.message);
    };
    refused(
        &llama,
        &|c| c["vision_config"]["pixel_shuffle_ratio"] = serde_json::json!(0.3),
        "vision_config.pixel_shuffle_ratio",
        "only 1/k",
    );
    // 0.5 folds 2 × 2, but 256 / 16 = 16 patches a side: fine; 240 px are 15.
    refused(
        &llama,
        &|c| c["vision_config"]["image_size"] = serde_json::json!(240),
        "vision_config.pixel_shuffle_ratio",
        "15 patches a side",
    );
    refused(
        &llama,
        &|c| c["vision_config"]["num_attention_heads"] = serde_json::json!(5),
        "vision_config.num_attention_heads",
        "do not divide",
    );
    refused(
        &llama,
        &|c| c["vision_config"]["patch_size"] = serde_json::json!(512),
        "vision_config.patch_size",
        "do not fit",
    );
    refused(
        &llama,
        &|c| c["vision_config"]["image_size"] = serde_json::json!([256, 256]),
        "vision_config.image_size",
        "expected a whole number",
    );
    refused(
        &qwen,
        &|c| c["vision_config"]["num_heads"] = serde_json::json!(5),
        "vision_config.num_heads",
        "do not divide",
    );
    refused(
        &qwen,
        &|c| c["text_config"] = serde_json::json!(null),
        "text_config",
        "is missing",
    );
    let e = from_hf_configs(
        &llama.to_string(),
        Some(r#"{"size": {"height": 336, "width": 448}}"#),
    )
    .expect_err("refused");
    assert_eq!(e.field, "preprocessor_config.json: size", "{e}");
    let absurd = [
        serde_json::json!(u64::MAX),
        serde_json::json!(0),
        serde_json::json!(-1),
        serde_json::json!(1e30),
        serde_json::json!([0, 0]),
        serde_json::json!("x"),
    ];
    let preprocessors = [
        r#"{"size": {"height": 18446744073709551615, "width": 18446744073709551615}, "max_patches": 0}"#,
        r#"{"max_patches": 18446744073709551615, "resize_to_max_canvas": 3}"#,
    ];
    for base in [&llama, &qwen] {
        for (sub, key) in [
            ("vision_config", "hidden_size"),
            ("vision_config", "image_size"),
            ("vision_config", "patch_size"),
            ("vision_config", "pixel_shuffle_ratio"),
            ("vision_config", "num_attention_heads"),
            ("vision_config", "num_heads"),
            ("vision_config", "spatial_merge_size"),
            ("vision_config", "vision_output_dim"),
            ("text_config", "hidden_size"),
            ("text_config", "num_hidden_layers"),
            ("text_config", "interleave_moe_layer_step"),
        ] {
            for value in &absurd {
                let mut cfg = base.clone();
                cfg[sub][key] = value.clone();
                let text = cfg.to_string();
                let _ = from_hf_config(&text);
                for pre in preprocessors {
                    let _ = from_hf_configs(&text, Some(pre));
                    if let Ok(rule) = rule_from_configs(&text, Some(pre)) {
                        let _ = tokens(&rule, 65_536, 1);
                    }
                }
            }
        }
    }
}

/// Aya Vision's pixel shuffle folds k × k patches: a factor that does not
/// divide the tower's side is refused by name (transformers would fail on
/// the first image), as is a tower head count that does not divide its width.
#[test]
fn aya_vision_refuses_a_shuffle_that_cannot_fold_the_patches() {
    let text = config_text("vlm/made_up__aya_vision_8b_shape.json");
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    // 364 / 14 = 26 patches a side: 2 folds them, 3 does not.
    cfg["downsample_factor"] = 3.into();
    let err = from_hf_config(&cfg.to_string()).expect_err("26 is not a multiple of 3");
    assert_eq!(err.field, "config.json: downsample_factor");
    cfg["downsample_factor"] = 2.into();
    cfg["vision_config"]["num_attention_heads"] = 14.into();
    let err = from_hf_config(&cfg.to_string()).expect_err("1152 / 14 heads");
    assert_eq!(err.field, "config.json: vision_config.num_attention_heads");
    // A preprocessor tile of another size than the tower's is refused.
    cfg["vision_config"]["num_attention_heads"] = 16.into();
    let err = vramfit_core::hf_config::from_hf_configs(
        &cfg.to_string(),
        Some(r#"{"size": {"height": 400, "width": 400}}"#),
    )
    .expect_err("400 px tiles on a 364 px tower");
    assert_eq!(err.field, "preprocessor_config.json: size");
    // 26 patches a side in 13 × 13 shuffled tokens per tile.
    cfg["vision_config"]["num_attention_heads"] = 16.into();
    let spec = from_hf_config(&cfg.to_string()).expect("imports");
    assert!(matches!(
        spec.image_rule,
        Some(ImageRule::AyaVision {
            tile: 364,
            tokens_per_tile: 169,
            ..
        })
    ));
}

#[test]
fn gemma3n_hands_its_soft_tokens_per_image_to_the_text() {
    let text = config_text("variants_2026/gemma3n__1.json");
    let spec = from_hf_config(&text).expect("imports");
    assert_eq!(
        spec.image_rule,
        Some(ImageRule::Fixed {
            tower: 256,
            language_model: 256
        })
    );
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["vision_soft_tokens_per_image"] = 64.into();
    let spec = from_hf_config(&cfg.to_string()).expect("imports");
    let Some(ImageRule::Fixed { language_model, .. }) = spec.image_rule else {
        panic!("{:?}", spec.image_rule);
    };
    assert_eq!(language_model, 64);
    // an image costs its 64 tokens in the sequence, whatever its size
    assert_a_1080p_image_costs_its_tokens_as_text(&spec, 64);
}

/// A wrapper's class-default config (`variants_2026/`), imported, and its
/// image rule.
fn class_default(fixture: &str) -> (ModelSpec, ImageRule) {
    let text = config_text(&format!("variants_2026/{fixture}.json"));
    let spec = from_hf_config(&text).expect("imports");
    let rule = rule_from_configs(&text, None).expect("a rule");
    // The import carries the rule the estimate sizes images by.
    assert_eq!(spec.image_rule.as_ref(), Some(&rule), "{fixture}");
    (spec, rule)
}

/// EXAONE 4.5: Qwen2.5-VL's tower with 8 grouped key-value heads (16 heads
/// of 224) and its merger, split as transformers 5.24 builds the class
/// defaults on the meta device (`Exaone4_5_VisionModel` 2,414,946,048
/// without its merger of 256,922,624); images by Qwen2VLImageProcessor's
/// defaults, a 1920 × 1080 frame 728 × 1316 px, 1,222 tokens.
#[test]
fn exaone4_5_splits_its_grouped_tower_and_reads_the_qwen_rule() {
    let (spec, rule) = class_default("exaone4_5__0");
    let counts = spec.param_counts();
    assert_eq!(
        (counts.vision, counts.projector),
        (2_414_946_048, 256_922_624)
    );
    assert_eq!(
        rule,
        ImageRule::QwenVl {
            patch: 14,
            merge: 2,
            min_pixels: 3136,
            max_pixels: 1_003_520
        }
    );
    let frame = tokens(&rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (4888, 1222)
    );
}

/// HyperCLOVA X Vision V2: Qwen2.5-VL's tower (2,826,102,528 without its
/// merger) and, as projector, the merger (256,922,624) with the linear to
/// the text width (3,584 × 4,096 + 4,096), summing to transformers 5.24's
/// parts on the meta device (ViT 3,083,025,152, projector 14,684,160);
/// images by Qwen2VLImageProcessorPil, a synthetic 1000 × 700 image a grid
/// of 3,600 patches, 900 tokens.
#[test]
fn hyperclovax_vision_v2_splits_its_tower_and_reads_the_qwen_rule() {
    let (spec, rule) = class_default("hyperclovax_vision_v2__0");
    let counts = spec.param_counts();
    assert_eq!(
        (counts.vision, counts.projector),
        (2_826_102_528, 256_922_624 + 14_684_160)
    );
    assert!(spec.tied_embeddings);
    let image = tokens(&rule, 1000, 700).expect("tokens");
    assert_eq!(
        (image.tower_tokens, image.language_model_tokens),
        (3600, 900)
    );
}

/// MiniCPM-OCR: MiniCPM-V 4.6's modules, split as transformers 5.24 builds
/// the class defaults on the meta device (the SigLIP-shaped tower with its
/// window merger 135,366,144, the MLP merger 22,033,408), tied by default;
/// images by MiniCPMOcrImageProcessor, 4.6's slicing at "4x" (2 × 2
/// merging); its glyph-adaptive upsizing is refused by field.
#[test]
fn minicpm_ocr_splits_its_tower_and_reads_the_sliced_rule() {
    let (spec, rule) = class_default("minicpm_ocr__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (135_366_144, 22_033_408));
    assert!(spec.tied_embeddings);
    assert_eq!(
        rule,
        ImageRule::MiniCpmV {
            patch: 14,
            merge: 2,
            scale: 448,
            max_slices: 9
        }
    );
    let text = config_text("variants_2026/minicpm_ocr__0.json");
    let err = rule_from_configs(&text, Some(r#"{"small_image_upsize": "adaptive"}"#)).unwrap_err();
    assert_eq!(err.field, "preprocessor_config.json: small_image_upsize");
    let always = rule_from_configs(&text, Some(r#"{"small_image_upsize": "always"}"#));
    assert_eq!(always.ok(), Some(rule));
}

/// GLM-OCR: its tower (no position table, biased qkv, proj and MLP, q/k
/// norms) and merger split as transformers 5.24 builds the class defaults
/// (404,231,168 and 29,889,024 on the meta device); images by GLM-4V's
/// rule at Glm46VImageProcessor's defaults: a 1920 × 1080 frame is resized
/// to 1932 × 1092, 10,764 patches, 2,691 tokens (the processor's count).
#[test]
fn glm_ocr_splits_its_tower_and_reads_the_glm4v_rule() {
    let (spec, rule) = class_default("glm_ocr__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (404_231_168, 29_889_024));
    assert!(matches!(rule, ImageRule::Glm4v { .. }), "{rule:?}");
    let frame = tokens(&rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (10_764, 2691)
    );
}

/// LFM3-VL: its conv + attention tower and projector split as transformers
/// 5.24 builds the class defaults (164,206,336 and 25,174,016 on the meta
/// device); images by Qwen2VLImageProcessor with the tower's 16 px patch:
/// 640 × 480 is 300 tokens and 1920 × 1080 (736 × 1312 px) 943, as the
/// processor counts them; videos by Qwen3-VL's video processor.
#[test]
fn lfm3_vl_splits_its_tower_and_reads_the_qwen_rules() {
    let (spec, rule) = class_default("lfm3_vl__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (164_206_336, 25_174_016));
    let lm = |w, h| tokens(&rule, w, h).expect("tokens").language_model_tokens;
    assert_eq!((lm(640, 480), lm(1920, 1080)), (300, 943));
    assert!(matches!(
        spec.video,
        Some(vramfit_core::model::VideoFamily::Qwen3 { temporal: 2 })
    ));
}

/// Idefics2: its tower and connector (the SwiGLU projection and the
/// perceiver resampler) split as transformers 5.24 builds the class
/// defaults (87,453,696 and 732,209,152 on the meta device); images by
/// `Idefics2ImageProcessor`'s defaults in the tower's patches (32 px in
/// the class, 14 px in idefics2-8b's shape), 64 latents each in the text,
/// five times that with the quarters when splitting.
#[test]
fn idefics2_splits_its_connector_and_reads_its_resize_rule() {
    let (spec, rule) = class_default("idefics2__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (87_453_696, 732_209_152));
    assert_eq!(
        rule,
        ImageRule::Idefics2 {
            patch: 32,
            shortest_edge: 378,
            longest_edge: 980,
            seq_len: 64,
            split: false
        }
    );
    let text = config_text("variants_2026/idefics2__5.json");
    // A phone photo: 980 × 735 px, 70 × 52 patches (the processor's count).
    let rule = rule_from_configs(&text, None).expect("a rule");
    let photo = tokens(&rule, 4032, 3024).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (3640, 64)
    );
    let split = rule_from_configs(&text, Some(r#"{"do_image_splitting": true}"#)).expect("a rule");
    let photo = tokens(&split, 4032, 3024).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens, photo.tiles),
        (5 * 3640, 320, Some(5))
    );
    let spec = from_hf_config(&text).expect("imports");
    assert_a_1080p_image_costs_its_tokens_as_text(&spec, 64);
}

/// Command A Vision: SigLIP with its pooling head (349,259,520) and Aya
/// Vision's projector without the norm, `alignment_intermediate_size`
/// 36864 (320,909,312), as transformers 5.24 builds the class defaults;
/// images cut on Llama 4's canvas of 512 px tiles: a phone photo is 12
/// tiles and a thumbnail, 13 · (256 + 1) + 2 = 3343 tokens in the text
/// (the processor's count).
#[test]
fn cohere2_vision_splits_its_projector_and_reads_its_canvas_rule() {
    let (spec, rule) = class_default("cohere2_vision__0");
    let counts = spec.param_counts();
    assert_eq!(
        (counts.vision, counts.projector),
        (349_259_520, 320_909_312)
    );
    assert_eq!(
        rule,
        ImageRule::Cohere2Vision {
            tile: 512,
            patch: 16,
            max_tiles: 12,
            tokens_per_tile: 256
        }
    );
    let photo = tokens(&rule, 4032, 3024).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens, photo.tiles),
        (13 * 1024, 3343, Some(13))
    );
    let square = tokens(&rule, 336, 336).expect("tokens");
    assert_eq!(
        (square.tower_tokens, square.language_model_tokens),
        (1024, 259)
    );
}

/// Kimi K2.5: the MoonViT tower (416,866,032) and projector (54,277,888)
/// as transformers 5.24 builds the class defaults, the head tied by the
/// wrapper over a DeepSeek-V3 that does not tie (670,570,869,232 in all);
/// images by `navit_resize`: a phone photo is 112 × 148 patches after
/// padding (16,576 in the tower, 4,144 tokens in the text: the
/// processor's count). Its vision model has no input embeddings, so PEFT
/// hooks nothing in a frozen tower.
#[test]
fn kimi_k25_splits_moonvit_and_reads_its_navit_rule() {
    let (spec, rule) = class_default("kimi_k25__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (416_866_032, 54_277_888));
    assert!(spec.tied_embeddings);
    assert!(spec.vision.as_ref().is_some_and(|v| v.unhooked));
    assert_eq!(
        rule,
        ImageRule::KimiK25 {
            patch: 14,
            merge: 2,
            max_patches: 16_384,
            max_side: 512
        }
    );
    let photo = tokens(&rule, 4032, 3024).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (16_576, 4144)
    );
}

/// Step-3.7-Flash: the tower with its two downsamplers (1,955,848,960) and
/// the linear projector (25,165,824) as transformers 5.24 builds the class
/// defaults on the meta device (197,824,847,872 in all, untied); images by
/// `Step3p7ImageProcessor`: a 1920 × 1080 frame is the 728 px view and a
/// 4 × 2 grid of 504 px crops (13,072 tower patches, 836 prompt tokens: the
/// processor's count), a 640 × 480 photo the view alone (2,704 and 171).
#[test]
fn step3p7_splits_its_downsampled_tower_and_reads_its_crop_rule() {
    let (spec, rule) = class_default("step3p7__0");
    let counts = spec.param_counts();
    assert_eq!(
        (counts.vision, counts.projector),
        (1_955_848_960, 25_165_824)
    );
    assert!(!spec.tied_embeddings);
    assert_eq!(
        rule,
        ImageRule::Step3p7 {
            global: 728,
            crop: 504,
            max_side: 3024,
            patch: 14,
            stride: 4
        }
    );
    let frame = tokens(&rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (13_072, 836)
    );
    let photo = tokens(&rule, 640, 480).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (2704, 171)
    );
}

/// LFM2-VL: the SigLIP2 tower with the pooling head its class defaults
/// build (92,930,304) and the pixel-unshuffle projector (14,429,184) as
/// transformers 5.24 builds the class defaults on the meta device
/// (2,812,857,088 in all, tied by the wrapper); images by
/// `Lfm2VlImageProcessor`: a 1920 × 1080 frame is a 4 × 2 grid of 512 px
/// tiles and a thumbnail, nine entries of 1,024 patch slots and 2,311
/// prompt tokens (the processor's count), a 640 × 480 photo one resized
/// entry (1,024 slots, 236 tokens).
#[test]
fn lfm2_vl_splits_siglip2_and_reads_its_tile_rule() {
    let (spec, rule) = class_default("lfm2_vl__0");
    let counts = spec.param_counts();
    assert_eq!((counts.vision, counts.projector), (92_930_304, 14_429_184));
    assert!(spec.tied_embeddings);
    let frame = tokens(&rule, 1920, 1080).expect("tokens");
    assert_eq!(
        (frame.tower_tokens, frame.language_model_tokens),
        (9 * 1024, 2311)
    );
    let photo = tokens(&rule, 640, 480).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (1024, 236)
    );
}

/// A wrapper with no `text_config` builds its text class's defaults, flags
/// included: `{"model_type": "lfm2_vl"}` is `Lfm2VlConfig()`, whose
/// `Lfm2Config()` shrinks its feed-forward (`block_auto_adjust_ff_dim`):
/// 2,812,857,088 parameters on the meta device, as the saved class
/// defaults count.
#[test]
fn a_wrapper_without_text_config_takes_the_text_class_defaults() {
    let bare = from_hf_config(r#"{"model_type":"lfm2_vl"}"#).expect("imports");
    let (saved, _) = class_default("lfm2_vl__0");
    assert_eq!(bare.param_counts().total, 2_812_857_088);
    assert_eq!(bare.param_counts().total, saved.param_counts().total);
}

/// ShieldGemma 2 is Gemma 3's whole model under an image classifier
/// (4,300,079,472 parameters at gemma-3-4b's sizes, measured), tied when
/// either flag is, and its processor turns pan-and-scan off whatever the
/// preprocessor says: one 896 px square, 256 tokens, per image.
#[test]
fn shieldgemma2_is_gemma3_with_pan_and_scan_off() {
    let config = config_text("variants_2026/shieldgemma2__1.json");
    let spec = from_hf_configs(
        &config,
        Some(r#"{"do_pan_and_scan": true, "size": {"height": 896, "width": 896}}"#),
    )
    .expect("imports");
    assert_eq!(spec.param_counts().total, 4_300_079_472);
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let photo = tokens(rule, 4032, 3024).expect("tokens");
    assert_eq!(
        (photo.tower_tokens, photo.language_model_tokens),
        (4096, 256)
    );
}

/// HunYuan-VL (HunyuanOCR) at its class defaults with head_dim 128
/// (8,139,351,536 parameters, measured; its own head_dim of None cannot
/// build, and the importer says so by field); a 1080p frame is 2,076
/// tokens and its transpose 2,102 (a newline per merged row).
#[test]
fn hunyuan_vl_writes_a_newline_per_row() {
    let spec = from_hf_config(&config_text("variants_2026/hunyuan_vl__0.json")).expect("imports");
    assert_eq!(spec.param_counts().total, 8_139_351_536);
    let rule = spec.image_rule.as_ref().expect("an image rule");
    let wide = tokens(rule, 1920, 1080).expect("tokens");
    let tall = tokens(rule, 1080, 1920).expect("tokens");
    assert_eq!(
        (wide.language_model_tokens, tall.language_model_tokens),
        (2_076, 2_102)
    );
    let e =
        from_hf_config(r#"{"model_type":"hunyuan_vl","text_config":{}}"#).expect_err("no head_dim");
    assert!(e.field.ends_with("head_dim"), "{}", e.field);
}

/// MiniCPM-V 4.6 and 4.7 build the same modules (9,111,202,816
/// parameters at their class defaults, measured, untied by default); a
/// 640 × 480 photo is a thumbnail and two slices, 203 tokens (63 + 70 +
/// 70, one per 4 × 4 patches), and 4x mode keeps four times as many.
#[test]
fn minicpm_v_slices_an_image() {
    for model_type in ["minicpmv4_6", "minicpmv4_7"] {
        let spec = from_hf_config(&format!(r#"{{"model_type":"{model_type}"}}"#)).expect("imports");
        assert_eq!(spec.param_counts().total, 9_111_202_816, "{model_type}");
        let rule = spec.image_rule.as_ref().expect("an image rule");
        let photo = tokens(rule, 640, 480).expect("tokens");
        assert_eq!((photo.tiles, photo.language_model_tokens), (Some(3), 203));
    }
    let four = from_hf_configs(
        r#"{"model_type":"minicpmv4_6"}"#,
        Some(r#"{"downsample_mode":"4x"}"#),
    )
    .expect("imports");
    let rule = four.image_rule.as_ref().expect("an image rule");
    assert_eq!(
        tokens(rule, 640, 480)
            .expect("tokens")
            .language_model_tokens,
        772
    );
}

/// PerceptionLM's class defaults (a resnet50 timm wrapper without
/// `model_args`) do not build in transformers and are refused here by
/// field; so are a tower that is not a Perception Encoder and a
/// `model_args` without the `embed_dim` its projector reads.
#[test]
fn perception_lm_refuses_what_transformers_cannot_build() {
    use vramfit_core::hf_config::from_hf_config;
    let e = from_hf_config(r#"{"model_type": "perception_lm"}"#).unwrap_err();
    assert!(e.field.ends_with("vision_config"), "{e}");
    let mut d: serde_json::Value =
        serde_json::from_str(&config_text("variants_2026/perception_lm__0.json")).expect("JSON");
    d["vision_config"]["architecture"] = "vit_base_patch16_224".into();
    let e = from_hf_config(&d.to_string()).unwrap_err();
    assert!(e.field.ends_with("architecture"), "{e}");
    d["vision_config"]["architecture"] = "vit_pe_core_large_patch14_336".into();
    d["vision_config"]["model_args"]
        .as_object_mut()
        .expect("model_args")
        .remove("embed_dim");
    let e = from_hf_config(&d.to_string()).unwrap_err();
    assert!(e.field.ends_with("embed_dim"), "{e}");
}

/// Gemma 4 Unified's wrapper imports without an image embedder; with one
/// (its merged patches, no tower, not modelled yet) it is refused by field.
#[test]
fn gemma4_unified_refuses_its_image_embedder_by_field() {
    let mut d: serde_json::Value =
        serde_json::from_str(&config_text("variants_2026/gemma4_unified__3.json")).expect("JSON");
    let spec = from_hf_config(&d.to_string()).expect("the language model and audio embedder");
    assert_eq!(spec.total_params(), 889_600);
    d["vision_config"] = serde_json::json!({"patch_size": 16});
    let e = from_hf_config(&d.to_string()).unwrap_err();
    assert!(e.field.ends_with("vision_config"), "{e}");
}

/// Qwen2.5-Omni's and Qwen3-Omni's processors run Qwen2VLImageProcessor at
/// its own limits (56² to 28²·1280 pixels) over their towers' patches (14
/// and 16 px); the counts are what the processors gave on synthetic images
/// (transformers 5.24), with the checkpoint's limits where a
/// `preprocessor_config.json` sets them.
#[test]
fn omni_models_count_image_tokens_as_their_processors() {
    let count = |fixture: &str, pre: Option<&str>, w: u64, h: u64| {
        let rule = rule_from_configs(&config_text(fixture), pre).expect("a rule");
        tokens(&rule, w, h).expect("fits").language_model_tokens
    };
    for fixture in [
        "omni/qwen3_omni_moe__1.json",
        "omni/qwen3_omni_moe_thinker__1.json",
    ] {
        assert_eq!(count(fixture, None, 640, 480), 300, "{fixture}");
        assert_eq!(count(fixture, None, 1920, 1080), 943, "{fixture}");
        assert_eq!(count(fixture, None, 4000, 3000), 972, "{fixture}");
        let wide = r#"{"size": {"shortest_edge": 65536, "longest_edge": 16777216}}"#;
        assert_eq!(count(fixture, Some(wide), 1920, 1080), 2040, "{fixture}");
    }
    // Qwen2.5-Omni-7B's preprocessor: 3136 to 12,845,056 pixels
    let seven_b = r#"{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14}"#;
    for fixture in [
        "omni/qwen2_5_omni__1.json",
        "omni/qwen2_5_omni_thinker__1.json",
    ] {
        assert_eq!(count(fixture, Some(seven_b), 640, 480), 391, "{fixture}");
        assert_eq!(count(fixture, Some(seven_b), 1920, 1080), 2691, "{fixture}");
        assert_eq!(
            count(fixture, Some(seven_b), 4000, 3000),
            15301,
            "{fixture}"
        );
    }
}

/// Granite 4 Vision (granite-vision-4.1's shape: SigLIP 384 px in 16 px
/// patches, "4/8" downsampling, 27 pinpoints): LLaVA-NeXT's tiles, the
/// language model's tokens on the downsampled grid, the tower's 576 per
/// tile; the counts are Granite4VisionProcessor's on synthetic images
/// (transformers 5.24).
#[test]
fn granite4_vision_downsamples_llava_next_tiles() {
    let pinpoints: Vec<[u64; 2]> = [
        (
            384,
            [384, 768, 1152, 1536, 1920, 2304, 2688, 3072, 3456, 3840].as_slice(),
        ),
        (768, [384, 768, 1152, 1536, 1920].as_slice()),
        (1152, [384, 768, 1152].as_slice()),
        (1536, [384, 768].as_slice()),
        (1920, [384, 768].as_slice()),
        (2304, [384].as_slice()),
        (2688, [384].as_slice()),
        (3072, [384].as_slice()),
        (3456, [384].as_slice()),
        (3840, [384].as_slice()),
    ]
    .into_iter()
    .flat_map(|(h, ws)| ws.iter().map(move |w| [h, *w]))
    .collect();
    assert_eq!(pinpoints.len(), 27);
    let config = serde_json::json!({
        "model_type": "granite4_vision",
        "downsample_rate": "4/8",
        "deepstack_layer_map": [[-19, 9], [-13, 6], [-7, 3], [-1, 0]],
        "image_grid_pinpoints": pinpoints,
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "image_size": 384,
                          "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
                          "patch_size": 16}
    })
    .to_string();
    let spec = from_hf_config(&config).expect("imports");
    let rule = spec.image_rule.expect("a rule");
    // (width, height) → (tiles, tower tokens, language-model tokens)
    for ((w, h), want) in [
        ((1, 1), (2, 1152, 300)),
        ((640, 480), (5, 2880, 594)),
        ((1920, 1080), (9, 5184, 1176)),
        ((4032, 3024), (10, 5760, 1180)),
        ((1700, 2200), (10, 5760, 1188)),
        ((1024, 512), (7, 4032, 810)),
        ((512, 1024), (7, 4032, 828)),
        ((5000, 20), (11, 6336, 144)),
        ((20, 5000), (11, 6336, 264)),
        ((384, 3840), (11, 6336, 1704)),
    ] {
        let t = tokens(&rule, w, h).expect("fits");
        assert_eq!(
            (
                t.tiles.unwrap_or(0),
                t.tower_tokens,
                t.language_model_tokens
            ),
            want,
            "{w}x{h}"
        );
    }
    // the rule travels in a link and reads back
    let link = encode(&Scenario {
        model: ModelSource::Spec(Box::new(from_hf_config(&config).expect("imports"))),
        ..Scenario::default()
    });
    match decode(&link).scenario.model {
        ModelSource::Spec(back) => assert_eq!(back.image_rule, Some(rule)),
        other => panic!("{other:?}"),
    }
}

/// DeepSeek-VL's and Janus's processors put one fixed square per image in
/// the text, whatever its size: 576 placeholders at 384 px in 16 px
/// patches, Janus's between its begin- and end-of-image tokens (578 ids);
/// counted by their processors on 31 synthetic sizes (transformers 5.24).
#[test]
fn deepseek_vl_and_janus_read_a_fixed_square() {
    for (fixture, lm) in [
        ("variants_2026/deepseek_vl__1.json", 576),
        ("variants_2026/deepseek_vl_hybrid__1.json", 576),
        ("variants_2026/janus__1.json", 578),
    ] {
        let spec = from_hf_config(&config_text(fixture)).expect("imports");
        let rule = spec.image_rule.expect("a rule");
        for (w, h) in [(1, 1), (4032, 3024), (20, 5000), (384, 384)] {
            let t = tokens(&rule, w, h).expect("fits");
            assert_eq!(
                (t.tower_tokens, t.language_model_tokens),
                (576, lm),
                "{fixture} {w}x{h}"
            );
        }
    }
}

/// Phi-4-multimodal's config brings its dynamic-HD rule (448 px crops, at
/// most 36, or the preprocessor's `dynamic_hd`), which travels in a link.
#[test]
fn phi4_multimodal_reads_its_dynamic_hd_rule() {
    let config = config_text("variants_2026/phi4_multimodal__1.json");
    let spec = from_hf_config(&config).expect("imports");
    assert_eq!(
        spec.image_rule,
        Some(ImageRule::Phi4Mm {
            crop: 448,
            patch: 14,
            max_crops: 36
        })
    );
    let fewer = rule_from_configs(&config, Some(r#"{"dynamic_hd": 16}"#)).expect("a rule");
    assert_eq!(
        fewer,
        ImageRule::Phi4Mm {
            crop: 448,
            patch: 14,
            max_crops: 16
        }
    );
    let link = encode(&Scenario {
        model: ModelSource::Spec(Box::new(spec.clone())),
        ..Scenario::default()
    });
    match decode(&link).scenario.model {
        ModelSource::Spec(back) => assert_eq!(back.image_rule, spec.image_rule),
        other => panic!("{other:?}"),
    }
}
