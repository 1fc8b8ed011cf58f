//! A custom model's architecture in a link: `s.arch=llama&s.h=4096&s.l=32...`.
//!
//! Scalar fields get one key each; the nested groups (MoE, MLA, sliding
//! window, vision tower) are comma lists in a fixed order, `-` for an absent
//! optional member. Fields equal to `ModelSpec::default()` are left out, but
//! `s.arch` is always written so that a link always says "custom model".

use super::choice::Choice;
use super::notice::Notice;
use super::query::{bool_text, parse_bool, parse_u64_in, percent_encode, query_pairs};
use crate::model::{
    AttentionState, CompressedAttention, GlobalAttention, HyperConnections, HyperKind, Indexer,
    KvSharing, Mla, ModelSpec, Moe, NgramEmbedding, PerLayerInput, QsaIndexer, Recurrent,
    SlidingLatent, SlidingWindow, VisionTower, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_IMAGE_SIZE,
    MAX_LAYERS, MAX_NORMS_PER_LAYER, MAX_POSITION, MAX_TOTAL_PARAMS,
};

pub(super) const PREFIX: &str = "s.";

/// Range of a nested list's members: any size up to the model limits
/// (`ModelSpec::validate` checks the finer rules).
const ANY: (u64, u64) = (0, MAX_TOTAL_PARAMS);

/// In the web app two models are equal when their link text is (every
/// field is in it: the page receives imported and catalog models as that
/// text, and `tests/url.rs` checks the round trip against the derived
/// comparison natively). The page needs the link writer anyway; the
/// derived comparison of every field and sub-struct was 6 KB of its wasm.
#[cfg(target_arch = "wasm32")]
impl PartialEq for ModelSpec {
    fn eq(&self, other: &Self) -> bool {
        encode(self) == encode(other)
    }
}

#[cfg(target_arch = "wasm32")]
impl Eq for ModelSpec {}

pub(super) fn encode(spec: &ModelSpec) -> Vec<(String, String)> {
    let d = ModelSpec::default();
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |key: &str, value: String| out.push((format!("{PREFIX}{key}"), value));
    put("arch", spec.arch.key().to_owned());
    if spec.name != d.name {
        put("name", spec.name.clone());
    }
    let numbers = [
        ("h", spec.hidden, d.hidden),
        ("l", spec.layers, d.layers),
        ("heads", spec.heads, d.heads),
        ("kv", spec.kv_heads, d.kv_heads),
        ("ff", spec.intermediate, d.intermediate),
        ("vocab", spec.vocab, d.vocab),
        ("pos", spec.max_position, d.max_position),
        ("tv", spec.type_vocab, d.type_vocab),
        ("stem", spec.encoder_stem, d.encoder_stem),
        ("conv", spec.conv_kernel, d.conv_kernel),
        ("cls", spec.classifier_labels, d.classifier_labels),
        ("lxp", spec.layer_extra_params, d.layer_extra_params),
        ("mxp", spec.model_extra_params, d.model_extra_params),
        ("emoe", spec.encoder_moe_layers, d.encoder_moe_layers),
        (
            "xattl",
            spec.cross_attention_layers,
            d.cross_attention_layers,
        ),
        ("f32p", spec.fp32_params, d.fp32_params),
    ];
    for (key, value, default) in numbers {
        if value != default {
            put(key, value.to_string());
        }
    }
    let optional_numbers = [
        ("hd", spec.head_dim),
        ("vhd", spec.value_head_dim),
        ("enc", spec.encoder_layers),
        ("enct", spec.encoder_tokens),
        ("params", spec.params_override),
        ("npl", spec.norms_per_layer),
        ("embd", spec.embed_proj_dim),
        ("rab", spec.relative_attention_buckets),
        ("lrad", spec.local_radius),
        ("gblk", spec.global_block),
        ("attl", spec.attention_layers),
        ("mlpl", spec.mlp_layers),
        ("gruns", spec.grad_runs),
        ("canvas", spec.canvas),
    ];
    for (key, value) in optional_numbers {
        if let Some(n) = value {
            put(key, n.to_string());
        }
    }
    let rbl = d.relative_bias_every_layer;
    let flags = [
        ("tied", spec.tied_embeddings, d.tied_embeddings),
        ("qkvb", spec.qkv_bias, d.qkv_bias),
        ("outb", spec.out_bias, d.out_bias),
        ("approx", spec.approximate, d.approximate),
        ("pblock", spec.parallel_block, d.parallel_block),
        ("headb", spec.lm_head_bias, d.lm_head_bias),
        ("gattn", spec.gated_attention, d.gated_attention),
        ("relu", spec.relu_mlp, d.relu_mlp),
        ("pdrop", spec.probability_dropout, d.probability_dropout),
        ("rbl", spec.relative_bias_every_layer, rbl),
        ("mxa", spec.merged_cross_attention, d.merged_cross_attention),
    ];
    for (key, value, default) in flags {
        if value != default {
            put(key, bool_text(value));
        }
    }
    for (key, value) in [("mlpb", spec.mlp_bias), ("fnorm", spec.final_norm)] {
        if let Some(b) = value {
            put(key, bool_text(b));
        }
    }
    if spec.mlp != d.mlp {
        put("mlp", spec.mlp.key().to_owned());
    }
    if spec.norm != d.norm {
        put("norm", spec.norm.key().to_owned());
    }
    if let Some(m) = &spec.moe {
        put(
            "moe",
            list(&[
                Some(m.experts),
                Some(m.experts_per_token),
                Some(m.shared_experts),
                Some(m.expert_intermediate),
                m.shared_intermediate,
                Some(m.dense_layers),
            ]),
        );
    }
    if let Some(q) = spec.qk_norm {
        put("qkn", q.key().to_owned());
    }
    if spec.hf_kernels != d.hf_kernels {
        put("hfk", spec.hf_kernels.key().to_owned());
    }
    if spec.eager_path != d.eager_path {
        put("eap", spec.eager_path.key().to_owned());
    }
    if let Some(r) = &spec.recurrent {
        put("rec", recurrent_text(r));
    }
    out.extend(attention_variants(spec));
    out.extend(layer_variants(spec));
    out.extend(vision(spec));
    out
}

/// MLA's ranks, DeepSeek Sparse Attention's indexer and the sliding window.
fn attention_variants(spec: &ModelSpec) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |key: &str, value: String| out.push((format!("{PREFIX}{key}"), value));
    if let Some(m) = &spec.mla {
        put(
            "mla",
            list(&[
                m.q_lora_rank,
                Some(m.kv_lora_rank),
                Some(m.qk_nope_head_dim),
                Some(m.qk_rope_head_dim),
                Some(m.v_head_dim),
            ]),
        );
    }
    if let Some(nope) = spec.mla.as_ref().map(|m| m.nope_layers).filter(|n| *n > 0) {
        put("mlanope", nope.to_string());
    }
    if let Some(sw) = spec.mla.as_ref().and_then(|m| m.sliding) {
        put("mlasw", whole(&[sw.kv_lora_rank, sw.qk_rope_head_dim]));
    }
    if let Some(ix) = spec.mla.as_ref().and_then(|m| m.indexer.as_ref()) {
        // the pool and the keys' bytes only when set: older links keep their text
        let parts = if ix.key_bytes > 0 {
            5
        } else {
            3 + usize::from(ix.pool > 0)
        };
        put(
            "mlaidx",
            whole(&[ix.head_dim, ix.heads, ix.layers, ix.pool, ix.key_bytes][..parts]),
        );
    }
    if let Some(w) = &spec.sliding_window {
        // a third number only for a window that keeps the prompt
        let keeps = [Some(w.window), Some(w.layers), Some(1)];
        put("sw", list(&keeps[..2 + usize::from(w.keeps_prompt)]));
    }
    out
}

/// The experts' router bias and latent width (`moerb`, `moelat`), and Gemma
/// 4's layer variants (`gatt`, `kvsh`, `ple`; see `set_layer_variant`).
fn layer_variants(spec: &ModelSpec) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |key: &str, value: String| out.push((format!("{PREFIX}{key}"), value));
    if let Some(m) = &spec.moe {
        if m.router_bias {
            put("moerb", bool_text(true));
        }
        if m.latent > 0 {
            put("moelat", m.latent.to_string());
        }
    }
    if let Some(g) = &spec.global_attention {
        let keys = u64::from(g.values_from_keys);
        put(
            "gatt",
            list(&[Some(g.head_dim), Some(g.kv_heads), Some(keys)]),
        );
    }
    if let Some(k) = &spec.kv_sharing {
        let wide = u64::from(k.double_wide_mlp);
        put("kvsh", list(&[Some(k.sliding), Some(k.global), Some(wide)]));
    }
    if let Some(p) = &spec.per_layer_input {
        put("ple", list(&[Some(p.width), Some(p.vocab)]));
    }
    if let Some(hc) = &spec.hyper_connections {
        // kind 0 manifold (Sinkhorn steps, 1 for an fp32 projection), 1
        // independent, 2 low-rank (rank)
        let (kind, a, b) = match hc.kind {
            HyperKind::Manifold {
                sinkhorn_iters,
                fn_fp32,
            } => (0, sinkhorn_iters, u64::from(fn_fp32)),
            HyperKind::Independent => (1, 0, 0),
            HyperKind::LowRank { rank } => (2, rank, 0),
        };
        put("hc", whole(&[kind, hc.streams, a, b]));
    }
    if let Some(a) = &spec.attention_state {
        // ZAYA's three numbers as written before the fp32 flag and the extra
        if !a.fp32 && a.extra == 0 {
            put("ast", whole(&[a.conv_channels, a.conv_steps, a.values]));
        } else {
            let fields = [
                a.conv_channels,
                a.conv_steps,
                a.values,
                u64::from(a.fp32),
                a.extra,
            ];
            put("ast", whole(&fields));
        }
    }
    if let Some(q) = &spec.qsa_indexer {
        let keys_only = if q.keys_only { ",k" } else { "" };
        put(
            "qsa",
            format!("{}{keys_only}", whole(&[q.heads, q.head_dim, q.layers])),
        );
    }
    if let Some(n) = &spec.ngram_embedding {
        let fields = [
            n.layers,
            n.rows,
            n.width,
            n.embed_dim,
            n.streams,
            n.conv_kernel,
            n.ngram,
        ];
        put("ngram", whole(&fields));
    }
    if let Some(c) = &spec.compressed_attention {
        put(
            "csa",
            list(&[
                Some(c.csa_layers),
                Some(c.csa_rate),
                Some(c.hca_layers),
                Some(c.hca_rate),
                Some(c.index_head_dim),
            ]),
        );
    }
    out
}

/// The vision tower (`vis`, then its parameter count `vp`) and the image rule (`ir`).
fn vision(spec: &ModelSpec) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |key: &str, value: String| out.push((format!("{PREFIX}{key}"), value));
    if let Some(v) = &spec.vision {
        put(
            "vis",
            list(&[
                Some(v.hidden),
                Some(v.layers),
                Some(v.heads),
                Some(v.intermediate),
                Some(v.image_size),
                Some(v.patch_size),
                Some(v.projector_params),
                Some(v.projection_dim),
            ]),
        );
        // After `vis`: it sets a member of the tower.
        if let Some(p) = v.params {
            put("vp", p.to_string());
        }
        if !v.block.is_clip() {
            put("vb", v.block.key().to_string());
        }
        if v.gated_layers > 0 {
            put("vgl", v.gated_layers.to_string());
        }
        if v.unhooked {
            put("vuh", "1".to_string());
        }
    }
    if let Some(rule) = &spec.image_rule {
        put("ir", rule.to_text());
    }
    if let Some(video) = spec.video {
        put("vid", video.to_text());
    }
    out
}

/// The flags of a recurrent mixer in `rec=`, after its numbers.
const RECURRENT_FLAGS: [&str; 7] = ["pb", "cb", "gn", "dtbc", "s32", "sz", "fg"];

fn recurrent_flags(r: &Recurrent) -> [bool; 7] {
    [
        r.proj_bias,
        r.conv_bias,
        r.gated_norm,
        r.dt_bc_norms,
        r.state_fp32,
        r.separate_z,
        r.full_rank_gates,
    ]
}

/// `kind,layers,inner,heads,groups,state,kernel,dt_rank[,flag...]`.
fn recurrent_text(r: &Recurrent) -> String {
    let mut parts = vec![
        r.kind.key().to_owned(),
        list(&[
            Some(r.layers),
            Some(r.inner),
            Some(r.heads),
            Some(r.groups),
            Some(r.state),
            Some(r.conv_kernel),
            Some(r.dt_rank),
        ]),
    ];
    for (flag, on) in RECURRENT_FLAGS.iter().zip(recurrent_flags(r)) {
        if on {
            parts.push((*flag).to_owned());
        }
    }
    // The scan's chunk, after the flags (`ch256`); absent in links made
    // before it existed, which keep the kind's default (0).
    if r.chunk > 0 {
        parts.push(format!("ch{}", r.chunk));
    }
    parts.join(",")
}

fn parse_recurrent(v: &str) -> Result<Recurrent, String> {
    let mut parts = v.split(',');
    let kind = choice(parts.next().unwrap_or_default())?;
    let rest: Vec<&str> = parts.collect();
    let (numbers_part, flags) = rest.split_at(rest.len().min(7));
    let [layers, inner, heads, groups, state, kernel, dt_rank] =
        numbers::<7>(&numbers_part.join(","))?;
    let mut r = Recurrent {
        kind,
        layers: required(layers, MAX_LAYERS)?,
        inner: required(inner, MAX_DIM)?,
        heads: required(heads, MAX_HEADS)?,
        groups: required(groups, MAX_HEADS)?,
        state: required(state, MAX_HEADS)?,
        conv_kernel: required(kernel, 64)?,
        dt_rank: required(dt_rank, MAX_DIM)?,
        ..Recurrent::default()
    };
    for flag in flags {
        match *flag {
            "pb" => r.proj_bias = true,
            "cb" => r.conv_bias = true,
            "gn" => r.gated_norm = true,
            "dtbc" => r.dt_bc_norms = true,
            "s32" => r.state_fp32 = true,
            "sz" => r.separate_z = true,
            "fg" => r.full_rank_gates = true,
            other if other.starts_with("ch") => {
                r.chunk = required(
                    Some(other[2..].parse().map_err(|_| {
                        format!("\"{other}\" is not a chunk: ch followed by tokens")
                    })?),
                    MAX_POSITION,
                )?;
            }
            other => {
                return Err(format!(
                    "\"{other}\" is not a recurrent flag: allowed {}",
                    RECURRENT_FLAGS.join(", ")
                ))
            }
        }
    }
    Ok(r)
}

/// [`list`] of numbers that are all present.
fn whole(values: &[u64]) -> String {
    values
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn list(values: &[Option<u64>]) -> String {
    values
        .iter()
        .map(|v| v.map_or("-".to_owned(), |n| n.to_string()))
        .collect::<Vec<_>>()
        .join(",")
}

/// The architecture as the `s.*` parameters of a link (`s.arch=llama&s.h=4096&…`):
/// the compact text in which the web app's catalog and its config importer
/// hand models to the page, which reads them with the link reader (no JSON
/// reader of a model in its first load).
pub fn to_text(spec: &ModelSpec) -> String {
    let pairs: Vec<String> = encode(spec)
        .iter()
        .map(|(key, value)| format!("{key}={}", percent_encode(value)))
        .collect();
    pairs.join("&")
}

/// The architecture [`to_text`] wrote; `None` for text with any parameter
/// that is not an `s.*` field it takes, or none at all.
pub fn from_text(text: &str) -> Option<ModelSpec> {
    let pairs = query_pairs(text);
    if pairs.is_empty() || pairs.iter().any(|(k, _)| !k.starts_with(PREFIX)) {
        return None;
    }
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut notices = Vec::new();
    let spec = decode(&borrowed, &mut notices);
    notices.is_empty().then_some(spec)
}

/// Builds the model from its `s.*` pairs; a bad field keeps its default.
pub(super) fn decode(pairs: &[(&str, &str)], notices: &mut Vec<Notice>) -> ModelSpec {
    let mut spec = ModelSpec::default();
    for &(key, value) in pairs {
        let field = key.strip_prefix(PREFIX).unwrap_or(key);
        if let Err(message) = set(&mut spec, field, value) {
            notices.push(Notice::new(key, &format!("{message}; the default is used")));
        }
    }
    spec
}

/// A whole-number field's setter.
type PutNumber = fn(&mut ModelSpec, u64);

/// The whole-number fields: key, allowed range, where the value goes (one
/// table instead of a match arm each: the page's wasm is smaller).
const NUMBER_FIELDS: [(&str, u64, u64, PutNumber); 30] = [
    ("h", 0, MAX_DIM, |s, n| s.hidden = n),
    ("l", 0, MAX_LAYERS, |s, n| s.layers = n),
    ("heads", 0, MAX_HEADS, |s, n| s.heads = n),
    ("kv", 0, MAX_HEADS, |s, n| s.kv_heads = n),
    ("ff", 0, MAX_DIM, |s, n| s.intermediate = n),
    ("vocab", 0, MAX_DIM, |s, n| s.vocab = n),
    ("pos", 0, MAX_POSITION, |s, n| s.max_position = n),
    ("tv", 0, MAX_DIM, |s, n| s.type_vocab = n),
    ("stem", 0, MAX_TOTAL_PARAMS, |s, n| s.encoder_stem = n),
    ("conv", 0, MAX_DIM, |s, n| s.conv_kernel = n),
    ("cls", 0, MAX_DIM, |s, n| s.classifier_labels = n),
    ("hd", 0, MAX_DIM, |s, n| s.head_dim = Some(n)),
    ("vhd", 0, MAX_DIM, |s, n| s.value_head_dim = Some(n)),
    ("enc", 0, MAX_LAYERS, |s, n| s.encoder_layers = Some(n)),
    ("enct", 1, MAX_POSITION, |s, n| s.encoder_tokens = Some(n)),
    ("params", 1, MAX_TOTAL_PARAMS, |s, n| {
        s.params_override = Some(n)
    }),
    ("npl", 0, MAX_NORMS_PER_LAYER, |s, n| {
        s.norms_per_layer = Some(n)
    }),
    ("embd", 0, MAX_DIM, |s, n| s.embed_proj_dim = Some(n)),
    ("rab", 0, MAX_DIM, |s, n| {
        s.relative_attention_buckets = Some(n)
    }),
    ("lrad", 0, MAX_POSITION, |s, n| s.local_radius = Some(n)),
    ("gblk", 1, MAX_POSITION, |s, n| s.global_block = Some(n)),
    ("attl", 0, MAX_LAYERS, |s, n| s.attention_layers = Some(n)),
    ("mlpl", 0, MAX_LAYERS, |s, n| s.mlp_layers = Some(n)),
    ("gruns", 0, MAX_LAYERS, |s, n| s.grad_runs = Some(n)),
    ("canvas", 1, MAX_POSITION, |s, n| s.canvas = Some(n)),
    ("lxp", 0, MAX_TOTAL_PARAMS / MAX_LAYERS, |s, n| {
        s.layer_extra_params = n
    }),
    ("mxp", 0, MAX_TOTAL_PARAMS, |s, n| s.model_extra_params = n),
    ("xattl", 0, MAX_LAYERS, |s, n| s.cross_attention_layers = n),
    ("emoe", 0, MAX_LAYERS, |s, n| s.encoder_moe_layers = n),
    ("f32p", 0, MAX_TOTAL_PARAMS, |s, n| s.fp32_params = n),
];

/// A flag's setter.
type PutFlag = fn(&mut ModelSpec, bool);

/// The flags: key, where the value goes.
const FLAG_FIELDS: [(&str, PutFlag); 13] = [
    ("tied", |s, b| s.tied_embeddings = b),
    ("qkvb", |s, b| s.qkv_bias = b),
    ("outb", |s, b| s.out_bias = b),
    ("approx", |s, b| s.approximate = b),
    ("pblock", |s, b| s.parallel_block = b),
    ("headb", |s, b| s.lm_head_bias = b),
    ("mlpb", |s, b| s.mlp_bias = Some(b)),
    ("fnorm", |s, b| s.final_norm = Some(b)),
    ("gattn", |s, b| s.gated_attention = b),
    ("relu", |s, b| s.relu_mlp = b),
    ("pdrop", |s, b| s.probability_dropout = b),
    ("rbl", |s, b| s.relative_bias_every_layer = b),
    ("mxa", |s, b| s.merged_cross_attention = b),
];

fn set(spec: &mut ModelSpec, field: &str, v: &str) -> Result<(), String> {
    if let Some((_, min, max, put)) = NUMBER_FIELDS.iter().find(|f| f.0 == field) {
        put(spec, parse_u64_in(v, *min, *max)?);
        return Ok(());
    }
    if let Some((_, put)) = FLAG_FIELDS.iter().find(|f| f.0 == field) {
        put(spec, parse_bool(v)?);
        return Ok(());
    }
    match field {
        "arch" => spec.arch = choice(v)?,
        "name" => spec.name = v.to_owned(),
        "qkn" => spec.qk_norm = Some(choice(v)?),
        "hfk" => spec.hf_kernels = choice(v)?,
        "eap" => spec.eager_path = choice(v)?,
        "rec" => spec.recurrent = Some(parse_recurrent(v)?),
        // Read after `moe` (keys are written in that order).
        "moerb" => {
            if let Some(m) = spec.moe.as_mut() {
                m.router_bias = parse_bool(v)?;
            }
        }
        "moelat" => {
            if let Some(m) = spec.moe.as_mut() {
                m.latent = parse_u64_in(v, 0, MAX_DIM)?;
            }
        }
        "mlp" => spec.mlp = choice(v)?,
        "norm" => spec.norm = choice(v)?,
        "moe" => {
            let [experts, per_token, shared, expert_ff, shared_ff, dense] = numbers::<6>(v)?;
            spec.moe = Some(Moe {
                experts: required(experts, MAX_EXPERTS)?,
                experts_per_token: required(per_token, MAX_EXPERTS)?,
                shared_experts: required(shared, MAX_EXPERTS)?,
                expert_intermediate: required(expert_ff, MAX_DIM)?,
                shared_intermediate: shared_ff,
                dense_layers: required(dense, MAX_LAYERS)?,
                router_bias: false,
                latent: 0,
            });
        }
        "mla" => {
            let [q_lora, kv_lora, nope, rope, v_dim] = numbers::<5>(v)?;
            spec.mla = Some(Mla {
                q_lora_rank: q_lora,
                kv_lora_rank: required(kv_lora, MAX_DIM)?,
                qk_nope_head_dim: required(nope, MAX_DIM)?,
                qk_rope_head_dim: required(rope, MAX_DIM)?,
                v_head_dim: required(v_dim, MAX_DIM)?,
                indexer: spec.mla.as_ref().and_then(|m| m.indexer.clone()),
                nope_layers: spec.mla.as_ref().map_or(0, |m| m.nope_layers),
                sliding: spec.mla.as_ref().and_then(|m| m.sliding),
            });
        }
        // Dots3-Note's sliding layers' own latent, after `mla`
        "mlasw" => {
            let [rank, rope] = numbers::<2>(v)?;
            let latent = SlidingLatent {
                kv_lora_rank: required(rank, MAX_DIM)?,
                qk_rope_head_dim: required(rope, MAX_DIM)?,
            };
            match spec.mla.as_mut() {
                Some(m) => m.sliding = Some(latent),
                None => return Err("mlasw needs mla before it".to_string()),
            }
        }
        "mlaidx" => set_indexer(spec, v)?,
        // Mistral Large 4's cached layers without a rope key, after `mla`
        "mlanope" => {
            let [nope] = numbers::<1>(v)?;
            let nope = required(nope, MAX_LAYERS)?;
            match spec.mla.as_mut() {
                Some(m) => m.nope_layers = nope,
                None => return Err("mlanope needs mla before it".to_string()),
            }
        }
        "sw" => {
            let mut n = [None; 3];
            let parts = v.split(',').count().clamp(2, 3);
            numbers_into(v, &mut n[..parts])?;
            spec.sliding_window = Some(SlidingWindow {
                window: required(n[0], MAX_POSITION)?,
                layers: required(n[1], MAX_LAYERS)?,
                keeps_prompt: n[2] == Some(1),
            });
        }
        "vis" => {
            let [hidden, layers, heads, ff, image, patch, projector, projection] = numbers::<8>(v)?;
            spec.vision = Some(VisionTower {
                hidden: required(hidden, MAX_DIM)?,
                layers: required(layers, MAX_LAYERS)?,
                heads: required(heads, MAX_HEADS)?,
                intermediate: required(ff, MAX_DIM)?,
                image_size: required(image, MAX_IMAGE_SIZE)?,
                patch_size: required(patch, MAX_IMAGE_SIZE)?,
                projector_params: required(projector, MAX_TOTAL_PARAMS)?,
                projection_dim: required(projection, MAX_DIM)?,
                params: None,
                block: crate::model::TowerBlock::Clip,
                gated_layers: 0,
                unhooked: false,
            });
        }
        // Read after `vis` (keys are written in that order): the tower's
        // parameter count, its layer (absent: CLIP's), its gated layers
        // (absent: none) and whether transformers leaves it unhooked.
        "vp" | "vb" | "vgl" | "vuh" => {
            let Some(tower) = spec.vision.as_mut() else {
                return Err(format!("s.{field} needs s.vis first"));
            };
            match field {
                "vp" => tower.params = Some(parse_u64_in(v, 1, MAX_TOTAL_PARAMS)?),
                "vb" => tower.block = crate::model::TowerBlock::try_from(v.to_owned())?,
                "vgl" => tower.gated_layers = parse_u64_in(v, 0, MAX_LAYERS)?,
                _ => tower.unhooked = parse_u64_in(v, 0, 1)? == 1,
            }
        }
        "ir" => spec.image_rule = Some(crate::image_tokens::ImageRule::from_text(v)?),
        "vid" => spec.video = Some(crate::model::VideoFamily::from_text(v)?),
        _ => set_layer_variant(spec, field, v)?,
    }
    Ok(())
}

/// Gemma 4's layer variants: `gatt` (global layers' head width, KV heads,
/// 1 when values are keys), `kvsh` (sliding and global layers sharing
/// keys and values, 1 for a double-wide MLP), `ple` (per-layer input width,
/// table rows); DeepSeek-V4's `csa` (CSA layers, their rate, HCA layers,
/// their rate, the indexer's key width) and `hc` (hyper-connections: kind,
/// streams and the kind's two numbers); ZAYA's `ast` (its CCA state:
/// conv channels, steps, values); Qwen4-Exp's `qsa` (indexer heads,
/// key width, indexed layers) and `ngram` (n-gram layers, table rows, row
/// width, embedding width, streams, conv kernel, n).
fn set_layer_variant(spec: &mut ModelSpec, field: &str, v: &str) -> Result<(), String> {
    let flag = |n: Option<u64>| required(n, 1).map(|n| n == 1);
    match field {
        "gatt" => {
            let [head_dim, kv_heads, keys] = numbers::<3>(v)?;
            spec.global_attention = Some(GlobalAttention {
                head_dim: required(head_dim, MAX_HEADS)?,
                kv_heads: required(kv_heads, MAX_HEADS)?,
                values_from_keys: flag(keys)?,
            });
        }
        "kvsh" => {
            let [sliding, global, wide] = numbers::<3>(v)?;
            spec.kv_sharing = Some(KvSharing {
                sliding: required(sliding, MAX_LAYERS)?,
                global: required(global, MAX_LAYERS)?,
                double_wide_mlp: flag(wide)?,
            });
        }
        "ple" => {
            let [width, vocab] = numbers::<2>(v)?;
            spec.per_layer_input = Some(PerLayerInput {
                width: required(width, MAX_DIM)?,
                vocab: required(vocab, MAX_DIM)?,
            });
        }
        "csa" => {
            let [csa, m, hca, big_m, index] = numbers::<5>(v)?;
            spec.compressed_attention = Some(CompressedAttention {
                csa_layers: required(csa, MAX_LAYERS)?,
                csa_rate: required(m, MAX_POSITION)?,
                hca_layers: required(hca, MAX_LAYERS)?,
                hca_rate: required(big_m, MAX_POSITION)?,
                index_head_dim: required(index, MAX_HEADS)?,
            });
        }
        "hc" => {
            let [kind, streams, a, b] = numbers::<4>(v)?;
            let (a, b) = (required(a, MAX_DIM)?, required(b, 1)?);
            spec.hyper_connections = Some(HyperConnections {
                streams: required(streams, 64)?,
                kind: match required(kind, 2)? {
                    0 => HyperKind::Manifold {
                        sinkhorn_iters: a,
                        fn_fp32: b == 1,
                    },
                    1 => HyperKind::Independent,
                    _ => HyperKind::LowRank { rank: a },
                },
            });
        }
        // `channels,steps,values` (ZAYA), or with the fp32 flag and the
        // extra elements after them (Inkling)
        "ast" => {
            let [channels, steps, values, fp32, extra] = if v.split(',').count() == 3 {
                let [c, s, v] = numbers::<3>(v)?;
                [c, s, v, Some(0), Some(0)]
            } else {
                numbers::<5>(v)?
            };
            spec.attention_state = Some(AttentionState {
                conv_channels: required(channels, MAX_DIM)?,
                conv_steps: required(steps, 256)?,
                values: required(values, MAX_DIM)?,
                fp32: required(fp32, 1)? == 1,
                extra: required(extra, MAX_TOTAL_PARAMS)?,
            });
        }
        // `,k` after the numbers: only the keys are cached (MiniMax-M3)
        "qsa" => {
            let (numbers_text, keys_only) = match v.strip_suffix(",k") {
                Some(rest) => (rest, true),
                None => (v, false),
            };
            let [heads, head_dim, layers] = numbers::<3>(numbers_text)?;
            spec.qsa_indexer = Some(QsaIndexer {
                heads: required(heads, MAX_HEADS)?,
                head_dim: required(head_dim, MAX_HEADS)?,
                layers: required(layers, MAX_LAYERS)?,
                keys_only,
            });
        }
        "ngram" => {
            let [layers, rows, width, embed_dim, streams, kernel, ngram] = numbers::<7>(v)?;
            spec.ngram_embedding = Some(NgramEmbedding {
                layers: required(layers, MAX_LAYERS)?,
                rows: required(rows, MAX_TOTAL_PARAMS)?,
                width: required(width, MAX_DIM)?,
                embed_dim: required(embed_dim, MAX_DIM)?,
                streams: required(streams, 64)?,
                conv_kernel: required(kernel, 64)?,
                ngram: required(ngram, 64)?,
            });
        }
        _ => return Err("unknown custom-model field".to_owned()),
    }
    Ok(())
}

fn choice<T: Choice>(v: &str) -> Result<T, String> {
    T::parse(v).ok_or_else(|| format!("\"{v}\" is not one of: {}", T::allowed()))
}

/// Exactly `N` comma-separated whole numbers, `-` for an absent one.
fn numbers<const N: usize>(v: &str) -> Result<[Option<u64>; N], String> {
    let mut out = [None; N];
    numbers_into(v, &mut out)?;
    Ok(out)
}

/// [`numbers`]' work, once for every count (the page's wasm is smaller).
fn numbers_into(v: &str, out: &mut [Option<u64>]) -> Result<(), String> {
    let n = out.len();
    if v.split(',').count() != n {
        return Err(format!("\"{v}\" should be {n} comma-separated numbers"));
    }
    for (slot, part) in out.iter_mut().zip(v.split(',')) {
        *slot = match part.trim() {
            "-" => None,
            text => Some(parse_u64_in(text, ANY.0, ANY.1)?),
        };
    }
    Ok(())
}

fn required(value: Option<u64>, max: u64) -> Result<u64, String> {
    match value {
        Some(n) if n <= max => Ok(n),
        Some(n) => Err(format!("{n} is out of range: allowed 0 to {max}")),
        None => Err("\"-\" is only allowed for optional members".to_owned()),
    }
}

/// `mlaidx`: DeepSeek Sparse Attention's indexer (head width, heads,
/// indexed layers, and GLM-5.3-Flash's pool when it has one) on the MLA
/// the link gave.
fn set_indexer(spec: &mut ModelSpec, v: &str) -> Result<(), String> {
    // three numbers, a fourth for the pool, a fifth for the keys' bytes
    let mut n = [None, None, None, Some(0), Some(0)];
    let parts = v.split(',').count().clamp(3, 5);
    numbers_into(v, &mut n[..parts])?;
    let indexer = Indexer {
        head_dim: required(n[0], MAX_HEADS)?,
        heads: required(n[1], MAX_HEADS)?,
        layers: required(n[2], MAX_LAYERS)?,
        pool: required(n[3], MAX_POSITION)?,
        key_bytes: required(n[4], 8)?,
    };
    match spec.mla.as_mut() {
        Some(m) => m.indexer = Some(indexer),
        None => return Err("needs the mla field (an indexer over MLA layers)".into()),
    }
    Ok(())
}
