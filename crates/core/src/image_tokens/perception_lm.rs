//! PerceptionLM's images (`PerceptionLMImageProcessor`,
//! `PerceptionLMProcessor`, transformers 5.24): in `thumb+tile` mode a
//! thumbnail of one tile plus the image on a canvas of tiles. The canvas is
//! the one of at most `max_num_tiles` tiles that holds the image without
//! shrinking it and, among those, makes it largest (later arrangements win
//! ties); an image larger than every canvas gets the closest aspect ratio.
//! Each tile is one tower pass; the projector pools its patches by
//! `pooling_ratio` a side.

use crate::error::{check_range, Result};
use crate::scenario::limits::MAX_IMAGE_SIZE;

/// The most tiles a rule may allow: the arrangement search is quadratic in
/// the arrangements of up to this many tiles.
const MAX_TILES: u64 = 256;

/// PerceptionLM's rule (`ImageRule::PerceptionLm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlmTiles {
    /// `tile_size` px squares.
    pub tile: u64,
    /// The tower's patch.
    pub patch: u64,
    /// `pooling_ratio`: the projector pools `pool × pool` patches into one token.
    pub pool: u64,
    /// `max_num_tiles` (the processor instance's: a per-call value is ignored).
    pub max_tiles: u64,
    /// `vision_input_type == "thumb+tile"`; otherwise one tile per image.
    pub thumb_and_tiles: bool,
    /// The tower adds a class token per tile (PE large; not PE gigantic).
    pub class_token: bool,
}

impl PlmTiles {
    pub(super) fn validate(&self) -> Result<()> {
        check_range("image rule: tile_size", self.tile, 1, MAX_IMAGE_SIZE)?;
        check_range("image rule: patch_size", self.patch, 1, self.tile)?;
        check_range("image rule: pooling_ratio", self.pool, 1, self.tile)?;
        check_range("image rule: max_num_tiles", self.max_tiles, 1, MAX_TILES)?;
        Ok(())
    }

    /// Tiles of a `width × height` image, the thumbnail included.
    pub fn tiles(&self, width: u64, height: u64) -> u64 {
        if !self.thumb_and_tiles {
            return 1;
        }
        let (w, h) = canvas(width.max(1), height.max(1), self.tile, self.max_tiles);
        1 + w * h
    }
}

/// Tower tokens, language-model tokens and tiles of one image.
pub(super) fn tokens(rule: &PlmTiles, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let tiles = rule.tiles(width, height);
    let side = rule.tile / rule.patch.max(1);
    let pooled = side / rule.pool.max(1);
    let tower = tiles.saturating_mul(side * side + u64::from(rule.class_token));
    (tower, tiles.saturating_mul(pooled * pooled), Some(tiles))
}

/// `_get_image_height_width`: the image's size scaled into a canvas,
/// aspect kept, the short side floored (Python floats).
fn scaled(w: f64, h: f64, cw: f64, ch: f64) -> (f64, f64) {
    let scale = w / h;
    let r = (cw / w).min(ch / h);
    if scale > 1.0 {
        let nw = r * w;
        (nw, (nw / scale).floor())
    } else {
        let nh = r * h;
        ((nh * scale).floor(), nh)
    }
}

/// The tile grid (columns, rows) the image is resized to.
fn canvas(width: u64, height: u64, tile: u64, max_tiles: u64) -> (u64, u64) {
    if max_tiles <= 1 {
        return (1, 1);
    }
    // `_find_supported_aspect_ratios`, Llama 4's own (x, n / x) pairs
    let groups = super::llama4::ratio_groups(max_tiles);
    let (w, h) = (width as f64, height as f64);
    let scale = w / h;
    let mut best: Option<((u64, u64), (f64, f64))> = None;
    for &(nw, nh) in groups.iter().flatten() {
        let (cw, ch) = (nw * tile, nh * tile);
        if cw < width || ch < height {
            continue;
        }
        let size = scaled(w, h, cw as f64, ch as f64);
        let better = match best {
            None => true,
            Some((_, b)) => (scale < 1.0 && size.0 >= b.0) || (scale >= 1.0 && size.1 >= b.1),
        };
        if better {
            best = Some(((nw, nh), size));
        }
    }
    if let Some((grid, _)) = best {
        return grid;
    }
    // `_find_closest_aspect_ratio`: the nearest ratio on the image's side
    // (the first in order on ties), then its widest or tallest arrangement.
    let ratio = |g: &[(u64, u64)]| g[0].0 as f64 / g[0].1 as f64;
    let pick = if scale >= 1.0 {
        groups
            .iter()
            .filter(|g| ratio(g) <= scale)
            .min_by(|a, b| {
                (ratio(a) - scale)
                    .abs()
                    .total_cmp(&(ratio(b) - scale).abs())
            })
            .and_then(|g| g.iter().copied().max_by_key(|a| a.0))
    } else {
        let inverse = |g: &[(u64, u64)]| (1.0 / ratio(g) - 1.0 / scale).abs();
        groups
            .iter()
            .filter(|g| ratio(g) > scale)
            .min_by(|a, b| inverse(a).total_cmp(&inverse(b)))
            .and_then(|g| g.iter().copied().max_by_key(|a| a.1))
    };
    pick.unwrap_or((1, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLM: PlmTiles = PlmTiles {
        tile: 448,
        patch: 14,
        pool: 2,
        max_tiles: 36,
        thumb_and_tiles: true,
        class_token: true,
    };

    #[test]
    fn five_tiles_group_as_the_processors_docstring_lists() {
        let groups = crate::image_tokens::llama4::ratio_groups(5);
        assert_eq!(groups[3], vec![(2, 2), (1, 1)]);
        assert_eq!(groups.len(), 9);
    }

    #[test]
    fn small_images_take_the_largest_canvas_and_large_ones_the_closest_ratio() {
        // 1×1 and 448×448 fit every square canvas: 6×6 + the thumbnail.
        assert_eq!(PLM.tiles(1, 1), 37);
        assert_eq!(PLM.tiles(448, 448), 37);
        // A phone photo is larger than any canvas: 4×3, 13 tiles, 3,328 tokens.
        assert_eq!(tokens(&PLM, 4032, 3024), (13 * 1025, 13 * 256, Some(13)));
    }
}
