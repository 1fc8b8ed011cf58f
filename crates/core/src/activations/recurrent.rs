//! Saved tensors of the layers whose token mixer is recurrent (Mamba,
//! Mamba-2, Gated DeltaNet, short convolutions, lightning attention): the
//! mixer's own terms, the layer's norms, and how a hybrid model's layers
//! split into stacks of attention, recurrent and feed-forward-only layers.
//!
//! Two code paths, chosen by [`MixerKernels`]: transformers' PyTorch
//! reference code, whose saved tensors were read off PyTorch's saved-tensor
//! hooks on tiny random-weight models (`tests/data/recurrent_acts/`,
//! torch 2.15, transformers 5.24, CPU; every term below is exact on every
//! measured row), and the fused kernels' autograd functions, whose
//! `ctx.save_for_backward` lists (state-spaces/mamba `MambaInnerFn`,
//! `SelectiveScanFn`, `MambaSplitConv1dScanCombinedFn`; Dao-AILab
//! causal-conv1d `CausalConv1dFn`; fla-org flash-linear-attention
//! `ChunkGatedDeltaRuleFunction`, `ChunkKDAFunction`) the fused terms follow, with the
//! transformers ops around the call; the fused terms are read from that
//! source, not measured.
//!
//! Symbols in the formulas: b batch, s sequence, t = b·s tokens, h hidden,
//! B bytes of the activation dtype, I the mixer's inner width, N its state,
//! K its convolution kernel, H its heads, G its groups, Q its chunk.

mod delta;
mod dims;
mod mamba;

use super::layer::feed_forward_terms;
use super::shape::{ActFn, LayerShape, Term, Terms};
use crate::model::{Arch, ModelSpec, Recurrent, RecurrentKind};
use crate::scenario::MixerKernels;
use dims::Dims;

/// One stack of a hybrid model's layers: what kind, how many, their terms.
pub struct LayerStack {
    pub what: &'static str,
    pub layers: u128,
    pub terms: Vec<Term>,
}

/// The stacks of a model with recurrent mixers; `None` for any other model
/// (its layers are all the same, `layer_terms`). Falcon-H1 runs attention
/// and the mixer side by side in every layer: one stack. Nemotron-H's
/// blocks hold one mixer or one feed-forward each, behind one norm. The
/// others hold a mixer (attention or recurrent) and a feed-forward behind
/// two norms (Mamba and Mamba-2 alone: the mixer behind one norm).
pub fn hybrid_stacks(
    l: &LayerShape,
    spec: &ModelSpec,
    act: ActFn,
    kernels: MixerKernels,
) -> Option<Vec<LayerStack>> {
    let rec = spec.recurrent.as_ref().filter(|r| r.layers > 0)?;
    let layers = u128::from(spec.layers);
    let recurrent = u128::from(rec.layers).min(layers);
    let attention = u128::from(spec.attention_layer_count());
    if attention == layers && recurrent == layers {
        let mut terms = super::layer::layer_terms(l, spec, act);
        terms.extend(mixer_terms(l, rec, kernels));
        return Some(vec![LayerStack {
            what: "attention + recurrent",
            layers,
            terms,
        }]);
    }
    let ffn_in_layers = spec.mlp_layer_count() == spec.layers;
    let mut stacks = Vec::new();
    let attention_terms = if ffn_in_layers {
        super::layer::layer_terms(l, spec, act)
    } else {
        super::layer::block_terms(l, spec, act, super::layer::Block::Attention)
    };
    stacks.push(LayerStack {
        what: "attention",
        layers: attention,
        terms: attention_terms,
    });
    stacks.push(LayerStack {
        what: "recurrent",
        layers: recurrent,
        terms: recurrent_layer_terms(l, spec, rec, act, kernels, ffn_in_layers),
    });
    let ffn_only = layers.saturating_sub(attention + recurrent);
    if !ffn_in_layers && ffn_only > 0 {
        stacks.push(LayerStack {
            what: "feed-forward",
            layers: ffn_only,
            terms: super::layer::block_terms(l, spec, act, super::layer::Block::FeedForward),
        });
    }
    stacks.retain(|s| s.layers > 0);
    Some(stacks)
}

/// A recurrent layer: its norms, its mixer and, where the layer has one,
/// its feed-forward (the same terms as an attention layer's).
pub fn recurrent_layer_terms(
    l: &LayerShape,
    spec: &ModelSpec,
    rec: &Recurrent,
    act: ActFn,
    kernels: MixerKernels,
    with_ffn: bool,
) -> Vec<Term> {
    let mut t = Terms::default();
    // Layers with a feed-forward have a norm before it too (Jamba's
    // `pre_ff_layernorm`, LFM2's `ffn_norm`, ...); Mamba's, Mamba-2's and
    // Nemotron-H's blocks have one (`norms_per_layer` 1).
    let count = match spec.norms_per_layer {
        Some(n) => u128::from(n),
        None => 2,
    };
    norm_terms(&mut t, l, spec, count);
    t.0.extend(mixer_terms(l, rec, kernels));
    if with_ffn {
        feed_forward_terms(&mut t, l, spec, act);
    }
    if let Some(hc) = &spec.hyper_connections {
        super::hyper::hyper_terms(&mut t, l, hc);
    }
    t.0
}

/// The hidden-width RMSNorms of a recurrent layer. Each upcasts its input
/// (4·t·h, the fp32 copy or, in fp32, the input itself) and keeps 1/rms
/// (4·t); for the weight's gradient it keeps the normalized tensor, in the
/// input dtype (`weight * hidden.to(input_dtype)`: MambaRMSNorm, JambaRMSNorm,
/// Lfm2RMSNorm, MiniMaxRMSNorm, GraniteMoeHybridRMSNorm, FalconH1RMSNorm) or
/// in fp32 (Qwen3NextRMSNorm: `output * (1.0 + self.weight.float())`, with
/// the fp32 `1 + weight`; NemotronHRMSNorm: `self.weight.to(float32) *
/// hidden`, whose fp32 weight copy exists only when the weights are 16-bit;
/// OlmoHybridRMSNorm: `(self.weight * hidden)` in fp32).
/// Measured: `layer − mixer − feed-forward` bytes of every row.
fn norm_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, count: u128) {
    let (tk, h, big_b, half) = (l.tokens(), l.hidden, l.act_bytes, l.act_bytes < 4);
    t.push(
        "norm inputs",
        count * (4 * tk * h + 4 * tk),
        format!("{count} norms × (4·t·h + 4·t)"),
    );
    let (bytes, weight) = match spec.arch {
        // RecurrentGemmaRMSNorm is Gemma's: `output * (1.0 + self.weight.float())`
        Arch::Qwen3Next | Arch::Gemma => (4, 4 * h),
        Arch::NemotronH => (4, if half { 4 * h } else { 0 }),
        // OlmoHybridRMSNorm (OLMo-2's): `(self.weight * hidden).to(input_dtype)`
        // multiplies in fp32, so the normalized tensor is kept in fp32 and
        // the weight is the parameter itself
        Arch::Olmo2 => (4, 0),
        _ => (big_b, 0),
    };
    if l.grads.norms {
        t.push(
            "normalized (norm weight grad)",
            count * bytes * tk * h,
            format!("{count} × {bytes}·t·h"),
        );
    }
    // The fp32 weight (`1 + weight`) multiplies the normalized tensor: it
    // is kept for the input's gradient, trained or frozen.
    t.push(
        "norm weight (fp32)",
        count * weight,
        format!("{count} × 4·h"),
    );
}

/// The recurrent mixer's own saved tensors, from its input (the norm's
/// output, kept for the input projection's weight) to its output
/// projection's input.
pub fn mixer_terms(l: &LayerShape, rec: &Recurrent, kernels: MixerKernels) -> Vec<Term> {
    let Some(d) = Dims::of(l, rec) else {
        // Sizes whose products could pass 2^64 bytes: more than any card
        // holds, said as such instead of computed.
        return vec![Term {
            name: "recurrent mixer",
            bytes: u128::from(u64::MAX),
            formula: "beyond 2^64 bytes".to_string(),
        }];
    };
    let mut t = Terms::default();
    // The input projection's input: the norm's output (Falcon-H1: times
    // `ssm_in_multiplier`, a copy of the same size), kept for its weight
    // only (a frozen projection keeps nothing: its input is no one else's).
    if l.grads.qkv {
        t.push64(
            "mixer input",
            d.big_b * d.t * d.h,
            format!("{}·t·h", d.big_b),
        );
    }
    let fused = kernels == MixerKernels::Fused;
    match rec.kind {
        RecurrentKind::Mamba if fused => mamba::mamba1_fused(&mut t, d, rec),
        RecurrentKind::Mamba => mamba::mamba1_torch(&mut t, d, rec),
        RecurrentKind::Mamba2 if fused => mamba::mamba2_fused(&mut t, d, rec),
        RecurrentKind::Mamba2 => mamba::mamba2_torch(&mut t, d, rec),
        RecurrentKind::GatedDeltaNet if fused => delta::gdn_fused(&mut t, d, rec),
        RecurrentKind::GatedDeltaNet => delta::gdn_torch(&mut t, d, rec),
        RecurrentKind::KimiDelta if fused => delta::kda_fused(&mut t, d, rec),
        RecurrentKind::KimiDelta => delta::kda_torch(&mut t, d, rec),
        RecurrentKind::ShortConv => short_conv(&mut t, d, rec, fused),
        RecurrentKind::Lightning => lightning(&mut t, d, rec),
        RecurrentKind::RgLru => rg_lru(&mut t, d, rec),
        // not reached: an mLSTM or RWKV model's training is refused (estimate.rs)
        RecurrentKind::Mlstm | RecurrentKind::Rwkv => {}
    }
    t.0
}

/// LFM2's `Lfm2ShortConv`: `BCx = in_proj(x).transpose`, `B * x` into a
/// depthwise causal convolution, `C * conv`, then `out_proj`. Saved: the
/// in_proj output (B, C and x are its views), the product B·x (the
/// convolution's input), the convolution's output (read by `C * conv`) and
/// out_proj's contiguous input. The torch fallback (`causal_conv1d_fn`)
/// pads by K − 1 and slices, so its output's storage is s + K − 1 long;
/// `CausalConv1dFn` writes exactly s.
fn short_conv(t: &mut Terms, d: Dims, rec: &Recurrent, fused: bool) {
    let (big_b, h, k) = (d.big_b, d.h, rec.conv_kernel);
    t.push64(
        "in_proj output (B, C, x)",
        3 * big_b * d.t * h,
        format!("3·{big_b}·t·h"),
    );
    t.push64("B·x (conv input)", big_b * d.t * h, format!("{big_b}·t·h"));
    if fused {
        t.push64(
            "conv output",
            big_b * d.t * h,
            format!("{big_b}·t·h (CausalConv1dFn)"),
        );
    } else {
        t.push64(
            "conv output (padded)",
            big_b * d.b * h * (d.s + k.saturating_sub(1)),
            format!("{big_b}·b·h·(s + {k} − 1)"),
        );
    }
    if d.linears {
        t.push64("out_proj input", big_b * d.t * h, format!("{big_b}·t·h"));
    }
}

/// MiniMax-01's `MiniMaxLightningAttention` (PyTorch only; transformers has
/// no kernel for it): `silu(qkv_proj(x))`, then a loop over blocks of
/// `block_size` tokens with a `heads × d × d` state carried between them.
/// Per block j of n_j tokens it keeps `Q·Kᵀ` (a·n_j² per sequence), the
/// state it reads (zeros first), `q * query_decay` (blocks after the
/// first, whose state needs a gradient) and `k * key_decay` with the
/// scalar block decay for the next state (every block but the last: the
/// last state is thrown away, and what only it kept is freed). At b = 1
/// the q/k/v block slices are views of the activation's output (kept once);
/// at b > 1 `matmul` copies each slice it reads. Then the output's
/// MiniMaxRMSNorm over a·d, the sigmoid gate and out_proj's input.
fn lightning(t: &mut Terms, d: Dims, rec: &Recurrent) {
    let big_b = d.big_b;
    let heads = rec.heads.max(1);
    let ad = rec.inner;
    let hd = ad / heads;
    let q = rec.chunk_len().max(1);
    let blocks = d.s.div_ceil(q);
    let last = d.s - (blocks.saturating_sub(1)) * q;
    let unit = big_b * d.b * heads;
    // Σ n_j and Σ n_j² over the blocks, and the same without the last one.
    let full = blocks.saturating_sub(1);
    let (sum_n, sum_n2) = (d.s, full * q * q + last * last);
    let sum_n_but_last = full * q;
    let sum_n_after_first = d.s - q.min(d.s);
    t.push64(
        "qkv_proj output (silu input)",
        3 * big_b * d.t * ad,
        format!("3·{big_b}·t·{ad}"),
    );
    if d.b == 1 {
        t.push64(
            "silu output (q, k, v)",
            3 * big_b * d.t * ad,
            format!("3·{big_b}·t·{ad}"),
        );
    } else {
        t.push64(
            "q, k, v block copies",
            unit * hd * (3 * sum_n + sum_n_but_last),
            format!("{big_b}·b·{heads}·{hd}·(3·s + {sum_n_but_last}) (matmul copies, b > 1)"),
        );
    }
    t.push64(
        "block scores Q·Kᵀ",
        unit * sum_n2,
        format!("{big_b}·b·{heads}·Σ n_j² ({sum_n2}, blocks of {q})"),
    );
    t.push64(
        "block states",
        unit * blocks * hd * hd,
        format!("{blocks} blocks × {big_b}·b·{heads}·{hd}²"),
    );
    t.push64(
        "decayed q and k",
        unit * hd * (sum_n_after_first + sum_n_but_last),
        format!(
            "{big_b}·b·{heads}·{hd}·{}",
            sum_n_after_first + sum_n_but_last
        ),
    );
    t.push64(
        "block decay",
        blocks.saturating_sub(2) * big_b * heads,
        format!("{} × {big_b}·{heads}", blocks.saturating_sub(2)),
    );
    // The normalized tensor (norm weight's gradient) and out_proj's input
    // are kept only for weights that train.
    let normalized = u64::from(d.params);
    t.push64(
        "output norm",
        4 * d.t * ad + 4 * d.t + normalized * big_b * d.t * ad,
        format!("4·t·{ad} + 4·t + {normalized}·{big_b}·t·{ad}"),
    );
    let gated = 2 + u64::from(d.linears);
    t.push64(
        "gate, sigmoid(gate)·norm",
        gated * big_b * d.t * ad,
        format!("{gated}·{big_b}·t·{ad} (norm output, sigmoid, out_proj input)"),
    );
}

/// RecurrentGemma's `RecurrentGemmaRecurrentBlock` (PyTorch only): a GELU
/// branch (its input and output kept), `linear_x` into a depthwise
/// convolution (its input kept, frozen or not; the output padded to
/// s + K − 1 by `padding=K−1`, kept by the input gate's product), the
/// RG-LRU's block-diagonal gates (their input a contiguous copy at b > 1,
/// a view of the convolution's output at b = 1; kept for the gate weights),
/// both sigmoids, `exp` of the log gate and of its double, the bounded
/// square root's input, the gated input and its multiplier, two reset masks
/// (`position_ids == 0`, batch 1), then `_rnn_scan`'s loop over the tokens
/// in fp32: each step keeps its state and, from the second step, the gate's
/// fp32 slice (a new tensor in 16 bits, a view of the gate in fp32), and
/// the product of the branches with `linear_out`'s input.
/// Measured: `tests/data/recurrent_acts/` (`recurrent_gemma`, trained and frozen).
fn rg_lru(t: &mut Terms, d: Dims, rec: &Recurrent) {
    let (big_b, b, s, w) = (d.big_b, d.b, d.s, rec.inner);
    let k = rec.conv_kernel;
    // the `-8·gate` factor is kept for the recurrence parameter's gradient,
    // `linear_out`'s input for its weight, the gates' input copy for theirs
    let copies = 11 + u64::from(d.params) + u64::from(d.linears) + u64::from(d.linears && b > 1);
    t.push64(
        "RG-LRU gates and branches",
        copies * big_b * d.t * w,
        format!("{copies}·{big_b}·t·{w}"),
    );
    t.push64(
        "conv output (padded), softplus(a), resets",
        big_b * b * w * (s + k.saturating_sub(1)) + big_b * w + 2 * s,
        format!("{big_b}·b·{w}·(s + {k} − 1) + {big_b}·{w} + 2·s"),
    );
    // fp32: the gate (one t-sized tensor) and s states; 16 bits: s states
    // and s − 1 fp32 gate slices
    let (steps, text) = if d.half {
        ((2 * s).saturating_sub(1), "(2·s − 1)")
    } else {
        (2 * s, "2·s")
    };
    t.push64(
        "RG-LRU scan (fp32)",
        4 * b * w * steps,
        format!("4·b·{w}·{text}"),
    );
}
