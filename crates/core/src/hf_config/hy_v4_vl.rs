//! HY-V4-VL (`hy_v4_vl`, `HYV4VLForConditionalGeneration`, transformers
//! 5.24): HY-V4's language model (`hy_v4_vl_text`, the same layers under
//! larger class defaults) and a ViT whose merger (an m × m convolution, a
//! 1 × 1 convolution and a learned newline after every merged row) lives
//! inside the tower; its image processor is Qwen-VL's resize at a factor
//! of patch × merge (32), 512² to 2048² px, with the row newlines.

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, TowerBlock, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: its text model, `HYV4VLVisionModel` (the merger counted as
/// the projector) and the head, tied by the wrapper's flag only.
pub(super) fn import_hy_v4_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "hy_v4_vl_text")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1536);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(6144);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(40);
    let heads = v
        .int(&["num_attention_heads", "attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(16);
    let head_dim = match v.int(&["head_dim"], 1, MAX_HEADS)? {
        Some(hd) => hd,
        None if d.is_multiple_of(heads) => d / heads,
        None => {
            return Err(InputError::new(
                v.field("num_attention_heads"),
                format!("{heads} heads do not divide hidden_size {d}: set head_dim"),
            ))
        }
    };
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let max_image = v
        .int(&["max_image_size"], patch, MAX_IMAGE_SIZE)?
        .unwrap_or(2048);
    let out = v
        .int(&["out_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(spec.hidden);
    let (dw, mw, a) = (
        u128::from(d),
        u128::from(m),
        u128::from(heads) * u128::from(head_dim),
    );
    // patch_embedding: Conv2d(C → d, p, stride p) with bias; the learned
    // position grid ((max/p)² rows and one unused class row)
    let grid = u128::from(max_image / patch);
    let embed = u128::from(channels) * u128::from(patch).pow(2) * dw + dw + (grid * grid + 1) * dw;
    // each layer: two LayerNorms, biased q, k, v (d → heads·head_dim) and
    // o, fc1, fc2
    let block = 4 * dw + 3 * (dw * a + a) + (a * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    let tower = embed + u128::from(layers) * block;
    // patch_merger: an RMSNorm, a merge × merge convolution (d → d·m²), a
    // 1 × 1 convolution (d·m² → out), all biased, and `image_newline`
    let (m2, o) = (u128::from(merge).pow(2), u128::from(out));
    let merger = dw + (dw * dw * m2 * m2 + dw * m2) + (dw * m2 * o + o) + o;
    let mut shape = tower_shape(d, layers, heads, m, max_image.min(1024), patch);
    // Not measured for training: a pre-LayerNorm ViT layer with a GELU
    // saves what SigLIP's does.
    shape.block = TowerBlock::Siglip;
    spec.name = "hy_v4_vl".to_string();
    spec.vision = Some(counted(shape, tower, merger)?);
    Ok(spec)
}
