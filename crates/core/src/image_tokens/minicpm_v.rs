//! MiniCPM-V 4.6 and 4.7's slices (`MiniCPMV4_6ImageProcessor`): a
//! thumbnail of about `scale`² px always, and when the image holds more
//! than one `scale`² area, a grid of up to `max_slices` slices chosen by
//! aspect ratio, each resized to about `scale`² px; every side a multiple
//! of `patch · merge`. The tower reads each crop's patches; the language
//! model gets one token per `merge × merge` of them.

/// `ensure_divide`: `x` rounded (half to even, Python's `round`) to a
/// multiple of `d`, at least `d`.
fn ensure_divide(x: f64, d: u64) -> u64 {
    let d = d.max(1);
    ((x / d as f64).round_ties_even().max(0.0) as u64 * d).max(d)
}

/// `find_best_resize`: an image over `scale`² px (or any, with `upscale`)
/// resized to about `scale`² at its aspect ratio, then each side to a
/// multiple of `step`: (height, width).
fn best_resize(height: f64, width: f64, scale: u64, step: u64, upscale: bool) -> (u64, u64) {
    let (mut h, mut w) = (height, width);
    if h * w > (scale * scale) as f64 || upscale {
        let aspect = w / h;
        h = (scale as f64 / aspect.sqrt()).trunc();
        w = (h * aspect).trunc();
    }
    (ensure_divide(h, step), ensure_divide(w, step))
}

/// `get_sliced_grid`: (rows, cols), or `None` for an image of one area.
fn grid(width: u64, height: u64, scale: u64, max_slices: u64) -> Option<(u64, u64)> {
    let log_ratio = (width as f64 / height as f64).ln();
    let ratio = (width * height) as f64 / (scale * scale) as f64;
    let multiple = (ratio.ceil() as u64).min(max_slices);
    if multiple <= 1 {
        return None;
    }
    let mut best = (1, 1);
    let mut min_error = f64::INFINITY;
    for slices in [multiple - 1, multiple, multiple + 1] {
        if slices == 1 || slices > max_slices {
            continue;
        }
        for rows in (1..=slices).filter(|r| slices.is_multiple_of(*r)) {
            let cols = slices / rows;
            let error = (log_ratio - (cols as f64 / rows as f64).ln()).abs();
            if error < min_error || (error == min_error && rows > best.0) {
                best = (rows, cols);
                min_error = error;
            }
        }
    }
    Some(best)
}

/// (tower patches, language-model tokens, crops) of one image.
pub(super) fn tokens(
    (patch, merge, scale, max_slices): (u64, u64, u64, u64),
    width: u64,
    height: u64,
) -> (u64, u64, Option<u64>) {
    let (patch, merge) = (patch.max(1), merge.max(1));
    let step = patch * merge;
    let grid = grid(width, height, scale, max_slices);
    let (th, tw) = best_resize(height as f64, width as f64, scale, step, grid.is_none());
    let mut patches = (th / patch) * (tw / patch);
    let mut tokens = patches / (merge * merge);
    let mut crops = 1;
    if let Some((rows, cols)) = grid {
        // `get_refine_size`: the image's sides to multiples of the grid,
        // then one slice's share resized
        let refine_h = ensure_divide(height as f64, rows);
        let refine_w = ensure_divide(width as f64, cols);
        let (sh, sw) = best_resize(
            refine_h as f64 / rows as f64,
            refine_w as f64 / cols as f64,
            scale,
            step,
            true,
        );
        let slice = (sh / patch) * (sw / patch);
        patches += rows * cols * slice;
        tokens += rows * cols * (slice / (merge * merge));
        crops += rows * cols;
    }
    (patches, tokens, Some(crops))
}
