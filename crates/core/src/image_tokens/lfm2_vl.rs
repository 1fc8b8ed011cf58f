//! LFM2-VL's images (`Lfm2VlImageProcessor`, `Lfm2VlProcessor`,
//! transformers 5.24): a small image resized once within the token budget,
//! a large one split into tiles with the resized image as a thumbnail.

/// LFM2-VL's rule (`ImageRule::Lfm2Vl`): an image within `min_tokens`..
/// `max_tokens` tokens of `patch·factor` px squares resized once; a larger
/// one (past `tolerance_tenths`/10 of the budget) split into the grid of
/// `min_tiles`..`max_tiles` `tile`-px tiles closest to its aspect, with
/// the resized image as a thumbnail; every entry padded to the same patch
/// slots in the tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    pub patch: u64,
    pub factor: u64,
    pub min_tokens: u64,
    pub max_tokens: u64,
    pub tile: u64,
    pub min_tiles: u64,
    pub max_tiles: u64,
    pub thumbnail: bool,
    pub tolerance_tenths: u64,
}

/// `round_by_factor`: Python's `round` (half to even) of `x / factor`,
/// times `factor`.
fn round_by(x: f64, factor: u64) -> u64 {
    (x / factor as f64).round_ties_even() as u64 * factor
}

/// `smart_resize`: each side rounded to whole `f`-px squares (at least
/// one), then scaled down into the budget (`floor`) or up to its floor
/// (`ceil`), keeping the aspect: (height, width).
fn smart_resize(w: u64, h: u64, f: u64, min_px: u64, max_px: u64) -> (u64, u64) {
    let (hf, wf, ff) = (h as f64, w as f64, f as f64);
    let (hb, wb) = (f.max(round_by(hf, f)), f.max(round_by(wf, f)));
    if hb.saturating_mul(wb) > max_px {
        let beta = (hf * wf / max_px as f64).sqrt();
        let side = |x: f64| f.max((x / beta / ff).floor() as u64 * f);
        (side(hf), side(wf))
    } else if hb.saturating_mul(wb) < min_px {
        let beta = (min_px as f64 / (hf * wf)).sqrt();
        let side = |x: f64| (x * beta / ff).ceil() as u64 * f;
        (side(hf), side(wf))
    } else {
        (hb, wb)
    }
}

/// `_get_grid_layout`: of the grids of `min..=max` tiles (by area), the
/// closest to the image's aspect; on a tie a larger grid wins when the
/// image covers more than half its area (`find_closest_aspect_ratio`).
fn grid(w: u64, h: u64, tile: u64, min: u64, max: u64) -> (u64, u64) {
    let aspect = w as f64 / h as f64;
    let area = (w * h) as f64;
    let mut best = (1, 1);
    let mut best_diff = f64::INFINITY;
    // by tile count, then width: the order of `sorted(set(...), key=area)`
    for tiles in min..=max {
        for gw in (1..=tiles.min(max)).filter(|gw| tiles % gw == 0) {
            let gh = tiles / gw;
            let diff = (aspect - gw as f64 / gh as f64).abs();
            if diff < best_diff {
                (best_diff, best) = (diff, (gw, gh));
            } else if diff == best_diff && area > 0.5 * (tile * tile * tiles) as f64 {
                best = (gw, gh);
            }
        }
    }
    best
}

/// Tower patch slots (every entry padded to the same), prompt tokens
/// (`<|image_start|>`, a row/column marker and the tile's tokens per tile,
/// `<|img_thumbnail|>` and the thumbnail's, `<|image_end|>`) and entries.
pub(super) fn tokens(rule: &Tiling, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let Tiling {
        patch,
        factor,
        min_tokens,
        max_tokens,
        tile,
        min_tiles,
        max_tiles,
        thumbnail,
        tolerance_tenths,
    } = *rule;
    let (w, h) = (width.max(1), height.max(1));
    // saturating: the rule's ranges allow products past u64, which no
    // image reaches; they only make the image small against the budget
    let f = patch * factor;
    let budget = max_tokens.saturating_mul(f * f);
    // `_is_image_too_large`: the rounded sides (at least a patch) past the
    // budget times `max_pixels_tolerance`
    let rounded = patch
        .max(round_by(h as f64, f))
        .saturating_mul(patch.max(round_by(w as f64, f)));
    let large = rounded as f64 > budget as f64 * tolerance_tenths as f64 / 10.0;
    let splitting = !(min_tiles == 1 && max_tiles == 1);
    let (rh, rw) = smart_resize(w, h, f, min_tokens.saturating_mul(f * f), budget);
    let resized = (rh / patch).div_ceil(factor) * (rw / patch).div_ceil(factor);
    let side = tile / patch;
    let slots = max_tokens
        .saturating_mul(factor * factor)
        .max(if splitting { side * side } else { 0 });
    if !(large && splitting) {
        return (slots, resized + 2, Some(1));
    }
    let (gw, gh) = grid(w, h, tile, min_tiles, max_tiles);
    let tiles = gw * gh;
    let per_tile = side.div_ceil(factor).pow(2);
    let thumb = thumbnail && tiles != 1;
    let entries = tiles + u64::from(thumb);
    let thumb_tokens = if thumb { 1 + resized } else { 0 };
    let text = if tiles > 1 {
        2 + tiles * (1 + per_tile) + thumb_tokens
    } else {
        2 + resized
    };
    (entries.saturating_mul(slots), text, Some(entries))
}
