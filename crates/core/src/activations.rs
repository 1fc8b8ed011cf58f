//! Bytes kept alive for backward by one training step.
//!
//! The per-layer terms are the tensors autograd saves, read off PyTorch's
//! saved-tensor hooks on real transformers blocks
//! (`shared/groundtruth/cpu/README.md` §2, reproduced exactly there for Llama-
//! and GPT-2-style blocks, eager and SDPA, fp32 / bf16 / autocast). Each term
//! is kept only when something that needs it requires a gradient, which is how
//! LoRA and frozen towers save memory.
//!
//! `shape` holds a layer's micro-batch and what needs a gradient, `layer`
//! the terms of one layer (`attention` those of its attention block),
//! `recurrent` those of the recurrent token mixers of hybrid and
//! state-space models (Mamba, Mamba-2, Gated DeltaNet, short convolutions,
//! lightning attention).

mod attention;
mod compiled;
mod cross_layer;
mod hyper;
mod layer;
mod local_attention;
mod merged_attention;
mod op_sac;
mod recurrent;
mod shape;
mod tower;
mod tower_forward;

pub use attention::{eager_prefill_bytes, eager_prefill_score_bytes};
pub use compiled::compiled_layer_terms;
pub use cross_layer::{cross_attention_stacks, cross_layer_terms};
pub use layer::{block_terms, layer_bytes, layer_terms, Block};
pub use local_attention::encoder_score_pairs;
pub use op_sac::op_sac_terms;
pub use recurrent::{hybrid_stacks, mixer_terms, recurrent_layer_terms, LayerStack};
pub use shape::{act_fn, has_dropout, ActFn, GradNeeds, LayerShape, LoraActs, Term};
pub use tower::{tower_gate_bytes, tower_layer_terms, tower_shared_bytes, TowerBatch};
pub use tower_forward::tower_forward_bytes;

/// What Whisper's encoder keeps outside its layers in training, for
/// `batch` samples: its output and the final LayerNorm's input
/// (2·N·h, activation dtype) with its fp32 statistics (8·N), and, when the
/// whole model trains, the convolution stem's tensors
/// ([`ModelSpec::encoder_stem`]); 0 for a model without fixed encoder
/// frames (measured: `tests/data/whisper/`).
///
/// [`ModelSpec::encoder_stem`]: crate::model::ModelSpec::encoder_stem
pub fn encoder_stem_bytes(
    spec: &crate::model::ModelSpec,
    batch: u128,
    act_bytes: u128,
    stem_trains: bool,
) -> u128 {
    let Some(frames) = spec.encoder_tokens.map(u128::from) else {
        return 0;
    };
    let stem = if stem_trains {
        u128::from(spec.encoder_stem)
    } else {
        0
    };
    batch * (act_bytes * (stem + 2 * frames * u128::from(spec.hidden)) + 8 * frames)
}
