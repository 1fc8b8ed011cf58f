//! Mamba-1 (`MambaMixer`, `JambaMambaMixer`) and Mamba-2 (`Mamba2Mixer`,
//! `NemotronHMamba2Mixer`, `FalconH1Mixer`, `GraniteMoeHybridMambaLayer`),
//! on transformers' PyTorch path and on mamba_ssm's kernels.

use super::dims::Dims;
use crate::activations::shape::Terms;
use crate::model::Recurrent;

/// Mamba-1 on the PyTorch path (`MambaMixer.forward` without `mamba_ssm`:
/// the torch `causal_conv1d_fn` and `mamba_selective_scan`'s sequential
/// loop over the tokens). Jamba (`dt_bc_norms`) adds RMSNorms on dt, B and
/// C and never calls the fused `mamba_inner_fn`.
pub(super) fn mamba1_torch(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, b, s, tk) = (d.big_b, d.b, d.s, d.t);
    let (i, n, k) = (r.inner, r.state, r.conv_kernel);
    let rank = r.dt_rank;
    a_terms(t, d, 4 * i * n, format!("4·{i}·{n}"));
    t.push64(
        "in_proj output (x, z)",
        2 * big_b * tk * i,
        format!("2·{big_b}·t·{i}"),
    );
    conv_padded(t, d, i, k);
    // In fp32 the activation is also the scan's `u` (`.float()` is itself).
    if d.linears || !d.half {
        t.push64(
            "conv activation (x_proj input)",
            big_b * tk * i,
            format!("{big_b}·t·{i}"),
        );
    }
    // At b > 1 the transposed activation is not a view x_proj's matmul can
    // take: it keeps a contiguous copy (at b = 1 the view itself).
    if b > 1 && d.linears {
        t.push64(
            "x_proj input copy",
            big_b * tk * i,
            format!("{big_b}·t·{i} (b > 1)"),
        );
    }
    if r.dt_bc_norms {
        // JambaRMSNorm on dt (rank), B and C (state): fp32 input, 1/rms,
        // normalized; dt_proj keeps the dt norm's output, the scan's matmul
        // C's; `B.float()` is a new fp32 tensor in both dtypes.
        let w = rank + 2 * n;
        // The normalized tensors are kept for the norms' weights, dt_proj's
        // input for its weight: neither when they are frozen.
        let normalized = u64::from(d.params);
        t.push64(
            "dt/B/C norms",
            4 * tk * w + 3 * 4 * tk + normalized * big_b * tk * w,
            format!("4·t·{w} + 12·t + {normalized}·{big_b}·t·{w}"),
        );
        let dt_in = if d.linears { rank } else { 0 };
        t.push64(
            "dt_proj input, C",
            big_b * tk * (dt_in + n),
            format!("{big_b}·t·({dt_in} + {n})"),
        );
        t.push64("B (fp32)", 4 * tk * n, format!("4·t·{n}"));
    } else {
        // x_proj's output: dt_proj reads dt, the scan's matmul C, both views.
        t.push64(
            "x_proj output (dt, B, C)",
            big_b * tk * (rank + 2 * n),
            format!("{big_b}·t·({rank} + 2·{n})"),
        );
        if d.half {
            t.push64("B (fp32)", 4 * tk * n, format!("4·t·{n}"));
        }
    }
    t.push64(
        "dt + bias, softplus(dt)",
        2 * big_b * tk * i,
        format!("2·{big_b}·t·{i}"),
    );
    t.push64(
        "exp(A·dt), dt·B·u (fp32)",
        2 * 4 * tk * i * n,
        format!("2 × 4·t·{i}·{n}"),
    );
    if d.half {
        t.push64("u (fp32)", 4 * tk * i, format!("4·t·{i}"));
    }
    // The loop `ssm_state = dA[:, :, i] * ssm_state + dBu[:, :, i]` keeps
    // every state it multiplies: the initial zeros (model dtype) and the
    // fp32 states of steps 1..s−1; `matmul(ssm_state.to(dtype), C)` keeps
    // each state again, a 16-bit copy per step (in fp32 the state itself,
    // which adds only the last one).
    let states = b * i * n;
    let per_step = if d.half {
        4 * s.saturating_sub(1) * states + s * big_b * states
    } else {
        4 * s * states
    };
    t.push64(
        "scan states (per token)",
        big_b * states + per_step,
        format!(
            "{big_b}·b·{i}·{n} + {}",
            if d.half {
                format!("4·(s − 1)·b·{i}·{n} + {big_b}·s·b·{i}·{n}")
            } else {
                format!("4·s·b·{i}·{n}")
            }
        ),
    );
    if d.half {
        t.push64("D (fp32)", 4 * i, format!("4·{i}"));
    }
    t.push64(
        "silu(z), scan output (fp32)",
        (big_b + 4) * tk * i,
        format!("({big_b} + 4)·t·{i}"),
    );
    out_proj_input(t, d, i);
}

/// Mamba-1 on mamba_ssm's kernels. `MambaMixer` calls `mamba_inner_fn`:
/// `MambaInnerFn` (checkpoint_lvl 1, recomputing the convolution and dt)
/// saves `xz` (a contiguous copy of the transposed in_proj output),
/// `x_dbl`, `A`, `B` and `C` (contiguous), `D` and `delta_bias` (fp32
/// copies of 16-bit weights), `scan_intermediates` ((b, I, ⌈s/2048⌉, 2N)
/// fp32) and `out`. Jamba calls `causal_conv1d_fn` (`CausalConv1dFn` keeps
/// its channel-last input, a view of the in_proj output) and
/// `selective_scan_fn` (`SelectiveScanFn` keeps contiguous u, delta, B, C
/// and z, D, delta_bias, the intermediates and `out`) with its dt/B/C norms
/// in PyTorch between them.
pub(super) fn mamba1_fused(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, tk) = (d.big_b, d.t);
    let (i, n) = (r.inner, r.state);
    let rank = r.dt_rank;
    // selective_scan_cuda.fwd: x = (batch, dim, n_chunks, dstate·2) in A's
    // dtype (fp32), n_chunks = ⌈seqlen / 2048⌉ (kChunkSize 2048).
    let chunks = d.s.div_ceil(2048);
    a_terms(t, d, 4 * i * n, format!("4·{i}·{n}"));
    t.push64(
        "xz (in_proj output)",
        2 * big_b * tk * i,
        format!("2·{big_b}·t·{i}"),
    );
    if r.dt_bc_norms {
        // Jamba's x_proj, dt_proj and out_proj run in PyTorch: a frozen
        // one keeps no input (from the PyTorch path's frozen measurement).
        if d.linears {
            t.push64(
                "conv output (x_proj input)",
                big_b * tk * i,
                format!("{big_b}·t·{i}"),
            );
        }
        let w = rank + 2 * n;
        t.push64(
            "dt/B/C norms",
            4 * tk * w + 3 * 4 * tk + big_b * tk * w,
            format!("4·t·{w} + 12·t + {big_b}·t·{w}"),
        );
        if d.linears {
            t.push64(
                "dt_proj input",
                big_b * tk * rank,
                format!("{big_b}·t·{rank}"),
            );
        }
        t.push64(
            "u, delta, z",
            3 * big_b * tk * i,
            format!("3·{big_b}·t·{i}"),
        );
    } else {
        t.push64(
            "x_dbl (dt, B, C)",
            big_b * tk * (rank + 2 * n),
            format!("{big_b}·t·({rank} + 2·{n})"),
        );
    }
    t.push64(
        "B, C (contiguous)",
        2 * big_b * tk * n,
        format!("2·{big_b}·t·{n}"),
    );
    if d.half {
        t.push64("D, delta_bias (fp32)", 2 * 4 * i, format!("2 × 4·{i}"));
    }
    t.push64(
        "scan intermediates (fp32)",
        4 * d.b * i * chunks * 2 * n,
        format!("4·b·{i}·⌈s/2048⌉·2·{n}"),
    );
    t.push64("scan output", big_b * tk * i, format!("{big_b}·t·{i}"));
    if r.dt_bc_norms {
        out_proj_input(t, d, i);
    }
}

/// Mamba-2 on the PyTorch path (`mamba2_chunk_scan`, the same code in
/// Mamba-2, Nemotron-H, Falcon-H1 and Granite-4.0-H): the sequence padded
/// to c = ⌈s/Q⌉ chunks of Q, fp32 throughout, each `torch.einsum`
/// keeping the contiguous operands it makes for `bmm`. With one chunk some
/// of those operands are views of tensors already kept (the padded x for
/// the states, the chunk states for C·states, and at b = 1 the padded B
/// and C): measured, they are not counted twice.
pub(super) fn mamba2_torch(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, b, tk) = (d.big_b, d.b, d.t);
    let m = Mamba2::of(r);
    let (i, hh, g, n, p) = (m.i, m.heads, m.groups, m.n, m.p);
    let q = r.chunk_len().max(1);
    let c = d.s.div_ceil(q);
    let sp = c * q;
    let one = c == 1;
    let cd = i + 2 * g * n;
    a_terms(t, d, 4 * hh, format!("4·{hh}"));
    t.push64(
        "in_proj output (z, xBC, dt)",
        big_b * tk * (i + cd + hh),
        format!("{big_b}·t·{}", i + cd + hh),
    );
    conv_padded(t, d, cd, r.conv_kernel);
    t.push64(
        "dt + bias, softplus(dt)",
        2 * big_b * tk * hh,
        format!("2·{big_b}·t·{hh}"),
    );
    // `A * dt.float()` keeps dt for A's gradient (a frozen A_log: not).
    let dt_copies = if d.half { 1 + u64::from(d.params) } else { 1 };
    t.push64(
        "dt (fp32)",
        dt_copies * 4 * tk * hh,
        format!("{dt_copies} × 4·t·{hh}"),
    );
    if d.half {
        t.push64("x (fp32)", 4 * tk * i, format!("4·t·{i}"));
    } else {
        t.push64(
            "conv activation (x, B, C)",
            4 * tk * cd,
            format!("4·t·{cd}"),
        );
    }
    // `D * x`: x is kept for D's gradient only.
    if d.params {
        t.push64(
            "x padded (D residual)",
            4 * b * sp * i,
            format!("4·b·{sp}·{i} (s padded to chunks of {q})"),
        );
    }
    t.push64(
        "chunk masks (bool)",
        2 * q * q + 2 * (c + 1) * (c + 1),
        format!("2·{q}² + 2·{}²", c + 1),
    );
    let qq = 4 * b * hh * c * q * q;
    t.push64(
        "exp(segsum), C·Bᵀ, its M operand",
        3 * qq,
        format!("3 × 4·b·{hh}·{c}·{q}²"),
    );
    let bn = 4 * b * sp * hh * n;
    let xp = 4 * b * sp * i;
    t.push64(
        "C, B operands of C·Bᵀ",
        2 * bn,
        format!("2 × 4·b·{sp}·{hh}·{n}"),
    );
    t.push64("x operand of Y_diag", xp, format!("4·b·{sp}·{i}"));
    t.push64(
        "decay_states, state_decay_out",
        2 * 4 * b * hh * sp,
        format!("2 × 4·b·{hh}·{sp}"),
    );
    let b_again = if one && b == 1 { 0 } else { bn };
    let x_again = if one { 0 } else { xp };
    t.push64(
        "B, B_decay, x of the chunk states",
        b_again + bn + x_again,
        format!(
            "{} × 4·b·{sp}·{hh}·{n} + {} × 4·b·{sp}·{i}",
            (1 + u64::from(b_again > 0)),
            u64::from(!one)
        ),
    );
    let states = 4 * b * hh * p * n;
    let read = if one { 2 } else { c };
    t.push64(
        "decay_chunk, chunk states, C·states operands",
        4 * b * hh * (c + 1) * (c + 1) + (c + 1) * states + read * states + b_again,
        format!(
            "4·b·{hh}·{}² + ({} + {read}) × 4·b·{hh}·{p}·{n}{}",
            c + 1,
            c + 1,
            if b_again > 0 {
                format!(" + 4·b·{sp}·{hh}·{n}")
            } else {
                String::new()
            }
        ),
    );
    t.push64("C·states", xp, format!("4·b·{sp}·{i}"));
    if m.gated {
        // MambaRMSNormGated (norm after the gate; FalconH1RMSNormGated
        // keeps as many): fp32 gate copy (16-bit only), silu(gate), the
        // padded scan output, the gated and the normalized tensors, 1/rms.
        // The normalized tensor is kept for the norm weight's gradient.
        let gate = if d.half { 4 * tk * i } else { 0 };
        let kept = 2 + u64::from(d.params);
        t.push64(
            "gated norm",
            gate + kept * 4 * tk * i + 4 * b * sp * i + 4 * tk * g,
            format!(
                "{}{kept} × 4·t·{i} + 4·b·{sp}·{i} + 4·t·{g}",
                if d.half {
                    format!("4·t·{i} + ")
                } else {
                    String::new()
                }
            ),
        );
    } else {
        // Falcon-H1 without `mamba_rms_norm`: `scan_output * silu(gate)`.
        t.push64(
            "silu(gate), scan output",
            big_b * tk * i + 4 * b * sp * i,
            format!("{big_b}·t·{i} + 4·b·{sp}·{i}"),
        );
    }
    out_proj_input(t, d, i);
}

/// Mamba-2 on mamba_ssm's kernels: every mixer calls
/// `mamba_split_conv1d_scan_combined` in training, and
/// `MambaSplitConv1dScanCombinedFn` saves `zxbcdt` (the in_proj output),
/// `out_x` (the scan output before the gated norm, model dtype), `A` and,
/// with the gated RMSNorm, its `rstd` (fp32, one per token and group); the
/// convolution, the norm and out_proj run again in backward.
pub(super) fn mamba2_fused(t: &mut Terms, d: Dims, r: &Recurrent) {
    let (big_b, tk) = (d.big_b, d.t);
    let m = Mamba2::of(r);
    let cd = m.i + 2 * m.groups * m.n;
    a_terms(t, d, 4 * m.heads, format!("4·{}", m.heads));
    t.push64(
        "zxbcdt (in_proj output)",
        big_b * tk * (m.i + cd + m.heads),
        format!("{big_b}·t·{}", m.i + cd + m.heads),
    );
    t.push64(
        "out_x (scan output)",
        big_b * tk * m.i,
        format!("{big_b}·t·{}", m.i),
    );
    if m.gated {
        t.push64(
            "norm rstd (fp32)",
            4 * tk * m.groups,
            format!("4·t·{}", m.groups),
        );
    }
}

/// A Mamba-2 mixer's widths.
struct Mamba2 {
    i: u64,
    heads: u64,
    groups: u64,
    n: u64,
    /// Head width: I / heads.
    p: u64,
    /// The gated RMSNorm before out_proj (every Mamba-2 mixer; Falcon-H1
    /// only with `mamba_rms_norm`).
    gated: bool,
}

impl Mamba2 {
    fn of(r: &Recurrent) -> Mamba2 {
        let heads = r.heads.max(1);
        let i = r.inner;
        Mamba2 {
            i,
            heads,
            groups: r.groups.max(1),
            n: r.state,
            p: i / heads,
            gated: r.gated_norm,
        }
    }
}

/// `A = -torch.exp(self.A_log.float())` of `bytes`: what reads A keeps
/// the negation (fp32 in every dtype), and exp its output for A_log's
/// gradient when A_log trains.
fn a_terms(t: &mut Terms, d: Dims, bytes: u64, formula: String) {
    let copies = if d.params { 2 } else { 1 };
    t.push64(
        "A = −exp(A_log) (fp32)",
        copies * bytes,
        format!("{copies} × {formula}"),
    );
}

/// out_proj's input, kept for its weight's gradient when it trains.
fn out_proj_input(t: &mut Terms, d: Dims, width: u64) {
    if d.linears {
        t.push64(
            "out_proj input",
            d.big_b * d.t * width,
            format!("{}·t·{width}", d.big_b),
        );
    }
}

/// The torch `causal_conv1d_fn` convolves with padding K − 1 and slices the
/// first s outputs: the activation keeps the whole padded output.
fn conv_padded(t: &mut Terms, d: Dims, width: u64, k: u64) {
    t.push64(
        "conv output (padded)",
        d.big_b * d.b * width * (d.s + k.saturating_sub(1)),
        format!("{}·b·{width}·(s + {k} − 1)", d.big_b),
    );
}
