//! MiniCPM-V 4.6 and 4.7 (`minicpmv4_6`, `minicpmv4_7`; the same modules,
//! 4.7 adding position ids and `logits_to_keep`): a SigLIP-shaped NaViT
//! tower whose learned position table is `(image_size / patch)²` entries,
//! a window-attention merger inside it (`vit_merger`, after layer
//! `insert_layer_id`), an MLP merger over 2 × 2 concatenated tokens, and
//! a Qwen3.5 language model (Gated DeltaNet beside gated attention) unless
//! `text_config` names another. MiniCPM-OCR (`minicpm_ocr`) builds the
//! same modules (`MiniCPMOcrVisionConfig`'s defaults are 4.6's), tied by
//! default.

use serde_json::{Map, Value};

use super::reader::Cfg;
use super::vlm::{counted, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: its text model (`Qwen3_5TextConfig`'s defaults when
/// `text_config` names no other), tied by the wrapper's flag alone
/// (default False), the tower with its window merger, and the merger.
pub(super) fn import_minicpm_v(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "qwen3_5_text")?;
    let mut spec = import_text(&text)?;
    // MiniCPM-OCR's wrapper ties by default, 4.6's and 4.7's do not
    let tied_default = cfg.model_type()? == "minicpm_ocr";
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", tied_default)?;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    // MiniCPMV4_6VisionConfig's defaults (SigLIP-base's shape)
    let h = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(768);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(12);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(224);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(16);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    // window_kernel_size: (2, 2) by default, a pair or one side
    let window = match v.obj.get("window_kernel_size") {
        Some(Value::Array(_)) => match v.ints("window_kernel_size", 1, 64)?.as_deref() {
            Some([a, b]) => a * b,
            _ => {
                return Err(crate::error::InputError::new(
                    v.field("window_kernel_size"),
                    "must be a pair [height, width] of whole numbers from 1 to 64",
                ))
            }
        },
        Some(Value::Number(_)) => v.int(&["window_kernel_size"], 1, 64)?.unwrap_or(2).pow(2),
        _ => 4,
    };
    let times = cfg.int(&["merger_times"], 1, 16)?.unwrap_or(1);
    let (hw, mw, ww, d) = (
        u128::from(h),
        u128::from(m),
        u128::from(window),
        u128::from(spec.hidden),
    );
    let side = u128::from(image / patch.max(1));
    // patch embedding (Conv2d with a bias), the position table, SigLIP's
    // layers (two LayerNorms, biased q, k, v, out, fc1, fc2) and the
    // post-LayerNorm
    let encoder = u128::from(channels) * u128::from(patch).pow(2) * hw
        + hw
        + side * side * hw
        + u128::from(layers) * (4 * hw * hw + 2 * hw * mw + 9 * hw + mw)
        + 2 * hw;
    // vit_merger: attention over a window (4h² + 4h), ln1, pre_norm over
    // the window's concatenation, linear_1 (W·h → W·I) and linear_2
    // (W·I → h), biased
    let vit_merger = (4 * hw * hw + 4 * hw)
        + 2 * hw
        + 2 * ww * hw
        + (ww * ww * hw * mw + ww * mw)
        + (ww * mw * hw + hw);
    // the merger: `merger_times` MLPs over M = 4h (LayerNorm, Linear(M, M),
    // Linear(M, out)), the last to the text width
    let mlp = |out: u128| {
        let wide = 4 * hw;
        2 * wide + wide * wide + wide + wide * out + out
    };
    let merger = u128::from(times - 1) * mlp(hw) + mlp(d);
    spec.name = cfg.model_type()?.to_string();
    spec.vision = Some(counted(
        siglip_shape(h, layers, heads, m, image, patch),
        encoder + vit_merger,
        merger,
    )?);
    Ok(spec)
}
