//! The memory-log analyzer: reads memory readings out of training logs and
//! tells steady runs from leaks, and when a leak will hit the card's limit.
//!
//! Reads, line by line (hand-written scanners, linear in the text):
//! - free text: `Step 100: Loss=2.34, Memory=18.2GB`
//! - Hugging Face Trainer dicts: `{'loss': 2.1, 'step': 40, 'mem_gb': 18.2}`
//! - Lightning/tqdm bars: `Epoch 0:  12%|█ | 120/1000 [00:10<01:20, mem=18.2G]`
//! - CSV with a header naming a step column and a memory column
//!   (`step,memory_gb`, `iter,allocated_mb`)
//! - the companion's CSV `time_s,gpu,used_bytes,total_bytes` (time is the x axis).
//!
//! Units: a bare `GB`/`G`/`MB`/`M` in a log is binary (GiB/MiB): scripts
//! print `torch.cuda.memory_allocated() / 1024**3` and call it GB (seed 004
//! §9.1.5 and §9.3.4 do exactly that).

mod analyze;
pub mod companion_csv;
pub mod fit;
mod point;
pub use point::Point;

use serde::Serialize;

use crate::doctor::size::{read_number, skip_spaces, to_size, unit_multiplier, GbMeaning};
pub use analyze::{analyze, Analysis, Cause, Trend};

/// What a log held besides the points.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedLog {
    pub points: Vec<Point>,
    /// The card's capacity when the log states it (companion CSV `total_bytes`).
    pub capacity_bytes: Option<u64>,
}

/// Which GPU to read from the companion's multi-GPU CSV.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuPick {
    /// The largest reading across GPUs at each time: the one that will OOM first.
    #[default]
    Max,
    One(u32),
}

/// Memory readings in `text`, in the order they appear. Lines without a
/// reading are skipped; nothing found gives an empty list.
pub fn parse_log(text: &str) -> Vec<Point> {
    parse_log_with(text, GpuPick::Max).points
}

/// Like [`parse_log`], choosing the GPU of a companion CSV and keeping its capacity.
pub fn parse_log_with(text: &str, gpu: GpuPick) -> ParsedLog {
    let mut lines = text.split(['\n', '\r']).filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        return ParsedLog {
            points: Vec::new(),
            capacity_bytes: None,
        };
    };
    if let Some(header) = CsvHeader::read(first) {
        return header.parse_rows(lines, gpu);
    }
    let mut state = FreeTextState::default();
    let points = std::iter::once(first)
        .chain(lines)
        .filter_map(|line| state.read(line))
        .collect();
    ParsedLog {
        points,
        capacity_bytes: None,
    }
}

/// How to read a memory value whose unit is not printed next to it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum UnitHint {
    Multiplier(f64),
    /// No unit anywhere: judge by magnitude (see [`guess_unit`]).
    Guess,
}

/// A bare memory number with no unit. A training run holds between ~1 MiB
/// and a few TiB, so: below 1024 it must be GiB, below 10^7 MiB (10 TiB),
/// anything larger bytes.
fn guess_unit(value: f64) -> f64 {
    if value < 1024.0 {
        1024f64.powi(3)
    } else if value < 1e7 {
        1024f64.powi(2)
    } else {
        1.0
    }
}

/// The unit a key or column name carries: `mem_gb`, `allocated_mb`, `used_bytes`, `memory (GiB)`.
fn unit_from_name(name: &str) -> UnitHint {
    let lower = name.to_ascii_lowercase();
    let words = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty());
    let multiplier = words
        .filter_map(|w| unit_multiplier(w, GbMeaning::Binary))
        .next_back();
    multiplier.map_or(UnitHint::Guess, UnitHint::Multiplier)
}

fn to_bytes(value: f64, hint: UnitHint) -> u64 {
    let multiplier = match hint {
        UnitHint::Multiplier(m) => m,
        UnitHint::Guess => guess_unit(value),
    };
    to_size(value, 0, multiplier).bytes
}

/// Columns of a CSV header.
struct CsvHeader {
    step: usize,
    memory: usize,
    memory_unit: UnitHint,
    gpu: Option<usize>,
    total: Option<usize>,
    total_unit: UnitHint,
    separator: char,
}

impl CsvHeader {
    /// A header is a line of at least two non-numeric names, one naming the
    /// step (or time) and one naming memory.
    fn read(line: &str) -> Option<Self> {
        let separator = if line.contains(',') {
            ','
        } else if line.contains('\t') {
            '\t'
        } else {
            return None;
        };
        let names: Vec<String> = line
            .split(separator)
            .map(|n| n.trim().trim_matches('"').to_ascii_lowercase())
            .collect();
        if names.len() < 2
            || names
                .iter()
                .any(|n| n.is_empty() || n.starts_with(|c: char| c.is_ascii_digit()))
        {
            return None;
        }
        let position = |wanted: &[&str]| {
            names.iter().position(|n| {
                wanted
                    .iter()
                    .any(|w| n == w || n.starts_with(&format!("{w}_")))
            })
        };
        let step = position(&[
            "step",
            "global_step",
            "steps",
            "iter",
            "iteration",
            "time_s",
            "time",
            "epoch",
        ])?;
        let memory = names.iter().position(|n| {
            ["used", "mem", "alloc", "reserved", "vram"]
                .iter()
                .any(|k| n.contains(k))
                && !n.starts_with("total")
        })?;
        let total = names.iter().position(|n| n.starts_with("total"));
        Some(Self {
            step,
            memory,
            memory_unit: names
                .get(memory)
                .map_or(UnitHint::Guess, |n| unit_from_name(n)),
            gpu: position(&["gpu", "gpu_index", "device"]),
            total,
            total_unit: total
                .and_then(|t| names.get(t))
                .map_or(UnitHint::Guess, |n| unit_from_name(n)),
            separator,
        })
    }

    fn parse_rows<'a>(&self, lines: impl Iterator<Item = &'a str>, pick: GpuPick) -> ParsedLog {
        let mut points: Vec<Point> = Vec::new();
        let mut capacity: Option<u64> = None;
        for line in lines {
            let cells: Vec<&str> = line
                .split(self.separator)
                .map(|c| c.trim().trim_matches('"'))
                .collect();
            let number = |index: usize| {
                cells
                    .get(index)
                    .and_then(|c| c.parse::<f64>().ok())
                    .filter(|v| v.is_finite() && *v >= 0.0)
            };
            let (Some(step), Some(memory)) = (number(self.step), number(self.memory)) else {
                continue;
            };
            let gpu = self.gpu.and_then(number);
            if let (GpuPick::One(wanted), Some(gpu)) = (pick, gpu) {
                if gpu != f64::from(wanted) {
                    continue;
                }
            }
            let bytes = to_bytes(memory, self.memory_unit);
            if let Some(total) = self.total.and_then(number) {
                capacity = Some(capacity.unwrap_or(0).max(to_bytes(total, self.total_unit)));
            }
            // several GPUs at the same time: keep the largest reading
            match points.last_mut() {
                Some(last) if self.gpu.is_some() && last.step == step => {
                    last.bytes = last.bytes.max(bytes)
                }
                _ => points.push(Point { step, bytes }),
            }
        }
        ParsedLog {
            points,
            capacity_bytes: capacity,
        }
    }
}

/// Carries the step counter across free-text lines.
#[derive(Default)]
struct FreeTextState {
    /// Last step seen, to number lines that print none.
    last_step: Option<f64>,
}

/// Keys that name a step counter, in order of preference.
const STEP_KEYS: [&str; 5] = ["global_step", "step", "iteration", "iter", "epoch"];

impl FreeTextState {
    fn read(&mut self, line: &str) -> Option<Point> {
        let lower = line.to_ascii_lowercase();
        let text = lower.as_bytes();
        let bytes = memory_value(text)?;
        let step = progress_bar_step(&lower)
            .or_else(|| STEP_KEYS.iter().find_map(|key| keyed_number(text, key)))
            .unwrap_or_else(|| self.last_step.map_or(0.0, |s| s + 1.0));
        self.last_step = Some(step);
        Some(Point { step, bytes })
    }
}

/// Identifier characters of keys like `mem_gb`.
fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Finds `key` as a whole identifier followed by a separator (`:`, `=`, a
/// space, quotes) and a number: `step 100`, `'step': 40`, `step=40`.
fn keyed_number(text: &[u8], key: &str) -> Option<f64> {
    let mut from = 0;
    while let Some(at) = find(text, key.as_bytes(), from) {
        from = at + 1;
        let end = at + key.len();
        if (at > 0 && text.get(at - 1).is_some_and(|c| is_ident(*c)))
            || text.get(end).is_some_and(|c| is_ident(*c))
        {
            continue;
        }
        let value_at = skip_separators(text, end);
        if let Some((value, _, _)) = read_number(text, value_at) {
            return Some(value);
        }
    }
    None
}

fn skip_separators(text: &[u8], mut i: usize) -> usize {
    let mut skipped = 0;
    while skipped < 4
        && text
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b':' | b'=' | b'\'' | b'"'))
    {
        i += 1;
        skipped += 1;
    }
    i
}

/// Byte search from `from` (memchr-free, linear for short needles).
fn find(text: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    if needle.is_empty() || rest.len() < needle.len() {
        return None;
    }
    rest.windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The first memory reading on a line: an identifier containing `mem`
/// (`Memory=18.2GB`, `'mem_gb': 18.2`, `mem=18.2G`, `gpu_mem: 18.2 GiB`)
/// followed by `:` or `=` and a number with an optional unit.
fn memory_value(text: &[u8]) -> Option<u64> {
    let mut from = 0;
    while let Some(at) = find(text, b"mem", from) {
        let mut start = at;
        while start > 0 && text.get(start - 1).is_some_and(|c| is_ident(*c)) {
            start -= 1;
        }
        let mut end = at;
        while text.get(end).is_some_and(|c| is_ident(*c)) {
            end += 1;
        }
        from = end.max(at + 1);
        let key = std::str::from_utf8(text.get(start..end).unwrap_or_default()).unwrap_or("");
        // `(GB)` after the key: `memory (GB): 18.2`
        let mut i = skip_spaces(text, end, 2);
        let mut key_unit = unit_from_name(key);
        if text.get(i) == Some(&b'(') {
            let close = (i..(i + 8).min(text.len())).find(|j| text.get(*j) == Some(&b')'));
            if let Some(close) = close {
                let inside =
                    std::str::from_utf8(text.get(i + 1..close).unwrap_or_default()).unwrap_or("");
                if let Some(m) = unit_multiplier(inside.trim(), GbMeaning::Binary) {
                    key_unit = UnitHint::Multiplier(m);
                }
                i = close + 1;
            }
        }
        let value_at = skip_separators(text, i);
        // a real key/value pair has `:` or `=` between them
        let separated = text
            .get(i..value_at)
            .is_some_and(|s| s.contains(&b':') || s.contains(&b'='));
        if !separated {
            continue;
        }
        let Some((value, _, after)) = read_number(text, value_at) else {
            continue;
        };
        let unit_at = skip_spaces(text, after, 1);
        let mut unit_end = unit_at;
        while unit_end - unit_at < 5 && text.get(unit_end).is_some_and(u8::is_ascii_alphabetic) {
            unit_end += 1;
        }
        let printed_unit =
            std::str::from_utf8(text.get(unit_at..unit_end).unwrap_or_default()).unwrap_or("");
        let hint =
            unit_multiplier(printed_unit, GbMeaning::Binary).map_or(key_unit, UnitHint::Multiplier);
        return Some(to_bytes(value, hint));
    }
    None
}

/// A tqdm/Lightning bar: `Epoch 2:  12%|█  | 120/1000 [...]` is step
/// 2 × 1000 + 120 (the bar restarts every epoch).
fn progress_bar_step(lower: &str) -> Option<f64> {
    let bar = lower.find("%|")?;
    let after_bar = lower.get(bar + 2..)?;
    let close = after_bar.find('|')?;
    let counter = after_bar.get(close + 1..)?.trim_start();
    let text = counter.as_bytes();
    let (done, _, slash) = read_number(text, 0)?;
    if text.get(slash) != Some(&b'/') {
        return None;
    }
    let (per_epoch, _, _) = read_number(text, slash + 1)?;
    let epoch = keyed_number(lower.get(..bar)?.as_bytes(), "epoch").unwrap_or(0.0);
    Some(epoch * per_epoch + done)
}
