//! The attention block's saved tensors: fused (SDPA, FlashAttention) or
//! eager self-attention, and an encoder-decoder's cross-attention.

use super::shape::{LayerShape, NormSaves, RmsWeight, Terms};
use crate::model::kernels::EagerPath;
use crate::model::{Arch, ModelSpec};
use crate::scenario::Attention;

/// SDPA and FlashAttention: q, un-repeated k and v, the output and fp32 logsumexp.
pub(super) fn fused_attention_terms(t: &mut Terms, l: &LayerShape) {
    let bs = l.tokens();
    let qd = l.heads * l.head_dim;
    // a sliding layer over its window is handed a mask
    let kvd = l.sdpa_kv_width(l.window_mask);
    let attn_bytes = l.compute_bytes();
    t.push(
        "q, k, v",
        attn_bytes * (bs * qd + 2 * bs * kvd),
        format!("{attn_bytes}·b·s·({qd} + 2·{kvd})"),
    );
    // Also o_proj's input: selective recompute keeps it when o_proj
    // needs its weight gradient, and drops it with the core otherwise.
    let o_input = l.o_proj_input();
    t.push(
        if o_input > 0 {
            "attention output (o_proj input)"
        } else {
            "attention output"
        },
        attn_bytes * bs * qd,
        format!("{attn_bytes}·b·s·{qd}"),
    );
    t.push("logsumexp", 4 * l.batch * l.heads * l.seq, "4·a·b·s".into());
    if o_input > attn_bytes * bs * qd {
        t.push("o_proj input copy", l.act_bytes * bs * qd, "b·s·a·d".into());
    }
}

/// T5's learned relative-position bias reaches SDPA as a float mask
/// (transformers `create_position_bias_mask`), and in full training that
/// mask needs a gradient: PyTorch then runs SDPA's math path, which
/// computes half-precision inputs in fp32 (`_scaled_dot_product_attention_math`
/// upcasts unless `allow_fp16_bf16_reduction_math_sdp` is set). Measured on
/// an H100 (h100_measured.jsonl, t5-base bf16 without checkpointing): the
/// fused terms fell 38–47 % short; these terms cover it.
pub(super) fn sdpa_falls_back_to_math(l: &LayerShape, spec: &ModelSpec) -> bool {
    spec.arch == Arch::T5 && l.grads.norms && l.grads.qkv
}

/// SDPA's math path in fp32 (see [`sdpa_falls_back_to_math`]): q, k, v
/// upcast and saved by the two matmuls, the fp32 softmax output, the
/// dropout mask and the fp32 dropped probabilities P·V reads, and the
/// 16-bit output o_proj reads.
pub(super) fn math_sdpa_terms(t: &mut Terms, l: &LayerShape) {
    let (b, s) = (l.batch, l.seq);
    let qd = l.heads * l.head_dim;
    t.push(
        "q, k, v (fp32, SDPA math path)",
        4 * 3 * b * s * qd,
        format!("4·b·s·3·{qd}"),
    );
    t.push(
        "attention output (o_proj input)",
        l.o_proj_input(),
        "b·s·a·d".into(),
    );
    t.push(
        "attention scores",
        4 * b * l.heads * s * s,
        "4·a·b·s² (fp32 softmax)".into(),
    );
    if l.dropout {
        t.push(
            "attention dropout",
            5 * b * l.heads * s * s,
            "(1 + 4)·a·b·s² mask + fp32 dropped probs".into(),
        );
    }
}

/// Eager attention: q, k and v repeated to every head, the output for
/// o_proj, the score matrix and its dropout.
pub(super) fn eager_attention_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec) {
    let (b, s) = (l.batch, l.seq);
    let qd = l.heads * l.head_dim;
    let attn_bytes = l.compute_bytes();
    let (k_width, v_width) = eager_kv_widths(l);
    t.push(
        "q, k, v (repeated), attention output",
        attn_bytes * b * s * (qd + k_width + v_width) + l.o_proj_input(),
        format!("{attn_bytes}·b·s·({qd} + {k_width} + {v_width}) + o_proj input"),
    );
    let per_score = eager_saved_score_bytes(spec, l.act_bytes, l.autocast);
    t.push(
        "attention scores",
        per_score * b * l.heads * s * s,
        format!("{per_score}·a·b·s²"),
    );
    if probability_dropout(l, spec) {
        // 1-byte mask + the dropped probabilities P·V reads. Under
        // autocast P·V reads a 16-bit copy, already one of the score
        // bytes above; the fp32 dropout output is saved by nothing
        // (dropout's backward needs only its mask) and is freed.
        let dropped = attention_dropout_copy_bytes(attn_bytes, l.autocast);
        t.push(
            "attention dropout",
            (1 + dropped) * b * l.heads * s * s,
            format!("(1 + {dropped})·a·b·s² mask + dropped probs"),
        );
    }
}

/// Widths eager attention keeps K and V at, repeated to every query head
/// (`repeat_kv`): one kv head at b = 1 is a stride-0 view `matmul`
/// broadcasts, so K and V stay at kv size (cpu/README §2; under autocast
/// only V, K's 16-bit cast being a copy).
pub(super) fn eager_kv_widths(l: &LayerShape) -> (u128, u128) {
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    match (l.kv_heads == 1 && l.batch == 1, l.autocast) {
        (true, false) => (kvd, kvd),
        (true, true) => (qd, kvd),
        (false, _) => (qd, qd),
    }
}

/// T5's decoder layers add a cross-attention block (transformers
/// T5LayerCrossAttention): its own norm (input + normalized), q over the
/// target tokens, k and v over the encoder's, the attention output for o,
/// and the scores over target × source like self-attention's.
pub(super) fn cross_attention_terms(
    t: &mut Terms,
    l: &LayerShape,
    spec: &ModelSpec,
    norms: &NormSaves,
) {
    let (b, s, src) = (l.batch, l.seq, l.cross_seq);
    let bs = l.tokens();
    let bsh = bs * l.hidden;
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    let big_b = l.act_bytes;
    let attn_bytes = l.compute_bytes();
    let (norm_in, norm_stat) = (norms.input, norms.stat);
    // Gemma's norms keep an fp32 normalized tensor and `1 + weight`, and a
    // sandwich layer (T5Gemma) norms before and after the cross-attention
    let (cross_norms, normalized, offset) = match norms.rms {
        Some(RmsWeight::GemmaOffset) => (if norms.count == 4 { 2 } else { 1 }, 4, 4 * l.hidden),
        _ => (1, big_b, 0),
    };
    t.push(
        "cross-attention norm",
        cross_norms * (norm_in * bsh + norm_stat * bs + normalized * bsh + offset),
        format!(
            "{cross_norms} × ({norm_in}·b·s·h + {norm_stat}·b·s + {normalized}·b·s·h + {offset})"
        ),
    );
    if norms.rms.is_some() {
        // An RMSNorm keeps its normalized tensor for the weight's gradient;
        // the weighted product is another tensor, q's input (measured on
        // CPU: tests/data/t5/, `EncDecAttention.q`).
        t.push("cross-attention q input", big_b * bsh, "B·b·s·h".into());
    }
    // eager attention repeats k and v to every query head (`repeat_kv`)
    let kvd = if l.attention == Attention::Eager {
        qd
    } else {
        kvd
    };
    t.push(
        "cross-attention q, k, v, output",
        attn_bytes * (2 * bs * qd + 2 * b * src * kvd),
        format!("{attn_bytes}·(2·b·s·{qd} + 2·b·{src}·{kvd})"),
    );
    match l.attention {
        Attention::Sdpa | Attention::Flash => t.push(
            "cross-attention logsumexp",
            4 * b * l.heads * s,
            "4·a·b·s".into(),
        ),
        Attention::Eager => {
            let per_score = eager_saved_score_bytes(spec, l.act_bytes, l.autocast)
                + if probability_dropout(l, spec) {
                    1 + attention_dropout_copy_bytes(attn_bytes, l.autocast)
                } else {
                    0
                };
            t.push(
                "cross-attention scores",
                per_score * b * l.heads * s * src,
                format!("{per_score}·a·b·s·{src}"),
            );
        }
    }
}

/// Whether the attention drops its probabilities in training: the families
/// with dropout do (GPT-2, OPT, BERT, T5: 0.1 by default); BART's only with
/// an `attention_dropout` above 0 (PLBart's and M2M-100's 0.1; BART's,
/// mBART's, Marian's, Pegasus', BlenderBot's and MVP's default is 0).
fn probability_dropout(l: &LayerShape, spec: &ModelSpec) -> bool {
    l.dropout && (spec.arch != Arch::Bart || spec.probability_dropout)
}

/// Bytes per score of the dropped probabilities that P·V saves, beyond the
/// mask: the probabilities in the activation dtype; none extra under
/// autocast, whose 16-bit copy for P·V [`eager_score_bytes`] counts.
fn attention_dropout_copy_bytes(attn_bytes: u128, autocast: bool) -> u128 {
    if autocast {
        0
    } else {
        attn_bytes
    }
}

/// Bytes per score a family's eager layer saves: its own path where it has
/// one ([`EagerPath`]), else its architecture's ([`eager_score_bytes`]).
pub(super) fn eager_saved_score_bytes(spec: &ModelSpec, act_bytes: u128, autocast: bool) -> u128 {
    match spec.eager_path {
        EagerPath::InputDtypeSinks if act_bytes == 2 || autocast => 2,
        EagerPath::InputDtypeSinks => act_bytes,
        EagerPath::SavedFp32Sinks => 8,
        _ => eager_score_bytes(spec.arch, act_bytes, autocast),
    }
}

/// Bytes eager attention keeps per attention score (b·a·s² of them), by how
/// each transformers implementation writes its softmax:
/// * Llama and its copies: fp32 softmax output + 16-bit copy for P·V = 6 B in
///   16-bit, 4 B in fp32 (cpu/README §2, exact over 48 grid rows).
/// * OPT: also clamps scores with `torch.max`, which saves its 16-bit input:
///   2 + 4 + 2 = 8 B (hf-sdpa-158/160: eager − sdpa = 8.0 and 7.7 B per score).
/// * GPT-NeoX/Pythia: 6 B per score (hf-sdpa-169, the eager run at s = 2048).
/// * GPT-2-style blocks softmax in the activation dtype: B per score
///   (cpu/README §2, GPT-2 rows); under autocast fp32 softmax + 16-bit copy = 6.
/// * BERT under autocast: fp32 softmax output 4 + 16-bit copy for P·V 2 = 6;
///   its fp32 dropout output is saved by nothing (dropout keeps only its
///   1-byte mask, added separately), so it is gone at the peak.
/// * gpt-oss softmaxes its logits with the sinks in the input dtype and
///   P·V reads a view of that output: B per score, 2 under autocast
///   (tests/data/attention/eager_saved.jsonl).
/// * Gemma-2 caps its logits before the softmax (`Gemma2Attention`'s eager
///   path: `tanh(scores / softcap) * softcap`); `tanh` keeps its output, one
///   more score in the compute dtype (tests/data/compile/compile_saved.csv,
///   eager gemma2 rows: B·a·b·s² over Llama's bytes per score).
fn eager_score_bytes(arch: Arch, act_bytes: u128, autocast: bool) -> u128 {
    let softcap = if arch == Arch::Gemma2 {
        if autocast {
            2
        } else {
            act_bytes
        }
    } else {
        0
    };
    softcap + softmax_score_bytes(arch, act_bytes, autocast)
}

/// Bytes per score the softmax and the product with V keep.
fn softmax_score_bytes(arch: Arch, act_bytes: u128, autocast: bool) -> u128 {
    let sixteen = act_bytes == 2 || autocast;
    match arch {
        Arch::GptOss if sixteen => 2,
        Arch::GptOss => act_bytes,
        Arch::Opt if sixteen => 8,
        Arch::GptNeox | Arch::Stablelm if sixteen => 6,
        Arch::Bert | Arch::T5 if autocast => 6,
        // Whisper's and BART's `eager_attention_forward` softmax in the input dtype
        Arch::Gpt2
        | Arch::Bert
        | Arch::T5
        | Arch::Bloom
        | Arch::GptBigcode
        | Arch::Phi
        | Arch::Whisper
        | Arch::Bart => {
            if autocast {
                6
            } else {
                act_bytes
            }
        }
        _ if sixteen => 6,
        _ => 4,
    }
}

/// A prefill's eager bytes for a model: per score (its family's own path
/// where it has one, else [`eager_prefill_score_bytes`]) and per b·p² of
/// the 4-D mask (one value in the activation dtype; MPT's is boolean).
pub fn eager_prefill_bytes(spec: &ModelSpec, act_bytes: u128) -> (u128, u128) {
    let per_score = match spec.eager_path {
        EagerPath::Fp32Sinks => 12,
        EagerPath::InputDtypeSinks => 2 * act_bytes,
        _ => eager_prefill_score_bytes(spec.arch, act_bytes),
    };
    let mask = if spec.eager_path == EagerPath::BoolMask {
        1
    } else {
        act_bytes
    };
    (per_score, mask)
}

/// Bytes per attention score one eager layer holds at its worst moment in
/// a prefill under `torch.no_grad()`, by how each transformers
/// implementation writes its softmax (measured: the peak each layer adds
/// at three prompt lengths, `tests/data/attention/eager_prefill.jsonl`):
/// * Llama and its copies (Gemma-2's softcap, OPT's clamp and GPT-NeoX
///   too): `softmax(scores, dtype=float32)` upcasts a 16-bit input before
///   its fp32 output, beside the 16-bit scores: B + 4 + 4 = 10 B in 16
///   bits; in fp32 the input and the output, 8 B.
/// * GPT-2's softmax runs in the input dtype: scores and probabilities,
///   2·B.
/// * Bloom's `baddbmm` scores with ALiBi and its fp32 softmax: 12 B in
///   either dtype.
/// * gpt-oss cats the sink logits and subtracts their maximum before a
///   softmax in the input dtype: 3·B.
/// * GPT-Neo upcasts q and k before their product: fp32 scores and an
///   fp32 softmax, 8 B in either dtype.
pub fn eager_prefill_score_bytes(arch: Arch, act_bytes: u128) -> u128 {
    match arch {
        Arch::Gpt2 => 2 * act_bytes,
        Arch::GptNeo => 8,
        Arch::Bloom => 12,
        Arch::GptOss => 3 * act_bytes,
        _ if act_bytes < 4 => act_bytes + 8,
        _ => 2 * act_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each measured family's saved bytes per score, eager, pure 16-bit
    /// and fp32 (`tests/data/attention/eager_saved.jsonl`): its
    /// architecture's rule, or its own path (Granite-SWA's 8 B,
    /// MiMo-V2-Flash's B).
    #[test]
    fn eager_layers_save_what_each_family_was_measured_to_save() {
        let table = include_str!("../../tests/data/attention/eager_saved.jsonl");
        let mut checked = 0;
        for line in table.lines() {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let Some(family) = row["family"].as_str() else {
                continue;
            };
            let arch = match family {
                "llama" | "granite_swa" => Arch::Llama,
                "gemma2" => Arch::Gemma2,
                "gpt_oss" => Arch::GptOss,
                // Flint's saved path is Llama's: its architecture is Qwen3-MoE's
                "flint" => Arch::Qwen3Moe,
                "mimo_v2_flash" => Arch::Glm4Moe,
                _ => continue,
            };
            let spec = ModelSpec {
                arch,
                eager_path: crate::model::kernels::eager_path_for(family),
                ..ModelSpec::default()
            };
            let act = if row["dtype"] == "float32" { 4 } else { 2 };
            let measured = row["bytes_per_score"].as_f64().expect("bytes per score");
            assert_eq!(
                eager_saved_score_bytes(&spec, act, false) as f64,
                measured,
                "{row}"
            );
            checked += 1;
        }
        assert!(checked >= 24, "{checked}");
    }
}
