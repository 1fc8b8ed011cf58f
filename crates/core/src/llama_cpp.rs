//! llama.cpp as it allocates memory: GGUF tensor types by block layout and
//! quantization recipe, the buffers of a `-ngl`/`--n-cpu-moe`/`-c`
//! placement per device, and the planner that picks the flags that fit.
//! Rules read from llama.cpp's source, cited in
//! `tests/data/llama_cpp/RULES.md` and checked on published load logs
//! (`tests/data/llama_cpp/logs/`).

pub mod buffers;
pub mod ggml;
pub mod recipe;
pub mod tensors;

use crate::precision::WeightFormat;
use crate::resolved::Resolved;
use crate::scenario::CacheType;

use buffers::{buffers, Buffers, Flags};
use ggml::GgmlType;
use recipe::FileType;
use tensors::{gguf_weights, GgufWeights};

/// The GGUF file type a weight format names; `None` for formats llama.cpp
/// does not load.
pub fn file_type_of(format: WeightFormat) -> Option<FileType> {
    Some(match format {
        WeightFormat::Fp32 => FileType::F32,
        WeightFormat::Fp16 => FileType::F16,
        WeightFormat::Bf16 => FileType::Bf16,
        WeightFormat::GgufQ8_0 => FileType::Q8_0,
        WeightFormat::GgufQ6K => FileType::Q6K,
        WeightFormat::GgufQ5KM => FileType::Q5KM,
        WeightFormat::GgufQ4KM => FileType::Q4KM,
        WeightFormat::GgufQ4_0 => FileType::Q4_0,
        WeightFormat::GgufQ3KM => FileType::Q3KM,
        WeightFormat::GgufQ2K => FileType::Q2K,
        _ => return None,
    })
}

pub fn cache_ggml_type(t: CacheType) -> GgmlType {
    match t {
        CacheType::F16 => GgmlType::F16,
        CacheType::Q8_0 => GgmlType::Q8_0,
        CacheType::Q4_0 => GgmlType::Q4_0,
    }
}

/// The scenario's llama.cpp flags: `-ngl` (all layers and the output when
/// not given), `-c` = every sequence's context (one unified cache).
pub fn flags_of(r: &Resolved) -> Flags {
    let inf = r.inference;
    let layers = r.spec.layers;
    let context = inf.prompt_len.saturating_add(inf.new_tokens);
    Flags {
        n_gpu_layers: inf.gpu_layers.unwrap_or(layers + 1),
        n_cpu_moe: inf.cpu_moe_layers,
        n_ctx: context.saturating_mul(inf.batch.max(1)),
        n_ubatch: inf.ubatch.max(1),
        flash_attn: inf.flash_attn,
        type_k: cache_ggml_type(inf.cache_type),
        type_v: cache_ggml_type(inf.cache_type),
        gpus: r.shards.gpus.max(1) as u64,
        output_first: !inf.output_layer_last,
    }
}

/// A llama.cpp run's weights, flags and buffers.
pub struct Loaded {
    pub file_type: FileType,
    pub weights: GgufWeights,
    pub flags: Flags,
    pub buffers: Buffers,
}

/// llama.cpp's buffers for the scenario; `None` when its weights are not a
/// format llama.cpp loads.
pub fn load(r: &Resolved) -> Option<Loaded> {
    let file_type = file_type_of(r.format)?;
    let weights = gguf_weights(r.spec, &r.counts, file_type);
    let flags = flags_of(r);
    let buffers = buffers(r.spec, &weights, &flags);
    Some(Loaded {
        file_type,
        weights,
        flags,
        buffers,
    })
}
