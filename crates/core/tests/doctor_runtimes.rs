//! The doctor on the runtimes that fail in their own words: each message is
//! written as the runtime's source formats it (the file named beside each),
//! with numbers chosen so that a misread label shows. Bytes are the printed
//! numbers converted by hand (`x GiB` = x · 2^30; Paddle's `GB` are 2^30,
//! its `HumanReadableSize`).

use vramfit_core::doctor::{parse_oom, OomReport};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn gib(x: f64) -> u64 {
    (x * GIB).round() as u64
}

fn read(text: &str) -> (OomReport, serde_json::Value) {
    let report = parse_oom(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let json = serde_json::to_value(&report).expect("serializes");
    (report, json)
}

fn codes(report: &OomReport) -> Vec<&'static str> {
    report.diagnoses.iter().map(|d| d.code).collect()
}

fn stack(json: &serde_json::Value) -> (&str, &str) {
    (
        json["framework"].as_str().unwrap_or(""),
        json["memory"].as_str().unwrap_or(""),
    )
}

/// `c10/cuda/CUDACachingAllocator.cpp` under a memory fraction: the labels
/// stand before a spaced colon, one per line; the device limit is not free
/// memory although "Free" follows it.
#[test]
fn pytorch_under_a_memory_fraction() {
    let (r, _) = read(
        "torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n\
         Currently allocated     : 22.85 GiB\n\
         Requested               : 1.00 GiB\n\
         Device limit            : 23.64 GiB\n\
         Free (according to CUDA): 19.88 MiB\n\
         PyTorch limit (set by user-supplied memory fraction)\n\
         \x20                       : 17179869184.00 GiB\n",
    );
    assert_eq!(r.allocated_bytes, Some(gib(22.85)));
    assert_eq!(r.requested_bytes, Some(gib(1.0)));
    assert_eq!(r.total_bytes, Some(gib(23.64)));
    assert_eq!(
        r.free_bytes,
        Some((19.88f64 * 1024.0 * 1024.0).round() as u64)
    );
    assert!(codes(&r).contains(&"shortfall"), "{:?}", codes(&r));
}

/// PaddlePaddle's `ResourceExhaustedError` (`paddle/fluid/memory/allocation`).
#[test]
fn paddle_names_what_it_has_allocated_and_what_is_left() {
    let (r, json) = read(
        "ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 2.000000GB memory on GPU 0, \
         22.500000GB memory has been allocated and available memory is only 1.200000GB.\n\
         Please check whether there is any other process using GPU 0.",
    );
    assert_eq!(stack(&json), ("paddle", "gpu"));
    assert_eq!(r.requested_bytes, Some(gib(2.0)));
    assert_eq!(r.allocated_bytes, Some(gib(22.5)));
    assert_eq!(r.free_bytes, Some(gib(1.2)));
    assert!(codes(&r).contains(&"paddle_memory"), "{:?}", codes(&r));
}

/// TensorRT's default allocator and TensorRT-LLM's `TLLM_CUDA_CHECK`; a
/// `cudaMalloc` check that failed on something else is not out of memory.
#[test]
fn tensorrt_and_tensorrt_llm() {
    let (r, json) = read(
        "[03/01/2025-10:00:00] [TRT] [E] 1: [defaultAllocator.cpp::allocate::19] Error Code 1: Cuda Runtime (out of memory)",
    );
    assert_eq!(stack(&json), ("tensorrt", "gpu"));
    assert!(codes(&r).contains(&"tensorrt_memory"));
    let (r, json) = read(
        "[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] CUDA runtime error in \
         ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory (/src/tensorrt_llm/runtime/tllmBuffers.h:125)",
    );
    assert_eq!(stack(&json), ("tensorrt", "gpu"));
    assert!(r.out_of_memory);
    let other = parse_oom(
        "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, stream): an illegal memory access was encountered",
    )
    .expect("an error");
    assert!(!other.out_of_memory, "{:?}", other.error);
}

/// MLX's Metal allocator (`mlx/backend/metal/allocator.cpp`): the limit it
/// prints is the largest single buffer, not the memory there is.
#[test]
fn mlx_refuses_one_buffer_above_metals_largest() {
    let (r, json) = read(
        "libc++abi: terminating due to uncaught exception of type std::runtime_error: [metal::malloc] Attempting to \
         allocate 34359738368 bytes which is greater than the maximum allowed buffer size of 28991029248 bytes.",
    );
    assert_eq!(stack(&json), ("mlx", "unified"));
    assert_eq!(r.requested_bytes, Some(34_359_738_368));
    assert_eq!(r.total_bytes, None);
    assert!(codes(&r).contains(&"metal_max_buffer"), "{:?}", codes(&r));
}

/// XLA's PJRT buffers on a TPU: the request and what is free, in `G`.
#[test]
fn xla_device_buffer_on_a_tpu() {
    let (r, json) = read(
        "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to \
         allocate 2.00G. That was not possible. There are 1.23G free.; (0x0x0_HBM0)",
    );
    assert_eq!(stack(&json), ("jax", "gpu"));
    assert_eq!(r.requested_bytes, Some(gib(2.0)));
    assert_eq!(r.free_bytes, Some(gib(1.23)));
}

/// SGLang's scheduler retracting requests when its pool fills, and its
/// start-up refusal: opposite advice on `--mem-fraction-static`.
#[test]
fn sglang_pool_full_while_serving_is_not_an_empty_pool() {
    let (r, json) = read(
        "[2025-03-01 10:00:00 TP0] Decode out of memory happened. #retracted_reqs: 3, #new_token_ratio: 0.4000 -> 0.7000",
    );
    assert_eq!(stack(&json), ("sglang", "gpu"));
    assert!(codes(&r).contains(&"sglang_pool_full"), "{:?}", codes(&r));
    let (r, _) =
        read("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.");
    assert!(codes(&r).contains(&"sglang_pool"));
}

/// Host memory in the words of a batch scheduler, a DataLoader on a full
/// /dev/shm and Python itself.
#[test]
fn host_memory_limits() {
    let (r, json) = read(
        "slurmstepd: error: Detected 1 oom_kill event in StepId=123456.batch. Some of the step tasks have been OOM Killed.",
    );
    assert_eq!(stack(&json), ("os", "host"));
    assert!(codes(&r).contains(&"cgroup_limit"));
    let (r, json) = read(
        "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is possible that dataloader's \
         workers are out of shared memory. Please try to raise your shared memory limit.",
    );
    assert_eq!(stack(&json), ("pytorch", "host"));
    assert!(codes(&r).contains(&"dataloader_killed"));
    let (_, json) =
        read("Traceback (most recent call last):\n  File \"prep.py\", line 3\nMemoryError\n");
    assert_eq!(stack(&json), ("os", "host"));
    // PyTorch's own error class still reads as the GPU's
    let (_, json) = read("torch.OutOfMemoryError: Allocation on device");
    assert_eq!(stack(&json), ("pytorch", "gpu"));
}

/// ggml's graph allocator names the buffer it could not get, in bytes.
#[test]
fn llama_cpp_graph_allocator() {
    let (r, json) =
        read("ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 8589934592");
    assert_eq!(stack(&json), ("llama.cpp", "gpu"));
    assert_eq!(r.requested_bytes, Some(8_589_934_592));
}

/// cuDNN's status when PyTorch could not allocate the workspace a kernel
/// asked for (`aten/src/ATen/native/cudnn`, `CUDNN_STATUS_NOT_ENOUGH_WORKSPACE`
/// through `cudnn_frontend`): the card was full, as for cuBLAS's handle; a
/// status that is not about memory stays not out of memory.
#[test]
fn cudnn_without_its_workspace() {
    let (r, json) = read("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_ENOUGH_WORKSPACE");
    assert_eq!(stack(&json), ("cublas", "gpu"));
    assert!(r.out_of_memory);
    assert!(codes(&r).contains(&"cublas_workspace"), "{:?}", codes(&r));
    let other = parse_oom("RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR");
    assert!(other.map_or(true, |o| !o.out_of_memory));
}

/// vLLM V1's start-up check (`vllm/v1/core/kv_cache_utils.py`,
/// `check_enough_kv_cache_memory`), as an engine core logs it: the pool
/// cannot hold one request of `max_model_len`. The 4 GiB are a KV pool, not
/// a score matrix, and the largest context it holds is the fix.
#[test]
fn vllm_v1_kv_cache_check() {
    let (r, json) = read(
        "(EngineCore_DP0 pid=18799) ERROR 10-08 20:33:48 [core.py:708] ValueError: To serve at least \
         one request with the models's max seq len (40960), (5.62 GiB KV cache is needed, which is \
         larger than the available KV cache memory (4.50 GiB). Based on the available memory, the \
         estimated maximum model length is 32768. Try increasing `gpu_memory_utilization` or \
         decreasing `max_model_len` when initializing the engine.",
    );
    assert_eq!(stack(&json), ("vllm", "gpu"));
    assert_eq!(json["requested_bytes"], gib(5.62));
    assert_eq!(json["free_bytes"], gib(4.50));
    let found = codes(&r);
    assert!(found.contains(&"vllm_kv_cache"), "{found:?}");
    assert!(!found.contains(&"attention_matrix"), "{found:?}");
    let advice = &r
        .diagnoses
        .iter()
        .find(|d| d.code == "vllm_kv_cache")
        .expect("vLLM")
        .message;
    assert!(advice.contains("--max-model-len 32768 or less"), "{advice}");
}
