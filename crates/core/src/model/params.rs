//! Parameter counting, module by module as transformers builds each model.
//!
//! All arithmetic is in u128 on dimensions clamped to the ranges
//! `ModelSpec::validate` accepts (each at most 2^30, layers at most 10^4,
//! experts at most 2^12), so no product of them can overflow: the largest is
//! layers x experts x hidden x intermediate < 2^14 x 2^12 x 2^24 x 2^24 = 2^74.

use super::{
    Arch, LayerParams, MlpKind, ModelSpec, Moe, NormKind, ParamCounts, QkNorm, Recurrent,
    RecurrentKind, VisionTower, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS,
    MAX_NORMS_PER_LAYER, MAX_POSITION, MAX_TOTAL_PARAMS,
};

/// Default `relative_attention_num_buckets` of T5Config in transformers.
const T5_DEFAULT_BUCKETS: u64 = 32;
/// OPT's learned position table has 2 extra rows (`OPTLearnedPositionalEmbedding`, offset 2).
pub(crate) const OPT_POSITION_OFFSET: u128 = 2;

/// Clamps `value` to `max` and widens it.
fn dim(value: u64, max: u64) -> u128 {
    u128::from(value.min(max))
}

fn narrow(value: u128) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// One group of layer tensors, in 128-bit.
#[derive(Clone, Copy, Default)]
struct WideLayer {
    q: u128,
    k: u128,
    v: u128,
    o: u128,
    gate: u128,
    up: u128,
    down: u128,
    router: u128,
    norms: u128,
    biases: u128,
    mixer: u128,
}

impl WideLayer {
    fn add_scaled(&mut self, one: &WideLayer, n: u128) {
        self.q += one.q * n;
        self.k += one.k * n;
        self.v += one.v * n;
        self.o += one.o * n;
        self.gate += one.gate * n;
        self.up += one.up * n;
        self.down += one.down * n;
        self.router += one.router * n;
        self.norms += one.norms * n;
        self.biases += one.biases * n;
        self.mixer += one.mixer * n;
    }

    fn total(&self) -> u128 {
        self.q
            + self.k
            + self.v
            + self.o
            + self.gate
            + self.up
            + self.down
            + self.router
            + self.norms
            + self.biases
            + self.mixer
    }

    fn narrow(&self) -> LayerParams {
        LayerParams {
            q: narrow(self.q),
            k: narrow(self.k),
            v: narrow(self.v),
            o: narrow(self.o),
            gate: narrow(self.gate),
            up: narrow(self.up),
            down: narrow(self.down),
            router: narrow(self.router),
            norms: narrow(self.norms),
            biases: narrow(self.biases),
            mixer: narrow(self.mixer),
        }
    }
}

/// A feed-forward block: weights by projection, and their biases.
#[derive(Clone, Copy, Default)]
struct Mlp {
    gate: u128,
    up: u128,
    down: u128,
    bias: u128,
}

impl Mlp {
    fn weights(&self) -> u128 {
        self.gate + self.up + self.down
    }
}

/// Every group, in 128-bit, before narrowing to [`ParamCounts`].
#[derive(Default)]
pub(super) struct WideCounts {
    embedding: u128,
    lm_head: u128,
    layers: WideLayer,
    other: u128,
    vision: u128,
    projector: u128,
    /// Routed-expert parameters a token does not use.
    inactive: u128,
}

/// The spec's dimensions, clamped and widened once.
struct Dims<'a> {
    spec: &'a ModelSpec,
    h: u128,
    heads: u128,
    kv: u128,
    d: u128,
    /// Elements of one hidden-width norm: weight (and bias for LayerNorm).
    norm_width: u128,
}

impl<'a> Dims<'a> {
    fn new(spec: &'a ModelSpec) -> Self {
        let norm_width = match spec.norm {
            NormKind::Rms => 1,
            NormKind::Layer => 2,
        };
        Dims {
            spec,
            h: dim(spec.hidden, MAX_DIM),
            heads: dim(spec.heads, MAX_HEADS),
            kv: dim(spec.kv_heads, MAX_HEADS),
            d: dim(spec.head_dim(), MAX_HEADS),
            norm_width,
        }
    }

    fn norms_per_layer(&self) -> u128 {
        let default = match self.spec.arch {
            Arch::Gemma2 | Arch::Gemma3 => 4,
            _ if self.spec.parallel_block => 1,
            _ => 2,
        };
        dim(
            self.spec.norms_per_layer.unwrap_or(default),
            MAX_NORMS_PER_LAYER,
        )
    }

    /// Self-attention projections, their biases and the layer's norms.
    fn attention(&self) -> WideLayer {
        let s = self.spec;
        let (h, heads, d) = (self.h, self.heads, self.d);
        let mut layer = WideLayer::default();
        match &s.mla {
            Some(mla) => {
                let rank_kv = dim(mla.kv_lora_rank, MAX_DIM);
                let nope = dim(mla.qk_nope_head_dim, MAX_HEADS);
                let rope = dim(mla.qk_rope_head_dim, MAX_HEADS);
                let v_dim = dim(mla.v_head_dim, MAX_HEADS);
                layer.q = match mla.q_lora_rank {
                    // q_a_proj, then q_b_proj (q_a_layernorm counted with the norms)
                    Some(r) => {
                        let r = dim(r, MAX_DIM);
                        h * r + r * heads * (nope + rope)
                    }
                    None => h * heads * (nope + rope),
                };
                // kv_a_proj_with_mqa (latent + shared rope key), the key half of kv_b_proj
                layer.k = h * (rank_kv + rope) + rank_kv * heads * nope;
                // the value half of kv_b_proj
                layer.v = rank_kv * heads * v_dim;
                layer.o = heads * v_dim * h;
                layer.norms = rank_kv + mla.q_lora_rank.map_or(0, |r| dim(r, MAX_DIM));
                if s.qkv_bias {
                    // q_a_proj (with a query rank) and kv_a_proj_with_mqa
                    layer.biases += mla.q_lora_rank.map_or(0, |r| dim(r, MAX_DIM)) + rank_kv + rope;
                }
            }
            None => {
                // a gated attention's q_proj also yields the output gate
                let dv = self.dv();
                layer.q = h * heads * d * if s.gated_attention { 2 } else { 1 };
                layer.k = h * self.kv * d;
                layer.v = h * self.kv * dv;
                layer.o = heads * dv * h;
                if s.qkv_bias {
                    // Qwen3-Next's gate rows come out of q_proj, biased
                    // alike (AFMoE's and Laguna's gates have no bias)
                    let gate = u128::from(s.gated_attention && s.arch == Arch::Qwen3Next);
                    layer.biases += (heads * (1 + gate) + self.kv) * d + self.kv * dv;
                }
            }
        }
        if s.out_bias {
            layer.biases += h;
        }
        if s.arch == Arch::GptOss {
            // one learned attention-sink logit per head
            layer.biases += heads;
        }
        layer.norms += self.norm_width
            * match s.qk_norm_kind() {
                QkNorm::Off => 0,
                // q_norm and k_norm, one head wide, shared by all heads
                QkNorm::Head => 2 * d,
                // Cohere: LayerNorm((heads, d)) and LayerNorm((kv_heads, d))
                QkNorm::PerHead | QkNorm::Full => (heads + self.kv) * d,
            };
        layer
    }

    /// A value head's width: the spec's `value_head_dim`, else `d`.
    fn dv(&self) -> u128 {
        self.spec
            .value_head_dim
            .map_or(self.d, |v| dim(v, MAX_HEADS))
    }

    /// The same dimensions with other key/value heads and head width.
    fn with_heads(&self, kv: u128, d: u128) -> Dims<'a> {
        Dims {
            kv,
            d,
            norm_width: self.norm_width,
            ..*self
        }
    }

    /// `a` reading another layer's keys and values: without its k/v
    /// projections, their biases and its k-norm.
    fn without_kv(&self, a: &WideLayer) -> WideLayer {
        let s = self.spec;
        let width = self.kv * self.d;
        let k_norm = match s.qk_norm_kind() {
            QkNorm::Off => 0,
            QkNorm::Head => self.d,
            QkNorm::PerHead | QkNorm::Full => width,
        };
        let values = u128::from(a.v > 0) * self.kv * self.dv();
        WideLayer {
            k: 0,
            v: 0,
            // saturating: an MLA layer's biases are not per-head k/v biases
            // (it never shares keys and values; this is then unused)
            biases: a
                .biases
                .saturating_sub(u128::from(s.qkv_bias) * (width + values)),
            norms: a.norms.saturating_sub(self.norm_width * k_norm),
            ..*a
        }
    }

    /// Every self-attention layer: the common one; Gemma 4's full-attention
    /// layers with heads of their own, whose values may be their keys (no
    /// `v_proj`); each as [`Self::without_kv`] in the layers that reuse an
    /// earlier layer's keys and values.
    fn self_attention_layers(&self, common: &WideLayer, count: u128) -> WideLayer {
        let s = self.spec;
        let (shared_sliding, shared_global) = s.kv_sharing.as_ref().map_or((0, 0), |k| {
            (dim(k.sliding, MAX_LAYERS), dim(k.global, MAX_LAYERS))
        });
        let sliding = match (&s.global_attention, &s.sliding_window) {
            (Some(_), Some(w)) => dim(w.layers, MAX_LAYERS).min(count),
            (Some(_), None) => 0,
            (None, _) => count,
        };
        let mut total = WideLayer::default();
        let mut add = |dims: &Dims, attention: &WideLayer, layers: u128, shared: u128| {
            let shared = shared.min(layers);
            total.add_scaled(attention, layers - shared);
            total.add_scaled(&dims.without_kv(attention), shared);
        };
        match &s.global_attention {
            None => add(self, common, count, shared_sliding + shared_global),
            Some(g) => {
                add(self, common, sliding, shared_sliding);
                let heads = self.with_heads(dim(g.kv_heads, MAX_HEADS), dim(g.head_dim, MAX_HEADS));
                let mut attention = heads.attention();
                if g.values_from_keys {
                    // no v_proj, nor its bias
                    attention.v = 0;
                    attention.biases -= u128::from(s.qkv_bias) * heads.kv * heads.dv();
                }
                add(&heads, &attention, count - sliding, shared_global);
            }
        }
        total
    }

    /// A cross-attention layer's attention (`MllamaTextCrossAttention`):
    /// the same q/k/v/o, plus q_norm and k_norm one head wide and the two
    /// tanh gates of `MllamaCrossAttentionDecoderLayer`.
    fn cross_attention(&self, attention: WideLayer) -> WideLayer {
        WideLayer {
            norms: attention.norms + 2 * self.d * self.norm_width + 2,
            ..attention
        }
    }

    /// An encoder-decoder's decoder layer over its encoder layer's
    /// attention and norms: cross-attention and its norm beside them, or,
    /// under T5Gemma 2's merged attention (which reads the encoder with the
    /// self-attention's own projections), the encoder layer's shape.
    fn decoder_block(&self, block: WideLayer) -> WideLayer {
        if self.spec.merged_cross_attention {
            return block;
        }
        WideLayer {
            q: block.q * 2,
            k: block.k * 2,
            v: block.v * 2,
            o: block.o * 2,
            norms: block.norms + self.norm_width * self.h,
            ..block
        }
    }

    /// How many of the decoder's layers are cross-attention layers.
    fn cross_count(&self, decoder_layers: u128) -> u128 {
        dim(self.spec.cross_attention_layers, MAX_LAYERS).min(decoder_layers)
    }

    /// The hidden-width norms of one layer.
    fn layer_norms(&self) -> WideLayer {
        WideLayer {
            norms: self.norms_per_layer() * self.norm_width * self.h,
            ..WideLayer::default()
        }
    }

    /// One recurrent mixer, as its transformers module builds it.
    fn recurrent(&self, r: &Recurrent) -> WideLayer {
        let h = self.h;
        let inner = dim(r.inner, MAX_DIM);
        let heads = dim(r.heads, MAX_HEADS);
        let groups = dim(r.groups, MAX_HEADS);
        let state = dim(r.state, MAX_HEADS);
        let kernel = dim(r.conv_kernel, 64);
        let dt_rank = dim(r.dt_rank, MAX_DIM);
        let proj_bias = u128::from(r.proj_bias);
        let conv_bias = u128::from(r.conv_bias);
        let gated_norm = u128::from(r.gated_norm);
        let mut layer = WideLayer::default();
        match r.kind {
            RecurrentKind::Mamba => {
                // in_proj h -> 2·inner, x_proj inner -> dt_rank + 2·state,
                // dt_proj dt_rank -> inner (+ bias), out_proj inner -> h
                layer.mixer =
                    h * 2 * inner + inner * (dt_rank + 2 * state) + dt_rank * inner + inner * h;
                // conv1d (depthwise), dt_proj bias, A_log (inner × state), D
                layer.biases = inner * kernel
                    + conv_bias * inner
                    + inner
                    + inner * state
                    + inner
                    + proj_bias * (2 * inner + h);
                if r.dt_bc_norms {
                    layer.norms = dt_rank + 2 * state;
                }
            }
            RecurrentKind::Mamba2 => {
                let conv = inner + 2 * groups * state;
                // in_proj h -> (z, x, B, C, dt), out_proj inner -> h
                layer.mixer = h * (inner + conv + heads) + inner * h;
                // conv1d, dt_bias, A_log, D, gated RMSNorm over inner
                layer.biases = conv * kernel
                    + conv_bias * conv
                    + 3 * heads
                    + proj_bias * (inner + conv + heads + h);
                layer.norms = gated_norm * inner;
            }
            RecurrentKind::GatedDeltaNet => {
                let key = groups * state;
                let conv = 2 * key + inner;
                // in_proj_qkvz h -> (q, k, v, z), in_proj_ba h -> (b, a), out_proj
                layer.mixer = h * (2 * key + 2 * inner) + h * 2 * heads + inner * h;
                // conv1d (no bias), dt_bias, A_log
                layer.biases = conv * kernel + conv_bias * conv + 2 * heads;
                // gated RMSNorm over one value head
                layer.norms = gated_norm * (inner / heads.max(1));
            }
            RecurrentKind::KimiDelta => {
                let head = inner / heads.max(1);
                // q, k, v projections (h -> inner each), the low-rank forget
                // and output gates (f_a, g_a: h -> head; f_b, g_b: head ->
                // inner), b_proj (h -> heads), o_proj
                let gates = if r.full_rank_gates {
                    2 * h * inner
                } else {
                    2 * (h * head + head * inner)
                };
                layer.mixer = 3 * h * inner + gates + h * heads + inner * h;
                // the conv over q, k and v (no bias), dt_bias per channel,
                // A_log per head
                layer.biases = 3 * inner * kernel + conv_bias * 3 * inner + inner + heads;
                // the gated RMSNorm over one head
                layer.norms = gated_norm * head;
            }
            RecurrentKind::ShortConv => {
                // in_proj h -> 3·inner (B, C, x), out_proj inner -> h
                layer.mixer = h * 3 * inner + inner * h;
                layer.biases = inner * kernel + conv_bias * (3 * inner + inner + h);
            }
            RecurrentKind::RgLru => {
                // linear_x, linear_y (h -> inner), linear_out (inner -> h);
                // the input and recurrence gates are `heads` diagonal blocks
                // of (inner/heads)² each
                let block = inner / heads.max(1);
                layer.mixer = 2 * h * inner + inner * h + 2 * inner * block;
                // biases on all three linears and both gates (always), the
                // depthwise conv with its bias, the recurrence's `a` param
                layer.biases = inner * kernel + 6 * inner + h;
            }
            RecurrentKind::Mlstm => {
                // q, k (h -> state each), v and the output gate (h -> inner),
                // the input and forget gates (h -> heads, always biased),
                // out_proj (inner -> h); the per-head norm over inner
                let qk = heads * state;
                layer.mixer = h * (2 * qk + 2 * inner) + inner * h + 2 * h * heads;
                layer.biases = proj_bias * (2 * qk + 2 * inner + h) + 2 * heads;
                layer.norms = inner + proj_bias * inner;
            }
            RecurrentKind::Rwkv => {
                // time mixing: key, value and receptance (h -> inner) and
                // output (inner -> h); the channel mixing's receptance
                // (h -> h) beside its key and value (the MLP)
                layer.mixer = 4 * h * inner + h * h;
                // time_decay and time_first per channel; the token-shift
                // mixes, three before the time mixing, two before the
                // channel mixing
                layer.biases = 2 * inner + 5 * h;
            }
            RecurrentKind::Lightning => {
                // qkv_proj, output_gate, out_proj; RMSNorm over heads·d
                layer.mixer = h * 3 * inner + h * inner + inner * h;
                layer.norms = gated_norm * inner;
            }
        }
        layer
    }

    fn mlp(&self, width: u128) -> Mlp {
        self.mlp_over(width, self.h)
    }

    /// An MLP `width` wide between `h`-wide input and output.
    fn mlp_over(&self, width: u128, h: u128) -> Mlp {
        let gated = self.spec.mlp == MlpKind::Gated;
        let gate = if gated { h * width } else { 0 };
        let bias = if self.spec.mlp_bias.unwrap_or(self.spec.out_bias) {
            width + h + if gated { width } else { 0 }
        } else {
            0
        };
        Mlp {
            gate,
            up: h * width,
            down: width * h,
            bias,
        }
    }

    fn with_mlp(layer: WideLayer, mlp: &Mlp) -> WideLayer {
        WideLayer {
            gate: mlp.gate,
            up: mlp.up,
            down: mlp.down,
            biases: layer.biases + mlp.bias,
            ..layer
        }
    }
}

impl Dims<'_> {
    /// One MoE layer: routed (and shared) experts and the router over the
    /// attention block; and the routed-expert parameters a token does not use.
    fn moe_layer(&self, moe: &Moe, attention: WideLayer) -> (WideLayer, u128) {
        let spec = self.spec;
        let h = self.h;
        let experts = dim(moe.experts, MAX_EXPERTS);
        let used = dim(moe.experts_per_token, MAX_EXPERTS).min(experts);
        // the routed experts read and write the latent width where there is one
        let latent = dim(moe.latent, MAX_DIM);
        let expert_side = dim(moe.expert_input(spec.hidden), MAX_DIM);
        let expert = self.mlp_over(dim(moe.expert_intermediate, MAX_DIM), expert_side);
        let shared_width = match moe.shared_intermediate {
            Some(w) => dim(w, MAX_DIM),
            None => dim(moe.shared_experts, MAX_EXPERTS) * dim(moe.expert_intermediate, MAX_DIM),
        };
        let shared = if shared_width > 0 {
            self.mlp(shared_width)
        } else {
            Mlp::default()
        };
        let mut router = experts * h;
        if spec.arch == Arch::GptOss || moe.router_bias {
            router += experts; // the router linear has a bias
        }
        if matches!(spec.arch, Arch::Qwen2Moe | Arch::Qwen3Next) && shared_width > 0 {
            router += h; // shared_expert_gate: hidden -> 1
        }
        // the latent down- and up-projections (h -> latent -> h)
        let layer = WideLayer {
            gate: experts * expert.gate + shared.gate,
            up: experts * expert.up + shared.up + h * latent,
            down: experts * expert.down + shared.down + latent * h,
            biases: attention.biases + experts * expert.bias + shared.bias,
            router,
            ..attention
        };
        (layer, (experts - used) * (expert.weights() + expert.bias))
    }
}

impl Dims<'_> {
    /// Gemma 4's additions: the KV-sharing layers' second MLP when it is
    /// double-wide, and the per-layer embeddings; Qwen4-Exp's: the QSA
    /// indexers and the n-gram layers: (per layer; the tables; the
    /// projection of the embeddings and its norm).
    fn variant_parts(
        &self,
        dense_block: &WideLayer,
        decoder_layers: u128,
    ) -> (WideLayer, u128, u128) {
        let s = self.spec;
        let mut layers = WideLayer::default();
        if let Some(k) = s.kv_sharing.as_ref().filter(|k| k.double_wide_mlp) {
            // the sharing layers' MLP is twice as wide: one more dense MLP each
            layers.add_scaled(dense_block, dim(k.layers(), MAX_LAYERS).min(decoder_layers));
        }
        let hidden = s.hidden.min(MAX_DIM);
        if let Some(q) = &s.qsa_indexer {
            let count = dim(q.layers, MAX_LAYERS).min(decoder_layers);
            layers.q += count * q.params_per_layer(hidden);
        }
        // Qwen4-Exp's n-gram tables are embeddings, looked up
        let ngram_tables = s.ngram_embedding.as_ref().map_or(0, |n| {
            layers.mixer += n.layer_params(hidden);
            n.table_params()
        });
        let Some(p) = &s.per_layer_input else {
            return (layers, ngram_tables, 0);
        };
        let width = dim(p.width, MAX_DIM);
        // per_layer_input_gate and per_layer_projection, post_per_layer_input_norm
        layers.mixer += decoder_layers * 2 * self.h * width;
        layers.norms += decoder_layers * self.norm_width * self.h;
        // embed_tokens_per_layer; per_layer_model_projection and its norm
        let table = dim(p.vocab, MAX_DIM) * decoder_layers * width;
        let projection = self.h * decoder_layers * width + self.norm_width * width;
        (layers, table + ngram_tables, projection)
    }
}

impl WideCounts {
    pub(super) fn of(spec: &ModelSpec) -> WideCounts {
        let x = Dims::new(spec);
        let (vision, projector) = match &spec.vision {
            Some(v) => (vision_wide(v), dim(v.projector_params, MAX_TOTAL_PARAMS)),
            None => (0, 0),
        };
        if spec.arch == Arch::ClipVision {
            return WideCounts {
                vision,
                projector,
                ..WideCounts::default()
            };
        }
        let h = x.h;
        let decoder_layers = dim(spec.layers, MAX_LAYERS);
        let attention = x.attention();
        let norms = x.layer_norms();
        let dense_block = Dims::with_mlp(
            WideLayer::default(),
            &x.mlp(dim(spec.intermediate, MAX_DIM)),
        );
        let mut layers = WideLayer::default();
        let mut inactive = 0;
        let mut other = 0;
        // Gemma 4's per-layer embedding table
        let mut embedding_extra = 0;

        let mlp_count = dim(spec.mlp_layer_count(), MAX_LAYERS).min(decoder_layers);
        let dense_count = match &spec.moe {
            Some(moe) => dim(moe.dense_layers, MAX_LAYERS).min(mlp_count),
            None => mlp_count,
        };
        // Switch Transformers' sparse encoder layers
        let encoder_moe = dim(spec.encoder_moe_layers, MAX_LAYERS);
        if let Some(moe) = &spec.moe {
            let (moe_block, unused) = x.moe_layer(moe, WideLayer::default());
            let moe_count = mlp_count - dense_count + encoder_moe;
            layers.add_scaled(&moe_block, moe_count);
            inactive = moe_count * unused;
        }

        match spec.encoder_layers {
            Some(encoder) => {
                // Encoder-decoder (T5): the encoder layers are self-attention
                // blocks; each decoder layer adds cross-attention and its norm.
                // A sparse layer's experts are counted above.
                let encoder = dim(encoder, MAX_LAYERS);
                let mut block = attention;
                block.add_scaled(&norms, 1);
                layers.add_scaled(&block, encoder);
                layers.add_scaled(&dense_block, encoder - encoder_moe.min(encoder));
                let decoder_block = x.decoder_block(block);
                layers.add_scaled(&decoder_block, decoder_layers);
                layers.add_scaled(&dense_block, dense_count);
                if spec.arch == Arch::T5 {
                    other += t5_position_tables(spec, &x, encoder, decoder_layers);
                }
            }
            None => {
                let attention_count =
                    dim(spec.attention_layer_count(), MAX_LAYERS).min(decoder_layers);
                layers.add_scaled(&x.self_attention_layers(&attention, attention_count), 1);
                layers.add_scaled(&x.cross_attention(attention), x.cross_count(decoder_layers));
                layers.add_scaled(&norms, decoder_layers);
                layers.add_scaled(&dense_block, dense_count);
                if let Some(r) = &spec.recurrent {
                    let count = dim(r.layers, MAX_LAYERS).min(decoder_layers);
                    layers.add_scaled(&x.recurrent(r), count);
                }
                layers.biases +=
                    decoder_layers * dim(spec.layer_extra_params, MAX_TOTAL_PARAMS / MAX_LAYERS);
                let (extra, table, projection) = x.variant_parts(&dense_block, decoder_layers);
                layers.add_scaled(&extra, 1);
                embedding_extra = table;
                other += projection;
                layers.q += indexer_params(spec);
            }
        }

        let token_width = spec.embed_proj_dim.map_or(h, |p| dim(p, MAX_DIM));
        let vocab = dim(spec.vocab, MAX_DIM);
        let position_rows = match spec.arch {
            // Whisper's decoder positions (`max_target_positions`); the
            // encoder's table is counted by the importer
            Arch::Gpt2 | Arch::GptNeo | Arch::GptBigcode | Arch::Bert | Arch::Whisper => {
                dim(spec.max_position, MAX_POSITION)
            }
            Arch::Opt => dim(spec.max_position, MAX_POSITION) + OPT_POSITION_OFFSET,
            _ => 0,
        };
        let embedding = vocab * token_width
            + position_rows * h
            + dim(spec.type_vocab, MAX_DIM) * h
            + embedding_extra;

        let encoder_only = matches!(spec.arch, Arch::Bert | Arch::DebertaV2);
        let mut lm_head = 0;
        if !encoder_only {
            if !spec.tied_embeddings {
                lm_head += vocab * token_width;
            }
            if spec.lm_head_bias {
                lm_head += vocab;
            }
        }

        let stacks = if spec.encoder_layers.is_some() { 2 } else { 1 };
        if spec.final_norm.unwrap_or(!encoder_only) {
            other += stacks * x.norm_width * h;
        }
        if token_width != h {
            other += 2 * token_width * h; // OPT project_in and project_out, no bias
        }
        other += encoder_extras(spec, &x, encoder_only);
        other += dim(spec.model_extra_params, MAX_TOTAL_PARAMS);

        WideCounts {
            embedding,
            lm_head,
            layers,
            other,
            vision,
            projector,
            inactive,
        }
    }

    pub(super) fn total(&self) -> u128 {
        self.embedding
            + self.lm_head
            + self.layers.total()
            + self.other
            + self.vision
            + self.projector
    }

    pub(super) fn narrow(&self) -> ParamCounts {
        let total = self.total();
        ParamCounts {
            total: narrow(total),
            embedding: narrow(self.embedding),
            lm_head: narrow(self.lm_head),
            layers: self.layers.narrow(),
            other: narrow(self.other),
            vision: narrow(self.vision),
            projector: narrow(self.projector),
            active_per_token: narrow(total - self.inactive.min(total)),
        }
    }
}

/// The encoders' own modules: the embeddings' LayerNorm (also BLOOM's),
/// DeBERTa-v2's relative embeddings and convolution, the pooler and the
/// classifier.
fn encoder_extras(spec: &ModelSpec, x: &Dims, encoder_only: bool) -> u128 {
    let h = x.h;
    let mut other = 0;
    if matches!(spec.arch, Arch::Bloom | Arch::Bert | Arch::DebertaV2) {
        other += 2 * h; // LayerNorm on the embeddings
    }
    if spec.arch == Arch::DebertaV2 {
        // rel_embeddings (2 x position_buckets rows) and their LayerNorm
        other += 2 * relative_buckets(spec) * h + 2 * h;
        if spec.conv_kernel > 0 {
            // ConvLayer: Conv1d(hidden, hidden, kernel) with bias, then a LayerNorm
            other += dim(spec.conv_kernel, 64) * h * h + h + 2 * h;
        }
    }
    if encoder_only {
        other += h * h + h; // pooler dense
        let labels = dim(spec.classifier_labels, MAX_DIM);
        other += labels * h + labels;
    }
    other
}

/// T5's relative_attention_bias tables (buckets × heads): one in the first
/// layer of each stack, or one in every self-attention layer (UMT5).
/// LongT5's transient-global encoder adds a bias table for the summaries
/// in its first layer and a norm over them in every layer.
fn t5_position_tables(spec: &ModelSpec, x: &Dims, encoder: u128, decoder: u128) -> u128 {
    let tables = if spec.relative_bias_every_layer {
        encoder + decoder
    } else {
        2
    };
    let global = u128::from(spec.global_block.is_some());
    (tables + global) * x.heads * relative_buckets(spec) + global * encoder * x.h
}

fn relative_buckets(spec: &ModelSpec) -> u128 {
    dim(
        spec.relative_attention_buckets
            .unwrap_or(T5_DEFAULT_BUCKETS),
        MAX_DIM,
    )
}

/// CLIP-style ViT: patch conv (no bias), class + position embeddings,
/// pre/post LayerNorm, `layers` blocks of biased attention + MLP with two
/// LayerNorms, and the optional `visual_projection` (no bias).
fn vision_wide(v: &VisionTower) -> u128 {
    if let Some(p) = v.params {
        return dim(p, MAX_TOTAL_PARAMS);
    }
    let h = dim(v.hidden, MAX_DIM);
    let inter = dim(v.intermediate, MAX_DIM);
    let patch = dim(v.patch_size, MAX_IMAGE_SIZE).max(1);
    let side = dim(v.image_size, MAX_IMAGE_SIZE) / patch;
    let embeddings = 3 * patch * patch * h + h + (side * side + 1) * h;
    let block = 4 * (h * h + h) + 2 * h * inter + inter + h + 2 * 2 * h;
    let layer_norms = 2 * 2 * h;
    embeddings
        + layer_norms
        + dim(v.layers, MAX_LAYERS) * block
        + dim(v.projection_dim, MAX_DIM) * h
}

/// Parameters of a CLIP vision tower (see [`VisionTower`]); saturates at `u64::MAX`.
pub fn vision_params(v: &VisionTower) -> u64 {
    narrow(vision_wide(v))
}

/// LLaVA's `multi_modal_projector`: Linear(vision, text) and Linear(text, text),
/// both with biases; saturates at `u64::MAX`.
pub fn llava_projector_params(vision_hidden: u64, text_hidden: u64) -> u64 {
    let v = dim(vision_hidden, MAX_DIM);
    let t = dim(text_hidden, MAX_DIM);
    narrow(v * t + t + t * t + t)
}

/// The lightning indexers of DeepSeek Sparse Attention, all indexed layers
/// (`DeepseekV32Indexer`: `wq_b` q_rank → heads·d, `wk` hidden → d,
/// `k_norm` LayerNorm d with bias, `weights_proj` hidden → heads).
fn indexer_params(spec: &ModelSpec) -> u128 {
    let Some(mla) = &spec.mla else { return 0 };
    let Some(ix) = &mla.indexer else { return 0 };
    let h = dim(spec.hidden, MAX_DIM);
    let q_rank = dim(mla.q_lora_rank.unwrap_or(spec.hidden), MAX_DIM);
    let d = dim(ix.head_dim, MAX_HEADS);
    let heads = dim(ix.heads, MAX_HEADS);
    // GLM-5.3-Flash's pooled indexer adds its position table and gate
    let pool = dim(ix.pool, MAX_POSITION) * d + d * h * u128::from(ix.pool > 0);
    let per = q_rank * heads * d + h * d + 2 * d + h * heads + pool;
    let layers = dim(ix.layers, MAX_LAYERS).min(dim(spec.layers, MAX_LAYERS));
    (per * layers).min(MAX_TOTAL_PARAMS as u128)
}
