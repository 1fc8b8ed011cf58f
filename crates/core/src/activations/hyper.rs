//! What a layer's manifold-constrained hyper-connections save for backward
//! (DeepSeek-V4's and GLM-5.3-Flash's `HyperConnection`, transformers
//! 5.24), beside the blocks they wrap. Measured on CPU with saved-tensor
//! hooks on tiny models of both families, every module's saves told apart
//! (`tests/data/hyper/`): exact on every row, trained and with the
//! connections frozen, fp32 and bf16.
//!
//! Per connection and token, with N streams of width h, e bytes per
//! activation and I Sinkhorn steps:
//! - the streams' fp32 copy (16-bit only: `.float()`), 4·N·h, which the
//!   unweighted norm's square keeps, and its 1/rms (4);
//! - the normalized streams, 4·N·h, and the projection's output,
//!   4·(2 + N)·N, for `fn`'s and the scales' gradients (trained only);
//! - `pre` and `post`'s sigmoids and `pre` + ε (3 × 4·N); `comb`'s softmax
//!   (4·N²) and its 2·I − 1 normalizations, each keeping its numerator and
//!   its sums (4·N² + 4·N);
//! - the streams themselves (e·N·h), which the collapse by `pre` and the
//!   mix by `comb` keep;
//! - between the blocks, the layer's expand and mix keep `post` and `comb`
//!   in the model dtype (e·N + e·N²) and the block's output (e·h);
//!
//! and per connection once, `fn.float()`: an fp32 copy of the projection
//! when it is held in 16 bits (GLM-5.3-Flash; DeepSeek-V4 keeps it fp32).

use super::shape::{LayerShape, Terms};
use crate::model::ManifoldHc;

/// Both connections of one layer (before the attention and before the MLP).
pub(super) fn manifold_terms(t: &mut Terms, l: &LayerShape, hc: &ManifoldHc) {
    let (n, h, e) = (u128::from(hc.streams), l.hidden, l.act_bytes);
    let steps = u128::from(hc.sinkhorn_iters);
    // The small parameters (`fn`, `base`, `scale`) train with the norms.
    let trained = u128::from(l.grads.norms);
    // bytes per stream element: the fp32 copy, the normalized streams, the
    // streams themselves
    let per_element = u128::from(e < 4) * 4 + trained * 4 + e;
    // the per-token weights: 1/rms, the projection's output, pre and post,
    // comb's softmax and normalizations, post and comb cast
    let weights = 4
        + trained * 4 * (2 + n) * n
        + 3 * 4 * n
        + 4 * n * n
        + (2 * steps - 1) * (4 * n * n + 4 * n)
        + e * n
        + e * n * n;
    let fn_copy = if e < 4 && !l.autocast && !hc.fn_fp32 {
        4 * (2 + n) * n * n * h
    } else {
        0
    };
    let per_token = per_element * n * h + weights + e * h;
    t.push(
        "hyper-connections",
        2 * (l.tokens() * per_token + fn_copy),
        format!("2 × (b·s·({per_element}·{n}·h + {e}·h + {weights}) + {fn_copy})"),
    );
}
