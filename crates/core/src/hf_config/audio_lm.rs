//! Audio language models whose audio encoder is Whisper's: Voxtral
//! (`voxtral`, `VoxtralForConditionalGeneration`), Qwen2-Audio
//! (`qwen2_audio`, `Qwen2AudioForConditionalGeneration`), Audio
//! Flamingo 3 (`audioflamingo3`) and Music Flamingo (`musicflamingo`),
//! transformers 5.24: the language model transformers builds from `text_config`, the
//! encoder (two convolutions over the mel bins, a position table, layers
//! with biased q, v and o but no k bias, fc1/fc2 and two LayerNorms, a
//! final LayerNorm) and a projector. The parameters are exact
//! (`tests/data/params/hf_variants_2026.csv`); their audio inputs are not
//! modelled yet: the encoder's weights ride with the language model.

use serde_json::Map;

use super::reader::Cfg;
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM, MAX_LAYERS, MAX_POSITION};

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
    // Music Flamingo builds Audio Flamingo 3's modules (its rotary time
    // embedding holds buffers only)
    let flamingo = matches!(model_type, "audioflamingo3" | "musicflamingo");
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
    // biases; Audio Flamingo 3: Linear(d → H), Linear(H → H), biased by
    // `projector_bias`; Qwen2-Audio: one biased Linear(d → H)
    let projector = if voxtral {
        f * h + h * h
    } else if flamingo {
        d * h + h * h + 2 * h * u128::from(cfg.flag("projector_bias", true)?)
    } else {
        d * h + h
    };
    let extra = encoder + projector;
    super::vlm::add_extra_params(cfg, &mut spec, extra, "audio_config")?;
    spec.fp32_params = spec.fp32_params.saturating_add(fp32 as u64);
    spec.name = model_type.to_string();
    Ok(spec)
}

/// Speech-recognition LMs (`qwen3_asr`, `Qwen3ASRForConditionalGeneration`;
/// `glmasr`, `GlmAsrForConditionalGeneration`): a base text model (Qwen3;
/// Llama) under a head tied by the wrapper's flag alone (default True),
/// an audio encoder and a projector. Qwen3-ASR's encoder: three stride-2
/// convolutions of `downsample_hidden_size` channels over the mel bins,
/// a linear to its width, sinusoidal positions (no parameters) and fully
/// biased layers; GLM-ASR's: Whisper's two convolutions, rotary positions,
/// grouped key heads, its projector over four merged frames. A `text_config`
/// absent takes the class's text defaults (GLM-ASR's also fill a partial
/// one, as its config class does).
pub(super) fn import_asr(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let qwen = model_type == "qwen3_asr";
    let defaults = if qwen {
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":2048,"intermediate_size":6144,
        "num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128}"#
    } else {
        r#"{"model_type":"llama","vocab_size":59264,"hidden_size":2048,"intermediate_size":6144,
        "num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":4,"head_dim":128}"#
    };
    let map = cfg.object_over_defaults("text_config", defaults, !qwen)?;
    let mut text = Cfg::new(&map, "text_config.");
    text.defaults = super::reader::Defaults::Class(if qwen { "qwen3" } else { "llama" });
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let empty = Map::new();
    let a = cfg.object_or_empty("audio_config", &empty)?;
    let int = |keys: &[&'static str], default: u64, max: u64| -> Result<u128> {
        Ok(u128::from(a.int(keys, 1, max)?.unwrap_or(default)))
    };
    let h = u128::from(spec.hidden);
    let (encoder, projector) = if qwen {
        let d = int(&["d_model", "hidden_size"], 1024, MAX_DIM)?;
        let layers = int(&["encoder_layers", "num_hidden_layers"], 24, MAX_LAYERS)?;
        let f = int(&["encoder_ffn_dim", "intermediate_size"], 4096, MAX_DIM)?;
        let mels = int(&["num_mel_bins"], 128, MAX_DIM)?;
        let c = int(&["downsample_hidden_size"], 480, MAX_DIM)?;
        let out = int(&["output_dim"], 3584, MAX_DIM)?;
        // the mel bins left after three stride-2 convolutions
        let bins = mels.div_ceil(2).div_ceil(2).div_ceil(2);
        let encoder = 10 * c
            + 2 * (9 * c * c + c)
            + c * bins * d
            + layers * (4 * d * d + 2 * d * f + f + 9 * d)
            + 2 * d;
        (encoder, d * d + d + d * out + out)
    } else {
        let d = int(&["hidden_size"], 1280, MAX_DIM)?;
        let inter = int(&["intermediate_size"], 5120, MAX_DIM)?;
        let layers = int(&["num_hidden_layers"], 32, MAX_LAYERS)?;
        let heads = int(&["num_attention_heads"], 20, MAX_DIM)?;
        let kv = int(&["num_key_value_heads"], heads as u64, MAX_DIM)?;
        let mels = int(&["num_mel_bins"], 128, MAX_DIM)?;
        let hd = d / heads.max(1);
        let layer = 2 * d * heads * hd
            + heads * hd
            + 2 * d * kv * hd
            + kv * hd
            + 2 * d * inter
            + inter
            + 6 * d;
        let encoder = 3 * mels * d + d + 3 * d * d + d + layers * layer + 2 * d;
        (encoder, inter * 2 * h + 2 * h + 2 * h * h + h)
    };
    let extra = encoder + projector;
    super::vlm::add_extra_params(cfg, &mut spec, extra, "audio_config")?;
    spec.name = model_type.to_string();
    Ok(spec)
}

/// Granite Speech (`granite_speech`, `GraniteSpeechForConditionalGeneration`):
/// a base Granite model under a head tied by the wrapper's flag alone
/// (default True), a Conformer encoder (`encoder_config`: macaron
/// feed-forwards, attention with Shaw relative positions, a depthwise
/// convolution module, no parameters in its batch statistics) and a
/// windowed Q-Former (`projector_config`: `window_size / downsample_rate`
/// queries, BLIP-2's layers) with a linear to the text width. Its LoRA is
/// loaded by PEFT, not built by the class.
pub(super) fn import_granite_speech(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "granite")?;
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let e = cfg.object_or_empty("encoder_config", &empty)?;
    let ei = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(e.int(&[key], 1, MAX_DIM)?.unwrap_or(default)))
    };
    let (input, hidden, mult) = (
        ei("input_dim", 160)?,
        ei("hidden_dim", 1024)?,
        ei("feedforward_mult", 4)?,
    );
    let layers = u128::from(e.int(&["num_layers"], 1, MAX_LAYERS)?.unwrap_or(10));
    let heads = ei("num_heads", 8)?;
    let dim_head = ei("dim_head", (hidden / heads.max(1)) as u64)?;
    let (out, positions) = (ei("output_dim", 42)?, ei("max_pos_emb", 512)?);
    let (kernel, expansion) = (ei("conv_kernel_size", 15)?, ei("conv_expansion_factor", 2)?);
    let inner = heads * dim_head;
    let conv = hidden * expansion;
    let (hh, f) = (hidden, mult);
    let layer = 2 * (2 * f * hh * hh + f * hh + 3 * hh)
        + (4 * hh * inner + 3 * hh + (2 * positions + 1) * dim_head)
        + (3 * hh * conv + conv * (kernel + 4) + 3 * hh)
        + 2 * hh;
    let encoder = input * hh + hh + layers * layer + hh * out + out + out * hh + hh;
    let q = cfg.object_or_empty("projector_config", &empty)?;
    let qi = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(q.int(&[key], 1, MAX_DIM)?.unwrap_or(default)))
    };
    let (qh, qinter) = (qi("hidden_size", 768)?, qi("intermediate_size", 3072)?);
    let q_layers = u128::from(q.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12));
    let every = qi("cross_attention_frequency", 2)?;
    let encoder_width = qi("encoder_hidden_size", 1408)?;
    // the queries of a window: `window_size // downsample_rate` (15 // 5)
    let queries = u128::from(cfg.int(&["window_size"], 1, MAX_DIM)?.unwrap_or(15))
        / u128::from(cfg.int(&["downsample_rate"], 1, MAX_DIM)?.unwrap_or(5));
    let mlps = if q.flag("use_qformer_text_input", false)? {
        2
    } else {
        1
    };
    let t = u128::from(spec.hidden);
    let projector = queries * qh
        + 2 * qh
        + q_layers * (4 * qh * qh + 6 * qh + mlps * (2 * qh * qinter + qinter + 3 * qh))
        + q_layers.div_ceil(every) * (2 * qh * qh + 2 * encoder_width * qh + 6 * qh)
        + qh * t
        + t;
    let extra = encoder + projector;
    super::vlm::add_extra_params(cfg, &mut spec, extra, "encoder_config")?;
    spec.name = "granite_speech".to_string();
    Ok(spec)
}

/// Voxtral Realtime (`voxtral_realtime`,
/// `VoxtralRealtimeForConditionalGeneration`): a Mistral-like text model
/// whose every layer adds an adaptive RMSNorm's two linears (hidden → 32 →
/// hidden), a causal streaming encoder (Whisper's convolutions, rotary
/// positions, `head_dim`-wide heads with biased q and v, a gated MLP,
/// RMSNorms) and a projector over `downsample_factor` stacked frames; the
/// head tied by the wrapper's flag alone (default True). A partial
/// `text_config` is merged over the class's text defaults.
pub(super) fn import_voxtral_realtime(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut map = cfg.object_over_defaults(
        "text_config",
        r#"{"vocab_size":131072,"hidden_size":3072,"intermediate_size":9216,
        "num_hidden_layers":26,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128}"#,
        true,
    )?;
    // its own text class: Mistral's layers
    map.insert("model_type".into(), "mistral".into());
    let mut text = Cfg::new(&map, "text_config.");
    text.defaults = super::reader::Defaults::Class("mistral");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let h = u128::from(spec.hidden);
    // the adaptive norm of each layer: Linear(h → 32), Linear(32 → h)
    let ada = 64 * h;
    let empty = Map::new();
    let a = cfg.object_or_empty("audio_config", &empty)?;
    let int = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(a.int(&[key], 1, MAX_DIM)?.unwrap_or(default)))
    };
    let (d, f, heads, hd, mels) = (
        int("hidden_size", 1280)?,
        int("intermediate_size", 5120)?,
        int("num_attention_heads", 32)?,
        int("head_dim", 64)?,
        int("num_mel_bins", 128)?,
    );
    let layers = u128::from(a.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(32));
    let encoder = (3 * mels * d + d)
        + (3 * d * d + d)
        + layers * (4 * d * heads * hd + 2 * heads * hd + 3 * d * f + 4 * d)
        + d;
    let stacked = u128::from(cfg.int(&["downsample_factor"], 1, 64)?.unwrap_or(4));
    let projector = d * stacked * h + h * h;
    let layers_text = u128::from(spec.layers);
    let extra = encoder + projector + ada * layers_text;
    super::vlm::add_extra_params(cfg, &mut spec, extra, "audio_config")?;
    spec.name = "voxtral_realtime".to_string();
    Ok(spec)
}
