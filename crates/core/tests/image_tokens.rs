//! Image tokens against the functions transformers' image processors size
//! images with, run on 86 sizes per family (`data/vision/measure_rules.py`,
//! transformers 5.24.0): Qwen-VL's `smart_resize` (Qwen2/2.5-VL defaults and
//! Qwen3-VL settings), InternVL's and Llama 3.2 Vision's tiled canvases.

use serde_json::Value;
use vramfit_core::hf_config::rule_from_configs;
use vramfit_core::image_tokens::{tokens, AlignedCanvas, ImageRule};

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

fn rule(line: &Value) -> ImageRule {
    let s = &line["settings"];
    match line["family"].as_str().unwrap_or_default() {
        "qwen2_vl" | "qwen3_vl" => ImageRule::QwenVl {
            patch: u(s, "patch"),
            merge: u(s, "merge"),
            min_pixels: u(s, "min_pixels"),
            max_pixels: u(s, "max_pixels"),
        },
        "internvl" => ImageRule::InternVl {
            tile: u(s, "tile"),
            patch: 14,
            min_tiles: u(s, "min_tiles"),
            max_tiles: u(s, "max_tiles"),
            tokens_per_tile: u(s, "tokens_per_tile"),
        },
        "mllama" => ImageRule::Mllama {
            tile: u(s, "tile"),
            patch: u(s, "patch"),
            max_tiles: u(s, "max_tiles"),
        },
        other => panic!("family {other}"),
    }
}

#[test]
fn token_counts_equal_the_processors_for_every_measured_size() {
    let table = include_str!("data/vision/image_rules.jsonl");
    let mut failures = Vec::new();
    let mut checked = 0;
    for text in table.lines() {
        let line: Value = serde_json::from_str(text).expect("json line");
        let (w, h) = (u(&line, "width"), u(&line, "height"));
        let got = tokens(&rule(&line), w, h).expect("a size in range");
        let family = line["family"].as_str().unwrap_or_default();
        let ok = match family {
            "mllama" => got.tiles == line["tiles"].as_u64(),
            "internvl" => {
                got.tiles == line["tiles"].as_u64()
                    && got.language_model_tokens == u(&line, "language_model_tokens")
                    && got.tower_tokens == got.tiles.unwrap_or(0) * 1025
            }
            _ => {
                got.tower_tokens == u(&line, "tower_tokens")
                    && got.language_model_tokens == u(&line, "language_model_tokens")
            }
        };
        if !ok {
            failures.push(format!("{family} {w}x{h}: ours {got:?}, processor {line}"));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 300, "{checked}");
}

#[test]
fn configs_name_their_rule_and_unknown_towers_are_refused() {
    let qwen = rule_from_configs(
        r#"{"model_type":"qwen2_5_vl","vision_config":{"patch_size":14}}"#,
        None,
    )
    .expect("qwen");
    assert_eq!(
        qwen,
        ImageRule::QwenVl {
            patch: 14,
            merge: 2,
            min_pixels: 3136,
            max_pixels: 1_003_520
        }
    );
    // The preprocessor's pixel limits win over the defaults.
    let limited = rule_from_configs(
        r#"{"model_type":"qwen2_vl"}"#,
        Some(r#"{"min_pixels": 200704, "max_pixels": 401408}"#),
    )
    .expect("qwen");
    assert_eq!(
        tokens(&limited, 4032, 3024)
            .map(|t| t.language_model_tokens)
            .ok(),
        Some(
            tokens(
                &ImageRule::QwenVl {
                    patch: 14,
                    merge: 2,
                    min_pixels: 200_704,
                    max_pixels: 401_408
                },
                4032,
                3024
            )
            .expect("tokens")
            .language_model_tokens
        )
    );
    let e = rule_from_configs(r#"{"model_type":"llava"}"#, None).unwrap_err();
    assert_eq!(e.field, "config.json: model_type");
    let e = rule_from_configs("not json", None).unwrap_err();
    assert_eq!(e.field, "config.json");
    // A 1 px × 100000 px strip: refused by name, not a panic.
    assert!(tokens(&qwen, 1, 100_000).is_err());
    assert_eq!(tokens(&qwen, 1, 300).unwrap_err().field, "image");
}

/// The rule a processor row ran under, from its family and settings.
#[allow(clippy::too_many_lines)] // one arm per processor family of the table
fn processor_rule(line: &Value) -> ImageRule {
    let s = &line["settings"];
    match line["family"].as_str().unwrap_or_default() {
        "qwen2_vl" | "qwen3_vl" => ImageRule::QwenVl {
            patch: u(s, "patch_size"),
            merge: u(s, "merge_size"),
            min_pixels: u(&s["size"], "shortest_edge"),
            max_pixels: u(&s["size"], "longest_edge"),
        },
        // Through the importer: the 8B-shaped config (364 px SigLIP in
        // 14 px patches, a shuffle of 2) with the row's preprocessor.
        "aya_vision" => {
            let config = include_str!("data/configs/vlm/made_up__aya_vision_8b_shape.json");
            let rule = rule_from_configs(config, Some(&s.to_string())).expect("aya rule");
            assert!(
                matches!(rule, ImageRule::AyaVision { tokens_per_tile, .. } if tokens_per_tile == u(s, "tokens_per_tile"))
            );
            rule
        }
        // Through the importer: GLM-4.1V's class-default config with the
        // row's processor settings as its preprocessor_config.json.
        "glm4v" => {
            let config = include_str!("data/configs/variants_2026/glm4v__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("glm4v rule")
        }
        // Through the importer: Gemma 4's class-default wrapper with its
        // towers, the row's processor settings as its preprocessor_config.json.
        "gemma4" => {
            let config = include_str!("data/configs/variants_2026/gemma4__1.json");
            rule_from_configs(config, Some(&s.to_string())).expect("gemma4 rule")
        }
        // Through the importer: an Aria config with its checkpoints' 14 px
        // patches and the row's processor settings as its preprocessor.
        "aria" => rule_from_configs(
            r#"{"model_type":"aria","vision_config":{"patch_size":14,"image_size":980}}"#,
            Some(&s.to_string()),
        )
        .expect("aria rule"),
        // Through the importer: a bare Cosmos3-Edge config with the row's
        // processor settings as its preprocessor_config.json.
        // Through the importer: the class-default wrapper, the row's
        // processor settings as its preprocessor_config.json.
        // Through the importer: the class-default wrapper (448 px tiles of
        // its tower), the row's tile limits as its preprocessor_config.json.
        // Through the importer: LightOnOCR-1B's class-default wrapper, the
        // row's processor settings as its preprocessor_config.json.
        // Through the importer: the class-default wrapper, the row's
        // processor settings as its preprocessor_config.json.
        // Through the importer: the class-default wrapper (head_dim 128),
        // the row's processor settings as its preprocessor_config.json.
        // Through the importer: the class-default wrapper, the row's
        // processor settings as its preprocessor_config.json.
        "minicpmv4_6" => {
            let config = include_str!("data/configs/variants_2026/minicpmv4_6__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("minicpmv4_6 rule")
        }
        "hunyuan_vl" => {
            let config = include_str!("data/configs/variants_2026/hunyuan_vl__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("hunyuan_vl rule")
        }
        "granite_docling" => {
            let config = include_str!("data/configs/variants_2026/granite_docling__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("granite_docling rule")
        }
        // PLM-1B's shape: the PE-L tower (14 px patches and a class token),
        // pooled by 2
        "perception_lm" => {
            let config = include_str!("data/configs/variants_2026/perception_lm__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("perception_lm rule")
        }
        "lighton_ocr" => {
            let config = include_str!("data/configs/variants_2026/lighton_ocr__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("lighton_ocr rule")
        }
        "qianfan_ocr" => {
            let config = include_str!("data/configs/variants_2026/qianfan_ocr__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("qianfan_ocr rule")
        }
        "ernie4_5_vl_moe" => {
            let config = include_str!("data/configs/variants_2026/ernie4_5_vl_moe__0.json");
            rule_from_configs(config, Some(&s.to_string())).expect("ernie4_5_vl_moe rule")
        }
        // Through the importer: each family's class-default wrapper, the
        // row's processor settings as its preprocessor_config.json (the
        // tower's class and register tokens, merge and patch from the
        // wrapper).
        "deepseek_ocr2" => rule_from_configs(
            include_str!("data/configs/variants_2026/deepseek_ocr2__0.json"),
            Some(&s.to_string()),
        )
        .expect("deepseek_ocr2 rule"),
        "nemotron_h_omni" => rule_from_configs(
            include_str!("data/configs/variants_2026/nemotron_h_omni__0.json"),
            Some(&s.to_string()),
        )
        .expect("nemotron_h_omni rule"),
        "molmo2" => rule_from_configs(
            include_str!("data/configs/variants_2026/molmo2__0.json"),
            Some(&s.to_string()),
        )
        .expect("molmo2 rule"),
        "muse_glimmer" => rule_from_configs(
            include_str!("data/configs/variants_2026/muse_glimmer__0.json"),
            Some(&s.to_string()),
        )
        .expect("muse_glimmer rule"),
        "muse_spark" => rule_from_configs(
            include_str!("data/configs/variants_2026/muse_spark__0.json"),
            Some(&s.to_string()),
        )
        .expect("muse_spark rule"),
        "inkling2" => rule_from_configs(
            include_str!("data/configs/variants_2026/inkling2__0.json"),
            Some(&s.to_string()),
        )
        .expect("inkling2 rule"),
        // Ovis2-1B's shapes (448 px tower, 14 px patches)
        "ovis2" => rule_from_configs(
            include_str!("data/configs/variants_2026/ovis2__6.json"),
            Some(&s.to_string()),
        )
        .expect("ovis2 rule"),
        "fast_vlm" => rule_from_configs(
            include_str!("data/configs/variants_2026/fast_vlm__0.json"),
            Some(&s.to_string()),
        )
        .expect("fast_vlm rule"),
        "got_ocr2" => rule_from_configs(
            include_str!("data/configs/variants_2026/got_ocr2__0.json"),
            Some(&s.to_string()),
        )
        .expect("got_ocr2 rule"),
        "unlimited_ocr" => rule_from_configs(
            include_str!("data/configs/variants_2026/unlimited_ocr__0.json"),
            Some(&s.to_string()),
        )
        .expect("unlimited_ocr rule"),
        "inkling2_loop" => rule_from_configs(
            include_str!("data/configs/variants_2026/inkling2_loop__0.json"),
            Some(&s.to_string()),
        )
        .expect("inkling2_loop rule"),
        "cosmos3_edge" => {
            rule_from_configs(r#"{"model_type":"cosmos3_edge"}"#, Some(&s.to_string()))
                .expect("cosmos3_edge rule")
        }
        // Through the importer: a bare VideoLLaMA3 config with the row's
        // processor settings as its preprocessor_config.json.
        "video_llama_3" => {
            rule_from_configs(r#"{"model_type":"video_llama_3"}"#, Some(&s.to_string()))
                .expect("video_llama_3 rule")
        }
        // Through the importer: a bare PaddleOCR-VL config with the row's
        // processor settings as its preprocessor_config.json.
        "paddleocr_vl" => {
            rule_from_configs(r#"{"model_type":"paddleocr_vl"}"#, Some(&s.to_string()))
                .expect("paddleocr_vl rule")
        }
        // Through the importer: a bare Cohere Compass config with the row's
        // processor settings as its preprocessor_config.json.
        "cohere_compass" => {
            rule_from_configs(r#"{"model_type":"cohere_compass"}"#, Some(&s.to_string()))
                .expect("cohere_compass rule")
        }
        // Through the importer: a bare HY-V4-VL config with the row's
        // processor settings as its preprocessor_config.json.
        "hy_v4_vl" => rule_from_configs(r#"{"model_type":"hy_v4_vl"}"#, Some(&s.to_string()))
            .expect("hy_v4_vl rule"),
        // Through the importer: a bare MiniMax-M3 VL config with the row's
        // processor settings as its preprocessor_config.json.
        "minimax_m3_vl" => {
            rule_from_configs(r#"{"model_type":"minimax_m3_vl"}"#, Some(&s.to_string()))
                .expect("minimax_m3_vl rule")
        }
        // Through the importer: a bare GLM-5.3-Flash config with the row's
        // processor settings as its preprocessor_config.json.
        "glm5_next" => rule_from_configs(r#"{"model_type":"glm5_next"}"#, Some(&s.to_string()))
            .expect("glm5_next rule"),
        // Through the importer: a bare Apertus 1.5 config with the row's
        // `size` and `spatial_factor` as its preprocessor_config.json.
        "apertus1p5" => rule_from_configs(r#"{"model_type":"apertus1p5"}"#, Some(&s.to_string()))
            .expect("apertus1p5 rule"),
        "internvl" => ImageRule::InternVl {
            tile: u(&s["size"], "height"),
            patch: 14,
            min_tiles: u(s, "min_patches"),
            max_tiles: u(s, "max_patches"),
            tokens_per_tile: u(s, "tokens_per_tile"),
        },
        "mllama" => ImageRule::Mllama {
            tile: u(&s["size"], "height"),
            patch: u(s, "vision_patch_size"),
            max_tiles: u(s, "max_image_tiles"),
        },
        "gemma3" if s["do_pan_and_scan"] == Value::Bool(false) => ImageRule::Fixed {
            tower: 4096,
            language_model: u(s, "image_seq_length"),
        },
        "gemma3" => ImageRule::Gemma3PanScan {
            tower: 4096,
            tokens: u(s, "image_seq_length"),
            min_crop: u(s, "pan_and_scan_min_crop_size"),
            max_crops: u(s, "pan_and_scan_max_num_crops"),
            min_ratio_tenths: (s["pan_and_scan_min_ratio_to_activate"]
                .as_f64()
                .unwrap_or(0.0)
                * 10.0)
                .round() as u64,
        },
        "pixtral" => {
            let merge = s["spatial_merge_size"].as_u64().unwrap_or(1);
            ImageRule::Pixtral {
                patch: u(&s["patch_size"], "height") / merge,
                merge,
                longest_edge: u(&s["size"], "longest_edge"),
            }
        }
        "idefics3" | "smolvlm" => ImageRule::Idefics3 {
            longest_edge: u(&s["size"], "longest_edge"),
            tile: u(&s["max_image_size"], "longest_edge"),
            patch: s["vision_patch_size"].as_u64().unwrap_or(14),
            seq_len: u(s, "image_seq_len"),
        },
        "kimi_k25" => ImageRule::KimiK25 {
            patch: u(s, "patch_size"),
            merge: u(s, "merge_size"),
            max_patches: u(s, "max_patches"),
            max_side: u(&s["size"], "max_height"),
        },
        "lfm2_vl" => ImageRule::Lfm2Vl(vramfit_core::image_tokens::Tiling {
            patch: u(s, "encoder_patch_size"),
            factor: u(s, "downsample_factor"),
            min_tokens: u(s, "min_image_tokens"),
            max_tokens: u(s, "max_image_tokens"),
            tile: u(s, "tile_size"),
            min_tiles: u(s, "min_tiles"),
            max_tiles: u(s, "max_tiles"),
            thumbnail: s["use_thumbnail"] == Value::Bool(true),
            tolerance_tenths: (s["max_pixels_tolerance"].as_f64().unwrap_or(0.0) * 10.0).round()
                as u64,
        }),
        "step3p7" => ImageRule::Step3p7 {
            global: u(&s["size"], "height"),
            crop: u(s, "patch_size"),
            max_side: u(s, "max_image_size"),
            patch: u(s, "vision_patch_size"),
            stride: u(s, "downsampler_stride"),
        },
        "cohere2_vision" => ImageRule::Cohere2Vision {
            tile: u(&s["size"], "height"),
            patch: u(s, "vision_patch_size"),
            max_tiles: u(s, "max_patches"),
            tokens_per_tile: u(s, "tokens_per_tile"),
        },
        "idefics2" => ImageRule::Idefics2 {
            patch: u(s, "vision_patch_size"),
            shortest_edge: u(&s["size"], "shortest_edge"),
            longest_edge: u(&s["size"], "longest_edge"),
            seq_len: u(s, "image_seq_len"),
            split: s["do_image_splitting"] == Value::Bool(true),
        },
        "llava_next" => ImageRule::LlavaNext {
            crop: u(&s["crop_size"], "height"),
            patch: 14,
            tile_tokens: 0,
            pinpoints: s["image_grid_pinpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
                .collect(),
        },
        "llava_onevision" => ImageRule::LlavaOneVision {
            crop: u(s, "crop"),
            patch: u(s, "patch_size"),
            max_patches: 9,
            pinpoints: s["image_grid_pinpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
                .collect(),
        },
        "llama4" => ImageRule::Llama4 {
            tile: u(&s["size"], "height"),
            patch: u(s, "patch_size"),
            max_tiles: u(s, "max_patches"),
            tokens_per_tile: u(s, "tokens_per_tile"),
            max_canvas: s["resize_to_max_canvas"] == Value::Bool(true),
        },
        other => panic!("family {other}"),
    }
}

/// The same rules against the processors themselves, run on synthetic
/// images (`data/vision/measure_image_tokens.py`: `pixel_values` and
/// `image_grid_thw` of 45 sizes per setting, transformers 5.24.0; Llama 4's
/// tiles from its processor's own `_preprocess` with shape-only pixel
/// operations, 58 sizes per setting, and the prompt its processor writes).
#[test]
fn token_counts_equal_the_processors_run_on_images() {
    let table = include_str!("data/vision/image_tokens.jsonl");
    let mut failures = Vec::new();
    let mut checked = 0;
    for text in table.lines() {
        let line: Value = serde_json::from_str(text).expect("json line");
        let rule = processor_rule(&line);
        let (w, h) = (u(&line, "width"), u(&line, "height"));
        // Sizes the processor refuses (an aspect ratio over 200) we refuse too.
        if line.get("refused").is_some() {
            if tokens(&rule, w, h).is_ok() {
                failures.push(format!(
                    "{w}x{h} accepted, the processor refused it: {line}"
                ));
            }
            checked += 1;
            continue;
        }
        // Past the app's largest side (2^16 px) an image is refused by
        // name, whatever the processor makes of it (a 140000 px strip).
        if w.max(h) > vramfit_core::scenario::limits::MAX_IMAGE_SIZE {
            match tokens(&rule, w, h) {
                Err(e) if e.field.starts_with("image.") => checked += 1,
                other => failures.push(format!("{w}x{h} past the limit: {other:?}")),
            }
            continue;
        }
        let Ok(got) = tokens(&rule, w, h) else {
            failures.push(format!("{w}x{h} refused: {line}"));
            continue;
        };
        let tower = line
            .get("padded_tower_tokens")
            .and_then(Value::as_u64)
            .unwrap_or_else(|| u(&line, "tower_tokens"));
        let tiles_ok = line
            .get("tiles")
            .and_then(Value::as_u64)
            .is_none_or(|t| got.tiles.is_none_or(|g| g == t));
        if got.tower_tokens != tower
            || got.language_model_tokens != u(&line, "language_model_tokens")
            || !tiles_ok
        {
            failures.push(format!("ours {got:?}, processor {line}"));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 6226, "{checked}");
}

/// GLM-5.3-Flash's rule from its configs (the processor's keys, else the
/// tower's patch and merge, else the class defaults), in a link and back,
/// and refusals by name where the processor's numbers are absurd.
#[test]
fn glm5_next_reads_its_processor_keys_and_travels_in_a_link() {
    let defaults = AlignedCanvas::DEFAULT;
    let bare = rule_from_configs(r#"{"model_type":"glm5_next"}"#, None).expect("rule");
    assert_eq!(bare, ImageRule::Glm5Next(defaults));
    assert_eq!(bare.to_text(), "glm5_next:14,2,1,16,8000");
    let tower = rule_from_configs(
        r#"{"model_type":"glm5_next","vision_config":{"patch_size":16,"spatial_merge_size":3}}"#,
        Some(r#"{"size":{"longest_edge":1},"image_processor":{"max_image_tokens":1280}}"#),
    )
    .expect("rule");
    let read = ImageRule::Glm5Next(AlignedCanvas {
        patch: 16,
        merge: 3,
        max_tokens: 1280,
        ..defaults
    });
    assert_eq!(tower, read);
    for rule in [bare, tower] {
        assert_eq!(ImageRule::from_text(&rule.to_text()), Ok(rule.clone()));
    }
    for (text, field) in [
        ("glm5_next:14,2,1,16,0", "image rule: max_tokens"),
        ("glm5_next:14,2,1,9000,8000", "image rule: min_tokens"),
        ("glm5_next:14,0,1,16,8000", "image rule: merge"),
        ("glm5_next:14,2,17,16,8000", "image rule: expand"),
        ("glm5_next:2000,2,2,16,8000", "image rule: patch"),
    ] {
        let e = ImageRule::from_text(text).expect_err(text);
        assert!(e.contains(field), "{text}: {e}");
    }
    assert!(ImageRule::from_text("glm5_next:14,2,1,16").is_err());
    let e = rule_from_configs(
        r#"{"model_type":"glm5_next"}"#,
        Some(r#"{"max_image_tokens":1000000000000}"#),
    )
    .unwrap_err();
    assert_eq!(
        e.field,
        "config.json / preprocessor_config.json: image processing (image rule: max_tokens)"
    );
    // Sizes out of range are refused by name, never a panic; a 65536 px
    // strip either way is counted as the processor counts it.
    let rule = ImageRule::Glm5Next(defaults);
    assert_eq!(tokens(&rule, 0, 0).unwrap_err().field, "image.width");
    assert_eq!(
        tokens(&rule, 1_000_000, 1_000_000).unwrap_err().field,
        "image.width"
    );
    assert_eq!(tokens(&rule, 1, 100_000).unwrap_err().field, "image.height");
    let strip = |w, h| tokens(&rule, w, h).map(|t| t.language_model_tokens).ok();
    assert_eq!(
        (strip(1, 65_536), strip(65_536, 1)),
        (Some(2341), Some(2341))
    );
    let most = ImageRule::Glm5Next(AlignedCanvas {
        patch: 4096,
        merge: 1,
        expand: 1,
        min_tokens: 1 << 24,
        max_tokens: 1 << 24,
    });
    for (w, h) in [(1, 1), (1, 65_536), (65_536, 1), (65_536, 65_536)] {
        assert!(tokens(&most, w, h).is_ok(), "{w}x{h}");
    }
}

/// Qwen2VLImageProcessor's `smart_resize` divides in floats: a 2000 × 10
/// strip (ratio 200) is resized to 812 × 28, 116 patches and 29 tokens, but
/// 2005 × 10 (200.5) is refused, as transformers 5.24 refuses it.
#[test]
fn qwen_vl_refuses_a_ratio_just_over_200() {
    let rule = ImageRule::QwenVl {
        patch: 14,
        merge: 2,
        min_pixels: 56 * 56,
        max_pixels: 28 * 28 * 1280,
    };
    let strip = tokens(&rule, 2000, 10).expect("a ratio of 200 is allowed");
    assert_eq!((strip.tower_tokens, strip.language_model_tokens), (116, 29));
    for (w, h) in [(2005, 10), (10, 2005)] {
        let err = tokens(&rule, w, h).expect_err("refused");
        assert!(
            err.message.contains("aspect ratio over 200"),
            "{}",
            err.message
        );
    }
}

/// Phi-4-multimodal's dynamic HD against its processor on 75 sizes
/// (`data/vision/phi4mm_tokens.jsonl`): the language model's tokens, the
/// crops and the tower's patches; an image whose short side resizes below
/// 10 px is refused, as the processor refuses it.
#[test]
fn phi4_multimodal_counts_as_its_processor() {
    let rule = ImageRule::Phi4Mm {
        crop: 448,
        patch: 14,
        max_crops: 36,
    };
    let text = include_str!("data/vision/phi4mm_tokens.jsonl");
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let row: Value = serde_json::from_str(line).expect("a JSON row");
        let (w, h) = (
            row["width"].as_u64().unwrap(),
            row["height"].as_u64().unwrap(),
        );
        let got = tokens(&rule, w, h);
        if row["processor_raises"] == Value::Bool(true) {
            assert!(got.is_err(), "{w}x{h} is refused");
            continue;
        }
        let t = got.unwrap_or_else(|e| panic!("{w}x{h}: {e}"));
        assert_eq!(
            (t.language_model_tokens, t.tiles, t.tower_tokens),
            (
                row["language_model_tokens"].as_u64().unwrap(),
                row["crops"].as_u64(),
                row["tower_tokens"].as_u64().unwrap()
            ),
            "{w}x{h}"
        );
        checked += 1;
    }
    assert_eq!(checked, 70);
}

/// VideoLLaMA3 without a preprocessor_config.json: its processor's class
/// defaults, a language-model token per 14 px patch (`merge_size` 1), up to
/// 5,120 per image (the processor's counts in `image_tokens.jsonl`: a
/// 1920 × 1080 frame resizes to 53 × 95 patches).
#[test]
fn video_llama_3_defaults_keep_every_patch() {
    let rule = rule_from_configs(r#"{"model_type":"video_llama_3"}"#, None).expect("rule");
    let frame = tokens(&rule, 1920, 1080).expect("tokens");
    assert_eq!(frame.tower_tokens, 53 * 95);
    assert_eq!(frame.language_model_tokens, 53 * 95);
    let page = tokens(&rule, 2048, 2048).expect("tokens");
    assert_eq!(page.language_model_tokens, 71 * 71);
    assert!(
        tokens(&rule, 1, 201).is_err(),
        "aspect ratio above 200 is refused"
    );
}

/// Cosmos3-Nano (`cosmos3_omni`) is Qwen3-VL's wrapper: its tower's 16 px
/// patches merged 2 × 2, and without a preprocessor_config.json the
/// Qwen3-VL checkpoints' limits (65,536 to 16,777,216 px; its processor's
/// class defaults, 14 px, do not run the tower); a preprocessor's limits
/// are read.
#[test]
fn cosmos3_omni_takes_qwen3_vls_rule() {
    let config = include_str!("data/configs/variants_2026/cosmos3_omni__0.json");
    let rule = rule_from_configs(config, None).expect("rule");
    assert_eq!(
        rule,
        ImageRule::QwenVl {
            patch: 16,
            merge: 2,
            min_pixels: 65_536,
            max_pixels: 16_777_216
        }
    );
    let pre = r#"{"size": {"shortest_edge": 3136, "longest_edge": 1003520}}"#;
    let rule = rule_from_configs(config, Some(pre)).expect("rule");
    // 1920 × 1080 within 1,003,520 px at 32 px cells: transformers'
    // `smart_resize(1080, 1920, 32, 3136, 1003520)` gives 736 × 1312 px,
    // 46 × 82 patches, 23 × 41 merged tokens
    assert_eq!(
        tokens(&rule, 1920, 1080)
            .expect("tokens")
            .language_model_tokens,
        23 * 41
    );
}
