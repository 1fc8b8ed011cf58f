//! Gemma 3n (`gemma3n_text`, and the `gemma3n` wrapper with its timm
//! MobileNet-V5 vision tower and its conformer audio tower), as
//! `configuration_gemma3n.py` and `modeling_gemma3n.py` build them in
//! transformers 5.24. Its decoder is where Gemma 4's KV sharing and
//! per-layer embeddings come from; it adds AltUp (the residual stream kept
//! as `altup_num_inputs` predictions, one of them run through the layer)
//! and LAuReL (a low-rank residual beside the attention) to every layer.
//! Counts checked on the meta device (`tests/data/params/hf_variants_2026.csv`),
//! caches against `DynamicCache` (`tests/data/cache/hybrid_cache.jsonl`).

use serde_json::{Map, Value};

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, SlidingWindow, MAX_DIM, MAX_HEADS, MAX_LAYERS, MAX_POSITION};

/// `Gemma3nTextConfig`'s default pattern: layer i attends globally when
/// `(i + 1) % 5 == 0`.
const GLOBAL_EVERY: u64 = 5;
/// `intermediate_size`'s default, 16,384 for every layer (a list, so not in
/// the generated class defaults).
const MLP_WIDTH: u64 = 16_384;
/// The largest `altup_num_inputs` read: its prediction coefficients grow as
/// its cube.
const MAX_STREAMS: u64 = 64;
/// The square `SiglipImageProcessorFast` resizes every image to for Gemma
/// 3n (`preprocessor_config.json` of the Gemma 3n checkpoints: 768 × 768),
/// and the 16 × 16 grid of features MobileNet-V5 leaves of it (stride 48).
const IMAGE_SIDE: u64 = 768;
const FEATURE_STRIDE: u64 = 48;

/// The timm towers `Gemma3nVisionConfig.architecture` may name, with their
/// parameters and blocks as `TimmWrapperModel` builds them (no classifier),
/// counted on the meta device with timm 1.0.31 and transformers 5.24
/// (`tests/data/params/hf_variants_2026.csv`). timm defines them by name,
/// not by config fields, so they are a table.
const TIMM_TOWERS: &[(&str, u64, u64)] = &[
    ("mobilenetv5_300m_enc", 294_126_912, 84),
    ("mobilenetv5_300m", 294_126_912, 84),
    ("mobilenetv5_base", 80_598_976, 39),
];

/// `intermediate_size`: one width, or a list with one per layer (the
/// config class's own form). MatFormer slices with layers of different
/// widths are refused by name.
fn mlp_width(cfg: &Cfg, layers: u64) -> Result<u64> {
    let Some(list) = cfg.array("intermediate_size").ok().flatten() else {
        return Ok(cfg
            .int(&["intermediate_size"], 1, MAX_DIM)?
            .unwrap_or(MLP_WIDTH));
    };
    let field = cfg.field("intermediate_size");
    if list.len() as u64 != layers {
        return Err(InputError::new(
            field,
            format!(
                "has {} widths for {layers} layers: expected one per layer (or one number)",
                list.len()
            ),
        ));
    }
    let widths: Vec<Option<u64>> = list.iter().map(Value::as_u64).collect();
    match widths.first() {
        Some(Some(w)) if (1..=MAX_DIM).contains(w) && widths.iter().all(|x| *x == Some(*w)) => {
            Ok(*w)
        }
        _ => Err(InputError::new(
            field,
            format!(
                "layers of different MLP widths are not modelled: supported one whole \
                 number from 1 to {MAX_DIM} for every layer"
            ),
        )),
    }
}

/// Imports a `gemma3n_text` decoder: `import_decoder` reads the common
/// fields from the config with its MLP width as one number.
pub(super) fn import_text(
    cfg: &Cfg,
    import_decoder: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let layers = cfg.req(super::reader::LAYERS, 1, MAX_LAYERS)?;
    let width = mlp_width(cfg, layers)?;
    let mut obj: Map<String, Value> = cfg.obj.clone();
    obj.insert("intermediate_size".to_string(), Value::from(width));
    let mut flat = Cfg::new(&obj, &cfg.prefix);
    flat.defaults = cfg.defaults;
    let mut spec = import_decoder(&flat)?;
    text_layers(&flat, &mut spec)?;
    Ok(spec)
}

/// What `Gemma3nTextModel` adds to Gemma 3's layers.
fn text_layers(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let sliding = super::gemma4::shared_text(cfg, spec, GLOBAL_EVERY)?;
    spec.sliding_window = Some(SlidingWindow {
        window: cfg
            .int(&["sliding_window"], 1, MAX_POSITION)?
            .unwrap_or(512),
        layers: sliding.iter().filter(|s| **s).count() as u64,
        keeps_prompt: false,
    });
    // Shared layers build no k_proj, v_proj or k_norm (`v_norm` has no
    // scale, hence no parameters, in any layer).
    spec.kv_sharing = super::gemma4::kv_sharing(cfg, &sliding, false)?;
    spec.per_layer_input = super::gemma4::per_layer_input(cfg)?;
    let h = spec.hidden;
    let streams = cfg.int(&["altup_num_inputs"], 1, MAX_STREAMS)?.unwrap_or(4);
    let rank = cfg.int(&["laurel_rank"], 1, MAX_DIM)?.unwrap_or(64);
    // Gemma3nTextLaurelBlock: linear_left (h → rank), linear_right
    // (rank → h), post_laurel_norm (h).
    let laurel = 2 * h * rank + h;
    // Gemma3nTextAltUp: correct_output_scale (h), correction_coefs
    // (n → n), prediction_coefs (n → n²), modality_router (h → n),
    // router_norm (h); all without biases.
    let altup = 2 * h + streams * streams + streams.pow(3) + h * streams;
    // Without per-layer inputs (`hidden_size_per_layer_input` 0) the layer
    // still builds post_per_layer_input_norm (h); its gate and projection
    // are empty.
    let lone_norm = if spec.per_layer_input.is_none() { h } else { 0 };
    spec.layer_extra_params = laurel + altup + lone_norm;
    // altup_projections and altup_unembed_projections: n − 1 linears
    // (h → h, no bias) each, into and out of the extra streams.
    spec.model_extra_params = 2 * (streams - 1) * h * h;
    Ok(())
}

/// `Gemma3nForConditionalGeneration`: the text model (`text_config`), the
/// timm vision tower, the audio tower, and an embedder for each (a table
/// of its `vocab_size` hard tokens, two norms, a projection to the text
/// width and a scale-free norm). The config class builds all three from
/// their defaults when absent; only the wrapper's `tie_word_embeddings`
/// ties the head (default True).
pub(super) fn import_gemma3n(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let sub = |key, class| sub_config(cfg, &empty, key, class);
    let mut spec = import_text(&sub("text_config", "gemma3n_text")?)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    spec.name = "gemma3n".to_string();
    let text_hidden = spec.hidden as u128;
    let v = sub("vision_config", "gemma3n_vision")?;
    let architecture = v.string("architecture")?.unwrap_or("mobilenetv5_300m_enc");
    let model_args = v.obj.get("model_args").filter(|a| !a.is_null());
    let known = TIMM_TOWERS.iter().find(|(name, ..)| *name == architecture);
    let (Some(&(_, tower, blocks)), None) = (known, model_args) else {
        let names: Vec<&str> = TIMM_TOWERS.iter().map(|(n, ..)| *n).collect();
        let field = match model_args {
            Some(_) => "model_args",
            None => "architecture",
        };
        return Err(InputError::new(
            v.field(field),
            format!(
                "is not counted: supported timm's {} without model_args",
                names.join(", ")
            ),
        ));
    };
    let vision_hidden = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(2048);
    let mut projector = embedder(&v, vision_hidden, text_hidden)?;
    let a = sub("audio_config", "gemma3n_audio")?;
    let audio_hidden = a.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1536);
    projector += embedder(&a, audio_hidden, text_hidden)?;
    let tower = tower as u128 + audio_params(&a, audio_hidden as u128)?;
    // A MobileNet has no transformer layers: its blocks stand in as layers
    // of its output width over the 16 × 16 features it leaves of an image.
    let shape = tower_shape(
        vision_hidden,
        blocks,
        1,
        vision_hidden,
        IMAGE_SIDE,
        FEATURE_STRIDE,
    );
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}

/// The sub-config at `key`, or an empty one, read with `class`'s defaults.
fn sub_config<'a>(
    cfg: &Cfg<'a>,
    empty: &'a Map<String, Value>,
    key: &str,
    class: &'static str,
) -> Result<Cfg<'a>> {
    let mut c = cfg.object_or_empty(key, empty)?;
    c.defaults = Defaults::Class(class);
    Ok(c)
}

/// `Gemma3nMultimodalEmbedder`: `vocab_size` rows of the tower's width,
/// hard and soft embedding norms, the projection to the text width, and a
/// norm without scale.
fn embedder(c: &Cfg, width: u64, text_hidden: u128) -> Result<u128> {
    let rows = c.int(&["vocab_size"], 1, MAX_DIM)?.unwrap_or(128) as u128;
    let width = width as u128;
    Ok(rows * width + 2 * width + width * text_hidden)
}

/// A pair of whole numbers at `key` (`sscp_conv_*`: one per convolution,
/// or one (time, frequency) pair per convolution).
fn pairs(a: &Cfg, key: &str, default: [[u64; 2]; 2]) -> Result<[[u64; 2]; 2]> {
    let Some(list) = a.array(key)? else {
        return Ok(default);
    };
    let read = |v: &Value| -> Option<[u64; 2]> {
        match v {
            Value::Array(p) => Some([p.first()?.as_u64()?, p.get(1)?.as_u64()?]),
            other => other.as_u64().map(|n| [n, n]),
        }
    };
    match list.iter().map(read).collect::<Option<Vec<_>>>().as_deref() {
        Some([x, y]) if x.iter().chain(y).all(|n| (1..=1024).contains(n)) => Ok([*x, *y]),
        _ => Err(InputError::new(
            a.field(key),
            "expected two entries (one per subsampling convolution) of whole numbers \
             from 1 to 1024",
        )),
    }
}

/// `Gemma3nAudioEncoder`: two subsampling convolutions (no bias, a
/// cumulative group norm of their channels each), `input_proj_linear`
/// over the flattened channels × frequencies, then conformer blocks.
fn audio_params(a: &Cfg, h: u128) -> Result<u128> {
    let layers = a
        .int(&["conf_num_hidden_layers"], 1, MAX_LAYERS)?
        .unwrap_or(12) as u128;
    let heads = a
        .int(&["conf_num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(8) as u128;
    let kernel = a.int(&["conf_conv_kernel_size"], 1, 1024)?.unwrap_or(5) as u128;
    let features = a.int(&["input_feat_size"], 1, MAX_DIM)?.unwrap_or(128);
    // One channel count per convolution.
    let channels = match a.array("sscp_conv_channel_size")? {
        None => [128, 32],
        Some(list) => match list.iter().map(Value::as_u64).collect::<Vec<_>>()[..] {
            [Some(c0), Some(c1)] if (1..=MAX_DIM).contains(&c0) && (1..=MAX_DIM).contains(&c1) => {
                [c0, c1]
            }
            _ => {
                return Err(InputError::new(
                    a.field("sscp_conv_channel_size"),
                    format!("expected two whole numbers from 1 to {MAX_DIM}"),
                ))
            }
        },
    };
    let kernels = pairs(a, "sscp_conv_kernel_size", [[3, 3], [3, 3]])?;
    let strides = pairs(a, "sscp_conv_stride_size", [[2, 2], [2, 2]])?;
    // The frequency axis is padded by one on each side before each
    // convolution: f_out = (f + 2 − k_w) // s_w + 1.
    let mut f = features;
    let mut convs = 0u128;
    let mut c_in = 1u128;
    for i in 0..2 {
        let [kh, kw] = kernels[i];
        let f_padded = f + 2;
        if f_padded < kw {
            return Err(InputError::new(
                a.field("input_feat_size"),
                format!("{features} features are narrower than the subsampling kernels"),
            ));
        }
        f = (f_padded - kw) / strides[i][1] + 1;
        let c_out = channels[i] as u128;
        convs += c_in * c_out * (kh * kw) as u128 + c_out;
        c_in = c_out;
    }
    let subsample = convs + c_in * f as u128 * h;
    // Per conformer block: two feed-forward halves (pre norm, h → 4h → h,
    // post norm); the attention (pre norm; q, k, v and the relative
    // position projection, heads × (h // heads) wide; the per-dim scale;
    // `post` h → h and its norm); the light convolution (pre norm,
    // linear_start h → 2h, a depthwise kernel, conv_norm, linear_end h → h);
    // the block's norm.
    let head_dim = h / heads;
    let qkv = heads * head_dim;
    let feed_forward = 8 * h * h + 2 * h;
    let attention = h + 4 * h * qkv + head_dim + h * h + h;
    let light_conv = h + 2 * h * h + h * kernel + h + h * h;
    let block = 2 * feed_forward + attention + light_conv + h;
    Ok(subsample + layers * block)
}
