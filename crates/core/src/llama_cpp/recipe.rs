//! The tensor types a GGUF quantization recipe (`llama-quantize`'s file
//! types) gives each tensor: `llama_tensor_get_type` in llama.cpp's
//! `src/llama-quant.cpp`, for the recipes people download. Sources per rule
//! in `tests/data/llama_cpp/RULES.md` (b).

use serde::{Deserialize, Serialize};

use super::ggml::GgmlType;

/// A GGUF file type (`general.file_type`), as `llama-quantize` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileType {
    F32,
    F16,
    Bf16,
    Q8_0,
    Q6K,
    Q5KM,
    Q4KM,
    Q4KS,
    Q4_0,
    Q3KM,
    Q2K,
    Iq4Xs,
    Mxfp4Moe,
}

/// What a tensor is, for the recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorClass {
    TokenEmbd,
    Output,
    AttnQ,
    AttnK,
    AttnV,
    /// Fused QKV (Phi-3, Falcon).
    AttnQkv,
    AttnOutput,
    FfnGate,
    FfnUp,
    FfnDown,
    /// Routed experts' stacked matrices (`ffn_*_exps`).
    ExpertGate,
    ExpertUp,
    ExpertDown,
    /// Everything that stays F32: norms, biases, the MoE router.
    Plain,
    /// Other 2-D weights of a layer (recurrent mixers, MLA projections):
    /// the recipe's default type.
    Other,
}

/// What the recipe needs to know about the model.
#[derive(Clone, Copy, Debug)]
pub struct RecipeModel {
    /// Query heads per KV head (`n_gqa`).
    pub gqa: u64,
    pub experts: u64,
    /// Tensors counted by `n_attention_wv` (attention layers).
    pub attention_layers: u64,
    pub layers: u64,
}

/// `use_more_bits`: the first and last eighth of the layers and every
/// third one between them.
fn use_more_bits(i: u64, n: u64) -> bool {
    // The third clause is reached only when i ≥ n/8: no underflow.
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

impl FileType {
    pub const ALL: [FileType; 13] = [
        FileType::F32,
        FileType::F16,
        FileType::Bf16,
        FileType::Q8_0,
        FileType::Q6K,
        FileType::Q5KM,
        FileType::Q4KM,
        FileType::Q4KS,
        FileType::Q4_0,
        FileType::Q3KM,
        FileType::Q2K,
        FileType::Iq4Xs,
        FileType::Mxfp4Moe,
    ];

    /// The name in file names and `llama-quantize` (`Q4_K_M`).
    pub fn name(self) -> &'static str {
        match self {
            FileType::F32 => "F32",
            FileType::F16 => "F16",
            FileType::Bf16 => "BF16",
            FileType::Q8_0 => "Q8_0",
            FileType::Q6K => "Q6_K",
            FileType::Q5KM => "Q5_K_M",
            FileType::Q4KM => "Q4_K_M",
            FileType::Q4KS => "Q4_K_S",
            FileType::Q4_0 => "Q4_0",
            FileType::Q3KM => "Q3_K_M",
            FileType::Q2K => "Q2_K",
            FileType::Iq4Xs => "IQ4_XS",
            FileType::Mxfp4Moe => "MXFP4_MOE",
        }
    }

    pub fn parse(text: &str) -> Option<FileType> {
        let t = text.trim().to_ascii_uppercase().replace('-', "_");
        FileType::ALL.into_iter().find(|f| f.name() == t)
    }

    /// The recipe's default type (`llama_model_quantize_impl`).
    fn default_type(self) -> GgmlType {
        match self {
            FileType::F32 => GgmlType::F32,
            FileType::F16 => GgmlType::F16,
            FileType::Bf16 => GgmlType::Bf16,
            FileType::Q8_0 | FileType::Mxfp4Moe => GgmlType::Q8_0,
            FileType::Q6K => GgmlType::Q6K,
            FileType::Q5KM => GgmlType::Q5K,
            FileType::Q4KM | FileType::Q4KS => GgmlType::Q4K,
            FileType::Q4_0 => GgmlType::Q4_0,
            FileType::Q3KM => GgmlType::Q3K,
            FileType::Q2K => GgmlType::Q2K,
            FileType::Iq4Xs => GgmlType::Iq4Xs,
        }
    }

    /// The type of one tensor: class, its layer `i` (attention tensors count
    /// attention layers), and its row width `ne0` for the block fallback.
    pub fn tensor_type(self, class: TensorClass, i: u64, ne0: u64, m: &RecipeModel) -> GgmlType {
        if class == TensorClass::Plain {
            return GgmlType::F32;
        }
        if matches!(self, FileType::F32 | FileType::F16 | FileType::Bf16) {
            return self.default_type();
        }
        fallback(self.chosen(class, i, m), ne0)
    }

    fn chosen(self, class: TensorClass, i: u64, m: &RecipeModel) -> GgmlType {
        use FileType as F;
        use GgmlType as G;
        use TensorClass as C;
        let d = self.default_type();
        let n = m.layers;
        match class {
            // Output: Q6_K unless the recipe is Q8_0 already.
            C::Output if self == F::Mxfp4Moe => G::Q8_0,
            C::Output if d == G::Q8_0 => G::Q8_0,
            C::Output => G::Q6K,
            C::ExpertGate | C::ExpertUp | C::ExpertDown if self == F::Mxfp4Moe => G::Mxfp4,
            _ if self == F::Mxfp4Moe => G::Q8_0,
            C::AttnV | C::AttnK if m.experts == 8 => G::Q8_0,
            C::AttnV => match self {
                F::Q2K if m.gqa >= 4 => G::Q4K,
                F::Q2K => G::Q3K,
                F::Q3KM if i < 2 => G::Q5K,
                F::Q3KM => G::Q4K,
                F::Iq4Xs if m.gqa >= 4 => G::Q5K,
                F::Q4KM | F::Q5KM if use_more_bits(i, m.attention_layers) => G::Q6K,
                F::Q4KS if i < 4 => G::Q5K,
                _ => d,
            },
            C::FfnDown | C::ExpertDown => match self {
                F::Q2K => G::Q3K,
                F::Q3KM if i < n / 16 => G::Q5K,
                F::Q3KM => G::Q4K,
                F::Q4KM | F::Q5KM if use_more_bits(i, n) => G::Q6K,
                F::Iq4Xs | F::Q4KS if i < n / 8 => G::Q5K,
                _ => d,
            },
            C::AttnOutput if m.experts == 8 => match self {
                F::Q2K | F::Q3KM | F::Q4KS | F::Q4KM | F::Iq4Xs => G::Q5K,
                _ => d,
            },
            C::AttnOutput => match self {
                F::Q2K => G::Q3K,
                F::Q3KM => G::Q4K,
                _ => d,
            },
            C::AttnQkv => match self {
                F::Q3KM => G::Q4K,
                F::Q4KM => G::Q5K,
                F::Q5KM => G::Q6K,
                _ => d,
            },
            _ => d,
        }
    }
}

/// A type whose block does not divide the row falls back
/// (`llama_tensor_get_type`'s end): k-quants and i-quants to the 32-element
/// types, then F16.
fn fallback(t: GgmlType, ne0: u64) -> GgmlType {
    use GgmlType as G;
    if t.row_bytes(ne0).is_some() {
        return t;
    }
    let next = match t {
        G::Q2K
        | G::Q3K
        | G::Iq4Xs
        | G::Iq2Xxs
        | G::Iq2Xs
        | G::Iq2S
        | G::Iq3Xxs
        | G::Iq3S
        | G::Iq1S
        | G::Iq1M => G::Iq4Nl,
        G::Q4K => G::Q5_0,
        G::Q5K => G::Q5_1,
        G::Q6K => G::Q8_0,
        _ => G::F16,
    };
    if next.row_bytes(ne0).is_some() {
        next
    } else {
        G::F16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama-3-8B in Q4_K_M: llama.cpp prints `q6_K: 33 tensors` (16 attn_v,
    /// 16 ffn_down, the output), RULES.md (b), log 01.
    #[test]
    fn q4_k_m_gives_33_q6_k_tensors_to_a_32_layer_llama() {
        let m = RecipeModel {
            gqa: 4,
            experts: 0,
            attention_layers: 32,
            layers: 32,
        };
        let q6 = (0..32)
            .flat_map(|i| [TensorClass::AttnV, TensorClass::FfnDown].map(|c| (c, i)))
            .filter(|&(c, i)| FileType::Q4KM.tensor_type(c, i, 4096, &m) == GgmlType::Q6K)
            .count()
            + usize::from(
                FileType::Q4KM.tensor_type(TensorClass::Output, 0, 4096, &m) == GgmlType::Q6K,
            );
        assert_eq!(q6, 33);
    }

    #[test]
    fn rows_not_of_whole_k_blocks_fall_back() {
        let m = RecipeModel {
            gqa: 8,
            experts: 32,
            attention_layers: 24,
            layers: 24,
        };
        // 2880 = 11.25 × 256: Q4_K falls back to Q5_0.
        assert_eq!(
            FileType::Q4KM.tensor_type(TensorClass::AttnQ, 5, 2880, &m),
            GgmlType::Q5_0
        );
        assert_eq!(
            FileType::Q4KM.tensor_type(TensorClass::Plain, 5, 2880, &m),
            GgmlType::F32
        );
    }
}
