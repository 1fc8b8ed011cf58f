//! Kimi K2.5 / K2.6 (`kimi_k25`, `Kimi_K25ForConditionalGeneration`): the
//! MoonViT tower (a NaViT at each image's own resolution, a learned position
//! grid resampled to it, 2D rotary, 2 × 2 patches merged after the last
//! layer) and a LayerNorm + two-linear projector over DeepSeek-V3. Counts
//! name the modules of `modeling_kimi_k25.py` (transformers 5.24);
//! `tests/vlm.rs` checks them.

use serde_json::{Map, Value};

use super::reader::Cfg;
use super::shuffle::width_and_heads;
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, TowerBlock, MAX_DIM, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The language model of `text_config` (`DeepseekV3Config` when it names no
/// type; `kimi_k2` reads as DeepSeek-V3, as `__post_init__` maps it),
/// `Kimi_K25VisionModel` and `Kimi_K25MultimodalProjection`.
pub(super) fn import_kimi_k25(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = cfg.required_object("text_config", "kimi_k25")?;
    let mut spec = import_text(&text)?;
    // The wrapper's flag (default True) ties the head whatever the text
    // config says (measured: the class default ties a DeepSeek-V3 that
    // does not, kimi_k25__0 and __2).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    // Kimi_K25VisionConfig's defaults.
    let (d, heads) = width_and_heads(&v, 1152, 16)?;
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(27);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(4304);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(14);
    let grid_h = v.int(&["pos_emb_height"], 1, MAX_IMAGE_SIZE)?.unwrap_or(64);
    let grid_w = v.int(&["pos_emb_width"], 1, MAX_IMAGE_SIZE)?.unwrap_or(64);
    let merged = merge_area(&v)?;
    let (dw, mw) = (d as u128, m as u128);
    // Kimi_K25VisionPatchEmbed: proj = Conv2d(3, d, patch, stride=patch)
    // with a bias; pos_emb.position_embeddings (pos_emb_height,
    // pos_emb_width, d) (the time table is a buffer).
    let embed = 3 * (patch as u128).pow(2) * dw + dw + grid_h as u128 * grid_w as u128 * dw;
    // Kimi_K25VisionEncoderLayer: norm1, norm2 = LayerNorm(d); q, k, v and
    // proj = Linear(d, d) with biases; fc1 (d → m), fc2 (m → d), biased.
    let block = 2 * 2 * dw + 4 * (dw * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    let tower = embed + layers as u128 * block + 2 * dw;
    // Kimi_K25MultimodalProjection: pre_norm = LayerNorm(projection_hidden_size,
    // default 1152), in_proj = Linear(d·merge, d·merge), out_proj =
    // Linear(d·merge, text hidden), both biased.
    let p = cfg
        .int(&["projection_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(1152) as u128;
    let dm = dw * merged as u128;
    let h = spec.hidden as u128;
    let projector = 2 * p + (dm * dm + dm) + (dm * h + h);
    // Not measured for training: its layers save what Qwen3-VL's (same
    // LayerNorm / biased attention / tanh-GELU layout over one image at a
    // time) do. Its vision model defines no input embeddings, so PEFT's
    // `enable_input_require_grads` hooks nothing in it.
    let image = super::vlm::QWEN_DEFAULT_IMAGE.max(patch);
    let mut shape = tower_shape(d, layers, heads, m, image, patch);
    shape.block = TowerBlock::Qwen3Vl;
    shape.unhooked = true;
    spec.name = "kimi_k25".to_string();
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}

/// `merge_kernel_size`'s area (default (2, 2)): the patches folded into
/// one token.
fn merge_area(v: &Cfg) -> Result<u64> {
    let Some(kernel) = v.array("merge_kernel_size")? else {
        return Ok(4);
    };
    match kernel[..] {
        [Value::Number(ref a), Value::Number(ref b)] => match (a.as_u64(), b.as_u64()) {
            (Some(a @ 1..=16), Some(b @ 1..=16)) => Ok(a * b),
            _ => Err(InputError::new(
                v.field("merge_kernel_size"),
                "expected two sides from 1 to 16",
            )),
        },
        _ => Err(InputError::new(
            v.field("merge_kernel_size"),
            "expected [height, width], two whole numbers",
        )),
    }
}
