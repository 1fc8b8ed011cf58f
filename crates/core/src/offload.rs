//! The llama.cpp offload planner: for a model, a GGUF file type and a card,
//! the placement that fits with the most on the GPU: everything; else, for
//! MoE models, every layer with the routed experts of the first N layers in
//! host memory (`--n-cpu-moe N`); else the most layers (`-ngl`). Then the
//! longest `-c` that placement takes, the host memory the rest needs, and
//! the flags for llama.cpp and the options for Ollama. Each candidate is
//! judged by the estimator itself ([`crate::estimate`]).

use crate::decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{InputError, Result};
use crate::estimate::{estimate_with_model, resolve_gpu};
use crate::model::ModelSpec;
use crate::report::Estimate;
use crate::scenario::{CacheType, Engine, Scenario, TaskKind};
use crate::solver::max_context;

/// Where the weights end up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Every layer and the output layer on the GPU.
    AllOnGpu,
    /// Every layer on the GPU, the routed experts of the first N layers in
    /// host memory: attention and the KV cache stay on the GPU.
    ExpertsOnCpu,
    /// The output layer and the last layers on the GPU (today's `-ngl`
    /// order; before PR #18148 the output layer stayed on the CPU), the
    /// first ones on the CPU.
    LayersOnCpu,
    /// Not even the compute buffer of one layer fits: CPU only.
    CpuOnly,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OffloadPlan {
    pub placement: Placement,
    /// `-ngl`: how many of the layers and the output layer go to the GPU
    /// (the model's layers + 1: all).
    pub gpu_layers: u64,
    pub layers: u64,
    /// `--n-cpu-moe`.
    pub cpu_moe_layers: u64,
    /// The scenario's context (`-c`) and the longest one this placement
    /// takes, up to the model's own limit.
    pub context: u64,
    pub max_context: Option<u64>,
    /// Device memory on the GPU and host memory for the rest.
    pub gpu_bytes: u64,
    pub capacity_bytes: u64,
    pub cpu_ram_bytes: u64,
    /// The command-line flags and the Ollama options.
    pub llama_cpp_flags: String,
    pub ollama_options: String,
    /// The `num_ctx` Ollama picks on this card when nothing sets one
    /// ([`ollama_default_context`]), and whether it fits this placement.
    pub ollama_default_context: u64,
    pub ollama_default_fits: bool,
    /// What Ollama's scheduler predicts for this model at the plan's
    /// `num_ctx` when it places it ([`ollama_predicted_vram`]).
    pub ollama_predicted_bytes: u64,
    /// What runs where, and what that does to speed, in words.
    pub trade_off: String,
    pub trade_off_zh: String,
    /// The scenario with the placement set.
    pub scenario: Scenario,
}

/// Ollama's `num_ctx` when neither the Modelfile nor `OLLAMA_CONTEXT_LENGTH`
/// sets one, by the GPU memory it sees: "< 24 GiB VRAM: 4k context, 24-48
/// GiB VRAM: 32k context, >= 48 GiB VRAM: 256k context" (Ollama's docs,
/// docs.ollama.com/context-length, `docs/context-length.mdx` in
/// ollama/ollama). Releases before 0.6 used 2048 whatever the card.
pub fn ollama_default_context(vram_bytes: u64) -> u64 {
    const GIB: u64 = 1 << 30;
    match vram_bytes {
        v if v >= 48 * GIB => 256 * 1024,
        v if v >= 24 * GIB => 32 * 1024,
        _ => 4 * 1024,
    }
}

/// Ollama's own placement estimate (`PredictServerVRAM`,
/// `llm/llama_server.go`): the GGUF file's size plus an f16 KV cache of
/// 2 · block count · the fewest KV heads · (embedding length / the most
/// heads) · num_ctx · 2 B, whatever `OLLAMA_KV_CACHE_TYPE`, the model's
/// own head size, sliding windows or recurrent layers say. Ollama compares
/// it with free memory to choose a GPU and the generation batch; `ollama
/// ps` then shows the buffers llama-server reports, not this figure.
pub fn ollama_predicted_vram(spec: &ModelSpec, file_bytes: u128, num_ctx: u64) -> u128 {
    let head_dim = spec.hidden / spec.heads.max(1);
    let kv = 2
        * u128::from(spec.layers)
        * u128::from(spec.kv_heads.max(1))
        * u128::from(head_dim)
        * u128::from(num_ctx)
        * 2;
    file_bytes + kv
}

/// Whether Ollama lets flash attention on for the model
/// (`SupportsFlashAttention`, `fs/ggml/ggml.go`): key and value heads of
/// one size, not Gemma 2; llama-server's `--flash-attn auto` then turns it
/// on where the backend has the kernel.
pub fn ollama_supports_flash_attention(spec: &ModelSpec) -> bool {
    spec.mla.is_none() && spec.arch != crate::model::Arch::Gemma2
}

fn estimate_at(sc: &Scenario, spec: &ModelSpec, ngl: u64, ncmoe: u64) -> Result<Estimate> {
    let mut s = sc.clone();
    s.inference.gpu_layers = Some(ngl);
    s.inference.cpu_moe_layers = ncmoe;
    estimate_with_model(&s, spec)
}

fn fits(sc: &Scenario, spec: &ModelSpec, ngl: u64, ncmoe: u64) -> Result<bool> {
    Ok(estimate_at(sc, spec, ngl, ncmoe)?.fits() == Some(true))
}

/// Smallest `x` in `lo..=hi` with `ok(x)`, for `ok` false then true.
fn smallest(lo: u64, hi: u64, mut ok: impl FnMut(u64) -> Result<bool>) -> Result<Option<u64>> {
    if !ok(hi)? {
        return Ok(None);
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(Some(lo))
}

/// Largest `x` in `lo..=hi` with `ok(x)`, for `ok` true then false.
fn largest(lo: u64, hi: u64, mut ok: impl FnMut(u64) -> Result<bool>) -> Result<Option<u64>> {
    if !ok(lo)? {
        return Ok(None);
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid)? {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(Some(lo))
}

/// The placement for a llama.cpp scenario on its GPU.
pub fn plan_offload(sc: &Scenario, spec: &ModelSpec) -> Result<OffloadPlan> {
    if sc.task != TaskKind::Inference || sc.inference.engine != Engine::LlamaCpp {
        return Err(InputError::new(
            "inference.engine",
            "the offload planner is for llama.cpp serving (engine llama_cpp)",
        ));
    }
    let gpu = resolve_gpu(sc)?;
    let capacity = sc
        .gpu
        .memory_bytes
        .or(gpu.map(|g| g.usable_bytes()))
        .ok_or_else(|| InputError::new("gpu.name", "choose a GPU (or its memory) to plan for"))?;
    let n = spec.layers;
    let all = n + 1;
    let moe = spec.moe.is_some();
    let (placement, ngl, ncmoe) = if fits(sc, spec, all, 0)? {
        (Placement::AllOnGpu, all, 0)
    } else if let Some(k) = if moe {
        smallest(1, n, |k| fits(sc, spec, all, k))?
    } else {
        None
    } {
        (Placement::ExpertsOnCpu, all, k)
    } else {
        // The most layers that fit, experts with them (or, for MoE, all
        // experts already in host memory).
        let ncmoe = if moe { n } else { 0 };
        match largest(0, n, |g| fits(sc, spec, g, ncmoe.min(g)))? {
            Some(g) => (Placement::LayersOnCpu, g, ncmoe.min(g)),
            None => (Placement::CpuOnly, 0, 0),
        }
    };
    let mut chosen = sc.clone();
    chosen.inference.gpu_layers = Some(ngl);
    chosen.inference.cpu_moe_layers = ncmoe;
    let e = estimate_with_model(&chosen, spec)?;
    let context = sc.inference.prompt_len + sc.inference.new_tokens;
    let max_ctx = if placement == Placement::CpuOnly {
        None
    } else {
        max_context(&chosen, spec, capacity)?
    };
    let ctx_flag = max_ctx.map_or(context, |m| m.min(context.max(256)));
    let inf = &sc.inference;
    let mut flags = format!("-ngl {ngl}");
    if ncmoe > 0 {
        flags += &format!(" --n-cpu-moe {ncmoe}");
    }
    flags += &format!(
        " -c {ctx_flag} -ub {} -fa {}",
        inf.ubatch,
        if inf.flash_attn { "on" } else { "off" }
    );
    if inf.cache_type != CacheType::F16 {
        let t = crate::url::Choice::key(inf.cache_type);
        flags += &format!(" -ctk {t} -ctv {t}");
    }
    // Ollama places whole layers only (no per-expert override), in the
    // order of the llama.cpp it vendored: the output layer last.
    let ollama_layers = if placement == Placement::AllOnGpu {
        ngl
    } else {
        let mut ollama_sc = sc.clone();
        ollama_sc.inference.output_layer_last = true;
        largest(0, n, |g| fits(&ollama_sc, spec, g, 0))?.unwrap_or(0)
    };
    // The card's whole memory, as Ollama reads it (not the usable share).
    let vram = sc
        .gpu
        .memory_bytes
        .or(gpu.map(|g| g.memory_bytes))
        .unwrap_or(capacity);
    let ollama_default = ollama_default_context(vram);
    let default_fits = max_ctx.is_some_and(|m| m >= ollama_default);
    let file = crate::llama_cpp::file_type_of(sc.effective_weights()).map_or(0, |t| {
        let counts = crate::resolved::effective_counts(spec);
        crate::llama_cpp::tensors::gguf_weights(spec, &counts, t).file_bytes(spec.tied_embeddings)
    });
    let predicted = ollama_predicted_vram(spec, file, ctx_flag);
    let mut ollama = format!(
        "num_gpu {ollama_layers}, num_ctx {ctx_flag} (unset, Ollama uses num_ctx {ollama_default} on this card, which {})",
        if default_fits {
            "fits"
        } else {
            "does not fit"
        }
    );
    // OLLAMA_FLASH_ATTENTION unset passes `--flash-attn auto`; a quantized
    // KV cache (OLLAMA_KV_CACHE_TYPE) needs flash attention on.
    if inf.flash_attn && !ollama_supports_flash_attention(spec) {
        ollama += "; Ollama keeps flash attention off for this model";
    } else if !inf.flash_attn {
        ollama += "; OLLAMA_FLASH_ATTENTION=0";
    }
    if inf.cache_type != CacheType::F16 {
        ollama += &format!(
            "; OLLAMA_KV_CACHE_TYPE={}",
            crate::url::Choice::key(inf.cache_type)
        );
    }
    let gib = |b: u128| b as f64 / f64::from(1u32 << 30);
    ollama += &format!(
        "; Ollama's scheduler predicts {:.2} GiB (file {:.2} GiB + f16 KV at num_ctx {ctx_flag})",
        Decimal(gib(predicted)),
        Decimal(gib(file))
    );
    let (trade_off, trade_off_zh) = trade_off(placement, ngl, ncmoe, n, inf.output_layer_last);
    let g = e.headline_gpu();
    Ok(OffloadPlan {
        placement,
        gpu_layers: ngl,
        layers: n,
        cpu_moe_layers: ncmoe,
        context,
        max_context: max_ctx,
        gpu_bytes: g.device_used_bytes,
        capacity_bytes: capacity,
        cpu_ram_bytes: e.cpu_ram_bytes,
        llama_cpp_flags: flags,
        ollama_options: ollama,
        ollama_default_context: ollama_default,
        ollama_default_fits: default_fits,
        ollama_predicted_bytes: u64::try_from(predicted).unwrap_or(u64::MAX),
        trade_off,
        trade_off_zh,
        scenario: chosen,
    })
}

fn trade_off(p: Placement, ngl: u64, ncmoe: u64, n: u64, output_last: bool) -> (String, String) {
    match p {
        Placement::AllOnGpu => (
            "Everything runs on the GPU: full speed.".into(),
            "全部在 GPU 上运行：速度不受影响。".into(),
        ),
        Placement::ExpertsOnCpu => (
            format!("Attention, the KV cache and the shared weights stay on the GPU; the routed experts of the first {ncmoe} of {n} layers are read from host RAM for every token, so generation slows with the share of expert bytes on the CPU while prompt processing stays on the GPU."),
            format!("注意力、KV cache 和共享权重留在 GPU；前 {ncmoe}/{n} 层的路由专家放在内存中，每个 token 都要从内存读取，生成速度随放在 CPU 上的专家比例下降，提示词处理仍在 GPU 上。"),
        ),
        Placement::LayersOnCpu if output_last => {
            let cpu = n.saturating_sub(ngl);
            (
                format!("The last {} of {n} layers run on the GPU; the first {cpu} and the output layer run on the CPU, and every token waits for them: generation runs at roughly CPU memory-bandwidth speed for that share.", ngl.min(n)),
                format!("后 {}/{n} 层在 GPU 上运行；前 {cpu} 层及输出层在 CPU 上运行，每个 token 都要等它们：这部分的速度取决于内存带宽。", ngl.min(n)),
            )
        }
        Placement::LayersOnCpu => {
            let gpu = ngl.saturating_sub(1).min(n);
            let cpu = n - gpu;
            (
                format!("The output layer and the last {gpu} of {n} layers run on the GPU (-ngl counts the output layer and moves it first); the first {cpu} run on the CPU, and every token waits for them: generation runs at roughly CPU memory-bandwidth speed for that share."),
                format!("输出层和后 {gpu}/{n} 层在 GPU 上运行（-ngl 把输出层计入并最先放上 GPU）；前 {cpu} 层在 CPU 上运行，每个 token 都要等它们：这部分的速度取决于内存带宽。"),
            )
        }
        Placement::CpuOnly => (
            "Not even one layer's buffers fit the GPU: llama.cpp runs on the CPU (-ngl 0).".into(),
            "GPU 连一层的缓冲区都放不下：llama.cpp 只能在 CPU 上运行（-ngl 0）。".into(),
        ),
    }
}
