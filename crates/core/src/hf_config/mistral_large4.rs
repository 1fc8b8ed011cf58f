//! Mistral Large 4 (`mistral_large4`, `MistralLarge4ForConditionalGeneration`,
//! transformers 5.24): Mistral 3's Pixtral tower and projector over
//! `MistralLarge4TextModel` (`mistral_large4_text`), DeepSeek-V3.2's MLA
//! and MoE with these changes:
//! - the query is one `q_proj` (hidden → heads·(nope + rope)), no low rank;
//! - NoPE layers (`no_rope_layers` 0; every `no_rope_layer_interval`-th, 4,
//!   by default) project no rope key: `kv_a` writes the latent only and
//!   `kv_b` widens each head's nope part by the rope width; they cache the
//!   latent only;
//! - a layer whose `kv_source_layers` entry is another layer reuses its
//!   latent: no `kv_a` or its norm, no cache of its own;
//! - every layer scales its queries per head (`softmax_scaling`, 2 per
//!   head);
//! - the indexer, on `"full"` layers (all by default), reads the hidden
//!   state (`wq_b`: hidden → index heads·d) through a LayerNorm
//!   (`q_input_norm`) and scales its heads (2 per head), beside `wk`,
//!   `k_norm` and `weights_proj`;
//! - a softmax router kept fp32, and the rotary's learned `alpha` (rope/2).
//!
//! The fields hold what the cache and the activations need (the latent,
//! the NoPE layers, the shared layers, the indexed layers); the exact
//! total goes in `params_override` and the layer groups are scaled to it.

use serde_json::Map;

use super::indexer_types::full_indexers;
use super::reader::{per_layer_strings, Cfg};
use crate::error::{InputError, Result};
use crate::model::{Indexer, KvSharing, ModelSpec, MAX_HEADS, MAX_LAYERS};

/// Completes `mistral_large4_text` read as DeepSeek-V3's MLA and MoE.
pub(super) fn complete_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let n = layers as usize;
    let rope: Vec<bool> = match cfg.array("no_rope_layers")? {
        Some(list) => {
            super::reader::one_per_layer(cfg, "no_rope_layers", list.len(), layers)?;
            list.iter().map(|v| v.as_u64() != Some(0)).collect()
        }
        None => {
            let every = cfg
                .int(&["no_rope_layer_interval"], 1, MAX_LAYERS)?
                .unwrap_or(4);
            (0..layers).map(|i| (i + 1) % every != 0).collect()
        }
    };
    let own: Vec<bool> = match cfg.array("kv_source_layers")? {
        Some(list) => {
            super::reader::one_per_layer(cfg, "kv_source_layers", list.len(), layers)?;
            let mut own = Vec::with_capacity(n);
            for (i, v) in list.iter().enumerate() {
                match v.as_u64() {
                    Some(src) if src <= i as u64 => own.push(src == i as u64),
                    _ => {
                        return Err(InputError::new(
                            cfg.field("kv_source_layers"),
                            format!("entry {i} ({v}) must be a layer at or before it (0 to {i})"),
                        ))
                    }
                }
            }
            own
        }
        None => vec![true; n],
    };
    let full = full_indexers(cfg, layers)?;
    let dense = match per_layer_strings(cfg, "mlp_layer_types", layers)? {
        Some(types) => super::moe_layouts::dense_in(cfg, &types)?,
        None => cfg
            .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
            .unwrap_or(1)
            .min(layers),
    };
    let Some(mla) = spec.mla.as_mut() else {
        return Ok(());
    };
    let index_heads = cfg.int(&["index_n_heads"], 1, MAX_HEADS)?.unwrap_or(32);
    let index_dim = cfg.int(&["index_head_dim"], 1, MAX_HEADS)?.unwrap_or(128);
    let indexed = full.iter().filter(|f| **f).count() as u64;
    mla.indexer = (indexed > 0).then_some(Indexer {
        head_dim: index_dim,
        heads: index_heads,
        layers: indexed,
        pool: 0,
        key_bytes: 0,
    });
    mla.nope_layers = (0..n).filter(|&i| own[i] && !rope[i]).count() as u64;
    let mla = mla.clone();
    let shared = (0..n).filter(|&i| !own[i]).count() as u64;
    spec.kv_sharing = (shared > 0).then_some(KvSharing {
        sliding: 0,
        global: shared,
        double_wide_mlp: false,
    });
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense;
    }
    let alpha = mla.qk_rope_head_dim.div_ceil(2);
    spec.model_extra_params = spec.model_extra_params.saturating_add(alpha);
    // the layers, exactly
    let h = u128::from(spec.hidden);
    let heads = u128::from(spec.heads);
    let bias = u128::from(spec.qkv_bias);
    let (r, dn, dr, dv) = (
        u128::from(mla.kv_lora_rank),
        u128::from(mla.qk_nope_head_dim),
        u128::from(mla.qk_rope_head_dim),
        u128::from(mla.v_head_dim),
    );
    let (ni, di) = (u128::from(index_heads), u128::from(index_dim));
    let moe = spec.moe.clone();
    let dense_mlp = 3 * h * u128::from(spec.intermediate);
    let sparse_mlp = moe.as_ref().map_or(dense_mlp, |m| {
        let (e, im) = (u128::from(m.experts), u128::from(m.expert_intermediate));
        e * h + 3 * e * h * im + 3 * h * im * u128::from(m.shared_experts)
    });
    let dense_flags: Vec<bool> = match per_layer_strings(cfg, "mlp_layer_types", layers)? {
        Some(types) => types.iter().map(|t| *t == "dense").collect(),
        None => (0..layers).map(|i| i < dense).collect(),
    };
    let mut total: u128 = 0;
    for i in 0..n {
        let rope_width = if rope[i] { dr } else { 0 };
        let kv_a = if own[i] {
            (h + bias) * (r + rope_width) + r
        } else {
            0
        };
        let kv_b = r * heads * (dn + (dr - rope_width) + dv);
        let attention = h * heads * (dn + dr) + kv_a + kv_b + heads * dv * h + bias * h + 2 * heads;
        let indexer = if full[i] {
            h * ni * di + h * di + 2 * di + h * ni + 2 * h + 2 * ni
        } else {
            0
        };
        let mlp = if dense_flags[i] {
            dense_mlp
        } else {
            sparse_mlp
        };
        total += attention + indexer + mlp + 2 * h;
    }
    let counts = spec.param_counts();
    let fixed = u128::from(counts.embedding + counts.lm_head + counts.other);
    spec.params_override = Some(super::vlm::narrow(total + fixed, "text_config")?);
    Ok(())
}

/// The wrapper: its text model (the class is fixed: a `model_type` inside
/// `text_config` is not read), the Pixtral tower (the wrapper's 2048-wide,
/// 30-layer one of 14 px patches at 1540 px when `vision_config` is
/// absent, else `PixtralVisionConfig`'s class defaults for what it leaves
/// out) and Mistral 3's projector; the head tied by the wrapper's flag only
/// (default untied).
pub(super) fn import_mistral_large4(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "mistral_large4_text")?;
    let mut spec = import_text(&text)?;
    let counts = spec.param_counts();
    let text_head = u128::from(counts.lm_head);
    let body = u128::from(spec.params_override.unwrap_or(counts.total)) - text_head;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let head = u128::from(spec.param_counts().lm_head);
    let wrapper_tower = (2048, 30, 16, 6144, 1540, 14);
    let (v, defaults) = match cfg.object("vision_config")? {
        Some(v) => (v, super::pixtral::PIXTRAL_CLASS),
        None => (cfg.object_or_empty("vision_config", &empty)?, wrapper_tower),
    };
    let tower = super::pixtral::pixtral_tower(
        cfg,
        &v,
        spec.hidden,
        defaults,
        super::pixtral::PixtralProjector::Mistral3,
    )?;
    let vision = u128::from(tower.params.unwrap_or(0)) + u128::from(tower.projector_params);
    spec.vision = Some(tower);
    spec.params_override = Some(super::vlm::narrow(body + head + vision, "config.json")?);
    spec.name = "mistral_large4".to_string();
    Ok(spec)
}
