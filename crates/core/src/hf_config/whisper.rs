//! Whisper (`WhisperConfig`, `WhisperForConditionalGeneration`): an audio
//! encoder that always runs over `max_source_positions` frames (the
//! processor pads every clip to 30 s, 3,000 mel frames that the second
//! convolution halves), and a text decoder of `max_target_positions` learned
//! positions with cross-attention to the encoder's output. Counted as
//! `modeling_whisper.py` builds it (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{Cfg, VOCAB};
use crate::error::{InputError, Result};
use crate::model::{Arch, MlpKind, ModelSpec, NormKind, MAX_DIM, MAX_POSITION};

/// Reads a Whisper config.
pub(super) fn import_whisper(cfg: &Cfg) -> Result<ModelSpec> {
    let super::reader::EncoderDecoder {
        width: d,
        encoder,
        decoder,
        heads,
        encoder_ffn,
        decoder_ffn,
    } = super::reader::encoder_decoder(cfg)?;
    // the layers' MLP width is the narrower stack's; the other stack's
    // extra width is counted beside the layers (its activations are not)
    let ffn = decoder_ffn.min(encoder_ffn);
    let mels = cfg.req(&["num_mel_bins"], 1, MAX_DIM)?;
    let frames = cfg.req(&["max_source_positions"], 1, MAX_POSITION)?;
    // Beside the layers: the two convolutions of the stem (kernel 3, with
    // biases), the encoder's position table (a frozen parameter), the
    // biases of q and v (k has none; the architecture's row gives none)
    // and the cross-attention's o bias, and the wider stack's MLP width.
    let stem = 3 * mels * d + d + 3 * d * d + d;
    let biases = encoder * 2 * d + decoder * 5 * d;
    let wider = (encoder * (encoder_ffn - ffn) + decoder * (decoder_ffn - ffn)) * (2 * d + 1);
    let extra = [stem, frames * d, biases, wider]
        .into_iter()
        .try_fold(0u64, u64::checked_add)
        .ok_or_else(|| InputError::new(cfg.field("d_model"), "makes the model too large"))?;
    Ok(ModelSpec {
        name: "whisper".to_string(),
        arch: Arch::Whisper,
        hidden: d,
        layers: decoder,
        heads,
        kv_heads: heads,
        intermediate: ffn,
        vocab: cfg.req(VOCAB, 1, MAX_DIM)?,
        max_position: cfg.req(&["max_target_positions"], 1, MAX_POSITION)?,
        tied_embeddings: cfg.flag("tie_word_embeddings", true)?,
        mlp: MlpKind::Plain,
        norm: NormKind::Layer,
        qkv_bias: false,
        out_bias: true,
        mlp_bias: Some(true),
        encoder_layers: Some(encoder),
        encoder_tokens: Some(frames),
        encoder_stem: frames.saturating_mul(2 * mels + 5 * d),
        model_extra_params: extra,
        ..ModelSpec::default()
    })
}
