//! T5Gemma (transformers 5.24's `modeling_t5gemma.py`): Gemma 2's layers as
//! an encoder and a decoder. `encoder` and `decoder` are each a
//! `T5GemmaModuleConfig` (Gemma 2's keys and defaults: the 2B shape, sliding
//! and full layers alternating); the encoder attends both ways, each decoder
//! layer adds cross-attention to the encoder's output with its own pre- and
//! post-norm. Each stack embeds with its own table; the head is tied to the
//! decoder's by `tie_word_embeddings` (`tests/data/params/hf_variants_2026.csv`).
//!
//! The estimate models one width: an encoder whose shape differs from the
//! decoder's (T5Gemma 9B-2B) is refused by field.

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{Arch, ModelSpec};
use serde_json::{Map, Value};

/// The decoder's importer: Gemma 2's, reading a module config.
pub(super) fn import_t5gemma(
    cfg: &Cfg,
    gemma2: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::<String, Value>::new();
    let module = |key: &str| -> Result<ModelSpec> {
        let mut sub = cfg.object_or_empty(key, &empty)?;
        sub.defaults = Defaults::Class("t5_gemma_module");
        gemma2(&sub)
    };
    let encoder = module("encoder")?;
    let mut spec = module("decoder")?;
    one_shape(&encoder, &spec, cfg.field("encoder"))?;
    spec.name = "t5gemma".to_string();
    spec.arch = Arch::Gemma2;
    spec.encoder_layers = Some(encoder.layers);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let h = u128::from(spec.hidden);
    let (q, kv) = (
        u128::from(spec.heads * spec.head_dim()),
        u128::from(spec.kv_heads * spec.head_dim()),
    );
    // the encoder's own embedding table; per decoder layer, the second
    // cross-attention norm (the layout counts one) and the cross-attention's
    // biases (the layout counts the self-attention's)
    let biases = u128::from(spec.qkv_bias) * (q + 2 * kv) + u128::from(spec.out_bias) * h;
    let extra = u128::from(spec.vocab) * h + u128::from(spec.layers) * (h + biases);
    spec.model_extra_params = u64::try_from(extra).unwrap_or(u64::MAX);
    Ok(spec)
}

/// An encoder of the decoder's shape (width, heads, key-value heads and
/// their width, MLP, vocabulary, q/k/v biases): the estimate models one
/// for both stacks, so another is refused at `field`.
pub(super) fn one_shape(encoder: &ModelSpec, decoder: &ModelSpec, field: String) -> Result<()> {
    let shape = |s: &ModelSpec| {
        (
            s.hidden,
            s.heads,
            s.kv_heads,
            s.head_dim(),
            s.intermediate,
            s.vocab,
            s.qkv_bias,
        )
    };
    if shape(encoder) == shape(decoder) {
        return Ok(());
    }
    let describe = |s: &ModelSpec| {
        format!(
            "width {}, {} heads ({} key-value) of {}, an MLP of {} and {} tokens",
            s.hidden,
            s.heads,
            s.kv_heads,
            s.head_dim(),
            s.intermediate,
            s.vocab
        )
    };
    Err(InputError::new(
        field,
        format!(
            "the encoder has {}, the decoder {}: vramfit models an encoder and a decoder of one shape",
            describe(encoder),
            describe(decoder)
        ),
    ))
}
