//! Model architecture and exact parameter counts.
//!
//! A [`ModelSpec`] holds the architecture fields a memory estimate needs. The
//! parameter count is computed from them the way transformers instantiates the
//! model, so it matches `model.num_parameters()` (checked against measured
//! counts in `tests/params.rs`). The counting itself lives in `model/params.rs`.

use serde::{Deserialize, Serialize};

use crate::error::{check_range, InputError, Result};
use crate::scenario::choice::Choice;

pub mod arch;
pub mod kernels;
mod layer_variants;
pub(crate) mod params;

pub use layer_variants::{
    AttentionState, CompressedAttention, GlobalAttention, HyperConnections, HyperKind, KvSharing,
    NgramEmbedding, PerLayerInput, QsaIndexer,
};
pub use params::{llava_projector_params, vision_params};

/// Architecture family; decides biases, norms, MLP shape and block layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arch {
    #[default]
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    /// Adds an RMSNorm on each query and key head.
    Qwen3,
    Qwen3Moe,
    /// The output head is always tied to the embedding.
    Gemma,
    /// Four norms per layer (pre and post attention and MLP).
    Gemma2,
    /// Gemma-2 layout plus query/key norms (text model).
    Gemma3,
    Phi,
    Phi3,
    /// Learned position embeddings.
    Gpt2,
    GptNeox,
    /// Learned position embeddings offset by 2 rows.
    Opt,
    Falcon,
    /// LayerNorm on the word embeddings; ALiBi positions (no table).
    Bloom,
    /// Learned position embeddings.
    GptBigcode,
    /// Encoder only: positions, token types, embedding LayerNorm, pooler, no LM head.
    Bert,
    /// Encoder only: relative position table, optional conv layer, pooler, no LM head.
    DebertaV2,
    /// Encoder-decoder with relative attention buckets (T5, mT5).
    T5,
    /// Whisper: a speech encoder over a fixed number of audio frames (two
    /// convolutions over the mel spectrogram, sinusoidal positions) and a
    /// text decoder with learned positions and cross-attention; LayerNorm,
    /// GELU MLPs, biases on q, v and o but not k.
    Whisper,
    /// BART and its kin (mBART, Marian, Pegasus, M2M-100/NLLB, PLBart,
    /// BlenderBot, MVP): a text encoder over the source tokens and a decoder
    /// with cross-attention to it; LayerNorm, GELU MLPs, biases everywhere.
    Bart,
    /// xLSTM: mLSTM blocks only (no attention), each with a gated MLP.
    Xlstm,
    /// RWKV-4: time-mixing (WKV) blocks only, each with a channel-mixing
    /// feed-forward (relu² between `key` and `value`, gated by `receptance`).
    Rwkv,
    DeepseekV2,
    DeepseekV3,
    /// A CLIP vision tower alone: every parameter is in `vision`.
    ClipVision,
    Llava,
    Stablelm,
    /// Router bias and one attention-sink logit per head.
    GptOss,
    /// MoE interleaved with dense layers, a shared expert, chunked attention.
    Llama4,
    /// Four norms per layer, q/k/v biases.
    Glm4,
    Glm4Moe,
    /// Post-norms and q/k norms over the whole projection (OLMo-2, OLMo-3).
    Olmo2,
    /// Parallel block, one weight-only LayerNorm per layer (Command-R).
    Cohere,
    Smollm3,
    /// Non-gated xIELU MLP, q/k norms.
    Apertus,
    #[serde(rename = "ernie4_5")]
    Ernie45,
    #[serde(rename = "ernie4_5_moe")]
    Ernie45Moe,
    /// Post-norms and q/k norms; sliding-window layers.
    Exaone4,
    SeedOss,
    Hunyuan,
    HunyuanMoe,
    /// Mamba-1 state-space layers only.
    Mamba,
    /// Mamba-2 state-space layers only.
    Mamba2,
    /// Mamba and attention layers, MoE on alternate layers.
    Jamba,
    /// Mamba-2, attention, MLP and MoE blocks.
    NemotronH,
    /// Attention and Mamba-2 side by side in every layer.
    FalconH1,
    /// Granite-4.0-H: Mamba-2 and attention layers, MoE with a shared MLP.
    #[serde(rename = "granitemoehybrid")]
    GraniteMoeHybrid,
    /// Gated DeltaNet and gated attention (Qwen3-Next, Qwen3.5).
    Qwen3Next,
    /// Short convolutions and attention.
    Lfm2,
    /// Lightning attention and softmax attention, MoE.
    Minimax,
    /// GPT-Neo: GPT-2's layout with unbiased q, k and v and its scores in
    /// fp32; its local layers mask a window of the full cache.
    GptNeo,
    /// Anything else described by raw fields.
    Custom,
}

/// Feed-forward shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MlpKind {
    /// gate, up and down projections (SwiGLU, GeGLU).
    #[default]
    Gated,
    /// up and down projections (GELU, ReLU).
    Plain,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// RMSNorm: a weight only.
    #[default]
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
    /// Layers (among those with a feed-forward) that keep a dense MLP
    /// (deepseek `first_k_dense_replace`, interleaved layouts).
    #[serde(default)]
    pub dense_layers: u64,
    /// The router carries one more vector per expert (a bias, or ERNIE-4.5's
    /// `e_score_correction_bias` parameter).
    #[serde(default)]
    pub router_bias: bool,
    /// The routed experts work in a narrower latent width, between a
    /// down- and an up-projection of the hidden state (Nemotron-H's
    /// `moe_latent_size`: `fc1_latent_proj`, `fc2_latent_proj`); 0: the
    /// hidden width.
    #[serde(default)]
    pub latent: u64,
}

impl Moe {
    /// The width the routed experts read and write: the latent one where
    /// there is one, else the hidden width.
    pub fn expert_input(&self, hidden: u64) -> u64 {
        match self.latent {
            0 => hidden,
            l => l,
        }
    }
}

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds one
/// compressed latent plus a shared RoPE key per token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mla {
    /// `None` when queries are projected directly (V2-Lite).
    pub q_lora_rank: Option<u64>,
    pub kv_lora_rank: u64,
    #[serde(default)]
    pub qk_nope_head_dim: u64,
    #[serde(default)]
    pub qk_rope_head_dim: u64,
    pub v_head_dim: u64,
    /// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2,
    /// GLM-MoE-DSA), on the layers that run their own.
    #[serde(default)]
    pub indexer: Option<Indexer>,
    /// Cached layers without rotary positions (Mistral Large 4's NoPE
    /// layers): they cache the latent only, no rope key.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nope_layers: u64,
    /// The sliding-window layers' own latent, where it is not the others'
    /// (Dots3-Note's `swa_kv_lora_rank`, `swa_qk_rope_head_dim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sliding: Option<SlidingLatent>,
}

/// What a sliding-window MLA layer caches per token when its geometry is its
/// own: its latent and its rope key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlidingLatent {
    pub kv_lora_rank: u64,
    pub qk_rope_head_dim: u64,
}

/// The lightning indexer of DeepSeek Sparse Attention: per indexed layer,
/// `wq_b` (q_lora_rank → heads·d), `wk` (hidden → d), `k_norm` (LayerNorm
/// d, with bias), `weights_proj` (hidden → heads); and one cached key of
/// width d per token (`DynamicIndexedLayer.indexer_keys`, measured).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Indexer {
    /// `index_head_dim`.
    pub head_dim: u64,
    /// `index_n_heads`.
    pub heads: u64,
    /// Layers that run an indexer: all in DeepSeek-V3.2; GLM-MoE-DSA's
    /// `"shared"` layers reuse the previous layer's top-k and have none.
    pub layers: u64,
    /// `index_kpool` of GLM-5.3-Flash's pooled indexer (0: none): it
    /// scores groups of this many tokens, with a learned position table
    /// (`index_kpool_compress_ape`, pool × d) and a gate (`..._gate`,
    /// hidden → d), and caches per token its key, the gate's scores and a
    /// validity flag (2d + 1 wide, measured: `tests/data/cache/`).
    #[serde(default)]
    pub pool: u64,
    /// Bytes of a cached key element when they do not follow the cache's
    /// dtype: 4 where the keys come out fp32 (Dots3-Note rotates them with
    /// fp32 cos/sin, from `inputs_embeds.float()`); 0: the cache's dtype.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub key_bytes: u64,
}

impl Indexer {
    /// Elements cached per token on an indexed layer: the key, and with a
    /// pool the gate scores and the flag beside it.
    pub fn cached_width(&self) -> u64 {
        if self.pool > 0 {
            self.head_dim.saturating_mul(2).saturating_add(1)
        } else {
            self.head_dim
        }
    }

    /// Bytes per token on one indexed layer, in a cache of `b`-byte elements.
    pub fn cached_bytes(&self, b: u128) -> u128 {
        let element = if self.key_bytes > 0 {
            u128::from(self.key_bytes)
        } else {
            b
        };
        u128::from(self.cached_width()) * element
    }
}

/// Some layers attend only to the last `window` tokens (Mistral, Gemma-2/3).
/// LongT5's blocked encoder attention ([`ModelSpec::local_radius`],
/// [`ModelSpec::global_block`]; 0: local only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalAttention {
    pub radius: u64,
    pub global_block: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlidingWindow {
    pub window: u64,
    /// How many of the layers use the window (the rest are global).
    #[serde(default)]
    pub layers: u64,
    /// The windowed layers also keep the whole prompt: a generated token
    /// sees every prompt token and the last `window` − 1 generated ones
    /// (Unlimited-OCR's "reference sliding" attention,
    /// `UnlimitedOcrDynamicReferenceSlidingWindowLayer`, transformers 5.24).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keeps_prompt: bool,
}

impl SlidingWindow {
    /// A window of `window` tokens on `layers` layers.
    pub fn new(window: u64, layers: u64) -> Self {
        SlidingWindow {
            window,
            layers,
            keeps_prompt: false,
        }
    }
}

/// How the query and key projections are normalised before attention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QkNorm {
    /// None.
    Off,
    /// One head-wide weight for q and one for k, shared by all heads
    /// (Qwen3, Gemma-3, Hunyuan, EXAONE-4, Apertus).
    Head,
    /// One head-wide weight per head (Cohere's `use_qk_norm`: `(heads, d)`
    /// and `(kv_heads, d)`).
    PerHead,
    /// Over the whole projection: `heads·d` for q, `kv_heads·d` for k (OLMo-2/3).
    Full,
}

/// The token mixer of the layers that do not attend with softmax attention:
/// a state-space model, a linear-attention rule or a short convolution. Each
/// keeps a fixed-size state per sequence instead of a per-token cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecurrentKind {
    /// Mamba (`MambaMixer`): selective scan over `inner` channels with a
    /// `state`-wide SSM state per channel.
    #[default]
    Mamba,
    /// Mamba-2 (`Mamba2Mixer`): `heads` heads of `inner/heads` channels,
    /// B and C shared over `groups` groups.
    Mamba2,
    /// Gated DeltaNet (Qwen3-Next, Qwen3.5): `groups` key heads of width
    /// `state`, `heads` value heads of width `inner/heads`.
    GatedDeltaNet,
    /// A gated short convolution over the hidden width (LFM2).
    ShortConv,
    /// Lightning (linear) attention (MiniMax-01): a `d × d` state per head.
    Lightning,
    /// Kimi Delta Attention (Kimi-Linear's `KimiDeltaAttention`): Gated
    /// DeltaNet's delta rule and state with a decay per channel, not per
    /// head: `heads` heads of `state` = `inner/heads` channels for queries,
    /// keys and values, separate q/k/v projections, low-rank forget and
    /// output gates (hidden → `state` → `inner`).
    KimiDelta,
    /// RecurrentGemma's (Griffin's) recurrent block: a GELU branch times a
    /// causal convolution into the RG-LRU, a gated linear recurrence with
    /// one state per channel over `inner` = `lru_width` channels; its gates
    /// are block-diagonal over `heads` blocks.
    RgLru,
    /// xLSTM's mLSTM (`xLSTMLayer`): per head a `state × (inner/heads)`
    /// matrix memory with a normalizer and a stabilizer; `state` is one
    /// head's q/k width (`qk_dim_factor · hidden / heads`), `inner` the
    /// value width of all heads.
    Mlstm,
    /// RWKV-4's time mixing (`RwkvSelfAttention`): key, value and
    /// receptance over `inner` = `attention_hidden_size` channels, a WKV
    /// recurrence with a numerator, denominator and running maximum per
    /// channel, and a token shift (the previous token's input) before it
    /// and before the channel mixing.
    Rwkv,
}

/// Layers whose token mixer is recurrent (see [`RecurrentKind`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recurrent {
    pub kind: RecurrentKind,
    /// How many layers hold this mixer.
    #[serde(default)]
    pub layers: u64,
    /// Channels the mixer works in (Mamba: `expand·hidden`; Mamba-2 and
    /// Gated DeltaNet: value heads × head width; short conv: hidden).
    pub inner: u64,
    /// Value (or SSM) heads; 0 for Mamba-1 and the short convolution.
    #[serde(default)]
    pub heads: u64,
    /// Mamba-2's B/C groups; Gated DeltaNet's key heads.
    #[serde(default)]
    pub groups: u64,
    /// SSM state width (Mamba), or the key head width (Gated DeltaNet).
    #[serde(default)]
    pub state: u64,
    /// Kernel width of the causal convolution (its cached window).
    #[serde(default)]
    pub conv_kernel: u64,
    /// Mamba-1's `time_step_rank`.
    #[serde(default)]
    pub dt_rank: u64,
    /// Biases on the input and output projections.
    #[serde(default)]
    pub proj_bias: bool,
    /// A bias on the convolution.
    #[serde(default)]
    pub conv_bias: bool,
    /// The mixer's own (gated) RMSNorm before its output projection:
    /// Mamba-2 and Lightning over `inner`, Gated DeltaNet over one value head.
    #[serde(default)]
    pub gated_norm: bool,
    /// Jamba's RMSNorms on Mamba's time step, B and C (`dt_rank + 2·state`).
    #[serde(default)]
    pub dt_bc_norms: bool,
    /// The SSM/recurrent state is kept in fp32 whatever the model's dtype
    /// (Nemotron-H's `mamba_ssm_cache_dtype`).
    #[serde(default)]
    pub state_fp32: bool,
    /// Tokens per chunk of the chunked scan (Mamba-2's `chunk_size` /
    /// `mamba_chunk_size`, MiniMax's lightning `block_size`); 0: the kind's
    /// default (see [`Recurrent::chunk_len`]). Only training activations read it.
    #[serde(default)]
    pub chunk: u64,
    /// Gated DeltaNet's output gate z has its own projection (Qwen3.5's
    /// `in_proj_z`) instead of being split off a fused `in_proj_qkvz`
    /// (Qwen3-Next): the same parameters, a different tensor to save.
    #[serde(default)]
    pub separate_z: bool,
    /// Kimi Delta Attention's forget and output gates are single full-rank
    /// projections (hidden → heads·d, Ling-3's `f_proj` and `g_proj`)
    /// instead of Kimi-Linear's low-rank pairs through one head's width.
    #[serde(default)]
    pub full_rank_gates: bool,
}

/// Vision encoder of a VLM (or a CLIP vision model on its own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisionTower {
    pub hidden: u64,
    pub layers: u64,
    pub heads: u64,
    pub intermediate: u64,
    pub image_size: u64,
    pub patch_size: u64,
    /// Parameters of the projector into the language model (LLaVA: 2-layer MLP,
    /// see [`llava_projector_params`]).
    #[serde(default)]
    pub projector_params: u64,
    /// Width of CLIP's own `visual_projection` (CLIPVisionModelWithProjection);
    /// 0 when the tower is loaded without it (what LLaVA does).
    #[serde(default)]
    pub projection_dim: u64,
    /// The tower's exact parameter count (projector excluded) when it is
    /// not CLIP-shaped: computed by the importer's formula for its family
    /// (Qwen-VL's ViT, ...); `None`: counted as a CLIP tower from the fields
    /// above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<u64>,
    /// How one encoder layer is built, which decides what it saves for
    /// backward (`activations` of a trained tower).
    #[serde(default, skip_serializing_if = "TowerBlock::is_clip")]
    pub block: TowerBlock,
    /// Of `layers`, those whose attention and MLP outputs pass a trained
    /// tanh gate (Llama 3.2 Vision's `num_global_layers`): each keeps the
    /// two gated tensors for the gates' gradients.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gated_layers: u64,
    /// The tower's model exposes no input embeddings to transformers'
    /// `get_input_embeddings` (Qwen3-VL's, Qwen3.5's, GLM-4V's), so
    /// `enable_input_require_grads` leaves it unhooked (see
    /// `training::saved::hooked_frozen_tower`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unhooked: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A vision tower's encoder layer. Written as its link key (`siglip`),
/// through the link's own reader: no second reader in the web's wasm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TowerBlock {
    /// `CLIPEncoderLayer`: pre-LayerNorm, biased q/k/v/out, MLP with
    /// `quick_gelu` (`x · sigmoid(1.702·x)`, built from two ops).
    #[default]
    Clip,
    /// `SiglipEncoderLayer` (PaliGemma, Gemma 3, LLaVA-OneVision, Idefics3):
    /// CLIP's layout with a fused tanh GELU.
    Siglip,
    /// `Qwen2VLVisionBlock`: CLIP's layout with one fused qkv (kept whole
    /// beside the rotated q and k) and quick_gelu.
    Qwen2Vl,
    /// `Qwen3VLVisionBlock` (Qwen3-VL, Qwen3.5): Qwen2-VL's with a fused
    /// tanh GELU.
    Qwen3Vl,
    /// `InternVLVisionLayer` (InternVL in transformers' format, no q/k
    /// norms): SigLIP's tensors plus the two layer scales' inputs; with
    /// `rms`, RMSNorms instead of LayerNorms (`norm_type`).
    InternVit,
    InternVitRms,
    /// The same with RMSNorms over the whole q and k projections
    /// (`use_qk_norm`, InternViT-6B's: always RMSNorm, whatever `norm_type`).
    InternVitQk,
    InternVitRmsQk,
    /// OpenGVLab's remote-code InternViT (`modeling_intern_vit.py` on the
    /// Hub: InternVL 1.5 to 3): the same layer with a fused qkv, whose
    /// `InternVisionEncoder` sets `gradient_checkpointing = True` in its
    /// constructor, so in training every layer keeps only its input and is
    /// recomputed in backward, whatever the trainer's setting. LayerNorm or
    /// RMSNorm (`norm_type`).
    InternVitRemote,
    InternVitRemoteRms,
    /// `Qwen2_5_VLVisionBlock`: RMSNorms, a fused qkv with rotary q and k,
    /// attention over windows (most layers) or the whole image, and a
    /// gated SiLU MLP with biases.
    Qwen25Vl,
    /// `PixtralAttentionLayer` (Pixtral, Mistral Small 3.1): a Llama-style
    /// block (RMSNorms, q/k/v/o without biases, 2D rotary, gated MLP) over
    /// all of the batch's patches as one sequence, the images kept apart by
    /// a block-diagonal additive mask (SDPA, eager).
    Pixtral,
    /// `Llama4VisionEncoderLayer`: a class token per tile, LayerNorms,
    /// biased q/k/v/o with a complex 2D rotary on fp32 copies of q and k,
    /// fc1 → GELU → fc2. What it saves for backward is SigLIP's.
    Llama4,
    /// `MllamaVisionEncoderLayer` (Llama 3.2 Vision): CLIP's layout with
    /// q/k/v/o without biases and an exact GELU, so SigLIP's saved tensors;
    /// each image's tile slots (a class token each, padded to a multiple
    /// of 8 tokens) run as one sequence under the aspect-ratio mask. The
    /// global layers gate their two branches (`VisionTower::gated_layers`).
    Mllama,
    /// Another family's layer (remote-code InternViT): its saved tensors
    /// were not measured; a GPT-2-style block stands in.
    Other,
}

/// The MLP of a tower layer, as the saved tensors and the forward's working
/// set see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TowerMlp {
    /// `quick_gelu` (`x · sigmoid(1.702·x)`): two tensors of width i.
    QuickGelu,
    /// A fused GELU (tanh or exact): one tensor of width i.
    Gelu,
    /// act(gate) · up (Qwen2.5-VL, Pixtral).
    Gated,
    /// A layer family that was not measured.
    Unknown,
}

impl TowerBlock {
    /// Its MLP's activation.
    pub fn mlp(self) -> TowerMlp {
        match self {
            TowerBlock::Clip | TowerBlock::Qwen2Vl => TowerMlp::QuickGelu,
            // Llama 4's exact GELU (`nn.GELU`) keeps its input, as the
            // fused tanh GELUs do.
            TowerBlock::Siglip
            | TowerBlock::Llama4
            | TowerBlock::Qwen3Vl
            | TowerBlock::InternVit
            | TowerBlock::InternVitRms
            | TowerBlock::InternVitQk
            | TowerBlock::InternVitRmsQk
            | TowerBlock::InternVitRemote
            | TowerBlock::InternVitRemoteRms
            | TowerBlock::Mllama => TowerMlp::Gelu,
            TowerBlock::Qwen25Vl | TowerBlock::Pixtral => TowerMlp::Gated,
            TowerBlock::Other => TowerMlp::Unknown,
        }
    }

    pub fn is_clip(&self) -> bool {
        *self == TowerBlock::Clip
    }
}

impl TowerBlock {
    /// Each layer family and its key in a link and in JSON.
    const KEYS: [(TowerBlock, &'static str); 15] = [
        (TowerBlock::Clip, "clip"),
        (TowerBlock::Siglip, "siglip"),
        (TowerBlock::Qwen2Vl, "qwen2_vl"),
        (TowerBlock::Qwen3Vl, "qwen3_vl"),
        (TowerBlock::Qwen25Vl, "qwen2_5_vl"),
        (TowerBlock::InternVit, "intern_vit"),
        (TowerBlock::InternVitRms, "intern_vit_rms"),
        (TowerBlock::InternVitQk, "intern_vit_qk"),
        (TowerBlock::InternVitRmsQk, "intern_vit_rms_qk"),
        (TowerBlock::InternVitRemote, "intern_vit_remote"),
        (TowerBlock::InternVitRemoteRms, "intern_vit_remote_rms"),
        (TowerBlock::Pixtral, "pixtral"),
        (TowerBlock::Llama4, "llama4"),
        (TowerBlock::Mllama, "mllama"),
        (TowerBlock::Other, "other"),
    ];

    pub fn key(self) -> &'static str {
        Self::KEYS
            .iter()
            .find(|(b, _)| *b == self)
            .map_or("other", |(_, k)| k)
    }

    /// Whether each tower pass adds a class token to its patches (CLIP,
    /// InternViT, Llama 4; Llama 3.2 Vision to each tile).
    pub fn class_token(self) -> bool {
        matches!(
            self,
            TowerBlock::Clip
                | TowerBlock::InternVit
                | TowerBlock::InternVitRms
                | TowerBlock::InternVitQk
                | TowerBlock::InternVitRmsQk
                | TowerBlock::InternVitRemote
                | TowerBlock::InternVitRemoteRms
                | TowerBlock::Llama4
                | TowerBlock::Mllama
        )
    }

    /// Whether the tower reads each image whole at its own resolution (the
    /// Qwen-VL towers), rather than as passes over fixed squares (tiles, crops).
    pub fn dynamic_resolution(self) -> bool {
        matches!(
            self,
            TowerBlock::Qwen2Vl | TowerBlock::Qwen3Vl | TowerBlock::Qwen25Vl
        )
    }

    /// Whether the batch's images run as one sequence whose attention spans
    /// it all, under a block-diagonal mask (Pixtral without FlashAttention).
    pub fn one_sequence(self) -> bool {
        self == TowerBlock::Pixtral
    }

    /// Whether eager attention's softmax runs in the input dtype (InternViT,
    /// Llama 4's `vision_eager_attention_forward`) rather than in fp32.
    pub fn input_dtype_softmax(self) -> bool {
        self.intern_vit() || self == TowerBlock::Llama4
    }

    /// InternViT's layers (layer scales; an input-dtype eager softmax).
    pub fn intern_vit(self) -> bool {
        matches!(
            self,
            TowerBlock::InternVit
                | TowerBlock::InternVitRms
                | TowerBlock::InternVitQk
                | TowerBlock::InternVitRmsQk
                | TowerBlock::InternVitRemote
                | TowerBlock::InternVitRemoteRms
        )
    }

    /// InternViT's RMSNorm layers (`norm_type: rms_norm`).
    pub fn rms_norm(self) -> bool {
        matches!(
            self,
            TowerBlock::InternVitRms | TowerBlock::InternVitRmsQk | TowerBlock::InternVitRemoteRms
        )
    }

    /// transformers' InternViT layers with q/k RMSNorms (`use_qk_norm`).
    pub fn qk_norm(self) -> bool {
        matches!(self, TowerBlock::InternVitQk | TowerBlock::InternVitRmsQk)
    }

    /// Whether the tower checkpoints its own layers in training whatever
    /// the trainer asks (OpenGVLab's remote-code InternViT).
    pub fn always_checkpointed(self) -> bool {
        matches!(
            self,
            TowerBlock::InternVitRemote | TowerBlock::InternVitRemoteRms
        )
    }
}

impl TryFrom<String> for TowerBlock {
    type Error = String;
    fn try_from(text: String) -> std::result::Result<Self, String> {
        TowerBlock::KEYS
            .iter()
            .find(|(_, k)| *k == text)
            .map(|(b, _)| *b)
            .ok_or_else(|| {
                format!("\"{text}\" is not a tower layer: clip, siglip, qwen2_vl, qwen3_vl, qwen2_5_vl, intern_vit, intern_vit_rms, intern_vit_remote, intern_vit_remote_rms, pixtral, llama4, mllama or other")
            })
    }
}

impl From<TowerBlock> for String {
    fn from(block: TowerBlock) -> String {
        block.key().to_owned()
    }
}

impl Arch {
    /// Encoders (BERT, DeBERTa): inference is one forward pass over the
    /// input, with no KV cache and nothing generated.
    pub fn is_encoder_only(self) -> bool {
        matches!(self, Arch::Bert | Arch::DebertaV2)
    }
}

/// Everything the estimator needs to know about a model.
///
/// Fields after `approximate` describe layout details that only change the
/// parameter count; they default to the architecture's usual layout.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(PartialEq, Eq))]
pub struct ModelSpec {
    #[serde(default)]
    pub name: String,
    pub arch: Arch,
    pub hidden: u64,
    /// Decoder layers (encoder-only models: encoder layers).
    pub layers: u64,
    pub heads: u64,
    pub kv_heads: u64,
    /// Per-head width; `None` means `hidden / heads`.
    #[serde(default)]
    pub head_dim: Option<u64>,
    /// Width of a value head when it differs from a query/key head's
    /// (MiMo-V2-Flash: keys 192 wide, values 128); `None`: `head_dim`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_head_dim: Option<u64>,
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
    /// Bias on the attention output and (unless `mlp_bias` says otherwise) the MLP projections.
    #[serde(default)]
    pub out_bias: bool,
    #[serde(default)]
    pub moe: Option<Moe>,
    /// Of `encoder_layers`, those whose feed-forward is [`ModelSpec::moe`]
    /// (Switch Transformers' sparse encoder layers; the decoder's are the
    /// layers beside `moe.dense_layers`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub encoder_moe_layers: u64,
    #[serde(default)]
    pub mla: Option<Mla>,
    #[serde(default)]
    pub sliding_window: Option<SlidingWindow>,
    /// Encoder layers of an encoder-decoder model (T5); `layers` is then the decoder.
    #[serde(default)]
    pub encoder_layers: Option<u64>,
    /// Tokens the encoder always runs over, whatever the input: Whisper's
    /// `max_source_positions` (1,500 frames: 30 s of audio padded, or one
    /// 30 s window of a longer file); `None`: the input's length.
    #[serde(default)]
    pub encoder_tokens: Option<u64>,
    /// Elements per sample Whisper's convolution stem keeps for backward
    /// when it trains: its mel input (2·frames·mels), the first
    /// convolution's output and its GELU's (2·frames·hidden each) and the
    /// second's output (frames·hidden); 0 without such a stem.
    #[serde(default)]
    pub encoder_stem: u64,
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
    /// Attention and MLP read the same normed input (Phi, Falcon, GPT-J).
    #[serde(default)]
    pub parallel_block: bool,
    /// Hidden-width norms per layer; `None`: the architecture's default
    /// (2; Gemma-2/3: 4; a parallel block: 1).
    #[serde(default)]
    pub norms_per_layer: Option<u64>,
    /// Biases on the MLP projections; `None`: same as `out_bias`.
    #[serde(default)]
    pub mlp_bias: Option<bool>,
    /// The output head has a bias (Phi).
    #[serde(default)]
    pub lm_head_bias: bool,
    /// Width of the token embedding when it differs from `hidden` (OPT-350m:
    /// 512, with `project_in`/`project_out` linears).
    #[serde(default)]
    pub embed_proj_dim: Option<u64>,
    /// Whether a norm follows the last layer; `None`: the architecture's
    /// default (yes, except BERT and DeBERTa).
    #[serde(default)]
    pub final_norm: Option<bool>,
    /// Embedding rows beyond the vocabulary: BERT's token-type table (2),
    /// or Llama 3.2 Vision's 8 extra rows of `embed_tokens`
    /// (`nn.Embedding(vocab_size + 8, hidden)`), which the untied head lacks.
    #[serde(default)]
    pub type_vocab: u64,
    /// Relative-position buckets (T5: `relative_attention_num_buckets`, default
    /// 32; DeBERTa: `position_buckets`).
    #[serde(default)]
    pub relative_attention_buckets: Option<u64>,
    /// Every self-attention layer learns its own relative-position bias
    /// (UMT5), where T5 learns one per stack in the first layer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub relative_bias_every_layer: bool,
    /// Each decoder layer of an encoder-decoder reads the encoder through
    /// its own attention (T5Gemma 2's `T5Gemma2MergedAttention`): the same
    /// q/k/v/o project the encoder's output, whose keys and values follow
    /// the decoder's in one softmax, so there is no cross-attention block.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merged_cross_attention: bool,
    /// LongT5's encoder attends within blocks of `local_radius + 1` tokens
    /// and their two neighbours (`None`: full attention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_radius: Option<u64>,
    /// ... plus, for transient-global attention, one summary of every
    /// `global_block_size` tokens (`None`: local attention only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_block: Option<u64>,
    /// Kernel width of DeBERTa-v2's convolution after the first layer; 0: none.
    #[serde(default)]
    pub conv_kernel: u64,
    /// Labels of a sequence-classification head on an encoder (0: no head).
    #[serde(default)]
    pub classifier_labels: u64,
    /// Query/key norms; `None`: the architecture's default.
    #[serde(default)]
    pub qk_norm: Option<QkNorm>,
    /// Layers with a recurrent token mixer (hybrid and state-space models).
    #[serde(default)]
    pub recurrent: Option<Recurrent>,
    /// Layers with softmax attention; `None`: the layers without a
    /// recurrent mixer (Falcon-H1 runs both in every layer; Nemotron-H has
    /// feed-forward-only layers).
    #[serde(default)]
    pub attention_layers: Option<u64>,
    /// Of `layers`, those that attend to the image instead of the text
    /// (Llama 3.2 Vision's `cross_attention_layers`,
    /// `MllamaCrossAttentionDecoderLayer`): q from the text, K and V from
    /// the vision tower's tokens. They keep a fixed cache per image instead
    /// of a per-token one, and carry q/k norms and two tanh gates.
    #[serde(default)]
    pub cross_attention_layers: u64,
    /// Layers with a feed-forward (dense or MoE); `None`: every layer.
    #[serde(default)]
    pub mlp_layers: Option<u64>,
    /// The query projection also yields a sigmoid gate on the attention
    /// output (Qwen3-Next, Qwen3.5): q_proj is twice as wide.
    #[serde(default)]
    pub gated_attention: bool,
    /// The plain MLP's activation is ReLU where the family's is not
    /// (M2M-100's `activation_function`): it saves its output once, for the
    /// down projection.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub relu_mlp: bool,
    /// Training drops the attention probabilities where the family's
    /// default does not (a BART-family `attention_dropout` above 0: PLBart,
    /// M2M-100).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub probability_dropout: bool,
    /// Parameters per layer of modules the fields above do not describe,
    /// counted by the importer from the config (DeepSeek-V3.2's indexer).
    #[serde(default)]
    pub layer_extra_params: u64,
    /// Parameters outside the layers that the fields above do not
    /// describe, counted by the importer from the config (Gemma 3n's AltUp
    /// projections into and out of its extra residual streams).
    #[serde(default)]
    pub model_extra_params: u64,
    /// The full-attention layers' own heads (Gemma 4); `None`: every
    /// attention layer has the common heads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_attention: Option<GlobalAttention>,
    /// The last layers reuse an earlier layer's keys and values (Gemma 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_sharing: Option<KvSharing>,
    /// Compressed attention beside a window on every layer (DeepSeek-V4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed_attention: Option<CompressedAttention>,
    /// The attention kernels transformers offers the language model
    /// (`model/kernels.rs`): without SDPA its default runs eager.
    #[serde(default, skip_serializing_if = "kernels::HfKernels::is_all")]
    pub hf_kernels: kernels::HfKernels,
    /// How the family's eager attention holds its scores where it is not
    /// its architecture's (Flint, MiMo-V2-Flash, Granite-SWA, MPT).
    #[serde(default, skip_serializing_if = "kernels::EagerPath::is_architecture")]
    pub eager_path: kernels::EagerPath,
    /// Per-layer embeddings (Gemma 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_layer_input: Option<PerLayerInput>,
    /// A QSA indexer on the attention layers (Qwen4-Exp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qsa_indexer: Option<QsaIndexer>,
    /// A fixed state beside every attention layer's cache (ZAYA's CCA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention_state: Option<AttentionState>,
    /// Of the layer runs (`layers`), those that keep their activations for
    /// the backward (HRM-Text runs its earlier L-stack passes under
    /// `torch.no_grad()`); `None`: every run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_runs: Option<u64>,
    /// A block-diffusion model's canvas (DiffusionGemma's `canvas_length`):
    /// each generation step denoises this many tokens at once; `None`:
    /// one token a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canvas: Option<u64>,
    /// Parameters transformers keeps in fp32 when it loads the model in 16
    /// bits (`_keep_in_fp32_modules_strict`: MoE routers, Apertus 1.5's
    /// tokenizers, GLM-5.3-Flash's KDA gates and connection biases).
    #[serde(default)]
    pub fp32_params: u64,
    /// Hyper-connections (DeepSeek-V4, GLM-5.3-Flash, HY-V4, Qwen4-Exp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyper_connections: Option<HyperConnections>,
    /// N-gram per-layer embeddings (Qwen4-Exp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ngram_embedding: Option<NgramEmbedding>,
    /// How the VLM turns an image's width × height into tokens (Qwen-VL's
    /// dynamic resolution, tiles, ...); `None`: the tower's own square
    /// image, `(image_size / patch_size)²` tokens (LLaVA-1.5).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::image_tokens::text::rule_text"
    )]
    pub image_rule: Option<crate::image_tokens::ImageRule>,
    /// The video processor transformers maps the model to
    /// (`video_processing_auto`); `None`: the model takes no video.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoFamily>,
}

/// A VLM's video processor, with the tower's temporal patch; its spatial
/// patch and merge are the image rule's. Written as the link writes it
/// (`qwen2:2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum VideoFamily {
    /// `Qwen2VLVideoProcessor` (qwen2_vl, qwen2_5_vl).
    Qwen2 { temporal: u64 },
    /// `Qwen3VLVideoProcessor` (qwen3_vl, qwen3_5 and their MoE twins).
    Qwen3 { temporal: u64 },
    /// `VideoLlavaVideoProcessor`: each frame a tower pass at the tower's
    /// own square (written `frames:1`).
    Frames,
}

impl VideoFamily {
    /// The token rule, with the patch and merge of the model's Qwen-VL
    /// image rule, or the square of its vision tower for frames; `None`
    /// without one.
    pub fn rule(self, spec: &ModelSpec) -> Option<crate::video_tokens::VideoRule> {
        use crate::video_tokens::VideoRule;
        if self == VideoFamily::Frames {
            let tower = spec.vision.as_ref()?;
            let side = tower.image_size / tower.patch_size.max(1);
            return (side > 0).then_some(VideoRule::Frames { side });
        }
        let Some(crate::image_tokens::ImageRule::QwenVl { patch, merge, .. }) =
            spec.image_rule.as_ref()
        else {
            return None;
        };
        Some(match self {
            VideoFamily::Qwen2 { temporal } => VideoRule::qwen2(*patch, *merge, temporal),
            VideoFamily::Qwen3 { temporal } => VideoRule::qwen3(*patch, *merge, temporal),
            VideoFamily::Frames => return None,
        })
    }

    /// As a link writes it: `qwen2:2`.
    pub fn to_text(self) -> String {
        match self {
            VideoFamily::Qwen2 { temporal } => format!("qwen2:{temporal}"),
            VideoFamily::Qwen3 { temporal } => format!("qwen3:{temporal}"),
            VideoFamily::Frames => "frames:1".to_owned(),
        }
    }

    pub fn from_text(text: &str) -> std::result::Result<VideoFamily, String> {
        Self::try_from(text.to_owned())
    }
}

impl From<VideoFamily> for String {
    fn from(family: VideoFamily) -> String {
        family.to_text()
    }
}

impl TryFrom<String> for VideoFamily {
    type Error = String;
    fn try_from(text: String) -> std::result::Result<Self, String> {
        let (family, temporal) = text
            .split_once(':')
            .ok_or_else(|| format!("\"{text}\" is not FAMILY:TEMPORAL (qwen2:2)"))?;
        let temporal: u64 = temporal
            .parse()
            .ok()
            .filter(|t| (1..=64).contains(t))
            .ok_or_else(|| format!("temporal patch \"{temporal}\": a whole number from 1 to 64"))?;
        match family {
            "qwen2" => Ok(VideoFamily::Qwen2 { temporal }),
            "qwen3" => Ok(VideoFamily::Qwen3 { temporal }),
            "frames" if temporal == 1 => Ok(VideoFamily::Frames),
            "frames" => Err(format!("frames:{temporal}: frames are one each (frames:1)")),
            other => Err(format!(
                "\"{other}\" is not a video family: qwen2, qwen3 or frames"
            )),
        }
    }
}

impl Recurrent {
    /// Tokens per chunk the scan works in: the config's, else the kind's
    /// default. Mamba2Config, FalconH1Config and GraniteMoeHybridConfig
    /// default `chunk_size` / `mamba_chunk_size` to 256 and MiniMaxConfig
    /// `block_size` to 256; transformers' `torch_chunk_gated_delta_rule` and
    /// FLA's `chunk_gated_delta_rule` fix Gated DeltaNet's at 64. Mamba-1
    /// and the short convolution scan no chunks (1).
    pub fn chunk_len(&self) -> u64 {
        match (self.kind, self.chunk) {
            // fla's chunk_kda and transformers' fallback also work in 64
            (RecurrentKind::GatedDeltaNet | RecurrentKind::KimiDelta, _) => 64,
            (RecurrentKind::Mamba | RecurrentKind::ShortConv | RecurrentKind::RgLru, _) => 1,
            (_, 0) => 256,
            (_, n) => n,
        }
    }

    fn validate(&self, layers: u64) -> Result<()> {
        check_range("model.recurrent.layers", self.layers, 0, layers)?;
        check_range("model.recurrent.inner", self.inner, 1, MAX_DIM)?;
        check_range("model.recurrent.heads", self.heads, 0, MAX_HEADS)?;
        check_range("model.recurrent.groups", self.groups, 0, MAX_HEADS)?;
        check_range("model.recurrent.state", self.state, 0, MAX_HEADS)?;
        // Real kernels are 2 to 4 wide; LFM2's `conv_L_cache` is 3.
        check_range("model.recurrent.conv_kernel", self.conv_kernel, 0, 64)?;
        check_range("model.recurrent.dt_rank", self.dt_rank, 0, MAX_DIM)?;
        check_range("model.recurrent.chunk", self.chunk, 0, MAX_POSITION)?;
        let needs_heads = matches!(
            self.kind,
            RecurrentKind::Mamba2
                | RecurrentKind::GatedDeltaNet
                | RecurrentKind::Lightning
                | RecurrentKind::KimiDelta
                | RecurrentKind::RgLru
                | RecurrentKind::Mlstm
        );
        if needs_heads && (self.heads == 0 || !self.inner.is_multiple_of(self.heads)) {
            return Err(InputError::new(
                "model.recurrent.heads",
                format!(
                    "{} must be at least 1 and divide recurrent.inner ({}) for {}",
                    self.heads,
                    self.inner,
                    self.kind.key()
                ),
            ));
        }
        Ok(())
    }
}

/// The architecture limits live with every other limit (`scenario::limits`).
pub use crate::scenario::limits::{
    MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS, MAX_NORMS_PER_LAYER, MAX_POSITION,
    MAX_TOTAL_PARAMS,
};

/// Parameters of the transformer layers, by tensor group (element counts),
/// summed over all layers.
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
    /// Biases of the linear layers and other small per-layer vectors
    /// (attention sinks); kept in 16-bit when the weights are quantized.
    pub biases: u64,
    /// Input and output projections of recurrent mixers (Mamba, Gated
    /// DeltaNet, short convolutions); their small vectors and convolution
    /// kernels are in `biases`.
    #[serde(default)]
    pub mixer: u64,
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
        self.attention() + self.mlp() + self.mixer
    }
    pub fn total(&self) -> u64 {
        self.linear() + self.router + self.norms + self.biases
    }
}

/// Parameter counts by group (element counts, not bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamCounts {
    pub total: u64,
    /// Token (and learned position and token-type) embeddings.
    pub embedding: u64,
    /// Untied output head (plus its bias); 0 when tied to the embedding.
    pub lm_head: u64,
    /// Sum over all transformer layers (decoder + encoder).
    pub layers: LayerParams,
    /// Final norms, poolers, classifier heads, relative-position tables and
    /// other small tensors outside the layers.
    pub other: u64,
    pub vision: u64,
    pub projector: u64,
    /// Parameters one token actually uses (differs from `total` for MoE).
    pub active_per_token: u64,
}

impl ModelSpec {
    pub fn head_dim(&self) -> u64 {
        self.head_dim
            .unwrap_or_else(|| self.hidden / self.heads.max(1))
    }

    /// The encoder's blocked attention, when it has one (LongT5).
    pub fn local_attention(&self) -> Option<LocalAttention> {
        Some(LocalAttention {
            radius: self.local_radius?,
            global_block: self.global_block.unwrap_or(0),
        })
    }

    /// The layer runs that save activations for the backward: every run
    /// but HRM-Text's under `torch.no_grad()` ([`ModelSpec::grad_runs`]).
    pub fn saving_runs(&self) -> u64 {
        self.grad_runs.unwrap_or(self.layers)
    }

    /// Width of a value head: `value_head_dim`, else a key head's `d`.
    pub fn value_dim(&self, d: u64) -> u64 {
        self.value_head_dim.unwrap_or(d)
    }

    /// The longest context the model itself takes: its position limit
    /// (`max_position_embeddings`), or the estimator's limit for models with
    /// relative positions, none stated (0) or none at all (state-space models).
    pub fn context_limit(&self) -> u64 {
        match self.max_position {
            0 => crate::scenario::limits::MAX_TOKENS,
            n => n.min(crate::scenario::limits::MAX_TOKENS),
        }
    }
    /// The kernels transformers offers this model: its family's, and eager
    /// only for compressed attention, whatever the spec says
    /// (`DeepseekV4PreTrainedModel`: no kernel for its 512-wide heads with
    /// sinks; links written before `hf_kernels` existed say nothing).
    pub fn transformers_kernels(&self) -> kernels::HfKernels {
        if self.compressed_attention.is_some() {
            kernels::HfKernels::EagerOnly
        } else {
            self.hf_kernels
        }
    }

    /// Layers with softmax self-attention (the ones that keep a per-token
    /// KV cache): neither recurrent nor cross-attention layers.
    pub fn attention_layer_count(&self) -> u64 {
        self.attention_layers
            .unwrap_or_else(|| {
                let recurrent = self.recurrent.as_ref().map_or(0, |r| r.layers);
                self.layers
                    .saturating_sub(recurrent)
                    .saturating_sub(self.cross_attention_layers)
            })
            .min(self.layers)
    }

    /// Attention layers that keep their own keys and values, and of those
    /// the sliding-window ones: all but the layers that reuse an earlier
    /// layer's (Gemma 4's `num_kv_shared_layers`).
    pub fn cached_attention_layers(&self) -> (u64, u64) {
        let all = self.attention_layer_count();
        let sliding = self
            .sliding_window
            .as_ref()
            .map_or(0, |w| w.layers.min(all));
        let (shared_sliding, shared_global) = self
            .kv_sharing
            .as_ref()
            .map_or((0, 0), |s| (s.sliding, s.global));
        let sliding_cached = sliding.saturating_sub(shared_sliding);
        let global_cached = (all - sliding).saturating_sub(shared_global);
        (sliding_cached + global_cached, sliding_cached)
    }

    /// Keys and values per token of one full-attention layer and of one
    /// sliding-window layer, as elements (K and V), with `tp` ranks
    /// splitting the KV heads. Gemma 4's global layers have heads of their
    /// own; every other model's layers are alike.
    pub fn kv_widths(&self, tp: u128) -> (u128, u128) {
        let heads = |kv: u64| (kv as u128).div_ceil(tp.max(1)).max(1);
        // K and V of `kv` heads, keys `d` wide, values as wide as theirs
        let width = |kv: u64, d: u64| heads(kv) * (d + self.value_dim(d)) as u128;
        let common = width(self.kv_heads, self.head_dim());
        let global = self
            .global_attention
            .as_ref()
            .map_or(common, |g| width(g.kv_heads, g.head_dim));
        (global, common)
    }

    /// Elements of the largest weight tensor: the token embedding, an MLP
    /// projection, or Gemma 4's per-layer embedding table.
    pub fn largest_weight_elements(&self) -> u128 {
        let h = self.hidden as u128;
        let table = self.per_layer_input.as_ref().map_or(0, |p| {
            p.vocab as u128 * self.layers as u128 * p.width as u128
        });
        // one layer's n-gram table: the mean of the layers' (their rows
        // differ by a few primes in hundreds of millions)
        let ngram = self.ngram_embedding.as_ref().map_or(0, |n| {
            n.table_params().div_ceil(u128::from(n.layers.max(1)))
        });
        (self.vocab as u128 * h)
            .max(h * self.intermediate as u128)
            .max(table)
            .max(ngram)
    }

    /// Layers with a feed-forward block.
    pub fn mlp_layer_count(&self) -> u64 {
        self.mlp_layers.unwrap_or(self.layers).min(self.layers)
    }

    /// The query/key norms, the config's or the family's.
    pub fn qk_norm_kind(&self) -> QkNorm {
        self.qk_norm.unwrap_or(match self.arch {
            Arch::Qwen3 | Arch::Qwen3Moe | Arch::Gemma3 => QkNorm::Head,
            _ => QkNorm::Off,
        })
    }

    /// Checks every field against its allowed range and the relations between
    /// them, then that the total parameter count stays under [`MAX_TOTAL_PARAMS`].
    pub fn validate(&self) -> Result<()> {
        check_range("model.hidden", self.hidden, 1, MAX_DIM)?;
        check_range("model.layers", self.layers, 1, MAX_LAYERS)?;
        check_range("model.heads", self.heads, 1, MAX_HEADS)?;
        if self.kv_heads == 0 || self.kv_heads > self.heads {
            return Err(InputError::new(
                "model.kv_heads",
                format!(
                    "{} is out of range: allowed 1 to heads ({})",
                    self.kv_heads, self.heads
                ),
            ));
        }
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(InputError::new(
                "model.kv_heads",
                format!("{} must divide heads ({})", self.kv_heads, self.heads),
            ));
        }
        match self.head_dim {
            Some(d) => {
                check_range("model.head_dim", d, 1, MAX_HEADS)?;
            }
            None => {
                if !self.hidden.is_multiple_of(self.heads) {
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
        // A vision tower alone has no vocabulary.
        let min_vocab = u64::from(self.arch != Arch::ClipVision);
        check_range("model.vocab", self.vocab, min_vocab, MAX_DIM)?;
        check_range("model.max_position", self.max_position, 0, MAX_POSITION)?;
        self.validate_parts()?;
        if let Some(c) = &self.compressed_attention {
            c.validate(self.attention_layer_count(), MAX_POSITION, MAX_HEADS)?;
        }
        if let Some(q) = &self.qsa_indexer {
            check_range("model.qsa_indexer.heads", q.heads, 2, MAX_HEADS)?;
            check_range("model.qsa_indexer.head_dim", q.head_dim, 1, MAX_HEADS)?;
            let attention = self.attention_layer_count();
            check_range("model.qsa_indexer.layers", q.layers, 0, attention)?;
        }
        if let Some(n) = &self.ngram_embedding {
            n.validate(self.layers, MAX_DIM)?;
        }
        if let Some(a) = &self.attention_state {
            check_range(
                "model.attention_state.conv_channels",
                a.conv_channels,
                0,
                MAX_DIM,
            )?;
            check_range("model.attention_state.conv_steps", a.conv_steps, 0, 256)?;
            check_range("model.attention_state.values", a.values, 0, MAX_DIM)?;
            check_range("model.attention_state.extra", a.extra, 0, MAX_TOTAL_PARAMS)?;
        }
        if let Some(canvas) = self.canvas {
            check_range("model.canvas", canvas, 1, MAX_POSITION)?;
        }
        if let Some(runs) = self.grad_runs {
            check_range("model.grad_runs", runs, 0, self.layers)?;
        }
        if let Some(hc) = &self.hyper_connections {
            check_range("model.hyper_connections.streams", hc.streams, 1, 64)?;
            match hc.kind {
                HyperKind::Manifold { sinkhorn_iters, .. } => {
                    check_range(
                        "model.hyper_connections.sinkhorn_iters",
                        sinkhorn_iters,
                        1,
                        1000,
                    )?;
                }
                HyperKind::LowRank { rank } => {
                    check_range("model.hyper_connections.rank", rank, 1, MAX_DIM)?;
                }
                HyperKind::Independent => {}
            }
        }
        layer_variants::validate(
            self.global_attention.as_ref(),
            self.kv_sharing.as_ref(),
            self.per_layer_input.as_ref(),
            (
                self.heads,
                self.attention_layer_count(),
                self.sliding_window.as_ref().map_or(0, |w| w.layers),
                MAX_DIM,
                MAX_HEADS,
            ),
        )?;
        self.validate_layout()?;
        let total = self.wide_total();
        if total > u128::from(MAX_TOTAL_PARAMS) {
            return Err(InputError::new(
                "model",
                format!(
                    "the architecture has {total} parameters: allowed at most {MAX_TOTAL_PARAMS} (2^44)"
                ),
            ));
        }
        if let Some(p) = self.params_override {
            check_range("model.params_override", p, 1, MAX_TOTAL_PARAMS)?;
        }
        Ok(())
    }

    /// Layer counts of each kind and the parameters no field describes.
    fn validate_counts(&self) -> Result<()> {
        check_range(
            "model.cross_attention_layers",
            self.cross_attention_layers,
            0,
            self.layers,
        )?;
        if let Some(n) = self.attention_layers {
            check_range("model.attention_layers", n, 0, self.layers)?;
        }
        if let Some(n) = self.mlp_layers {
            check_range("model.mlp_layers", n, 0, self.layers)?;
        }
        if let Some(dv) = self.value_head_dim {
            check_range("model.value_head_dim", dv, 1, MAX_HEADS)?;
        }
        for (field, value, max) in [
            (
                "model.layer_extra_params",
                self.layer_extra_params,
                MAX_TOTAL_PARAMS / MAX_LAYERS,
            ),
            (
                "model.model_extra_params",
                self.model_extra_params,
                MAX_TOTAL_PARAMS,
            ),
        ] {
            check_range(field, value, 0, max)?;
        }
        if let Some(n) = self.encoder_tokens {
            check_range("model.encoder_tokens", n, 1, MAX_POSITION)?;
        }
        check_range("model.encoder_stem", self.encoder_stem, 0, MAX_TOTAL_PARAMS)?;
        if let Some(e) = self.encoder_layers {
            check_range("model.encoder_layers", e, 0, MAX_LAYERS)?;
        }
        Ok(())
    }

    /// Optional sub-structures: MoE, MLA, sliding window, encoder, vision.
    fn validate_parts(&self) -> Result<()> {
        if let Some(moe) = &self.moe {
            check_range("model.moe.experts", moe.experts, 1, MAX_EXPERTS)?;
            check_range(
                "model.moe.experts_per_token",
                moe.experts_per_token,
                1,
                moe.experts,
            )?;
            check_range("model.moe.shared_experts", moe.shared_experts, 0, 64)?;
            check_range(
                "model.moe.expert_intermediate",
                moe.expert_intermediate,
                1,
                MAX_DIM,
            )?;
            if let Some(s) = moe.shared_intermediate {
                check_range("model.moe.shared_intermediate", s, 1, MAX_DIM)?;
            }
            check_range("model.moe.dense_layers", moe.dense_layers, 0, self.layers)?;
            check_range("model.moe.latent", moe.latent, 0, MAX_DIM)?;
        }
        if let Some(mla) = &self.mla {
            if let Some(q) = mla.q_lora_rank {
                check_range("model.mla.q_lora_rank", q, 1, MAX_DIM)?;
            }
            check_range("model.mla.kv_lora_rank", mla.kv_lora_rank, 1, MAX_DIM)?;
            check_range("model.mla.nope_layers", mla.nope_layers, 0, self.layers)?;
            if let Some(sw) = &mla.sliding {
                check_range(
                    "model.mla.sliding.kv_lora_rank",
                    sw.kv_lora_rank,
                    1,
                    MAX_DIM,
                )?;
                check_range(
                    "model.mla.sliding.qk_rope_head_dim",
                    sw.qk_rope_head_dim,
                    0,
                    MAX_HEADS,
                )?;
            }
            if let Some(ix) = &mla.indexer {
                check_range("model.mla.indexer.head_dim", ix.head_dim, 1, MAX_HEADS)?;
                check_range("model.mla.indexer.heads", ix.heads, 1, MAX_HEADS)?;
                check_range("model.mla.indexer.layers", ix.layers, 0, self.layers)?;
                check_range("model.mla.indexer.pool", ix.pool, 0, MAX_POSITION)?;
                check_range("model.mla.indexer.key_bytes", ix.key_bytes, 0, 8)?;
            }
            check_range(
                "model.mla.qk_nope_head_dim",
                mla.qk_nope_head_dim,
                0,
                MAX_HEADS,
            )?;
            check_range(
                "model.mla.qk_rope_head_dim",
                mla.qk_rope_head_dim,
                0,
                MAX_HEADS,
            )?;
            check_range("model.mla.v_head_dim", mla.v_head_dim, 1, MAX_HEADS)?;
            if mla.qk_nope_head_dim + mla.qk_rope_head_dim == 0 {
                return Err(InputError::new(
                    "model.mla.qk_nope_head_dim",
                    "qk_nope_head_dim + qk_rope_head_dim must be at least 1",
                ));
            }
        }
        if let Some(sw) = &self.sliding_window {
            check_range("model.sliding_window.window", sw.window, 1, MAX_POSITION)?;
            check_range("model.sliding_window.layers", sw.layers, 0, self.layers)?;
        }
        if let Some(r) = &self.recurrent {
            r.validate(self.layers)?;
        }
        self.validate_counts()?;
        match &self.vision {
            Some(v) => {
                check_range("model.vision.hidden", v.hidden, 1, MAX_DIM)?;
                check_range("model.vision.layers", v.layers, 1, MAX_LAYERS)?;
                check_range("model.vision.heads", v.heads, 1, MAX_HEADS)?;
                if !v.hidden.is_multiple_of(v.heads) {
                    return Err(InputError::new(
                        "model.vision.heads",
                        format!("{} must divide vision.hidden ({})", v.heads, v.hidden),
                    ));
                }
                check_range("model.vision.intermediate", v.intermediate, 1, MAX_DIM)?;
                check_range("model.vision.image_size", v.image_size, 1, MAX_IMAGE_SIZE)?;
                check_range("model.vision.patch_size", v.patch_size, 1, v.image_size)?;
                check_range(
                    "model.vision.projector_params",
                    v.projector_params,
                    0,
                    MAX_TOTAL_PARAMS,
                )?;
                check_range("model.vision.projection_dim", v.projection_dim, 0, MAX_DIM)?;
                if let Some(p) = v.params {
                    check_range("model.vision.params", p, 1, MAX_TOTAL_PARAMS)?;
                }
            }
            None => {
                if matches!(self.arch, Arch::ClipVision | Arch::Llava) {
                    return Err(InputError::new(
                        "model.vision",
                        "is required for a vision model (clip_vision, llava)",
                    ));
                }
            }
        }
        if let Some(rule) = &self.image_rule {
            rule.validate()?;
        }
        Ok(())
    }

    /// Layout details that only change the parameter count.
    fn validate_layout(&self) -> Result<()> {
        if let Some(n) = self.norms_per_layer {
            check_range("model.norms_per_layer", n, 0, MAX_NORMS_PER_LAYER)?;
        }
        if let Some(p) = self.embed_proj_dim {
            check_range("model.embed_proj_dim", p, 1, MAX_DIM)?;
        }
        check_range("model.type_vocab", self.type_vocab, 0, MAX_DIM)?;
        if let Some(b) = self.relative_attention_buckets {
            check_range("model.relative_attention_buckets", b, 1, MAX_DIM)?;
        }
        if let Some(r) = self.local_radius {
            check_range("model.local_radius", r, 0, MAX_POSITION)?;
        }
        if let Some(g) = self.global_block {
            check_range("model.global_block", g, 1, MAX_POSITION)?;
        }
        let encoder_moe = if self.moe.is_some() {
            self.encoder_layers.unwrap_or(0)
        } else {
            0
        };
        check_range(
            "model.encoder_moe_layers",
            self.encoder_moe_layers,
            0,
            encoder_moe,
        )?;
        // Real DeBERTa models use 3; anything wider than 64 is a typo.
        check_range("model.conv_kernel", self.conv_kernel, 0, 64)?;
        check_range(
            "model.classifier_labels",
            self.classifier_labels,
            0,
            MAX_DIM,
        )?;
        Ok(())
    }

    /// Exact parameter counts by group. Never panics: dimensions beyond the
    /// ranges `validate` accepts are clamped to them, and sums saturate at
    /// `u64::MAX`, so call `validate` first for meaningful figures.
    pub fn param_counts(&self) -> ParamCounts {
        params::WideCounts::of(self).narrow()
    }

    /// The total parameter count (`params_override` when given).
    pub fn total_params(&self) -> u64 {
        self.params_override
            .unwrap_or_else(|| self.param_counts().total)
    }

    /// The total in 128-bit arithmetic, for the overflow guard of `validate`.
    fn wide_total(&self) -> u128 {
        params::WideCounts::of(self).total()
    }
}
