//! What the importer worker is asked and what it answers: plain strings, so
//! that the page carries none of the importers' code, only the readers of
//! their answers (a model comes back as JSON, read by the serde code the
//! model catalog needs anyway). Compiled into the page (`src/importer.rs`)
//! and into the worker (`src/bin/vramfit-importer.rs`).

use serde::{Deserialize, Serialize};
use vramfit_core::inventory::{Card, Inventory, MachineGpus};
use vramfit_core::model::ModelSpec;
use vramfit_core::plan::techniques::{TechniqueId, Text};
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
        // As link text, which the page reads anyway: it carries no JSON
        // reader of a model.
        CONFIG => vramfit_core::hf_config::from_hf_config(text)
            .map(|spec| vramfit_core::url::encode_spec(&spec))
            .map_err(|e| e.to_string()),
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
    vramfit_core::url::decode_spec(result)
}

/// The report of a `plans` answer's result.
pub fn read_plans(result: &str) -> Option<PlanReport> {
    serde_json::from_str::<WireReport>(result).ok()?.report()
}

/// A plan report on the wire: each plan's changed scenario travels as its
/// share-link query, which the page decodes anyway, so the page carries no
/// JSON reader of a whole scenario (about 9 KB of the first load); and the
/// rest as tuples, whose readers are a fraction of named structs' (a
/// technique as its place in `TechniqueId::ALL`). The worker's scenario
/// came from a link, and a plan changes only fields the link carries, so
/// the round trip is exact.
#[derive(Serialize, Deserialize)]
struct WireReport(u64, u64, u64, bool, i64, bool, Vec<WirePlan>, usize);

/// changes, cost (slowdown, risk, GPU factor, score), peak allocated,
/// device used, capacity, headroom, the scenario's link.
#[derive(Serialize, Deserialize)]
struct WirePlan(Vec<WireChange>, [f64; 4], u64, u64, u64, i64, String);

/// id, en, zh, speed factor, speed cost, risk, risk text, sources, workload.
#[derive(Serialize, Deserialize)]
struct WireChange(
    u8,
    String,
    String,
    f64,
    (String, String),
    f64,
    (String, String),
    Vec<String>,
    bool,
);

impl WireReport {
    fn of(r: PlanReport) -> Self {
        let plans = r
            .plans
            .into_iter()
            .map(|p| {
                let c = p.cost;
                WirePlan(
                    p.changes.into_iter().map(WireChange::of).collect(),
                    [c.slowdown, c.quality_risk_pct, c.gpu_factor, c.score],
                    p.peak_allocated_bytes,
                    p.device_used_bytes,
                    p.capacity_bytes,
                    p.headroom_bytes,
                    encode(&p.scenario),
                )
            })
            .collect();
        WireReport(
            r.capacity_bytes,
            r.device_used_bytes,
            r.peak_allocated_bytes,
            r.fits,
            r.headroom_bytes,
            r.pool_verdict,
            plans,
            r.evaluated,
        )
    }

    fn report(self) -> Option<PlanReport> {
        let WireReport(capacity, device_used, peak, fits, headroom, pool, plans, evaluated) = self;
        let plans = plans
            .into_iter()
            .map(
                |WirePlan(changes, cost, peak, used, capacity, headroom, link)| {
                    Some(Plan {
                        changes: changes
                            .into_iter()
                            .map(WireChange::change)
                            .collect::<Option<_>>()?,
                        cost: PlanCost {
                            slowdown: cost[0],
                            quality_risk_pct: cost[1],
                            gpu_factor: cost[2],
                            score: cost[3],
                        },
                        peak_allocated_bytes: peak,
                        device_used_bytes: used,
                        capacity_bytes: capacity,
                        headroom_bytes: headroom,
                        scenario: decode(&link).scenario,
                    })
                },
            )
            .collect::<Option<_>>()?;
        Some(PlanReport {
            capacity_bytes: capacity,
            device_used_bytes: device_used,
            peak_allocated_bytes: peak,
            fits,
            headroom_bytes: headroom,
            pool_verdict: pool,
            plans,
            evaluated,
        })
    }
}

impl WireChange {
    fn of(c: PlanChange) -> Self {
        let id = TechniqueId::ALL
            .iter()
            .position(|&t| t == c.id)
            .unwrap_or(0) as u8;
        WireChange(
            id,
            c.en,
            c.zh,
            c.speed_factor,
            (c.speed_cost.en, c.speed_cost.zh),
            c.quality_risk_pct,
            (c.quality_risk.en, c.quality_risk.zh),
            c.sources,
            c.changes_workload,
        )
    }

    fn change(self) -> Option<PlanChange> {
        let WireChange(id, en, zh, speed_factor, speed, risk_pct, risk, sources, workload) = self;
        Some(PlanChange {
            id: *TechniqueId::ALL.get(usize::from(id))?,
            en,
            zh,
            speed_factor,
            speed_cost: Text {
                en: speed.0,
                zh: speed.1,
            },
            quality_risk_pct: risk_pct,
            quality_risk: Text {
                en: risk.0,
                zh: risk.1,
            },
            sources,
            changes_workload: workload,
        })
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
