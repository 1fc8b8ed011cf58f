//! RWKV-4 (`RwkvConfig`, transformers 5.24's `modeling_rwkv.py`): blocks of
//! a LayerNorm and a time mixing (key, value and receptance over
//! `attention_hidden_size` channels, an output projection, a WKV recurrence
//! with its decay and bonus per channel, three token-shift mixes), then a
//! LayerNorm and a channel mixing (key to `intermediate_size`, relu², value
//! back, gated by a receptance, two token-shift mixes); no attention, no
//! biases but the norms'. The first block also norms the embeddings
//! (`pre_ln`). The head is untied unless the config ties it. Counted and
//! its state measured as transformers builds them:
//! `tests/data/rwkv/rwkv.jsonl`.

use super::reader::{Cfg, HIDDEN, LAYERS, VOCAB};
use crate::error::Result;
use crate::model::{
    Arch, MlpKind, ModelSpec, NormKind, Recurrent, RecurrentKind, MAX_DIM, MAX_LAYERS, MAX_POSITION,
};

/// Reads an RWKV config.
pub(super) fn import_rwkv(cfg: &Cfg) -> Result<ModelSpec> {
    let hidden = cfg.req(HIDDEN, 1, MAX_DIM)?;
    let layers = cfg.req(LAYERS, 1, MAX_LAYERS)?;
    // `attention_hidden_size` and `intermediate_size` default to the
    // hidden size and four times it when absent or null
    let attention = cfg
        .int(&["attention_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(hidden);
    let intermediate = cfg
        .int(&["intermediate_size"], 1, MAX_DIM)?
        .unwrap_or_else(|| hidden.saturating_mul(4).min(MAX_DIM));
    Ok(ModelSpec {
        name: "rwkv".to_string(),
        arch: Arch::Rwkv,
        hidden,
        layers,
        heads: 1,
        kv_heads: 1,
        head_dim: Some(1),
        intermediate,
        vocab: cfg.req(VOCAB, 1, MAX_DIM)?,
        // the longest sequence the WKV CUDA kernel takes at once
        max_position: cfg
            .int(&["context_length"], 0, MAX_POSITION)?
            .unwrap_or(1024),
        tied_embeddings: cfg.flag("tie_word_embeddings", false)?,
        mlp: MlpKind::Plain,
        norm: NormKind::Layer,
        mlp_bias: Some(false),
        norms_per_layer: Some(2),
        attention_layers: Some(0),
        recurrent: Some(Recurrent {
            kind: RecurrentKind::Rwkv,
            layers,
            inner: attention,
            ..Recurrent::default()
        }),
        // the first block's `pre_ln` over the embeddings (weight and bias)
        model_extra_params: hidden.saturating_mul(2),
        ..ModelSpec::default()
    })
}
