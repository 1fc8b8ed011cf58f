//! DeepSpeed ZeRO-3's gathered parameters at the start of backward, by its
//! coordinator's rules (`vramfit_core::zero3`): each knob's effect worked
//! out on Llama-3.1-8B's module sizes (q 16,777,216; k, v 4,194,304;
//! o 16,777,216; gate, up, down 58,720,256; head 525,336,576; norms 4096).

use vramfit_core::estimate::resolve_model;
use vramfit_core::resolved::Resolved;
use vramfit_core::scenario::{Checkpointing, Framework, Scenario, Strategy};
use vramfit_core::url::decode;
use vramfit_core::zero3::{gathered_at_backward, Gathered, Knobs};

const HEAD: u64 = 128_256 * 4096;
const LAYER: u64 = 2 * 16_777_216 + 2 * 4_194_304 + 3 * 58_720_256;

fn llama_8b(edit: impl Fn(&mut Scenario)) -> (Gathered, Knobs) {
    let mut sc =
        decode("v=1&m=meta-llama/Llama-3.1-8B&t=train&par=zero3&n=8&mb=1&seq=2048").scenario;
    sc.training.framework = Framework::HfTrainer;
    sc.training.checkpointing = Checkpointing::Full;
    edit(&mut sc);
    assert_eq!(sc.parallel.strategy, Strategy::Zero3);
    let spec = resolve_model(&sc.model).expect("catalog model");
    let r = Resolved::new(&sc, &spec);
    (gathered_at_backward(&r), Knobs::of(&r))
}

#[test]
fn auto_knobs_are_the_trainers_and_raw_deepspeed_keeps_its_defaults() {
    let (_, trainer) = llama_8b(|_| {});
    assert_eq!(trainer.prefetch_bucket, 4096 * 4096 / 10 * 9);
    assert_eq!(trainer.persistence_threshold, 40_960);
    assert_eq!(
        (trainer.max_live, trainer.max_reuse),
        (1_000_000_000, 1_000_000_000)
    );
    let (_, raw) = llama_8b(|sc| sc.training.framework = Framework::Deepspeed);
    assert_eq!(
        (raw.prefetch_bucket, raw.persistence_threshold),
        (50_000_000, 100_000)
    );
}

#[test]
fn norms_stay_whole_on_every_gpu() {
    // 32 layers × 2 RMSNorms + the final norm, 4096 each, under 10·h.
    let (g, _) = llama_8b(|_| {});
    assert_eq!(g.persistent, 65 * 4096);
    // Under a threshold below the hidden size nothing is persistent.
    let (g, _) = llama_8b(|sc| sc.parallel.zero3_persistence_threshold = Some(1000));
    assert_eq!(g.persistent, 0);
}

#[test]
fn without_prefetch_or_reuse_only_the_head_is_gathered() {
    let (g, _) = llama_8b(|sc| {
        sc.parallel.zero3_prefetch_bucket = Some(0);
        sc.parallel.zero3_max_reuse = Some(0);
    });
    assert_eq!(g.partitioned, HEAD);
}

#[test]
fn a_long_reuse_distance_keeps_what_backward_uses_next() {
    // No prefetch; a reuse window of 1e9 elements. Looking ahead from each
    // forward module: the head's backward use comes at once (kept); the
    // last layer's down projection sees the final norm, the head twice
    // (1.05e9) and stops before its own recompute: released, like every
    // earlier module. So only the head stays.
    let (g, _) = llama_8b(|sc| sc.parallel.zero3_prefetch_bucket = Some(0));
    assert_eq!(g.partitioned, HEAD);
    // A window past the whole trace keeps every layer's parameters.
    let (g, _) = llama_8b(|sc| {
        sc.parallel.zero3_prefetch_bucket = Some(0);
        sc.parallel.zero3_max_reuse = Some(u64::MAX);
    });
    assert_eq!(
        g.partitioned,
        HEAD + HEAD + 32 * LAYER,
        "embedding, head and every layer"
    );
}

#[test]
fn prefetch_runs_ahead_until_the_live_budget() {
    // Every module, parameters or not, prefetches up to the bucket, so the
    // prefetcher outruns the modules it serves until max_live stops it:
    // at the turn the gathered elements sit at the budget, past it by at
    // most the head fetched for its own use.
    let (g, k) = llama_8b(|_| {});
    assert!(g.partitioned >= k.max_live - k.prefetch_bucket, "{g:?}");
    assert!(g.partitioned <= k.max_live + HEAD, "{g:?}");
    // A smaller budget holds fewer.
    let (small, _) = llama_8b(|sc| sc.parallel.zero3_max_live = Some(300_000_000));
    assert!(small.partitioned < g.partitioned);
    assert!(small.partitioned <= 300_000_000 + HEAD, "{small:?}");
}

/// With the optimizer on the CPU, DeepSpeed's gradients pass through a
/// reduce bucket on the GPU (h² elements under the Trainer's "auto", 5e8
/// under DeepSpeed's default) into an fp32 partition on the CPU. Stage 3
/// allocates its bucket once, beside a gradient partition it keeps on the
/// GPU only when the optimizer is there too (`stage3.py`
/// `_setup_for_real_optimizer`); stages 1 and 2 allocate theirs at the
/// first gradient of backward and keep a staging buffer the size of the
/// largest parameter, Llama-3.1-8B's 128256 × 4096 embedding
/// (`stage_1_and_2.py`).
#[test]
fn offloaded_optimizer_leaves_one_reduce_bucket_of_gradients_on_the_gpu() {
    use vramfit_core::report::Part;
    let embedding = 128_256u64 * 4096;
    for (fw, elements) in [("hf_trainer", 4096u64 * 4096), ("deepspeed", 500_000_000)] {
        for par in ["zero2", "zero3"] {
            let link = format!(
                "v=1&m=meta-llama/Llama-3.1-8B&t=train&par={par}&n=8&mb=1&seq=1024&fw={fw}&off=optimizer"
            );
            let e = vramfit_core::estimate(&decode(&link).scenario).expect(&link);
            let sum = |part: Part, what: &str| -> u64 {
                e.gpus[0]
                    .lines
                    .iter()
                    .filter(|l| l.part == part && l.formula.contains(what))
                    .map(|l| l.bytes)
                    .sum()
            };
            let (bucket, staging) = if par == "zero3" {
                (sum(Part::Workspace, "gradient bucket"), 0)
            } else {
                (
                    sum(Part::Gradients, "reduce bucket"),
                    sum(Part::Workspace, "staging buffer"),
                )
            };
            assert_eq!(bucket, elements * 2, "{link}");
            let expected_staging = if par == "zero3" { 0 } else { embedding * 2 };
            assert_eq!(staging, expected_staging, "{link}");
            // no gradient partition on the GPU with the optimizer on the CPU
            let gradients = sum(Part::Gradients, "");
            assert_eq!(gradients, if par == "zero3" { 0 } else { bucket }, "{link}");
            let cpu: u64 = e
                .cpu_lines
                .iter()
                .filter(|l| l.part == Part::Gradients)
                .map(|l| l.bytes)
                .sum();
            assert_eq!(cpu, 8_030_261_248 * 4 / 8, "{link}");
        }
    }
}

/// FSDP with its parameters on the CPU: one layer's unsharded gradients on
/// the GPU until the reduce-scatter, this process's gradient and parameter
/// shards in host memory.
#[test]
fn fsdp_cpu_offload_keeps_one_layers_gradients_on_the_gpu() {
    use vramfit_core::report::Part;
    let link = "v=1&m=meta-llama/Llama-3.1-8B&t=train&par=fsdp&n=8&mb=1&seq=1024&ckpt=full&off=optimizer_params&fw=torchtune";
    let e = vramfit_core::estimate(&decode(link).scenario).expect(link);
    let part = |lines: &[vramfit_core::report::Line], p: Part| -> u64 {
        lines.iter().filter(|l| l.part == p).map(|l| l.bytes).sum()
    };
    let total_bytes = 8_030_261_248u64 * 2;
    // 2 B (bf16) × all parameters / 32 layers, as the gathered layers are counted.
    assert_eq!(part(&e.gpus[0].lines, Part::Gradients), total_bytes / 32);
    assert_eq!(part(&e.cpu_lines, Part::Gradients), total_bytes / 8);
    // The host keeps this process's shard of the parameters, not the model.
    let weights: Vec<u64> = e
        .cpu_lines
        .iter()
        .filter(|l| l.part == Part::Weights)
        .map(|l| l.bytes)
        .collect();
    assert!(weights.contains(&(total_bytes / 8)), "{weights:?}");
}

/// FSDP's mixed precision with the parameters on the CPU: the gathered
/// units are counted once, in the weights line (the root unit and one
/// layer of Llama-3.1-8B in bf16), not again as a workspace.
#[test]
fn fsdp_offloaded_mixed_precision_counts_its_gathered_units_once() {
    use vramfit_core::report::Part;
    let link = "v=1&m=meta-llama/Llama-3.1-8B&t=train&prec=amp&par=fsdp&n=8&mb=1&seq=1024&ckpt=full&off=optimizer_params";
    let e = vramfit_core::estimate(&decode(link).scenario).expect(link);
    let gathered: Vec<(Part, u64)> = e.gpus[0]
        .lines
        .iter()
        .filter(|l| l.formula.contains("FSDP at the loss's backward"))
        .map(|l| (l.part, l.bytes))
        .collect();
    // embedding and untied head 2 × 128256 × 4096, the final norm, and one
    // of the 32 layers' 218,112,000 parameters, 2 B each
    let root = 2 * 128_256 * 4096 + 4096;
    assert_eq!(gathered, vec![(Part::Weights, (root + 218_112_000) * 2)]);
}
