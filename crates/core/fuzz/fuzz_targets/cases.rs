//! Any bytes as a measured-case file (what `vramfit score` reads): every
//! line is a case or a bad line with its number, every case is scored or
//! unsupported with a reason, never a panic (the caveats are read as text).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_core::cases::{parse_cases, score_case, Status};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for case in parse_cases(text).into_iter().flatten() {
        let score = score_case(&case);
        if score.status == Status::Unsupported {
            assert!(score.reason.is_some() || score.estimate_bytes.is_some());
        }
    }
});
