//! Layers that differ from the model's common layer, as Gemma 4 builds them
//! (`modeling_gemma4.py` in transformers 5.24): full-attention layers with
//! heads of their own, the last layers reading an earlier layer's keys and
//! values instead of projecting their own, and per-layer embeddings; and
//! DeepSeek-V4's compressed attention (`modeling_deepseek_v4.py`).

use serde::{Deserialize, Serialize};

use crate::error::{check_range, InputError, Result};

/// The full-attention (global) layers' heads, where they differ from the
/// sliding-window layers' (`Gemma4TextConfig`: `global_head_dim`, and
/// `num_global_key_value_heads` when `attention_k_eq_v`; a saved config's
/// `per_layer_config`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalAttention {
    pub head_dim: u64,
    pub kv_heads: u64,
    /// The values are the keys before their norm (`attention_k_eq_v`): no
    /// `v_proj`. The cache still holds V as its own tensor (measured).
    #[serde(default)]
    pub values_from_keys: bool,
}

/// The last layers attend over keys and values an earlier layer of their
/// type stored (`num_kv_shared_layers`): they have no k/v projections and
/// no k-norm, and keep no cache (`DummyLayer`, measured).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KvSharing {
    /// Of those layers, how many slide.
    pub sliding: u64,
    /// How many attend globally.
    pub global: u64,
    /// Their MLP is twice `intermediate` wide (`use_double_wide_mlp`).
    #[serde(default)]
    pub double_wide_mlp: bool,
}

impl KvSharing {
    pub fn layers(&self) -> u64 {
        self.sliding.saturating_add(self.global)
    }
}

/// Per-layer embeddings (`hidden_size_per_layer_input`): a table of `vocab`
/// rows × layers·`width` (`embed_tokens_per_layer`), a projection of the
/// token embeddings to layers·`width` and its norm; in every layer a gate
/// (hidden → width), a projection back (width → hidden) and a norm. The
/// model builds all layers' inputs, (tokens, layers·width), before layer 0
/// and keeps them through the forward.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerLayerInput {
    pub width: u64,
    pub vocab: u64,
}

/// DeepSeek-V4's attention (`DeepseekV4Attention`): every layer attends
/// over a window (`sliding_window`) of one head that is both key and value
/// (`head_dim` wide); a compressed-sparse (CSA) layer also over one
/// compressed entry per `csa_rate` tokens, chosen by a lightning indexer
/// that compresses keys of its own (`index_head_dim`), and a heavily
/// compressed (HCA) layer over one entry per `hca_rate` tokens. The other
/// layers only slide. The cache keeps the window, the entries, and the
/// tokens of the entry still being filled (`crate::compressed_kv`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompressedAttention {
    pub csa_layers: u64,
    pub csa_rate: u64,
    pub hca_layers: u64,
    pub hca_rate: u64,
    pub index_head_dim: u64,
}

impl CompressedAttention {
    pub(super) fn validate(&self, layers: u64, max_position: u64, max_heads: u64) -> Result<()> {
        check_range(
            "model.compressed_attention.csa_layers",
            self.csa_layers,
            0,
            layers,
        )?;
        check_range(
            "model.compressed_attention.hca_layers",
            self.hca_layers,
            0,
            layers - self.csa_layers,
        )?;
        check_range(
            "model.compressed_attention.csa_rate",
            self.csa_rate,
            1,
            max_position,
        )?;
        check_range(
            "model.compressed_attention.hca_rate",
            self.hca_rate,
            1,
            max_position,
        )?;
        check_range(
            "model.compressed_attention.index_head_dim",
            self.index_head_dim,
            0,
            max_heads,
        )?;
        Ok(())
    }
}

/// Hyper-connections: the residual stream is `streams` copies of the
/// hidden state, and before each attention and MLP block learned weights
/// computed from the streams collapse them into the block's input, then
/// spread its output back. Their parameters are counted by the importers;
/// these fields give what training saves (`activations/hyper.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HyperConnections {
    pub streams: u64,
    pub kind: HyperKind,
}

/// How the weights are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HyperKind {
    /// DeepSeek-V4's and GLM-5.3-Flash's manifold-constrained connections:
    /// a projection of the flattened, normalized streams gives `pre`,
    /// `post` and `comb`, the last made doubly stochastic by
    /// `sinkhorn_iters` Sinkhorn-Knopp steps. Its projection `fn` is kept
    /// in fp32 when the model loads in 16 bits (DeepSeek-V4), or follows
    /// the model's dtype (GLM-5.3-Flash), when `fn.float()` copies it.
    Manifold { sinkhorn_iters: u64, fn_fp32: bool },
    /// HY-V4's independent connections: `pre` and `post` only, in fp32,
    /// the streams added back unmixed.
    Independent,
    /// Qwen4-Exp's gated residual: a grouped RMSNorm of the streams, a
    /// low-rank (`rank`) sigmoid gate per element, the mean over the
    /// streams, and an injection weight per stream.
    LowRank { rank: u64 },
}

/// A fixed per-sequence state beside the keys and values of every
/// attention layer (ZAYA's CCA: the last `conv_steps` steps of the q|k
/// convolutions over `conv_channels`, and the previous token's delayed
/// value, `values` wide; Inkling's four short convolutions), in the model's
/// dtype or fp32 (measured: `tests/data/cache/`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttentionState {
    pub conv_channels: u64,
    pub conv_steps: u64,
    pub values: u64,
    /// Held in fp32 whatever the model's dtype (Inkling's convolutions cast
    /// their input to fp32 before caching it).
    #[serde(default)]
    pub fp32: bool,
    /// Elements per sequence beyond `layers × elements()`: the wider state
    /// of some layers (Inkling's sliding and full layers of different key
    /// widths).
    #[serde(default)]
    pub extra: u64,
}

impl AttentionState {
    /// Elements per attention layer and sequence.
    pub fn elements(&self) -> u128 {
        u128::from(self.conv_channels) * u128::from(self.conv_steps) + u128::from(self.values)
    }
}

/// Qwen4-Exp's QSA indexer (`Qwen4ExpTextAttention.indexer`) on every
/// attention layer: one `index_qk_proj` (hidden → heads·`head_dim`, its
/// heads the query and the one key head) and a q and a k LayerNorm without
/// bias of `head_dim`; it caches one key of `head_dim` per token
/// (`DynamicIndexedLayer.indexer_keys`), and the first indexed layer the
/// tokens' three int64 position ids (measured: `tests/data/cache/`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QsaIndexer {
    /// `indexer_n_heads` + `indexer_kv_heads`.
    pub heads: u64,
    pub head_dim: u64,
    /// Attention layers with an indexer.
    pub layers: u64,
    /// The cache keeps only the indexer's keys (MiniMax-M3's lightning
    /// indexer: `MiniMaxM3VLSparseCacheLayer.idx_keys`), not also
    /// Qwen4-Exp's position ids.
    #[serde(default)]
    pub keys_only: bool,
}

impl QsaIndexer {
    /// Parameters of one indexer.
    pub fn params_per_layer(&self, hidden: u64) -> u128 {
        let d = u128::from(self.head_dim);
        u128::from(hidden) * u128::from(self.heads) * d + 2 * d
    }
}

/// Qwen4-Exp's n-gram per-layer embeddings (`ple_layer_ids`): on each
/// listed layer a hashed n-gram table (`ngram_embedding`, `rows` in all
/// layers together, each `width` = `embed_dim` / ((n − 1)·heads per
/// n-gram) wide), `key_proj` (`embed_dim` → streams·hidden), `value_proj`
/// (`embed_dim` → hidden), three norms of streams·hidden and a depthwise
/// convolution of `conv_kernel` over the streams. Its cache keeps the
/// convolution's last (`conv_kernel` − 1)·n steps and the last n − 1 token
/// ids (int64) per sequence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NgramEmbedding {
    pub layers: u64,
    pub rows: u64,
    pub width: u64,
    pub embed_dim: u64,
    pub streams: u64,
    pub conv_kernel: u64,
    /// `ngram_size`.
    pub ngram: u64,
}

impl NgramEmbedding {
    /// The tables' parameters (`rows` × `width`).
    pub fn table_params(&self) -> u128 {
        u128::from(self.rows) * u128::from(self.width)
    }

    /// Everything but the tables, all listed layers.
    pub fn layer_params(&self, hidden: u64) -> u128 {
        let (h, d, n) = (
            u128::from(hidden),
            u128::from(self.embed_dim),
            u128::from(self.streams),
        );
        let per = d * n * h + d * h + 3 * n * h + n * h * u128::from(self.conv_kernel);
        per * u128::from(self.layers)
    }

    /// Cache bytes per sequence, all listed layers: the convolution's
    /// steps in the model dtype (`bytes`) and the int64 token ids.
    pub fn state_bytes(&self, hidden: u64, bytes: u64) -> u128 {
        let steps = u128::from(self.conv_kernel.saturating_sub(1)) * u128::from(self.ngram);
        let conv = u128::from(self.streams) * u128::from(hidden) * steps * u128::from(bytes);
        let ids = 8 * u128::from(self.ngram.saturating_sub(1));
        (conv + ids) * u128::from(self.layers)
    }

    pub(super) fn validate(&self, layers: u64, max_dim: u64) -> Result<()> {
        check_range("model.ngram_embedding.layers", self.layers, 1, layers)?;
        check_range("model.ngram_embedding.rows", self.rows, 1, 1 << 40)?;
        check_range("model.ngram_embedding.width", self.width, 1, max_dim)?;
        check_range(
            "model.ngram_embedding.embed_dim",
            self.embed_dim,
            1,
            max_dim,
        )?;
        check_range("model.ngram_embedding.streams", self.streams, 1, 64)?;
        check_range("model.ngram_embedding.conv_kernel", self.conv_kernel, 1, 64)?;
        check_range("model.ngram_embedding.ngram", self.ngram, 2, 64)?;
        Ok(())
    }
}

/// Checks the three against the model's heads, layers and sliding layers.
pub(super) fn validate(
    global: Option<&GlobalAttention>,
    sharing: Option<&KvSharing>,
    per_layer: Option<&PerLayerInput>,
    (heads, layers, sliding, max_dim, max_heads): (u64, u64, u64, u64, u64),
) -> Result<()> {
    if let Some(g) = global {
        check_range("model.global_attention.head_dim", g.head_dim, 1, max_heads)?;
        check_range("model.global_attention.kv_heads", g.kv_heads, 1, heads)?;
        if !heads.is_multiple_of(g.kv_heads) {
            return Err(InputError::new(
                "model.global_attention.kv_heads",
                format!("{} must divide heads ({heads})", g.kv_heads),
            ));
        }
    }
    if let Some(s) = sharing {
        check_range("model.kv_sharing.sliding", s.sliding, 0, sliding)?;
        check_range(
            "model.kv_sharing.global",
            s.global,
            0,
            layers.saturating_sub(sliding),
        )?;
    }
    if let Some(p) = per_layer {
        check_range("model.per_layer_input.width", p.width, 1, max_dim)?;
        check_range("model.per_layer_input.vocab", p.vocab, 1, max_dim)?;
    }
    Ok(())
}
