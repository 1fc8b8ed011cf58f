//! Numbers of an error message by what the words beside them call them.
//!
//! Every number in the message is read once, with its unit if it has one;
//! then the nearest label around it (`tried to allocate 2.50 GiB`,
//! `23.69 GiB total capacity`, `MPS allocated: 9.57 GB`, `(4096) is larger`)
//! gives it a role. A label is a phrase from [`CUES`] with `#` standing for
//! a run of digits. The same table reads PyTorch, MPS, XLA, TensorFlow,
//! vLLM, llama.cpp, NCCL and the kernel's OOM killer: a new stack that says
//! "allocating" or "free" needs no new code.
//!
//! Work is linear in the message: each number looks at most [`REACH`]
//! characters each side against a fixed table.

use super::size::{read_number, to_size, unit_multiplier, GbMeaning, ParsedSize};

/// What a number in an error message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The allocation that failed.
    Requested,
    /// The device's capacity or the allocator's limit.
    Total,
    Free,
    /// Held by live tensors / buffers of the framework.
    Allocated,
    /// Held by the framework's cache (allocated + cached).
    Reserved,
    ReservedUnallocated,
    /// This process in total.
    ProcessInUse,
    /// Another process on the same device (summed).
    OtherProcess,
    /// Used on the device outside the framework's allocator.
    NonFramework,
    /// What the failing program needs in all (XLA's buffer assignment).
    Needed,
    /// Tokens one request needs (vLLM's max model length).
    TokensNeeded,
    /// Tokens the KV cache can hold.
    TokensAvailable,
    /// A number with a known meaning that the report does not keep.
    Ignore,
}

/// Where the label stands relative to its number.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    After,
}

/// What kind of number a label names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// A number with a unit (`2.50 GiB`, `6291456 bytes`).
    Size,
    /// A bare integer that is a byte count (`buffer of size 10345253120`).
    Bytes,
    /// A bare integer that is not bytes (tokens).
    Count,
}

struct Cue {
    text: &'static str,
    side: Side,
    role: Role,
    reads: Reads,
}

const fn before(text: &'static str, role: Role) -> Cue {
    Cue {
        text,
        side: Side::Before,
        role,
        reads: Reads::Size,
    }
}

const fn after(text: &'static str, role: Role) -> Cue {
    Cue {
        text,
        side: Side::After,
        role,
        reads: Reads::Size,
    }
}

const fn bare(text: &'static str, role: Role, reads: Reads) -> Cue {
    Cue {
        reads,
        ..before(text, role)
    }
}

use Role as R;

/// The labels, lowercase, as the stacks print them (see `stacks.rs` for the
/// sources). Longer, more specific phrases win over shorter ones at the same
/// distance.
const CUES: &[Cue] = &[
    before("tried to allocate", R::Requested),
    before("trying to allocate", R::Requested),
    before("allocating", R::Requested),
    before("failed to allocate", R::Requested),
    before("unable to allocate", R::Requested),
    before("attempting to reserve", R::Requested),
    before("attempting to allocate", R::Requested),
    // PaddlePaddle: `Cannot allocate 2.000000GB memory on GPU 0, 22.500000GB
    // memory has been allocated and available memory is only 1.200000GB.`
    before("cannot allocate", R::Requested),
    after("memory has been allocated", R::Allocated),
    before("available memory is only", R::Free),
    // PyTorch under a memory fraction (`set_per_process_memory_fraction`):
    // `Currently allocated : 22.85 GiB`, `Requested : 1.00 GiB`, `Device
    // limit : 23.64 GiB`, `Free (according to CUDA): 19.88 MiB`
    before("requested :", R::Requested),
    before("device limit :", R::Total),
    before("currently allocated :", R::Allocated),
    before("(according to cuda):", R::Free),
    before("memory fraction) :", R::Ignore),
    // MLX: the largest single Metal buffer, not the memory there is
    before("maximum allowed buffer size of", R::Ignore),
    before("cuda calloc", R::Requested),
    after("kv cache is needed", R::Requested),
    bare("buffer of size", R::Requested, Reads::Bytes),
    // ggml-vulkan: `Device memory allocation of size 4294967296 failed`
    bare("allocation of size", R::Requested, Reads::Bytes),
    before("total capacity of", R::Total),
    before("total capacty of", R::Total),
    after("total capacity", R::Total),
    before("max allowed:", R::Total),
    before("hbm capacity", R::Total),
    after("hbm", R::Total),
    bare("limit:", R::Total, Reads::Bytes),
    before("of which", R::Free),
    after("is free", R::Free),
    after("free", R::Free),
    before("available kv cache memory (", R::Free),
    // vLLM V1: `Free memory on device cuda:0 (19.77/22.05 GiB) on startup is
    // less than desired GPU memory utilization (0.9, 19.84 GiB)`
    before("free memory on device", R::Free),
    before("memory utilization (", R::Requested),
    // Ollama: `model requires more system memory (47.3 GiB) than is available (31.2 GiB)`
    before("system memory (", R::Needed),
    before("than is available (", R::Free),
    before("mps allocated:", R::Allocated),
    after("already allocated", R::Allocated),
    after("allocated by pytorch", R::Allocated),
    before("currently allocated:", R::Allocated),
    bare("inuse:", R::Allocated, Reads::Bytes),
    after("reserved in total by pytorch", R::Reserved),
    // PyTorch < 1.4 printed reserved − allocated as "cached": `10.90 GiB
    // already allocated; 576.00 KiB free; 30.96 MiB cached)`
    after("cached)", R::ReservedUnallocated),
    after(
        "reserved by pytorch but unallocated",
        R::ReservedUnallocated,
    ),
    before("this process has", R::ProcessInUse),
    before("anon-rss:", R::ProcessInUse),
    before("process # has", R::OtherProcess),
    before("other allocations:", R::NonFramework),
    before("total allocation:", R::Needed),
    before("hbm. used", R::Needed),
    before("total hbm usage >=", R::Needed),
    before("program requirement:", R::Needed),
    bare("max seq len (", R::TokensNeeded, Reads::Count),
    bare("stored in kv cache (", R::TokensAvailable, Reads::Count),
    bare("maximum model length is", R::TokensAvailable, Reads::Count),
    after("allocated in private pools", R::Ignore),
    before("capacity by", R::Ignore),
    before("total-vm:", R::Ignore),
    before("file-rss:", R::Ignore),
    before("shmem-rss:", R::Ignore),
    before("pgtables:", R::Ignore),
];

/// How far from its number a label may stand (characters). PyTorch's
/// farthest label, `is reserved by PyTorch but unallocated`, starts right
/// after its number; 48 leaves room for punctuation and wrapped lines.
const REACH: usize = 48;

/// A number read from the message.
#[derive(Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    /// `Some` when a unit was printed.
    size: Option<ParsedSize>,
    /// The value as printed, for bare counts.
    value: f64,
    ambiguous_unit: bool,
    /// The `Y` of `X/Y GiB`: the whole that `X` is part of.
    of_whole: bool,
}

/// Everything the labels gave, first reading of each role kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    pub requested: Option<ParsedSize>,
    pub total: Option<u64>,
    pub free: Option<u64>,
    pub allocated: Option<u64>,
    pub reserved: Option<u64>,
    pub reserved_unallocated: Option<u64>,
    pub process_in_use: Option<u64>,
    pub other_processes: Vec<u64>,
    pub non_framework: Option<u64>,
    pub needed: Option<u64>,
    pub tokens_needed: Option<u64>,
    pub tokens_available: Option<u64>,
    /// A labelled number was printed in `GB`/`MB`/`G`/`K`: read as `gb` says.
    pub ambiguous_unit: bool,
}

impl Labels {
    fn set(&mut self, role: Role, size: ParsedSize, count: f64) {
        let bytes = size.bytes;
        let first = |slot: &mut Option<u64>| {
            slot.get_or_insert(bytes);
        };
        match role {
            R::Requested => {
                self.requested.get_or_insert(size);
            }
            R::Total => first(&mut self.total),
            R::Free => first(&mut self.free),
            R::Allocated => first(&mut self.allocated),
            R::Reserved => first(&mut self.reserved),
            R::ReservedUnallocated => first(&mut self.reserved_unallocated),
            R::ProcessInUse => first(&mut self.process_in_use),
            R::OtherProcess => self.other_processes.push(bytes),
            R::NonFramework => first(&mut self.non_framework),
            R::Needed => first(&mut self.needed),
            // `as` saturates: a 40-digit count cannot wrap
            R::TokensNeeded => {
                self.tokens_needed.get_or_insert(count as u64);
            }
            R::TokensAvailable => {
                self.tokens_available.get_or_insert(count as u64);
            }
            R::Ignore => {}
        }
    }

    /// Whether any number got a role the report keeps.
    pub fn any(&self) -> bool {
        self.requested.is_some()
            || self.total.is_some()
            || self.free.is_some()
            || self.allocated.is_some()
            || self.reserved.is_some()
            || self.reserved_unallocated.is_some()
            || self.process_in_use.is_some()
            || !self.other_processes.is_empty()
            || self.non_framework.is_some()
            || self.needed.is_some()
            || self.tokens_needed.is_some()
            || self.tokens_available.is_some()
    }
}

/// Reads every labelled number of `window` (lowercase, whitespace collapsed).
pub fn read(window: &str, gb: GbMeaning) -> Labels {
    let text = window.as_bytes();
    let tokens = tokens(text, gb);
    let mut labels = Labels::default();
    // where the next sized number starts, after each token (one pass from the end)
    let mut next_size_starts = vec![text.len(); tokens.len()];
    let mut next = text.len();
    for (slot, token) in next_size_starts.iter_mut().zip(&tokens).rev() {
        *slot = next;
        if token.size.is_some() {
            next = token.start;
        }
    }
    let mut last_size_end = 0;
    for (token, next_size_start) in tokens.iter().zip(next_size_starts) {
        let before_text = text
            .get(last_size_end.max(token.start.saturating_sub(REACH))..token.start)
            .unwrap_or_default();
        let after_text = text
            .get(token.end..next_size_start.min(token.end + REACH))
            .unwrap_or_default();
        if let (true, Some(size)) = (token.of_whole, token.size) {
            labels.set(R::Total, size, token.value);
        } else if let Some(cue) = nearest_cue(before_text, after_text, token.size.is_some()) {
            let size = match (token.size, cue.reads) {
                (Some(size), Reads::Size) => Some(size),
                (None, Reads::Bytes | Reads::Count) => Some(to_size(token.value, 0, 1.0)),
                _ => None,
            };
            if let Some(size) = size {
                labels.set(cue.role, size, token.value);
                labels.ambiguous_unit |= token.ambiguous_unit && cue.role != R::Ignore;
            }
        }
        if token.size.is_some() {
            last_size_end = token.end;
        }
    }
    labels
}

/// The label closest to the number: the end of a `Before` label in the text
/// before it, or the start of an `After` label in the text after it. Ties go
/// to the longer label, then to the one before.
fn nearest_cue(before_text: &[u8], after_text: &[u8], sized: bool) -> Option<&'static Cue> {
    CUES.iter()
        .filter(|cue| (cue.reads == Reads::Size) == sized)
        .filter_map(|cue| {
            let distance = match cue.side {
                Side::Before => {
                    let end = rfind_pattern(before_text, cue.text.as_bytes())?;
                    before_text.len() - end
                }
                Side::After => find_pattern(after_text, cue.text.as_bytes())?,
            };
            Some((distance, cue))
        })
        .min_by_key(|(distance, cue)| {
            (
                *distance,
                usize::MAX - cue.text.len(),
                cue.side == Side::After,
            )
        })
        .map(|(_, cue)| cue)
}

/// Length of `pattern` matched at `at` (`#` = one or more digits), if it matches.
fn match_at(text: &[u8], at: usize, pattern: &[u8]) -> Option<usize> {
    let mut i = at;
    for &p in pattern {
        if p == b'#' {
            let digits_start = i;
            while text.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == digits_start {
                return None;
            }
        } else if text.get(i) == Some(&p) {
            i += 1;
        } else {
            return None;
        }
    }
    Some(i - at)
}

/// End of the last match of `pattern` in `text`.
fn rfind_pattern(text: &[u8], pattern: &[u8]) -> Option<usize> {
    (0..text.len())
        .rev()
        .find_map(|at| match_at(text, at, pattern).map(|len| at + len))
}

/// Start of the first match of `pattern` in `text`.
fn find_pattern(text: &[u8], pattern: &[u8]) -> Option<usize> {
    (0..text.len()).find(|at| match_at(text, *at, pattern).is_some())
}

/// Every number of the message, in order. A number glued to a letter or an
/// underscore before it (`cuda0`, `gpu_0_bfc`, `0x7f`) is part of a name, not
/// a quantity. `17.79G (19104890880 bytes)` and `5.79GiB (rounded to
/// 6222643200)` are one size: the exact byte count replaces the rounded one.
fn tokens(text: &[u8], gb: GbMeaning) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts_number = text.get(i).is_some_and(u8::is_ascii_digit)
            && !(i > 0
                && text
                    .get(i - 1)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.')));
        if !starts_number {
            i += 1;
            continue;
        }
        let Some((value, decimals, after_number)) = read_number(text, i) else {
            i += 1;
            continue;
        };
        let (mut size, mut end, mut ambiguous) =
            unit_after(text, after_number, value, decimals, gb);
        // `19.77/22.05 GiB`: the part takes the whole's unit
        if size.is_none() && text.get(after_number) == Some(&b'/') {
            if let Some((_, _, whole_end)) = read_number(text, after_number + 1) {
                (size, _, ambiguous) = unit_after(text, whole_end, value, decimals, gb);
                end = after_number;
            }
        }
        let of_whole = i > 0
            && text.get(i - 1) == Some(&b'/')
            && tokens
                .last()
                .is_some_and(|t| t.end + 1 == i && t.size.is_some());
        let token = Token {
            start: i,
            end,
            size,
            value,
            ambiguous_unit: ambiguous,
            of_whole,
        };
        i = end.max(i + 1);
        if let Some((exact, exact_end)) = token.size.and_then(|_| exact_after(text, end)) {
            tokens.push(Token {
                size: Some(ParsedSize {
                    bytes: exact,
                    rounding_bytes: 0,
                }),
                end: exact_end,
                ambiguous_unit: false,
                ..token
            });
            i = exact_end;
            continue;
        }
        tokens.push(token);
    }
    tokens
}

/// The unit after a number: (size if a byte unit, end of the token, whether
/// the unit was a bare `GB`/`MB`/`G`/`K` whose base the stack decides).
fn unit_after(
    text: &[u8],
    after_number: usize,
    value: f64,
    decimals: u32,
    gb: GbMeaning,
) -> (Option<ParsedSize>, usize, bool) {
    let mut unit_start = after_number;
    if text.get(unit_start) == Some(&b' ') {
        unit_start += 1;
    }
    let mut unit_end = unit_start;
    while unit_end - unit_start < 6 && text.get(unit_end).is_some_and(u8::is_ascii_alphabetic) {
        unit_end += 1;
    }
    // a unit is a whole word: `2 gpus` is not `2 g`
    let whole_word = !text.get(unit_end).is_some_and(u8::is_ascii_alphanumeric);
    let unit =
        std::str::from_utf8(text.get(unit_start..unit_end).unwrap_or_default()).unwrap_or("");
    match unit_multiplier(unit, gb).filter(|_| whole_word && !unit.is_empty()) {
        Some(multiplier) => {
            let ambiguous = !unit.contains('i') && !unit.starts_with('b');
            (
                Some(to_size(value, decimals, multiplier)),
                unit_end,
                ambiguous,
            )
        }
        None => (None, after_number, false),
    }
}

/// ` (19104890880 bytes)` or ` (rounded to 6222643200)` right after a size:
/// the exact byte count and the end of the parenthesis.
fn exact_after(text: &[u8], end: usize) -> Option<(u64, usize)> {
    let mut i = end;
    if text.get(i) == Some(&b' ') {
        i += 1;
    }
    if text.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    if let Some(len) = match_at(text, i, b"rounded to ") {
        i += len;
    }
    let (value, decimals, after) = read_number(text, i)?;
    let rest = text.get(after..)?;
    let close = if rest.starts_with(b" bytes)") {
        after + " bytes)".len()
    } else if rest.starts_with(b")") {
        after + 1
    } else {
        return None;
    };
    (decimals == 0).then_some((to_size(value, 0, 1.0).bytes, close))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_in_a_label_and_exact_bytes() {
        let labels = read(
            "process 3913 has 79.14 gib memory in use. failed to allocate 17.79g (19104890880 bytes)",
            GbMeaning::Binary,
        );
        // 79.14 GiB = round(79.14 · 2^30)
        assert_eq!(labels.other_processes, vec![84_975_927_951]);
        // the exact count in parentheses replaces the rounded 17.79G
        assert_eq!(
            labels.requested,
            Some(ParsedSize {
                bytes: 19_104_890_880,
                rounding_bytes: 0
            })
        );
        assert!(!labels.ambiguous_unit);
    }

    #[test]
    fn counts_take_only_count_labels() {
        let labels = read(
            "the model's max seq len (4096) is larger than the maximum number of tokens that can be stored in kv cache (1216).",
            GbMeaning::Binary,
        );
        assert_eq!(labels.tokens_needed, Some(4096));
        assert_eq!(labels.tokens_available, Some(1216));
        assert_eq!(labels.requested, None);
    }
}
