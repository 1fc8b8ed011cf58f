//! Bytes of the weights as stored, for every format.

use crate::decimal::Decimal;
use crate::model::{ModelSpec, ParamCounts};
use crate::precision::{Dtype, WeightFormat};
use crate::scenario::{Engine, Framework, KbitPrep, LoraTarget, Method, Scenario, TaskKind};

/// Weight storage split into what is quantized and what stays 16/32-bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightBytes {
    pub total: u128,
    pub quantized_params: u128,
    pub plain_params: u128,
    /// Largest single quantized linear, in elements (for dequantization buffers).
    pub largest_quantized_linear: u128,
    pub formula: String,
}

/// Which linears a 4/8-bit format replaces, by framework:
/// * litgpt's bitsandbytes plugin replaces every `nn.Linear`, lm_head included
///   (groundtruth caveat of litgpt-res-031);
/// * transformers/PEFT bitsandbytes skip the output head (`llm_int8_skip_modules`);
/// * torchtune QLoRA quantizes only the LoRA-wrapped linears (caveat of case 115);
/// * vLLM/GPTQ/AWQ/FP8 checkpoints quantize the block linears, not the head;
/// * gpt-oss MXFP4 checkpoints quantize only the MoE experts.
pub fn weight_bytes(spec: &ModelSpec, counts: &ParamCounts, sc: &Scenario) -> WeightBytes {
    let format = sc.effective_weights();
    let total_params = counts.total as u128;
    let mut plain_dtype = format.unquantized_dtype(sc.compute_dtype);
    if sc.kbit_prep_in_effect() == KbitPrep::Fp32 {
        // PEFT's prepare_model_for_kbit_training casts every parameter that is
        // not 4-bit to fp32 (measured: Llama-3-8B dims start 1.99 GiB higher).
        plain_dtype = Dtype::Fp32;
    }
    let (kept, kept_text) = kept_in_fp32(spec, sc, plain_dtype);
    if let Some(d) = format.plain_dtype() {
        let (kept, kept_text) = kept_in_fp32(spec, sc, d);
        return WeightBytes {
            total: total_params * d.bytes() as u128 + kept,
            quantized_params: 0,
            plain_params: total_params,
            largest_quantized_linear: 0,
            formula: format!(
                "{} params × {} B ({}){kept_text}",
                counts.total,
                d.bytes(),
                d.name()
            ),
        };
    }
    let layers = &counts.layers;
    let per_layer = |x: u64| (x as u128) / (spec.layers.max(1) as u128);
    // torchtune quantizes only its LoRA targets; other frameworks every linear.
    let targets = quantized_targets(sc);
    let stored_quantized = |target: &LoraTarget| targets.is_none_or(|t| t.contains(target));
    let matrices = block_matrices(layers);
    let mut quantized: u128 = match (format, targets) {
        (WeightFormat::Mxfp4, _) => (layers.gate + layers.up + layers.down) as u128,
        (_, None) => layers.linear() as u128,
        (_, Some(_)) => matrices
            .iter()
            .filter(|(target, _)| stored_quantized(target))
            .map(|&(_, n)| n as u128)
            .sum(),
    };
    let mut largest = matrices
        .iter()
        .filter(|(target, _)| stored_quantized(target))
        .map(|&(_, n)| per_layer(n))
        .max()
        .unwrap_or(0);
    if let Some(moe) = &spec.moe {
        largest /= (moe.experts.max(1) as u128).min(largest.max(1));
    }
    let head_quantized = sc.task == TaskKind::Training
        && sc.training.framework == Framework::Litgpt
        || (sc.task == TaskKind::Inference && sc.inference.engine == Engine::Litgpt);
    let head_quantized = head_quantized
        && matches!(
            format,
            WeightFormat::Nf4 | WeightFormat::Fp4 | WeightFormat::Int8
        );
    // GGUF files quantize the output head and embeddings too (llama.cpp keeps
    // them at Q6_K/Q8_0 in the _K_M mixes; we charge them the file's average).
    let gguf = format.is_gguf();
    if head_quantized || gguf {
        quantized += counts.lm_head as u128;
        largest = largest.max(counts.lm_head as u128);
    }
    if gguf {
        quantized += counts.embedding as u128;
    }
    let quantized = quantized.min(total_params);
    let plain = total_params - quantized;
    let (millibits, why) = format.millibits_per_weight(sc.group_size, sc.double_quant);
    let mut q_bytes = quantized * millibits as u128 / (8 * 1024);
    // vLLM's MXFP4 MoE kernels on Hopper pad expert widths to a multiple of 256
    // (vLLM `mxfp4` layer: hidden and intermediate rounded up for the Triton /
    // Marlin kernels); gpt-oss 2880 → 3072 (vllm-llmd-193 weights match only with it).
    if format == WeightFormat::Mxfp4 && sc.inference.engine == Engine::Vllm {
        if let Some(moe) = &spec.moe {
            let pad = |x: u64| x.div_ceil(256) * 256;
            let num = (pad(spec.hidden) * pad(moe.expert_intermediate)) as u128;
            let den = (spec.hidden * moe.expert_intermediate).max(1) as u128;
            q_bytes = q_bytes * num / den;
        }
    }
    let plain_bytes = plain * plain_dtype.bytes() as u128 + kept;
    WeightBytes {
        total: q_bytes + plain_bytes,
        quantized_params: quantized,
        plain_params: plain,
        largest_quantized_linear: largest,
        formula: format!(
            "{quantized} quantized params × {:.3} bits ({}: {why}) + {plain} params × {} B ({}){kept_text}",
            Decimal(millibits as f64 / 1024.0),
            format.name(),
            plain_dtype.bytes(),
            plain_dtype.name()
        ),
    }
}

/// The bytes beyond `dtype` of the parameters transformers keeps in fp32
/// (`_keep_in_fp32_modules_strict`) when it loads the model in 16 bits:
/// where transformers loads it (its inference, the Hugging Face stack's
/// training), not vLLM's or the other engines' own loaders.
fn kept_in_fp32(spec: &ModelSpec, sc: &Scenario, dtype: Dtype) -> (u128, String) {
    let loader = match sc.task {
        TaskKind::Inference => sc.inference.engine == Engine::Transformers,
        TaskKind::Training => sc.training.framework.is_hugging_face(),
    };
    if spec.fp32_params == 0 || dtype.bytes() != 2 || !loader {
        return (0, String::new());
    }
    (
        u128::from(spec.fp32_params) * 2,
        format!(" + {} params kept in fp32 × 2 B", spec.fp32_params),
    )
}

/// A block's projections in build order (attention, then the MLP), with
/// their parameter totals over all layers.
pub fn block_matrices(layers: &crate::model::LayerParams) -> [(LoraTarget, u64); 7] {
    [
        (LoraTarget::Q, layers.q),
        (LoraTarget::K, layers.k),
        (LoraTarget::V, layers.v),
        (LoraTarget::O, layers.o),
        (LoraTarget::Gate, layers.gate),
        (LoraTarget::Up, layers.up),
        (LoraTarget::Down, layers.down),
    ]
}

/// The linears torchtune quantizes (its LoRA targets); `None`: every linear.
pub fn quantized_targets(sc: &Scenario) -> Option<&[LoraTarget]> {
    (sc.task == TaskKind::Training
        && sc.training.framework == Framework::Torchtune
        && matches!(sc.training.method, Method::Qlora | Method::Lora))
    .then_some(sc.training.lora.targets.as_slice())
}
