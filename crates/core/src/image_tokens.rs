//! Image tokens of today's VLMs for any width × height: how many tokens the
//! vision tower processes and how many the language model receives, as
//! transformers' image processors compute them (checked against them on
//! synthetic images: `tests/image_tokens.rs`, data in `tests/data/vision/`).
//!
//! - Qwen2-VL / Qwen2.5-VL / Qwen3-VL (`smart_resize` in
//!   `image_processing_qwen2_vl.py`): both sides rounded to multiples of
//!   patch × merge, then scaled into `[min_pixels, max_pixels]`; the tower
//!   reads one patch per `patch²` pixels, the merger hands `merge²` of them
//!   to the language model as one token.
//! - InternVL (`crop_to_patches` of `image_processing_got_ocr2.py`): tiles
//!   of the tower's size in the grid whose aspect ratio is closest to the
//!   image's, a thumbnail beside them when there is more than one tile, a
//!   fixed number of tokens per tile after the pixel shuffle.
//! - Gemma 3 without pan-and-scan: one 896 px square per image, 256 tokens.
//! - Llama 3.2 Vision (`mllama`): 560 px tiles up to `max_image_tiles`; the
//!   language model sees one image token and reads the tiles through its
//!   cross-attention layers.

use serde::Serialize;

use crate::error::{InputError, Result};

/// The largest image side accepted: 2^16 px (a 65,536 px panorama); a
/// larger one is surely a typo, and products of two sides stay in u64.
pub const MAX_IMAGE_SIDE: u64 = 1 << 16;

/// How a family turns an image into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum ImageRule {
    /// Qwen-VL: dynamic resolution in patches, `merge × merge` per token.
    QwenVl {
        patch: u64,
        merge: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// InternVL: aspect-ratio tiles plus a thumbnail; the tower reads
    /// `(tile/patch)² + 1` tokens per tile, the pixel shuffle hands on
    /// `tokens_per_tile`.
    InternVl {
        tile: u64,
        patch: u64,
        min_tiles: u64,
        max_tiles: u64,
        tokens_per_tile: u64,
    },
    /// A fixed square per image (Gemma 3: 4096 patches, 256 tokens).
    Fixed { tower: u64, language_model: u64 },
    /// Llama 3.2 Vision: tiles through cross-attention, one token in the text.
    Mllama {
        tile: u64,
        patch: u64,
        max_tiles: u64,
    },
}

/// Tokens of one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ImageTokens {
    pub width: u64,
    pub height: u64,
    /// Tokens the vision tower processes (every tile's, with class tokens).
    pub tower_tokens: u64,
    /// Tokens the image takes in the language model's sequence.
    pub language_model_tokens: u64,
    /// Tiles of a tiling family (with the thumbnail), `None` otherwise.
    pub tiles: Option<u64>,
}

/// Python's `round`: halves go to the even neighbour.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// Qwen-VL's `smart_resize`: the resized (height, width).
pub fn smart_resize(
    height: u64,
    width: u64,
    factor: u64,
    min_pixels: u64,
    max_pixels: u64,
) -> (u64, u64) {
    let (h, w, f) = (height as f64, width as f64, factor as f64);
    let mut h_bar = (round_half_even(h / f) * f) as u64;
    let mut w_bar = (round_half_even(w / f) * f) as u64;
    if h_bar.saturating_mul(w_bar) > max_pixels {
        let beta = ((h * w) / max_pixels as f64).sqrt();
        h_bar = factor.max(((h / beta / f).floor() * f) as u64);
        w_bar = factor.max(((w / beta / f).floor() * f) as u64);
    } else if h_bar.saturating_mul(w_bar) < min_pixels {
        let beta = (min_pixels as f64 / (h * w)).sqrt();
        h_bar = ((h * beta / f).ceil() * f) as u64;
        w_bar = ((w * beta / f).ceil() * f) as u64;
    }
    (h_bar, w_bar)
}

/// InternVL's grid (columns, rows) for an image: the arrangement of
/// `min..=max` tiles whose aspect ratio is closest to the image's; on a tie
/// the larger grid when the image covers over half of it.
pub fn internvl_grid(
    width: u64,
    height: u64,
    tile: u64,
    min_tiles: u64,
    max_tiles: u64,
) -> (u64, u64) {
    // `get_all_supported_aspect_ratios`: columns, then rows, in order; a
    // stable sort by tile count (the order decides ties below).
    let mut grids: Vec<(u64, u64)> = Vec::new();
    for cols in 1..=max_tiles {
        for rows in 1..=max_tiles {
            if (min_tiles..=max_tiles).contains(&(cols * rows)) {
                grids.push((cols, rows));
            }
        }
    }
    grids.sort_by_key(|(cols, rows)| cols * rows);
    let aspect = width as f64 / height as f64;
    let area = (width * height) as f64;
    let mut best = (1, 1);
    let mut best_diff = f64::INFINITY;
    for (cols, rows) in grids {
        let diff = (aspect - cols as f64 / rows as f64).abs();
        if diff < best_diff {
            best_diff = diff;
            best = (cols, rows);
        } else if diff == best_diff && area > 0.5 * (tile * tile * cols * rows) as f64 {
            best = (cols, rows);
        }
    }
    best
}

/// Mllama's tile count: the canvas of at most `max_tiles` tiles that keeps
/// the most of the image (the least upscaling, then the least area).
pub fn mllama_tiles(width: u64, height: u64, tile: u64, max_tiles: u64) -> u64 {
    let mut best: Option<(f64, u64, u64)> = None; // (scale, area, tiles)
    for rows in 1..=max_tiles {
        for cols in 1..=max_tiles {
            if rows * cols > max_tiles {
                continue;
            }
            let scale =
                ((cols * tile) as f64 / width as f64).min((rows * tile) as f64 / height as f64);
            let area = rows * cols;
            let better = match best {
                None => true,
                Some((s, a, _)) => {
                    // Upscaling: the smallest scale ≥ 1; else the largest scale.
                    match (scale >= 1.0, s >= 1.0) {
                        (true, true) => scale < s || (scale == s && area < a),
                        // any upscaling canvas beats every downscaling one
                        (true, false) => true,
                        (false, true) => false,
                        (false, false) => scale > s || (scale == s && area < a),
                    }
                }
            };
            if better {
                best = Some((scale, area, area));
            }
        }
    }
    best.map_or(1, |(_, _, t)| t)
}

/// The tokens of one `width × height` image under `rule`.
pub fn tokens(rule: ImageRule, width: u64, height: u64) -> Result<ImageTokens> {
    for (field, side) in [("image.width", width), ("image.height", height)] {
        if !(1..=MAX_IMAGE_SIDE).contains(&side) {
            return Err(InputError::out_of_range(field, side, 1, MAX_IMAGE_SIDE));
        }
    }
    let (tower, lm, tiles) = match rule {
        ImageRule::QwenVl {
            patch,
            merge,
            min_pixels,
            max_pixels,
        } => {
            let factor = patch.max(1) * merge.max(1);
            if width.max(height) / width.min(height) > 200 {
                return Err(InputError::new(
                    "image",
                    format!(
                        "{width} × {height} has an aspect ratio over 200: Qwen-VL's processor refuses it"
                    ),
                ));
            }
            let (h, w) = smart_resize(height, width, factor, min_pixels, max_pixels);
            let patches = (h / patch.max(1)) * (w / patch.max(1));
            (patches, patches / (merge.max(1) * merge.max(1)), None)
        }
        ImageRule::InternVl {
            tile,
            patch,
            min_tiles,
            max_tiles,
            tokens_per_tile,
        } => {
            let (cols, rows) = internvl_grid(width, height, tile, min_tiles, max_tiles);
            let mut n = cols * rows;
            if n > 1 {
                n += 1; // the thumbnail
            }
            let side = tile / patch.max(1);
            (n * (side * side + 1), n * tokens_per_tile, Some(n))
        }
        ImageRule::Fixed {
            tower,
            language_model,
        } => (tower, language_model, None),
        ImageRule::Mllama {
            tile,
            patch,
            max_tiles,
        } => {
            let n = mllama_tiles(width, height, tile, max_tiles);
            let side = tile / patch.max(1);
            // The tower runs every tile slot of the image, padded ones too
            // (`MllamaVisionModel` folds all `max_num_tiles` into its batch).
            (max_tiles * (side * side + 1), 1, Some(n))
        }
    };
    Ok(ImageTokens {
        width,
        height,
        tower_tokens: tower,
        language_model_tokens: lm,
        tiles,
    })
}

fn field<'a>(obj: &'a serde_json::Value, path: &[&str]) -> Option<&'a serde_json::Value> {
    path.iter().try_fold(obj, |v, k| v.get(*k))
}

fn number(obj: &serde_json::Value, paths: &[&[&str]], default: u64) -> u64 {
    paths
        .iter()
        .find_map(|p| field(obj, p).and_then(serde_json::Value::as_u64))
        .unwrap_or(default)
}

/// The image rule of a VLM from its `config.json` and, when given, its
/// `preprocessor_config.json` (the pixel limits and tile counts live there;
/// the processor classes' defaults apply when it is absent).
pub fn rule_from_configs(config: &str, preprocessor: Option<&str>) -> Result<ImageRule> {
    let parse = |name: &str, text: &str| -> Result<serde_json::Value> {
        serde_json::from_str(text)
            .map_err(|e| InputError::new(name, format!("is not valid JSON ({e})")))
    };
    let cfg = parse("config.json", config)?;
    let pre = match preprocessor {
        Some(text) => parse("preprocessor_config.json", text)?,
        None => serde_json::Value::Null,
    };
    let model_type = cfg
        .get("model_type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let vision = |key: &str, default: u64| number(&cfg, &[&["vision_config", key]], default);
    match model_type {
        // Qwen2VLImageProcessor: min_pixels 56·56, max_pixels 28·28·1280.
        "qwen2_vl" | "qwen2_5_vl" | "qwen3_vl" | "qwen3_vl_moe" | "qwen3_5" | "qwen3_5_moe" => {
            let qwen3 = model_type.starts_with("qwen3");
            let patch = vision("patch_size", if qwen3 { 16 } else { 14 });
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
        "internvl" | "internvl_chat" => {
            let tile = vision("image_size", 448);
            let patch = vision("patch_size", 14);
            let side = tile / patch.max(1);
            // pixel shuffle by downsample_ratio 0.5: a quarter of the patches
            Ok(ImageRule::InternVl {
                tile,
                patch,
                min_tiles: number(&pre, &[&["min_patches"]], 1),
                max_tiles: number(&pre, &[&["max_patches"]], 12),
                tokens_per_tile: side * side / 4,
            })
        }
        "gemma3" => {
            let side = vision("image_size", 896) / vision("patch_size", 14).max(1);
            Ok(ImageRule::Fixed {
                tower: side * side,
                language_model: number(&cfg, &[&["mm_tokens_per_image"]], 256),
            })
        }
        "mllama" => Ok(ImageRule::Mllama {
            tile: vision("image_size", 560),
            patch: vision("patch_size", 14),
            max_tiles: number(
                &pre,
                &[&["max_image_tiles"]],
                vision("max_num_tiles", 4),
            ),
        }),
        other => Err(InputError::new(
            "config.json: model_type",
            format!(
                "\"{other}\" has no image rule yet: supported qwen2_vl, qwen2_5_vl, qwen3_vl, internvl, gemma3, mllama"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rounding_sends_halves_to_even() {
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(2.4), 2.0);
        assert_eq!(round_half_even(2.6), 3.0);
    }

    #[test]
    fn sizes_out_of_range_are_named() {
        let rule = ImageRule::Fixed {
            tower: 4096,
            language_model: 256,
        };
        assert_eq!(tokens(rule, 0, 10).unwrap_err().field, "image.width");
        assert_eq!(tokens(rule, 10, 1 << 20).unwrap_err().field, "image.height");
        assert_eq!(
            tokens(rule, 10, 10).map(|t| t.language_model_tokens).ok(),
            Some(256)
        );
    }
}
