//! Number formats: how many bytes a weight, a gradient or a cached value takes.

use serde::{Deserialize, Serialize};

/// Plain floating-point and integer element types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtype {
    Fp32,
    Fp16,
    Bf16,
    Fp8,
    Int8,
}

impl Dtype {
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::Fp32 => 4,
            Dtype::Fp16 | Dtype::Bf16 => 2,
            Dtype::Fp8 | Dtype::Int8 => 1,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
        }
    }
}

/// How the weights are stored on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightFormat {
    Fp32,
    Fp16,
    Bf16,
    Fp8,
    /// bitsandbytes LLM.int8(): int8 weights with an fp32 scale per output row.
    Int8,
    /// bitsandbytes NF4 (QLoRA), 64-element blocks.
    Nf4,
    /// bitsandbytes FP4, 64-element blocks.
    Fp4,
    /// GPTQ 4-bit with a group size.
    Gptq4,
    /// AWQ 4-bit with a group size.
    Awq4,
    /// OCP MXFP4: 4-bit values, one 8-bit exponent per 32 (gpt-oss experts).
    Mxfp4,
    /// GGUF block formats (llama.cpp).
    GgufQ8_0,
    GgufQ6K,
    GgufQ5KM,
    GgufQ4KM,
    GgufQ4_0,
    GgufQ3KM,
    GgufQ2K,
}

impl WeightFormat {
    pub const ALL: [WeightFormat; 17] = [
        WeightFormat::Fp32,
        WeightFormat::Fp16,
        WeightFormat::Bf16,
        WeightFormat::Fp8,
        WeightFormat::Int8,
        WeightFormat::Nf4,
        WeightFormat::Fp4,
        WeightFormat::Gptq4,
        WeightFormat::Awq4,
        WeightFormat::Mxfp4,
        WeightFormat::GgufQ8_0,
        WeightFormat::GgufQ6K,
        WeightFormat::GgufQ5KM,
        WeightFormat::GgufQ4KM,
        WeightFormat::GgufQ4_0,
        WeightFormat::GgufQ3KM,
        WeightFormat::GgufQ2K,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WeightFormat::Fp32 => "fp32",
            WeightFormat::Fp16 => "fp16",
            WeightFormat::Bf16 => "bf16",
            WeightFormat::Fp8 => "fp8",
            WeightFormat::Int8 => "int8",
            WeightFormat::Nf4 => "nf4",
            WeightFormat::Fp4 => "fp4",
            WeightFormat::Gptq4 => "gptq4",
            WeightFormat::Awq4 => "awq4",
            WeightFormat::Mxfp4 => "mxfp4",
            WeightFormat::GgufQ8_0 => "gguf_q8_0",
            WeightFormat::GgufQ6K => "gguf_q6_k",
            WeightFormat::GgufQ5KM => "gguf_q5_k_m",
            WeightFormat::GgufQ4KM => "gguf_q4_k_m",
            WeightFormat::GgufQ4_0 => "gguf_q4_0",
            WeightFormat::GgufQ3KM => "gguf_q3_k_m",
            WeightFormat::GgufQ2K => "gguf_q2_k",
        }
    }

    pub fn parse(s: &str) -> Option<WeightFormat> {
        let s = s.trim().to_ascii_lowercase().replace('-', "_");
        Self::ALL.into_iter().find(|f| f.name() == s).or(match s.as_str() {
            "float32" => Some(WeightFormat::Fp32),
            "float16" | "half" => Some(WeightFormat::Fp16),
            "bfloat16" => Some(WeightFormat::Bf16),
            "q8_0" => Some(WeightFormat::GgufQ8_0),
            "q6_k" => Some(WeightFormat::GgufQ6K),
            "q5_k_m" => Some(WeightFormat::GgufQ5KM),
            "q4_k_m" => Some(WeightFormat::GgufQ4KM),
            "q4_0" => Some(WeightFormat::GgufQ4_0),
            "q3_k_m" => Some(WeightFormat::GgufQ3KM),
            "q2_k" => Some(WeightFormat::GgufQ2K),
            "gptq" => Some(WeightFormat::Gptq4),
            "awq" => Some(WeightFormat::Awq4),
            _ => None,
        })
    }

    /// Plain 16/32-bit formats: every parameter stored the same way.
    pub fn plain_dtype(self) -> Option<Dtype> {
        match self {
            WeightFormat::Fp32 => Some(Dtype::Fp32),
            WeightFormat::Fp16 => Some(Dtype::Fp16),
            WeightFormat::Bf16 => Some(Dtype::Bf16),
            _ => None,
        }
    }

    pub fn is_quantized(self) -> bool {
        self.plain_dtype().is_none()
    }

    pub fn is_gguf(self) -> bool {
        matches!(
            self,
            WeightFormat::GgufQ8_0
                | WeightFormat::GgufQ6K
                | WeightFormat::GgufQ5KM
                | WeightFormat::GgufQ4KM
                | WeightFormat::GgufQ4_0
                | WeightFormat::GgufQ3KM
                | WeightFormat::GgufQ2K
        )
    }

    /// Storage of a quantized linear weight, in bits per weight times 1/1024
    /// (integer arithmetic, exact for the block formats), with where it comes from.
    ///
    /// `group_size` applies to GPTQ/AWQ (default 128); `double_quant` to NF4/FP4.
    pub fn millibits_per_weight(self, group_size: u64, double_quant: bool) -> (u64, &'static str) {
        let g = group_size.max(1);
        match self {
            WeightFormat::Fp32 => (32 * 1024, "32-bit float"),
            WeightFormat::Fp16 | WeightFormat::Bf16 => (16 * 1024, "16-bit float"),
            // FP8 checkpoints (e.g. compressed-tensors fp8-dynamic) keep one fp32
            // scale per output channel: negligible next to 8 bits/weight.
            WeightFormat::Fp8 => (8 * 1024, "8-bit float, per-channel scales"),
            // LLM.int8(): int8 weights + fp32 row scale (SCB): ~8 bits/weight.
            WeightFormat::Int8 => (8 * 1024, "bitsandbytes LLM.int8: 8 bits + fp32 scale per row"),
            // bitsandbytes 4-bit: 4 bits + one fp32 absmax per 64 weights (4 + 32/64
            // = 4.5 bits); double quantization stores the absmax in 8 bits with an
            // fp32 scale per 256 blocks (4 + 8/64 + 32/(64*256) = 4.127 bits).
            // Source: QLoRA paper (Dettmers et al. 2023) section 3.
            WeightFormat::Nf4 | WeightFormat::Fp4 => {
                if double_quant {
                    (4 * 1024 + 128 + 2, "4 bits + 8-bit absmax per 64 + fp32 per 16384 (double quant)")
                } else {
                    (4 * 1024 + 512, "4 bits + fp32 absmax per 64")
                }
            }
            // GPTQ: 4-bit weights, an fp16 scale and a packed 4-bit zero per group
            // (AutoGPTQ / compressed-tensors w4a16 layout).
            WeightFormat::Gptq4 | WeightFormat::Awq4 => (
                4 * 1024 + (16 + 4) * 1024 / g,
                "4 bits + fp16 scale and 4-bit zero per group",
            ),
            // MXFP4: 4-bit E2M1 values + one 8-bit E8M0 scale per 32 (OCP MX spec v1.0).
            WeightFormat::Mxfp4 => (4 * 1024 + 8 * 1024 / 32, "4 bits + 8-bit scale per 32 (OCP MX v1.0)"),
            // GGUF block sizes from ggml-common.h: Q8_0 34 B/32 w, Q6_K 210 B/256 w,
            // Q4_0 18 B/32 w, Q2_K 84 B/256 w. The *_K_M mixes keep some tensors at a
            // higher type; the averages are llama.cpp's quantize table (bits per weight):
            // Q5_K_M 5.67, Q4_K_M 4.83, Q3_K_M 3.89.
            WeightFormat::GgufQ8_0 => (34 * 8 * 1024 / 32, "GGUF Q8_0: 34 bytes per 32 weights"),
            WeightFormat::GgufQ6K => (210 * 8 * 1024 / 256, "GGUF Q6_K: 210 bytes per 256 weights"),
            WeightFormat::GgufQ5KM => (5806, "GGUF Q5_K_M: 5.67 bits/weight average"),
            WeightFormat::GgufQ4KM => (4946, "GGUF Q4_K_M: 4.83 bits/weight average"),
            WeightFormat::GgufQ4_0 => (18 * 8 * 1024 / 32, "GGUF Q4_0: 18 bytes per 32 weights"),
            WeightFormat::GgufQ3KM => (3983, "GGUF Q3_K_M: 3.89 bits/weight average"),
            WeightFormat::GgufQ2K => (84 * 8 * 1024 / 256, "GGUF Q2_K: 84 bytes per 256 weights"),
        }
    }

    /// dtype of the tensors the format leaves unquantized (embeddings, norms).
    pub fn unquantized_dtype(self, compute: Dtype) -> Dtype {
        self.plain_dtype().unwrap_or(compute)
    }
}

/// How a training run keeps its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainingPrecision {
    /// Weights, gradients and activations all 16-bit (litgpt `bf16-true`,
    /// torchtune); no fp32 master copy.
    Pure16,
    /// Automatic mixed precision: fp32 weights (the master copy), 16-bit
    /// compute (HF Trainer `fp16=True`/`bf16=True`).
    Amp,
    /// Everything fp32.
    Fp32,
}
