//! Which stack printed an error: one row per signature phrase (what the
//! framework's own source prints when an allocation fails, or the operating
//! system when it kills a process), with the framework, the memory that ran
//! out and whether it is an out-of-memory error at all.
//!
//! Adding a stack is adding rows; the numbers are read by the same labelled
//! reader for every stack (`labels.rs`).

use serde::Serialize;

/// The software that printed the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Framework {
    Pytorch,
    Jax,
    Tensorflow,
    Vllm,
    Sglang,
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    Nccl,
    Cublas,
    /// Ollama's own scheduler, before llama.cpp loads anything.
    Ollama,
    Mlx,
    /// Hugging Face's text-generation-inference.
    Tgi,
    Triton,
    Paddle,
    OnnxRuntime,
    /// TensorRT and TensorRT-LLM.
    #[serde(rename = "tensorrt")]
    TensorRt,
    /// The operating system: the kernel's OOM killer, a killed process, or a
    /// host allocator (`DefaultCPUAllocator`, NumPy).
    Os,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::Pytorch => "PyTorch",
            Framework::Jax => "JAX / XLA",
            Framework::Tensorflow => "TensorFlow",
            Framework::Vllm => "vLLM",
            Framework::Sglang => "SGLang",
            Framework::LlamaCpp => "llama.cpp",
            Framework::Nccl => "NCCL",
            Framework::Cublas => "cuBLAS / cuDNN",
            Framework::Ollama => "Ollama",
            Framework::Mlx => "MLX",
            Framework::Tgi => "TGI",
            Framework::Triton => "Triton",
            Framework::Paddle => "PaddlePaddle",
            Framework::OnnxRuntime => "ONNX Runtime",
            Framework::TensorRt => "TensorRT",
            Framework::Os => "OS",
        }
    }
}

/// The memory that ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Memory {
    /// The accelerator's own memory (GPU VRAM, TPU HBM).
    Gpu,
    /// Memory shared by CPU and GPU (Apple silicon, MPS and Metal).
    Unified,
    /// The host's RAM.
    Host,
}

/// What kind of error the paste holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    OutOfMemory,
    /// No error, only a `torch.cuda.memory_summary()` table.
    MemorySummary,
    /// A failed check inside a CUDA kernel (an index out of range).
    DeviceSideAssert,
    /// A kernel touched memory outside its buffers.
    IllegalMemoryAccess,
    /// A collective waited past its timeout (a rank died or hung).
    NcclTimeout,
    /// TensorFlow's allocator warns it wanted more memory; the run goes on.
    AllocatorWarning,
    /// transformers refused the attention kernel asked for: the model's
    /// class has none (`_supports_sdpa`, `_supports_flash_attn` False).
    AttentionKernelMissing,
    /// A kernel wants more on-chip shared memory per block than the GPU has.
    SharedMemory,
}

impl ErrorKind {
    pub fn is_oom(self) -> bool {
        self == ErrorKind::OutOfMemory
    }
}

/// A library that wraps the framework and changes the remedies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wrapper {
    Deepspeed,
    Bitsandbytes,
}

/// One phrase that identifies an error (lowercase, as searched).
pub struct Signature {
    pub phrase: &'static str,
    pub framework: Framework,
    pub memory: Memory,
    pub kind: ErrorKind,
    /// A generic CUDA phrase that several stacks print: the words around it
    /// (`jax`, `ggml`, `vllm`) name the stack that raised it.
    pub generic: bool,
    /// An occurrence followed on its line by this phrase does not count.
    pub unless_line: Option<&'static str>,
    /// An occurrence counts only when its line goes on to say this (a
    /// CUDA call's check that names the error after the call).
    pub needs_line: Option<&'static str>,
}

const fn oom(phrase: &'static str, framework: Framework, memory: Memory) -> Signature {
    Signature {
        phrase,
        framework,
        memory,
        kind: ErrorKind::OutOfMemory,
        generic: false,
        unless_line: None,
        needs_line: None,
    }
}

const fn generic(phrase: &'static str, framework: Framework) -> Signature {
    Signature {
        generic: true,
        ..oom(phrase, framework, Memory::Gpu)
    }
}

const fn other(phrase: &'static str, framework: Framework, kind: ErrorKind) -> Signature {
    Signature {
        kind,
        ..oom(phrase, framework, Memory::Gpu)
    }
}

use ErrorKind as K;
use Framework as F;
use Memory as M;

/// Every signature. Sources: PyTorch `c10/cuda/CUDACachingAllocator.cpp`,
/// `aten/src/ATen/mps/MPSAllocator.mm`, `c10/core/impl/alloc_cpu.cpp`,
/// `torch/utils/data/_utils/signal_handling.py`; XLA `bfc_allocator.cc` and
/// the `RESOURCE_EXHAUSTED` status; TensorFlow `ResourceExhaustedError`;
/// vLLM `worker.py` / `v1/core/kv_cache_utils.py`; SGLang `model_runner.py`;
/// llama.cpp `ggml-cuda.cu`,
/// `llama-kv-cache.cpp`; NCCL `alloc.h`; cuBLAS status names; Linux
/// `mm/oom_kill.c`; Ollama, TGI, Metal and Triton where their
/// rows say. Real messages of each are in tests/data/oom/corpus.
pub const SIGNATURES: &[Signature] = &[
    // PyTorch
    oom("cuda out of memory", F::Pytorch, M::Gpu),
    oom("hip out of memory", F::Pytorch, M::Gpu),
    oom("xpu out of memory", F::Pytorch, M::Gpu),
    // torch_npu (Ascend)
    oom("npu out of memory", F::Pytorch, M::Gpu),
    // Intel XPU through Level Zero's unified runtime, when the caching
    // allocator is bypassed (`level_zero backend failed with error: 39`)
    oom("ur_result_error_out_of_device_memory", F::Pytorch, M::Gpu),
    oom("mps backend out of memory", F::Pytorch, M::Unified),
    // ROCm's runtime status and the CUDA driver API, as PyTorch and
    // Triton's launcher pass them on
    generic("hiperroroutofmemory", F::Pytorch),
    generic("cuda driver error: out of memory", F::Pytorch),
    oom("triton error [cuda]: out of memory", F::Triton, M::Gpu),
    oom("would exceed allowed memory", F::Pytorch, M::Gpu),
    oom("cudaerrormemoryallocation", F::Pytorch, M::Gpu),
    generic("cuda error: out of memory", F::Pytorch),
    generic("outofmemoryerror", F::Pytorch),
    // PyTorch < 1.0: `cuda runtime error (2) : out of memory at .../THC...`
    generic("runtime error (2) : out of memory", F::Pytorch),
    // the numbers' own start, when the first line was not copied
    generic("tried to allocate", F::Pytorch),
    oom(
        "defaultcpuallocator: not enough memory",
        F::Pytorch,
        M::Host,
    ),
    oom(
        "defaultcpuallocator: can't allocate memory",
        F::Pytorch,
        M::Host,
    ),
    oom("is killed by signal: killed", F::Pytorch, M::Host),
    // a DataLoader worker's bus error on a full /dev/shm
    // (`torch/utils/data/_utils/signal_handling.py`)
    oom("out of shared memory", F::Pytorch, M::Host),
    // Python's own `MemoryError` (a longer phrase on its line wins:
    // `OutOfMemoryError`, NumPy's `_ArrayMemoryError: Unable to allocate`)
    oom("memoryerror", F::Os, M::Host),
    // NumPy on the host: `Unable to allocate 18.6 GiB for an array with shape`
    oom("for an array with shape", F::Os, M::Host),
    // JAX / XLA
    oom("resource_exhausted: out of memory", F::Jax, M::Gpu),
    oom("out of memory while trying to allocate", F::Jax, M::Gpu),
    oom("ran out of memory in memory space hbm", F::Jax, M::Gpu),
    oom("attempting to reserve", F::Jax, M::Gpu),
    // PJRT's device buffers (TPU): `Error allocating device buffer:
    // Attempting to allocate 2.00G. That was not possible. There are 1.23G free.`
    oom("error allocating device buffer", F::Jax, M::Gpu),
    // TensorFlow (and XLA's shared allocator code)
    oom("oom when allocating tensor", F::Tensorflow, M::Gpu),
    Signature {
        unless_line: Some("not a failure"),
        ..generic("ran out of memory trying to allocate", F::Tensorflow)
    },
    generic("cuda_error_out_of_memory", F::Tensorflow),
    oom("hip_error_outofmemory", F::Tensorflow, M::Gpu),
    // vLLM
    oom("no available memory for the cache blocks", F::Vllm, M::Gpu),
    oom(
        "larger than the maximum number of tokens that can be stored in kv cache",
        F::Vllm,
        M::Gpu,
    ),
    oom("larger than the available kv cache memory", F::Vllm, M::Gpu),
    // V1's start-up check (`vllm/v1/worker`): free memory below
    // gpu_memory_utilization × total
    oom(
        "on startup is less than desired gpu memory utilization",
        F::Vllm,
        M::Gpu,
    ),
    // Ollama's scheduler (`llm/server.go`): RAM for what stays on the CPU
    oom("model requires more system memory", F::Ollama, M::Host),
    // TGI's warm-up (`server/text_generation_server/models/flash_causal_lm.py`)
    oom("not enough memory to handle", F::Tgi, M::Gpu),
    // Metal's command-buffer status on Apple silicon (llama.cpp's
    // `ggml-metal`, MLX): unified memory whoever printed it
    Signature {
        generic: true,
        ..oom(
            "kiogpucommandbuffercallbackerroroutofmemory",
            F::LlamaCpp,
            M::Unified,
        )
    },
    // SGLang: its KV pool came out empty (`model_runner.py`
    // `profile_max_num_token`; 0.5.5 line 1628).
    oom(
        "not enough memory. please try to increase --mem-fraction-static",
        F::Sglang,
        M::Gpu,
    ),
    // SGLang's scheduler when the KV pool runs out while serving
    // (`scheduler.py`: prefill refused, decode retracting requests)
    oom("prefill out of memory", F::Sglang, M::Gpu),
    oom("decode out of memory happened", F::Sglang, M::Gpu),
    // llama.cpp / ggml
    oom(
        "ggml_gallocr_reserve_n: failed to allocate",
        F::LlamaCpp,
        M::Gpu,
    ),
    oom("cudamalloc failed: out of memory", F::LlamaCpp, M::Gpu),
    oom(
        "failed to allocate buffer for kv cache",
        F::LlamaCpp,
        M::Gpu,
    ),
    oom("failed to allocate compute buffers", F::LlamaCpp, M::Gpu),
    oom("unable to allocate backend buffer", F::LlamaCpp, M::Gpu),
    oom(
        "cpu_buffer_type_alloc_buffer: failed to allocate",
        F::LlamaCpp,
        M::Host,
    ),
    // ggml-vulkan: `vk::Device::allocateMemory: ErrorOutOfDeviceMemory`
    generic("erroroutofdevicememory", F::LlamaCpp),
    // MLX: one buffer above Metal's largest (`mlx/backend/metal/allocator.cpp`)
    oom("[metal::malloc] attempting to allocate", F::Mlx, M::Unified),
    // PaddlePaddle's allocator (`paddle/fluid/memory/allocation`): `Out of
    // memory error on GPU 0. Cannot allocate 2.000000GB memory on GPU 0, ...`
    oom("out of memory error on gpu", F::Paddle, M::Gpu),
    // ONNX Runtime's arena (`onnxruntime/core/framework/bfc_arena.cc`)
    oom(
        "failed to allocate memory for requested buffer of size",
        F::OnnxRuntime,
        M::Gpu,
    ),
    // TensorRT's default allocator (`Error Code 1: Cuda Runtime (out of
    // memory)`) and TensorRT-LLM's CUDA checks (`CUDA runtime error in
    // ::cudaMallocAsync(...): out of memory`)
    oom("cuda runtime (out of memory)", F::TensorRt, M::Gpu),
    Signature {
        needs_line: Some("out of memory"),
        ..oom("cuda runtime error in ::cudamalloc", F::TensorRt, M::Gpu)
    },
    // NCCL (`Cuda failure 'out of memory'`, `Cuda failure 2 'out of memory'`)
    oom("'out of memory'", F::Nccl, M::Gpu),
    oom("failed to cuda calloc", F::Nccl, M::Gpu),
    // cuBLAS / cuDNN
    oom("cublas_status_alloc_failed", F::Cublas, M::Gpu),
    oom("cudnn_status_alloc_failed", F::Cublas, M::Gpu),
    // cuDNN could not get the workspace a convolution or attention kernel
    // asked for: the card was full
    oom("cudnn_status_not_enough_workspace", F::Cublas, M::Gpu),
    // `cublasCreate(handle)` failing: its workspace did not fit, the usual
    // cause when it is the first matrix multiply on a full card
    oom("cublas_status_not_initialized", F::Cublas, M::Gpu),
    // transformers' bitsandbytes quantizer, when device_map="auto" put
    // modules on the CPU or the disk (`quantizer_bnb_*.py`)
    oom(
        "some modules are dispatched on the cpu or the disk",
        F::Pytorch,
        M::Gpu,
    ),
    // The operating system
    oom("out of memory: killed process", F::Os, M::Host),
    oom("invoked oom-killer", F::Os, M::Host),
    // Slurm's cgroup limit (`slurmstepd: error: Detected 1 oom_kill event
    // in StepId=...`; older releases `oom-kill event(s)`)
    oom("oom_kill event", F::Os, M::Host),
    oom("oom-kill event", F::Os, M::Host),
    oom("oomkilled", F::Os, M::Host),
    oom("exit code 137", F::Os, M::Host),
    oom("exit code: 137", F::Os, M::Host),
    oom("exit status 137", F::Os, M::Host),
    oom("exited with code 137", F::Os, M::Host),
    oom("status code 137", F::Os, M::Host),
    oom("exitcode: -9", F::Os, M::Host),
    oom("return code = -9", F::Os, M::Host),
    oom("signal 9 (sigkill)", F::Os, M::Host),
    // Errors that are not out of memory
    other(
        "device-side assert triggered",
        F::Pytorch,
        K::DeviceSideAssert,
    ),
    other("illegal memory access", F::Pytorch, K::IllegalMemoryAccess),
    other("collective operation timeout", F::Nccl, K::NcclTimeout),
    other("not a failure", F::Tensorflow, K::AllocatorWarning),
    // transformers' `_sdpa_can_dispatch`, `_flex_attn_can_dispatch` and
    // `_flash_attn_can_dispatch` (modeling_utils.py)
    other(
        "does not support an attention implementation through",
        F::Pytorch,
        K::AttentionKernelMissing,
    ),
    other(
        "does not support flash attention",
        F::Pytorch,
        K::AttentionKernelMissing,
    ),
    // Triton's launcher (`compiler.py`, `_init_handles`)
    other("out of resource: shared memory", F::Triton, K::SharedMemory),
];

/// Words near a generic CUDA phrase that name the stack which printed it.
const STACK_HINTS: [(&str, Framework); 12] = [
    // MLX's own prefix on Metal errors
    ("[metal]", F::Mlx),
    ("mlx", F::Mlx),
    ("ggml", F::LlamaCpp),
    ("llama_", F::LlamaCpp),
    ("xla", F::Jax),
    ("jax", F::Jax),
    ("vllm", F::Vllm),
    ("tensorrt", F::TensorRt),
    ("paddle", F::Paddle),
    ("sglang", F::Sglang),
    ("tensorflow", F::Tensorflow),
    ("torch", F::Pytorch),
];

/// Words near any phrase that say which memory it was.
const MEMORY_HINTS: [(&str, Memory); 5] = [
    ("device:cpu", M::Host),
    ("cpu_buffer", M::Host),
    ("mps", M::Unified),
    ("metal", M::Unified),
    ("device:gpu", M::Gpu),
];

/// Libraries whose name in the paste changes the advice.
const WRAPPERS: [(&str, Wrapper); 4] = [
    ("deepspeed", Wrapper::Deepspeed),
    ("bitsandbytes", Wrapper::Bitsandbytes),
    ("bnb.", Wrapper::Bitsandbytes),
    ("fp32_cpu_offload", Wrapper::Bitsandbytes),
];

/// The error a paste holds.
pub struct Found {
    pub at: usize,
    pub framework: Framework,
    pub memory: Memory,
    pub kind: ErrorKind,
}

/// The out-of-memory signature on the last line that holds one; without one,
/// the last other error. An OOM wins over other errors anywhere in the paste:
/// a timeout or a failed assert usually follows another rank's OOM, not the
/// other way round. Of two phrases on one line the longer, more specific one
/// wins: `DefaultCPUAllocator: not enough memory: you tried to allocate` is
/// host RAM although it ends in PyTorch's generic `tried to allocate`.
pub fn find(lower: &str) -> Option<(Found, &'static Signature)> {
    SIGNATURES
        .iter()
        .filter_map(|signature| last_occurrence(lower, signature).map(|at| (at, signature)))
        .max_by_key(|(at, signature)| {
            let line_start = lower
                .get(..*at)
                .and_then(|before| before.rfind('\n'))
                .map_or(0, |i| i + 1);
            (
                signature.kind.is_oom(),
                line_start,
                signature.phrase.len(),
                *at,
            )
        })
        .map(|(at, signature)| {
            (
                Found {
                    at,
                    framework: signature.framework,
                    memory: signature.memory,
                    kind: signature.kind,
                },
                signature,
            )
        })
}

/// How far past a phrase its `unless_line` phrase is looked for: TensorFlow
/// says "not a failure" in the same sentence, under 200 characters on.
const UNLESS_REACH: usize = 512;

fn last_occurrence(lower: &str, signature: &Signature) -> Option<usize> {
    let mut end = lower.len();
    loop {
        let at = lower.get(..end)?.rfind(signature.phrase)?;
        let rest = rest_of_line(lower, at);
        let skip = signature
            .unless_line
            .is_some_and(|unless| rest.contains(unless))
            || signature
                .needs_line
                .is_some_and(|needs| !rest.contains(needs));
        if !skip {
            return Some(at);
        }
        end = at;
    }
}

/// The text from `at` to the end of its line, at most [`UNLESS_REACH`] bytes.
fn rest_of_line(text: &str, at: usize) -> &str {
    let mut end = (at + UNLESS_REACH).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let rest = text.get(at..end).unwrap_or("");
    rest.split('\n').next().unwrap_or("")
}

/// Corrects the stack and memory of a found error by the words around it
/// (`context`, a bounded window of the paste).
pub fn refine(found: &mut Found, signature: &Signature, context: &str) {
    if signature.generic {
        if let Some((_, framework)) = STACK_HINTS
            .iter()
            .filter_map(|(hint, framework)| context.rfind(hint).map(|at| (at, *framework)))
            .max_by_key(|(at, _)| *at)
        {
            found.framework = framework;
        }
    }
    if found.kind.is_oom() && found.memory != M::Host {
        if let Some((_, memory)) = MEMORY_HINTS
            .iter()
            .filter_map(|(hint, memory)| context.rfind(hint).map(|at| (at, *memory)))
            .max_by_key(|(at, _)| *at)
        {
            found.memory = memory;
        }
    }
}

/// The wrapping library named anywhere in the paste, if any.
pub fn wrapper(lower: &str) -> Option<Wrapper> {
    WRAPPERS
        .iter()
        .find(|(name, _)| lower.contains(name))
        .map(|(_, wrapper)| *wrapper)
}
