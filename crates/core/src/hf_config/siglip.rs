//! VLM wrappers around a plain SigLIP tower (`SiglipVisionModel`, built by
//! `AutoModel.from_config(vision_config)`): PaliGemma 1 and 2 (`paligemma`:
//! one linear into a Gemma model), LLaVA-OneVision (`llava_onevision`:
//! LLaVA's two-linear projector and newline into a Qwen2 model) and Aya
//! Vision (`aya_vision`: a pixel shuffle and a SwiGLU projector into a
//! Cohere 2 model).

use serde_json::Value;

use super::reader::{Cfg, Defaults};
use super::shuffle::text_config;
use super::vlm::{counted, narrow, siglip_params, siglip_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, VisionTower, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// A `kind` wrapper's SigLIP tower: its shape and exact count. The
/// `vision_config` is read against `SiglipVisionConfig()`'s defaults (a
/// given dict is built by that class alone: the wrapper's own defaults
/// apply only when the whole `vision_config` is absent), so
/// `vision_use_head` is True unless the file says otherwise.
fn siglip_tower(cfg: &Cfg, kind: &str) -> Result<VisionTower> {
    let mut v = cfg.required_object("vision_config", kind)?;
    v.defaults = Defaults::SiglipVision;
    match v.string("model_type")? {
        None | Some("siglip_vision_model") => {}
        Some(other) => {
            return Err(InputError::new(
                v.field("model_type"),
                format!("\"{other}\" is not supported: only siglip_vision_model towers"),
            ))
        }
    }
    siglip_from(&v)
}

/// A SigLIP-shaped tower read from `v` against whatever defaults `v`
/// carries (the wrapper's vision class's): its shape and exact count, its
/// pooling head unless `vision_use_head` is off.
pub(super) fn siglip_from(v: &Cfg) -> Result<VisionTower> {
    let d = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let heads = v.req(&["num_attention_heads"], 1, MAX_HEADS)?;
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!("{heads} heads do not divide hidden_size {d}: SiglipAttention refuses it"),
        ));
    }
    let layers = v.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let m = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let image = v.req(&["image_size"], 1, MAX_IMAGE_SIZE)?;
    let patch = v.req(&["patch_size"], 1, image)?;
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let head = v.flag("vision_use_head", true)?;
    let params = siglip_params(d, layers, m, image, patch, channels, head);
    counted(siglip_shape(d, layers, heads, m, image, patch), params, 0)
}

/// PaliGemma (`PaliGemmaForConditionalGeneration`): the Gemma or Gemma 2
/// model of `text_config` (a diff against `GemmaConfig()` /
/// `Gemma2Config()`), a SigLIP tower and `PaliGemmaMultiModalProjector`.
pub(super) fn import_paligemma(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, "paligemma", "gemma")?;
    let mut spec = import_text(&text)?;
    // `PaliGemmaConfig.tie_word_embeddings` (default True) alone decides.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let mut tower = siglip_tower(cfg, "paligemma")?;
    // PaliGemmaMultiModalProjector: linear = Linear(vision hidden,
    // projection_dim, bias=True); `PaliGemmaConfig.__post_init__` sets the
    // vision config's projection_dim from the outer one (default 2048).
    let out = cfg.int(&["projection_dim"], 1, MAX_DIM)?.unwrap_or(2048);
    let projector = tower.hidden as u128 * out as u128 + out as u128;
    tower.projector_params = narrow(projector, "projection_dim")?;
    spec.name = "paligemma".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// LLaVA-OneVision (`LlavaOnevisionForConditionalGeneration`): the Qwen2
/// model of `text_config`, a SigLIP tower,
/// `LlavaOnevisionMultiModalProjector` and the `image_newline` vector.
pub(super) fn import_llava_onevision(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, "llava_onevision", "qwen2")?;
    let mut spec = import_text(&text)?;
    // `LlavaOnevisionConfig.__post_init__`: an outer False (the default)
    // takes the text config's flag, which `import_text` resolved with its
    // class's default (`Qwen2Config`: False).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)? || spec.tied_embeddings;
    let mut tower = siglip_tower(cfg, "llava_onevision")?;
    // linear_1 = Linear(vision hidden · feature layers, text hidden),
    // linear_2 = Linear(text hidden, text hidden), biased when
    // `multimodal_projector_bias` (default True); `vision_feature_layer` is
    // an int or a list of layers whose features are concatenated.
    let feature_layers = match cfg.obj.get("vision_feature_layer") {
        Some(Value::Array(list)) if !list.is_empty() => list.len() as u128,
        _ => 1,
    };
    let bias = u128::from(cfg.flag("multimodal_projector_bias", true)?);
    let (dw, text_w) = (tower.hidden as u128, spec.hidden as u128);
    // LlavaOnevisionModel.image_newline: one text-width vector.
    let projector =
        (dw * feature_layers * text_w + bias * text_w) + (text_w * text_w + bias * text_w) + text_w;
    tower.projector_params = narrow(projector, "vision_config")?;
    spec.name = "llava_onevision".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// Aya Vision (`AyaVisionForConditionalGeneration`): the language model of
/// `text_config` (`Cohere2Config` by default), a SigLIP tower and
/// `AyaVisionMultiModalProjector`. `AyaVisionConfig.tie_word_embeddings`
/// (default True) alone ties the head: a text_config's False is not
/// consulted (measured, `made_up__aya_vision_small_shuffle3.json`).
pub(super) fn import_aya_vision(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, model_type, "cohere2")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let mut tower = siglip_tower(cfg, model_type)?;
    let k = cfg.int(&["downsample_factor"], 1, 64)?.unwrap_or(2);
    let side = tower.image_size / tower.patch_size.max(1);
    if !side.is_multiple_of(k) {
        return Err(InputError::new(
            cfg.field("downsample_factor"),
            format!("{k} does not divide the tower's {side} patches a side: the pixel shuffle cannot fold them"),
        ));
    }
    // The projector: pixel shuffle of k × k patches, LayerNorm(d·k²) (Aya
    // Vision's; Command A Vision has none), linear_1 (d·k² → A, biased),
    // SwiGLU over its two halves, linear_2 (A/2 → text hidden, biased);
    // A = `alignment_intermediate_size`: Aya's default is the text width,
    // `Cohere2VisionConfig`'s 36864.
    let aya = model_type == "aya_vision";
    let (dk, text_w) = (
        tower.hidden as u128 * (k as u128).pow(2),
        spec.hidden as u128,
    );
    let a = cfg
        .int(&["alignment_intermediate_size"], 2, MAX_DIM)?
        .unwrap_or(if aya { spec.hidden } else { 36_864 }) as u128;
    let norm = if aya { 2 * dk } else { 0 };
    let projector = norm + (dk * a + a) + ((a / 2) * text_w + text_w);
    tower.projector_params = narrow(projector, "alignment_intermediate_size")?;
    spec.name = model_type.to_string();
    spec.vision = Some(tower);
    Ok(spec)
}
