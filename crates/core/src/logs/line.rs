//! One line of free text: its step counter and its memory readings.
//!
//! A point is any line with a step counter and one or more numbers that are
//! memory: a number with a byte unit (`30.22 GiB`, `18.2GB`), or a bare
//! number whose label names memory (`peak_memory_active:20.1`,
//! `memory: 3872`). Each reading's label (`mem`, `MA`, `max allocated`,
//! `显存占用`) names its series. The step is a keyed counter (`step: 10`,
//! `[step 10]`, `iter 10`, `global_step=10`, `第 10 步`), a progress
//! fraction (`120/1000 [`, `[2400/7517]`), within an epoch when one is
//! printed, or Megatron's `(after 10 iterations)`.
//!
//! Each line is read once; every scan looks a bounded distance around its
//! number, so a line costs time linear in its length.

use super::units::{LineUnits, UnitReading};
use crate::doctor::size::{read_number, unit_multiplier, GbMeaning};

/// Where a line stands on the x axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    At(f64),
    /// A progress bar that restarts every epoch: `done` of `per_epoch` in `epoch`.
    InEpoch {
        epoch: f64,
        done: f64,
        per_epoch: f64,
    },
}

/// One memory number of a line.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub label: String,
    pub bytes: u64,
    pub units: UnitReading,
    /// Host RAM (`CPU Virtual Memory: used = ...`, `rss`), not the GPU.
    pub host: bool,
    pub kind: Kind,
    /// The card's capacity implied by a share printed beside the reading:
    /// `memory: 38.11GiB(48.20%)`.
    pub capacity: Option<u64>,
}

/// Whether a number is memory in use or the size of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Use,
    /// A total (`total_memory_available (GB)`): the capacity.
    Capacity,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineRead {
    pub step: Option<Step>,
    pub readings: Vec<Reading>,
}

/// Keys of a step counter, most specific first.
const STEP_KEYS: [&str; 6] = ["global_step", "step", "iteration", "iter", "it", "steps"];
/// Longest run of separators between a key and its value (`iteration      122/`).
const MAX_SEPARATORS: usize = 16;
/// Longest label kept (characters), and most words.
const MAX_LABEL_CHARS: usize = 64;
const MAX_LABEL_WORDS: usize = 3;
/// Label words that make a bare number (or a one-letter unit) a memory reading.
const MEMORY_WORDS: [&str; 8] = [
    "mem", "alloc", "reserv", "vram", "显存", "内存", "cached", "used",
];
/// Label words of sizes that are not memory in use over time (free and
/// available memory are the complement, disks are not memory).
const NOT_MEMORY_WORDS: [&str; 14] = [
    "param",
    "token",
    "flop",
    "size",
    "speed",
    "throughput",
    "disk",
    "hd_",
    "download",
    "bandwidth",
    "tps",
    "free",
    "avail",
    "percent",
];
/// Characters at the start of a line that may name the topic of its bare
/// numbers: `Memory info of GPU /physical_device:GPU:0: current: 0.18, peak: 2.55`.
const TOPIC_CHARS: usize = 24;
/// Words that make a reading host RAM.
const HOST_WORDS: [&str; 5] = ["cpu", "ram", "rss", "host", "swap"];

/// Reads one line.
pub fn read_line(line: &str) -> LineRead {
    let lower = line.to_ascii_lowercase();
    let units = LineUnits::of(&lower);
    LineRead {
        step: step(&lower),
        readings: readings(&lower, &units),
    }
}

fn step(lower: &str) -> Option<Step> {
    let text = lower.as_bytes();
    if let Some(value) = STEP_KEYS.iter().find_map(|key| keyed_number(text, key)) {
        return Some(Step::At(value));
    }
    if let Some((done, per_epoch)) = progress_fraction(text) {
        return Some(match keyed_number(text, "epoch") {
            Some(epoch) => Step::InEpoch {
                epoch,
                done,
                per_epoch,
            },
            None => Step::At(done),
        });
    }
    chinese_step(lower)
        .or_else(|| after_iterations(lower))
        .map(Step::At)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `key` as a whole word (`global_step` may go on: `global_step/max_steps`)
/// followed by separators and a number; of `a/b`, the `a`.
fn keyed_number(text: &[u8], key: &str) -> Option<f64> {
    let key = key.as_bytes();
    let mut from = 0;
    while let Some(offset) = find(text.get(from..)?, key) {
        let at = from + offset;
        from = at + 1;
        let mut end = at + key.len();
        if at > 0 && text.get(at - 1).is_some_and(|c| is_word(*c)) {
            continue;
        }
        if key == b"global_step" {
            while text.get(end).is_some_and(|c| is_word(*c) || *c == b'/') {
                end += 1;
            }
        } else if text.get(end).is_some_and(|c| is_word(*c) || *c == b'/') {
            continue;
        }
        let mut i = end;
        while i - end < MAX_SEPARATORS
            && text.get(i).is_some_and(|c| {
                matches!(c, b' ' | b':' | b'=' | b'\'' | b'"' | b'[' | b'#' | b'\t')
            })
        {
            i += 1;
        }
        let Some((value, _, after)) = read_number(text, i) else {
            continue;
        };
        // `steps: 0%` is a progress percentage, not a step
        if text.get(after) == Some(&b'%') {
            continue;
        }
        return Some(value);
    }
    None
}

/// A progress fraction `done/total` standing between brackets or bars:
/// `| 120/1000 [` (tqdm), `[2400/7517]` (MMEngine), `10/5000 [`. A bare
/// `a/b` elsewhere (dates, ratios, `0/1248,`) is not one.
fn progress_fraction(text: &[u8]) -> Option<(f64, f64)> {
    let mut i = 0;
    while i < text.len() {
        let start = i;
        let starts = text.get(i).is_some_and(u8::is_ascii_digit)
            && !(i > 0
                && text
                    .get(i - 1)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'/')));
        if !starts {
            i += 1;
            continue;
        }
        let Some((done, decimals, slash)) = read_number(text, i) else {
            i += 1;
            continue;
        };
        i = slash.max(i + 1);
        if decimals > 0 || text.get(slash) != Some(&b'/') {
            continue;
        }
        let total_at = skip(text, slash + 1, b' ', 4, true);
        let Some((total, _, end)) = read_number(text, total_at) else {
            continue;
        };
        let before = skip(text, start, b' ', 2, false);
        let opened = before > 0 && matches!(text.get(before - 1), Some(b'[') | Some(b'|'));
        let closed = matches!(
            text.get(skip(text, end, b' ', 2, true)),
            Some(b'[') | Some(b']')
        );
        if (opened || closed) && done <= total && text.get(end) != Some(&b'/') {
            return Some((done, total));
        }
    }
    None
}

/// From `at`, skips at most `max` bytes equal to `byte`, forward or back.
fn skip(text: &[u8], at: usize, byte: u8, max: usize, forward: bool) -> usize {
    let mut i = at;
    for _ in 0..max {
        if forward && text.get(i) == Some(&byte) {
            i += 1;
        } else if !forward && i > 0 && text.get(i - 1) == Some(&byte) {
            i -= 1;
        } else {
            break;
        }
    }
    i
}

/// `第 10 步` / `第10步`.
fn chinese_step(lower: &str) -> Option<f64> {
    let at = lower.find('第')? + '第'.len_utf8();
    let rest = lower.get(at..)?.trim_start();
    let (value, _, end) = read_number(rest.as_bytes(), 0)?;
    rest.get(end..)?
        .trim_start()
        .starts_with('步')
        .then_some(value)
}

/// Megatron's `(after 10 iterations)`.
fn after_iterations(lower: &str) -> Option<f64> {
    let at = lower.find("(after ")? + "(after ".len();
    let (value, _, end) = read_number(lower.as_bytes(), at)?;
    lower.get(end..)?.starts_with(" iteration").then_some(value)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Every memory reading of the line, in order.
fn readings(lower: &str, units: &LineUnits) -> Vec<Reading> {
    let text = lower.as_bytes();
    let mut found: Vec<Reading> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts = text.get(i).is_some_and(u8::is_ascii_digit)
            && !(i > 0
                && text
                    .get(i - 1)
                    .is_some_and(|c| is_word(*c) || matches!(c, b'.' | b'/' | b'-')));
        if !starts {
            i += 1;
            continue;
        }
        let number_start = i;
        let Some((value, decimals, after_number)) = read_number(text, i) else {
            i += 1;
            continue;
        };
        let (unit, after_unit) = unit_word(text, after_number);
        i = after_unit.max(i + 1);
        // a bare number that names something: `cuda:0 8.9GB`, `GPU:0: current`
        let names_a_device = unit.is_empty()
            && (text.get(after_number) == Some(&b':')
                || (text.get(after_number) == Some(&b' ')
                    && text.get(after_number + 1).is_some_and(u8::is_ascii_digit)));
        if names_a_device {
            continue;
        }
        let label = label_before(lower, number_start);
        let number = Number {
            value,
            decimals,
            unit,
            start: number_start,
            after_unit,
        };
        if let Some(reading) = reading(lower, units, &number, &label) {
            found.push(reading);
        }
    }
    name_duplicates(&mut found);
    found
}

/// A byte unit right after a number (`GiB`, ` GB`, `G`), with the end of
/// the token. Not a unit when it runs into letters (`2 gpus`) or is a rate
/// (`GB/s`).
fn unit_word(text: &[u8], after_number: usize) -> (&str, usize) {
    let mut start = after_number;
    if text.get(start) == Some(&b' ') {
        start += 1;
    }
    let mut end = start;
    while end - start < 6 && text.get(end).is_some_and(u8::is_ascii_alphabetic) {
        end += 1;
    }
    let word = std::str::from_utf8(text.get(start..end).unwrap_or_default()).unwrap_or("");
    let rate = text.get(end) == Some(&b'/');
    let whole = !text.get(end).is_some_and(|c| is_word(*c));
    if !word.is_empty() && whole && !rate && unit_multiplier(word, GbMeaning::Binary).is_some() {
        (word, end)
    } else {
        ("", after_number)
    }
}

/// The label before the number starting at `number_start`: the words back
/// to a field delimiter (`,` `|` `{` `[` `;` a tab, two spaces, a quote,
/// line start), at most [`MAX_LABEL_WORDS`] words.
fn label_before(lower: &str, number_start: usize) -> String {
    let before = lower.get(..number_start).unwrap_or("");
    let trimmed = before.trim_end_matches([' ', ':', '=', '\'', '"', '\t']);
    let mut label: Vec<char> = Vec::new();
    let mut previous_space = false;
    for c in trimmed.chars().rev() {
        let delimiter = matches!(
            c,
            ',' | '|'
                | '{'
                | '}'
                | '['
                | ']'
                | ';'
                | '\t'
                | '\''
                | '"'
                | '，'
                | '：'
                | '、'
                | '。'
                | '='
        ) || (c == ' ' && previous_space);
        if delimiter || label.len() >= MAX_LABEL_CHARS {
            break;
        }
        previous_space = c == ' ';
        label.push(c);
    }
    let label: String = label.into_iter().rev().collect();
    // the key is the last word; words before it join while they are words,
    // not another field (`loss:2.45 peak_memory_alloc`, `/device:gpu:0: current`)
    let mut words: Vec<&str> = Vec::new();
    for word in label.split_whitespace().rev() {
        let field = word.contains([':', '=']) || word.contains(|c: char| c.is_ascii_digit());
        if !words.is_empty() && (field || words.len() >= MAX_LABEL_WORDS) {
            break;
        }
        words.push(word);
    }
    words.reverse();
    words.join(" ").trim_matches(':').to_string()
}

/// The reading of one number, if it is memory.
/// A number as printed: value, digits after the point, unit word (empty for
/// none), where it starts and where its unit ends.
struct Number<'a> {
    value: f64,
    decimals: u32,
    unit: &'a str,
    start: usize,
    after_unit: usize,
}

fn reading(lower: &str, units: &LineUnits, number: &Number, label: &str) -> Option<Reading> {
    let Number {
        value,
        decimals,
        unit,
        start,
        after_unit,
    } = *number;
    let topic = lower.get(..floor_char(lower, TOPIC_CHARS)).unwrap_or("");
    let names_memory = MEMORY_WORDS.iter().any(|w| label.contains(w))
        || (topic.trim_start().starts_with("mem") && !label.is_empty());
    // `total_memory_available (GB): 29.85`: the card, not a reading
    let total = label
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "total");
    let not_memory = NOT_MEMORY_WORDS
        .iter()
        .filter(|w| !(total && matches!(**w, "free" | "avail")))
        .any(|w| label.contains(w));
    if not_memory {
        return None;
    }
    let one_letter = unit.len() == 1;
    let is_memory = if unit.is_empty() || one_letter {
        names_memory
    } else {
        true
    };
    // a bare number followed by `%` is a utilization, not a size
    let bare_percent = unit.is_empty() && lower.as_bytes().get(after_unit) == Some(&b'%');
    if !is_memory || bare_percent {
        return None;
    }
    let (bytes, reading_units) = units.bytes(value, decimals, unit, label);
    // the label and a few words before it (`CPU Virtual Memory:  used`)
    let context_start = ceil_char(lower, start.saturating_sub(label.len() + 32));
    let context = lower
        .get(context_start..after_unit.min(lower.len()))
        .unwrap_or("");
    let host = context
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| HOST_WORDS.contains(&w))
        || context.contains("virtual memory")
        || label.contains("内存");
    let share = share_after(lower, after_unit).and_then(|share| {
        let capacity = bytes as f64 / share;
        (capacity.is_finite() && capacity >= bytes as f64).then_some(capacity as u64)
    });
    Some(Reading {
        label: label.to_string(),
        bytes,
        units: reading_units,
        host,
        kind: if total { Kind::Capacity } else { Kind::Use },
        capacity: share,
    })
}

/// Index at least `at`, on a char boundary of `text`.
fn ceil_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Index at most `at`, on a char boundary of `text`.
fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `(48.20%)` right after a reading: the share of the card, as a fraction.
fn share_after(lower: &str, at: usize) -> Option<f64> {
    let rest = lower.get(at..)?.trim_start().strip_prefix('(')?;
    let (percent, _, end) = read_number(rest.as_bytes(), 0)?;
    (rest.get(end..)?.starts_with("%)") && percent > 0.0 && percent <= 100.0)
        .then_some(percent / 100.0)
}

/// Unlabelled readings are named by position (`#1`, `#2`); a label used twice
/// on one line gets its position too.
fn name_duplicates(found: &mut [Reading]) {
    let mut seen = std::collections::HashSet::new();
    for (index, reading) in found.iter_mut().enumerate() {
        if reading.label.is_empty() {
            reading.label = format!("#{}", index + 1);
        } else if !seen.insert(reading.label.clone()) {
            reading.label = format!("{} #{}", reading.label, index + 1);
        }
    }
}
