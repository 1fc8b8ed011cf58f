//! BART and the encoder-decoders built on its layers (transformers 5.24's
//! `modeling_bart.py` and its copies: mBART, Marian, Pegasus, M2M-100,
//! PLBart, BlenderBot, BlenderBot-Small, MVP). An encoder over the source
//! tokens and a decoder with cross-attention to it; every attention
//! projection and MLP linear is biased, the MLP is `activation_function`
//! (GELU by default) between `fc1` and `fc2`, and the norms are LayerNorms.
//! The families differ outside the layers, as each modeling file builds
//! them (`tests/data/params/hf_variants_2026.csv`):
//! - positions: learned tables of `max_position_embeddings` rows, plus the
//!   2 rows BART's offset adds (BART, mBART, PLBart, MVP) or not
//!   (BlenderBot, BlenderBot-Small); sinusoidal tables that are frozen
//!   parameters (Marian, Pegasus) or buffers (M2M-100);
//! - a LayerNorm on the embeddings (BART, mBART, PLBart, MVP,
//!   BlenderBot-Small) and a final one on each stack (the pre-norm families:
//!   mBART, Pegasus, M2M-100, BlenderBot);
//! - Marian's encoder and decoder embeddings are separate tables unless
//!   `share_encoder_decoder_embeddings`, the decoder's `decoder_vocab_size`
//!   rows wide; MVP's optional layer-wise prompts.
//!
//! The decoder's width is the layers' (the encoder's extra MLP or heads
//! count in the exact total); the source length is the training
//! scenario's sequence length and the decoder's the target length, as for
//! T5.

use super::reader::{Cfg, VOCAB};
use crate::error::Result;
use crate::model::{Arch, MlpKind, ModelSpec, NormKind, MAX_DIM, MAX_POSITION};

/// How a family builds what surrounds its layers.
struct Family {
    /// Rows a learned position table adds to `max_position_embeddings`;
    /// `None`: sinusoidal positions.
    learned_offset: Option<u64>,
    /// Sinusoidal positions held as a (frozen) parameter, not a buffer.
    sinusoid_counted: bool,
    /// `layernorm_embedding` on each stack.
    embedding_norm: bool,
    /// A final `layer_norm` on each stack (pre-norm layers).
    final_norm: bool,
}

fn family(model_type: &str) -> Family {
    let learned = |offset, embedding_norm, final_norm| Family {
        learned_offset: Some(offset),
        sinusoid_counted: false,
        embedding_norm,
        final_norm,
    };
    let sinusoid = |counted| Family {
        learned_offset: None,
        sinusoid_counted: counted,
        embedding_norm: false,
        final_norm: model_type != "marian",
    };
    match model_type {
        "mbart" => learned(2, true, true),
        "blenderbot" => learned(0, false, true),
        "blenderbot-small" => learned(0, true, false),
        "marian" | "pegasus" => sinusoid(true),
        "m2m_100" => sinusoid(false),
        // bart, plbart, mvp
        _ => learned(2, true, false),
    }
}

/// Reads a BART-family config.
pub(super) fn import_bart(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    let f = family(model_type);
    let super::reader::EncoderDecoder {
        width: d,
        encoder,
        decoder,
        heads,
        encoder_ffn,
        decoder_ffn,
    } = super::reader::encoder_decoder(cfg)?;
    let vocab = cfg.req(VOCAB, 1, MAX_DIM)?;
    let positions = cfg.req(&["max_position_embeddings"], 1, MAX_POSITION)?;
    let tied = cfg.flag("tie_word_embeddings", true)?;
    // Marian's target side: its own table unless shared
    let shared = model_type != "marian" || cfg.flag("share_encoder_decoder_embeddings", true)?;
    let target_vocab = match shared {
        true => vocab,
        false => cfg
            .int(&["decoder_vocab_size"], 1, MAX_DIM)?
            .unwrap_or(vocab),
    };
    let (dd, fe, fd) = (
        u128::from(d),
        u128::from(encoder_ffn),
        u128::from(decoder_ffn),
    );
    let attention = 4 * (dd * dd + dd);
    let norm = 2 * dd;
    let mlp = |f: u128| dd * f + f + f * dd + dd;
    let encoder_layer = attention + 2 * norm + mlp(fe);
    let decoder_layer = 2 * attention + 3 * norm + mlp(fd);
    let position_rows = match f.learned_offset {
        Some(offset) => u128::from(positions) + u128::from(offset),
        None if f.sinusoid_counted => u128::from(positions),
        None => 0,
    };
    let stack_extras = 2
        * (position_rows * dd
            + u128::from(f.embedding_norm) * norm
            + u128::from(f.final_norm) * norm);
    // Untied, `shared` (when built), the encoder's and the decoder's tables
    // and the head are each their own parameter (5.x no longer hands the
    // stacks `shared`); tied, they are one table. Marian's decoder table
    // is `decoder_vocab_size` rows unless shared; its head is that wide
    // unless the tables are shared.
    let (v, vd) = (u128::from(vocab), u128::from(target_vocab));
    let head_rows = if shared { v } else { vd };
    let embeddings = match (shared, tied) {
        (true, true) => v,
        (true, false) => v + v + u128::from(decoder_vocab(cfg, model_type, vocab)?),
        (false, true) => v + vd,
        (false, false) => v + vd,
    } * dd;
    let head = match tied {
        true => 0,
        false => head_rows * dd,
    };
    let prompts = mvp_prompts(cfg, model_type, (d, encoder, decoder))?;
    let total = u128::from(encoder) * encoder_layer
        + u128::from(decoder) * decoder_layer
        + stack_extras
        + embeddings
        + head
        + prompts;
    Ok(ModelSpec {
        name: model_type.to_string(),
        arch: Arch::Bart,
        hidden: d,
        layers: decoder,
        heads,
        kv_heads: heads,
        // the narrower stack's MLP for the layers' activations; the exact
        // total below counts both
        intermediate: decoder_ffn.min(encoder_ffn),
        vocab: u64::try_from(head_rows).unwrap_or(u64::MAX),
        // M2M-100's sinusoids grow with the sequence: no bound
        max_position: if model_type == "m2m_100" {
            0
        } else {
            positions
        },
        tied_embeddings: tied,
        mlp: MlpKind::Plain,
        norm: NormKind::Layer,
        qkv_bias: true,
        out_bias: true,
        mlp_bias: Some(true),
        encoder_layers: Some(encoder),
        relu_mlp: cfg.string("activation_function")? == Some("relu")
            || (model_type == "m2m_100" && cfg.string("activation_function")?.is_none()),
        probability_dropout: cfg
            .float("attention_dropout", 0.0, 1.0)?
            .map_or(matches!(model_type, "plbart" | "m2m_100"), |p| p > 0.0),
        params_override: Some(super::vlm::narrow(total, "config.json")?),
        ..ModelSpec::default()
    })
}

/// MVP's layer-wise prompts (`use_prompt`): one for the encoder's layers,
/// one for the decoder's self-attention and one for its cross-attention,
/// each an embedding of `prompt_length` rows and a two-linear transform
/// (`d_model → prompt_mid_dim → layers · 2 · d_model`, biased).
fn mvp_prompts(
    cfg: &Cfg,
    model_type: &str,
    (d, encoder, decoder): (u64, u64, u64),
) -> Result<u128> {
    if model_type != "mvp" || !cfg.flag("use_prompt", false)? {
        return Ok(0);
    }
    let length = u128::from(cfg.int(&["prompt_length"], 1, MAX_POSITION)?.unwrap_or(100));
    let mid = u128::from(cfg.int(&["prompt_mid_dim"], 1, MAX_DIM)?.unwrap_or(800));
    let d = u128::from(d);
    let prompt = |layers: u64| {
        let out = u128::from(layers) * 2 * d;
        length * d + (d * mid + mid) + (mid * out + out)
    };
    // `MvpEncoder(config, config.use_prompt)` hands the flag to its
    // `embed_tokens` argument, so the encoder never builds its prompt
    let _ = encoder;
    Ok(2 * prompt(decoder))
}

/// The decoder's own table when the tables are not tied: Marian's
/// `decoder_vocab_size` rows, every other family's vocabulary.
fn decoder_vocab(cfg: &Cfg, model_type: &str, vocab: u64) -> Result<u64> {
    Ok(match model_type {
        "marian" => cfg
            .int(&["decoder_vocab_size"], 1, MAX_DIM)?
            .unwrap_or(vocab),
        _ => vocab,
    })
}
