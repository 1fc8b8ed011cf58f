//! LoRA's adapters beside the frozen weights. PEFT's
//! `autocast_adapter_dtype=True` (its default since 0.12) upcasts adapters
//! of a 16-bit model to fp32, so their weights, gradients and AdamW states
//! are fp32 ("adapter weights fp32" in every LoRA row of
//! `tests/data/groundtruth/h100_measured.jsonl`); torchtune keeps them in the
//! model's dtype. Until 2026-11-27 the adapters' own weights were not
//! counted: Llama-3-8B with r 64 on every linear was 1.8 % low, LLaVA-1.5
//! with r 128 up to 9.6 % (README there).

mod common;

use common::part_bytes;
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{Framework, LoraTarget, Method, ModelSource, TaskKind};
use vramfit_core::{Part, Scenario};

fn lora(framework: Framework) -> Scenario {
    let spec = vramfit_core::catalog::find_model("meta-llama/Meta-Llama-3-8B")
        .expect("in the catalog")
        .spec
        .clone();
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.weights = WeightFormat::Bf16;
    sc.training_precision = TrainingPrecision::Pure16;
    sc.training.framework = framework;
    sc.training.method = Method::Lora;
    sc.training.lora.rank = 64;
    sc.training.lora.targets = [&LoraTarget::ATTENTION[..], &LoraTarget::MLP[..]].concat();
    sc
}

/// r · (in + out) per adapted linear of Llama-3-8B (h 4096, kv 1024,
/// MLP 14336), 32 layers.
const ADAPTERS: u64 = 32 * 64 * ((4096 + 4096) * 2 + (4096 + 1024) * 2 + 3 * (4096 + 14336));

#[test]
fn peft_adapters_are_fp32_beside_the_bf16_weights() {
    assert_eq!(ADAPTERS, 167_772_160);
    let peft = lora(Framework::Transformers);
    let mut full = peft.clone();
    full.training.method = Method::Full;
    let base = part_bytes(&full, Part::Weights);
    assert_eq!(part_bytes(&peft, Part::Weights), base + 4 * ADAPTERS);
    assert_eq!(part_bytes(&peft, Part::Gradients), 4 * ADAPTERS);
    // AdamW's two states follow the fp32 parameters.
    assert_eq!(part_bytes(&peft, Part::OptimizerStates), 8 * ADAPTERS);
}

#[test]
fn torchtune_adapters_stay_in_the_model_dtype() {
    let tune = lora(Framework::Torchtune);
    let mut full = tune.clone();
    full.training.method = Method::Full;
    let base = part_bytes(&full, Part::Weights);
    assert_eq!(part_bytes(&tune, Part::Weights), base + 2 * ADAPTERS);
    assert_eq!(part_bytes(&tune, Part::Gradients), 2 * ADAPTERS);
}
