//! Apertus 1.5's images (`Apertus1p5ImageProcessor`, `Apertus1p5Processor`,
//! transformers 5.24): `smart_resize` to whole `spatial_factor` px
//! squares within the pixel budget, a discrete code per square, and the
//! prompt the processor writes around the codes' placeholders.

use super::resize::smart_resize;
use crate::error::{check_range, InputError, Result};
use crate::scenario::limits::MAX_IMAGE_SIZE;

/// The most pixels a budget may name (every size a rule holds is at most
/// `MAX_IMAGE_SIZE` a side).
const MAX_PIXELS: u64 = MAX_IMAGE_SIZE * MAX_IMAGE_SIZE;

/// Apertus 1.5's rule (`ImageRule::Apertus1p5`): the image resized to
/// whole `factor` px squares within `min_pixels..max_pixels` (Qwen-VL's
/// `smart_resize`, Python's half-to-even rounding), one vision-tokenizer
/// code per square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeGrid {
    /// `spatial_factor`: the vision tokenizer's downsampling, 2^(stages-1).
    pub factor: u64,
    pub min_pixels: u64,
    pub max_pixels: u64,
}

impl CodeGrid {
    /// The processor's class defaults: 16 px squares, 128² to 1400² px.
    pub const DEFAULT: CodeGrid = CodeGrid {
        factor: 16,
        min_pixels: 128 * 128,
        max_pixels: 1400 * 1400,
    };

    /// Every number in its range, naming the field.
    pub(super) fn validate(&self) -> Result<()> {
        check_range("image rule: factor", self.factor, 1, MAX_IMAGE_SIZE)?;
        check_range("image rule: max_pixels", self.max_pixels, 1, MAX_PIXELS)?;
        check_range(
            "image rule: min_pixels",
            self.min_pixels,
            1,
            self.max_pixels,
        )?;
        Ok(())
    }

    /// The code grid (rows, columns) of a `width × height` image; an
    /// aspect ratio over 200 is refused, as `smart_resize` refuses it.
    pub fn grid(&self, width: u64, height: u64) -> Result<(u64, u64)> {
        let (long, short) = (width.max(height), width.min(height).max(1));
        // `max(h, w) / min(h, w) > 200`, exact in integers
        if long > short.saturating_mul(200) {
            return Err(InputError::new(
                "image",
                format!(
                    "{width} × {height} has an aspect ratio over 200: Apertus 1.5's processor refuses it"
                ),
            ));
        }
        let f = self.factor.max(1);
        let (h, w) = smart_resize(height, width, f, self.min_pixels, self.max_pixels);
        Ok((h / f, w / f))
    }
}

/// Tower tokens (the codes, `get_number_of_image_patches`) and prompt
/// tokens of one image. `Apertus1p5Processor.replace_image_token` writes
/// `<boi>`, the header `"{rows}*{cols}"` as plain text, `<image_wrapper>`,
/// then `rows` runs of `cols` `<image>` placeholders joined by `<eol>`
/// (rows − 1 of them), and `<eoi>`: codes + (rows − 1) + 3 special
/// tokens, and the header. Its tokens depend on the tokenizer (the Hub's,
/// not available offline): counted here one per character, the digits of
/// both sides and the `*` (3 to 6 at the class defaults). That is exact
/// for a tokenizer that splits digits one by one and keeps `*` apart (as
/// Mistral-Nemo's Tekken does), and an upper bound for any byte-level
/// tokenizer (none has a token shorter than one character of this ASCII
/// text).
pub(super) fn tokens(rule: &CodeGrid, width: u64, height: u64) -> Result<(u64, u64, Option<u64>)> {
    let (rows, cols) = rule.grid(width, height)?;
    let codes = rows.saturating_mul(cols);
    let digits = |n: u64| u64::from(n.checked_ilog10().unwrap_or(0)) + 1;
    let header = digits(rows) + 1 + digits(cols);
    let text = codes
        .saturating_add(rows.saturating_sub(1))
        .saturating_add(3)
        .saturating_add(header);
    Ok((codes, text, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers from transformers 5.24's processor (`image_sizes`, and the
    /// prompt `replace_image_token` writes, the header one token per
    /// character).
    #[test]
    fn sizes_round_half_to_even_and_scale_into_the_budget() {
        let rule = CodeGrid::DEFAULT;
        // 640 × 480: 30 × 40 codes, 29 row breaks, 3 markers, "30*40"
        assert_eq!(tokens(&rule, 640, 480).ok(), Some((1200, 1237, None)));
        // 600 × 424 (424 / 16 = 26.5): 26 rows, not 27
        assert_eq!(rule.grid(600, 424).ok(), Some((26, 38)));
        // 1920 × 1080 is scaled down to 1856 × 1040
        assert_eq!(tokens(&rule, 1920, 1080).ok(), Some((7540, 7613, None)));
        // 1 × 1 is scaled up to 128 × 128
        assert_eq!(tokens(&rule, 1, 1).ok(), Some((64, 77, None)));
        // 1 × 200 is 1824 × 16: 114 × 1 codes
        assert_eq!(tokens(&rule, 1, 200).ok(), Some((114, 235, None)));
    }

    #[test]
    fn an_aspect_ratio_over_200_is_refused() {
        let rule = CodeGrid::DEFAULT;
        assert_eq!(rule.grid(1, 201).unwrap_err().field, "image");
        assert_eq!(rule.grid(40_001, 200).unwrap_err().field, "image");
        assert!(rule.grid(40_000, 200).is_ok());
    }
}
