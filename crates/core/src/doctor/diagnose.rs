//! Findings drawn from an [`OomReport`]: each rule is a few lines with its
//! threshold and the reason for it, and writes its text in English and Chinese.

use super::remedies;
use super::report::{Diagnosis, OomFormat, OomReport};
use super::size::human_bytes as hb;
use super::stacks::{Framework, Memory};
use crate::decimal::Decimal;

/// Share of the card that live tensors alone may fill before we say the card
/// is too small for this run. Seed 003 (Q2) gives users' rule: above 90 % is
/// "危险" (dangerous), leaving no room for the per-step peaks.
const CARD_FULL_SHARE: f64 = 0.90;
/// Memory outside PyTorch above which something besides the CUDA context is on
/// the card. The context and its kernels alone measured 1,343 MB on a V100
/// (Hugging Face docs, groundtruth case hf-bert-v100-001); 2 GiB leaves margin.
const NON_PYTORCH_NORMAL_MAX: u64 = 2 << 30;
/// A failed request below this share of the card is an ordinary intermediate
/// tensor: the run was at the edge, not asking for one outsized block.
const SMALL_REQUEST_SHARE: f64 = 0.05;
/// Smallest request we test for attention or logits shapes: 64 MiB is one
/// 32-head fp16 score matrix at L = 1024 (32·1024²·2 B), below which these
/// tensors do not decide an OOM.
const SHAPE_MIN_BYTES: u64 = 64 << 20;
/// Head counts of common models: 12 (BERT-base, GPT-2), 16 (BERT-large),
/// 20 (GPT-2 large, Whisper large), 25 (GPT-2 XL), 28 (Qwen2-7B), 32
/// (LLaMA-7B, Mistral-7B), 40 (LLaMA-13B), 64 (LLaMA-65B/70B), per their
/// published config.json `num_attention_heads`.
const COMMON_HEADS: [u64; 8] = [32, 40, 64, 16, 12, 28, 20, 25];
/// Batch sizes tried: powers of two up to 64, the usual choices.
const COMMON_BATCHES: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];
/// Sequence lengths and token counts we test: a power of two or 1.5 times
/// one (512, 768, 1024, 1536, 2048, 3072, 4096 …), at least 512. Padded
/// lengths (`max_length`, `pad_to_multiple_of`) and batch sizes are such
/// numbers in practice; a finer grid would let a rounded request match some
/// shape by chance.
const MIN_LENGTH: u64 = 512;
/// Vocabularies (config.json `vocab_size`): 32000 LLaMA-1/2 and Mistral-7B,
/// 32064 Phi-3, 50257 GPT-2, 128256 Llama 3, 151936 Qwen2/2.5 small models,
/// 152064 Qwen2/2.5 7B and up, 256000 Gemma.
const VOCABS: [(u64, &str); 7] = [
    (32000, "LLaMA-2 / Mistral"),
    (32064, "Phi-3"),
    (50257, "GPT-2"),
    (128256, "Llama 3"),
    (151936, "Qwen2 (small)"),
    (152064, "Qwen2 (7B+)"),
    (256000, "Gemma"),
];

/// All findings for a report, most actionable first: what the numbers say,
/// then the stack's own remedies. An error that is not out of memory gets
/// only its explanation.
pub fn diagnose(report: &OomReport) -> Vec<Diagnosis> {
    if let Some(explained) = remedies::not_out_of_memory(report.error) {
        return vec![explained];
    }
    let mut found = Vec::new();
    if report.format == OomFormat::NoNumbers {
        // transformers' refusal of a CPU-offloaded quantized model is no allocator failure
        let refused_map = report.signature.is_some_and(|s| s.contains("dispatched"));
        if report.framework == Framework::Pytorch && report.memory == Memory::Gpu && !refused_map {
            found.push(no_numbers());
        }
        found.extend(remedies::for_stack(report));
        return found;
    }
    found.extend(shortfall(report));
    found.extend(segment_size(report));
    found.extend(request_exceeds_card(report));
    found.extend(fragmentation(report));
    // llama.cpp allocates whole buffers (weights, cache, compute), and the
    // servers' own checks (vLLM's and SGLang's KV pools, Ollama's
    // scheduler) size pools: none is one score matrix or logits tensor
    if !matches!(
        report.framework,
        Framework::LlamaCpp | Framework::Vllm | Framework::Sglang | Framework::Ollama
    ) {
        found.extend(attention_matrix(report));
        found.extend(logits(report));
    }
    found.extend(other_processes(report));
    found.extend(card_too_small(report));
    found.extend(near_limit_spike(report));
    found.extend(remedies::for_stack(report));
    found
}

fn d(code: &'static str, message: String, message_zh: String) -> Diagnosis {
    Diagnosis {
        code,
        message,
        message_zh,
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn no_numbers() -> Diagnosis {
    d(
        "no_numbers",
        "This out-of-memory error carries no numbers: it was raised outside PyTorch's caching \
         allocator (CUDA context creation, cuBLAS/cuDNN workspaces, NCCL). Usually another \
         process already holds the card: check nvidia-smi, or set CUDA_VISIBLE_DEVICES."
            .into(),
        "这条 OOM 报错没有数字：它发生在 PyTorch 缓存分配器之外（创建 CUDA 上下文、cuBLAS/cuDNN \
         工作区、NCCL）。通常是别的进程已占满显卡：用 nvidia-smi 查看，或设置 CUDA_VISIBLE_DEVICES。"
            .into(),
    )
}

fn shortfall(r: &OomReport) -> Option<Diagnosis> {
    let (requested, free) = (r.requested_bytes?, r.free_bytes?);
    let short = requested.checked_sub(free).filter(|s| *s > 0)?;
    Some(d(
        "shortfall",
        format!(
            "Asked for {}, only {} free on the card: short by {}.",
            hb(requested),
            hb(free),
            hb(short)
        ),
        format!(
            "申请 {}，显卡仅剩 {} 空闲：差 {}。",
            hb(requested),
            hb(free),
            hb(short)
        ),
    ))
}

/// PyTorch's caching allocator (`CUDACachingAllocator.cpp`) asks the driver
/// for whole segments: a request up to 1 MiB (kSmallSize) takes a 2 MiB
/// segment (kSmallBuffer), one below 10 MiB (kMinLargeAlloc) a 20 MiB segment
/// (kLargeBuffer), a larger one is rounded up to 2 MiB (kRoundLarge).
const SMALL_SIZE: u64 = 1 << 20;
const SMALL_BUFFER: u64 = 2 << 20;
const MIN_LARGE_ALLOC: u64 = 10 << 20;
const LARGE_BUFFER: u64 = 20 << 20;
const ROUND_LARGE: u64 = 2 << 20;

/// What the failed request needed from the device: PyTorch's segment for
/// its caching allocator's formats, the request itself for other stacks.
fn needed_from_device(r: &OomReport, requested: u64) -> u64 {
    if !matches!(r.format, OomFormat::Legacy | OomFormat::Modern) {
        return requested;
    }
    if requested <= SMALL_SIZE {
        SMALL_BUFFER
    } else if requested < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        requested.div_ceil(ROUND_LARGE).saturating_mul(ROUND_LARGE)
    }
}

/// The request fits in the free memory, yet failed: the allocator wanted a
/// whole segment, larger than what was free.
fn segment_size(r: &OomReport) -> Option<Diagnosis> {
    let (requested, free) = (r.requested_bytes?, r.free_bytes?);
    let segment = needed_from_device(r, requested);
    (requested <= free && free < segment).then(|| {
        d(
            "segment_size",
            format!(
                "The {} request fits in the {} free, but PyTorch's allocator asks CUDA for a whole \
                 segment of {} when its cache has no block to reuse: the card is full to within a segment.",
                hb(requested),
                hb(free),
                hb(segment)
            ),
            format!(
                "{} 的请求本可放进 {} 的空闲显存，但缓存中没有可复用的块时，PyTorch 分配器会向 CUDA 申请 {} 的整段：\
                 显卡已满到连一段都放不下。",
                hb(requested),
                hb(free),
                hb(segment)
            ),
        )
    })
}

fn request_exceeds_card(r: &OomReport) -> Option<Diagnosis> {
    let (requested, total) = (r.requested_bytes?, r.total_bytes?);
    (requested > total).then(|| {
        d(
            "request_exceeds_card",
            format!(
                "One tensor of {} is larger than the whole card ({}): no setting makes it fit; \
                 shrink that tensor (batch, sequence, vocabulary chunking) or shard it.",
                hb(requested),
                hb(total)
            ),
            format!(
                "单个张量 {} 超过整张卡（{}）：任何设置都放不下；需缩小该张量（batch、序列、词表分块）或切分。",
                hb(requested),
                hb(total)
            ),
        )
    })
}

/// The bytes exist on the card but not in one piece: free alone is too small,
/// free plus PyTorch's cached-but-unused bytes would be enough. Without a
/// request (memory_summary only) we use seed 004's rule of thumb: cache above
/// 20 % of reserved is fragmentation worth acting on.
fn fragmentation(r: &OomReport) -> Option<Diagnosis> {
    let cached = r.reserved_unallocated_bytes?;
    let fires = match (r.requested_bytes, r.free_bytes) {
        (Some(requested), Some(free)) => {
            free < needed_from_device(r, requested) && requested <= free.saturating_add(cached)
        }
        (Some(requested), None) => cached >= requested,
        (None, _) => share(cached, r.reserved_bytes?) > 0.20,
    };
    if !fires || cached == 0 {
        return None;
    }
    let versus = r
        .requested_bytes
        .map(|q| format!(" (with the free memory, enough for the {} request),", hb(q)))
        .unwrap_or_default();
    let versus_zh = r
        .requested_bytes
        .map(|q| format!("（加上空闲显存足够满足 {} 的请求）", hb(q)))
        .unwrap_or_default();
    Some(d(
        "fragmentation",
        format!(
            "{} is reserved by PyTorch but unallocated{versus} yet no free block was large enough: \
             the cache is fragmented. PyTorch already released whole unused segments before raising, \
             so empty_cache() will not help. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
            hb(cached)
        ),
        format!(
            "PyTorch 预留但未分配 {}{versus_zh}，却没有足够大的连续空闲块：显存碎片化。报错前 PyTorch \
             已释放整块空闲段，empty_cache() 无济于事。请设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True。",
            hb(cached)
        ),
    ))
}

/// Is `product` within `request ± rounding`?
fn matches(product: u128, request: u64, rounding: u64) -> bool {
    let (lo, hi) = (
        request.saturating_sub(rounding) as u128,
        request.saturating_add(rounding) as u128,
    );
    (lo..=hi).contains(&product)
}

/// The round length (see MIN_LENGTH) nearest to `value`, if at least MIN_LENGTH.
fn nearest_round_length(value: f64) -> Option<u64> {
    if !(value.is_finite() && value >= MIN_LENGTH as f64 / 2.0) {
        return None;
    }
    let power = 2f64.powi(value.log2().floor() as i32);
    let nearest = [power, 1.5 * power, 2.0 * power]
        .into_iter()
        .min_by(|a, b| (a - value).abs().total_cmp(&(b - value).abs()))?;
    Some(nearest as u64).filter(|length| *length >= MIN_LENGTH)
}

fn dtype_name(element_bytes: u64) -> &'static str {
    if element_bytes == 2 {
        "fp16/bf16"
    } else {
        "fp32"
    }
}

/// The request equals batch × heads × L × L × (2 or 4) bytes for a common
/// head count and L on the sequence grid: an eager attention score matrix.
fn attention_matrix(r: &OomReport) -> Option<Diagnosis> {
    let requested = r.requested_bytes.filter(|q| *q >= SHAPE_MIN_BYTES)?;
    let rounding = r.requested_rounding_bytes.unwrap_or(0);
    let mut shapes = Vec::new();
    for batch in COMMON_BATCHES {
        for element_bytes in [2u64, 4] {
            for heads in COMMON_HEADS {
                let per_square = (batch * heads * element_bytes) as f64;
                let Some(length) = nearest_round_length((requested as f64 / per_square).sqrt())
                else {
                    continue;
                };
                let product =
                    (batch * heads * element_bytes) as u128 * (length as u128) * (length as u128);
                if matches(product, requested, rounding) {
                    shapes.push((batch, heads, length, element_bytes));
                }
            }
        }
    }
    if shapes.is_empty() {
        return None;
    }
    let listed = |zh: bool| {
        first_shapes(&shapes, zh, |(b, h, l, e)| {
            if zh {
                format!("batch {b} × {h} 头 × L={l}（{}）", dtype_name(*e))
            } else {
                format!("batch {b} × {h} heads × L={l} ({})", dtype_name(*e))
            }
        })
    };
    Some(d(
        "attention_matrix",
        format!(
            "{} = batch × heads × L × L × bytes for {}: it looks like an eager attention score \
             matrix. Use attn_implementation=\"sdpa\" or \"flash_attention_2\", which never builds it.",
            hb(requested),
            listed(false)
        ),
        format!(
            "{} 恰好等于 batch × 头数 × L × L × 字节数，例如 {}：很像 eager 注意力的分数矩阵。\
             改用 attn_implementation=\"sdpa\" 或 \"flash_attention_2\"，它们不会构造该矩阵。",
            hb(requested),
            listed(true)
        ),
    ))
}

/// The request equals tokens × vocabulary × (4 or 2) bytes for a common
/// vocabulary: the LM-head logits (Hugging Face upcasts them to fp32).
fn logits(r: &OomReport) -> Option<Diagnosis> {
    let requested = r.requested_bytes.filter(|q| *q >= SHAPE_MIN_BYTES)?;
    let rounding = r.requested_rounding_bytes.unwrap_or(0);
    let mut shapes = Vec::new();
    for element_bytes in [4u64, 2] {
        for (vocab, family) in VOCABS {
            let Some(tokens) =
                nearest_round_length(requested as f64 / (vocab * element_bytes) as f64)
            else {
                continue;
            };
            if matches(
                tokens as u128 * vocab as u128 * element_bytes as u128,
                requested,
                rounding,
            ) {
                shapes.push((tokens, vocab, family, element_bytes));
            }
        }
    }
    if shapes.is_empty() {
        return None;
    }
    let listed = |zh: bool| {
        first_shapes(&shapes, zh, |(tokens, vocab, family, e)| {
            if zh {
                format!(
                    "{tokens} 个 token × 词表 {vocab}（{family}）× {e} 字节（{}）",
                    dtype_name(*e)
                )
            } else {
                format!(
                    "{tokens} tokens × vocabulary {vocab} ({family}) × {e} bytes ({})",
                    dtype_name(*e)
                )
            }
        })
    };
    Some(d(
        "logits",
        format!(
            "{} = {}: the size of the output logits (tokens = batch × sequence). Lower batch × sequence, \
             or compute the loss in chunks (a fused/chunked cross-entropy) so the full logits never exist at once.",
            hb(requested),
            listed(false)
        ),
        format!(
            "{} = {}：正是输出 logits 的大小（token 数 = batch × 序列长度）。减小 batch × 序列长度，\
             或分块计算损失（融合/分块交叉熵），避免一次性生成完整 logits。",
            hb(requested),
            listed(true)
        ),
    ))
}

fn other_processes(r: &OomReport) -> Option<Diagnosis> {
    let others = r
        .other_processes_bytes
        .filter(|_| r.format == OomFormat::Modern)
        .unwrap_or(0);
    let outside = r.non_pytorch_bytes.unwrap_or(0);
    if others < NON_PYTORCH_NORMAL_MAX && outside < NON_PYTORCH_NORMAL_MAX {
        return None;
    }
    let (what, what_zh) = if others >= NON_PYTORCH_NORMAL_MAX {
        (
            format!("Other processes hold {} of this card", hb(others)),
            format!("其他进程占用了这张卡 {}", hb(others)),
        )
    } else {
        (
            format!("{} is used outside PyTorch's allocator", hb(outside)),
            format!("PyTorch 分配器之外占用了 {}", hb(outside)),
        )
    };
    Some(d(
        "other_processes",
        format!(
            "{what}; a CUDA context alone takes about 1.3 GiB at most. Look for other jobs or \
             notebooks on the card (nvidia-smi), NCCL buffers, or another framework (TensorFlow, JAX, \
             vLLM) preallocating. In containers this process may appear as \"Process N\"."
        ),
        format!(
            "{what_zh}；单个 CUDA 上下文最多约 1.3 GiB。检查卡上其他任务或 notebook（nvidia-smi）、\
             NCCL 缓冲区、或其他框架（TensorFlow、JAX、vLLM）预分配。容器内本进程可能显示为 \"Process N\"。"
        ),
    ))
}

fn card_too_small(r: &OomReport) -> Option<Diagnosis> {
    let (allocated, total) = (r.allocated_bytes?, r.total_bytes?);
    let used = share(allocated, total);
    (used >= CARD_FULL_SHARE).then(|| {
        d(
            "card_too_small",
            format!(
                "Live tensors alone hold {} = {:.0}% of the {} card: allocator settings cannot help. \
                 Reduce what the run keeps: smaller batch or sequence, gradient checkpointing, \
                 bf16/8-bit optimizer states, LoRA, or sharding (FSDP/ZeRO) across GPUs.",
                hb(allocated),
                Decimal(used * 100.0),
                hb(total)
            ),
            format!(
                "仅存活张量就占 {}，为 {} 显卡的 {:.0}%：调分配器参数无用。需要减少占用：减小 batch 或序列长度、\
                 梯度检查点、bf16/8-bit 优化器状态、LoRA，或多卡切分（FSDP/ZeRO）。",
                hb(allocated),
                hb(total),
                Decimal(used * 100.0)
            ),
        )
    })
}

fn near_limit_spike(r: &OomReport) -> Option<Diagnosis> {
    let (requested, total, free) = (r.requested_bytes?, r.total_bytes?, r.free_bytes?);
    let needed = needed_from_device(r, requested);
    if share(requested, total) >= SMALL_REQUEST_SHARE || free >= needed {
        return None;
    }
    Some(d(
        "near_limit_spike",
        format!(
            "The failing request ({}) is small, {:.2}% of the card: the run sat at the limit and an \
             ordinary step-to-step peak tipped it over. Free a little more than {} (e.g. a slightly \
             smaller batch) to leave headroom.",
            hb(requested),
            Decimal(share(requested, total) * 100.0),
            hb(needed - free)
        ),
        format!(
            "失败的请求（{}）很小，只占显卡 {:.2}%：训练本就贴着上限，一次普通的峰值就触发了 OOM。\
             多腾出略超过 {} 的显存（如稍减 batch）以留余量。",
            hb(requested),
            Decimal(share(requested, total) * 100.0),
            hb(needed - free)
        ),
    ))
}

/// The first three candidate shapes a request matches, described by
/// `describe` and joined with the language's list separator.
fn first_shapes<T>(shapes: &[T], zh: bool, describe: impl Fn(&T) -> String) -> String {
    shapes
        .iter()
        .take(3)
        .map(describe)
        .collect::<Vec<_>>()
        .join(if zh { "；" } else { "; " })
}
