//! One rank of a sharded training job against what one H100 measured
//! (`tests/data/sharded/`: `measure_sharded.py`, torch 2.11.0+cu130,
//! transformers 5.17.0, DeepSpeed 0.19.8; README there). The GPU stood for
//! rank 0 of a world of N under PyTorch's fake process group, whose
//! collectives launch nothing while the frameworks allocate every buffer a
//! real rank does; at a world of one, the fake and the NCCL group allocated
//! the same bytes. Each run is rebuilt as a scenario (Llama-3.2-1B's or
//! Llama-3-8B's dimensions) and scored on peak allocated.

mod common;

use common::{json_lines, llama_1b, llama_8b};
use vramfit_core::model::ModelSpec;
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Framework, LoraTarget, Method, ModelSource, Offload, Strategy,
    TaskKind,
};
use vramfit_core::{estimate, Scenario};

struct Run {
    id: String,
    row: serde_json::Value,
}

fn runs() -> Vec<Run> {
    json_lines("sharded/sharded.jsonl")
        .into_iter()
        .filter(|(v, _)| v["ok"].as_bool() == Some(true))
        .map(|(row, _)| Run {
            id: row["id"].as_str().expect("id").to_string(),
            row,
        })
        .collect()
}

/// The run's model: Llama-3.2-1B's or Llama-3-8B's dimensions.
fn llama(row: &serde_json::Value) -> ModelSpec {
    let layers = row["layers"].as_u64().expect("layers");
    if row["model_dims"].as_str() == Some("Llama-3-8B dims") {
        llama_8b(layers)
    } else {
        llama_1b(layers)
    }
}

fn scenario(run: &Run) -> Scenario {
    let r = &run.row;
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(llama(r))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.attention = Attention::Sdpa;
    sc.gpu.name = Some("NVIDIA H100 80GB HBM3".into());
    sc.training.method = Method::Full;
    sc.training.micro_batch = r["micro_batch"].as_u64().expect("micro_batch");
    sc.training.seq_len = r["seq_len"].as_u64().expect("seq_len");
    sc.training.checkpointing = match r["checkpointing"].as_str() {
        Some("full") => Checkpointing::Full,
        Some("op") => Checkpointing::Op,
        _ => Checkpointing::Off,
    };
    sc.parallel.gpus = r["world"].as_u64().expect("world");
    sc.empty_cache_after_load = true;
    let titan = run.id.contains("titan");
    if r["kind"] == "fsdp1" {
        // accelerate's FSDP1: bf16 MixedPrecision over fp32 flat shards
        sc.parallel.strategy = Strategy::Fsdp;
        sc.training.framework = Framework::Transformers;
        sc.weights = WeightFormat::Bf16;
        sc.training_precision = TrainingPrecision::Amp;
    } else if r["kind"] == "fsdp2" {
        sc.parallel.strategy = Strategy::Fsdp;
        sc.training.framework = Framework::Transformers;
        sc.weights = WeightFormat::Bf16;
        // torchtitan: fp32 shards, bf16 gathered for compute, fp32 reduce
        sc.training_precision = if titan {
            TrainingPrecision::Amp
        } else {
            TrainingPrecision::Pure16
        };
        sc.training.fused_optimizer = titan;
        if r["cpu_offload"].as_bool() == Some(true) {
            sc.parallel.offload = Offload::OptimizerParams;
        }
    } else {
        // the "auto" row is DeepSpeed as the Trainer and accelerate fill
        // in its config: h² reduce bucket, 0.9·h² prefetch, 10·h persistence
        sc.training.framework = if run.id.ends_with("auto") {
            Framework::Transformers
        } else {
            Framework::Deepspeed
        };
        sc.weights = WeightFormat::Bf16;
        // DeepSpeed's `bf16: enabled` keeps fp32 master partitions and
        // fp32 optimizer states under its 16-bit parameters
        sc.training_precision = TrainingPrecision::Amp;
        let z = &r["zero"];
        sc.parallel.strategy = match z["stage"].as_u64() {
            Some(1) => Strategy::Zero1,
            Some(2) => Strategy::Zero2,
            _ => Strategy::Zero3,
        };
        if r["lora"].is_string() {
            sc.training.method = Method::Lora;
            sc.training.lora.rank = 16;
            sc.training.lora.targets = [&LoraTarget::ATTENTION[..], &LoraTarget::MLP[..]].concat();
            sc.training.lora.dropout = 0.0;
        }
        if !run.id.ends_with("auto") {
            sc.parallel.zero3_prefetch_bucket = z["stage3_prefetch_bucket_size"].as_u64();
            sc.parallel.zero3_persistence_threshold =
                z["stage3_param_persistence_threshold"].as_u64();
        }
        sc.parallel.zero3_max_live = z["stage3_max_live_parameters"].as_u64();
        sc.parallel.zero3_max_reuse = z["stage3_max_reuse_distance"].as_u64();
        sc.parallel.offload = match (
            z.get("offload_optimizer").is_some(),
            z.get("offload_param").is_some(),
        ) {
            (true, true) => Offload::OptimizerParams,
            (true, false) => Offload::Optimizer,
            _ => Offload::None,
        };
    }
    sc
}

fn peak(run: &Run) -> u64 {
    estimate(&scenario(run)).expect("estimates").gpus[0].peak_allocated_bytes
}

fn measured(run: &Run) -> u64 {
    run.row["peak_allocated"].as_u64().expect("peak_allocated")
}

#[test]
fn every_sharded_run_within_one_percent() {
    let all = runs();
    assert!(all.len() >= 20, "{} runs", all.len());
    let mut failures = Vec::new();
    for run in &all {
        let (est, m) = (peak(run), measured(run));
        let err = est as f64 / m as f64 - 1.0;
        let reserved = estimate(&scenario(run)).expect("estimates").gpus[0].peak_reserved_bytes;
        let res_err = reserved as f64 / run.row["peak_reserved"].as_f64().unwrap_or(1.0) - 1.0;
        eprintln!(
            "{:<28} est {est} measured {m} ({:+.2}%), reserved {:+.1}%",
            run.id,
            err * 100.0,
            res_err * 100.0
        );
        if err.abs() > 0.01 {
            failures.push(format!("{}: {:+.2}%", run.id, err * 100.0));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// Each mechanism on its own: what one setting changes, measured against
/// estimated, so a run right only by compensating errors fails.
#[test]
fn what_each_setting_changes_matches_the_measured_difference() {
    let all = runs();
    let find = |id: &str| {
        all.iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    let pairs = [
        // DeepSpeed's 5e8-element bucket against the Trainer's h²
        ("ds-z3-w8", "ds-z3-w8-auto"),
        // the optimizer's fp32 partitions, states and gradients to the CPU
        ("ds-z3-w8", "ds-z3-w8-offopt"),
        // FSDP2: a world of 2 against 8 (the shards)
        ("fsdp2-titan-w2-ac", "fsdp2-titan-w8-ac"),
        // torchtitan's fp32 shards against torchtune's bf16 ones
        ("fsdp2-titan-w8-ac", "fsdp2-bf16-w8-ac"),
        // FSDP2's CPU offload
        ("fsdp2-bf16-w8-ac", "fsdp2-bf16-w8-ac-cpuoffload"),
        // per-op SAC against full checkpointing under FSDP2
        ("fsdp2-titan-w8-op", "fsdp2-titan-w8-ac"),
    ];
    for (a, b) in pairs {
        let (a, b) = (find(a), find(b));
        let m = measured(a) as f64 - measured(b) as f64;
        let e = peak(a) as f64 - peak(b) as f64;
        let err = e / m - 1.0;
        eprintln!(
            "{} - {}: est {e} measured {m} ({:+.1}%)",
            a.id,
            b.id,
            err * 100.0
        );
        assert!(
            err.abs() <= 0.05,
            "{} - {}: est {e} vs measured {m} ({:+.1}%)",
            a.id,
            b.id,
            err * 100.0
        );
    }
}

/// At a world of one, PyTorch's fake process group allocated what NCCL's
/// did, to the byte: the method the other rows rest on.
#[test]
fn the_fake_group_allocates_what_nccl_does() {
    let all = runs();
    let row = |id: &str| &all.iter().find(|r| r.id == id).expect(id).row;
    let (fake, nccl) = (row("fsdp2-titan-w1-fake-ac"), row("fsdp2-titan-w1-nccl-ac"));
    for k in ["peak_allocated", "peak_reserved", "start_allocated"] {
        assert_eq!(fake[k], nccl[k], "{k}");
    }
}
