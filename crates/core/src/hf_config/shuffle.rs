//! VLM wrappers that hand the language model fewer, wider image tokens by a
//! pixel shuffle: Idefics3 and SmolVLM (`idefics3`, `smolvlm`: a SigLIP-shaped
//! tower and a bias-free "connector" linear) and InternVL in transformers'
//! own format (`internvl`: InternViT and a LayerNorm + two-linear projector).
//! Every count below names the module of the modeling file it comes from;
//! `tests/vlm.rs` checks them against transformers 5.24.

use crate::decimal::Decimal;
use serde_json::Value;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, siglip_params, siglip_shape, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The `text_config` a `kind` wrapper must carry, read against the defaults
/// of the config class its `model_type` names (`default_type` when it names
/// none, as the wrapper's `sub_configs_defaults` does): transformers fills a
/// missing field from that class.
pub(super) fn text_config<'a>(cfg: &Cfg<'a>, kind: &str, default_type: &str) -> Result<Cfg<'a>> {
    let mut text = cfg.required_object("text_config", kind)?;
    text.defaults = match text.string("model_type")?.unwrap_or(default_type) {
        "llama" => Defaults::Llama,
        "mistral" => Defaults::Mistral,
        "qwen2" => Defaults::Qwen2,
        "gemma" => Defaults::Gemma,
        "gemma2" => Defaults::Gemma2,
        _ => Defaults::None,
    };
    Ok(text)
}

/// The vision width and heads, refused where the attention could not split
/// the width (every tower here raises `ValueError` on it).
pub(super) fn width_and_heads(
    v: &Cfg,
    default_width: u64,
    default_heads: u64,
) -> Result<(u64, u64)> {
    let d = v
        .int(&["hidden_size"], 1, MAX_DIM)?
        .unwrap_or(default_width);
    let heads = v
        .int(&["num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(default_heads);
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!("{heads} heads do not divide hidden_size {d}: the vision attention refuses it"),
        ));
    }
    Ok((d, heads))
}

/// Idefics3 (`Idefics3ForConditionalGeneration`) or SmolVLM
/// (`SmolVLMForConditionalGeneration`, the same modules renamed): the
/// language model from `text_config` (`LlamaConfig` unless it names another
/// type), `Idefics3VisionTransformer` and `Idefics3Connector`.
pub(super) fn import_idefics3(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, model_type, "llama")?;
    let mut spec = import_text(&text)?;
    // transformers 5 ties `lm_head` by the outer config alone:
    // `Idefics3Config.tie_word_embeddings` / `SmolVLMConfig`'s default False
    // (a text_config that ties is not consulted).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    // The vision config's class is fixed (`Idefics3VisionConfig`), whatever
    // `model_type` the file gives it (the Hub's say "idefics3"); its defaults:
    let v = cfg.required_object("vision_config", model_type)?;
    let (d, heads) = width_and_heads(&v, 1152, 16)?;
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(224);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(32);
    if patch > image {
        return Err(InputError::new(
            v.field("patch_size"),
            format!("{patch} px patches do not fit the {image} px image_size"),
        ));
    }
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let scale = cfg.int(&["scale_factor"], 1, 64)?.unwrap_or(2);
    // Idefics3VisionEmbeddings (Conv2d with a bias, positions for
    // (image // patch)² patches), SigLIP's encoder layers and post_layernorm;
    // no pooling head.
    let tower = siglip_params(d, layers, m, image, patch, channels, false);
    // Idefics3Connector.modality_projection (Idefics3SimpleMLP): proj =
    // Linear(d·scale_factor², text hidden, bias=False) over the shuffled patches.
    let projector = d as u128 * (scale as u128).pow(2) * spec.hidden as u128;
    spec.name = model_type.to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        projector,
    )?);
    Ok(spec)
}

/// A side given as one number or as `[height, width]` (InternVL's vision
/// config saves `image_size` and `patch_size` as pairs); only squares.
pub(super) fn square(v: &Cfg, key: &str, default: u64) -> Result<u64> {
    let Some(Value::Array(pair)) = v.obj.get(key) else {
        return Ok(v.int(&[key], 1, MAX_IMAGE_SIZE)?.unwrap_or(default));
    };
    let sides: Vec<u64> = pair
        .iter()
        .filter_map(Value::as_u64)
        .filter(|s| (1..=MAX_IMAGE_SIZE).contains(s))
        .collect();
    match sides[..] {
        [h, w] if h == w && pair.len() == 2 => Ok(h),
        [h, w] if pair.len() == 2 => Err(InputError::new(
            v.field(key),
            format!("[{h}, {w}] is not supported: only square sizes ([n, n] or n)"),
        )),
        _ => Err(InputError::new(
            v.field(key),
            format!(
                "expected a size from 1 to {MAX_IMAGE_SIZE} or a pair [n, n], got {}",
                Value::Array(pair.clone())
            ),
        )),
    }
}

/// `int(1 / downsample_ratio)`: the side of the square of patches InternVL's
/// pixel shuffle folds into one token. Only ratios 1/k are modelled: other
/// ratios build (the projector reads `int(1 / r)²` patches) but the shuffle
/// cannot regroup the patches, so no image could run.
pub(super) fn shuffle_side(cfg: &Cfg) -> Result<u64> {
    let r = cfg.float("downsample_ratio", 1e-3, 1.0)?.unwrap_or(0.5);
    // Python's int() truncates: 1 / r a hair under a whole k would build a
    // projector for k - 1, so only a hair over (or exact) is accepted.
    let inv = 1.0 / r;
    if inv - inv.trunc() > 1e-9 {
        return Err(InputError::new(
            cfg.field("downsample_ratio"),
            format!("{} is not supported: only 1/k for a whole k (0.5, 0.25, ...), the patch squares the pixel shuffle folds", Decimal(r)),
        ));
    }
    Ok(inv.trunc() as u64)
}

/// InternVL (`InternVLForConditionalGeneration`): the language model from
/// `text_config` (`Qwen2Config` unless it names another type),
/// `InternVLVisionModel` and `InternVLMultiModalProjector`.
pub(super) fn import_internvl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, "internvl", "qwen2")?;
    let mut spec = import_text(&text)?;
    // `InternVLConfig.tie_word_embeddings` defaults to True and alone decides
    // in transformers 5: a text_config's False is not consulted (the -hf
    // checkpoints converted under 4.x carry it only there).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    // `InternVLVisionConfig` (the class is fixed whatever model_type says).
    let v = cfg.required_object("vision_config", "internvl")?;
    intern_vit(cfg, &v, &mut spec, VitFormat::Transformers)?;
    spec.name = "internvl".to_string();
    Ok(spec)
}

/// InternVL as OpenGVLab publishes it (`InternVLChatModel`, remote code,
/// model_type `internvl_chat`): the language model of `llm_config` built by
/// its own class (Qwen2/2.5/3, InternLM2, Llama, Phi-3; its own tying), the
/// same InternViT under other key names (`InternVisionModel`: `qkv_bias`,
/// `qk_normalization`, no mask token, no final norm) and the same `mlp1`
/// projector as transformers' conversion, weight for weight.
pub(super) fn import_internvl_chat(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = cfg.required_object("llm_config", "internvl_chat")?;
    let mut spec = import_text(&text)?;
    let v = cfg.required_object("vision_config", "internvl_chat")?;
    if v.flag("use_moe", false)? {
        return Err(InputError::new(
            v.field("use_moe"),
            "a mixture-of-experts InternViT is not supported: only the dense tower",
        ));
    }
    intern_vit(cfg, &v, &mut spec, VitFormat::RemoteCode)?;
    spec.name = "internvl_chat".to_string();
    Ok(spec)
}

/// Qianfan-OCR (`qianfan_ocr`, `QianfanOCRForConditionalGeneration`):
/// InternVL's modules and image processor (`QianfanOCRConfig` subclasses
/// `InternVLConfig`, weight for weight), with other class defaults: a Qwen3
/// language model (`Qwen3Config`'s defaults when `text_config` is absent),
/// an untied head (its `tie_word_embeddings`, False, alone decides) and
/// biased q, k, v in the tower (`QianfanOCRVisionConfig.attention_bias`).
pub(super) fn import_qianfan_ocr(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = serde_json::Map::new();
    let text = cfg.text_config_or_class(&empty, "qwen3")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    intern_vit(cfg, &v, &mut spec, VitFormat::Qianfan)?;
    spec.name = "qianfan_ocr".to_string();
    Ok(spec)
}

/// Where an InternViT config comes from: its switches have other names.
#[derive(Clone, Copy, PartialEq)]
enum VitFormat {
    /// transformers' `InternVLVisionConfig`.
    Transformers,
    /// `QianfanOCRVisionConfig`: the same keys, q/k/v biased by default.
    Qianfan,
    /// OpenGVLab's `InternVisionConfig` (remote code).
    RemoteCode,
}

/// InternViT and the pixel-shuffle projector onto `spec`'s language model.
fn intern_vit(cfg: &Cfg, v: &Cfg, spec: &mut ModelSpec, format: VitFormat) -> Result<()> {
    let (d, heads) = width_and_heads(v, 1024, 16)?;
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(24);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(4096);
    let image = square(v, "image_size", 448)?;
    let patch = square(v, "patch_size", 14)?;
    if patch > image {
        return Err(InputError::new(
            v.field("patch_size"),
            format!("{patch} px patches do not fit the {image} px image_size"),
        ));
    }
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let norm = match v.string("norm_type")?.unwrap_or("layer_norm") {
        "layer_norm" => 2, // nn.LayerNorm: weight and bias
        "rms_norm" => 1,   // InternVLVisionRMSNorm: a weight
        other => {
            return Err(InputError::new(
                v.field("norm_type"),
                format!("\"{other}\" is not supported: layer_norm or rms_norm"),
            ))
        }
    };
    let hf = format != VitFormat::RemoteCode;
    let qkv_bias = if hf {
        v.flag("attention_bias", format == VitFormat::Qianfan)?
    } else {
        // InternVisionConfig: qkv_bias = False unless set.
        v.flag("qkv_bias", false)?
    };
    let qk_norm = if hf {
        v.flag("use_qk_norm", false)?
    } else {
        v.flag("qk_normalization", false)?
    };
    let (qkv_bias, qk_norm) = (u128::from(qkv_bias), u128::from(qk_norm));
    // InternVisionEmbeddings always has its class and position embeddings
    // and no mask token; InternVisionModel ends at the encoder (no norm).
    let mask = u128::from(hf && v.flag("use_mask_token", false)?);
    let positions = u128::from(!hf || v.flag("use_absolute_position_embeddings", true)?);
    let final_norm = u128::from(hf && !v.flag("use_mean_pooling", true)?);
    let k = shuffle_side(cfg)?;
    let (dw, mw, text_w) = (d as u128, m as u128, spec.hidden as u128);
    let patches = ((image / patch) as u128).pow(2);
    // InternVLVisionEmbeddings: cls_token (1, 1, d); mask_token when
    // use_mask_token; patch_embeddings.projection = Conv2d(channels, d, patch,
    // stride=patch) with a bias; position_embeddings (1, patches + 1, d) when
    // use_absolute_position_embeddings.
    let embeddings = dw
        + mask * dw
        + (channels as u128 * (patch as u128).pow(2) * dw + dw)
        + positions * (patches + 1) * dw;
    // InternVLVisionLayer: q, k, v = Linear(d, d, bias=attention_bias),
    // projection_layer = Linear(d, d) (biased); q_norm, k_norm =
    // InternVLVisionRMSNorm(d) when use_qk_norm; InternVLVisionMLP fc1 =
    // Linear(d, m), fc2 = Linear(m, d); layernorm_before, layernorm_after
    // (norm_type); lambda_1, lambda_2 (the layer scales, d each).
    let block = (3 * dw * dw + 3 * qkv_bias * dw)
        + (dw * dw + dw)
        + qk_norm * 2 * dw
        + (dw * mw + mw)
        + (mw * dw + dw)
        + 2 * norm * dw
        + 2 * dw;
    // InternVLVisionModel.layernorm = LayerNorm(d) unless use_mean_pooling.
    let tower = embeddings + layers as u128 * block + final_norm * 2 * dw;
    // InternVLMultiModalProjector: layer_norm = LayerNorm(w), linear_1 =
    // Linear(w, text hidden), linear_2 = Linear(text hidden, text hidden),
    // with w = d·int(1 / downsample_ratio)².
    let w = dw * (k as u128).pow(2);
    let projector = 2 * w + (w * text_w + text_w) + (text_w * text_w + text_w);
    // transformers' InternVLVisionLayer, measured with and without q/k
    // norms (activations/tower.rs); OpenGVLab's remote code fuses q, k and v and
    // checkpoints its layers itself (its q/k norms, InternViT-6B's, are in
    // the one recomputed layer only).
    let block = match (hf, qk_norm, norm) {
        (true, 0, 2) => crate::model::TowerBlock::InternVit,
        (true, 0, _) => crate::model::TowerBlock::InternVitRms,
        (true, _, 2) => crate::model::TowerBlock::InternVitQk,
        (true, _, _) => crate::model::TowerBlock::InternVitRmsQk,
        (false, _, 2) => crate::model::TowerBlock::InternVitRemote,
        (false, _, _) => crate::model::TowerBlock::InternVitRemoteRms,
    };
    spec.vision = Some(counted(
        crate::model::VisionTower {
            block,
            ..tower_shape(d, layers, heads, m, image, patch)
        },
        tower,
        projector,
    )?);
    Ok(())
}
