//! GLM-4.1V (`glm4v`), GLM-4.5V (`glm4v_moe`) and GLM-4.6V (`glm46v`, and
//! GLM-GA, `glmga`, which transformers builds as GLM-4.6V):
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
    // GLM-GA (`GlmgaConfig(Glm46VConfig)`) builds GLM-4.6V's model.
    let text_tied =
        !matches!(model_type, "glm46v" | "glmga") && text.flag("tie_word_embeddings", false)?;
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

/// The fields GLM-4V's and GLM-OCR's towers share, as their configs name them.
struct GlmTower {
    width: u64,
    depth: u64,
    heads: u64,
    /// `intermediate_size`: GLM-4V's merger width, GLM-OCR's MLP width.
    intermediate: u64,
    out: u64,
    patch: u64,
    temporal: u64,
    channels: u64,
    merge: u64,
}

impl GlmTower {
    fn read(v: &Cfg) -> Result<Self> {
        Ok(GlmTower {
            width: v.req(&["hidden_size"], 1, MAX_DIM)?,
            depth: v.req(&["depth", "num_hidden_layers"], 1, MAX_LAYERS)?,
            heads: v.req(&["num_heads", "num_attention_heads"], 1, MAX_HEADS)?,
            intermediate: v.req(&["intermediate_size"], 1, MAX_DIM)?,
            out: v.req(&["out_hidden_size"], 1, MAX_DIM)?,
            patch: v.req(&["patch_size"], 1, MAX_IMAGE_SIZE)?,
            temporal: v.req(&["temporal_patch_size"], 1, 64)?,
            channels: v.int(&["in_channels"], 1, 64)?.unwrap_or(3),
            merge: v.req(&["spatial_merge_size"], 1, 64)?,
        })
    }

    /// The patch embedding, a Conv3d(in_channels, d, (temporal, patch,
    /// patch)) with its bias.
    fn embed(&self) -> u128 {
        u128::from(self.channels * self.temporal)
            * u128::from(self.patch).pow(2)
            * u128::from(self.width)
            + u128::from(self.width)
    }

    /// The downsample Conv2d(d, out, merge) with its bias and the patch
    /// merger: proj (out → out), LayerNorm(out) with bias, gate and up
    /// (out → `gate_width`) and down, no biases.
    fn merger(&self, gate_width: u128) -> u128 {
        let (d, o) = (u128::from(self.width), u128::from(self.out));
        d * o * u128::from(self.merge).pow(2) + o + o * o + 2 * o + 3 * o * gate_width
    }

    /// The shape the estimator reads: RMSNorms, one qkv with rotary q and
    /// k, full attention over each image, a gated SiLU MLP of `mlp` width:
    /// Qwen2.5-VL's block with every layer global (`tests/tower_activations.rs`).
    fn counted(&self, mlp: u64, tower: u128, projector: u128) -> Result<crate::model::VisionTower> {
        let patch = self.patch;
        let mut shape = tower_shape(
            self.width,
            self.depth,
            self.heads,
            mlp,
            QWEN_DEFAULT_IMAGE.max(patch),
            patch,
        );
        shape.block = TowerBlock::Qwen25Vl;
        // `Glm4vVisionModel` names no input embeddings (no `_input_embed_layer`).
        shape.unhooked = true;
        counted(shape, tower, projector)
    }
}

/// `GlmOcrVisionModel` with its merger: GLM-4V's tower without a position
/// table or post-convolution norm, per-head q and k RMSNorms, qkv and proj
/// biased by `attention_bias` (default True), an MLP of
/// `intermediate_size` (biased alike), and a merger `out_hidden_size ×
/// in_channels` wide.
fn glm_ocr_vision(v: &Cfg) -> Result<crate::model::VisionTower> {
    let t = GlmTower::read(v)?;
    let gate = u128::from(t.channels) * u128::from(t.out);
    ocr_style_vision(v, t, gate)
}

/// `Glm5NextVisionModel` and its projector (GLM-5.3-Flash): GLM-OCR's
/// blocks and downsample, the merger's gate and up
/// `projection_intermediate_size` wide.
pub(super) fn glm5_next_vision(v: &Cfg) -> Result<crate::model::VisionTower> {
    let t = GlmTower::read(v)?;
    let gate = u128::from(v.req(&["projection_intermediate_size"], 1, MAX_DIM)?);
    ocr_style_vision(v, t, gate)
}

/// GLM-OCR's tower with a merger of gate width `gate`.
fn ocr_style_vision(v: &Cfg, t: GlmTower, gate: u128) -> Result<crate::model::VisionTower> {
    let bias = u128::from(v.flag("attention_bias", true)?);
    let (dw, mw) = (u128::from(t.width), u128::from(t.intermediate));
    let head = dw / u128::from(t.heads);
    // Each block: two RMSNorms, qkv and proj, q and k norms of one head,
    // gate, up and down; post_layernorm (RMSNorm d) after the last.
    let block = 2 * dw
        + (3 * dw * dw + bias * 3 * dw)
        + (dw * dw + bias * dw)
        + 2 * head
        + 2 * (dw * mw + bias * mw)
        + (mw * dw + bias * dw);
    let tower = t.embed() + u128::from(t.depth) * block + dw;
    let projector = t.merger(gate);
    t.counted(t.intermediate, tower, projector)
}

/// `Glm4vVisionModel` with its merger: (tower with counted parameters).
fn glm4v_vision(v: &Cfg) -> Result<crate::model::VisionTower> {
    let t = GlmTower::read(v)?;
    let image = v.req(&["image_size"], t.patch, MAX_IMAGE_SIZE)?;
    let qkv_bias = v.flag("attention_bias", false)?;
    let (dw, o) = (u128::from(t.width), u128::from(t.out));
    // post_conv_layernorm (RMSNorm d) after the patch embedding; Glm4v
    // VisionEmbeddings: a learned (image_size / patch)² × d table.
    let positions = u128::from(image / t.patch).pow(2) * dw;
    // Glm4vVisionBlock: norm1, norm2 (RMSNorm); qkv (bias by
    // `attention_bias`) and proj without one; Glm4VisionMlp: gate, up
    // (d → out_hidden_size) and down, no biases.
    let qkv_biases = if qkv_bias { 3 * dw } else { 0 };
    let block = 2 * dw + 3 * dw * dw + qkv_biases + dw * dw + 3 * dw * o;
    // post_layernorm (RMSNorm d).
    let tower = t.embed() + dw + positions + u128::from(t.depth) * block + dw;
    let projector = t.merger(u128::from(t.intermediate));
    t.counted(t.out, tower, projector)
}
