//! Remedies of the runtimes whose allocators fail in their own words:
//! PaddlePaddle, ONNX Runtime, TensorRT and TensorRT-LLM, MLX's largest
//! Metal buffer, and SGLang's KV pool running out while it serves.

use super::report::{Diagnosis, OomReport};
use super::size::human_bytes as hb;

fn d(code: &'static str, message: &str, message_zh: &str) -> Diagnosis {
    Diagnosis {
        code,
        message: message.into(),
        message_zh: message_zh.into(),
    }
}

/// Paddle's allocator strategy and memory fraction are its `FLAGS_`
/// (PaddlePaddle's "FLAGS" reference: `FLAGS_allocator_strategy`,
/// `FLAGS_fraction_of_gpu_memory_to_use`).
pub(super) fn paddle() -> Diagnosis {
    d(
        "paddle_memory",
        "PaddlePaddle's allocator could not place this tensor. Lower the batch, train in mixed precision \
         (paddle.amp.auto_cast, level O2 keeps the weights in 16 bits), recompute layers instead of storing \
         their activations (paddle.distributed.fleet.utils.recompute), and when another process shares the \
         card cap Paddle with FLAGS_fraction_of_gpu_memory_to_use or let it grow with \
         FLAGS_allocator_strategy=auto_growth.",
        "PaddlePaddle 的分配器放不下这个张量。减小 batch、使用混合精度训练（paddle.amp.auto_cast，O2 级别把权重存为 \
         16 位）、用重计算代替保存激活（paddle.distributed.fleet.utils.recompute）；若有其他进程共用显卡，用 \
         FLAGS_fraction_of_gpu_memory_to_use 限制 Paddle 的份额，或设 FLAGS_allocator_strategy=auto_growth 按需增长。",
    )
}

/// The CUDA execution provider's arena grows by powers of two unless told
/// (`arena_extend_strategy`, `gpu_mem_limit`: ONNX Runtime's CUDA
/// execution provider documentation).
pub(super) fn onnx_runtime(r: &OomReport) -> Diagnosis {
    let absurd = r.requested_bytes.is_some_and(|b| b >= 1 << 50);
    if absurd {
        return d(
            "onnx_absurd_request",
            "The buffer asked for is larger than any machine: a shape in the graph came out wrong (a \
             dynamic axis read as garbage, an overflowed size), not a memory shortage. Check the input \
             shapes the session gets against the model's inputs.",
            "申请的缓冲区比任何机器的内存都大：是图中的某个形状算错了（动态维度读到了错误值、尺寸溢出），\
             而不是内存不足。请对照模型的输入检查传给 session 的张量形状。",
        );
    }
    d(
        "onnx_arena",
        "ONNX Runtime's arena could not grow. The CUDA execution provider extends it to the next power of \
         two by default (arena_extend_strategy kNextPowerOfTwo), so a request can fail with memory to spare: \
         set arena_extend_strategy to kSameAsRequested and a gpu_mem_limit in the provider options, lower the \
         batch or the input size, or use an fp16 model. Several sessions or processes on one card each keep \
         their own arena.",
        "ONNX Runtime 的内存池（arena）无法再扩展。CUDA 执行提供程序默认按 2 的幂扩展（arena_extend_strategy \
         kNextPowerOfTwo），所以还有空闲显存时也可能失败：在 provider 选项中把 arena_extend_strategy 设为 \
         kSameAsRequested 并设置 gpu_mem_limit，减小 batch 或输入尺寸，或使用 fp16 模型。同一张卡上的多个 session \
         或进程各自保留自己的内存池。",
    )
}

/// TensorRT sizes an engine for its optimization profile's largest shapes;
/// TensorRT-LLM's KV cache takes `kv_cache_free_gpu_mem_fraction` (0.9) of
/// what is free after loading (its `KvCacheConfig` reference).
pub(super) fn tensorrt() -> Diagnosis {
    d(
        "tensorrt_memory",
        "TensorRT sizes an engine's buffers for its optimization profile's largest shapes, plus the \
         builder's workspace: rebuild with smaller maximum shapes (batch, sequence) or a lower workspace \
         limit (config.set_memory_pool_limit, trtexec --memPoolSize). TensorRT-LLM then gives its KV cache \
         kv_cache_free_gpu_mem_fraction (0.9) of what is free after loading: lower it, max_batch_size or \
         max_num_tokens when something else needs the card.",
        "TensorRT 按优化 profile 的最大形状再加上构建器的 workspace 来分配引擎缓冲：用更小的最大形状（batch、\
         序列长度）或更低的 workspace 上限（config.set_memory_pool_limit、trtexec --memPoolSize）重新构建。\
         TensorRT-LLM 随后把加载后空闲显存的 kv_cache_free_gpu_mem_fraction（0.9）分给 KV cache：若有其他程序需要\
         显卡，调低它，或调低 max_batch_size、max_num_tokens。",
    )
}

/// Metal refuses one buffer above the device's `maxBufferLength` whatever
/// memory is free (Apple's Metal feature set tables).
pub(super) fn metal_buffer(r: &OomReport) -> Diagnosis {
    let size = r.requested_bytes.map(hb).unwrap_or_default();
    Diagnosis {
        code: "metal_max_buffer",
        message: format!(
            "MLX asked Metal for one buffer of {size}, more than the largest single buffer the GPU allows \
             (its maxBufferLength), whatever memory is free: one tensor is too large. Shrink what makes it \
             (batch, sequence or image size; attention scores and logits are the usual ones) or compute it in \
             chunks."
        ),
        message_zh: format!(
            "MLX 向 Metal 申请了一个 {size} 的缓冲区，超过了 GPU 允许的单个缓冲区上限（maxBufferLength），与空闲内存多少\
             无关：是某一个张量太大。缩小产生它的尺寸（batch、序列长度或图像尺寸；通常是注意力分数或 logits），\
             或分块计算。"
        ),
    }
}

/// SGLang's scheduler when the pool fills while serving: prefill waits,
/// decode retracts requests (`scheduler.py`, `--max-running-requests`,
/// `--chunked-prefill-size`: SGLang's server arguments reference).
pub(super) fn sglang_serving() -> Diagnosis {
    d(
        "sglang_pool_full",
        "SGLang's KV pool filled while serving: new prefills waited or running requests were retracted and \
         will be redone. Fewer requests at once (--max-running-requests), a smaller --chunked-prefill-size, \
         shorter contexts, or a larger pool: fp8 KV cache (--kv-cache-dtype fp8_e5m2), or a higher \
         --mem-fraction-static when the activations leave room.",
        "SGLang 的 KV 池在服务中被占满：新的 prefill 需要等待，或正在运行的请求被撤回并将重做。减少同时运行的请求\
         （--max-running-requests）、调小 --chunked-prefill-size、缩短上下文，或扩大 KV 池：fp8 KV cache\
         （--kv-cache-dtype fp8_e5m2），或在激活值有余量时调高 --mem-fraction-static。",
    )
}

/// A batch scheduler's memory limit for the job's cgroup (Slurm's `--mem`,
/// `--mem-per-cpu`: its sbatch reference).
pub(super) fn cgroup_limit() -> Diagnosis {
    d(
        "cgroup_limit",
        "The job's memory limit killed it, not the machine's RAM running out: Slurm enforces --mem (or \
         --mem-per-cpu) per job through its cgroup. Ask for more (--mem), or lower what the job holds in \
         host RAM.",
        "是作业的内存上限杀死了它，而不是整机内存耗尽：Slurm 通过 cgroup 对每个作业执行 --mem（或 \
         --mem-per-cpu）。申请更多内存（--mem），或减少作业在主机内存中占用的部分。",
    )
}
