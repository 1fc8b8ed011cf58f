//! The OOM-message doctor: reads a pasted PyTorch out-of-memory message (or a
//! `torch.cuda.memory_summary()` table), works out what the numbers imply and
//! says what most likely went wrong.
//!
//! Pure functions over text. Scanning is hand-written and linear in the paste:
//! a 10 MB log with the message at the end is fine.

mod diagnose;
pub mod size;

use serde::Serialize;

use crate::error::InputError;
use crate::lang::Lang;
pub use diagnose::diagnose;
use size::{size_at, size_before, GbMeaning};

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
    /// An out-of-memory error that prints no numbers (`CUDA error: out of memory`).
    NoNumbers,
}

/// Everything the message says or implies, in bytes. `None` where the text does not say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OomReport {
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
    /// Used on the card outside PyTorch's allocator: CUDA context, cuBLAS/NCCL
    /// buffers, and in the legacy format other processes too.
    pub non_pytorch_bytes: Option<u64>,
    /// This process in total (modern format: "this process has X memory in use").
    pub process_in_use_bytes: Option<u64>,
    /// Sum of the "Process N has X memory in use" lines.
    pub other_processes_bytes: Option<u64>,
    /// memory_summary: peak of allocated and of reserved.
    pub peak_allocated_bytes: Option<u64>,
    pub peak_reserved_bytes: Option<u64>,
    /// memory_summary: "Non-releasable memory" (free bytes stuck inside used blocks).
    pub non_releasable_bytes: Option<u64>,
    pub diagnoses: Vec<Diagnosis>,
}

impl OomReport {
    fn empty(format: OomFormat) -> Self {
        Self {
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
            peak_allocated_bytes: None,
            peak_reserved_bytes: None,
            non_releasable_bytes: None,
            diagnoses: Vec::new(),
        }
    }
}

/// The sentence returned when a paste holds nothing the doctor can read.
pub const NOT_FOUND: &str = "no out-of-memory message found: paste the full `CUDA out of memory. \
     Tried to allocate ...` message or a torch.cuda.memory_summary() table";

/// Phrases that start an out-of-memory error (lowercase). `tried to allocate`
/// is searched first because it is where the numbers begin.
const OOM_ANCHORS: [&str; 6] = [
    "cuda out of memory",
    "cuda error: out of memory",
    "outofmemoryerror",
    "hip out of memory",
    "mps backend out of memory",
    "cudaerrormemoryallocation",
];
/// How far past the anchor the numbers of one message reach. The longest
/// PyTorch message (modern, with a few "Process N has" lines and the
/// `PYTORCH_CUDA_ALLOC_CONF` advice) is under 1,500 characters.
const MESSAGE_WINDOW: usize = 4096;

/// Reads the last out-of-memory message (and any memory_summary table) in `text`.
pub fn parse_oom(text: &str) -> Result<OomReport, InputError> {
    let lower = text.to_ascii_lowercase();
    let mut report = match message_window(&lower) {
        Some(window) => parse_message(&window),
        None => OomReport::empty(OomFormat::MemorySummary),
    };
    let found_message = report.format != OomFormat::MemorySummary;
    let found_summary = merge_summary(&lower, &mut report);
    if !found_message && !found_summary {
        return Err(InputError::new("message", NOT_FOUND));
    }
    derive(&mut report);
    report.diagnoses = diagnose(&report);
    Ok(report)
}

/// The lowercase message text from the last anchor, whitespace collapsed so
/// that wrapped lines read as one.
fn message_window(lower: &str) -> Option<String> {
    let start = match lower.rfind("tried to allocate") {
        Some(found) => found,
        None => OOM_ANCHORS
            .iter()
            .filter_map(|anchor| lower.rfind(anchor))
            .max()?,
    };
    let mut end = (start + MESSAGE_WINDOW).min(lower.len());
    while !lower.is_char_boundary(end) {
        end -= 1;
    }
    let raw = lower.get(start..end)?;
    let mut window = String::with_capacity(raw.len());
    let mut last_space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            if !last_space {
                window.push(' ');
            }
            last_space = true;
        } else {
            window.push(c);
            last_space = false;
        }
    }
    Some(window)
}

fn parse_message(window: &str) -> OomReport {
    let text = window.as_bytes();
    // PyTorch's MPS allocator prints binary sizes labelled "GB"/"MB"; CUDA
    // messages print KiB/MiB/GiB. A bare GB elsewhere is read as SI.
    let gb = if window.contains("mps") {
        GbMeaning::Binary
    } else {
        GbMeaning::Decimal
    };
    let after = |phrase: &str| {
        let at = window.find(phrase)? + phrase.len();
        size_at(text, at, gb).map(|(size, _)| size)
    };
    let before = |phrase: &str| size_before(text, window.find(phrase)?, gb);
    let bytes = |size: Option<size::ParsedSize>| size.map(|s| s.bytes);

    let mut report = OomReport::empty(OomFormat::NoNumbers);
    let requested = after("tried to allocate ");
    report.requested_bytes = bytes(requested);
    report.requested_rounding_bytes = requested.map(|s| s.rounding_bytes);
    report.gpu_index = gpu_index(window);

    if window.contains("this process has")
        || window.contains("of the allocated memory")
        || window.contains("total capacity of")
        || window.contains("total capacty of")
    {
        report.format = OomFormat::Modern;
        // PyTorch 2.1 printed "capacty" (sic).
        report.total_bytes =
            bytes(after("total capacity of ").or_else(|| after("total capacty of ")));
        report.free_bytes = bytes(after("of which "));
        report.process_in_use_bytes = bytes(after("this process has "));
        report.allocated_bytes = bytes(before("is allocated by pytorch"));
        report.reserved_unallocated_bytes = bytes(before("is reserved by pytorch but unallocated"));
        let processes = other_processes(text, gb);
        report.other_processes_bytes = processes.iter().copied().reduce(u64::saturating_add);
        // In a container PyTorch cannot match its own PID and lists itself as
        // "Process N". The process holding at least PyTorch's whole reservation
        // (allocated + cached) must be this one.
        let reserved = report
            .allocated_bytes
            .zip(report.reserved_unallocated_bytes)
            .map(|(a, c)| a.saturating_add(c));
        let largest = processes.iter().copied().max();
        if let (None, Some(reserved), Some(largest)) =
            (report.process_in_use_bytes, reserved, largest)
        {
            if largest >= reserved {
                report.process_in_use_bytes = Some(largest);
                report.other_processes_bytes = report
                    .other_processes_bytes
                    .map(|sum| sum.saturating_sub(largest))
                    .filter(|_| processes.len() > 1);
            }
        }
    } else if window.contains("total capacity") || window.contains("already allocated") {
        report.format = OomFormat::Legacy;
        report.total_bytes = bytes(before("total capacity"));
        report.allocated_bytes = bytes(before("already allocated"));
        report.free_bytes = bytes(before("free;"));
        // PyTorch < 1.6 called the cache "cached".
        report.reserved_bytes =
            bytes(before("reserved in total by pytorch").or_else(|| before("cached)")));
    } else if requested.is_some() {
        report.format = OomFormat::Legacy;
    }
    report
}

/// `gpu 0` (legacy `(GPU 0;`, modern `GPU 0 has`).
fn gpu_index(window: &str) -> Option<u32> {
    let at = window.find("gpu ")? + "gpu ".len();
    let digits: String = window
        .get(at..)?
        .chars()
        .take_while(char::is_ascii_digit)
        .take(6)
        .collect();
    digits.parse().ok()
}

/// The amounts of `process 1234 has 2.00 gib memory in use` lines.
fn other_processes(text: &[u8], gb: GbMeaning) -> Vec<u64> {
    const PHRASE: &[u8] = b"process ";
    let mut amounts = Vec::new();
    let mut i = 0;
    while let Some(offset) = text.get(i..).and_then(|rest| find_bytes(rest, PHRASE)) {
        let mut j = i + offset + PHRASE.len();
        let digits_start = j;
        while text.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        i = j.max(i + offset + 1);
        if j == digits_start || !text.get(j..).is_some_and(|rest| rest.starts_with(b" has ")) {
            continue;
        }
        if let Some((size, end)) = size_at(text, j + " has ".len(), gb) {
            if text
                .get(end..)
                .is_some_and(|rest| rest.starts_with(b" memory in use"))
            {
                amounts.push(size.bytes);
            }
        }
    }
    amounts
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    // Needles are short constants; windows() over a bounded window is linear.
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads the last `torch.cuda.memory_summary()` table, filling fields the
/// message left empty. Returns whether a table was found.
fn merge_summary(lower: &str, report: &mut OomReport) -> bool {
    let mut found = false;
    let (mut allocated, mut reserved, mut non_releasable) = (None, None, None);
    let mut device = None;
    for line in lower.lines() {
        if let Some(at) = line.find("memory allocator, device id ") {
            let rest = line
                .get(at + "memory allocator, device id ".len()..)
                .unwrap_or("");
            let digits: String = rest
                .chars()
                .take_while(char::is_ascii_digit)
                .take(6)
                .collect();
            device = digits.parse::<u32>().ok().or(device);
        }
        if !line.contains('|') {
            continue;
        }
        let mut cells = line.split('|').skip(1);
        let metric = cells.next().unwrap_or("").trim();
        let slot = match metric {
            "allocated memory" => &mut allocated,
            "gpu reserved memory" => &mut reserved,
            "non-releasable memory" => &mut non_releasable,
            _ => continue,
        };
        let current = cells.next().and_then(summary_cell);
        let peak = cells.next().and_then(summary_cell);
        if current.is_some() {
            *slot = Some((current, peak));
            found = true;
        }
    }
    if !found {
        return false;
    }
    if let Some((current, peak)) = allocated {
        report.allocated_bytes = report.allocated_bytes.or(current);
        report.peak_allocated_bytes = peak;
    }
    if let Some((current, peak)) = reserved {
        report.reserved_bytes = report.reserved_bytes.or(current);
        report.peak_reserved_bytes = peak;
    }
    if let Some((current, _)) = non_releasable {
        report.non_releasable_bytes = current;
    }
    report.gpu_index = report.gpu_index.or(device);
    true
}

/// A memory_summary cell: `  14942 mib ` (PyTorch's `_format_size`, binary units).
fn summary_cell(cell: &str) -> Option<u64> {
    let text = cell.trim().as_bytes();
    size_at(text, 0, GbMeaning::Binary).map(|(size, _)| size.bytes)
}

/// Fills what the printed numbers imply.
fn derive(report: &mut OomReport) {
    // modern: reserved = allocated + reserved-but-unallocated
    if report.reserved_bytes.is_none() {
        if let (Some(allocated), Some(cached)) =
            (report.allocated_bytes, report.reserved_unallocated_bytes)
        {
            report.reserved_bytes = Some(allocated.saturating_add(cached));
        }
    }
    // legacy and memory_summary: reserved-but-unallocated = reserved − allocated
    if report.reserved_unallocated_bytes.is_none() {
        if let (Some(reserved), Some(allocated)) = (report.reserved_bytes, report.allocated_bytes) {
            report.reserved_unallocated_bytes = reserved.checked_sub(allocated);
        }
    }
    if report.non_pytorch_bytes.is_none() {
        report.non_pytorch_bytes = match (report.process_in_use_bytes, report.reserved_bytes) {
            // modern: this process's use beyond PyTorch's cache
            (Some(in_use), Some(reserved)) => in_use.checked_sub(reserved),
            // legacy: whatever is neither PyTorch's nor free (context + other processes)
            _ => match (report.total_bytes, report.reserved_bytes, report.free_bytes) {
                (Some(total), Some(reserved), Some(free)) => total
                    .checked_sub(reserved)
                    .and_then(|rest| rest.checked_sub(free)),
                _ => None,
            },
        };
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
