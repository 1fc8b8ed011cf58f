//! Llama 4's tiled canvas, as `Llama4ImageProcessor` picks it
//! (`find_supported_resolutions` and `get_best_fit` of
//! `image_processing_llama4.py`): among the grids of at most `max_patches`
//! square tiles, the one that upscales the image least (or, with
//! `resize_to_max_canvas`, most), else downscales it least; on a tie the
//! smallest canvas, the first in the processor's order.

use crate::scenario::limits::MAX_IMAGE_TILES;

/// `find_supported_resolutions`: every (rows, cols) grid of 1 to
/// `max_tiles` tiles, grouped by aspect ratio in the order the ratios first
/// appear (tile counts from the largest down, factors ascending), as the
/// processor's dict of lists flattens.
fn grids(max_tiles: u64) -> Vec<(u64, u64)> {
    ratio_groups(max_tiles).into_iter().flatten().collect()
}

/// The grids of [`grids`] grouped by ratio, in the order a ratio first
/// appears (PerceptionLM's processor keeps the groups to find the closest
/// ratio).
pub(super) fn ratio_groups(max_tiles: u64) -> Vec<Vec<(u64, u64)>> {
    let mut groups: Vec<(f64, Vec<(u64, u64)>)> = Vec::new();
    for chunk in (1..=max_tiles).rev() {
        for rows in (1..=chunk).filter(|f| chunk.is_multiple_of(*f)) {
            let grid = (rows, chunk / rows);
            let ratio = grid.0 as f64 / grid.1 as f64;
            match groups.iter_mut().find(|(r, _)| *r == ratio) {
                Some((_, list)) => list.push(grid),
                None => groups.push((ratio, vec![grid])),
            }
        }
    }
    groups.into_iter().map(|(_, list)| list).collect()
}

/// The (rows, cols) of `tile`-px tiles Llama 4's processor cuts a
/// `width × height` image into (the global tile not counted). The scales
/// are float32, as the processor's tensors compute them, so ties resolve
/// as they do there. `max_tiles` is capped at the rules' tile limit.
pub fn llama4_canvas(
    width: u64,
    height: u64,
    tile: u64,
    max_tiles: u64,
    max_canvas: bool,
) -> (u64, u64) {
    let candidates = grids(max_tiles.clamp(1, MAX_IMAGE_TILES));
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    // The limiting side's scale: torch.where(scale_h > scale_w, scale_w, scale_h).
    let scale = |&(rows, cols): &(u64, u64)| {
        let scale_h = (rows * tile) as f32 / h;
        let scale_w = (cols * tile) as f32 / w;
        if scale_h > scale_w {
            scale_w
        } else {
            scale_h
        }
    };
    let scales: Vec<f32> = candidates.iter().map(scale).collect();
    let up = scales.iter().copied().filter(|s| *s >= 1.0);
    let down = scales.iter().copied().filter(|s| *s < 1.0);
    let selected = if scales.iter().any(|s| *s >= 1.0) {
        if max_canvas {
            up.fold(f32::MIN, f32::max)
        } else {
            up.fold(f32::MAX, f32::min)
        }
    } else {
        down.fold(f32::MIN, f32::max)
    };
    // Of the canvases at that scale, the least area; the first on a tie
    // (torch.argmin).
    let mut best: Option<(u64, u64)> = None;
    for (grid, s) in candidates.iter().zip(&scales) {
        if *s != selected {
            continue;
        }
        if best.is_none_or(|(r, c)| grid.0 * grid.1 < r * c) {
            best = Some(*grid);
        }
    }
    best.unwrap_or((1, 1))
}

/// The (rows, cols) of `tile`-px tiles Command A Vision's processor cuts
/// a `width × height` image into (`get_optimal_tiled_canvas` of
/// `image_processing_cohere2_vision.py`): Llama 4's choice over every grid
/// of at most `max_tiles` tiles, in float64, the grids ordered by tile
/// count (columns first within a count); the first of the least
/// upscaling, or when every grid downscales, of the least downscaling.
pub fn cohere2_canvas(width: u64, height: u64, tile: u64, max_tiles: u64) -> (u64, u64) {
    let max = max_tiles.clamp(1, MAX_IMAGE_TILES);
    let mut grids: Vec<(u64, u64)> = (1..=max)
        .flat_map(|cols| (1..=max / cols).map(move |rows| (rows, cols)))
        .collect();
    crate::short_sort::sort_by_key(&mut grids, |&(rows, cols)| rows * cols);
    let scale = |&(rows, cols): &(u64, u64)| {
        let w = (cols * tile) as f64 / width.max(1) as f64;
        let h = (rows * tile) as f64 / height.max(1) as f64;
        w.min(h)
    };
    let upscaling = grids.iter().any(|g| scale(g) >= 1.0);
    let mut best = (1, 1);
    let mut best_scale = if upscaling { f64::MAX } else { f64::MIN };
    for g in &grids {
        let s = scale(g);
        let better = if upscaling {
            s >= 1.0 && s < best_scale
        } else {
            s > best_scale
        };
        if better {
            (best, best_scale) = (*g, s);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The docstring's example: 5 tiles of 224 px.
    #[test]
    fn supported_resolutions_come_in_the_processors_order() {
        assert_eq!(
            grids(5),
            vec![
                (1, 5),
                (5, 1),
                (1, 4),
                (2, 2),
                (1, 1),
                (4, 1),
                (1, 3),
                (3, 1),
                (1, 2),
                (2, 1)
            ]
        );
        // get_best_fit's docstring: a 300 × 200 image over 224 px tiles picks
        // 224 × 448 (1 × 2), the smaller of the two canvases scaling 1.12×.
        assert_eq!(llama4_canvas(300, 200, 224, 3, false), (1, 2));
    }
}
