//! Memory outside live tensors: the CUDA context and libraries (only
//! nvidia-smi sees them) and the caching allocator's unused cache.

use crate::gpu::{Generation, GpuSpec};
use crate::precision::WeightFormat;
use crate::resolved::Resolved;
use crate::scenario::{LoraTarget, TaskKind};
use crate::weights::block_matrices;

const MIB: u64 = 1 << 20;

/// CUDA context, kernels and library handles of a PyTorch process, with the
/// source of the figure.
pub fn cuda_context_bytes(gpu: Option<&GpuSpec>) -> (u64, &'static str) {
    match gpu.map(|g| g.generation) {
        // Measured: 1343 MiB nvidia-smi "used" after torch.ones((1, 1)).to("cuda")
        // on a V100 (hf-bert-v100-001: CUDA 11 era, every kernel loaded eagerly).
        Some(Generation::Pascal | Generation::Volta | Generation::Turing) => (
            1341 * MIB,
            "measured on V100 with CUDA 11 (transformers docs, case hf-bert-v100-001)",
        ),
        // Measured on an H100 80GB (torch 2.11 + CUDA 13.0, driver 580;
        // tests/data/groundtruth/h100_measured.jsonl): NVML "used" exceeds
        // the allocator's peak reserved by 705–1031 MiB over 128 training and
        // generation runs, median 771 MiB (621 MiB right after init, 685 MiB
        // once cuBLAS is loaded, then the kernels the run loads lazily).
        Some(Generation::Hopper | Generation::Blackwell) => (
            770 * MIB,
            "measured on H100 with PyTorch 2.11 + CUDA 13: context, libraries and lazily loaded kernels (median of 128 runs)",
        ),
        // CUDA ≥ 11.7 loads modules lazily (PyTorch 2.x default
        // CUDA_MODULE_LOADING=LAZY): about 0.5 GiB for context + cuBLAS/cuDNN handles.
        Some(Generation::Ampere | Generation::Ada) | None => (
            512 * MIB,
            "PyTorch 2.x, CUDA 12 lazy module loading (typical 0.5 GiB)",
        ),
        // ROCm contexts are larger (HIP runtime + rocBLAS kernels loaded at start).
        Some(Generation::Cdna) => (1024 * MIB, "ROCm HIP runtime with rocBLAS (typical 1 GiB)"),
        // MPS has no separate device context: the process shares unified memory.
        Some(Generation::AppleSilicon) => (0, "unified memory: no separate device context"),
    }
}

/// How the run configures the caching allocator and what its step leaves
/// in the cache (see [`allocator_slack_bytes`]).
pub struct AllocatorCache {
    /// What loading leaves cached ([`loading_cache_bytes`]), with its formula.
    pub loading: (u128, String),
    /// Tensors allocated and freed each step (activations, logits, the
    /// optimizer step's temporaries).
    pub per_step_bytes: u128,
    /// A freed block no later allocation of the step fits in (the 16-bit
    /// logits beside the loss's fp32 gradients), with its formula.
    pub stranded_block: Option<(u128, String)>,
    /// `torch.cuda.empty_cache()` after loading: the loading blocks were
    /// released (or never existed).
    pub empty_cache_after_load: bool,
    /// `expandable_segments:True`: one growing segment, no split segments.
    pub expandable_segments: bool,
    /// The share of per-step tensors split segments hold ([`churn_percent`]).
    pub churn_percent: u128,
    /// Blocks cached for the collectives' own streams, with their formula.
    pub stream_pools: Option<(u128, String)>,
}

/// The caching allocator keeps freed blocks for reuse; at the peak these
/// stay reserved beyond the live tensors:
/// * the loading temporaries, unless `empty_cache` released them;
/// * a freed block the peak's tensors are too large for (the 16-bit logits);
/// * with fixed segments only: per-step tensors of varying sizes split
///   cached segments, which later tensors cannot use whole: a share
///   [`churn_percent`] of them. Expandable segments map pages into one
///   growing range, so a tensor that does not fit a free block extends the
///   range instead of leaving split segments behind (PyTorch's CUDA
///   semantics notes, "Optimizing memory usage with PYTORCH_CUDA_ALLOC_CONF").
pub fn allocator_slack_bytes(cache: AllocatorCache) -> (u128, String) {
    let split = split_segment_bytes(&cache);
    let percent = cache.churn_percent;
    let mut bytes = 0;
    let mut terms = Vec::new();
    if !cache.empty_cache_after_load {
        let (load, formula) = cache.loading;
        bytes += load;
        terms.push(format!("{formula} (loading)"));
    }
    for (block, formula) in [cache.stranded_block, cache.stream_pools]
        .into_iter()
        .flatten()
    {
        bytes += block;
        terms.push(formula);
    }
    if !cache.expandable_segments {
        let per_step = cache.per_step_bytes;
        bytes += split;
        terms.push(format!(
            "{percent}% of per-step tensors {per_step} (split segments)"
        ));
    }
    if terms.is_empty() {
        terms.push("0: expandable segments, loading blocks released by empty_cache".to_string());
    } else if cache.empty_cache_after_load {
        terms.push("no loading blocks (empty_cache)".to_string());
    }
    (bytes, terms.join(" + "))
}

/// The part of the cache held in split segments, which the allocator cannot
/// release while a live block shares the segment (0 with expandable segments).
pub fn split_segment_bytes(cache: &AllocatorCache) -> u128 {
    if cache.expandable_segments {
        0
    } else {
        cache.per_step_bytes * cache.churn_percent / 100
    }
}

/// The share of per-step tensors split segments hold.
/// * Training: [`CHURN_SLACK_PERCENT`], beside the blocks the gradients
///   outgrow (`training/reuse.rs`).
/// * Data-parallel training (DDP, ZeRO): [`SIDE_STREAM_CHURN_PERCENT`].
///   The caching allocator pools free blocks by stream
///   (`CUDACachingAllocator.cpp`: a block is reused only by the stream that
///   freed it), and these run their all-reduces, all-gathers and
///   reduce-scatters on streams of their own, so their buffers and the
///   compute stream's tensors cannot share blocks. FSDP's streams count
///   as their own pools instead (`training/sharded.rs`), beside training's
///   share.
/// * Generation: [`GENERATION_CHURN_PERCENT`]. Each step's tensors are a
///   little larger than the last's (the dynamic cache concatenates a token
///   onto every layer's keys and values), so a freed block is always a
///   little too small for its successor.
pub fn churn_percent(r: &Resolved) -> u128 {
    if !r.is_training() {
        GENERATION_CHURN_PERCENT
    } else if !matches!(
        r.shards.strategy,
        crate::scenario::Strategy::None | crate::scenario::Strategy::Fsdp
    ) {
        SIDE_STREAM_CHURN_PERCENT
    } else {
        CHURN_SLACK_PERCENT
    }
}

/// Generation's share: the 42 generation runs' reserved and device used
/// in `tests/data/groundtruth/h100_measured.jsonl` (transformers, dynamic
/// cache) are within 4 % at p90 with 10 %, the share once used for
/// training too.
pub const GENERATION_CHURN_PERCENT: u128 = 10;

/// The share with collectives on side streams: one rank of DeepSpeed
/// ZeRO-1/2/3 jobs measured on an H100
/// (`tests/data/sharded/sharded_cases.jsonl`): reserved median |error|
/// 6.1 % at 10 %, every run under at 5 %.
pub const SIDE_STREAM_CHURN_PERCENT: u128 = 10;

/// Device used on a card of `capacity` bytes, from `used` as the estimate
/// has it without a card and the part of its cache the allocator can free
/// (`releasable`: whole free segments, the cache beyond its split ones).
/// When `cudaMalloc` fails, the caching allocator frees its unused cached
/// segments and retries (`release_cached_blocks` in PyTorch's
/// `c10/cuda/CUDACachingAllocator.cpp`), so whole free segments (the loading
/// blocks, the freed logits block) never make a run run out of memory: the
/// cache shrinks to the card's room. Split segments
/// ([`split_segment_bytes`]) stay: a segment with a live block in it cannot
/// be freed. Measured: LoRA on Llama-3-8B's dimensions at 16 × 2048 tokens
/// with checkpointing peaked at 70.96 GiB allocated and only 72.51 GiB
/// reserved on an 80 GB H100 (`tests/data/mechanisms/`), where the uncapped
/// cache estimate came to 83.6 GiB. The estimate and the fit table both
/// read this one rule.
pub fn used_within_card(used: u128, releasable: u128, capacity: Option<u128>) -> u128 {
    capacity.map_or(used, |c| used.min(used.saturating_sub(releasable).max(c)))
}

/// What loading leaves in the allocator's cache, with copies of the largest
/// tensor in the dtype the run trains or serves in.
pub fn loading_cache_bytes(r: &Resolved) -> (u128, String) {
    let dtype_bytes = match r.task {
        TaskKind::Training => r.trainable_dtype.bytes(),
        TaskKind::Inference => r.chosen_format.plain_dtype().unwrap_or(r.compute).bytes(),
    } as u128;
    loading_cache_bytes_in(r, dtype_bytes)
}

/// What loading leaves in the allocator's cache: two copies of the largest
/// tensor at `copy_bytes` per element (torchtune-tutorial-114: reserved −
/// weights = 0.50 GB ≈ 2 × the 262 MB embedding of Llama-2-7B), or torchao
/// 0.1's NF4 quantizer working sets where they apply
/// ([`unchunked_nf4_working_set`]); the cached blocks of the larger serve
/// the smaller later.
pub fn loading_cache_bytes_in(r: &Resolved, copy_bytes: u128) -> (u128, String) {
    let largest = r.spec.largest_weight_elements() * copy_bytes;
    let copies = (2 * largest, format!("2 × largest tensor {largest}"));
    match unchunked_nf4_working_set(r) {
        Some((bytes, shapes)) if bytes > copies.0 => {
            let elements: Vec<String> = shapes.iter().map(u128::to_string).collect();
            (
                bytes,
                format!(
                    "torchao 0.1 NF4 quantizer working sets 68 B × ({}) elements",
                    elements.join(" + ")
                ),
            )
        }
        _ => copies,
    }
}

/// Working memory of torchao's NF4 quantizer before 0.2 (`NF4Tensor.
/// from_tensor` in torchao 0.1, which torchtune pinned until June 2024;
/// torchao 0.2 quantizes in chunks of 1024² elements instead).
/// `quantize_tensor_nearest` compares every element with the 16 NF4 codes at
/// once: `(value - nf4)` and its `.abs()` are two (n, 16) bf16 tensors, 32 B
/// per element each, beside the bf16 weight and its block-scaled copy
/// (2 + 2 B): 68 B per element of the matrix being quantized. The caching
/// allocator never merges segments, so a larger matrix cannot reuse a
/// smaller one's: each new largest shape in build order (attention, then
/// MLP) keeps its own working set reserved. Returns the bytes and the
/// element counts of those shapes; `None` when the quantizer does not apply.
pub fn unchunked_nf4_working_set(r: &Resolved) -> Option<(u128, Vec<u128>)> {
    if !r.unchunked_nf4_quantizer || r.format != WeightFormat::Nf4 {
        return None;
    }
    let spec = r.spec;
    /// Bytes per element at the quantizer's peak (see above).
    const WORKING_BYTES_PER_ELEMENT: u128 = 2 * 16 * 2 + 2 + 2;
    let experts = spec.moe.as_ref().map_or(1, |m| m.experts.max(1)) as u128;
    let quantized = r.quantized_targets;
    let mut shapes = Vec::new();
    let mut largest = 0;
    for (target, total) in block_matrices(&r.counts.layers) {
        // One matrix: a layer's share, an expert's share of an MoE MLP.
        let mut n = total as u128 / spec.layers.max(1) as u128;
        if LoraTarget::MLP.contains(&target) {
            n /= experts;
        }
        if quantized.is_none_or(|t| t.contains(&target)) && n > largest {
            shapes.push(n);
            largest = n;
        }
    }
    let bytes = shapes.iter().sum::<u128>() * WORKING_BYTES_PER_ELEMENT;
    Some((bytes, shapes))
}

/// Reserved beyond allocated with fixed segments, as a share of the
/// per-step tensors, beside the stranded logits block and the blocks the
/// gradients outgrow (`training/reuse.rs`, which the estimate takes when it
/// is larger). Chosen on the 107 training runs of
/// `tests/data/groundtruth/h100_measured.jsonl` (PyTorch 2.11, fixed
/// segments, loading blocks released): with the outgrown blocks counted,
/// 5 % gives a median |error| of reserved of 2.4 % and a p90 of 7.6 %
/// (55 runs under), where 10 % without them gave 4.3 % and 12.0 %: a
/// share large enough for the runs whose gradients outgrew the freed
/// blocks over-estimated every run whose gradients fit in them. Older runs
/// kept more: the BERT rows on a V100 (hf-bert-v100-003/006/010, PyTorch
/// 1.x) show 20–30 % and are 8–11 % under with this share.
pub const CHURN_SLACK_PERCENT: u128 = 5;

/// cuBLAS workspaces PyTorch allocates through its caching allocator (one per
/// handle/stream), by generation: the default `CUBLAS_WORKSPACE_CONFIG` is
/// `:4096:2:16:8` (2 × 4 MiB + 8 × 16 KiB) before Hopper and `:4096:8`
/// (8 × 4 MiB) from Hopper on (PyTorch `CublasHandlePool.cpp`).
pub fn library_workspace_bytes(gpu: Option<&GpuSpec>) -> (u64, &'static str) {
    match gpu.map(|g| g.generation) {
        Some(Generation::Hopper | Generation::Blackwell) => (
            32 * MIB,
            "cuBLAS workspace :4096:8 (PyTorch default on Hopper and later)",
        ),
        Some(Generation::AppleSilicon) => (0, "MPS: no cuBLAS workspace"),
        _ => (
            8 * MIB + 128 * 1024,
            "cuBLAS workspace :4096:2:16:8 (PyTorch default before Hopper)",
        ),
    }
}

/// What differs between cards for the same job: context plus workspaces
/// (everything else is the same bytes on any card; the fit table relies on it).
pub fn per_card_bytes(gpu: Option<&GpuSpec>) -> u64 {
    cuda_context_bytes(gpu).0 + library_workspace_bytes(gpu).0
}

#[cfg(test)]
mod tests {
    use super::used_within_card;

    #[test]
    fn the_cache_keeps_what_the_card_has_room_for() {
        // 1000 used, of which 400 cache the allocator can free.
        assert_eq!(used_within_card(1000, 400, None), 1000);
        assert_eq!(used_within_card(1000, 400, Some(1200)), 1000);
        assert_eq!(used_within_card(1000, 400, Some(900)), 900);
        // Split segments stay however full the card is.
        assert_eq!(used_within_card(1000, 400, Some(100)), 600);
        assert_eq!(used_within_card(1000, 0, Some(100)), 1000);
    }
}
