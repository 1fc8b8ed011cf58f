//! ModernBERT's decoder (`ModernBertDecoderForCausalLM`,
//! `modeling_modernbert_decoder.py`, transformers 5.24; the Ettin decoders):
//! ModernBERT's layers run causally. A GeGLU MLP (`Wi`: hidden → 2 ×
//! intermediate), LayerNorms biased by `norm_bias` (none before layer 0's
//! attention, `nn.Identity`), one after the embedding and one at the end;
//! every `global_attn_every_n_layers`-th layer from the first attends to the
//! whole sequence, the others within `local_attention / 2` tokens (the
//! config class recomputes `sliding_window` from it); the head is a dense
//! layer (`classifier_bias`) and a norm before the vocabulary projection,
//! which `decoder_bias` biases and `tie_word_embeddings` ties.

use super::reader::{layer_types, slide_layers, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    MlpKind, ModelSpec, NormKind, SlidingWindow, MAX_LAYERS, MAX_POSITION, MAX_TOTAL_PARAMS,
};

/// The class default of `local_attention`.
const LOCAL_ATTENTION: u64 = 128;
/// `__post_init__`'s default of the legacy `global_attn_every_n_layers`.
const GLOBAL_EVERY: u64 = 3;

/// Completes the decoder read with StableLM's layers (LayerNorm, gated MLP).
pub(super) fn complete(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let attention_bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = attention_bias;
    spec.out_bias = attention_bias;
    let mlp_bias = cfg.flag("mlp_bias", false)?;
    spec.mlp_bias = Some(mlp_bias);
    spec.mlp = MlpKind::Gated;
    spec.norm = NormKind::Layer;
    spec.kv_heads = spec.heads;
    spec.parallel_block = false;
    let layers = spec.layers;
    let sliding = match layer_types(cfg, layers)? {
        Some(types) => types.count(&["sliding_attention"]),
        None => {
            let every = cfg
                .int(&["global_attn_every_n_layers"], 1, MAX_LAYERS)?
                .unwrap_or(GLOBAL_EVERY);
            layers - layers.div_ceil(every)
        }
    };
    let local = cfg
        .int(&["local_attention"], 0, MAX_POSITION)?
        .unwrap_or(LOCAL_ATTENTION);
    if sliding > 0 && local < 2 {
        return Err(InputError::new(
            cfg.field("local_attention"),
            format!("{local} leaves its {sliding} sliding layers no window: allowed 2 to {MAX_POSITION}"),
        ));
    }
    spec.sliding_window = Some(SlidingWindow::new(local / 2, sliding));
    slide_layers(spec, sliding);
    spec.params_override = Some(total(cfg, spec, attention_bias, mlp_bias)?);
    Ok(())
}

/// Every parameter, as the module tree builds them.
fn total(cfg: &Cfg, spec: &ModelSpec, attention_bias: bool, mlp_bias: bool) -> Result<u64> {
    let bias = |on: bool| u128::from(on);
    let wide = |x: u64| u128::from(x);
    let (h, i, l, v) = (
        wide(spec.hidden),
        wide(spec.intermediate),
        wide(spec.layers),
        wide(spec.vocab),
    );
    // q, k and v are heads × (hidden // heads) wide; Wo maps hidden to hidden
    let inner = wide(spec.heads) * (h / wide(spec.heads.max(1)));
    let norm = h * (1 + bias(cfg.flag("norm_bias", false)?));
    let attention = 3 * h * inner + h * h + (3 * inner + h) * bias(attention_bias);
    let mlp = 3 * h * i + (2 * i + h) * bias(mlp_bias);
    let layers = l * (2 * norm + attention + mlp) - norm.min(l * norm);
    let head = h * h + h * bias(cfg.flag("classifier_bias", false)?) + norm;
    let output = v * h * bias(!spec.tied_embeddings) + v * bias(cfg.flag("decoder_bias", true)?);
    let all = v * h + norm + layers + norm + head + output;
    Ok(u64::try_from(all).unwrap_or(u64::MAX).min(MAX_TOTAL_PARAMS))
}
