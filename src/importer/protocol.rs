//! What the importer worker is asked and what it answers: plain strings, so
//! that the page carries none of the importers' code, only the readers of
//! their answers (a model comes back as JSON, read by the serde code the
//! model catalog needs anyway). Compiled into the page (`src/importer.rs`)
//! and into the worker (`src/bin/vramfit-importer.rs`).

use vramfit_core::inventory::{Card, Inventory, MachineGpus};
use vramfit_core::model::ModelSpec;
use vramfit_core::plan::{fix_plans, PlanOptions, PlanReport};
use vramfit_core::url::decode;

/// A Hugging Face `config.json`: answers the model it describes.
pub const CONFIG: &str = "config";
/// The output of `vramfit gpus --json`: answers the machine's card and count.
pub const GPUS: &str = "gpus";
/// The Hub's model API answer: answers its parameter count.
pub const HUB_COUNT: &str = "hub-count";
/// A scenario (its share-link query, which the page encodes anyway) that
/// may not fit: answers the fix-it plans' report
/// (`vramfit_core::plan::fix_plans`, the search over its changes).
pub const PLANS: &str = "plans";

/// The answer to a question of `kind` about `text`: `+` and the result, or
/// `-` and what is wrong with the text.
pub fn answer(kind: &str, text: &str) -> String {
    let result = match kind {
        CONFIG => vramfit_core::hf_config::from_hf_config(text)
            .map_err(|e| e.to_string())
            .and_then(|spec| serde_json::to_string(&spec).map_err(|e| e.to_string())),
        GPUS => Inventory::parse(text)
            .and_then(|inventory| inventory.machine_gpus())
            .map(|machine| write_machine(&machine))
            .map_err(|e| e.to_string()),
        HUB_COUNT => vramfit_core::hub::safetensors_total(text)
            .map(|n| n.to_string())
            .ok_or_else(String::new),
        PLANS => fix_plans(&decode(text).scenario, &PlanOptions::default())
            .map_err(|e| e.to_string())
            .and_then(|report| serde_json::to_string(&report).map_err(|e| e.to_string())),
        _ => Err(format!("no importer for {kind:?}")),
    };
    match result {
        Ok(result) => format!("+{result}"),
        Err(error) => format!("-{error}"),
    }
}

/// The result of an answer, or its message.
pub fn result(answer: &str) -> Result<&str, String> {
    match answer.split_at_checked(1) {
        Some(("+", result)) => Ok(result),
        Some(("-", error)) => Err(error.to_owned()),
        _ => Err(answer.to_owned()),
    }
}

/// The model of a `config` answer's result (`None` only if the page and
/// the worker were built from different sources).
pub fn read_model(result: &str) -> Option<ModelSpec> {
    serde_json::from_str(result).ok()
}

/// The report of a `plans` answer's result.
pub fn read_plans(result: &str) -> Option<PlanReport> {
    serde_json::from_str(result).ok()
}

/// A machine as one line: count, card (`c` and the catalog id, or `m` and
/// the bytes of memory), then the name the devices give (last: any text).
fn write_machine(machine: &MachineGpus) -> String {
    let card = match &machine.card {
        Card::Catalog(id) => format!("c{id}"),
        Card::Capacity(bytes) => format!("m{bytes}"),
    };
    format!("{}\t{card}\t{}", machine.count, machine.name)
}

/// The machine of a `gpus` answer's result.
pub fn read_machine(result: &str) -> Option<MachineGpus> {
    let mut parts = result.splitn(3, '\t');
    let count = parts.next()?.parse().ok()?;
    let card = match parts.next()?.split_at_checked(1)? {
        ("c", id) => Card::Catalog(id.to_owned()),
        ("m", bytes) => Card::Capacity(bytes.parse().ok()?),
        _ => return None,
    };
    let name = parts.next()?.to_owned();
    Some(MachineGpus { card, count, name })
}
