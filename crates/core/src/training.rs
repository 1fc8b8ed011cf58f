//! Training memory: weights, gradients, optimizer states, activations, loss,
//! and the three moments one of which is the peak (forward/backward, end of
//! backward, optimizer step).

use crate::decimal::Decimal;
mod loss;
pub(crate) use loss::freed_logits_block;
mod lines;
mod optimizer;
mod reuse;
mod saved;
use lines::Lines;
mod sharded;
use sharded::{
    fsdp_gathered, fsdp_mixed_precision, fsdp_offloaded_gradients, offloaded_gradient_bucket,
    parallelism_buffers,
};

use crate::dequant::{dequant_buffer_bytes, dequant_buffer_line};
use crate::precision::{TrainingPrecision, WeightFormat};
use crate::report::{Counter, Line, Part};
use crate::resolved::Resolved;
use crate::scenario::{Framework, Optimizer};
use crate::trainable::trains_every_weight;

pub struct TrainingMemory {
    pub lines: Vec<Line>,
    pub cpu_lines: Vec<Line>,
    pub peak_allocated: u128,
    pub peak_phase: &'static str,
    /// Layers rebuilt in backward (checkpointing, offloading) beyond what
    /// the activations line counts at the peak: they pass through the
    /// caching allocator all the same, so the allocator's churn counts them.
    pub rebuilt_off_peak: u128,
    /// Reserved by the end of the step when the gradients and the step's
    /// temporaries outgrow the blocks forward freed ([`reuse`]), with its
    /// formula.
    pub reserved_floor: Option<(u128, String)>,
    /// Blocks cached for the collectives' own streams, with their formula
    /// (`sharded::fsdp_stream_pools`, `sharded::zero3_stream_pool`).
    pub stream_pools: Option<(u128, String)>,
}

/// Bytes of each term alive on the GPU, which the peak's phases add up.
struct Alive {
    weights: u128,
    master: u128,
    states: u128,
    gradients: u128,
    /// Saved activations with the layer recomputed under checkpointing.
    activations: u128,
    loss: u128,
    dequant: u128,
    step: u128,
    buckets: u128,
    gathered: u128,
    /// The fp32 buffer a 16-bit embedding's gradient accumulates in.
    embedding_grad: u128,
    /// What a compiled loss keeps until the end of backward.
    loss_to_backward_end: u128,
}

/// Everything one GPU holds during training.
pub fn training_memory(r: &Resolved) -> TrainingMemory {
    let mut lines = Lines::default();
    let weights = weights(r, &mut lines);
    let master = master_weights(r, &mut lines);
    let gradients = gradients(r, &mut lines);
    let states = optimizer_states(r, &mut lines);
    let (loss_bytes, loss_formula) = loss::loss_bytes(r);
    let kept_loss = loss::compiled_loss_kept_to_backward_end(r);
    let (act_bytes, act_formula, recompute, fixed) = saved::activation_bytes(r, loss_bytes);
    let (rebuilt_at_peak, act_formula) = recompute_beyond_loss(recompute, loss_bytes, act_formula);
    let (indexer, act_formula) = indexer_beyond_loss(r, loss_bytes + rebuilt_at_peak, act_formula);
    let recompute_at_peak = rebuilt_at_peak + indexer;
    lines.gpu.push(Line::new(
        Part::Activations,
        act_bytes + recompute_at_peak,
        act_formula,
        Counter::Allocated,
    ));
    let offloaded = saved::offloaded_bytes(r);
    if offloaded > 0 {
        lines.cpu.push(Line::new(
            Part::Activations,
            offloaded,
            "saved activations offloaded between forward and backward (pinned memory)".to_string(),
            Counter::Device,
        ));
    }
    lines.gpu.push(Line::new(
        Part::LogitsLoss,
        loss_bytes,
        loss_formula,
        Counter::Allocated,
    ));
    lines.gpu.extend(dequant_buffer_line(r));
    let (step, step_formula) = optimizer::step_bytes(r);
    if step > 0 {
        lines.gpu.push(Line::new(
            Part::OptimizerStep,
            step,
            step_formula,
            Counter::NotAtPeak,
        ));
    }
    let (buckets, gathered) = parallelism_buffers(r, &mut lines);
    let alive = Alive {
        weights,
        master,
        states,
        gradients,
        activations: act_bytes + recompute_at_peak,
        loss: loss_bytes,
        dequant: dequant_buffer_bytes(r),
        step,
        buckets,
        gathered,
        embedding_grad: embedding_grad_buffer(r),
        loss_to_backward_end: kept_loss.unwrap_or(0),
    };
    let accumulating = gradients_alive_in_backward(r);
    let (peak, phase) = alive.peak(accumulating);
    let transients = reuse::Transients {
        activations: alive.activations,
        fixed: fixed.min(alive.activations),
        loss: alive.loss,
        gradients: if accumulating { 0 } else { alive.gradients },
        step: alive.step,
        rebuilt: recompute > 0,
    };
    let fresh = reuse::fresh_segments(r, &transients);
    // FSDP's pools and its reduce-scatter inputs' new segments add to the
    // compute stream's cache; elsewhere the new segments are a floor beside
    // the backward's live tensors.
    let pools = sharded::fsdp_stream_pools(r, transients.gradients)
        .or_else(|| sharded::zero3_stream_pool(r));
    let backward = alive.backward(accumulating);
    let (reserved_floor, stream_pools) = match (pools, fresh) {
        (Some((pools, formula)), Some((fresh, why))) => {
            // Beyond the peak's live tensors (the envelope keeps backward +
            // fresh from falling as tokens grow; a later peak reuses them).
            let beyond = (backward + fresh).saturating_sub(peak);
            (
                None,
                Some((
                    pools + beyond,
                    format!("{formula}; {why}, {beyond} beyond the peak"),
                )),
            )
        }
        (Some(pools), None) => (None, Some(pools)),
        (None, fresh) => (
            fresh.map(|(fresh, formula)| (backward + fresh, formula)),
            None,
        ),
    };
    mark_not_at_peak(&mut lines.gpu, phase, accumulating);
    if let (Phase::EndOfBackward, Some(bytes)) = (phase, kept_loss) {
        // At this peak the loss line holds what the compiled loss still keeps.
        if let Some(l) = lines.gpu.iter_mut().find(|l| l.part == Part::LogitsLoss) {
            *l = Line::new(
                Part::LogitsLoss,
                bytes,
                "compiled: 2 logits-sized tensors kept to the end of backward".to_string(),
                Counter::Allocated,
            );
        }
    }
    TrainingMemory {
        lines: lines.gpu,
        cpu_lines: lines.cpu,
        peak_allocated: peak,
        peak_phase: phase.name(),
        rebuilt_off_peak: recompute - rebuilt_at_peak,
        reserved_floor,
        stream_pools,
    }
}

/// Under checkpointing (or with activations offloaded, whose layers come
/// back from the CPU in backward), backward starts with the loss: its transient
/// (log-softmax and its gradients) is freed before the last layer is
/// recomputed, so the two never coexist (measured on an H100,
/// tests/data/groundtruth/h100_measured.jsonl: Llama-3.2-1B mb 8 × 2048
/// with checkpointing peaks at checkpoints + loss alone, within 0.1 %).
/// The peak holds the larger of the two: the recomputed layer counts only
/// for what it exceeds the loss by. Returns that share and the formula.
fn recompute_beyond_loss(recompute: u128, loss: u128, formula: String) -> (u128, String) {
    if recompute == 0 {
        return (0, formula);
    }
    if recompute <= loss {
        return (
            0,
            format!("{formula} (the layer(s) rebuilt in backward, {recompute}, come after the loss's backward has freed more: not at the peak)"),
        );
    }
    (
        recompute - loss,
        format!("{formula} (at the peak: the layer(s) rebuilt in backward, {recompute}, less the loss's {loss} freed before them)"),
    )
}

/// DeepSeek Sparse Attention's indexer in a transformers forward: one
/// layer at a time it holds its fp32 scores of every query against every
/// key (`inference::sparse_indexer_scores`, measured on CPU), freed before
/// the next layer; its output, top-k indices, keeps no graph. At the end
/// of forward it stands beside everything saved, as the loss does after
/// it: the peak holds the larger transient, so it counts for what it
/// exceeds the loss (and a layer rebuilt in backward) by.
fn indexer_beyond_loss(r: &Resolved, transient: u128, formula: String) -> (u128, String) {
    let t = r.training;
    if !t.framework.is_hugging_face() {
        return (0, formula);
    }
    let Some((scores, _)) = crate::inference::sparse_indexer_scores(
        r.spec,
        u128::from(t.micro_batch),
        u128::from(t.seq_len),
    ) else {
        return (0, formula);
    };
    if scores <= transient {
        return (0, formula);
    }
    (
        scores - transient,
        format!("{formula} (at the peak: one layer's sparse-attention indexer scores, {scores}, beyond the loss's {transient})"),
    )
}

/// The weights on this GPU (with parameters offloaded to the CPU: the two
/// layers gathered at a time); returns the bytes alive on the GPU.
fn weights(r: &Resolved, lines: &mut Lines) -> u128 {
    let shards = &r.shards;
    let w = &r.weights;
    if shards.params_offloaded() {
        let (gathered, formula) = match crate::zero3::gathered_bytes(r).or_else(|| fsdp_gathered(r))
        {
            Some((bytes, formula)) => (bytes, format!("parameters offloaded to CPU; {formula}")),
            None => (
                shards.gathered_layers(w.total, 2),
                format!(
                    "parameters offloaded to CPU; 2 layers gathered at a time of {}",
                    w.formula
                ),
            ),
        };
        lines.gpu.push(Line::new(
            Part::Weights,
            gathered,
            formula,
            Counter::Allocated,
        ));
        // Each process keeps its own shard in host memory, as the other
        // CPU lines count this GPU's share (a node holds one per GPU).
        lines.cpu.push(Line::new(
            Part::Weights,
            shards.weights(w.total),
            shards.sharded_weights(&w.formula),
            Counter::Device,
        ));
        gathered
    } else if fsdp_mixed_precision(r) {
        lines.gpu.push(Line::new(
            Part::Weights,
            0,
            "no 16-bit copy kept: FSDP's mixed precision casts the fp32 shard (the master weights) to 16-bit for each all-gather".into(),
            Counter::Allocated,
        ));
        0
    } else {
        let (adapters, note) = adapter_weights(r);
        let bytes = shards.weights(w.total + adapters);
        lines.gpu.push(Line::new(
            Part::Weights,
            bytes,
            shards.sharded_weights(&format!("{}{note}", w.formula)),
            Counter::Allocated,
        ));
        bytes
    }
}

/// LoRA's A and B matrices beside the frozen weights, in the trainable
/// dtype (PEFT's fp32 over 16-bit weights, `resolved::trainable_dtype`).
fn adapter_weights(r: &Resolved) -> (u128, String) {
    if r.adapters == 0 {
        return (0, String::new());
    }
    // The adapters alone: a stated trainable count may include a trained
    // tower or projector, which are among the weights already.
    let (n, d) = (r.adapters, r.adapter_dtype);
    (
        n * d.bytes() as u128,
        format!(" + LoRA adapters {n} × {} B ({})", d.bytes(), d.name()),
    )
}

/// fp32 master copy: 16-bit weights trained with mixed precision keep one in
/// the optimizer (DeepSpeed/Megatron layout). HF AMP keeps fp32 weights
/// instead. Returns the bytes alive on the GPU.
fn master_weights(r: &Resolved, lines: &mut Lines) -> u128 {
    let shards = &r.shards;
    let sixteen_bit_weights = matches!(r.chosen_format, WeightFormat::Fp16 | WeightFormat::Bf16);
    if r.precision != TrainingPrecision::Amp || !sixteen_bit_weights {
        return 0;
    }
    let master = shards.optimizer(4 * r.trainable);
    if master == 0 {
        return 0;
    }
    let on_cpu = shards.optimizer_offloaded();
    lines.place(
        Line::new(
            Part::MasterWeights,
            master,
            format!("{} trainable × 4 B{}", r.trainable, shards.optimizer_note()),
            Counter::Allocated,
        ),
        on_cpu,
    );
    if on_cpu {
        0
    } else {
        master
    }
}

/// Every trainable parameter's gradient in its parameter's dtype.
fn gradient_bytes(r: &Resolved) -> u128 {
    r.trainable_bytes()
}

/// The gradients on this GPU; returns their bytes.
fn gradients(r: &Resolved, lines: &mut Lines) -> u128 {
    let t = r.training;
    let full = gradient_bytes(r);
    // The adapters' dtype when they are all that trains (PEFT's fp32).
    let dtype = if r.adapters == r.trainable {
        r.adapter_dtype
    } else if fsdp_mixed_precision(r) {
        // reduce-scattered into shards of the fp32 parameters
        crate::precision::Dtype::Fp32
    } else {
        r.trainable_dtype
    };
    let full = if fsdp_mixed_precision(r) {
        r.trainable * 4
    } else {
        full
    };
    if let Some(bucket) = offloaded_gradient_bucket(r, lines) {
        return bucket;
    }
    if let Some(unit) = fsdp_offloaded_gradients(r, lines) {
        return unit;
    }
    let bytes = if t.optimizer_in_backward {
        // Each gradient is applied and freed as soon as it is produced.
        full / (r.spec.layers.max(1) as u128)
    } else {
        r.shards.gradients(full)
    };
    lines.gpu.push(Line::new(
        Part::Gradients,
        bytes,
        format!(
            "{} trainable × {} B ({}){}{}",
            r.trainable,
            dtype.bytes(),
            dtype.name(),
            r.shards.gradient_note(),
            if t.optimizer_in_backward {
                ", freed per layer (optimizer in backward)"
            } else {
                ""
            }
        ),
        Counter::Allocated,
    ));
    bytes
}

/// The optimizer's states on this GPU, the CPU, or in unified memory
/// (paged); returns the bytes the allocator holds on the GPU.
fn optimizer_states(r: &Resolved, lines: &mut Lines) -> u128 {
    let t = r.training;
    let shards = &r.shards;
    let (millibytes, what) = optimizer::state_millibytes(r);
    let full = if t.optimizer == Optimizer::Adafactor {
        optimizer::adafactor_bytes(r)
    } else {
        let (adapter_millibytes, _) = optimizer::state_millibytes_in(r, r.adapter_dtype);
        (r.trainable - r.adapters) * millibytes / 1024 + r.adapters * adapter_millibytes / 1024
    };
    let states = shards.optimizer(full);
    let paged = matches!(
        t.optimizer,
        Optimizer::PagedAdamw | Optimizer::PagedAdamw8bit
    );
    let on_cpu = shards.optimizer_offloaded();
    lines.place(
        Line::new(
            if paged {
                Part::PagedOptimizer
            } else {
                Part::OptimizerStates
            },
            states,
            format!(
                "{} trainable × {:.3} B ({what}){}",
                r.trainable,
                Decimal(millibytes as f64 / 1024.0),
                shards.optimizer_note()
            ),
            if paged {
                Counter::Device
            } else {
                Counter::Allocated
            },
        ),
        on_cpu,
    );
    if on_cpu || paged {
        0
    } else {
        states
    }
}

/// End of backward: every gradient exists; a 16-bit embedding's backward
/// accumulates its gradient in an fp32 buffer (hf-sdpa-156/167 at s = 128:
/// peak − weights − gradients ≈ vocab × h × 4 B). Not seen on an H100 with
/// torch 2.11 (h100_measured.jsonl: Llama-3-8B's SGD step peaks 0.36 GiB
/// above weights + gradients, not 1.96 GiB): kept, as the figure measured
/// where the buffer decides the peak, until a run shows which kernels have it.
fn embedding_grad_buffer(r: &Resolved) -> u128 {
    if trains_every_weight(r.training.method) && r.trainable_dtype.bytes() == 2 {
        r.shards.gradients(r.counts.embedding as u128 * 4)
    } else {
        0
    }
}

/// Gradients are alive during forward/backward when they accumulate over
/// micro-batches, when zero_grad keeps them (legacy HF Trainer stack), or
/// when DeepSpeed ZeRO-3 keeps its optimizer on the GPU: the gradient
/// partitions are one flat buffer allocated once (`stage3.py`
/// `grad_partitions_flat_buffer`, zeroed, never freed).
fn gradients_alive_in_backward(r: &Resolved) -> bool {
    r.training.grad_accum > 1
        || r.training.framework == Framework::HfTrainer
        || (r.shards.strategy == crate::scenario::Strategy::Zero3
            && r.shards.training
            && !r.shards.optimizer_offloaded())
}

/// The moments of a step one of which holds the peak.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    ForwardBackward,
    EndOfBackward,
    OptimizerStep,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::ForwardBackward => "forward/backward",
            Phase::EndOfBackward => "end of backward",
            Phase::OptimizerStep => "optimizer step",
        }
    }

    /// Whether a line of `part` is alive in this phase.
    fn holds(self, part: Part, accumulating: bool) -> bool {
        match self {
            Phase::ForwardBackward => {
                part != Part::OptimizerStep && (accumulating || part != Part::Gradients)
            }
            Phase::EndOfBackward => matches!(
                part,
                Part::Weights
                    | Part::MasterWeights
                    | Part::OptimizerStates
                    | Part::Gradients
                    | Part::Workspace
            ),
            Phase::OptimizerStep => matches!(
                part,
                Part::Weights
                    | Part::MasterWeights
                    | Part::OptimizerStates
                    | Part::Gradients
                    | Part::OptimizerStep
                    | Part::Workspace
            ),
        }
    }
}

impl Alive {
    /// Weights, master weights and optimizer states.
    fn held(&self) -> u128 {
        self.weights + self.master + self.states
    }

    /// Forward and backward: everything held, saved and the loss.
    fn backward(&self, accumulating: bool) -> u128 {
        self.held()
            + self.activations
            + self.loss
            + self.dequant
            + self.buckets
            + self.gathered
            + if accumulating { self.gradients } else { 0 }
    }

    /// The largest of the three moments, and which it is.
    fn peak(&self, accumulating: bool) -> (u128, Phase) {
        let held = self.held();
        let backward = self.backward(accumulating);
        let step = held + self.gradients + self.step + self.buckets;
        let backward_end =
            held + self.gradients + self.buckets + self.embedding_grad + self.loss_to_backward_end;
        if step >= backward.max(backward_end) {
            (step, Phase::OptimizerStep)
        } else if backward_end > backward {
            (backward_end, Phase::EndOfBackward)
        } else {
            (backward, Phase::ForwardBackward)
        }
    }
}

/// Marks what is not alive at the chosen peak (and what is, among the lines
/// written as not at the peak).
fn mark_not_at_peak(lines: &mut [Line], phase: Phase, accumulating: bool) {
    for l in lines {
        let alive = phase.holds(l.part, accumulating);
        if l.counter == Counter::Allocated && !alive {
            l.counter = Counter::NotAtPeak;
        } else if l.counter == Counter::NotAtPeak && alive {
            l.counter = Counter::Allocated;
        }
    }
}
