//! Inference memory: weights, KV cache, prefill working set, per engine.

use crate::compressed_kv::{
    compressed_bytes_per_sequence, prefill_retained_per_sequence, window_per_token,
};
use crate::decimal::Decimal;
use crate::dequant::{dequant_buffer_bytes, dequant_buffer_line};
use crate::model::{Arch, ModelSpec, SlidingWindow};
use crate::parallel::Shards;
use crate::precision::Dtype;
use crate::recurrent_state::state_bytes_per_sequence;
use crate::report::{Counter, Line, Part};
use crate::resolved::Resolved;
use crate::scenario::{Attention, Engine};
use crate::serving::sglang::{self, SglangEngine};
use crate::serving::{profile_peak, serving_pool, EngineLimits, ServingPool};

/// KV-cache bytes per token of context on one GPU, all layers, and the formula.
pub fn kv_bytes_per_token(spec: &ModelSpec, kv: Dtype, shards: &Shards) -> (u128, String) {
    // Only softmax-attention layers cache keys and values; recurrent layers
    // keep a fixed state instead (`recurrent_state`). A pipeline stage
    // caches its own layers only.
    let layers = shards.stage_attention(spec).0;
    let b = kv.bytes() as u128;
    match &spec.mla {
        // MLA caches one compressed latent and the shared RoPE key per
        // token, and DeepSeek-V3.2's indexer its own key.
        Some(m) => {
            // NoPE layers (Mistral Large 4) cache no rope key; sliding
            // layers with their own latent (Dots3-Note) cache theirs
            let nope = indexed_on_stage(spec, m.nope_layers, shards);
            let (own, sliding) = match m.sliding {
                Some(sw) => (layers - shards.stage_attention(spec).1, Some(sw)),
                None => (layers, None),
            };
            let mut latent = (own * m.kv_lora_rank as u128
                + (own - nope.min(own)) * m.qk_rope_head_dim as u128)
                * b;
            let mut text = format!(
                "{own} layers × ({} latent + {} rope) × {b} B",
                m.kv_lora_rank, m.qk_rope_head_dim
            );
            if let Some(sw) = sliding {
                let windowed = layers - own;
                latent += windowed * u128::from(sw.kv_lora_rank + sw.qk_rope_head_dim) * b;
                text.push_str(&format!(
                    " + {windowed} sliding layers × ({} latent + {} rope) × {b} B",
                    sw.kv_lora_rank, sw.qk_rope_head_dim
                ));
            }
            if nope > 0 {
                text.push_str(&format!(
                    " − {nope} NoPE layers × {} rope × {b} B",
                    m.qk_rope_head_dim
                ));
            }
            let indexed = match &m.indexer {
                Some(ix) if ix.layers > 0 => {
                    let count = indexed_on_stage(spec, ix.layers, shards);
                    let what = if ix.pool > 0 {
                        format!("(2 × {} + 1) indexer key, scores, flag", ix.head_dim)
                    } else {
                        format!("{} indexer key", ix.head_dim)
                    };
                    let element = ix.cached_bytes(b) / u128::from(ix.cached_width().max(1));
                    text.push_str(&format!(" + {count} × {what} × {element} B"));
                    count * ix.cached_bytes(b)
                }
                _ => 0,
            };
            (latent + indexed, text)
        }
        None => {
            // DeepSeek-V4: its window's own widths
            if let Some(window) = window_per_token(spec, shards, b) {
                return window;
            }
            let kv_heads = (spec.kv_heads as u128).div_ceil(shards.tp).max(1);
            let d = spec.head_dim() as u128;
            // keys d wide and values as wide: "2 (K,V) × d", else "(dk + dv)"
            let (kv_width, kv_text) = match spec.value_head_dim {
                Some(dv) => (d + dv as u128, format!("({d} K + {dv} V)")),
                None => (2 * d, format!("2 (K,V) × {d}")),
            };
            let Some(g) = &spec.global_attention else {
                let per = layers * kv_heads * kv_width * b;
                let text = format!("{layers} layers × {kv_heads} kv heads × {kv_text} × {b} B");
                return match qsa_keys_per_token(spec, shards, b) {
                    Some((keys, more)) => (per + keys, format!("{text} + {more}")),
                    None => (per, text),
                };
            };
            // Gemma 4: the sliding layers' heads, then the global layers' own.
            let windowed = shards.stage_attention(spec).1;
            let (global_width, _) = spec.kv_widths(shards.tp);
            let global_heads = (g.kv_heads as u128).div_ceil(shards.tp).max(1);
            let global = layers - windowed;
            (
                (windowed * kv_heads * kv_width + global * global_width) * b,
                format!(
                    "({windowed} sliding layers × {kv_heads} kv heads × {kv_text} + \
                     {global} global layers × {global_heads} × {}) × {b} B",
                    match spec.value_head_dim {
                        Some(dv) => format!("({} K + {dv} V)", g.head_dim),
                        None => format!("2 × {}", g.head_dim),
                    }
                ),
            )
        }
    }
}

/// A pipeline stage's share of the `indexed` attention layers (at most
/// the attention layers it holds).
fn indexed_on_stage(spec: &ModelSpec, indexed: u64, shards: &Shards) -> u128 {
    u128::from(indexed)
        .min(u128::from(spec.attention_layer_count()))
        .div_ceil(shards.pp.max(1))
        .min(shards.stage_attention(spec).0)
}

/// Qwen4-Exp's QSA indexer: a key of `head_dim` per token on each of a
/// stage's indexed layers, and the three int64 position ids the first
/// indexed layer keeps (`DynamicIndexedLayer`, measured).
fn qsa_keys_per_token(spec: &ModelSpec, shards: &Shards, b: u128) -> Option<(u128, String)> {
    let q = spec.qsa_indexer.as_ref().filter(|q| q.layers > 0)?;
    let count = indexed_on_stage(spec, q.layers, shards);
    let d = u128::from(q.head_dim);
    if q.keys_only {
        return Some((count * d * b, format!("{count} × {d} indexer key × {b} B")));
    }
    Some((
        count * d * b + 3 * 8,
        format!("{count} × {d} indexer key × {b} B + 3 × 8 B position ids"),
    ))
}

/// vLLM's cache of a DeepSeek Sparse Attention model (DeepSeek-V3.2,
/// GLM-MoE-DSA: FlashMLA's sparse backend): per MLA layer and token the
/// latent and its rotary key in 16 bits (576 × 2 B), or in its
/// `fp8_ds_mla` format when the cache is 8-bit (512 fp8 values, a fp32
/// scale per 128 of them, the 64 rotary values in bf16: 656 B); and per
/// indexed layer the indexer's key in fp8 with a fp32 scale per 128
/// values (`DeepseekV32IndexerCache`: 128 + 4 = 132 B), whatever the
/// cache's dtype. GLM-5.3's pooled indexer is laid out otherwise and not
/// read here.
pub fn vllm_sparse_mla_per_token(
    spec: &ModelSpec,
    kv: Dtype,
    shards: &Shards,
) -> Option<(u128, String)> {
    let m = spec.mla.as_ref()?;
    let ix = m
        .indexer
        .as_ref()
        .filter(|ix| ix.layers > 0 && ix.pool == 0)?;
    let (layers, windowed) = shards.stage_attention(spec);
    let d = u128::from(ix.head_dim);
    let latent = |r: u64, dr: u64| {
        let (r, dr) = (u128::from(r), u128::from(dr));
        if kv.bytes() == 1 {
            r + r.div_ceil(128) * 4 + 2 * dr
        } else {
            (r + dr) * 2
        }
    };
    let indexed = indexed_on_stage(spec, ix.layers, shards);
    let key = d + d.div_ceil(128) * 4;
    let own = latent(m.kv_lora_rank, m.qk_rope_head_dim);
    // sliding layers with a latent of their own (Dots3-Note)
    let (plain, sliding) = match m.sliding {
        Some(sw) => (
            layers - windowed,
            Some((windowed, latent(sw.kv_lora_rank, sw.qk_rope_head_dim))),
        ),
        None => (layers, None),
    };
    let mut text = format!("{plain} layers × {own} B latent");
    let mut bytes = plain * own + indexed * key;
    if let Some((n, width)) = sliding {
        bytes += n * width;
        text.push_str(&format!(" + {n} sliding layers × {width} B latent"));
    }
    text.push_str(&format!(" + {indexed} × {key} B fp8 indexer key"));
    Some((bytes, text))
}

pub struct InferenceMemory {
    pub lines: Vec<Line>,
    /// Host memory the engine holds (llama.cpp's CPU buffers).
    pub cpu_lines: Vec<Line>,
    /// vLLM, SGLang: the KV pool and what it holds (when a GPU was chosen).
    pub serving: Option<ServingPool>,
    /// Bytes allocated and freed again during generation (prefill working
    /// set, logits, cache growth): what fragments the allocator's cache.
    pub per_step: u128,
    pub peak_allocated: u128,
    pub kv_per_token: u128,
}

/// Bytes of the KV cache holding `tokens` tokens for each of `batch` sequences,
/// with sliding-window (and chunked-attention) layers capped at their window
/// less one token: transformers' `DynamicSlidingWindowLayer` keeps the last
/// `sliding_window - 1` keys, which is all the next query can attend to
/// (measured in `tests/data/cache/`).
/// DeepSeek-V4's compressed entries (`kv`: the cache's dtype) come on top.
/// Windowed layers that keep the prompt (`SlidingWindow::keeps_prompt`)
/// hold the `prompt` tokens beside the window.
pub fn kv_cache_bytes(
    spec: &ModelSpec,
    shards: &Shards,
    (per_token, kv): (u128, Dtype),
    batch: u128,
    (tokens, prompt): (u128, u128),
) -> u128 {
    let (full, sliding) = shards.kv_split(spec, (per_token, kv.bytes().into()));
    let window = match &spec.sliding_window {
        Some(w) => {
            let kept = if keeps_prompt(spec, w) { prompt } else { 0 };
            (w.window as u128).saturating_sub(1).max(1) + kept
        }
        None => tokens,
    };
    let compressed = compressed_bytes_per_sequence(spec, shards, kv, tokens).map_or(0, |c| c.0);
    batch * (full * tokens + sliding * tokens.min(window) + compressed)
}

/// Whether a sliding layer keeps the prompt beside its window: the layers
/// that say so (`SlidingWindow::keeps_prompt`), and an encoder-decoder's,
/// whose `prompt` is the source: each layer's cross-attention keeps it whole
/// while its self-attention windows the generated tokens (T5Gemma, measured:
/// tests/data/t5gemma/t5gemma_cache.jsonl).
fn keeps_prompt(spec: &ModelSpec, w: &SlidingWindow) -> bool {
    w.keeps_prompt || spec.encoder_layers.is_some()
}

/// What transformers' dynamic cache keeps alive right after a prefill of
/// `tokens`: a sliding or chunked layer (`DynamicSlidingWindowLayer.update`,
/// transformers 5.24) stores its last `window - 1` tokens as a slice of the
/// `torch.cat` of the whole prompt's keys and values, a view, so the whole
/// prompt's storage stays alive on every such layer until its first decode
/// step replaces it (measured: a sliding layer's key storage after a
/// 20-token prefill holds 20 tokens, after one more step 8 of window 8).
pub fn prefill_views_bytes(
    spec: &ModelSpec,
    shards: &Shards,
    (per_token, kv): (u128, Dtype),
    batch: u128,
    tokens: u128,
) -> u128 {
    let compressed = compressed_bytes_per_sequence(spec, shards, kv, tokens).map_or(0, |c| c.0);
    batch * (per_token * tokens + compressed)
}

/// Bytes of a static cache (`cache_implementation="static"`) allocated for
/// `max_len` tokens: full layers hold `max_len`, sliding and chunked layers
/// their whole window (`StaticSlidingWindowLayer`), for every sequence.
pub fn static_kv_cache_bytes(
    spec: &ModelSpec,
    shards: &Shards,
    (per_token, kv): (u128, Dtype),
    batch: u128,
    max_len: u128,
) -> u128 {
    let (full, sliding) = shards.kv_split(spec, (per_token, kv.bytes().into()));
    let window = match &spec.sliding_window {
        Some(w) => w.window as u128,
        None => max_len,
    };
    batch * (full * max_len + sliding * max_len.min(window))
}

/// What a vLLM engine plans from: the total it reads off the card
/// (`None`: no GPU chosen), its scheduler limits and its memory outside
/// PyTorch (see [`crate::serving`]).
#[derive(Clone, Copy, Debug)]
pub struct VllmEngine {
    pub total: Option<u64>,
    pub limits: EngineLimits,
    pub non_torch: u64,
}

/// A serving engine that sizes a KV pool, as it plans on the scenario's card.
#[derive(Clone, Copy, Debug)]
pub enum ServingEngine {
    Vllm(VllmEngine),
    Sglang(SglangEngine),
}

/// Everything one GPU holds while serving; `engine` when the scenario's
/// engine sizes a pool (vLLM, SGLang).
pub fn inference_memory(r: &Resolved, engine: Option<&ServingEngine>) -> InferenceMemory {
    let mut lines = Vec::new();
    let (weight_bytes, weights) = weights_line(r);
    lines.push(weights);
    if r.spec.arch.is_encoder_only() {
        let (working, formula) = encoder_forward_bytes(r);
        return finish(r, lines, weight_bytes, 0, (working, formula), working, 0);
    }
    let inf = r.inference;
    let kv_dtype = inf.kv_cache_dtype.unwrap_or(r.compute);
    let (per_token, per_token_formula) = kv_bytes_per_token(r.spec, kv_dtype, &r.shards);
    if inf.engine == Engine::LlamaCpp {
        if let Some(loaded) = crate::llama_cpp::load(r) {
            return llama_cpp_memory(r, &loaded);
        }
    }
    match engine {
        Some(ServingEngine::Vllm(engine)) if inf.engine == Engine::Vllm => {
            let (per_token, per_token_formula) =
                vllm_sparse_mla_per_token(r.spec, kv_dtype, &r.shards)
                    .unwrap_or((per_token, per_token_formula));
            return vllm_memory(
                r,
                lines,
                weight_bytes,
                (per_token, &per_token_formula),
                engine,
            );
        }
        Some(ServingEngine::Sglang(engine)) if inf.engine == Engine::Sglang => {
            return sglang_memory(
                r,
                lines,
                weight_bytes,
                (per_token, &per_token_formula),
                engine,
            );
        }
        _ => {}
    }
    let (prefill, prefill_formula) = prefill_bytes(r);
    let fixed: Vec<(u128, Line)> = [recurrent_state_line(r), cross_attention_line(r)]
        .into_iter()
        .flatten()
        .collect();
    let (kv, kv_formula) = if r.spec.attention_layer_count() == 0 {
        (
            0,
            "no attention layers: nothing grows with the context".to_owned(),
        )
    } else {
        kv_cache(r, per_token, &per_token_formula)
    };
    lines.push(Line::new(Part::KvCache, kv, kv_formula, Counter::Allocated));
    if !fixed.is_empty() {
        let bytes = fixed.iter().map(|(b, _)| b).sum();
        lines.extend(fixed.into_iter().map(|(_, line)| line));
        // The state is allocated once, beside the cache, and held to the end.
        return with_state(
            r,
            lines,
            weight_bytes,
            kv,
            bytes,
            (per_token, prefill, &prefill_formula),
        );
    }
    let step = generation_step(r, kv, per_token, (prefill, &prefill_formula));
    finish(
        r,
        lines,
        weight_bytes,
        kv,
        (step.working, step.formula),
        step.per_step,
        per_token,
    )
}

/// The recurrent layers' state for every sequence of the batch, and its line.
fn recurrent_state_line(r: &Resolved) -> Option<(u128, Line)> {
    let (per_sequence, formula) =
        state_bytes_per_sequence(r.spec, r.compute, r.shards.tp, r.inference.engine)?;
    let batch = r.inference.batch as u128;
    let bytes = batch * per_sequence;
    let line = Line::new(
        Part::RecurrentState,
        bytes,
        format!("{batch} sequences × {per_sequence} B ({formula})"),
        Counter::Allocated,
    );
    Some((bytes, line))
}

/// The cross-attention layers' K/V over every sequence's images, and its line.
fn cross_attention_line(r: &Resolved) -> Option<(u128, Line)> {
    let vision_tokens = r.images.as_ref().map_or(0, |i| i.tower_tokens());
    let kv_dtype = r.inference.kv_cache_dtype.unwrap_or(r.compute);
    let (per_sequence, formula) = crate::cross_attention::cross_cache_bytes_per_sequence(
        r.spec,
        kv_dtype,
        (r.shards.tp, r.shards.pp),
        vision_tokens,
    )?;
    let batch = r.inference.batch as u128;
    let bytes = batch * per_sequence;
    let line = Line::new(
        Part::CrossAttentionCache,
        bytes,
        format!("{batch} sequences × {per_sequence} B ({formula})"),
        Counter::Allocated,
    );
    Some((bytes, line))
}

/// A vLLM engine: the profile run's peak, then the KV pool filling what
/// `gpu_memory_utilization` of the total leaves (recurrent layers' states
/// for the scenario's sequences are taken from it too).
fn vllm_memory(
    r: &Resolved,
    mut lines: Vec<Line>,
    weight_bytes: u128,
    (per_token, per_token_formula): (u128, &str),
    engine: &VllmEngine,
) -> InferenceMemory {
    let inf = r.inference;
    let (peak, peak_formula) =
        profile_peak(r, &engine.limits, |tokens| working_bytes(r, 1, tokens));
    // Recurrent states come out of the pool, one per sequence (vLLM's
    // MambaSpec pages): charged to each request, not before the pool.
    let state_per_sequence = state_bytes_per_sequence(r.spec, r.compute, r.shards.tp, Engine::Vllm)
        .map_or(0, |(bytes, _)| bytes);
    // Without a card there is no pool: the requested sequences' states.
    let state = recurrent_state_line(r).filter(|_| engine.total.is_none());
    let state_bytes = state.as_ref().map_or(0, |(bytes, _)| *bytes);
    let (kv, kv_formula, serving) = match engine.total {
        Some(total) => {
            let utilization = inf.gpu_memory_utilization.clamp(0.0, 1.0);
            let limit = (total as f64 * utilization) as u128;
            let used = weight_bytes + peak + engine.non_torch as u128;
            let pool = limit.saturating_sub(used);
            let serving = (per_token > 0 || state_per_sequence > 0).then(|| {
                let mut p = serving_pool(r, pool, (per_token, state_per_sequence), engine.limits);
                p.deficit_bytes = u64::try_from(used.saturating_sub(limit)).unwrap_or(u64::MAX);
                p
            });
            (
                pool,
                format!(
                    "KV pool: {:.2} × {total} B (the total vLLM reads) − weights − profile peak − non-torch memory; {per_token_formula} per token{}",
                    Decimal(utilization),
                    if state_per_sequence > 0 {
                        format!(" + {state_per_sequence} B of recurrent state per sequence")
                    } else {
                        String::new()
                    }
                ),
                serving,
            )
        }
        None => {
            let context = (inf.prompt_len + inf.new_tokens) as u128;
            (
                kv_cache_bytes(
                    r.spec,
                    &r.shards,
                    (per_token, kv_dtype(r)),
                    inf.batch as u128,
                    (context, inf.prompt_len as u128),
                ),
                format!("b × context × ({per_token_formula}) (no GPU chosen: the requested context only)"),
                None,
            )
        }
    };
    lines.push(Line::new(Part::KvCache, kv, kv_formula, Counter::Allocated));
    if let Some((_, line)) = state {
        lines.push(line);
    }
    lines.push(Line::new(
        Part::Activations,
        peak,
        format!("vLLM profile run: {peak_formula}"),
        Counter::Allocated,
    ));
    lines.extend(dequant_buffer_line(r));
    InferenceMemory {
        lines,
        cpu_lines: Vec::new(),
        serving,
        // The pool is allocated once; steps reuse the profiled working set.
        per_step: 0,
        peak_allocated: weight_bytes + kv + state_bytes + peak + dequant_buffer_bytes(r),
        kv_per_token: per_token,
    }
}

/// An SGLang engine (see [`crate::serving::sglang`]): the weights and the
/// KV pool fill `mem_fraction_static` of the memory free before loading;
/// the rest is what SGLang leaves for cuBLAS, attention backends, CUDA
/// graphs and the prefill's activations, not added on top.
fn sglang_memory(
    r: &Resolved,
    mut lines: Vec<Line>,
    weight_bytes: u128,
    (per_token, per_token_formula): (u128, &str),
    engine: &SglangEngine,
) -> InferenceMemory {
    let inf = r.inference;
    let settings = engine.settings;
    let fraction = settings.mem_fraction_static;
    // As a person writes it (0.835, 0.79325), without float noise.
    let shown = format!("{:.5}", Decimal(fraction));
    let shown = shown.trim_end_matches('0').trim_end_matches('.');
    let context = inf.prompt_len.saturating_add(inf.new_tokens).max(1);
    let shared_prefix = inf.shared_prefix_tokens.min(inf.prompt_len);
    let request = sglang::Request {
        sequences: inf.batch,
        context,
        shared_prefix,
        context_len: r.spec.context_limit(),
        max_running_requests: engine.max_running_requests,
        chunked_prefill_size: settings.chunked_prefill_size,
    };
    let source = if settings.fraction_given {
        "given".to_owned()
    } else if engine.total.is_some() {
        format!(
            "SGLang {}'s default for this card and tp (chunked_prefill_size {}, cuda_graph_max_bs {})",
            sglang::VERSION,
            settings.chunked_prefill_size,
            settings.cuda_graph_max_bs
        )
    } else {
        format!(
            "SGLang {}'s fallback when it cannot read the card's memory",
            sglang::VERSION
        )
    };
    let leaves = format!(
        "cuBLAS, attention backends, CUDA graphs up to batch {}, prefill chunks of {} tokens",
        settings.cuda_graph_max_bs, settings.chunked_prefill_size
    );
    let communicators = if engine.communicators > 0 {
        " − NCCL communicators"
    } else {
        ""
    };
    let (kv, kv_formula, remainder, remainder_formula, serving) = match sglang::pool_size(
        engine,
        weight_bytes,
        per_token,
    ) {
        Some(size) => {
            let free = size.free_before_load;
            let tokens = size.tokens;
            let kv_formula = format!(
                "KV pool: {shown} × {free} B free before loading (the total SGLang reads − CUDA context{communicators}) − weights = {tokens} tokens × {per_token} B ({per_token_formula}); mem_fraction_static {source}"
            );
            let remainder_formula = format!(
                "what SGLang leaves beside weights and pool: (1 − {shown}) × {free} B ({leaves})"
            );
            (
                size.rest.max(0.0) as u128,
                kv_formula,
                ((1.0 - fraction).max(0.0) * free as f64) as u128,
                remainder_formula,
                Some(sglang::pool(&size, per_token, &request)),
            )
        }
        None => {
            // No card: the requested tokens, and the rest that makes
            // weights + KV `mem_fraction_static` of the free memory.
            let kv = sglang::tokens_for(inf.batch, context, shared_prefix) * per_token;
            let remainder = if fraction > 0.0 {
                ((weight_bytes + kv) as f64 * (1.0 - fraction).max(0.0) / fraction) as u128
            } else {
                0
            };
            let kv_formula = format!(
                "b × context × ({per_token_formula}) (no GPU chosen: the requested sequences only)"
            );
            let remainder_formula = format!(
                "what SGLang leaves beside weights and KV: their (1 − {shown}) / {shown}, mem_fraction_static {source} ({leaves})"
            );
            (kv, kv_formula, remainder, remainder_formula, None)
        }
    };
    lines.push(Line::new(Part::KvCache, kv, kv_formula, Counter::Allocated));
    lines.push(Line::new(
        Part::Activations,
        remainder,
        remainder_formula,
        Counter::Allocated,
    ));
    InferenceMemory {
        lines,
        cpu_lines: Vec::new(),
        serving,
        // The pool is allocated once; steps run inside the remainder.
        per_step: 0,
        peak_allocated: weight_bytes + kv + remainder,
        kv_per_token: per_token,
    }
}

/// llama.cpp: its buffers on the (busiest) GPU and in host memory, each a
/// line with what it holds.
fn llama_cpp_memory(r: &Resolved, l: &crate::llama_cpp::Loaded) -> InferenceMemory {
    let b = &l.buffers;
    let f = &l.flags;
    let n_layer = r.spec.layers;
    let placement = format!(
        "{} of {n_layer} layers{}{}",
        b.gpu_layers,
        if b.output_on_gpu {
            " + output layer"
        } else {
            ""
        },
        if f.n_cpu_moe > 0 {
            format!(", experts of the first {} in host memory", f.n_cpu_moe)
        } else {
            String::new()
        }
    );
    let gpus = if f.gpus > 1 {
        format!(", split over {} GPUs (the busiest)", f.gpus)
    } else {
        String::new()
    };
    let kv = format!(
        "{} cells (-c {} padded to 256; sliding layers {}) × K,V in {}",
        b.kv_cells,
        f.n_ctx,
        b.swa_cells,
        f.type_k.name()
    );
    let layers_on_cpu = b.gpu_layers < n_layer;
    let attention =
        match (f.flash_attn, layers_on_cpu) {
            (true, false) => String::new(),
            (true, true) => "one layer's K,V copied in, ".to_owned(),
            (false, on_cpu) => {
                format!(
            "scores n_head × n_kv × ub × 4 B + mask + query and attention output + stream{}, ",
            if on_cpu { " + one layer's K,V copied in" } else { "" }
        )
            }
        };
    let compute = format!(
        "graph reserved for -ub {} tokens: max({attention}logits n_vocab × ub × 4 B{}) + stream n_embd × ub × 4 B",
        f.n_ubatch,
        if b.output_on_gpu {
            ""
        } else {
            " + the output weight copied in"
        }
    );
    let lines = vec![
        Line::new(
            Part::Weights,
            b.gpu_model,
            format!("GGUF {}: {placement}{gpus}", l.file_type.name()),
            Counter::Allocated,
        ),
        Line::new(Part::KvCache, b.gpu_kv, kv.clone(), Counter::Allocated),
        Line::new(
            Part::Activations,
            b.gpu_compute,
            compute,
            Counter::Allocated,
        ),
    ];
    let mut cpu_lines = vec![Line::new(
        Part::Weights,
        b.host_model,
        format!(
            "GGUF {}: token embeddings ({}) and the weights not on the GPU (memory-mapped)",
            l.file_type.name(),
            l.weights.token_embd_type.name()
        ),
        Counter::Allocated,
    )];
    if b.host_kv > 0 {
        cpu_lines.push(Line::new(Part::KvCache, b.host_kv, kv, Counter::Allocated));
    }
    cpu_lines.push(Line::new(
        Part::Activations,
        b.host_compute + b.output,
        "host compute buffer (input embeddings, mask) + output buffer (n_vocab × 4 B)".to_owned(),
        Counter::Allocated,
    ));
    InferenceMemory {
        lines,
        cpu_lines,
        serving: None,
        per_step: 0,
        peak_allocated: b.gpu_total(),
        kv_per_token: kv_bytes_per_token(r.spec, Dtype::Fp16, &r.shards).0,
    }
}

/// [`inference_memory`]'s ending for a model with recurrent layers: the
/// state counts like the cache (allocated before the prefill, never freed).
fn with_state(
    r: &Resolved,
    lines: Vec<Line>,
    weight_bytes: u128,
    kv: u128,
    state: u128,
    (per_token, prefill, prefill_formula): (u128, u128, &str),
) -> InferenceMemory {
    let step = generation_step(r, kv, per_token, (prefill, prefill_formula));
    finish(
        r,
        lines,
        weight_bytes + state,
        kv,
        (step.working, step.formula),
        step.per_step,
        per_token,
    )
}

/// The weights on this GPU, bytes and line; vLLM adds its rotary cos/sin cache.
fn weights_line(r: &Resolved) -> (u128, Line) {
    let spec = r.spec;
    let shards = &r.shards;
    let (mut bytes, mut formula) = if shards.pp > 1 {
        busiest_stage_weights(r)
    } else {
        (
            r.weights.total / shards.tp,
            shards.sharded_weights(&r.weights.formula),
        )
    };
    if r.inference.engine == Engine::Vllm {
        // vLLM's rotary layer precomputes cos/sin for every position in the
        // model dtype: max_position × rotary_dim × bytes (vllm-llmd-177/178/180:
        // weights match to 0.1% only with it).
        let compute = r.compute.bytes();
        bytes += spec.max_position as u128 * rotary_dim(spec) as u128 * compute as u128;
        formula += &format!(
            " + RoPE cos/sin cache {} × {} × {compute} B",
            spec.max_position,
            rotary_dim(spec),
        );
    }
    if r.inference.engine == Engine::Sglang {
        // SGLang keeps the same table in fp32 on CUDA.
        if rotary_dim(spec) > 0 {
            bytes += sglang::rope_table_bytes(spec, rotary_dim(spec));
            formula += &format!(
                " + RoPE cos/sin table {} × {} × 4 B (fp32)",
                spec.max_position,
                rotary_dim(spec),
            );
        }
        // MLA: the absorbed copies of kv_b_proj beside it.
        if let Some(m) = &spec.mla {
            let layers = r.shards.stage_attention(spec).0;
            let heads = (spec.heads as u128).div_ceil(r.shards.tp);
            let width = (m.qk_nope_head_dim + m.v_head_dim) as u128;
            let b = r.compute.bytes() as u128;
            bytes += sglang::absorbed_mla_bytes(layers, m.kv_lora_rank as u128, heads, width, b);
            formula += &format!(
                " + w_kc, w_vc copies of kv_b_proj {layers} × {} × {heads} × {width} × {b} B",
                m.kv_lora_rank
            );
        }
    }
    (
        bytes,
        Line::new(Part::Weights, bytes, formula, Counter::Allocated),
    )
}

/// The busiest pipeline stage's weights: `ceil(L / pp)` layers, plus the
/// token embedding on the first stage or the head on the last (a tied head
/// gets its own copy there), whichever is larger; split by tensor parallel.
fn busiest_stage_weights(r: &Resolved) -> (u128, String) {
    let shards = &r.shards;
    let plain = r.format.unquantized_dtype(r.compute).bytes() as u128;
    let embedding = r.counts.embedding as u128 * plain;
    let head = if r.spec.tied_embeddings {
        embedding
    } else {
        r.counts.lm_head as u128 * plain
    };
    let stored_head = if r.spec.tied_embeddings { 0 } else { head };
    let layers_bytes = r.weights.total.saturating_sub(embedding + stored_head);
    let layers = (r.spec.layers.max(1)) as u128;
    let stage_layers = layers.div_ceil(shards.pp);
    let bytes = (layers_bytes * stage_layers / layers + embedding.max(head)) / shards.tp;
    (
        bytes,
        format!(
            "busiest of {} pipeline stages: {stage_layers} of {layers} layers + the larger of the embedding ({embedding} B, first stage) and the head ({head} B, last stage){}",
            shards.pp,
            if shards.tp > 1 {
                format!(", / tp {}", shards.tp)
            } else {
                String::new()
            }
        ),
    )
}

/// The arch's rotary embedding covers the whole head (for vLLM's cos/sin cache).
fn rotary_dim(spec: &ModelSpec) -> u64 {
    match spec.arch {
        Arch::Phi => spec.head_dim() * 2 / 5,
        Arch::Stablelm | Arch::GptNeox => spec.head_dim() / 4,
        Arch::Gpt2
        | Arch::GptNeo
        | Arch::Opt
        | Arch::Bert
        | Arch::Bloom
        | Arch::GptBigcode
        | Arch::T5
        | Arch::Whisper
        | Arch::Bart => 0,
        _ => match &spec.mla {
            Some(m) => m.qk_rope_head_dim,
            None => spec.head_dim(),
        },
    }
}

/// Hidden states and MLP intermediates of one layer for `tokens` tokens of
/// each sequence: b·tokens·(4·h + 3·i)·B.
fn layer_working_bytes(r: &Resolved, tokens: u128) -> u128 {
    working_bytes(r, r.inference.batch as u128, tokens)
}

/// [`layer_working_bytes`] for `sequences` sequences.
fn working_bytes(r: &Resolved, sequences: u128, tokens: u128) -> u128 {
    let h = r.spec.hidden as u128;
    let i = r.spec.intermediate as u128;
    let act = r.serving_dtype().bytes() as u128;
    sequences * tokens * (4 * h * act + 3 * i * act / r.shards.tp)
}

/// Prefill working set of one layer: hidden states and MLP intermediates of
/// the whole prompt, plus the score matrix where eager attention builds it
/// (its bytes per score at the layer's worst moment,
/// [`crate::activations::eager_prefill_bytes`]).
fn prefill_bytes(r: &Resolved) -> (u128, String) {
    let inf = r.inference;
    let batch = inf.batch as u128;
    // Whisper's first step is its encoder over the fixed frames
    let (prompt, p) = match r.spec.encoder_tokens {
        Some(frames) => (
            u128::from(frames).max(inf.prompt_len as u128),
            "encoder frames",
        ),
        None => (inf.prompt_len as u128, "p"),
    };
    let heads = (r.spec.heads as u128).div_ceil(r.shards.tp);
    let act = r.compute.bytes() as u128;
    let mut bytes = layer_working_bytes(r, prompt);
    let mut formula = format!("b·{p}·(4·h + 3·i)·{act} B");
    // p² (query, key) pairs, or LongT5's blocked ones: n blocks of L
    // queries, K keys each
    let pairs = crate::activations::encoder_score_pairs(r.spec, prompt);
    let p2 = if r.spec.local_radius.is_some() {
        "n·L·K"
    } else {
        "p²"
    };
    if r.attention == Attention::Eager && r.spec.attention_layer_count() > 0 {
        // One layer's scores at their worst moment, and the model's 4-D
        // mask in the activation dtype (b·p² of them, measured beside).
        let scores = r.serving_dtype().bytes() as u128;
        let (per_score, mask) = crate::activations::eager_prefill_bytes(r.spec, scores);
        bytes += per_score * batch * heads * pairs + mask * batch * pairs;
        formula += &format!(" + {per_score}·b·a·{p2} (eager scores) + b·{p2}·{mask} (mask)");
    }
    if let Some(w) = sdpa_window_masked(r, prompt) {
        // SDPA makes an additive (b, 1, p, p) mask of transformers'
        // boolean one in each sliding layer, freed after it (kept for
        // backward in training: tests/data/modernbert_decoder/)
        bytes += act * batch * prompt * prompt;
        formula += &format!(" + {act}·b·p² (sliding-window mask, window {})", w.window);
    }
    if r.spec.arch == Arch::T5 {
        // The encoder's relative-position bias, (b, heads, p, p), lives
        // through the whole encoder pass (see training/saved.rs).
        bytes += act * batch * heads * pairs;
        formula += &format!(" + b·a·{p2}·B (T5 position bias)");
    }
    if let Some((scores, text)) = indexer_scores(r, batch, prompt) {
        bytes += scores;
        formula += &text;
    }
    (bytes, formula)
}

/// The window of transformers' sliding layers when SDPA gets them a mask:
/// a prompt of at least the window (below it `_ignore_causal_mask_sdpa`
/// skips the mask).
fn sdpa_window_masked<'a>(r: &'a Resolved, prompt: u128) -> Option<&'a SlidingWindow> {
    let transformers_sdpa =
        r.attention == Attention::Sdpa && r.inference.engine == Engine::Transformers;
    r.spec
        .sliding_window
        .as_ref()
        .filter(|w| transformers_sdpa && w.layers > 0 && prompt >= u128::from(w.window))
}

/// DeepSeek Sparse Attention's indexer as transformers runs it
/// (`DeepseekV32Indexer`, which GLM-MoE-DSA's and HY-V4's follow), one
/// layer at a time: it scores every query against every key in fp32 per
/// index head, (b, p, heads, p), and for more than one sequence the
/// broadcast matmul first copies the keys out to (b, p, d, p). Its peak is
/// the larger of that copy beside the scores, the scaled scores beside
/// their ReLU, and the ReLU beside the head-weighted sum, its masked copy
/// and the 1-byte mask (measured on CPU: `tests/data/indexer/`). GLM-5.3's
/// pooled indexer scores pools instead, and is not counted.
fn indexer_scores(r: &Resolved, batch: u128, prompt: u128) -> Option<(u128, String)> {
    if r.inference.engine != Engine::Transformers {
        return None;
    }
    let (bytes, per_pair) = sparse_indexer_scores(r.spec, batch, prompt)?;
    Some((
        bytes,
        format!(" + {per_pair}·b·p² (sparse-attention indexer scores)"),
    ))
}

/// [`indexer_scores`]' bytes for `batch` sequences of `tokens` tokens,
/// and the bytes per (query, key) pair; `None` without an unpooled indexer.
pub fn sparse_indexer_scores(spec: &ModelSpec, batch: u128, tokens: u128) -> Option<(u128, u128)> {
    let ix = spec.mla.as_ref()?.indexer.as_ref()?;
    if ix.layers == 0 || ix.pool > 0 {
        return None;
    }
    let (heads, d) = (u128::from(ix.heads), u128::from(ix.head_dim));
    let copy = if batch > 1 { 4 * (d + heads) } else { 0 };
    let per_pair = copy.max(8 * heads).max(4 * heads + 9);
    Some((per_pair * batch * tokens * tokens, per_pair))
}

/// The KV cache on this GPU and its formula (engines that grow it or
/// allocate it for the requested context).
fn kv_cache(r: &Resolved, per_token: u128, per_token_formula: &str) -> (u128, String) {
    let inf = r.inference;
    let batch = inf.batch as u128;
    let context = (inf.prompt_len + inf.new_tokens) as u128;
    if inf.engine == Engine::Transformers && inf.static_cache {
        // Allocated for its own length when one is set (validated ≥ context).
        let length = inf.cache_len.map_or(context, u128::from).max(context);
        return (
            static_kv_cache_bytes(r.spec, &r.shards, (per_token, kv_dtype(r)), batch, length),
            format!(
                "static cache: {batch} × {length} tokens × {per_token} B/token ({per_token_formula})"
            ),
        );
    }
    // DeepSeek-V4: a window of `sliding_window` − 1 tokens, then its entries
    let per_sequence = match compressed_bytes_per_sequence(r.spec, &r.shards, kv_dtype(r), context)
    {
        Some((_, formula)) => {
            let window = r.spec.sliding_window.as_ref().map_or(1, |w| w.window);
            format!(
                    "min({context}, {}) tokens × {per_token} B/token ({per_token_formula}) + {batch} × {formula}",
                    window.saturating_sub(1)
                )
        }
        None => format!(
            "{} ({per_token_formula})",
            cached_per_sequence(r, per_token, context)
        ),
    };
    (
        kv_cache_bytes(
            r.spec,
            &r.shards,
            (per_token, kv_dtype(r)),
            batch,
            (context, inf.prompt_len as u128),
        ),
        format!("{batch} × {per_sequence}"),
    )
}

/// What one sequence caches, as text: the context's tokens × the bytes per
/// token, or with sliding layers their window (`window − 1` tokens, and the
/// prompt too where the layers keep it) beside the full layers' context.
fn cached_per_sequence(r: &Resolved, per_token: u128, context: u128) -> String {
    let (full, sliding) = r
        .shards
        .kv_split(r.spec, (per_token, kv_dtype(r).bytes().into()));
    let Some(w) = r.spec.sliding_window.as_ref().filter(|_| sliding > 0) else {
        return format!("{context} tokens × {per_token} B/token");
    };
    let kept = if keeps_prompt(r.spec, w) {
        format!(" + {}", r.inference.prompt_len)
    } else {
        String::new()
    };
    let window = format!(
        "min({context}, {}{kept})",
        w.window.saturating_sub(1).max(1)
    );
    if full == 0 {
        return format!("{window} tokens × {per_token} B/token");
    }
    format!("({full} B × {context} + {sliding} B × {window})")
}

/// The cache's dtype: the scenario's, else the compute dtype.
fn kv_dtype(r: &Resolved) -> Dtype {
    r.inference.kv_cache_dtype.unwrap_or(r.compute)
}

/// The working set at the peak of generation and the churn of each step.
struct GenerationStep {
    working: u128,
    formula: String,
    per_step: u128,
}

/// The peak is either the prefill (prompt-sized working set over the cache
/// of the prompt) or the last decode step (the full cache, one token's
/// working set). transformers' DynamicCache grows each layer with
/// torch.cat, so the old and new copy of one layer coexist while decoding.
/// A static cache is allocated whole before the prefill and never grows.
fn generation_step(
    r: &Resolved,
    kv: u128,
    per_token: u128,
    (prefill, prefill_formula): (u128, &str),
) -> GenerationStep {
    let inf = r.inference;
    let batch = inf.batch as u128;
    let act = r.compute.bytes() as u128;
    // Last-position logits in fp32 (transformers/litgpt upcast before sampling).
    let logits = batch * r.spec.vocab as u128 * 4;
    // A block-diffusion step runs the decoder over its whole canvas, whose
    // fp32 logits its sampler holds seven times over at its entropy steps,
    // beside the carried self-conditioning logits in the model's dtype
    // (DiffusionGemma's `generate`, transformers 5.24: a step's peak of new
    // storage measured at 7.00 × 4·b·C·V on CPU over vocabularies of 4,096
    // and 8,192, canvases of 8 and 16 and batches of 1 and 2).
    let canvas = r.spec.canvas.map(u128::from);
    let (step_tokens, step_logits) = match canvas {
        Some(c) => (c, batch * c * r.spec.vocab as u128 * (28 + act)),
        None => (1, logits),
    };
    let static_cache = inf.engine == Engine::Transformers && inf.static_cache;
    let growth = match inf.engine {
        Engine::Transformers if static_cache => 0,
        // The old tuple of every layer and the new one coexist at the end
        // of each step (hf-blog-quant-155, 2023: measured − weights ≈ 2 ×
        // the 13.4 GB cache of Llama-2-13B at 16 × 1024 tokens).
        Engine::Transformers if inf.tuple_cache => kv,
        Engine::Transformers => kv / r.spec.attention_layer_count().max(1) as u128,
        _ => 0,
    };
    let decode = layer_working_bytes(r, step_tokens) + step_logits + growth;
    let prompt = inf.prompt_len as u128;
    let retained = prefill_retained_per_sequence(r.spec, &r.shards, kv_dtype(r), prompt);
    let kv_prompt = match retained {
        _ if inf.engine == Engine::Vllm || static_cache => kv,
        // DeepSeek-V4's cache keeps the prefill's projections alive
        Some(per_sequence) if inf.engine == Engine::Transformers => batch * per_sequence,
        _ if inf.engine == Engine::Transformers => {
            prefill_views_bytes(r.spec, &r.shards, (per_token, kv_dtype(r)), batch, prompt)
        }
        _ => kv_cache_bytes(
            r.spec,
            &r.shards,
            (per_token, kv_dtype(r)),
            batch,
            (prompt, prompt),
        ),
    };
    let windows_as_views = inf.engine == Engine::Transformers
        && retained.is_none()
        && !static_cache
        && r.spec.sliding_window.is_some()
        && kv_prompt
            > kv_cache_bytes(
                r.spec,
                &r.shards,
                (per_token, kv_dtype(r)),
                batch,
                (prompt, prompt),
            );
    let prefill_peak = (kv_prompt + prefill + logits).saturating_sub(kv);
    // Before the prefill, with no cache yet, the vision tower runs over all
    // of the batch's images (transformers' `get_image_features`).
    if let Some((tower, tower_formula)) = tower_forward(r) {
        let moment = tower.saturating_sub(kv);
        if moment > prefill_peak.max(decode) {
            return GenerationStep {
                working: moment,
                formula: format!("{tower_formula}, before the cache exists"),
                per_step: prefill + logits + growth,
            };
        }
    }
    let (working, formula) = if prefill_peak >= decode {
        (
            prefill_peak,
            format!(
                "prefill {prefill_formula} + fp32 logits b·V·4, less the cache not yet filled{}",
                if retained.is_some() {
                    " (its windows and buffers still views of the prompt's projections)"
                } else if windows_as_views {
                    " (the sliding layers' windows still views of the whole prompt's keys and values)"
                } else {
                    ""
                }
            ),
        )
    } else {
        (
            decode,
            format!(
                "{}{}",
                match canvas {
                    Some(c) => format!(
                        "denoising step over a canvas of C = {c} tokens: b·C·(4·h + 3·i)·{act} B + fp32 logits b·C·V·(7·4 + {act})"
                    ),
                    None => format!("last decode step b·(4·h + 3·i)·{act} B + fp32 logits b·V·4"),
                },
                if inf.tuple_cache && growth > 0 {
                    " + the previous step's tuple cache"
                } else if growth > 0 {
                    " + one layer of cache growth"
                } else {
                    ""
                }
            ),
        )
    };
    GenerationStep {
        working,
        formula,
        per_step: prefill + logits + growth,
    }
}

/// A served VLM's vision tower forward over the batch's images, where
/// transformers runs it (engines profile their encoders their own way).
fn tower_forward(r: &Resolved) -> Option<(u128, String)> {
    let (v, sized) = (r.spec.vision.as_ref()?, r.images.as_ref()?);
    if r.inference.engine != Engine::Transformers {
        return None;
    }
    let (tokens, passes) = sized.tower_passes(v);
    let act = r.serving_dtype().bytes() as u128;
    Some(crate::activations::tower_forward_bytes(
        v,
        tokens,
        &passes,
        act,
        r.attention,
    ))
}

/// The working-set line and the dequantization buffers after the weights
/// (and cache) lines, and the totals: the peak holds weights, cache,
/// working set and buffers; the per-step churn adds the buffers.
fn finish(
    r: &Resolved,
    mut lines: Vec<Line>,
    weight_bytes: u128,
    kv: u128,
    (working, formula): (u128, String),
    per_step: u128,
    kv_per_token: u128,
) -> InferenceMemory {
    lines.push(Line::new(
        Part::Activations,
        working,
        formula,
        Counter::Allocated,
    ));
    lines.extend(dequant_buffer_line(r));
    lines.extend(crate::dequant::kernel_scratch_line(r));
    let scratch = crate::dequant::kernel_scratch(r).map_or(0, |(bytes, _)| bytes);
    let dequant = dequant_buffer_bytes(r);
    InferenceMemory {
        lines,
        cpu_lines: Vec::new(),
        serving: None,
        per_step: per_step + dequant,
        peak_allocated: weight_bytes + kv + working + dequant + scratch,
        kv_per_token,
    }
}

/// One forward pass of an encoder (BERT) under `torch.no_grad()`: nothing
/// is cached between layers, so the peak is the residual stream plus the
/// working set of one layer: q, k, v and the attention output, the MLP's
/// intermediate and its activation, and where eager attention builds them
/// the scores and their softmax, both in the activation dtype (BERT's
/// softmax runs in the input dtype: 2 × B per score).
fn encoder_forward_bytes(r: &Resolved) -> (u128, String) {
    let inf = r.inference;
    let (b, p) = (inf.batch as u128, inf.prompt_len as u128);
    let h = r.spec.hidden as u128;
    let i = r.spec.intermediate as u128 / r.shards.tp;
    let heads = (r.spec.heads as u128).div_ceil(r.shards.tp);
    let act = r.compute.bytes() as u128;
    let mut bytes = b * p * (6 * h + 2 * i) * act;
    let mut formula = format!(
        "encoder forward, no KV cache: b·p·(2·h residual + 4·h q, k, v, output + 2·i MLP)·{act} B"
    );
    if r.attention == Attention::Eager {
        bytes += 2 * act * b * heads * p * p;
        formula += &format!(" + 2·{act}·b·a·p² (eager scores and softmax)");
    }
    (bytes, formula)
}
