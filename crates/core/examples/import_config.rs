//! Prints the model a Hugging Face `config.json` imports as (one JSON line:
//! the `ModelSpec` and its parameter count), or the importer's error.
//! `scripts/catalog_from_fixtures.py` builds catalog entries with it:
//!     cargo run -q -p vramfit-core --example import_config -- FILE...

fn main() -> std::process::ExitCode {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let imported = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                vramfit_core::hf_config::from_hf_config(&text).map_err(|e| e.to_string())
            });
        match imported {
            Ok(spec) => {
                let line = serde_json::json!({
                    "file": path,
                    "params": spec.param_counts().total,
                    "spec": spec,
                });
                println!("{line}");
            }
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
