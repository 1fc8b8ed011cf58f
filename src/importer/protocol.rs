//! What the importer worker is asked and what it answers: plain strings, so
//! that the page carries none of the importers' code, only the readers of
//! their answers (a model comes back as JSON, read by the serde code the
//! model catalog needs anyway). Compiled into the page (`src/importer.rs`)
//! and into the worker (`src/bin/vramfit-importer.rs`).

use serde::{Deserialize, Serialize};
use vramfit_core::inventory::{Card, Inventory, MachineGpus};
use vramfit_core::model::ModelSpec;
use vramfit_core::plan::{fix_plans, Plan, PlanChange, PlanCost, PlanOptions, PlanReport};
use vramfit_core::url::{decode, encode};

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
            .and_then(|report| {
                serde_json::to_string(&WireReport::of(report)).map_err(|e| e.to_string())
            }),
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
    serde_json::from_str::<WireReport>(result)
        .ok()
        .map(WireReport::report)
}

/// A plan report on the wire: each plan's changed scenario travels as its
/// share-link query, which the page decodes anyway, so the page carries no
/// JSON reader of a whole scenario (about 9 KB of the first load). The
/// worker's scenario came from a link, and a plan changes only fields the
/// link carries, so the round trip is exact.
#[derive(Serialize, Deserialize)]
struct WireReport {
    capacity_bytes: u64,
    device_used_bytes: u64,
    peak_allocated_bytes: u64,
    fits: bool,
    headroom_bytes: i64,
    pool_verdict: bool,
    plans: Vec<WirePlan>,
    evaluated: usize,
}

#[derive(Serialize, Deserialize)]
struct WirePlan {
    changes: Vec<PlanChange>,
    cost: PlanCost,
    peak_allocated_bytes: u64,
    device_used_bytes: u64,
    capacity_bytes: u64,
    headroom_bytes: i64,
    link: String,
}

impl WireReport {
    fn of(r: PlanReport) -> Self {
        WireReport {
            capacity_bytes: r.capacity_bytes,
            device_used_bytes: r.device_used_bytes,
            peak_allocated_bytes: r.peak_allocated_bytes,
            fits: r.fits,
            headroom_bytes: r.headroom_bytes,
            pool_verdict: r.pool_verdict,
            plans: r
                .plans
                .into_iter()
                .map(|p| WirePlan {
                    link: encode(&p.scenario),
                    changes: p.changes,
                    cost: p.cost,
                    peak_allocated_bytes: p.peak_allocated_bytes,
                    device_used_bytes: p.device_used_bytes,
                    capacity_bytes: p.capacity_bytes,
                    headroom_bytes: p.headroom_bytes,
                })
                .collect(),
            evaluated: r.evaluated,
        }
    }

    fn report(self) -> PlanReport {
        PlanReport {
            capacity_bytes: self.capacity_bytes,
            device_used_bytes: self.device_used_bytes,
            peak_allocated_bytes: self.peak_allocated_bytes,
            fits: self.fits,
            headroom_bytes: self.headroom_bytes,
            pool_verdict: self.pool_verdict,
            plans: self
                .plans
                .into_iter()
                .map(|p| Plan {
                    scenario: decode(&p.link).scenario,
                    changes: p.changes,
                    cost: p.cost,
                    peak_allocated_bytes: p.peak_allocated_bytes,
                    device_used_bytes: p.device_used_bytes,
                    capacity_bytes: p.capacity_bytes,
                    headroom_bytes: p.headroom_bytes,
                })
                .collect(),
            evaluated: self.evaluated,
        }
    }
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
