//! Vision towers: a CLIP vision model on its own, and LLaVA (CLIP tower +
//! projector + a Llama-family language model).

use serde_json::Value;

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{
    llava_projector_params, Arch, MlpKind, ModelSpec, NormKind, VisionTower, MAX_DIM, MAX_HEADS,
    MAX_IMAGE_SIZE, MAX_LAYERS,
};

pub(super) fn vision_tower(cfg: &Cfg, with_projection: bool) -> Result<VisionTower> {
    let image_size = cfg.req(&["image_size"], 1, MAX_IMAGE_SIZE)?;
    // CLIPVisionConfig's `hidden_act` (default quick_gelu, OpenAI's towers;
    // LAION's use a fused GELU, which saves what SigLIP's layer saves).
    let block = match cfg.string("hidden_act")?.unwrap_or("quick_gelu") {
        "quick_gelu" => crate::model::TowerBlock::Clip,
        "gelu" | "gelu_pytorch_tanh" | "gelu_new" => crate::model::TowerBlock::Siglip,
        _ => crate::model::TowerBlock::Other,
    };
    let mut tower = VisionTower {
        block,
        gated_layers: 0,
        unhooked: false,
        hidden: cfg.req(&["hidden_size"], 1, MAX_DIM)?,
        layers: cfg.req(&["num_hidden_layers"], 1, MAX_LAYERS)?,
        heads: cfg.req(&["num_attention_heads"], 1, MAX_HEADS)?,
        intermediate: cfg.req(&["intermediate_size"], 1, MAX_DIM)?,
        image_size,
        patch_size: cfg.req(&["patch_size"], 1, image_size)?,
        projector_params: 0,
        params: None,
        projection_dim: if with_projection {
            // CLIPVisionConfig's default projection_dim
            cfg.int(&["projection_dim"], 1, MAX_DIM)?.unwrap_or(512)
        } else {
            0
        },
    };
    // The shape counts a three-channel patch embedding (Conv2d(3, d, p, p),
    // no bias): another `num_channels` moves it by p²·d per channel.
    let channels = cfg.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    if channels != 3 {
        let per_channel = tower
            .patch_size
            .saturating_pow(2)
            .saturating_mul(tower.hidden);
        let three = crate::model::vision_params(&tower);
        tower.params = Some(if channels > 3 {
            three.saturating_add((channels - 3).saturating_mul(per_channel))
        } else {
            three.saturating_sub((3 - channels).saturating_mul(per_channel))
        });
    }
    Ok(tower)
}

/// A spec whose transformer fields mirror the tower, for the estimator's
/// activation and attention math.
fn tower_spec(name: &str, arch: Arch, tower: VisionTower) -> ModelSpec {
    ModelSpec {
        name: name.to_string(),
        arch,
        hidden: tower.hidden,
        layers: tower.layers,
        heads: tower.heads,
        kv_heads: tower.heads,
        intermediate: tower.intermediate,
        vocab: 0,
        max_position: crate::vision::image_tokens(&tower, None).tower,
        mlp: MlpKind::Plain,
        norm: NormKind::Layer,
        qkv_bias: true,
        out_bias: true,
        vision: Some(tower),
        ..ModelSpec::default()
    }
}

/// The `vision_config` object a `kind` config must carry, read with CLIP's defaults.
fn vision_config<'a>(cfg: &Cfg<'a>, kind: &str) -> Result<Cfg<'a>> {
    let mut vision = cfg.required_object("vision_config", kind)?;
    vision.defaults = Defaults::ClipVision;
    Ok(vision)
}

pub(super) fn import_clip(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    let with_projection = cfg.has_architecture("WithProjection")?;
    let tower = if model_type == "clip" {
        vision_tower(&vision_config(cfg, "clip")?, with_projection)?
    } else {
        let mut plain = Cfg::new(cfg.obj, &cfg.prefix);
        plain.defaults = cfg.defaults;
        vision_tower(&plain, with_projection)?
    };
    Ok(tower_spec(model_type, Arch::ClipVision, tower))
}

/// A LLaVA config: its CLIP tower and its text model, imported by
/// `import_text` (the importer's own entry, handed in so that this module
/// never calls back into its parent).
pub(super) fn import_llava(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    import_llava_family(cfg, "llava", import_text)
}

/// LLaVA-NeXT (`llava_next`): LLaVA's tower and projector, plus the
/// `image_newline` parameter (`LlavaNextModel.__init__`:
/// `nn.Parameter(torch.randn(config.text_config.hidden_size))`) and the
/// any-resolution image rule. LLaVA-NeXT-Video (`llava_next_video`) is the
/// same model with a pooler over video frames (`LlavaNextVideoPooler`):
/// parameter-free average or max pooling, or a strided convolution when
/// `spatial_pool_mode` is "conv".
pub(super) fn import_llava_next(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut spec = import_llava_family(cfg, "llava_next", import_text)?;
    if model_type == "llava_next_video" {
        spec.name = model_type.to_string();
        // `LlavaNextVideoConfig.__post_init__` raises the wrapper's flag
        // when the text config ties.
        let text_tied = cfg
            .required_object("text_config", model_type)?
            .flag("tie_word_embeddings", false)?;
        spec.tied_embeddings |= text_tied;
        if cfg.string("spatial_pool_mode")? == Some("conv") {
            let stride = cfg.int(&["spatial_pool_stride"], 1, MAX_DIM)?.unwrap_or(2);
            if let Some(tower) = spec.vision.as_mut() {
                let width = tower.hidden;
                let out = cfg
                    .int(&["spatial_pool_out_channels"], 1, MAX_DIM)?
                    .unwrap_or(width);
                // Conv2d(width, out, stride, stride) with its bias.
                let conv = width
                    .saturating_mul(out)
                    .saturating_mul(stride.saturating_mul(stride))
                    .saturating_add(out);
                tower.projector_params = tower.projector_params.saturating_add(conv);
            }
        }
    }
    Ok(spec)
}

fn import_llava_family(
    cfg: &Cfg,
    kind: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let vision = vision_config(cfg, kind)?;
    match vision.string("model_type")? {
        None | Some("clip_vision_model") => {}
        Some(other) => {
            return Err(InputError::new(
                vision.field("model_type"),
                format!("\"{other}\" is not supported: only clip_vision_model towers"),
            ))
        }
    }
    let mut tower = vision_tower(&vision, false)?;
    let mut text = cfg.required_object("text_config", kind)?;
    // LLaVA configs store the text model as a diff against LlamaConfig()
    // (LLaVA-NeXT's Mistral ones against MistralConfig()).
    let text_type = text.string("model_type")?.unwrap_or("llama");
    if text_type == "llama" {
        text.defaults = Defaults::Llama;
    } else if text_type == "mistral" {
        text.defaults = Defaults::Mistral;
    }
    let mut spec = import_text(&text)?;
    // `LlavaMultiModalProjector` / `LlavaNextMultiModalProjector`: linear_1
    // reads the vision width times the number of feature layers
    // (`vision_feature_layer`: an int, or a list whose layers are concatenated).
    let feature_layers = match cfg.obj.get("vision_feature_layer") {
        Some(Value::Array(list)) if !list.is_empty() => list.len() as u64,
        _ => 1,
    };
    let vision_width = tower.hidden.saturating_mul(feature_layers);
    if cfg.flag("multimodal_projector_bias", true)? {
        tower.projector_params = llava_projector_params(vision_width, spec.hidden);
    } else {
        // Two linears without biases.
        let with_bias = llava_projector_params(vision_width, spec.hidden);
        tower.projector_params = with_bias.saturating_sub(2 * spec.hidden);
    }
    if kind == "llava_next" {
        // image_newline: one text-width vector.
        tower.projector_params = tower.projector_params.saturating_add(spec.hidden);
    }
    spec.arch = Arch::Llava;
    spec.name = kind.to_string();
    if let Some(tied) = cfg.obj.get("tie_word_embeddings").and_then(Value::as_bool) {
        spec.tied_embeddings = tied;
    }
    spec.vision = Some(tower);
    Ok(spec)
}
