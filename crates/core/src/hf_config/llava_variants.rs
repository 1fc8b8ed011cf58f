//! Two LLaVA-1.5 descendants on a CLIP tower and a Llama language model
//! (transformers 5.24): VipLLaVA (`vipllava`), whose projector reads five
//! of the tower's layers at once, and Video-LLaVA (`video_llava`), which
//! keeps a second CLIP tower of the same shape for video frames. Both tie
//! the head by the wrapper's `tie_word_embeddings` alone (default False),
//! and an absent `vision_config` is CLIP-L/14 (the classes'
//! `sub_configs_defaults` init arguments; a partial one takes
//! `CLIPVisionConfig`'s own defaults, as transformers builds it).

use serde_json::{json, Map, Value};

use super::reader::{Cfg, Defaults};
use super::towers::vision_tower;
use crate::error::{InputError, Result};
use crate::model::{llava_projector_params, vision_params, Arch, ModelSpec, VisionTower};

/// VipLLaVA: its projector norms the concatenated features of
/// `vision_feature_layers` (five by default) and maps them through two
/// biased linears (`VipLlavaMultiModalProjector`: LayerNorm(n·d),
/// Linear(n·d, text), Linear(text, text)).
pub(super) fn import_vipllava(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut tower = tower(cfg, 336)?;
    let mut spec = text_model(cfg, import_text)?;
    let layers = feature_layers(cfg, &["vision_feature_layers", "vision_feature_layer"], 5)?;
    let width = tower.hidden.saturating_mul(layers);
    tower.projector_params = llava_projector_params(width, spec.hidden).saturating_add(2 * width);
    spec.name = "vipllava".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// Video-LLaVA: `image_tower` and `video_tower`, two CLIP models built from
/// the one `vision_config` with weights of their own (an image runs the
/// first), and LLaVA's projector (`multimodal_projector_bias`). Video
/// frames (257 tokens each, the class token kept) are not modelled.
pub(super) fn import_video_llava(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut tower = tower(cfg, 224)?;
    let mut spec = text_model(cfg, import_text)?;
    let layers = feature_layers(cfg, &["vision_feature_layer"], 1)?;
    let width = tower.hidden.saturating_mul(layers);
    let biased = llava_projector_params(width, spec.hidden);
    tower.projector_params = if cfg.flag("multimodal_projector_bias", true)? {
        biased
    } else {
        biased.saturating_sub(2 * spec.hidden)
    };
    tower.params = Some(vision_params(&tower).saturating_mul(2));
    spec.name = "video_llava".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// The Llama text model (LlamaConfig's defaults where `text_config` is
/// silent or absent), tied by the wrapper's flag alone.
fn text_model(cfg: &Cfg, import_text: impl Fn(&Cfg) -> Result<ModelSpec>) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    if matches!(text.string("model_type")?, None | Some("llama")) {
        text.defaults = Defaults::Llama;
    }
    let mut spec = import_text(&text)?;
    spec.arch = Arch::Llava;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    Ok(spec)
}

/// The CLIP tower of `vision_config`, or CLIP-L/14 at `image` px when the
/// config has none.
fn tower(cfg: &Cfg, image: u64) -> Result<VisionTower> {
    let clip_l = json!({
        "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
        "num_attention_heads": 16, "image_size": image, "patch_size": 14,
    });
    let Value::Object(defaults) = clip_l else {
        return Err(InputError::new(
            "vision_config",
            "internal: CLIP-L's defaults",
        ));
    };
    let mut vision = match cfg.object("vision_config")? {
        Some(v) => v,
        None => Cfg::new(&defaults, "vision_config."),
    };
    if let Some(other) = vision
        .string("model_type")?
        .filter(|t| *t != "clip_vision_model")
    {
        return Err(InputError::new(
            vision.field("model_type"),
            format!("\"{other}\" is not supported: only clip_vision_model towers"),
        ));
    }
    vision.defaults = Defaults::ClipVision;
    vision_tower(&vision, false)
}

/// How many tower layers the projector concatenates: the length of the
/// list under the first key present, 1 for a single index.
fn feature_layers(cfg: &Cfg, keys: &[&str], default: u64) -> Result<u64> {
    for key in keys {
        match cfg.obj.get(*key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(list)) if !list.is_empty() => return Ok(list.len() as u64),
            Some(Value::Number(_)) => return Ok(1),
            Some(other) => {
                return Err(InputError::new(
                    cfg.field(key),
                    format!("is {other}: a layer index or a non-empty list of them"),
                ))
            }
        }
    }
    Ok(default)
}
