//! Muse Glimmer (`muse_glimmer`) and Muse Spark (`muse_spark`),
//! transformers 5.24: Gemma-3-like layers (sandwich norms, three sliding
//! layers to one full NoPE layer, anchored at the last) with a sigmoid
//! output gate (`gate_proj`, never biased) and q/k norms without weights;
//! Spark adds two residual gates per layer (fp32) and routed experts that
//! run at their own width (`moe_hidden_size`, through pre- and post-expert
//! projections), no shared expert, and a convolutional audio tower. Both
//! carry a windowed ViT and a two-linear adapter to the text width. Glimmer
//! ties by the wrapper's flag alone; Spark never ties. The parameters are
//! exact (`tests/data/params/hf_variants_2026.csv`); their images are a
//! token budget over 28 px cells (`ImageRule::Muse`) through the tower;
//! Spark's audio is not modelled as an input (its weights ride with the
//! language model).

use serde_json::{Map, Value};

use super::reader::{one_per_layer, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    Arch, ModelSpec, Moe, SlidingWindow, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE,
    MAX_LAYERS, MAX_POSITION, MAX_TOTAL_PARAMS,
};

/// The wrapper of either model.
pub(super) fn import_muse(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    let spark = model_type == "muse_spark";
    let empty = Map::new();
    let t = cfg.object_or_empty("text_config", &empty)?;
    let int = |keys: &[&'static str], default: u64, max: u64| -> Result<u64> {
        Ok(t.int(keys, 1, max)?.unwrap_or(default))
    };
    let h = int(&["hidden_size"], if spark { 8192 } else { 6656 }, MAX_DIM)?;
    let layers = int(
        &["num_hidden_layers"],
        if spark { 62 } else { 52 },
        MAX_LAYERS,
    )?;
    let heads = int(
        &["num_attention_heads"],
        if spark { 128 } else { 32 },
        MAX_HEADS,
    )?;
    let kv = int(
        &["num_key_value_heads"],
        if spark { 16 } else { 2 },
        MAX_HEADS,
    )?;
    let hd = int(&["head_dim"], if spark { 64 } else { 128 }, MAX_HEADS)?;
    let vocab = int(&["vocab_size"], 202_048, MAX_DIM)?;
    let dense_width = int(
        &["intermediate_size"],
        if spark { 16_384 } else { 19_968 },
        MAX_DIM,
    )?;
    let window = int(&["sliding_window"], 2048, MAX_POSITION)?;
    let sliding = sliding_layers(&t, layers)?;
    let w = u128::from;
    let (hh, ll) = (w(h), w(layers));
    let bias = w(u64::from(t.flag("attention_bias", false)?));
    // q, the gate and o (hidden × heads·d each), k and v; biases but the gate's
    let attention = hh * w(hd) * (3 * w(heads) + 2 * w(kv))
        + bias * (w(heads) * w(hd) + 2 * w(kv) * w(hd) + hh);
    let mut spec = ModelSpec {
        name: model_type.to_string(),
        arch: Arch::Gemma3,
        hidden: h,
        layers,
        heads,
        kv_heads: kv,
        head_dim: Some(hd),
        intermediate: dense_width,
        vocab,
        max_position: t
            .int(&["max_position_embeddings"], 0, MAX_POSITION)?
            .unwrap_or(if spark { 1_048_576 } else { 131_072 }),
        tied_embeddings: !spark && cfg.flag("tie_word_embeddings", false)?,
        gated_attention: true,
        norms_per_layer: Some(4),
        ..ModelSpec::default()
    };
    let sliding_count = sliding.iter().filter(|s| **s).count() as u64;
    spec.sliding_window = (sliding_count > 0).then_some(SlidingWindow {
        window,
        layers: sliding_count,
        keeps_prompt: false,
    });
    let (blocks, fp32) = if spark {
        spark_blocks(&t, &mut spec, attention)?
    } else {
        (ll * (attention + 3 * hh * w(dense_width) + 4 * hh), 0)
    };
    let vv = w(vocab);
    let head = if spec.tied_embeddings { 0 } else { vv * hh };
    let text = vv * hh + blocks + hh + head;
    let audio = match cfg.object("audio_config")? {
        Some(a) if spark => audio_tower(&a)?,
        None if spark => audio_tower(&Cfg::new(&empty, "audio_config."))?,
        _ => 0,
    };
    let (tower, projector, shape) = vision(cfg, hh)?;
    // The tower reads each image at its own grid (the image rule's); the
    // total stays exact through `params_override`.
    spec.vision = Some(super::vlm::counted(shape, tower, projector)?);
    let total = text + tower + projector + audio;
    if total > w(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("text_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.params_override = Some(total as u64);
    spec.fp32_params = fp32 as u64;
    Ok(spec)
}

/// Which layers slide: `layer_types`, else every layer but each fourth from
/// the last.
fn sliding_layers(t: &Cfg, layers: u64) -> Result<Vec<bool>> {
    if let Some(types) = t.strings("layer_types")? {
        one_per_layer(t, "layer_types", types.len(), layers)?;
        return Ok(types.iter().map(|k| *k == "sliding_attention").collect());
    }
    Ok((0..layers)
        .map(|i| !(layers - 1 - i).is_multiple_of(4))
        .collect())
}

/// Spark's layers: attention, five norms and gates (two residual gates
/// kept fp32), and a sparse block (the fp32 router, the projections to and
/// from the experts' width and their norms, the experts) or a dense MLP;
/// with its MoE on the spec. Returns the layers' parameters and the fp32
/// ones.
fn spark_blocks(t: &Cfg, spec: &mut ModelSpec, attention: u128) -> Result<(u128, u128)> {
    let w = u128::from;
    let h = spec.hidden;
    let experts = t
        .int(&["num_local_experts", "n_routed_experts"], 1, MAX_EXPERTS)?
        .unwrap_or(256);
    let per_token = t.int(&["num_experts_per_tok"], 1, experts)?.unwrap_or(8);
    let width = t
        .int(&["moe_intermediate_size"], 1, MAX_DIM)?
        .unwrap_or(4096);
    let inner = t.int(&["moe_hidden_size"], 1, MAX_DIM)?.unwrap_or(4096);
    let sparse: Vec<bool> = match t.strings("mlp_layer_types")? {
        Some(types) => {
            one_per_layer(t, "mlp_layer_types", types.len(), spec.layers)?;
            types.iter().map(|k| *k != "dense").collect()
        }
        None => vec![true; spec.layers as usize],
    };
    let (hh, ee) = (w(h), w(experts));
    let (mut total, mut fp32) = (0u128, 0u128);
    for is_sparse in &sparse {
        let block = if *is_sparse {
            fp32 += ee * hh;
            ee * hh + 2 * hh * w(inner) + 2 * w(inner) + 3 * ee * w(width) * w(inner)
        } else {
            3 * hh * w(spec.intermediate)
        };
        fp32 += 2 * hh;
        total += attention + 5 * hh + block;
    }
    let sparse_count = sparse.iter().filter(|s| **s).count() as u64;
    spec.moe = (sparse_count > 0).then_some(Moe {
        experts,
        experts_per_token: per_token,
        shared_experts: 0,
        expert_intermediate: width,
        shared_intermediate: None,
        dense_layers: spec.layers - sparse_count,
        router_bias: false,
        latent: 0,
    });
    Ok((total, fp32))
}

/// The ViT (a linear patch embedding over `patch_temporal` frames, a
/// position table, two LayerNorms, the blocks) and the adapter
/// (`out_hidden_size` → `projector_hidden_size` → itself → text).
fn vision(cfg: &Cfg, text_hidden: u128) -> Result<(u128, u128, crate::model::VisionTower)> {
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let int = |key: &'static str, default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(v.int(&[key], 1, max)?.unwrap_or(default)))
    };
    let d = int("hidden_size", 1536, MAX_DIM)?;
    let inter = int("intermediate_size", 8960, MAX_DIM)?;
    let layers = int("num_hidden_layers", 50, MAX_LAYERS)?;
    let patch = int("patch_size", 14, MAX_IMAGE_SIZE)?;
    let temporal = int("patch_temporal", 2, 64)?;
    let rows = int("pos_emb_height", 32, MAX_IMAGE_SIZE)?;
    let cols = int("pos_emb_width", 32, MAX_IMAGE_SIZE)?;
    let tower = temporal * 3 * patch * patch * d
        + rows * cols * d
        + 4 * d
        + layers * (4 * d * d + 2 * d * inter + 9 * d + inter);
    let out = u128::from(cfg.int(&["out_hidden_size"], 1, MAX_DIM)?.unwrap_or(6144));
    let hp = u128::from(
        cfg.int(&["projector_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(4096),
    );
    // LayerNorms, biased q/k/v with rotary q and k, a GELU MLP: Qwen3-VL's
    // layer is the nearest measured one for what it saves.
    let mut shape = super::vlm::tower_shape(
        d as u64,
        layers as u64,
        int("num_attention_heads", 16, MAX_HEADS)? as u64,
        inter as u64,
        (rows * patch) as u64,
        patch as u64,
    );
    shape.block = crate::model::TowerBlock::Qwen3Vl;
    Ok((tower, out * hp + hp * hp + hp * text_hidden, shape))
}

/// Spark's audio tower: stages of a patch projection, a norm and blocks of
/// a depthwise convolution, a norm and an MLP, then a norm and a
/// projection to `out_hidden_size` and its norm.
fn audio_tower(a: &Cfg) -> Result<u128> {
    let list = |key: &str, default: &[u64]| -> Result<Vec<u128>> {
        match a.obj.get(key) {
            None | Some(Value::Null) => Ok(default.iter().map(|x| u128::from(*x)).collect()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|x| {
                    x.as_u64()
                        .filter(|n| (1..=MAX_DIM).contains(n))
                        .map(u128::from)
                        .ok_or_else(|| InputError::new(a.field(key), "expects a list of sizes"))
                })
                .collect(),
            Some(_) => Err(InputError::new(a.field(key), "expects a list of sizes")),
        }
    };
    let hidden = list("hidden_sizes", &[256, 512, 1024, 2048])?;
    let patches = list("patch_sizes", &[16, 6, 5, 4])?;
    let depths = list("depths", &[2, 2, 2, 2])?;
    let ratio = a.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let kernel = u128::from(a.int(&["conv_kernel_size"], 1, 64)?.unwrap_or(7));
    let out = u128::from(a.int(&["out_hidden_size"], 1, MAX_DIM)?.unwrap_or(8192));
    if hidden.len() != patches.len() || hidden.len() != depths.len() || hidden.is_empty() {
        return Err(InputError::new(
            a.field("hidden_sizes"),
            "hidden_sizes, patch_sizes and depths must list the same stages",
        ));
    }
    let mut total = 0u128;
    let mut input = 1u128;
    for ((c, p), d) in hidden.iter().zip(&patches).zip(&depths) {
        let mlp = (*c as f64 * ratio) as u128;
        total += input * p * c + 2 * c;
        total += d * (c * kernel + 3 * c + 2 * c * mlp + mlp);
        input = *c;
    }
    Ok(total + input + input * out + 2 * out)
}

/// The grid's rule from `preprocessor_config.json` (`patch_size`,
/// `merge_size`, `max_image_tokens`), else the tower's patch and merge and
/// the class's cap of 4,096 squares.
pub(super) fn image_rule(cfg: &Value, pre: &Value) -> crate::image_tokens::ImageRule {
    use super::json_path::number;
    let vision = |key: &str, default| number(cfg, &[&["vision_config", key]], default);
    crate::image_tokens::ImageRule::Muse {
        patch: number(pre, &[&["patch_size"]], vision("patch_size", 14)),
        merge: number(pre, &[&["merge_size"]], vision("merge_size", 2)),
        max_tokens: number(pre, &[&["max_image_tokens"]], 4096),
    }
}
