//! Reconciling with a runtime's own start-up log: every figure read with
//! its rounding, the scenario the log implies, and our figures beside the
//! engine's. The log's figures are a measured run (see the file's header).

use vramfit_core::reconcile::{read_runtime_log, reconcile, Figure};
use vramfit_core::scenario::{Engine, ModelSource};

const LOG: &str = include_str!("data/reconcile/vllm_0.19_llama31_8b_tp2.log");
const GIB: f64 = (1u64 << 30) as f64;

#[test]
fn every_figure_and_setting_of_the_log_is_read() {
    let log = read_runtime_log(LOG).expect("a vLLM log");
    assert_eq!(log.version.as_deref(), Some("0.19.0"));
    assert_eq!(
        log.model.as_deref(),
        Some("meta-llama/Llama-3.1-8B-Instruct")
    );
    let value = |f: Figure| log.reading(f).map(|r| r.value).expect("read");
    // "Model loading took 7.5103 GiB" comes first and stands.
    assert!((value(Figure::Weights) / GIB - 7.5103).abs() < 1e-9);
    assert!((value(Figure::ActivationPeak) / GIB - 1.89).abs() < 1e-9);
    assert!((value(Figure::NonTorch) / GIB - 2.07).abs() < 1e-9);
    assert!((value(Figure::KvPool) / GIB - 63.76).abs() < 1e-9);
    assert_eq!(value(Figure::KvTokens), 1_044_688.0);
    assert_eq!(value(Figure::MaxConcurrency), 127.53);
    assert!((value(Figure::CudaGraphs) / GIB - 0.76).abs() < 1e-9);
    // 0.01 GiB printed: ± 0.005 GiB.
    let pool = log.reading(Figure::KvPool).expect("pool");
    assert!((pool.rounding / GIB - 0.005).abs() < 1e-9);
    let sc = &log.scenario;
    assert_eq!(sc.inference.engine, Engine::Vllm);
    assert_eq!(sc.parallel.tp, 2);
    assert_eq!(sc.parallel.gpus, 2);
    assert_eq!(sc.inference.prompt_len, 8192);
    assert_eq!(sc.inference.gpu_memory_utilization, 0.95);
    assert_eq!(
        sc.model,
        ModelSource::Catalog("meta-llama/Llama-3.1-8B-Instruct".into())
    );
    // The total is the requested memory over the utilization: 75.23 / 0.95.
    let total = sc.gpu.memory_bytes.expect("total") as f64 / GIB;
    assert!((total - 79.19).abs() < 0.01, "{total}");
    assert!(log.assumed.is_empty(), "{:?}", log.assumed);
}

#[test]
fn our_figures_stand_beside_the_engines() {
    let log = read_runtime_log(LOG).expect("a vLLM log");
    let r = reconcile(&log, None).expect("the catalog has the model");
    let row = |f: Figure| r.rows.iter().find(|row| row.figure == f).expect("row");
    for (figure, within) in [
        (Figure::Weights, 0.01),
        (Figure::ActivationPeak, 0.02),
        (Figure::NonTorch, 0.02),
        (Figure::KvPool, 0.005),
        (Figure::KvTokens, 0.005),
        (Figure::MaxConcurrency, 0.005),
    ] {
        let row = r.rows.iter().find(|row| row.figure == figure);
        let row = row.unwrap_or_else(|| panic!("{figure:?} compared"));
        assert!(
            row.difference.abs() < within,
            "{figure:?}: ours {} vs {} ({:+.2} %)",
            row.ours,
            row.runtime,
            100.0 * row.difference
        );
        assert!(!row.ours_formula.is_empty() && !row.runtime_line.is_empty());
    }
    // The weights agree within what "7.5103 GiB" leaves unsaid.
    assert!(row(Figure::Weights).difference.abs() < 0.002);
    // CUDA graphs are captured after the pool is sized: not compared.
    assert!(r.rows.iter().all(|row| row.figure != Figure::CudaGraphs));
}

#[test]
fn text_without_engine_figures_is_not_a_runtime_log() {
    assert!(read_runtime_log("").is_none());
    assert!(read_runtime_log("torch.OutOfMemoryError: CUDA out of memory.").is_none());
    // A huge one-line paste stays bounded and unpanicked.
    let long = format!("Available KV cache memory: {} GiB", "9".repeat(100_000));
    let _ = read_runtime_log(&long);
}

#[test]
fn a_log_naming_an_unknown_model_asks_for_it() {
    let log = read_runtime_log(&LOG.replace("meta-llama/Llama-3.1-8B-Instruct", "acme/unknown-7b"))
        .expect("still a vLLM log");
    let err = reconcile(&log, None).expect_err("no such catalog model");
    assert_eq!(err.field, "model");
    assert!(err.message.contains("give the model"), "{}", err.message);
}

/// The V0 engine's phrasing of the same figures (blocks, not tokens).
#[test]
fn the_v0_phrasing_reads_and_compares_alike() {
    let text = include_str!("data/reconcile/vllm_0.7_qwen25_7b.log");
    let log = read_runtime_log(text).expect("a vLLM log");
    assert_eq!(log.version.as_deref(), Some("0.7.2"));
    let value = |f: Figure| log.reading(f).map(|r| r.value).expect("read");
    assert!((value(Figure::Weights) / GIB - 14.25).abs() < 1e-9);
    assert!((value(Figure::NonTorch) / GIB - 0.24).abs() < 1e-9);
    assert!((value(Figure::ActivationPeak) / GIB - 2.21).abs() < 1e-9);
    assert!((value(Figure::KvPool) / GIB - 58.53).abs() < 1e-9);
    assert_eq!(value(Figure::KvBlocks), 68_500.0);
    assert_eq!(log.scenario.inference.gpu_memory_utilization, 0.95);
    let total = log.scenario.gpu.memory_bytes.expect("total") as f64 / GIB;
    assert!((total - 79.19).abs() < 1e-9, "{total}");
    let r = reconcile(&log, None).expect("the catalog has the model");
    let blocks = r
        .rows
        .iter()
        .find(|row| row.figure == Figure::KvBlocks)
        .expect("blocks compared");
    assert!(blocks.difference.abs() < 0.005, "{:+.3}", blocks.difference);
}

/// llama.cpp's load logs (tests/data/llama_cpp/logs, sources in their
/// headers): every buffer read per device, the flags the log implies, and
/// our buffers beside them.
#[test]
fn a_llama_cpp_load_log_is_read_and_compared_buffer_by_buffer() {
    let spec = |id: &str| {
        vramfit_core::catalog::find_model(id)
            .expect("catalog model")
            .spec
            .clone()
    };
    for (file, model, tolerances) in [
        (
            include_str!("data/llama_cpp/logs/01_llama3-8b-korean-q4km-rtx3070-full.txt"),
            "meta-llama/Meta-Llama-3-8B",
            [0.002, 0.002, 0.0, 0.01, 0.01],
        ),
        (
            include_str!(
                "data/llama_cpp/logs/02_deepseek-r1-qwen3-8b-q8-partial19-ctx131k-rtx3060ti.txt"
            ),
            "Qwen/Qwen3-8B",
            [0.003, 0.003, 0.0, 0.03, 0.01],
        ),
    ] {
        let log = read_runtime_log(file).expect("a llama.cpp log");
        assert_eq!(log.engine, "llama.cpp");
        assert_eq!(
            log.scenario.inference.engine,
            vramfit_core::scenario::Engine::LlamaCpp
        );
        let r = reconcile(&log, Some(&spec(model))).expect("compares");
        for (figure, within) in [
            Figure::ModelBufferGpu,
            Figure::ModelBufferHost,
            Figure::KvBufferGpu,
            Figure::ComputeBufferGpu,
            Figure::HostBuffers,
        ]
        .into_iter()
        .zip(tolerances)
        {
            let row = r
                .rows
                .iter()
                .find(|row| row.figure == figure)
                .unwrap_or_else(|| panic!("{model}: {figure:?} compared"));
            assert!(
                row.difference.abs() <= within + 1e-9,
                "{model} {figure:?}: ours {} vs printed {} ({:+.3} %)",
                row.ours,
                row.runtime,
                100.0 * row.difference
            );
        }
    }
}

#[test]
fn the_partial_offload_log_implies_its_flags() {
    let log = read_runtime_log(include_str!(
        "data/llama_cpp/logs/02_deepseek-r1-qwen3-8b-q8-partial19-ctx131k-rtx3060ti.txt"
    ))
    .expect("a llama.cpp log");
    let inf = &log.scenario.inference;
    assert_eq!(inf.gpu_layers, Some(19));
    assert_eq!(inf.prompt_len, 131_072);
    assert_eq!(inf.ubatch, 512);
    assert!(!inf.flash_attn);
    assert_eq!(
        log.scenario.weights,
        vramfit_core::precision::WeightFormat::GgufQ8_0
    );
    let host_kv = log.reading(Figure::KvBufferHost).expect("host KV").value;
    assert_eq!(host_kv, 8704.0 * (1u64 << 20) as f64);
}

/// Newer llama.cpp phrasing (`llama_context`, `llama_kv_cache`, Vulkan
/// devices, `-fa auto`) reads alike; a layer count that differs from the
/// model compared with is said.
#[test]
fn newer_phrasing_reads_and_a_different_model_is_flagged() {
    let text = "load_tensors: offloaded 20/29 layers to GPU\n\
        load_tensors:      Vulkan0 model buffer size =  2048.50 MiB\n\
        load_tensors:   CPU_Mapped model buffer size =  1600.25 MiB\n\
        llama_context: n_ctx         = 8192\n\
        llama_context: n_ubatch      = 256\n\
        llama_context: flash_attn    = auto\n\
        llama_kv_cache:    Vulkan0 KV buffer size =   160.00 MiB\n\
        llama_kv_cache:        CPU KV buffer size =    64.00 MiB\n\
        llama_context:    Vulkan0 compute buffer size =   300.00 MiB\n\
        llama_context: Vulkan_Host compute buffer size =    20.00 MiB\n";
    let log = read_runtime_log(text).expect("a llama.cpp log");
    let mib = |f: Figure| log.reading(f).expect("read").value / (1u64 << 20) as f64;
    assert_eq!(mib(Figure::ModelBufferGpu), 2048.5);
    assert_eq!(mib(Figure::ModelBufferHost), 1600.25);
    assert_eq!(mib(Figure::KvBufferHost), 64.0);
    assert_eq!(mib(Figure::HostBuffers), 20.0);
    let inf = &log.scenario.inference;
    assert_eq!(
        (inf.gpu_layers, inf.prompt_len, inf.ubatch),
        (Some(20), 8192, 256)
    );
    assert!(inf.flash_attn);
    assert_eq!(log.model_layers, Some(28));
    let spec = vramfit_core::catalog::find_model("Qwen/Qwen2.5-3B")
        .expect("catalog")
        .spec
        .clone();
    let r = reconcile(&log, Some(&spec)).expect("compares");
    assert!(
        r.log.assumed.iter().any(|a| a.contains("28 layers")),
        "{:?}",
        r.log.assumed
    );
}

/// A vLLM config line with a quantized checkpoint, an fp8 cache and
/// pipeline stages sets the scenario it states.
#[test]
fn vllm_settings_beyond_the_defaults_are_read() {
    let text = "INFO Initializing a V1 LLM engine (v0.11.0) with config: model='Qwen/Qwen2.5-72B-Instruct', \
        dtype=torch.float16, max_seq_len=16384, tensor_parallel_size=2, pipeline_parallel_size=2, \
        quantization=awq_marlin, kv_cache_dtype=fp8_e4m3, device_config=cuda\n\
        INFO [kv_cache_utils.py:1087] GPU KV cache size: 123,456 tokens\n";
    let log = read_runtime_log(text).expect("a vLLM log");
    let sc = &log.scenario;
    assert_eq!(
        (sc.parallel.tp, sc.parallel.pp, sc.parallel.gpus),
        (2, 2, 4)
    );
    assert_eq!(sc.weights, vramfit_core::precision::WeightFormat::Awq4);
    assert_eq!(sc.compute_dtype, vramfit_core::precision::Dtype::Fp16);
    assert_eq!(
        sc.inference.kv_cache_dtype,
        Some(vramfit_core::precision::Dtype::Fp8)
    );
    assert_eq!(sc.inference.prompt_len, 16_384);
    assert_eq!(
        log.reading(Figure::KvTokens).expect("tokens").value,
        123_456.0
    );
    assert!(
        log.assumed.iter().any(|a| a.contains("total memory")),
        "{:?}",
        log.assumed
    );
}
