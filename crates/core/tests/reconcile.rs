//! Reconciling with a runtime's own start-up log: every figure read with
//! its rounding, the scenario the log implies, and our figures beside the
//! engine's. The log's figures are a measured run (see the file's header).

mod common;

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
    // V0's scheduler defaults: max(max_model_len, 2048) tokens over 256
    // sequences (the fixture's figures are a V1 run's, so only the rows
    // that do not depend on the profile are compared)
    assert_eq!(log.scenario.inference.max_num_batched_tokens, Some(8192));
    assert_eq!(log.scenario.inference.max_num_seqs, Some(256));
    let r = reconcile(&log, None).expect("the catalog has the model");
    let row = |f: Figure| r.rows.iter().find(|row| row.figure == f).expect("compared");
    assert!(row(Figure::Weights).difference.abs() < 0.005);
    assert!(row(Figure::NonTorch).difference.abs() < 0.05);
}

/// vLLM before 0.8 ran the V0 engine: its profile stepped through
/// `max(max_model_len, 2048)` tokens over 256 sequences unless the context
/// passed 32K, where V0 turned chunked prefill on; a log that states its
/// limits keeps them.
#[test]
fn a_v0_log_takes_v0s_scheduler_defaults() {
    let log_at = |version: &str, len: u64, extra: &str| {
        let text = format!(
            "INFO 01-15 10:00:00 llm_engine.py:237] Initializing an LLM engine (v{version}) with config: model='Qwen/Qwen2.5-7B-Instruct', dtype=torch.bfloat16, max_seq_len={len}, tensor_parallel_size=1{extra}\n\
             INFO 01-15 10:00:32 worker.py:241] model weights take 14.25GiB; non_torch_memory takes 0.23GiB; PyTorch activation peak memory takes 4.37GiB; the rest of the memory reserved for KV Cache is 52.48GiB.\n"
        );
        read_runtime_log(&text)
            .expect("a vLLM log")
            .scenario
            .inference
    };
    let v0 = log_at("0.6.6", 32_768, "");
    assert_eq!(v0.max_num_batched_tokens, Some(32_768));
    assert_eq!(v0.max_num_seqs, Some(256));
    assert_eq!(log_at("0.5.4", 1024, "").max_num_batched_tokens, Some(2048));
    // past 32K: chunked prefill, V1's step assumed
    assert_eq!(log_at("0.7.3", 65_536, "").max_num_batched_tokens, None);
    // V1 keeps its own defaults
    assert_eq!(log_at("0.9.1", 32_768, "").max_num_batched_tokens, None);
    assert_eq!(log_at("0.10.0", 32_768, "").max_num_seqs, None);
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
        let figures = [
            Figure::ModelBufferGpu,
            Figure::ModelBufferHost,
            Figure::KvBufferGpu,
            Figure::ComputeBufferGpu,
            Figure::HostBuffers,
        ];
        assert_within(&r, model, figures.into_iter().zip(tolerances));
    }
}

/// Every figure compared, each within its share of the printed value.
fn assert_within(
    r: &vramfit_core::reconcile::Reconciliation,
    what: &str,
    figures: impl IntoIterator<Item = (Figure, f64)>,
) {
    for (figure, within) in figures {
        let row = r
            .rows
            .iter()
            .find(|row| row.figure == figure)
            .unwrap_or_else(|| panic!("{what}: {figure:?} compared"));
        assert!(
            row.difference.abs() <= within + 1e-9,
            "{what} {figure:?}: ours {} vs printed {} ({:+.3} %)",
            row.ours,
            row.runtime,
            100.0 * row.difference
        );
    }
}

/// Logs of today's build (measured on an H200, `data/llama_cpp/measured`):
/// `-ngl 8` of 16 is read as 7 layers and the output layer (the order of
/// builds since PR #18148), and every buffer compares within 2 %; the 2025
/// log beside them keeps its own order (19 repeating layers on the GPU).
#[test]
fn todays_partial_offload_log_moves_the_output_layer_first() {
    for (text, compute) in [
        (
            include_str!("data/llama_cpp/measured/llama32_1b_ngl8_fa_on_c4096.log"),
            0.02,
        ),
        (
            include_str!("data/llama_cpp/measured/llama32_1b_ngl8_fa_off_c32768.log"),
            0.01,
        ),
    ] {
        let log = read_runtime_log(text).expect("a llama.cpp log");
        assert_eq!(log.scenario.inference.gpu_layers, Some(8));
        assert!(!log.scenario.inference.output_layer_last);
        let spec = &vramfit_core::catalog::find_model("meta-llama/Llama-3.2-1B")
            .expect("catalog model")
            .spec;
        let r = reconcile(&log, Some(spec)).expect("compares");
        assert_within(
            &r,
            "Llama-3.2-1B -ngl 8",
            [
                (Figure::ModelBufferGpu, 1e-4),
                (Figure::ModelBufferHost, 1e-4),
                (Figure::KvBufferGpu, 0.0),
                (Figure::ComputeBufferGpu, compute),
            ],
        );
    }
    let old = read_runtime_log(include_str!(
        "data/llama_cpp/logs/02_deepseek-r1-qwen3-8b-q8-partial19-ctx131k-rtx3060ti.txt"
    ))
    .expect("a llama.cpp log");
    assert!(old.scenario.inference.output_layer_last);
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

/// A log cut before the engine's config line still names its model in
/// "Starting to load model ..." (vLLM's `GPUModelRunner.load_model`), and
/// is compared with it.
#[test]
fn the_model_being_loaded_names_the_model() {
    let text = "(EngineCore_DP0 pid=278) INFO 09-25 13:38:31 [gpu_model_runner.py:2602] Starting to load model Qwen/Qwen2.5-7B-Instruct...\n\
        (EngineCore_DP0 pid=278) INFO 09-25 13:39:07 [gpu_model_runner.py:2653] Model loading took 14.2488 GiB and 29.929735 seconds\n\
        (EngineCore_DP0 pid=278) INFO 09-25 13:40:27 [gpu_worker.py:306] Available KV cache memory: 9.86 GiB\n\
        (EngineCore_DP0 pid=278) INFO 09-25 13:40:28 [kv_cache_utils.py:1087] GPU KV cache size: 184,608 tokens\n";
    let log = read_runtime_log(text).expect("a vLLM log");
    assert_eq!(log.model.as_deref(), Some("Qwen/Qwen2.5-7B-Instruct"));
    let r = reconcile(&log, None).expect("the catalog has the model");
    // Qwen2.5-7B-Instruct's 7.62 B bf16 weights (and vLLM's rotary cache)
    // stand beside the 14.2488 GiB the runtime loaded.
    let weights = r
        .rows
        .iter()
        .find(|row| row.figure == Figure::Weights)
        .expect("the weights compared");
    assert!((weights.runtime / GIB - 14.2488).abs() < 1e-9);
    assert!(weights.difference.abs() < 0.01, "{weights:?}");
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

/// `Figure::key` is the figure's JSON name, and `ALL` lists each once.
#[test]
fn every_figure_is_listed_once_under_its_json_name() {
    let mut seen = std::collections::HashSet::new();
    for figure in Figure::ALL {
        assert!(seen.insert(figure), "{figure:?} twice");
        assert_eq!(
            serde_json::to_value(figure).expect("serializes"),
            serde_json::Value::String(figure.key().to_owned())
        );
    }
}

const GB: f64 = 1e9;
const MIB: f64 = (1u64 << 20) as f64;

/// `ollama ps` (hand-written in its layout): SIZE in GB of 10^9 bytes to
/// 0.1, the GPU share of a CPU/GPU split, CONTEXT as llama.cpp's `-c`; the
/// NAME stands for a catalog model; the layers on the GPU are those whose
/// share is nearest the printed one.
#[test]
fn ollama_ps_is_read_and_its_split_sets_the_layers_on_the_gpu() {
    let log = read_runtime_log(include_str!(
        "data/reconcile/ollama_ps_qwen25_14b_split.txt"
    ))
    .expect("ollama ps");
    assert_eq!(log.engine, "ollama");
    assert_eq!(log.model.as_deref(), Some("Qwen/Qwen2.5-14B"));
    let size = log.reading(Figure::OllamaSize).expect("SIZE");
    assert_eq!(size.value, 11.2 * GB);
    assert!((size.rounding - 0.05 * GB).abs() < 1.0);
    assert_eq!(log.reading(Figure::GpuShare).expect("share").value, 0.52);
    let sc = &log.scenario;
    assert_eq!(sc.inference.engine, Engine::LlamaCpp);
    assert_eq!(sc.inference.prompt_len, 8192);
    assert_eq!(sc.weights, vramfit_core::precision::WeightFormat::GgufQ4KM);
    assert!(
        log.assumed.iter().any(|a| a.contains("2 models")),
        "{:?}",
        log.assumed
    );
    assert!(log.unread.is_empty(), "{:?}", log.unread);
    let r = reconcile(&log, None).expect("the catalog has the model");
    let n = r
        .log
        .scenario
        .inference
        .gpu_layers
        .expect("layers from the share");
    assert!((1..48).contains(&n), "-ngl {n}");
    let share = r
        .rows
        .iter()
        .find(|row| row.figure == Figure::GpuShare)
        .expect("share compared");
    // The nearest layer count: within half a layer's share of the printed one.
    assert!((share.ours - 0.52).abs() < 0.02, "ours {}", share.ours);
    let size = r
        .rows
        .iter()
        .find(|row| row.figure == Figure::OllamaSize)
        .expect("size compared");
    assert!(size.ours > 5.0 * GB && size.difference.is_finite());
    assert!(!size.ours_formula.is_empty());
}

/// Before Ollama 0.6 there is no CONTEXT column: its default then is assumed
/// and said; all on the GPU is all layers (the share is 100 %).
#[test]
fn old_ollama_ps_assumes_its_default_context() {
    let log = read_runtime_log(include_str!("data/reconcile/ollama_ps_llama31_8b_old.txt"))
        .expect("ollama ps");
    assert_eq!(
        log.model.as_deref(),
        Some("meta-llama/Llama-3.1-8B-Instruct")
    );
    assert_eq!(log.scenario.inference.prompt_len, 2048);
    assert!(log
        .assumed
        .iter()
        .any(|a| a.contains("CONTEXT not printed")));
    assert_eq!(log.reading(Figure::GpuShare).expect("share").value, 1.0);
    let r = reconcile(&log, None).expect("compares");
    assert_eq!(r.log.scenario.inference.gpu_layers, None);
    let share = r
        .rows
        .iter()
        .find(|row| row.figure == Figure::GpuShare)
        .expect("share");
    // Only the memory-mapped token embeddings and host buffers stay off the GPU.
    assert!(share.ours > 0.9 && share.ours <= 1.0, "{}", share.ours);
}

/// Rows it cannot read are named, never a panic; the readable row is used.
#[test]
fn bad_ollama_ps_rows_are_named() {
    let log =
        read_runtime_log(include_str!("data/reconcile/ollama_ps_bad.txt")).expect("ollama ps");
    assert_eq!(log.unread.len(), 2, "{:?}", log.unread);
    assert!(
        log.unread[0].contains("SIZE \"lots GB\"") || log.unread[0].contains("SIZE \"lots"),
        "{:?}",
        log.unread
    );
    assert!(log.unread[1].contains("PROCESSOR"), "{:?}", log.unread);
    assert_eq!(log.model.as_deref(), Some("Qwen/Qwen3-8B"));
    assert_eq!(
        log.reading(Figure::OllamaSize).expect("SIZE").value,
        6.2 * GB
    );
    // A header with no row: said, not a panic.
    let empty = read_runtime_log("NAME    ID    SIZE    PROCESSOR    UNTIL\n").expect("ollama ps");
    assert!(empty.readings.is_empty());
    assert!(
        empty.unread[0].contains("no loaded model"),
        "{:?}",
        empty.unread
    );
    // Junk in every column, long lines, odd bytes.
    for junk in [
        "NAME ID SIZE PROCESSOR\n\u{1F600} 0123456789ab 9e999 GB 200% GPU\n",
        "NAME ID SIZE PROCESSOR\na 0123456789ab 1 GB 200% GPU\n",
        "NAME ID SIZE PROCESSOR CONTEXT\na 0123456789ab 1 GB 10%/90% CPU/GPU -5\n",
        "NAME ID SIZE PROCESSOR\na 0123456789ab 1 GB 1%/ CPU/GPU\n",
        &format!(
            "NAME ID SIZE PROCESSOR\na 0123456789ab {}\n",
            "x ".repeat(50_000)
        ),
    ] {
        let log = read_runtime_log(junk).expect("a header");
        assert!(log.readings.is_empty(), "{junk:.60}: {:?}", log.readings);
        assert!(
            log.unread[0].contains("row 1"),
            "{junk:.60}: {:?}",
            log.unread
        );
    }
    // What follows the table (another paste) ends it, unread.
    let log = read_runtime_log(
        "NAME ID SIZE PROCESSOR UNTIL\nqwen3:8b 500a1f067a9f 6.2 GB 100% GPU Forever\nthanks for any help!\n",
    )
    .expect("ollama ps");
    assert!(log.unread.is_empty(), "{:?}", log.unread);
}

/// nvidia-smi's table (hand-written in its layout): the busiest GPU's used
/// memory, its compute processes (Xorg's graphics left out), the card.
#[test]
fn nvidia_smi_is_read_and_joins_a_log_pasted_with_it() {
    let smi = include_str!("data/reconcile/nvidia_smi_rtx3090.txt");
    let log = read_runtime_log(smi).expect("nvidia-smi");
    assert_eq!(log.engine, "nvidia-smi");
    assert_eq!(
        log.reading(Figure::DeviceUsed).expect("used").value,
        6704.0 * MIB
    );
    assert_eq!(
        log.reading(Figure::ProcessMemory).expect("process").value,
        6370.0 * MIB
    );
    assert_eq!(log.scenario.gpu.name.as_deref(), Some("rtx-3090"));
    assert!(log.unread.is_empty(), "{:?}", log.unread);
    // Alone it names no workload: a model must be given.
    assert_eq!(reconcile(&log, None).expect_err("no model").field, "model");
    // With `ollama ps` pasted above it: one log, the card from nvidia-smi.
    let both = format!(
        "{}\n{smi}",
        include_str!("data/reconcile/ollama_ps_qwen25_14b_split.txt")
    );
    let log = read_runtime_log(&both).expect("both");
    assert_eq!(log.engine, "ollama");
    assert!(log.unread.is_empty(), "{:?}", log.unread);
    assert_eq!(log.scenario.gpu.name.as_deref(), Some("rtx-3090"));
    let r = reconcile(&log, None).expect("compares");
    for figure in [
        Figure::OllamaSize,
        Figure::GpuShare,
        Figure::DeviceUsed,
        Figure::ProcessMemory,
    ] {
        let row = r.rows.iter().find(|row| row.figure == figure);
        let row = row.unwrap_or_else(|| panic!("{figure:?} compared"));
        assert!(row.ours > 0.0 && row.difference.is_finite(), "{figure:?}");
    }
}

#[test]
fn bad_nvidia_smi_is_named_not_a_panic() {
    let text = "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n\
        |   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0  On |  N/A |\n\
        |  0%   48C    P2   112W /  350W |   lots /  24576MiB |      4%      Default |\n";
    let log = read_runtime_log(text).expect("the banner");
    assert!(log.readings.is_empty());
    assert_eq!(log.unread.len(), 2, "{:?}", log.unread);
    assert!(
        log.unread[0].contains("memory line of GPU 0"),
        "{:?}",
        log.unread
    );
    // An unknown card: its capacity instead.
    let text = "|   0  Acme Tensor 9000        Off |   00000000:01:00.0  On |  N/A |\n\
        |  0%   48C    P2   112W /  350W |   1000MiB /  32768MiB |      4%      Default |\n";
    let log = read_runtime_log(text).expect("a GPU memory line");
    assert_eq!(log.scenario.gpu.memory_bytes, Some(32768 * (1 << 20)));
    assert!(log.assumed.iter().any(|a| a.contains("Acme Tensor 9000")));
}

/// The card the backend listed becomes the scenario's GPU, so the fit is
/// checked on it; one the catalog lacks is said, and RPC workers are not GPUs.
#[test]
fn a_llama_cpp_log_names_its_gpu() {
    let gpu_of = |text: &str| {
        let log = read_runtime_log(text).expect("a llama.cpp log");
        (log.scenario.gpu.name.clone(), log.assumed.join("; "))
    };
    let cases = [
        (
            include_str!("data/llama_cpp/logs/01_llama3-8b-korean-q4km-rtx3070-full.txt"),
            "rtx-3070",
        ),
        (
            include_str!(
                "data/llama_cpp/logs/02_deepseek-r1-qwen3-8b-q8-partial19-ctx131k-rtx3060ti.txt"
            ),
            "rtx-3060-ti",
        ),
        (
            include_str!("data/llama_cpp/logs/06_trilm-3.9b-rtx4080-full-ctx512.txt"),
            "rtx-4080",
        ),
    ];
    for (text, want) in cases {
        let (name, assumed) = gpu_of(text);
        assert_eq!(name.as_deref(), Some(want), "{assumed}");
        assert!(vramfit_core::gpu::find_gpu(want).is_some());
    }
    let (name, _) = gpu_of(include_str!(
        "data/llama_cpp/logs/04_llama31-70b-q4_0-rpc-2nodes.txt"
    ));
    assert_eq!(name, None, "RPC workers are not a GPU");
    // Vulkan's device line, with a card the catalog may not hold.
    let vulkan = "ggml_vulkan: 0 = Imaginary GPU 9000 (RADV FOO) (radv) | uma: 0 | fp16: 1\n\
                  load_tensors:      Vulkan0 model buffer size =  4403.49 MiB\n";
    let (name, assumed) = gpu_of(vulkan);
    assert_eq!(name, None);
    assert!(
        assumed.contains("\"Imaginary GPU 9000\" is not in the catalog"),
        "{assumed}"
    );
}

/// An SGLang start-up log (sgl-project/sglang#4826, Gemma 3 4B in bf16):
/// its weights, pool and pool tokens are read in GiB, and the pool it
/// printed is its tokens times our KV bytes per token with every layer
/// caching the whole context (SGLang 0.5's pool has no sliding-window
/// share): 834,615 tokens × 34 layers × 2 × 4 KV heads × 256 × 2 B.
#[test]
fn an_sglang_log_is_read_and_its_pool_is_every_layers_kv() {
    let text = include_str!("data/reconcile/sglang_gemma3_4b.log");
    let log = read_runtime_log(text).expect("an SGLang log");
    assert_eq!(log.engine, "sglang");
    let value = |f: Figure| log.reading(f).map(|r| r.value).expect("read");
    assert!((value(Figure::Weights) / GIB - 8.13).abs() < 1e-9);
    assert_eq!(value(Figure::KvTokens), 834_615.0);
    let pool = value(Figure::KvPool) / GIB;
    assert!((pool - 108.24).abs() < 1e-9, "{pool}");
    assert_eq!(log.scenario.inference.engine, Engine::Sglang);
    let spec = vramfit_core::hf_config::from_hf_config(include_str!(
        "data/configs/google__gemma-3-4b-it--text_config.json"
    ))
    .expect("imports");
    let shards = common::one_gpu(spec.layers);
    let (per_token, _) = vramfit_core::inference::kv_bytes_per_token(
        &spec,
        vramfit_core::precision::Dtype::Bf16,
        &shards,
    );
    assert_eq!(per_token, 34 * 2 * 4 * 256 * 2);
    let ours = 834_615.0 * per_token as f64 / GIB;
    // Printed as two sizes to 0.01 GiB each.
    assert!((ours - pool).abs() <= 0.01, "{ours} vs {pool}");
}

/// Today's llama.cpp at its default verbosity prints no buffer lines, only
/// the memory breakdown table at exit. Read alone (with the model given),
/// it sets up its scenario: `-c` from the KV cache it holds (448 + 576 MiB
/// is 32,768 cells of Llama-3.2-1B), `-ngl` from the share on the GPU (8:
/// the output layer and 7 layers), and every buffer then compares within
/// the table's whole MiB.
#[test]
fn the_memory_breakdown_table_alone_is_read_and_compared() {
    let log = read_runtime_log(include_str!(
        "data/llama_cpp/measured/breakdown_only_llama32_1b_ngl8_c32768.txt"
    ))
    .expect("a llama.cpp table");
    assert_eq!(log.engine, "llama.cpp");
    let spec = &vramfit_core::catalog::find_model("meta-llama/Llama-3.2-1B")
        .expect("catalog model")
        .spec;
    let r = reconcile(&log, Some(spec)).expect("compares");
    let inf = &r.log.scenario.inference;
    assert_eq!(inf.prompt_len, 32_768, "{:?}", r.log.assumed);
    assert_eq!(inf.gpu_layers, Some(8), "{:?}", r.log.assumed);
    for figure in [
        Figure::ModelBufferGpu,
        Figure::ModelBufferHost,
        Figure::KvBufferGpu,
        Figure::KvBufferHost,
        Figure::ComputeBufferGpu,
    ] {
        let row = r
            .rows
            .iter()
            .find(|row| row.figure == figure)
            .unwrap_or_else(|| panic!("{figure:?} compared"));
        assert!(
            (row.ours - row.runtime).abs() <= 1.01 * (1u64 << 20) as f64,
            "{figure:?}: ours {} vs printed {}",
            row.ours,
            row.runtime
        );
    }
    assert!(r.rows.iter().any(|row| row.figure == Figure::DeviceUsed));
}

/// Ollama's server log (hand-written in its engine's layout): each
/// device's weights, cache and compute graph to one decimal, the runner's
/// request (context, batch, flash attention, cache type), the offload
/// split with the output layer left on the CPU, the file type, the name
/// and the GPU its engine found.
#[test]
fn an_ollama_server_log_is_read_as_its_buffers() {
    let log = read_runtime_log(include_str!(
        "data/reconcile/ollama_server_qwen3_next_partial.txt"
    ))
    .expect("an Ollama server log");
    assert_eq!(log.engine, "ollama log");
    assert_eq!(log.model.as_deref(), Some("Qwen3 Coder Next"));
    let value = |f: Figure| log.reading(f).map(|r| r.value).expect("read");
    // whole bytes of the printed sizes
    assert_eq!(value(Figure::ModelBufferGpu), (19.9 * GIB).round());
    assert_eq!(value(Figure::ModelBufferHost), (28.3 * GIB).round());
    assert_eq!(value(Figure::KvBufferGpu), (955.2 * MIB).round());
    assert_eq!(value(Figure::KvBufferHost), (1.3 * GIB).round());
    assert_eq!(value(Figure::ComputeBufferGpu), (918.1 * MIB).round());
    // one decimal of GiB: ±0.05 GiB
    let weights = log.reading(Figure::ModelBufferGpu).expect("weights");
    assert!(
        (weights.rounding - 0.05 * GIB).abs() < 1.0,
        "{}",
        weights.rounding
    );
    let inf = &log.scenario.inference;
    assert_eq!(inf.engine, Engine::LlamaCpp);
    assert_eq!(inf.prompt_len, 32_768);
    assert_eq!(inf.ubatch, 1024);
    assert!(inf.flash_attn);
    assert_eq!(inf.cache_type, vramfit_core::scenario::CacheType::Q8_0);
    assert_eq!(inf.gpu_layers, Some(20));
    assert!(inf.output_layer_last, "the output layer stayed on the CPU");
    assert_eq!(log.model_layers, Some(48));
    assert_eq!(
        log.scenario.weights,
        vramfit_core::precision::WeightFormat::GgufQ4KM
    );
    assert_eq!(log.scenario.gpu.name.as_deref(), Some("rtx-4090"));
}

/// Ollama's server log before its own engine (hand-written in its layout):
/// the scheduler's plan and the runner's command line set the layers, the
/// context, the batch and flash attention (off: the command line names
/// `--flash-attn` when on), and the runner's llama.cpp lines the buffers.
#[test]
fn an_ollama_legacy_server_log_sets_up_its_runner() {
    let log = read_runtime_log(include_str!(
        "data/reconcile/ollama_server_legacy_qwen25_7b.txt"
    ))
    .expect("an Ollama server log");
    assert_eq!(log.engine, "ollama log");
    let inf = &log.scenario.inference;
    assert_eq!(inf.gpu_layers, Some(20));
    assert_eq!(log.model_layers, Some(28));
    assert_eq!(inf.prompt_len, 8192);
    assert_eq!(inf.ubatch, 512);
    assert!(!inf.flash_attn);
    let value = |f: Figure| log.reading(f).map(|r| r.value).expect("read");
    assert_eq!(value(Figure::KvBufferGpu), 320.0 * MIB);
    assert_eq!(value(Figure::KvBufferHost), 128.0 * MIB);
}
