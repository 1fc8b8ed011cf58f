//! What the doctor read out of a message, in bytes, and the card it draws.

use serde::Serialize;

use super::size::GbMeaning;
use super::stacks::{ErrorKind, Framework, Memory, Wrapper};
use crate::lang::Lang;

/// One finding, with a stable `code` that tools and tests can match on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub code: &'static str,
    /// English text.
    pub message: String,
    /// Chinese text (the vocabulary of the guides our users learned from).
    pub message_zh: String,
}

impl Diagnosis {
    pub fn text(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.message,
            Lang::Zh => &self.message_zh,
        }
    }
}

/// Which shape of text the numbers came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OomFormat {
    /// PyTorch < 2.1: `(GPU 0; 23.69 GiB total capacity; ... reserved in total by PyTorch)`.
    Legacy,
    /// PyTorch >= 2.1: `GPU 0 has a total capacity of ... Of the allocated memory ...`.
    Modern,
    /// Only a `torch.cuda.memory_summary()` table.
    MemorySummary,
    /// An error that prints no numbers (`CUDA error: out of memory`, a killed process).
    NoNumbers,
    /// Any other stack's message, its numbers read by their labels.
    Labelled,
}

/// Everything the message says or implies, in bytes. `None` where the text does not say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OomReport {
    /// Whether the paste holds an out-of-memory error (false for the errors
    /// that are named but are something else, and for a bare memory_summary).
    pub out_of_memory: bool,
    pub error: ErrorKind,
    /// The phrase that identified the error (lowercase), as listed in `stacks.rs`.
    pub signature: Option<&'static str>,
    pub framework: Framework,
    /// Which memory ran out: the GPU's own, unified (Apple), or host RAM.
    pub memory: Memory,
    /// DeepSpeed or bitsandbytes named in the paste.
    pub wrapper: Option<Wrapper>,
    pub format: OomFormat,
    pub gpu_index: Option<u32>,
    /// The allocation that failed.
    pub requested_bytes: Option<u64>,
    /// The request is printed rounded; the true value is within ± this.
    pub requested_rounding_bytes: Option<u64>,
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// Held by live tensors.
    pub allocated_bytes: Option<u64>,
    /// Held by PyTorch's caching allocator (allocated + cached).
    pub reserved_bytes: Option<u64>,
    /// Cached by PyTorch but not in a live tensor: reserved − allocated.
    pub reserved_unallocated_bytes: Option<u64>,
    /// Used on the card outside the framework's allocator: CUDA context,
    /// cuBLAS/NCCL buffers, in the legacy format other processes too, and
    /// MPS's "other allocations".
    pub non_pytorch_bytes: Option<u64>,
    /// This process in total (modern format: "this process has X memory in
    /// use"; the OOM killer: the killed process's resident memory).
    pub process_in_use_bytes: Option<u64>,
    /// Sum of the "Process N has X memory in use" lines.
    pub other_processes_bytes: Option<u64>,
    /// What the failing program needs in all (XLA's buffer assignment, TPU HBM use).
    pub needed_bytes: Option<u64>,
    /// vLLM: tokens one request may need (`max_model_len`).
    pub tokens_needed: Option<u64>,
    /// vLLM: tokens the KV cache can hold.
    pub tokens_available: Option<u64>,
    /// memory_summary: peak of allocated and of reserved.
    pub peak_allocated_bytes: Option<u64>,
    pub peak_reserved_bytes: Option<u64>,
    /// memory_summary: "Non-releasable memory" (free bytes stuck inside used blocks).
    pub non_releasable_bytes: Option<u64>,
    /// How a printed `GB`/`MB`/`G`/`kB` was read; `None` when every size
    /// carried an unambiguous unit (GiB, MiB, bytes). Every stack the doctor
    /// knows prints these in powers of 1024.
    pub gb_meaning: Option<GbMeaning>,
    /// The message as read (whitespace collapsed, at most [`super::MESSAGE_WINDOW`] bytes).
    pub excerpt: String,
    pub diagnoses: Vec<Diagnosis>,
}

impl OomReport {
    pub(super) fn empty(format: OomFormat) -> Self {
        Self {
            out_of_memory: false,
            error: ErrorKind::MemorySummary,
            signature: None,
            framework: Framework::Pytorch,
            memory: Memory::Gpu,
            wrapper: None,
            format,
            gpu_index: None,
            requested_bytes: None,
            requested_rounding_bytes: None,
            total_bytes: None,
            free_bytes: None,
            allocated_bytes: None,
            reserved_bytes: None,
            reserved_unallocated_bytes: None,
            non_pytorch_bytes: None,
            process_in_use_bytes: None,
            other_processes_bytes: None,
            needed_bytes: None,
            tokens_needed: None,
            tokens_available: None,
            peak_allocated_bytes: None,
            peak_reserved_bytes: None,
            non_releasable_bytes: None,
            gb_meaning: None,
            excerpt: String::new(),
            diagnoses: Vec::new(),
        }
    }
}

/// A part of the card for a bar chart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// Stable key: `allocated`, `reserved_unallocated`, `non_pytorch`,
    /// `other_processes`, `free`, `request`.
    pub key: &'static str,
    pub label: &'static str,
    pub label_zh: &'static str,
    pub bytes: u64,
}

/// The card as the message describes it, left to right, then the request that
/// did not fit. Parts the message does not give are left out.
pub fn picture(report: &OomReport) -> Vec<Segment> {
    let parts = [
        (
            "allocated",
            "allocated by tensors",
            "张量已分配",
            report.allocated_bytes,
        ),
        (
            "reserved_unallocated",
            "reserved by PyTorch, unallocated",
            "PyTorch 预留未分配",
            report.reserved_unallocated_bytes,
        ),
        (
            "non_pytorch",
            "outside PyTorch",
            "非 PyTorch 占用",
            report.non_pytorch_bytes,
        ),
        (
            "other_processes",
            "other processes",
            "其他进程",
            // in the legacy format other processes are inside non_pytorch already
            report
                .other_processes_bytes
                .filter(|_| report.format == OomFormat::Modern),
        ),
        ("free", "free", "空闲", report.free_bytes),
        (
            "request",
            "failed request",
            "本次请求（失败）",
            report.requested_bytes,
        ),
    ];
    parts
        .into_iter()
        .filter_map(|(key, label, label_zh, bytes)| {
            bytes.map(|bytes| Segment {
                key,
                label,
                label_zh,
                bytes,
            })
        })
        .collect()
}
