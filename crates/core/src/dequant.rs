//! Dequantization buffers: bitsandbytes 4-bit matmuls dequantize a whole
//! weight to 16-bit; litgpt nf4 peaks show two such buffers of the largest
//! linear alive (phi-1.5, stablelm-3b, Llama-2-7B, CodeLlama-34B, Falcon-40B
//! inference within 3%). Training and serving both hold them.

use crate::precision::WeightFormat;
use crate::report::{Counter, Line, Part};
use crate::resolved::Resolved;

/// Bytes of the buffers alive at the peak; 0 for formats without them.
pub fn dequant_buffer_bytes(r: &Resolved) -> u128 {
    if matches!(r.format, WeightFormat::Nf4 | WeightFormat::Fp4) {
        2 * r.weights.largest_quantized_linear * r.compute.bytes() as u128
    } else {
        0
    }
}

/// The dequantization-buffer line, when the format has one.
pub fn dequant_buffer_line(r: &Resolved) -> Option<Line> {
    let bytes = dequant_buffer_bytes(r);
    (bytes > 0).then(|| {
        Line::new(
            Part::QuantBuffers,
            bytes,
            format!(
                "2 × {} elements (largest linear) × {} B",
                r.weights.largest_quantized_linear,
                r.compute.bytes()
            ),
            Counter::Allocated,
        )
    })
}

/// The scratch a GPTQ/AWQ kernel keeps on the GPU once the model is
/// loaded, with its formula; `None` for other formats, engines and kernels.
///
/// * exllama (v1; auto-gptq `exllama_post_init`, optimum): one fp16
///   `temp_dq` buffer as large as the largest quantized weight
///   (`qweight.numel() × 8` elements); the act-order `temp_state` is one
///   column wide without `desc_act`.
/// * exllama v2 (auto-gptq / gptqmodel / AutoAWQ `exllamav2_post_init`):
///   one buffer per GPU of the largest `scratch_space_fixed()`, which is
///   `temp_dq_size` (in × out × 2 B + 128) plus `temp_fwd_size`
///   (out × max_input_len 2048 × max_batch_size 8 × 4 B + 128).
/// * Marlin (auto-gptq `QuantLinear`): each linear's int32 lock workspace
///   of out / 128 × 16 entries.
pub fn kernel_scratch(r: &Resolved) -> Option<(u128, String)> {
    use crate::scenario::{Engine, QuantKernel};
    if r.is_training() || r.inference.engine != Engine::Transformers {
        return None;
    }
    let kernel = match (r.format, r.inference.quant_kernel) {
        (WeightFormat::Gptq4, QuantKernel::Auto) => QuantKernel::Exllama,
        (WeightFormat::Gptq4 | WeightFormat::Awq4, k) => k,
        _ => return None,
    };
    let s = r.spec;
    let (h, qd, kvd) = (
        u128::from(s.hidden),
        u128::from(s.heads * s.head_dim()),
        u128::from(s.kv_heads * s.head_dim()),
    );
    let i = u128::from(
        s.moe
            .as_ref()
            .map_or(s.intermediate, |m| m.expert_intermediate),
    );
    // (in, out) of each quantized linear of a layer; the head stays 16-bit.
    let linears = [(h, qd), (h, kvd), (qd, h), (h, i), (i, h)];
    match kernel {
        QuantKernel::Exllama => {
            let largest = linears.iter().map(|(a, b)| a * b).max().unwrap_or(0);
            Some((
                2 * largest,
                format!(
                    "exllama temp_dq: the largest quantized weight {largest} elements × 2 B (fp16)"
                ),
            ))
        }
        QuantKernel::ExllamaV2 => {
            const MAX_INPUT_LEN: u128 = 2048;
            const MAX_BATCH: u128 = 8;
            let fixed = |(a, b): &(u128, u128)| {
                (a * b * 2 + 128) + (b * MAX_INPUT_LEN * MAX_BATCH * 4 + 128)
            };
            let (a, b) = linears.iter().copied().max_by_key(fixed).unwrap_or((0, 0));
            Some((
                fixed(&(a, b)),
                format!("exllama v2 scratch: the largest in × out × 2 + out × 2048 × 8 × 4 (+256) = {a} × {b} × 2 + {b} × 65536"),
            ))
        }
        QuantKernel::Marlin => {
            let per_layer: u128 = [qd, kvd, kvd, h, i, i, h]
                .iter()
                .map(|out| out / 128 * 16 * 4)
                .sum();
            let layers = u128::from(s.layers);
            Some((
                per_layer * layers,
                format!("Marlin workspaces: out / 128 × 16 int32 per linear, {per_layer} B × {layers} layers"),
            ))
        }
        QuantKernel::Auto | QuantKernel::None => None,
    }
}

/// The kernel-scratch line, when the kernel keeps one.
pub fn kernel_scratch_line(r: &Resolved) -> Option<Line> {
    kernel_scratch(r)
        .map(|(bytes, formula)| Line::new(Part::QuantBuffers, bytes, formula, Counter::Allocated))
}
