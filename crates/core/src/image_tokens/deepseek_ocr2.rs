//! DeepSeek-OCR 2's views (`DeepseekOcr2ImageProcessor` and
//! `DeepseekOcr2Processor`, transformers 5.24): a global view of the image
//! padded to a `base`-px square, and, for an image whose longer side passes
//! `tile` px, InternVL's grid of `min_crops..=max_crops` `tile`-px crops
//! (the processor passes 2 and 6 on every call). SAM reads each view in
//! `patch`-px patches; its two stride-2 convolutions fold `fold × fold` of
//! them into one query the language model receives, all views' queries
//! then one view separator. Checked against the processor on synthetic
//! images (`tests/data/vision/image_tokens.jsonl`).
//!
//! Unlimited-OCR (`UnlimitedOcrImageProcessor`) takes the same views with
//! `newlines`: its language model receives each view's queries as rows
//! with a newline embedding after each (the crops as one grid of rows), and
//! the view separator; with `crop_to_patches` off (`min_crops` 0 here) it
//! takes no crops, and the global view is squashed (`squash`: never
//! refused) when its side is within `maximum_pad_value`.

use super::resize::round_half_even;
use crate::error::{InputError, Result};

/// The rule's numbers (`ImageRule::DeepseekOcr2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OcrViews {
    /// The global view's side (`size.height`, 1024).
    pub base: u64,
    /// A crop's side (`tile_size`, 768).
    pub tile: u64,
    /// SAM's patch (16).
    pub patch: u64,
    /// Patches a query folds along each side (the processor's
    /// `downsample_ratio`, 4).
    pub fold: u64,
    /// 0: no crops (`crop_to_patches` off).
    pub min_crops: u64,
    pub max_crops: u64,
    /// Queries written as rows, a newline after each (Unlimited-OCR).
    pub newlines: bool,
    /// The global view squashed to its square, not scaled and padded.
    pub squash: bool,
}

impl OcrViews {
    /// The class defaults and the crops the processor asks for.
    pub const DEFAULT: OcrViews = OcrViews {
        base: 1024,
        tile: 768,
        patch: 16,
        fold: 4,
        min_crops: 2,
        max_crops: 6,
        newlines: false,
        squash: false,
    };

    /// Unlimited-OCR's class defaults: 640 px crops, 2 to 32 of them.
    pub const UNLIMITED: OcrViews = OcrViews {
        tile: 640,
        max_crops: 32,
        newlines: true,
        ..OcrViews::DEFAULT
    };
}

/// (tower tokens, language-model tokens, views read); `grid` is InternVL's
/// (columns, rows) of `min_crops..=max_crops` `tile`-px crops for the image.
pub(super) fn tokens(
    v: &OcrViews,
    width: u64,
    height: u64,
    grid: impl Fn() -> (u64, u64),
) -> Result<(u64, u64, Option<u64>)> {
    let (long, short) = (width.max(height), width.min(height));
    let crop = v.min_crops > 0;
    // The global view scales the longer side to `base` (`base / long` first,
    // in f64, as the processor does); it fails on an image whose shorter
    // side rounds to nothing. A squashed view takes any image.
    if !v.squash && round_half_even(v.base as f64 / long as f64 * short as f64) == 0.0 {
        return Err(InputError::new(
            "image",
            format!(
                "{width}x{height} is too thin for the processor's global view: its short side scales to 0 px in the {} px square",
                v.base
            ),
        ));
    }
    let (cols, rows) = if crop && long > v.tile {
        grid()
    } else {
        (0, 0)
    };
    let crops = cols * rows;
    let patch = v.patch.max(1);
    let fold = v.fold.max(1);
    let patches = |side: u64| (side / patch).pow(2);
    let lm = if v.newlines {
        // ⌈(side // patch) / fold⌉ queries a row
        let (global, tile) = (
            (v.base / patch).div_ceil(fold),
            (v.tile / patch).div_ceil(fold),
        );
        global * (global + 1) + 1 + rows * tile * (cols * tile + 1)
    } else {
        let queries = |side: u64| side.div_ceil(patch * fold).pow(2);
        queries(v.base) + crops * queries(v.tile) + 1
    };
    Ok((
        patches(v.base) + crops * patches(v.tile),
        lm,
        Some(crops + 1),
    ))
}
