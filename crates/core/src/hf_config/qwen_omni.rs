//! Qwen2.5-Omni (`qwen2_5_omni`) and Qwen3-Omni-MoE (`qwen3_omni_moe`), and
//! their thinkers alone (`*_thinker`): the thinker is a Qwen2 (Qwen3-MoE)
//! decoder with Qwen2.5-VL's (Qwen3-VL's) vision tower and a Whisper-like
//! audio encoder; the whole model adds, when `enable_audio_output` (the
//! default), the talker that speaks (a decoder over codec tokens) and the
//! vocoder (Qwen2.5's `token2wav`, a DiT and a BigVGAN, which
//! `enable_talker()` casts to fp32; Qwen3's `code2wav`). Every count below
//! follows `modeling_qwen2_5_omni.py` / `modeling_qwen3_omni_moe.py`
//! (transformers 5.24) and equals `sum(p.numel())` on the meta device
//! (`tests/data/params/hf_omni.csv`). The audio tower's parameters join
//! the vision tower's; the talker and the vocoder are parameters outside
//! the layers (`model_extra_params`). Audio inputs are not modelled.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{narrow, qwen2_5_vision, qwen3_vision};
use crate::error::{InputError, Result};
use crate::model::{Arch, ModelSpec, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS};

type Import = fn(&Cfg, Arch, &str) -> Result<ModelSpec>;

/// The model of an Omni config: the thinker, plus the talker and the
/// vocoder for the top-level types when `enable_audio_output` is on.
pub(super) fn import_omni(
    cfg: &Cfg,
    model_type: &str,
    import_decoder: Import,
) -> Result<ModelSpec> {
    let qwen3 = model_type.starts_with("qwen3");
    let family = if qwen3 {
        "qwen3_omni_moe"
    } else {
        "qwen2_5_omni"
    };
    let empty = Map::new();
    let thinker_only = model_type.ends_with("_thinker");
    let mut thinker = if thinker_only {
        Cfg::new(cfg.obj, &cfg.prefix)
    } else {
        cfg.object_or_empty("thinker_config", &empty)?
    };
    thinker.defaults = Defaults::Class(if qwen3 {
        "qwen3_omni_moe_thinker"
    } else {
        "qwen2_5_omni_thinker"
    });
    let sub = |key: &str, class: &'static str| -> Result<Cfg> {
        let mut c = thinker.object_or_empty(key, &empty)?;
        c.defaults = Defaults::Class(class);
        Ok(c)
    };
    let (text_class, arch) = if qwen3 {
        ("qwen3_omni_moe_text", Arch::Qwen3Moe)
    } else {
        ("qwen2_5_omni_text", Arch::Qwen2)
    };
    let text = sub("text_config", text_class)?;
    let mut spec = import_decoder(&text, arch, text_class)?;
    // the thinker's flag ties its lm_head; the text config's is not read
    spec.tied_embeddings = thinker.flag("tie_word_embeddings", false)?;
    let audio_cfg;
    let mut tower = if qwen3 {
        let v = sub("vision_config", "qwen3_omni_moe_vision_encoder")?;
        let deepstack = v
            .ints("deepstack_visual_indexes", 0, MAX_LAYERS)?
            .map_or(3, |l| l.len() as u128);
        audio_cfg = sub("audio_config", "qwen3_omni_moe_audio_encoder")?;
        qwen3_vision(&v, deepstack)?
    } else {
        let v = sub("vision_config", "qwen2_5_omni_vision_encoder")?;
        audio_cfg = sub("audio_config", "qwen2_5_omni_audio_encoder")?;
        let (mut tower, merger) = qwen2_5_vision(&v, None)?;
        tower.projector_params = merger;
        tower
    };
    let audio = audio_tower(&audio_cfg, qwen3)?;
    let vision = u128::from(tower.params.unwrap_or(0));
    tower.params = Some(narrow(vision + audio, "thinker_config.audio_config")?);
    spec.vision = Some(tower);
    spec.name = model_type.to_string();
    if !thinker_only && cfg.flag("enable_audio_output", true)? {
        let (speech, fp32) = if qwen3 {
            (qwen3_talker(cfg, &empty)? + code2wav(cfg, &empty)?, 0)
        } else {
            let wav = token2wav(cfg, &empty)?;
            (qwen2_5_talker(cfg, &empty)? + wav, wav)
        };
        spec.model_extra_params = narrow(u128::from(spec.model_extra_params) + speech, family)?;
        // `enable_talker()` casts token2wav to fp32, whatever the load dtype
        spec.fp32_params = narrow(u128::from(spec.fp32_params) + fp32, family)?;
    }
    Ok(spec)
}

fn get(c: &Cfg, key: &'static str, default: u64) -> Result<u128> {
    Ok(u128::from(c.int(&[key], 0, MAX_DIM)?.unwrap_or(default)))
}

fn list(c: &Cfg, key: &str, default: &[u64]) -> Result<Vec<u128>> {
    Ok(c.ints(key, 0, MAX_DIM)?
        .unwrap_or_else(|| default.to_vec())
        .into_iter()
        .map(u128::from)
        .collect())
}

fn conv1d(cin: u128, cout: u128, k: u128) -> u128 {
    cin * cout * k + cout
}

/// The audio encoder: Qwen2.5's two Conv1d (mel → d, k3; d → d, k3 s2), the
/// bos/eos embedding (2 × output), Whisper layers (k_proj unbiased), a
/// LayerNorm and the projection; Qwen3's three Conv2d (3×3, stride 2) and
/// their projection to d, the layers, a LayerNorm and two projections.
fn audio_tower(a: &Cfg, qwen3: bool) -> Result<u128> {
    let d = get(a, "d_model", 1280)?;
    let f = get(a, "encoder_ffn_dim", 5120)?;
    let layers = get(a, "encoder_layers", 32)?;
    let mel = get(a, "num_mel_bins", 128)?;
    let out = get(a, "output_dim", 3584)?;
    let norms = 2 * 2 * d;
    if qwen3 {
        let dh = get(a, "downsample_hidden_size", 480)?;
        // the mel axis after three stride-2 convolutions
        let freq = mel.div_ceil(2).div_ceil(2).div_ceil(2);
        let convs = (9 * dh + dh) + 2 * (9 * dh * dh + dh) + dh * freq * d;
        let layer = 4 * (d * d + d) + norms + (d * f + f) + (f * d + d);
        Ok(convs + layers * layer + 2 * d + (d * d + d) + (d * out + out))
    } else {
        let convs = conv1d(mel, d, 3) + conv1d(d, d, 3);
        let layer = 3 * (d * d + d) + d * d + norms + (d * f + f) + (f * d + d);
        Ok(convs + 2 * out + layers * layer + 2 * d + (d * out + out))
    }
}

/// A decoder layer's attention: q/k/v/o, biases where asked, and Qwen3's
/// q/k norms (`qk_norm`).
fn attention(h: u128, heads: u128, kv: u128, hd: u128, bias: (bool, bool), qk_norm: bool) -> u128 {
    let (qkv_bias, o_bias) = (u128::from(bias.0), u128::from(bias.1));
    h * heads * hd
        + 2 * h * kv * hd
        + heads * hd * h
        + qkv_bias * (heads * hd + 2 * kv * hd)
        + o_bias * h
        + u128::from(qk_norm) * 2 * hd
}

/// (hidden, heads, kv heads, head_dim: the key, else hidden ÷ heads).
fn dims(c: &Cfg, hidden: u64, heads: u64, kv: u64) -> Result<(u128, u128, u128, u128)> {
    let h = c.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(hidden);
    let nh = c
        .int(&["num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(heads);
    let nkv = c.int(&["num_key_value_heads"], 1, MAX_HEADS)?.unwrap_or(kv);
    let hd = c.int(&["head_dim"], 1, MAX_DIM)?.unwrap_or(h / nh);
    Ok((h.into(), nh.into(), nkv.into(), hd.into()))
}

/// Qwen2.5-Omni's talker: `thinker_to_talker_proj`, codec embeddings of
/// `embedding_size` width, Qwen2 layers, a norm and the codec head.
fn qwen2_5_talker(cfg: &Cfg, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let mut t = cfg.object_or_empty("talker_config", empty)?;
    t.defaults = Defaults::Class("qwen2_5_omni_talker");
    let (h, nh, nkv, hd) = dims(&t, 3584, 28, 4)?;
    let e = get(&t, "embedding_size", 3584)?;
    let v = get(&t, "vocab_size", 8448)?;
    let i = get(&t, "intermediate_size", 18944)?;
    let layers = u128::from(t.int(&["num_hidden_layers"], 0, MAX_LAYERS)?.unwrap_or(28));
    let layer = attention(h, nh, nkv, hd, (true, false), false) + 3 * h * i + 2 * h;
    Ok((e * h + h) + v * e + layers * layer + h + h * v)
}

/// Qwen2.5-Omni's `token2wav`: the DiT (with its ECAPA speaker encoder)
/// and the BigVGAN vocoder, at their config classes' defaults where absent.
fn token2wav(cfg: &Cfg, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let w = cfg.object_or_empty("token2wav_config", empty)?;
    let mut d = w.object_or_empty("dit_config", empty)?;
    d.defaults = Defaults::Class("qwen2_5_omni_dit");
    let mut b = w.object_or_empty("bigvgan_config", empty)?;
    b.defaults = Defaults::Class("qwen2_5_omni_bigvgan");
    Ok(dit(&d)? + bigvgan(&b)?)
}

fn dit(d: &Cfg) -> Result<u128> {
    let h = get(d, "hidden_size", 1024)?;
    let layers = get(d, "num_hidden_layers", 22)?;
    let inner = get(d, "head_dim", 64)? * get(d, "num_attention_heads", 16)?;
    let ff = match d.float("ff_mult", 0.0, 1e3)? {
        Some(m) => (h as f64 * m) as u128,
        None => 2 * h,
    };
    let mel = get(d, "mel_dim", 80)?;
    let emb = get(d, "emb_dim", 512)?;
    let enc_dim = get(d, "enc_dim", 128)?;
    let mut n = (256 * h + h) + (h * h + h); // time embedding MLP (256 frequencies)
    n += (get(d, "num_embeds", 8193)? + 1) * emb; // codec embedding
    n += (mel + enc_dim + get(d, "enc_emb_dim", 192)? + emb) * h + h + ecapa(d, mel, enc_dim)?;
    let layer = (h * 6 * h + 6 * h)
        + 3 * (h * inner + inner)
        + (inner * h + h)
        + (h * ff + ff)
        + (ff * h + h);
    n += layers * layer + (h * 2 * h + 2 * h) + (h * mel + mel); // norm_out, proj_out
    Ok(n)
}

/// The DiT's ECAPA-TDNN speaker encoder.
fn ecapa(d: &Cfg, mel: u128, enc_dim: u128) -> Result<u128> {
    let channels = list(d, "enc_channels", &[256, 256, 256, 256, 768])?;
    let kernels = list(d, "enc_kernel_sizes", &[5, 3, 3, 3, 1])?;
    let (Some(&first), Some(&last)) = (channels.first(), channels.last()) else {
        return Err(InputError::new(d.field("enc_channels"), "lists no channel"));
    };
    if kernels.len() != channels.len() {
        return Err(InputError::new(
            d.field("enc_kernel_sizes"),
            format!(
                "lists {} kernels for {} channels",
                kernels.len(),
                channels.len()
            ),
        ));
    }
    let scale = get(d, "enc_res2net_scale", 2)?.max(1);
    let se = get(d, "enc_se_channels", 64)?;
    let att = get(d, "enc_attention_channels", 64)?;
    let mut n = conv1d(mel, first, kernels[0]);
    for i in 1..channels.len().saturating_sub(1) {
        let (cin, c) = (channels[i - 1], channels[i]);
        n += conv1d(cin, c, 1)
            + (scale - 1) * conv1d(c / scale, c / scale, kernels[i])
            + conv1d(c, c, 1)
            + conv1d(c, se, 1)
            + conv1d(se, c, 1);
    }
    n += conv1d(last, last, kernels[kernels.len() - 1]); // multi-layer aggregation
    n += conv1d(3 * last, att, 1) + conv1d(att, last, 1); // attentive statistics pooling
    Ok(n + conv1d(2 * last, enc_dim, 1))
}

fn bigvgan(b: &Cfg) -> Result<u128> {
    let u = get(b, "upsample_initial_channel", 1536)?;
    let rates = list(b, "upsample_rates", &[5, 3, 2, 2, 2, 2])?;
    let kernels = list(b, "upsample_kernel_sizes", &[11, 7, 4, 4, 4, 4])?;
    let resblocks = list(b, "resblock_kernel_sizes", &[3, 7, 11])?;
    let mut n = conv1d(get(b, "mel_dim", 80)?, u, 7);
    let mut c = u;
    for k in kernels.iter().take(rates.len()) {
        let cin = c;
        c /= 2;
        n += cin * c * k + c; // ConvTranspose1d
                              // AMPBlock: 6 convolutions and 6 SnakeBeta (alpha, beta)
        n += resblocks
            .iter()
            .map(|ks| 6 * conv1d(c, c, *ks) + 12 * c)
            .sum::<u128>();
    }
    Ok(n + 2 * c + 7 * c) // the last SnakeBeta, conv_post without bias
}

/// Qwen3-Omni's talker: the two projections from the thinker, MoE layers
/// each with a shared expert and its gate, the codec embedding and head,
/// and the code predictor's dense layers with its `num_code_groups − 1`
/// embeddings and heads.
fn qwen3_talker(cfg: &Cfg, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let k = cfg.object_or_empty("talker_config", empty)?;
    let mut t = k.object_or_empty("text_config", empty)?;
    t.defaults = Defaults::Class("qwen3_omni_moe_talker_text");
    let (h, nh, nkv, hd) = dims(&t, 1024, 16, 2)?;
    let i = get(&t, "intermediate_size", 2048)?;
    let mi = get(&t, "moe_intermediate_size", 384)?;
    let si = get(&t, "shared_expert_intermediate_size", 0)?;
    let experts = u128::from(
        t.int(&["num_experts", "num_local_experts"], 0, MAX_EXPERTS)?
            .unwrap_or(128),
    );
    let v = get(&t, "vocab_size", 3072)?;
    let layers = get(&t, "num_hidden_layers", 20)?;
    // `Qwen3OmniMoeTalkerConfig`'s own defaults (not in CONFIG_MAPPING)
    let th = get(&k, "thinker_hidden_size", 2048)?;
    let bias = t.flag("attention_bias", false)?;
    let layer = attention(h, nh, nkv, hd, (bias, bias), true)
        + 2 * h
        + experts * h
        + 3 * experts * h * mi
        + 3 * h * si
        + h;
    let resize = th * i + i + i * h + h;
    let codec_head = if k.flag("tie_word_embeddings", false)? {
        0
    } else {
        h * v
    };
    let mut cp = k.object_or_empty("code_predictor_config", empty)?;
    cp.defaults = Defaults::Class("qwen3_omni_moe_talker_code_predictor");
    let (hc, nhc, nkvc, hdc) = dims(&cp, 1024, 16, 8)?;
    let groups = get(&cp, "num_code_groups", 32)?.max(1);
    let cp_bias = cp.flag("attention_bias", false)?;
    let cp_layer = attention(hc, nhc, nkvc, hdc, (cp_bias, cp_bias), true)
        + 3 * hc * get(&cp, "intermediate_size", 3072)?
        + 2 * hc;
    let predictor = get(&cp, "num_hidden_layers", 5)? * cp_layer
        + hc
        + 2 * (groups - 1) * get(&cp, "vocab_size", 2048)? * hc;
    Ok(2 * resize + layers * layer + h + v * h + codec_head + predictor)
}

/// Qwen3-Omni's `code2wav`: transformer layers with layer scales, the
/// codebook embedding, ConvNeXt upsampling and the decoder's blocks.
/// `Qwen3OmniMoeCode2WavConfig`'s defaults (not in CONFIG_MAPPING).
fn code2wav(cfg: &Cfg, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let c = cfg.object_or_empty("code2wav_config", empty)?;
    let (h, nh, nkv, hd) = dims(&c, 1024, 16, 16)?;
    let bias = c.flag("attention_bias", false)?;
    let attn = attention(h, nh, nkv, hd, (bias, bias), false);
    let mut n = get(&c, "num_hidden_layers", 8)?
        * (attn + 3 * h * get(&c, "intermediate_size", 3072)? + 4 * h)
        + h;
    n += get(&c, "codebook_size", 2048)? * get(&c, "num_quantizers", 16)? * h;
    for f in list(&c, "upsampling_ratios", &[2, 2])? {
        n += (h * h * f + h) + (h * 7 + h) + 2 * h + (h * 4 * h + 4 * h) + (4 * h * h + h) + h;
    }
    let dec = get(&c, "decoder_dim", 1536)?;
    n += h * dec * 7 + dec;
    let mut ch = dec;
    for r in list(&c, "upsample_rates", &[8, 5, 4, 3])? {
        let (ci, co) = (ch, ch / 2);
        n += 2 * ci + (ci * co * 2 * r + co);
        n += 3 * (2 * co + (co * co * 7 + co) + 2 * co + (co * co + co));
        ch = co;
    }
    Ok(n + 2 * ch + (ch * 7 + 1))
}
