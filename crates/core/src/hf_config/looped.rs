//! Models that run some of their layers more than once (Dory's recurrent
//! section). The fields of a [`ModelSpec`] describe layers as they run:
//! the cache and the activations follow every run of a layer, and the
//! exact count of distinct weights goes in `params_override` (the layer
//! groups are scaled to it), as for Zamba2's shared blocks.

use super::reader::{one_per_layer, Cfg};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, SlidingWindow, MAX_LAYERS, MAX_POSITION};

/// The families of this module, after their rows' common fields.
pub(super) fn complete(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    match model_type {
        "dory" => dory(cfg, spec),
        "hrm_text" => hrm_text(cfg, spec),
        _ => Ok(()),
    }
}

/// Dory (`DoryConfig`, NVIDIA Nemotron-Labs, transformers 5.24): Llama-like
/// layers with an output gate (`gate_proj`: hidden → heads·d, never biased),
/// nGPT's weightless L2 norms and learned scales (`sqk`, `s_gate`: heads·d;
/// `suv_gate`, `suv_up`: intermediate; `lambda_1`, `lambda_2`: hidden, in
/// place of the two norms counted per layer), and a `logit_scale` per
/// vocabulary row beside the head. The layers split into
/// `n_input_layers`, `n_recurrent_layers` (the rest by default) run
/// `n_recurrent_loops` times, and `n_output_layers`; every run keeps its
/// autograd graph and, in the default `per_loop` cache mode, a cache layer
/// of its own (the model copies the recurrent layers' cache per loop).
/// Without `layer_types` every fourth layer attends fully, the others
/// slide. A released config lists attention and `"mlp"` blocks apart,
/// doubling the counts, which its `__post_init__` halves.
fn dory(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let listed = cfg.strings("layer_types")?;
    let released = listed.as_ref().is_some_and(|t| t.contains(&"mlp"));
    let halve = |n: u64| if released { n / 2 } else { n };
    let layers = halve(spec.layers);
    if layers == 0 {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            "lists no decoder layer once its attention and mlp blocks are paired (2 or more)",
        ));
    }
    let sliding: Vec<bool> = match &listed {
        Some(types) => {
            let types: Vec<&str> = if released {
                types.iter().step_by(2).copied().collect()
            } else {
                types.clone()
            };
            one_per_layer(cfg, "layer_types", types.len(), layers)?;
            types.iter().map(|t| *t == "sliding_attention").collect()
        }
        None => (0..layers).map(|i| (i + 1) % 4 != 0).collect(),
    };
    let input = halve(cfg.int(&["n_input_layers"], 0, MAX_LAYERS)?.unwrap_or(8));
    let output = halve(cfg.int(&["n_output_layers"], 0, MAX_LAYERS)?.unwrap_or(8));
    let recurrent = match cfg.int(&["n_recurrent_layers"], 0, MAX_LAYERS)? {
        Some(n) if cfg.obj.contains_key("n_recurrent_layers") => halve(n),
        _ => layers.checked_sub(input + output).unwrap_or(u64::MAX),
    };
    if input.saturating_add(recurrent).saturating_add(output) != layers {
        return Err(InputError::new(
            cfg.field("n_recurrent_layers"),
            format!(
                "n_input_layers ({input}) + n_recurrent_layers + n_output_layers ({output}) must equal the {layers} decoder layers"
            ),
        ));
    }
    let loops = cfg.int(&["n_recurrent_loops"], 1, 1024)?.unwrap_or(2);
    if let Some(mode) = cfg.string("recurrent_kv_cache_mode")? {
        if mode != "per_loop" {
            return Err(InputError::new(
                cfg.field("recurrent_kv_cache_mode"),
                format!("\"{mode}\" is not modelled: \"per_loop\" (the default) is"),
            ));
        }
    }
    // the distinct layers' weights: the common fields, then the scales
    spec.layers = layers;
    spec.gated_attention = true;
    spec.qk_norm = None;
    spec.final_norm = Some(false);
    let q = spec.heads.saturating_mul(spec.head_dim());
    spec.layer_extra_params = 2 * q + 2 * spec.intermediate;
    spec.model_extra_params = spec.model_extra_params.saturating_add(spec.vocab);
    spec.sliding_window = None;
    let distinct = spec.total_params();
    // then the layers as they run
    let runs = |i: u64| {
        if (input..input + recurrent).contains(&i) {
            loops
        } else {
            1
        }
    };
    let executed: u64 = (0..layers).map(runs).sum();
    if executed > MAX_LAYERS {
        return Err(InputError::new(
            cfg.field("n_recurrent_loops"),
            format!("{loops} loops run {executed} layers: allowed up to {MAX_LAYERS}"),
        ));
    }
    let sliding_runs: u64 = (0..layers).filter(|&i| sliding[i as usize]).map(runs).sum();
    let window = cfg.req(&["sliding_window"], 1, MAX_POSITION)?;
    spec.layers = executed;
    spec.sliding_window = (sliding_runs > 0).then_some(SlidingWindow {
        window,
        layers: sliding_runs,
        keeps_prompt: false,
    });
    spec.params_override = Some(distinct);
    Ok(())
}

/// HRM-Text (`HrmTextConfig`, Sapient's hierarchical reasoning model,
/// transformers 5.24): an L stack and an H stack of
/// `num_layers_per_stack` (P) Llama-like layers each, with a sigmoid output
/// gate on the attention (`gate_proj`, hidden → heads·d) and weightless
/// RMSNorms. Each of `H_cycles` cycles runs the L stack `L_cycles` times and
/// the H stack once, every run a cache slot of its own (P·H·(L + 1) slots
/// of full-length MHA keys and values). Only the last `L_bp_cycles` L runs
/// of each cycle (padded on the left with 1 to one per cycle) and the H
/// runs keep autograd: the others run under `torch.no_grad()` and save
/// nothing. A saved config carries `num_layers_per_stack` and the slot
/// count as `num_hidden_layers`; without the former, `num_hidden_layers`
/// is P (the config class rewrites it).
fn hrm_text(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    // the class's 16 when neither is given (its table holds the rewritten 128)
    let per_stack = match cfg.int(&["num_layers_per_stack"], 1, MAX_LAYERS)? {
        Some(p) => p,
        None if !cfg.obj.contains_key("num_hidden_layers") => 16,
        None => spec.layers,
    };
    let h_cycles = cfg.int(&["H_cycles"], 1, 1024)?.unwrap_or(2);
    let l_cycles = cfg.int(&["L_cycles"], 1, 1024)?.unwrap_or(3);
    let bp: Vec<i64> = match cfg.array("L_bp_cycles")? {
        Some(list) => list
            .iter()
            .map(|v| {
                v.as_i64().ok_or_else(|| {
                    InputError::new(cfg.field("L_bp_cycles"), "expects a list of integers")
                })
            })
            .collect::<Result<_>>()?,
        None => vec![2],
    };
    // the first H_cycles entries, padded on the left with 1s
    let mut padded: Vec<i64> = vec![1; (h_cycles as usize).saturating_sub(bp.len())];
    padded.extend(bp.iter().take(h_cycles as usize));
    let l = l_cycles as i64;
    let grad_l: u64 = padded.iter().map(|b| (*b).clamp(0, l) as u64).sum();
    let runs = per_stack
        .saturating_mul(h_cycles)
        .saturating_mul(l_cycles + 1);
    let saved = per_stack.saturating_mul(grad_l + h_cycles);
    if runs > MAX_LAYERS {
        return Err(InputError::new(
            cfg.field("L_cycles"),
            format!("{h_cycles} × ({l_cycles} + 1) runs of {per_stack} layers: allowed up to {MAX_LAYERS}"),
        ));
    }
    let w = u128::from;
    let (h, i) = (w(spec.hidden), w(spec.intermediate));
    let q = w(spec.heads) * w(spec.head_dim());
    let (ba, bm) = (
        w(u64::from(spec.qkv_bias)),
        w(u64::from(spec.mlp_bias == Some(true))),
    );
    // q, k, v and the gate (hidden → q), o (q → hidden); the MLP
    let attention = 4 * (h * q + ba * q) + (q * h + ba * h);
    let mlp = 3 * h * i + bm * (2 * i + h);
    let vocab = w(spec.vocab);
    let head = if spec.tied_embeddings { 0 } else { vocab * h };
    // embed_tokens, z_L_init (hidden), the head; no final norm
    let total = 2 * w(per_stack) * (attention + mlp) + vocab * h + h + head;
    spec.layers = runs;
    spec.grad_runs = Some(saved);
    // plain multi-head attention: the class has no `num_key_value_heads`
    spec.kv_heads = spec.heads;
    spec.gated_attention = true;
    spec.params_override = Some(u64::try_from(total).unwrap_or(u64::MAX));
    Ok(())
}
