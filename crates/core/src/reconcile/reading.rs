//! What a runtime's log said: its figures, each with the line it came
//! from, and the scenario the log implies.

use serde::{Deserialize, Serialize};

use crate::scenario::Scenario;

/// What a runtime reported, one figure each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Weights on one GPU after loading.
    Weights,
    /// The profile run's activation peak (PyTorch's peak increase).
    ActivationPeak,
    /// Memory outside PyTorch found by the profile.
    NonTorch,
    /// Bytes given to the KV cache on one GPU.
    KvPool,
    /// Tokens the KV cache holds (`GPU KV cache size`).
    KvTokens,
    /// KV blocks (`# GPU blocks`).
    KvBlocks,
    /// Sequences of `max_model_len` tokens the pool holds at once.
    MaxConcurrency,
    /// CUDA graphs captured after the pool was sized.
    CudaGraphs,
    /// llama.cpp: model weights on the busiest GPU.
    ModelBufferGpu,
    /// llama.cpp: model weights in host memory (mapped or copied).
    ModelBufferHost,
    /// llama.cpp: the KV cache of the GPU's layers, busiest GPU.
    KvBufferGpu,
    /// llama.cpp: the KV cache of the layers left in host memory.
    KvBufferHost,
    /// llama.cpp: the compute buffer of the busiest GPU.
    ComputeBufferGpu,
    /// llama.cpp: host compute buffer plus the output (logits) buffer.
    HostBuffers,
    /// `ollama ps` SIZE: the model's memory on the GPUs and in host RAM.
    OllamaSize,
    /// `ollama ps` PROCESSOR: the share of SIZE on the GPUs (0 to 1).
    GpuShare,
    /// nvidia-smi's Memory-Usage "used" of the busiest GPU.
    DeviceUsed,
    /// nvidia-smi's compute processes on the busiest GPU, their memory added up.
    ProcessMemory,
}

impl Figure {
    /// Every figure, in the order a table lists them.
    pub const ALL: [Figure; 18] = [
        Figure::Weights,
        Figure::ActivationPeak,
        Figure::NonTorch,
        Figure::KvPool,
        Figure::KvTokens,
        Figure::KvBlocks,
        Figure::MaxConcurrency,
        Figure::CudaGraphs,
        Figure::ModelBufferGpu,
        Figure::ModelBufferHost,
        Figure::KvBufferGpu,
        Figure::KvBufferHost,
        Figure::ComputeBufferGpu,
        Figure::HostBuffers,
        Figure::OllamaSize,
        Figure::GpuShare,
        Figure::DeviceUsed,
        Figure::ProcessMemory,
    ];

    /// The figure's name in JSON (`model_buffer_gpu`): for keys and test ids.
    pub fn key(self) -> &'static str {
        match self {
            Figure::Weights => "weights",
            Figure::ActivationPeak => "activation_peak",
            Figure::NonTorch => "non_torch",
            Figure::KvPool => "kv_pool",
            Figure::KvTokens => "kv_tokens",
            Figure::KvBlocks => "kv_blocks",
            Figure::MaxConcurrency => "max_concurrency",
            Figure::CudaGraphs => "cuda_graphs",
            Figure::ModelBufferGpu => "model_buffer_gpu",
            Figure::ModelBufferHost => "model_buffer_host",
            Figure::KvBufferGpu => "kv_buffer_gpu",
            Figure::KvBufferHost => "kv_buffer_host",
            Figure::ComputeBufferGpu => "compute_buffer_gpu",
            Figure::HostBuffers => "host_buffers",
            Figure::OllamaSize => "ollama_size",
            Figure::GpuShare => "gpu_share",
            Figure::DeviceUsed => "device_used",
            Figure::ProcessMemory => "process_memory",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Figure::Weights => "weights",
            Figure::ActivationPeak => "activation peak",
            Figure::NonTorch => "non-torch memory",
            Figure::KvPool => "KV cache pool",
            Figure::KvTokens => "KV cache tokens",
            Figure::KvBlocks => "KV cache blocks",
            Figure::MaxConcurrency => "max concurrency at max_model_len",
            Figure::CudaGraphs => "CUDA graphs",
            Figure::ModelBufferGpu => "model buffer (GPU)",
            Figure::ModelBufferHost => "model buffer (host)",
            Figure::KvBufferGpu => "KV buffer (GPU)",
            Figure::KvBufferHost => "KV buffer (host)",
            Figure::ComputeBufferGpu => "compute buffer (GPU)",
            Figure::HostBuffers => "compute + output buffers (host)",
            Figure::OllamaSize => "size (ollama ps)",
            Figure::GpuShare => "share on the GPU",
            Figure::DeviceUsed => "memory used (nvidia-smi)",
            Figure::ProcessMemory => "process memory (nvidia-smi)",
        }
    }

    /// Whether the figure is a size in bytes (else a count).
    pub fn is_bytes(self) -> bool {
        matches!(
            self,
            Figure::Weights
                | Figure::ActivationPeak
                | Figure::NonTorch
                | Figure::KvPool
                | Figure::CudaGraphs
                | Figure::ModelBufferGpu
                | Figure::ModelBufferHost
                | Figure::KvBufferGpu
                | Figure::KvBufferHost
                | Figure::ComputeBufferGpu
                | Figure::HostBuffers
                | Figure::OllamaSize
                | Figure::DeviceUsed
                | Figure::ProcessMemory
        )
    }

    /// Whether the figure is a share (0 to 1, shown in percent).
    pub fn is_share(self) -> bool {
        self == Figure::GpuShare
    }
}

/// One figure read off the log: its value, the rounding of its printed
/// precision (0 for exact counts), and the line it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    pub figure: Figure,
    pub value: f64,
    pub rounding: f64,
    pub line: String,
}

/// A runtime log as read: its figures, and the settings that set up the
/// scenario it implies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RuntimeLog {
    pub engine: String,
    pub version: Option<String>,
    /// The model id the log names.
    pub model: Option<String>,
    pub readings: Vec<Reading>,
    /// The scenario the log implies, before a model is resolved.
    pub scenario: Scenario,
    /// What the log did not say and the scenario assumed.
    pub assumed: Vec<String>,
    /// The repeating layers the log counts (llama.cpp's `offloaded N/M`
    /// counts M − 1 of them), to check the model compared with.
    #[serde(default)]
    pub model_layers: Option<u64>,
    /// What the reader recognised but could not read, naming it (a row of
    /// `ollama ps` whose SIZE is not a size, a GPU without its memory line).
    #[serde(default)]
    pub unread: Vec<String>,
    /// llama.cpp: `n_ctx` was not printed, so the context is the one whose
    /// KV cache the log's buffers hold, once the model is known.
    #[serde(default)]
    pub context_from_kv: bool,
}

impl RuntimeLog {
    pub fn reading(&self, figure: Figure) -> Option<&Reading> {
        self.readings.iter().find(|r| r.figure == figure)
    }
}

/// The weights a serving engine's `quantization` setting names (vLLM's and
/// SGLang's share their names), 16-bit in the compute dtype when none; an
/// unknown method is read as 16-bit and said so in `assumed`.
pub(super) fn served_weights(
    quantization: Option<&str>,
    compute: crate::precision::Dtype,
    assumed: &mut Vec<String>,
) -> crate::precision::WeightFormat {
    use crate::precision::{Dtype, WeightFormat};
    match quantization {
        Some(q) if q.starts_with("awq") => WeightFormat::Awq4,
        Some(q) if q.starts_with("gptq") => WeightFormat::Gptq4,
        Some(q) if q.starts_with("fp8") => WeightFormat::Fp8,
        Some("mxfp4") => WeightFormat::Mxfp4,
        Some("none") | None => match compute {
            Dtype::Fp32 => WeightFormat::Fp32,
            Dtype::Fp16 => WeightFormat::Fp16,
            _ => WeightFormat::Bf16,
        },
        Some(other) => {
            assumed.push(format!("quantization {other} is read as 16-bit weights"));
            WeightFormat::Bf16
        }
    }
}
