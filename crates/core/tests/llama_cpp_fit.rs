//! What today's llama.cpp picks with no `-ngl` and no `-c` (its `--fit`,
//! `src/llama_cpp_fit.rs`): the model's own context when everything fits
//! with 1 GiB to spare, else a shorter context before any layer leaves the
//! GPU, else 4,096 tokens and the fewest experts or layers on the CPU.

use vramfit_core::catalog::find_model;
use vramfit_core::estimate::estimate_with_model;
use vramfit_core::llama_cpp_fit::{llama_cpp_default_fit, FIT_MARGIN_BYTES, FIT_MIN_CONTEXT};
use vramfit_core::precision::WeightFormat;
use vramfit_core::scenario::{Engine, Scenario, TaskKind};

fn scenario(gpu: &str) -> Scenario {
    let mut sc = Scenario {
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.weights = WeightFormat::GgufQ4KM;
    sc.inference.engine = Engine::LlamaCpp;
    sc.gpu.name = Some(gpu.to_owned());
    sc
}

/// Device used and capacity at a context and placement.
fn used(sc: &Scenario, model: &str, ctx: u64, ngl: u64, cpu_moe: u64) -> (u64, u64) {
    let spec = &find_model(model).expect("catalog").spec;
    let mut s = sc.clone();
    s.inference.prompt_len = ctx;
    s.inference.new_tokens = 0;
    s.inference.gpu_layers = Some(ngl);
    s.inference.cpu_moe_layers = cpu_moe;
    let e = estimate_with_model(&s, spec).expect("estimates");
    (
        e.headline_gpu().device_used_bytes,
        e.capacity_bytes.expect("a card"),
    )
}

fn leaves((used, capacity): (u64, u64)) -> bool {
    used + FIT_MARGIN_BYTES <= capacity
}

#[test]
fn a_small_model_on_a_large_card_keeps_its_own_context() {
    let sc = scenario("h100-sxm5-80gb");
    let spec = &find_model("meta-llama/Llama-3.2-1B").expect("catalog").spec;
    let fit = llama_cpp_default_fit(&sc, spec).expect("fits");
    assert_eq!(fit.n_ctx, spec.max_position);
    assert_eq!(fit.n_gpu_layers, spec.layers + 1);
    assert!(fit.leaves_margin);
}

/// Llama-3.1-8B (128k context) on a 16 GB card: every layer stays, the
/// context shrinks to whole 256-cell blocks between 4,096 and 128k, and it
/// leaves the margin.
#[test]
fn the_context_shrinks_before_any_layer_leaves_the_gpu() {
    let sc = scenario("rtx-4060-ti-16gb");
    let model = "meta-llama/Llama-3.1-8B";
    let spec = &find_model(model).expect("catalog").spec;
    let fit = llama_cpp_default_fit(&sc, spec).expect("fits");
    assert_eq!(fit.n_gpu_layers, spec.layers + 1);
    assert!(
        fit.n_ctx > FIT_MIN_CONTEXT && fit.n_ctx < spec.max_position,
        "{fit:?}"
    );
    assert_eq!(fit.n_ctx % 256, 0);
    assert!(leaves(used(&sc, model, fit.n_ctx, spec.layers + 1, 0)));
    assert!(!leaves(used(
        &sc,
        model,
        spec.max_position,
        spec.layers + 1,
        0
    )));
}

/// A model too large for the card at 4,096 tokens: a dense one keeps the
/// most layers that leave the margin; a MoE one keeps every layer with the
/// experts of the fewest layers in host memory.
#[test]
fn at_the_shortest_context_layers_or_experts_go_to_the_cpu() {
    let sc = scenario("rtx-4060-ti-16gb");
    let model = "Qwen/Qwen2.5-32B";
    let spec = &find_model(model).expect("catalog").spec;
    let fit = llama_cpp_default_fit(&sc, spec).expect("fits");
    assert_eq!(fit.n_ctx, FIT_MIN_CONTEXT);
    assert!(
        fit.n_gpu_layers > 0 && fit.n_gpu_layers <= spec.layers,
        "{fit:?}"
    );
    assert!(leaves(used(
        &sc,
        model,
        FIT_MIN_CONTEXT,
        fit.n_gpu_layers,
        0
    )));
    assert!(!leaves(used(
        &sc,
        model,
        FIT_MIN_CONTEXT,
        fit.n_gpu_layers + 1,
        0
    )));

    let moe = "Qwen/Qwen3-30B-A3B";
    let spec = &find_model(moe).expect("catalog").spec;
    let fit = llama_cpp_default_fit(&sc, spec).expect("fits");
    let all = spec.layers + 1;
    assert_eq!((fit.n_ctx, fit.n_gpu_layers), (FIT_MIN_CONTEXT, all));
    assert!(fit.n_cpu_moe > 0, "{fit:?}");
    assert!(leaves(used(&sc, moe, FIT_MIN_CONTEXT, all, fit.n_cpu_moe)));
    assert!(!leaves(used(
        &sc,
        moe,
        FIT_MIN_CONTEXT,
        all,
        fit.n_cpu_moe - 1
    )));
}
