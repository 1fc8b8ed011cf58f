//! T5 and the encoder-decoders built on its layers (transformers 5.24's
//! `modeling_t5.py`, `modeling_mt5.py`, `modeling_umt5.py`): an encoder over
//! the source tokens and a decoder with cross-attention to it, unbiased
//! projections, RMS norms before every sub-layer and once per stack, and a
//! learned relative-position bias of `relative_attention_num_buckets` × heads.
//! - T5 and mT5 learn the bias in the first layer of each stack, which
//!   every layer reuses;
//! - UMT5 learns one in every self-attention layer
//!   ([`ModelSpec::relative_bias_every_layer`]);
//! - LongT5 (`modeling_longt5.py`) attends in its encoder within blocks of
//!   `local_radius + 1` tokens and their neighbours, and with
//!   `encoder_attention_type = "transient-global"` also to one summary of
//!   every `global_block_size` tokens ([`ModelSpec::local_radius`]);
//! - Switch Transformers (`modeling_switch_transformers.py`) replaces the
//!   feed-forward of some layers of each stack with top-1 routed experts
//!   ([`ModelSpec::encoder_moe_layers`], [`Moe::dense_layers`]).
//!
//! transformers 5.x ties the head of all three to `shared` whatever
//! `tie_word_embeddings` says (the flag only sets the decoder's output
//! scaling); their checkpoints, and transformers 4.x, keep the separate head
//! the flag names, and so does the importer (`tests/data/params/README.md`).

use super::reader::{Cfg, VOCAB};
use crate::error::{InputError, Result};
use crate::model::{
    Arch, MlpKind, ModelSpec, Moe, NormKind, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS,
    MAX_POSITION,
};

pub(super) fn import_t5(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    // attribute_map's names win over the fields, as transformers sets them last
    let encoder = cfg.req(&["num_hidden_layers", "num_layers"], 1, MAX_LAYERS)?;
    let heads = cfg.req(&["num_attention_heads", "num_heads"], 1, MAX_HEADS)?;
    let projection = cfg.string("feed_forward_proj")?.unwrap_or("relu");
    let (local_radius, global_block) = if model_type == "longt5" {
        long_t5_attention(cfg)?
    } else {
        (None, None)
    };
    // absent, the config class copies the `num_layers` field before the
    // attribute_map alias `num_hidden_layers` is set
    let decoder_layers = match cfg.int(&["num_decoder_layers"], 1, MAX_LAYERS)? {
        Some(n) => n,
        None => cfg.int(&["num_layers"], 1, MAX_LAYERS)?.unwrap_or(encoder),
    };
    let (moe, encoder_moe_layers) = if model_type == "switch_transformers" {
        switch_experts(cfg, encoder, decoder_layers)?
    } else {
        (None, 0)
    };
    // mT5 and UMT5 untie the head; the classes of T5 (v1.0), LongT5 and
    // Switch tie it
    let tied_embeddings = cfg.flag(
        "tie_word_embeddings",
        matches!(model_type, "t5" | "longt5" | "switch_transformers"),
    )?;
    let hidden = cfg.req(&["hidden_size", "d_model"], 1, MAX_DIM)?;
    let vocab = cfg.req(VOCAB, 1, MAX_DIM)?;
    // transformers 5.x builds each Switch stack its own `embed_tokens` and
    // ties both to `shared` only with the head (`_tied_weights_keys`)
    let own_stack_tables = model_type == "switch_transformers" && !tied_embeddings;
    Ok(ModelSpec {
        name: model_type.to_string(),
        arch: Arch::T5,
        hidden,
        layers: decoder_layers,
        heads,
        kv_heads: heads,
        head_dim: Some(cfg.req(&["d_kv"], 1, MAX_HEADS)?),
        intermediate: cfg.req(&["d_ff"], 1, MAX_DIM)?,
        vocab,
        tied_embeddings,
        model_extra_params: 2 * vocab * hidden * u64::from(own_stack_tables),
        mlp: if projection.starts_with("gated") {
            MlpKind::Gated
        } else {
            MlpKind::Plain
        },
        norm: NormKind::Rms,
        encoder_layers: Some(encoder),
        relative_attention_buckets: cfg.int(&["relative_attention_num_buckets"], 1, MAX_DIM)?,
        relative_bias_every_layer: model_type == "umt5",
        local_radius,
        global_block,
        moe,
        encoder_moe_layers,
        ..ModelSpec::default()
    })
}

/// Switch Transformers' experts (`num_experts`, class default 8, each a
/// ReLU `wi`/`wo` pair of `d_ff`, top-1 routed by an unbiased router unless
/// `router_bias`) and the sparse layers of each stack: layer i is sparse
/// when i % step == 1 or step == 1, with step = layers // num_sparse_*
/// (layers when that is 0; a step of 0 leaves none), recomputed by
/// `__post_init__` whatever `*_sparse_step` the config gives.
fn switch_experts(cfg: &Cfg, encoder: u64, decoder: u64) -> Result<(Option<Moe>, u64)> {
    let sparse = |key: &'static str, layers: u64| -> Result<u64> {
        let wanted = cfg.int(&[key], 0, MAX_LAYERS)?.unwrap_or(3);
        let step = layers.checked_div(wanted).unwrap_or(layers);
        Ok(match step {
            0 => 0,
            1 => layers,
            step => layers.saturating_sub(2) / step + u64::from(layers >= 2),
        })
    };
    let decoder_sparse = sparse("num_sparse_decoder_layers", decoder)?;
    let moe = Moe {
        experts: cfg.int(&["num_experts"], 1, MAX_EXPERTS)?.unwrap_or(8),
        experts_per_token: 1,
        shared_experts: 0,
        expert_intermediate: cfg.req(&["d_ff"], 1, MAX_DIM)?,
        shared_intermediate: None,
        dense_layers: decoder - decoder_sparse,
        router_bias: cfg.flag("router_bias", false)?,
        latent: 0,
    };
    Ok((Some(moe), sparse("num_sparse_encoder_layers", encoder)?))
}

/// LongT5's encoder attention: the radius (class default 127) and, for
/// transient-global attention, the summary block (default 16).
fn long_t5_attention(cfg: &Cfg) -> Result<(Option<u64>, Option<u64>)> {
    let radius = cfg.int(&["local_radius"], 0, MAX_POSITION)?.unwrap_or(127);
    let global = match cfg.string("encoder_attention_type")?.unwrap_or("local") {
        "local" => None,
        "transient-global" => Some(
            cfg.int(&["global_block_size"], 1, MAX_POSITION)?
                .unwrap_or(16),
        ),
        other => {
            return Err(InputError::new(
                cfg.field("encoder_attention_type"),
                format!("{other:?} is not one of LongT5's: \"local\", \"transient-global\""),
            ))
        }
    };
    Ok((Some(radius), global))
}
