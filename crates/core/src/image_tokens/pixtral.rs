//! Pixtral's image processor (`PixtralImageProcessor`): the image shrunk
//! to `longest_edge` (never enlarged), its sides padded to whole patches;
//! Mistral 3 and Mistral Large 4 write a break token per row of merged
//! cells, LightOnOCR one token per cell and nothing else.

use crate::error::{InputError, Result};

/// The image's sides after `get_resize_output_image_size`: both divided
/// by the larger of their ratios to `longest_edge` when over it, floored.
/// A side floored to 0 px leaves no patch row: the processor's resize to
/// a zero-sized image fails.
fn shrink(width: u64, height: u64, longest_edge: u64) -> Result<(u64, u64)> {
    let (mut w, mut h) = (width, height);
    let ratio = (h as f64 / longest_edge as f64).max(w as f64 / longest_edge as f64);
    if ratio > 1.0 {
        h = (h as f64 / ratio).floor() as u64;
        w = (w as f64 / ratio).floor() as u64;
    }
    if h == 0 || w == 0 {
        return Err(InputError::new(
            "image",
            format!(
                "{width} × {height} scales to a side of 0 px under longest_edge {longest_edge}: Pixtral's processor refuses it"
            ),
        ));
    }
    Ok((w, h))
}

/// Pixtral: the image shrunk to `longest_edge`, a token per `patch·merge`
/// square and a break token per row.
pub(super) fn pixtral_tokens(
    (patch, merge, longest_edge): (u64, u64, u64),
    width: u64,
    height: u64,
) -> Result<(u64, u64, Option<u64>)> {
    let (w, h) = shrink(width, height, longest_edge)?;
    let step = (patch * merge).max(1);
    let rows = h.div_ceil(step);
    let cols = w.div_ceil(step);
    Ok((rows * cols * merge * merge, rows * cols + rows, None))
}

/// LightOnOCR: the tower reads every `patch` square of the padded image;
/// its patch merger folds `merge × merge` of them into one token, dropping
/// an odd last row or column (`unfold`), and the processor writes exactly
/// that many image tokens. A grid narrower than `merge` patches gives the
/// merger nothing to fold: the model raises, so the estimate refuses it.
pub(super) fn lighton_ocr_tokens(
    (patch, merge, longest_edge): (u64, u64, u64),
    width: u64,
    height: u64,
) -> Result<(u64, u64, Option<u64>)> {
    let (w, h) = shrink(width, height, longest_edge)?;
    let (rows, cols) = (h.div_ceil(patch.max(1)), w.div_ceil(patch.max(1)));
    if rows < merge || cols < merge {
        return Err(InputError::new(
            "image",
            format!(
                "{width} × {height} is {cols} × {rows} patches of {patch} px: LightOnOCR's patch merger needs at least {merge} a side"
            ),
        ));
    }
    let merge = merge.max(1);
    Ok((rows * cols, (rows / merge) * (cols / merge), None))
}
