//! Apertus 1.5 (`apertus1p5`, `Apertus1p5ForConditionalGeneration`):
//! the Apertus 1.5 language model (`apertus1p5_text`, read as Apertus),
//! and two discrete tokenizers whose codes the language model reads as
//! ordinary vocabulary ids (`image_token_offset + code`,
//! `audio_token_offset + code`): no projector. Counts name the modules of
//! `modeling_apertus1p5.py` and `modeling_wavtokenizer.py` (transformers
//! 5.24); the configs are in `tests/data/params/variants_2026b.py`, their
//! counts in `hf_variants_2026.csv`.
//!
//! - The vision tokenizer (`Apertus1p5VisionTokenizerModel`): EMU3.5's
//!   VQGAN encoder, `quant_conv` and the IBQ codebook, an
//!   `nn.Linear(embed_dim, codebook_size)` scored by argmax.
//! - The audio tokenizer (`WavTokenizerEncoderModel`): the SEANet encoder
//!   and its LSTM; the quantizer's codebook is buffers, not parameters.
//!
//! Both tokenizers are folded into the tower's count
//! (`VisionTower::params`, as Gemma 4 folds its audio tower); the shape
//! beside it (the last stage's width, the ResNet blocks as layers, a code
//! per `2^(stages-1)` px square) only names the tokenizer: its
//! activations are not modelled (measured on CPU: about 4 B ·
//! `base_channels` · (1 + 3 · `channel_multiplier[0]`) per pixel at its
//! no_grad peak, 8 GB for a 1.96 MP image in fp32).
//!
//! Not counted: `_keep_in_fp32_modules_strict` keeps both tokenizers in
//! fp32 whatever the model's dtype (0.87 GB of weights at the class
//! defaults instead of 0.45 GB in bf16), and the weights are charged at
//! one dtype for the whole model; the audio codebook's fp32 buffers
//! (`inited`, `cluster_size`, `embed`, `embed_avg`: 4 · (1 + K + 2·K·H)
//! bytes, 16.8 MB at the defaults) are not parameters.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{Arch, ModelSpec, VisionTower, MAX_DIM, MAX_IMAGE_SIZE, MAX_POSITION};

/// `Apertus1p5Config`'s offsets of the visual and audio code ranges.
const IMAGE_TOKEN_OFFSET: u64 = 131_272;
const AUDIO_TOKEN_OFFSET: u64 = 262_344;
/// The square an estimate assumes when the scenario gives no size: the
/// processor takes any size (16,384 to 1,960,000 px); 448 px is 28 × 28
/// codes.
const DEFAULT_IMAGE: u64 = 448;

/// The wrapper: `text_config` (an absent type read as
/// `Apertus1p5TextConfig`), the head tied by the wrapper's flag alone,
/// both tokenizers, and the code ranges `validate_architecture` checks.
pub(super) fn import(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "apertus1p5_text")?;
    let mut spec = import_text(&text)?;
    tie_head(cfg, &text, &mut spec)?;
    let (empty_vision, empty_audio) = (Map::new(), Map::new());
    let mut v = cfg.object_or_empty("vision_config", &empty_vision)?;
    v.defaults = Defaults::Class("apertus1p5_vision_tokenizer");
    let mut a = cfg.object_or_empty("audio_config", &empty_audio)?;
    a.defaults = Defaults::Class("wavtokenizer_encoder");
    let vqgan = Vqgan::read(&v)?;
    let wav = WavEncoder::read(&a)?;
    let vocab = text.int(&["vocab_size"], 1, MAX_DIM)?.unwrap_or(spec.vocab);
    code_ranges(cfg, vqgan.codebook, wav.codebook, vocab)?;
    spec.vision = Some(counted(vqgan.shape(), vqgan.params() + wav.params(), 0)?);
    // `_keep_in_fp32_modules_strict`: both tokenizers stay fp32
    spec.fp32_params = spec.vision.as_ref().and_then(|v| v.params).unwrap_or(0);
    spec.name = "apertus1p5".to_string();
    Ok(spec)
}

/// `_tied_weights_keys` ties the head to the embedding by the wrapper's
/// `tie_word_embeddings` (default False); the text config's is not read.
/// Untied, the head has `output_vocab_size` rows (the text model's rule,
/// redone under the wrapper's flag); tied, it is the whole embedding.
fn tie_head(cfg: &Cfg, text: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    if spec.arch == Arch::Apertus {
        spec.vocab = spec.vocab.saturating_add(spec.type_vocab);
        spec.type_vocab = 0;
        super::modern::output_vocab(text, spec)?;
    }
    Ok(())
}

/// `Apertus1p5Config.validate_architecture`: the visual codes end where
/// the audio codes begin, and the audio codes end within the vocabulary.
fn code_ranges(cfg: &Cfg, image_codes: u64, audio_codes: u64, vocab: u64) -> Result<()> {
    let image = cfg
        .int(&["image_token_offset"], 0, MAX_DIM)?
        .unwrap_or(IMAGE_TOKEN_OFFSET);
    let audio = cfg
        .int(&["audio_token_offset"], 0, MAX_DIM)?
        .unwrap_or(AUDIO_TOKEN_OFFSET);
    if image + image_codes != audio {
        return Err(InputError::new(
            cfg.field("image_token_offset"),
            format!(
                "{image} + vision_config.codebook_size ({image_codes}) must equal \
                 audio_token_offset ({audio}): the visual codes end where the audio codes begin"
            ),
        ));
    }
    if audio + audio_codes > vocab {
        return Err(InputError::new(
            cfg.field("audio_token_offset"),
            format!(
                "{audio} + audio_config.codebook_size ({audio_codes}) passes \
                 text_config.vocab_size ({vocab}): allowed up to {}",
                vocab.saturating_sub(audio_codes)
            ),
        ));
    }
    Ok(())
}

/// A 3×3 convolution with bias, `a` → `b` channels.
fn conv3(a: u128, b: u128) -> u128 {
    9 * a * b + b
}

/// A 1×1 convolution with bias.
fn conv1(a: u128, b: u128) -> u128 {
    a * b + b
}

/// `Apertus1p5VisionTokenizerResnetBlock`: GroupNorm, 3×3 conv, GroupNorm,
/// 3×3 conv, and a 1×1 `nin_shortcut` when the width changes.
fn resnet(a: u128, b: u128) -> u128 {
    let shortcut = if a == b { 0 } else { conv1(a, b) };
    2 * a + conv3(a, b) + 2 * b + conv3(b, b) + shortcut
}

/// `Apertus1p5VisionTokenizerAttnBlock`: GroupNorm and the 1×1 q, k, v,
/// proj_out.
fn attention(c: u128) -> u128 {
    2 * c + 4 * conv1(c, c)
}

/// `Apertus1p5VisionTokenizerConfig`'s fields (class defaults: 3 input
/// channels, 256 base channels over (1, 1, 2, 2, 4), 4 blocks a stage,
/// attention at 16 of a 256 px reference, 256 latent and code channels,
/// 131,072 codes).
struct Vqgan {
    in_channels: u64,
    base: u64,
    multipliers: Vec<u64>,
    blocks: u64,
    attn_resolutions: Vec<u64>,
    resolution: u64,
    latent: u64,
    embed: u64,
    codebook: u64,
}

impl Vqgan {
    fn read(v: &Cfg) -> Result<Vqgan> {
        let base = v.req(&["base_channels"], 32, MAX_DIM)?;
        // every GroupNorm has 32 groups: every width a multiple of 32
        if !base.is_multiple_of(32) {
            return Err(InputError::new(
                v.field("base_channels"),
                format!("{base} is not a multiple of 32: the encoder's GroupNorms have 32 groups"),
            ));
        }
        let multipliers = v
            .ints("channel_multiplier", 1, 1024)?
            .unwrap_or_else(|| vec![1, 1, 2, 2, 4]);
        if multipliers.is_empty() || multipliers.len() > 16 {
            return Err(InputError::new(
                v.field("channel_multiplier"),
                format!(
                    "lists {} stages: allowed 1 to 16 (a code per 2^(stages-1) px square)",
                    multipliers.len()
                ),
            ));
        }
        if let Some(m) = multipliers.iter().find(|m| base * **m > MAX_DIM) {
            return Err(InputError::new(
                v.field("channel_multiplier"),
                format!("{m} × base_channels ({base}) passes {MAX_DIM} channels"),
            ));
        }
        let attn_resolutions = v
            .ints("attn_resolutions", 0, MAX_POSITION)?
            .unwrap_or_else(|| vec![16]);
        Ok(Vqgan {
            in_channels: v.req(&["in_channels"], 1, 1024)?,
            base,
            multipliers,
            blocks: v.req(&["num_res_blocks"], 0, 64)?,
            attn_resolutions,
            resolution: v.req(&["resolution"], 1, MAX_POSITION)?,
            latent: v.req(&["latent_channels"], 1, MAX_DIM)?,
            embed: v.req(&["embed_dim"], 1, MAX_DIM)?,
            codebook: v.req(&["codebook_size"], 1, MAX_DIM)?,
        })
    }

    /// `Apertus1p5VisionTokenizerModel`'s parameters (it has no buffers).
    /// Stage i (width c = base·m[i], after c' = base·m[i-1], base for the
    /// first): `num_res_blocks` ResNet blocks (c' → c, then c → c; none
    /// at 0, which transformers builds too), each followed by attention
    /// when `resolution // 2^i` is in `attn_resolutions`, and a stride-2
    /// 3×3 downsample but in the last.
    /// Then the middle (two blocks around attention), `norm_out`,
    /// `conv_out` to the latent, the 1×1 `quant_conv` and the codebook.
    fn params(&self) -> u128 {
        let (base, blocks) = (u128::from(self.base), u128::from(self.blocks));
        let mut total = conv3(u128::from(self.in_channels), base);
        let mut previous = base;
        let last = self.multipliers.len() - 1;
        for (i, m) in self.multipliers.iter().enumerate() {
            let c = base * u128::from(*m);
            if blocks > 0 {
                total += resnet(previous, c) + (blocks - 1) * resnet(c, c);
            }
            if self.attn_resolutions.contains(&(self.resolution >> i)) {
                total += blocks * attention(c);
            }
            if i < last {
                total += conv3(c, c);
            }
            previous = c;
        }
        let (latent, embed) = (u128::from(self.latent), u128::from(self.embed));
        total += 2 * resnet(previous, previous) + attention(previous) + 2 * previous;
        total += conv3(previous, latent) + conv1(latent, embed);
        total + embed * u128::from(self.codebook)
    }

    /// The shape the spec keeps beside the count: the last stage's width,
    /// the ResNet blocks (the middle's two included) as layers, one head,
    /// a code per `2^(stages-1)` px square.
    fn shape(&self) -> VisionTower {
        let width = self.base * self.multipliers[self.multipliers.len() - 1];
        let stages = self.multipliers.len() as u64;
        let factor = 1 << (stages - 1);
        tower_shape(
            width,
            stages * self.blocks + 2,
            1,
            width,
            DEFAULT_IMAGE.max(factor).min(MAX_IMAGE_SIZE),
            factor,
        )
    }
}

/// `WavTokenizerEncoderConfig`'s fields the encoder reads (class
/// defaults: 32 filters, ratios (6, 5, 5, 4), one residual layer, compress
/// 2, a conv shortcut, weight norm, kernels 7 / 7 / 3, a 2-layer LSTM,
/// 512 wide, 4,096 codes). The decoder's fields are not read.
struct WavEncoder {
    channels: u64,
    filters: u64,
    ratios: Vec<u64>,
    residual_layers: u64,
    compress: u64,
    shortcut: bool,
    /// Parameters per output channel beside the weight: 2 under weight
    /// norm (`original0` g and the bias), 3 under time group norm (the
    /// bias and `GroupNorm(1, o)`'s weight and bias).
    per_channel: u64,
    kernel: u64,
    last_kernel: u64,
    residual_kernel: u64,
    lstm_layers: u64,
    hidden: u64,
    codebook: u64,
}

impl WavEncoder {
    fn read(a: &Cfg) -> Result<WavEncoder> {
        if let Some(t) = a.string("model_type")? {
            if t != "wavtokenizer_encoder" {
                return Err(InputError::new(
                    a.field("model_type"),
                    format!("\"{t}\" is not supported: Apertus 1.5's audio tokens come from \"wavtokenizer_encoder\""),
                ));
            }
        }
        let per_channel = match a.string("norm_type")?.unwrap_or("weight_norm") {
            "weight_norm" => 2,
            "time_group_norm" => 3,
            other => {
                return Err(InputError::new(
                    a.field("norm_type"),
                    format!("\"{other}\" is not a norm WavTokenizer builds: allowed \"weight_norm\", \"time_group_norm\""),
                ))
            }
        };
        let filters = a.req(&["num_filters"], 1, MAX_DIM)?;
        let ratios = a
            .ints("upsampling_ratios", 1, 4096)?
            .unwrap_or_else(|| vec![6, 5, 5, 4]);
        // the width doubles at every ratio: `num_filters · 2^len` at the LSTM
        let widest = u32::try_from(ratios.len())
            .ok()
            .and_then(|n| filters.checked_mul(2u64.checked_pow(n)?))
            .filter(|w| *w <= MAX_DIM);
        if widest.is_none() {
            return Err(InputError::new(
                a.field("upsampling_ratios"),
                format!(
                    "{} ratios double num_filters ({filters}) past {MAX_DIM} channels",
                    ratios.len()
                ),
            ));
        }
        let hidden = a.req(&["hidden_size"], 1, MAX_DIM)?;
        let codebook_dim = a.int(&["codebook_dim"], 1, MAX_DIM)?.unwrap_or(hidden);
        if codebook_dim != hidden {
            return Err(InputError::new(
                a.field("codebook_dim"),
                format!("must equal hidden_size ({hidden}): WavTokenizer has no projection around its quantizer, got {codebook_dim}"),
            ));
        }
        Ok(WavEncoder {
            channels: a.req(&["audio_channels"], 1, 1024)?,
            filters,
            ratios,
            residual_layers: a.req(&["num_residual_layers"], 0, 64)?,
            // `dim // compress` channels inside each residual block
            compress: a.req(&["compress"], 1, filters)?,
            shortcut: a.flag("use_conv_shortcut", true)?,
            per_channel,
            kernel: a.req(&["kernel_size"], 1, 4096)?,
            last_kernel: a.req(&["last_kernel_size"], 1, 4096)?,
            residual_kernel: a.req(&["residual_kernel_size"], 1, 4096)?,
            lstm_layers: a.req(&["num_lstm_layers"], 1, 64)?,
            hidden,
            codebook: a.req(&["codebook_size"], 1, MAX_DIM)?,
        })
    }

    /// `WavTokenizerEncoder`'s parameters: a normalized convolution
    /// (`WavTokenizerConv1d`: i·o·k + 2 or 3 per output channel) in, then
    /// per ratio (reversed; width d = filters·2^j) `num_residual_layers`
    /// SEANet blocks (d → d // compress at `residual_kernel_size`, back to
    /// d at 1, a 1×1 shortcut when `use_conv_shortcut`) and a stride-ratio
    /// convolution d → 2d of kernel 2·ratio; the LSTM at D = filters·2^len
    /// (8·D² + 8·D a layer) and a convolution D → `hidden_size`.
    fn params(&self) -> u128 {
        let e = u128::from(self.per_channel);
        let conv = |i: u128, o: u128, k: u64| i * o * u128::from(k) + e * o;
        let mut d = u128::from(self.filters);
        let mut total = conv(u128::from(self.channels), d, self.kernel);
        let layers = u128::from(self.residual_layers);
        for ratio in self.ratios.iter().rev() {
            let inner = d / u128::from(self.compress);
            let shortcut = if self.shortcut { conv(d, d, 1) } else { 0 };
            total += layers * (conv(d, inner, self.residual_kernel) + conv(inner, d, 1) + shortcut);
            total += conv(d, 2 * d, 2 * ratio);
            d *= 2;
        }
        total += u128::from(self.lstm_layers) * (8 * d * d + 8 * d);
        total + conv(d, u128::from(self.hidden), self.last_kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn vision(v: Value) -> u128 {
        let o = obj(v);
        let mut cfg = Cfg::new(&o, "vision_config.");
        cfg.defaults = Defaults::Class("apertus1p5_vision_tokenizer");
        Vqgan::read(&cfg).expect("reads").params()
    }

    fn audio(v: Value) -> Result<u128> {
        let o = obj(v);
        let mut cfg = Cfg::new(&o, "audio_config.");
        cfg.defaults = Defaults::Class("wavtokenizer_encoder");
        Ok(WavEncoder::read(&cfg)?.params())
    }

    /// `num_parameters()` of `model.vision_tokenizer` and
    /// `model.audio_tokenizer`, transformers 5.24 on the meta device.
    #[test]
    fn the_tokenizers_count_as_transformers_builds_them() {
        assert_eq!(vision(json!({})), 218_153_984);
        assert_eq!(audio(json!({})).ok(), Some(8_303_104));
        let v1 = json!({"base_channels": 64, "channel_multiplier": [1, 2, 4], "num_res_blocks": 2,
            "attn_resolutions": [64], "resolution": 256, "codebook_size": 1024, "embed_dim": 32,
            "latent_channels": 64});
        assert_eq!(vision(v1), 6_296_864);
        let a1 = json!({"num_filters": 16, "upsampling_ratios": [4, 2], "num_residual_layers": 2,
            "compress": 4, "use_conv_shortcut": false, "num_lstm_layers": 1, "hidden_size": 128,
            "codebook_dim": 128, "codebook_size": 512});
        assert_eq!(audio(a1).ok(), Some(112_448));
        let v2 = json!({"base_channels": 32, "channel_multiplier": [1, 1, 2, 4], "num_res_blocks": 3,
            "attn_resolutions": [128, 32], "resolution": 256, "codebook_size": 2048, "embed_dim": 16,
            "latent_channels": 96, "in_channels": 1});
        assert_eq!(vision(v2), 2_209_648);
        let a2 = json!({"num_filters": 8, "upsampling_ratios": [5, 3, 2], "num_residual_layers": 1,
            "compress": 2, "norm_type": "time_group_norm", "kernel_size": 5, "last_kernel_size": 3,
            "residual_kernel_size": 5, "num_lstm_layers": 3, "hidden_size": 64, "codebook_dim": 64,
            "codebook_size": 1024});
        assert_eq!(audio(a2).ok(), Some(142_580));
        let v3 = json!({"base_channels": 32, "channel_multiplier": [1, 2, 2, 4, 4], "num_res_blocks": 1,
            "attn_resolutions": [16], "resolution": 512, "codebook_size": 512, "embed_dim": 64,
            "latent_channels": 64});
        assert_eq!(vision(v3), 1_676_512);
        let a3 = json!({"num_filters": 32, "upsampling_ratios": [8, 8], "num_residual_layers": 3,
            "compress": 2, "hidden_size": 256, "codebook_dim": 256, "codebook_size": 256});
        assert_eq!(audio(a3).ok(), Some(706_112));
        // no ResNet blocks in the stages, no residual layers in the audio
        let v4 = json!({"base_channels": 32, "channel_multiplier": [1, 2, 4], "num_res_blocks": 0,
            "attn_resolutions": [256], "codebook_size": 1024, "embed_dim": 8, "latent_channels": 32});
        assert_eq!(vision(v4), 750_344);
        let a4 = json!({"num_filters": 8, "upsampling_ratios": [2], "num_residual_layers": 0,
            "hidden_size": 32, "codebook_dim": 32, "codebook_size": 512});
        assert_eq!(audio(a4).ok(), Some(8616));
    }

    #[test]
    fn widths_past_the_limit_are_refused_by_name() {
        let e =
            audio(json!({"num_filters": 1 << 20, "upsampling_ratios": vec![2; 16]})).unwrap_err();
        assert!(e.field.ends_with("audio_config.upsampling_ratios"), "{e}");
        let e = audio(json!({"compress": 64})).unwrap_err();
        assert!(e.field.ends_with("audio_config.compress"), "{e}");
    }
}
