//! Layouts of 2021–24 with their own key names: GPT-J and CodeGen (`n_embd`,
//! `n_inner`), OPT's layers under BioGPT, XGLM and CTRL, Persimmon, Falcon (`multi_query`, `new_decoder_architecture`), MPT and DBRX (`d_model`, `n_heads`, `n_layers`, attention and
//! feed-forward settings in nested `attn_config` / `ffn_config` objects,
//! weight-only LayerNorms counted as one vector, like RMSNorm). Each is
//! counted as transformers' modeling file builds it
//! (`tests/data/params/hf_variants_2026.csv`).

use super::reader::{Cfg, KV_HEADS};
use crate::error::{InputError, Result};
use crate::model::{MlpKind, ModelSpec, Moe, QkNorm, MAX_DIM, MAX_EXPERTS, MAX_HEADS};

/// GPT-J (`GPTJForCausalLM`): Phi's parallel block and biased head and
/// MLP, with no biases on q, k, v or the output (`GPTJAttention`) and an
/// MLP of `n_inner` (4 × `n_embd` when null). CodeGen's layers are the
/// same weights, q, k and v fused in one unbiased `qkv_proj`.
pub(super) fn gptj(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    spec.intermediate = match cfg.int(&["n_inner"], 1, MAX_DIM)? {
        Some(n) => n,
        None => spec.hidden.saturating_mul(4).min(MAX_DIM),
    };
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(true);
    spec.lm_head_bias = true;
    spec.parallel_block = true;
    Ok(())
}

/// GPT-Neo (`GPTNeoConfig`): an MLP of `intermediate_size` (4 × hidden
/// when null), and `attention_types` (`[[["global", "local"], 12]]` by
/// default), each pattern repeated, which must name every layer: the
/// config class refuses a mismatch. Its local layers mask a window
/// (`window_size`) over a cache that keeps every token
/// (`DynamicCache(config=...)` finds no `layer_types`), so the window
/// changes no byte.
pub(super) fn gpt_neo(cfg: &Cfg, spec: &mut ModelSpec, four_h: u64) -> Result<()> {
    spec.intermediate = cfg
        .int(&["intermediate_size"], 1, MAX_DIM)?
        .unwrap_or(four_h);
    let Some(types) = cfg.array("attention_types")? else {
        // the class's default, [[["global", "local"], 12]], names 24 layers
        if spec.layers != 24 {
            return Err(InputError::new(
                cfg.field("attention_types"),
                format!(
                    "is absent, so GPT-Neo's default pattern names 24 layers, but num_layers is {}: the config class refuses it; list the layers' kinds",
                    spec.layers
                ),
            ));
        }
        return Ok(());
    };
    let mut layers: u64 = 0;
    for item in types {
        let pattern = item.get(0).and_then(|p| p.as_array());
        let repeat = item.get(1).and_then(serde_json::Value::as_u64);
        let (Some(pattern), Some(repeat)) = (pattern, repeat) else {
            return Err(InputError::new(
                cfg.field("attention_types"),
                "entries are [[kinds...], repeat], as [[\"global\", \"local\"], 12]",
            ));
        };
        if let Some(bad) = pattern
            .iter()
            .find(|k| !matches!(k.as_str(), Some("global" | "local")))
        {
            return Err(InputError::new(
                cfg.field("attention_types"),
                format!("{bad} is not an attention kind: allowed \"global\", \"local\""),
            ));
        }
        layers = layers.saturating_add((pattern.len() as u64).saturating_mul(repeat));
    }
    if layers != spec.layers {
        return Err(InputError::new(
            cfg.field("attention_types"),
            format!(
                "names {layers} layers but num_layers is {}: GPT-Neo's config refuses the mismatch",
                spec.layers
            ),
        ));
    }
    Ok(())
}

/// Falcon (`FalconConfig`): one KV head under `multi_query` (the
/// default), `num_kv_heads` under `new_decoder_architecture` (Falcon-40B,
/// 180B) with `num_ln_in_parallel_attn` norms (2), an MLP of
/// `ffn_hidden_size` (4 × hidden), `bias` on every linear, attention and
/// MLP in parallel unless `parallel_attn` is false.
pub(super) fn falcon(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let heads = spec.heads;
    let new_arch = cfg.flag("new_decoder_architecture", false)?;
    spec.kv_heads = if new_arch {
        cfg.int(KV_HEADS, 1, MAX_HEADS)?.unwrap_or(heads)
    } else if cfg.flag("multi_query", true)? {
        1
    } else {
        heads
    };
    spec.intermediate = match cfg.int(&["ffn_hidden_size"], 1, MAX_DIM)? {
        Some(n) => n,
        None => spec.hidden.saturating_mul(4).min(MAX_DIM),
    };
    let bias = cfg.flag("bias", false)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    spec.parallel_block = cfg.flag("parallel_attn", true)?;
    if new_arch {
        spec.norms_per_layer = Some(cfg.int(&["num_ln_in_parallel_attn"], 1, 2)?.unwrap_or(2));
    }
    Ok(())
}

/// MPT (`MptForCausalLM`): fused q/k/v of full width (every head its own
/// keys and values), ALiBi (no position table), an up/down GELU MLP of
/// 4 × `d_model` whatever `expansion_ratio` says (`MptMLP` hard-codes it),
/// no biases on any linear whatever `no_bias` says, weight-only norms
/// (`norm_f` too: its bias is dropped like the blocks'); tied by default.
pub(super) fn mpt(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    spec.kv_heads = spec.heads;
    spec.mlp = MlpKind::Plain;
    spec.intermediate = spec.hidden.saturating_mul(4).min(MAX_DIM);
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(false);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    Ok(())
}

/// DBRX (`DbrxForCausalLM`): Mixtral's layers without biases under
/// weight-only norms; `attn_config.kv_n_heads` KV heads (default 1),
/// `ffn_config`'s `moe_num_experts` (4) experts of `ffn_hidden_size`
/// (3584), `moe_top_k` (1) per token (the `DbrxAttentionConfig` and
/// `DbrxFFNConfig` defaults).
pub(super) fn dbrx(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let attn = cfg.object("attn_config")?;
    let ffn = cfg.object("ffn_config")?;
    let nested = |c: &Option<Cfg>, key: &'static str, max: u64, default: u64| -> Result<u64> {
        Ok(match c {
            Some(c) => c.int(&[key], 1, max)?.unwrap_or(default),
            None => default,
        })
    };
    if cfg.flag("tie_word_embeddings", false)? {
        return Err(InputError::new(
            cfg.field("tie_word_embeddings"),
            "true is refused by DbrxConfig: DBRX's head is its own weight; set it to false",
        ));
    }
    spec.kv_heads = nested(&attn, "kv_n_heads", MAX_HEADS, 1)?;
    let experts = nested(&ffn, "moe_num_experts", MAX_EXPERTS, 4)?;
    let top_k = nested(&ffn, "moe_top_k", experts, 1)?;
    let width = nested(&ffn, "ffn_hidden_size", MAX_DIM, 3584)?;
    spec.intermediate = width;
    spec.qkv_bias = false;
    spec.out_bias = false;
    spec.mlp_bias = Some(false);
    spec.moe = Some(Moe {
        experts,
        experts_per_token: top_k,
        shared_experts: 0,
        expert_intermediate: width,
        shared_intermediate: None,
        dense_layers: 0,
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// OPT's layers (biased q, k, v, output and MLP under LayerNorms, a final
/// norm) under other names: BioGPT (`intermediate_size`, OPT's learned
/// positions with their offset of 2, a tied head), XGLM (`ffn_dim`,
/// sinusoidal positions without weights, a tied head) and CTRL (`dff`,
/// sinusoidal positions, a tied head with a bias). The positions OPT's
/// count holds and these lack go in the exact total.
pub(super) fn opt_like(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    let key = match model_type {
        "biogpt" => "intermediate_size",
        "ctrl" => "dff",
        _ => "ffn_dim",
    };
    spec.intermediate = cfg.req(&[key], 1, MAX_DIM)?;
    spec.lm_head_bias = model_type == "ctrl";
    if model_type != "biogpt" {
        let learned = spec
            .max_position
            .saturating_add(crate::model::params::OPT_POSITION_OFFSET as u64)
            .saturating_mul(spec.hidden);
        spec.params_override = Some(spec.total_params().saturating_sub(learned));
    }
    Ok(())
}

/// Persimmon (`PersimmonForCausalLM`, Fuyu's language model): GPT-NeoX's
/// fused, biased attention and MLP under LayerNorms, a relu² MLP, and with
/// `qk_layernorm` (on by default) a LayerNorm over each head of q and k:
/// a head-wide weight and bias each, as the model's LayerNorms count.
pub(super) fn persimmon(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    if cfg.flag("qk_layernorm", true)? {
        spec.qk_norm = Some(QkNorm::Head);
    }
    Ok(())
}
