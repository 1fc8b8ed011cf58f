//! An image rule as a share link writes it (`qwen_vl:14,2,3136,1003520`)
//! and reads it back, refusing what does not parse or validate.

use super::{anyres, ImageRule, MAX_PIXELS};

impl ImageRule {
    /// The rule as a link writes it: its key, then its numbers
    /// (`qwen_vl:14,2,3136,1003520`; LLaVA-NeXT's pinpoints as `HxW`).
    #[allow(clippy::too_many_lines)] // one arm per image rule, each its key and numbers
    pub fn to_text(&self) -> String {
        let join = |key: &str, v: &[u64]| {
            let nums: Vec<String> = v.iter().map(u64::to_string).collect();
            format!("{key}:{}", nums.join(","))
        };
        match self {
            ImageRule::QwenVl {
                patch,
                merge,
                min_pixels,
                max_pixels,
            } => join("qwen_vl", &[*patch, *merge, *min_pixels, *max_pixels]),
            ImageRule::QwenVlRows {
                patch,
                merge,
                min_pixels,
                max_pixels,
            } => join("qwen_vl_rows", &[*patch, *merge, *min_pixels, *max_pixels]),
            ImageRule::HunyuanVl {
                patch,
                merge,
                min_pixels,
                max_pixels,
            } => join("hunyuan_vl", &[*patch, *merge, *min_pixels, *max_pixels]),
            ImageRule::PaddleOcr {
                patch,
                merge,
                min_pixels,
                max_pixels,
            } => join("paddle_ocr", &[*patch, *merge, *min_pixels, *max_pixels]),
            ImageRule::Glm4v {
                patch,
                merge,
                temporal,
                min_pixels,
                max_pixels,
            } => join(
                "glm4v",
                &[*patch, *merge, *temporal, *min_pixels, *max_pixels],
            ),
            ImageRule::Gemma4 {
                patch,
                pool,
                soft_tokens,
            } => join("gemma4", &[*patch, *pool, *soft_tokens]),
            ImageRule::InternVl { .. }
            | ImageRule::AyaVision { .. }
            | ImageRule::GraniteDocling { .. }
            | ImageRule::GotOcr2 { .. } => join(
                self.tiled_key().unwrap_or("intern_vl"),
                &self.tile_fields().unwrap_or_default(),
            ),
            ImageRule::Fixed {
                tower,
                language_model,
            } => join("fixed", &[*tower, *language_model]),
            ImageRule::Mllama {
                tile,
                patch,
                max_tiles,
            } => join("mllama", &[*tile, *patch, *max_tiles]),
            ImageRule::Gemma3PanScan {
                tower,
                tokens,
                min_crop,
                max_crops,
                min_ratio_tenths,
            } => join(
                "gemma3_pan_scan",
                &[*tower, *tokens, *min_crop, *max_crops, *min_ratio_tenths],
            ),
            ImageRule::Pixtral {
                patch,
                merge,
                longest_edge,
            } => join("pixtral", &[*patch, *merge, *longest_edge]),
            ImageRule::LightOnOcr {
                patch,
                merge,
                longest_edge,
            } => join("lighton_ocr", &[*patch, *merge, *longest_edge]),
            ImageRule::MiniCpmV {
                patch,
                merge,
                scale,
                max_slices,
            } => join("minicpm_v", &[*patch, *merge, *scale, *max_slices]),
            ImageRule::Idefics3 {
                longest_edge,
                tile,
                patch,
                seq_len,
            } => join("idefics3", &[*longest_edge, *tile, *patch, *seq_len]),
            ImageRule::KimiK25 {
                patch,
                merge,
                max_patches,
                max_side,
            } => join("kimi_k25", &[*patch, *merge, *max_patches, *max_side]),
            ImageRule::Lfm2Vl(t) => join(
                "lfm2_vl",
                &[
                    t.patch,
                    t.factor,
                    t.min_tokens,
                    t.max_tokens,
                    t.tile,
                    t.min_tiles,
                    t.max_tiles,
                    u64::from(t.thumbnail),
                    t.tolerance_tenths,
                ],
            ),
            ImageRule::Step3p7 {
                global,
                crop,
                max_side,
                patch,
                stride,
            } => join("step3p7", &[*global, *crop, *max_side, *patch, *stride]),
            ImageRule::Glm5Next(c) => join(
                "glm5_next",
                &[c.patch, c.merge, c.expand, c.min_tokens, c.max_tokens],
            ),
            ImageRule::Apertus1p5(g) => join("apertus1p5", &[g.factor, g.min_pixels, g.max_pixels]),
            ImageRule::Phi4Mm {
                crop,
                patch,
                max_crops,
            } => join("phi4mm", &[*crop, *patch, *max_crops]),
            ImageRule::DeepseekOcr2(v) if v.newlines => join(
                "unlimited_ocr",
                &[
                    v.base,
                    v.tile,
                    v.patch,
                    v.fold,
                    v.min_crops,
                    v.max_crops,
                    u64::from(v.squash),
                ],
            ),
            ImageRule::DeepseekOcr2(v) => join(
                "deepseek_ocr2",
                &[v.base, v.tile, v.patch, v.fold, v.min_crops, v.max_crops],
            ),
            ImageRule::Radio(r) => join(
                "radio",
                &[r.patch, r.merge, r.budget, r.min_patches, r.extra],
            ),
            ImageRule::Molmo2(c) => join(
                "molmo2",
                &[
                    c.size,
                    c.patch,
                    c.margins.0,
                    c.margins.1,
                    c.max_crops,
                    c.pool.0,
                    c.pool.1,
                    u64::from(c.columns.0),
                    u64::from(c.columns.1),
                ],
            ),
            ImageRule::Muse {
                patch,
                merge,
                max_tokens,
            } => join("muse", &[*patch, *merge, *max_tokens]),
            ImageRule::Inkling2 { cell, merge } => join("inkling2", &[*cell, *merge]),
            ImageRule::Ovis2(t) => join(
                "ovis2",
                &[
                    t.tile,
                    t.patch,
                    t.seq,
                    t.min_tiles,
                    t.max_tiles,
                    u64::from(t.covering),
                ],
            ),
            ImageRule::PerceptionLm(t) => join(
                "perception_lm",
                &[
                    t.tile,
                    t.patch,
                    t.pool,
                    t.max_tiles,
                    u64::from(t.thumb_and_tiles),
                    u64::from(t.class_token),
                ],
            ),
            ImageRule::Cohere2Vision {
                tile,
                patch,
                max_tiles,
                tokens_per_tile,
            } => join(
                "cohere2_vision",
                &[*tile, *patch, *max_tiles, *tokens_per_tile],
            ),
            ImageRule::Idefics2 {
                patch,
                shortest_edge,
                longest_edge,
                seq_len,
                split,
            } => join(
                "idefics2",
                &[
                    *patch,
                    *shortest_edge,
                    *longest_edge,
                    *seq_len,
                    u64::from(*split),
                ],
            ),
            ImageRule::Llama4 {
                tile,
                patch,
                max_tiles,
                tokens_per_tile,
                max_canvas,
            } => join(
                "llama4",
                &[
                    *tile,
                    *patch,
                    *max_tiles,
                    *tokens_per_tile,
                    u64::from(*max_canvas),
                ],
            ),
            ImageRule::LlavaNext {
                crop,
                patch,
                tile_tokens: 0,
                pinpoints,
            } => anyres::with_pinpoints(join("llava_next", &[*crop, *patch]), pinpoints),
            ImageRule::LlavaNext {
                crop,
                patch,
                tile_tokens,
                pinpoints,
            } => anyres::with_pinpoints(
                join("llava_next_t", &[*crop, *patch, *tile_tokens]),
                pinpoints,
            ),
            ImageRule::Aria {
                crop,
                patch,
                queries,
                split,
                resolutions,
            } => anyres::with_pinpoints(
                join("aria", &[*crop, *patch, *queries, u64::from(*split)]),
                resolutions,
            ),
            ImageRule::LlavaOneVision {
                crop,
                patch,
                max_patches,
                pinpoints,
            } => anyres::with_pinpoints(
                join("llava_onevision", &[*crop, *patch, *max_patches]),
                pinpoints,
            ),
        }
    }

    /// Reads [`to_text`](Self::to_text)'s form; the message says what is wrong.
    #[allow(clippy::too_many_lines)] // one arm per image rule, as `to_text` writes them
    pub fn from_text(text: &str) -> std::result::Result<ImageRule, String> {
        let (key, rest) = text
            .split_once(':')
            .ok_or_else(|| format!("\"{text}\" is not an image rule (key:numbers)"))?;
        let items: Vec<&str> = rest.split(',').collect();
        let number = |s: &str| -> std::result::Result<u64, String> {
            s.trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n <= MAX_PIXELS)
                .ok_or_else(|| format!("\"{s}\" is not a whole number from 0 to {MAX_PIXELS}"))
        };
        let numbers = |n: usize| -> std::result::Result<Vec<u64>, String> {
            if items.len() != n {
                return Err(format!("{key} takes {n} numbers, got {}", items.len()));
            }
            items.iter().map(|s| number(s)).collect()
        };
        let rule = match key {
            "qwen_vl" => {
                let v = numbers(4)?;
                ImageRule::QwenVl {
                    patch: v[0],
                    merge: v[1],
                    min_pixels: v[2],
                    max_pixels: v[3],
                }
            }
            "paddle_ocr" => {
                let v = numbers(4)?;
                ImageRule::PaddleOcr {
                    patch: v[0],
                    merge: v[1],
                    min_pixels: v[2],
                    max_pixels: v[3],
                }
            }
            "qwen_vl_rows" => {
                let v = numbers(4)?;
                ImageRule::QwenVlRows {
                    patch: v[0],
                    merge: v[1],
                    min_pixels: v[2],
                    max_pixels: v[3],
                }
            }
            "hunyuan_vl" => {
                let v = numbers(4)?;
                ImageRule::HunyuanVl {
                    patch: v[0],
                    merge: v[1],
                    min_pixels: v[2],
                    max_pixels: v[3],
                }
            }
            "glm4v" => {
                let v = numbers(5)?;
                ImageRule::Glm4v {
                    patch: v[0],
                    merge: v[1],
                    temporal: v[2],
                    min_pixels: v[3],
                    max_pixels: v[4],
                }
            }
            "gemma4" => gemma4_rule(&numbers(3)?),
            "intern_vl" | "aya_vision" | "granite_docling" | "got_ocr2" => {
                let v = numbers(5)?;
                ImageRule::tiled(key, [v[0], v[1], v[2], v[3], v[4]])
                    .ok_or_else(|| format!("\"{key}\" is not a tile rule"))?
            }
            "fixed" => {
                let v = numbers(2)?;
                ImageRule::Fixed {
                    tower: v[0],
                    language_model: v[1],
                }
            }
            "mllama" => {
                let v = numbers(3)?;
                ImageRule::Mllama {
                    tile: v[0],
                    patch: v[1],
                    max_tiles: v[2],
                }
            }
            "gemma3_pan_scan" => {
                let v = numbers(5)?;
                ImageRule::Gemma3PanScan {
                    tower: v[0],
                    tokens: v[1],
                    min_crop: v[2],
                    max_crops: v[3],
                    min_ratio_tenths: v[4],
                }
            }
            "pixtral" => {
                let v = numbers(3)?;
                ImageRule::Pixtral {
                    patch: v[0],
                    merge: v[1],
                    longest_edge: v[2],
                }
            }
            "minicpm_v" => {
                let v = numbers(4)?;
                ImageRule::MiniCpmV {
                    patch: v[0],
                    merge: v[1],
                    scale: v[2],
                    max_slices: v[3],
                }
            }
            "lighton_ocr" => {
                let v = numbers(3)?;
                ImageRule::LightOnOcr {
                    patch: v[0],
                    merge: v[1],
                    longest_edge: v[2],
                }
            }
            "idefics3" => {
                let v = numbers(4)?;
                ImageRule::Idefics3 {
                    longest_edge: v[0],
                    tile: v[1],
                    patch: v[2],
                    seq_len: v[3],
                }
            }
            "idefics2" => idefics2_from_numbers(&numbers(5)?)?,
            "llama4" => llama4_from_numbers(&numbers(5)?)?,
            "kimi_k25" => {
                let v = numbers(4)?;
                ImageRule::KimiK25 {
                    patch: v[0],
                    merge: v[1],
                    max_patches: v[2],
                    max_side: v[3],
                }
            }
            "lfm2_vl" => {
                let v = numbers(9)?;
                ImageRule::Lfm2Vl(super::Tiling {
                    patch: v[0],
                    factor: v[1],
                    min_tokens: v[2],
                    max_tokens: v[3],
                    tile: v[4],
                    min_tiles: v[5],
                    max_tiles: v[6],
                    thumbnail: v[7] == 1,
                    tolerance_tenths: v[8],
                })
            }
            "step3p7" => {
                let v = numbers(5)?;
                ImageRule::Step3p7 {
                    global: v[0],
                    crop: v[1],
                    max_side: v[2],
                    patch: v[3],
                    stride: v[4],
                }
            }
            "glm5_next" => {
                let v = numbers(5)?;
                ImageRule::Glm5Next(super::AlignedCanvas {
                    patch: v[0],
                    merge: v[1],
                    expand: v[2],
                    min_tokens: v[3],
                    max_tokens: v[4],
                })
            }
            "apertus1p5" => {
                let v = numbers(3)?;
                ImageRule::Apertus1p5(super::CodeGrid {
                    factor: v[0],
                    min_pixels: v[1],
                    max_pixels: v[2],
                })
            }
            "phi4mm" => {
                let v = numbers(3)?;
                ImageRule::Phi4Mm {
                    crop: v[0],
                    patch: v[1],
                    max_crops: v[2],
                }
            }
            // base, tile, patch, fold, min crops, max crops
            // base, tile, patch, fold, min crops, max crops (Unlimited-OCR:
            // and whether the global view is squashed)
            "deepseek_ocr2" | "unlimited_ocr" => {
                let newlines = key == "unlimited_ocr";
                let v = numbers(6 + usize::from(newlines))?;
                ImageRule::DeepseekOcr2(super::OcrViews {
                    base: v[0],
                    tile: v[1],
                    patch: v[2],
                    fold: v[3],
                    min_crops: v[4],
                    max_crops: v[5],
                    newlines,
                    squash: newlines && v[6] == 1,
                })
            }
            // patch, merge, budget, min patches, class and register tokens
            "radio" => {
                let v = numbers(5)?;
                ImageRule::Radio(super::PatchBudget {
                    patch: v[0],
                    merge: v[1],
                    budget: v[2],
                    min_patches: v[3],
                    extra: v[4],
                })
            }
            // size, patch, margins (2), max crops, pool (2), column flags (2)
            "molmo2" => {
                let v = numbers(9)?;
                ImageRule::Molmo2(super::OverlapCrops {
                    size: v[0],
                    patch: v[1],
                    margins: (v[2], v[3]),
                    max_crops: v[4],
                    pool: (v[5], v[6]),
                    columns: (v[7] == 1, v[8] == 1),
                })
            }
            // tile, patch, atoms a tile, min and max tiles, covering grid (0/1)
            "ovis2" => {
                let v = numbers(6)?;
                ImageRule::Ovis2(super::OvisTiles {
                    tile: v[0],
                    patch: v[1],
                    seq: v[2],
                    min_tiles: v[3],
                    max_tiles: v[4],
                    covering: v[5] == 1,
                })
            }
            "inkling2" => {
                let v = numbers(2)?;
                ImageRule::Inkling2 {
                    cell: v[0],
                    merge: v[1],
                }
            }
            "muse" => {
                let v = numbers(3)?;
                ImageRule::Muse {
                    patch: v[0],
                    merge: v[1],
                    max_tokens: v[2],
                }
            }
            // tile, patch, pool, max tiles, thumb+tile (0/1), class token (0/1)
            "perception_lm" => {
                let v = numbers(6)?;
                ImageRule::PerceptionLm(super::PlmTiles {
                    tile: v[0],
                    patch: v[1],
                    pool: v[2],
                    max_tiles: v[3],
                    thumb_and_tiles: v[4] == 1,
                    class_token: v[5] == 1,
                })
            }
            "cohere2_vision" => {
                let v = numbers(4)?;
                ImageRule::Cohere2Vision {
                    tile: v[0],
                    patch: v[1],
                    max_tiles: v[2],
                    tokens_per_tile: v[3],
                }
            }
            "llava_next" | "llava_next_t" | "llava_onevision" => anyres_rule(key, &items, number)?,
            // crop, patch, queries, split (0/1), then the split resolutions HxW
            "aria" => {
                if items.len() < 4 {
                    return Err("aria takes crop, patch, queries, split and resolutions HxW".into());
                }
                let v: Vec<u64> = items[..4].iter().map(|s| number(s)).collect::<std::result::Result<_, _>>()?;
                ImageRule::Aria {
                    crop: v[0],
                    patch: v[1],
                    queries: v[2],
                    split: v[3] == 1,
                    resolutions: anyres::read_pinpoints(&items[4..], number)?,
                }
            }
            other => {
                return Err(format!(
                "\"{other}\" is not an image rule: qwen_vl, qwen_vl_rows, hunyuan_vl, paddle_ocr, aria, glm4v, gemma4, intern_vl, aya_vision, granite_docling, fixed, mllama, \
                     gemma3_pan_scan, pixtral, lighton_ocr, minicpm_v, idefics3, idefics2, llava_next, llava_onevision, llama4, cohere2_vision, kimi_k25, step3p7, lfm2_vl, glm5_next, apertus1p5, perception_lm, phi4mm, deepseek_ocr2, unlimited_ocr, radio, molmo2, muse, inkling2, ovis2, got_ocr2"
            ))
            }
        };
        rule.validate().map_err(|e| e.to_string())?;
        Ok(rule)
    }
}

/// Reads a `llava_next:` (crop, patch, pinpoints `HxW`), `llava_next_t:`
/// (crop, patch, tower tokens per tile, pinpoints) or `llava_onevision:`
/// (crop, patch, max patches, pinpoints) link rule.
fn anyres_rule(
    key: &str,
    items: &[&str],
    number: impl Fn(&str) -> std::result::Result<u64, String>,
) -> std::result::Result<ImageRule, String> {
    let one_vision = key == "llava_onevision";
    let fixed = if key == "llava_next" { 2 } else { 3 };
    if items.len() < fixed {
        return Err(format!(
            "{key} takes crop, patch,{} and pinpoints HxW",
            match key {
                "llava_onevision" => " max patches",
                "llava_next_t" => " tower tokens per tile",
                _ => "",
            }
        ));
    }
    let (crop, patch) = (number(items[0])?, number(items[1])?);
    let pinpoints = anyres::read_pinpoints(&items[fixed..], &number)?;
    Ok(if one_vision {
        ImageRule::LlavaOneVision {
            crop,
            patch,
            max_patches: number(items[2])?,
            pinpoints,
        }
    } else {
        ImageRule::LlavaNext {
            crop,
            patch,
            tile_tokens: if fixed == 3 { number(items[2])? } else { 0 },
            pinpoints,
        }
    })
}

/// Reads the numbers of an `idefics2:` link rule; the last is image
/// splitting, 0 or 1.
fn idefics2_from_numbers(v: &[u64]) -> std::result::Result<ImageRule, String> {
    match *v {
        [patch, shortest_edge, longest_edge, seq_len, flag @ (0 | 1)] => Ok(ImageRule::Idefics2 {
            patch,
            shortest_edge,
            longest_edge,
            seq_len,
            split: flag == 1,
        }),
        _ => Err("idefics2's last number, image splitting, is 0 or 1".to_owned()),
    }
}

/// Reads the numbers of a `llama4:` link rule; the last is
/// `resize_to_max_canvas`, 0 or 1.
fn llama4_from_numbers(v: &[u64]) -> std::result::Result<ImageRule, String> {
    match *v {
        [tile, patch, max_tiles, tokens_per_tile, flag @ (0 | 1)] => Ok(ImageRule::Llama4 {
            tile,
            patch,
            max_tiles,
            tokens_per_tile,
            max_canvas: flag == 1,
        }),
        _ => Err(format!(
            "llama4 takes tile, patch, max tiles, tokens per tile and resize_to_max_canvas (0 or 1), got {v:?}"
        )),
    }
}

/// A model's image rule in JSON as its link text (`qwen_vl:14,2,3136,1003520`):
/// one string to read, where a tagged enum's derived reader is tens of
/// kilobytes of the web app's first load.
pub mod rule_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::ImageRule;

    pub fn serialize<S: Serializer>(rule: &Option<ImageRule>, s: S) -> Result<S::Ok, S::Error> {
        match rule {
            Some(r) => s.serialize_some(&r.to_text()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ImageRule>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| ImageRule::from_text(&t).map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// A `gemma4:` link rule from its numbers (patch, pool, soft tokens).
fn gemma4_rule(v: &[u64]) -> ImageRule {
    ImageRule::Gemma4 {
        patch: v[0],
        pool: v[1],
        soft_tokens: v[2],
    }
}
