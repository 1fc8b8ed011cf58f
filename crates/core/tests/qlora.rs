//! QLoRA as the common recipes run it, against what one H100 measured
//! (`tests/data/qlora/`: `measure_qlora.py`, torch 2.11.0+cu130,
//! transformers 5.17.0, peft 0.21.0, bitsandbytes 0.50.2; README there).
//! The measured runs, as cases (`qlora_cases.jsonl`, written by
//! `to_cases.py`), must land within 3 % on peak allocated; and each
//! mechanism's bytes are checked on their own, so a total that is right by
//! a compensating error fails.

use vramfit_core::cases::{parse_cases, score_case, Case};
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind};
use vramfit_core::precision::WeightFormat;
use vramfit_core::scenario::{
    Checkpointing, Framework, KbitPrep, LoraTarget, Method, ModelSource, TaskKind,
};
use vramfit_core::{estimate, Part, Scenario};

fn cases() -> Vec<Case> {
    parse_cases(include_str!("data/qlora/qlora_cases.jsonl"))
        .into_iter()
        .map(|c| c.expect("every QLoRA case parses"))
        .collect()
}

#[test]
fn every_measured_recipe_within_three_percent_on_peak_allocated() {
    let all = cases();
    let allocated: Vec<&Case> = all
        .iter()
        .filter(|c| c.measured.metric == "peak_allocated")
        .collect();
    assert!(allocated.len() >= 14, "{} cases", allocated.len());
    for recipe in ["plain", "prep", "trl"] {
        assert!(
            allocated
                .iter()
                .any(|c| c.id.contains(&format!("-{recipe}-"))),
            "no {recipe} case"
        );
    }
    for case in allocated {
        let s = score_case(case);
        let e = s
            .rel_error
            .unwrap_or_else(|| panic!("{}: {:?}", case.id, s.reason));
        assert!(e.abs() <= 0.03, "{}: {:+.1} %", case.id, e * 100.0);
    }
}

/// Llama-3-8B's public config values.
fn llama_8b() -> ModelSpec {
    ModelSpec {
        name: "Llama-3-8B dims".into(),
        arch: Arch::Llama,
        hidden: 4096,
        layers: 32,
        heads: 32,
        kv_heads: 8,
        head_dim: Some(128),
        intermediate: 14336,
        vocab: 128256,
        max_position: 8192,
        tied_embeddings: false,
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        ..ModelSpec::default()
    }
}

fn qlora(prep: KbitPrep, checkpointing: Checkpointing) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(llama_8b())),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.weights = WeightFormat::Nf4;
    sc.double_quant = true;
    sc.gpu.name = Some("NVIDIA H100 80GB HBM3".into());
    sc.training.framework = Framework::HfTrainer;
    sc.training.method = Method::Qlora;
    sc.training.lora.rank = 16;
    sc.training.lora.targets = vec![
        LoraTarget::Q,
        LoraTarget::K,
        LoraTarget::V,
        LoraTarget::O,
        LoraTarget::Gate,
        LoraTarget::Up,
        LoraTarget::Down,
    ];
    sc.training.micro_batch = 4;
    sc.training.seq_len = 2048;
    sc.training.checkpointing = checkpointing;
    sc.training.kbit_prep = prep;
    sc
}

fn line(sc: &Scenario, part: Part) -> u64 {
    let e = estimate(sc).expect("estimates");
    e.gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == part)
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn fp32_norms_make_every_checkpoint_fp32() {
    // Linear4bit returns its input's dtype: with fp32 norms the residual
    // stream is fp32, so each of the 32 checkpoints holds 2 B more per
    // element of 4 × 2048 tokens × 4096.
    let extra = 2 * 4 * 2048 * 4096 * 32;
    let none = line(
        &qlora(KbitPrep::None, Checkpointing::Full),
        Part::Activations,
    );
    for prep in [KbitPrep::Trl, KbitPrep::Fp32] {
        let with = line(&qlora(prep, Checkpointing::Full), Part::Activations);
        let head_copy = if prep == KbitPrep::Fp32 {
            2 * 128256 * 4096
        } else {
            0
        };
        assert_eq!(with - none, extra + head_copy, "{prep:?}");
    }
    // Without checkpointing there is no checkpoint to widen.
    assert_eq!(
        line(&qlora(KbitPrep::Trl, Checkpointing::Off), Part::Activations),
        line(
            &qlora(KbitPrep::None, Checkpointing::Off),
            Part::Activations
        )
    );
}

#[test]
fn peft_prepare_stores_the_unquantized_parameters_in_fp32() {
    // Embeddings, head and norms of Llama-3-8B: 2 × 128256 × 4096 + 65 × 4096.
    let unquantized: u64 = 2 * 128256 * 4096 + 65 * 4096;
    let fp32 = line(&qlora(KbitPrep::Fp32, Checkpointing::Full), Part::Weights);
    let trl = line(&qlora(KbitPrep::Trl, Checkpointing::Full), Part::Weights);
    assert_eq!(fp32 - trl, 2 * unquantized);
}

#[test]
fn the_trainer_steps_only_the_adapters() {
    // The HF Trainer's for-loop step holds two temporaries of the largest
    // trainable tensor: a LoRA matrix r × 14336 in bf16, not the 1 GB head.
    let step = line(
        &qlora(KbitPrep::Auto, Checkpointing::Full),
        Part::OptimizerStep,
    );
    assert_eq!(step, 2 * 16 * 14336 * 2);
}

#[test]
fn auto_follows_the_framework() {
    let mut sc = qlora(KbitPrep::Auto, Checkpointing::Full);
    assert_eq!(sc.kbit_prep_in_effect(), KbitPrep::Trl);
    sc.training.framework = Framework::Transformers;
    assert_eq!(sc.kbit_prep_in_effect(), KbitPrep::None);
    sc.training.framework = Framework::HfTrainer;
    sc.parallel.gpus = 2;
    sc.parallel.strategy = vramfit_core::scenario::Strategy::Fsdp;
    assert_eq!(sc.kbit_prep_in_effect(), KbitPrep::None);
    // Not a 4-bit model: nothing to prepare.
    let mut lora = qlora(KbitPrep::Fp32, Checkpointing::Full);
    lora.training.method = Method::Lora;
    lora.weights = WeightFormat::Bf16;
    assert_eq!(lora.kbit_prep_in_effect(), KbitPrep::None);
}
