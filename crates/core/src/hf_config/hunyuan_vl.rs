//! HunYuan-VL (`hunyuan_vl`, HunyuanOCR: `HunYuanVLForConditionalGeneration`,
//! transformers 5.24): HunYuan's dense decoder (q/k norms per head) and a
//! SigLIP-shaped ViT with a learned position table of `max_image_size`
//! patches a side, whose merger folds `spatial_merge_size`² patches with a
//! strided convolution, widens them, appends a learned newline per row and
//! wraps the image in learned begin and end embeddings.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, siglip_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_IMAGE_SIZE};

/// The wrapper: the text model from `text_config` (or, without one, the
/// text keys at the top, as the config class moves them), tied when
/// either flag is (`__post_init__` raises the wrapper's from the text's,
/// which defaults to True), and the tower with its merger.
pub(super) fn import_hunyuan_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let (mut text, nested) = match cfg.object("text_config")? {
        Some(text) => (text, true),
        None => (Cfg::new(cfg.obj, &cfg.prefix), false),
    };
    text.defaults = Defaults::Class("hunyuan_vl_text");
    if text
        .int(&["head_dim", "attention_head_dim"], 1, MAX_DIM)?
        .is_none()
    {
        // HunYuanVLTextConfig leaves head_dim None and its attention then
        // fails to build (`None ** -0.5`)
        return Err(InputError::new(
            text.field("head_dim"),
            "is required: transformers cannot build HunYuan-VL's attention without it (4096 / 32 = 128 for HunyuanOCR)",
        ));
    }
    let mut spec = import_text(&text)?;
    let text_tied = !nested || text.flag("tie_word_embeddings", true)?;
    spec.tied_embeddings = text_tied || cfg.flag("tie_word_embeddings", true)?;
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    // HunYuanVLVisionConfig's defaults
    let (d, m, layers, heads) = super::vlm::so400m_dims(&v)?;
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let largest = v
        .int(&["max_image_size"], 1, MAX_IMAGE_SIZE)?
        .unwrap_or(2048);
    let (dw, mw, t) = (u128::from(d), u128::from(m), u128::from(spec.hidden));
    // the attention's width: heads × (hidden // heads)
    let a = u128::from(heads) * (dw / u128::from(heads));
    let side = u128::from(largest / patch.max(1));
    // patch_embedding: Conv2d(channels, d, patch) with a bias; the position
    // table: (side² + 1) rows (the extra one unused)
    let embeddings =
        u128::from(channels) * u128::from(patch).pow(2) * dw + dw + (side * side + 1) * dw;
    // each layer: two LayerNorms, q, k, v (d → a) and o (a → d) biased,
    // fc1 and fc2 biased
    let block = 4 * dw + 3 * (dw * a + a) + (a * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    // the merger: before_rms (d), proj_conv (d → 2d, kernel merge, biased),
    // proj_out (2d → 4d, 1 × 1, biased), mlp (4d → text, biased),
    // image_newline (4d), image_begin, image_end, image_sep (text each),
    // after_rms (text)
    let merger = dw
        + (2 * dw * dw * u128::from(merge).pow(2) + 2 * dw)
        + (2 * dw * 4 * dw + 4 * dw)
        + (4 * dw * t + t)
        + 4 * dw
        + 3 * t
        + t;
    let tower = embeddings + u128::from(layers) * block;
    spec.name = "hunyuan_vl".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, largest, patch),
        tower,
        merger,
    )?);
    Ok(spec)
}
