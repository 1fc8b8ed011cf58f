//! Any bytes as a scenario file (what `vramfit estimate --scenario` reads):
//! parsing either fails with a message or yields a scenario whose estimate is
//! an answer or an error naming a field, never a panic or an overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_core::scenario::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(sc) = serde_json::from_str::<Scenario>(text) {
        match vramfit_core::estimate(&sc) {
            Ok(e) => {
                let g = e.headline_gpu();
                assert!(g.peak_allocated_bytes <= g.peak_reserved_bytes);
                assert!(g.peak_reserved_bytes <= g.device_used_bytes);
            }
            Err(err) => assert!(!err.field.is_empty()),
        }
    }
});
