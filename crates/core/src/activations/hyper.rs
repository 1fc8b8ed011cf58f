//! What a layer's hyper-connections save for backward beside the blocks
//! they wrap (transformers 5.24). Measured on CPU with saved-tensor hooks on
//! tiny models of the four families that have them, every module's saves
//! told apart (`tests/data/hyper/`): exact on every row, trained and with
//! the connections frozen, fp32 and bf16.
//!
//! Per connection (two per layer: before the attention, before the MLP)
//! and token, with N streams of width h and e bytes per activation:
//! - manifold (DeepSeek-V4, GLM-5.3-Flash; I Sinkhorn steps): the streams'
//!   fp32 copy (16-bit only: `.float()`, 4·N·h), kept by the unweighted
//!   norm, and its 1/rms (4); trained, the normalized streams (4·N·h) and
//!   the projection's output (4·(2 + N)·N); `pre` and `post`'s sigmoids and
//!   `pre` + ε (3 × 4·N); `comb`'s softmax (4·N²) and its 2·I − 1
//!   normalizations, each keeping its numerator and its sums (4·N² + 4·N);
//!   the streams (e·N·h), which the collapse and the mix keep; between the
//!   blocks `post`, `comb` (e·N + e·N²) and the block's output (e·h); once
//!   per connection `fn.float()`, an fp32 copy of a 16-bit projection
//!   (GLM-5.3-Flash; DeepSeek-V4 keeps it fp32);
//! - independent (HY-V4, in fp32 whatever the dtype): the streams in fp32
//!   (4·N·h; the streams themselves too in 16 bits, e·N·h), 1/rms (4), the
//!   projection's output (4·2N) and, trained, the logits (4·2N); the
//!   sigmoids and `pre` (3 × 4·N); between the blocks `post` (4·N) and the
//!   block's output in fp32 (4·h);
//! - low-rank gated (Qwen4-Exp; rank r): the streams in fp32 (4·N·h) and
//!   1/rms per group (4·N); trained, the normalized streams for the norm's
//!   weight (4·N·h); the norm's output (e·N·h), the down projection's
//!   output into the SiLU (e·r) and, trained, the SiLU's output (e·r); the
//!   gate (e·N·h) and the injection weights (e·N); between the blocks the
//!   block's output and the injection weights (e·h + e·N); once per
//!   connection the norm's fp32 `1 + weight` (4·N·h).

use super::shape::{LayerShape, Terms};
use crate::model::{HyperConnections, HyperKind};

/// Both connections of one layer.
pub(super) fn hyper_terms(t: &mut Terms, l: &LayerShape, hc: &HyperConnections) {
    let (n, h, e) = (u128::from(hc.streams), l.hidden, l.act_bytes);
    let nh = n * h;
    // The small parameters (projections, scales, norm weights) train with
    // the norms.
    let trained = u128::from(l.grads.norms);
    let half = u128::from(e < 4);
    // (bytes per stream element, per token beside them, per connection)
    let (per_element, weights, once) = match hc.kind {
        HyperKind::Manifold {
            sinkhorn_iters,
            fn_fp32,
        } => {
            let steps = u128::from(sinkhorn_iters);
            let weights = 4
                + trained * 4 * (2 + n) * n
                + 3 * 4 * n
                + 4 * n * n
                + (2 * steps - 1) * (4 * n * n + 4 * n)
                + e * n
                + e * n * n
                + e * h;
            let copy = u128::from(e < 4 && !l.autocast && !fn_fp32);
            (
                half * 4 + trained * 4 + e,
                weights,
                copy * 4 * (2 + n) * n * nh,
            )
        }
        HyperKind::Independent => {
            let weights = 4 + 4 * 2 * n + trained * 4 * 2 * n + 3 * 4 * n + 4 * n + 4 * h;
            (4 + half * e, weights, 0)
        }
        HyperKind::LowRank { rank } => {
            let r = u128::from(rank);
            let weights = 4 * n + e * r + trained * e * r + e * n + e * h + e * n;
            (4 + trained * 4 + 2 * e, weights, 4 * nh)
        }
    };
    let per_token = per_element * nh + weights;
    t.push(
        "hyper-connections",
        2 * (l.tokens() * per_token + once),
        format!("2 × (b·s·({per_element}·{n}·h + {weights}) + {once})"),
    );
}
