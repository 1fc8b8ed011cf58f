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
