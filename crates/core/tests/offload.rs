//! The llama.cpp offload planner: its placement fits, and one step more on
//! the GPU does not (the estimator judges both); the flags say the same.

use vramfit_core::estimate::{estimate_with_model, resolve_model};
use vramfit_core::offload::{plan_offload, OffloadPlan, Placement};
use vramfit_core::scenario::Scenario;
use vramfit_core::url::decode;

fn plan(link: &str) -> (Scenario, OffloadPlan) {
    let sc = decode(link).scenario;
    let spec = resolve_model(&sc.model).expect("model");
    let p = plan_offload(&sc, &spec).expect("plans");
    (sc, p)
}

fn fits(sc: &Scenario, ngl: u64, ncmoe: u64) -> bool {
    let spec = resolve_model(&sc.model).expect("model");
    let mut s = sc.clone();
    s.inference.gpu_layers = Some(ngl);
    s.inference.cpu_moe_layers = ncmoe;
    estimate_with_model(&s, &spec).expect("estimates").fits() == Some(true)
}

/// Qwen3-30B-A3B Q4_K_M on a 16 GB card at 16k: every layer on the GPU,
/// the fewest layers' experts in host memory.
#[test]
fn an_moe_model_keeps_its_layers_and_moves_the_fewest_experts() {
    let (sc, p) =
        plan("v=1&m=Qwen/Qwen3-30B-A3B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4080&pl=16000&nt=384");
    assert_eq!(p.placement, Placement::ExpertsOnCpu);
    assert_eq!(p.gpu_layers, p.layers + 1);
    let k = p.cpu_moe_layers;
    assert!(
        k > 0 && fits(&sc, p.gpu_layers, k) && !fits(&sc, p.gpu_layers, k - 1),
        "{k}"
    );
    assert!(p
        .llama_cpp_flags
        .contains(&format!("-ngl {} --n-cpu-moe {k} ", p.layers + 1)));
    assert!(p.gpu_bytes <= p.capacity_bytes);
    // What left the GPU is in host RAM: the experts of k layers and more.
    assert!(p.cpu_ram_bytes > 1 << 30, "{}", p.cpu_ram_bytes);
    // Ollama places whole layers: fewer than all of them.
    assert!(
        p.ollama_options.starts_with("num_gpu ")
            && !p
                .ollama_options
                .contains(&format!("num_gpu {} ", p.layers + 1))
    );
}

/// Llama-3.1-70B Q4_K_M on a 24 GB card: the most layers that fit.
#[test]
fn a_dense_model_too_large_keeps_the_most_layers_that_fit() {
    let (sc, p) = plan(
        "v=1&m=meta-llama/Llama-3.1-70B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4090&pl=8000&nt=192",
    );
    assert_eq!(p.placement, Placement::LayersOnCpu);
    let n = p.gpu_layers;
    assert!(n > 0 && n < p.layers, "{n}");
    assert!(fits(&sc, n, 0) && !fits(&sc, n + 1, 0));
    assert!(p.llama_cpp_flags.starts_with(&format!("-ngl {n} -c ")));
    assert_eq!(p.cpu_moe_layers, 0);
}

/// A model that fits keeps everything on the GPU, and the longest context
/// of that placement is at least the one asked for.
#[test]
fn a_model_that_fits_stays_on_the_gpu() {
    let (_, p) = plan(
        "v=1&m=meta-llama/Meta-Llama-3-8B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4090&pl=4000&nt=96",
    );
    assert_eq!(p.placement, Placement::AllOnGpu);
    assert!(p.max_context.expect("a context fits") >= 4096);
    assert!(p.llama_cpp_flags.starts_with("-ngl 33 -c 4096"));
}

#[test]
fn other_engines_are_refused_by_name() {
    let sc = decode("v=1&m=meta-llama/Meta-Llama-3-8B&eng=vllm&gpu=rtx-4090").scenario;
    let spec = resolve_model(&sc.model).expect("model");
    let err = plan_offload(&sc, &spec).expect_err("not llama.cpp");
    assert_eq!(err.field, "inference.engine");
}

/// On Apple silicon the first plan may be the GPU's larger share of the
/// unified memory, and the estimate agrees it then fits.
#[test]
fn unified_memory_plans_can_raise_the_gpus_share() {
    let sc = decode("v=1&m=meta-llama/Llama-3.1-70B&eng=llama_cpp&w=gguf_q8_0&gpu=m3-max-128gb&pl=100000&nt=1000").scenario;
    let before = vramfit_core::estimate(&sc).expect("estimates");
    assert_eq!(
        before.capacity_bytes,
        Some(96 << 30),
        "macOS's default share"
    );
    assert_eq!(before.fits(), Some(false));
    assert!(before
        .notes
        .iter()
        .any(|n| n.code == "unified_memory" && n.message.contains("iogpu.wired_limit_mb")));
    let report = vramfit_core::plan::fix_plans(&sc, &vramfit_core::plan::PlanOptions::default())
        .expect("plans");
    let raised = report
        .plans
        .iter()
        .find(|p| p.scenario.gpu.os_reserved_bytes.is_some())
        .expect("a plan raises the GPU's share");
    assert_eq!(raised.capacity_bytes, (128 - 8) << 30);
    let after = vramfit_core::estimate(&raised.scenario).expect("estimates");
    assert_eq!(after.capacity_bytes, Some((128 - 8) << 30));
    assert_eq!(after.fits(), Some(true));
}

/// Ollama's own default context follows the card's memory (its docs: 4k
/// under 24 GiB, 32k up to 48 GiB, 256k above), and the plan says whether
/// that default fits the placement, since Ollama uses it unless told.
#[test]
fn the_plan_says_whether_ollamas_default_context_fits() {
    use vramfit_core::offload::ollama_default_context;
    const GIB: u64 = 1 << 30;
    assert_eq!(ollama_default_context(16 * GIB), 4096);
    assert_eq!(ollama_default_context(24 * GIB - 1), 4096);
    assert_eq!(ollama_default_context(24 * GIB), 32768);
    assert_eq!(ollama_default_context(80 * GIB), 262_144);
    // Qwen3-30B-A3B on a 16 GB card: Ollama's 4k default fits its placement.
    let (_, p) =
        plan("v=1&m=Qwen/Qwen3-30B-A3B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4080&pl=16000&nt=384");
    assert_eq!(p.ollama_default_context, 4096);
    assert_eq!(
        p.ollama_default_fits,
        p.max_context.is_some_and(|m| m >= 4096)
    );
    assert!(p
        .ollama_options
        .contains("unset, Ollama uses num_ctx 4096 on this card"));
    // Llama-3.1-70B on an 80 GB card: the 256k default is beyond what fits.
    let (_, p) = plan("v=1&m=meta-llama/Llama-3.1-70B&eng=llama_cpp&w=gguf_q4_k_m&gpu=h100-sxm5-80gb&pl=8000&nt=192");
    assert_eq!(p.ollama_default_context, 262_144);
    assert!(!p.ollama_default_fits);
    assert!(
        p.ollama_options.contains("which does not fit)"),
        "{}",
        p.ollama_options
    );
}

/// Ollama's scheduler predicts the GGUF file plus an f16 KV cache sized by
/// embedding length over heads (not the model's head size) for every
/// block, at num_ctx: Llama-3.1-8B at 8192 tokens adds
/// 2 · 32 · 8 · 128 · 8192 · 2 B = 1 GiB; Qwen3-30B-A3B's heads are 128
/// wide but 2048 / 32 = 64 is what Ollama multiplies by.
#[test]
fn ollamas_own_placement_estimate_is_file_plus_f16_kv() {
    use vramfit_core::offload::ollama_predicted_vram;
    let llama = resolve_model(&decode("v=1&m=meta-llama/Llama-3.1-8B").scenario.model).unwrap();
    assert_eq!(
        ollama_predicted_vram(&llama, 5_000_000_000, 8192),
        5_000_000_000 + (1 << 30)
    );
    let qwen = resolve_model(&decode("v=1&m=Qwen/Qwen3-30B-A3B").scenario.model).unwrap();
    assert_eq!(qwen.head_dim(), 128);
    assert_eq!(
        ollama_predicted_vram(&qwen, 0, 16_384),
        2 * 48 * 4 * 64 * 16_384 * 2
    );
    // The plan states it for its num_ctx, with the file's size.
    let (_, p) = plan("v=1&m=Qwen/Qwen3-30B-A3B&eng=llama_cpp&w=gguf_q4_k_m&gpu=rtx-4080&pl=16000&nt=384&ctk=q8_0");
    let ctx = 16_384;
    assert!(
        p.ollama_predicted_bytes > 2 * 48 * 4 * 64 * ctx * 2,
        "{}",
        p.ollama_predicted_bytes
    );
    assert!(
        p.ollama_options.contains("Ollama's scheduler predicts"),
        "{}",
        p.ollama_options
    );
    assert!(
        p.ollama_options.contains("OLLAMA_KV_CACHE_TYPE=q8_0"),
        "{}",
        p.ollama_options
    );
}
