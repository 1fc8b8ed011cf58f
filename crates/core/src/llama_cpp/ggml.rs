//! GGML tensor types by their block layouts: elements per block and bytes
//! per block, as `type_traits` in ggml's `ggml.c` declares them (the block
//! structs and their `static_assert`s in `ggml-common.h`; `QK_K` = 256).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GgmlType {
    F32,
    F16,
    Bf16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Mxfp4,
    Q2K,
    Q3K,
    Q4K,
    Q5K,
    Q6K,
    Iq1S,
    Iq1M,
    Iq2Xxs,
    Iq2Xs,
    Iq2S,
    Iq3Xxs,
    Iq3S,
    Iq4Nl,
    Iq4Xs,
}

impl GgmlType {
    /// (elements per block, bytes per block).
    pub fn block(self) -> (u64, u64) {
        use GgmlType::*;
        match self {
            F32 => (1, 4),
            F16 | Bf16 => (1, 2),
            // half scale + 32 nibbles; + half min; + 32 high bits ...
            Q4_0 => (32, 18),
            Q4_1 => (32, 20),
            Q5_0 => (32, 22),
            Q5_1 => (32, 24),
            Q8_0 => (32, 34),
            // one E8M0 exponent + 32 FP4 values
            Mxfp4 => (32, 17),
            Q2K => (256, 84),
            Q3K => (256, 110),
            Q4K => (256, 144),
            Q5K => (256, 176),
            Q6K => (256, 210),
            Iq1S => (256, 50),
            Iq1M => (256, 56),
            Iq2Xxs => (256, 66),
            Iq2Xs => (256, 74),
            Iq2S => (256, 82),
            Iq3Xxs => (256, 98),
            Iq3S => (256, 110),
            Iq4Nl => (32, 18),
            Iq4Xs => (256, 136),
        }
    }

    /// The name llama.cpp prints (`q4_K`, `f16`).
    pub fn name(self) -> &'static str {
        use GgmlType::*;
        match self {
            F32 => "f32",
            F16 => "f16",
            Bf16 => "bf16",
            Q4_0 => "q4_0",
            Q4_1 => "q4_1",
            Q5_0 => "q5_0",
            Q5_1 => "q5_1",
            Q8_0 => "q8_0",
            Mxfp4 => "mxfp4",
            Q2K => "q2_K",
            Q3K => "q3_K",
            Q4K => "q4_K",
            Q5K => "q5_K",
            Q6K => "q6_K",
            Iq1S => "iq1_s",
            Iq1M => "iq1_m",
            Iq2Xxs => "iq2_xxs",
            Iq2Xs => "iq2_xs",
            Iq2S => "iq2_s",
            Iq3Xxs => "iq3_xxs",
            Iq3S => "iq3_s",
            Iq4Nl => "iq4_nl",
            Iq4Xs => "iq4_xs",
        }
    }

    /// Bytes of a row of `ne0` elements (`ggml_row_size`); `None` when the
    /// row is not whole blocks, which the type cannot hold.
    pub fn row_bytes(self, ne0: u64) -> Option<u64> {
        let (elements, bytes) = self.block();
        ne0.is_multiple_of(elements).then(|| ne0 / elements * bytes)
    }

    /// Bytes of `rows` rows of `ne0` elements, rounding a partial block up
    /// (only reached for types the recipe's fallback already ruled out).
    pub fn tensor_bytes(self, ne0: u64, rows: u64) -> u128 {
        let (elements, bytes) = self.block();
        ne0.div_ceil(elements) as u128 * bytes as u128 * rows as u128
    }

    /// The KV-cache types llama.cpp takes for `-ctk`/`-ctv`.
    pub fn parse_cache(text: &str) -> Option<GgmlType> {
        match text.trim().to_ascii_lowercase().as_str() {
            "f32" => Some(GgmlType::F32),
            "f16" => Some(GgmlType::F16),
            "bf16" => Some(GgmlType::Bf16),
            "q8_0" => Some(GgmlType::Q8_0),
            "q4_0" => Some(GgmlType::Q4_0),
            "q4_1" => Some(GgmlType::Q4_1),
            "q5_0" => Some(GgmlType::Q5_0),
            "q5_1" => Some(GgmlType::Q5_1),
            "iq4_nl" => Some(GgmlType::Iq4Nl),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_per_weight_are_the_published_ones() {
        let bpw = |t: GgmlType| {
            let (e, b) = t.block();
            8.0 * b as f64 / e as f64
        };
        assert_eq!(bpw(GgmlType::Q4K), 4.5);
        assert_eq!(bpw(GgmlType::Q6K), 6.5625);
        assert_eq!(bpw(GgmlType::Q8_0), 8.5);
        assert_eq!(bpw(GgmlType::Q2K), 2.625);
        assert_eq!(bpw(GgmlType::Iq4Xs), 4.25);
        assert_eq!(bpw(GgmlType::Mxfp4), 4.25);
    }

    #[test]
    fn rows_are_whole_blocks() {
        assert_eq!(GgmlType::Q4K.row_bytes(4096), Some(16 * 144));
        assert_eq!(GgmlType::Q4K.row_bytes(2880), None);
        assert_eq!(GgmlType::Q5_0.row_bytes(2880), Some(90 * 22));
    }
}
