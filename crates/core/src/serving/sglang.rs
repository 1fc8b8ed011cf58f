//! An SGLang engine's memory as SGLang itself sizes it: read from SGLang
//! 0.5.5 (the PyPI release; every `file:line` below is under
//! `python/sglang/srt/` of it).
//!
//! SGLang measures the free memory twice (`utils/common.py:455-537`,
//! `get_available_gpu_memory`: `torch.cuda.empty_cache()` then
//! `torch.cuda.mem_get_info()`'s free bytes in GiB, the minimum over the
//! ranks when there are several): once after the CUDA context and the
//! communicators exist and before the weights load
//! (`model_executor/model_runner.py:653-658`, `min_per_gpu_memory`), once
//! after loading (`model_runner.py:1261-1266`). Its KV pool gets
//! (`model_runner.py:1317-1322`)
//!
//! `rest = free_after_load − free_before_load × (1 − mem_fraction_static)`
//! `max_total_num_tokens = ⌊rest / cell_size⌋`,
//!
//! which is `mem_fraction_static × free_before_load − what loading took`:
//! the weights (and the RoPE table the model builds while loading) come out
//! of the static share, and `(1 − mem_fraction_static) × free_before_load`
//! is what SGLang leaves for everything after the pool (cuBLAS, which it
//! loads only after the pool at `model_runner.py:476-477`, attention
//! backends, CUDA graphs, the prefill's activations).
//!
//! Every layer caches its whole context: SGLang 0.5.5 has a hybrid
//! sliding-window pool (`model_runner.py:400-408`) but turns it off for
//! every model family that would use it (gpt-oss `server_args.py:997`,
//! Gemma-2/3 `:1029`, OLMo `:1035`).
//!
//! Not modelled (no scenario field sets them): data-parallel attention,
//! speculative decoding, `--max-total-tokens`, page sizes other than the
//! default 1, AMD's aiter backend (`server_args.py:1270-1272`). The
//! Mamba-state split of hybrid recurrent models (`model_runner.py:1325-1372`)
//! is not modelled either, and such models are refused ([`unsupported`]).

use crate::model::{ModelSpec, VisionTower};
use crate::scenario::Engine;
use crate::serving::pool::{EngineLimits, ServingPool};

const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

/// The release the rules are read from.
pub const VERSION: &str = "0.5.5";

/// SGLang's `mem_fraction_static` when it cannot read the card's memory
/// (`server_args.py:819-823`: `... if gpu_mem is not None else 0.88`).
pub const FALLBACK_MEM_FRACTION_STATIC: f64 = 0.88;

/// `chunked_prefill_size` and `cuda_graph_max_bs` when the card's memory is
/// unknown (`server_args.py:768-772`).
const FALLBACK_CHUNK: u64 = 4096;
const FALLBACK_GRAPH_BS: u64 = 160;

/// The reserve `mem_fraction_static`'s default leaves, in MiB
/// (`server_args.py:785-809`): 512 for constant metadata (`:787`), 1.5 per
/// token of the larger of the prefill chunk and 2048 (`:790`), 2 per CUDA
/// graph batch size (`:794`), 1024 per 8 GPUs of tp × pp (`:796`), and at
/// least 10 GiB on cards above 60 GiB (`:808-809`).
const RESERVE_BASE_MIB: f64 = 512.0;
const RESERVE_PER_CHUNK_TOKEN_MIB: f64 = 1.5;
const RESERVE_MIN_CHUNK_TOKENS: u64 = 2048;
const RESERVE_PER_GRAPH_BS_MIB: f64 = 2.0;
const RESERVE_PER_GPU_MIB: f64 = 1024.0 / 8.0;
const RESERVE_FLOOR_MIB: f64 = 10.0 * 1024.0;
const RESERVE_FLOOR_ABOVE_MIB: f64 = 60.0 * 1024.0;

/// The default `max_running_requests` bounds (`model_runner.py:1554-1563`):
/// 512 requests per context length of pool tokens, within 2048 to 4096.
const REQUESTS_PER_CONTEXT: f64 = 512.0;
const MIN_REQUESTS: u64 = 2048;
const MAX_REQUESTS: u64 = 4096;

/// How SGLang runs on one GPU: the memory it plans from and its settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SglangEngine {
    /// `torch.cuda.mem_get_info()`'s total (`None`: no card chosen).
    pub total: Option<u64>,
    /// Memory already used when SGLang first measures the free memory:
    /// the CUDA context, and the communicators when the model is split.
    pub context: u64,
    pub communicators: u64,
    pub settings: Settings,
    /// `--max-running-requests` when given.
    pub max_running_requests: Option<u64>,
}

impl SglangEngine {
    /// The free memory before the weights load (`min_per_gpu_memory`).
    pub fn free_before_load(&self) -> Option<u64> {
        self.total
            .map(|t| t.saturating_sub(self.context + self.communicators))
    }

    /// Whether SGLang reads the free memory over several ranks: as a
    /// float32 all-reduce (`utils/common.py:530-535`).
    fn distributed(&self) -> bool {
        self.communicators > 0
    }
}

/// `mem_fraction_static`, `chunked_prefill_size` and `cuda_graph_max_bs`
/// as SGLang resolves them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub mem_fraction_static: f64,
    pub chunked_prefill_size: u64,
    pub cuda_graph_max_bs: u64,
    /// `mem_fraction_static` came from the scenario.
    pub fraction_given: bool,
}

/// The defaults of `_handle_gpu_memory_settings` (`server_args.py:665-829`)
/// for a card of `gpu_mem_mib` MiB as nvidia-smi lists it (`None`: unknown),
/// tensor and pipeline parallelism, the chunk and fraction the scenario
/// gives, and a VLM's vision tower.
pub fn settings(
    gpu_mem_mib: Option<f64>,
    (tp, pp): (u64, u64),
    chunk: Option<u64>,
    fraction: Option<f64>,
    vision: Option<&VisionTower>,
) -> Settings {
    let small_tp = tp < 4;
    // (chunked_prefill_size, cuda_graph_max_bs) by card memory, CUDA rows.
    let (default_chunk, graph_bs) = match gpu_mem_mib {
        None => (FALLBACK_CHUNK, FALLBACK_GRAPH_BS),
        // T4, 4080 (`server_args.py:690-696`).
        Some(m) if m < 20.0 * 1024.0 => (2048, 8),
        // A10, 4090, 5090 (`:707-719`).
        Some(m) if m < 35.0 * 1024.0 => (2048, if small_tp { 24 } else { 80 }),
        // A100 40GB, L40 (`:720-729`).
        Some(m) if m < 60.0 * 1024.0 => (4096, if small_tp { 32 } else { 160 }),
        // H100, A100 80GB (`:740-749`); H20, H200 (`:750-759`).
        Some(m) if m < 160.0 * 1024.0 => (8192, if small_tp { 256 } else { 512 }),
        // B200, MI300 (`:760-766`).
        Some(_) => (16384, 512),
    };
    let chunked_prefill_size = chunk.unwrap_or(default_chunk);
    let mem_fraction_static = fraction.unwrap_or_else(|| {
        let Some(gpu_mem) = gpu_mem_mib else {
            return FALLBACK_MEM_FRACTION_STATIC;
        };
        let mut reserved = RESERVE_BASE_MIB
            + chunked_prefill_size.max(RESERVE_MIN_CHUNK_TOKENS) as f64
                * RESERVE_PER_CHUNK_TOKEN_MIB
            + graph_bs as f64 * RESERVE_PER_GRAPH_BS_MIB
            + (tp * pp) as f64 * RESERVE_PER_GPU_MIB;
        if gpu_mem > RESERVE_FLOOR_ABOVE_MIB {
            reserved = reserved.max(RESERVE_FLOOR_MIB);
        }
        // `round((gpu_mem - reserved_mem) / gpu_mem, 3)` (`:819-821`).
        let fraction = ((gpu_mem - reserved) / gpu_mem * 1000.0).round() / 1000.0;
        match vision {
            Some(v) => fraction * vlm_factor(v),
            None => fraction,
        }
    });
    Settings {
        mem_fraction_static,
        chunked_prefill_size,
        cuda_graph_max_bs: graph_bs,
        fraction_given: fraction.is_some(),
    }
}

/// `adjust_mem_fraction_for_vlm` (`server_args.py:3929-3965`): 0.95, times
/// 1 − 0.1 per doubling of the tower's `layers × hidden²` over ViT-L/14's
/// (24 layers of 1024), clamped to 0.8 to 1.05.
fn vlm_factor(v: &VisionTower) -> f64 {
    let baseline = 24.0 * 1024.0 * 1024.0;
    let complexity = v.layers as f64 * (v.hidden as f64).powi(2) / baseline;
    0.95 * (1.0 - 0.1 * (complexity - 1.0)).clamp(0.8, 1.05)
}

/// Bytes of the RoPE table SGLang keeps on the GPU: `max_position × rotary_dim`
/// cos and sin values (`layers/rotary_embedding.py:160-167`), left in fp32
/// on CUDA (`:111-114`, "cache needs to be in FP32"), one table shared by
/// every layer (`_ROPE_DICT`, `:2430`).
pub fn rope_table_bytes(spec: &ModelSpec, rotary_dim: u64) -> u128 {
    spec.max_position as u128 * rotary_dim as u128 * 4
}

/// Bytes of the MLA projections SGLang absorbs after loading: it copies
/// each layer's `kv_b_proj` (`kv_lora_rank` × heads × (nope + v head
/// widths)) into contiguous `w_kc` and `w_vc` and keeps `kv_b_proj` for
/// its prefill path (`models/deepseek_v2.py:3163`, `:3246-3264`), so the
/// copies are loaded memory too. In the compute dtype (`bytes`).
pub fn absorbed_mla_bytes(
    layers: u128,
    kv_lora_rank: u128,
    heads: u128,
    head_widths: u128,
    bytes: u128,
) -> u128 {
    layers * kv_lora_rank * heads * head_widths * bytes
}

/// The pool SGLang sizes on one GPU: `rest` in bytes (negative when the
/// weights exceed `mem_fraction_static` of the free memory) and
/// `max_total_num_tokens`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolSize {
    pub free_before_load: u64,
    pub rest: f64,
    pub tokens: u64,
}

/// `profile_max_num_token` (`model_runner.py:1260-1323`) with the page
/// rounding of `init_memory_pool` (`:1607-1611`; page size 1 by default,
/// `server_args.py:1329-1331`): the free memory in GiB before and after
/// loading `loaded` bytes, `cell` bytes per token.
pub fn pool_size(engine: &SglangEngine, loaded: u128, cell: u128) -> Option<PoolSize> {
    let before = engine.free_before_load()?;
    // Negative when the weights alone exceed the free memory (SGLang would
    // fail while loading): the pool is then short by all of it.
    let after = before as f64 - loaded as f64;
    // Several ranks agree on their minimum through a float32 tensor.
    let gib = |bytes: f64| {
        if engine.distributed() {
            bytes as f32 as f64 / GIB
        } else {
            bytes / GIB
        }
    };
    let fraction = engine.settings.mem_fraction_static;
    let rest_gib = gib(after) - gib(before as f64) * (1.0 - fraction);
    let rest = rest_gib * GIB;
    let tokens = if rest > 0.0 && cell > 0 {
        (rest / cell as f64).floor() as u64
    } else {
        0
    };
    Some(PoolSize {
        free_before_load: before,
        rest,
        tokens,
    })
}

/// What the pool holds for the scenario's `sequences` of `context` tokens
/// whose first `shared_prefix` prompt tokens are the same (SGLang's radix
/// cache keeps them once), with `cell` bytes per token.
pub struct Request {
    pub sequences: u64,
    pub context: u64,
    pub shared_prefix: u64,
    /// The model's context length (`model_config.context_len`).
    pub context_len: u64,
    pub max_running_requests: Option<u64>,
    pub chunked_prefill_size: u64,
}

/// Tokens `sequences` sequences of `context` tokens take: the shared
/// prefix once, each sequence's own tokens (page size 1: no rounding).
pub fn tokens_for(sequences: u64, context: u64, shared_prefix: u64) -> u128 {
    let shared = shared_prefix.min(context);
    shared as u128 + sequences as u128 * (context - shared) as u128
}

/// `max_running_requests` (`managers/tp_worker.py:281-289`): the given
/// value, else the smaller of half the pool's tokens and the request slots
/// `init_memory_pool` makes (`model_runner.py:1554-1563`).
pub fn max_running_requests(given: Option<u64>, tokens: u64, context_len: u64) -> u64 {
    given.unwrap_or_else(|| {
        let per_context = (tokens as f64 / context_len.max(1) as f64 * REQUESTS_PER_CONTEXT) as u64;
        let slots = per_context.clamp(MIN_REQUESTS, MAX_REQUESTS);
        (tokens / 2).min(slots)
    })
}

/// The pool report: its bytes and tokens, the sequences of the scenario's
/// context it holds at once (at most `max_running_requests`), and the
/// longest context the scenario's sequences reach: at most
/// `max_req_len = min(context_len − 1, max_total_num_tokens − 1)`
/// (`managers/tp_worker.py:295-298`).
pub fn pool(size: &PoolSize, cell: u128, request: &Request) -> ServingPool {
    let tokens = size.tokens;
    let running = max_running_requests(request.max_running_requests, tokens, request.context_len);
    let shared = request.shared_prefix.min(request.context);
    let own = (request.context - shared).max(1) as u128;
    let free = (tokens as u128).saturating_sub(shared as u128);
    let max_concurrent_sequences = u64::try_from(free / own).unwrap_or(u64::MAX).min(running);
    let by_model = request.context_len.saturating_sub(1).max(1);
    let max_req_len = by_model.min(tokens.saturating_sub(1));
    let sequences = request.sequences.max(1);
    let fits = |c: u64| tokens_for(sequences, c, request.shared_prefix) <= tokens as u128;
    let max_context = if max_req_len == 0 || !fits(1) {
        0
    } else {
        let (mut lo, mut hi) = (1u64, max_req_len);
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
    let needed = tokens_for(sequences, request.context, request.shared_prefix) * cell;
    ServingPool {
        engine: Engine::Sglang,
        kv_pool_bytes: size.rest.max(0.0) as u64,
        kv_pool_tokens: tokens,
        block_tokens: 1,
        block_bytes: u64::try_from(cell).unwrap_or(u64::MAX),
        requested_sequences: request.sequences,
        requested_context: request.context,
        shared_prefix_tokens: shared,
        max_concurrent_sequences,
        max_context,
        context_bound_by_model: max_context == by_model,
        needed_bytes: u64::try_from(needed).unwrap_or(u64::MAX),
        usable_bytes: u64::try_from(tokens as u128 * cell).unwrap_or(u64::MAX),
        deficit_bytes: if size.rest < 0.0 {
            (-size.rest).ceil() as u64
        } else {
            0
        },
        limits: EngineLimits {
            max_num_seqs: running,
            max_num_batched_tokens: request.chunked_prefill_size,
            given: request.max_running_requests.is_some(),
        },
    }
}

/// The model kinds this SGLang release sizes by a rule not modelled here:
/// recurrent (Mamba-state) layers, whose states take
/// `mamba_full_memory_ratio` of the pool or a fixed number of slots
/// (`model_runner.py:1325-1372`). `Some(why)` refuses the estimate.
pub fn unsupported(spec: &ModelSpec) -> Option<String> {
    spec.recurrent.as_ref().filter(|r| r.layers > 0).map(|r| {
        format!(
            "SGLang {VERSION} splits its pool between KV cells and {} states by its own ratio (mamba_full_memory_ratio), which is not modelled: choose the vllm engine for this model",
            r.kind.label()
        )
    })
}

/// The card's memory as SGLang reads it for its defaults: nvidia-smi's
/// `memory.total` in MiB (`utils/common.py:1514-1545`).
pub fn gpu_mem_mib(capacity: Option<u64>) -> Option<f64> {
    capacity.map(|c| c as f64 / MIB as f64)
}
