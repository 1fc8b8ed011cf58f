//! Gated DeltaNet (`Qwen3NextGatedDeltaNet`, `Qwen3_5GatedDeltaNet`) on
//! transformers' PyTorch path and on flash-linear-attention's kernel.

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
