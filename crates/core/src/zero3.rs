//! DeepSpeed ZeRO-3's gathered parameters, as its parameter coordinator
//! decides them (`deepspeed/runtime/zero/partitioned_param_coordinator.py`).
//!
//! Each module's parameters are all-gathered before it runs, then the
//! coordinator prefetches the next parameters of the recorded trace, up to
//! `stage3_prefetch_bucket_size` elements and never past
//! `stage3_max_live_parameters` gathered. After a module runs, its
//! parameters are released unless the next `stage3_max_reuse_distance`
//! elements of the trace use them again, or a prefetch already skipped past
//! their next use. Parameters under `stage3_param_persistence_threshold`
//! elements (norms, most biases) are never partitioned. At the turn from
//! forward to backward, where the loss and the saved activations peak, the
//! last modules of the forward are often still gathered: the head is used
//! again at once, and with a small head so are the last layers.
//!
//! The trace is the model's modules with parameters, in call order:
//! embedding, each layer's projections (q, k, v, o, the feed-forward's, the
//! router, a recurrent mixer's), the head; the backward runs it in reverse,
//! each checkpointed layer re-running its forward first.

use crate::decimal::Decimal;
use crate::resolved::Resolved;
use crate::scenario::{Checkpointing, Framework};

/// DeepSpeed's defaults (`deepspeed/runtime/zero/config.py`): prefetch
/// bucket 5e7, persistence threshold 1e5, max live 1e9, max reuse 1e9.
const DS_PREFETCH: u64 = 50_000_000;
const DS_PERSISTENCE: u64 = 100_000;
const DS_MAX_LIVE: u64 = 1_000_000_000;
const DS_MAX_REUSE: u64 = 1_000_000_000;
/// `reduce_bucket_size`'s default (same file): 5e8 elements.
const DS_REDUCE_BUCKET: u64 = 500_000_000;

/// Elements of the gradient bucket ZeRO reduces through: DeepSpeed's
/// default, or h² where the Trainer or accelerate fill in "auto".
pub fn reduce_bucket_elements(r: &Resolved) -> u64 {
    if r.training.framework == Framework::Deepspeed {
        DS_REDUCE_BUCKET
    } else {
        r.spec.hidden.saturating_mul(r.spec.hidden)
    }
}

/// Elements of the model's largest single parameter: the largest weight
/// tensor ([`ModelSpec::largest_weight_elements`]) or an MoE layer's
/// experts, which transformers 5 keeps as one fused `gate_up_proj` of
/// E × 2·I × h.
///
/// [`ModelSpec::largest_weight_elements`]: crate::model::ModelSpec::largest_weight_elements
pub fn largest_parameter_elements(spec: &crate::model::ModelSpec) -> u128 {
    let experts = spec.moe.as_ref().map_or(0, |m| {
        u128::from(m.experts)
            * 2
            * u128::from(m.expert_intermediate)
            * u128::from(m.expert_input(spec.hidden))
    });
    spec.largest_weight_elements().max(experts)
}

/// The coordinator's settings in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knobs {
    pub prefetch_bucket: u64,
    pub persistence_threshold: u64,
    pub max_live: u64,
    pub max_reuse: u64,
}

impl Knobs {
    /// The scenario's settings; an unset one is DeepSpeed's default, or for
    /// the transformers Trainer and accelerate (whose configs say "auto")
    /// the model-sized values they fill in: prefetch 0.9·h², persistence
    /// 10·h (transformers `integrations/deepspeed.py`
    /// `trainer_config_finalize`, accelerate `_prepare_deepspeed`).
    pub fn of(r: &Resolved) -> Knobs {
        let p = &r.parallel;
        let h = r.spec.hidden;
        let auto = r.training.framework != Framework::Deepspeed;
        Knobs {
            prefetch_bucket: p.zero3_prefetch_bucket.unwrap_or(if auto {
                h.saturating_mul(h) / 10 * 9
            } else {
                DS_PREFETCH
            }),
            persistence_threshold: p.zero3_persistence_threshold.unwrap_or(if auto {
                h.saturating_mul(10)
            } else {
                DS_PERSISTENCE
            }),
            max_live: p.zero3_max_live.unwrap_or(DS_MAX_LIVE),
            max_reuse: p.zero3_max_reuse.unwrap_or(DS_MAX_REUSE),
        }
    }
}

/// Elements gathered on each GPU when backward starts: the partitioned
/// parameters still or already gathered, and the persistent ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gathered {
    pub partitioned: u64,
    pub persistent: u64,
}

/// One parameter tensor's elements (a module holds at most one here).
struct Param {
    numel: u64,
    persistent: bool,
}

/// The trace: each module step's parameter, if it has one; and the step
/// of the head's backward, where backward starts.
struct Trace {
    params: Vec<Param>,
    steps: Vec<Option<usize>>,
    turn: usize,
}

/// What the coordinator holds gathered at the start of backward.
pub fn gathered_at_backward(r: &Resolved) -> Gathered {
    let knobs = Knobs::of(r);
    let trace = trace(r, &knobs);
    Gathered {
        partitioned: simulate(&trace, &knobs),
        persistent: trace
            .params
            .iter()
            .filter(|p| p.persistent)
            .map(|p| p.numel)
            .sum(),
    }
}

fn trace(r: &Resolved, knobs: &Knobs) -> Trace {
    let c = &r.counts;
    let spec = r.spec;
    let layers = (spec.layers + spec.encoder_layers.unwrap_or(0)).max(1);
    let l = &c.layers;
    let mut params = Vec::new();
    let mut add = |numel: u64| {
        params.push(Param {
            numel,
            persistent: numel < knobs.persistence_threshold,
        });
        Some(params.len() - 1)
    };
    let embedding = add(c.embedding);
    // The layer's small tensors (norms, biases), as wide as the hidden
    // size each, which is what the persistence threshold sees.
    let small = (l.norms + l.biases) / layers;
    let pieces = (small / spec.hidden.max(1)).max(1);
    let projections = [l.q, l.k, l.v, l.o, l.mixer, l.router, l.gate, l.up, l.down];
    // Every module runs the coordinator's fetch, parameters or not: the
    // layer, its attention and feed-forward containers and the activation
    // function each trigger a prefetch (transformers' decoder layers).
    let mut layer_modules = Vec::new();
    for _ in 0..layers {
        // The layer, its pre-attention norm, the attention container and
        // projections, the other norm(s), the MLP container and
        // projections, the activation.
        let mut modules = vec![None];
        for (at, &n) in projections.iter().enumerate() {
            if at == 0 {
                if small > 0 {
                    modules.push(add(small / pieces));
                }
                modules.push(None);
            }
            if at == 5 {
                for _ in 1..pieces {
                    if small > 0 {
                        modules.push(add(small / pieces));
                    }
                }
                modules.push(None);
            }
            if n / layers > 0 {
                modules.push(add(n / layers));
            }
        }
        modules.push(None);
        layer_modules.push(modules);
    }
    let final_norm = add(c.other.max(1));
    let head = if c.lm_head > 0 {
        add(c.lm_head)
    } else {
        embedding
    };
    let mut steps = vec![embedding];
    for modules in &layer_modules {
        steps.extend_from_slice(modules);
    }
    steps.extend([final_norm, head]);
    let turn = steps.len();
    steps.extend([head, final_norm]);
    let recompute = r.training.checkpointing != Checkpointing::Off;
    for modules in layer_modules.iter().rev() {
        if recompute {
            steps.extend_from_slice(modules);
        }
        steps.extend(modules.iter().rev());
    }
    steps.push(embedding);
    Trace {
        params,
        steps,
        turn,
    }
}

/// Runs the coordinator's fetch, prefetch and release over the trace and
/// returns the partitioned elements gathered once the turn's module and its
/// prefetch are in.
fn simulate(t: &Trace, k: &Knobs) -> u64 {
    let partitioned = |p: &usize| !t.params[*p].persistent;
    let mut available = vec![false; t.params.len()];
    let mut fetched_for = vec![-1i64; t.params.len()];
    let mut gathered = 0u64;
    // The parameter queue: each use of a partitioned parameter, in trace
    // order, with its step; `next` is its front.
    let uses: Vec<(usize, i64)> = (0..t.steps.len())
        .filter_map(|s| t.steps[s].filter(partitioned).map(|p| (p, s as i64)))
        .collect();
    let mut next = 0;
    for (s, module) in t.steps.iter().enumerate() {
        let own = module.filter(partitioned);
        if let Some(p) = own {
            if !available[p] {
                available[p] = true;
                gathered += t.params[p].numel;
            }
            // The current module's use leaves the queue's front, unless a
            // prefetch already took it.
            if fetched_for[p] < s as i64 && next < uses.len() {
                let (q, at) = uses[next];
                fetched_for[q] = fetched_for[q].max(at);
                next += 1;
            }
        }
        let budget = k.max_live.saturating_sub(gathered).min(k.prefetch_bucket);
        let mut prefetching = 0u64;
        while prefetching < budget && next < uses.len() {
            let (p, at) = uses[next];
            next += 1;
            fetched_for[p] = fetched_for[p].max(at);
            if !available[p] {
                available[p] = true;
                gathered += t.params[p].numel;
                prefetching += t.params[p].numel;
            }
        }
        if s == t.turn {
            break;
        }
        // `__params_to_release`: released unless the next `max_reuse`
        // elements of the trace use it again, or a prefetch already took
        // a later use.
        let Some(p) = own.filter(|&p| fetched_for[p] <= s as i64 + 1) else {
            continue;
        };
        let mut traversed = 0u64;
        let reused = t.steps[s + 1..]
            .iter()
            .flatten()
            .take_while(|&&q| {
                let within = traversed < k.max_reuse;
                traversed = traversed.saturating_add(t.params[q].numel);
                within
            })
            .any(|&q| q == p);
        if !reused && available[p] {
            available[p] = false;
            gathered -= t.params[p].numel;
        }
    }
    gathered
}

/// The bytes of [`gathered_at_backward`] on this GPU, with its formula, for
/// DeepSpeed ZeRO-3 training; `None` for other layouts.
pub fn gathered_bytes(r: &Resolved) -> Option<(u128, String)> {
    let s = &r.shards;
    if r.parallel.strategy != crate::scenario::Strategy::Zero3 || !s.training {
        return None;
    }
    let k = Knobs::of(r);
    let g = gathered_at_backward(r);
    let elements = u128::from(g.partitioned) + u128::from(g.persistent);
    let total = u128::from(r.counts.total.max(1));
    // Never more than a full replica. The gathered tensors are new ones
    // beside this GPU's partitions (`partition_parameters.py`
    // `all_gather_coalesced`), so the partitions do not count against it;
    // on one data-parallel rank nothing is gathered (`_no_gather_coalesced`:
    // the parameter views its own partition) unless the partitions are on
    // the CPU and must be copied in.
    let replica = r.weights.total / (s.tp * s.pp);
    let cap = if s.dp <= 1 && !s.params_offloaded() {
        0
    } else {
        replica
    };
    let bytes = (elements * r.weights.total / total / (s.tp * s.pp)).min(cap);
    Some((
        bytes,
        format!(
            "DeepSpeed ZeRO-3 at the start of backward: {} partitioned + {} persistent (under {} elements each) elements gathered × {} B/param (prefetch bucket {}, max live {}, max reuse distance {})",
            g.partitioned,
            g.persistent,
            k.persistence_threshold,
            Decimal(r.weights.total as f64 / total as f64),
            k.prefetch_bucket,
            k.max_live,
            k.max_reuse
        ),
    ))
}
