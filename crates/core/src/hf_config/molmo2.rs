//! Molmo2 (`molmo2`, `Molmo2ForConditionalGeneration`, transformers 5.24):
//! Qwen3's decoder (OLMo-2's with `qk_norm_type` "olmo") with
//! `additional_vocab_size` more embedding rows than its head has and an
//! o_proj never biased, never tied; a SigLIP-like tower without its final
//! norm (grouped key heads and a free head width allowed); a pooling
//! cross-attention over the features of `vision_feature_layer` layers
//! concatenated, and a SwiGLU projector. The Hub's layout (`vit_config`,
//! `vit_layers`) keeps the tower's layers up to the deepest one read. The
//! parameters are exact (`tests/data/params/hf_variants_2026.csv`); its
//! images are its overlapping crops (`ImageRule::Molmo2`), each a tower
//! pass.

use serde_json::{Map, Value};

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_TOTAL_PARAMS};

/// The wrapper: the language model from `text_config` (the class's
/// defaults where silent) with its exact count, the tower and the adapter.
pub(super) fn import_molmo2(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg, bool) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut t = cfg.object_or_empty("text_config", &empty)?;
    t.defaults = Defaults::Class("molmo2_text");
    let olmo = match t.string("qk_norm_type")?.unwrap_or("qwen3") {
        "qwen3" => false,
        "olmo" => true,
        other => {
            return Err(InputError::new(
                t.field("qk_norm_type"),
                format!("\"{other}\" is not a Molmo2 norm: allowed \"qwen3\", \"olmo\""),
            ))
        }
    };
    let mut spec = import_text(&t, olmo)?;
    spec.tied_embeddings = false;
    let w = u128::from;
    let (h, v) = (w(spec.hidden), w(spec.vocab));
    let (nh, kv, hd) = (w(spec.heads), w(spec.kv_heads), w(spec.head_dim()));
    let i = w(spec.intermediate);
    // `qkv_bias` is its alias (`attribute_map`)
    let bias_key = if t.obj.contains_key("qkv_bias") {
        "qkv_bias"
    } else {
        "attention_bias"
    };
    let bias = w(u64::from(t.flag(bias_key, false)?));
    let extra_rows = w(t
        .int(&["additional_vocab_size"], 0, MAX_DIM)?
        .unwrap_or(128));
    let (qn, kn) = if olmo { (nh * hd, kv * hd) } else { (hd, hd) };
    let layer = h * nh * hd
        + 2 * h * kv * hd
        + bias * (nh + 2 * kv) * hd
        + nh * hd * h
        + qn
        + kn
        + 3 * h * i
        + 2 * h;
    let text = (v + extra_rows) * h + w(spec.layers) * layer + h + v * h;
    let (vision, feature_layers, shape) = tower(cfg)?;
    let adapter = adapter(cfg, feature_layers)?;
    // The tower reads each crop (the image rule's); the total stays exact
    // through `params_override`, the tower and adapter counted as given.
    spec.vision = Some(super::vlm::counted(shape, vision, adapter)?);
    let total = text + vision + adapter;
    if total > w(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.params_override = Some(total as u64);
    spec.name = "molmo2".to_string();
    Ok(spec)
}

/// The tower's parameters, how many feature layers the adapter reads, and
/// its layers' shape (SigLIP's): `vision_config` as given, or the Hub's
/// `vit_config` trimmed to its deepest feature layer (`vit_layers` of the
/// adapter, negative from the end).
fn tower(cfg: &Cfg) -> Result<(u128, u128, crate::model::VisionTower)> {
    let empty = Map::new();
    let legacy = cfg.object("vision_config")?.is_none() && cfg.obj.contains_key("vit_config");
    let v = if legacy {
        cfg.object_or_empty("vit_config", &empty)?
    } else {
        cfg.object_or_empty("vision_config", &empty)?
    };
    let a = cfg.object_or_empty("adapter_config", &empty)?;
    let features = feature_layers(&a)?;
    let mut layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(25);
    if legacy {
        let deepest = features
            .iter()
            .map(|l| l.rem_euclid(layers as i64) as u64)
            .max()
            .unwrap_or(0);
        layers = deepest + 1;
    }
    let w = |keys: &[&'static str], default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(v.int(keys, 1, max)?.unwrap_or(default)))
    };
    let hv = w(&["hidden_size"], 1152, MAX_DIM)?;
    let iv = w(&["intermediate_size"], 4304, MAX_DIM)?;
    let nv = w(&["num_attention_heads"], 16, MAX_HEADS)?;
    let kvv = w(&["num_key_value_heads"], 16, MAX_HEADS)?;
    let hdv = w(&["head_dim"], 72, MAX_HEADS)?;
    let patch = w(&["patch_size", "image_patch_size"], 14, MAX_IMAGE_SIZE)?;
    let channels = w(&["num_channels"], 3, 64)?;
    let bv = u128::from(v.flag("attention_bias", true)?);
    let positions = match v.int(&["num_position_embeddings", "image_num_pos"], 1, MAX_DIM)? {
        Some(n) => u128::from(n),
        None => {
            let (rows, cols) = image_size(&v)?;
            (rows / patch.max(1)) * (cols / patch.max(1))
        }
    };
    let layer = 4 * hv
        + hv * nv * hdv
        + 2 * hv * kvv * hdv
        + bv * (nv + 2 * kvv) * hdv
        + nv * hdv * hv
        + bv * hv
        + 2 * hv * iv
        + iv
        + hv;
    let vision = positions * hv + (patch * patch * channels * hv + hv) + u128::from(layers) * layer;
    let shape = super::vlm::siglip_shape(
        hv as u64,
        layers,
        nv as u64,
        iv as u64,
        378u64.max(patch as u64),
        patch as u64,
    );
    Ok((vision, features.len() as u128, shape))
}

/// `image_size` (`image_default_input_size` in the Hub's layout) as
/// (height, width): a list of two, or one side of a square; 378 px.
fn image_size(v: &Cfg) -> Result<(u128, u128)> {
    let value = v
        .obj
        .get("image_size")
        .or_else(|| v.obj.get("image_default_input_size"));
    let side = |x: Option<&Value>| {
        x.and_then(Value::as_u64)
            .filter(|s| (1..=MAX_IMAGE_SIZE).contains(s))
            .map(u128::from)
    };
    let pair = match value {
        None | Some(Value::Null) => Some((378, 378)),
        Some(Value::Array(list)) if list.len() == 2 => side(list.first()).zip(side(list.get(1))),
        Some(other) => side(Some(other)).map(|s| (s, s)),
    };
    pair.ok_or_else(|| {
        InputError::new(
            v.field("image_size"),
            format!("expects a side or [height, width] of 1 to {MAX_IMAGE_SIZE} px"),
        )
    })
}

/// The adapter's feature layers (`vision_feature_layer`, the Hub's
/// `vit_layers`; [24, 18] by default).
fn feature_layers(a: &Cfg) -> Result<Vec<i64>> {
    let list = a
        .obj
        .get("vision_feature_layer")
        .or_else(|| a.obj.get("vit_layers"));
    match list {
        None | Some(Value::Null) => Ok(vec![24, 18]),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|x| {
                x.as_i64()
                    .filter(|l| l.unsigned_abs() <= MAX_LAYERS)
                    .ok_or_else(|| {
                        InputError::new(
                            a.field("vision_feature_layer"),
                            "expects a list of layer indexes",
                        )
                    })
            })
            .collect(),
        Some(_) => Err(InputError::new(
            a.field("vision_feature_layer"),
            "expects a list of layer indexes",
        )),
    }
}

/// The pooling cross-attention (its input the `features` layers' widths
/// concatenated) and the SwiGLU projector to the text width.
fn adapter(cfg: &Cfg, features: u128) -> Result<u128> {
    let empty = Map::new();
    let a = cfg.object_or_empty("adapter_config", &empty)?;
    let w = |key: &'static str, default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(a.int(&[key], 1, max)?.unwrap_or(default)))
    };
    let ha = w("hidden_size", 1152, MAX_DIM)?;
    let na = w("num_attention_heads", 16, MAX_HEADS)?;
    let kva = w("num_key_value_heads", 16, MAX_HEADS)?;
    let hda = w("head_dim", 72, MAX_HEADS)?;
    let ia = w("intermediate_size", 18944, MAX_DIM)?;
    let text = w("text_hidden_size", 3584, MAX_DIM)?;
    let ba = u128::from(a.flag("attention_bias", true)?);
    let mb = u128::from(a.flag("mlp_bias", false)?);
    let din = ha * features;
    let pooling =
        din * na * hda + 2 * din * kva * hda + ba * (na + 2 * kva) * hda + na * hda * ha + ba * ha;
    let projector = 2 * (ha * ia + mb * ia) + ia * text;
    Ok(pooling + projector)
}

/// The crops' rule from `preprocessor_config.json` (`size`, `patch_size`,
/// `overlap_margins`, `max_crops`, `pooling_size`) and the processor's
/// column flags (`image_use_col_tokens`, `use_single_crop_col_tokens`,
/// read from the same file when there), else the classes' values.
pub(super) fn image_rule(pre: &Value) -> Result<crate::image_tokens::ImageRule> {
    use super::json_path::number;
    let pair = |key: &str, default: (u64, u64)| -> Result<(u64, u64)> {
        match pre.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v
                .as_array()
                .map(|a| a.iter().map(Value::as_u64).collect::<Vec<_>>())
            {
                Some(a) if a.len() == 2 && a.iter().all(Option::is_some) => {
                    Ok((a[0].unwrap_or(0), a[1].unwrap_or(0)))
                }
                _ => Err(InputError::new(
                    format!("preprocessor_config.json: {key}"),
                    format!("{v} is not supported: two whole numbers"),
                )),
            },
        }
    };
    let size = number(pre, &[&["size", "height"]], 378);
    if number(pre, &[&["size", "width"]], size) != size {
        return Err(InputError::new(
            "preprocessor_config.json: size",
            "is not supported: Molmo2's crops are square (height = width)",
        ));
    }
    let flag = |key: &str| pre.get(key).and_then(Value::as_bool);
    let crop_columns = flag("image_use_col_tokens").unwrap_or(true);
    Ok(crate::image_tokens::ImageRule::Molmo2(
        crate::image_tokens::OverlapCrops {
            size,
            patch: number(pre, &[&["patch_size"]], 14),
            margins: pair("overlap_margins", (4, 4))?,
            max_crops: number(pre, &[&["max_crops"]], 8),
            pool: pair("pooling_size", (2, 2))?,
            columns: (
                crop_columns,
                flag("use_single_crop_col_tokens").unwrap_or(crop_columns),
            ),
        },
    ))
}
