//! The doctor, the log reader and the runtime-log reconciler on random input: whatever is pasted, they
//! return (an error or a report), never panic, and keep their own bounds.
//! Inputs are random bytes and random sequences of the words both readers
//! look for, so the scanners are driven deep into their branches (the same
//! inputs cargo-fuzz's targets get, in every `cargo test`).

use proptest::prelude::*;
use vramfit_core::doctor::{parse_oom, picture, BEFORE_WINDOW, MESSAGE_WINDOW};
use vramfit_core::logs::{analyze_log, parse_log_with, GpuPick};

/// Pieces of real messages and logs, recombined at random.
const WORDS: [&str; 62] = [
    "CUDA out of memory. ",
    "Tried to allocate ",
    "2.50 GiB",
    " (GPU 0; ",
    "total capacity",
    " of which ",
    " is free. ",
    "Process 12 has ",
    "memory in use",
    "reserved by PyTorch",
    "MPS backend out of memory (MPS allocated: ",
    "max allowed: ",
    "RESOURCE_EXHAUSTED: ",
    "Out of memory while trying to allocate ",
    "6291456 bytes",
    "shape[16,112,",
    "] and type float",
    "OOM when allocating tensor with ",
    "max seq len (",
    ") is larger than ",
    "stored in KV cache (",
    "cudaMalloc failed: out of memory",
    "buffer of size ",
    "is killed by signal: Killed",
    "Out of memory: Killed process ",
    "anon-rss:",
    "kB",
    "step: ",
    "Step ",
    " | mem ",
    "MA ",
    " GB ",
    "memory(GiB)': ",
    "[2400/7517]",
    "第 ",
    " 步 显存占用 ",
    ",",
    "\n",
    "\r",
    "%)",
    "Available KV cache memory: ",
    "GPU KV cache size: ",
    " tokens",
    "Maximum concurrency for ",
    " tokens per request: ",
    "x",
    "weights memory: ",
    "Requested memory: ",
    " (util), ",
    "tensor_parallel_size=",
    "model='",
    "llama_kv_cache_init:      CUDA0 KV buffer size = ",
    "load_tensors: RPC[1.2.3.4:5] model buffer size = ",
    "CUDA_Host compute buffer size = ",
    " MiB",
    "offloaded ",
    "common_memory_breakdown_print: |   - CUDA0 (RTX 4090) | ",
    "|   - Host | ",
    " = ",
    " + (",
    ") + ",
    " -",
];

fn pieces() -> impl Strategy<Value = String> {
    prop::collection::vec((0..WORDS.len(), 0u32..100_000), 0..60).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(word, number)| format!("{}{number}", WORDS.get(word).copied().unwrap_or("")))
            .collect()
    })
}

fn check(text: &str, first: u8) {
    if let Ok(report) = parse_oom(text) {
        let _ = picture(&report);
        assert!(report.excerpt.len() <= BEFORE_WINDOW + MESSAGE_WINDOW + 4);
        assert!(report.diagnoses.iter().all(|d| !d.message_zh.is_empty()));
    }
    let pick = if first % 2 == 1 {
        GpuPick::One(u32::from(first / 2))
    } else {
        GpuPick::Max
    };
    // A runtime log, read and compared with a catalog model: never a panic,
    // and every figure it keeps is a finite, non-negative number.
    if let Some(log) = vramfit_core::reconcile::read_runtime_log(text) {
        assert!(log
            .readings
            .iter()
            .all(|r| r.value.is_finite() && r.value >= 0.0));
        let spec = vramfit_core::catalog::find_model("meta-llama/Llama-3.1-8B")
            .expect("catalog")
            .spec
            .clone();
        let _ = vramfit_core::reconcile::reconcile(&log, Some(&spec));
    }
    let parsed = parse_log_with(text, pick);
    assert!(parsed.lines <= text.len());
    let _ = analyze_log(&parsed, Some(u64::from(first) << 30));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check(&String::from_utf8_lossy(&bytes), bytes.first().copied().unwrap_or(0));
    }

    #[test]
    fn random_message_and_log_words(text in pieces(), first in any::<u8>()) {
        check(&text, first);
    }
}
