//! Ovis2's tiles (`Ovis2ImageProcessor` and `Ovis2Processor`,
//! transformers 5.24): with `crop_to_patches` the image is stretched onto a
//! grid of `tile`-px tiles, a thumbnail before them when there is more than
//! one; the grid is the fewest tiles that cover more than 90 % of the image
//! at their resolution (`get_min_tile_covering_grid`), or InternVL's
//! closest aspect ratio without `use_covering_area_grid`. The tower reads
//! `(tile/patch)²` patches a tile; the language model receives
//! `image_seq_length` atoms a tile, with a start, a grid and an end marker
//! and a column or row marker between the grid's tiles. Checked against the
//! processor on synthetic images (`tests/data/vision/image_tokens.jsonl`).

/// The rule's numbers (`ImageRule::Ovis2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OvisTiles {
    pub tile: u64,
    pub patch: u64,
    /// Atoms a tile in the text (`image_seq_length`, 256).
    pub seq: u64,
    pub min_tiles: u64,
    /// 1: no tiling (`crop_to_patches` off).
    pub max_tiles: u64,
    /// The covering grid (`use_covering_area_grid`), else InternVL's.
    pub covering: bool,
}

/// (tower tokens, language-model tokens, tiles read); `aspect_grid` is
/// InternVL's (columns, rows) of `min_tiles..=max_tiles` tiles.
pub(super) fn tokens(
    t: &OvisTiles,
    width: u64,
    height: u64,
    aspect_grid: impl Fn() -> (u64, u64),
) -> (u64, u64, Option<u64>) {
    let n = if t.max_tiles <= 1 {
        1
    } else if t.covering {
        covering_tiles(width, height, t.tile, t.max_tiles)
    } else {
        let (cols, rows) = aspect_grid();
        cols * rows
    };
    let tiles = if n > 1 { n + 1 } else { 1 };
    let side = t.tile / t.patch.max(1);
    let markers = 3 + n.saturating_sub(1);
    (tiles * side * side, tiles * t.seq + markers, Some(tiles))
}

/// The tiles of the grid of at most `max` that covers more than 0.9 of the
/// image, each region counted at most `side` px on its longer side (in f64,
/// in the processor's order); the fewest such, else the best covering.
fn covering_tiles(width: u64, height: u64, side: u64, max: u64) -> u64 {
    let (w, h) = (width as f64, height as f64);
    let area = |long: u64, short: u64| -> f64 {
        let (long, short) = (long.max(short), long.min(short));
        if long > side {
            side as f64 * (short as f64 / long as f64 * side as f64)
        } else {
            (long * short) as f64
        }
    };
    let mut best_covered: Option<u64> = None;
    let mut best = (0.0_f64, u64::MAX);
    for rows in 1..=max {
        for cols in 1..=max / rows {
            let (row_h, col_w) = (height / rows, width / cols);
            // the last row and column take the remainder
            let last_h = height - (rows - 1) * row_h;
            let last_w = width - (cols - 1) * col_w;
            let mut sum = 0.0;
            for r in 0..rows {
                let rh = if r == rows - 1 { last_h } else { row_h };
                for c in 0..cols {
                    let cw = if c == cols - 1 { last_w } else { col_w };
                    sum += area(cw, rh);
                }
            }
            let ratio = sum / (w * h);
            let n = rows * cols;
            if ratio > 0.9 {
                best_covered = Some(best_covered.map_or(n, |b| b.min(n)));
            }
            if ratio > best.0 || (ratio == best.0 && n < best.1) {
                best = (ratio, n);
            }
        }
    }
    best_covered.unwrap_or(best.1)
}
