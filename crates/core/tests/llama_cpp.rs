//! llama.cpp's buffers against the load logs llama.cpp printed
//! (`tests/data/llama_cpp/logs/`, one source per file header; the columns
//! in `logs.csv`). Each log is rebuilt from the model, the file type and the
//! flags it states; nothing is read from its buffer lines but the check.

use vramfit_core::catalog::find_model;
use vramfit_core::llama_cpp::buffers::{buffers, Buffers, Flags};
use vramfit_core::llama_cpp::ggml::GgmlType;
use vramfit_core::llama_cpp::recipe::FileType;
use vramfit_core::llama_cpp::tensors::gguf_weights;

const MIB: f64 = (1u64 << 20) as f64;

fn run(model: &str, file_type: FileType, flags: Flags) -> Buffers {
    let spec = &find_model(model).expect("catalog model").spec;
    let counts = spec.param_counts();
    let w = gguf_weights(spec, &counts, file_type);
    buffers(spec, &w, &flags)
}

fn flags(n_gpu_layers: u64, n_ctx: u64, n_ubatch: u64) -> Flags {
    Flags {
        n_gpu_layers,
        n_cpu_moe: 0,
        n_ctx,
        n_ubatch,
        flash_attn: false,
        type_k: GgmlType::F16,
        type_v: GgmlType::F16,
        gpus: 1,
        // The logs here predate PR #18148 (their layer order).
        output_first: false,
    }
}

fn within(ours: u128, printed_mib: f64, share: f64, what: &str) {
    let ours = ours as f64 / MIB;
    let e = (ours - printed_mib) / printed_mib;
    eprintln!(
        "{what}: {ours:.2} MiB vs {printed_mib} ({:+.2} %)",
        100.0 * e
    );
    assert!(
        e.abs() <= share,
        "{what}: {ours:.2} MiB vs printed {printed_mib}"
    );
}

/// Log 01: Llama-3-8B Q4_K_M, -ngl 33 (all), -c 512, -ub 512, no FA.
#[test]
fn llama3_8b_q4_k_m_fully_offloaded() {
    let b = run(
        "meta-llama/Meta-Llama-3-8B",
        FileType::Q4KM,
        flags(33, 512, 512),
    );
    within(b.gpu_model, 4403.49, 0.002, "CUDA0 model buffer");
    within(b.host_model, 281.81, 0.002, "CPU model buffer");
    within(b.gpu_kv, 64.0, 0.0, "KV");
    within(b.gpu_compute, 258.50, 0.01, "CUDA0 compute");
    within(b.host_compute, 9.01, 0.01, "CUDA_Host compute");
    within(b.output, 0.49, 0.01, "output");
}

/// Log 02: Qwen3-8B (DeepSeek-R1-0528 distill) Q8_0, -ngl 19 of 36,
/// -c 131072, no FA: the KV cache splits with the layers.
#[test]
fn qwen3_8b_q8_0_partially_offloaded_at_128k() {
    let b = run("Qwen/Qwen3-8B", FileType::Q8_0, flags(19, 131_072, 512));
    within(b.gpu_model, 3715.11, 0.003, "CUDA0 model buffer");
    within(b.host_model, 4585.25, 0.003, "CPU model buffer");
    within(b.gpu_kv, 9728.0, 0.0, "CUDA0 KV");
    within(b.host_kv, 8704.0, 0.0, "CPU KV");
    within(b.gpu_compute, 9240.0, 0.03, "CUDA0 compute");
    within(b.host_compute, 264.01, 0.01, "CUDA_Host compute");
    within(b.output, 0.58, 0.01, "output");
}

/// Log 03: Phi-3-mini Q4_K_M (fused QKV), all layers, -c 4096, -ub 256.
#[test]
fn phi3_mini_q4_k_m_with_a_small_ubatch() {
    let b = run(
        "microsoft/Phi-3-mini-4k-instruct",
        FileType::Q4KM,
        flags(33, 4096, 256),
    );
    within(b.gpu_model, 2228.82, 0.002, "CUDA0 model buffer");
    within(b.host_model, 52.84, 0.002, "CPU model buffer");
    within(b.gpu_kv, 1536.0, 0.0, "KV");
    within(b.gpu_compute, 150.0, 0.12, "CUDA0 compute");
    within(b.host_compute, 7.0, 0.01, "CUDA_Host compute");
}

/// Log 04: Llama-3.1-70B Q4_0 over two RPC devices, all 81 layers,
/// -c 4096: the layers split 41/39, so the busiest device holds 41/80.
#[test]
fn llama31_70b_q4_0_over_two_devices() {
    let mut f = flags(81, 4096, 512);
    f.gpus = 2;
    let b = run("meta-llama/Llama-3.1-70B", FileType::Q4_0, f);
    within(
        b.gpu_model * 2,
        18821.56 + 18725.42,
        0.003,
        "RPC model buffers, both",
    );
    within(b.host_model, 563.62, 0.002, "CPU model buffer");
    within(b.gpu_kv * 2, 656.0 + 624.0, 0.0, "KV, both");
}

/// Log 12: Qwen3-30B-A3B, -ngl 30 of 48, -c 4096. The excerpt does not
/// print the file type; its buffers total Q4_K_M's file size, and the
/// split checks which layers go where (the last 30, experts with them).
#[test]
fn qwen3_30b_a3b_partially_offloaded() {
    let b = run("Qwen/Qwen3-30B-A3B", FileType::Q4KM, flags(30, 4096, 512));
    within(b.gpu_model, 10750.86, 0.01, "CUDA0 model buffer");
    within(b.host_model, 6940.48, 0.01, "CPU model buffer");
}

/// Log 11: Qwen2.5-14B (Ollama's default Q4_K_M), all layers, -c 8192.
#[test]
fn qwen25_14b_fully_offloaded() {
    let b = run("Qwen/Qwen2.5-14B", FileType::Q4KM, flags(49, 8192, 512));
    within(b.gpu_model, 8148.38, 0.005, "CUDA0 model buffer");
    within(b.host_model, 417.66, 0.005, "CPU model buffer");
    within(b.gpu_kv, 1536.0, 0.0, "KV");
}
