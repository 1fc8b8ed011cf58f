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
    /// `-ngl`: how many of the n_layer + 1 layers (the repeating ones, then
    /// the output layer) go to the GPUs, from the top ([`Flags::output_first`]).
    pub n_gpu_layers: u64,
    /// llama.cpp since PR #18148 (December 2025, "offload output layer to
    /// GPU first"): `i_gpu_start = n_layer + 1 - ngl` in `llama-model.cpp`,
    /// so the output layer is the first one `-ngl` moves and N puts the
    /// output and the last N − 1 repeating layers on the GPUs. Before it
    /// (and in Ollama's vendored runner) N counted the last N repeating
    /// layers, the output only when N > n_layer. Measured on an H200
    /// (`tests/data/llama_cpp/measured`): `-ngl 8` of 16 holds 7 layers'
    /// KV cache and the output weight.
    pub output_first: bool,
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

/// Whether layer `i` of `n_layer` is a sliding one when `sliding` of them
/// are: llama.cpp's `set_swa_pattern(n)` makes every n-th layer global
/// (`il % n < n - 1` slides: Gemma 2's alternation, Gemma 3's five of six),
/// n = n_layer / global layers. A count no such pattern gives slides the
/// first layers.
fn is_sliding(i: u64, sliding: u64, n_layer: u64) -> bool {
    let global = n_layer.saturating_sub(sliding);
    if sliding == 0 || global == 0 {
        return sliding > 0;
    }
    let period = n_layer / global;
    if period >= 1 && n_layer / period == global && n_layer - n_layer / period == sliding {
        i % period < period - 1
    } else {
        i < sliding
    }
}

/// The buffers for `flags`.
pub fn buffers(spec: &ModelSpec, w: &GgufWeights, flags: &Flags) -> Buffers {
    let n_layer = w.layers.len() as u64;
    let ngl = flags.n_gpu_layers;
    let (on_gpu, output_on_gpu) = if flags.output_first {
        (ngl.saturating_sub(1).min(n_layer), ngl >= 1)
    } else {
        (ngl.min(n_layer), ngl > n_layer)
    };
    let first_gpu = n_layer - on_gpu;
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
    let sliding = spec.sliding_window.as_ref().filter(|s| s.layers < n_layer);
    let (swa_layers, swa_cells) = match sliding {
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
            // The host's buffer is the memory-mapped file range from its
            // first tensor to its last (`get_mapping_range`,
            // llama-model-loader.cpp), and a layer's experts enclose its
            // attention weights in the file: the mapping spans the whole
            // layer (measured: 10.6 MiB per layer above the experts alone).
            (true, true) => (layer.resident, layer.total()),
            (false, _) => (0, layer.total()),
        };
        b.gpu_model += model_gpu;
        b.host_model += model_host;
        // Attention layers spread evenly.
        let has_kv =
            i * attention_layers / n_layer.max(1) != (i + 1) * attention_layers / n_layer.max(1);
        if has_kv {
            let cells = if is_sliding(i, swa_layers, n_layer) {
                swa_cells
            } else {
                b.kv_cells
            };
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
    } else if !spec.tied_embeddings {
        // A tied head in host memory is the mapped token embedding itself
        // (measured: `-ngl 0` maps the file once).
        b.host_model += w.output;
    }
    // The busiest of equal cards holds its share of the layers.
    b.gpu_model = b.gpu_model.div_ceil(gpus);
    b.gpu_kv = b.gpu_kv.div_ceil(gpus);
    let (gpu_compute, host_compute) = compute_buffers(spec, w, flags, &b, sliding.is_some());
    b.gpu_compute = gpu_compute;
    b.host_compute = host_compute;
    // Logits for the n_seq_max (1) outputs reserved at context creation,
    // in pinned host memory (`output_reserve`).
    b.output = spec.vocab as u128 * 4;
    b
}

/// The compute buffers, GPU and host, from their dominant terms
/// (RULES.md (e)): the graph is reserved for `n_ubatch` tokens against the
/// whole cache, and its peak is the larger of two moments.
/// * Attention: without flash attention one layer's F32 scores
///   `n_kv × n_ubatch × n_head` and the mask `n_kv × n_ubatch`, beside the
///   F32 query and attention output (`n_head·d × n_ubatch` each) and the
///   residual stream (measured: 18 MiB above scores and mask at `-ub 512`
///   for Llama-3.2-1B's dims, 26 MiB for Qwen3-30B-A3B's, whose query is
///   twice its width; both within 0.4 MiB of these terms). When some
///   layers run on the CPU, the CUDA backend still runs their large-batch
///   matmuls (32 tokens and more), so one layer's K and V are copied in
///   (measured: +64 MiB at `-c 32768` for Llama-3.2-1B's 8 KV heads of 64,
///   f16, whether `-ngl` is 8 or 0).
/// * Logits: F32 `n_vocab × n_ubatch`, with the output weight copied to the
///   GPU when it stays in host memory.
///
/// Beside either, one `n_embd × n_ubatch` F32 stream. A GPU buffer exists
/// even at `-ngl 0` (measured: 460 MiB, the output weight and the logits,
/// for Llama-3.2-1B's dims at `-ub 512`).
///
/// The host buffer holds the input embeddings (`n_embd × n_ubatch` F32;
/// a second one in the 2026 build measured, none in the 2025 logs), the
/// mask, and the sliding layers' own mask over their cells.
fn compute_buffers(
    spec: &ModelSpec,
    w: &GgufWeights,
    flags: &Flags,
    b: &Buffers,
    sliding: bool,
) -> (u128, u128) {
    let ub = flags.n_ubatch.min(b.kv_cells).max(1) as u128;
    let kv = b.kv_cells as u128;
    let h = spec.hidden as u128;
    let heads = spec.heads as u128;
    let mask_bytes = if flags.flash_attn { 2 } else { 4 };
    let mask = kv * ub * mask_bytes;
    let sliding_mask = if sliding {
        b.swa_cells as u128 * ub * mask_bytes
    } else {
        0
    };
    let stream = h * ub * 4;
    let streams = if flags.output_first { 2 } else { 1 };
    let host = streams * stream + mask + sliding_mask;
    let layers_on_cpu = (b.gpu_layers as usize) < w.layers.len();
    let kv_copy = if layers_on_cpu {
        kv_layer_bytes(spec, flags, b.kv_cells)
    } else {
        0
    };
    let attention = if flags.flash_attn {
        kv_copy
    } else {
        let query = heads * spec.head_dim() as u128 * ub * 4;
        heads * kv * ub * 4 + mask + 2 * query + stream + kv_copy
    };
    let head_copy = if b.output_on_gpu { 0 } else { w.output };
    let logits = spec.vocab as u128 * ub * 4 + head_copy;
    (attention.max(logits) + stream, host)
}
