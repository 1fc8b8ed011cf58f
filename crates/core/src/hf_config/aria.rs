//! Aria (`aria`, `AriaForConditionalGeneration`, transformers 5.24): Aria's
//! language model (`aria_text`), Idefics3's SigLIP-shaped tower (its
//! post-layernorm built but unused) and `AriaProjector`: learned queries
//! (as many as `projector_patch_to_query_dict` gives a crop's patch count)
//! that cross-attend to the crop's patches, then an MLP into the text width.

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{counted, siglip_params, siglip_shape};
use crate::error::{InputError, Result};
use crate::image_tokens::ImageRule;
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The wrapper: its text model, the tower and the projector; the head tied
/// by the wrapper's flag only (default untied).
pub(super) fn import_aria(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "aria_text")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    // Idefics3VisionConfig's class defaults
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1152);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!(
                "{heads} heads do not divide hidden_size {d}: the projector's attention refuses it"
            ),
        ));
    }
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(224);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(32);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let queries = max_queries(cfg)?;
    let (dw, h) = (u128::from(d), u128::from(spec.hidden));
    // Idefics3's SigLIP encoder without a head (its post-layernorm built)
    let tower = siglip_params(d, layers, m, image, patch, channels, false);
    // the query table; bias-free q/k/v, nn.MultiheadAttention's biased
    // in/out projections, a biased linear and two LayerNorms; a LayerNorm
    // and the bias-free MLP (vision → text → text)
    let projector = u128::from(queries) * dw + 8 * dw * dw + 11 * dw + dw * h + h * h;
    spec.name = "aria".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        projector,
    )?);
    Ok(spec)
}

/// `projector_patch_to_query_dict` (patches → queries, `{1225: 128, 4900:
/// 256}` by default) as pairs; its keys may be strings.
pub(super) fn patch_to_query(cfg: &serde_json::Value) -> Result<Vec<(u64, u64)>> {
    let Some(map) = cfg
        .get("projector_patch_to_query_dict")
        .and_then(serde_json::Value::as_object)
    else {
        return Ok(vec![(1225, 128), (4900, 256)]);
    };
    map.iter()
        .map(|(k, v)| match (k.trim().parse::<u64>(), v.as_u64()) {
            (Ok(patches), Some(queries)) if patches > 0 && queries > 0 => Ok((patches, queries)),
            _ => Err(InputError::new(
                "config.json: projector_patch_to_query_dict",
                format!("\"{k}\": {v} is not a patch count and a query count (positive integers)"),
            )),
        })
        .collect()
}

/// The query table's rows: `max_value_projector_patch_to_query_dict` when
/// the config says it (it wins), else the largest query count.
fn max_queries(cfg: &Cfg) -> Result<u64> {
    if let Some(n) = cfg.int(&["max_value_projector_patch_to_query_dict"], 1, MAX_DIM)? {
        return Ok(n);
    }
    let value = serde_json::Value::Object(cfg.obj.clone());
    Ok(patch_to_query(&value)?
        .iter()
        .map(|(_, q)| *q)
        .max()
        .unwrap_or(256))
}

/// `AriaImageProcessor` and `AriaProjector`: crops of `max_image_size`
/// (980; 490 or 980 only), one per image unless `split_image`, then the
/// tiles of the best of `split_resolutions` (490 × (a, b) by default); the
/// queries per crop are what `projector_patch_to_query_dict` gives the
/// crop's `(max_image_size / patch)²` patches (the projector's KeyError
/// otherwise).
pub(super) fn image_rule(cfg: &serde_json::Value, pre: &serde_json::Value) -> Result<ImageRule> {
    let crop = super::json_path::number(pre, &[&["max_image_size"]], 980);
    if crop != 490 && crop != 980 {
        return Err(InputError::new(
            "preprocessor_config.json: max_image_size",
            format!("{crop} is not one Aria's processor takes: 490 or 980"),
        ));
    }
    let patch = super::json_path::number(cfg, &[&["vision_config", "patch_size"]], 32).max(1);
    let patches = (crop / patch).pow(2);
    let queries = patch_to_query(cfg)?
        .into_iter()
        .find(|(p, _)| *p == patches)
        .map(|(_, q)| q)
        .ok_or_else(|| {
            InputError::new(
                "config.json: projector_patch_to_query_dict",
                format!("has no entry for a {crop} px crop's {patches} patches of {patch} px: the projector refuses it"),
            )
        })?;
    let split = pre
        .get("split_image")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let resolutions = match pre
        .get("split_resolutions")
        .and_then(serde_json::Value::as_array)
    {
        Some(list) => list
            .iter()
            .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
            .collect(),
        None => [
            (1, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (1, 6),
            (1, 7),
            (1, 8),
            (2, 4),
            (2, 3),
            (2, 2),
            (2, 1),
            (3, 1),
            (3, 2),
            (4, 1),
            (4, 2),
            (5, 1),
            (6, 1),
            (7, 1),
            (8, 1),
        ]
        .iter()
        .map(|&(a, b)| (490 * a, 490 * b))
        .collect(),
    };
    Ok(ImageRule::Aria {
        crop,
        patch,
        queries,
        split,
        resolutions,
    })
}
