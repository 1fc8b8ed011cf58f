//! Phi-4-multimodal's dynamic HD (`Phi4MultimodalImageProcessor`,
//! transformers 5.24): the image is fitted into a grid of `crop`-px crops
//! (its own ⌈W/crop⌉ × ⌈H/crop⌉ when that is at most `max_crops`, else the
//! grid of at most `max_crops` crops closest to its aspect ratio), padded,
//! and read as the global 16 × 16 features with a newline per row, a
//! separator, and the crops' valid patches after a 2 × 2 merge with a
//! newline per row: `273 + ⌈R/2⌉·(⌈C/2⌉ + 1)` tokens. The tower reads
//! `(crop/patch)²` patches of the global image and of every crop. Checked
//! against the processor on 75 sizes.

use crate::error::{InputError, Result};

/// The processor's fixed global part: 16 × 16 features, 16 newlines, the
/// separator (`Phi4MultimodalImageProcessor`: hard-coded, whatever `size`).
const GLOBAL_TOKENS: u64 = 16 * 16 + 16 + 1;

/// (tower tokens, language-model tokens, crops read).
pub(super) fn tokens(
    crop: u64,
    patch: u64,
    max_crops: u64,
    width: u64,
    height: u64,
) -> Result<(u64, u64, Option<u64>)> {
    let crop = crop.max(1);
    let (across, down) = grid(crop, max_crops, width, height);
    // resized to fit across·crop × down·crop, the rest padded
    let (tw, th) = (across * crop, down * crop);
    let (pad_w, pad_h) = if tw * height < th * width {
        let h = height * tw / width;
        check_side(h)?;
        (0, th - h)
    } else {
        let w = width * th / height;
        check_side(w)?;
        (tw - w, 0)
    };
    let side = crop / patch.max(1);
    let rows = (side * down).saturating_sub(pad_h / patch.max(1));
    let cols = (side * across).saturating_sub(pad_w / patch.max(1));
    let lm = GLOBAL_TOKENS + rows.div_ceil(2) * (cols.div_ceil(2) + 1);
    let crops = 1 + across * down;
    Ok((side * side * crops, lm, Some(crops)))
}

/// The processor refuses an image whose short side resizes below 10 px.
fn check_side(side: u64) -> Result<()> {
    if side < 10 {
        return Err(InputError::new(
            "image",
            "is too thin for Phi-4-multimodal's processor: its short side resizes below 10 px",
        ));
    }
    Ok(())
}

/// The crops across and down: the image's own grid when it has at most
/// `max_crops`, else the closest aspect ratio among the grids of at most
/// `max_crops`, by ascending count (a tie goes to the later grid when the
/// image covers more than half of it).
fn grid(crop: u64, max_crops: u64, width: u64, height: u64) -> (u64, u64) {
    let (own_w, own_h) = (width.div_ceil(crop), height.div_ceil(crop));
    if own_w * own_h <= max_crops {
        return (own_w, own_h);
    }
    let aspect = width as f64 / height as f64;
    let mut best = (1, 1);
    let mut best_diff = f64::INFINITY;
    for count in 1..=max_crops {
        for across in 1..=count {
            if count % across != 0 {
                continue;
            }
            let down = count / across;
            let diff = (aspect - across as f64 / down as f64).abs();
            if diff < best_diff {
                best = (across, down);
                best_diff = diff;
            } else if diff == best_diff
                && 2 * (width as u128 * height as u128) > (crop as u128).pow(2) * count as u128
            {
                best = (across, down);
            }
        }
    }
    best
}
