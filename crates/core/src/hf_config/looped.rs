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
    });
    spec.params_override = Some(distinct);
    Ok(())
}
