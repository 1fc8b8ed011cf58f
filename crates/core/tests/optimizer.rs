//! The optimizer step's temporaries: torch's default foreach AdamW holds a
//! full-size intermediate (`_foreach_sqrt` of `exp_avg_sq`, one per
//! trainable parameter); the fused kernel (`fused=True`) updates in place.

use vramfit_core::estimate::estimate;
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::report::Part;
use vramfit_core::scenario::{Checkpointing, ModelSource, Optimizer, Scenario, TaskKind};

fn full_finetune(model: &str) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog(model.into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.seq_len = 1024;
    sc.training.checkpointing = Checkpointing::Full;
    sc
}

#[test]
fn fused_adamw_drops_the_foreach_temporary() {
    let foreach = full_finetune("meta-llama/Meta-Llama-3-8B");
    let mut fused = foreach.clone();
    fused.training.fused_optimizer = true;
    let a = estimate(&foreach).expect("foreach");
    let b = estimate(&fused).expect("fused");
    let temporary = a.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::OptimizerStep)
        .expect("a foreach step line")
        .bytes;
    // bf16 states: 2 bytes per trainable parameter.
    assert_eq!(temporary, 2 * a.trainable_params);
    assert!(b.gpus[0]
        .lines
        .iter()
        .all(|l| l.part != Part::OptimizerStep));
    // The foreach step holds the peak; without its temporary the peak falls
    // by at most that much (backward may then hold it).
    assert_eq!(a.gpus[0].peak_phase, "optimizer step");
    let saved = a.gpus[0].peak_allocated_bytes - b.gpus[0].peak_allocated_bytes;
    assert!(
        saved > temporary / 2 && saved <= temporary,
        "{saved} of {temporary}"
    );
}

#[test]
fn optimizers_without_a_fused_kernel_keep_their_step() {
    let mut lion = full_finetune("meta-llama/Llama-3.2-1B");
    lion.training.optimizer = Optimizer::Lion;
    let mut fused = lion.clone();
    fused.training.fused_optimizer = true;
    assert_eq!(
        estimate(&lion).expect("lion").gpus[0].peak_allocated_bytes,
        estimate(&fused).expect("lion").gpus[0].peak_allocated_bytes
    );
}

/// transformers' Adafactor steps one tensor at a time in fp32: `grad**2 +
/// eps` beside its operand and `_approx_sq_grad`'s update beside the old
/// one; a 16-bit parameter also has `grad.float()` and `p.float()` alive.
/// Llama-3-8B's largest tensor is its 128,256 × 4,096 embedding.
#[test]
fn adafactor_steps_its_largest_tensor_in_fp32_copies() {
    let embedding: u64 = 128_256 * 4_096;
    let step = |precision| {
        let mut sc = full_finetune("meta-llama/Meta-Llama-3-8B");
        sc.training.optimizer = Optimizer::Adafactor;
        sc.training_precision = precision;
        if precision == TrainingPrecision::Amp {
            sc.weights = WeightFormat::Fp32;
        }
        let e = estimate(&sc).expect("adafactor");
        e.gpus[0]
            .lines
            .iter()
            .find(|l| l.part == Part::OptimizerStep)
            .expect("a step line")
            .bytes
    };
    assert_eq!(step(TrainingPrecision::Pure16), 4 * 4 * embedding);
    assert_eq!(step(TrainingPrecision::Amp), 2 * 4 * embedding);
}
