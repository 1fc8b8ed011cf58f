//! What sharded data parallelism adds on each GPU, read from the
//! frameworks' source: DeepSpeed ZeRO's gradient buckets and gathered
//! parameters, FSDP's units gathered at the loss and its mixed precision,
//! DDP's buckets, and where offloaded gradients go.

use super::lines::Lines;
use crate::decimal::Decimal;
use crate::precision::{TrainingPrecision, WeightFormat};
use crate::report::{Counter, Line, Part};
use crate::resolved::Resolved;
use crate::scenario::Strategy;

/// FSDP (1 or 2) training a 16-bit model over fp32 parameters: the shard
/// is the fp32 master copy, cast to 16-bit only for each all-gather
/// (FSDP2 `MixedPrecisionPolicy(param_dtype)`, FSDP1 `MixedPrecision`, as
/// torchtitan, accelerate and the Trainer set them), and gradients are
/// reduce-scattered into fp32 shards of the parameters' own dtype
/// (`_fully_shard/_fsdp_param.py`, `_flat_param.py`). No 16-bit shard is
/// kept.
pub(super) fn fsdp_mixed_precision(r: &Resolved) -> bool {
    r.shards.training
        && r.shards.strategy == Strategy::Fsdp
        && r.precision == TrainingPrecision::Amp
        && matches!(r.chosen_format, WeightFormat::Fp16 | WeightFormat::Bf16)
}

/// FSDP's gathered parameters at the peak, the loss's backward, with the
/// formula: the unit holding the embedding, the head and the final norm
/// (the root, which FSDP2 does not reshard after forward by default, and
/// which the head's backward needs gathered first in any case) and one
/// decoder layer (the last, which torchtitan keeps and FSDP prefetches
/// first for backward). Measured on one rank of 8 on an H100
/// (`tests/data/sharded/`): within 0.3 % with Llama-3.2-1B's tied and
/// Llama-3-8B's untied head. `None` unless FSDP shards the weights.
pub(super) fn fsdp_gathered(r: &Resolved) -> Option<(u128, String)> {
    let s = &r.shards;
    if s.strategy != Strategy::Fsdp || !s.training {
        return None;
    }
    let (root, layer) = fsdp_units(r);
    let replica = r.weights.total / (s.tp * s.pp);
    let bytes = gathered_bytes(r, root + layer).min(replica);
    Some((
        bytes,
        format!(
            "FSDP at the loss's backward: the root unit (embedding, head, final norm: {root} params) and one layer ({layer} params) gathered × {:.2} B/param",
            Decimal(r.weights.total as f64 / r.counts.total.max(1) as f64)
        ),
    ))
}

/// `params` parameters gathered on one GPU, in the weights' bytes per
/// parameter (over TP × PP).
fn gathered_bytes(r: &Resolved, params: u128) -> u128 {
    let total = u128::from(r.counts.total.max(1));
    params * r.weights.total / total / (r.shards.tp * r.shards.pp)
}

/// FSDP's units: the root's parameters (embedding, head, final norm) and
/// one decoder layer's.
fn fsdp_units(r: &Resolved) -> (u128, u128) {
    let s = &r.shards;
    let c = &r.counts;
    let total = u128::from(c.total.max(1));
    let root = u128::from(c.embedding + c.lm_head + c.other);
    let in_layers = total
        .saturating_sub(root)
        .saturating_sub(u128::from(c.vision + c.projector));
    (root, in_layers / s.layers.max(1))
}

/// FSDP2 runs its collectives on streams of their own, and the caching
/// allocator keeps a freed block for the stream that allocated it
/// (`CUDACachingAllocator.cpp`), so these pools stay reserved beside the
/// compute stream's cache (`_fully_shard/_fsdp_collectives.py`):
/// * the all-gather outputs, allocated on the copy-in stream: the root
///   unit's as forward starts, then a layer's and the next one's
///   (prefetched), which split the root's freed block where they fit;
/// * the reduce-scatter outputs, allocated on the reduce-scatter stream:
///   the sharded gradients, freed between steps (`zero_grad`), so not
///   alive at the loss's backward (`gradients`: their bytes; 0 when they
///   stay allocated or go to the CPU).
///
/// Measured on one rank of 1, 2 and 8 on an H100 (`tests/data/sharded/`):
/// Llama-3.2-1B's reserved beyond allocated grows by the gradient shards'
/// bytes as the world shrinks (3.68, 5.51, 7.85 GiB at 8, 2, 1 ranks).
/// `None` unless FSDP trains with its shards on the GPU.
pub(super) fn fsdp_stream_pools(r: &Resolved, gradients: u128) -> Option<(u128, String)> {
    let s = &r.shards;
    if s.strategy != Strategy::Fsdp || !s.training {
        return None;
    }
    let (root, layer) = fsdp_units(r);
    let gathered = gathered_bytes(r, root.max(2 * layer));
    let shards = if s.params_offloaded() { 0 } else { gradients };
    Some((
        gathered + shards,
        format!(
            "FSDP's stream pools: all-gather outputs max(root, 2 layers) {gathered} + reduce-scatter outputs (the gradient shards) {shards}"
        ),
    ))
}

/// DeepSpeed ZeRO-3 reduces each full gradient bucket on its
/// `reduce_and_partition_stream`, where `reduce_scatter_coalesced`
/// (`deepspeed/runtime/comm/coalesced_collectives.py`) first concatenates
/// the bucket's gradients, rank by rank, into one flat buffer: a block of
/// up to `reduce_bucket_size` 16-bit elements cached for that stream alone.
/// Measured on one rank of 8 on an H100 (`tests/data/sharded/`): the
/// default 5e8-element bucket's runs reserve 1.1 to 1.5 GiB more beyond
/// allocated than the Trainer's h² bucket's. `None` for other layouts.
pub(super) fn zero3_stream_pool(r: &Resolved) -> Option<(u128, String)> {
    let s = &r.shards;
    if s.strategy != Strategy::Zero3 || !s.training || r.training.optimizer_in_backward {
        return None;
    }
    let elements = u128::from(crate::zero3::reduce_bucket_elements(r)).min(r.trainable);
    let bytes = elements * r.trainable_dtype.bytes() as u128 / (s.tp * s.pp);
    Some((
        bytes,
        format!("ZeRO-3's reduce stream: one flat gradient bucket, {elements} elements ({bytes})"),
    ))
}

/// FSDP2's reduce-scatter inputs, allocated on the compute stream in the
/// gradients' reduce dtype as each unit's backward ends
/// (`foreach_reduce`, over the parameters with gradients: adapters alone
/// under LoRA): the root's, and a layer's with the next one's in flight, as
/// (one tensor's bytes, all of them).
pub(super) fn fsdp_reduce_inputs(r: &Resolved) -> Vec<(u128, u128)> {
    let (root, layer) = if crate::trainable::trains_every_weight(r.training.method) {
        fsdp_units(r)
    } else {
        (0, r.trainable / r.shards.layers.max(1))
    };
    let split = r.shards.tp * r.shards.pp;
    // Mixed precision reduces into the fp32 shards' dtype.
    let bytes = if fsdp_mixed_precision(r) {
        4
    } else {
        r.trainable_dtype.bytes() as u128
    };
    let (root, layer) = (root * bytes / split, layer * bytes / split);
    vec![(root, root), (layer, 2 * layer)]
}

/// DeepSpeed ZeRO with its optimizer on the CPU: gradients leave the GPU
/// through reduce buckets and land in the CPU optimizer's fp32 gradient
/// partition (`deepspeed/runtime/zero/stage3.py`, `stage_1_and_2.py`).
/// Stage 3's bucket is allocated once and counted with
/// [`deepspeed_persistent_buffers`]; stages 1 and 2 allocate theirs
/// (`setup_buckets`, `reduce_bucket_size` elements in the 16-bit dtype) at
/// the first gradient of each backward. Returns the gradient bytes alive in
/// backward, or `None` for every other layout (FSDP included).
pub(super) fn offloaded_gradient_bucket(r: &Resolved, lines: &mut Lines) -> Option<u128> {
    let s = &r.shards;
    let deepspeed = matches!(
        s.strategy,
        crate::scenario::Strategy::Zero1
            | crate::scenario::Strategy::Zero2
            | crate::scenario::Strategy::Zero3
    );
    if !deepspeed || !s.optimizer_offloaded() || r.training.optimizer_in_backward {
        return None;
    }
    let dtype = r.trainable_dtype;
    let elements = crate::zero3::reduce_bucket_elements(r);
    let bucket = if s.strategy == crate::scenario::Strategy::Zero3 {
        0
    } else {
        u128::from(elements) * dtype.bytes() as u128
    };
    if bucket > 0 {
        lines.gpu.push(Line::new(
            Part::Gradients,
            bucket,
            format!(
                "reduce bucket {elements} elements × {} B ({}), allocated at the first gradient of backward; the gradients go to the CPU optimizer",
                dtype.bytes(),
                dtype.name()
            ),
            Counter::Allocated,
        ));
    }
    let partition = s.optimizer(4 * r.trainable);
    lines.cpu.push(Line::new(
        Part::Gradients,
        partition,
        format!(
            "{} trainable × 4 B (fp32 gradient partition){}",
            r.trainable,
            s.optimizer_note()
        ),
        Counter::Device,
    ));
    Some(bucket)
}

/// FSDP with its parameters on the CPU (FSDP1 `CPUOffload(offload_params=
/// True)`, FSDP2 `CPUOffloadPolicy`, torchtune's `fsdp_cpu_offload`): each
/// unit's gradients exist unsharded on the GPU only until its
/// reduce-scatter, whose shard is copied to the CPU, where the optimizer
/// steps (`torch/distributed/fsdp/_runtime_utils.py` `_post_backward_hook`,
/// `_fully_shard/_fsdp_param_group.py` `post_backward`). Returns the one
/// layer's unsharded gradients on the GPU, or `None` for other layouts.
pub(super) fn fsdp_offloaded_gradients(r: &Resolved, lines: &mut Lines) -> Option<u128> {
    let s = &r.shards;
    if s.strategy != crate::scenario::Strategy::Fsdp || !s.params_offloaded() {
        return None;
    }
    let dtype = r.trainable_dtype;
    let full = r.trainable_bytes();
    let unit = s.gathered_layers(full, 1);
    lines.gpu.push(Line::new(
        Part::Gradients,
        unit,
        format!(
            "one layer's unsharded gradients ({} B, {}) until its reduce-scatter; the shards go to the CPU",
            dtype.bytes(),
            dtype.name()
        ),
        Counter::Allocated,
    ));
    lines.cpu.push(Line::new(
        Part::Gradients,
        s.gradients(full),
        format!(
            "{} trainable × {} B (gradient shards){}",
            r.trainable,
            dtype.bytes(),
            s.gradient_note()
        ),
        Counter::Device,
    ));
    Some(unit)
}

/// The GPU buffers DeepSpeed ZeRO allocates once, before the first step,
/// with their formula: stage 3's gradient bucket (`contiguous_gradients`,
/// on by default: `reduce_bucket_size` elements in the 16-bit dtype,
/// `stage3.py` `_setup_for_real_optimizer`), whether or not the optimizer
/// is offloaded; with the optimizer on the CPU, stages 1 and 2 keep a
/// staging buffer the size of the largest parameter
/// (`temp_grad_buffer_for_gpu_offload`, `stage_1_and_2.py`).
pub(super) fn deepspeed_persistent_buffers(r: &Resolved) -> Option<(u128, String)> {
    use crate::scenario::Strategy;
    let s = &r.shards;
    if !s.training || r.training.optimizer_in_backward {
        return None;
    }
    let (what, elements, split) = match s.strategy {
        Strategy::Zero3 => (
            "ZeRO-3 gradient bucket (reduce_bucket_size, allocated once)",
            u128::from(crate::zero3::reduce_bucket_elements(r)),
            1,
        ),
        Strategy::Zero1 | Strategy::Zero2 if s.optimizer_offloaded() => (
            "ZeRO offload staging buffer (the largest parameter)",
            crate::zero3::largest_parameter_elements(r.spec),
            s.tp * s.pp,
        ),
        _ => return None,
    };
    let dtype = r.trainable_dtype;
    Some((
        elements * dtype.bytes() as u128 / split,
        format!(
            "{what}: {elements} elements × {} B ({})",
            dtype.bytes(),
            dtype.name()
        ),
    ))
}

/// ZeRO-3's gathered parameters when the shards stay on the GPU, as a line
/// (DeepSpeed gathers into new full-size tensors beside the partitions).
/// With the parameters on the CPU the weights line holds them.
pub(super) fn deepspeed_gathered(r: &Resolved, lines: &mut Lines) -> u128 {
    if r.shards.params_offloaded() {
        return 0;
    }
    let Some((bytes, formula)) = crate::zero3::gathered_bytes(r).filter(|(b, _)| *b > 0) else {
        return 0;
    };
    lines.gpu.push(Line::new(
        Part::Workspace,
        bytes,
        formula,
        Counter::Allocated,
    ));
    bytes
}

/// DDP's reducer keeps flat gradient buckets beside .grad
/// (gradient_as_bucket_view=False); ZeRO-3/FSDP gather two layers of
/// parameters; DeepSpeed keeps its gradient buffers. Returns (buckets,
/// gathered).
pub(super) fn parallelism_buffers(r: &Resolved, lines: &mut Lines) -> (u128, u128) {
    let buckets = r.shards.ddp_bucket_bytes(r.trainable_bytes());
    if let Some((bytes, formula)) = deepspeed_persistent_buffers(r) {
        lines.gpu.push(Line::new(
            Part::Workspace,
            bytes,
            formula,
            Counter::Allocated,
        ));
        return (bytes, deepspeed_gathered(r, lines));
    }
    // FSDP's mixed precision gathers into new 16-bit tensors even on one
    // rank (the cast is the all-gather's input); with the parameters on the
    // CPU the weights line holds what is gathered
    let sharded = (r.shards.zero3_gathered(r.weights.total, 2) > 0 || fsdp_mixed_precision(r))
        && !r.shards.params_offloaded();
    let (gathered, what) = sharded
        .then(|| crate::zero3::gathered_bytes(r).or_else(|| fsdp_gathered(r)))
        .flatten()
        .unwrap_or_default();
    if buckets + gathered > 0 {
        lines.gpu.push(Line::new(
            Part::Workspace,
            buckets + gathered,
            if buckets > 0 {
                "DDP gradient buckets = gradient bytes".into()
            } else {
                what
            },
            Counter::Allocated,
        ));
    }
    (buckets, gathered)
}
