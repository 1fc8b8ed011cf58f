//! DeepSeek-OCR 2 (`deepseek_ocr2`, `DeepseekOcr2ForConditionalGeneration`,
//! transformers 5.24): SAM's ViT (with two stride-2 convolutions after its
//! neck), a Qwen2 stack as an encoder over its tokens and 400 learned
//! queries (144 for a 768 px crop, 256 for the 1024 px view), a linear
//! projector, and DeepSeek-V2's decoder without MLA: plain attention
//! (`head_dim` always hidden / heads), its dense and sparse layers from
//! `mlp_layer_types` alone (a softmax router, one shared MLP of
//! `n_shared_experts` × `moe_intermediate_size`), tied by the wrapper's flag
//! only. The parameters are exact (`tests/data/params/hf_variants_2026.csv`);
//! its images are a global view and crops (`ImageRule::DeepseekOcr2`), read
//! by SAM.

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{
    Arch, ModelSpec, Moe, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS,
    MAX_POSITION, MAX_TOTAL_PARAMS,
};

/// The wrapper.
pub(super) fn import_deepseek_ocr2(cfg: &Cfg) -> Result<ModelSpec> {
    let empty = Map::new();
    let t = cfg.object_or_empty("text_config", &empty)?;
    let (mut spec, text) = decoder(
        &t,
        cfg.flag("tie_word_embeddings", false)?,
        &TextDefaults::OCR2,
        sparse_layers,
    )?;
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (encoder, encoder_width) = encoder(&v)?;
    let hh = u128::from(spec.hidden);
    // the learned queries (144 + 256), the projector, the view separator
    let extras = 400 * encoder_width + encoder_width * hh + hh + hh;
    let (sam, shape) = sam(&v, (512, 896))?;
    let projector = encoder_width * hh + hh;
    let total = text + sam + encoder + extras;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    // The towers read each view (the image rule's): SAM's patches are what
    // the tower's activations are counted over; the total stays exact
    // through `params_override`.
    spec.vision = Some(super::vlm::counted(
        shape,
        sam + encoder + extras - projector,
        projector,
    )?);
    spec.params_override = Some(total as u64);
    Ok(spec)
}

/// The text config classes' defaults where the two models differ.
pub(super) struct TextDefaults {
    pub hidden: u64,
    pub layers: u64,
    pub heads: u64,
    pub vocab: u64,
    pub dense_width: u64,
    pub expert_width: u64,
    /// `num_experts_per_tok` (0: none; the sparse layers need it given).
    pub per_token: u64,
    pub max_position: u64,
}

impl TextDefaults {
    /// `DeepseekOcr2TextConfig`.
    pub const OCR2: TextDefaults = TextDefaults {
        hidden: 4096,
        layers: 32,
        heads: 32,
        vocab: 102_400,
        dense_width: 11_008,
        expert_width: 1407,
        per_token: 0,
        max_position: 2048,
    };
}

/// DeepSeek-V2's decoder without MLA, as DeepSeek-OCR 2 and Unlimited-OCR
/// build it from `t` (their `text_config`): the spec named
/// `deepseek_ocr2` and the exact count of the language model with its
/// head (tied by the wrapper's flag `tied`); `sparse` says which layers
/// hold the experts.
pub(super) fn decoder(
    t: &Cfg,
    tied: bool,
    d: &TextDefaults,
    sparse: impl Fn(&Cfg, u64) -> Result<Vec<bool>>,
) -> Result<(ModelSpec, u128)> {
    let int = |keys: &[&'static str], default: u64, max: u64| -> Result<u64> {
        Ok(t.int(keys, 1, max)?.unwrap_or(default))
    };
    let h = int(&["hidden_size"], d.hidden, MAX_DIM)?;
    let layers = int(&["num_hidden_layers"], d.layers, MAX_LAYERS)?;
    let heads = int(&["num_attention_heads"], d.heads, MAX_HEADS)?;
    let kv = int(&["num_key_value_heads"], heads, MAX_HEADS)?;
    let vocab = int(&["vocab_size"], d.vocab, MAX_DIM)?;
    let dense_width = int(&["intermediate_size"], d.dense_width, MAX_DIM)?;
    let experts = int(&["n_routed_experts", "num_experts"], 64, MAX_EXPERTS)?;
    let shared = t.int(&["n_shared_experts"], 0, MAX_EXPERTS)?.unwrap_or(2);
    let width = int(&["moe_intermediate_size"], d.expert_width, MAX_DIM)?;
    let sparse = sparse(t, layers)?;
    let sparse_count = sparse.iter().filter(|s| **s).count() as u64;
    let per_token = match t.int(&["num_experts_per_tok"], 1, experts)? {
        Some(k) => k,
        None if sparse_count == 0 => 1,
        None if d.per_token > 0 => d.per_token.min(experts),
        None => {
            return Err(InputError::new(
                t.field("num_experts_per_tok"),
                "is missing: the sparse layers cannot route without it",
            ))
        }
    };
    if h % heads != 0 {
        return Err(InputError::new(
            t.field("hidden_size"),
            format!("{h} is not a multiple of num_attention_heads ({heads})"),
        ));
    }
    let w = u128::from;
    let (hh, hd) = (w(h), w(h / heads));
    let ab = w(u64::from(t.flag("attention_bias", false)?));
    let mb = w(u64::from(t.flag("mlp_bias", false)?));
    let attention =
        hh * hd * (2 * w(heads) + 2 * w(kv)) + ab * (w(heads) * hd + 2 * w(kv) * hd + hh);
    let mlp = |i: u128| 3 * hh * i + mb * (2 * i + hh);
    let (ee, im) = (w(experts), w(width));
    let text_layers: u128 = sparse
        .iter()
        .map(|s| {
            let block = if *s {
                3 * ee * hh * im + ee * hh + mlp(w(shared) * im)
            } else {
                mlp(w(dense_width))
            };
            attention + block + 2 * hh
        })
        .sum();
    let vv = w(vocab);
    let text = vv * hh + text_layers + hh + if tied { 0 } else { vv * hh };
    let spec = ModelSpec {
        name: "deepseek_ocr2".to_string(),
        arch: Arch::Mixtral,
        hidden: h,
        layers,
        heads,
        kv_heads: kv,
        head_dim: Some(h / heads),
        intermediate: dense_width,
        vocab,
        max_position: t
            .int(&["max_position_embeddings"], 0, MAX_POSITION)?
            .unwrap_or(d.max_position),
        tied_embeddings: tied,
        moe: (sparse_count > 0).then_some(Moe {
            experts,
            experts_per_token: per_token,
            shared_experts: u64::from(shared > 0),
            expert_intermediate: width,
            shared_intermediate: (shared > 0).then_some(shared.saturating_mul(width)),
            dense_layers: layers - sparse_count,
            router_bias: false,
            latent: 0,
        }),
        // the routers stay fp32 (`_keep_in_fp32_modules_strict`: `gate.weight`)
        fp32_params: sparse_count.saturating_mul(experts.saturating_mul(h)),
        ..ModelSpec::default()
    };
    Ok((spec, text))
}

/// Which layers are sparse: `mlp_layer_types` alone (`"sparse"`; any other
/// entry dense, entries past the layers unread), which the model cannot be
/// built without.
fn sparse_layers(t: &Cfg, layers: u64) -> Result<Vec<bool>> {
    let Some(list) = t.strings("mlp_layer_types")? else {
        return Err(InputError::new(
            t.field("mlp_layer_types"),
            "is missing: DeepSeek-OCR 2's model cannot be built without it (\"dense\" or \"sparse\" per layer)",
        ));
    };
    if (list.len() as u64) < layers {
        return Err(InputError::new(
            t.field("mlp_layer_types"),
            format!(
                "lists {} layers but num_hidden_layers is {layers}",
                list.len()
            ),
        ));
    }
    Ok(list
        .iter()
        .take(layers as usize)
        .map(|k| *k == "sparse")
        .collect())
}

/// SAM's ViT (`sam_config`: ViT-B by default) with its neck and the two
/// stride-2 convolutions, and its layers' shape: LayerNorms, biased q/k/v
/// and a GELU MLP without rotary positions, which SigLIP's layer is the
/// nearest measured one to (its windows and decomposed relative positions
/// are not).
pub(super) fn sam(
    v: &Cfg,
    default_channels: (u128, u128),
) -> Result<(u128, crate::model::VisionTower)> {
    let empty = Map::new();
    let s = v.object_or_empty("sam_config", &empty)?;
    let int = |key: &'static str, default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(s.int(&[key], 1, max)?.unwrap_or(default)))
    };
    let d = int("hidden_size", 768, MAX_DIM)?;
    let layers = s.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let heads = int("num_attention_heads", 12, MAX_HEADS)?;
    let image = int("image_size", 1024, MAX_IMAGE_SIZE)?;
    let patch = int("patch_size", 16, MAX_IMAGE_SIZE)?;
    let channels = int("num_channels", 3, 64)?;
    let out = int("output_channels", 256, MAX_DIM)?;
    let window = u128::from(s.int(&["window_size"], 0, MAX_IMAGE_SIZE)?.unwrap_or(14));
    let ratio = s.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(4.0);
    let mlp = match s.int(&["mlp_dim"], 1, MAX_DIM)? {
        Some(m) => u128::from(m),
        None => (d as f64 * ratio) as u128,
    };
    let globals: Vec<u64> = match s.obj.get("global_attn_indexes") {
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_u64).collect(),
        _ => vec![2, 5, 8, 11],
    };
    let (d1, d2) = match s.obj.get("downsample_channels") {
        Some(Value::Array(list)) if list.len() == 2 => {
            let c = |i: usize| list[i].as_u64().filter(|x| (1..=MAX_DIM).contains(x));
            match (c(0), c(1)) {
                (Some(a), Some(b)) => (u128::from(a), u128::from(b)),
                _ => {
                    return Err(InputError::new(
                        s.field("downsample_channels"),
                        "expects two channel counts",
                    ))
                }
            }
        }
        _ => default_channels,
    };
    let qkv_bias = u128::from(s.flag("qkv_bias", true)?);
    let abs_pos = u128::from(s.flag("use_abs_pos", true)?);
    let rel_pos = u128::from(s.flag("use_rel_pos", true)?);
    let grid = image / patch.max(1);
    let head = d / heads.max(1);
    let blocks: u128 = (0..layers)
        .map(|i| {
            let span = if globals.contains(&i) || window == 0 {
                grid
            } else {
                window
            };
            4 * d
                + 3 * d * d
                + qkv_bias * 3 * d
                + d * d
                + d
                + 2 * d * mlp
                + mlp
                + d
                + rel_pos * 2 * (2 * span).saturating_sub(1) * head
        })
        .sum();
    let embed = channels * patch * patch * d + d + abs_pos * grid * grid * d;
    let neck = d * out + 9 * out * out + 4 * out;
    let convs = 9 * out * d1 + 9 * d1 * d2;
    let mut shape = super::vlm::tower_shape(
        d as u64,
        layers,
        heads as u64,
        mlp as u64,
        image as u64,
        patch as u64,
    );
    shape.block = crate::model::TowerBlock::Siglip;
    Ok((embed + blocks + neck + convs, shape))
}

/// The Qwen2 stack used as the encoder (`encoder_config`, no token
/// embedding): its parameters and width.
fn encoder(v: &Cfg) -> Result<(u128, u128)> {
    let empty = Map::new();
    let e = v.object_or_empty("encoder_config", &empty)?;
    let he = e.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(4096);
    let layers = u128::from(e.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(32));
    let heads = e.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(32);
    let kv = u128::from(
        e.int(&["num_key_value_heads"], 1, MAX_HEADS)?
            .unwrap_or(heads),
    );
    let inter = u128::from(e.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(22_016));
    let hd = u128::from(
        e.int(&["head_dim"], 1, MAX_HEADS)?
            .unwrap_or(he / heads.max(1)),
    );
    let (hh, nh) = (u128::from(he), u128::from(heads));
    let layer = hh * hd * (2 * nh + 2 * kv) + hd * (nh + 2 * kv) + 3 * hh * inter + 2 * hh;
    Ok((layers * layer + hh, hh))
}

/// The views' rule from `preprocessor_config.json` (`size.height`,
/// `tile_size`, `patch_size`, `downsample_ratio`; the class's values when
/// absent). The crops' range is not a file key: `DeepseekOcr2Processor`
/// passes 2 to 6 on every call.
pub(super) fn image_rule(pre: &Value) -> crate::image_tokens::ImageRule {
    let d = crate::image_tokens::OcrViews::DEFAULT;
    let n = |path: &[&str], default| super::json_path::number(pre, &[path], default);
    crate::image_tokens::ImageRule::DeepseekOcr2(crate::image_tokens::OcrViews {
        base: n(&["size", "height"], d.base),
        tile: n(&["tile_size"], d.tile),
        patch: n(&["patch_size"], d.patch),
        fold: n(&["downsample_ratio"], d.fold),
        ..d
    })
}
