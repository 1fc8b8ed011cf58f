//! Fix-it plans: for a setup that does not fit, the cheapest few sets of
//! changes that make it fit, found by a best-first search over the estimator.
//!
//! Each change (`data/techniques.json`) carries its documented speed cost
//! (a step-time factor) and quality risk (percentage points). A plan's cost
//! multiplies the speed factors and the GPU-count factors and adds the risks;
//! `CostWeights` turn the three into one score. Every factor is ≥ 1 and every
//! risk ≥ 0, so adding a change never lowers the score: the search pops
//! candidate sets in score order (uniform-cost search), records the first sets
//! that fit, and never extends a set that fits or repeats a found one.

use crate::decimal::Decimal;
pub mod techniques;

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

use serde::{Deserialize, Serialize};

use crate::error::{InputError, Result};
use crate::estimate::{estimate_with_model, resolve_gpu, resolve_model};
use crate::model::ModelSpec;
use crate::scenario::limits::{MAX_MEMORY, MIN_MEMORY};
use crate::scenario::{Scenario, TaskKind};
use techniques::{apply, describe, Context};
pub use techniques::{techniques, Applies, Technique, TechniqueId, Text};

/// Score points per unit of each cost. One point ≈ 1% more step time; 1
/// percentage point of quality risk counts as 10% of step time; doubling the
/// GPUs counts as doubling the step time (both double the GPU-hours).
/// vramfit's ranking policy, not a measured figure.
const POINTS_PER_SLOWDOWN: f64 = 100.0;
const POINTS_PER_RISK_PCT: f64 = 10.0;
const POINTS_PER_GPU_FACTOR: f64 = 100.0;
/// Each change costs a point of effort, so fewer changes win ties.
const POINTS_PER_CHANGE: f64 = 1.0;

/// How much each kind of cost weighs in the score (all ≥ 0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostWeights {
    pub speed: f64,
    pub quality: f64,
    pub hardware: f64,
}

impl Default for CostWeights {
    fn default() -> Self {
        CostWeights {
            speed: 1.0,
            quality: 1.0,
            hardware: 1.0,
        }
    }
}

/// Search settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanOptions {
    /// Plans to return (1..=20).
    pub max_plans: usize,
    pub weights: CostWeights,
    /// Most GPUs a plan may use (1..=1024).
    pub max_gpus: u64,
    /// Most changes in one plan (1..=12).
    pub max_changes: usize,
    /// Most candidate scenarios estimated (bounds the time; 1..=100 000).
    pub max_evaluations: usize,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            max_plans: 3,
            weights: CostWeights::default(),
            // Eight nodes of eight GPUs: beyond that a plan is a cluster
            // purchase, not a fix (vramfit's bound).
            max_gpus: 64,
            max_changes: 8,
            // A bound on the worst case: the 7B-on-16 GB search of tests/plan.rs
            // estimates 329 candidates (about 25 ms in a release build).
            max_evaluations: 3000,
        }
    }
}

/// One change of a plan, with its concrete values, costs and sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanChange {
    pub id: TechniqueId,
    pub en: String,
    pub zh: String,
    pub speed_factor: f64,
    pub speed_cost: Text,
    pub quality_risk_pct: f64,
    pub quality_risk: Text,
    pub sources: Vec<String>,
    /// The change alters what the user asked for (a shorter context, a
    /// smaller batch): its cost is the workload, not a quality risk.
    pub changes_workload: bool,
}

/// The cost of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanCost {
    /// Step time relative to the original setup (product of speed factors).
    pub slowdown: f64,
    /// Summed quality risk, percentage points.
    pub quality_risk_pct: f64,
    /// GPUs used relative to the original setup.
    pub gpu_factor: f64,
    /// The rankable total (lower is cheaper).
    pub score: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub changes: Vec<PlanChange>,
    pub cost: PlanCost,
    pub peak_allocated_bytes: u64,
    pub device_used_bytes: u64,
    pub capacity_bytes: u64,
    /// Capacity minus device used (≥ 0: every plan fits).
    pub headroom_bytes: i64,
    /// The whole changed scenario, as `vramfit estimate --scenario` reads it.
    pub scenario: Scenario,
}

/// The search's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanReport {
    pub capacity_bytes: u64,
    /// The setup as given.
    pub device_used_bytes: u64,
    pub peak_allocated_bytes: u64,
    pub fits: bool,
    /// Bytes to spare (negative: short), by the estimate's own verdict: a
    /// vLLM engine's KV pool against its requested sequences, else device
    /// memory against the capacity.
    #[serde(default)]
    pub headroom_bytes: i64,
    /// True when `headroom_bytes` is about a serving engine's KV pool.
    #[serde(default)]
    pub pool_verdict: bool,
    /// Cheapest first; empty when the setup fits or nothing within the
    /// options does.
    pub plans: Vec<Plan>,
    /// Candidate scenarios estimated.
    pub evaluated: usize,
}

/// The bytes a plan must fit in: `gpu.memory_bytes` when given, else the
/// catalog GPU's usable memory.
pub fn target_capacity(sc: &Scenario) -> Result<u64> {
    if let Some(m) = sc.gpu.memory_bytes {
        return Ok(m);
    }
    let os_reserved = sc.gpu.os_reserved_bytes;
    resolve_gpu(sc)?.map(|g| g.budget_bytes(os_reserved)).ok_or_else(|| {
        InputError::new(
            "gpu",
            "choose a GPU (a catalog name, e.g. rtx-4090) or give gpu.memory_bytes: a plan needs a capacity to fit in",
        )
    })
}

/// Fix-it plans for a scenario on its GPU.
pub fn fix_plans(sc: &Scenario, options: &PlanOptions) -> Result<PlanReport> {
    let spec = resolve_model(&sc.model)?;
    let capacity = target_capacity(sc)?;
    fix_plans_with_model(sc, &spec, capacity, options)
}

fn check_options(o: &PlanOptions) -> Result<()> {
    let range = |field: &str, v: usize, min: usize, max: usize| {
        crate::error::check_range(field, v as u64, min as u64, max as u64).map(|_| ())
    };
    range("max_plans", o.max_plans, 1, 20)?;
    range("max_changes", o.max_changes, 1, 12)?;
    range("max_evaluations", o.max_evaluations, 1, 100_000)?;
    crate::error::check_range("max_gpus", o.max_gpus, 1, 1024)?;
    let w = o.weights;
    for (field, v) in [
        ("weights.speed", w.speed),
        ("weights.quality", w.quality),
        ("weights.hardware", w.hardware),
    ] {
        if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
            return Err(InputError::new(
                field,
                format!("{} is out of range: allowed 0 to 100", Decimal(v)),
            ));
        }
    }
    Ok(())
}

/// A candidate: the changes so far and the scenario they give.
struct Node {
    score: f64,
    /// Insertion order, so equal scores pop first-come (deterministic).
    seq: usize,
    applied: Vec<TechniqueId>,
    scenario: Scenario,
    slowdown: f64,
    risk: f64,
    penalty: f64,
    device_used: u64,
    peak_allocated: u64,
    /// The fit as the estimate's own verdict judges it, against this
    /// node's capacity: bytes to spare (negative: short), and that capacity.
    headroom: i128,
    capacity: u64,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Node {}
impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Node {
    /// Reversed: `BinaryHeap` pops the lowest score, then the oldest.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.seq.cmp(&self.seq))
    }
}

/// The multiset of applied changes, order-free.
fn key(applied: &[TechniqueId]) -> Vec<TechniqueId> {
    let mut k = applied.to_vec();
    crate::short_sort::sort_by_key(&mut k, |&t| t);
    k
}

/// Whether `a` is no worse than `b` on every cost and better on one: no
/// slower, no riskier, no more GPUs, and no change of the user's workload
/// where `b` has none.
fn dominates(a: &Plan, b: &Plan) -> bool {
    let (x, y) = (&a.cost, &b.cost);
    let workload = |p: &Plan| p.changes.iter().any(|c| c.changes_workload);
    let no_worse = x.slowdown <= y.slowdown
        && x.quality_risk_pct <= y.quality_risk_pct
        && x.gpu_factor <= y.gpu_factor
        && (!workload(a) || workload(b));
    let better = x.slowdown < y.slowdown
        || x.quality_risk_pct < y.quality_risk_pct
        || x.gpu_factor < y.gpu_factor
        || (!workload(a) && workload(b));
    no_worse && better
}

/// The plans in score order, except that a plan never ranks above one that
/// dominates it (both slower and riskier, say): the weights of the score
/// may trade one cost for another, but never against every cost at once.
fn dominance_order(mut plans: Vec<Plan>) -> Vec<Plan> {
    let mut ordered = Vec::with_capacity(plans.len());
    while !plans.is_empty() {
        let next = (0..plans.len())
            .find(|&i| !plans.iter().any(|other| dominates(other, &plans[i])))
            .unwrap_or(0);
        ordered.push(plans.remove(next));
    }
    ordered
}

/// `small` ⊆ `big` as multisets (both sorted).
fn is_sub_multiset(small: &[TechniqueId], big: &[TechniqueId]) -> bool {
    let mut it = big.iter();
    small.iter().all(|s| it.by_ref().any(|b| b == s))
}

fn score(
    w: &CostWeights,
    slowdown: f64,
    risk: f64,
    gpu_factor: f64,
    penalty: f64,
    n: usize,
) -> f64 {
    POINTS_PER_SLOWDOWN * w.speed * (slowdown - 1.0)
        + POINTS_PER_RISK_PCT * w.quality * risk
        + POINTS_PER_GPU_FACTOR * w.hardware * (gpu_factor - 1.0)
        + penalty
        + POINTS_PER_CHANGE * n as f64
}

fn gpu_factor(base: &Scenario, sc: &Scenario) -> f64 {
    sc.parallel.gpus as f64 / base.parallel.gpus.max(1) as f64
}

/// Fix-it plans against an explicit capacity (bytes per GPU).
pub fn fix_plans_with_model(
    sc: &Scenario,
    spec: &ModelSpec,
    capacity: u64,
    options: &PlanOptions,
) -> Result<PlanReport> {
    check_options(options)?;
    crate::error::check_range("capacity_bytes", capacity, MIN_MEMORY, MAX_MEMORY)?;
    let base = estimate_with_model(sc, spec)?;
    let base_used = base.headline_gpu().device_used_bytes;
    let (base_headroom, _) = judge(&base, sc, sc, capacity);
    let mut report = PlanReport {
        capacity_bytes: capacity,
        device_used_bytes: base_used,
        peak_allocated_bytes: base.headline_gpu().peak_allocated_bytes,
        fits: base_headroom >= 0,
        headroom_bytes: base_headroom.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        pool_verdict: base.serving.is_some() && base.capacity_bytes.is_some(),
        plans: Vec::new(),
        evaluated: 1,
    };
    if report.fits {
        return Ok(report);
    }
    let training = sc.task == TaskKind::Training;
    let mut search = Search {
        base: sc,
        spec,
        capacity,
        options,
        ctx: Context {
            spec,
            gpu: resolve_gpu(sc)?,
            max_gpus: options.max_gpus,
        },
        usable: techniques()
            .iter()
            .filter(|t| match t.task {
                Applies::Both => true,
                Applies::Training => training,
                Applies::Inference => !training,
            })
            .collect(),
        heap: BinaryHeap::new(),
        seen: HashSet::new(),
        seq: 0,
        evaluated: report.evaluated,
    };
    search.heap.push(Node {
        score: 0.0,
        seq: 0,
        applied: Vec::new(),
        scenario: sc.clone(),
        slowdown: 1.0,
        risk: 0.0,
        penalty: 0.0,
        device_used: base_used,
        peak_allocated: report.peak_allocated_bytes,
        headroom: base_headroom,
        capacity,
    });
    search.seen.insert(Vec::new());
    report.plans = search.run();
    report.evaluated = search.evaluated;
    Ok(report)
}

/// A scenario's fit as one rule decides it everywhere: a vLLM engine's KV
/// pool ([`Estimate::headroom_bytes`]), else device memory against the
/// capacity, which is `capacity` unless the scenario changed what a
/// unified-memory device gives the GPU.
fn judge(
    e: &crate::report::Estimate,
    sc: &Scenario,
    base: &Scenario,
    capacity: u64,
) -> (i128, u64) {
    let capacity = if sc.gpu.os_reserved_bytes != base.gpu.os_reserved_bytes {
        target_capacity(sc).unwrap_or(capacity)
    } else {
        capacity
    };
    match (&e.serving, e.headroom_bytes()) {
        (Some(_), Some(h)) => (h, capacity),
        _ => (
            capacity as i128 - e.headline_gpu().device_used_bytes as i128,
            capacity,
        ),
    }
}

/// The best-first search over sets of changes.
struct Search<'a> {
    base: &'a Scenario,
    spec: &'a ModelSpec,
    capacity: u64,
    options: &'a PlanOptions,
    ctx: Context<'a>,
    /// The techniques for the scenario's task.
    usable: Vec<&'static Technique>,
    heap: BinaryHeap<Node>,
    /// Every set of changes queued so far, order-free.
    seen: HashSet<Vec<TechniqueId>>,
    /// Nodes queued so far (their insertion order).
    seq: usize,
    /// Scenarios estimated so far.
    evaluated: usize,
}

impl Search<'_> {
    /// Pops candidates in score order until enough plans fit, never
    /// extending a set that fits or repeats a found one.
    fn run(&mut self) -> Vec<Plan> {
        let mut found: Vec<(Vec<TechniqueId>, Plan)> = Vec::new();
        while let Some(node) = self.heap.pop() {
            let node_key = key(&node.applied);
            if found.iter().any(|(k, _)| is_sub_multiset(k, &node_key)) {
                continue;
            }
            if node.headroom >= 0 {
                let plan = make_plan(self.base, &node, &self.ctx);
                found.push((node_key, plan));
                if found.len() >= self.options.max_plans {
                    break;
                }
                continue;
            }
            if node.applied.len() < self.options.max_changes {
                self.expand(&node);
            }
        }
        dominance_order(found.into_iter().map(|(_, p)| p).collect())
    }

    /// Queues the sets one change larger than `node`'s, each set once.
    fn expand(&mut self, node: &Node) {
        let catalog = techniques();
        for i in 0..self.usable.len() {
            let t = self.usable[i];
            if self.evaluated >= self.options.max_evaluations {
                break;
            }
            let repeats = node.applied.contains(&t.id);
            if repeats && !t.repeatable {
                continue;
            }
            let group_taken = t.group.as_ref().is_some_and(|g| {
                node.applied.iter().any(|a| {
                    *a != t.id
                        && catalog
                            .iter()
                            .any(|c| c.id == *a && c.group.as_ref() == Some(g))
                })
            });
            if group_taken {
                continue;
            }
            let mut applied = node.applied.clone();
            applied.push(t.id);
            let child_key = key(&applied);
            if self.seen.contains(&child_key) {
                continue;
            }
            let Some(child) = apply(t.id, &node.scenario, &self.ctx) else {
                continue;
            };
            self.seen.insert(child_key);
            self.evaluated += 1;
            if let Some(next) = self.estimated(node, t, applied, child) {
                self.heap.push(next);
            }
        }
    }

    /// The node for `scenario` (`node` with `t` applied), unless the
    /// estimator rejects it (say tp not dividing the heads: the search goes
    /// on without it) or it saves nothing and enables nothing.
    fn estimated(
        &mut self,
        node: &Node,
        t: &Technique,
        applied: Vec<TechniqueId>,
        scenario: Scenario,
    ) -> Option<Node> {
        // A change may carry its own model (a lowered image-processor
        // limit); every other keeps the resolved one.
        let e = match &scenario.model {
            crate::scenario::ModelSource::Spec(own) => estimate_with_model(&scenario, own),
            _ => estimate_with_model(&scenario, self.spec),
        }
        .ok()?;
        let used = e.headline_gpu().device_used_bytes;
        let (headroom, capacity) = judge(&e, &scenario, self.base, self.capacity);
        if headroom <= node.headroom && !t.enabler {
            return None;
        }
        let slowdown = node.slowdown * t.speed_factor;
        let risk = node.risk + t.quality_risk_pct;
        let penalty = node.penalty + t.penalty;
        self.seq += 1;
        Some(Node {
            score: score(
                &self.options.weights,
                slowdown,
                risk,
                gpu_factor(self.base, &scenario),
                penalty,
                applied.len(),
            ),
            seq: self.seq,
            applied,
            scenario,
            slowdown,
            risk,
            penalty,
            device_used: used,
            peak_allocated: e.headline_gpu().peak_allocated_bytes,
            headroom,
            capacity,
        })
    }
}

fn make_plan(base: &Scenario, node: &Node, ctx: &Context) -> Plan {
    let capacity = node.capacity;
    let catalog = techniques();
    let changes = node
        .applied
        .iter()
        .zip(replay(base, node, ctx))
        .map(|(id, text)| {
            let t = catalog.iter().find(|t| t.id == *id);
            PlanChange {
                id: *id,
                en: text.en,
                zh: text.zh,
                speed_factor: t.map_or(1.0, |t| t.speed_factor),
                speed_cost: t.map(|t| t.speed_cost.clone()).unwrap_or_default(),
                quality_risk_pct: t.map_or(0.0, |t| t.quality_risk_pct),
                quality_risk: t.map(|t| t.quality_risk.clone()).unwrap_or_default(),
                sources: t.map(|t| t.sources.clone()).unwrap_or_default(),
                changes_workload: t.is_some_and(|t| t.penalty > 0.0),
            }
        })
        .collect();
    Plan {
        changes,
        cost: PlanCost {
            slowdown: node.slowdown,
            quality_risk_pct: node.risk,
            gpu_factor: gpu_factor(base, &node.scenario),
            score: node.score,
        },
        peak_allocated_bytes: node.peak_allocated,
        device_used_bytes: node.device_used,
        capacity_bytes: capacity,
        headroom_bytes: node.headroom.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        scenario: node.scenario.clone(),
    }
}

/// The text of each applied change, in order, replaying them from the base
/// scenario so each shows its own before → after values.
fn replay(base: &Scenario, node: &Node, ctx: &Context) -> Vec<Text> {
    let mut before = base.clone();
    let mut texts = Vec::with_capacity(node.applied.len());
    for id in &node.applied {
        let after = apply(*id, &before, ctx).unwrap_or_else(|| before.clone());
        texts.push(describe(*id, &before, &after));
        before = after;
    }
    texts
}

#[cfg(test)]
mod dominance_tests {
    use super::*;

    fn plan(slowdown: f64, risk: f64, workload: bool) -> Plan {
        let change = PlanChange {
            id: TechniqueId::Lora,
            en: String::new(),
            zh: String::new(),
            speed_factor: slowdown,
            speed_cost: Text::default(),
            quality_risk_pct: risk,
            quality_risk: Text::default(),
            sources: Vec::new(),
            changes_workload: workload,
        };
        Plan {
            changes: vec![change],
            cost: PlanCost {
                slowdown,
                quality_risk_pct: risk,
                gpu_factor: 1.0,
                score: 0.0,
            },
            peak_allocated_bytes: 0,
            device_used_bytes: 0,
            capacity_bytes: 0,
            headroom_bytes: 0,
            scenario: Scenario::default(),
        }
    }

    #[test]
    fn a_slower_and_riskier_plan_never_ranks_first() {
        // ×1.31 / 1.0 pp scored ahead of ×1.25 / 0.0 pp: the second dominates.
        let ranked = dominance_order(vec![plan(1.31, 1.0, false), plan(1.25, 0.0, false)]);
        assert_eq!(ranked[0].cost.slowdown, 1.25);
        // A trade-off keeps the score's order.
        let kept = dominance_order(vec![plan(1.1, 1.0, false), plan(1.3, 0.0, false)]);
        assert_eq!(kept[0].cost.slowdown, 1.1);
        // Changing the workload is a cost too.
        let ranked = dominance_order(vec![plan(1.0, 0.0, true), plan(1.0, 0.0, false)]);
        assert!(!ranked[0].changes[0].changes_workload);
    }
}
