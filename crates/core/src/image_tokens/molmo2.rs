//! Molmo2's overlapping crops (`Molmo2ImageProcessor` and `Molmo2Processor`,
//! transformers 5.24): a low-resolution view of the whole image and the
//! tiling of at most `max_crops` crops of `size` px whose windows (a crop
//! less its overlap margins) cover the image with the least upscaling, or,
//! when every tiling shrinks it, the least shrinking; the scales are
//! compared as the processor computes them, in 32-bit floats. Every crop is
//! a tower pass of `(size/patch)²` patches; both views are pooled
//! `pool_h × pool_w` and written as rows, with a column token after each
//! row where the processor's flags ask for one, and four markers. Checked
//! against the processor on synthetic images
//! (`tests/data/vision/image_tokens.jsonl`).

/// The rule's numbers (`ImageRule::Molmo2`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverlapCrops {
    /// The crop's side (`size.height`, 378).
    pub size: u64,
    pub patch: u64,
    /// `overlap_margins`, in patches: (left/top, right/bottom).
    pub margins: (u64, u64),
    pub max_crops: u64,
    /// `pooling_size`: (rows, columns) of patches a token pools.
    pub pool: (u64, u64),
    /// A column token after each row of the crops (`image_use_col_tokens`)
    /// and after each row of the low-resolution view
    /// (`use_single_crop_col_tokens`, the former when unset).
    pub columns: (bool, bool),
}

/// (tower tokens, language-model tokens, views read).
pub(super) fn tokens(c: &OverlapCrops, width: u64, height: u64) -> (u64, u64, Option<u64>) {
    let side = c.size / c.patch.max(1);
    let (left, right) = c.margins;
    // The window a crop contributes, in patches; the margins' pixels.
    let window = side.saturating_sub(left + right);
    let margin_px = (left + right) * c.patch;
    let (rows, cols) = tiling(
        height as i64 - margin_px as i64,
        width as i64 - margin_px as i64,
        window * c.patch,
        c.max_crops,
    );
    let (pool_h, pool_w) = (c.pool.0.max(1), c.pool.1.max(1));
    let high = (
        (rows * window + left + right).div_ceil(pool_h),
        (cols * window + left + right).div_ceil(pool_w),
    );
    let low = (side.div_ceil(pool_h), side.div_ceil(pool_w));
    let crops = rows * cols + 1;
    let lm = low.0 * low.1
        + high.0 * high.1
        + u64::from(c.columns.1) * low.0
        + u64::from(c.columns.0) * high.0
        + 4;
    (crops * side * side, lm, Some(crops))
}

/// `select_tiling`: the tilings of at most `max_crops`, by crop count then
/// rows, scored by the 32-bit scale that fits the image (less the margins)
/// into their windows; the first that upscales least, else the first that
/// shrinks least.
fn tiling(height: i64, width: i64, window_px: u64, max_crops: u64) -> (u64, u64) {
    let mut grids: Vec<(u64, u64)> = (1..=max_crops)
        .flat_map(|r| (1..=max_crops / r).map(move |c| (r, c)))
        .collect();
    crate::short_sort::sort_by_key(&mut grids, |&(r, c)| (r * c, r));
    // x / 0 is +inf and x / a negative side negative, as in the processor.
    let scale = |&(r, c): &(u64, u64)| {
        let by = |n: u64, d: i64| (n * window_px) as f32 / d as f32;
        by(r, height).min(by(c, width))
    };
    let mut best: Option<((u64, u64), f32)> = None;
    let upscaling = grids.iter().any(|g| scale(g) >= 1.0);
    for g in &grids {
        let s = scale(g);
        let better = match best {
            None => !upscaling || s >= 1.0,
            Some((_, b)) if upscaling => s >= 1.0 && s < b,
            Some((_, b)) => s > b,
        };
        if better {
            best = Some((*g, s));
        }
    }
    best.map_or((1, 1), |(g, _)| g)
}
