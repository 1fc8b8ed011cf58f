//! Solvers over the estimator: does it fit, the largest micro-batch or
//! context that fits, the fewest GPUs, and the fit table over the GPU catalog.
//!
//! Memory grows monotonically with batch and sequence length (a property test
//! checks it), so each "largest that fits" is a binary search.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::estimate::{estimate_with_model, resolve_model};
use crate::gpu::{gpus, GpuSpec};
use crate::model::ModelSpec;
use crate::overhead::{per_card_bytes, used_within_card};
use crate::scenario::{GpuChoice, Scenario, Strategy, TaskKind};

/// Device memory the scenario needs on its busiest GPU (nvidia-smi "used").
fn device_used(sc: &Scenario, spec: &ModelSpec) -> Result<u64> {
    Ok(estimate_with_model(sc, spec)?
        .headline_gpu()
        .device_used_bytes)
}

/// Whether the scenario fits GPUs of `capacity` bytes: its device-used
/// total within the capacity, or for a vLLM or SGLang engine (which always
/// fills its share of the card) its KV pool holding the requested
/// sequences, as [`crate::report::Estimate::verdict`] decides.
fn fits_within(sc: &Scenario, spec: &ModelSpec, capacity: u64) -> Result<bool> {
    if serves_from_pool(sc) {
        let mut s = sc.clone();
        if s.gpu.name.is_none() && s.gpu.memory_bytes.is_none() {
            s.gpu.memory_bytes = Some(capacity);
        }
        let e = estimate_with_model(&s, spec)?;
        if e.serving.is_some() {
            return Ok(e.fits() == Some(true));
        }
    }
    Ok(device_used(sc, spec)? <= capacity)
}

fn serves_from_pool(sc: &Scenario) -> bool {
    sc.task == TaskKind::Inference && sc.inference.engine.sizes_pool()
}

/// Largest `x` in `1..=max` with `fits(x)`, assuming `fits` is monotone
/// (true then false). `None` when even 1 does not fit.
fn largest_fitting(max: u64, mut fits: impl FnMut(u64) -> Result<bool>) -> Result<Option<u64>> {
    if !fits(1)? {
        return Ok(None);
    }
    let (mut lo, mut hi) = (1u64, 2u64);
    // Exponential probe, then bisection: ~2·log2(answer) estimates.
    while hi <= max && fits(hi)? {
        lo = hi;
        hi = hi.saturating_mul(2);
    }
    let mut hi = hi.min(max.saturating_add(1));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

/// Largest training micro-batch that fits in `capacity` bytes (up to 4096).
pub fn max_micro_batch(sc: &Scenario, spec: &ModelSpec, capacity: u64) -> Result<Option<u64>> {
    let mut s = sc.clone();
    s.task = TaskKind::Training;
    largest_fitting(4096, |b| {
        s.training.micro_batch = b;
        Ok(device_used(&s, spec)? <= capacity)
    })
}

/// The longest context the model itself takes: its position limit
/// (`max_position_embeddings`), or the estimator's limit for models with
/// relative positions (T5) or none stated (0).
pub fn context_limit(spec: &ModelSpec) -> u64 {
    spec.context_limit()
}

/// Longest context (prompt + new tokens) that fits for inference at the
/// scenario's batch, never beyond what the model takes ([`context_limit`]);
/// the prompt takes the context, new tokens stay as given unless they alone
/// exceed it.
pub fn max_context(sc: &Scenario, spec: &ModelSpec, capacity: u64) -> Result<Option<u64>> {
    let mut s = sc.clone();
    s.task = TaskKind::Inference;
    let base = s.clone();
    largest_fitting(context_limit(spec), |ctx| {
        s.inference = base.inference.clone();
        set_context(&mut s, ctx);
        fits_within(&s, spec, capacity)
    })
}

/// Fewest GPUs (powers of two up to 1024) of `capacity` bytes each that fit,
/// sharding with the scenario's strategy (ZeRO-3 for training when it has none).
pub fn min_gpus(sc: &Scenario, spec: &ModelSpec, capacity: u64) -> Result<Option<u64>> {
    let mut s = sc.clone();
    if s.task == TaskKind::Training && matches!(s.parallel.strategy, Strategy::None | Strategy::Ddp)
    {
        s.parallel.strategy = Strategy::Zero3;
    }
    let per_replica = s.parallel.tp * s.parallel.pp;
    let mut n = 1u64;
    while n <= 1024 {
        s.parallel.gpus = n * per_replica;
        if s.task == TaskKind::Inference {
            // Serving splits a model across GPUs by tensor parallelism.
            s.parallel.tp = n;
            s.parallel.gpus = n * s.parallel.pp;
            if !spec.heads.is_multiple_of(n) {
                n *= 2;
                continue;
            }
        }
        if fits_within(&s, spec, capacity)? {
            return Ok(Some(s.parallel.gpus));
        }
        n *= 2;
    }
    Ok(None)
}

/// One row of the fit table: a catalog GPU and how the scenario does on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitRow {
    pub gpu_id: String,
    pub gpu_name: String,
    pub capacity_bytes: u64,
    pub device_used_bytes: u64,
    pub fits: bool,
    /// Capacity minus device used (negative: short by that much).
    pub headroom_bytes: i64,
    /// Training: largest micro-batch that fits. Inference: longest context.
    pub largest: Option<u64>,
    /// The model, not the card, bounds `largest`: the card would take a
    /// longer context than the model's position limit.
    pub model_bound: bool,
    /// Serving on vLLM: sequences of the scenario's context the card's KV
    /// pool holds at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_sequences: Option<u64>,
}

/// The scenario on every catalog GPU, with the largest micro-batch (training)
/// or context (inference) each one fits.
pub fn fit_table(sc: &Scenario) -> Result<Vec<FitRow>> {
    let spec = resolve_model(&sc.model)?;
    fit_table_with_model(sc, &spec, gpus())
}

pub fn fit_table_with_model(
    sc: &Scenario,
    spec: &ModelSpec,
    cards: &[GpuSpec],
) -> Result<Vec<FitRow>> {
    // Everything but the CUDA context and workspaces is the same on every card (vLLM and
    // SGLang aside, whose pool fills the card): estimate each probed size once without a
    // card and add each card's context, so 40 cards cost ~2 dozen estimates.
    let per_card = serves_from_pool(sc);
    let mut bare = sc.clone();
    bare.gpu = GpuChoice::default();
    let bare_context = per_card_bytes(None);
    let mut memo: HashMap<u64, (u64, u64)> = HashMap::new();
    // Device used without the context, and the cache the allocator can free.
    let mut without_context = |size: u64| -> Result<(u64, u64)> {
        if let Some(v) = memo.get(&size) {
            return Ok(*v);
        }
        let mut s = bare.clone();
        match s.task {
            TaskKind::Training => s.training.micro_batch = size,
            TaskKind::Inference => set_context(&mut s, size),
        }
        let e = estimate_with_model(&s, spec)?;
        let g = e.headline_gpu();
        let v = (
            g.device_used_bytes.saturating_sub(bare_context),
            g.releasable_cache_bytes,
        );
        memo.insert(size, v);
        Ok(v)
    };
    let current = match sc.task {
        TaskKind::Training => sc.training.micro_batch,
        TaskKind::Inference => sc.inference.prompt_len + sc.inference.new_tokens,
    };
    let limit = match sc.task {
        TaskKind::Training => 4096,
        TaskKind::Inference => context_limit(spec),
    };
    let model_limited = sc.task == TaskKind::Inference && limit < crate::estimate::MAX_TOKENS;
    let mut rows = Vec::with_capacity(cards.len());
    for g in cards {
        let capacity = g.usable_bytes();
        if per_card {
            rows.push(serving_row(sc, spec, g)?);
            continue;
        }
        let (used, largest) = {
            let context = per_card_bytes(Some(g));
            // The allocator's cache shrinks to each card's room.
            let on_card = |(used, releasable): (u64, u64)| {
                let on = used_within_card(
                    u128::from(used + context),
                    u128::from(releasable),
                    Some(u128::from(capacity)),
                );
                u64::try_from(on).unwrap_or(u64::MAX)
            };
            let used = on_card(without_context(current)?);
            let largest =
                largest_fitting(
                    limit,
                    |size| Ok(on_card(without_context(size)?) <= capacity),
                )?;
            (used, largest)
        };
        rows.push(FitRow {
            gpu_id: g.id.clone(),
            gpu_name: g.name.clone(),
            capacity_bytes: capacity,
            device_used_bytes: used,
            fits: used <= capacity,
            headroom_bytes: (capacity as i128 - used as i128)
                .clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            model_bound: model_limited && largest == Some(limit),
            largest,
            concurrent_sequences: None,
        });
    }
    Ok(rows)
}

/// A fit-table row for a vLLM or SGLang engine on card `g`: its KV pool decides the
/// fit, the longest context at the scenario's batch and the sequences of
/// the scenario's context held at once.
fn serving_row(sc: &Scenario, spec: &ModelSpec, g: &GpuSpec) -> Result<FitRow> {
    let mut s = sc.clone();
    s.gpu.name = Some(g.id.clone());
    s.gpu.memory_bytes = None;
    let e = estimate_with_model(&s, spec)?;
    let pool = e.serving.as_ref();
    Ok(FitRow {
        gpu_id: g.id.clone(),
        gpu_name: g.name.clone(),
        capacity_bytes: g.usable_bytes(),
        device_used_bytes: e.headline_gpu().device_used_bytes,
        fits: e.fits() == Some(true),
        headroom_bytes: e
            .headroom_bytes()
            .unwrap_or_default()
            .clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        largest: pool.map(|p| p.max_context).filter(|c| *c > 0),
        model_bound: pool.is_some_and(|p| p.context_bound_by_model),
        concurrent_sequences: pool.map(|p| p.max_concurrent_sequences),
    })
}

/// Context `ctx` = prompt + new tokens, keeping the scenario's new tokens
/// unless they alone exceed it.
fn set_context(s: &mut Scenario, ctx: u64) {
    let new_tokens = s.inference.new_tokens.min(ctx.saturating_sub(1));
    s.inference.new_tokens = new_tokens;
    s.inference.prompt_len = (ctx - new_tokens).max(1);
}

/// The x axis of the memory chart: micro-batch for training, context for
/// inference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepAxis {
    MicroBatch,
    Context,
}

impl SweepAxis {
    pub fn of(task: TaskKind) -> Self {
        match task {
            TaskKind::Training => SweepAxis::MicroBatch,
            TaskKind::Inference => SweepAxis::Context,
        }
    }
}

/// Micro-batches 1, 2, 4 ... 128: the range people try on one card.
const BATCH_SWEEP: [u64; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
/// Contexts 512 ... 128Ki tokens (2^9 to 2^17): short chats to long-context models.
const CONTEXT_SWEEP: [u64; 9] = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/// Device memory (nvidia-smi "used" on the busiest GPU) at each point of the
/// task's axis; a context is split into prompt and new tokens as
/// [`max_context`] splits it, so the chart and the fit table answer the same
/// question. Contexts beyond the model's positions and points the estimator
/// rejects are left out.
pub fn sweep(sc: &Scenario, spec: &ModelSpec) -> Vec<(u64, u64)> {
    let mut s = sc.clone();
    let axis = SweepAxis::of(sc.task);
    let points: &[u64] = match axis {
        SweepAxis::MicroBatch => &BATCH_SWEEP,
        SweepAxis::Context => &CONTEXT_SWEEP,
    };
    points
        .iter()
        .filter(|&&x| axis == SweepAxis::MicroBatch || x <= context_limit(spec).max(512))
        .filter_map(|&x| {
            match axis {
                SweepAxis::MicroBatch => s.training.micro_batch = x,
                SweepAxis::Context => {
                    s.inference = sc.inference.clone();
                    set_context(&mut s, x);
                }
            }
            device_used(&s, spec).ok().map(|used| (x, used))
        })
        .collect()
}
