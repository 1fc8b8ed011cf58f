//! Families whose residual stream is `hc_mult` streams wide, mixed by
//! hyper-connections (DeepSeek-V4's manifold-constrained ones and HY-V4's
//! independent ones): a learned mix before and after every attention and
//! MLP block, and one more before the head. Their parameters are counted
//! as transformers 5.24 builds them (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{per_layer_strings, Cfg};
use crate::error::{InputError, Result};
use crate::model::ModelSpec;

/// HY-V4 (`HYV4ForCausalLM`, Tencent Hy4): GLM-MoE-DSA's MLA attention and
/// indexer (read by the common importer and `modern::complete`) with a
/// sigmoid output gate (`gate_proj`: hidden → heads·`v_head_dim`) and one
/// attention-sink logit per head; DeepSeek-V3's experts and shared experts,
/// dense where `mlp_layer_types` says (else the first layer only); an
/// independent hyper-connection of `hc_mult` streams before each block
/// (`HYV4HyperConnection`: `fn` [2n, n·hidden], `base` [2n], `scale` [2])
/// and a hyper head before the final norm (`HYV4HyperHead`: `hc_fn`
/// [n, n·hidden], `hc_base` [n], `hc_scale` [1]).
pub(super) fn hy_v4(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    // `__post_init__` sets num_key_value_heads to the heads: MLA expands
    // the latent to one key and value per query head.
    spec.kv_heads = spec.heads;
    if let Some(types) = per_layer_strings(cfg, "layer_types", spec.layers)? {
        if let Some(bad) = types.iter().find(|t| **t != "indexed_attention") {
            return Err(InputError::new(
                cfg.field("layer_types"),
                format!("\"{bad}\" is not a HY-V4 layer: every layer is \"indexed_attention\""),
            ));
        }
    }
    let dense = super::moe_layouts::dense_mlp_layers(cfg, spec.layers, 1)?;
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense;
    }
    let streams = cfg.int(&["hc_mult"], 1, 64)?.unwrap_or(4);
    let v = spec.mla.as_ref().map_or(0, |m| m.v_head_dim);
    let h = spec.hidden;
    let gate_and_sinks = h.saturating_mul(spec.heads.saturating_mul(v)) + spec.heads;
    // two connections per layer, each mixing 2n weights from the n·h streams
    let connection = (2 * streams)
        .saturating_mul(streams.saturating_mul(h))
        .saturating_add(2 * streams + 2);
    spec.layer_extra_params = spec
        .layer_extra_params
        .saturating_add(gate_and_sinks)
        .saturating_add(connection.saturating_mul(2));
    spec.model_extra_params = spec
        .model_extra_params
        .saturating_add(streams.saturating_mul(streams.saturating_mul(h)) + streams + 1);
    Ok(())
}

/// HY-V4's default indexer layout when `indexer_types` is absent
/// (`HYV4Config.__post_init__`): layer 0 and every fourth layer after
/// layer 1 run their own indexer (`"full"`), the rest reuse its top-k.
pub(super) fn hy_v4_full_indexers(layers: u64) -> u64 {
    (0..layers).filter(|&i| i == 0 || (i - 1) % 4 == 0).count() as u64
}
