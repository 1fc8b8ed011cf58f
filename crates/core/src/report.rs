//! The result of an estimate: lines with formulas, three totals, CPU RAM.

use serde::{Deserialize, Serialize};

/// What a line of the breakdown is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Weights,
    Gradients,
    OptimizerStates,
    MasterWeights,
    Activations,
    LogitsLoss,
    KvCache,
    /// Fixed per-sequence state of recurrent layers (convolution, SSM and
    /// delta-rule states), which does not grow with the context.
    RecurrentState,
    /// Keys and values the cross-attention layers compute once over each
    /// image's tower tokens and keep for the whole generation (Llama 3.2
    /// Vision): fixed per sequence, like the recurrent state.
    CrossAttentionCache,
    QuantBuffers,
    /// Temporary buffers of the optimizer step (foreach AdamW).
    OptimizerStep,
    /// Other transient working memory (communication buckets, gathered shards).
    Workspace,
    /// bitsandbytes paged optimizer states: unified memory, outside PyTorch's counters.
    PagedOptimizer,
    /// cuBLAS workspaces (through PyTorch's allocator).
    LibraryWorkspace,
    /// Memory outside PyTorch's allocator that a serving engine measures
    /// itself (vLLM's `non_torch_memory`: NCCL buffers, libraries, kernels).
    NonTorch,
    CudaContext,
    AllocatorSlack,
}

impl Part {
    /// Every part, in breakdown order.
    pub const ALL: [Part; 17] = [
        Part::Weights,
        Part::Gradients,
        Part::OptimizerStates,
        Part::MasterWeights,
        Part::Activations,
        Part::LogitsLoss,
        Part::KvCache,
        Part::RecurrentState,
        Part::CrossAttentionCache,
        Part::QuantBuffers,
        Part::OptimizerStep,
        Part::Workspace,
        Part::PagedOptimizer,
        Part::LibraryWorkspace,
        Part::NonTorch,
        Part::CudaContext,
        Part::AllocatorSlack,
    ];

    /// The JSON name (`optimizer_states`): the key the web app's texts use.
    pub fn key(self) -> &'static str {
        match self {
            Part::Weights => "weights",
            Part::Gradients => "gradients",
            Part::OptimizerStates => "optimizer_states",
            Part::MasterWeights => "master_weights",
            Part::Activations => "activations",
            Part::LogitsLoss => "logits_loss",
            Part::KvCache => "kv_cache",
            Part::RecurrentState => "recurrent_state",
            Part::CrossAttentionCache => "cross_attention_cache",
            Part::QuantBuffers => "quant_buffers",
            Part::OptimizerStep => "optimizer_step",
            Part::Workspace => "workspace",
            Part::PagedOptimizer => "paged_optimizer",
            Part::LibraryWorkspace => "library_workspace",
            Part::NonTorch => "non_torch",
            Part::CudaContext => "cuda_context",
            Part::AllocatorSlack => "allocator_slack",
        }
    }

    /// The English label (the CLI's; the web app translates by [`Part::key`]).
    pub fn label(self) -> &'static str {
        match self {
            Part::Weights => "weights",
            Part::Gradients => "gradients",
            Part::OptimizerStates => "optimizer states",
            Part::MasterWeights => "fp32 master weights",
            Part::Activations => "activations",
            Part::LogitsLoss => "logits and loss",
            Part::KvCache => "KV cache",
            Part::RecurrentState => "recurrent state (conv + SSM)",
            Part::CrossAttentionCache => "cross-attention K/V (images, encoder frames)",
            Part::QuantBuffers => "dequantization buffers",
            Part::OptimizerStep => "optimizer step buffers",
            Part::Workspace => "parallelism buffers",
            Part::PagedOptimizer => "paged optimizer states (unified memory)",
            Part::LibraryWorkspace => "cuBLAS workspaces",
            Part::NonTorch => "outside PyTorch (NCCL, libraries)",
            Part::CudaContext => "CUDA context and libraries",
            Part::AllocatorSlack => "allocator cache (reserved, unused)",
        }
    }
}

/// Which total a line counts towards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// Live tensors at the peak: `torch.cuda.max_memory_allocated`.
    Allocated,
    /// Held by PyTorch's caching allocator but unused: adds to reserved.
    Reserved,
    /// Outside PyTorch: only nvidia-smi sees it.
    Device,
    /// Exists during the run but is not alive at the peak (shown for completeness).
    NotAtPeak,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub part: Part,
    pub bytes: u64,
    /// The formula with the numbers put in.
    pub formula: String,
    pub counter: Counter,
}

impl Line {
    /// A line from a 128-bit byte count (saturating: sizes are range-checked
    /// before they get here).
    pub fn new(part: Part, bytes: u128, formula: String, counter: Counter) -> Line {
        Line {
            part,
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            formula,
            counter,
        }
    }
}

/// Memory of one GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuReport {
    pub index: u64,
    pub lines: Vec<Line>,
    /// `torch.cuda.max_memory_allocated()`: live tensors at the peak.
    pub peak_allocated_bytes: u64,
    /// `torch.cuda.max_memory_reserved()`: allocated plus the allocator's cache.
    pub peak_reserved_bytes: u64,
    /// nvidia-smi "used": reserved plus CUDA context, libraries and unified memory.
    pub device_used_bytes: u64,
    /// Weights held by this GPU.
    pub weights_bytes: u64,
    /// KV cache per token of context held by this GPU (all layers).
    pub kv_bytes_per_token: u64,
    /// When the peak happens (`forward/backward`, `optimizer step`, `generation`).
    pub peak_phase: String,
    /// The allocator's cache at the peak beyond its split segments: whole
    /// free segments, which it frees and retries with when `cudaMalloc`
    /// fails, so a card with less room still fits the run.
    #[serde(skip)]
    pub releasable_cache_bytes: u64,
}

/// The whole estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub model: String,
    /// Total parameters.
    pub params: u64,
    pub trainable_params: u64,
    /// True when the model was given as a bare parameter count.
    pub approximate: bool,
    /// GPUs in the job.
    pub gpu_count: u64,
    /// One report per distinct GPU role. Data, tensor and ZeRO parallelism
    /// give every GPU the same load, and pipeline stages are reported as the
    /// busiest one, so today this holds one report that applies to each GPU.
    pub gpus: Vec<GpuReport>,
    /// Host memory of one GPU's process: offloaded states and checkpoint
    /// loading (a node running n such processes holds n times it).
    pub cpu_ram_bytes: u64,
    pub cpu_lines: Vec<Line>,
    /// Capacity of the chosen GPU, when one was chosen.
    pub capacity_bytes: Option<u64>,
    /// A vLLM engine's KV pool and what it holds: the serving verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<crate::serving::pool::ServingPool>,
    /// How far to trust the headline total: the spread of the estimator's
    /// errors on measured runs of this regime (`band_low_bytes`,
    /// `band_high_bytes`, `regime`, ... in the JSON).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub band: Option<crate::band::ErrorBand>,
    pub notes: Vec<Note>,
}

/// A remark on the estimate (approximate model, unsupported dtype, ...),
/// with a stable `code` and its text in each language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub code: String,
    /// English text.
    pub message: String,
    /// Chinese text.
    pub message_zh: String,
}

impl Note {
    pub fn new(code: &str, message: String, message_zh: String) -> Note {
        Note {
            code: code.to_owned(),
            message,
            message_zh,
        }
    }

    pub fn text(&self, lang: crate::lang::Lang) -> &str {
        match lang {
            crate::lang::Lang::En => &self.message,
            crate::lang::Lang::Zh => &self.message_zh,
        }
    }
}

/// Does the estimate fit the chosen card? Compares the headline GPU's
/// device-used total (what nvidia-smi would show) with the card's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Fits {
        spare_bytes: u64,
        capacity_bytes: u64,
    },
    ShortBy {
        short_bytes: u64,
        capacity_bytes: u64,
    },
    /// No card (or capacity) was chosen.
    Unknown,
}

impl Estimate {
    /// The GPU every face shows and every fit is judged on: the busiest one
    /// (pipeline stages differ; otherwise all are equal), so one link has
    /// one answer in the web, the CLI and the solver.
    pub fn headline_gpu(&self) -> &GpuReport {
        static NONE: std::sync::LazyLock<GpuReport> = std::sync::LazyLock::new(|| GpuReport {
            index: 0,
            lines: Vec::new(),
            peak_allocated_bytes: 0,
            peak_reserved_bytes: 0,
            device_used_bytes: 0,
            weights_bytes: 0,
            kv_bytes_per_token: 0,
            peak_phase: String::new(),
            releasable_cache_bytes: 0,
        });
        self.gpus
            .iter()
            .max_by_key(|g| g.device_used_bytes)
            .unwrap_or(&NONE)
    }

    /// Bytes to spare on the chosen GPU (negative when it does not fit),
    /// comparing nvidia-smi "used" against the card's capacity.
    /// For a vLLM engine, the KV pool's spare bytes beyond the requested
    /// sequences (negative: the pool bytes missing), as [`Self::verdict`].
    pub fn headroom_bytes(&self) -> Option<i128> {
        match (&self.serving, self.capacity_bytes) {
            (Some(pool), Some(_)) if pool.holds_request() => Some(pool.spare_bytes() as i128),
            (Some(pool), Some(_)) => Some(-(pool.short_bytes().max(1) as i128)),
            _ => self
                .capacity_bytes
                .map(|c| c as i128 - self.headline_gpu().device_used_bytes as i128),
        }
    }

    pub fn fits(&self) -> Option<bool> {
        self.headroom_bytes().map(|h| h >= 0)
    }

    /// Fits when the card holds the peak; for a vLLM engine, when its KV
    /// pool holds every requested sequence at its full context (the engine
    /// always fills its share of the card, so the pool is the question).
    pub fn verdict(&self) -> Verdict {
        match (self.capacity_bytes, self.headroom_bytes()) {
            (Some(capacity_bytes), Some(h)) if h >= 0 => Verdict::Fits {
                spare_bytes: u64::try_from(h).unwrap_or(u64::MAX),
                capacity_bytes,
            },
            (Some(capacity_bytes), Some(h)) => Verdict::ShortBy {
                short_bytes: u64::try_from(h.unsigned_abs()).unwrap_or(u64::MAX),
                capacity_bytes,
            },
            _ => Verdict::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(capacity: Option<u64>, used: &[u64]) -> Estimate {
        let report = |i: usize, used: u64| GpuReport {
            index: i as u64,
            lines: Vec::new(),
            peak_allocated_bytes: used / 2,
            peak_reserved_bytes: used / 2,
            device_used_bytes: used,
            weights_bytes: 0,
            kv_bytes_per_token: 0,
            peak_phase: String::new(),
            releasable_cache_bytes: 0,
        };
        Estimate {
            model: "m".into(),
            params: 1,
            trainable_params: 0,
            approximate: false,
            gpu_count: used.len() as u64,
            gpus: used
                .iter()
                .enumerate()
                .map(|(i, &u)| report(i, u))
                .collect(),
            cpu_ram_bytes: 0,
            cpu_lines: Vec::new(),
            capacity_bytes: capacity,
            serving: None,
            band: None,
            notes: Vec::new(),
        }
    }

    #[test]
    fn the_headline_is_the_busiest_gpu_and_the_verdict_follows_it() {
        let e = with(Some(100), &[60, 130, 90]);
        assert_eq!(e.headline_gpu().device_used_bytes, 130);
        let short = Verdict::ShortBy {
            short_bytes: 30,
            capacity_bytes: 100,
        };
        assert_eq!(e.verdict(), short);
        let spare = Verdict::Fits {
            spare_bytes: 40,
            capacity_bytes: 100,
        };
        assert_eq!(with(Some(100), &[60, 40]).verdict(), spare);
        assert_eq!(with(None, &[60]).verdict(), Verdict::Unknown);
        let json = serde_json::to_value(short).expect("serializes");
        assert_eq!(json["verdict"], "short_by");
        assert_eq!(json["short_bytes"], 30);
    }

    #[test]
    fn part_keys_are_the_json_names() {
        for part in Part::ALL {
            let json = serde_json::to_value(part).expect("serializes");
            assert_eq!(json.as_str(), Some(part.key()), "{part:?}");
        }
    }
}
