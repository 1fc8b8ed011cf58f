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

/// One parameter tensor's elements (a module may hold one).
struct Param {
    numel: u64,
    persistent: bool,
}

/// The trace: module steps, each the parameters it uses; and the step of
/// the head's backward, where backward starts.
struct Trace {
    params: Vec<Param>,
    steps: Vec<Vec<usize>>,
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
    let per_layer = |n: u64| n / layers;
    let l = &c.layers;
    let mut params = Vec::new();
    let mut add = |numel: u64| {
        params.push(Param {
            numel,
            persistent: numel < knobs.persistence_threshold,
        });
        params.len() - 1
    };
    let embedding = add(c.embedding);
    // The layer's small tensors (norms, biases), as wide as the hidden
    // size each, which is what the persistence threshold sees.
    let small = per_layer(l.norms + l.biases);
    let pieces = (small / spec.hidden.max(1)).max(1);
    let attention = [l.q, l.k, l.v, l.o, l.mixer];
    let feed_forward = [l.router, l.gate, l.up, l.down];
    // Every module runs the coordinator's fetch, parameters or not: the
    // layer, its attention and feed-forward containers and the activation
    // function each trigger a prefetch (transformers' decoder layers).
    let mut layer_modules = Vec::new();
    for _ in 0..layers {
        let mut modules: Vec<Vec<usize>> = vec![Vec::new()];
        // The pre-attention norm, then the attention container and its
        // projections, then the other norm(s).
        if small > 0 {
            modules.push(vec![add(small / pieces)]);
        }
        modules.push(Vec::new());
        for n in attention.iter().map(|&n| per_layer(n)).filter(|&n| n > 0) {
            modules.push(vec![add(n)]);
        }
        if small > 0 {
            for _ in 1..pieces {
                modules.push(vec![add(small / pieces)]);
            }
        }
        modules.push(Vec::new());
        for n in feed_forward
            .iter()
            .map(|&n| per_layer(n))
            .filter(|&n| n > 0)
        {
            modules.push(vec![add(n)]);
        }
        modules.push(Vec::new());
        layer_modules.push(modules);
    }
    let final_norm = add(c.other.max(1));
    let head = if c.lm_head > 0 {
        add(c.lm_head)
    } else {
        embedding
    };
    let mut steps = vec![vec![embedding]];
    for modules in &layer_modules {
        steps.extend(modules.iter().cloned());
    }
    steps.push(vec![final_norm]);
    steps.push(vec![head]);
    let turn = steps.len();
    steps.push(vec![head]);
    steps.push(vec![final_norm]);
    let recompute = r.training.checkpointing != Checkpointing::Off;
    for modules in layer_modules.iter().rev() {
        if recompute {
            steps.extend(modules.iter().cloned());
        }
        steps.extend(modules.iter().rev().cloned());
    }
    steps.push(vec![embedding]);
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
    let n = t.params.len();
    let mut available = vec![false; n];
    let mut fetched_for = vec![-1i64; n];
    let mut gathered = 0u64;
    // The parameter queue: each use, in trace order, with its step.
    let mut queue: std::collections::VecDeque<(usize, i64)> = t
        .steps
        .iter()
        .enumerate()
        .flat_map(|(s, ps)| ps.iter().map(move |&p| (p, s as i64)))
        .filter(|&(p, _)| !t.params[p].persistent)
        .collect();
    for (s, module) in t.steps.iter().enumerate() {
        let own: Vec<usize> = module
            .iter()
            .copied()
            .filter(|&p| !t.params[p].persistent)
            .collect();
        for &p in &own {
            if !available[p] {
                available[p] = true;
                gathered += t.params[p].numel;
            }
        }
        // The current module's uses leave the queue's front.
        let mut pending = own.iter().filter(|&&p| fetched_for[p] < s as i64).count();
        while pending > 0 {
            let Some((p, at)) = queue.pop_front() else {
                break;
            };
            fetched_for[p] = fetched_for[p].max(at);
            pending -= 1;
        }
        let budget = k.max_live.saturating_sub(gathered).min(k.prefetch_bucket);
        let mut prefetching = 0u64;
        while prefetching < budget {
            let Some((p, at)) = queue.pop_front() else {
                break;
            };
            fetched_for[p] = fetched_for[p].max(at);
            if !available[p] {
                available[p] = true;
                gathered += t.params[p].numel;
                prefetching += t.params[p].numel;
            }
        }
        if s == t.turn {
            return gathered;
        }
        release(
            t,
            k,
            s + 1,
            &own,
            &fetched_for,
            &mut available,
            &mut gathered,
        );
    }
    gathered
}

/// `__params_to_release`: the module's parameters not used again within
/// the next `max_reuse` elements of the trace, nor already prefetched for a
/// later use.
fn release(
    t: &Trace,
    k: &Knobs,
    step: usize,
    own: &[usize],
    fetched_for: &[i64],
    available: &mut [bool],
    gathered: &mut u64,
) {
    let mut candidates: Vec<usize> = own
        .iter()
        .copied()
        .filter(|&p| fetched_for[p] <= step as i64)
        .collect();
    let mut traversed = 0u64;
    for module in &t.steps[step.min(t.steps.len())..] {
        if traversed >= k.max_reuse || candidates.is_empty() {
            break;
        }
        for &p in module {
            candidates.retain(|&c| c != p);
            traversed += t.params[p].numel;
        }
    }
    for p in candidates {
        if available[p] {
            available[p] = false;
            *gathered -= t.params[p].numel;
        }
    }
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
    // Never more than a full replica (less this GPU's own shard when the
    // shards stay on the GPU): a model small enough to be gathered whole
    // holds no more than its ZeRO-2 replica.
    let replica = r.weights.total / (s.tp * s.pp);
    let cap = if s.params_offloaded() {
        replica
    } else {
        replica - replica / s.dp.max(1)
    };
    let bytes = (elements * r.weights.total / total / (s.tp * s.pp)).min(cap);
    Some((
        bytes,
        format!(
            "DeepSpeed ZeRO-3 at the start of backward: {} partitioned + {} persistent (under {} elements each) elements gathered × {} B/param (prefetch bucket {}, max live {}, max reuse distance {})",
            g.partitioned,
            g.persistent,
            k.persistence_threshold,
            r.weights.total as f64 / total as f64,
            k.prefetch_bucket,
            k.max_live,
            k.max_reuse
        ),
    ))
}
