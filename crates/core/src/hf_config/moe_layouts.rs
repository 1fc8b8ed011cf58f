//! MoE layouts that borrow another family's layers: which layers keep a
//! dense MLP (`mlp_layer_types`, `first_k_dense_replace`,
//! `num_dense_layers`), how wide the shared experts are, whether the router
//! learns a bias, and the window patterns their config classes derive. Each
//! counts as its transformers modeling file builds it
//! (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{
    attention_bias, dense_width, one_per_layer, per_layer_strings, slide_layers,
    sliding_in_pattern, Cfg,
};
use crate::error::{InputError, Result};
use crate::model::{
    AttentionState, GlobalAttention, ModelSpec, Moe, QkNorm, Recurrent, RecurrentKind,
    SlidingWindow, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, MAX_POSITION,
};

/// Families completed before the early return of `modern::complete`: their
/// rows (DeepSeek-V3, Qwen3-MoE) are read by the common importer.
pub(super) fn complete_borrowed(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    match model_type {
        "afmoe" | "kolibri1" => sandwiched_qwen3_moe(cfg, model_type, spec)?,
        // GLM-4.7-Flash (`Glm4MoeLiteConfig`): DeepSeek-V3's MLA and MoE
        // layers, dense where `mlp_layer_types` says, else the first only.
        "glm4_moe_lite" => {
            let dense = dense_mlp_layers(cfg, spec.layers, 1)?;
            if let Some(moe) = spec.moe.as_mut() {
                moe.dense_layers = dense;
            }
        }
        "kimi_linear" => kimi_linear(cfg, spec)?,
        "longcat_flash" => longcat_flash(cfg, spec)?,
        "zaya" => zaya(cfg, spec)?,
        "laguna" => laguna(cfg, spec)?,
        "jetmoe" => jetmoe(cfg, spec)?,
        _ => {}
    }
    Ok(())
}

/// The experts of families that add them to another's layers (EXAONE-4,
/// Cohere-2, LFM2), after that family's own fields.
pub(super) fn complete_moe(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    match model_type {
        "exaone_moe" => exaone_moe(cfg, spec),
        "cohere2_moe" => cohere2_moe(cfg, spec),
        "lfm2_moe" => lfm2_moe(cfg, spec),
        "mimo_v2_flash" => mimo_v2_flash(cfg, spec),
        _ => Ok(()),
    }
}

/// AFMoE (Arcee's Trinity) and Kolibri-1: Qwen3-MoE's attention with four
/// norms per layer (input, post-attention, pre- and post-MLP) and ungated
/// shared experts. AFMoE gates the attention output (`gate_proj`: hidden →
/// heads·d), keeps its first `num_dense_layers` dense, shares
/// `num_shared_experts` experts of `moe_intermediate_size` and learns its
/// router's `expert_bias` as a parameter; its layers slide except every
/// `global_attn_every_n_layers`-th (4). Kolibri-1's every layer is MoE and
/// every fifth attends globally.
fn sandwiched_qwen3_moe(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    spec.norms_per_layer = Some(4);
    let layers = spec.layers;
    let global_every = if model_type == "afmoe" {
        spec.gated_attention = true;
        let dense = cfg
            .int(&["num_dense_layers"], 0, MAX_LAYERS)?
            .unwrap_or(1)
            .min(layers);
        let shared = cfg.int(&["num_shared_experts"], 0, 64)?.unwrap_or(2);
        if let Some(moe) = spec.moe.as_mut() {
            moe.dense_layers = dense;
            moe.shared_experts = shared;
            moe.shared_intermediate = None;
            moe.router_bias = true;
        }
        cfg.int(&["global_attn_every_n_layers"], 1, MAX_LAYERS)?
            .unwrap_or(4)
    } else {
        5
    };
    // A listed `layer_types` was counted by the common reader; without it,
    // Qwen3-MoE's `use_sliding_window` does not apply: the pattern decides.
    if !cfg.obj.contains_key("layer_types") {
        let window = cfg.int(&["sliding_window"], 0, MAX_POSITION)?.unwrap_or(0);
        spec.sliding_window = (window > 0).then_some(SlidingWindow {
            window,
            layers,
            keeps_prompt: false,
        });
        slide_layers(spec, sliding_in_pattern(layers, global_every));
    }
    Ok(())
}

/// LongCat-Flash (`LongcatFlashConfig`): each of `num_layers` blocks holds
/// two DeepSeek-V3 MLA sublayers, each with its dense MLP of
/// `ffn_hidden_size`, and one shortcut MoE of `n_routed_experts` experts of
/// `expert_ffn_hidden_size` whose router also scores `zero_expert_num`
/// identity experts (`LongcatFlashTopkRouter`: a classifier of
/// experts + zero experts rows, with `router_bias`). As sublayers: 2·blocks
/// layers, half of them dense, the other half MoE with the dense MLP as
/// their shared expert; what the zero experts add counted apart. The
/// config class's own names (`attribute_map`) are read too.
fn longcat_flash(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    // `num_hidden_layers` is the class's property 2·num_layers
    let blocks = match cfg.int(&["num_layers"], 1, MAX_LAYERS / 2)? {
        Some(b) => b,
        None => (spec.layers / 2).max(1),
    };
    spec.layers = 2 * blocks;
    let dense = cfg.req(&["ffn_hidden_size", "intermediate_size"], 1, MAX_DIM)?;
    let experts = cfg.req(&["n_routed_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    let zero = cfg.int(&["zero_expert_num"], 0, MAX_EXPERTS)?.unwrap_or(0);
    let router_bias = cfg.flag("router_bias", false)?;
    spec.intermediate = dense;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["moe_topk", "num_experts_per_tok"], 1, experts + zero)?,
        shared_experts: 1,
        expert_intermediate: cfg.req(
            &["expert_ffn_hidden_size", "moe_intermediate_size"],
            1,
            MAX_DIM,
        )?,
        shared_intermediate: Some(dense),
        dense_layers: blocks,
        router_bias,
        latent: 0,
    });
    // the zero experts' router rows, and their rows of the fused
    // `gate_up_proj`, which `LongcatFlashExperts` sizes for every expert the
    // router scores (E + Z) though only the E real ones read it
    let width = spec.moe.as_ref().map_or(0, |m| m.expert_intermediate);
    spec.model_extra_params = blocks
        .saturating_mul(zero)
        .saturating_mul(spec.hidden + u64::from(router_bias) + 2 * width * spec.hidden);
    Ok(())
}

/// ZAYA (`ZayaConfig`): every layer is CCA attention beside a top-1 MoE.
/// CCA (`ZayaCCAProjection`) projects q and k as usual and the values in
/// two halves of ⌊kv·d/2⌋ (the current and the previous token's), then
/// runs q|k through a depthwise convolution of `cca_time0` and a grouped
/// one of `cca_time1` (heads + kv heads groups), both biased; a learned key
/// scale per kv head (`temp`) stands for the q/k norms. The router
/// (`ZayaRouter`) is an MLP: down to `router_hidden_size` (biased), an
/// RMSNorm, two biased R×R layers and R → experts + 1 (a skip expert),
/// plus `router_states_scale` (R) on every layer but the first; two
/// residual-scaling modules (4·h each) per layer and an input scale and
/// bias (2·h) complete it. `layer_types` "hybrid_sliding" layers slide.
/// Every layer also keeps CCA's fixed per-sequence state: the q|k
/// convolutions' last (t0 − 1) + (t1 − 1) steps and the delayed value,
/// ⌊kv·d/2⌋ wide (5.25 KiB per layer at the defaults in bf16).
fn zaya(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let h = spec.hidden;
    let layers = spec.layers;
    let bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    spec.qk_norm = Some(QkNorm::Off);
    spec.lm_head_bias = cfg.flag("lm_head_bias", false)?;
    let experts = cfg.req(&["num_experts"], 1, MAX_EXPERTS)?;
    let width = cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?;
    spec.intermediate = width;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.int(&["num_experts_per_tok"], 1, experts)?.unwrap_or(1),
        shared_experts: 0,
        expert_intermediate: width,
        shared_intermediate: None,
        dense_layers: 0,
        router_bias: false,
        latent: 0,
    });
    let d = spec.head_dim();
    let (q, kvd) = (spec.heads * d, spec.kv_heads * d);
    let channels = q + kvd;
    let t0 = cfg.int(&["cca_time0"], 1, 64)?.unwrap_or(2);
    let t1 = cfg.int(&["cca_time1"], 1, 64)?.unwrap_or(2);
    spec.attention_state = Some(AttentionState {
        conv_channels: channels,
        conv_steps: (t0 - 1) + (t1 - 1),
        values: kvd / 2,
        fp32: false,
        extra: 0,
    });
    let r = cfg.int(&["router_hidden_size"], 1, MAX_DIM)?.unwrap_or(256);
    let convs = channels * t0 + channels + channels * d * t1 + channels;
    let router = h * r + r + r + 2 * (r * r + r) + r * (experts + 1);
    // the common count's v_proj is kv·d wide, CCA's two halves 2·⌊kv·d/2⌋,
    // and its router h × experts
    let odd_value = (kvd % 2) * (h + u64::from(bias));
    spec.layer_extra_params = (convs + spec.kv_heads + router + 8 * h)
        .saturating_sub(h * experts)
        .saturating_sub(odd_value);
    spec.model_extra_params = r * layers.saturating_sub(1) + 2 * h;
    let window = cfg.int(&["sliding_window"], 0, MAX_POSITION)?.unwrap_or(0);
    let sliding = per_layer_strings(cfg, "layer_types", layers)?.map_or(0, |types| {
        types.iter().filter(|t| **t == "hybrid_sliding").count() as u64
    });
    spec.sliding_window = (window > 0 && sliding > 0).then_some(SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: false,
    });
    Ok(())
}

/// How many of `layers` keep a dense MLP: the `"dense"` entries of
/// `mlp_layer_types` (one `"dense"` or `"sparse"` per layer), or without the
/// list the first `default` layers, as the config classes fill it in.
pub(super) fn dense_mlp_layers(cfg: &Cfg, layers: u64, default: u64) -> Result<u64> {
    match per_layer_strings(cfg, "mlp_layer_types", layers)? {
        Some(types) => dense_in(cfg, &types),
        None => Ok(default.min(layers)),
    }
}

/// The router weights of every MoE layer (`gate.weight`: experts × hidden).
pub(super) fn moe_routers(spec: &ModelSpec) -> u64 {
    spec.moe.as_ref().map_or(0, |m| {
        spec.layers
            .saturating_sub(m.dense_layers)
            .saturating_mul(m.experts.saturating_mul(spec.hidden))
    })
}

/// The `"dense"` entries of an `mlp_layer_types` list, refusing any entry
/// but `"dense"` and `"sparse"`.
pub(super) fn dense_in(cfg: &Cfg, types: &[&str]) -> Result<u64> {
    if let Some(bad) = types.iter().find(|t| !matches!(**t, "dense" | "sparse")) {
        return Err(InputError::new(
            cfg.field("mlp_layer_types"),
            format!("\"{bad}\" is not an MLP type: allowed \"dense\", \"sparse\""),
        ));
    }
    Ok(types.iter().filter(|t| **t == "dense").count() as u64)
}

/// K-EXAONE (`ExaoneMoeConfig`): EXAONE-4's attention over DeepSeek-V3's
/// experts and `num_shared_experts` shared ones of `moe_intermediate_size`
/// (the router's `e_score_correction_bias` is a buffer); dense layers from
/// `mlp_layer_types`, else the first `first_k_dense_replace`.
fn exaone_moe(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let first = cfg
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(1);
    let experts = cfg.req(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
        shared_experts: cfg.int(&["num_shared_experts"], 0, 64)?.unwrap_or(1),
        expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
        shared_intermediate: None,
        dense_layers: dense_mlp_layers(cfg, spec.layers, first)?,
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// HY-V3 (`HYV3MoE`): Qwen3's attention (q/k head norms) over routed
/// experts of `moe_intermediate_size` and one shared MLP of
/// `moe_intermediate_size × num_shared_experts`, which is `intermediate_size`
/// wide when that product is 0 (`HYV3MLP` takes `size or
/// config.intermediate_size`); the router's `e_score_correction_bias` is a
/// buffer; dense layers from `mlp_layer_types`, else the first.
pub(super) fn hy_v3(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    if spec.mlp_bias == Some(true) {
        return Err(InputError::new(
            cfg.field("mlp_bias"),
            "true is not modelled for HY-V3: its dense and shared MLPs take the bias but its experts do not; set it to false to estimate without those biases",
        ));
    }
    spec.qk_norm = Some(QkNorm::Head);
    let experts = cfg.req(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    let width = cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?;
    let shared = width * cfg.int(&["num_shared_experts"], 0, 64)?.unwrap_or(1);
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
        shared_experts: 1,
        expert_intermediate: width,
        shared_intermediate: Some(if shared > 0 {
            shared
        } else {
            spec.intermediate
        }),
        dense_layers: dense_mlp_layers(cfg, spec.layers, 1)?,
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// Cohere2-MoE (`Cohere2MoeConfig`): Cohere-2's parallel block with
/// Mixtral-style experts as wide as `intermediate_size`, `num_shared_experts`
/// shared ones averaged in without a gate, and dense layers (from
/// `mlp_layer_types`, else the first `first_k_dense_replace`) of
/// `prefix_dense_intermediate_size`. Without `layer_types`, the dense prefix
/// slides on its own pattern (`prefix_dense_sliding_window_pattern`, default
/// 1: none) and the rest on `sliding_window_pattern` (4).
fn cohere2_moe(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let width = spec.intermediate;
    let first = cfg
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(0)
        .min(layers);
    let experts = cfg.req(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
        shared_experts: cfg.int(&["num_shared_experts"], 0, 64)?.unwrap_or(0),
        expert_intermediate: width,
        shared_intermediate: None,
        dense_layers: dense_mlp_layers(cfg, layers, first)?,
        router_bias: false,
        latent: 0,
    });
    spec.intermediate = cfg
        .int(&["prefix_dense_intermediate_size"], 1, MAX_DIM)?
        .unwrap_or(width);
    if cfg.obj.contains_key("layer_types") {
        return Ok(());
    }
    let prefix_pattern = cfg
        .int(&["prefix_dense_sliding_window_pattern"], 1, MAX_LAYERS)?
        .unwrap_or(1);
    let pattern = cfg
        .int(&["sliding_window_pattern"], 1, MAX_LAYERS)?
        .unwrap_or(4);
    let sliding =
        sliding_in_pattern(first, prefix_pattern) + sliding_in_pattern(layers - first, pattern);
    slide_layers(spec, sliding);
    Ok(())
}

/// LFM2-MoE (`Lfm2MoeDecoderLayer`): LFM2's layers with a dense MLP of
/// `intermediate_size` on the first `num_dense_layers` and routed experts
/// of `moe_intermediate_size` after, no shared expert (the router's
/// `expert_bias` is a buffer).
fn lfm2_moe(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let experts = cfg.req(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    spec.intermediate = dense_width(cfg)?;
    spec.moe = Some(Moe {
        experts,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
        shared_experts: 0,
        expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
        shared_intermediate: None,
        dense_layers: cfg
            .int(&["num_dense_layers"], 0, MAX_LAYERS)?
            .unwrap_or(2)
            .min(spec.layers),
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// MiMo-V2-Flash (`MiMoV2FlashConfig` over GLM-4.5's): GLM-4.5's routed
/// experts without shared ones, dense where `mlp_layer_types` says (else
/// the first layer); keys 192 wide and values `v_head_dim` (128); the
/// sliding layers (all but layer 0 and every 6th) hold twice
/// `num_key_value_heads` and a learned sink per query head, the global
/// layers `num_key_value_heads`; `attention_bias` on q, k and v only. A
/// `sliding_window_size` (SGLang's) means that many tokens plus the query.
fn mimo_v2_flash(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let dense = dense_mlp_layers(cfg, layers, 1)?;
    if let Some(moe) = spec.moe.as_mut() {
        moe.shared_experts = 0;
        moe.dense_layers = dense;
    }
    let d = spec.head_dim();
    if let Some(dv) = cfg.int(&["v_head_dim"], 1, MAX_HEADS)? {
        spec.value_head_dim = (dv != d).then_some(dv);
    }
    let sliding = match super::reader::layer_types(cfg, layers)? {
        Some(types) => types
            .0
            .iter()
            .filter(|t| **t == "sliding_attention")
            .count() as u64,
        // every 6th layer attends globally, and layer 0
        None => sliding_in_pattern(layers, 6).saturating_sub(1),
    };
    let window = match cfg.int(&["sliding_window_size"], 1, MAX_POSITION - 1)? {
        Some(size) => size + 1,
        None => cfg
            .int(&["sliding_window"], 1, MAX_POSITION)?
            .unwrap_or(129),
    };
    spec.sliding_window = (sliding > 0).then_some(SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: false,
    });
    if sliding > 0 {
        let global_kv = spec.kv_heads;
        spec.kv_heads = global_kv.saturating_mul(2).min(MAX_HEADS);
        // the global layers keep the config's heads, the sliding ones twice
        // as many (and so do the params' k/v and the cache)
        spec.global_attention = Some(GlobalAttention {
            head_dim: d,
            kv_heads: global_kv,
            values_from_keys: false,
        });
        // `sinks`: one logit per query head in each sliding layer
        spec.model_extra_params = sliding.saturating_mul(spec.heads);
    }
    Ok(())
}

/// Kimi-Linear (`KimiLinearConfig`): DeepSeek-V3's MLA on the
/// `full_attention` layers (every 4th from layer 4 by default, or the
/// checkpoint's 1-based `linear_attn_config.full_attn_layers`), Kimi Delta
/// Attention on the others (`linear_num_heads` × `linear_head_dim`, conv
/// `linear_conv_kernel_dim`, or `linear_attn_config`'s `num_heads`,
/// `head_dim`, `short_conv_kernel_size`); DeepSeek-V3's experts
/// (`num_experts`, `num_experts_per_token`, `n_shared_experts`), dense
/// where `mlp_layer_types` says, else the first `first_k_dense_replace`
/// (1). Its head is never tied (`_tied_weights_keys` is empty).
fn kimi_linear(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    spec.tied_embeddings = false;
    // MLA reads no `num_key_value_heads` (its class default, 32, need not
    // divide a smaller model's heads)
    spec.kv_heads = spec.heads;
    if let Some(n) = cfg.int(&["model_max_length"], 0, MAX_POSITION)? {
        spec.max_position = n;
    }
    let linear = cfg.object("linear_attn_config")?;
    let kda = match super::reader::layer_types(cfg, layers)? {
        Some(types) => types.count(&["linear_attention"]),
        None => match linear.as_ref().map(|l| l.array("kda_layers")).transpose()? {
            Some(Some(list)) => kda_listed(cfg, list, layers)?,
            // `i and i % 4 == 0` attend fully
            _ => (0..layers).filter(|i| *i == 0 || i % 4 != 0).count() as u64,
        },
    };
    spec.recurrent = kimi_delta(cfg, kda)?;
    // `first_k_dense_replace` is only a keyword of the config class
    let first = cfg
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(1);
    let dense = dense_mlp_layers(cfg, layers, first)?;
    spec.moe = match cfg.int(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)? {
        Some(experts) => Some(Moe {
            experts,
            experts_per_token: cfg.req(
                &["num_experts_per_token", "num_experts_per_tok"],
                1,
                MAX_EXPERTS,
            )?,
            shared_experts: cfg
                .int(&["num_shared_experts", "n_shared_experts"], 0, 64)?
                .unwrap_or(1),
            expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
            shared_intermediate: None,
            dense_layers: dense,
            router_bias: false,
            latent: 0,
        }),
        None => None,
    };
    Ok(())
}

/// `kda` layers of Kimi Delta Attention (`KimiDeltaAttention`, and
/// GLM-5.3-Flash's copy): `linear_num_heads` × `linear_head_dim`, conv
/// `linear_conv_kernel_dim`, or `linear_attn_config`'s `num_heads`,
/// `head_dim`, `short_conv_kernel_size` (Kimi-Linear's class defaults 32,
/// 128, 4 when the config class has none).
pub(super) fn kimi_delta(cfg: &Cfg, kda: u64) -> Result<Option<Recurrent>> {
    let linear = cfg.object("linear_attn_config")?;
    let from_linear = |key: &'static str, flat: &'static str, default: u64| -> Result<u64> {
        let nested = match &linear {
            Some(l) => l.int(&[key], 1, MAX_HEADS)?,
            None => None,
        };
        Ok(match nested {
            Some(n) => n,
            None => cfg.int(&[flat], 1, MAX_HEADS)?.unwrap_or(default),
        })
    };
    let head = from_linear("head_dim", "linear_head_dim", 128)?;
    let heads = from_linear("num_heads", "linear_num_heads", 32)?;
    let kernel = from_linear("short_conv_kernel_size", "linear_conv_kernel_dim", 4)?;
    Ok((kda > 0).then(|| Recurrent {
        kind: RecurrentKind::KimiDelta,
        layers: kda,
        inner: heads.saturating_mul(head).min(MAX_DIM),
        heads,
        groups: heads,
        state: head,
        conv_kernel: kernel,
        gated_norm: true,
        ..Recurrent::default()
    }))
}

/// The KDA layers of a checkpoint's 1-based `kda_layers` list, each a layer.
fn kda_listed(cfg: &Cfg, list: &[serde_json::Value], layers: u64) -> Result<u64> {
    let mut seen = vec![false; layers as usize];
    for v in list {
        match v.as_u64() {
            Some(i) if (1..=layers).contains(&i) => seen[(i - 1) as usize] = true,
            _ => {
                return Err(InputError::new(
                    format!("{}linear_attn_config.kda_layers", cfg.field("")),
                    format!("{v} is not a layer: expected numbers from 1 to {layers}"),
                ))
            }
        }
    }
    Ok(seen.iter().filter(|s| **s).count() as u64)
}

/// Laguna (`LagunaConfig`, poolside): Qwen3-MoE's attention with a softplus
/// output gate (`g_proj`: hidden → one gate per head, or per channel when
/// `gating` is `"per-element"` or false), a query-head count per layer
/// (`num_attention_heads_per_layer`), routed experts whose router learns
/// `e_score_correction_bias` as a parameter, one ungated shared MLP of
/// `shared_expert_intermediate_size`, and dense layers where
/// `mlp_layer_types` says (else the first).
///
/// Layers of different head counts are modelled at the largest multiple of
/// `num_key_value_heads` at or below their mean, the heads above it counted
/// in `model_extra_params`: the parameters come out exact and the
/// activations, which grow with each layer's heads, as the mean layer's.
fn laguna(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let dense = dense_mlp_layers(cfg, layers, 1)?;
    let shared = cfg
        .int(&["shared_expert_intermediate_size"], 0, MAX_DIM)?
        .unwrap_or(0);
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense;
        moe.router_bias = true;
        moe.shared_experts = 1;
        moe.shared_intermediate = Some(shared);
    }
    let per_element = match cfg.obj.get("gating") {
        None | Some(serde_json::Value::Bool(true)) => false,
        Some(serde_json::Value::Bool(false)) => true,
        Some(serde_json::Value::String(s)) if s == "per-head" => false,
        Some(serde_json::Value::String(s)) if s == "per-element" => true,
        Some(other) => {
            return Err(InputError::new(
                cfg.field("gating"),
                format!(
                    "{other} is not a gating: allowed true, false, \"per-head\", \"per-element\""
                ),
            ))
        }
    };
    let (h, d, kv) = (spec.hidden, spec.head_dim(), spec.kv_heads);
    let total_heads = match cfg.array("num_attention_heads_per_layer")? {
        None => spec.heads * layers,
        Some(list) => {
            one_per_layer(cfg, "num_attention_heads_per_layer", list.len(), layers)?;
            let mut sum = 0;
            for v in list {
                match v.as_u64() {
                    Some(n) if (kv..=MAX_HEADS).contains(&n) && n % kv == 0 => sum += n,
                    _ => {
                        return Err(InputError::new(
                            cfg.field("num_attention_heads_per_layer"),
                            format!("{v} is not a head count: each must be a multiple of num_key_value_heads ({kv}) up to {MAX_HEADS}"),
                        ))
                    }
                }
            }
            sum
        }
    };
    spec.heads = (total_heads / layers / kv).max(1) * kv;
    let extra_heads = total_heads.saturating_sub(spec.heads * layers);
    // per head: q and o projections, q's bias, the head's gate rows
    let gate = if per_element { h * d } else { h };
    let bias = if spec.qkv_bias { d } else { 0 };
    // saturating: absurd widths reach the parameter-count limit, not a wrap
    let per_head = (2 * h * d).saturating_add(bias).saturating_add(gate);
    spec.model_extra_params = spec
        .model_extra_params
        .saturating_add(extra_heads.saturating_mul(per_head));
    if per_element {
        spec.gated_attention = true;
    } else {
        spec.layer_extra_params = spec
            .layer_extra_params
            .saturating_add(spec.heads.saturating_mul(h));
    }
    Ok(())
}

/// JetMoE (`JetMoeConfig`): Mixtral's experts (`num_local_experts` of
/// `intermediate_size`, a bias on the MoE output) and a mixture of
/// attention heads: keys and values from one shared `kv_proj`
/// (`num_key_value_heads` × `kv_channels`), queries and outputs from the
/// same number of attention experts, `num_experts_per_tok` of them per
/// token, so a token attends with kv heads × top-k query heads
/// (`num_attention_heads` is derived so). The attention experts a token
/// does not pick, the attention router and the two output biases are
/// counted per layer beyond Mixtral's.
fn jetmoe(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let Some(moe) = spec.moe.as_ref() else {
        return Ok(());
    };
    let (experts, top_k) = (moe.experts, moe.experts_per_token);
    if top_k > experts {
        return Err(InputError::new(
            cfg.field("num_experts_per_tok"),
            format!("{top_k} is more than num_local_experts ({experts})"),
        ));
    }
    let d = cfg
        .int(&["kv_channels", "head_dim"], 1, MAX_HEADS)?
        .unwrap_or(128);
    let kv = spec.kv_heads;
    spec.head_dim = Some(d);
    spec.heads = (kv * top_k).min(MAX_HEADS);
    let h = spec.hidden;
    let width = kv * d;
    // q and o experts beyond the top-k the generic layer counts, the
    // attention router, the attention's and the MoE's output biases
    // saturating: absurd widths reach the parameter-count limit, not a wrap
    let unpicked = (2 * (experts - top_k))
        .saturating_mul(width)
        .saturating_mul(h);
    spec.layer_extra_params = spec
        .layer_extra_params
        .saturating_add(unpicked)
        .saturating_add((experts + 2) * h);
    Ok(())
}
