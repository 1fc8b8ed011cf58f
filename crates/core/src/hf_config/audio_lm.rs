//! Audio language models whose audio encoder is Whisper's: Voxtral
//! (`voxtral`, `VoxtralForConditionalGeneration`) and Qwen2-Audio
//! (`qwen2_audio`, `Qwen2AudioForConditionalGeneration`), transformers
//! 5.24: the language model transformers builds from `text_config`, the
//! encoder (two convolutions over the mel bins, a position table, layers
//! with biased q, v and o but no k bias, fc1/fc2 and two LayerNorms, a
//! final LayerNorm) and a projector. The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`); their audio inputs are not
//! modelled yet: the encoder's weights ride with the language model.

use serde_json::Map;

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_LAYERS, MAX_POSITION, MAX_TOTAL_PARAMS};

/// A Whisper encoder's parameters (`audio_config`) and its width and MLP
/// width; `defaults`: (width, MLP, layers, mel bins, positions).
fn whisper_encoder(a: &Cfg, defaults: [u64; 5]) -> Result<(u128, u128, u128)> {
    let [d0, f0, l0, m0, p0] = defaults;
    let d = u128::from(
        a.int(&["hidden_size", "d_model"], 1, MAX_DIM)?
            .unwrap_or(d0),
    );
    let f = u128::from(
        a.int(&["intermediate_size", "encoder_ffn_dim"], 1, MAX_DIM)?
            .unwrap_or(f0),
    );
    let layers = u128::from(
        a.int(&["num_hidden_layers", "encoder_layers"], 1, MAX_LAYERS)?
            .unwrap_or(l0),
    );
    let mels = u128::from(a.int(&["num_mel_bins"], 1, MAX_DIM)?.unwrap_or(m0));
    let positions = u128::from(
        a.int(&["max_source_positions"], 1, MAX_POSITION)?
            .unwrap_or(p0),
    );
    let params = (3 * mels * d + d)
        + (3 * d * d + d)
        + positions * d
        + layers * (4 * d * d + 3 * d + 2 * d * f + f + d + 4 * d)
        + 2 * d;
    Ok((params, d, f))
}

/// The wrapper: the language model, the encoder and the projector.
pub(super) fn import_audio_lm(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let voxtral = model_type == "voxtral";
    let text = cfg.text_config_or_class(&empty, if voxtral { "llama" } else { "qwen2" })?;
    let mut spec = import_text(&text)?;
    let a = cfg.object_or_empty("audio_config", &empty)?;
    let h = u128::from(spec.hidden);
    // the head is never tied: neither wrapper declares tied weights and
    // the text model they build has no head of its own
    spec.tied_embeddings = false;
    let (encoder, d, f, fp32) = if voxtral {
        let (params, d, f) = whisper_encoder(&a, [1280, 5120, 32, 128, 1500])?;
        let positions = u128::from(
            a.int(&["max_source_positions"], 1, MAX_POSITION)?
                .unwrap_or(1500),
        );
        // its position table is kept fp32 (`_keep_in_fp32_modules_strict`)
        (params, d, f, positions * d)
    } else {
        let (params, d, f) = whisper_encoder(&a, [1280, 5120, 32, 128, 1500])?;
        (params, d, f, 0)
    };
    // Voxtral: four frames stacked, Linear(F → H), Linear(H → H), no
    // biases; Qwen2-Audio: one biased Linear(d → H)
    let projector = if voxtral { f * h + h * h } else { d * h + h };
    let extra = encoder + projector;
    let total = u128::from(spec.total_params()) + extra;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("audio_config"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.model_extra_params = spec.model_extra_params.saturating_add(extra as u64);
    spec.fp32_params = spec.fp32_params.saturating_add(fp32 as u64);
    spec.name = model_type.to_string();
    Ok(spec)
}
