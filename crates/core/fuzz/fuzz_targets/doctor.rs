//! Any bytes pasted into the doctor: it must return, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_core::doctor::{parse_oom, picture};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(report) = parse_oom(&text) {
        let _ = picture(&report);
    }
});
