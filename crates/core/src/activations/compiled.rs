//! What a decoder layer saves for backward under `torch.compile` (inductor).
//!
//! AOTAutograd traces forward and backward as one joint graph and inductor's
//! `partition_fn` splits it with `min_cut_rematerialization_partition`: every
//! pointwise op (casts, RMSNorm's multiply, RoPE, SiLU/GELU, residual adds) is
//! recomputable, matmuls and attention are not, and the cut saves the
//! smallest set of tensors from which backward can recompute the rest. So a
//! compiled layer keeps no fp32 copy of the residual, no normalized-times-
//! weight product, no activation output, no RoPE input: only matmul inputs
//! and outputs, attention's inputs and outputs, norm statistics and the
//! residual stream in the activation dtype.
//!
//! Every term below was read off the partitioned forward graph's saved
//! outputs (`tests/data/compile/compile_breakdown.csv`) and checked against
//! the saved-tensor-hook bytes of transformers 5.24 / torch 2.15 Llama,
//! Qwen2, Qwen3, Gemma and Gemma-2 layers over four shapes, two (b, s) and
//! bf16 / fp32 (`tests/data/compile/compile_saved.csv`, `tests/compile.rs`).

use super::shape::{norm_saves, qk_norm_rows, LayerShape, LoraActs, Term, Terms};
use crate::model::{Arch, MlpKind, ModelSpec, NormKind};
use crate::scenario::{Attention, LoraTarget};

/// The compiled layer's saved terms, or `None` for a layer the measurements
/// do not cover (frozen weights other than PEFT LoRA's, LoRA with dropout or
/// beside eager attention, autocast, dropout, LayerNorm, a plain or
/// mixture-of-experts MLP, parallel blocks, cross-attention): the caller
/// keeps the eager terms there.
pub fn compiled_layer_terms(l: &LayerShape, spec: &ModelSpec) -> Option<Vec<Term>> {
    let g = l.grads;
    let full = g.qkv && g.o && g.gate_up && g.down && g.norms && !g.linear_outputs;
    let frozen = !(g.qkv || g.o || g.gate_up || g.down || g.norms || g.linear_outputs);
    let lora = l.lora.as_ref().filter(|lo| {
        frozen
            && lo.per_module_fp32
            && !lo.dropout
            && !lo.fused_qkv
            && matches!(l.attention, Attention::Sdpa | Attention::Flash)
    });
    let covered = ((full && l.lora.is_none()) || lora.is_some())
        && !l.autocast
        && !l.dropout
        && !l.fp32_linear_inputs
        && l.cross_seq == 0
        && spec.norm == NormKind::Rms
        && spec.mlp == MlpKind::Gated
        && spec.moe.is_none()
        && spec.mla.is_none()
        && !spec.parallel_block
        && !matches!(spec.arch, Arch::Phi | Arch::Falcon);
    if !covered {
        return None;
    }
    let mut t = Terms::default();
    let big_b = l.act_bytes;
    let bs = l.tokens();
    let bsh = bs * l.hidden;
    let qd = l.heads * l.head_dim;
    let kvd = l.kv_heads * l.head_dim;
    // RMSNorms per layer: Gemma-2/3's sandwich layout has four, the others two.
    let norms = norm_saves(l, spec).count;
    // Each RMSNorm keeps only its fp32 1/rms (`rsqrt`, one per token); its
    // fp32 upcast and its product with the weight are pointwise, recomputed.
    t.push(
        "norm statistics (compiled)",
        norms * 4 * bs,
        format!("{norms} norms × 4·b·s"),
    );
    // The outputs of the two pre-norms are matmul inputs (q/k/v, gate/up):
    // saved for the weight gradients, in the activation dtype. Frozen
    // weights need no input; LoRA keeps its own copies (`lora_terms`).
    if lora.is_none() {
        t.push(
            "pre-norm outputs (q/k/v and gate/up input)",
            2 * big_b * bsh,
            format!("2 × {big_b}·b·s·h"),
        );
    }
    // The residual stream after attention and after the MLP: each norm's
    // backward recomputes its statistics' input from them.
    t.push(
        "residual stream (after attention, after MLP)",
        2 * big_b * bsh,
        format!("2 × {big_b}·b·s·h"),
    );
    if norms > 2 {
        // Gemma-2's post-attention and post-feedforward norms normalize the
        // o_proj and down_proj outputs: those matmul outputs are kept too.
        let post = norms - 2;
        t.push(
            "post-norm inputs (o_proj, down_proj outputs)",
            post * big_b * bsh,
            format!("{post} × {big_b}·b·s·h"),
        );
    }
    if let Some((rows, what)) = qk_norm_rows(spec, l) {
        // q_norm / k_norm (Qwen3): the q and k projections' outputs (their
        // input) and one fp32 statistic per normalized row.
        t.push(
            "q/k norm inputs and statistics",
            big_b * bs * (qd + kvd) + 4 * bs * rows,
            format!("{big_b}·b·s·({qd} + {kvd}) + 4·b·s·{what}"),
        );
    }
    match l.attention {
        Attention::Sdpa | Attention::Flash => fused_terms(&mut t, l, big_b),
        Attention::Eager => eager_terms(&mut t, l, spec, big_b),
    }
    let bsi = bs * l.intermediate;
    match lora {
        // gate and up outputs (the activation's and the product's inputs, the
        // activation itself recomputed) and down_proj's input.
        None => t.push(
            "feed-forward (gate, up, down input)",
            3 * big_b * bsi,
            format!("3·{big_b}·b·s·i"),
        ),
        Some(lo) => {
            t.push(
                "feed-forward (gate, up)",
                2 * big_b * bsi,
                format!("2·{big_b}·b·s·i"),
            );
            lora_terms(&mut t, l, lo);
        }
    }
    Some(t.0)
}

/// What PEFT's LoRA adds to a compiled layer whose base weights are frozen.
/// PEFT upcasts 16-bit adapters to fp32 (`autocast_adapter_dtype=True`) and
/// each adapted module casts its input to fp32 for `lora_A`; the compiled
/// graph computes each distinct cast once, so the layer keeps one fp32 copy
/// per distinct input (q/k/v share the attention input, gate/up the MLP
/// input), plus each adapter's fp32 `lora_A` output (`lora_B`'s input).
/// Checked to the byte against transformers 5.24 / peft 0.21 / torch 2.15 on
/// CPU (Llama with all seven, q+v, attention-only and MLP-only targets,
/// ranks 8–64, Qwen2, Qwen3, Gemma: `tests/data/compile/lora_compiled.jsonl`)
/// and on an H100 (`tests/data/mechanisms/`).
fn lora_terms(t: &mut Terms, l: &LayerShape, lo: &LoraActs) {
    use LoraTarget::{Down, Gate, Up, K, O, Q, V};
    let bs = l.tokens();
    let has = |x: &[LoraTarget]| x.iter().any(|x| lo.targets.contains(x));
    // q/k/v's input, o_proj's, gate/up's, down_proj's.
    let width = u128::from(has(&[Q, K, V])) * l.hidden
        + u128::from(has(&[O])) * l.heads * l.head_dim
        + u128::from(has(&[Gate, Up])) * l.hidden
        + u128::from(has(&[Down])) * l.intermediate;
    t.push(
        "fp32 lora_A inputs",
        4 * bs * width,
        "4·b·s·(each adapted input's width)".into(),
    );
    let adapters = lo
        .targets
        .iter()
        .filter(|x| **x != LoraTarget::Head)
        .count() as u128;
    t.push(
        "lora_A outputs (fp32)",
        adapters * 4 * bs * lo.rank,
        "adapters × 4·b·s·r".into(),
    );
}

/// SDPA (and FlashAttention): q after RoPE, k and v as attention reads them,
/// the output (also o_proj's input) and the fp32 logsumexp.
fn fused_terms(t: &mut Terms, l: &LayerShape, big_b: u128) {
    let bs = l.tokens();
    let qd = l.heads * l.head_dim;
    let kv_saved = compiled_kv_heads(l);
    let kvd = kv_saved * l.head_dim;
    t.push(
        "q, k, v (compiled)",
        big_b * bs * (qd + 2 * kvd),
        format!("{big_b}·b·s·({qd} + 2·{kv_saved}·{})", l.head_dim),
    );
    t.push(
        "attention output (o_proj input)",
        big_b * bs * qd,
        format!("{big_b}·b·s·{qd}"),
    );
    t.push("logsumexp", 4 * l.batch * l.heads * l.seq, "4·a·b·s".into());
}

/// The heads of k and v that attention saves under compile. Traced by
/// dynamo, transformers builds the 4-D mask (`_ignore_causal_mask_sdpa`
/// does not skip it while compiling), so `use_gqa_in_sdpa` is false and
/// `repeat_kv` expands k and v to every head; the reshape is a copy except
/// when there is one kv head (a size-1 dimension merges into a view of the
/// un-repeated tensor) or none to repeat (MHA). FlashAttention takes no mask
/// and reads the kv heads as they are.
fn compiled_kv_heads(l: &LayerShape) -> u128 {
    match l.attention {
        Attention::Sdpa if l.kv_heads > 1 && l.kv_heads < l.heads => l.heads,
        _ => l.kv_heads,
    }
}

/// Eager (Python) attention compiled: q, k and v as the matmuls read them
/// (repeated to every head, except one kv head at b = 1, where the
/// `repeat_kv` view stays kv-sized as in eager), o_proj's input, and the
/// score-sized tensors of [`compiled_eager_score_bytes`].
fn eager_terms(t: &mut Terms, l: &LayerShape, spec: &ModelSpec, big_b: u128) {
    let (b, s) = (l.batch, l.seq);
    let bs = l.tokens();
    let qd = l.heads * l.head_dim;
    let kv_width = if l.kv_heads == 1 && b == 1 {
        l.head_dim
    } else {
        qd
    };
    t.push(
        "q, k, v (repeated), attention output",
        big_b * bs * (2 * qd + 2 * kv_width),
        format!("{big_b}·b·s·(2·{qd} + 2·{kv_width})"),
    );
    let per_score = compiled_eager_score_bytes(spec, big_b);
    t.push(
        "attention scores (compiled)",
        per_score * b * l.heads * s * s,
        format!("{per_score}·a·b·s²"),
    );
    if big_b == 2 {
        t.push(
            "softmax statistics (row max, sum)",
            8 * b * l.heads * s,
            "8·a·b·s".into(),
        );
    }
}

/// Bytes per score a compiled eager attention keeps:
/// * the probabilities P·V reads (B);
/// * in 16-bit, transformers' softmax upcasts to fp32: the partitioner keeps
///   its 16-bit input (B) and two fp32 row statistics (max and sum, 8 B per
///   row, pushed separately) to recompute the fp32 probabilities, never
///   the fp32 probabilities themselves; in fp32 the saved probabilities are
///   the softmax output and nothing else is needed;
/// * Gemma-2's logit softcapping (`tanh(scores / cap) · cap`): the raw QKᵀ
///   output (B), from which backward recomputes tanh.
fn compiled_eager_score_bytes(spec: &ModelSpec, big_b: u128) -> u128 {
    let probabilities = 1;
    let softmax_input = u128::from(big_b == 2);
    let softcap = u128::from(spec.arch == Arch::Gemma2);
    big_b * (probabilities + softmax_input + softcap)
}
