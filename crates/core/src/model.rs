//! Model architecture and exact parameter counts.
//!
//! A [`ModelSpec`] holds the architecture fields a memory estimate needs. The
//! parameter count is computed from them the way transformers instantiates the
//! model, so it matches `model.num_parameters()` (checked against
//! `shared/groundtruth/cpu/param_counts.csv` in the tests).

use serde::{Deserialize, Serialize};

use crate::error::{check_range, InputError, Result};

/// Architecture family; decides biases, norms, MLP shape and block layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    Qwen3,
    Qwen3Moe,
    Gemma,
    Gemma2,
    Gemma3,
    Phi,
    Phi3,
    Gpt2,
    GptNeox,
    Opt,
    Falcon,
    Bloom,
    GptBigcode,
    Bert,
    T5,
    DeepseekV2,
    DeepseekV3,
    ClipVision,
    Llava,
    Stablelm,
    GptOss,
    /// Anything else described by raw fields.
    Custom,
}

/// Feed-forward shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MlpKind {
    /// gate, up and down projections (SwiGLU, GeGLU).
    Gated,
    /// up and down projections (GELU, ReLU).
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// RMSNorm: a weight only.
    Rms,
    /// LayerNorm: weight and bias.
    Layer,
}

/// Mixture-of-experts feed-forward.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moe {
    pub experts: u64,
    pub experts_per_token: u64,
    #[serde(default)]
    pub shared_experts: u64,
    /// Width of one expert's feed-forward.
    pub expert_intermediate: u64,
    /// Width of the shared expert(s) in total, when it differs (qwen2_moe).
    #[serde(default)]
    pub shared_intermediate: Option<u64>,
    /// Leading layers that keep a dense MLP (deepseek `first_k_dense_replace`).
    #[serde(default)]
    pub dense_layers: u64,
}

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds one
/// compressed latent plus a shared RoPE key per token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mla {
    /// `None` when queries are projected directly (V2-Lite).
    pub q_lora_rank: Option<u64>,
    pub kv_lora_rank: u64,
    pub qk_nope_head_dim: u64,
    pub qk_rope_head_dim: u64,
    pub v_head_dim: u64,
}

/// Some layers attend only to the last `window` tokens (Mistral, Gemma-2/3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlidingWindow {
    pub window: u64,
    /// How many of the layers use the window (the rest are global).
    pub layers: u64,
}

/// Vision encoder of a VLM (or a CLIP vision model on its own).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisionTower {
    pub hidden: u64,
    pub layers: u64,
    pub heads: u64,
    pub intermediate: u64,
    pub image_size: u64,
    pub patch_size: u64,
    /// Parameters of the projector into the language model (LLaVA: 2-layer MLP).
    #[serde(default)]
    pub projector_params: u64,
}

impl VisionTower {
    /// Patches per image (plus the class token) = tokens the tower processes.
    pub fn tokens_per_image(&self) -> u64 {
        let side = self.image_size / self.patch_size.max(1);
        side * side + 1
    }
}

/// Everything the estimator needs to know about a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSpec {
    pub name: String,
    pub arch: Arch,
    pub hidden: u64,
    pub layers: u64,
    pub heads: u64,
    pub kv_heads: u64,
    /// Per-head width; `None` means `hidden / heads`.
    #[serde(default)]
    pub head_dim: Option<u64>,
    pub intermediate: u64,
    pub vocab: u64,
    #[serde(default)]
    pub max_position: u64,
    #[serde(default)]
    pub tied_embeddings: bool,
    pub mlp: MlpKind,
    pub norm: NormKind,
    /// Biases on q/k/v (Qwen2, GPT-2, Phi, ...).
    #[serde(default)]
    pub qkv_bias: bool,
    /// Bias on the attention output and the MLP projections.
    #[serde(default)]
    pub out_bias: bool,
    #[serde(default)]
    pub moe: Option<Moe>,
    #[serde(default)]
    pub mla: Option<Mla>,
    #[serde(default)]
    pub sliding_window: Option<SlidingWindow>,
    /// Encoder layers of an encoder-decoder model (T5); `layers` is then the decoder.
    #[serde(default)]
    pub encoder_layers: Option<u64>,
    #[serde(default)]
    pub vision: Option<VisionTower>,
    /// Exact parameter count when the source states it and the fields above
    /// cannot rebuild it; the estimator then scales the computed groups to it.
    #[serde(default)]
    pub params_override: Option<u64>,
    /// True when only a bare parameter count was given: every figure that
    /// depends on the shape is a rough guess.
    #[serde(default)]
    pub approximate: bool,
}

/// Largest value accepted for any architecture dimension: 2^24, well above
/// any real model (widest hidden sizes are ~2^15, vocabularies ~2^18).
pub const MAX_DIM: u64 = 1 << 24;
/// Largest layer count accepted (real models stay under 200).
pub const MAX_LAYERS: u64 = 10_000;

/// Parameters of one decoder layer, by tensor group (element counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerParams {
    pub q: u64,
    pub k: u64,
    pub v: u64,
    pub o: u64,
    /// Dense MLP, or all routed + shared experts of an MoE layer.
    pub gate: u64,
    pub up: u64,
    pub down: u64,
    pub router: u64,
    pub norms: u64,
    /// Biases of the linear layers (kept in 16-bit when the weights are quantized).
    pub biases: u64,
}

impl LayerParams {
    pub fn attention(&self) -> u64 {
        self.q + self.k + self.v + self.o
    }
    pub fn mlp(&self) -> u64 {
        self.gate + self.up + self.down
    }
    /// Weights of linear layers (what quantization compresses).
    pub fn linear(&self) -> u64 {
        self.attention() + self.mlp()
    }
    pub fn total(&self) -> u64 {
        self.linear() + self.router + self.norms + self.biases
    }
}

/// Parameter counts by group (element counts, not bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamCounts {
    pub total: u64,
    /// Token (and learned position) embeddings.
    pub embedding: u64,
    /// Untied output head; 0 when tied to the embedding.
    pub lm_head: u64,
    /// Sum over all transformer layers (decoder + encoder).
    pub layers: LayerParams,
    /// Final norms, poolers and other small tensors outside the layers.
    pub other: u64,
    pub vision: u64,
    pub projector: u64,
    /// Parameters one token actually uses (differs from `total` for MoE).
    pub active_per_token: u64,
}

impl ParamCounts {
    /// Linear weights inside the transformer layers: what 4/8-bit formats quantize.
    pub fn quantizable(&self) -> u64 {
        self.layers.linear()
    }
}

impl ModelSpec {
    pub fn head_dim(&self) -> u64 {
        self.head_dim
            .unwrap_or_else(|| self.hidden / self.heads.max(1))
    }

    /// Checks every field against its allowed range and the relations between them.
    pub fn validate(&self) -> Result<()> {
        check_range("model.hidden", self.hidden, 1, MAX_DIM)?;
        check_range("model.layers", self.layers, 1, MAX_LAYERS)?;
        check_range("model.heads", self.heads, 1, 65_536)?;
        check_range("model.kv_heads", self.kv_heads, 1, self.heads)
            .map_err(|_| InputError::new("model.kv_heads", format!("{} is out of range: allowed 1 to heads ({})", self.kv_heads, self.heads)))?;
        if self.heads % self.kv_heads != 0 {
            return Err(InputError::new(
                "model.kv_heads",
                format!("{} must divide heads ({})", self.kv_heads, self.heads),
            ));
        }
        match self.head_dim {
            Some(d) => {
                check_range("model.head_dim", d, 1, 65_536)?;
            }
            None => {
                if self.hidden % self.heads != 0 {
                    return Err(InputError::new(
                        "model.heads",
                        format!(
                            "{} must divide hidden ({}) unless head_dim is given",
                            self.heads, self.hidden
                        ),
                    ));
                }
            }
        }
        check_range("model.intermediate", self.intermediate, 1, MAX_DIM)?;
        check_range("model.vocab", self.vocab, 1, MAX_DIM)?;
        check_range("model.max_position", self.max_position, 0, 1 << 30)?;
        if let Some(moe) = &self.moe {
            check_range("model.moe.experts", moe.experts, 1, 4096)?;
            check_range("model.moe.experts_per_token", moe.experts_per_token, 1, moe.experts)?;
            check_range("model.moe.shared_experts", moe.shared_experts, 0, 64)?;
            check_range("model.moe.expert_intermediate", moe.expert_intermediate, 1, MAX_DIM)?;
            if let Some(s) = moe.shared_intermediate {
                check_range("model.moe.shared_intermediate", s, 1, MAX_DIM)?;
            }
            check_range("model.moe.dense_layers", moe.dense_layers, 0, self.layers)?;
        }
        if let Some(mla) = &self.mla {
            if let Some(q) = mla.q_lora_rank {
                check_range("model.mla.q_lora_rank", q, 1, MAX_DIM)?;
            }
            check_range("model.mla.kv_lora_rank", mla.kv_lora_rank, 1, MAX_DIM)?;
            check_range("model.mla.qk_nope_head_dim", mla.qk_nope_head_dim, 0, 65_536)?;
            check_range("model.mla.qk_rope_head_dim", mla.qk_rope_head_dim, 0, 65_536)?;
            check_range("model.mla.v_head_dim", mla.v_head_dim, 1, 65_536)?;
        }
        if let Some(sw) = &self.sliding_window {
            check_range("model.sliding_window.window", sw.window, 1, 1 << 30)?;
            check_range("model.sliding_window.layers", sw.layers, 0, self.layers)?;
        }
        if let Some(e) = self.encoder_layers {
            check_range("model.encoder_layers", e, 0, MAX_LAYERS)?;
        }
        if let Some(v) = &self.vision {
            check_range("model.vision.hidden", v.hidden, 1, MAX_DIM)?;
            check_range("model.vision.layers", v.layers, 1, MAX_LAYERS)?;
            check_range("model.vision.heads", v.heads, 1, 65_536)?;
            check_range("model.vision.intermediate", v.intermediate, 1, MAX_DIM)?;
            check_range("model.vision.image_size", v.image_size, 1, 1 << 16)?;
            check_range("model.vision.patch_size", v.patch_size, 1, v.image_size)?;
            check_range("model.vision.projector_params", v.projector_params, 0, 1 << 40)?;
        }
        if let Some(p) = self.params_override {
            check_range("model.params_override", p, 1, 1 << 44)?;
        }
        Ok(())
    }

    /// Parameters of one decoder layer with a dense MLP of width `intermediate`.
    fn attention_params(&self) -> LayerParams {
        let h = self.hidden;
        let d = self.head_dim();
        let (q, k, v, o) = match &self.mla {
            Some(mla) => {
                let qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
                let q = match mla.q_lora_rank {
                    // q_a_proj, q_a_layernorm counted below, q_b_proj
                    Some(r) => h * r + r * self.heads * qk_head,
                    None => h * self.heads * qk_head,
                };
                // kv_a_proj_with_mqa, kv_b_proj (k_nope and v)
                let k = h * (mla.kv_lora_rank + mla.qk_rope_head_dim)
                    + mla.kv_lora_rank * self.heads * mla.qk_nope_head_dim;
                let v = mla.kv_lora_rank * self.heads * mla.v_head_dim;
                let o = self.heads * mla.v_head_dim * h;
                (q, k, v, o)
            }
            None => (
                h * self.heads * d,
                h * self.kv_heads * d,
                h * self.kv_heads * d,
                self.heads * d * h,
            ),
        };
        let mut biases = 0;
        if self.qkv_bias {
            biases += (self.heads + 2 * self.kv_heads) * d;
        }
        if self.out_bias {
            biases += h;
        }
        let norm_width = match self.norm {
            NormKind::Rms => 1,
            NormKind::Layer => 2,
        };
        let mut norms = 2 * norm_width * h;
        if let Some(mla) = &self.mla {
            norms += mla.kv_lora_rank + mla.q_lora_rank.unwrap_or(0);
        }
        LayerParams {
            q,
            k,
            v,
            o,
            norms,
            biases,
            ..LayerParams::default()
        }
    }

    fn mlp_params(&self, width: u64) -> (u64, u64, u64, u64) {
        let h = self.hidden;
        let gate = match self.mlp {
            MlpKind::Gated => h * width,
            MlpKind::Plain => 0,
        };
        let bias = if self.out_bias {
            width + h + if gate > 0 { width } else { 0 }
        } else {
            0
        };
        (gate, h * width, width * h, bias)
    }

    /// Exact parameter counts by group.
    pub fn param_counts(&self) -> ParamCounts {
        let h = self.hidden;
        let mut one = self.attention_params();
        let attention_layer = one;
        let mut layers = LayerParams::default();
        let mut active_mlp = 0u64;
        let dense_layers = self.moe.as_ref().map_or(self.layers, |m| m.dense_layers);
        let moe_layers = self.layers - dense_layers.min(self.layers);
        // Dense layers
        let (g, u, dn, b) = self.mlp_params(self.intermediate);
        one.gate = g;
        one.up = u;
        one.down = dn;
        one.biases += b;
        add_scaled(&mut layers, &one, dense_layers);
        active_mlp += dense_layers * (g + u + dn);
        // MoE layers
        if let Some(moe) = &self.moe {
            let (eg, eu, ed, eb) = self.mlp_params(moe.expert_intermediate);
            let shared_width = moe
                .shared_intermediate
                .unwrap_or(moe.shared_experts * moe.expert_intermediate);
            let (sg, su, sd, sb) = if shared_width > 0 {
                self.mlp_params(shared_width)
            } else {
                (0, 0, 0, 0)
            };
            let mut m = attention_layer;
            m.gate = moe.experts * eg + sg;
            m.up = moe.experts * eu + su;
            m.down = moe.experts * ed + sd;
            m.biases += moe.experts * eb + sb;
            // Router; qwen2_moe also gates its shared expert with a 1-wide linear.
            m.router = moe.experts * h + if moe.shared_intermediate.is_some() { h } else { 0 };
            add_scaled(&mut layers, &m, moe_layers);
            active_mlp += moe_layers * (moe.experts_per_token * (eg + eu + ed) + sg + su + sd);
        }
        // Encoder layers of an encoder-decoder (T5): self-attention + MLP, the
        // decoder also has cross-attention (counted as one more attention block).
        let mut encoder = 0u64;
        if let Some(enc) = self.encoder_layers {
            let mut e = attention_layer;
            e.gate = g;
            e.up = u;
            e.down = dn;
            e.norms = e.norms * 1; // two norms per encoder layer
            add_scaled(&mut layers, &e, enc);
            // cross-attention in every decoder layer
            let cross = attention_layer;
            layers.q += cross.q * self.layers;
            layers.k += cross.k * self.layers;
            layers.v += cross.v * self.layers;
            layers.o += cross.o * self.layers;
            layers.norms += self.layers * h;
            encoder = enc;
        }
        let embedding = self.vocab * h
            + match self.arch {
                Arch::Gpt2 | Arch::Opt | Arch::Bert | Arch::GptBigcode => self.max_position * h,
                _ => 0,
            };
        let lm_head = if self.tied_embeddings { 0 } else { self.vocab * h };
        let final_norm = match self.norm {
            NormKind::Rms => h,
            NormKind::Layer => 2 * h,
        } * if encoder > 0 { 2 } else { 1 };
        let (vision, projector) = match &self.vision {
            Some(v) => (vision_params(v), v.projector_params),
            None => (0, 0),
        };
        let total = embedding + lm_head + layers.total() + final_norm + vision + projector;
        let inactive = layers.mlp() - active_mlp.min(layers.mlp());
        ParamCounts {
            total,
            embedding,
            lm_head,
            layers,
            other: final_norm,
            vision,
            projector,
            active_per_token: total - inactive,
        }
    }

    /// The total parameter count (`params_override` when given).
    pub fn total_params(&self) -> u64 {
        self.params_override
            .unwrap_or_else(|| self.param_counts().total)
    }
}

fn add_scaled(acc: &mut LayerParams, one: &LayerParams, n: u64) {
    acc.q += one.q * n;
    acc.k += one.k * n;
    acc.v += one.v * n;
    acc.o += one.o * n;
    acc.gate += one.gate * n;
    acc.up += one.up * n;
    acc.down += one.down * n;
    acc.router += one.router * n;
    acc.norms += one.norms * n;
    acc.biases += one.biases * n;
}

/// CLIP-style ViT: patch conv, class + position embeddings, pre/post LayerNorm,
/// `layers` blocks of biased attention + GELU MLP with two LayerNorms.
pub fn vision_params(v: &VisionTower) -> u64 {
    let h = v.hidden;
    let patches = (v.image_size / v.patch_size.max(1)).pow(2);
    let embeddings = 3 * v.patch_size * v.patch_size * h + h + (patches + 1) * h;
    let block = 4 * (h * h + h) + 2 * h * v.intermediate + v.intermediate + h + 4 * h;
    embeddings + 2 * 2 * h + v.layers * block
}
