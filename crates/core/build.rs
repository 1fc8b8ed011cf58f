//! Compiles the data catalogs in as minified JSON. For the web build
//! (wasm32) the model and GPU catalogs also drop their citation fields
//! (`source`, `notes`): the web app does not show them and every byte counts
//! against its first-load budget; the data files and the CLI keep them.

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    for (name, strip) in [
        ("models.json", wasm),
        ("gpus.json", wasm),
        ("techniques.json", false),
        ("decision_table.json", false),
    ] {
        let path = Path::new("data").join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if strip {
            if let Some(entries) = value.as_array_mut() {
                for entry in entries.iter_mut().filter_map(|e| e.as_object_mut()) {
                    entry.remove("source");
                    entry.remove("notes");
                }
            }
        }
        let minified = serde_json::to_string(&value).expect("JSON writes");
        std::fs::write(Path::new(&out).join(name), minified).expect("OUT_DIR is writable");
    }
}
