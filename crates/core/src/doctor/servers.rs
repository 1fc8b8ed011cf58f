//! Remedies of the servers and runtimes whose own checks refuse a setup
//! before anything runs out (vLLM's start-up check, Ollama's scheduler,
//! TGI's warm-up), and of Apple silicon's wired limit.

use super::report::{Diagnosis, OomReport};
use super::size::human_bytes as hb;
use crate::decimal::Decimal;

fn d(code: &'static str, message: String, message_zh: String) -> Diagnosis {
    Diagnosis {
        code,
        message,
        message_zh,
    }
}

/// vLLM V1 wants `gpu_memory_utilization × total` free at start-up; the
/// largest setting that passes is the free share, rounded down.
pub(super) fn vllm_startup(r: &OomReport) -> Option<Diagnosis> {
    let (free, total, want) = (r.free_bytes?, r.total_bytes?, r.requested_bytes?);
    let held = hb(total.saturating_sub(free));
    let share = Decimal((free as u128 * 100 / total.max(1) as u128) as f64 / 100.0);
    let (free, want) = (hb(free), hb(want));
    Some(d(
        "vllm_startup_free",
        format!(
            "vLLM starts only if gpu_memory_utilization × the card ({want}) is free, and {free} is: \
             other processes (another engine, a notebook, the desktop) hold {held}. Stop them, or set \
             --gpu-memory-utilization {share:.2} or less; engines sharing a card split it."
        ),
        format!(
            "vLLM 启动时要求显卡有 gpu_memory_utilization × 总显存（{want}）空闲，实际只有 {free}：\
             其他进程（另一个引擎、notebook、桌面）占用了 {held}。关掉它们，或设 \
             --gpu-memory-utilization {share:.2} 或更小；多个引擎共用一张卡时须分摊。"
        ),
    ))
}

/// Ollama's scheduler sums what stays in system RAM (the layers it does
/// not place on a GPU, their share of the context's cache, the buffers)
/// and refuses before llama.cpp loads anything.
pub(super) fn ollama(r: &OomReport) -> Diagnosis {
    let needs = r.needed_bytes.map(hb).unwrap_or_default();
    let free = r.free_bytes.map(hb).unwrap_or_default();
    d(
        "ollama_system_memory",
        format!(
            "Ollama estimates {needs} of system RAM for what it keeps off the GPU (layers, their cache, \
             buffers), and {free} is available. Close other programs, pick a smaller quantization or \
             num_ctx, or add swap; `vramfit plan --engine llama_cpp` shows the split."
        ),
        format!(
            "Ollama 估算 GPU 之外需要 {needs} 系统内存（层、其缓存与缓冲区），可用只有 {free}。关闭其他程序、\
             换更小的量化或 num_ctx，或增加 swap；`vramfit plan --engine llama_cpp` 可给出分配方案。"
        ),
    )
}

pub(super) fn tgi() -> Diagnosis {
    d(
        "tgi_warmup",
        "TGI's warm-up runs one batch of --max-batch-prefill-tokens beside the weights, and it did not \
         fit. Lower --max-batch-prefill-tokens (and --max-input-tokens below it), quantize (--quantize) \
         or shard over more GPUs (--num-shard)."
            .into(),
        "TGI 预热时在权重之外运行一个 --max-batch-prefill-tokens 大小的批次，放不下。减小 \
         --max-batch-prefill-tokens（--max-input-tokens 须更小）、量化（--quantize）或多卡切分（--num-shard）。"
            .into(),
    )
}

/// Metal on Apple silicon (llama.cpp, MLX): the GPU's share of RAM.
pub(super) fn metal() -> Diagnosis {
    d(
        "metal_wired_limit",
        "macOS lets the GPU wire only part of RAM (Metal's recommendedMaxWorkingSetSize, about two \
         thirds to three quarters). Use a smaller quantization or context, close other apps, or raise \
         it until reboot (sudo sysctl iogpu.wired_limit_mb=N), leaving macOS at least 8 GiB."
            .into(),
        "macOS 只允许 GPU 使用部分内存（Metal 的 recommendedMaxWorkingSetSize，约三分之二到四分之三）。\
         换更小的量化或上下文、关闭其他应用，或临时提高上限（sudo sysctl iogpu.wired_limit_mb=N），给系统至少留 8 GiB。"
            .into(),
    )
}

/// transformers' bitsandbytes quantizer refuses a device map that puts
/// modules on the CPU or the disk: `device_map="auto"` found the quantized
/// model too large for the GPU beside the share it keeps free.
pub(super) fn quantized_offload() -> Diagnosis {
    d(
        "quantized_offload",
        "device_map=\"auto\" put part of the quantized model on the CPU or the disk: it did not fit on the \
         GPU beside the 10 % kept free, and bitsandbytes cannot run there. Free the GPU of other work, \
         use 4-bit instead of 8-bit or a smaller model, or raise max_memory; llm_int8_enable_fp32_cpu_offload=True \
         with a device_map of your own runs the rest on the CPU, slowly."
            .into(),
        "device_map=\"auto\" 把部分量化模型放到了 CPU 或磁盘：GPU 在保留 10% 空闲后放不下它，而 bitsandbytes \
         不能在那里运行。清空 GPU 上的其他任务、改用 4-bit 或更小的模型，或调高 max_memory；\
         设置 llm_int8_enable_fp32_cpu_offload=True 并自定义 device_map 可让其余部分在 CPU 上（缓慢地）运行。"
            .into(),
    )
}
