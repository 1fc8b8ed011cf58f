//! Dots3-Note (`dots3_note_text`, `Dots3NoteForCausalLM`, transformers
//! 5.24): DeepSeek-V3.2's MLA, indexer and MoE with these changes:
//! - every attention layer has a per-head sigmoid gate (`g_proj`: hidden →
//!   heads) and a norm on its shared rope key (`k_rope_only_layernorm`);
//! - layers are `sliding_attention`, `indexed_attention` (DSA, with the
//!   indexer) or `full_attention`: without `layer_types`, the first two and
//!   every fourth from the second attend over everything, the rest slide
//!   (`use_sliding_window`, default on), and `use_dsa` (default on unless
//!   the config was saved with a `per_layer_config`) makes the full ones
//!   indexed;
//! - the sliding layers have an MLA geometry of their own: `swa_*` keys
//!   (64 heads, q rank 1024, kv rank 1024, nope 192, rope 64, v 128 when
//!   absent), saved by transformers as `per_layer_config` entries, which
//!   override any layer's keys;
//! - the indexer's keys come out fp32 (its rotary runs on
//!   `inputs_embeds.float()`), and so are cached in fp32;
//! - the shared experts are one MLP `shared_experts_intermediate_size ×
//!   n_shared_experts` wide; the router (experts × hidden) is fp32.
//!
//! The fields hold what the cache and the activations need; the exact
//! total goes in `params_override`.

use serde_json::{Map, Value};

use super::reader::{per_layer_strings, Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{
    Indexer, ModelSpec, SlidingLatent, SlidingWindow, VisionTower, MAX_DIM, MAX_EXPERTS, MAX_HEADS,
    MAX_IMAGE_SIZE, MAX_LAYERS, MAX_POSITION,
};

/// What a layer attends over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sliding,
    Indexed,
    Full,
}

/// One layer's attention geometry (`per_layer_config[i]` over the model's).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Geometry {
    heads: u64,
    q_rank: u64,
    kv_rank: u64,
    nope: u64,
    rope: u64,
    v: u64,
    bias: bool,
}

impl Geometry {
    /// The attention's parameters over `h` channels, with the indexer's
    /// (`index`: its heads and head width) on an indexed layer.
    fn params(&self, h: u128, index: Option<(u128, u128)>) -> u128 {
        let [n, rq, r, dn, dr, dv] = [
            self.heads,
            self.q_rank,
            self.kv_rank,
            self.nope,
            self.rope,
            self.v,
        ]
        .map(u128::from);
        let bias = u128::from(self.bias);
        let q = (h + bias) * rq + rq + rq * n * (dn + dr);
        let kv = (h + bias) * (r + dr) + r + r * n * (dn + dv);
        let out = n * dv * h + bias * h;
        // k_rope_only_layernorm and the per-head gate
        let extra = dr + h * n;
        // wq_b (q rank → heads·d), wk (hidden → d), k_norm (LayerNorm d),
        // weights_proj (hidden → heads)
        let indexer = index.map_or(0, |(ni, di)| rq * ni * di + h * di + 2 * di + h * ni);
        q + kv + out + extra + indexer
    }
}

/// Completes `dots3_note_text` read as DeepSeek-V3's MLA and MoE.
pub(super) fn complete_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let kinds = layer_kinds(cfg, layers)?;
    let top = Geometry {
        heads: spec.heads,
        q_rank: match cfg.int(&["q_lora_rank"], 1, MAX_DIM)? {
            Some(r) => r,
            None => {
                return Err(InputError::new(
                    cfg.field("q_lora_rank"),
                    "is null: Dots3-Note's queries need a low rank (1 or more)",
                ))
            }
        },
        kv_rank: cfg.req(&["kv_lora_rank"], 1, MAX_DIM)?,
        nope: cfg.req(&["qk_nope_head_dim"], 0, MAX_HEADS)?,
        rope: cfg.req(&["qk_rope_head_dim"], 0, MAX_HEADS)?,
        v: cfg.req(&["v_head_dim"], 1, MAX_HEADS)?,
        bias: cfg.flag("attention_bias", false)?,
    };
    let geometry = per_layer_geometry(cfg, &kinds, top)?;
    let index = (
        cfg.int(&["index_n_heads"], 1, MAX_HEADS)?.unwrap_or(64),
        cfg.int(&["index_head_dim"], 1, MAX_HEADS)?.unwrap_or(128),
    );
    let dense = mlp_dense(cfg, layers)?;
    let shared = cfg.int(&["n_shared_experts"], 1, 64)?.unwrap_or(1);
    let shared_width = cfg
        .int(
            // the alias wins (`__post_init__` pops it over the field)
            &[
                "moe_shared_expert_intermediate_size",
                "shared_experts_intermediate_size",
            ],
            1,
            MAX_DIM,
        )?
        .unwrap_or(1536);
    // the cache's and the activations' fields: the non-sliding layers'
    // geometry (every one alike), the sliding layers' latent
    let count = |k: Kind| kinds.iter().filter(|x| **x == k).count() as u64;
    let (sliding, indexed) = (count(Kind::Sliding), count(Kind::Indexed));
    let global = uniform(cfg, &kinds, &geometry, |k| k != Kind::Sliding)?.unwrap_or(top);
    let window_layers = uniform(cfg, &kinds, &geometry, |k| k == Kind::Sliding)?;
    if let Some(mla) = spec.mla.as_mut() {
        mla.q_lora_rank = Some(global.q_rank);
        mla.kv_lora_rank = global.kv_rank;
        mla.qk_nope_head_dim = global.nope;
        mla.qk_rope_head_dim = global.rope;
        mla.v_head_dim = global.v;
        mla.sliding = window_layers.map(|g| SlidingLatent {
            kv_lora_rank: g.kv_rank,
            qk_rope_head_dim: g.rope,
        });
        mla.indexer = (indexed > 0).then_some(Indexer {
            head_dim: index.1,
            heads: index.0,
            layers: indexed,
            pool: 0,
            key_bytes: 4,
        });
    }
    spec.heads = global.heads;
    spec.kv_heads = global.heads;
    spec.head_dim = Some((global.nope + global.rope).max(1));
    spec.value_head_dim = Some(global.v);
    spec.sliding_window = (sliding > 0)
        .then(|| -> Result<SlidingWindow> {
            let window = cfg
                .int(&["sliding_window", "sliding_window_size"], 1, MAX_POSITION)?
                .unwrap_or(512);
            Ok(SlidingWindow::new(window, sliding))
        })
        .transpose()?;
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense.iter().filter(|d| **d).count() as u64;
        moe.shared_experts = shared;
        moe.shared_intermediate = Some(shared_width);
    }
    // the layers, exactly
    let h = u128::from(spec.hidden);
    let dense_mlp = 3 * h * u128::from(spec.intermediate);
    let sparse_mlp = spec.moe.as_ref().map_or(dense_mlp, |m| {
        let (e, im) = (u128::from(m.experts), u128::from(m.expert_intermediate));
        e * h + 3 * e * h * im + 3 * h * u128::from(shared_width) * u128::from(shared)
    });
    let index = (u128::from(index.0), u128::from(index.1));
    let mut total: u128 = 0;
    for (i, kind) in kinds.iter().enumerate() {
        let indexer = (*kind == Kind::Indexed).then_some(index);
        let mlp = if dense[i] { dense_mlp } else { sparse_mlp };
        total += geometry[i].params(h, indexer) + mlp + 2 * h;
    }
    let counts = spec.param_counts();
    let fixed = u128::from(counts.embedding + counts.lm_head + counts.other);
    spec.params_override = Some(super::vlm::narrow(total + fixed, "config.json")?);
    Ok(())
}

/// Each layer's kind, from `layer_types` or the class's pattern, with
/// `use_dsa` renaming full and indexed layers.
fn layer_kinds(cfg: &Cfg, layers: u64) -> Result<Vec<Kind>> {
    let saved = cfg.obj.contains_key("per_layer_config");
    // `None`: leave the layer types as they are
    let use_dsa = match cfg.obj.get("use_dsa") {
        None if saved => None,
        None => Some(true),
        Some(_) => Some(cfg.flag("use_dsa", true)?),
    };
    let mut kinds = match per_layer_strings(cfg, "layer_types", layers)? {
        Some(types) => types
            .iter()
            .map(|t| match *t {
                "sliding_attention" => Ok(Kind::Sliding),
                "indexed_attention" => Ok(Kind::Indexed),
                "full_attention" => Ok(Kind::Full),
                other => Err(InputError::new(
                    cfg.field("layer_types"),
                    format!(
                        "\"{other}\" is not a layer type: allowed \"sliding_attention\", \
                         \"indexed_attention\", \"full_attention\""
                    ),
                )),
            })
            .collect::<Result<Vec<_>>>()?,
        None => {
            let slide = cfg.flag("use_sliding_window", true)?;
            let full = match use_dsa {
                Some(false) => Kind::Full,
                _ => Kind::Indexed,
            };
            (0..layers)
                .map(|i| match slide && i >= 2 && i % 4 != 1 {
                    true => Kind::Sliding,
                    false => full,
                })
                .collect()
        }
    };
    for k in &mut kinds {
        *k = match (use_dsa, *k) {
            (Some(true), Kind::Full) => Kind::Indexed,
            (Some(false), Kind::Indexed) => Kind::Full,
            (_, k) => k,
        };
    }
    Ok(kinds)
}

/// Every layer's geometry: the model's, the sliding layers' own (`swa_*`
/// keys, or the class's), and any `per_layer_config` entry over them (a
/// saved config's entries replace the `swa_*` derivation).
fn per_layer_geometry(cfg: &Cfg, kinds: &[Kind], top: Geometry) -> Result<Vec<Geometry>> {
    let table = cfg.object("per_layer_config")?;
    let swa = |key: &'static str, default: u64| -> Result<u64> {
        let least = u64::from(key != "swa_qk_nope_head_dim");
        Ok(cfg.int(&[key], least, MAX_DIM)?.unwrap_or(default))
    };
    let sliding = match &table {
        Some(_) => top,
        None => {
            let head_dim = swa("swa_head_dim", 256)?;
            let nope = swa("swa_qk_nope_head_dim", 192)?;
            let rope = match cfg.int(&["swa_qk_rope_head_dim"], 0, MAX_HEADS)? {
                Some(r) => r,
                None => head_dim.checked_sub(nope).ok_or_else(|| {
                    InputError::new(
                        cfg.field("swa_head_dim"),
                        format!("({head_dim}) is below swa_qk_nope_head_dim ({nope})"),
                    )
                })?,
            };
            Geometry {
                heads: swa("swa_num_attention_heads", 64)?,
                q_rank: swa("swa_q_lora_rank", 1024)?,
                kv_rank: swa("swa_kv_lora_rank", 1024)?,
                nope,
                rope,
                v: swa("swa_v_head_dim", 128)?,
                bias: top.bias,
            }
        }
    };
    let mut out = Vec::with_capacity(kinds.len());
    for (i, kind) in kinds.iter().enumerate() {
        let base = if *kind == Kind::Sliding { sliding } else { top };
        out.push(match &table {
            Some(t) => overridden(t, i as u64, base)?,
            None => base,
        });
    }
    Ok(out)
}

/// `base` under the `per_layer_config` entry of `layer`, if any.
fn overridden(table: &Cfg, layer: u64, base: Geometry) -> Result<Geometry> {
    let Some(c) = entry_of(table, layer) else {
        return Ok(base);
    };
    let read = |key: &'static str, min: u64, current: u64| -> Result<u64> {
        Ok(c.int(&[key], min, MAX_DIM)?.unwrap_or(current))
    };
    if c.obj.get("q_lora_rank").is_some_and(Value::is_null) {
        return Err(InputError::new(
            c.field("q_lora_rank"),
            "is null: Dots3-Note's queries need a low rank (1 or more)",
        ));
    }
    Ok(Geometry {
        heads: read("num_attention_heads", 1, base.heads)?,
        q_rank: read("q_lora_rank", 1, base.q_rank)?,
        kv_rank: read("kv_lora_rank", 1, base.kv_rank)?,
        nope: read("qk_nope_head_dim", 0, base.nope)?,
        rope: read("qk_rope_head_dim", 0, base.rope)?,
        v: read("v_head_dim", 1, base.v)?,
        bias: c.flag("attention_bias", base.bias)?,
    })
}

/// The geometry of the first layer `of` selects (`None`: there are none),
/// refusing layers of one kind that cache latents of different widths (the
/// cache's lines hold one per kind; their other widths may differ, and
/// count exactly in the total).
fn uniform(
    cfg: &Cfg,
    kinds: &[Kind],
    geometry: &[Geometry],
    of: impl Fn(Kind) -> bool,
) -> Result<Option<Geometry>> {
    let mut picked = kinds.iter().zip(geometry).filter(|(k, _)| of(**k));
    let Some((_, first)) = picked.next() else {
        return Ok(None);
    };
    let cached = |g: &Geometry| (g.kv_rank, g.rope);
    if picked.any(|(_, g)| cached(g) != cached(first)) {
        return Err(InputError::new(
            cfg.field("per_layer_config"),
            "layers of one kind that cache latents of different widths are not modelled: \
             supported one kv_lora_rank and qk_rope_head_dim for the sliding layers and one \
             for the others",
        ));
    }
    Ok(Some(*first))
}

/// Which layers run a dense MLP: `mlp_layer_types`, else the first
/// `first_k_dense_replace` (1) and, after them, those `moe_layer_freq` (a
/// period, 1, or one flag per layer) leaves out.
fn mlp_dense(cfg: &Cfg, layers: u64) -> Result<Vec<bool>> {
    if let Some(types) = per_layer_strings(cfg, "mlp_layer_types", layers)? {
        super::moe_layouts::dense_in(cfg, &types)?;
        return Ok(types.iter().map(|t| *t == "dense").collect());
    }
    let first = cfg
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(1);
    let sparse_at: Box<dyn Fn(u64) -> bool> = match cfg.obj.get("moe_layer_freq") {
        Some(Value::Array(flags)) => {
            super::reader::one_per_layer(cfg, "moe_layer_freq", flags.len(), layers)?;
            let flags: Vec<bool> = flags
                .iter()
                .map(|v| {
                    v.as_bool()
                        .unwrap_or_else(|| v.as_u64().is_some_and(|n| n != 0))
                })
                .collect();
            Box::new(move |i| flags[i as usize])
        }
        _ => {
            let every = cfg.int(&["moe_layer_freq"], 1, MAX_LAYERS)?.unwrap_or(1);
            Box::new(move |i| i % every == 0)
        }
    };
    Ok((0..layers).map(|i| !(i >= first && sparse_at(i))).collect())
}

/// The wrapper (`dots3_note`, `Dots3NoteForConditionalGeneration`): its
/// text model (`text_config`, or the top-level keys as published
/// checkpoints store them; the class is fixed), the vision tower with its
/// MoE blocks and merger, the audio encoder and its adapter; the head tied
/// by the wrapper's flag only (default untied). Images go through
/// Qwen2-VL's processor, videos through Qwen3-VL's.
pub(super) fn import_dots3_note(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = match cfg.object("text_config")? {
        Some(text) => text,
        None => Cfg::new(cfg.obj, &cfg.prefix),
    };
    text.defaults = Defaults::Class("dots3_note_text");
    let mut spec = import_text(&text)?;
    let counts = spec.param_counts();
    let body =
        u128::from(spec.params_override.unwrap_or(counts.total)) - u128::from(counts.lm_head);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let head = u128::from(spec.param_counts().lm_head);
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (shape, tower, merger, routers) = vision_tower(&v)?;
    spec.vision = Some(super::vlm::counted(shape, tower, merger)?);
    spec.fp32_params = spec
        .fp32_params
        .saturating_add(super::vlm::narrow(routers, "vision_config")?);
    let a = cfg.object_or_empty("audio_config", &empty)?;
    let audio = audio_encoder(&a)?;
    spec.params_override = Some(super::vlm::narrow(
        body + head + tower + merger + audio,
        "config.json",
    )?);
    spec.name = "dots3_note".to_string();
    Ok(spec)
}

/// `Dots3NoteVisionModel`: a biased patch convolution and its RMSNorm,
/// blocks of fused qkv (+ q/k head norms), proj, two RMSNorms and a SwiGLU
/// MLP, dense or routed experts (router fp32, no shared expert) per
/// `mlp_layer_types` / `pyramid_num_routed`, a final norm; the merger
/// (LayerNorm, Linear(d·m², d·m²), Linear(d·m², text width), biased).
/// Returns (shape, tower, merger, fp32 router parameters).
fn vision_tower(v: &Cfg) -> Result<(VisionTower, u128, u128, u128)> {
    // Dots3NoteVisionConfig's defaults; legacy names first, as
    // `__post_init__` pops them over the fields
    let d = v
        .int(&["embed_dim", "hidden_size"], 1, MAX_DIM)?
        .unwrap_or(1536);
    let heads = v
        .int(&["num_heads", "num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(24);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(42);
    let ff = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(4224);
    let expert_ff = v
        .int(&["moe_intermediate_size"], 1, MAX_DIM)?
        .unwrap_or(2112);
    let experts = v.int(&["num_local_experts"], 1, MAX_EXPERTS)?.unwrap_or(64);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(14);
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["adapter_merge_size"], 1, 64)?.unwrap_or(2);
    let out = v.int(&["adapter_out_dim"], 1, MAX_DIM)?.unwrap_or(5120);
    let bias = match v.obj.get("use_bias") {
        Some(_) => v.flag("use_bias", false)?,
        None => v.flag("attention_bias", false)?,
    };
    let mlp_bias = v.flag("mlp_bias", false)?;
    let blocks = vision_blocks(v, layers, experts)?;
    let (dd, hd) = (u128::from(d), u128::from(d / heads.max(1)));
    let mut total = u128::from(channels) * dd * u128::from(patch).pow(2) + 2 * dd + dd;
    let mut routers = 0;
    for (i, routed) in blocks.iter().enumerate() {
        let read = |key: &'static str, current: u64| -> Result<u64> {
            Ok(match layer_entry(v, i as u64) {
                Some(c) => c.int(&[key], 1, MAX_DIM)?.unwrap_or(current),
                None => current,
            })
        };
        let attention = 4 * dd * dd + 4 * dd * u128::from(bias) + 2 * hd + 2 * dd;
        let mlp = match routed {
            Some(e) => {
                let (e, w) = (
                    u128::from(*e),
                    u128::from(read("moe_intermediate_size", expert_ff)?),
                );
                routers += e * dd;
                3 * e * dd * w + e * dd
            }
            None => {
                let w = u128::from(read("intermediate_size", ff)?);
                3 * dd * w + u128::from(mlp_bias) * (2 * w + dd)
            }
        };
        total += attention + mlp;
    }
    let wide = dd * u128::from(merge).pow(2);
    let merger = 2 * dd + wide * wide + wide + wide * u128::from(out) + u128::from(out);
    let mut shape = super::vlm::tower_shape(d, layers, heads, ff, 32 * patch, patch);
    shape.block = crate::model::TowerBlock::Qwen25Vl;
    Ok((shape, total, merger, routers))
}

/// Each vision block's routed experts (`None`: a dense MLP): from
/// `pyramid_num_routed` (a count per block, ≤ 0 dense), else
/// `mlp_layer_types` with `per_layer_config`'s expert counts, else the
/// class's pyramid (25 dense blocks, then 4, 8, …, 64 and 64 experts).
fn vision_blocks(v: &Cfg, layers: u64, experts: u64) -> Result<Vec<Option<u64>>> {
    let pyramid: Option<Vec<i64>> = match v.array("pyramid_num_routed")? {
        Some(list) => Some(
            list.iter()
                .map(|n| {
                    n.as_i64().ok_or_else(|| {
                        InputError::new(
                            v.field("pyramid_num_routed"),
                            format!("{n} is not a whole number of experts"),
                        )
                    })
                })
                .collect::<Result<_>>()?,
        ),
        None if v.obj.contains_key("mlp_layer_types") => None,
        None => Some(
            (0..25)
                .map(|_| -1)
                .chain((1..=16).map(|k| 4 * k))
                .chain([64])
                .collect(),
        ),
    };
    if let Some(counts) = pyramid {
        super::reader::one_per_layer(v, "pyramid_num_routed", counts.len(), layers)?;
        let explicit = v.obj.contains_key("per_layer_config");
        return counts
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if *n <= 0 {
                    return Ok(None);
                }
                let own = match (explicit, layer_entry(v, i as u64)) {
                    (true, Some(c)) => c.int(&["num_local_experts"], 1, MAX_EXPERTS)?,
                    _ => None,
                };
                let routed = u64::try_from(*n).unwrap_or(MAX_EXPERTS).min(MAX_EXPERTS);
                Ok(Some(own.unwrap_or(if explicit { experts } else { routed })))
            })
            .collect();
    }
    let types = per_layer_strings(v, "mlp_layer_types", layers)?.unwrap_or_default();
    super::moe_layouts::dense_in(v, &types)?;
    types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if *t == "dense" {
                return Ok(None);
            }
            let own = match layer_entry(v, i as u64) {
                Some(c) => c.int(&["num_local_experts"], 1, MAX_EXPERTS)?,
                None => None,
            };
            Ok(Some(own.unwrap_or(experts)))
        })
        .collect()
}

/// The `per_layer_config` entry of `layer`, if any.
fn layer_entry<'a>(cfg: &Cfg<'a>, layer: u64) -> Option<Cfg<'a>> {
    let Some(Value::Object(table)) = cfg.obj.get("per_layer_config") else {
        return None;
    };
    entry_of(
        &Cfg::new(table, &format!("{}per_layer_config.", cfg.prefix)),
        layer,
    )
}

/// The entry of a `per_layer_config` table for `layer` (its key the layer's
/// index), if any.
fn entry_of<'a>(table: &Cfg<'a>, layer: u64) -> Option<Cfg<'a>> {
    table.obj.iter().find_map(|(k, entry)| match entry {
        Value::Object(o)
            if k.chars().all(|c| c.is_ascii_digit()) && k.parse::<u64>().ok() == Some(layer) =>
        {
            Some(Cfg::new(o, &format!("{}{k}.", table.prefix)))
        }
        _ => None,
    })
}

/// `Dots3NoteAudioModel` and its adapter: a stem of three 3×3 convolutions
/// (1 → D → D → D channels, biased) and an unbiased projection of the
/// D·⌈F/8⌉ features, layers of q/v/o (biased with `attention_bias`, on by
/// default) and k (never biased), a biased SwiGLU MLP and two RMSNorms, a
/// final norm; the adapter's LayerNorm and two biased linears. Its
/// Whisper-style legacy keys (`whisper_config`) are read too.
fn audio_encoder(a: &Cfg) -> Result<u128> {
    let legacy = a.object("whisper_config")?;
    let read = |keys: &[&'static str], legacy_key: &'static str, default: u64| -> Result<u64> {
        if let Some(w) = &legacy {
            if let Some(n) = w.int(&[legacy_key], 1, MAX_DIM)? {
                return Ok(n);
            }
        }
        Ok(a.int(keys, 1, MAX_DIM)?.unwrap_or(default))
    };
    // Dots3NoteAudioConfig's defaults
    let h = u128::from(read(&["hidden_size"], "d_model", 1280)?);
    let ff = u128::from(read(&["intermediate_size"], "encoder_ffn_dim", 5120)?);
    let layers = u128::from(read(&["num_hidden_layers"], "encoder_layers", 32)?);
    let features = u128::from(read(&["feature_size"], "num_mel_bins", 128)?);
    let stem = u128::from(
        a.int(&["downsample_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(480),
    );
    let adapter_in = u128::from(
        a.int(
            &["whisper_adapter_in_dim", "adapter_input_size"],
            1,
            MAX_DIM,
        )?
        .unwrap_or(1280),
    );
    let out = u128::from(
        a.int(
            &[
                "whisper_adapter_out_dim",
                "adapter_output_size",
                "adapter_out_dim",
            ],
            1,
            MAX_DIM,
        )?
        .unwrap_or(5120),
    );
    let bias = u128::from(a.flag("attention_bias", true)?);
    let convs = 10 * stem + 2 * (9 * stem * stem + stem) + stem * features.div_ceil(8) * h;
    let layer = 4 * h * h + 3 * h * bias + 3 * h * ff + 2 * ff + h + 2 * h;
    let adapter = 2 * adapter_in + adapter_in * out + out + out * out + out;
    Ok(convs + layers * layer + h + adapter)
}
