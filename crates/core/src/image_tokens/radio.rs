//! Nemotron-H Omni's dynamic resolution
//! (`NemotronH_Omni_Reasoning_V3ImageProcessor`, transformers 5.24): the
//! image's grid of `patch`-px patches (each side `round(side/patch + ½)`,
//! halves to even) scaled into a patch budget, back up to `min_patches`
//! when it fell under them, and each side made a multiple of the pixel
//! shuffle's `merge` within the budget. The RADIO tower reads the patches
//! plus its class and register tokens; the language model receives a token
//! per `merge × merge` patches between `<img>` and `</img>`. Checked
//! against the processor on synthetic images
//! (`tests/data/vision/image_tokens.jsonl`).

use crate::error::{InputError, Result};

/// The rule's numbers (`ImageRule::Radio`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchBudget {
    pub patch: u64,
    /// `round(1 / downsample_ratio)`.
    pub merge: u64,
    /// Patches an image may take: `max_num_patches`, or what
    /// `max_model_len` leaves, and at least `min_patches` (the processor's
    /// budget for a single image).
    pub budget: u64,
    pub min_patches: u64,
    /// The tower's class and register tokens (`num_cls_tokens +
    /// num_registers` of its config).
    pub extra: u64,
}

/// (tower tokens, language-model tokens, views read).
pub(super) fn tokens(r: &PatchBudget, width: u64, height: u64) -> Result<(u64, u64, Option<u64>)> {
    let p = r.patch.max(1);
    // Python's round(side / patch + 0.5): up, but a whole even quotient stays.
    let side = |s: u64| {
        let q = s / p;
        if s.is_multiple_of(p) && q.is_multiple_of(2) {
            q
        } else {
            q + 1
        }
    };
    let scale = |f: f64, g: u64| f * g as f64;
    let (mut gh, mut gw) = (side(height), side(width));
    let f = (r.budget as f64 / (gh * gw) as f64).sqrt().min(1.0);
    (gh, gw) = (scale(f, gh).floor() as u64, scale(f, gw).floor() as u64);
    if r.budget > r.min_patches && gh * gw < r.min_patches {
        if gh * gw == 0 {
            return Err(InputError::new(
                "image",
                format!("{width}x{height} is too thin for Nemotron-H Omni's processor: a side of its patch grid scales to 0"),
            ));
        }
        let f = (r.min_patches as f64 / (gh * gw) as f64).sqrt();
        (gh, gw) = (scale(f, gh).ceil() as u64, scale(f, gw).ceil() as u64);
    }
    let m = r.merge.max(1);
    // Up to the next multiple if it stays within the budget, else down.
    let fit = |g: u64, other: u64| match g % m {
        0 => g,
        rest if (g + m - rest) * other <= r.budget => g + m - rest,
        rest => m.max(g - rest),
    };
    gh = fit(gh, gw);
    gw = fit(gw, gh);
    let patches = gh * gw;
    Ok((patches + r.extra, patches / (m * m) + 2, None))
}
