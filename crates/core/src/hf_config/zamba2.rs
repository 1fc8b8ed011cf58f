//! Zamba and Zamba2 (Zyphra).
//!
//! Zamba2 (`Zamba2Config`): a Mamba-2 mixer in every layer, and on
//! the `hybrid` layers of `layers_block_type` a transformer block run on the
//! hidden state concatenated with the token embeddings (so its attention
//! reads 2 × hidden, heads `attention_head_dim` wide, by default
//! 2·hidden / heads) followed by a
//! per-layer linear. The transformer blocks are shared: hybrid layer j uses
//! block j mod `num_mem_blocks`, and each block carries low-rank adapters
//! (`adapter_rank`) for every hybrid layer it serves, on its MLP's
//! gate_up and, with `use_shared_attention_adapter`, on q, k and v.
//!
//! transformers 5.24 shares the blocks through `_tied_weights_keys`, which
//! it applies only when `tie_word_embeddings` is true; untied, every hybrid
//! layer owns its copy. The fields of a [`ModelSpec`] cannot say that
//! weights are shared, so the exact total goes in `params_override` (the
//! layer groups are scaled to it); the cache and the activations follow
//! the layers as they run: every layer's Mamba-2 state, the hybrid layers'
//! keys and values.

use super::reader::{per_layer_strings, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    ModelSpec, Recurrent, RecurrentKind, MAX_DIM, MAX_HEADS, MAX_LAYERS, MAX_POSITION,
    MAX_TOTAL_PARAMS,
};

/// The class's `layers_block_type` when a config leaves it out (54 layers).
fn default_hybrid_layers() -> Vec<u64> {
    // ["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7
    // + ["linear_attention"] * 4 + ["hybrid"] + ["linear_attention"] * 3
    // + ["hybrid"] + ["linear_attention"] * 2
    let mut hybrid: Vec<u64> = (0..7).map(|k| 6 + 6 * k).collect();
    hybrid.extend([47, 51]);
    hybrid
}

/// Fills Zamba2's layers into `spec` (holding the common decoder fields).
pub(super) fn zamba2(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let hybrid: Vec<u64> = match per_layer_strings(cfg, "layers_block_type", layers)? {
        Some(types) => (0..layers)
            .filter(|i| types[*i as usize] == "hybrid")
            .collect(),
        None if layers == 54 => default_hybrid_layers(),
        None => {
            return Err(InputError::new(
                cfg.field("layers_block_type"),
                format!("is missing: Zamba2Config's default lists 54 layers, num_hidden_layers is {layers}; list the {layers} layers (\"mamba\" or \"hybrid\")"),
            ))
        }
    };
    let n_hyb = hybrid.len() as u64;
    let h = spec.hidden;
    let heads = spec.heads;
    // the config class derives 2·hidden / heads, but an `attention_head_dim`
    // given to it is what the attention builds
    let d = match cfg.int(&["attention_head_dim", "head_dim"], 1, MAX_HEADS)? {
        Some(d) => d,
        None => (2 * h / heads).max(1),
    };
    spec.head_dim = Some(d);
    spec.intermediate = cfg
        .int(&["intermediate_size"], 1, MAX_DIM)?
        .unwrap_or((4 * h).min(MAX_DIM));
    let bias = cfg.flag("add_bias_linear", false)?;
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(bias);
    spec.attention_layers = Some(n_hyb);
    spec.mlp_layers = Some(n_hyb);
    let expand = cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2);
    let inner = h.saturating_mul(expand).min(MAX_DIM);
    let mixer = Recurrent {
        kind: RecurrentKind::Mamba2,
        layers,
        inner,
        heads: cfg.int(&["n_mamba_heads"], 1, MAX_HEADS)?.unwrap_or(8),
        groups: cfg.int(&["mamba_ngroups"], 1, MAX_HEADS)?.unwrap_or(1),
        state: cfg.int(&["mamba_d_state"], 1, MAX_HEADS)?.unwrap_or(64),
        conv_kernel: cfg.int(&["mamba_d_conv"], 1, 64)?.unwrap_or(4),
        proj_bias: bias,
        // `Zamba2MambaMixer.conv1d` is built with bias=True
        conv_bias: true,
        gated_norm: true,
        chunk: cfg.int(&["chunk_size"], 1, MAX_POSITION)?.unwrap_or(256),
        ..Recurrent::default()
    };
    spec.recurrent = Some(mixer);
    spec.params_override = Some(exact_total(cfg, spec, n_hyb)?);
    Ok(())
}

/// The parameters transformers instantiates (`hf_variants_2026.csv`): the
/// Mamba-2 layers, embedding and head as the spec counts them without the
/// hybrid blocks, plus each hybrid layer's linear and the shared blocks.
fn exact_total(cfg: &Cfg, spec: &ModelSpec, n_hyb: u64) -> Result<u64> {
    // every layer: input_layernorm and the mixer, nothing else
    let mamba_only = ModelSpec {
        attention_layers: Some(0),
        mlp_layers: Some(0),
        norms_per_layer: Some(1),
        params_override: None,
        ..spec.clone()
    };
    let w = |x: u64| u128::from(x);
    let (h, heads, kv) = (w(spec.hidden), w(spec.heads), w(spec.kv_heads));
    let d = w(spec.head_dim());
    let i = w(spec.intermediate);
    let bias = u128::from(spec.mlp_bias == Some(true));
    // input_layernorm (2h) and pre_ff_layernorm; q/k/v from 2h, o to h;
    // gate_up and down
    let block = 2 * h * heads * d
        + 2 * (2 * h) * kv * d
        + heads * d * h
        + 3 * h
        + h * 2 * i
        + bias * 2 * i
        + i * h
        + bias * h;
    let rank = w(cfg.int(&["adapter_rank"], 1, MAX_DIM)?.unwrap_or(128));
    let attention_adapters = cfg.flag("use_shared_attention_adapter", false)?;
    let adapter =
        h * rank + rank * 2 * i + u128::from(attention_adapters) * 3 * (2 * (2 * h) * rank);
    let blocks = w(cfg.int(&["num_mem_blocks"], 1, MAX_DIM)?.unwrap_or(1));
    let hybrids = w(n_hyb);
    // block b serves the hybrid layers j with j mod blocks = b, and holds
    // one adapter for each
    let served = |b: u128| (hybrids + blocks - 1 - b) / blocks;
    let shared: u128 = if spec.tied_embeddings {
        (0..blocks.min(hybrids))
            .map(|b| block + served(b) * adapter)
            .sum()
    } else {
        (0..hybrids)
            .map(|j| block + served(j % blocks) * adapter)
            .sum()
    };
    let total = w(mamba_only.param_counts().total) + hybrids * h * h + shared;
    if total > w(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    Ok(total as u64)
}

/// Zamba (`ZambaConfig`, Zamba-7B): a Mamba-1 mixer (`n_mamba_heads`
/// split its channels without changing its weights) in every layer; on the
/// hybrid layers one shared transformer block (attention over the hidden
/// state concatenated with the embeddings, `attention_hidden_size` = 2 ×
/// hidden, heads `attention_head_dim` = 2·hidden / heads wide, and a gated
/// MLP) and a per-layer linear. Without `layers_block_type` the config
/// class makes layer 2 hybrid and, after it, every layer `i ≥ 3` with
/// `(i − 3) mod attn_layer_period = attn_layer_offset`. As in Zamba2 the
/// block is shared only when `tie_word_embeddings` is true; every hybrid
/// layer keeps its own keys and values. The SSM state is fp32 whatever the
/// model's dtype (the scan runs in fp32), and so is `A_log`
/// (`fp32_kept.rs`).
pub(super) fn zamba(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let hybrid: Vec<u64> = match per_layer_strings(cfg, "layers_block_type", layers)? {
        Some(types) => (0..layers)
            .filter(|i| types[*i as usize] == "hybrid")
            .collect(),
        None if layers < 3 => {
            return Err(InputError::new(
                cfg.field("num_hidden_layers"),
                format!(
                    "is {layers}: without layers_block_type ZambaConfig needs at least 3 layers"
                ),
            ))
        }
        None => {
            let period = cfg.int(&["attn_layer_period"], 1, MAX_LAYERS)?.unwrap_or(6);
            let offset = cfg.int(&["attn_layer_offset"], 0, MAX_LAYERS)?.unwrap_or(4);
            std::iter::once(2)
                .chain(
                    (0..layers - 3)
                        .filter(|i| i % period == offset)
                        .map(|i| i + 3),
                )
                .collect()
        }
    };
    let n_hyb = hybrid.len() as u64;
    if n_hyb == 1 && spec.tied_embeddings {
        return Err(InputError::new(
            cfg.field("layers_block_type"),
            "has one hybrid layer with tie_word_embeddings true: transformers 5.24 cannot build it (its tie of the shared block finds no second layer); untie it or add a hybrid layer",
        ));
    }
    let h = spec.hidden;
    let width = cfg
        .int(&["attention_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(2 * h);
    let d = match cfg.int(&["attention_head_dim", "head_dim"], 1, MAX_HEADS)? {
        Some(d) => d,
        None => (2 * h / spec.heads).max(1),
    };
    spec.head_dim = Some(d);
    spec.intermediate = cfg
        .int(&["intermediate_size"], 1, MAX_DIM)?
        .unwrap_or((4 * h).min(MAX_DIM));
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(false);
    spec.attention_layers = Some(n_hyb);
    spec.mlp_layers = Some(n_hyb);
    let expand = cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2);
    let inner = h.saturating_mul(expand).min(MAX_DIM);
    let mamba_heads = cfg.int(&["n_mamba_heads"], 1, MAX_HEADS)?.unwrap_or(2);
    if inner % mamba_heads != 0 {
        return Err(InputError::new(
            cfg.field("n_mamba_heads"),
            format!("is {mamba_heads}: it must divide mamba_expand × hidden_size = {inner}"),
        ));
    }
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::Mamba,
        layers,
        inner,
        state: cfg.int(&["mamba_d_state"], 1, MAX_HEADS)?.unwrap_or(16),
        conv_kernel: cfg.int(&["mamba_d_conv"], 1, 64)?.unwrap_or(4),
        dt_rank: super::reader::dt_rank(cfg, "mamba_dt_rank", h)?,
        proj_bias: cfg.flag("mamba_proj_bias", false)?,
        conv_bias: cfg.flag("mamba_conv_bias", true)?,
        state_fp32: true,
        ..Recurrent::default()
    });
    let w = u128::from;
    let (heads, kv, f) = (w(spec.heads), w(spec.kv_heads), w(spec.intermediate));
    let (a, hh, dd) = (w(width), w(h), w(d));
    // q, k, v read the concatenation; o writes the hidden width; gate, up
    // and down; input_layernorm (over the concatenation) and pre_ff_layernorm
    let block = a * heads * dd + 2 * a * kv * dd + heads * dd * hh + 3 * hh * f + a + hh;
    let copies = if spec.tied_embeddings {
        w(n_hyb.min(1))
    } else {
        w(n_hyb)
    };
    let mamba_only = ModelSpec {
        attention_layers: Some(0),
        mlp_layers: Some(0),
        norms_per_layer: Some(1),
        params_override: None,
        ..spec.clone()
    };
    let total = w(mamba_only.param_counts().total) + w(n_hyb) * hh * hh + copies * block;
    if total > w(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.params_override = Some(total as u64);
    Ok(())
}
