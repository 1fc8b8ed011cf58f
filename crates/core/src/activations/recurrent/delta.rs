//! Gated DeltaNet (`Qwen3NextGatedDeltaNet`, `Qwen3_5GatedDeltaNet`) on
//! transformers' PyTorch path and on flash-linear-attention's kernel, and
//! Kimi Delta Attention's PyTorch path (`KimiLinearDeltaAttention`).

use super::dims::Dims;
use crate::activations::shape::Terms;
use crate::model::Recurrent;

/// Gated DeltaNet's widths: key heads × key width, value heads × value width.
struct Gdn {
    hk: u64,
    dk: u64,
    hv: u64,
    dv: u64,
    /// Value width in all: hv·dv.
    v: u64,
    /// The convolution's channels: q, k and v (2·hk·dk + hv·dv).
    cd: u64,
}

impl Gdn {
    fn of(r: &Recurrent) -> Gdn {
        let hv = r.heads.max(1);
        let v = r.inner;
        let hk = r.groups.max(1);
        let dk = r.state;
        Gdn {
            hk,
            dk,
            hv,
            dv: v / hv,
            v,
            cd: 2 * hk * dk + v,
        }
    }
}

/// The terms both paths share: the convolution's input (Qwen3-Next's
/// `cat(q, k, v)`, Qwen3.5's in_proj_qkv output), `beta = b.sigmoid()`,
/// `g = -A_log.float().exp() * softplus(a.float() + dt_bias)` (exp's output
/// and its negation, softplus's fp32 input and output).
fn gates(t: &mut Terms, d: Dims, g: &Gdn) {
    let (big_b, tk) = (d.big_b, d.t);
    t.push64(
        "conv input (q, k, v)",
        big_b * tk * g.cd,
        format!("{big_b}·t·{}", g.cd),
    );
    t.push64(
        "beta = sigmoid(b)",
        big_b * tk * g.hv,
        format!("{big_b}·t·{}", g.hv),
    );
    // exp keeps its output, and `* softplus(...)` the softplus output, for
    // A_log's gradient only.
    let copies = 1 + u64::from(d.params);
    t.push64(
        "g: −exp(A_log), softplus (fp32)",
        copies * 4 * g.hv + copies * 4 * tk * g.hv,
        format!("{copies} × 4·{} + {copies} × 4·t·{}", g.hv, g.hv),
    );
}

/// The output's `Qwen3NextRMSNormGated` per value head (norm before the
/// gate): the fp32 input copy, 1/rms, the normalized tensor (weight grad)
/// and its weighted product (model dtype), silu(gate) and the gate's fp32
/// copy; then out_proj's input. In fp32 with as many key as value heads,
/// Qwen3-Next's z is a view of the fused in_proj_qkvz output, which silu
/// keeps whole.
fn output_norm(t: &mut Terms, d: Dims, g: &Gdn, fused_qkvz: bool) {
    let (big_b, tk, v) = (d.big_b, d.t, g.v);
    let whole_z = !d.half && g.hk == g.hv && fused_qkvz;
    let gate = if whole_z {
        4 * tk * (2 * g.hk * g.dk + 2 * v)
    } else {
        4 * tk * v
    };
    // The normalized tensor is kept for the norm weight's gradient.
    let kept = 1 + u64::from(d.params);
    t.push64(
        "gated norm",
        2 * 4 * tk * v + 4 * tk * g.hv + kept * big_b * tk * v + gate,
        format!(
            "2 × 4·t·{v} + 4·t·{} + {kept}·{big_b}·t·{v} + {}",
            g.hv,
            if whole_z {
                format!("4·t·{}", 2 * g.hk * g.dk + 2 * v)
            } else {
                format!("4·t·{v}")
            }
        ),
    );
    if d.linears {
        t.push64("out_proj input", big_b * tk * v, format!("{big_b}·t·{v}"));
    }
}

/// transformers' `torch_chunk_gated_delta_rule` (chunk Q = 64): q and k
/// repeated to the value heads and, with v, beta and g, cast to fp32 and
/// padded to c = ⌈s/64⌉ chunks; the chunk-square decay, K·Kᵀ and Q·Kᵀ
/// products, the triangular solves, then a loop over chunks carrying a
/// (hv, dk, dv) fp32 state. The last chunk's state update is thrown away
/// (no final state in training): the decayed keys (and queries, whose
/// gradient needs a state with one) are kept only with two chunks or more.
pub(super) fn gdn_torch(t: &mut Terms, d: Dims, r: &Recurrent) {
    let g = Gdn::of(r);
    let (big_b, b, tk) = (d.big_b, d.b, d.t);
    let q = r.chunk_len().max(1);
    let c = d.s.div_ceil(q);
    let sp = c * q;
    let k = r.conv_kernel;
    let (hv, dk, dv) = (g.hv, g.dk, g.dv);
    gates(t, d, &g);
    t.push64(
        "conv output (padded)",
        big_b * b * g.cd * (d.s + k.saturating_sub(1)),
        format!("{big_b}·b·{}·(s + {k} − 1)", g.cd),
    );
    // l2norm(x) keeps x and 1/‖x‖; x is the fp32 repeated copy, or in fp32
    // with as many key as value heads a view of the conv activation.
    let l2_inputs = if !d.half && g.hk == g.hv {
        4 * tk * g.cd
    } else {
        2 * 4 * tk * hv * dk
    };
    t.push64(
        "q, k l2norm",
        l2_inputs + 2 * 4 * tk * hv,
        format!("{l2_inputs} + 2 × 4·t·{hv}"),
    );
    let per_key = 4 * b * hv * sp * dk;
    let per_value = 4 * b * hv * sp * dv;
    t.push64(
        "padded v, beta, k",
        per_value + 4 * b * hv * sp + per_key,
        format!("4·b·{hv}·{sp}·({dv} + 1 + {dk}) (s padded to chunks of {q})"),
    );
    t.push64("chunk mask (bool)", q * q, format!("{q}²"));
    t.push64(
        "decay, K·Kᵀ, Q·Kᵀ, ut system, intra attention",
        5 * 4 * b * hv * c * q * q,
        format!("5 × 4·b·{hv}·{c}·{q}²"),
    );
    t.push64(
        "k·beta, q (scaled)",
        2 * per_key,
        format!("2 × 4·b·{hv}·{sp}·{dk}"),
    );
    t.push64(
        "exp(cumulative decay)",
        3 * 4 * b * hv * sp,
        format!("3 × 4·b·{hv}·{sp}"),
    );
    t.push64(
        "solves: new values, k·cumdecay",
        per_value + per_key,
        format!("4·b·{hv}·{sp}·({dv} + {dk})"),
    );
    t.push64("chunk decay", 4 * b * hv * c, format!("4·b·{hv}·{c}"));
    if c >= 2 {
        t.push64(
            "decayed k and q",
            2 * per_key,
            format!("2 × 4·b·{hv}·{sp}·{dk}"),
        );
    }
    t.push64(
        "chunk states, new values per chunk",
        c * 4 * b * hv * dk * dv + per_value,
        format!("{c} × 4·b·{hv}·{dk}·{dv} + 4·b·{hv}·{sp}·{dv}"),
    );
    // Qwen3.5 projects z on its own (`in_proj_z`); Qwen3-Next splits it off
    // the fused in_proj_qkvz.
    output_norm(t, d, &g, !r.separate_z);
}

/// flash-linear-attention's `chunk_gated_delta_rule`, which transformers
/// calls when `fla` imports: `ChunkGatedDeltaRuleFunction` saves q and k
/// after its in-kernel l2norm (model dtype, key heads) with their fp32
/// rstd, a contiguous v, beta, g's chunk-local cumsum (fp32) and the WY
/// matrix A (`(B, T, HV, 64)` in k's dtype); `CausalConv1dFn` keeps its
/// input. No padding, no per-chunk state: the states are recomputed.
pub(super) fn gdn_fused(t: &mut Terms, d: Dims, r: &Recurrent) {
    let g = Gdn::of(r);
    let (big_b, tk) = (d.big_b, d.t);
    let q = r.chunk_len().max(1);
    gates(t, d, &g);
    t.push64(
        "q, k (l2-normalized) and rstd",
        2 * (big_b * tk * g.hk * g.dk + 4 * tk * g.hk),
        format!("2 × ({big_b}·t·{}·{} + 4·t·{})", g.hk, g.dk, g.hk),
    );
    t.push64(
        "v (contiguous)",
        big_b * tk * g.v,
        format!("{big_b}·t·{}", g.v),
    );
    t.push64("g cumsum (fp32)", 4 * tk * g.hv, format!("4·t·{}", g.hv));
    t.push64(
        "WY matrix A",
        big_b * tk * g.hv * q,
        format!("{big_b}·t·{}·{q}", g.hv),
    );
    output_norm(t, d, &g, true);
}

/// Kimi Delta Attention on transformers' PyTorch path
/// (`chunk_kimi_delta_attention`, chunk Q = 64), H heads of width d for
/// keys and values alike. Its decay is per channel, so the intra-chunk
/// decay mask and the products it scales keep a d axis: 4·b·H·c·Q²·d bytes
/// each, three of them (the mask, the in-chunk K·Kᵀ product, the per-chunk
/// Q·Kᵀ product), which at 64-token chunks is 256·d bytes per token and
/// head apiece, beside everything Gated DeltaNet's path keeps. Exact on 32
/// CPU layers, trained and frozen (`tests/data/recurrent_acts/`).
pub(super) fn kda_torch(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, b, tk, s) = (d.big_b, d.b, d.t, d.s);
    let heads = r.heads.max(1);
    let dk = r.state.max(1);
    let q = r.chunk_len().max(1);
    let c = s.div_ceil(q);
    let sp = c * q;
    let cd = 3 * heads * dk;
    let bh = b * heads;
    // 4 bytes per channel of every token, the fp32 copies' unit
    let ch = 4 * tk * heads * dk;
    // the conv's input and padded output; q and k and their 1/‖·‖ (fp32)
    t.push64(
        "projections, conv, gates, l2norm",
        kda_gates(d, heads, dk)
            + big_b * b * cd * (2 * s + r.conv_kernel.saturating_sub(1))
            + 2 * (ch + 4 * tk * heads),
        format!(
            "t·{heads}·{dk} channels, conv {cd} wide, k {}",
            r.conv_kernel
        ),
    );
    // `chunk_kimi_delta_attention` (Q-token chunks, fp32): padded v, beta,
    // k and k·beta; three bool masks; the per-channel decay mask and the
    // in-chunk K·Kᵀ and per-chunk Q·Kᵀ products, b·H·c·Q²·d each; the
    // triangular solve's row and block copies (Σ i² + i, i < Q); attn,
    // v·beta, exp(g), k·beta·exp(g); per chunk exp(g_i), the new values,
    // the decay to its end, its state, the intra attention and the last
    // row's decay, the state update's product where the state is read
    // again, the decayed query where it needs a gradient (after the
    // first), q and k·cumdecay (from the second) once
    let per_key = 4 * bh * sp * dk;
    let cube = 4 * bh * c * q * q * dk;
    let solve = (q - 1) * q * (2 * q - 1) / 6 + (q - 1) * q / 2;
    let e = 4 * bh * q * dk;
    let per_chunk = 3 * e + 4 * bh * dk * dk + 4 * bh * q * q + 4 * bh * dk;
    let later = c.saturating_sub(1);
    t.push64(
        "chunked delta rule, per-channel decay (fp32)",
        3 * per_key
            + 4 * bh * sp
            + 3 * q * q
            + 3 * cube
            + 4 * bh * c * solve
            + 4 * bh * c * q * q
            + 3 * per_key
            + c * per_chunk
            + 2 * later * e
            + per_key
            + u64::from(c >= 2) * per_key,
        format!("3 × 4·b·{heads}·{c}·{q}²·{dk} + …"),
    );
    kda_output_norm(t, d, heads, dk);
}

/// What both KDA paths keep around the kernel: the low-rank gates' inputs
/// and out_proj's (trained projections only), the forget gate (exp(g),
/// 1 + exp(g), the condition, −exp(A_log); for A_log's gradient exp(A_log)
/// and softplus) and beta.
fn kda_gates(d: Dims, heads: u64, dk: u64) -> u64 {
    let (big_b, tk) = (d.big_b, d.t);
    let ch = 4 * tk * heads * dk;
    let linears = if d.linears {
        2 * big_b * tk * dk + big_b * tk * heads * dk
    } else {
        0
    };
    linears
        + 2 * ch
        + tk * heads * dk
        + 4 * heads
        + u64::from(d.params) * (ch + 4 * heads)
        + big_b * tk * heads
}

/// KimiLinearRMSNormGated: the fp32 input, 1/rms, the normalized tensor
/// (the weight's gradient), the weighted product and sigmoid(gate); in
/// 16-bit the weight's fp32 copy too.
fn kda_output_norm(t: &mut Terms, d: Dims, heads: u64, dk: u64) {
    let params = u64::from(d.params);
    let ch = 4 * d.t * heads * dk;
    t.push64(
        "gated output norm (fp32)",
        (3 + params) * ch + 4 * d.t * heads + 4 * dk * u64::from(d.half),
        format!("{} × 4·t·{}", 3 + params, heads * dk),
    );
}

/// Kimi Delta Attention through flash-linear-attention's `chunk_kda` and
/// causal-conv1d's `causal_conv1d_fn`, which transformers calls when they
/// import. Read from fla's `ChunkKDAFunction.forward` (recompute on, so its
/// w, u, qg, kg, v_new and chunk states are dropped before
/// `save_for_backward`): q and k after the in-kernel l2norm (model dtype)
/// with their fp32 rstd, a contiguous v, the gate as transformers' forget
/// gate returns it (fp32, per channel) and its chunk-local cumsum (fp32),
/// beta, and the intra-chunk Aqk and Akk (b·T·H·64 each, in k's dtype);
/// `CausalConv1dFn` keeps its input. Around the call, the forget gate,
/// beta and the output norm run in PyTorch as on the other path. Not
/// measured: fla's kernels need a GPU.
pub(super) fn kda_fused(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, tk) = (d.big_b, d.t);
    let heads = r.heads.max(1);
    let dk = r.state.max(1);
    let q = r.chunk_len().max(1);
    let cd = 3 * heads * dk;
    let ch = 4 * tk * heads * dk;
    t.push64(
        "projections, conv input, gates",
        kda_gates(d, heads, dk) + big_b * tk * cd,
        format!("{big_b}·t·{cd} conv input, t·{heads}·{dk} gate channels"),
    );
    // q, k (l2-normalized) with their rstd and v; g and its cumsum (fp32);
    // the intra-chunk Aqk and Akk
    t.push64(
        "chunk_kda: q, k, v, rstd, g, cumsum, Aqk, Akk",
        3 * big_b * tk * heads * dk + 2 * 4 * tk * heads + 2 * ch + 2 * big_b * tk * heads * q,
        format!("(3·{big_b} + 8)·t·{heads}·{dk} + 8·t·{heads} + 2·{big_b}·t·{heads}·{q}"),
    );
    kda_output_norm(t, d, heads, dk);
}
