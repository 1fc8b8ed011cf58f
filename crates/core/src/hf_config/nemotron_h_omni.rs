//! Nemotron-H Omni (`nemotron_h_omni`, `NemotronH_Omni_Reasoning_V3`,
//! transformers 5.24): NemotronH's language model exactly (its head never
//! tied), a RADIO vision tower (C-RADIOv4-H: a patch and a video-patch
//! projection, a learned position table of `max_img_size / patch_size` a
//! side, class and register tokens, LayerScale'd ViT blocks, no final
//! norm), a LayerNorm after it when the text model predicts further tokens
//! (`num_nextn_predict_layers`), a pixel-shuffle projector (RMSNorm, two
//! unbiased linears) and, with `audio_config`, a Parakeet (FastConformer)
//! encoder and its projector. The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`). Its images go through the
//! tower at their own patch budget (`ImageRule::Radio`); its audio is not
//! modelled as an input: the audio encoder's weights ride with the
//! language model.

use crate::decimal::Decimal;
use serde_json::Map;

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_TOTAL_PARAMS};

/// The wrapper: the text model (`text_config`, or its legacy name
/// `llm_config`), the tower, the projector and the audio parts.
pub(super) fn import_nemotron_h_omni(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = match cfg.object("text_config")? {
        Some(text) => text,
        None => cfg.object_or_empty("llm_config", &empty)?,
    };
    if text.string("model_type")?.is_none() {
        text.defaults = Defaults::Class("nemotron_h");
    }
    let mut spec = import_text(&text)?;
    // `NemotronHForCausalLM` declares no tied weights: whatever either flag says
    spec.tied_embeddings = false;
    let h = u128::from(spec.hidden);
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (tower, mut shape) = radio(&v)?;
    let width = u128::from(
        cfg.int(&["vision_hidden_size", "vit_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(1280),
    );
    let predicts_ahead = text
        .int(&["num_nextn_predict_layers"], 0, MAX_LAYERS)?
        .unwrap_or(0)
        > 0;
    let final_norm = if predicts_ahead { 2 * width } else { 0 };
    let ratio = cfg.float("downsample_ratio", 0.0, 1.0)?.unwrap_or(0.5);
    let m = 1.0 / ratio;
    if !(m.is_finite() && m >= 1.0 && m - m.trunc() < 1e-9) {
        return Err(InputError::new(
            cfg.field("downsample_ratio"),
            format!(
                "{} is not supported: only 1/k for a whole k",
                Decimal(ratio)
            ),
        ));
    }
    let merged = width * (m.trunc() as u128).pow(2);
    let hidden = u128::from(
        cfg.int(&["projector_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(4096),
    );
    let projector = merged + merged * hidden + hidden * h;
    let audio = match cfg.object("audio_config")? {
        Some(a) => Some(a),
        None => cfg.object("sound_config")?,
    };
    let audio = match audio {
        Some(a) => parakeet(&a, h)?,
        None => 0,
    };
    // The tower reads each image at its own size (the image rule's); its
    // shape's square is the processor's smallest budget (1,024 patches).
    shape.block = crate::model::TowerBlock::InternVit;
    spec.vision = Some(super::vlm::counted(shape, tower + final_norm, projector)?);
    let extra = audio;
    let total = u128::from(spec.model_extra_params) + extra;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!(
                "gives {total} parameters beside the language model, more than {MAX_TOTAL_PARAMS}"
            ),
        ));
    }
    spec.model_extra_params = total as u64;
    spec.name = "nemotron_h_omni".to_string();
    Ok(spec)
}

/// RADIO's parameters (`RadioConfig`'s defaults: C-RADIOv4-H) without its
/// input conditioner, with the video patch projection the wrapper forces,
/// and its layers' shape. What a layer saves for backward is taken as
/// InternViT's (`TowerBlock::InternVit`): the same LayerNorms, biased
/// q/k/v/o, GELU MLP and two LayerScales.
fn radio(v: &Cfg) -> Result<(u128, crate::model::VisionTower)> {
    let d = u128::from(v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1280));
    let layers = u128::from(v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(32));
    let heads = u128::from(v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16));
    let patch = u128::from(v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16));
    let channels = u128::from(v.int(&["num_channels"], 1, 64)?.unwrap_or(3));
    let max_img = u128::from(v.int(&["max_img_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(2048));
    let prefix = u128::from(v.int(&["num_cls_tokens"], 0, 64)?.unwrap_or(3))
        + u128::from(v.int(&["num_registers"], 0, 64)?.unwrap_or(7));
    let temporal = u128::from(v.int(&["video_temporal_patch_size"], 1, 64)?.unwrap_or(2));
    let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let qkv_bias = u128::from(v.flag("qkv_bias", true)?);
    let pd = channels * patch * patch;
    let embed = pd * d + temporal * pd * d + (max_img / patch).pow(2) * d + prefix * d;
    let a = heads * (d / heads.max(1));
    let f = (d as f64 * ratio) as u128;
    // two LayerNorms and two LayerScales, q/k/v (biased unless told), o
    // (always biased), then the MLP: plain, or SwiGLU at 2/3 width rounded
    // up to a multiple of 8
    let mlp = if v.flag("use_swiglu_ffn", false)? {
        let f2 = ((f as f64 * 2.0 / 3.0) as u128).div_ceil(8) * 8;
        2 * (d * f2 + f2) + f2 * d + d
    } else {
        d * f + f + f * d + d
    };
    let block = 6 * d + 3 * (d * a + qkv_bias * a) + a * d + d + mlp;
    let shape = super::vlm::tower_shape(
        d as u64,
        layers as u64,
        heads as u64,
        f as u64,
        32 * patch as u64,
        patch as u64,
    );
    Ok((embed + layers * block, shape))
}

/// Parakeet's encoder (`ParakeetEncoderConfig`; the wrapper turns its
/// attention bias off unless told) and the audio projector to the text
/// width (`projection_hidden_size`, which the model cannot be built
/// without).
fn parakeet(a: &Cfg, text_hidden: u128) -> Result<u128> {
    let w = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(a.int(&[key], 1, MAX_DIM)?.unwrap_or(default)))
    };
    let ha = w("hidden_size", 1024)?;
    let layers = u128::from(a.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(24));
    let heads = w("num_attention_heads", 8)?;
    let inter = w("intermediate_size", 4096)?;
    let kernel = w("conv_kernel_size", 9)?;
    let factor = w("subsampling_factor", 8)?;
    let channels = w("subsampling_conv_channels", 256)?;
    let mel = w("num_mel_bins", 80)?;
    let k = w("subsampling_conv_kernel_size", 3)?;
    let stride = w("subsampling_conv_stride", 2)?;
    let ab = u128::from(a.flag("attention_bias", false)?);
    let cb = u128::from(a.flag("convolution_bias", true)?);
    let Some(projection) = a.int(&["projection_hidden_size"], 1, MAX_DIM)? else {
        return Err(InputError::new(
            a.field("projection_hidden_size"),
            "is missing: the model cannot be built without it",
        ));
    };
    let p = u128::from(projection);
    let steps = u128::from(factor.max(1).ilog2());
    if steps == 0 || !factor.is_power_of_two() {
        return Err(InputError::new(
            a.field("subsampling_factor"),
            format!("{factor} is not supported: a power of two of at least 2"),
        ));
    }
    // a first convolution, then a depthwise and a pointwise one per step
    let sub = channels * k * k
        + channels
        + (steps - 1) * (channels * k * k + channels + channels * channels + channels)
        + channels * (mel / stride.pow(steps as u32)) * ha
        + ha;
    let att = heads * (ha / heads.max(1));
    let block = 2 * (2 * ha * inter + ab * (inter + ha))
        + 4 * ha * att
        + ab * (3 * att + ha)
        + ha * att
        + 2 * att
        + 2 * ha * ha
        + cb * 2 * ha
        + ha * kernel
        + cb * ha
        + 2 * ha
        + ha * ha
        + cb * ha
        + 10 * ha;
    let bias = u128::from(a.flag("projection_bias", false)?);
    let projector = ha + ha * p + p * text_hidden + bias * (p + text_hidden);
    Ok(sub + layers * block + projector)
}

/// The patch budget from `preprocessor_config.json` (`patch_size`,
/// `downsample_ratio`, `min_num_patches`, `max_num_patches`,
/// `max_model_len`; the class's values when absent) and the tower's class
/// and register tokens from `config.json`. The processor's budget for a
/// call of n images is `max((max_model_len − 4)·merge², min·n)`, capped by
/// `max_num_patches` (none when 0 or null), at least `min_num_patches`:
/// the budget of one image, which every image of a call gets while n stays
/// under the cap (64 images at the defaults).
pub(super) fn image_rule(
    cfg: &serde_json::Value,
    pre: &serde_json::Value,
) -> Result<crate::image_tokens::ImageRule> {
    use super::json_path::number;
    use serde_json::Value;
    let ratio = pre
        .get("downsample_ratio")
        .or_else(|| cfg.get("downsample_ratio"))
        .and_then(Value::as_f64)
        .unwrap_or(0.5);
    let merge = 1.0 / ratio;
    if !(ratio > 0.0 && merge <= 16.0) {
        return Err(InputError::new(
            "preprocessor_config.json: downsample_ratio",
            format!("{} is out of range: 1/16 to 1", Decimal(ratio)),
        ));
    }
    let merge = crate::image_tokens::round_half_even(merge) as u64;
    let min = number(pre, &[&["min_num_patches"]], 1024);
    let max_len = number(pre, &[&["max_model_len"]], 16_384);
    let mut budget = max_len
        .saturating_sub(4)
        .saturating_mul(merge * merge)
        .max(min);
    match pre.get("max_num_patches") {
        None => budget = budget.min(13_312),
        Some(cap) => {
            if let Some(cap) = cap.as_u64().filter(|&c| c > 0) {
                budget = budget.min(cap);
            }
        }
    }
    let vision = |key: &str, default| number(cfg, &[&["vision_config", key]], default);
    Ok(crate::image_tokens::ImageRule::Radio(
        crate::image_tokens::PatchBudget {
            patch: number(pre, &[&["patch_size"]], 16),
            merge,
            budget: budget.max(min),
            min_patches: min,
            extra: vision("num_cls_tokens", 3) + vision("num_registers", 7),
        },
    ))
}
