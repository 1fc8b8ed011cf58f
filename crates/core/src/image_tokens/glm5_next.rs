//! GLM-5.3-Flash's images (`glm5_next`: `Glm5NextImageProcessor`,
//! `Glm5NextProcessor`, transformers 5.24): each side aligned up to whole
//! token squares, scaled up to the token floor or cut to the token budget
//! by a binary search over the content height; the content is resized
//! (aspect kept) and zero-padded to that canvas.
//!
//! The processor counts its budgets over the temporal patch the image is
//! repeated into (`temporal_patch_size` frames on both sides of every
//! comparison, and in both terms of the upscale's quotient): it cancels,
//! so the rule does not hold it.

use crate::error::{check_range, Result};
use crate::scenario::limits::MAX_TOKENS;

/// Largest token square (`patch · merge · expand`) a side: 4096 px keeps
/// `max_tokens · factor²` under 2^53, so the processor's quotients are
/// exact in f64 as they are in Python's integers.
const MAX_FACTOR: u64 = 4096;

/// GLM-5.3-Flash's rule (`ImageRule::Glm5Next`): a canvas of whole
/// `patch · merge · expand` px squares within `min_tokens..max_tokens`
/// of them; the tower reads `patch` squares, `merge × merge` of them to a
/// language-model token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignedCanvas {
    pub patch: u64,
    pub merge: u64,
    /// `patch_expand_factor`: the canvas aligned to `expand` tokens a side.
    pub expand: u64,
    pub min_tokens: u64,
    pub max_tokens: u64,
}

impl AlignedCanvas {
    /// The processor's class defaults: 14 px patches, merge 2, expand 1,
    /// 16..8000 squares.
    pub const DEFAULT: AlignedCanvas = AlignedCanvas {
        patch: 14,
        merge: 2,
        expand: 1,
        min_tokens: 16,
        max_tokens: 8000,
    };

    /// Every number in its range, naming the field: the square at most
    /// [`MAX_FACTOR`] px, the floor at most the budget.
    pub(super) fn validate(&self) -> Result<()> {
        check_range("image rule: merge", self.merge, 1, 16)?;
        check_range("image rule: expand", self.expand, 1, 16)?;
        let most = MAX_FACTOR / (self.merge * self.expand);
        check_range("image rule: patch", self.patch, 1, most)?;
        check_range("image rule: max_tokens", self.max_tokens, 1, MAX_TOKENS)?;
        check_range(
            "image rule: min_tokens",
            self.min_tokens,
            0,
            self.max_tokens,
        )?;
        Ok(())
    }

    /// `smart_resize` of `image_processing_glm5_next.py`: the canvas
    /// (height, width) of a `width × height` image, in f64 where the
    /// processor divides.
    pub fn canvas(&self, width: u64, height: u64) -> (u64, u64) {
        let f = self
            .patch
            .saturating_mul(self.merge)
            .saturating_mul(self.expand)
            .max(1);
        let (w, h) = (width.max(1), height.max(1));
        let align = |v: u64| v.max(1).div_ceil(f).saturating_mul(f);
        let square = f.saturating_mul(f);
        let floor = self.min_tokens.saturating_mul(square);
        let budget = self.max_tokens.saturating_mul(square);
        let (mut ch, mut cw) = (align(h), align(w));
        if ch.saturating_mul(cw) < floor {
            // sqrt(min_pixels / (frames · h · w)), then each side ceiled
            let scale = (floor as f64 / h.saturating_mul(w) as f64).sqrt();
            ch = align((h as f64 * scale).ceil() as u64);
            cw = align((w as f64 * scale).ceil() as u64);
        }
        if ch.saturating_mul(cw) > budget {
            (ch, cw) = fit_within_budget(w, h, f, budget);
        }
        (ch, cw)
    }
}

/// `fit_within_budget`: the largest content height `c` in `1..=h` whose
/// aligned canvas (`c`, and the width `max(1, floor(w·c/h))`) fits the
/// budget, found by bisection (at most 17 steps for a side of 2^16); one
/// square when none fits (a strip too long for the budget at 1 px high).
fn fit_within_budget(w: u64, h: u64, f: u64, budget: u64) -> (u64, u64) {
    let align = |v: u64| v.div_ceil(f).saturating_mul(f);
    let (mut low, mut high) = (1, h);
    let mut best = (f, f);
    while low <= high {
        let content = low + (high - low) / 2;
        let width = (w.saturating_mul(content) as f64 / h as f64).floor() as u64;
        let candidate = (align(content), align(width.max(1)));
        if candidate.0.saturating_mul(candidate.1) <= budget {
            best = candidate;
            low = content + 1;
        } else {
            high = content - 1;
        }
    }
    best
}

/// Tower patches (`image_grid_thw`'s product, one frame) and prompt
/// tokens: `Glm5NextProcessor.replace_image_token` writes the product
/// over `merge²` image tokens and no markers (the chat template's
/// `<|begin_of_image|>` and `<|end_of_image|>` around them are the
/// prompt's, as for GLM-4V).
pub(super) fn tokens(rule: &AlignedCanvas, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let (ch, cw) = rule.canvas(width, height);
    let p = rule.patch.max(1);
    let grid = (ch / p).saturating_mul(cw / p);
    (
        grid,
        grid / rule.merge.saturating_mul(rule.merge).max(1),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lm(rule: &AlignedCanvas, w: u64, h: u64) -> u64 {
        tokens(rule, w, h).1
    }

    /// Numbers from transformers 5.24's processor (`image_grid_thw`, and
    /// the `<|image|>` tokens of its prompt).
    #[test]
    fn small_images_are_scaled_up_to_the_floor() {
        let rule = AlignedCanvas::DEFAULT;
        // 1 × 1: sqrt(16·784) = 112 px a side, 4 × 4 squares
        assert_eq!(rule.canvas(1, 1), (112, 112));
        assert_eq!(tokens(&rule, 1, 1), (64, 16, None));
        // 1 × 2: 80 × 159 px, aligned to 84 × 168: 18 tokens, not 16
        assert_eq!(rule.canvas(1, 2), (168, 84));
        assert_eq!(lm(&rule, 1, 2), 18);
        // 112 × 112 is 16 squares already; 111 × 112 is aligned up to it
        assert_eq!(lm(&rule, 111, 112), 16);
        let floor = AlignedCanvas {
            min_tokens: 256,
            max_tokens: 1280,
            ..rule
        };
        assert_eq!(tokens(&floor, 1, 2), (1104, 276, None));
    }

    #[test]
    fn large_images_are_cut_by_the_content_height_search() {
        let rule = AlignedCanvas::DEFAULT;
        assert_eq!(tokens(&rule, 1920, 1080), (10_764, 2691, None));
        assert_eq!(rule.canvas(65_536, 65_536), (2492, 2492));
        // 2000 × 65536: 1000 squares high, 8 wide, the whole budget
        assert_eq!(lm(&rule, 2000, 65_536), 8000);
        // 65536 × 1 fits at 1 px: 2 × 4682 patches
        assert_eq!(tokens(&rule, 65_536, 1), (9364, 2341, None));
        let budget = AlignedCanvas {
            min_tokens: 256,
            max_tokens: 1280,
            ..rule
        };
        assert_eq!(lm(&budget, 1, 65_536), 1280);
        // the search runs over the height: 1 px high and too wide for
        // the budget, no height fits, and one square is left
        assert_eq!(tokens(&budget, 65_536, 1), (4, 1, None));
        let tiny = AlignedCanvas {
            patch: 16,
            min_tokens: 1,
            max_tokens: 16,
            ..rule
        };
        assert_eq!(lm(&tiny, 1000, 1), 1);
        assert_eq!(lm(&tiny, 1, 1000), 16);
    }

    #[test]
    fn the_expand_factor_aligns_to_wider_squares() {
        let rule = AlignedCanvas {
            expand: 2,
            ..AlignedCanvas::DEFAULT
        };
        // 56 px squares: 1920 × 1080 is 20 × 35 of them, 80 × 140 patches
        assert_eq!(tokens(&rule, 1920, 1080), (11_200, 2800, None));
        assert_eq!(lm(&rule, 65_536, 2000), 32_000);
    }
}
