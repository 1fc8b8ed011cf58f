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
