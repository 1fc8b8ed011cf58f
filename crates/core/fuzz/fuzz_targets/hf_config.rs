//! Any bytes given to the config.json importer return a spec or an error,
//! never a panic; an imported spec validates and counts without overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_core::hf_config::{from_hf_config, quantization_method};
use vramfit_core::model::MAX_TOTAL_PARAMS;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = quantization_method(text);
    if let Ok(spec) = from_hf_config(text) {
        assert!(spec.validate().is_ok());
        let counts = spec.param_counts();
        assert!(counts.total <= MAX_TOTAL_PARAMS);
        assert!(counts.active_per_token <= counts.total);
    }
});
