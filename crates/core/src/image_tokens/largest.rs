//! The image of a rule with the most features: what vLLM's profile run
//! feeds its encoder (`get_image_size_with_most_features` of each model's
//! processing info, read by `MultiModalBudget`), so the engine reserves
//! memory for the largest image a request may send.

use super::{tokens, ImageRule, ImageTokens};
use crate::error::Result;
use crate::scenario::limits::MAX_IMAGE_SIZE;

/// The tokens of the rule's largest image: the most language-model tokens
/// (then the most tower tokens) over a square of the largest size (a
/// dynamic-resolution rule scales it to its `max_pixels`, a longest-edge
/// rule to its edge, as vLLM's 9999999-pixel probe does) and, for the
/// tiling rules, every grid of at most the rule's tiles, for the
/// any-resolution rules every grid pinpoint.
pub fn most_features(rule: &ImageRule) -> Result<ImageTokens> {
    let mut best = tokens(rule, MAX_IMAGE_SIZE, MAX_IMAGE_SIZE)?;
    for (width, height) in candidates(rule) {
        if let Ok(t) = tokens(rule, width, height) {
            let key = (t.language_model_tokens, t.tower_tokens);
            if key > (best.language_model_tokens, best.tower_tokens) {
                best = t;
            }
        }
    }
    Ok(best)
}

/// Sizes beyond the square that may hold more features.
fn candidates(rule: &ImageRule) -> Vec<(u64, u64)> {
    // Every a × b grid of `unit` squares with at most `count` of them.
    let grid = |unit: u64, count: u64| -> Vec<(u64, u64)> {
        (1..=count)
            .flat_map(|a| (1..=count / a).map(move |b| (unit * a, unit * b)))
            .filter(|&(w, h)| w <= MAX_IMAGE_SIZE && h <= MAX_IMAGE_SIZE)
            .collect()
    };
    match rule {
        ImageRule::InternVl {
            tile, max_tiles, ..
        }
        | ImageRule::AyaVision {
            tile, max_tiles, ..
        }
        | ImageRule::GraniteDocling {
            tile, max_tiles, ..
        }
        | ImageRule::GotOcr2 {
            tile, max_tiles, ..
        }
        | ImageRule::Mllama {
            tile, max_tiles, ..
        }
        | ImageRule::Llama4 {
            tile, max_tiles, ..
        }
        | ImageRule::Cohere2Vision {
            tile, max_tiles, ..
        } => grid(*tile, *max_tiles),
        // Crops along the long side: a strip of `max_crops` crops.
        ImageRule::Gemma3PanScan {
            min_crop,
            max_crops,
            ..
        } => grid(*min_crop, *max_crops),
        // Any image a canvas holds is enlarged onto the largest one: a tile
        // takes the most tiles.
        ImageRule::PerceptionLm(t) => vec![(1, 1), (t.tile, t.tile)],
        ImageRule::DeepseekOcr2(v) => grid(v.tile, v.max_crops),
        // every tiling's canvas: its windows plus the margins
        ImageRule::Molmo2(c) => {
            let margins = (c.margins.0 + c.margins.1) * c.patch;
            let window = c.size / c.patch.max(1) * c.patch - margins;
            grid(window, c.max_crops)
                .into_iter()
                .map(|(w, h)| (w + margins, h + margins))
                .collect()
        }
        // every grid of at most `max_crops` crops, filled
        ImageRule::Phi4Mm {
            crop, max_crops, ..
        } => grid(*crop, *max_crops),
        ImageRule::LlavaNext { pinpoints, .. } | ImageRule::LlavaOneVision { pinpoints, .. } => {
            pinpoints.iter().map(|&(h, w)| (w, h)).collect()
        }
        _ => Vec::new(),
    }
}
