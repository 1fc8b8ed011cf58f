//! The state a recurrent layer keeps for each sequence while generating: a
//! window of the causal convolution's inputs and, for state-space and
//! linear-attention mixers, the recurrent state itself. Unlike the KV cache
//! it does not grow with the context.
//!
//! Shapes as transformers' caches allocate them (one entry per recurrent
//! layer, batch first):
//! - Mamba (`MambaCache`): conv `(inner, kernel)`, ssm `(inner, state)`.
//! - Mamba-2 (`Mamba2`/`NemotronH`/`FalconH1`/`GraniteMoeHybrid` caches):
//!   conv `(inner + 2·groups·state, kernel)`, ssm `(heads, inner/heads, state)`.
//! - Gated DeltaNet (`Qwen3NextDynamicCache`): conv `(2·groups·state + inner,
//!   kernel)`, recurrent `(heads, state, inner/heads)`.
//! - Short convolution (LFM2): conv `(inner, kernel)`.
//! - Lightning attention (MiniMax): `(heads, d, d)` with `d = inner/heads`.
//!
//! transformers keeps the SSM and delta-rule states in fp32 whatever the
//! model's dtype (its Mamba, Mamba-2 and Gated DeltaNet layers create them
//! with `dtype=torch.float32`; measured in `tests/data/cache/`), and the
//! convolution windows and MiniMax's state in the model's dtype. vLLM keeps
//! them in the model's dtype unless the config sets `mamba_ssm_cache_dtype`.

use crate::model::{ModelSpec, Recurrent, RecurrentKind};
use crate::precision::Dtype;
use crate::scenario::Engine;

/// Elements of one layer's state for one sequence: (convolution window, recurrent state).
pub fn state_elements(r: &Recurrent) -> (u128, u128) {
    let inner = u128::from(r.inner);
    let heads = u128::from(r.heads).max(1);
    let groups = u128::from(r.groups);
    let state = u128::from(r.state);
    let kernel = u128::from(r.conv_kernel);
    match r.kind {
        RecurrentKind::Mamba => (inner * kernel, inner * state),
        RecurrentKind::Mamba2 => ((inner + 2 * groups * state) * kernel, inner * state),
        // Kimi Delta Attention's conv over q, k, v and its [heads, d, d]
        // state are Gated DeltaNet's with as many key heads as value heads
        RecurrentKind::GatedDeltaNet | RecurrentKind::KimiDelta => {
            ((2 * groups * state + inner) * kernel, state * inner)
        }
        RecurrentKind::ShortConv => (inner * kernel, 0),
        RecurrentKind::Lightning => (0, inner / heads * inner),
        // `RecurrentGemmaRecurrentBlock` keeps the convolution's last
        // `conv1d_width - 1` inputs and the RG-LRU one value per channel
        RecurrentKind::RgLru => (inner * kernel.saturating_sub(1), inner),
        // `xLSTMCache.rnn_state`: C (heads, d_qk, d_v), n (heads, d_qk) and
        // m (heads, 1), in the model's dtype
        RecurrentKind::Mlstm => (0, heads * (state * (inner / heads + 1) + 1)),
        // `RwkvModel`'s five (batch, hidden, layers) states: the two token
        // shifts (the last token's input to each mixing) and the WKV
        // numerator, denominator and running maximum
        RecurrentKind::Rwkv => (2 * inner, 3 * inner),
    }
}

/// Bytes of recurrent state per sequence on one GPU, all recurrent layers,
/// and the formula; `None` for a model without recurrent layers.
pub fn state_bytes_per_sequence(
    spec: &ModelSpec,
    dtype: Dtype,
    tp: u128,
    engine: Engine,
) -> Option<(u128, String)> {
    let recurrent = recurrent_bytes(spec, dtype, tp, engine);
    // ZAYA's CCA and Inkling's convolutions keep a fixed state beside
    // every attention layer's cache
    let attention = spec.attention_state.as_ref().map(|a| {
        let layers = u128::from(spec.attention_layer_count());
        let b = if a.fp32 { 4 } else { u128::from(dtype.bytes()) };
        let extra = match a.extra {
            0 => String::new(),
            e => format!(" + {e} wider layers' elements"),
        };
        (
            (layers * a.elements() + u128::from(a.extra)) * b,
            format!(
                "({layers} attention layers × ({} × {} conv + {} values){extra}) × {b} B",
                a.conv_channels, a.conv_steps, a.values
            ),
        )
    });
    match (recurrent, attention) {
        (Some((r, rt)), Some((a, at))) => Some((r + a, format!("{rt} + {at}"))),
        (one, None) | (None, one) => one,
    }
}

/// The recurrent layers' states.
fn recurrent_bytes(
    spec: &ModelSpec,
    dtype: Dtype,
    tp: u128,
    engine: Engine,
) -> Option<(u128, String)> {
    let r = spec.recurrent.as_ref().filter(|r| r.layers > 0)?;
    let (conv, state) = state_elements(r);
    let layers = u128::from(r.layers);
    let b = u128::from(dtype.bytes());
    let fp32_in_torch = matches!(
        r.kind,
        RecurrentKind::Mamba
            | RecurrentKind::Mamba2
            | RecurrentKind::GatedDeltaNet
            // `KimiDeltaAttention` casts its state to fp32 before caching it
            | RecurrentKind::KimiDelta
            // `_rnn_scan` accumulates in `acc_dtype=torch.float32` and the
            // layer keeps that state as it is
            | RecurrentKind::RgLru
            // `RwkvModel` creates the WKV states in fp32, the token shifts
            // in the model's dtype
            | RecurrentKind::Rwkv
    ) && matches!(engine, Engine::Transformers | Engine::Litgpt);
    let state_b = if fp32_in_torch || r.state_fp32 { 4 } else { b };
    // Tensor parallelism splits the channels (and heads) of every state.
    let tp = tp.max(1);
    let bytes = layers * (conv * b + state * state_b) / tp;
    let split = if tp > 1 {
        format!(" / {tp} (tensor parallel)")
    } else {
        String::new()
    };
    let text = format!(
        "{layers} {} layers × ({conv} conv × {b} B + {state} state × {state_b} B){split}",
        r.kind.label()
    );
    // Qwen4-Exp's n-gram layers also keep their convolution's steps and
    // the last token ids (not split: measured on one device only)
    match &spec.ngram_embedding {
        Some(n) => Some((
            bytes + n.state_bytes(spec.hidden, dtype.bytes()),
            format!(
                "{text} + {} n-gram layers × ({} × {} × {} conv × {b} B + {} × 8 B ids)",
                n.layers,
                n.streams,
                spec.hidden,
                n.conv_kernel.saturating_sub(1) * n.ngram,
                n.ngram.saturating_sub(1)
            ),
        )),
        None => Some((bytes, text)),
    }
}

impl RecurrentKind {
    /// Whether a fused kernel exists for its training (mamba_ssm,
    /// causal-conv1d, flash-linear-attention); transformers has none for
    /// MiniMax's lightning attention or RecurrentGemma's RG-LRU.
    pub fn has_fused_kernels(self) -> bool {
        !matches!(
            self,
            RecurrentKind::Lightning
                | RecurrentKind::RgLru
                | RecurrentKind::Mlstm
                | RecurrentKind::Rwkv
        )
    }

    /// The mixer's name in formulas.
    pub fn label(self) -> &'static str {
        match self {
            RecurrentKind::Mamba => "Mamba",
            RecurrentKind::Mamba2 => "Mamba-2",
            RecurrentKind::GatedDeltaNet => "Gated DeltaNet",
            RecurrentKind::ShortConv => "short-conv",
            RecurrentKind::Lightning => "lightning-attention",
            RecurrentKind::KimiDelta => "Kimi Delta Attention",
            RecurrentKind::RgLru => "RG-LRU",
            RecurrentKind::Mlstm => "mLSTM",
            RecurrentKind::Rwkv => "RWKV",
        }
    }
}
