//! Mistral 3 (`mistral3`): Pixtral's vision tower (`PixtralVisionModel`)
//! and its projector, which Mistral Large 4 (`mistral_large4`) shares.

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, VisionTower, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// A Pixtral tower's defaults: (hidden, layers, heads, intermediate, image
/// size, patch).
pub(super) type PixtralDefaults = (u64, u64, u64, u64, u64, u64);

/// `PixtralVisionConfig`'s class defaults.
pub(super) const PIXTRAL_CLASS: PixtralDefaults = (1024, 24, 16, 4096, 1024, 16);

/// `LightOnOcrConfig`'s vision init arguments (LightOnOCR-1B's tower), which
/// apply only when `vision_config` is absent.
const LIGHTON_OCR_TOWER: PixtralDefaults = (1024, 24, 16, 4096, 1540, 14);

/// Which projector sits on the Pixtral tower.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PixtralProjector {
    /// `Mistral3MultiModalProjector`: its feature layers and optional biases.
    Mistral3,
    /// `LightOnOcrVisionProjector`: one feature layer, no biases whatever
    /// the config says (`multimodal_projector_bias` is not read).
    LightOnOcr,
}

/// `PixtralVisionModel` (`v`) and Mistral 3's projector (read from the
/// wrapper `cfg`) over a language model `text_hidden` wide.
pub(super) fn pixtral_tower(
    cfg: &Cfg,
    v: &Cfg,
    text_hidden: u64,
    defaults: PixtralDefaults,
    kind: PixtralProjector,
) -> Result<VisionTower> {
    if let Some(other) = v.string("model_type")?.filter(|t| *t != "pixtral") {
        return Err(InputError::new(
            v.field("model_type"),
            format!("\"{other}\" is not supported: only pixtral towers"),
        ));
    }
    let (d0, layers0, heads0, m0, image0, patch0) = defaults;
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(d0);
    let layers = v
        .int(&["num_hidden_layers"], 1, MAX_LAYERS)?
        .unwrap_or(layers0);
    let heads = v
        .int(&["num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(heads0);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(m0);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(image0);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(patch0);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = cfg.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let (dw, mw, text_w) = (d as u128, m as u128, text_hidden as u128);
    // PixtralVisionModel: patch_conv = Conv2d(channels, d, patch, stride=patch,
    // bias=False); ln_pre = PixtralRMSNorm(d); the rotary embedding has no weights.
    let embeddings = channels as u128 * (patch as u128).pow(2) * dw + dw;
    // PixtralAttentionLayer: attention_norm, ffn_norm = PixtralRMSNorm(d);
    // PixtralAttention: q, k, v, o_proj = Linear(d, d, bias=False);
    // PixtralMLP: gate_proj, up_proj = Linear(d, m), down_proj = Linear(m, d), no biases.
    let block = 2 * dw + 4 * dw * dw + 3 * dw * mw;
    let tower = embeddings + layers as u128 * block;
    // Mistral3MultiModalProjector: norm = Mistral3RMSNorm(d); patch_merger.merging_layer
    // = Linear(d·merge², d, bias=False); linear_1 = Linear(d·feature layers, text
    // hidden), linear_2 = Linear(text hidden, text hidden), biased only when
    // `multimodal_projector_bias` (default False).
    let feature_layers = match cfg.obj.get("vision_feature_layer") {
        Some(serde_json::Value::Array(list))
            if !list.is_empty() && kind == PixtralProjector::Mistral3 =>
        {
            list.len() as u128
        }
        _ => 1,
    };
    let bias = u128::from(
        kind == PixtralProjector::Mistral3 && cfg.flag("multimodal_projector_bias", false)?,
    );
    let projector = dw
        + dw * (merge as u128).pow(2) * dw
        + (dw * feature_layers * text_w + bias * text_w)
        + (text_w * text_w + bias * text_w);
    let shape = VisionTower {
        block: crate::model::TowerBlock::Pixtral,
        gated_layers: 0,
        unhooked: false,
        ..tower_shape(d, layers, heads, m, image, patch)
    };
    counted(shape, tower, projector)
}

/// Mistral 3 (`mistral3`, Mistral Small 3.1: `Mistral3ForConditionalGeneration`):
/// the Mistral language model from `text_config`, a Pixtral tower and
/// `Mistral3MultiModalProjector` (which holds the 2 × 2 patch merger).
pub(super) fn import_mistral3(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", "mistral3")?;
    if text.string("model_type")?.unwrap_or("mistral") == "mistral" {
        text.defaults = Defaults::Mistral;
    }
    let mut spec = import_text(&text)?;
    // `Mistral3Config.tie_word_embeddings` defaults to True in transformers 5
    // and the outer flag alone decides (text_config's False is ignored).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let v = cfg.required_object("vision_config", "mistral3")?;
    // A given vision_config takes PixtralVisionConfig's class defaults for
    // what it leaves out (patch 16 of 1024 px; Mistral3Config's own 14 of
    // 1540 apply only when the whole dict is absent, which this importer
    // requires).
    spec.vision = Some(pixtral_tower(
        cfg,
        &v,
        spec.hidden,
        PIXTRAL_CLASS,
        PixtralProjector::Mistral3,
    )?);
    spec.name = "mistral3".to_string();
    Ok(spec)
}

/// LightOnOCR (`lighton_ocr`, `LightOnOcrForConditionalGeneration`): a
/// Pixtral tower, Mistral 3's projector without biases and a Qwen3
/// language model; tied by the wrapper's `tie_word_embeddings` alone
/// (default True). An absent sub-config is LightOnOCR-1B's (the class's
/// init arguments); a given one takes its class's own defaults.
pub(super) fn import_lighton_ocr(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    // Qwen3 at LightOnOCR-1B's size (`sub_configs_defaults` init_kwargs)
    let one_b = serde_json::json!({
        "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024,
        "intermediate_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960,
    });
    let serde_json::Value::Object(one_b) = one_b else {
        return Err(InputError::new(
            "text_config",
            "internal: LightOnOCR-1B's defaults",
        ));
    };
    let mut text = match cfg.object("text_config")? {
        Some(text) => text,
        None => Cfg::new(&one_b, "text_config."),
    };
    if text.string("model_type")?.is_none() {
        text.defaults = Defaults::Class("qwen3");
    }
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let empty = serde_json::Map::new();
    let (v, defaults) = match cfg.object("vision_config")? {
        Some(v) => (v, PIXTRAL_CLASS),
        None => (Cfg::new(&empty, "vision_config."), LIGHTON_OCR_TOWER),
    };
    spec.vision = Some(pixtral_tower(
        cfg,
        &v,
        spec.hidden,
        defaults,
        PixtralProjector::LightOnOcr,
    )?);
    spec.name = "lighton_ocr".to_string();
    Ok(spec)
}
