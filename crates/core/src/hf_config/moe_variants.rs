//! MoE families that change one thing in a layout another family defines:
//! A.X-K1 (DeepSeek-V3 with a norm after each MoE block), A.X-K2
//! (DeepSeek-V3.2 with a gated query and gated norms), Aria's
//! language model (Llama attention over Mixtral-style experts with
//! always-on shared experts), Flint (Qwen2-MoE's layout with attention
//! sinks, an ungated shared expert and its own window pattern) and Beam
//! (Qwen3-MoE's attention with an output gate, sandwich norms and
//! DeepSeek-V3's grouped router), Lara-Mini (Flint's MoE block on every
//! layer of a Qwen3.5-style Gated DeltaNet hybrid) and Ling-3
//! (Kimi-Linear's hybrid with full-rank gates and gated MLA) and MiniMax-M3
//! (Mixtral's experts with a shared one and a block-sparse indexer). Each counts
//! as its transformers modeling file builds it
//! (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{layer_types, per_layer_strings, sliding_in_pattern, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    Indexer, ModelSpec, Moe, QkNorm, QsaIndexer, Recurrent, RecurrentKind, SlidingWindow, MAX_DIM,
    MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, MAX_POSITION,
};

/// The families of this module, after their rows' common fields.
pub(super) fn complete(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    match model_type {
        "axk1" => axk1(cfg, spec),
        "axk2" => axk2(cfg, spec),
        "aria_text" => aria_text(cfg, spec),
        "flint" => flint(cfg, spec),
        "beam" => beam(cfg, spec),
        "lara_mini" => lara_mini(cfg, spec),
        "bailing_hybrid" => bailing_hybrid(cfg, spec),
        "minimax_m3_vl_text" => minimax_m3(cfg, spec),
        _ => Ok(()),
    }
}

/// A.X-K1 (`AXK1Config(DeepseekV3Config)`, transformers 5.24):
/// - its MoE blocks end in `post_mlp_layernorm`, one RMSNorm of hidden
///   width per MoE layer (`AXK1MoE.__init__`);
/// - dense layers come from `mlp_layer_types`, else from the legacy
///   `first_k_dense_replace` (1) and `moe_layer_freq` (1), as its
///   `__post_init__` derives them: sparse where `i >= first` and
///   `i % freq == 0`;
/// - `AXK1Attention` always builds the low-rank query (`q_a_proj`), so a
///   null `q_lora_rank` cannot build.
fn axk1(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let moe_layers = axk_moe_layers(cfg, spec)?;
    spec.model_extra_params = spec
        .model_extra_params
        .saturating_add(moe_layers.saturating_mul(spec.hidden));
    Ok(())
}

/// A.X-K1's and A.X-K2's shared rules: dense layers from `mlp_layer_types`,
/// else from the legacy `first_k_dense_replace` (1) and `moe_layer_freq`
/// (1) their `__post_init__` reads (sparse where `i >= first` and
/// `i % freq == 0`); routed experts required; the low-rank query always
/// built, so a null `q_lora_rank` cannot build. Returns the MoE layers.
fn axk_moe_layers(cfg: &Cfg, spec: &mut ModelSpec) -> Result<u64> {
    let layers = spec.layers;
    let dense = match per_layer_strings(cfg, "mlp_layer_types", layers)? {
        Some(types) => super::moe_layouts::dense_in(cfg, &types)?,
        None => {
            let first = cfg
                .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
                .unwrap_or(1);
            let freq = cfg.int(&["moe_layer_freq"], 1, MAX_LAYERS)?.unwrap_or(1);
            (0..layers).filter(|&i| i < first || i % freq != 0).count() as u64
        }
    };
    let Some(moe) = spec.moe.as_mut() else {
        return Err(InputError::new(
            cfg.field("n_routed_experts"),
            "is required: the sparse layers are DeepSeek-V3 MoE blocks (1 to 4096)",
        ));
    };
    moe.dense_layers = dense;
    if spec.mla.as_ref().is_some_and(|m| m.q_lora_rank.is_none()) {
        return Err(InputError::new(
            cfg.field("q_lora_rank"),
            format!(
                "is required: the attention always projects the query through it (1 to {MAX_DIM})"
            ),
        ));
    }
    Ok(layers - dense)
}

/// A.X-K2 (`AXK2Config`, transformers 5.24): DeepSeek-V3.2's MLA with a
/// lightning indexer on every layer, with A.X-K1's dense/sparse rules and:
/// - no `q_b_proj`: `q_gate_proj` reads the low-rank query before and
///   after its norm (2·q_lora_rank) and writes each head's query and a
///   sigmoid output gate (heads·(nope + rope + v));
/// - gated RMSNorms (`AXK2GatedRMSNorm`: a norm and a bias-free
///   hidden → `gated_norm_rank` → hidden MLP) before every attention and
///   after the attention of every MoE layer;
/// - the routers fp32 on a 16-bit load. `layer_types` only picks the cache
///   class: every layer is indexed.
fn axk2(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let moe_layers = axk_moe_layers(cfg, spec)?;
    let h = spec.hidden;
    let heads = spec.heads;
    let rank = cfg.req(&["gated_norm_rank"], 1, MAX_DIM)?;
    let gated_norms = layers.saturating_add(moe_layers);
    let mut extra = gated_norms.saturating_mul(2u64.saturating_mul(h).saturating_mul(rank));
    if let Some(mla) = spec.mla.as_mut() {
        let q_rank = mla.q_lora_rank.unwrap_or(0);
        // q_gate_proj (2·q_rank → heads·(nope + rope + v)) instead of
        // q_b_proj (q_rank → heads·(nope + rope)), which the MLA counts
        let per_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim + 2 * mla.v_head_dim;
        extra = extra.saturating_add(
            layers.saturating_mul(q_rank.saturating_mul(heads).saturating_mul(per_head)),
        );
        mla.indexer = Some(Indexer {
            head_dim: cfg.req(&["index_head_dim"], 1, MAX_HEADS)?,
            heads: cfg.req(&["index_n_heads"], 1, MAX_HEADS)?,
            layers,
            pool: 0,
            key_bytes: 0,
        });
    }
    spec.model_extra_params = spec.model_extra_params.saturating_add(extra);
    Ok(())
}

/// Aria's language model (`AriaTextConfig`, transformers 5.24):
/// - Llama attention (`attention_bias` on q, k, v and o);
/// - every layer is MoE: `moe_num_experts` SiLU-gated experts of
///   `intermediate_size`, bias-free (`AriaExperts`), picked `moe_topk` at
///   a time by a bias-free router;
/// - `moe_num_shared_experts` always-on experts fused into one gated MLP
///   of `intermediate_size × moe_num_shared_experts`, with biases when
///   `mlp_bias` (`AriaSharedExpertsMLP`), and no shared-expert gate.
fn aria_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let bias = cfg.flag("attention_bias", false)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    // the routed experts never carry biases
    spec.mlp_bias = Some(false);
    let shared = cfg.int(&["moe_num_shared_experts"], 0, 64)?.unwrap_or(2);
    let Some(moe) = spec.moe.as_mut() else {
        return Ok(());
    };
    moe.shared_experts = shared;
    moe.shared_intermediate = None;
    if cfg.flag("mlp_bias", false)? {
        // gate and up biases of the fused shared width, and down's bias
        let width = shared.saturating_mul(moe.expert_intermediate);
        let per_layer = width.saturating_mul(2).saturating_add(spec.hidden);
        spec.layer_extra_params = spec.layer_extra_params.saturating_add(per_layer);
    }
    Ok(())
}

/// Flint (`FlintConfig(Qwen2MoeConfig)`, transformers 5.24): Qwen3-MoE's
/// attention (q/k norms per head) with one learned sink logit per head on
/// every layer (`FlintAttention.sinks`), MoE by Qwen2-MoE's rule with
/// `mlp_only_layers` defaulting to `[0, 1]`, and a shared expert of
/// `shared_expert_intermediate_size` without a gate. Its `__post_init__`
/// makes layer `i` attend fully when `i < 2`, `i % 4 == 1` or it is the
/// last, the others slide over `sliding_window` (513), whatever
/// `use_sliding_window` says (Flint drops that key). The sinks and routers
/// stay fp32 on a 16-bit load (`_keep_in_fp32_modules_strict`).
fn flint(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let heads = spec.heads;
    spec.layer_extra_params = spec.layer_extra_params.saturating_add(heads);
    spec.fp32_params = spec
        .fp32_params
        .saturating_add(layers.saturating_mul(heads));
    if !cfg.obj.contains_key("mlp_only_layers") {
        let step = cfg
            .int(&["decoder_sparse_step"], 1, MAX_LAYERS)?
            .unwrap_or(1);
        let dense = (0..layers)
            .filter(|&i| i < 2 || (i + 1) % step != 0)
            .count() as u64;
        if let Some(moe) = spec.moe.as_mut() {
            moe.dense_layers = dense;
        }
    }
    if !cfg.obj.contains_key("layer_types") {
        let window = cfg.req(&["sliding_window"], 1, MAX_POSITION)?;
        let sliding = (0..layers)
            .filter(|&i| !(i < 2 || i % 4 == 1 || i + 1 == layers))
            .count() as u64;
        spec.sliding_window = (sliding > 0).then_some(SlidingWindow {
            window,
            layers: sliding,
            keeps_prompt: false,
        });
    }
    Ok(())
}

/// Beam (`BeamConfig(Qwen3MoeConfig)`, transformers 5.24): Qwen3-MoE's
/// attention with an output gate (`gate_proj`: hidden → heads·d, never
/// biased, and `gate_bias`, one per head), four norms per layer (before and
/// after attention and the MLP), MoE layers by `mlp_layer_types` (the first
/// three dense by default) without a shared expert, the router fp32 on a
/// 16-bit load. Without `layer_types` every sixth layer and the last attend
/// fully, the others slide (`(i + 1) % 6`, the last forced full).
fn beam(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    spec.gated_attention = true;
    spec.norms_per_layer = Some(4);
    spec.layer_extra_params = spec.layer_extra_params.saturating_add(spec.heads);
    let dense = super::moe_layouts::dense_mlp_layers(cfg, layers, 3)?;
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense;
        moe.shared_experts = 0;
        moe.shared_intermediate = None;
    }
    if !cfg.obj.contains_key("layer_types") {
        let window = cfg.req(&["sliding_window"], 1, MAX_POSITION)?;
        let last_slides = !layers.is_multiple_of(6);
        let sliding = sliding_in_pattern(layers, 6) - u64::from(last_slides);
        spec.sliding_window = (sliding > 0).then_some(SlidingWindow {
            window,
            layers: sliding,
            keeps_prompt: false,
        });
    }
    Ok(())
}

/// Lara-Mini (`LaraMiniConfig`, transformers 5.24): Qwen3.5's Gated
/// DeltaNet (`in_proj_qkv`, its own `in_proj_z`, a bias-free convolution)
/// on `linear_attention` layers, Qwen3's attention with per-head q/k norms
/// and no output gate on the others (sliding or full), and on every layer
/// an MoE of routed experts plus an ungated shared expert (its config has
/// no dense width, `mlp_only_layers` or sparse step). Without `layer_types`
/// its `__post_init__` repeats [linear, sliding, linear, full, sliding].
fn lara_mini(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let (linear, sliding) = match layer_types(cfg, layers)? {
        Some(types) => (
            types.count(&["linear_attention", "mamba"]),
            types.count(&["sliding_attention"]),
        ),
        None => {
            let in_period =
                |kinds: &[u64]| (0..layers).filter(|i| kinds.contains(&(i % 5))).count();
            (in_period(&[0, 2]) as u64, in_period(&[1, 4]) as u64)
        }
    };
    let window = cfg.req(&["sliding_window"], 1, MAX_POSITION)?;
    spec.sliding_window = (sliding > 0).then_some(SlidingWindow {
        window,
        layers: sliding,
        keeps_prompt: false,
    });
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = 0;
    }
    let value_heads = cfg.req(&["linear_num_value_heads"], 1, MAX_HEADS)?;
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::GatedDeltaNet,
        layers: linear,
        inner: value_heads.saturating_mul(cfg.req(&["linear_value_head_dim"], 1, MAX_HEADS)?),
        heads: value_heads,
        groups: cfg.req(&["linear_num_key_heads"], 1, MAX_HEADS)?,
        state: cfg.req(&["linear_key_head_dim"], 1, MAX_HEADS)?,
        conv_kernel: cfg.int(&["linear_conv_kernel_dim"], 1, 64)?.unwrap_or(4),
        gated_norm: true,
        separate_z: true,
        ..Recurrent::default()
    });
    Ok(())
}

/// Ling-3 (`BailingHybridConfig`, transformers 5.24), DeepSeek-V3's config
/// and layers around Kimi Delta Attention:
/// - `full_attention` layers run DeepSeek-V3's MLA with a per-head output
///   gate (`g_proj`: hidden → heads); any other layer type runs KDA with
///   full-rank forget and output gates (`f_proj`, `g_proj`: hidden →
///   heads·d). Without `layer_types`, layer `i` is MLA when
///   `(i + 1) % layer_group_size == 0` (6);
/// - KDA is `linear_num_heads` × `linear_head_dim` with a kernel of
///   `linear_conv_kernel_dim`, which the config derives from the attention
///   heads, `head_dim` (before it becomes the rope width) and
///   `short_conv_kernel_size`;
/// - dense layers by `mlp_layer_types`, else the first
///   `first_k_dense_replace` (2); MoE experts under its own key names
///   (`num_experts`, `num_experts_per_token`, `num_shared_experts`);
/// - the head is never tied (`_tied_weights_keys` is empty);
/// - KDA's convolution, `dt_bias` and `A_log` and the routers stay fp32 on
///   a 16-bit load (`_keep_in_fp32_modules_strict`).
fn bailing_hybrid(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    spec.tied_embeddings = false;
    spec.kv_heads = spec.heads;
    if let Some(n) = cfg.int(&["model_max_length"], 0, MAX_POSITION)? {
        spec.max_position = n;
    }
    let kda = match layer_types(cfg, layers)? {
        Some(types) => layers - types.count(&["full_attention"]),
        None => {
            let group = cfg.int(&["layer_group_size"], 1, MAX_LAYERS)?.unwrap_or(6);
            (0..layers).filter(|i| (i + 1) % group != 0).count() as u64
        }
    };
    // the linear keys are derived by `__post_init__`: their class defaults
    // stand for the keys they come from, so only a written one is read
    let written = |key: &str| cfg.obj.contains_key(key);
    let heads = match written("linear_num_heads") {
        true => cfg.req(&["linear_num_heads"], 1, MAX_HEADS)?,
        false => spec.heads,
    };
    let head = match written("linear_head_dim") {
        true => cfg.req(&["linear_head_dim"], 1, MAX_HEADS)?,
        false => cfg.req(&["head_dim"], 1, MAX_HEADS)?,
    };
    let kernel = match written("linear_conv_kernel_dim") {
        true => cfg.req(&["linear_conv_kernel_dim"], 1, 64)?,
        false => cfg.int(&["short_conv_kernel_size"], 1, 64)?.unwrap_or(4),
    };
    let inner = heads.saturating_mul(head).min(MAX_DIM);
    spec.recurrent = (kda > 0).then_some(Recurrent {
        kind: RecurrentKind::KimiDelta,
        layers: kda,
        inner,
        heads,
        groups: heads,
        state: head,
        conv_kernel: kernel,
        gated_norm: true,
        full_rank_gates: true,
        ..Recurrent::default()
    });
    // MLA's per-head output gate
    let mla = layers - kda;
    spec.model_extra_params = spec
        .model_extra_params
        .saturating_add(mla.saturating_mul(spec.hidden.saturating_mul(spec.heads)));
    let first = cfg
        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
        .unwrap_or(2);
    let dense = super::moe_layouts::dense_mlp_layers(cfg, layers, first)?;
    let experts = cfg.req(&["num_local_experts", "num_experts"], 1, MAX_EXPERTS)?;
    spec.moe = Some(Moe {
        experts,
        // the attribute names before the names it saves them under
        experts_per_token: cfg.req(
            &["num_experts_per_tok", "num_experts_per_token"],
            1,
            MAX_EXPERTS,
        )?,
        shared_experts: cfg
            .int(&["n_shared_experts", "num_shared_experts"], 0, 64)?
            .unwrap_or(1),
        expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
        shared_intermediate: None,
        dense_layers: dense,
        router_bias: false,
        latent: 0,
    });
    spec.fp32_params = spec.fp32_params.saturating_add(
        kda.saturating_mul(inner.saturating_mul(3 * kernel + 1).saturating_add(heads)),
    );
    Ok(())
}

/// MiniMax-M3's language model (`MiniMaxM3VLTextConfig`, transformers
/// 5.24): GQA with per-head q/k norms; MoE layers of `num_local_experts`
/// experts of `intermediate_size` with one shared expert of
/// `shared_intermediate_size`, dense layers of `dense_intermediate_size`,
/// by `mlp_layer_types` (all MoE by default); `minimax_m3_sparse` layers
/// add a lightning indexer (`q_proj` hidden → `index_n_heads`·d, one key
/// head `k_proj` hidden → d, q and k RMSNorms of d) whose key the cache
/// keeps per token (`idx_keys`); the class default has none. The legacy
/// keys its `__post_init__` maps are read too: `moe_layer_freq` (1 for
/// MoE) and `sparse_attention_config`.
fn minimax_m3(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    spec.qk_norm = Some(QkNorm::Head);
    let legacy = cfg.object("sparse_attention_config")?;
    let dense = match per_layer_strings(cfg, "mlp_layer_types", layers)? {
        Some(types) => super::moe_layouts::dense_in(cfg, &types)?,
        None => match cfg.array("moe_layer_freq")? {
            Some(freq) => {
                super::reader::one_per_layer(cfg, "moe_layer_freq", freq.len(), layers)?;
                freq.iter().filter(|v| v.as_u64() == Some(0)).count() as u64
            }
            None => 0,
        },
    };
    spec.intermediate = cfg.req(&["dense_intermediate_size"], 1, MAX_DIM)?;
    let shared = cfg.req(&["shared_intermediate_size"], 0, MAX_DIM)?;
    if let Some(moe) = spec.moe.as_mut() {
        moe.dense_layers = dense;
        moe.shared_experts = u64::from(shared > 0);
        moe.shared_intermediate = (shared > 0).then_some(shared);
    }
    let sparse = match per_layer_strings(cfg, "layer_types", layers)? {
        Some(types) => types.iter().filter(|t| **t == "minimax_m3_sparse").count() as u64,
        None => match legacy
            .as_ref()
            .map(|l| l.array("sparse_attention_freq"))
            .transpose()?
        {
            Some(Some(freq)) => freq.iter().filter(|v| v.as_u64() == Some(1)).count() as u64,
            _ => 0,
        },
    };
    // the legacy dict's values win over the flat keys where it has them
    let from_legacy = |key: &'static str, flat: &'static str| -> Result<u64> {
        let nested = match &legacy {
            Some(l) => l.int(&[key], 1, MAX_HEADS)?,
            None => None,
        };
        match nested {
            Some(n) => Ok(n),
            None => cfg.req(&[flat], 1, MAX_HEADS),
        }
    };
    if sparse > 0 {
        spec.qsa_indexer = Some(QsaIndexer {
            heads: from_legacy("sparse_num_index_heads", "index_n_heads")?.saturating_add(1),
            head_dim: from_legacy("sparse_index_dim", "index_head_dim")?,
            layers: sparse.min(layers),
            keys_only: true,
        });
    }
    Ok(())
}
