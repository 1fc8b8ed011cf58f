//! Inkling (Thinking Machines; transformers 5.24): `inkling_text`
//! (`InklingForCausalLM`), `inkling2_text` (`Inkling2ForCausalLM`) and
//! `inkling2_loop_text` (`Inkling2LoopForCausalLM`).
//!
//! Every layer attends with relative positions (a learned bias over
//! `rel_extent` offsets, `sliding_window_size` on the sliding layers),
//! its keys and values through short depthwise convolutions, and caches,
//! beside its keys and values, four fp32 convolution states of
//! `conv_kernel_size` steps: k and v (key heads × width) and the two
//! residual convolutions (hidden). `layer_types` names each layer
//! `hybrid_sliding` or `hybrid`; the two kinds may differ in key heads and
//! width (`swa_*`), which the spec carries as its global layers' shape.
//! Inkling 2 adds a per-token sink and an output gate (eager attention
//! only), block attention residuals and routed experts on every layer;
//! Inkling 2 Loop runs layers `loop_layer_index_start..end` for
//! `loop_num_passes` passes, each run with its own cache slot and its own
//! saved activations, through message gates. The first Inkling has shared
//! experts and optional dense layers. The parameter counts are exact
//! (`tests/data/params/hf_variants_2026.csv`), as are the fp32 parameters
//! and the cache (`tests/data/cache/`); the relative bias, the residual
//! blocks and the messages are not in the activation terms.

use super::reader::{one_per_layer, Cfg};
use crate::error::{InputError, Result};
use crate::model::{
    AttentionState, GlobalAttention, ModelSpec, Moe, SlidingWindow, MAX_DIM, MAX_EXPERTS,
    MAX_HEADS, MAX_LAYERS, MAX_POSITION, MAX_TOTAL_PARAMS,
};

/// One kind of layer's attention shape: query heads, key heads, head width.
#[derive(Clone, Copy, PartialEq)]
struct Heads {
    n: u128,
    k: u128,
    h: u128,
}

/// The sizes every layer's count reads.
struct Shape {
    hh: u128,
    kk: u128,
    ee: u128,
    ii: u128,
    d: u128,
    rel: u128,
    window: u128,
    full: Heads,
    swa: Heads,
    shared: u128,
    dense_width: u128,
}

impl Shape {
    /// An Inkling 2 layer's parameters and fp32 parameters.
    fn inkling2_layer(&self, i: usize, slides: bool) -> (u128, u128) {
        let Shape {
            hh, kk, ee, ii, d, ..
        } = *self;
        let a = if slides { self.swa } else { self.full };
        let x = if slides { self.window } else { self.rel };
        let kv = a.k * a.h;
        // q_proj (+ its [n, h] scale), k and v (static depthwise convs, or
        // on full layers dynamic ones: static taps and a projection of the
        // input), the gated o_proj, sink_proj, the relative bias
        let convs = if slides {
            kv * kk
        } else {
            kk * kv + hh * a.k * kk
        };
        let attention = (hh * a.n * a.h + a.n * a.h)
            + 2 * (hh * kv + convs)
            + 2 * hh * a.n * a.h
            + hh * a.n
            + (hh * a.n * d + a.n * d + d * x);
        // attention_input's queries (none before layer 0; three on full
        // layers), mlp_input's, the norms (sliding: input and
        // post-attention; full: q, k, v inputs and post-attention), the two
        // residual convolutions, the experts and the router
        let input = match (i, slides) {
            (0, _) => 0,
            (_, true) => hh,
            (_, false) => 3 * hh,
        };
        let norms = if slides { 2 * hh } else { 4 * hh };
        let params = attention + input + hh + norms + 2 * hh * kk + 3 * ee * ii * hh + ee * hh;
        // kept fp32: the router, the residual convolutions, the queries of
        // mlp_input and attention_input, and the sliding layers' static k/v
        // convolutions
        let kept = ee * hh + 2 * hh * kk + hh + input + if slides { 2 * kv * kk } else { 0 };
        (params, kept)
    }

    /// The first Inkling's layer: parameters and fp32 parameters.
    fn inkling_layer(&self, slides: bool, is_dense: bool) -> (u128, u128) {
        let Shape {
            hh, kk, ee, ii, d, ..
        } = *self;
        let a = if slides { self.swa } else { self.full };
        let x = if slides { self.window } else { self.rel };
        let kv = a.k * a.h;
        // q, k, v, the relative projection, o_proj; k and v convs on both
        // kinds; q and k norms; the relative table
        let attention = hh * a.n * a.h
            + 2 * hh * kv
            + hh * a.n * d
            + a.n * a.h * hh
            + 2 * kv * kk
            + 2 * a.h
            + d * x;
        let (ss, dw) = (self.shared, self.dense_width);
        // the routed and shared experts, the router (experts and shared
        // ones) and its global scale; or a dense MLP and its scale
        let mlp = if is_dense {
            3 * hh * dw + 1
        } else {
            3 * ee * ii * hh + 3 * ss * ii * hh + (ee + ss) * hh + 1
        };
        let params = attention + 2 * hh + 2 * hh * kk + mlp;
        let kept = 2 * hh * kk + 2 * kv * kk + u128::from(!is_dense);
        (params, kept)
    }
}

/// Reads an Inkling config into a spec.
pub(super) fn import_inkling(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    let second = model_type != "inkling_text";
    let looped = model_type == "inkling2_loop_text";
    let hidden = cfg.req(&["hidden_size"], 1, MAX_DIM)?;
    let layers = cfg.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let vocab = cfg.req(&["vocab_size"], 1, MAX_DIM)?;
    let full = heads(cfg, false)?;
    let swa = heads(cfg, true)?;
    if full.n != swa.n {
        return Err(InputError::new(
            cfg.field("swa_num_attention_heads"),
            format!(
                "is {} and num_attention_heads {}: sliding and full layers of different query heads are not modelled (every released Inkling has the same)",
                swa.n, full.n
            ),
        ));
    }
    let sliding = layer_kinds(cfg, layers, second)?;
    // the spec's own heads are the sliding layers' (the full ones', its
    // global layers'), or the full layers' where none slides
    let main = if sliding.contains(&true) { swa } else { full };
    let window = cfg.req(&["sliding_window_size", "sliding_window"], 1, MAX_POSITION)?;
    let d = u128::from(cfg.req(&["d_rel"], 1, MAX_HEADS)?);
    let rel = u128::from(cfg.req(&["rel_extent"], 1, MAX_POSITION)?);
    let kernel = cfg.req(&["conv_kernel_size", "sconv_kernel_size"], 1, 64)?;
    let (moe, dense) = mlp_shape(cfg, second, layers)?;
    let (hh, kk, ee, ii) = (
        u128::from(hidden),
        u128::from(kernel),
        u128::from(moe.experts),
        u128::from(moe.expert_intermediate),
    );
    let mut spec = ModelSpec {
        name: model_type.to_string(),
        hidden,
        layers,
        heads: main.n as u64,
        kv_heads: main.k as u64,
        head_dim: Some(main.h as u64),
        vocab,
        max_position: cfg
            .int(
                &["max_position_embeddings", "model_max_length"],
                0,
                MAX_POSITION,
            )?
            .unwrap_or(0),
        ..ModelSpec::default()
    };
    let (mut total, mut fp32) = (0u128, 0u128);
    let dense_width = if second {
        moe.expert_intermediate
    } else {
        cfg.req(&["intermediate_size"], 1, MAX_DIM)?
    };
    let shape = Shape {
        hh,
        kk,
        ee,
        ii,
        d,
        rel,
        window: u128::from(window),
        full,
        swa,
        shared: u128::from(moe.shared_experts),
        dense_width: u128::from(dense_width),
    };
    for (i, (&slides, &is_dense)) in sliding.iter().zip(&dense).enumerate() {
        let (params, kept) = if second {
            shape.inkling2_layer(i, slides)
        } else {
            shape.inkling_layer(slides, is_dense)
        };
        total += params;
        fp32 += kept;
    }
    let vv = u128::from(vocab);
    if second {
        // embed_tokens (padded) and its norm, the final norm, final_input's
        // query (fp32), and a head of the unpadded rows
        let unpadded = cfg
            .int(&["unpadded_vocab_size"], 1, MAX_DIM)?
            .unwrap_or(vocab);
        total += vv * hh + 3 * hh + u128::from(unpadded) * hh;
        fp32 += hh;
    } else {
        // embed_tokens and its norm, the final norm, a head of every row
        total += 2 * vv * hh + 2 * hh;
    }
    let mut runs: Vec<u64> = vec![1; layers as usize];
    if looped {
        let (start, end, passes, rank) = loop_section(cfg, layers)?;
        let section = end - start;
        for run in &mut runs[start as usize..end as usize] {
            *run = passes;
        }
        let r = u128::from(rank);
        // four message gates per loop layer (2h → r, r → h twice), and
        // message_input's four queries per loop layer (fp32)
        total += u128::from(section) * (16 * hh * r + 4 * hh);
        fp32 += u128::from(section) * (8 * hh * r + 4 * hh);
    }
    let (slots, sliding_slots) = slot_counts(cfg, &sliding, &runs)?;
    if total > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            format!("gives {total} parameters, more than {MAX_TOTAL_PARAMS}"),
        ));
    }
    spec.layers = slots;
    spec.sliding_window = (sliding_slots > 0).then_some(SlidingWindow::new(window, sliding_slots));
    if (full.k, full.h) != (main.k, main.h) {
        spec.global_attention = Some(GlobalAttention {
            head_dim: full.h as u64,
            kv_heads: full.k as u64,
            values_from_keys: false,
        });
    }
    spec.intermediate = dense_width;
    spec.moe = Some(moe);
    spec.attention_state = Some(conv_state(&sliding, &runs, full, swa, hidden, kernel));
    spec.params_override = Some(total as u64);
    spec.fp32_params = fp32 as u64;
    Ok(spec)
}

/// The experts (routed on every layer in Inkling 2; shared ones and dense
/// layers in the first Inkling) and which layers are dense.
fn mlp_shape(cfg: &Cfg, second: bool, layers: u64) -> Result<(Moe, Vec<bool>)> {
    let experts = cfg.req(&["n_routed_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
    let per_token = cfg.req(&["num_experts_per_tok"], 1, experts)?;
    // Inkling 2's `intermediate_size` is its experts' width (an alias);
    // the first Inkling's is its dense MLP's
    let expert_keys: &[&str] = if second {
        &["moe_intermediate_size", "intermediate_size"]
    } else {
        &["moe_intermediate_size"]
    };
    let width = cfg.req(expert_keys, 1, MAX_DIM)?;
    let (shared, dense) = if second {
        (0, vec![false; layers as usize])
    } else {
        (
            cfg.int(&["n_shared_experts"], 1, MAX_EXPERTS)?.unwrap_or(2),
            dense_layers(cfg, layers)?,
        )
    };
    let moe = Moe {
        experts,
        experts_per_token: per_token,
        shared_experts: shared,
        expert_intermediate: width,
        shared_intermediate: (shared > 0).then_some(shared.saturating_mul(width)),
        dense_layers: dense.iter().filter(|d| **d).count() as u64,
        router_bias: false,
        latent: 0,
    };
    Ok((moe, dense))
}

/// The cache slots (every run of a layer) and the sliding ones.
fn slot_counts(cfg: &Cfg, sliding: &[bool], runs: &[u64]) -> Result<(u64, u64)> {
    let slots: u64 = runs.iter().sum();
    let sliding_slots: u64 = sliding
        .iter()
        .zip(runs)
        .filter(|(s, _)| **s)
        .map(|(_, r)| r)
        .sum();
    if slots > MAX_LAYERS {
        return Err(InputError::new(
            cfg.field("loop_num_passes"),
            format!("runs {slots} layers: allowed up to {MAX_LAYERS}"),
        ));
    }
    Ok((slots, sliding_slots))
}

/// A kind's query heads, key heads and width (the `swa_` keys for the
/// sliding layers).
fn heads(cfg: &Cfg, sliding: bool) -> Result<Heads> {
    let [n, k, h] = if sliding {
        [
            "swa_num_attention_heads",
            "swa_num_key_value_heads",
            "swa_head_dim",
        ]
    } else {
        ["num_attention_heads", "num_key_value_heads", "head_dim"]
    };
    let n = cfg.req(&[n], 1, MAX_HEADS)?;
    let k = cfg.req(&[k], 1, MAX_HEADS)?;
    let h = cfg.req(&[h], 1, MAX_HEADS)?;
    Ok(Heads {
        n: u128::from(n),
        k: u128::from(k),
        h: u128::from(h),
    })
}

/// Which layers slide: `layer_types` (`hybrid_sliding` or `hybrid`), else
/// the config class's rule: every sixth layer attends fully (the first
/// Inkling: the ids of `local_layer_ids` slide, when given).
fn layer_kinds(cfg: &Cfg, layers: u64, second: bool) -> Result<Vec<bool>> {
    if let Some(kinds) = two_kinds(cfg, "layer_types", layers, ["hybrid_sliding", "hybrid"])? {
        return Ok(kinds);
    }
    if !second {
        if let Some(ids) = cfg.array("local_layer_ids")? {
            let ids: Vec<u64> = ids.iter().filter_map(serde_json::Value::as_u64).collect();
            return Ok((0..layers).map(|i| ids.contains(&i)).collect());
        }
    }
    Ok((0..layers).map(|i| (i + 1) % 6 != 0).collect())
}

/// A per-layer list of two names (`key`), as whether each layer is the
/// first; any other name refused by the field.
fn two_kinds(cfg: &Cfg, key: &str, layers: u64, [yes, no]: [&str; 2]) -> Result<Option<Vec<bool>>> {
    let Some(types) = cfg.strings(key)? else {
        return Ok(None);
    };
    one_per_layer(cfg, key, types.len(), layers)?;
    types
        .iter()
        .map(|t| match *t {
            t if t == yes => Ok(true),
            t if t == no => Ok(false),
            other => Err(InputError::new(
                cfg.field(key),
                format!("\"{other}\" is not allowed: \"{yes}\" or \"{no}\""),
            )),
        })
        .collect::<Result<Vec<bool>>>()
        .map(Some)
}

/// The first Inkling's dense layers: `mlp_layer_types` (`dense` or
/// `sparse`), else the first `dense_mlp_idx` layers (none by default).
fn dense_layers(cfg: &Cfg, layers: u64) -> Result<Vec<bool>> {
    if let Some(kinds) = two_kinds(cfg, "mlp_layer_types", layers, ["dense", "sparse"])? {
        return Ok(kinds);
    }
    let first = cfg.int(&["dense_mlp_idx"], 0, layers)?.unwrap_or(0);
    Ok((0..layers).map(|i| i < first).collect())
}

/// Inkling 2 Loop's section (`loop_config` over the `loop_*` keys):
/// (start, end, passes, gate rank), refused where the config class refuses
/// it or where transformers' cache would not match the layers it runs.
fn loop_section(cfg: &Cfg, layers: u64) -> Result<(u64, u64, u64, u64)> {
    let nested = cfg.object("loop_config")?;
    let read =
        |key: &'static str, nested_key: &'static str, default: u64, max: u64| -> Result<u64> {
            if let Some(n) = &nested {
                if let Some(v) = n.int(&[nested_key], 0, max)? {
                    return Ok(v);
                }
            }
            Ok(cfg.int(&[key], 0, max)?.unwrap_or(default))
        };
    let start = read("loop_layer_index_start", "core_start", 6, layers)?;
    let end = read("loop_layer_index_end", "core_end", 18, layers)?;
    let passes = read("loop_num_passes", "num_passes", 3, 1024)?;
    let rank = read("loop_gate_rank", "gate_rank", 64, MAX_DIM)?;
    let block = cfg
        .int(&["n_layers_per_attn_res_block"], 1, MAX_LAYERS)?
        .unwrap_or(6);
    if start == 0
        || end < start
        || end > layers
        || start % block != 0
        || end % block != 0
        || passes == 0
    {
        return Err(InputError::new(
            cfg.field("loop_layer_index_start"),
            format!(
                "the loop runs layers {start}..{end} for {passes} passes: Inkling2LoopConfig wants 0 < start ≤ end ≤ num_hidden_layers, both multiples of n_layers_per_attn_res_block ({block}), and at least one pass"
            ),
        ));
    }
    Ok((start, end, passes, rank))
}

/// The four fp32 convolution states of every cache slot: k and v (key
/// heads × width of the slot's kind) and the two residual convolutions
/// (hidden), `kernel` steps each; slots of the wider kind in `extra`.
fn conv_state(
    sliding: &[bool],
    runs: &[u64],
    full: Heads,
    swa: Heads,
    hidden: u64,
    kernel: u64,
) -> AttentionState {
    let (f, s) = ((full.k * full.h) as u64, (swa.k * swa.h) as u64);
    let narrow = f.min(s);
    let extra: u64 = sliding
        .iter()
        .zip(runs)
        .map(|(slides, r)| {
            let width = if *slides { s } else { f };
            r * 2 * (width - narrow) * kernel
        })
        .sum();
    AttentionState {
        conv_channels: 2 * narrow + 2 * hidden,
        conv_steps: kernel,
        values: 0,
        fp32: true,
        extra,
    }
}
