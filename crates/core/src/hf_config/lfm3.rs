//! LFM3 (`Lfm3Config`, Liquid AI): LFM2's short-convolution and attention
//! layers, with sliding-window attention layers beside the full ones, a
//! norm after each operator and feed-forward (`use_sandwich_norm`), and a
//! sigmoid gate per attention head (`use_attention_gate`: `g_proj`,
//! hidden → heads). Counted as `modeling_lfm3.py` builds it
//! (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{attention_bias, dense_width, layer_types, Cfg};
use crate::error::Result;
use crate::model::{
    ModelSpec, QkNorm, Recurrent, RecurrentKind, SlidingWindow, MAX_DIM, MAX_POSITION,
};

/// Fills LFM3's layers into `spec` (holding the common decoder fields).
pub(super) fn lfm3(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    // Without `layer_types` the config class lays out every four layers
    // as conv, conv, full, conv, with layer 4k (k > 0) sliding instead.
    let (full, sliding) = match layer_types(cfg, layers)? {
        Some(types) => (
            types.count(&["full_attention", "attention"]),
            types.count(&["sliding_attention"]),
        ),
        None => (
            (0..layers).filter(|i| i % 4 == 2).count() as u64,
            (0..layers).filter(|i| i % 4 == 0 && *i > 0).count() as u64,
        ),
    };
    let attention = full + sliding;
    spec.attention_layers = Some(attention);
    // `sliding_window` may be null: the sliding layers then see everything
    let window = match cfg.obj.get("sliding_window") {
        Some(serde_json::Value::Null) => None,
        _ => Some(
            cfg.int(&["sliding_window"], 1, MAX_POSITION)?
                .unwrap_or(256),
        ),
    };
    spec.sliding_window = window.filter(|_| sliding > 0).map(|window| SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: false,
    });
    attention_bias(cfg, spec, false)?;
    spec.mlp_bias = Some(false);
    spec.qk_norm = Some(QkNorm::Head);
    spec.intermediate = dense_width(cfg)?.min(MAX_DIM);
    if cfg.flag("use_sandwich_norm", true)? {
        // operator_norm, ffn_norm, post_operator_norm, post_ffn_norm
        spec.norms_per_layer = Some(4);
    }
    if cfg.flag("use_attention_gate", true)? {
        let gates = attention.saturating_mul(spec.hidden * spec.heads);
        spec.model_extra_params = spec.model_extra_params.saturating_add(gates);
    }
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::ShortConv,
        layers: layers - attention.min(layers),
        inner: spec.hidden,
        conv_kernel: cfg.int(&["conv_L_cache"], 1, 64)?.unwrap_or(7),
        conv_bias: cfg.flag("conv_bias", false)?,
        ..Recurrent::default()
    });
    Ok(())
}

/// LFM3-VL (`lfm3_vl`): an LFM3 language model (`text_config`, default
/// `lfm3`), its own tower and a two-layer projector. Only the wrapper's
/// `tie_word_embeddings` ties (default True).
pub(super) fn import_lfm3_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", "lfm3_vl")?;
    text.defaults = super::reader::Defaults::Class("lfm3");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let mut vision = cfg.required_object("vision_config", "lfm3_vl")?;
    vision.defaults = super::reader::Defaults::Class("lfm3_vl_vision");
    let (mut tower, tower_params, width) = lfm3_vl_vision(&vision)?;
    // Lfm3VlMultiModalProjector: LayerNorm(D) with bias, the merge² patches
    // folded into D·merge², Linear to `projector_hidden_size`, GELU, Linear
    // to the text width, both biased by `projector_bias`.
    let merge = u128::from(vision.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2));
    let inner = u128::from(
        cfg.int(&["projector_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(4096),
    );
    let bias = u128::from(cfg.flag("projector_bias", true)?);
    let (d, h) = (width, u128::from(spec.hidden));
    let projector = 2 * d + d * merge * merge * inner + bias * inner + inner * h + bias * h;
    tower = super::vlm::counted(tower, tower_params, projector)?;
    spec.vision = Some(tower);
    spec.name = "lfm3_vl".to_string();
    Ok(spec)
}

/// `Lfm3VlVisionModel`: a Qwen-VL patchifier (Linear of C·Tp·P² → D, no
/// bias) and its RMSNorm, then layers of a depthwise-convolution operator
/// (in_proj D → 3D, Conv2d D × k², out_proj) or grouped attention over one
/// frame (q/k norms of one head, heads of D ÷ heads), each with two norms
/// and a SwiGLU MLP; no final norm. Default layout: conv for the first two
/// layers and every odd one. (tower shape, parameters, width).
fn lfm3_vl_vision(v: &Cfg) -> Result<(crate::model::VisionTower, u128, u128)> {
    use crate::model::{MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};
    let width = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let depth = v.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let heads = v.req(&["num_attention_heads"], 1, MAX_HEADS)?;
    let kv_heads = v
        .int(&["num_key_value_heads"], 1, MAX_HEADS)?
        .unwrap_or(heads);
    let inner = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let patch = v.req(&["patch_size"], 1, MAX_IMAGE_SIZE)?;
    let temporal = v.int(&["temporal_patch_size"], 1, 64)?.unwrap_or(2);
    let channels = v.int(&["in_channels", "num_channels"], 1, 64)?.unwrap_or(3);
    let kernel = v.int(&["conv_kernel_size"], 1, 64)?.unwrap_or(3);
    let attention = match layer_types(v, depth)? {
        Some(types) => types.count(&["full_attention", "attention"]),
        None => (0..depth).filter(|i| *i >= 2 && i % 2 == 0).count() as u64,
    };
    let conv = u128::from(depth - attention.min(depth));
    let (d, i, k) = (u128::from(width), u128::from(inner), u128::from(kernel));
    let head = d / u128::from(heads);
    let (q, kv) = (u128::from(heads) * head, u128::from(kv_heads) * head);
    let common = 2 * d + 3 * d * i;
    let conv_layer = common + 3 * d * d + d * k * k + d * d;
    let attention_layer = common + d * q + 2 * d * kv + q * d + 2 * head;
    let embed = u128::from(channels * temporal) * u128::from(patch).pow(2) * d + d;
    let params = embed + conv * conv_layer + u128::from(attention) * attention_layer;
    let mut shape = super::vlm::tower_shape(
        width,
        depth,
        heads,
        inner,
        super::vlm::QWEN_DEFAULT_IMAGE.max(patch),
        patch,
    );
    // RMSNorms and a gated MLP over each frame's patches, rotary attention:
    // counted as Qwen2.5-VL's block.
    shape.block = crate::model::TowerBlock::Qwen25Vl;
    Ok((shape, params, d))
}
