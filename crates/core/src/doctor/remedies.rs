//! What to do, by stack: each stack runs out of memory for its own reasons
//! and has its own knobs. And the errors that look like memory errors but are
//! not, named with what they usually mean.

use super::report::{Diagnosis, OomReport};
use super::size::human_bytes as hb;
use super::stacks::{ErrorKind, Framework, Memory, Wrapper};
use super::{runtimes, servers};

fn d(code: &'static str, message: String, message_zh: String) -> Diagnosis {
    Diagnosis {
        code,
        message,
        message_zh,
    }
}

/// The explanation of an error that is not out of memory.
pub fn not_out_of_memory(kind: ErrorKind) -> Option<Diagnosis> {
    let (code, en, zh) = match kind {
        ErrorKind::OutOfMemory | ErrorKind::MemorySummary => return None,
        ErrorKind::DeviceSideAssert => (
            "device_side_assert",
            "Not an out-of-memory error: a device-side assert is a check that failed inside a CUDA \
             kernel, almost always an index out of range: a label ≥ the number of classes, a token id \
             ≥ the vocabulary size (tokens added without resize_token_embeddings), a negative index. \
             Rerun with CUDA_LAUNCH_BLOCKING=1, or on the CPU, to see the line that fails.",
            "这不是显存不足：device-side assert 是 CUDA 核函数内部的检查失败，几乎总是索引越界：标签 ≥ 类别数、\
             token id ≥ 词表大小（新增 token 后没有 resize_token_embeddings）、负索引。设置 \
             CUDA_LAUNCH_BLOCKING=1 或在 CPU 上重跑，可看到真正出错的那一行。",
        ),
        ErrorKind::IllegalMemoryAccess => (
            "illegal_memory_access",
            "Not an out-of-memory error: a kernel read or wrote outside its buffers. Usually a bug in a \
             custom CUDA op or extension, an index out of range, or mismatched CUDA / driver / library \
             versions. Rerun with CUDA_LAUNCH_BLOCKING=1 (or compute-sanitizer) to find the kernel; the \
             process must restart, its CUDA context is unusable.",
            "这不是显存不足：某个核函数读写了自己缓冲区之外的内存。通常是自定义 CUDA 算子或扩展的 bug、索引越界，\
             或 CUDA / 驱动 / 库版本不匹配。设置 CUDA_LAUNCH_BLOCKING=1（或用 compute-sanitizer）定位核函数；\
             进程必须重启，CUDA 上下文已不可用。",
        ),
        ErrorKind::NcclTimeout => (
            "nccl_timeout",
            "Not an out-of-memory error: a collective (all-reduce, all-gather) waited past its timeout \
             because one rank stopped or fell behind: it crashed (find that rank's own first error, \
             which may be an OOM), hung in data loading, or took another code path. Raise the timeout \
             only when a step is slow on purpose (saving a checkpoint).",
            "这不是显存不足：集合通信（all-reduce、all-gather）等待超时，因为某个 rank 停下或落后了：它崩溃了\
             （找到该 rank 自己的第一条报错，可能正是 OOM）、卡在数据加载，或走了不同的代码路径。只有当某步本就很慢\
             （如保存检查点）时才应调大超时。",
        ),
        ErrorKind::AttentionKernelMissing => (
            "attention_kernel_missing",
            "Not an out-of-memory error: transformers refused the attention implementation asked for, \
             because this model's class has no such kernel (`_supports_sdpa` or `_supports_flash_attn` \
             is False: Gemma-2, gpt-oss and other models with attention sinks have no SDPA). Leave \
             `attn_implementation` out and transformers runs eager attention, which stores every \
             layer's full score matrix: budget for it, or ask for a kernel the class has \
             (FlashAttention for Gemma-2; for gpt-oss, `kernels-community/vllm-flash-attn3` on Hopper \
             or `flash_attention_4`).",
            "这不是显存不足：transformers 拒绝了所请求的注意力实现，因为该模型类没有对应内核\
             （`_supports_sdpa` 或 `_supports_flash_attn` 为 False：Gemma-2、gpt-oss 等带 attention sink \
             的模型没有 SDPA）。不指定 `attn_implementation` 时 transformers 会用 eager 注意力，存下每层完整的\
             注意力分数矩阵，请为此预留显存；或改用该模型类支持的内核（Gemma-2 用 FlashAttention；gpt-oss 在 \
             Hopper 上用 `kernels-community/vllm-flash-attn3` 或 `flash_attention_4`）。",
        ),
        ErrorKind::SharedMemory => (
            "shared_memory",
            "Not GPU memory: a Triton kernel asks for more on-chip shared memory per block than this \
             GPU has (99 KiB on RTX 30 and 40, 64 KiB on RTX 20 and T4, 227 KiB on H100). A smaller \
             batch does not help: use a build tuned for this card (fewer num_stages, smaller blocks), \
             a newer release of the library, or its path without Triton.",
            "这不是显存：某个 Triton 核函数每个 block 需要的片上共享内存超过了这块 GPU 的上限（RTX 30/40 为 \
             99 KiB，RTX 20 与 T4 为 64 KiB，H100 为 227 KiB）。减小 batch 没有用：请使用针对此卡调优的版本\
             （更少的 num_stages、更小的 block）、更新该库，或改用不依赖 Triton 的实现。",
        ),
        ErrorKind::AllocatorWarning => (
            "allocator_warning",
            "Not a failure: TensorFlow's allocator could not get the memory it wanted for a faster \
             algorithm and went on without it. The run continues; only a ResourceExhaustedError is an \
             out-of-memory error.",
            "这不是失败：TensorFlow 的分配器没拿到想要的显存来用更快的算法，已改用其他方式继续运行。\
             只有 ResourceExhaustedError 才是显存不足。",
        ),
    };
    Some(d(code, en.into(), zh.into()))
}

/// The stack's own remedies for an out-of-memory error, most specific first.
pub fn for_stack(r: &OomReport) -> Vec<Diagnosis> {
    let mut found = Vec::new();
    if r.framework == Framework::Ollama {
        found.push(servers::ollama(r));
    } else if r.memory == Memory::Host {
        found.extend(host(r));
    } else {
        found.extend(match r.framework {
            Framework::Pytorch if r.memory == Memory::Unified => Some(mps(r)),
            Framework::Mlx if r.signature.is_some_and(|s| s.contains("metal::malloc")) => {
                Some(runtimes::metal_buffer(r))
            }
            _ if r.memory == Memory::Unified => Some(servers::metal()),
            Framework::Vllm if r.signature.is_some_and(|s| s.contains("on startup")) => {
                servers::vllm_startup(r)
            }
            Framework::Vllm => Some(vllm(r)),
            Framework::Tgi => Some(servers::tgi()),
            Framework::Pytorch if r.signature.is_some_and(|s| s.contains("dispatched")) => {
                Some(servers::quantized_offload())
            }
            Framework::Sglang if r.signature.is_some_and(|s| s.contains("out of memory")) => {
                Some(runtimes::sglang_serving())
            }
            Framework::Sglang => Some(sglang()),
            Framework::Paddle => Some(runtimes::paddle()),
            Framework::OnnxRuntime => Some(runtimes::onnx_runtime(r)),
            Framework::TensorRt => Some(runtimes::tensorrt()),
            Framework::LlamaCpp => Some(llama_cpp()),
            Framework::Jax => Some(jax(r)),
            Framework::Tensorflow => Some(tensorflow()),
            Framework::Nccl => Some(nccl()),
            Framework::Cublas => Some(cublas()),
            Framework::Pytorch
            | Framework::Os
            | Framework::Ollama
            | Framework::Mlx
            | Framework::Triton => None,
        });
    }
    found.extend(r.wrapper.map(wrapper));
    found
}

/// Host RAM: a killed DataLoader worker, the kernel's OOM killer, exit 137,
/// or a host allocator that said no.
fn host(r: &OomReport) -> Vec<Diagnosis> {
    let mut found = Vec::new();
    let signature = r.signature.unwrap_or("");
    let killed = signature.contains("killed by signal") || signature.contains("shared memory");
    let exit_137 = ["137", "-9", "oomkilled", "sigkill"]
        .iter()
        .any(|p| signature.contains(p));
    if killed {
        found.push(d(
            "dataloader_killed",
            "The operating system killed a DataLoader worker: host RAM (or /dev/shm in a container) ran \
             out, not GPU memory. Each worker holds its own copy of the dataset object and prefetch_factor \
             batches: lower num_workers (2, or 0 to confirm), stream the data instead of holding it \
             (datasets streaming=True, an IterableDataset, memory-mapped arrays), and in Docker raise --shm-size."
                .into(),
            "操作系统杀死了一个 DataLoader 工作进程：耗尽的是主机内存（容器中也可能是 /dev/shm），不是显存。\
             每个 worker 都持有一份数据集对象和 prefetch_factor 个 batch：减小 num_workers（2，或设为 0 以确认），\
             改为流式读取数据（datasets 的 streaming=True、IterableDataset、内存映射数组），Docker 中调大 --shm-size。"
                .into(),
        ));
    } else if signature.contains("oom_kill") || signature.contains("oom-kill event") {
        found.push(runtimes::cgroup_limit());
    } else if exit_137 {
        found.push(d(
            "exit_137",
            "Exit code 137 (or -9) is 128 + 9: the process got SIGKILL, almost always from the kernel's \
             OOM killer or a container's memory limit (Kubernetes: OOMKilled). dmesg or the pod's events \
             say which; either way it is host RAM."
                .into(),
            "退出码 137（或 -9）= 128 + 9：进程收到了 SIGKILL，几乎总是内核的 OOM killer 或容器的内存上限\
             （Kubernetes 中显示 OOMKilled）所为。dmesg 或 Pod 事件可以确认；两种情况都是主机内存不足。"
                .into(),
        ));
    }
    let held = r
        .process_in_use_bytes
        .map(|rss| format!(" The killed process held {} of RAM.", hb(rss)))
        .unwrap_or_default();
    let held_zh = r
        .process_in_use_bytes
        .map(|rss| format!("被杀进程占用了 {} 内存。", hb(rss)))
        .unwrap_or_default();
    found.push(d(
        "host_ram",
        format!(
            "This is host RAM, not GPU memory.{held} Load weights sharded and straight to the GPU \
             (from_pretrained(..., low_cpu_mem_usage=True, device_map=\"auto\"), safetensors), use fewer \
             DataLoader workers and streaming datasets, and compare with the estimate's CPU RAM line: \
             ZeRO/FSDP CPU offload lives in this memory too."
        ),
        format!(
            "这是主机内存（RAM），不是显存。{held_zh}按分片加载权重并直接放到 GPU（from_pretrained(..., \
             low_cpu_mem_usage=True, device_map=\"auto\")、safetensors），减少 DataLoader worker、使用流式数据集，\
             并对照估算结果中的 CPU 内存一行：ZeRO/FSDP 的 CPU offload 也占用这部分内存。"
        ),
    ));
    found
}

fn mps(r: &OomReport) -> Diagnosis {
    let limit = r.total_bytes.map(hb).unwrap_or_else(|| "the limit".into());
    d(
        "mps_unified",
        format!(
            "On Apple silicon the GPU shares the system's RAM: PyTorch stops at max allowed ({limit}), a \
             share of RAM set by PYTORCH_MPS_HIGH_WATERMARK_RATIO. Close other apps holding memory, lower \
             the batch or resolution, or use float16; a ratio of 0.0 removes the limit but may freeze the machine."
        ),
        format!(
            "Apple 芯片上 GPU 与系统共用内存：PyTorch 在 max allowed（{limit}）处停止，这是由 \
             PYTORCH_MPS_HIGH_WATERMARK_RATIO 决定的内存份额。关闭占用内存的其他程序、减小 batch 或分辨率，\
             或使用 float16；把比例设为 0.0 会取消上限，但可能让整机卡死。"
        ),
    )
}

fn vllm(r: &OomReport) -> Diagnosis {
    let (tokens, tokens_zh) = match (r.tokens_needed, r.tokens_available) {
        (Some(need), Some(fit)) => (
            format!(" One request of max_model_len {need} tokens needs more than the {fit} tokens the cache holds: set --max-model-len {fit} or less, or"),
            format!("一个 max_model_len 为 {need} 的请求超过了缓存能容纳的 {fit} 个 token：把 --max-model-len 设为 {fit} 或更小，或"),
        ),
        _ => (" Lower --max-model-len, or".to_string(), "减小 --max-model-len，或".to_string()),
    };
    d(
        "vllm_kv_cache",
        format!(
            "vLLM gives the KV cache what gpu_memory_utilization leaves after the weights and the \
             profiling peak.{tokens} raise --gpu-memory-utilization (0.90 → 0.95) if nothing else uses \
             the card, store the cache in fp8 (--kv-cache-dtype fp8), shard the model \
             (--tensor-parallel-size), or skip CUDA graphs (--enforce-eager)."
        ),
        format!(
            "vLLM 把权重和预跑峰值之后、gpu_memory_utilization 剩下的显存分给 KV cache。{tokens_zh}在没有其他程序\
             占用显卡时调高 --gpu-memory-utilization（0.90 → 0.95）、用 fp8 存缓存（--kv-cache-dtype fp8）、\
             多卡切分模型（--tensor-parallel-size），或不用 CUDA graph（--enforce-eager）。"
        ),
    )
}

/// SGLang's pool is `mem_fraction_static × total − (total − free after
/// loading)` (`profile_max_num_token`): it is empty when the weights take
/// more than that fraction of the card, so the fraction must go up, the
/// opposite of the advice for an out-of-memory error while serving.
fn sglang() -> Diagnosis {
    d(
        "sglang_pool",
        "SGLang sizes its KV pool as --mem-fraction-static of the card's memory minus what loading took, and nothing was left: the weights take more than that fraction. Raise --mem-fraction-static (0.88 → 0.92) if nothing else uses the card, serve a quantized checkpoint (--quantization fp8), or shard the model (--tp). Lower it instead only for an out-of-memory error while serving."
            .into(),
        "SGLang 的 KV 池等于显卡显存乘以 --mem-fraction-static、再减去加载所用的显存，这里已不剩余：权重超过了这个比例。在没有其他程序占用显卡时调高 --mem-fraction-static（0.88 → 0.92）、部署量化的权重（--quantization fp8），或多卡切分模型（--tp）。只有在服务过程中显存不足时才应调低它。"
            .into(),
    )
}

fn llama_cpp() -> Diagnosis {
    d(
        "llama_cpp_offload",
        "llama.cpp could not allocate a buffer on the GPU (weights, KV cache or compute buffer). Offload \
         fewer layers (-ngl), shrink the context (-c: the KV cache grows with it), quantize the KV cache \
         (--cache-type-k q8_0 --cache-type-v q8_0, with -fa), or keep it in RAM (--no-kv-offload)."
            .into(),
        "llama.cpp 无法在 GPU 上分配缓冲区（权重、KV cache 或计算缓冲）。减少卸载到 GPU 的层数（-ngl）、\
         缩小上下文（-c：KV cache 随之增长）、量化 KV cache（--cache-type-k q8_0 --cache-type-v q8_0，配合 -fa），\
         或把它留在内存中（--no-kv-offload）。"
            .into(),
    )
}

fn jax(r: &OomReport) -> Diagnosis {
    let (needs, needs_zh) = r
        .needed_bytes
        .map(|n| {
            (
                format!(" The program needs {} in all.", hb(n)),
                format!("该程序共需 {}。", hb(n)),
            )
        })
        .unwrap_or_default();
    d(
        "jax_preallocation",
        format!(
            "JAX preallocates 75% of the GPU when it starts (XLA_PYTHON_CLIENT_MEM_FRACTION).{needs} If \
             another framework or process shares the card, set XLA_PYTHON_CLIENT_PREALLOCATE=false or a \
             lower XLA_PYTHON_CLIENT_MEM_FRACTION; if this program alone is too big, lower the batch, \
             rematerialize (jax.checkpoint) or shard it across devices."
        ),
        format!(
            "JAX 启动时会预分配 75% 的显存（XLA_PYTHON_CLIENT_MEM_FRACTION）。{needs_zh}如果别的框架或进程共用这张卡，\
             设置 XLA_PYTHON_CLIENT_PREALLOCATE=false 或调低 XLA_PYTHON_CLIENT_MEM_FRACTION；如果是程序本身太大，\
             减小 batch、重计算（jax.checkpoint）或跨设备切分。"
        ),
    )
}

fn tensorflow() -> Diagnosis {
    d(
        "tf_memory",
        "TensorFlow's allocator could not place this tensor. Lower the batch (activations scale with \
         it), use mixed precision (tf.keras.mixed_precision), and when another framework shares the card \
         let TensorFlow grow instead of taking it all (tf.config.experimental.set_memory_growth)."
            .into(),
        "TensorFlow 的分配器放不下这个张量。减小 batch（激活值随之缩放）、使用混合精度（tf.keras.mixed_precision），\
         若与其他框架共用显卡，让 TensorFlow 按需增长而不是一次占满（tf.config.experimental.set_memory_growth）。"
            .into(),
    )
}

fn nccl() -> Diagnosis {
    d(
        "nccl_buffers",
        "NCCL could not allocate its communication buffers: communicators are created at the first \
         collective, after the model already filled the card. Leave headroom (a smaller batch, a lower \
         gpu_memory_utilization), make sure no other process shares the GPU, and reduce NCCL's own use \
         (NCCL_BUFFSIZE, fewer channels)."
            .into(),
        "NCCL 无法分配通信缓冲区：通信器在第一次集合通信时才创建，此时模型已占满显卡。预留余量（减小 batch、\
         调低 gpu_memory_utilization），确认没有其他进程共用这张卡，并减少 NCCL 自身占用（NCCL_BUFFSIZE、更少通道）。"
            .into(),
    )
}

fn cublas() -> Diagnosis {
    d(
        "cublas_workspace",
        "cuBLAS/cuDNN could not allocate its handle or workspace: the card was already full when the \
         first matrix multiply or convolution ran. Usually another process, or TensorFlow/JAX \
         preallocating the card: check nvidia-smi, enable memory growth, or lower the batch. If the \
         card had room, an earlier index out of range (a token id past the vocabulary) fails the \
         same way: rerun with CUDA_LAUNCH_BLOCKING=1."
            .into(),
        "cuBLAS/cuDNN 无法分配句柄或工作区：第一次矩阵乘或卷积运行时显卡已经满了。通常是别的进程，或 TensorFlow/JAX \
         预分配了整张卡：用 nvidia-smi 检查、开启按需增长，或减小 batch。若显卡其实有余量，先前的索引越界\
         （token id 超出词表）也会这样报错：设置 CUDA_LAUNCH_BLOCKING=1 重跑。"
            .into(),
    )
}

fn wrapper(w: Wrapper) -> Diagnosis {
    match w {
        Wrapper::Deepspeed => d(
            "deepspeed_zero",
            "DeepSpeed: ZeRO stage 3 shards parameters, gradients and optimizer states across GPUs; \
             offload_optimizer / offload_param to the CPU trade GPU memory for host RAM (watch it too); \
             lower train_micro_batch_size_per_gpu and raise gradient accumulation."
                .into(),
            "DeepSpeed：ZeRO stage 3 会把参数、梯度和优化器状态切分到各卡；offload_optimizer / offload_param \
             把它们移到 CPU，用主机内存换显存（同样要留意内存）；减小 train_micro_batch_size_per_gpu 并增大梯度累积。"
                .into(),
        ),
        Wrapper::Bitsandbytes => d(
            "bitsandbytes_load",
            "bitsandbytes: a quantized load still materializes each layer before quantizing it. Load with \
             device_map=\"auto\" and a max_memory cap, prefer 4-bit (load_in_4bit) to 8-bit, and page the \
             optimizer (paged_adamw_8bit)."
                .into(),
            "bitsandbytes：量化加载时每层仍会先完整生成再量化。使用 device_map=\"auto\" 并设置 max_memory 上限，\
             优先 4-bit（load_in_4bit）而非 8-bit，优化器使用分页版本（paged_adamw_8bit）。"
                .into(),
        ),
    }
}
