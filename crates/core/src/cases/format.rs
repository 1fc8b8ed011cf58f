//! The measured-case format (`shared/groundtruth/FORMAT.md`): one JSON
//! object per measured run, as read from `cases.jsonl`.

use serde::{Deserialize, Serialize};

/// One measured run, as in `cases.jsonl`. Unknown fields are ignored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Case {
    pub id: String,
    /// Where the measurement comes from (repository, file).
    pub source: CaseSource,
    pub reliability: String,
    pub framework: String,
    pub model: CaseModel,
    pub task: String,
    pub precision: CasePrecision,
    pub training: Option<CaseTraining>,
    pub inference: Option<CaseInference>,
    pub attention: Option<String>,
    pub parallel: CaseParallel,
    pub gpu: CaseGpu,
    pub measured: CaseMeasured,
    /// How the run was measured, in words: the setup details the fields
    /// have no place for (a fused optimizer, a VLM's images) are read here.
    pub caveats: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseModel {
    pub name: String,
    /// `null` for a run with no model (a CUDA context alone).
    pub arch: Option<String>,
    pub params: Option<u64>,
    pub layers: Option<u64>,
    pub hidden: Option<u64>,
    pub heads: Option<u64>,
    pub kv_heads: Option<u64>,
    pub head_dim: Option<u64>,
    pub intermediate: Option<u64>,
    pub vocab: Option<u64>,
    pub tied_embeddings: Option<bool>,
    pub max_position: Option<u64>,
    pub encoder_layers: Option<u64>,
    pub decoder_layers: Option<u64>,
    pub experts: Option<u64>,
    pub experts_per_token: Option<u64>,
    pub shared_experts: Option<u64>,
    pub moe_intermediate: Option<u64>,
    pub sliding_window: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CasePrecision {
    pub weights: Option<String>,
    pub double_quant: Option<bool>,
    pub group_size: Option<u64>,
    pub compute: Option<String>,
    pub mixed_precision: Option<String>,
    /// Format 1.1: the casts a 4-bit QLoRA model got before training
    /// (`none`, `fp32`, `trl`; absent: what the framework does).
    pub kbit_prep: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseLora {
    pub rank: Option<u64>,
    pub alpha: Option<f64>,
    pub dropout: Option<f64>,
    pub targets: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseTraining {
    pub method: Option<String>,
    pub lora: Option<CaseLora>,
    pub trainable_params: Option<u64>,
    pub optimizer: Option<String>,
    pub optimizer_state_dtype: Option<String>,
    pub optimizer_in_backward: Option<bool>,
    pub micro_batch: Option<u64>,
    pub grad_accum: Option<u64>,
    pub seq_len: Option<u64>,
    pub gradient_checkpointing: Option<String>,
    pub activation_offload: Option<bool>,
    pub chunked_loss: Option<bool>,
    /// `torch.compile` on the model (torchtune/litgpt `compile`, Trainer `torch_compile`).
    pub compile: Option<bool>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseInference {
    pub batch: Option<u64>,
    pub prompt_len: Option<u64>,
    pub new_tokens: Option<u64>,
    pub kv_cache_dtype: Option<String>,
    pub engine: Option<String>,
    pub gpu_memory_utilization: Option<f64>,
    /// Format 1.1: tokens of a KV cache allocated up front (gpt-fast
    /// `--cache_size`, AutoAWQ fused `max_seq_len`, transformers' static
    /// `max_cache_len`); `None`: the cache grows.
    pub cache_len: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseParallel {
    pub gpus: Option<u64>,
    pub strategy: Option<String>,
    pub tp: Option<u64>,
    pub pp: Option<u64>,
    pub offload: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseGpu {
    pub name: Option<String>,
    pub memory_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseSource {
    pub repo: String,
    pub file: String,
    /// The software version or date of the run (`2023-08 blog`, `torch 2.9.0 …`).
    pub version: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseMeasured {
    pub metric: String,
    pub bytes: Option<u64>,
}
