//! A vLLM engine's memory as vLLM itself accounts for it: the profile run's
//! peak, the memory outside PyTorch, the KV pool left below
//! `gpu_memory_utilization`, and what that pool holds: how many sequences of
//! a context at once, and the longest context for a number of sequences.
//!
//! vLLM (`vllm/v1/worker/gpu_worker.py`, `determine_available_memory`)
//! profiles one dummy step, then gives the KV cache
//! `total × gpu_memory_utilization − weights − activation peak − non-torch`,
//! where `total` is `torch.cuda.mem_get_info()`'s total. The pool is cut into
//! blocks of `block_size` tokens (`vllm/v1/core/kv_cache_utils.py`), and it
//! logs `GPU KV cache size: N tokens` = blocks × block size.
//!
//! SGLang sizes its pool by its own rule: see [`sglang`].

mod encoder;
pub mod pool;
pub mod sglang;

pub use pool::{EngineLimits, ServingPool};

use crate::gpu::GpuSpec;
use crate::precision::WeightFormat;
use crate::resolved::Resolved;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// Tokens per KV block: vLLM's default `--block-size` on CUDA
/// (`vllm/config/cache.py`, `block_size` 16).
pub const BLOCK_TOKENS: u64 = 16;

/// Bytes per (request × vocabulary entry) of the profile's dummy sampler run
/// beyond the logits in the model's dtype: their fp32 upcast
/// (`vllm/v1/sample/sampler.py`), the fp32 probabilities and the fp32
/// exponential noise of `random_sample` (`ops/topk_topp_sampler.py`), and a
/// 1-byte filter mask: 4 + 4 + 4 + 1. vLLM 0.19's own profile reports it:
/// the activation peaks of Llama-3.1-8B in bf16 and fp32 (1.89 and 2.21 GiB,
/// llm-d planner logs) differ by the logits' 2 extra bytes, and six dense
/// models of 32k to 201k vocabularies land within 0.05 GiB of it.
const SAMPLER_FP32_BYTES: u64 = 13;

/// `--max-num-seqs` and `--max-num-batched-tokens`, from the scenario or
/// vLLM's defaults for `vllm serve` (`EngineArgs.get_batch_defaults` in
/// `vllm/engine/arg_utils.py`): 1024 sequences and 8192 tokens on cards of
/// at least 70 GiB other than the A100, else 256 and 2048.
pub fn engine_limits(r: &Resolved, gpu: Option<&GpuSpec>, total: Option<u64>) -> EngineLimits {
    let large = total.is_some_and(|t| t >= 70 * GIB)
        && !gpu.is_some_and(|g| g.name.to_ascii_lowercase().contains("a100"));
    let (seqs, tokens) = if large { (1024, 8192) } else { (256, 2048) };
    let inf = r.inference;
    EngineLimits {
        max_num_seqs: inf.max_num_seqs.unwrap_or(seqs),
        max_num_batched_tokens: inf.max_num_batched_tokens.unwrap_or(tokens),
        given: inf.max_num_seqs.is_some() && inf.max_num_batched_tokens.is_some(),
    }
}

/// The total vLLM plans from: `torch.cuda.mem_get_info()`'s total, which
/// the driver reports below nvidia-smi's figure on some cards. A capacity
/// the user typed is taken as it is.
pub fn engine_total(capacity: Option<u64>, gpu: Option<&GpuSpec>) -> Option<u64> {
    match (capacity, gpu) {
        (Some(c), Some(g)) if c == g.memory_bytes => Some(g.cuda_total_bytes.unwrap_or(c)),
        (capacity, _) => capacity,
    }
}

/// Memory outside PyTorch's allocator that vLLM's profile finds (its
/// `non_torch_memory`), measured from after the CUDA context was created:
/// cuBLAS/cuBLASLt workspaces and lazily loaded kernels on one GPU (0.24 to
/// 0.27 GiB in vLLM 0.19's logs of seven single-GPU H100 runs), plus NCCL's
/// communicator buffers and the custom all-reduce's IPC buffers when the
/// model is split (2.07 to 2.21 GiB in four tp 2 and tp 4 runs).
pub fn non_torch_bytes(split: bool) -> (u64, &'static str) {
    if split {
        (
            2 * GIB + 100 * MIB,
            "vLLM non-torch memory with NCCL and custom all-reduce buffers (tp/pp > 1)",
        )
    } else {
        (
            256 * MIB,
            "vLLM non-torch memory on one GPU (cuBLAS workspaces, lazily loaded kernels)",
        )
    }
}

/// The NCCL communicator and custom all-reduce buffers of a split model,
/// which SGLang creates while it sets up its groups (SGLang 0.5.5,
/// `distributed/parallel_state.py:356` and `:374`, a warm-up all-reduce at
/// `distributed/device_communicators/pynccl.py:118`), before it first
/// measures the free memory. Both are vLLM's own code ("Adapted from
/// vllm v0.6.4.post1"), so the figure is vLLM's measured non-torch memory
/// of a split model less its one-GPU share (cuBLAS and lazily loaded
/// kernels, which SGLang loads after sizing its pool).
pub fn communicator_bytes() -> u64 {
    non_torch_bytes(true).0 - non_torch_bytes(false).0
}

/// The activation peak of vLLM's profile run on one GPU and its formula:
/// a dummy forward of `max_num_batched_tokens` tokens split over
/// `min(max_num_seqs, tokens)` requests (`GPUModelRunner.profile_run`),
/// then the sampler over one row per request while the forward's hidden
/// states are still held; for MoE models, the fused-MoE kernel's
/// intermediate caches of the step (`fused_moe.py`: `(M, top_k, 2·I)`,
/// `(M·top_k, I)` and `(M, top_k, H)`), which stay allocated for the next
/// call. `layer_working` is the working set of one layer for a number of
/// tokens (the estimator's prefill rule).
pub fn profile_peak(
    r: &Resolved,
    limits: &EngineLimits,
    layer_working: impl Fn(u128) -> u128,
) -> (u128, String) {
    let tokens = limits.max_num_batched_tokens as u128;
    let requests = limits.max_num_seqs.min(limits.max_num_batched_tokens) as u128;
    let act = r.serving_dtype().bytes() as u128;
    let h = r.spec.hidden as u128;
    let vocab = r.spec.vocab as u128;
    let forward = layer_working(tokens);
    let sampler = tokens * h * act + requests * vocab * (act + SAMPLER_FP32_BYTES as u128);
    let mut formula = format!(
        "max(forward of {tokens} tokens (T·(4·h + 3·i)·{act} B), hidden T·h·{act} + sampler {requests} requests × V × ({act} + {SAMPLER_FP32_BYTES}) B)"
    );
    let mut peak = forward.max(sampler);
    if let Some(moe) = r
        .spec
        .moe
        .as_ref()
        .filter(|_| r.format != WeightFormat::Mxfp4)
    {
        let i = moe.expert_intermediate as u128 / r.shards.tp;
        let k = moe.experts_per_token as u128;
        peak += tokens * k * (2 * i + i + h) * act;
        formula += &format!(" + fused-MoE caches T·{k}·(3·{i} + h)·{act} B");
    }
    // A VLM's encoder runs first; its embeddings wait through the text step.
    if let Some(encoder) = encoder::encoder_profile(r, limits) {
        let text = peak + encoder.embeddings;
        formula = format!("max({}, {formula} + the embeddings)", encoder.formula);
        peak = text.max(encoder.forward);
    }
    (peak, formula)
}

/// What one sequence takes from the pool, by vLLM's per-layer accounting
/// (`kv_cache_interface.py`, `max_memory_usage_bytes` of each spec): a
/// full-attention layer a page per block of its context; a sliding layer
/// the blocks of `min(window − 1 + max_num_batched_tokens, context)` tokens
/// plus one; a recurrent layer one state; whole blocks of a shared prefix
/// are stored once for all sequences (full layers, prefix caching).
struct Demand {
    /// Bytes of one block (16 tokens) over all full-attention layers.
    full_page: u128,
    /// Bytes of one block over all sliding-window layers.
    sliding_page: u128,
    window: u64,
    step_tokens: u64,
    state: u128,
    prefix_blocks: u64,
}

impl Demand {
    fn shared(&self, context: u64) -> u128 {
        self.full_page * self.prefix_blocks.min(context / BLOCK_TOKENS) as u128
    }

    /// One sequence's own bytes at `context` tokens.
    fn per_sequence(&self, context: u64) -> u128 {
        let full = context.div_ceil(BLOCK_TOKENS) - self.prefix_blocks.min(context / BLOCK_TOKENS);
        let sliding = (self.window.saturating_sub(1) + self.step_tokens)
            .min(context)
            .div_ceil(BLOCK_TOKENS)
            + 1;
        self.full_page * full as u128 + self.sliding_page * sliding as u128 + self.state
    }

    fn total(&self, sequences: u64, context: u64) -> u128 {
        self.shared(context) + sequences as u128 * self.per_sequence(context)
    }
}

/// The pool on each GPU (bytes) and what it holds. `per_token` is the KV
/// bytes of one token on one GPU over all attention layers; `state` the
/// recurrent layers' state of one sequence.
pub fn serving_pool(
    r: &Resolved,
    pool_bytes: u128,
    (per_token, state): (u128, u128),
    limits: EngineLimits,
) -> ServingPool {
    let inf = r.inference;
    let spec = r.spec;
    let available = pool_bytes;
    let block_bytes = (per_token * BLOCK_TOKENS as u128).max(1);
    let blocks = if per_token == 0 {
        0
    } else {
        u64::try_from(pool_bytes / block_bytes).unwrap_or(u64::MAX)
    };
    // The busiest pipeline stage's layers, full and sliding.
    let kv_bytes = inf.kv_cache_dtype.unwrap_or(r.compute).bytes();
    let (full_token, sliding_token) = r.shards.kv_split(spec, (per_token, kv_bytes.into()));
    let window = spec.sliding_window.as_ref().map_or(0, |w| w.window);
    let shared_prefix_tokens = inf.shared_prefix_tokens.min(inf.prompt_len);
    let demand = Demand {
        full_page: full_token * BLOCK_TOKENS as u128,
        sliding_page: sliding_token * BLOCK_TOKENS as u128,
        window,
        step_tokens: limits.max_num_batched_tokens,
        state,
        prefix_blocks: shared_prefix_tokens / BLOCK_TOKENS,
    };
    let context = inf.prompt_len.saturating_add(inf.new_tokens).max(1);
    let sequences = inf.batch.max(1);
    let own = demand.per_sequence(context).max(1);
    // vLLM allocates whole blocks only.
    let pool_bytes = if per_token == 0 {
        available
    } else {
        blocks as u128 * block_bytes
    };
    let max_concurrent_sequences =
        u64::try_from(pool_bytes.saturating_sub(demand.shared(context)) / own)
            .unwrap_or(u64::MAX)
            .min(limits.max_num_seqs);
    // The longest context at the requested concurrency (more context never
    // takes less): a binary search up to the model's positions.
    let by_model = spec.context_limit();
    let fits = |c: u64| demand.total(sequences, c) <= pool_bytes;
    let max_context = if !fits(1) {
        0
    } else {
        let (mut lo, mut hi) = (1u64, by_model);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    };
    ServingPool {
        engine: crate::scenario::Engine::Vllm,
        kv_pool_bytes: u64::try_from(available).unwrap_or(u64::MAX),
        kv_pool_tokens: blocks.saturating_mul(BLOCK_TOKENS),
        block_tokens: BLOCK_TOKENS,
        block_bytes: u64::try_from(block_bytes).unwrap_or(u64::MAX),
        requested_sequences: inf.batch,
        requested_context: context,
        shared_prefix_tokens,
        max_concurrent_sequences,
        max_context,
        context_bound_by_model: max_context == by_model && fits(by_model),
        needed_bytes: u64::try_from(demand.total(sequences, context)).unwrap_or(u64::MAX),
        usable_bytes: u64::try_from(pool_bytes).unwrap_or(u64::MAX),
        deficit_bytes: 0,
        limits,
    }
}
