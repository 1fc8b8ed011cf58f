//! Any bytes as a training log: parsing and analysis must return, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_core::logs::{analyze_log, parse_log_with, GpuPick};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // first byte picks the GPU mode and a capacity, so both paths are explored
    let pick = match data.first() {
        Some(b) if b % 2 == 1 => GpuPick::One(u32::from(b / 2)),
        _ => GpuPick::Max,
    };
    let capacity = data.get(1).map(|b| u64::from(*b) << 30);
    let parsed = parse_log_with(&text, pick);
    let _ = analyze_log(&parsed, capacity);
});
