//! Inkling 2 and its looped form with images (`inkling2`, `inkling2_loop`,
//! transformers 5.24's `Inkling2ForConditionalGeneration` and
//! `Inkling2LoopForConditionalGeneration`): the text CausalLM whole, its
//! head never tied (`_tied_weights_keys` is empty in both classes), plus a
//! ViT (`Inkling2VisionModel`) and a two-linear merger to the text width.
//! The parameters are exact (`tests/data/params/hf_variants_2026.csv`),
//! the tower's weights in the load dtype (no tower name is kept in fp32).
//! Images are padded to whole cells, a token each (`ImageRule::Inkling2`).

use serde_json::Map;

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_TOTAL_PARAMS};

/// The wrapper: `text_config` (an `inkling2_text` or `inkling2_loop_text`
/// by default), then the tower from `vision_config`.
pub(super) fn import_inkling2_vlm(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg, &'static str) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text_type = if model_type == "inkling2_loop" {
        "inkling2_loop_text"
    } else {
        "inkling2_text"
    };
    let text = cfg.text_config_or_class(&empty, text_type)?;
    let mut spec = import_text(&text, text_type)?;
    spec.tied_embeddings = false;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (tower, merger, shape) = tower(&v, spec.hidden)?;
    // The tower reads each image's cells (the image rule's); a tower of no
    // layers (which transformers builds) has only weights to carry.
    let read = shape.layers > 0;
    if read {
        spec.vision = Some(super::vlm::counted(shape, tower, merger)?);
    }
    // Inkling's text importer counts its model exactly (`params_override`,
    // the tower a fixed group inside it)
    let base = spec.params_override.unwrap_or(spec.model_extra_params);
    let extra = if spec.params_override.is_some() || !read {
        tower + merger
    } else {
        0
    };
    let total = u128::from(base) + extra;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!(
                "gives {total} parameters beside the language model, more than {MAX_TOTAL_PARAMS}"
            ),
        ));
    }
    match &mut spec.params_override {
        Some(p) => *p = total as u64,
        None => spec.model_extra_params = total as u64,
    }
    spec.name = model_type.to_string();
    Ok(spec)
}

/// `Inkling2VisionModel` and its merger on `Inkling2VisionConfig`'s
/// defaults: a patch linear without bias, a learned `G²` position table,
/// the class token and its position, a pre-norm; per layer biased q/k/v/o
/// and fc1/fc2, two LayerNorms and two layer scales; then `M²·H → P → T`
/// biased only with `projector_bias`. The merger's output width `T`
/// (`text_hidden_size`) must be the text model's (`validate_architecture`
/// refuses another); absent, it is taken from the text model. Its layers'
/// shape too: what they save for backward is taken as InternViT's (the same
/// LayerNorms, biased q/k/v/o, GELU MLP and two layer scales; Inkling's
/// rotary q and k are not).
fn tower(v: &Cfg, text_hidden: u64) -> Result<(u128, u128, crate::model::VisionTower)> {
    let h = u128::from(v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1024));
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    if h % u128::from(heads) != 0 {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!("is {heads}: hidden_size {h} must be a multiple of it"),
        ));
    }
    let layers = u128::from(v.int(&["num_hidden_layers"], 0, MAX_LAYERS)?.unwrap_or(23));
    let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let i = match v.int(&["intermediate_size"], 1, MAX_DIM)? {
        Some(i) => u128::from(i),
        None => (h as f64 * ratio) as u128,
    };
    let p = u128::from(v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(20));
    let c = u128::from(v.int(&["num_channels"], 1, 64)?.unwrap_or(3));
    let g = u128::from(
        v.int(&["posemb_grid_size"], 1, MAX_IMAGE_SIZE)?
            .unwrap_or(32),
    );
    let m = u128::from(v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2));
    let proj = u128::from(
        v.int(&["projection_hidden_dim"], 1, MAX_DIM)?
            .unwrap_or(4096),
    );
    let t = match v.int(&["text_hidden_size"], 1, MAX_DIM)? {
        Some(t) if t != text_hidden => {
            return Err(InputError::new(
                v.field("text_hidden_size"),
                format!(
                    "is {t}, but the text model's hidden_size is {text_hidden}: they must be equal"
                ),
            ))
        }
        _ => u128::from(text_hidden),
    };
    let bias = u128::from(v.flag("projector_bias", false)?);
    let embed = h * (c * p * p + g * g + 4);
    let layer = 4 * h * h + 2 * h * i + i + 11 * h;
    let merger = m * m * h * proj + proj * t + bias * (proj + t);
    let mut shape = super::vlm::tower_shape(
        h as u64,
        layers as u64,
        heads,
        i as u64,
        (g * p) as u64,
        p as u64,
    );
    shape.block = crate::model::TowerBlock::InternVit;
    Ok((embed + layers * layer, merger, shape))
}

/// The cells' rule: `size` of `preprocessor_config.json` (square), else
/// the tower's `patch_size · spatial_merge_size`, the only cell its model
/// runs; the tower's merge from `config.json`.
pub(super) fn image_rule(
    cfg: &serde_json::Value,
    pre: &serde_json::Value,
) -> Result<crate::image_tokens::ImageRule> {
    use super::json_path::number;
    let merge = number(cfg, &[&["vision_config", "spatial_merge_size"]], 2);
    let patch = number(cfg, &[&["vision_config", "patch_size"]], 20);
    let cell = number(pre, &[&["size", "height"]], patch.saturating_mul(merge));
    if number(pre, &[&["size", "width"]], cell) != cell {
        return Err(InputError::new(
            "preprocessor_config.json: size",
            "is not supported: Inkling 2's cells are square (height = width)",
        ));
    }
    Ok(crate::image_tokens::ImageRule::Inkling2 { cell, merge })
}
