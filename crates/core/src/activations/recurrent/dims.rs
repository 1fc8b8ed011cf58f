//! The shape numbers every recurrent mixer formula reads.

use crate::activations::shape::LayerShape;
use crate::model::Recurrent;

/// The shape numbers every mixer formula reads.
#[derive(Clone, Copy)]
pub(super) struct Dims {
    pub(super) b: u64,
    pub(super) s: u64,
    /// Tokens: b·s.
    pub(super) t: u64,
    pub(super) h: u64,
    /// Bytes of the activation dtype.
    pub(super) big_b: u64,
    /// 16-bit activations: casts to fp32 make new tensors (in fp32 they are
    /// the tensor itself and save nothing more).
    pub(super) half: bool,
    /// The mixer's projections train: each keeps its input for its weight's
    /// gradient (a frozen one keeps nothing; measured with every weight
    /// frozen, `tests/data/recurrent_acts/recurrent_acts_frozen.jsonl`).
    pub(super) linears: bool,
    /// Its small parameters train with the norms (A_log, D, dt_bias, the
    /// gated norm's weight): what only their gradients read is kept.
    pub(super) params: bool,
}

impl Dims {
    /// The shape in 64-bit numbers, or `None` when a mixer's product of
    /// tokens and up to three widths (the largest term: chunk states
    /// c·b·H·d_k·d_v, lightning's block states, Mamba's per-token SSM
    /// states) could pass 2^63. Below that every formula is exact in u64,
    /// whose multiply is one wasm instruction where u128's is a call: the
    /// difference is kilobytes of the web app's first load.
    pub(super) fn of(l: &LayerShape, rec: &Recurrent) -> Option<Dims> {
        let widest = [
            l.hidden,
            u128::from(rec.inner),
            u128::from(rec.state),
            u128::from(rec.heads),
            u128::from(rec.groups),
            u128::from(rec.chunk_len()),
            u128::from(rec.conv_kernel),
            u128::from(rec.dt_rank),
            // MambaInnerFn's scan chunks of 2048 tokens.
            2048,
        ]
        .into_iter()
        .max()
        .unwrap_or(1) as f64;
        let padded_tokens = l.batch as f64 * (l.seq as f64 + widest);
        if padded_tokens * widest.powi(3) * 64.0 >= 9.2e18 {
            return None;
        }
        let small = |x: u128| u64::try_from(x).ok();
        Some(Dims {
            b: small(l.batch)?,
            s: small(l.seq)?,
            t: small(l.tokens())?,
            h: small(l.hidden)?,
            big_b: small(l.act_bytes)?,
            half: l.act_bytes < 4,
            linears: l.grads.qkv,
            params: l.grads.norms,
        })
    }
}
