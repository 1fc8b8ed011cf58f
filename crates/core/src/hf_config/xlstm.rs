//! xLSTM (`xLSTMConfig`, NX-AI's xLSTM-7B): `num_blocks` blocks of an
//! RMSNorm, an mLSTM layer, an RMSNorm and a gated SiLU MLP, no attention;
//! the head is never tied. Counted as `modeling_xlstm.py` builds it
//! (`tests/data/params/hf_variants_2026.csv`); its `xLSTMCache` in
//! `tests/data/cache/hybrid_cache.jsonl`.

use super::reader::{Cfg, VOCAB};
use crate::error::{InputError, Result};
use crate::model::{
    Arch, MlpKind, ModelSpec, Recurrent, RecurrentKind, MAX_DIM, MAX_HEADS, MAX_LAYERS,
};

/// Reads an xLSTM config.
pub(super) fn import_xlstm(cfg: &Cfg) -> Result<ModelSpec> {
    let h = cfg.req(&["hidden_size", "embedding_dim"], 1, MAX_DIM)?;
    let layers = cfg.req(&["num_hidden_layers", "num_blocks"], 1, MAX_LAYERS)?;
    let heads = cfg.req(&["num_heads"], 1, MAX_HEADS)?;
    // the layer sizes q/k and v as `int(hidden · factor)` (its cache rounds
    // them up to multiples of 64, which its cached forward needs equal)
    let width = |key: &str, default: f64| -> Result<u64> {
        let factor = cfg.float(key, 0.0, 64.0)?.unwrap_or(default);
        let w = (h as f64 * factor) as u64;
        if w == 0 || !w.is_multiple_of(heads) {
            return Err(InputError::new(
                cfg.field(key),
                format!("gives a width of {w}: it must be at least 1 and split evenly into num_heads ({heads})"),
            ));
        }
        Ok(w)
    };
    let qk = width("qk_dim_factor", 0.5)?;
    let v = width("v_dim_factor", 1.0)?;
    // the MLP: `ffn_proj_factor · hidden` rounded up to a multiple
    let multiple = cfg
        .int(&["ffn_round_up_to_multiple_of"], 1, MAX_DIM)?
        .unwrap_or(64);
    let raw = h as f64 * cfg.float("ffn_proj_factor", 0.0, 64.0)?.unwrap_or(2.667);
    let ffn = ((raw + multiple as f64 - 1.0) / multiple as f64).floor() as u64 * multiple;
    let bias = cfg.flag("use_bias", false)?;
    Ok(ModelSpec {
        name: "xlstm".to_string(),
        arch: Arch::Xlstm,
        hidden: h,
        layers,
        heads,
        kv_heads: heads,
        intermediate: ffn.clamp(1, MAX_DIM),
        vocab: cfg.req(VOCAB, 1, MAX_DIM)?,
        // `xLSTMForCausalLM` declares no tied weights
        tied_embeddings: false,
        mlp: MlpKind::Gated,
        mlp_bias: Some(bias),
        attention_layers: Some(0),
        recurrent: Some(Recurrent {
            kind: RecurrentKind::Mlstm,
            layers,
            inner: v,
            heads,
            state: qk / heads,
            proj_bias: bias,
            ..Recurrent::default()
        }),
        // the two block norms' biases under `use_bias` (the final norm has none)
        layer_extra_params: if bias { 2 * h } else { 0 },
        ..ModelSpec::default()
    })
}
