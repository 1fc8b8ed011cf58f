//! The dynamic-resolution resizes: Qwen-VL's `smart_resize`
//! (`image_processing_qwen2_vl.py`) and GLM-4V's (`image_processing_glm4v.py`,
//! which `Glm46VImageProcessor` shares), each as its processor computes it.

use crate::error::{InputError, Result};

/// Python's `round`: halves go to the even neighbour.
pub(crate) fn round_half_even(x: f64) -> f64 {
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

/// GLM-4.1V / 4.5V / 4.6V: the resized (height, width) of one image. An
/// image is a clip of `temporal` identical frames, so its area counts
/// `temporal` times against the pixel limits, and a side under the factor
/// is first scaled up to it.
pub fn glm4v_resize(
    height: u64,
    width: u64,
    factor: u64,
    temporal: u64,
    min_pixels: u64,
    max_pixels: u64,
) -> Result<(u64, u64)> {
    let f = factor.max(1) as f64;
    let (mut h, mut w) = (height as f64, width as f64);
    // "if height < factor or width < factor": the short side reaches the
    // factor, the aspect kept, each side truncated by int().
    if h < f || w < f {
        let scale = (f / h).max(f / w);
        h = (h * scale).trunc();
        w = (w * scale).trunc();
    }
    // The processor checks the aspect ratio after that upscale.
    if h.min(w) < 1.0 || h.max(w) / h.min(w) > 200.0 {
        return Err(InputError::new(
            "image",
            format!(
                "{width} × {height} has an aspect ratio over 200 (after GLM-4V's processor \
                 scales a side under {factor} px up): the processor refuses it"
            ),
        ));
    }
    let t = temporal.max(1) as f64;
    let mut h_bar = round_half_even(h / f) * f;
    let mut w_bar = round_half_even(w / f) * f;
    if t * h_bar * w_bar > max_pixels as f64 {
        let beta = (t * h * w / max_pixels as f64).sqrt();
        h_bar = f.max((h / beta / f).floor() * f);
        w_bar = f.max((w / beta / f).floor() * f);
    } else if t * h_bar * w_bar < min_pixels as f64 {
        let beta = (min_pixels as f64 / (t * h * w)).sqrt();
        h_bar = (h * beta / f).ceil() * f;
        w_bar = (w * beta / f).ceil() * f;
    }
    Ok((h_bar as u64, w_bar as u64))
}
