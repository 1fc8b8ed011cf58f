//! Step-3.7-Flash (`step3p7`, `Step3p7ForConditionalGeneration`): a
//! CLIP-shaped tower with layer scales, a learned position table and two
//! stride-2 convolutions that quadruple its width, a linear projector, and
//! the Step-3.5 language model (`Step3p7TextConfig`, `step3p5`): GQA with
//! per-head q/k norms and an output gate, full or sliding layers (the
//! sliding ones with heads of their own), dense layers then MoE layers
//! with a shared expert. Counts name the modules of `modeling_step3p7.py`
//! (transformers 5.24); `tests/vlm.rs` and `tests/params_2025.rs` check
//! them.

use serde_json::{Map, Value};

use super::reader::Cfg;
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{
    ModelSpec, Moe, SlidingWindow, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS,
    MAX_POSITION,
};

/// The wrapper: its text model (`step3p5` read as [`complete_step3p5`]
/// completes it), `Step3p7VisionModel` and the projector.
pub(super) fn import_step3p7(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "step3p5")?;
    let mut spec = import_text(&text)?;
    // `_tied_weights_keys` ties the head only when the wrapper's own flag
    // says so (absent: untied); the text config's flag is not read.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    // Step3p7VisionConfig's defaults and kwarg aliases (width, layers, heads).
    let d = v
        .int(&["hidden_size", "width"], 1, MAX_DIM)?
        .unwrap_or(1536);
    let layers = v
        .int(&["num_hidden_layers", "layers"], 1, MAX_LAYERS)?
        .unwrap_or(47);
    let heads = v
        .int(&["num_attention_heads", "heads"], 1, MAX_HEADS)?
        .unwrap_or(16);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(728);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(14);
    let channels = v.int(&["num_channels"], 1, 16)?.unwrap_or(3);
    // `intermediate_size` is always int(hidden·mlp_ratio) (8960/1536 by
    // default); a given one is overwritten.
    let ratio = v.float("mlp_ratio", 0.0, 64.0)?.unwrap_or(8960.0 / 1536.0);
    let m = ((d as f64 * ratio) as u64).clamp(1, MAX_DIM);
    let (dw, mw) = (u128::from(d), u128::from(m));
    let side = u128::from(image / patch);
    // Step3p7VisionEmbeddings: a bias-free patch conv and the learned
    // (image/patch)² position table; pre_layernorm.
    let embed = u128::from(channels) * u128::from(patch).pow(2) * dw + side * side * dw + 2 * dw;
    // Step3p7VisionEncoderLayer: biased q, k, v, out; fc1, fc2; two
    // LayerNorms; the two layer scales (lambda_1, lambda_2).
    let block = 4 * (dw * dw + dw) + 2 * dw * mw + mw + dw + 4 * dw + 2 * dw;
    // vit_downsampler1 Conv2d(d → 2d, 3, stride 2) and vit_downsampler2
    // Conv2d(2d → 4d, 3, stride 2), both biased.
    let downsamplers = (18 * dw * dw + 2 * dw) + (72 * dw * dw + 4 * dw);
    let tower = embed + u128::from(layers) * block + downsamplers;
    // multi_modal_projector: Linear(4d, text hidden), `projector_bias`.
    let h = u128::from(spec.hidden);
    let projector = 4 * dw * h + u128::from(cfg.flag("projector_bias", false)?) * h;
    // Not measured for training: CLIP's layer (quick_gelu) stands in.
    let shape = tower_shape(d, layers, heads, m, image, patch);
    spec.name = "step3p7".to_string();
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}

/// The Step-3.5 language model over Qwen3-MoE's layers (q/k norms per head
/// width, a router without bias): per-layer lists trimmed of their
/// multi-token-prediction tail (`num_nextn_predict_layers`, which builds
/// no modules); sliding layers with `num_sliding_attention_heads` query
/// heads (else `attention_other_setting`'s, else all); dense layers from
/// `mlp_layer_types`, else the legacy `moe_layers_enum`, else the first
/// three; `n_routed_experts` experts of `moe_intermediate_size` and one
/// shared expert of `share_expert_dim` (`num_local_experts` is overwritten
/// by `n_routed_experts` in the config class, so it is not read). What the
/// common fields cannot say is counted apart: the heads the wider layers
/// have beyond the narrower ones, the output gate `g_proj` (hidden × heads
/// per head, × head width per element), and `mlp_bias`'s biases on the
/// dense and shared MLPs.
pub(super) fn complete_step3p5(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let (h, d) = (spec.hidden, spec.head_dim());
    spec.kv_heads = cfg
        .int(
            &["num_key_value_heads", "num_attention_groups"],
            1,
            MAX_HEADS,
        )?
        .unwrap_or(spec.heads);
    let mtp = cfg
        .int(
            &["num_nextn_predict_layers", "num_mtp_layers"],
            0,
            MAX_LAYERS,
        )?
        .unwrap_or(0);
    let types = trimmed(cfg, "layer_types", layers, mtp)?;
    let sliding = types.as_ref().map_or(0, |t| {
        t.iter().filter(|x| **x == "sliding_attention").count() as u64
    });
    let window = cfg.int(&["sliding_window"], 0, MAX_POSITION)?.unwrap_or(0);
    spec.sliding_window = (window > 0 && sliding > 0).then_some(SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: false,
    });
    let full_heads = spec.heads;
    let other = cfg.object("attention_other_setting")?;
    let sliding_heads = match cfg.int(&["num_sliding_attention_heads"], 1, MAX_HEADS)? {
        Some(n) => n,
        None => match &other {
            Some(o) => o
                .int(&["num_attention_heads"], 1, MAX_HEADS)?
                .unwrap_or(full_heads),
            None => full_heads,
        },
    };
    let bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    spec.heads = full_heads.min(sliding_heads).max(spec.kv_heads);
    // saturating: absurd sizes end in the total's range check, not an overflow
    let wider = |heads: u64, count: u64| {
        heads
            .saturating_sub(spec.heads)
            .saturating_mul(count)
            .saturating_mul(2 * h * d + u64::from(bias) * d)
    };
    let extra_heads = wider(full_heads, layers - sliding) + wider(sliding_heads, sliding);
    let per_head = match cfg.find(&["gating"]) {
        None | Some((_, Value::Bool(true))) => true,
        Some((_, Value::String(s))) => s == "per-head",
        Some(_) => false,
    };
    let gate_width = if per_head { 1 } else { d };
    let gated_heads = full_heads * (layers - sliding) + sliding_heads * sliding;
    let gates = (h * gate_width).saturating_mul(gated_heads);
    let dense = dense_layers(cfg, layers, mtp)?;
    let experts = cfg
        .int(&["n_routed_experts", "moe_num_experts"], 1, MAX_EXPERTS)?
        .unwrap_or(288);
    let shared = cfg
        .int(&["share_expert_dim", "share_expert_dims"], 0, MAX_DIM)?
        .unwrap_or(1280);
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg
            .int(&["num_experts_per_tok", "moe_top_k"], 1, experts)?
            .unwrap_or(8),
        shared_experts: u64::from(shared > 0),
        expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
        shared_intermediate: (shared > 0).then_some(shared),
        dense_layers: dense,
        router_bias: false,
        latent: 0,
    });
    spec.mlp_bias = Some(false);
    let mlp_biases = if cfg.flag("mlp_bias", false)? {
        dense * (2 * spec.intermediate + h) + (layers - dense) * (2 * shared + h)
    } else {
        0
    };
    spec.model_extra_params = extra_heads.saturating_add(gates).saturating_add(mlp_biases);
    Ok(())
}

/// A per-layer list as the config class keeps it: `layers` entries, or
/// `layers + mtp` whose tail describes the prediction layers it drops.
fn trimmed<'a>(cfg: &Cfg<'a>, key: &str, layers: u64, mtp: u64) -> Result<Option<Vec<&'a str>>> {
    let Some(mut list) = cfg.strings(key)? else {
        return Ok(None);
    };
    let n = list.len() as u64;
    if n != layers && n != layers + mtp {
        return Err(InputError::new(
            cfg.field(key),
            format!(
                "lists {n} layers but num_hidden_layers is {layers} (and {mtp} prediction layers)"
            ),
        ));
    }
    list.truncate(layers as usize);
    Ok(Some(list))
}

/// Dense layers: `mlp_layer_types`' "dense" entries, else every layer the
/// legacy `moe_layers_enum` (a comma list or an array of indices) leaves
/// out, else the first three.
fn dense_layers(cfg: &Cfg, layers: u64, mtp: u64) -> Result<u64> {
    if let Some(types) = trimmed(cfg, "mlp_layer_types", layers, mtp)? {
        return super::moe_layouts::dense_in(cfg, &types);
    }
    let listed: Option<Vec<u64>> = match cfg.find(&["moe_layers_enum"]) {
        None | Some((_, Value::Null)) => None,
        Some((_, Value::String(s))) => Some(
            s.split(',')
                .filter(|p| !p.trim().is_empty())
                .map(|p| p.trim().parse::<u64>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| {
                    InputError::new(
                        cfg.field("moe_layers_enum"),
                        "expected layer indices, comma-separated",
                    )
                })?,
        ),
        Some((_, Value::Array(a))) => Some(
            a.iter()
                .map(Value::as_u64)
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    InputError::new(cfg.field("moe_layers_enum"), "expected layer indices")
                })?,
        ),
        Some(_) => {
            return Err(InputError::new(
                cfg.field("moe_layers_enum"),
                "expected layer indices, comma-separated or as a list",
            ))
        }
    };
    Ok(match listed {
        Some(moe) => {
            let sparse = (0..layers).filter(|i| moe.contains(i)).count() as u64;
            layers - sparse
        }
        None => layers.min(3),
    })
}
