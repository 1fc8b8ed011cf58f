//! Muse's resize (`MuseGlimmerImageProcessor`, which Muse Spark shares;
//! transformers 5.24): the image in `patch·merge` px squares, shrunk to at
//! most `max_tokens` of them keeping its aspect ratio, then the grid among
//! the floors and ceilings of its sides (at least one square a side, within
//! the cap) whose aspect ratio is closest to the image's. The candidates
//! are tried in the order of the Python `set` that holds them, so a tie
//! (any square image whose side is not a multiple of the square) goes to
//! the first in that order: `py_set_order` below. The tower reads `merge²`
//! patches per square; the language model receives a token per square
//! between two markers. Checked against the processor on synthetic images
//! (`tests/data/vision/image_tokens.jsonl`).

use super::resize::round_half_even;

/// (tower tokens, language-model tokens, views read).
pub(super) fn tokens(
    patch: u64,
    merge: u64,
    max_tokens: u64,
    width: u64,
    height: u64,
) -> (u64, u64, Option<u64>) {
    let (a, b) = grid(patch * merge, max_tokens, width, height);
    (a * b * merge * merge, a * b + 2, None)
}

/// The (rows, columns) of squares.
fn grid(unit: u64, max_tokens: u64, width: u64, height: u64) -> (u64, u64) {
    let (mut ih, mut iw) = (height as f64 / unit as f64, width as f64 / unit as f64);
    if ih * iw > max_tokens as f64 {
        let ratio = iw / ih;
        // Python's `** 0.5`, a correctly rounded square root here.
        ih = (max_tokens as f64 / ratio).sqrt();
        iw = ih * ratio;
    }
    let (fh, ch, fw, cw) = (
        ih.floor() as u64,
        ih.ceil() as u64,
        iw.floor() as u64,
        iw.ceil() as u64,
    );
    let mut candidates: Vec<(u64, u64)> = py_set_order([(fh, fw), (fh, cw), (ch, fw), (ch, cw)])
        .into_iter()
        .filter(|&(a, b)| a >= 1 && b >= 1 && a * b <= max_tokens)
        .collect();
    if candidates.is_empty() {
        let side = |x: f64| (round_half_even(x) as u64).max(1);
        candidates.push((side(ih), side(iw)));
    }
    let aspect = height as f64 / width as f64;
    let mut best = candidates[0];
    let mut best_diff = f64::INFINITY;
    for (a, b) in candidates {
        let diff = (a as f64 / b as f64 - aspect).abs();
        if diff < best_diff {
            (best, best_diff) = ((a, b), diff);
        }
    }
    best
}

/// The iteration order of a CPython (3.8+) `set` built from these pairs of
/// small non-negative ints: slots of an 8-entry table (four items never
/// resize it) found by the tuple's xxHash-based hash and CPython's probe
/// sequence (`Objects/setobject.c`, `Objects/tupleobject.c`); a repeated
/// pair is kept once.
fn py_set_order(items: [(u64, u64); 4]) -> Vec<(u64, u64)> {
    const PRIME_1: u64 = 11_400_714_785_074_694_791;
    const PRIME_2: u64 = 14_029_467_366_897_019_727;
    const PRIME_5: u64 = 2_870_177_450_012_600_261;
    // hash((a, b)); an int hashes to itself
    let hash = |(a, b): (u64, u64)| {
        let mut acc = PRIME_5;
        for lane in [a, b] {
            acc = acc.wrapping_add(lane.wrapping_mul(PRIME_2));
            acc = acc.rotate_left(31);
            acc = acc.wrapping_mul(PRIME_1);
        }
        let acc = acc.wrapping_add(2 ^ (PRIME_5 ^ 3_527_539));
        if acc == u64::MAX {
            1_546_275_796
        } else {
            acc
        }
    };
    let mut table: [Option<(u64, u64)>; 8] = [None; 8];
    for item in items {
        let h = hash(item);
        let (mut slot, mut perturb) = ((h & 7) as usize, h);
        while let Some(held) = table[slot] {
            if held == item {
                break;
            }
            perturb >>= 5;
            slot = ((slot as u64)
                .wrapping_mul(5)
                .wrapping_add(1)
                .wrapping_add(perturb)
                & 7) as usize;
        }
        table[slot] = Some(item);
    }
    table.into_iter().flatten().collect()
}
