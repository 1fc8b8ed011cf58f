//! The answers a serving engine's KV pool gives: its types, apart from the
//! rules that fill them (the report carries them without depending on those).

use serde::{Deserialize, Serialize};

use crate::scenario::Engine;

/// The engine's scheduler limits, and where their values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineLimits {
    pub max_num_seqs: u64,
    pub max_num_batched_tokens: u64,
    /// True when both came from the scenario, false when the engine's
    /// defaults for the card filled either in. For SGLang the two are
    /// `max_running_requests` and `chunked_prefill_size`.
    pub given: bool,
}

/// What the KV pool holds, for the scenario's sequences and context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServingPool {
    /// The engine whose rule sized the pool.
    #[serde(default = "vllm")]
    pub engine: Engine,
    /// Bytes of the KV pool on each GPU (vLLM's "Available KV cache memory";
    /// SGLang's `rest_memory`).
    pub kv_pool_bytes: u64,
    /// Tokens the pool holds per engine instance (vLLM's `GPU KV cache
    /// size: N tokens`: whole blocks × block size; SGLang's
    /// `max_total_num_tokens`).
    pub kv_pool_tokens: u64,
    /// Tokens per block (vLLM) or page (SGLang: 1).
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
    /// Pool bytes the requested sequences take at their full context.
    pub needed_bytes: u64,
    /// The pool in whole blocks (vLLM allocates no partial one); all of it
    /// for a model without attention layers.
    pub usable_bytes: u64,
    /// Bytes by which weights, profile peak and non-torch memory already
    /// exceed `gpu_memory_utilization` of the total (0 when they fit).
    pub deficit_bytes: u64,
    pub limits: EngineLimits,
}

fn vllm() -> Engine {
    Engine::Vllm
}

impl ServingPool {
    /// Does the pool hold every requested sequence at its full context?
    pub fn holds_request(&self) -> bool {
        self.deficit_bytes == 0
            && self.needed_bytes <= self.whole_blocks_bytes()
            && self.requested_context <= self.max_context
    }

    /// Pool bytes missing for the request (0 when it is held).
    pub fn short_bytes(&self) -> u64 {
        self.needed_bytes
            .saturating_sub(self.whole_blocks_bytes())
            .saturating_add(self.deficit_bytes)
    }

    /// Pool bytes left once the request is held.
    pub fn spare_bytes(&self) -> u64 {
        self.whole_blocks_bytes().saturating_sub(self.needed_bytes)
    }

    fn whole_blocks_bytes(&self) -> u64 {
        self.usable_bytes
    }
}
