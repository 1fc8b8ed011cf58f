//! LLaVA-NeXT's and LLaVA-OneVision's any-resolution grids
//! (`LlavaNextProcessor._get_number_of_features`,
//! `LlavaOnevisionProcessor._get_unpadded_features`): the image resized into
//! the best pinpoint, cut in crop-size tiles, the padding's features dropped
//! and a newline per row.

use crate::error::{check_range, InputError, Result};
use crate::scenario::limits::{MAX_IMAGE_SIZE, MAX_IMAGE_TILES};

/// LLaVA-v1.6's `image_grid_pinpoints` (height, width).
pub const LLAVA_NEXT_PINPOINTS: [(u64, u64); 5] =
    [(336, 672), (672, 336), (672, 672), (1008, 336), (336, 1008)];

/// `LlavaOnevisionConfig`'s default pinpoints: every grid of 1 to 6 × 1 to 6
/// tiles of `crop` px (384 px in the class).
pub fn onevision_pinpoints(crop: u64) -> Vec<(u64, u64)> {
    (1..=6)
        .flat_map(|h| (1..=6).map(move |w| (h * crop, w * crop)))
        .collect()
}

/// The N of `vision_aspect_ratio: "anyres_max_N"` (the class default is
/// `anyres_max_9`); the processor reads nothing else.
pub fn max_patches(cfg: &serde_json::Value) -> Result<u64> {
    let text = cfg
        .get("vision_aspect_ratio")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("anyres_max_9");
    text.strip_prefix("anyres_max_")
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| (1..=MAX_IMAGE_TILES).contains(n))
        .ok_or_else(|| {
            InputError::new(
                "config.json: vision_aspect_ratio",
                format!(
                    "\"{text}\" is not supported: only anyres_max_N, N from 1 to {MAX_IMAGE_TILES}"
                ),
            )
        })
}

/// A rule's link text followed by its pinpoints as `HxW`.
pub fn with_pinpoints(mut text: String, pinpoints: &[(u64, u64)]) -> String {
    for (h, w) in pinpoints {
        text.push_str(&format!(",{h}x{w}"));
    }
    text
}

/// Pinpoints written `HxW`.
pub fn read_pinpoints(
    items: &[&str],
    number: impl Fn(&str) -> std::result::Result<u64, String>,
) -> std::result::Result<Vec<(u64, u64)>, String> {
    items
        .iter()
        .map(|p| {
            let (h, w) = p
                .split_once('x')
                .ok_or_else(|| format!("\"{p}\" is not a pinpoint HxW"))?;
            Ok((number(h)?, number(w)?))
        })
        .collect()
}

pub fn validate_pinpoints(pinpoints: &[(u64, u64)]) -> Result<()> {
    check_range(
        "image rule: pinpoints",
        pinpoints.len() as u64,
        1,
        MAX_IMAGE_TILES,
    )?;
    for &(h, w) in pinpoints {
        check_range("image rule: pinpoint height", h, 1, MAX_IMAGE_SIZE)?;
        check_range("image rule: pinpoint width", w, 1, MAX_IMAGE_SIZE)?;
    }
    Ok(())
}

/// The grid's features in the language model (unpadded features plus a
/// newline per row, the base image not included) and the tiles the tower
/// reads (the grid's plus the base image). With `max_patches` (OneVision's
/// `anyres_max_N`), a grid over 1.1 × N tiles' worth of features is shrunk
/// by that ratio.
/// `select_best_resolution` (`image_processing_utils`): of the candidate
/// (height, width) canvases, the one that keeps the most of the image's
/// pixels once it is fitted in, then the one that wastes the least, then
/// the first; `None` without candidates.
pub fn best_resolution(width: u64, height: u64, candidates: &[(u64, u64)]) -> Option<(u64, u64)> {
    let (w, h) = (width as f64, height as f64);
    let mut best = None;
    let (mut best_eff, mut best_waste) = (0u64, u64::MAX);
    for &(ph, pw) in candidates {
        let scale = (pw as f64 / w).min(ph as f64 / h);
        let eff = ((w * scale) as u64 * (h * scale) as u64).min(width * height);
        let waste = (ph * pw).saturating_sub(eff);
        if best.is_none() || eff > best_eff || (eff == best_eff && waste < best_waste) {
            best = Some((ph, pw));
            best_eff = eff;
            best_waste = waste;
        }
    }
    best
}

pub fn grid_features(
    width: u64,
    height: u64,
    crop: u64,
    patch: u64,
    pinpoints: &[(u64, u64)],
    max_patches: Option<u64>,
) -> (u64, u64) {
    let (w, h) = (width as f64, height as f64);
    let best = best_resolution(width, height, pinpoints).unwrap_or((crop, crop));
    let side = crop / patch.max(1);
    let (grid_h, grid_w) = (best.0 / crop.max(1), best.1 / crop.max(1));
    let (mut cur_h, mut cur_w) = (side * grid_h, side * grid_w);
    let round7 = |x: f64| ((x * 1e7).round() / 1e7) as u64;
    if w / h > cur_w as f64 / cur_h as f64 {
        let new_h = round7(h * (cur_w as f64 / w));
        cur_h -= 2 * (cur_h.saturating_sub(new_h) / 2);
    } else {
        let new_w = round7(w * (cur_h as f64 / h));
        cur_w -= 2 * (cur_w.saturating_sub(new_w) / 2);
    }
    let tiles = grid_h * grid_w + 1;
    if let Some(n) = max_patches {
        let ratio = ((cur_h * cur_w) as f64 / (n * side * side).max(1) as f64).sqrt();
        if ratio > 1.1 {
            let rows = (cur_h as f64 / ratio).floor() as u64;
            let cols = (cur_w as f64 / ratio).floor() as u64;
            return (rows * cols + rows, tiles);
        }
    }
    (cur_h * cur_w + cur_h, tiles)
}
