//! Which of the step's later tensors fit in the blocks its forward freed.
//!
//! PyTorch's caching allocator (`c10/cuda/CUDACachingAllocator.cpp`) serves
//! a request from the smallest cached free block at least as large,
//! splitting it; a request no cached block holds gets a new segment from
//! `cudaMalloc`, and segments are never merged. So the blocks forward's
//! saved tensors and the loss leave behind in backward serve the gradients
//! and the optimizer step's temporaries only as far as those are no larger
//! than them. A Llama-3-8B gradient of an MLP projection (117 MB) does not
//! fit in the 59 MB block of a b·s·i activation at 1 × 2048 tokens: its
//! segment is new, and the freed activations stay reserved beside it
//! (measured on an H100, `tests/data/groundtruth/h100_measured.jsonl`: SGD
//! at 1 × 2048 reserves 40.16 GiB where 30.28 GiB are ever allocated).
//!
//! Under checkpointing (or with activations offloaded), each layer's
//! tensors are rebuilt in backward as its gradients are written: a gradient
//! no larger than the rebuilt layer's blocks takes one, and the next layer
//! rebuilt needs a new one, so such gradients count in full.

use crate::model::Arch;
use crate::precision::TrainingPrecision;
use crate::resolved::Resolved;
use crate::scenario::{Framework, Optimizer, Strategy};
use crate::trainable::trains_every_weight;
use crate::weights::block_matrices;

/// Cached blocks of one size class: their bytes and the size of one block.
#[derive(Clone, Copy)]
struct Pool {
    bytes: u128,
    block: u128,
}

/// A class of tensors requested after forward: one tensor's bytes and the
/// bytes of all of them.
type Requests = Vec<(u128, u128)>;

/// What the step's transient tensors came to at the peak of forward and
/// backward, with the gradients and the step's temporaries after them.
pub(super) struct Transients {
    /// Saved activations at the peak (the checkpoints, under checkpointing).
    pub activations: u128,
    /// The part of them the text's tokens do not scale (autocast's weight
    /// copies, the vision tower's).
    pub fixed: u128,
    pub loss: u128,
    /// Gradients written in backward (0 when they stay allocated between
    /// steps, as with accumulation).
    pub gradients: u128,
    pub step: u128,
    /// Layers are rebuilt in backward (checkpointing, offloading).
    pub rebuilt: bool,
}

/// Bytes of new segments the gradients and the step's temporaries need
/// beyond the blocks forward freed (with FSDP: its reduce-scatter inputs,
/// the compute stream's only requests of that size), and the rule's
/// formula; `None` where the rule does not apply (ZeRO or model-parallel
/// runs, expandable segments, whose one growing range hands freed pages to
/// any size).
pub(super) fn fresh_segments(r: &Resolved, t: &Transients) -> Option<(u128, String)> {
    let s = &r.shards;
    let plain = matches!(s.strategy, Strategy::None | Strategy::Ddp) && s.tp * s.pp == 1;
    let fsdp = s.strategy == Strategy::Fsdp && s.training;
    if !(plain || fsdp) || r.expandable_segments || t.gradients + t.step == 0 {
        return None;
    }
    let (activation_block, loss_block) = block_sizes(r);
    let (mut requests, what) = if fsdp {
        (
            super::sharded::fsdp_reduce_inputs(r),
            "FSDP's reduce-scatter inputs",
        )
    } else {
        let gradients = gradient_tensors(r, t.gradients);
        let step = step_tensors(r, &gradients, t.step);
        ([gradients, step].concat(), "gradients and step temporaries")
    };
    crate::short_sort::sort_by_key(&mut requests, |r| std::cmp::Reverse(r.0));
    let pools = [
        Pool {
            bytes: t.activations,
            block: if t.rebuilt { 0 } else { activation_block },
        },
        Pool {
            bytes: t.loss,
            block: loss_block.min(t.loss),
        },
    ];
    let rebuilt = t.rebuilt.then_some(activation_block);
    let whole = Scale {
        num: 1,
        den: 1,
        strict: false,
    };
    let mut fresh = fresh_at(&requests, pools, rebuilt, t.fixed, whole);
    // The envelope over fewer tokens: blocks grow with b·s, and where a
    // gradient has just come to fit, the run a token short of it needed
    // its segment beside smaller blocks. The estimate keeps that, so it
    // never falls as the batch or the sequence grows.
    let scaled = t.activations - t.fixed + t.loss;
    for &(size, _) in &requests {
        for pool in pools.iter().filter(|p| size > 0 && size <= p.block) {
            let at = Scale {
                num: size,
                den: pool.block,
                strict: true,
            };
            let fewer = scaled * (pool.block - size) / pool.block;
            let below = fresh_at(&requests, pools, rebuilt, t.fixed, at).saturating_sub(fewer);
            fresh = fresh.max(below);
        }
    }
    Some((
        fresh,
        format!(
            "forward's freed blocks stay cached; {what} larger than them (activations ≤ {activation_block} B{}, loss ≤ {loss_block} B) take new segments: {fresh}",
            if t.rebuilt { ", rebuilt per layer in backward" } else { "" }
        ),
    ))
}

/// A share `num / den` of the step's tokens; `strict`: just below it.
#[derive(Clone, Copy)]
struct Scale {
    num: u128,
    den: u128,
    strict: bool,
}

impl Scale {
    /// Whether a tensor of `size` fits in a block of `block` at this scale.
    fn fits(self, size: u128, block: u128) -> bool {
        let (lhs, rhs) = (size * self.den, block * self.num);
        if self.strict {
            lhs < rhs
        } else {
            lhs <= rhs
        }
    }
}

/// New segments the requests need with the pools' token-scaled bytes
/// (all but the activations' `fixed` part) scaled to `scale`, smallest
/// blocks first (the allocator's best fit). Under `rebuilt`, a gradient
/// the rebuilt layer's blocks would hold displaces that layer.
fn fresh_at(
    requests: &Requests,
    mut pools: [Pool; 2],
    rebuilt: Option<u128>,
    fixed: u128,
    scale: Scale,
) -> u128 {
    pools[0].bytes = fixed + (pools[0].bytes - fixed) * scale.num / scale.den;
    pools[1].bytes = pools[1].bytes * scale.num / scale.den;
    if pools[0].block > pools[1].block {
        pools.swap(0, 1);
    }
    let mut fresh = 0;
    for &(size, total) in requests {
        let mut left = total;
        if !rebuilt.is_some_and(|block| scale.fits(size, block)) {
            for pool in pools.iter_mut().filter(|p| scale.fits(size, p.block)) {
                let taken = left.min(pool.bytes);
                pool.bytes -= taken;
                left -= taken;
            }
        }
        fresh += left;
    }
    fresh
}

/// The largest block of a layer's saved tensors (its widest b·s tensor)
/// and of the loss's (fp32 b·s·V).
fn block_sizes(r: &Resolved) -> (u128, u128) {
    let spec = r.spec;
    let b = u128::from(r.training.micro_batch);
    let s = u128::from(r.training.seq_len);
    let fp32 = r.precision == TrainingPrecision::Fp32;
    // Linear outputs are 16-bit under autocast; the residual stream fp32.
    let matmul = if fp32 { 4 } else { 2 };
    let residual = if fp32 || r.autocast { 4 } else { 2 };
    let h = u128::from(spec.hidden);
    // Eager attention's probabilities are larger blocks still; left out,
    // the rule never puts an eager step below a fused kernel's.
    let widest = (b * s * h * residual).max(b * s * u128::from(spec.intermediate) * matmul);
    let vocab = b * r.decoder_tokens() * u128::from(spec.vocab);
    (widest, 4 * vocab)
}

/// The gradients as tensors: every projection of a layer, the embedding
/// and the head when every weight trains (q, k and v one tensor where the
/// model builds them as one linear); the rest, adapters among them, as
/// small tensors any freed block holds.
fn gradient_tensors(r: &Resolved, bytes: u128) -> Requests {
    if bytes == 0 {
        return Vec::new();
    }
    let per_element = r.trainable_dtype.bytes() as u128;
    let mut tensors = Vec::new();
    if trains_every_weight(r.training.method) {
        let layers = u128::from(r.spec.layers.max(1));
        let counts = &r.counts;
        let fused = fused_qkv(r.spec.arch);
        let mut qkv = 0;
        for (i, (_, total)) in block_matrices(&counts.layers).into_iter().enumerate() {
            let total = u128::from(total) * per_element;
            if fused && i < 3 {
                qkv += total;
            } else if total > 0 {
                tensors.push((total / layers, total));
            }
        }
        if qkv > 0 {
            tensors.push((qkv / layers, qkv));
        }
        for table in [counts.embedding, counts.lm_head] {
            let table = u128::from(table) * per_element;
            if table > 0 {
                tensors.push((table, table));
            }
        }
    }
    let counted: u128 = tensors.iter().map(|t| t.1).sum();
    if counted > bytes {
        // A part trains (a tower frozen): scale the classes to what does.
        for t in &mut tensors {
            t.1 = t.1 * bytes / counted;
        }
    } else {
        tensors.push((0, bytes - counted));
    }
    tensors
}

/// The step's temporaries as tensors: a foreach step holds one per
/// parameter, shaped as the gradients; Adafactor and a for-loop step one
/// tensor at a time, the largest.
fn step_tensors(r: &Resolved, gradients: &Requests, bytes: u128) -> Requests {
    if bytes == 0 {
        return Vec::new();
    }
    let t = r.training;
    let foreach = t.framework != Framework::HfTrainer && t.optimizer != Optimizer::Adafactor;
    let total: u128 = gradients.iter().map(|g| g.1).sum();
    if foreach && total > 0 {
        return gradients
            .iter()
            .map(|&(size, part)| (size * bytes / total, part * bytes / total))
            .collect();
    }
    let largest = gradients.iter().map(|g| g.0).max().unwrap_or(0);
    // Adafactor's copies are fp32 whatever the parameter's dtype.
    let widen = if t.optimizer == Optimizer::Adafactor {
        4 / (r.trainable_dtype.bytes() as u128).clamp(1, 4)
    } else {
        1
    };
    vec![(largest * widen, bytes)]
}

/// transformers builds q, k and v as one linear (`c_attn`,
/// `query_key_value`, `qkv_proj`) in these architectures.
fn fused_qkv(arch: Arch) -> bool {
    matches!(
        arch,
        Arch::Gpt2 | Arch::GptNeox | Arch::Falcon | Arch::Bloom | Arch::GptBigcode | Arch::Phi3
    )
}
