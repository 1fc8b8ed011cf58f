//! The importer worker (`importer/` of the site, started by
//! `src/importer.rs`, loaded by `src/importer/worker.js`): the config.json
//! importer, the GPU inventory reader and the Hub count, answered as
//! strings, outside the calculator's first load.

#[allow(dead_code)] // the page's readers of the answers
#[path = "../importer/protocol.rs"]
mod protocol;

use wasm_bindgen::prelude::wasm_bindgen;

/// The answer to a question of `kind` about `text` (see `protocol::answer`).
#[wasm_bindgen]
pub fn answer(kind: &str, text: &str) -> String {
    protocol::answer(kind, text)
}

fn main() {}
