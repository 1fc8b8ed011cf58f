//! What the importer worker is asked and what it answers: plain strings, so
//! that the page carries none of the importers' code, only the readers of
//! their answers (a model as link text, plans as tokens, a machine as one
//! line: no JSON reader in the page). Compiled into the page (`src/importer.rs`)
//! and into the worker (`src/bin/vramfit-importer.rs`).

use vramfit_core::inventory::{Card, Inventory, MachineGpus};
use vramfit_core::model::ModelSpec;
use vramfit_core::plan::techniques::{TechniqueId, Text};
use vramfit_core::plan::{fix_plans, Plan, PlanChange, PlanCost, PlanOptions, PlanReport};
use vramfit_core::scenario::checkpoint::CheckpointWeights;
use vramfit_core::url::{decode, encode};

/// A Hugging Face `config.json`: answers the model it describes and, on a
/// second line, the format a quantized checkpoint stores its weights in.
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
            .map(|spec| {
                let mut model = vramfit_core::url::encode_spec(&spec);
                if let Ok(Some(q)) = vramfit_core::hf_config::checkpoint_weights(text) {
                    model.push('\n');
                    model.push_str(&q.to_line());
                } else if let Some(method) = vramfit_core::hf_config::unmodelled_quantization(text)
                {
                    // `?` and the method: a quantization with no format here
                    model.push_str("\n?");
                    model.push_str(&method);
                }
                model
            })
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
            .map(write_report),
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
/// the worker were built from different sources), its checkpoint's weight
/// format, if quantized, and the quantization method it has no format for.
pub fn read_model(result: &str) -> Option<Imported> {
    let (model, weights) = result.split_once('\n').unwrap_or((result, ""));
    let spec = vramfit_core::url::decode_spec(model)?;
    let unmodelled = weights.strip_prefix('?').map(str::to_owned);
    Some((spec, CheckpointWeights::from_line(weights), unmodelled))
}

/// A config the worker read: the model, its checkpoint's weight format,
/// and the quantization method with no format here.
pub type Imported = (ModelSpec, Option<CheckpointWeights>, Option<String>);

/// The report of a `plans` answer's result.
pub fn read_plans(result: &str) -> Option<PlanReport> {
    read_report(result)
}

/// A plan report on the wire: one token per line, in `write_report`'s
/// order. Each plan's changed scenario travels as its share-link query,
/// which the page decodes anyway; a technique as its place in
/// `TechniqueId::ALL`; a float as its bits, so it comes back exact; a text
/// with its backslashes and line breaks escaped; a list after its length.
/// The page thus carries no JSON reader at all (5.7 KB of the gzipped first
/// load). The worker's scenario came from a link, and a plan changes only
/// fields the link carries, so the round trip is exact.
fn write_report(r: PlanReport) -> String {
    let mut out = Tokens(String::new());
    out.put(r.capacity_bytes);
    out.put(r.device_used_bytes);
    out.put(r.peak_allocated_bytes);
    out.put(u8::from(r.fits));
    out.put(r.headroom_bytes);
    out.put(u8::from(r.pool_verdict));
    out.put(r.evaluated);
    out.put(r.plans.len());
    for p in r.plans {
        out.put(p.changes.len());
        for c in p.changes {
            let id = TechniqueId::ALL.iter().position(|&t| t == c.id);
            out.put(id.unwrap_or(0));
            for text in [&c.en, &c.zh, &c.speed_cost.en, &c.speed_cost.zh] {
                out.text(text);
            }
            for text in [&c.quality_risk.en, &c.quality_risk.zh] {
                out.text(text);
            }
            out.put(c.speed_factor.to_bits());
            out.put(c.quality_risk_pct.to_bits());
            out.put(u8::from(c.changes_workload));
            out.put(c.sources.len());
            for source in &c.sources {
                out.text(source);
            }
        }
        let cost = &p.cost;
        for x in [
            cost.slowdown,
            cost.quality_risk_pct,
            cost.gpu_factor,
            cost.score,
        ] {
            out.put(x.to_bits());
        }
        out.put(p.peak_allocated_bytes);
        out.put(p.device_used_bytes);
        out.put(p.capacity_bytes);
        out.put(p.headroom_bytes);
        out.text(&encode(&p.scenario));
    }
    out.0
}

/// The report `write_report` wrote (`None` for any other text).
fn read_report(text: &str) -> Option<PlanReport> {
    let mut t = Reader(text.split('\n'));
    let (capacity_bytes, device_used_bytes, peak) = (t.num()?, t.num()?, t.num()?);
    let (fits, headroom_bytes, pool_verdict) = (t.flag()?, t.num()?, t.flag()?);
    let evaluated = t.num()?;
    let mut plans = Vec::new();
    for _ in 0..t.count()? {
        let mut changes = Vec::new();
        for _ in 0..t.count()? {
            let id = *TechniqueId::ALL.get(t.num::<usize>()?)?;
            let (en, zh, speed_en, speed_zh) = (t.text()?, t.text()?, t.text()?, t.text()?);
            let (risk_en, risk_zh) = (t.text()?, t.text()?);
            let (speed_factor, quality_risk_pct) = (t.float()?, t.float()?);
            let changes_workload = t.flag()?;
            let sources = (0..t.count()?).map(|_| t.text()).collect::<Option<_>>()?;
            changes.push(PlanChange {
                id,
                en,
                zh,
                speed_factor,
                speed_cost: Text {
                    en: speed_en,
                    zh: speed_zh,
                },
                quality_risk_pct,
                quality_risk: Text {
                    en: risk_en,
                    zh: risk_zh,
                },
                sources,
                changes_workload,
            });
        }
        let cost = PlanCost {
            slowdown: t.float()?,
            quality_risk_pct: t.float()?,
            gpu_factor: t.float()?,
            score: t.float()?,
        };
        plans.push(Plan {
            changes,
            cost,
            peak_allocated_bytes: t.num()?,
            device_used_bytes: t.num()?,
            capacity_bytes: t.num()?,
            headroom_bytes: t.num()?,
            scenario: decode(&t.text()?).scenario,
        });
    }
    // the last token's line break, and nothing after it
    if (t.0.next(), t.0.next()) != (Some(""), None) {
        return None;
    }
    Some(PlanReport {
        capacity_bytes,
        device_used_bytes,
        peak_allocated_bytes: peak,
        fits,
        headroom_bytes,
        pool_verdict,
        plans,
        evaluated,
    })
}

/// `write_report`'s writer.
struct Tokens(String);

impl Tokens {
    fn put(&mut self, value: impl std::fmt::Display) {
        self.0.push_str(&value.to_string());
        self.0.push('\n');
    }

    fn text(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '\\' => self.0.push_str("\\\\"),
                '\n' => self.0.push_str("\\n"),
                c => self.0.push(c),
            }
        }
        self.0.push('\n');
    }
}

/// `read_report`'s reader: every token checked, none trusted.
struct Reader<'a>(std::str::Split<'a, char>);

impl Reader<'_> {
    fn num<T: std::str::FromStr>(&mut self) -> Option<T> {
        self.0.next()?.parse().ok()
    }

    /// A list's length, at most a search's plans or a plan's changes.
    fn count(&mut self) -> Option<usize> {
        self.num::<usize>().filter(|&n| n <= 4096)
    }

    fn flag(&mut self) -> Option<bool> {
        match self.0.next()? {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        }
    }

    fn float(&mut self) -> Option<f64> {
        self.num::<u64>().map(f64::from_bits)
    }

    fn text(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.0.next()?.chars();
        while let Some(c) = chars.next() {
            out.push(if c != '\\' {
                c
            } else {
                match chars.next()? {
                    'n' => '\n',
                    '\\' => '\\',
                    _ => return None,
                }
            });
        }
        Some(out)
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
