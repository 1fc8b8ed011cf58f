//! Speed of the estimator: one estimate, and the full fit table (every
//! catalog GPU × largest micro-batch solve). Targets (native): one estimate
//! under 20 µs, the full table under 2 ms.
//!
//! `cargo bench -p vramfit-core`

use vramfit_core::estimate::{estimate_with_model, resolve_model};
use vramfit_core::scenario::{Checkpointing, Method, ModelSource, Scenario, TaskKind};
use vramfit_core::solver::fit_table_with_model;

fn main() {
    divan::main();
}

fn training() -> Scenario {
    let mut s = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    s.training.method = Method::Lora;
    s.training.micro_batch = 4;
    s.training.seq_len = 2048;
    s.training.checkpointing = Checkpointing::Full;
    s.gpu.name = Some("a100-sxm4-80gb".into());
    s
}

#[divan::bench]
fn one_estimate(bencher: divan::Bencher) {
    let sc = training();
    let spec = resolve_model(&sc.model).expect("catalog model");
    bencher.bench(|| estimate_with_model(divan::black_box(&sc), divan::black_box(&spec)));
}

#[divan::bench]
fn one_estimate_with_catalog_lookup(bencher: divan::Bencher) {
    let sc = training();
    bencher.bench(|| vramfit_core::estimate(divan::black_box(&sc)));
}

#[divan::bench]
fn fit_table_training(bencher: divan::Bencher) {
    let sc = training();
    let spec = resolve_model(&sc.model).expect("catalog model");
    let cards = vramfit_core::gpu::gpus();
    bencher.bench(|| fit_table_with_model(divan::black_box(&sc), &spec, cards));
}

#[divan::bench]
fn fit_table_inference(bencher: divan::Bencher) {
    let mut sc = training();
    sc.task = TaskKind::Inference;
    let spec = resolve_model(&sc.model).expect("catalog model");
    let cards = vramfit_core::gpu::gpus();
    bencher.bench(|| fit_table_with_model(divan::black_box(&sc), &spec, cards));
}
