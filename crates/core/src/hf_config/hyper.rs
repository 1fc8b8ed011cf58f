//! Families whose residual stream is `hc_mult` streams wide, mixed by
//! hyper-connections (DeepSeek-V4's manifold-constrained ones and HY-V4's
//! independent ones): a learned mix before and after every attention and
//! MLP block, and one more before the head. Their parameters are counted
//! as transformers 5.24 builds them (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{per_layer_strings, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    CompressedAttention, HyperConnections, HyperKind, ModelSpec, Moe, SlidingWindow, MAX_DIM,
    MAX_EXPERTS, MAX_HEADS, MAX_POSITION, MAX_TOTAL_PARAMS,
};

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
    spec.hyper_connections = Some(HyperConnections {
        streams,
        kind: HyperKind::Independent,
    });
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

/// The manifold-constrained connections: `hc_mult` streams (default 4) and
/// `hc_sinkhorn_iters` Sinkhorn steps (default 20).
pub(super) fn manifold_hc(cfg: &Cfg, fn_fp32: bool) -> Result<HyperConnections> {
    Ok(HyperConnections {
        streams: cfg.int(&["hc_mult"], 1, 64)?.unwrap_or(4),
        kind: HyperKind::Manifold {
            sinkhorn_iters: cfg.int(&["hc_sinkhorn_iters"], 1, 1000)?.unwrap_or(20),
            fn_fp32,
        },
    })
}

/// HY-V4's default indexer layout when `indexer_types` is absent
/// (`HYV4Config.__post_init__`): layer 0 and every fourth layer after
/// layer 1 run their own indexer (`"full"`), the rest reuse its top-k.
pub(super) fn hy_v4_full_indexers(layers: u64) -> u64 {
    (0..layers).filter(|&i| i == 0 || (i - 1) % 4 == 0).count() as u64
}

/// DeepSeek-V4 (`DeepseekV4ForCausalLM`): every layer attends over a
/// window of one head that is key and value, plus (per `layer_types`)
/// compressed entries: CSA layers with a lightning indexer, HCA layers
/// without ([`CompressedAttention`]); the queries come through a low-rank
/// `q_a`/`q_b`, the output through a grouped low-rank `o_a`/`o_b`, with a
/// sink per head. Every layer is MoE (routed experts and one shared expert
/// of `moe_intermediate_size`), under `hc_mult` hyper-connection streams.
///
/// The fields hold the shapes the cache and activations need (heads of
/// `head_dim`, one KV head, the window, the compressed layers); the
/// low-rank projections, compressors, indexers and connections have no
/// fields, so the exact total (`exact_deepseek_v4`) goes in
/// `params_override` and the layer groups are scaled to it.
pub(super) fn deepseek_v4(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    spec.kv_heads = 1;
    spec.head_dim = Some(cfg.int(&["head_dim"], 1, MAX_HEADS)?.unwrap_or(512));
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(false);
    // `intermediate_size` is the config's alias of the expert width
    let width = cfg
        .int(&["moe_intermediate_size", "intermediate_size"], 1, MAX_DIM)?
        .unwrap_or(2048);
    spec.intermediate = width;
    let experts = cfg
        .int(&["n_routed_experts", "num_local_experts"], 1, MAX_EXPERTS)?
        .unwrap_or(256);
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.int(&["num_experts_per_tok"], 1, experts)?.unwrap_or(6),
        // always one shared expert, whatever `n_shared_experts` says
        shared_experts: 1,
        expert_intermediate: width,
        shared_intermediate: None,
        dense_layers: 0,
        router_bias: false,
        latent: 0,
    });
    let (csa_layers, hca_layers) = compressed_layers(cfg, layers)?;
    let rates = cfg.object("compress_rates")?;
    let rate = |kind: &'static str, legacy: &'static str, default: u64| -> Result<u64> {
        if let Some(n) = cfg.int(&[legacy], 1, MAX_POSITION)? {
            return Ok(n);
        }
        Ok(match &rates {
            Some(r) => r.int(&[kind], 1, MAX_POSITION)?,
            None => None,
        }
        .unwrap_or(default))
    };
    let window = cfg
        .int(&["sliding_window"], 1, MAX_POSITION)?
        .unwrap_or(128);
    spec.sliding_window = Some(SlidingWindow {
        window,
        layers,
        keeps_prompt: false,
    });
    spec.compressed_attention = Some(CompressedAttention {
        csa_layers,
        csa_rate: rate("compressed_sparse_attention", "compress_rate_csa", 4)?,
        hca_layers,
        hca_rate: rate("heavily_compressed_attention", "compress_rate_hca", 128)?,
        index_head_dim: cfg.int(&["index_head_dim"], 1, MAX_HEADS)?.unwrap_or(128),
    });
    let (total, fp32) = exact_deepseek_v4(cfg, spec)?;
    spec.params_override = Some(total);
    spec.fp32_params = spec.fp32_params.saturating_add(fp32);
    // its connections' `fn` is among `_keep_in_fp32_modules_strict`
    spec.hyper_connections = Some(manifold_hc(cfg, true)?);
    Ok(())
}

/// How many layers are CSA and HCA: `layer_types` (the first
/// `num_hidden_layers` entries), else the legacy per-layer
/// `compress_ratios` (0: sliding, 4: CSA, 128: HCA), else the class's
/// default: two HCA layers, then HCA and CSA alternating.
fn compressed_layers(cfg: &Cfg, layers: u64) -> Result<(u64, u64)> {
    const CSA: &str = "compressed_sparse_attention";
    const HCA: &str = "heavily_compressed_attention";
    let short = |key: &str, listed: usize| {
        InputError::new(
            cfg.field(key),
            format!("lists {listed} layers but num_hidden_layers is {layers}"),
        )
    };
    let count = |kinds: &[&str]| {
        let of = |kind: &str| kinds.iter().filter(|k| **k == kind).count() as u64;
        (of(CSA), of(HCA))
    };
    if let Some(types) = cfg.strings("layer_types")? {
        let Some(types) = types.get(..layers as usize) else {
            return Err(short("layer_types", types.len()));
        };
        if let Some(bad) = types
            .iter()
            .find(|t| !matches!(**t, "sliding_attention" | CSA | HCA))
        {
            return Err(InputError::new(
                cfg.field("layer_types"),
                format!("\"{bad}\" is not a DeepSeek-V4 layer: allowed \"sliding_attention\", \"{CSA}\", \"{HCA}\""),
            ));
        }
        return Ok(count(types));
    }
    if let Some(ratios) = cfg.array("compress_ratios")? {
        let Some(ratios) = ratios.get(..layers as usize) else {
            return Err(short("compress_ratios", ratios.len()));
        };
        let mut kinds = Vec::with_capacity(ratios.len());
        for r in ratios {
            kinds.push(match r.as_u64() {
                Some(0) => "sliding_attention",
                Some(4) => CSA,
                Some(128) => HCA,
                _ => {
                    return Err(InputError::new(
                        cfg.field("compress_ratios"),
                        format!("{r} is not a compression ratio: allowed 0, 4, 128"),
                    ))
                }
            });
        }
        return Ok(count(&kinds));
    }
    // layers 0 and 1 HCA; then layer 2 + i is CSA for odd i
    let csa = layers.saturating_sub(2) / 2;
    Ok((csa, layers - csa))
}

/// The parameters `DeepseekV4ForCausalLM` instantiates (transformers 5.24,
/// `hf_variants_2026.csv`), with n = `hc_mult` streams.
/// (the exact total, the parameters its modeling file keeps fp32 on a
/// 16-bit load: `_keep_in_fp32_modules_strict`'s sinks, norms, position
/// biases, hyper-connections and `hc_head`).
fn exact_deepseek_v4(cfg: &Cfg, spec: &ModelSpec) -> Result<(u64, u64)> {
    let w = u128::from;
    let c = spec.compressed_attention.as_ref();
    let (h, layers, heads) = (w(spec.hidden), w(spec.layers), w(spec.heads));
    let d = w(spec.head_dim());
    let di = w(c.map_or(0, |c| c.index_head_dim));
    let (m, big_m) = (
        w(c.map_or(1, |c| c.csa_rate)),
        w(c.map_or(1, |c| c.hca_rate)),
    );
    let (csa, hca) = (
        w(c.map_or(0, |c| c.csa_layers)),
        w(c.map_or(0, |c| c.hca_layers)),
    );
    let int = |key: &'static str, default: u64| -> Result<u128> {
        Ok(w(cfg.int(&[key], 1, MAX_DIM)?.unwrap_or(default)))
    };
    let (q_rank, o_rank, groups) = (
        int("q_lora_rank", 1024)?,
        int("o_lora_rank", 1024)?,
        int("o_groups", 8)?,
    );
    // `attn_output.reshape(..., o_groups, -1)` splits the heads' output
    // into equal groups
    if (heads * d) % groups != 0 {
        return Err(InputError::new(
            cfg.field("o_groups"),
            format!(
                "{groups} must divide num_attention_heads × head_dim ({})",
                heads * d
            ),
        ));
    }
    let index_heads = int("index_n_heads", 64)?;
    let n = w(cfg.int(&["hc_mult"], 1, 64)?.unwrap_or(4));
    let (experts, width) = spec
        .moe
        .as_ref()
        .map_or((0, 0), |moe| (w(moe.experts), w(moe.expert_intermediate)));
    // q_a + its norm, q_b; the K=V projection and its norm; the grouped
    // o_a (heads·d → groups·o_rank, in groups) and o_b; a sink per head
    let attention = h * q_rank
        + q_rank
        + q_rank * heads * d
        + h * d
        + d
        + heads * d * o_rank
        + groups * o_rank * h
        + heads;
    // the compressor's kv and gate projections, its position bias and norm
    let hca_compressor = 2 * h * d + big_m * d + d;
    // CSA's compressor projects 2·d (its entries overlap), and its indexer
    // compresses keys of di the same way, with its own q_b and head weights
    let indexer = 2 * h * 2 * di + m * 2 * di + di + q_rank * index_heads * di + h * index_heads;
    let csa_compressor = 2 * h * 2 * d + m * 2 * d + d + indexer;
    let mlp_bias = u128::from(cfg.flag("mlp_bias", false)?) * (2 * width + h);
    // router, experts (gate_up and down), one shared expert
    let moe = experts * h + experts * 3 * h * width + 3 * h * width + mlp_bias;
    // attention's and the MLP's connections: fn [(2+n)·n, n·h], base, scale [3]
    let connections = 2 * ((2 + n) * n * n * h + (2 + n) * n + 3);
    let per_layer = attention + moe + connections + 2 * h;
    let vocab = w(spec.vocab);
    let head = if spec.tied_embeddings { 0 } else { vocab * h };
    let total = vocab * h
        + head
        + layers * per_layer
        + csa * csa_compressor
        + hca * hca_compressor
        + h
        + n * n * h
        + n
        + 1;
    if total > w(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    // fp32: per layer the sinks, q_a's and the K=V projection's norms, the
    // two layer norms and both connections; per compressed layer its
    // compressor's position bias and norm (and CSA's indexer's); the final
    // norm and hc_head (measured: `tests/data/params/fp32_kept.csv`)
    let fp32 = layers * (heads + q_rank + d + 2 * h + connections)
        + csa * (m * 2 * d + d + m * 2 * di + di)
        + hca * (big_m * d + d)
        + h
        + n * n * h
        + n
        + 1;
    Ok((total as u64, fp32.min(total) as u64))
}
