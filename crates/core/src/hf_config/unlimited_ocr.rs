//! Unlimited-OCR (`unlimited_ocr`, `UnlimitedOcrForConditionalGeneration`,
//! transformers 5.24): DeepSeek-OCR's SAM ViT (two stride-2 convolutions
//! after its neck), a CLIP-L encoder over SAM's features (CLIP's encoder
//! without its patch embedding or post-norm), a biased linear projector
//! from both towers' features concatenated, a view separator and an image
//! newline, before DeepSeek-V2's decoder without MLA whose layers attend by
//! "reference sliding" windows: a generated token sees the whole prompt and
//! the last `sliding_window` − 1 generated tokens, so the cache keeps both
//! (`SlidingWindow::keeps_prompt`; 90 cache objects measured with tiny
//! models, prompt × generated × window × batch × dtype, exact). The
//! parameters are exact (`tests/data/params/hf_variants_2026.csv`).

use serde_json::{Map, Value};

use super::deepseek_ocr2::{decoder, sam, TextDefaults};
use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{
    ModelSpec, SlidingWindow, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_POSITION,
    MAX_TOTAL_PARAMS,
};

/// `UnlimitedOcrTextConfig`'s defaults (3B total, a 0.5B-active MoE).
const DEFAULTS: TextDefaults = TextDefaults {
    hidden: 1280,
    layers: 12,
    heads: 10,
    vocab: 129_280,
    dense_width: 6848,
    expert_width: 896,
    per_token: 6,
    max_position: 32_768,
};

/// The wrapper: `text_config` (or the legacy `language_config`, into which
/// a top-level `sliding_window` is copied), the towers and the projector.
pub(super) fn import_unlimited_ocr(cfg: &Cfg) -> Result<ModelSpec> {
    let empty = Map::new();
    let (t, legacy) = match cfg.object("text_config")? {
        Some(t) => (t, false),
        None => (cfg.object_or_empty("language_config", &empty)?, true),
    };
    let tied = cfg.flag("tie_word_embeddings", false)?;
    let (mut spec, text) = decoder(&t, tied, &DEFAULTS, sparse_layers)?;
    spec.name = "unlimited_ocr".to_string();
    let window = match t.int(&["sliding_window"], 1, MAX_POSITION)? {
        Some(w) => w,
        None if legacy => cfg
            .int(&["sliding_window"], 1, MAX_POSITION)?
            .unwrap_or(128),
        None => 128,
    };
    // every layer slides unless `layer_types` names full ones
    let sliding = match t.strings("layer_types")? {
        Some(types) => types
            .iter()
            .take(spec.layers as usize)
            .filter(|k| **k == "reference_sliding_attention")
            .count() as u64,
        None => spec.layers,
    };
    spec.sliding_window = (sliding > 0).then_some(SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: true,
    });
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (sam, shape) = sam(&v, (512, 1024))?;
    let (clip, clip_width) = clip_body(&v)?;
    let channels = sam_channels(&v);
    let h = u128::from(spec.hidden);
    // Linear(SAM's channels + CLIP's width → hidden) with its bias, then
    // the view separator and the image newline
    let projector = (channels + clip_width) * h + h + 2 * h;
    let total = text + sam + clip + projector;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    // SAM's patches are what the towers' activations are counted over; the
    // total stays exact through `params_override`.
    spec.vision = Some(super::vlm::counted(shape, sam + clip, projector)?);
    spec.params_override = Some(total as u64);
    Ok(spec)
}

/// Which layers hold the experts: `mlp_layer_types`, else every layer from
/// `first_k_dense_replace` (1) on.
fn sparse_layers(t: &Cfg, layers: u64) -> Result<Vec<bool>> {
    if let Some(types) = t.strings("mlp_layer_types")? {
        if (types.len() as u64) < layers {
            return Err(InputError::new(
                t.field("mlp_layer_types"),
                format!(
                    "lists {} layers but num_hidden_layers is {layers}",
                    types.len()
                ),
            ));
        }
        return Ok(types
            .iter()
            .take(layers as usize)
            .map(|k| *k == "sparse")
            .collect());
    }
    let dense = t
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(1);
    Ok((0..layers).map(|i| i >= dense).collect())
}

/// SAM's last channel count (`downsample_channels[1]`, 1024).
fn sam_channels(v: &Cfg) -> u128 {
    v.obj
        .get("sam_config")
        .and_then(|s| s.get("downsample_channels"))
        .and_then(Value::as_array)
        .and_then(|c| c.get(1))
        .and_then(Value::as_u64)
        .map_or(1024, u128::from)
}

/// CLIP's vision encoder (`encoder_config`, CLIP-L/14 at 224 px by
/// default) without its patch embedding and post-norm: the class
/// embedding, the position table of `(image/patch)² + 1` rows, the
/// pre-norm and the layers; and its width.
fn clip_body(v: &Cfg) -> Result<(u128, u128)> {
    let empty = Map::new();
    let e = v.object_or_empty("encoder_config", &empty)?;
    let w = |key: &'static str, default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(e.int(&[key], 1, max)?.unwrap_or(default)))
    };
    let d = w("hidden_size", 1024, MAX_DIM)?;
    let inter = w("intermediate_size", 4096, MAX_DIM)?;
    let layers = w("num_hidden_layers", 24, MAX_LAYERS)?;
    w("num_attention_heads", 16, MAX_HEADS)?;
    let image = w("image_size", 224, MAX_IMAGE_SIZE)?;
    let patch = w("patch_size", 14, MAX_IMAGE_SIZE)?;
    let positions = (image / patch).pow(2) + 1;
    let layer = 4 * (d * d + d) + 4 * d + (d * inter + inter) + (inter * d + d);
    Ok((d + positions * d + 2 * d + layers * layer, d))
}

/// The views' rule from `preprocessor_config.json` (`size` (its larger
/// side), `tile_size`, `crop_to_patches`, `min_patches`, `max_patches`,
/// `maximum_pad_value`) and the processor's `patch_size` and
/// `downsample_ratio` (read from the same file when there); the classes'
/// values when absent.
pub(super) fn image_rule(pre: &Value) -> crate::image_tokens::ImageRule {
    use super::json_path::number;
    let d = crate::image_tokens::OcrViews::UNLIMITED;
    let side =
        number(pre, &[&["size", "height"]], d.base).max(number(pre, &[&["size", "width"]], 0));
    let crop = pre
        .get("crop_to_patches")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    // without crops, a view within `maximum_pad_value` (640) is squashed
    let squash = !crop && side <= number(pre, &[&["maximum_pad_value"]], 640);
    crate::image_tokens::ImageRule::DeepseekOcr2(crate::image_tokens::OcrViews {
        base: side,
        tile: number(pre, &[&["tile_size"]], d.tile),
        patch: number(pre, &[&["patch_size"]], d.patch),
        fold: number(pre, &[&["downsample_ratio"]], d.fold),
        min_crops: if crop {
            number(pre, &[&["min_patches"]], d.min_crops)
        } else {
            0
        },
        max_crops: number(pre, &[&["max_patches"]], d.max_crops),
        newlines: true,
        squash,
    })
}
