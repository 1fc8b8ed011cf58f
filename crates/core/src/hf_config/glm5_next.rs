//! GLM-5.3-Flash (`glm5_next`, `Glm5NextForConditionalGeneration`): a
//! hybrid language model (`Glm5NextTextConfig`, `glm5_next_text`) of Kimi
//! Delta Attention layers and, every fourth layer, NoPE MLA with a pooled
//! DSA indexer; DeepSeek-V3's experts after three dense layers; a
//! DeepSeek-V4-style hyper-connection of `hc_mult` streams around every
//! block; and GLM-OCR's vision tower with a wider merger. Counts name the
//! modules of `modeling_glm5_next.py` (transformers 5.24); the configs are
//! in `tests/data/params/variants_2026b.py` and their counts in
//! `hf_variants_2026.csv`.

use serde_json::Map;

use super::moe_layouts::{dense_mlp_layers, kimi_delta, moe_routers};
use super::reader::{per_layer_strings, Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{Arch, Indexer, ModelSpec, Moe, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_POSITION};

/// The wrapper: its language model (DeepSeek-V3's fields read by
/// `import_decoder` as `glm5_next_text`, which [`complete_text`]
/// completes), the tower and the projector. A checkpoint without `text_config` is a flat text-only one,
/// whose top-level keys `Glm5NextConfig.__post_init__` takes as the text
/// config (the tower is still built, from its defaults).
pub(super) fn import_glm5_next(
    cfg: &Cfg,
    import_decoder: impl Fn(&Cfg, Arch, &str) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let (mut text_keys, prefix) = match cfg.object("text_config")? {
        Some(text) => (text.obj.clone(), text.prefix.clone()),
        None => (cfg.obj.clone(), cfg.prefix.clone()),
    };
    // `__post_init__` always overwrites `head_dim` with the rotary width
    // (0: the attention is NoPE), so a saved one means nothing.
    text_keys.remove("head_dim");
    let mut text = Cfg::new(&text_keys, &prefix);
    text.defaults = Defaults::Class("glm5_next_text");
    let mut spec = import_decoder(&text, Arch::DeepseekV3, "glm5_next_text")?;
    complete_text(&text, &mut spec)?;
    // `_tied_weights_keys` ties the head only by the wrapper's own flag
    // (default False); the text config's is not read.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let empty = Map::new();
    let mut vision = cfg.object_or_empty("vision_config", &empty)?;
    vision.defaults = Defaults::Class("glm5_next_vision");
    spec.vision = Some(super::glm4v::glm5_next_vision(&vision)?);
    spec.name = "glm5_next".to_string();
    Ok(spec)
}

/// The text model over DeepSeek-V3's fields (the MLA ranks, the experts):
/// `layer_types` (default: layer i is MLA when i % 4 == 3, else KDA), the
/// indexer on the MLA layers that `indexer_types` marks `"full"`, with its
/// pool of `index_kpool` tokens; dense MLPs where `mlp_layer_types` says
/// (default the first three: `first_k_dense_replace` is not read); and two
/// hyper-connections per layer (`Glm5NextHyperConnection`: `fn`
/// [(2+n)·n, n·hidden], `base` [(2+n)·n], `scale` [3]); the final collapse
/// of the streams is a parameter-free mean.
fn complete_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    validate(cfg, spec)?;
    // MLA expands its latent to one key and value per query head
    spec.kv_heads = spec.heads;
    let linear: Vec<bool> = match per_layer_strings(cfg, "layer_types", layers)? {
        Some(types) => types
            .iter()
            .map(|t| match *t {
                "linear_attention" => Ok(true),
                "indexed_attention" | "full_attention" => Ok(false),
                other => Err(InputError::new(
                    cfg.field("layer_types"),
                    format!(
                        "\"{other}\" is not a GLM-5.3 layer: allowed \"linear_attention\", \
                         \"indexed_attention\", \"full_attention\""
                    ),
                )),
            })
            .collect::<Result<_>>()?,
        None => (0..layers).map(|i| i % 4 != 3).collect(),
    };
    let full = super::indexer_types::full_indexers(cfg, layers)?;
    let indexed = linear
        .iter()
        .zip(&full)
        .filter(|(kda, full)| !**kda && **full)
        .count() as u64;
    let kda = linear.iter().filter(|l| **l).count() as u64;
    spec.recurrent = kimi_delta(cfg, kda)?;
    let pool = cfg.req(&["index_kpool"], 1, MAX_POSITION)?;
    if let Some(mla) = spec.mla.as_mut() {
        spec.head_dim = Some((mla.qk_nope_head_dim + mla.qk_rope_head_dim).max(1));
        mla.indexer = Some(Indexer {
            head_dim: cfg.req(&["index_head_dim"], 1, MAX_HEADS)?,
            heads: cfg.req(&["index_n_heads"], 1, MAX_HEADS)?,
            layers: indexed,
            pool,
            key_bytes: 0,
        });
    }
    let experts = cfg.req(&["n_routed_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    spec.intermediate = cfg.req(&["intermediate_size"], 1, MAX_DIM)?;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
        shared_experts: cfg.int(&["n_shared_experts"], 0, 64)?.unwrap_or(1),
        expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
        shared_intermediate: None,
        dense_layers: dense_mlp_layers(cfg, layers, 3)?,
        router_bias: false,
        latent: 0,
    });
    // `fn` follows the model's dtype (not among `_keep_in_fp32_modules_strict`)
    spec.hyper_connections = Some(super::hyper::manifold_hc(cfg, false)?);
    let streams = cfg.req(&["hc_mult"], 1, 64)?;
    let mix = (2 + streams) * streams;
    let connection = mix
        .saturating_mul(streams.saturating_mul(spec.hidden))
        .saturating_add(mix + 3);
    spec.layer_extra_params = spec
        .layer_extra_params
        .saturating_add(connection.saturating_mul(2));
    spec.fp32_params = kept_in_fp32(spec, mix);
    Ok(())
}

/// `_keep_in_fp32_modules_strict`: the routers (`mlp.gate.weight`), the KDA
/// layers' `conv1d`, `dt_bias` and `A_log`, and both connections' `base`
/// and `scale` in every layer.
fn kept_in_fp32(spec: &ModelSpec, mix: u64) -> u64 {
    let routers = moe_routers(spec);
    let kda = spec.recurrent.as_ref().map_or(0, |r| {
        let per = (3 * r.inner).saturating_mul(r.conv_kernel) + r.inner + r.heads;
        r.layers.saturating_mul(per)
    });
    let connections = spec.layers.saturating_mul(2 * (mix + 3));
    routers.saturating_add(kda).saturating_add(connections)
}

/// `Glm5NextTextConfig.validate_architecture`'s refusals: as many key and
/// value heads as query heads, a low-rank query, NoPE, a pool that divides
/// the top-k.
fn validate(cfg: &Cfg, spec: &ModelSpec) -> Result<()> {
    if let Some(kv) = cfg.int(&["num_key_value_heads"], 1, MAX_HEADS)? {
        if kv != spec.heads {
            return Err(InputError::new(
                cfg.field("num_key_value_heads"),
                format!(
                    "must equal num_attention_heads ({}) in GLM-5.3-Flash, got {kv}",
                    spec.heads
                ),
            ));
        }
    }
    let Some(mla) = &spec.mla else {
        return Ok(());
    };
    if mla.q_lora_rank.is_none() {
        return Err(InputError::new(
            cfg.field("q_lora_rank"),
            "is required: GLM-5.3-Flash's indexer reads the low-rank query (1 to 1073741824)",
        ));
    }
    if mla.qk_rope_head_dim > 0 {
        return Err(InputError::new(
            cfg.field("qk_rope_head_dim"),
            format!(
                "must be 0: GLM-5.3-Flash's attention has no rotary part (NoPE), got {}",
                mla.qk_rope_head_dim
            ),
        ));
    }
    let pool = cfg.req(&["index_kpool"], 1, MAX_POSITION)?;
    let top_k = cfg.req(&["index_topk"], 1, MAX_POSITION)?;
    if !top_k.is_multiple_of(pool) {
        return Err(InputError::new(
            cfg.field("index_kpool"),
            format!("must divide index_topk ({top_k}), got {pool}"),
        ));
    }
    Ok(())
}
