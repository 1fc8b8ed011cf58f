//! nvidia-smi's default table: per GPU its name (`|   0  NVIDIA GeForce RTX
//! 3070   Off |`) and, on the next line, its memory (`5336MiB /   8192MiB`);
//! then the processes (`|    0   N/A  N/A   12345   C   python3   5100MiB |`).
//! The figures are the busiest GPU's used memory and the memory of its
//! compute processes; the scenario gets the card (its catalog name, else its
//! capacity). The table says nothing of the workload: a log beside it (or
//! the model and scenario given) sets that.

use crate::decimal::Decimal;
use crate::gpu::find_gpu;
use crate::scenario::Scenario;

use super::reading::{Figure, Reading, RuntimeLog};

/// Longest line read.
const MAX_LINE: usize = 1024;
const MIB: f64 = (1u64 << 20) as f64;

#[derive(Default)]
struct Gpu {
    index: u64,
    name: String,
    used_mib: Option<f64>,
    total_mib: Option<f64>,
    lines: Vec<String>,
    /// Compute processes (`C`, `C+G`): MiB each, and their lines.
    processes: Vec<(f64, String)>,
}

/// Reads nvidia-smi's table; `None` when the text holds no `NVIDIA-SMI`
/// banner nor a GPU memory line. GPUs or processes it cannot read are named
/// in `unread`.
pub fn read(text: &str) -> Option<RuntimeLog> {
    let mut gpus: Vec<Gpu> = Vec::new();
    let mut banner = false;
    let mut in_processes = false;
    let mut unread = Vec::new();
    let mut awaiting_memory: Option<usize> = None;
    for raw in text.lines() {
        let line = cut(raw.trim(), MAX_LINE);
        if line.contains("NVIDIA-SMI") && line.contains("Driver Version") {
            banner = true;
            continue;
        }
        if line.contains("Processes:") {
            in_processes = true;
            continue;
        }
        if !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if in_processes {
            if let Some((gpu, mib, compute)) = process(&cells) {
                if let Some(g) = gpus.iter_mut().find(|g| g.index == gpu) {
                    if compute {
                        g.processes.push((mib, line.to_owned()));
                    }
                } else {
                    unread.push(format!(
                        "nvidia-smi: a process on GPU {gpu}, which the table does not list"
                    ));
                }
            }
            continue;
        }
        if let Some(at) = awaiting_memory.take() {
            match memory(&cells) {
                Some((used, total)) => {
                    if let Some(g) = gpus.get_mut(at) {
                        g.used_mib = Some(used);
                        g.total_mib = Some(total);
                        g.lines.push(line.to_owned());
                    }
                }
                None => {
                    let name = gpus.get(at).map(|g| g.name.clone()).unwrap_or_default();
                    unread.push(format!(
                        "nvidia-smi: the memory line of GPU {at} ({name}) is not \"used MiB / total MiB\""
                    ));
                }
            }
            continue;
        }
        if let Some((index, name)) = gpu_line(&cells) {
            awaiting_memory = Some(gpus.len());
            gpus.push(Gpu {
                index,
                name,
                lines: vec![line.to_owned()],
                ..Gpu::default()
            });
        }
    }
    if !banner && gpus.iter().all(|g| g.used_mib.is_none()) {
        return None;
    }
    let mut log = RuntimeLog {
        engine: "nvidia-smi".to_owned(),
        unread,
        ..RuntimeLog::default()
    };
    let busiest = gpus.iter().filter(|g| g.used_mib.is_some()).max_by(|a, b| {
        a.used_mib
            .partial_cmp(&b.used_mib)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let Some(gpu) = busiest else {
        log.unread
            .push("nvidia-smi: no GPU with its memory line (\"used MiB / total MiB\")".to_owned());
        return Some(log);
    };
    log.readings.push(Reading {
        figure: Figure::DeviceUsed,
        value: gpu.used_mib.unwrap_or_default() * MIB,
        // Whole MiB.
        rounding: 0.5 * MIB,
        line: gpu.lines.join("\n"),
    });
    if !gpu.processes.is_empty() {
        log.readings.push(Reading {
            figure: Figure::ProcessMemory,
            value: gpu.processes.iter().map(|p| p.0).sum::<f64>() * MIB,
            rounding: 0.5 * MIB * gpu.processes.len() as f64,
            line: gpu
                .processes
                .iter()
                .map(|p| p.1.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        });
    }
    if gpus.len() > 1 {
        log.assumed.push(format!(
            "nvidia-smi lists {} GPUs: GPU {} ({}), the busiest, is compared",
            gpus.len(),
            gpu.index,
            gpu.name
        ));
    }
    let mut sc = Scenario::default();
    match find_gpu(&gpu.name) {
        Some(spec) => sc.gpu.name = Some(spec.id.to_string()),
        None => {
            sc.gpu.memory_bytes = gpu.total_mib.map(|t| (t * MIB) as u64);
            log.assumed.push(format!(
                "{} is not in the GPU catalog: a card of {} MiB",
                gpu.name,
                Decimal(gpu.total_mib.unwrap_or_default())
            ));
        }
    }
    log.scenario = sc;
    Some(log)
}

fn cut(line: &str, max: usize) -> &str {
    let mut end = line.len().min(max);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// `0  NVIDIA GeForce RTX 3070        Off` (the first cell of a GPU's row):
/// its index and name, without the persistence mode.
fn gpu_line(cells: &[&str]) -> Option<(u64, String)> {
    let first = cells.first()?;
    let mut words = first.split_whitespace();
    let index = words.next()?.parse::<u64>().ok()?;
    let mut rest: Vec<&str> = words.collect();
    if matches!(rest.last(), Some(&"On") | Some(&"Off")) {
        rest.pop();
    }
    if rest.is_empty() || cells.len() < 2 {
        return None;
    }
    Some((index, rest.join(" ")))
}

/// The memory cell: `5336MiB /   8192MiB`.
fn memory(cells: &[&str]) -> Option<(f64, f64)> {
    cells.iter().find_map(|c| {
        let (used, total) = c.split_once('/')?;
        Some((mib(used)?, mib(total)?))
    })
}

fn mib(text: &str) -> Option<f64> {
    let n = text.trim().strip_suffix("MiB")?.trim();
    n.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// A process line: `0   N/A  N/A   12345   C   /usr/bin/python3   5100MiB`:
/// its GPU, MiB and whether it computes (`C`, `C+G`; `G` is graphics).
fn process(cells: &[&str]) -> Option<(u64, f64, bool)> {
    let words: Vec<&str> = cells.first()?.split_whitespace().collect();
    let gpu = words.first()?.parse::<u64>().ok()?;
    let memory = words.last()?;
    let mib = mib(memory)?;
    let compute = words.iter().any(|w| *w == "C" || *w == "C+G");
    Some((gpu, mib, compute))
}
