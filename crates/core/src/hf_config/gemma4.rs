//! Gemma 4 (`gemma4_text`, and the `gemma4` wrapper with its optional
//! vision and audio towers), as `configuration_gemma4.py` and
//! `modeling_gemma4.py` build it in transformers 5.24: sliding and global
//! layers with heads of their own, keys and values shared by the last
//! layers, per-layer embeddings, a MoE block beside the dense MLP. Counts
//! checked on the meta device (`tests/data/params/hf_variants_2026.csv`),
//! caches against `DynamicCache` (`tests/data/cache/hybrid_cache.jsonl`).

use serde_json::Value;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{
    GlobalAttention, KvSharing, ModelSpec, Moe, PerLayerInput, SlidingWindow, TowerBlock, MAX_DIM,
    MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, MAX_POSITION,
};

/// `global_head_dim`'s default: a keyword `Gemma4TextConfig.__post_init__`
/// pops (not a stored field, so absent from `to_dict`).
const GLOBAL_HEAD_DIM: u64 = 512;
/// Gemma4TextConfig's default pattern: layer i attends globally when
/// `(i + 1) % 6 == 0`.
const GLOBAL_EVERY: u64 = 6;
/// The square a square image becomes at the default budget (280 cells):
/// `get_aspect_ratio_preserving_size` gives 16 × 16 cells of 48 px.
const DEFAULT_SQUARE: u64 = 768;

/// What Gemma 3n's and Gemma 4's decoders share: biases on q/k/v/o when
/// `attention_bias`, MLPs without (`Gemma3nTextMLP`, `Gemma4TextMLP`), a
/// head tied by default; and which layers slide: `layer_types`, else all
/// but every `global_every`-th.
pub(super) fn shared_text(cfg: &Cfg, spec: &mut ModelSpec, global_every: u64) -> Result<Vec<bool>> {
    let bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    spec.mlp_bias = Some(false);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    Ok(match super::reader::layer_types(cfg, spec.layers)? {
        Some(types) => types.0.iter().map(|t| *t == "sliding_attention").collect(),
        None => (0..spec.layers)
            .map(|i| (i + 1) % global_every != 0)
            .collect(),
    })
}

/// A `per_layer_config` override (`{"5": {"head_dim": 512, ...}}`) of one
/// layer's `key`, or `None`.
fn override_of(table: &Cfg, layer: u64, key: &'static str) -> Result<Option<u64>> {
    let entry = table.obj.iter().find(|(k, _)| {
        k.trim_start_matches('0').parse::<u64>().unwrap_or(0) == layer
            && k.chars().all(|c| c.is_ascii_digit())
    });
    let Some((name, Value::Object(o))) = entry else {
        return Ok(None);
    };
    Cfg::new(o, &format!("{}{name}.", table.prefix)).int(&[key], 1, MAX_HEADS)
}

/// The global layers' heads: from `per_layer_config` when the config has
/// one (a save by transformers ≥ 5.x; then `global_head_dim` is ignored),
/// else from `global_head_dim` and, with `attention_k_eq_v`,
/// `num_global_key_value_heads`. Overrides must agree among the global
/// layers and leave the sliding ones alone.
fn global_heads(cfg: &Cfg, spec: &ModelSpec, sliding: &[bool]) -> Result<(u64, u64)> {
    let common = (spec.head_dim(), spec.kv_heads);
    let values_from_keys = cfg.flag("attention_k_eq_v", false)?;
    let Some(table) = cfg.object("per_layer_config")? else {
        let d = cfg
            .int(&["global_head_dim"], 1, MAX_HEADS)?
            .unwrap_or(GLOBAL_HEAD_DIM);
        let kv = match values_from_keys {
            true => cfg.int(&["num_global_key_value_heads"], 1, MAX_HEADS)?,
            false => None,
        };
        return Ok((d, kv.unwrap_or(spec.kv_heads)));
    };
    let mut global = None;
    for (layer, slides) in sliding.iter().enumerate() {
        let layer = layer as u64;
        let heads = (
            override_of(&table, layer, "head_dim")?.unwrap_or(common.0),
            override_of(&table, layer, "num_key_value_heads")?.unwrap_or(common.1),
        );
        let differs = match slides {
            true => heads != common,
            false => global.is_some_and(|g| g != heads),
        };
        if differs {
            return Err(InputError::new(
                table.field(&layer.to_string()),
                "layers of one type with different heads are not modelled: supported one \
                 head_dim and num_key_value_heads for the sliding layers and one for the global",
            ));
        }
        if !*slides {
            global = Some(heads);
        }
    }
    Ok(global.unwrap_or(common))
}

/// Completes a `gemma4_text` decoder already holding the common fields.
/// `gemma4_unified_text` (`Gemma4UnifiedTextConfig`) builds the same
/// layers without per-layer embeddings or the MoE block (its class drops
/// their keys; any left in a config are ignored): `unified`.
pub(super) fn text_layers(cfg: &Cfg, spec: &mut ModelSpec, unified: bool) -> Result<()> {
    let h = spec.hidden;
    let mut sliding = shared_text(cfg, spec, GLOBAL_EVERY)?;
    // the last layer always attends globally (`__post_init__` forces it)
    if let Some(last) = sliding.last_mut() {
        *last = false;
    }
    let sliding_count = sliding.iter().filter(|s| **s).count() as u64;
    let mut window = cfg
        .int(&["sliding_window"], 1, MAX_POSITION)?
        .unwrap_or(512);
    // `use_bidirectional_attention == "all"` halves the window (W // 2 + 1).
    if cfg.string("use_bidirectional_attention")? == Some("all") {
        window = window / 2 + 1;
    }
    spec.sliding_window = Some(SlidingWindow {
        window,
        layers: sliding_count,
        keeps_prompt: false,
    });
    let (head_dim, kv_heads) = global_heads(cfg, spec, &sliding)?;
    let values_from_keys = cfg.flag("attention_k_eq_v", false)?;
    if (head_dim, kv_heads) != (spec.head_dim(), spec.kv_heads) || values_from_keys {
        spec.global_attention = Some(GlobalAttention {
            head_dim,
            kv_heads,
            values_from_keys,
        });
    }
    spec.kv_sharing = kv_sharing(cfg, &sliding, cfg.flag("use_double_wide_mlp", false)?)?;
    if unified {
        return Ok(());
    }
    spec.per_layer_input = per_layer_input(cfg)?;
    if cfg.flag("enable_moe_block", false)? {
        let experts = cfg.req(&["num_experts"], 1, MAX_EXPERTS)?;
        // The dense MLP runs beside the experts in every layer: a shared
        // expert of `intermediate_size`.
        spec.moe = Some(Moe {
            experts,
            experts_per_token: cfg.req(&["top_k_experts"], 1, MAX_EXPERTS)?,
            shared_experts: 1,
            expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
            shared_intermediate: Some(spec.intermediate),
            dense_layers: 0,
            router_bias: false,
            latent: 0,
        });
        // Three more norms (post_feedforward_layernorm_1/_2,
        // pre_feedforward_layernorm_2); the router's scale (hidden) and
        // per-expert scale beside its projection.
        spec.norms_per_layer = Some(7);
        spec.layer_extra_params = h + experts;
    }
    Ok(())
}

/// The last `num_kv_shared_layers` layers, which reuse the keys and values
/// of the last earlier layer of their type (Gemma 3n's and Gemma 4's
/// `kv_sharing_modes`); `sliding` lists which layers slide.
pub(super) fn kv_sharing(
    cfg: &Cfg,
    sliding: &[bool],
    double_wide_mlp: bool,
) -> Result<Option<KvSharing>> {
    let layers = sliding.len() as u64;
    let shared = cfg.int(&["num_kv_shared_layers"], 0, layers)?.unwrap_or(0);
    if shared == 0 {
        return Ok(None);
    }
    let first = (layers - shared) as usize;
    // Each shared layer reads the last unshared layer of its type; with
    // every layer shared (Gemma 4's drafters) they read the main model's.
    let has = |slides: bool| sliding[..first].contains(&slides);
    if first > 0 && sliding[first..].iter().any(|s| !has(*s)) {
        return Err(InputError::new(
            cfg.field("num_kv_shared_layers"),
            format!(
                "{shared} leaves no earlier layer of every type to share keys and values \
                 with (transformers refuses it): allowed up to the layers after the last \
                 layer of each type"
            ),
        ));
    }
    let shared_sliding = sliding[first..].iter().filter(|s| **s).count() as u64;
    Ok(Some(KvSharing {
        sliding: shared_sliding,
        global: shared - shared_sliding,
        double_wide_mlp,
    }))
}

/// Per-layer embeddings (`hidden_size_per_layer_input`, default 256; 0:
/// none) over `vocab_size_per_layer_input` rows (default 262,144).
pub(super) fn per_layer_input(cfg: &Cfg) -> Result<Option<PerLayerInput>> {
    let width = cfg
        .int(&["hidden_size_per_layer_input"], 0, MAX_DIM)?
        .unwrap_or(256);
    if width == 0 {
        return Ok(None);
    }
    Ok(Some(PerLayerInput {
        width,
        vocab: cfg
            .int(&["vocab_size_per_layer_input"], 1, MAX_DIM)?
            .unwrap_or(262_144),
    }))
}

/// `Gemma4ForConditionalGeneration`: the text model (`text_config`, a diff
/// against `Gemma4TextConfig()`), and when configured the vision tower,
/// the audio tower and their projectors. Only the wrapper's
/// `tie_word_embeddings` ties the head (default True).
pub(super) fn import_gemma4(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = serde_json::Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("gemma4_text");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    spec.name = "gemma4".to_string();
    let vision = cfg.object("vision_config")?;
    let audio = cfg.object("audio_config")?;
    let Some(mut v) = vision else {
        if audio.is_some() {
            return Err(InputError::new(
                cfg.field("audio_config"),
                "an audio tower without a vision tower is not modelled: supported the text \
                 model alone or with its vision tower (and audio tower)",
            ));
        }
        return Ok(spec);
    };
    v.defaults = Defaults::Class("gemma4_vision");
    let (mut shape, mut tower) = vision_tower(&v)?;
    let text_hidden = spec.hidden as u128;
    // embed_vision: a scale-free RMSNorm, then Linear(vision hidden → text hidden).
    let mut projector = shape.hidden as u128 * text_hidden;
    if let Some(mut a) = audio {
        a.defaults = Defaults::Class("gemma4_audio");
        let (audio_tower, output) = audio_params(&a)?;
        tower += audio_tower;
        // embed_audio: Linear(output_proj_dims → text hidden), no bias.
        projector += output * text_hidden;
    }
    shape.block = TowerBlock::Other;
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}

/// `Gemma4VisionModel`: a patch projection (3·p² → d, no bias), a 2-D
/// position table (2 × `position_embedding_size` × d), and blocks of q/k/v/o
/// without biases, q- and k-norms one head wide, a gated MLP and four
/// norms; the pooler has no parameters.
fn vision_tower(v: &Cfg) -> Result<(crate::model::VisionTower, u128)> {
    let d = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let layers = v.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let heads = v.req(&["num_attention_heads"], 1, MAX_HEADS)?;
    let kv = v
        .int(&["num_key_value_heads"], 1, MAX_HEADS)?
        .unwrap_or(heads);
    let head_dim = v.int(&["head_dim"], 1, MAX_HEADS)?.unwrap_or(d / heads);
    let m = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let patch = v.req(&["patch_size"], 1, 1024)?;
    let table = v.req(&["position_embedding_size"], 1, MAX_POSITION)?;
    let (dw, hd, mw) = (d as u128, head_dim as u128, m as u128);
    let (qh, kvh) = (heads as u128 * hd, kv as u128 * hd);
    let block = dw * qh + 2 * dw * kvh + qh * dw + 2 * hd + 3 * dw * mw + 4 * dw;
    let mut tower = 3 * (patch as u128).pow(2) * dw + 2 * table as u128 * dw;
    tower += layers as u128 * block;
    // `standardize`: std_bias and std_scale are buffers, not parameters.
    // Its own square: the 768 px (16 × 16 cells of 3 × 3 patches of 16 px)
    // that any square image becomes under the default budget of 280 cells.
    Ok((
        tower_shape(d, layers, heads, m, DEFAULT_SQUARE, patch),
        tower,
    ))
}

/// `Gemma4AudioModel` (a conformer): its parameters and the width of its
/// output (`output_proj_dims`), which `embed_audio` projects.
fn audio_params(a: &Cfg) -> Result<(u128, u128)> {
    let h = a.req(&["hidden_size"], 1, MAX_DIM)? as u128;
    let layers = a.req(&["num_hidden_layers"], 1, MAX_LAYERS)? as u128;
    let heads = a.req(&["num_attention_heads"], 1, MAX_HEADS)? as u128;
    let kernel = a.req(&["conv_kernel_size"], 1, 1024)? as u128;
    let output = a.req(&["output_proj_dims"], 1, MAX_DIM)? as u128;
    let channels = match a.array("subsampling_conv_channels")? {
        Some(list) => list.iter().filter_map(Value::as_u64).collect::<Vec<u64>>(),
        None => vec![128, 32],
    };
    let [c0, c1] = channels[..] else {
        return Err(InputError::new(
            a.field("subsampling_conv_channels"),
            "expected two whole numbers (the two subsampling convolutions' channels)",
        ));
    };
    let (c0, c1) = (c0.min(MAX_DIM) as u128, c1.min(MAX_DIM) as u128);
    let head_width = h / heads.max(1);
    // Two 3×3 convolutions without bias and a LayerNorm without bias after
    // each, then input_proj_linear over the flattened (c0 / 4)·c1 features.
    let subsample = 9 * c0 + c0 + 9 * c0 * c1 + c1 + (c0 / 4) * c1 * h;
    // Per conformer block: two feed-forward halves (h → 4h → h) with their
    // pre and post norms; q, k, v, post and the relative-key projection,
    // the per-dim scale; the light convolution (linear_start to 2h,
    // linear_end, a depthwise kernel, two norms); three block norms.
    let attention = 3 * h * heads * head_width + h * h + h * h + head_width;
    let block = 2 * (8 * h * h + 2 * h) + attention + 3 * h * h + h * kernel + 2 * h + 3 * h;
    Ok((subsample + layers * block + h * output + output, output))
}
