//! The OOM doctor: finds the last error in a paste (a recognised stack
//! signature, `stacks.rs`), reads its numbers by their labels (`labels.rs`),
//! works out what they imply and says what most likely went wrong, with the
//! remedies of that stack (`remedies.rs`). Errors that are not out of memory
//! (a device-side assert, an illegal memory access, an NCCL timeout) are
//! named as such. A `torch.cuda.memory_summary()` table adds its peaks.
//!
//! Pure functions over text. Scanning is hand-written and linear in the paste:
//! a fixed set of phrases is searched once each, then one bounded window
//! around the message is read. A 10 MB log with the message at the end is fine.

mod diagnose;
mod labels;
mod remedies;
mod report;
mod runtimes;
mod servers;
pub mod size;
mod stacks;
mod tensor;

use crate::error::InputError;
pub use diagnose::diagnose;
use labels::Labels;
pub use report::{picture, Diagnosis, OomFormat, OomReport, Segment};
use size::{size_at, GbMeaning};
pub use stacks::{ErrorKind, Framework, Memory, Wrapper};
use stacks::{Found, Signature};

/// The sentence returned when a paste holds nothing the doctor can read.
pub const NOT_FOUND: &str = "no out-of-memory message found: paste the full error as your stack \
     printed it (PyTorch, JAX/XLA, TensorFlow, PaddlePaddle, ONNX Runtime, TensorRT, vLLM, SGLang, \
     TGI, llama.cpp, Ollama, MLX, NCCL, cuBLAS, a killed DataLoader worker, Slurm or the kernel's OOM \
     killer) or a torch.cuda.memory_summary() table";

/// How far past the signature the numbers of one message reach. The longest
/// PyTorch message (modern, with a few "Process N has" lines and the
/// `PYTORCH_CUDA_ALLOC_CONF` advice) is under 1,500 characters; XLA's
/// buffer-assignment stats under 1,000.
pub const MESSAGE_WINDOW: usize = 4096;
/// Lines before the signature's line read when that line has no numbers:
/// llama.cpp prints the failed buffer's size on the line before
/// `failed to allocate buffer for kv cache`.
const LINES_BEFORE: usize = 2;
/// Most bytes looked at before the signature (a 10 MB paste on one line
/// must not become a 10 MB window).
pub const BEFORE_WINDOW: usize = 1024;

/// Reads the last error message (and any memory_summary table) in `text`.
pub fn parse_oom(text: &str) -> Result<OomReport, InputError> {
    let lower = text.to_ascii_lowercase();
    let found = stacks::find(&lower);
    let mut report = match found {
        Some((found, signature)) => read_error(text, &lower, found, signature),
        None => OomReport::empty(OomFormat::MemorySummary),
    };
    let found_summary = merge_summary(&lower, &mut report);
    if report.format == OomFormat::MemorySummary && !found_summary {
        return Err(InputError::new("message", NOT_FOUND));
    }
    if report.out_of_memory {
        report.wrapper = stacks::wrapper(&lower);
    }
    derive(&mut report);
    report.diagnoses = diagnose(&report);
    Ok(report)
}

/// The report of the error found at `found.at`: its stack, memory and
/// numbers. `lower` is `text` lowercased (same byte offsets).
fn read_error(text: &str, lower: &str, mut found: Found, signature: &Signature) -> OomReport {
    let floor = ceil_boundary(lower, found.at.saturating_sub(BEFORE_WINDOW));
    let line_start = lower
        .get(floor..found.at)
        .and_then(|before| before.rfind('\n'))
        .map_or(floor, |i| floor + i + 1);
    let earlier_start = lines_back(lower, line_start, floor);
    let end = floor_boundary(lower, found.at.saturating_add(MESSAGE_WINDOW));
    stacks::refine(
        &mut found,
        signature,
        lower.get(earlier_start..end).unwrap_or(""),
    );
    let mut report = OomReport::empty(OomFormat::NoNumbers);
    report.out_of_memory = found.kind.is_oom();
    report.error = found.kind;
    report.signature = Some(signature.phrase);
    report.framework = found.framework;
    report.memory = found.memory;
    if !report.out_of_memory {
        // the error's line, within the same bounds as a message's window
        let line_end = text
            .get(found.at..end)
            .and_then(|rest| rest.find('\n'))
            .map_or(end, |i| found.at + i);
        report.excerpt = collapse(text.get(line_start..line_end).unwrap_or(""));
        return report;
    }
    let mut start = line_start;
    let mut window = collapse(lower.get(start..end).unwrap_or(""));
    let mut labels = labels::read(&window, GbMeaning::Binary);
    let has_numbers = labels.any() || tensor::tensor_bytes(&window).is_some();
    if !has_numbers && earlier_start < line_start {
        start = earlier_start;
        window = collapse(lower.get(start..end).unwrap_or(""));
        labels = labels::read(&window, GbMeaning::Binary);
    }
    fill(&mut report, &window, labels);
    report.excerpt = collapse(text.get(start..end).unwrap_or(""));
    report
}

/// Start of the text [`LINES_BEFORE`] lines before `line_start`, not before `floor`.
fn lines_back(lower: &str, line_start: usize, floor: usize) -> usize {
    let mut start = line_start;
    for _ in 0..LINES_BEFORE {
        if start <= floor {
            break;
        }
        start = lower
            .get(floor..start - 1)
            .and_then(|before| before.rfind('\n'))
            .map_or(floor, |i| floor + i + 1);
    }
    start.max(floor)
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// `raw` with each run of whitespace made one space, so that wrapped lines read as one.
fn collapse(raw: &str) -> String {
    let mut window = String::with_capacity(raw.len());
    let mut last_space = false;
    for c in raw.trim().chars() {
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
    window
}

/// Copies the labelled numbers into the report and names the format.
fn fill(report: &mut OomReport, window: &str, labels: Labels) {
    let requested = labels.requested.or_else(|| {
        tensor::tensor_bytes(window).map(|bytes| size::ParsedSize {
            bytes,
            rounding_bytes: 0,
        })
    });
    report.requested_bytes = requested.map(|s| s.bytes);
    report.requested_rounding_bytes = requested.map(|s| s.rounding_bytes);
    report.total_bytes = labels.total;
    report.free_bytes = labels.free;
    report.allocated_bytes = labels.allocated;
    report.reserved_bytes = labels.reserved;
    report.reserved_unallocated_bytes = labels.reserved_unallocated;
    report.non_pytorch_bytes = labels.non_framework;
    report.process_in_use_bytes = labels.process_in_use;
    report.needed_bytes = labels.needed;
    report.tokens_needed = labels.tokens_needed;
    report.tokens_available = labels.tokens_available;
    report.gb_meaning = labels.ambiguous_unit.then_some(GbMeaning::Binary);
    report.gpu_index = gpu_index(window);
    let pytorch_gpu = report.framework == Framework::Pytorch && report.memory == Memory::Gpu;
    report.format = if pytorch_gpu && MODERN_PHRASES.iter().any(|p| window.contains(p)) {
        OomFormat::Modern
    } else if pytorch_gpu && (report.total_bytes.is_some() || requested.is_some()) {
        OomFormat::Legacy
    } else if labels.any() || requested.is_some() {
        OomFormat::Labelled
    } else {
        OomFormat::NoNumbers
    };
    let processes = labels.other_processes;
    report.other_processes_bytes = processes.iter().copied().reduce(u64::saturating_add);
    if report.format == OomFormat::Modern {
        own_process_in_a_container(report, &processes);
    }
}

/// Phrases only PyTorch >= 2.1 prints (2.1 printed "capacty", sic).
const MODERN_PHRASES: [&str; 4] = [
    "this process has",
    "of the allocated memory",
    "total capacity of",
    "total capacty of",
];

/// In a container PyTorch cannot match its own PID and lists itself as
/// "Process N". The process holding at least PyTorch's whole reservation
/// (allocated + cached) must be this one.
fn own_process_in_a_container(report: &mut OomReport, processes: &[u64]) {
    let reserved = report
        .allocated_bytes
        .zip(report.reserved_unallocated_bytes)
        .map(|(a, c)| a.saturating_add(c));
    let largest = processes.iter().copied().max();
    if let (None, Some(reserved), Some(largest)) = (report.process_in_use_bytes, reserved, largest)
    {
        if largest >= reserved {
            report.process_in_use_bytes = Some(largest);
            report.other_processes_bytes = report
                .other_processes_bytes
                .map(|sum| sum.saturating_sub(largest))
                .filter(|_| processes.len() > 1);
        }
    }
}

/// The device index: `GPU 0` (PyTorch), `on device 1` (llama.cpp),
/// `device:GPU:0` (TensorFlow), `Allocation on device 0`, `(NPU 3;` (Ascend).
fn gpu_index(window: &str) -> Option<u32> {
    // ggml names its buffers by backend and device: `CUDA0 buffer`
    [
        "device:gpu:",
        "gpu ",
        "on device ",
        "cuda:",
        "(npu ",
        "allocate cuda",
    ]
    .iter()
    .filter_map(|prefix| {
        let at = window.find(prefix)? + prefix.len();
        let digits: String = window
            .get(at..)?
            .chars()
            .take_while(char::is_ascii_digit)
            .take(6)
            .collect();
        digits.parse().ok().map(|index| (at, index))
    })
    .min_by_key(|(at, _)| *at)
    .map(|(_, index)| index)
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
    // MPS: free = max allowed − allocated − other allocations
    if report.free_bytes.is_none() && report.memory == Memory::Unified {
        if let (Some(total), Some(allocated), Some(other)) = (
            report.total_bytes,
            report.allocated_bytes,
            report.non_pytorch_bytes,
        ) {
            report.free_bytes = total
                .checked_sub(allocated)
                .and_then(|rest| rest.checked_sub(other));
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
                // vLLM's start-up check: the card's total and free,
                // nothing of its own yet
                (Some(total), None, Some(free))
                    if report.framework == Framework::Vllm && report.allocated_bytes.is_none() =>
                {
                    total.checked_sub(free)
                }
                _ => None,
            },
        };
    }
}
