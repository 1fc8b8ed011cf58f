//! GLM-4.1V (`glm4v`), GLM-4.5V (`glm4v_moe`) and GLM-4.6V (`glm46v`):
//! a GLM-4 or GLM-4.5 decoder (`text_config`) and the GLM vision tower
//! with its merger, as `modeling_glm4v.py` builds them; GLM-OCR
//! (`glm_ocr`) with its variant of the tower (`modeling_glm_ocr.py`)
//! (transformers 5.24; counts checked on the meta device:
//! `hf_variants_2026.csv`).

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape, QWEN_DEFAULT_IMAGE};
use crate::error::{InputError, Result};
use crate::model::{Arch, ModelSpec, TowerBlock, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper with its language model imported by `import_decoder`
/// (`text`, the family, the sub-config's model_type).
pub(super) fn import_glm4v(
    cfg: &Cfg,
    model_type: &str,
    import_decoder: impl Fn(&Cfg, Arch, &str) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", model_type)?;
    if model_type == "glm_ocr" {
        return import_glm_ocr(cfg, text, import_decoder);
    }
    // GLM-4.6V picks its text class by the sub-config's own model_type
    // (`AutoConfig`); the other two by their wrapper.
    let default_text = if model_type == "glm4v_moe" {
        "glm4v_moe_text"
    } else {
        "glm4v_text"
    };
    let text_type = match text.string("model_type")? {
        None => default_text,
        Some("glm4v_text") => "glm4v_text",
        Some("glm4v_moe_text") => "glm4v_moe_text",
        Some(other) => {
            return Err(InputError::new(
                text.field("model_type"),
                format!("\"{other}\" is not supported: glm4v_text or glm4v_moe_text"),
            ))
        }
    };
    text.defaults = Defaults::Class(text_type);
    let mut spec = if text_type == "glm4v_text" {
        let mut spec = import_decoder(&text, Arch::Glm4, text_type)?;
        // `Glm4vTextAttention`: q/k/v always biased, o_proj never, and the
        // head width is hidden / heads whatever `head_dim` says.
        spec.qkv_bias = true;
        spec.out_bias = false;
        spec.head_dim =
            (!spec.hidden.is_multiple_of(spec.heads)).then_some((spec.hidden / spec.heads).max(1));
        spec
    } else {
        // GLM-4.5-Air's decoder: two norms per layer, q/k/v biased by
        // `attention_bias`, `head_dim` read when given.
        import_decoder(&text, Arch::Glm4Moe, text_type)?
    };
    // GLM-4.1V's and GLM-4.5V's configs raise the wrapper's flag when the
    // text config ties (a pre-v5 save); GLM-4.6V reads its own flag only.
    let text_tied = model_type != "glm46v" && text.flag("tie_word_embeddings", false)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)? || text_tied;
    let mut vision = cfg.required_object("vision_config", model_type)?;
    vision.defaults = Defaults::Class("glm4v_vision");
    spec.vision = Some(glm4v_vision(&vision)?);
    spec.name = model_type.to_string();
    Ok(spec)
}

/// GLM-OCR: GLM-4's decoder without attention biases, its head width the
/// `head_dim` key or hidden ÷ heads (`GlmOcrTextConfig` has no default),
/// tied when the wrapper or the text config says so (`__post_init__`
/// forwards the text's flag), and GLM-OCR's tower.
fn import_glm_ocr(
    cfg: &Cfg,
    mut text: Cfg,
    import_decoder: impl Fn(&Cfg, Arch, &str) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    text.defaults = Defaults::Class("glm_ocr_text");
    let mut spec = import_decoder(&text, Arch::Glm4, "glm_ocr_text")?;
    spec.qkv_bias = false;
    spec.out_bias = false;
    let text_tied = text.flag("tie_word_embeddings", false)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)? || text_tied;
    let mut vision = cfg.required_object("vision_config", "glm_ocr")?;
    vision.defaults = Defaults::Class("glm_ocr_vision");
    spec.vision = Some(glm_ocr_vision(&vision)?);
    spec.name = "glm_ocr".to_string();
    Ok(spec)
}

/// `GlmOcrVisionModel` with its merger: GLM-4V's tower without a position
/// table or post-convolution norm, per-head q and k RMSNorms, qkv and proj
/// biased by `attention_bias` (default True), an MLP of
/// `intermediate_size` (biased alike), and a merger `out_hidden_size ×
/// in_channels` wide.
fn glm_ocr_vision(v: &Cfg) -> Result<crate::model::VisionTower> {
    let d = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let depth = v.req(&["depth", "num_hidden_layers"], 1, MAX_LAYERS)?;
    let heads = v.req(&["num_heads", "num_attention_heads"], 1, MAX_HEADS)?;
    let m = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let out = v.req(&["out_hidden_size"], 1, MAX_DIM)?;
    let patch = v.req(&["patch_size"], 1, MAX_IMAGE_SIZE)?;
    let temporal = v.req(&["temporal_patch_size"], 1, 64)?;
    let channels = v.int(&["in_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.req(&["spatial_merge_size"], 1, 64)?;
    let bias = u128::from(v.flag("attention_bias", true)?);
    let (dw, o, mw, c) = (d as u128, out as u128, m as u128, channels as u128);
    let head = dw / u128::from(heads);
    // Conv3d with its bias; each block: two RMSNorms, qkv and proj, q and
    // k norms of one head, gate, up and down.
    let embed = c * temporal as u128 * (patch as u128).pow(2) * dw + dw;
    let block = 2 * dw
        + (3 * dw * dw + bias * 3 * dw)
        + (dw * dw + bias * dw)
        + 2 * head
        + 2 * (dw * mw + bias * mw)
        + (mw * dw + bias * dw);
    let tower = embed + depth as u128 * block + dw;
    // downsample Conv2d(d, out, merge) with bias; merger proj (no bias),
    // LayerNorm(out), gate and up (out → in_channels·out), down, no biases.
    let projector = dw * o * (merge as u128).pow(2) + o + o * o + 2 * o + 3 * o * (c * o);
    let mut shape = tower_shape(d, depth, heads, m, QWEN_DEFAULT_IMAGE.max(patch), patch);
    shape.block = TowerBlock::Qwen25Vl;
    counted(shape, tower, projector)
}

/// `Glm4vVisionModel` with its merger: (tower with counted parameters).
fn glm4v_vision(v: &Cfg) -> Result<crate::model::VisionTower> {
    let d = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let depth = v.req(&["depth", "num_hidden_layers"], 1, MAX_LAYERS)?;
    let heads = v.req(&["num_heads", "num_attention_heads"], 1, MAX_HEADS)?;
    let merger_width = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let out = v.req(&["out_hidden_size"], 1, MAX_DIM)?;
    let patch = v.req(&["patch_size"], 1, MAX_IMAGE_SIZE)?;
    let temporal = v.req(&["temporal_patch_size"], 1, 64)?;
    let channels = v.int(&["in_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.req(&["spatial_merge_size"], 1, 64)?;
    let image = v.req(&["image_size"], patch, MAX_IMAGE_SIZE)?;
    let qkv_bias = v.flag("attention_bias", false)?;
    let (dw, o, m) = (d as u128, out as u128, merger_width as u128);
    // Glm4vVisionPatchEmbed: Conv3d(in_channels, d, (temporal, patch,
    // patch)) with its bias; post_conv_layernorm (RMSNorm d); Glm4v
    // VisionEmbeddings: a learned (image_size / patch)² × d table.
    let embed = channels as u128 * temporal as u128 * (patch as u128).pow(2) * dw + dw;
    let positions = ((image / patch) as u128).pow(2) * dw;
    // Glm4vVisionBlock: norm1, norm2 (RMSNorm); qkv (bias by
    // `attention_bias`) and proj without one; Glm4VisionMlp: gate, up
    // (d → out_hidden_size) and down, no biases.
    let qkv_biases = if qkv_bias { 3 * dw } else { 0 };
    let block = 2 * dw + 3 * dw * dw + qkv_biases + dw * dw + 3 * dw * o;
    // post_layernorm (RMSNorm d).
    let tower = embed + dw + positions + depth as u128 * block + dw;
    // downsample: Conv2d(d, out, merge) with bias; Glm4vVisionPatchMerger:
    // proj (out → out), LayerNorm(out) with bias, gate and up (out →
    // intermediate_size) and down, no biases.
    let projector = dw * o * (merge as u128).pow(2) + o + o * o + 2 * o + 3 * o * m;
    let mut shape = tower_shape(d, depth, heads, out, QWEN_DEFAULT_IMAGE.max(patch), patch);
    // RMSNorms, one qkv with rotary q and k, full attention over each
    // image, a gated SiLU MLP: Qwen2.5-VL's block with every layer global
    // (`tests/tower_activations.rs`).
    shape.block = TowerBlock::Qwen25Vl;
    counted(shape, tower, projector)
}
