//! The buffers llama.cpp allocates, per device, for a placement: model
//! buffers, the KV cache, the compute buffers and the output buffer
//! (sources per rule in `tests/data/llama_cpp/RULES.md` (c)–(g)).

use serde::{Deserialize, Serialize};

use crate::model::ModelSpec;

use super::ggml::GgmlType;
use super::tensors::GgufWeights;

/// llama.cpp's context and placement flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    /// `-ngl`: the last N repeating layers go to the GPUs; N > n_layer also
    /// puts the output layer there.
    pub n_gpu_layers: u64,
    /// `--n-cpu-moe`: the routed experts of the first N layers stay in host memory.
    pub n_cpu_moe: u64,
    /// `-c`.
    pub n_ctx: u64,
    /// `-ub`.
    pub n_ubatch: u64,
    /// `-fa`.
    pub flash_attn: bool,
    /// `-ctk` / `-ctv`.
    pub type_k: GgmlType,
    pub type_v: GgmlType,
    /// GPUs the offloaded layers are split over (`--split-mode layer`,
    /// equal cards: equal shares).
    pub gpus: u64,
}

/// Bytes per device: what the busiest GPU holds and what host memory holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Buffers {
    pub gpu_model: u128,
    pub gpu_kv: u128,
    pub gpu_compute: u128,
    pub host_model: u128,
    pub host_kv: u128,
    pub host_compute: u128,
    pub output: u128,
    /// Layers on the GPUs and whether the output layer is one of them.
    pub gpu_layers: u64,
    pub output_on_gpu: bool,
    /// Cells of the KV cache (`-c` padded to 256) and of sliding layers.
    pub kv_cells: u64,
    pub swa_cells: u64,
}

impl Buffers {
    pub fn gpu_total(&self) -> u128 {
        self.gpu_model + self.gpu_kv + self.gpu_compute
    }
    pub fn host_total(&self) -> u128 {
        self.host_model + self.host_kv + self.host_compute + self.output
    }
}

/// `GGML_PAD(n, 256)`: llama.cpp pads the context (`llama-context.cpp`).
pub fn pad_256(n: u64) -> u64 {
    n.div_ceil(256).saturating_mul(256)
}

/// Bytes of one layer's K and V for `cells` tokens.
fn kv_layer_bytes(spec: &ModelSpec, flags: &Flags, cells: u64) -> u128 {
    let (k_width, v_width) = match &spec.mla {
        // MLA GGUFs cache the latent and the RoPE key; V is read from it.
        Some(m) => (m.kv_lora_rank + m.qk_rope_head_dim, 0),
        None => {
            let w = spec.kv_heads * spec.head_dim();
            (w, w)
        }
    };
    let row = |t: GgmlType, w: u64| t.tensor_bytes(w, 1);
    (row(flags.type_k, k_width) + row(flags.type_v, v_width)) * cells as u128
}

/// The buffers for `flags`.
pub fn buffers(spec: &ModelSpec, w: &GgufWeights, flags: &Flags) -> Buffers {
    let n_layer = w.layers.len() as u64;
    let on_gpu = flags.n_gpu_layers.min(n_layer);
    let first_gpu = n_layer - on_gpu;
    let output_on_gpu = flags.n_gpu_layers > n_layer;
    let gpus = flags.gpus.max(1) as u128;
    let mut b = Buffers {
        gpu_layers: on_gpu,
        output_on_gpu,
        kv_cells: pad_256(flags.n_ctx.max(1)),
        ..Buffers::default()
    };
    // Sliding layers keep `n_swa + n_ubatch` cells (llama-kv-cache-iswa.cpp)
    // in models that interleave them with global layers; a window on every
    // layer (Mistral 7B v0.1, Phi-3) is not applied: the whole context is
    // cached ("Phi SWA is currently disabled", llama-model.cpp).
    let (swa_layers, swa_cells) = match spec.sliding_window.as_ref().filter(|s| s.layers < n_layer)
    {
        Some(s) => (
            s.layers.min(n_layer),
            pad_256((s.window + flags.n_ubatch).min(b.kv_cells)),
        ),
        None => (0, b.kv_cells),
    };
    b.swa_cells = swa_cells;
    let attention_layers = spec.attention_layer_count().min(n_layer);
    for (i, layer) in w.layers.iter().enumerate() {
        let i = i as u64;
        let gpu = i >= first_gpu;
        let experts_on_host = i < flags.n_cpu_moe;
        let (model_gpu, model_host) = match (gpu, experts_on_host) {
            (true, false) => (layer.total(), 0),
            (true, true) => (layer.resident, layer.experts),
            (false, _) => (0, layer.total()),
        };
        b.gpu_model += model_gpu;
        b.host_model += model_host;
        // Attention layers spread evenly; the sliding ones first.
        let has_kv =
            i * attention_layers / n_layer.max(1) != (i + 1) * attention_layers / n_layer.max(1);
        if has_kv {
            let sliding = i * swa_layers / n_layer.max(1) != (i + 1) * swa_layers / n_layer.max(1);
            let cells = if sliding { swa_cells } else { b.kv_cells };
            let kv = kv_layer_bytes(spec, flags, cells);
            if gpu {
                b.gpu_kv += kv;
            } else {
                b.host_kv += kv;
            }
        }
    }
    b.host_model += w.token_embd;
    if output_on_gpu {
        b.gpu_model += w.output;
    } else {
        b.host_model += w.output;
    }
    // The busiest of equal cards holds its share of the layers.
    b.gpu_model = b.gpu_model.div_ceil(gpus);
    b.gpu_kv = b.gpu_kv.div_ceil(gpus);
    let (gpu_compute, host_compute) = compute_buffers(spec, w, flags, &b);
    b.gpu_compute = gpu_compute;
    b.host_compute = host_compute;
    // Logits for the n_seq_max (1) outputs reserved at context creation,
    // in pinned host memory (`output_reserve`).
    b.output = spec.vocab as u128 * 4;
    b
}

/// The compute buffers, GPU and host, from their dominant terms
/// (RULES.md (e)): the graph is reserved for `n_ubatch` tokens against the
/// whole cache. Without flash attention one layer's F32 scores
/// `n_kv × n_ubatch × n_head` and the mask `n_kv × n_ubatch` are live; the
/// F32 logits `n_vocab × n_ubatch` are computed on the GPU, by the output
/// layer there or, when it stays in host memory, by copying the head to
/// the GPU for the prompt's large batch (the CUDA backend offloads matmuls
/// of 32 tokens and more); beside either, one `n_embd × n_ubatch` F32 stream.
/// The host buffer holds the input embeddings and the mask.
fn compute_buffers(spec: &ModelSpec, w: &GgufWeights, flags: &Flags, b: &Buffers) -> (u128, u128) {
    let ub = flags.n_ubatch.min(b.kv_cells).max(1) as u128;
    let kv = b.kv_cells as u128;
    let h = spec.hidden as u128;
    let heads = spec.heads as u128;
    let mask = kv * ub * if flags.flash_attn { 2 } else { 4 };
    let host = h * ub * 4 + mask;
    if b.gpu_layers == 0 && !b.output_on_gpu {
        return (0, host);
    }
    let scores = if flags.flash_attn {
        0
    } else {
        heads * kv * ub * 4 + mask
    };
    let logits = spec.vocab as u128 * ub * 4;
    let head_copy = if b.output_on_gpu { 0 } else { w.output };
    (scores.max(logits) + h * ub * 4 + head_copy, host)
}
