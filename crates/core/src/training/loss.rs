//! Logits and cross-entropy at their peak, by how the framework computes the loss.

use crate::model::Arch;
use crate::precision::TrainingPrecision;
use crate::resolved::Resolved;
use crate::scenario::{Framework, Method};

/// One GPU's logits of a micro-batch: b, s, V and their product.
fn logits_shape(r: &Resolved) -> (u128, u128, u128, u128) {
    let b = r.training.micro_batch as u128;
    // An encoder-decoder predicts its target tokens.
    let s = r.decoder_tokens();
    // Encoder classifiers (BERT) predict a few labels, not a vocabulary.
    let v = if r.spec.arch == Arch::Bert {
        2
    } else {
        r.spec.vocab as u128
    };
    (b, s, v, r.shards.tp_logits(b * s * v))
}

/// The block the 16-bit logits leave in the allocator's cache beside the
/// loss's peak, with its formula; `None` where no such block is left.
///
/// A loss that upcasts 16-bit logits (transformers' `ForCausalLMLoss`
/// calls `logits.float()`; torchtune casts the output before its loss)
/// frees the 16-bit logits with the model output before backward, and the
/// loss's fp32 gradients, twice their size, cannot fit in the block they
/// leave: it stays cached, unused, at the peak. With expandable segments
/// this block is the whole gap between reserved and allocated (52 H100 runs
/// of `tests/data/groundtruth/h100_expandable_segments.jsonl`: GPT-2,
/// Llama-3.2-1B, Qwen2.5-0.5B, gap = 2·b·s·V B within 0.3 GiB; fp32 runs,
/// whose `float()` is the same tensor, and BERT keep no such block).
pub(crate) fn freed_logits_block(r: &Resolved) -> Option<(u128, String)> {
    let t = r.training;
    let upcasting_loss = match t.framework {
        Framework::Transformers | Framework::HfTrainer | Framework::Deepspeed => {
            // OPT's head computes the loss in the model dtype, BERT's
            // classifier has no vocabulary, and a compiled loss saves the
            // logits instead of freeing them (`loss_bytes`).
            !matches!(r.spec.arch, Arch::Opt | Arch::Bert) && !t.compile
        }
        Framework::Torchtune => true,
        // litgpt computes head and loss in chunks of bf16 rows.
        Framework::Litgpt => false,
    };
    let sixteen_bit = r.precision != TrainingPrecision::Fp32;
    let output_dropped = t.method != Method::ForwardBackward;
    if !(upcasting_loss && sixteen_bit && output_dropped && !t.chunked_loss) {
        return None;
    }
    let (b, s, v, bsv) = logits_shape(r);
    Some((
        2 * bsv,
        format!("the freed 16-bit logits 2·b·s·V = 2 × {b} × {s} × {v} (too small for the loss's fp32 gradients)"),
    ))
}

/// What a compiled loss keeps until the compiled backward ends: 2 × 2·b·s·V
/// in 16-bit; `None` where the loss is not compiled into the model's graph.
///
/// The allocator trace of a compiled step (Llama-3.2-1B dims, 4 and 8
/// layers, b 2 × 2048, checkpointing, `tests/data/mechanisms/traces.jsonl.gz`)
/// shows the compiled forward write three logits-sized 16-bit tensors and
/// free one as it ends; the two it saves for the loss's backward are freed
/// only after the last gradient (the embedding's) is written, so they sit
/// beside every gradient at the end of backward. With checkpointing that is
/// the peak: measured 9.23 GB, where weights, states, gradients and the
/// embedding's fp32 gradient buffer alone come to 7.11 GB.
pub(super) fn compiled_loss_kept_to_backward_end(r: &Resolved) -> Option<u128> {
    let t = r.training;
    if !compiled_hf_loss(r) || t.chunked_loss {
        return None;
    }
    let logits = if r.precision == TrainingPrecision::Fp32 {
        4
    } else {
        2
    };
    Some(2 * logits * logits_shape(r).3)
}

/// transformers computes the loss inside the model's forward, so under
/// `torch.compile` the loss is part of the compiled graph.
fn compiled_hf_loss(r: &Resolved) -> bool {
    r.training.compile && r.training.framework.is_hugging_face()
}

/// The bytes and the formula.
pub(super) fn loss_bytes(r: &Resolved) -> (u128, String) {
    let t = r.training;
    let spec = r.spec;
    let (b, s, v, bsv) = logits_shape(r);
    let fp32 = r.precision == TrainingPrecision::Fp32;
    // A training step keeps only the loss: the model output holding the
    // logits is dropped before backward (HF Trainer's compute_loss returns
    // the loss alone), so the logits themselves are freed and what peaks is
    // the loss's backward: the saved log-softmax, its incoming gradient and
    // the gradient it makes. A forward/backward benchmark that keeps the
    // output (the transformers docs' SDPA tables) holds the logits too.
    let holds_output = t.method == Method::ForwardBackward;
    let compiled_hf_loss = compiled_hf_loss(r);
    let (mult, why) = if t.chunked_loss {
        // Cross-entropy per chunk of rows: the 16-bit logits and their 16-bit
        // gradient exist in full, the fp32 softmax only one chunk at a time.
        (
            4,
            "chunked loss: 16-bit logits 2 + their gradient 2".to_string(),
        )
    } else if compiled_hf_loss {
        // transformers computes the loss inside the model's forward, so
        // torch.compile fuses the upcast, log-softmax and NLL: the forward
        // saves the 16-bit logits (not an fp32 log-softmax) and the fused
        // backward writes the fp32 gradient beside them: 2 + 4 (measured on
        // an H100: Llama-3.2-1B dims with 4 and 8 layers, b 2 × 2048, peak
        // minus held, layers and non-layer tensors = 5.9 B per logit,
        // tests/data/mechanisms/mechanisms.jsonl).
        let logits = if fp32 { 4 } else { 2 };
        (
            logits + 4,
            format!("compiled: saved logits {logits} + fused backward's fp32 gradient 4"),
        )
    } else {
        match t.framework {
            // HF ForCausalLMLoss upcasts the logits (`logits.float()`), then
            // cross-entropy saves the fp32 log-softmax (4); its backward holds
            // that, the incoming fp32 gradient and the one it makes: 12·bsV
            // (measured on an H100, h100_measured.jsonl: Llama-3.2-1B and
            // GPT-2 rows, bf16 and fp32, 12.0 ± 0.1 B per logit); fp32 runs
            // the same (`float()` of fp32 is the same tensor).
            Framework::Transformers | Framework::HfTrainer | Framework::Deepspeed => {
                let (base, logits, what) =
                    if matches!(spec.arch, Arch::Opt | Arch::Whisper | Arch::Bart) && !fp32 {
                        // OPT's head computes cross-entropy in the model dtype, no
                        // upcast: the hf-sdpa OPT-350m grid grows 0.994 MB per token,
                        // = 24 layers × 24·h + 8·V bytes. Whisper's
                        // `CrossEntropyLoss()(lm_logits, labels)` likewise (T5's
                        // head is written the same way, but its measured H100
                        // runs fit the upcast rule better: it stays there).
                        (6, 2, "16-bit log-softmax 2 + 2 16-bit gradients 4")
                    } else {
                        (
                            12,
                            if fp32 { 4 } else { 2 },
                            "fp32 log-softmax 4 + 2 fp32 gradients 8",
                        )
                    };
                if holds_output {
                    (
                        base + logits,
                        format!("logits kept with the output {logits} + {what}"),
                    )
                } else {
                    (
                        base,
                        format!("{what}; the logits are freed with the output"),
                    )
                }
            }
            // torchtune casts the output to fp32 before the loss: 4 + 4 + 8.
            Framework::Torchtune => (
                16,
                "fp32 logits 4 + log-softmax 4 + 2 fp32 gradients 8".to_string(),
            ),
            // litgpt computes the head and cross-entropy in 128-row chunks of
            // bf16 logits: logits 2 + bf16 log-softmax 2 + bf16 gradients 4.
            Framework::Litgpt => (
                8,
                "bf16 logits 2 + log-softmax 2 + 2 bf16 gradients 4".to_string(),
            ),
        }
    };
    (
        mult * bsv,
        format!("{mult}·b·s·V = {mult} × {b} × {s} × {v} ({why})"),
    )
}
