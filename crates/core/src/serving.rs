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

use serde::{Deserialize, Serialize};

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

/// The engine's scheduler limits, and where their values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineLimits {
    pub max_num_seqs: u64,
    pub max_num_batched_tokens: u64,
    /// True when both came from the scenario, false when vLLM's defaults
    /// for the card filled either in.
    pub given: bool,
}

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
    (peak, formula)
}

/// What the KV pool holds, for the scenario's sequences and context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServingPool {
    /// Bytes of the KV pool on each GPU (vLLM's "Available KV cache memory").
    pub kv_pool_bytes: u64,
    /// Tokens the pool holds per engine instance (vLLM's `GPU KV cache
    /// size: N tokens`): whole blocks × block size.
    pub kv_pool_tokens: u64,
    pub block_tokens: u64,
    /// Bytes of one block on each GPU: all attention layers' K and V.
    pub block_bytes: u64,
    /// Sequences the scenario asks for, and the tokens each holds at its end.
    pub requested_sequences: u64,
    pub requested_context: u64,
    /// Prompt tokens every request shares; their whole blocks are stored once.
    pub shared_prefix_tokens: u64,
    /// Sequences of `requested_context` tokens the pool holds at once
    /// (at most `max_num_seqs`).
    pub max_concurrent_sequences: u64,
    /// The longest context each of `requested_sequences` sequences can
    /// reach, at most the model's `max_position`.
    pub max_context: u64,
    /// True when the model's `max_position`, not the pool, bounds `max_context`.
    pub context_bound_by_model: bool,
    /// Bytes by which weights, profile peak and non-torch memory already
    /// exceed `gpu_memory_utilization` of the total (0 when they fit).
    pub deficit_bytes: u64,
    pub limits: EngineLimits,
}

impl ServingPool {
    /// Does the pool hold every requested sequence at its full context?
    pub fn holds_request(&self) -> bool {
        self.max_concurrent_sequences >= self.requested_sequences
            && self.requested_context <= self.max_context
    }

    /// Pool bytes missing for the request (0 when it is held).
    pub fn short_bytes(&self) -> u64 {
        let needed = self
            .blocks_for(self.requested_sequences, self.requested_context)
            .saturating_mul(self.block_bytes);
        needed
            .saturating_sub(self.whole_blocks() * self.block_bytes)
            .saturating_add(self.deficit_bytes)
    }

    /// Pool bytes left once the request is held.
    pub fn spare_bytes(&self) -> u64 {
        let needed = self
            .blocks_for(self.requested_sequences, self.requested_context)
            .saturating_mul(self.block_bytes);
        self.kv_pool_bytes.saturating_sub(needed)
    }

    fn whole_blocks(&self) -> u64 {
        self.kv_pool_tokens / self.block_tokens.max(1)
    }

    /// Blocks for `sequences` sequences of `context` tokens: the shared
    /// prefix's whole blocks once, every sequence's own blocks each.
    fn blocks_for(&self, sequences: u64, context: u64) -> u64 {
        let shared = self.shared_blocks(context);
        shared.saturating_add(
            sequences.saturating_mul(context.div_ceil(self.block_tokens.max(1)) - shared),
        )
    }

    fn shared_blocks(&self, context: u64) -> u64 {
        self.shared_prefix_tokens.min(context) / self.block_tokens.max(1)
    }
}

/// The pool on each GPU (bytes) and what it holds. `per_token` is the KV
/// bytes of one token on one GPU over all attention layers.
pub fn serving_pool(
    r: &Resolved,
    pool_bytes: u128,
    per_token: u128,
    limits: EngineLimits,
) -> ServingPool {
    let inf = r.inference;
    let block_bytes = (per_token * BLOCK_TOKENS as u128).max(1);
    let blocks = u64::try_from(pool_bytes / block_bytes).unwrap_or(u64::MAX);
    let mut pool = ServingPool {
        kv_pool_bytes: u64::try_from(pool_bytes).unwrap_or(u64::MAX),
        kv_pool_tokens: blocks.saturating_mul(BLOCK_TOKENS),
        block_tokens: BLOCK_TOKENS,
        block_bytes: u64::try_from(block_bytes).unwrap_or(u64::MAX),
        requested_sequences: inf.batch,
        requested_context: inf.prompt_len.saturating_add(inf.new_tokens),
        shared_prefix_tokens: inf.shared_prefix_tokens.min(inf.prompt_len),
        max_concurrent_sequences: 0,
        max_context: 0,
        context_bound_by_model: false,
        deficit_bytes: 0,
        limits,
    };
    let context = pool.requested_context.max(1);
    let shared = pool.shared_blocks(context);
    let own = context.div_ceil(BLOCK_TOKENS) - shared;
    pool.max_concurrent_sequences = blocks
        .saturating_sub(shared)
        .checked_div(own)
        .unwrap_or(limits.max_num_seqs)
        .min(limits.max_num_seqs);
    // The longest context at the requested concurrency: every sequence's
    // own blocks share what the prefix leaves.
    let sequences = pool.requested_sequences.max(1);
    let prefix_blocks = pool.shared_prefix_tokens / BLOCK_TOKENS;
    let per_sequence = blocks.saturating_sub(prefix_blocks) / sequences;
    let by_pool = if blocks < prefix_blocks {
        0
    } else {
        (per_sequence + prefix_blocks).saturating_mul(BLOCK_TOKENS)
    };
    let by_model = r.spec.max_position.max(1);
    pool.context_bound_by_model = by_model < by_pool;
    pool.max_context = by_pool.min(by_model);
    pool
}
