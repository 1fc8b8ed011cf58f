//! Logits and cross-entropy at their peak, by how the framework computes the loss.

use crate::model::Arch;
use crate::precision::TrainingPrecision;
use crate::resolved::Resolved;
use crate::scenario::Framework;

/// The bytes and the formula.
pub(super) fn loss_bytes(r: &Resolved) -> (u128, String) {
    let t = r.training;
    let spec = r.spec;
    let b = t.micro_batch as u128;
    // An encoder-decoder predicts its target tokens.
    let s = r.decoder_tokens();
    // Encoder classifiers (BERT) predict a few labels, not a vocabulary.
    let v = if spec.arch == Arch::Bert {
        2
    } else {
        spec.vocab as u128
    };
    let bsv = r.shards.tp_logits(b * s * v);
    let fp32 = r.precision == TrainingPrecision::Fp32;
    let (mult, why) = if t.chunked_loss {
        // Cross-entropy per chunk of rows: the 16-bit logits and their 16-bit
        // gradient exist in full, the fp32 softmax only one chunk at a time.
        (4, "chunked loss: 16-bit logits 2 + their gradient 2")
    } else {
        match t.framework {
            // HF ForCausalLMLoss: 16-bit logits (2) + fp32 log-softmax saved (4)
            // + two fp32 logit-sized gradients in backward (8) = 14·bsV; fp32: 16
            // (cpu/README §3, measured 7.992–8.000·bsV for the backward term).
            Framework::Transformers | Framework::HfTrainer | Framework::Deepspeed => {
                if fp32 {
                    (16, "fp32 logits 4 + log-softmax 4 + 2 fp32 gradients 8")
                } else if spec.arch == Arch::Opt {
                    // OPT's head computes cross-entropy in the model dtype, no
                    // upcast: the hf-sdpa OPT-350m grid grows 0.994 MB per token,
                    // = 24 layers × 24·h + 8·V bytes.
                    (
                        8,
                        "16-bit logits 2 + 16-bit log-softmax 2 + 2 16-bit gradients 4",
                    )
                } else {
                    (
                        14,
                        "16-bit logits 2 + fp32 log-softmax 4 + 2 fp32 gradients 8",
                    )
                }
            }
            // torchtune casts the output to fp32 before the loss: 4 + 4 + 8.
            Framework::Torchtune => (16, "fp32 logits 4 + log-softmax 4 + 2 fp32 gradients 8"),
            // litgpt computes the head and cross-entropy in 128-row chunks of
            // bf16 logits: logits 2 + bf16 log-softmax 2 + bf16 gradients 4.
            Framework::Litgpt => (8, "bf16 logits 2 + log-softmax 2 + 2 bf16 gradients 4"),
        }
    };
    (
        mult * bsv,
        format!("{mult}·b·s·V = {mult} × {b} × {s} × {v} ({why})"),
    )
}
