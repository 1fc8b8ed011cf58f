//! A model's GGUF tensors per layer, as llama.cpp's converter lays them out
//! (`token_embd`, `blk.N.*`, `output`), with the type a recipe gives each.
//! Element counts come from the exact parameter groups
//! ([`crate::model::ParamCounts`]) spread over the layers that hold them;
//! routed experts are split out because `--n-cpu-moe` / `-ot` move only them.

use crate::model::{Arch, ModelSpec, ParamCounts};

use super::ggml::GgmlType;
use super::recipe::{FileType, RecipeModel, TensorClass};

/// Bytes of one layer's weights by where `-ot` can put them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerBytes {
    /// Attention, norms, router, dense or shared MLP: stay with the layer.
    pub resident: u128,
    /// Routed experts (`ffn_(gate|up|down)_exps`).
    pub experts: u128,
}

impl LayerBytes {
    pub fn total(&self) -> u128 {
        self.resident + self.experts
    }
}

/// The model's GGUF weights in bytes: per layer, the token embedding (always
/// in host memory), and the output layer (norm + head).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufWeights {
    pub layers: Vec<LayerBytes>,
    pub token_embd: u128,
    /// The output head (for tied embeddings, the copy llama.cpp makes of
    /// `token_embd` when the output layer is offloaded) and its norm.
    pub output: u128,
    pub token_embd_type: GgmlType,
    pub output_type: GgmlType,
}

impl GgufWeights {
    /// The whole file's tensor data (a tied head is stored once).
    pub fn file_bytes(&self, tied: bool) -> u128 {
        let layers: u128 = self.layers.iter().map(LayerBytes::total).sum();
        layers + self.token_embd + if tied { 0 } else { self.output }
    }
}

/// Bytes of `elements` in rows of `ne0` (the tensor's input width).
fn bytes(t: GgmlType, ne0: u64, elements: u64) -> u128 {
    let ne0 = ne0.max(1);
    t.tensor_bytes(ne0, elements.div_ceil(ne0))
}

/// The weights of `spec` quantized with `file_type`.
pub fn gguf_weights(spec: &ModelSpec, counts: &ParamCounts, file_type: FileType) -> GgufWeights {
    let layers = spec.layers.max(1);
    let attention_layers = spec.attention_layer_count().max(1);
    let h = spec.hidden;
    let heads_dim = spec.heads * spec.head_dim();
    let moe = spec.moe.as_ref();
    let recipe = RecipeModel {
        gqa: spec.heads / spec.kv_heads.max(1),
        experts: moe.map_or(0, |m| m.experts),
        attention_layers,
        layers,
    };
    let l = &counts.layers;
    // Routed experts of one MoE layer, per matrix (gate, up, down).
    let (expert_layers, expert_matrix) = match moe {
        Some(m) => {
            let moe_layers = spec.mlp_layer_count().saturating_sub(m.dense_layers);
            (
                moe_layers,
                m.experts * m.expert_input(h) * m.expert_intermediate,
            )
        }
        None => (0, 0),
    };
    let gated = l.gate > 0;
    let routed = |total: u64, present: bool| {
        if present {
            (expert_layers * expert_matrix).min(total)
        } else {
            0
        }
    };
    let (routed_gate, routed_up, routed_down) = (
        routed(l.gate, gated),
        routed(l.up, true),
        routed(l.down, true),
    );
    let down_width = moe.map_or(spec.intermediate, |m| m.expert_intermediate);
    let fused_qkv = matches!(
        spec.arch,
        Arch::Phi3 | Arch::Falcon | Arch::Bloom | Arch::GptNeox
    );
    let mut per_layer = Vec::with_capacity(layers as usize);
    for i in 0..layers {
        let t = |class: TensorClass, index: u64, ne0: u64| {
            file_type.tensor_type(class, index, ne0, &recipe)
        };
        // Attention tensors are spread over the attention layers' indices
        // (`i_attention_wv` counts them), the rest over all layers.
        let a = i * attention_layers / layers;
        let share = |total: u64| total / layers;
        let mut resident = if fused_qkv {
            bytes(t(TensorClass::AttnQkv, a, h), h, share(l.q + l.k + l.v))
        } else {
            bytes(t(TensorClass::AttnQ, a, h), h, share(l.q))
                + bytes(t(TensorClass::AttnK, a, h), h, share(l.k))
                + bytes(t(TensorClass::AttnV, a, h), h, share(l.v))
        };
        resident += bytes(
            t(TensorClass::AttnOutput, a, heads_dim),
            heads_dim,
            share(l.o),
        );
        resident += bytes(
            t(TensorClass::FfnGate, i, h),
            h,
            share(l.gate - routed_gate),
        );
        resident += bytes(t(TensorClass::FfnUp, i, h), h, share(l.up - routed_up));
        let dense_down = spec.intermediate.max(1);
        resident += bytes(
            t(TensorClass::FfnDown, i, dense_down),
            dense_down,
            share(l.down - routed_down),
        );
        resident += bytes(t(TensorClass::Other, i, h), h, share(l.mixer));
        resident += bytes(GgmlType::F32, 1, share(l.router + l.norms + l.biases));
        let experts = if expert_layers > 0 {
            bytes(t(TensorClass::ExpertGate, i, h), h, routed_gate / layers)
                + bytes(t(TensorClass::ExpertUp, i, h), h, routed_up / layers)
                + bytes(
                    t(TensorClass::ExpertDown, i, down_width),
                    down_width,
                    routed_down / layers,
                )
        } else {
            0
        };
        per_layer.push(LayerBytes { resident, experts });
    }
    // A tied head is token_embd, typed by the output rule.
    let embd_class = if spec.tied_embeddings {
        TensorClass::Output
    } else {
        TensorClass::TokenEmbd
    };
    let token_embd_type = file_type.tensor_type(embd_class, 0, h, &recipe);
    let output_type = file_type.tensor_type(TensorClass::Output, 0, h, &recipe);
    let token_embd = bytes(token_embd_type, h, counts.embedding);
    let head = if spec.tied_embeddings {
        token_embd
    } else {
        bytes(output_type, h, counts.lm_head)
    };
    GgufWeights {
        layers: per_layer,
        token_embd,
        output: head + bytes(GgmlType::F32, 1, counts.other),
        token_embd_type,
        output_type: if spec.tied_embeddings {
            token_embd_type
        } else {
            output_type
        },
    }
}
