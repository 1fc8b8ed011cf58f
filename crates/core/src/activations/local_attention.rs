//! LongT5's encoder attention (transformers 5.24 `LongT5LocalAttention`,
//! `LongT5TransientGlobalAttention`; eager only): the tokens are padded to
//! whole blocks of `radius + 1`, each block's queries score their own block
//! and its two neighbours (3 blocks of keys) and, for transient-global
//! attention, one summary per `global_block` tokens. What a layer saves,
//! measured on CPU (tests/data/t5/, every row exact).

use super::shape::{LayerShape, Terms};
use crate::model::{LocalAttention, ModelSpec};

/// The score shape: (blocks, block length, keys per query). In 64-bit
/// numbers: a sequence fits, and 128-bit division would bring its own
/// routine into the page's wasm.
fn local_scores(local: LocalAttention, seq: u128) -> (u128, u128, u128) {
    let seq = u64::try_from(seq).unwrap_or(u64::MAX);
    let block = local.radius.saturating_add(1);
    // transient-global's summaries: `seq // global_block_size`
    let summaries = seq.checked_div(local.global_block).unwrap_or(0);
    (
        u128::from(seq.div_ceil(block)),
        u128::from(block),
        u128::from(3 * block + summaries),
    )
}

/// (query, key) pairs an encoder layer scores per head and sequence: s²,
/// or LongT5's blocks × block length × keys per query.
pub fn encoder_score_pairs(spec: &ModelSpec, seq: u128) -> u128 {
    match spec.local_attention() {
        Some(local) => {
            let (blocks, block, keys) = local_scores(local, seq);
            blocks * block * keys
        }
        None => seq * seq,
    }
}

/// Replaces full attention's q, k, v, scores and o input: the blocked
/// query, the 3-block key and value copies, the fp32 softmax output, the
/// probabilities cast back to 16 bits (or dropped: mask and copy), the o
/// input, and transient-global's summaries (the one-hot aggregation, their
/// RMSNorm and their k/v input).
pub(super) fn local_attention_terms(t: &mut Terms, l: &LayerShape, local: LocalAttention) {
    let (b, s, e) = (l.batch, l.seq, l.act_bytes);
    let c = l.heads * l.head_dim;
    let (blocks, block, keys) = local_scores(local, s);
    let padded = blocks * block;
    let scores = b * blocks * l.heads * block * keys;
    // n blocks of L padded tokens, K keys a query, c = a·d
    t.push(
        "local q and 3-block k, v",
        e * b * (padded * c + 2 * blocks * keys * c),
        "B·b·(n·L·c + 2·n·K·c)".into(),
    );
    t.push(
        "local scores (fp32 softmax)",
        4 * scores,
        "4·b·n·a·L·K".into(),
    );
    let probabilities = if l.dropout {
        1 + e
    } else if e < 4 {
        e
    } else {
        0
    };
    t.push(
        "local probabilities (dropped or cast)",
        probabilities * scores,
        "(1 + B dropped, B cast to 16 bits)·b·n·a·L·K".into(),
    );
    // one sequence's output is a view of the padded buffer o reads
    let o_rows = if b == 1 { padded } else { b * s };
    t.push(
        "o_proj input",
        e * o_rows * c,
        "B·b·s·c (n·L·c for one sequence)".into(),
    );
    let g = keys - 3 * block;
    if g > 0 {
        let h = l.hidden;
        t.push(
            "global summaries",
            e * b * s * g + b * g * (8 * h + 4) + e * b * g * h,
            "B·b·s·g + b·g·(8·h + 4) + B·b·g·h, g = s / global block".into(),
        );
    }
}
