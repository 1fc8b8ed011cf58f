//! The image rule of a VLM read from its `config.json` and, when given, its
//! `preprocessor_config.json`.

use crate::decimal::Decimal;
use serde_json::Value;

use super::json_path::{field, number};
use crate::error::{InputError, Result};
use crate::image_tokens::anyres;
use crate::image_tokens::{ImageRule, LLAVA_NEXT_PINPOINTS};

/// A `vision_config` side saved as `n` or as a square `[n, n]` (InternVL's
/// pairs), `default` when absent.
fn square_side(cfg: &Value, key: &str, default: u64) -> Result<u64> {
    let value = match field(cfg, &["vision_config", key]) {
        None | Some(Value::Null) => return Ok(default),
        Some(v) => v,
    };
    if let Some(n) = value.as_u64() {
        return Ok(n);
    }
    let pair: Option<Vec<Option<u64>>> = value
        .as_array()
        .map(|p| p.iter().map(Value::as_u64).collect());
    match pair.as_deref() {
        Some([Some(h), Some(w)]) if h == w => Ok(*h),
        _ => Err(InputError::new(
            format!("config.json: vision_config.{key}"),
            format!("{value} is not supported: only a square size, n or [n, n]"),
        )),
    }
}

/// `image_grid_pinpoints` as (height, width), LLaVA-1.6's when absent.
fn grid_pinpoints(cfg: &Value) -> Vec<(u64, u64)> {
    match cfg.get("image_grid_pinpoints").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
            .collect(),
        None => LLAVA_NEXT_PINPOINTS.to_vec(),
    }
}

/// Whether the estimate applies `model_type`'s image rule: Qwen-VL's and
/// GLM-4V's dynamic resolution, LLaVA-NeXT's and OneVision's any-resolution
/// grids, the tiles of Idefics3 / SmolVLM, InternVL, Aya Vision and Llama
/// 3.2 Vision, PaliGemma's fixed tokens, Pixtral's patches; Gemma 3's and
/// 4's, Llama 4's and Qwen3.5's when the wrapper carries its tower
/// (`has_tower`).
pub(super) fn applies(model_type: &str, has_tower: bool) -> bool {
    match model_type {
        "qwen2_vl"
        | "qwen2_5_vl"
        | "qwen3_vl"
        | "qwen3_vl_moe"
        | "mistral3"
        | "llava_next"
        | "llava_next_video"
        | "idefics3"
        | "smolvlm"
        | "internvl"
        | "paligemma"
        | "llava_onevision"
        | "mllama"
        | "aya_vision"
        | "glm4v"
        | "glm4v_moe"
        | "glm46v"
        | "glmga"
        | "glm_ocr"
        | "gemma3n"
        | "exaone4_5"
        | "lfm3_vl"
        | "idefics2"
        | "cohere2_vision"
        | "kimi_k25"
        | "step3p7"
        | "lfm2_vl"
        | "glm5_next"
        | "qwen4_exp"
        | "apertus1p5"
        | "minimax_m3_vl"
        | "hy_v4_vl"
        | "mistral_large4"
        | "aria"
        | "cohere_compass"
        | "paddleocr_vl"
        | "cosmos3_edge"
        | "ernie4_5_vl_moe"
        | "qianfan_ocr"
        | "lighton_ocr"
        | "granite_docling"
        | "hunyuan_vl"
        | "minicpmv4_6"
        | "minicpmv4_7"
        | "minicpm_ocr"
        | "perception_lm"
        | "qwen2_5_omni"
        | "qwen2_5_omni_thinker"
        | "qwen3_omni_moe"
        | "qwen3_omni_moe_thinker"
        | "granite4_vision"
        | "deepseek_vl"
        | "deepseek_vl_hybrid"
        | "janus"
        | "phi4_multimodal"
        | "video_llama_3"
        | "cosmos3_omni"
        | "hyperclovax_vision_v2"
        | "deepseek_ocr2"
        | "unlimited_ocr"
        | "ovis2"
        | "fast_vlm"
        | "got_ocr2"
        | "chameleon"
        | "emu3"
        | "blip-2"
        | "instructblip"
        | "nemotron_h_omni"
        | "molmo2"
        | "muse_glimmer"
        | "muse_spark"
        | "inkling2"
        | "inkling2_loop"
        | "dots3_note"
        | "florence2" => true,
        "gemma3" | "gemma4" | "llama4" | "qwen3_5" | "qwen3_5_moe" | "shieldgemma2" => has_tower,
        "t5gemma2" => true,
        _ => false,
    }
}

/// The image rule of a VLM from its `config.json` and, when given, its
/// `preprocessor_config.json` (the pixel limits and tile counts live there;
/// the processor classes' defaults apply when it is absent).
pub fn rule_from_configs(config: &str, preprocessor: Option<&str>) -> Result<ImageRule> {
    let rule = read_rule(config, preprocessor)?;
    // The rule's numbers come from the image processor's keys of either
    // file: the error says so, with the rule's own name for the value.
    rule.validate().map_err(|e| {
        crate::error::InputError::new(
            format!(
                "config.json / preprocessor_config.json: image processing ({})",
                e.field
            ),
            e.message,
        )
    })?;
    Ok(rule)
}

/// Gemma 3's processor: each image resized to the tower's square of
/// `side`² patches and pooled to `tokens`, or with `do_pan_and_scan` its
/// crops too.
fn gemma3(side: u64, tokens: u64, pre: &Value) -> ImageRule {
    if pre.get("do_pan_and_scan").and_then(Value::as_bool) == Some(true) {
        let ratio = pre
            .get("pan_and_scan_min_ratio_to_activate")
            .and_then(Value::as_f64)
            .unwrap_or(1.2);
        return ImageRule::Gemma3PanScan {
            tower: side.saturating_mul(side),
            tokens,
            min_crop: number(pre, &[&["pan_and_scan_min_crop_size"]], 256),
            max_crops: number(pre, &[&["pan_and_scan_max_num_crops"]], 4),
            min_ratio_tenths: (ratio * 10.0).round() as u64,
        };
    }
    ImageRule::Fixed {
        tower: side.saturating_mul(side),
        language_model: tokens,
    }
}

#[allow(clippy::too_many_lines)] // one arm per VLM family, each naming its processor's keys
fn read_rule(config: &str, preprocessor: Option<&str>) -> Result<ImageRule> {
    let parse = |name: &str, text: &str| -> Result<Value> {
        serde_json::from_str(&super::pyjson::strict_json(text))
            .map_err(|e| InputError::new(name, format!("is not valid JSON ({e})")))
    };
    let cfg = parse("config.json", config)?;
    let pre = match preprocessor {
        Some(text) => parse("preprocessor_config.json", text)?,
        None => Value::Null,
    };
    let model_type = cfg.get("model_type").and_then(Value::as_str).unwrap_or("");
    // the Omni models keep their tower in `thinker_config`
    let vision = |key: &str, default: u64| {
        number(
            &cfg,
            &[
                &["vision_config", key],
                &["thinker_config", "vision_config", key],
            ],
            default,
        )
    };
    match model_type {
        // Qwen2VLImageProcessor: min_pixels 56·56, max_pixels 28·28·1280.
        // EXAONE 4.5 maps to Qwen2VLImageProcessor too.
        // Qwen4-Exp maps to the same processors as Qwen3.5.
        // Qwen2.5-Omni's and Qwen3-Omni's processors take Qwen2VLImageProcessor
        // at its own defaults, Qwen3-Omni's tower its 16 px patches.
        // HyperCLOVA X Vision V2 maps to Qwen2VLImageProcessor.
        "qwen2_vl" | "qwen2_5_vl" | "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe"
        | "qwen4_exp" | "exaone4_5" | "lfm3_vl" | "qwen2_5_omni" | "qwen2_5_omni_thinker"
        | "qwen3_omni_moe" | "qwen3_omni_moe_thinker" | "cosmos3_omni"
        | "hyperclovax_vision_v2" => {
            let omni = model_type.contains("omni") && model_type != "cosmos3_omni";
            // Cosmos3-Nano's tower is Qwen3-VL's (16 px); its processor class
            // defaults (14 px) do not run it, so a config without a
            // preprocessor takes Qwen3-VL's checkpoint settings
            let qwen3 = (model_type.starts_with("qwen3") && !omni)
                || model_type == "qwen4_exp"
                || model_type == "cosmos3_omni";
            // LFM3-VL's Qwen2VLImageProcessor takes its tower's patch (16).
            let sixteen = qwen3 || model_type == "lfm3_vl" || model_type.starts_with("qwen3_omni");
            let patch = vision("patch_size", if sixteen { 16 } else { 14 });
            let merge = vision("spatial_merge_size", 2);
            let (min_default, max_default) = if qwen3 {
                // Qwen3-VL's processor: shortest_edge 65,536, longest_edge 16,777,216 pixels.
                (65_536, 16_777_216)
            } else {
                (56 * 56, 28 * 28 * 1280)
            };
            Ok(ImageRule::QwenVl {
                patch,
                merge,
                min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], min_default),
                max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], max_default),
            })
        }
        // Dots3-Note maps to Qwen2VLImageProcessor: its own patch and merge
        // (its tower's when absent: the tower embeds single frames, so a
        // patch must be one frame), Qwen2-VL's pixel limits
        "dots3_note" => Ok(ImageRule::QwenVl {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 14)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 56 * 56),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 28 * 28 * 1280),
        }),
        // Glm4vImageProcessor (Glm46VImageProcessor alike): `size` holds the
        // pixel limits, 112·112 to 28·28·15000 by default; patch, merge and
        // temporal patch from the processor, else the tower.
        // GLM-OCR's checkpoint names Glm46VImageProcessor.
        // GLM-GA's processor (`GlmgaImageProcessor(Glm46VImageProcessor)`)
        // aligns to patch × merge × `patch_expand_factor` (1 by default).
        "glmga" if number(&pre, &[&["patch_expand_factor"]], 1) != 1 => Err(InputError::new(
            "preprocessor_config.json: patch_expand_factor",
            "GLM-GA's image rule is modelled at its default 1 only: remove the key or set it to 1",
        )),
        "glm4v" | "glm4v_moe" | "glm46v" | "glmga" | "glm_ocr" => Ok(ImageRule::Glm4v {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 14)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            temporal: number(&pre, &[&["temporal_patch_size"]], vision("temporal_patch_size", 2)),
            min_pixels: number(&pre, &[&["size", "shortest_edge"]], 112 * 112),
            max_pixels: number(&pre, &[&["size", "longest_edge"]], 28 * 28 * 15_000),
        }),
        // MiniMaxM3VLImageProcessor: Qwen2-VL's smart resize at its own
        // pixel limits (`size`: 56² to 672² px by default) and its tower's
        // patch and merge.
        // Ernie4_5_VLMoeImageProcessor: Qwen2-VL's resize; its limits are
        // `size` alone (top-level min/max_pixels are not read)
        "ernie4_5_vl_moe" => Ok(ImageRule::QwenVl {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 14)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["size", "shortest_edge"]], 56 * 56),
            max_pixels: number(&pre, &[&["size", "longest_edge"]], 28 * 28 * 6177),
        }),
        // MiniCPMOcrImageProcessor is the same rule at "4x" by default
        // while `small_image_upsize` keeps its default "always" (its
        // "adaptive" picks a size from the glyphs' density, its "never"
        // keeps small images native: neither is modelled)
        "minicpm_ocr" if !matches!(pre.get("small_image_upsize"), None | Some(Value::Null))
            && pre.get("small_image_upsize").and_then(Value::as_str) != Some("always") =>
        {
            Err(InputError::new(
                "preprocessor_config.json: small_image_upsize",
                "MiniCPM-OCR's image rule is modelled at its default \"always\" only (\"adaptive\" sizes each image by its glyphs, \"never\" keeps small ones native): remove the key or set it to \"always\"",
            ))
        }
        // MiniCPMV4_6ImageProcessor (4.7's too): slices of `scale_resolution`
        // (448) px, at most `max_slice_nums` (9; one without `slice_mode`),
        // 14 px patches, "16x" merging 4 × 4 of them (the window merger and
        // the MLP merger), "4x" 2 × 2
        "minicpmv4_6" | "minicpmv4_7" | "minicpm_ocr" => {
            let pre_mode = pre.get("downsample_mode").and_then(Value::as_str);
            let cfg_mode = cfg.get("downsample_mode").and_then(Value::as_str);
            let four = pre_mode == Some("4x")
                || cfg_mode == Some("4x")
                || (model_type == "minicpm_ocr" && pre_mode.or(cfg_mode).is_none());
            let sliced = pre.get("slice_mode").and_then(Value::as_bool) != Some(false);
            Ok(ImageRule::MiniCpmV {
                patch: number(&pre, &[&["patch_size"]], 14),
                merge: if four { 2 } else { 4 },
                scale: number(&pre, &[&["scale_resolution"]], 448),
                max_slices: if sliced {
                    number(&pre, &[&["max_slice_nums"]], 9)
                } else {
                    1
                },
            })
        }
        // HunYuanVLImageProcessor: Qwen2-VL's resize at 16 px patches
        // merged 2 × 2, 512² to 2048² px
        "hunyuan_vl" => Ok(ImageRule::HunyuanVl {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 16)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 512 * 512),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 2048 * 2048),
        }),
        "minimax_m3_vl" => Ok(ImageRule::QwenVl {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 14)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 56 * 56),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 672 * 672),
        }),
        // HYV4VLImageProcessor: Qwen-VL's resize at patch × merge (16 × 2),
        // `size` 512² to 2048² px, a newline token after each merged row.
        "hy_v4_vl" => Ok(ImageRule::QwenVlRows {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 16)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 512 * 512),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 2048 * 2048),
        }),
        "aria" => super::aria::image_rule(&cfg, &pre),
        // Cosmos3EdgeImageProcessor: GLM-4V's resize (a side under 32 px
        // scaled up first) at 16 px patches, merge 2, one temporal frame,
        // `size` 65,536 to 16,777,216 px (its `min_pixels` / `max_pixels`
        // are not read)
        "cosmos3_edge" => Ok(ImageRule::Glm4v {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 16)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            temporal: number(&pre, &[&["temporal_patch_size"]], 1),
            min_pixels: number(&pre, &[&["size", "shortest_edge"]], 65_536),
            max_pixels: number(&pre, &[&["size", "longest_edge"]], 16_777_216),
        }),
        // PaddleOCRVLImageProcessor: 14 px patches, merge 2, 384² to
        // 1536² px (`size` or `min_pixels` / `max_pixels`)
        "paddleocr_vl" => Ok(ImageRule::PaddleOcr {
            patch: number(&pre, &[&["patch_size"]], vision("patch_size", 14)),
            merge: number(&pre, &[&["merge_size"]], vision("spatial_merge_size", 2)),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 384 * 384),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 1536 * 1536),
        }),
        // VideoLlama3ImageProcessor: Qwen2-VL's resize at 14 px patches
        // (whatever the tower's), `merge_size` 1 (a token per patch), 56² px
        // to 28²·1280
        "video_llama_3" => Ok(ImageRule::QwenVl {
            patch: number(&pre, &[&["patch_size"]], 14),
            merge: number(&pre, &[&["merge_size"]], 1),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 56 * 56),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 28 * 28 * 1280),
        }),
        // Cohere Compass: Qwen2-VL's processor at its own class defaults
        // (14 px patches whatever the tower's, merge 2, 56² px to 28²·1280).
        "cohere_compass" => Ok(ImageRule::QwenVl {
            patch: number(&pre, &[&["patch_size"]], 14),
            merge: number(&pre, &[&["merge_size"]], 2),
            min_pixels: number(&pre, &[&["min_pixels"], &["size", "shortest_edge"]], 56 * 56),
            max_pixels: number(&pre, &[&["max_pixels"], &["size", "longest_edge"]], 28 * 28 * 1280),
        }),
        // Qianfan-OCR: InternVL's processor and tiles (its processor turns
        // `crop_to_patches` on, as InternVL's does)
        "internvl" | "internvl_chat" | "qianfan_ocr" => internvl(&cfg, &pre),
        "idefics2" => Ok(idefics2(&cfg, &pre)),
        "kimi_k25" => Ok(kimi_k25(&cfg, &pre)),
        "step3p7" => Ok(step3p7(&cfg, &pre)),
        "lfm2_vl" => Ok(lfm2_vl(&cfg, &pre)),
        "glm5_next" => Ok(glm5_next(&cfg, &pre)),
        "apertus1p5" => Ok(apertus1p5(&cfg, &pre)),
        // PerceptionLMImageProcessor's tiles over the PE tower's patches
        "perception_lm" => {
            let empty = serde_json::Map::new();
            let config = super::reader::Cfg::new(cfg.as_object().unwrap_or(&empty), "");
            let processor = super::reader::Cfg::new(pre.as_object().unwrap_or(&empty), "");
            Ok(ImageRule::PerceptionLm(super::perception_lm::image_rule(
                &config, &processor,
            )?))
        }
        "aya_vision" | "cohere2_vision" => aya_vision(&cfg, &pre),
        // PaliGemma: the image resized to the tower's square, one token per
        // patch (`text_config.num_image_tokens` = (image_size // patch_size)²;
        // SiglipVisionConfig's 224 px in 16 px patches when absent).
        // DeepSeek-VL's and Janus's processors: one fixed square per image,
        // `num_image_tokens` placeholders (the tower's patches), Janus's
        // between its begin and end of image
        "deepseek_vl" | "deepseek_vl_hybrid" | "janus" => {
            let janus = model_type == "janus";
            let side = vision("image_size", if janus { 384 } else { 224 }) / vision("patch_size", 16).max(1);
            let tokens = side.saturating_mul(side);
            Ok(ImageRule::Fixed {
                tower: tokens,
                language_model: tokens.saturating_add(if janus { 2 } else { 0 }),
            })
        }
        // Phi4MultimodalImageProcessor: crops of `crop_size` (the tower's
        // 448), at most `dynamic_hd` (36) of them
        "deepseek_ocr2" => Ok(super::deepseek_ocr2::image_rule(&pre)),
        "unlimited_ocr" => Ok(super::unlimited_ocr::image_rule(&pre)),
        "ovis2" => Ok(super::ovis2::image_rule(&cfg, &pre)),
        "fast_vlm" => super::fast_vlm::image_rule(&pre),
        "got_ocr2" => Ok(super::got_ocr2::image_rule(&cfg, &pre)),
        "chameleon" | "emu3" => Ok(super::vq_vlm::image_rule(model_type)),
        "blip-2" | "instructblip" => Ok(super::blip2::image_rule(&cfg)),
        "nemotron_h_omni" => super::nemotron_h_omni::image_rule(&cfg, &pre),
        "molmo2" => super::molmo2::image_rule(&pre),
        "muse_glimmer" | "muse_spark" => Ok(super::muse::image_rule(&cfg, &pre)),
        "inkling2" | "inkling2_loop" => super::inkling2_vlm::image_rule(&cfg, &pre),
        "phi4_multimodal" => Ok(ImageRule::Phi4Mm {
            crop: number(&pre, &[&["crop_size"], &["size", "height"]], vision("crop_size", 448)),
            patch: vision("patch_size", 14),
            max_crops: number(&pre, &[&["dynamic_hd"]], 36),
        }),
        // Florence-2's CLIPImageProcessor resizes every image to its square
        // (768 px); DaViT's strides (4·2·2·2) leave a grid of side / 32, and
        // the projector adds one pooled token
        "florence2" => {
            let side = number(&pre, &[&["size", "height"], &["crop_size", "height"]], super::florence2::IMAGE_SIDE);
            let stride: u64 = match field(&cfg, &["vision_config", "patch_stride"]).and_then(Value::as_array) {
                Some(list) => list.iter().filter_map(Value::as_u64).product(),
                None => 32,
            };
            let grid = (side / stride.max(1)).pow(2);
            Ok(ImageRule::Fixed {
                tower: grid,
                language_model: grid + 1,
            })
        }
        "paligemma" => {
            let side = vision("image_size", 224) / vision("patch_size", 16).max(1);
            let tokens = side.saturating_mul(side);
            Ok(ImageRule::Fixed {
                tower: tokens,
                language_model: tokens,
            })
        }
        // ShieldGemma 2's processor turns pan-and-scan off whatever its
        // preprocessor says: Gemma 3's one square per image
        "shieldgemma2" => {
            let side = vision("image_size", 896) / vision("patch_size", 14).max(1);
            Ok(ImageRule::Fixed {
                tower: side.saturating_mul(side),
                language_model: number(&cfg, &[&["mm_tokens_per_image"]], 256),
            })
        }
        "gemma3" => {
            let side = vision("image_size", 896) / vision("patch_size", 14).max(1);
            let tokens = number(&cfg, &[&["mm_tokens_per_image"]], 256);
            Ok(gemma3(side, tokens, &pre))
        }
        // T5Gemma 2: Gemma 3's processor over the encoder's tower (SigLIP's
        // class defaults, 224 px in 16 px patches, when it is not given)
        "t5gemma2" => {
            let tower = |key: &str, default: u64| {
                number(&cfg, &[&["encoder", "vision_config", key]], default)
            };
            let side = tower("image_size", 224) / tower("patch_size", 16).max(1);
            let tokens = number(&cfg, &[&["encoder", "mm_tokens_per_image"]], 256);
            Ok(gemma3(side, tokens, &pre))
        }
        // Gemma 3n: every image resized to 768 × 768 (its SigLIP processor),
        // of which MobileNet-V5's multi-scale fusion adapter leaves a 16 × 16
        // grid; `vision_soft_tokens_per_image` (256) reach the text.
        "gemma3n" => Ok(ImageRule::Fixed {
            tower: 256,
            language_model: number(&cfg, &[&["vision_soft_tokens_per_image"]], 256),
        }),
        // Gemma4ImageProcessor: a budget of `max_soft_tokens` (280) cells
        // of 3 × 3 patches of 16 px, from `preprocessor_config.json` or the
        // `image_processor` section of `processor_config.json`.
        "gemma4" => Ok(gemma4(&cfg, &pre)),
        "mllama" => Ok(ImageRule::Mllama {
            tile: vision("image_size", 560),
            patch: vision("patch_size", 14),
            max_tiles: number(
                &pre,
                &[&["max_image_tiles"]],
                vision("max_num_tiles", 4),
            ),
        }),
        // Pixtral-12B is a LLaVA wrapper around a Pixtral tower; Mistral
        // Small 3.1 merges 2 × 2 patches.
        // A given vision_config leaves out what PixtralVisionConfig's class
        // defaults fill (patch 16); without one, the wrapper's own (14).
        "mistral3" | "mistral_large4" => Ok(ImageRule::Pixtral {
            patch: if cfg.get("vision_config").is_some_and(Value::is_object) {
                vision("patch_size", 16)
            } else {
                14
            },
            merge: number(&cfg, &[&["spatial_merge_size"]], 2),
            longest_edge: number(&pre, &[&["size", "longest_edge"]], 1540),
        }),
        // LightOnOCR: Pixtral's image processor at its preprocessor's patch
        // and longest edge (without one, the tower's own: LightOnOCR-1B's
        // checkpoint ships 14 px and 1540), merged by the wrapper's
        // `spatial_merge_size`
        "lighton_ocr" => {
            // a given vision_config takes PixtralVisionConfig's class
            // defaults (16 px of 1024); without one, LightOnOCR-1B's
            let given = cfg.get("vision_config").is_some_and(Value::is_object);
            let (patch, image) = if given { (16, 1024) } else { (14, 1540) };
            Ok(ImageRule::LightOnOcr {
                patch: number(
                    &pre,
                    &[&["patch_size", "height"], &["patch_size"]],
                    vision("patch_size", patch),
                ),
                merge: number(&cfg, &[&["spatial_merge_size"]], 2),
                longest_edge: number(&pre, &[&["size", "longest_edge"]], vision("image_size", image)),
            })
        }
        "llava" | "pixtral"
            if model_type == "pixtral"
                || field(&cfg, &["vision_config", "model_type"]).and_then(Value::as_str)
                    == Some("pixtral") =>
        {
            Ok(ImageRule::Pixtral {
                patch: vision("patch_size", 16),
                merge: 1,
                longest_edge: number(&pre, &[&["size", "longest_edge"]], 1024),
            })
        }
        "idefics3" | "smolvlm" => Ok(idefics3(&cfg, &pre)),
        // GraniteDoclingImageProcessor: InternVL's tiles of `size` (the
        // tower's square), 1 to 32 and at most 16 a side; the coarse route's
        // (tile/patch)² / scale² tokens each, four times that when the
        // preprocessor turns `fine_route` on
        "granite_docling" => {
            let patch = vision("patch_size", 16);
            let tile = number(&pre, &[&["size", "height"]], vision("image_size", 512));
            let scale = vision("scale_factor", 4);
            let scale = if pre.get("fine_route").and_then(Value::as_bool) == Some(true) {
                (scale / 2).max(1)
            } else {
                scale
            };
            let side = tile / patch.max(1);
            Ok(ImageRule::GraniteDocling {
                tile,
                patch,
                min_tiles: number(&pre, &[&["min_patches"]], 1),
                max_tiles: number(&pre, &[&["max_patches"]], 32),
                tokens_per_tile: (side / scale.max(1)).saturating_mul(side / scale.max(1)),
            })
        }
        "llava_next" | "llava_next_video" => Ok(ImageRule::LlavaNext {
            crop: vision("image_size", 336),
            patch: vision("patch_size", 14),
            tile_tokens: 0,
            pinpoints: grid_pinpoints(&cfg),
        }),
        "granite4_vision" => granite4_vision(&cfg),
        "llava_onevision" => onevision(&cfg, &pre),
        "llama4" => llama4(&cfg, &pre),
        other => Err(InputError::new(
            "config.json: model_type",
            format!(
                "\"{other}\" has no image rule yet: supported qwen2_vl, qwen2_5_vl, hyperclovax_vision_v2, qwen3_vl, cosmos3_omni, video_llama_3, ernie4_5_vl_moe, lighton_ocr, hunyuan_vl, minicpmv4_6, minicpmv4_7, minicpm_ocr, perception_lm, qwen3_5, qwen3_5_moe, qwen4_exp, glm4v, glm4v_moe, glm46v, glmga, minimax_m3_vl, hy_v4_vl, aria, cohere_compass, paddleocr_vl, cosmos3_edge, internvl, qianfan_ocr, granite_docling, aya_vision, cohere2_vision, kimi_k25, step3p7, lfm2_vl, glm5_next, apertus1p5, gemma3, gemma3n, gemma4, mllama, pixtral, mistral3, mistral_large4, idefics2, idefics3, smolvlm, llava_next, llava_next_video, llava_onevision, paligemma, llama4"
            ),
        )),
    }
}

/// Gemma 4: its processor's patch, pooling and `max_soft_tokens` from
/// `preprocessor_config.json` or the `image_processor` section of
/// `processor_config.json`, else the tower's patch and pooling and 280.
fn gemma4(cfg: &Value, pre: &Value) -> ImageRule {
    let vision = |key: &str, default: u64| number(cfg, &[&["vision_config", key]], default);
    let processor =
        |key: &str, default: u64| number(pre, &[&[key], &["image_processor", key]], default);
    ImageRule::Gemma4 {
        patch: processor("patch_size", vision("patch_size", 16)),
        pool: processor("pooling_kernel_size", vision("pooling_kernel_size", 3)),
        soft_tokens: processor("max_soft_tokens", 280),
    }
}

/// InternVL (transformers' `internvl` and the remote-code `internvl_chat`):
/// tiles of the tower's size, `(side / k)²` tokens each after the shuffle.
fn internvl(cfg: &Value, pre: &Value) -> Result<ImageRule> {
    let tile = square_side(cfg, "image_size", 448)?;
    let patch = square_side(cfg, "patch_size", 14)?;
    let side = tile / patch.max(1);
    // The pixel shuffle folds k × k patches into one token, k = 1 /
    // downsample_ratio (0.5 by default: a quarter of the patches).
    let ratio = cfg
        .get("downsample_ratio")
        .and_then(Value::as_f64)
        .unwrap_or(0.5);
    let k = 1.0 / ratio;
    // int(1 / ratio) as transformers takes it: whole (or a hair over).
    let whole = k.is_finite() && k >= 1.0 && k - k.trunc() < 1e-9;
    if !whole || !side.is_multiple_of(k.trunc() as u64) {
        return Err(InputError::new(
            "config.json: downsample_ratio",
            format!(
                "{} is not supported with {side} patches a side: only 1/k for a whole k that divides them",
                Decimal(ratio)
            ),
        ));
    }
    let k = k.trunc() as u64;
    Ok(ImageRule::InternVl {
        tile,
        patch,
        min_tiles: number(pre, &[&["min_patches"]], 1),
        max_tiles: number(pre, &[&["max_patches"]], 12),
        tokens_per_tile: (side / k).saturating_mul(side / k),
    })
}

/// Aya Vision: `GotOcr2ImageProcessor` tiles (`crop_to_patches`, which
/// `AyaVisionProcessor` turns on) of the tower's `image_size` (a
/// preprocessor size that differs is refused: it would not match the
/// tower's position embeddings), `(side / downsample_factor)²` tokens each.
fn aya_vision(cfg: &Value, pre: &Value) -> Result<ImageRule> {
    // SiglipVisionConfig's 224 px in 16 px patches when absent.
    let tower_side = square_side(cfg, "image_size", 224)?;
    let patch = square_side(cfg, "patch_size", 16)?;
    let tile = number(pre, &[&["size", "height"]], tower_side);
    if tile != tower_side {
        // SiglipVisionEmbeddings holds positions for the tower's own side:
        // a tile of another size fails on the first image.
        return Err(InputError::new(
            "preprocessor_config.json: size",
            format!("{tile} px tiles do not match the tower's image_size {tower_side}: Aya Vision's SigLIP tower reads only its own size"),
        ));
    }
    let k = number(cfg, &[&["downsample_factor"]], 2).max(1);
    let side = tile / patch.max(1);
    let tokens_per_tile = (side / k).saturating_mul(side / k);
    let max_tiles = number(pre, &[&["max_patches"]], 12);
    // Command A Vision's processor: Llama 4's canvas (its `min_patches`
    // is not read), a line break per tile.
    if cfg.get("model_type").and_then(Value::as_str) == Some("cohere2_vision") {
        return Ok(ImageRule::Cohere2Vision {
            tile,
            patch,
            max_tiles,
            tokens_per_tile,
        });
    }
    Ok(ImageRule::AyaVision {
        tile,
        patch,
        min_tiles: number(pre, &[&["min_patches"]], 1),
        max_tiles,
        tokens_per_tile,
    })
}

/// Idefics3 / SmolVLM: tiles of the tower's size and the model's own
/// tokens per tile.
fn idefics3(cfg: &Value, pre: &Value) -> ImageRule {
    let vision = |key: &str, default: u64| number(cfg, &[&["vision_config", key]], default);
    // Idefics3VisionConfig's 224 px in 32 px patches when absent.
    let image = vision("image_size", 224);
    let patch = vision("patch_size", 32);
    let scale = number(cfg, &[&["scale_factor"]], 2);
    let side = image / patch.max(1);
    // The checkpoints' processors cut tiles of the tower's size
    // (`max_image_size`: 364 px for Idefics3, 512 px for SmolVLM-256M)
    // and rescale the long side to 4 tiles (the processor class's
    // `size` is `4 * 364`).
    let tile = number(pre, &[&["max_image_size", "longest_edge"]], image);
    ImageRule::Idefics3 {
        longest_edge: number(pre, &[&["size", "longest_edge"]], tile.saturating_mul(4)),
        tile,
        patch,
        // `Idefics3Model.image_seq_len`:
        // int(((image_size // patch_size) ** 2) / (scale_factor ** 2)).
        seq_len: side.saturating_mul(side) / scale.saturating_mul(scale).max(1),
    }
}

/// Llama 4 (`Llama4ImageProcessor` + `Llama4Processor`): tiles of the
/// processor's square `size` (the tower's `image_size` when no
/// preprocessor says otherwise: the position embeddings fit no other
/// tile), up to `max_patches` of them (16 in the class), and the
/// `(side / k)²` tokens the pixel shuffle leaves of each, k = 1 /
/// `pixel_shuffle_ratio`.
fn llama4(cfg: &Value, pre: &Value) -> Result<ImageRule> {
    let tile = match (
        field(pre, &["size", "height"]),
        field(pre, &["size", "width"]),
    ) {
        (None, None) => number(cfg, &[&["vision_config", "image_size"]], 448),
        (h, w) if h.is_some() && h == w => h.and_then(Value::as_u64).unwrap_or(0),
        (h, w) => {
            return Err(InputError::new(
                "preprocessor_config.json: size",
                format!(
                    "height {} and width {} are not supported: Llama 4's processor cuts square tiles only",
                    h.unwrap_or(&Value::Null),
                    w.unwrap_or(&Value::Null)
                ),
            ))
        }
    };
    let patch = number(cfg, &[&["vision_config", "patch_size"]], 14);
    let side = tile / patch.max(1);
    let ratio = match field(cfg, &["vision_config", "pixel_shuffle_ratio"]) {
        None | Some(Value::Null) => 0.5,
        Some(v) => v.as_f64().unwrap_or(f64::NAN),
    };
    // The model's shuffle folds k × k patches into one token; the processor
    // writes (side² // round(1 / ratio²)) tokens per tile. They agree (and
    // the shuffle can regroup the patches) only for whole k that divide the side.
    let k = 1.0 / ratio;
    let whole = k.is_finite() && k >= 1.0 && (k - k.round()).abs() < 1e-9;
    let k = k.round() as u64;
    if !whole || side == 0 || !side.is_multiple_of(k.max(1)) {
        return Err(InputError::new(
            "config.json: vision_config.pixel_shuffle_ratio",
            format!(
                "{} is not supported with {side} patches a side: only 1/k for a whole k that divides them",
                Decimal(ratio)
            ),
        ));
    }
    let max_canvas = match pre.get("resize_to_max_canvas") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(InputError::new(
                "preprocessor_config.json: resize_to_max_canvas",
                format!("expected true or false, got {other}"),
            ))
        }
    };
    Ok(ImageRule::Llama4 {
        tile,
        patch,
        max_tiles: number(pre, &[&["max_patches"]], 16),
        tokens_per_tile: (side / k).saturating_mul(side / k),
        max_canvas,
    })
}

/// LLaVA-OneVision: the any-resolution grids of its processor.
fn onevision(cfg: &Value, pre: &Value) -> Result<ImageRule> {
    let vision = |key: &str, default: u64| number(cfg, &[&["vision_config", key]], default);
    // The processor's tiles (`size`, 384 px in the class) are the tower's.
    let crop = number(pre, &[&["size", "height"]], vision("image_size", 384));
    let pinpoints = pre
        .get("image_grid_pinpoints")
        .or_else(|| cfg.get("image_grid_pinpoints"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
                .collect()
        })
        .unwrap_or_else(|| anyres::onevision_pinpoints(crop));
    Ok(ImageRule::LlavaOneVision {
        crop,
        patch: vision("patch_size", 14),
        max_patches: anyres::max_patches(cfg)?,
        pinpoints,
    })
}

/// `Idefics2ImageProcessor` and `Idefics2Processor`: each image (or, when
/// `do_image_splitting`, its four quarters and itself) resized between
/// `size.shortest_edge` and `size.longest_edge`, the tower at the
/// resized size in `patch` squares, `resampler_n_latents` tokens each in
/// the text.
fn idefics2(cfg: &Value, pre: &Value) -> ImageRule {
    ImageRule::Idefics2 {
        patch: number(cfg, &[&["vision_config", "patch_size"]], 32),
        shortest_edge: number(pre, &[&["size", "shortest_edge"]], 378),
        longest_edge: number(pre, &[&["size", "longest_edge"]], 980),
        seq_len: number(cfg, &[&["perceiver_config", "resampler_n_latents"]], 64),
        split: pre.get("do_image_splitting").and_then(Value::as_bool) == Some(true),
    }
}

/// `Lfm2VlImageProcessor` and `Lfm2VlProcessor`: its class defaults
/// (16 px patches, downsample 2, 64..256 tokens, 512 px tiles, 2..10
/// tiles, a thumbnail, tolerance 2); `do_image_splitting` off leaves one
/// tile. The patch and factor fall back on the model's.
fn lfm2_vl(cfg: &Value, pre: &Value) -> ImageRule {
    let split = pre.get("do_image_splitting").and_then(Value::as_bool) != Some(false);
    let tiles = |key: &str, default: u64| {
        if split {
            number(pre, &[&[key]], default)
        } else {
            1
        }
    };
    let tolerance = pre
        .get("max_pixels_tolerance")
        .and_then(Value::as_f64)
        .unwrap_or(2.0);
    ImageRule::Lfm2Vl(crate::image_tokens::Tiling {
        patch: number(
            pre,
            &[&["encoder_patch_size"]],
            number(cfg, &[&["vision_config", "patch_size"]], 16),
        ),
        factor: number(
            pre,
            &[&["downsample_factor"]],
            number(cfg, &[&["downsample_factor"]], 2),
        ),
        min_tokens: number(pre, &[&["min_image_tokens"]], 64),
        max_tokens: number(pre, &[&["max_image_tokens"]], 256),
        tile: number(pre, &[&["tile_size"]], 512),
        min_tiles: tiles("min_tiles", 2),
        max_tiles: tiles("max_tiles", 10),
        thumbnail: pre.get("use_thumbnail").and_then(Value::as_bool) != Some(false),
        tolerance_tenths: (tolerance * 10.0).round().clamp(1.0, 1000.0) as u64,
    })
}

/// `Glm5NextImageProcessor` and `Glm5NextProcessor`: its class defaults
/// (14 px patches, merge 2, `patch_expand_factor` 1, 16..8000 tokens) from
/// `preprocessor_config.json` or the `image_processor` section of
/// `processor_config.json`; the patch and merge fall back on the tower's
/// (`vision_config.patch_size`, `spatial_merge_size`). `size` is not read
/// (the processor ignores it), nor `temporal_patch_size` (it cancels).
fn glm5_next(cfg: &Value, pre: &Value) -> ImageRule {
    let d = crate::image_tokens::AlignedCanvas::DEFAULT;
    let processor =
        |key: &str, default: u64| number(pre, &[&[key], &["image_processor", key]], default);
    let vision = |key: &str, default: u64| number(cfg, &[&["vision_config", key]], default);
    ImageRule::Glm5Next(crate::image_tokens::AlignedCanvas {
        patch: processor("patch_size", vision("patch_size", d.patch)),
        merge: processor("merge_size", vision("spatial_merge_size", d.merge)),
        expand: processor("patch_expand_factor", d.expand),
        min_tokens: processor("min_image_tokens", d.min_tokens),
        max_tokens: processor("max_image_tokens", d.max_tokens),
    })
}

/// `Apertus1p5ImageProcessor`: `size.min_pixels` / `size.max_pixels`
/// (the only `size` keys its `resize` takes; 128² and 1400² px by
/// default) and `spatial_factor`, from `preprocessor_config.json` or the
/// `image_processor` section of `processor_config.json`. The factor falls
/// back on the vision tokenizer's own (`2^(len(channel_multiplier) - 1)`),
/// which the processor's must equal for the codes to fill the
/// placeholders, else the class default 16.
fn apertus1p5(cfg: &Value, pre: &Value) -> ImageRule {
    let d = crate::image_tokens::CodeGrid::DEFAULT;
    let processor = |path: &[&str], default: u64| {
        let section: Vec<&str> = std::iter::once("image_processor")
            .chain(path.iter().copied())
            .collect();
        number(pre, &[path, &section], default)
    };
    let stages = field(cfg, &["vision_config", "channel_multiplier"])
        .and_then(Value::as_array)
        .map(Vec::len)
        .filter(|n| (1..=16).contains(n));
    let tokenizer = stages.map_or(d.factor, |n| 1 << (n - 1));
    ImageRule::Apertus1p5(crate::image_tokens::CodeGrid {
        factor: processor(&["spatial_factor"], tokenizer),
        min_pixels: processor(&["size", "min_pixels"], d.min_pixels),
        max_pixels: processor(&["size", "max_pixels"], d.max_pixels),
    })
}

/// `Step3p7ImageProcessor` and `Step3p7Processor`: a `size.height` global
/// view, `patch_size` crops, the long side at most `max_image_size`; the
/// tower's patch and its downsamplers' stride 4.
fn step3p7(cfg: &Value, pre: &Value) -> ImageRule {
    ImageRule::Step3p7 {
        global: number(pre, &[&["size", "height"]], 728),
        crop: number(pre, &[&["patch_size"]], 504),
        max_side: number(pre, &[&["max_image_size"]], 3024),
        patch: number(
            pre,
            &[&["vision_patch_size"]],
            number(cfg, &[&["vision_config", "patch_size"]], 14),
        ),
        stride: number(pre, &[&["downsampler_stride"]], 4),
    }
}

/// `Kimi_K25ImageProcessor`: `navit_resize` within `max_patches` patches
/// and `size.max_height` patches a side, padded to whole `merge × merge`
/// squares.
fn kimi_k25(cfg: &Value, pre: &Value) -> ImageRule {
    ImageRule::KimiK25 {
        patch: number(
            pre,
            &[&["patch_size"]],
            number(cfg, &[&["vision_config", "patch_size"]], 14),
        ),
        merge: number(pre, &[&["merge_size"]], 2),
        max_patches: number(pre, &[&["max_patches"]], 16_384),
        max_side: number(pre, &[&["size", "max_height"]], 512),
    }
}

/// Granite4VisionProcessor: LLaVA-NeXT's tiles, the features' grid
/// downsampled by `downsample_rate` "q/w" (a patch of patch·w/q), the
/// tower's own (crop/patch)² (+1 for CLIP's class token) per tile.
fn granite4_vision(cfg: &Value) -> Result<ImageRule> {
    let siglip = field(cfg, &["vision_config", "model_type"]).and_then(Value::as_str)
        == Some("siglip_vision_model");
    let crop = number(cfg, &[&["vision_config", "image_size"]], 224);
    let default_patch = if siglip { 16 } else { 32 };
    let patch = number(cfg, &[&["vision_config", "patch_size"]], default_patch);
    let rate = cfg
        .get("downsample_rate")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (q, w) = super::granite4_vision::parse_rate(rate)
        .filter(|&(q, w)| patch.saturating_mul(w).is_multiple_of(q))
        .ok_or_else(|| {
            InputError::new(
                "config.json: downsample_rate",
                format!(
                    "\"{rate}\" is not {} that divides the tower's patch {patch}",
                    super::granite4_vision::RATE_FORM
                ),
            )
        })?;
    let side = crop / patch.max(1);
    Ok(ImageRule::LlavaNext {
        crop,
        patch: patch.saturating_mul(w) / q,
        tile_tokens: side * side + u64::from(!siglip),
        pinpoints: grid_pinpoints(cfg),
    })
}
