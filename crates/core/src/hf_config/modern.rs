//! The 2025–26 families: layouts with query/key norms, post-norms and
//! interleaved MoE, and the hybrid and state-space models whose layers mix
//! softmax attention with recurrent mixers. Each reads the fields of its
//! transformers configuration class (`configuration_<model_type>.py`) and
//! counts layers as the modeling file builds them.

use serde_json::Value;

use super::moe_layouts;
use super::reader::{
    attention_bias, dense_width, dt_rank, layer_types, slide_layers, Cfg, HIDDEN, LAYERS,
    POSITIONS, VOCAB,
};
use crate::error::{InputError, Result};
use crate::model::{
    Arch, Indexer, MlpKind, ModelSpec, Moe, QkNorm, Recurrent, RecurrentKind, SlidingWindow,
    MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, MAX_POSITION,
};

/// Families this module completes after the common decoder fields.
pub(super) fn completes(arch: Arch) -> bool {
    matches!(
        arch,
        Arch::Llama4
            | Arch::Glm4
            | Arch::Glm4Moe
            | Arch::Olmo2
            | Arch::Cohere
            | Arch::Smollm3
            | Arch::Apertus
            | Arch::Ernie45
            | Arch::Ernie45Moe
            | Arch::Exaone4
            | Arch::SeedOss
            | Arch::Hunyuan
            | Arch::HunyuanMoe
            | Arch::Jamba
            | Arch::NemotronH
            | Arch::FalconH1
            | Arch::GraniteMoeHybrid
            | Arch::Qwen3Next
            | Arch::Lfm2
            | Arch::Minimax
    )
}

/// Names transformers gives a recurrent layer in `layer_types`.
const RECURRENT_TYPES: &[&str] = &["linear_attention", "mamba", "conv", "mamba2"];
/// Names of softmax-attention layers.
const ATTENTION_TYPES: &[&str] = &[
    "full_attention",
    "attention",
    "sliding_attention",
    "chunked_attention",
    "indexed_attention",
];

/// A whole number that a config may also give once per layer (HunYuan's
/// `moe_topk`, `num_experts`): the modeling file reads the layer's entry, so
/// equal entries are that number and differing ones are refused.
fn per_layer_int(cfg: &Cfg, keys: &[&'static str], max: u64) -> Result<Option<u64>> {
    for key in keys {
        if let Some(serde_json::Value::Array(list)) = cfg.obj.get(*key) {
            let values: Vec<u64> = list.iter().filter_map(serde_json::Value::as_u64).collect();
            let first = values.first().copied();
            if values.len() != list.len() || values.iter().any(|v| Some(*v) != first) {
                return Err(InputError::new(
                    cfg.field(key),
                    "per-layer values must be whole numbers, all equal: layers that differ are not modelled",
                ));
            }
            return match first {
                Some(v) if (1..=max).contains(&v) => Ok(Some(v)),
                Some(v) => Err(InputError::out_of_range(&cfg.field(key), v, 1, max)),
                None => Ok(None),
            };
        }
    }
    cfg.int(keys, 1, max)
}

/// Families that reuse another's layers with a difference their modeling
/// file makes (each checked on its class defaults: `hf_defaults_more.csv`).
fn variant_layers(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    // OLMoE and MiniMax-M2 build Mixtral's layers with RMSNorms over the
    // whole q and k projections (`q_norm` over heads·d, `k_norm` over kv·d).
    // FlexOLMo likewise (`FlexOlmoAttention(Olmo2Attention)`).
    if matches!(model_type, "olmoe" | "minimax_m2" | "flex_olmo") {
        spec.qk_norm = Some(QkNorm::Full);
    }
    // PhiMoE (Phi-3.5-MoE): Mixtral's layers under LayerNorms with biases.
    if model_type == "phimoe" {
        spec.norm = crate::model::NormKind::Layer;
    }
    // Arcee (AFM) and Jais-2: Llama's layers with Nemotron's MLP, up and
    // down projections around relu² (`ArceeMLP`, `Jais2MLP`); Jais-2's
    // norms are LayerNorms with biases.
    if matches!(model_type, "arcee" | "jais2") {
        spec.mlp = crate::model::MlpKind::Plain;
    }
    if model_type == "jais2" {
        spec.norm = crate::model::NormKind::Layer;
    }
    // VaultGemma: Gemma 2's layers with two norms, not four.
    if model_type == "vaultgemma" {
        spec.norms_per_layer = Some(2);
    }
    // StarCoder2: Mistral's attention, a GELU MLP (c_fc, c_proj) and
    // LayerNorms, biases everywhere when `use_bias` (default True).
    if model_type == "starcoder2" {
        let bias = cfg.flag("use_bias", true)?;
        spec.mlp = crate::model::MlpKind::Plain;
        spec.norm = crate::model::NormKind::Layer;
        spec.qkv_bias = bias;
        spec.out_bias = bias;
        spec.mlp_bias = Some(bias);
    }
    // HyperCLOVA X: Granite's layers with Peri-LN, an RMSNorm after the
    // attention and after the MLP when `use_post_norm` (`post_norm1`,
    // `post_norm2`; default True).
    if model_type == "hyperclovax" && cfg.flag("use_post_norm", true)? {
        spec.norms_per_layer = Some(4);
    }
    // GraniteMoeShared (and its sliding-window variant): GraniteMoe's
    // experts plus one gated shared MLP of `shared_intermediate_size`
    // (`GraniteMoeSharedMLP`, none when 0).
    if matches!(model_type, "granitemoeshared" | "granitemoe_swa") {
        let shared = cfg
            .int(&["shared_intermediate_size"], 0, MAX_DIM)?
            .unwrap_or(0);
        if let Some(moe) = spec.moe.as_mut() {
            moe.shared_experts = u64::from(shared > 0);
            moe.shared_intermediate = (shared > 0).then_some(shared);
        }
    }
    // Granite's sliding-window variants learn one attention-sink logit per
    // head in every layer (`GraniteSWAAttention.sinks`).
    if matches!(model_type, "granite_swa" | "granitemoe_swa") {
        spec.layer_extra_params += spec.heads;
    }
    // Nemotron (-4, Minitron): Llama's attention, an MLP of up and down
    // projections around relu² (`NemotronMLP`) and LayerNorm1P norms with
    // weight and bias.
    if model_type == "nemotron" {
        spec.mlp = crate::model::MlpKind::Plain;
        spec.norm = crate::model::NormKind::Layer;
    }
    // BitNet b1.58: Llama's layers with an RMSNorm before o_proj
    // (`attn_sub_norm`, hidden wide) and one before down_proj
    // (`ffn_sub_norm`, intermediate wide).
    if model_type == "bitnet" {
        spec.layer_extra_params += spec.hidden + spec.intermediate;
    }
    // DiffLlama: Llama's projections and four learned λ vectors per layer
    // (`lambda_q1`, `lambda_k1`, `lambda_q2`, `lambda_k2`, one head wide);
    // its group norm has no weights. Its attention splits the value heads
    // in two, so `DiffLlamaAttention` refuses an odd key-value head count.
    if model_type == "diffllama" {
        if !spec.kv_heads.is_multiple_of(2) {
            return Err(crate::error::InputError::new(
                cfg.field("num_key_value_heads"),
                format!(
                    "is {}: DiffLlama needs an even count (its differential attention splits the value heads in two)",
                    spec.kv_heads
                ),
            ));
        }
        if cfg.float("attention_dropout", 0.0, 1.0)?.unwrap_or(0.0) > 0.0 {
            return Err(crate::error::InputError::new(
                cfg.field("attention_dropout"),
                "must be 0 for DiffLlama: its differential attention defines no dropout",
            ));
        }
        let head = spec.head_dim.unwrap_or(spec.hidden / spec.heads.max(1));
        spec.layer_extra_params += 4 * head;
    }
    // nanochat: Arcee's relu² MLP (`fc1`, `fc2`) under RMSNorms without
    // weights (the layers', the final one and one over the embeddings);
    // its q and k norms after RoPE have none either.
    if model_type == "nanochat" {
        spec.mlp = crate::model::MlpKind::Plain;
    }
    // OLMo (1): LayerNorms without parameters; nanochat's RMSNorms likewise.
    if matches!(model_type, "olmo" | "nanochat") {
        spec.norms_per_layer = Some(0);
        spec.final_norm = Some(false);
    }
    Ok(())
}

/// Fills the family's own fields into `spec` (already holding the common
/// decoder fields and any sliding window); nothing for older families
/// except DeepSeek-V3.2's indexer.
pub(super) fn complete(
    cfg: &Cfg,
    arch: Arch,
    model_type: &str,
    spec: &mut ModelSpec,
) -> Result<()> {
    dsa_families(cfg, model_type, spec)?;
    if model_type == "deepseek_v4" {
        super::hyper::deepseek_v4(cfg, spec)?;
    }
    // Gemma, Gemma-2 (and VaultGemma) and Gemma-3: `attention_bias` on q,
    // k, v and o (`Gemma3Attention`), an MLP never biased
    if matches!(arch, Arch::Gemma | Arch::Gemma2 | Arch::Gemma3) {
        let bias = cfg.flag("attention_bias", false)?;
        spec.qkv_bias = bias;
        spec.out_bias = bias;
        spec.mlp_bias = Some(false);
    }
    if model_type == "recurrent_gemma" {
        super::recurrent_gemma::recurrent_gemma(cfg, spec)?;
    }
    variant_layers(cfg, model_type, spec)?;
    moe_layouts::complete_borrowed(cfg, model_type, spec)?;
    complete_2026(cfg, model_type, spec)?;
    if model_type == "step3p5" {
        super::step3p7::complete_step3p5(cfg, spec)?;
    }
    if !completes(arch) {
        return Ok(());
    }
    let layers = spec.layers;
    spec.intermediate = cfg
        .int(&["intermediate_size", "block_ff_dim"], 1, MAX_DIM)?
        .unwrap_or(1);
    match arch {
        Arch::Llama4 => llama4(cfg, spec)?,
        Arch::Glm4 => {
            // input, post-attention, post-self-attention and post-MLP norms
            attention_bias(cfg, spec, true)?;
            spec.out_bias = false;
            spec.norms_per_layer = Some(4);
        }
        Arch::Glm4Moe => {
            attention_bias(cfg, spec, false)?;
            spec.out_bias = false;
            if cfg.flag("use_qk_norm", false)? {
                spec.qk_norm = Some(QkNorm::Head);
            }
            spec.moe = Some(Moe {
                experts: cfg.req(&["n_routed_experts"], 1, MAX_EXPERTS)?,
                experts_per_token: cfg.req(&["num_experts_per_tok"], 1, MAX_EXPERTS)?,
                shared_experts: cfg.int(&["n_shared_experts"], 0, 64)?.unwrap_or(0),
                expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
                shared_intermediate: None,
                dense_layers: cfg
                    .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
                    .unwrap_or(0)
                    .min(layers),
                router_bias: false,
                latent: 0,
            });
        }
        Arch::Olmo2 => {
            // post-attention and post-feed-forward norms; q/k norms over the
            // whole projection
            attention_bias(cfg, spec, false)?;
            spec.qk_norm = Some(QkNorm::Full);
            if model_type == "olmo_hybrid" {
                olmo_hybrid(cfg, spec)?;
            }
        }
        Arch::Cohere => {
            // weight-only LayerNorm (counted as one vector), one per layer,
            // attention and MLP in parallel
            attention_bias(cfg, spec, false)?;
            spec.parallel_block = true;
            if cfg.flag("use_qk_norm", false)? {
                spec.qk_norm = Some(QkNorm::PerHead);
            }
            // Cohere Compass (`CohereCompassTextConfig(Cohere2Config)`)
            // fills a missing `layer_types` with full attention before
            // Cohere-2's `sliding_window_pattern` branch could run
            if model_type == "cohere_compass_text" && !cfg.obj.contains_key("layer_types") {
                spec.sliding_window = None;
            }
        }
        Arch::Smollm3 => attention_bias(cfg, spec, false)?,
        Arch::Apertus => {
            attention_bias(cfg, spec, false)?;
            spec.qk_norm = Some(QkNorm::Head);
            // xIELU's two learned scalars (alpha_p, alpha_n) per MLP
            spec.layer_extra_params = 2;
            output_vocab(cfg, spec)?;
        }
        Arch::Ernie45 | Arch::Ernie45Moe => {
            let bias = cfg.flag("use_bias", false)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            if arch == Arch::Ernie45Moe {
                spec.moe = Some(ernie_moe(cfg, layers)?);
            }
        }
        Arch::Exaone4 | Arch::Hunyuan => {
            attention_bias(cfg, spec, false)?;
            spec.qk_norm = Some(QkNorm::Head);
        }
        Arch::HunyuanMoe if model_type == "hy_v3" => moe_layouts::hy_v3(cfg, spec)?,
        Arch::HunyuanMoe => hunyuan_moe(cfg, spec)?,
        Arch::SeedOss => {
            spec.qkv_bias = cfg.flag("attention_bias", true)?;
            spec.out_bias = cfg.flag("attention_out_bias", false)?;
            spec.mlp_bias = Some(cfg.flag("mlp_bias", false)?);
        }
        Arch::Jamba => jamba(cfg, spec)?,
        Arch::NemotronH => nemotron_h(cfg, spec)?,
        Arch::FalconH1 => falcon_h1(cfg, spec)?,
        Arch::GraniteMoeHybrid if model_type == "bamba" => bamba(cfg, spec)?,
        Arch::GraniteMoeHybrid if model_type == "zamba2" => super::zamba2::zamba2(cfg, spec)?,
        Arch::GraniteMoeHybrid if model_type == "zamba" => super::zamba2::zamba(cfg, spec)?,
        Arch::GraniteMoeHybrid => granite_hybrid(cfg, spec)?,
        Arch::Qwen3Next => {
            qwen3_next(cfg, spec)?;
            if model_type == "qwen4_exp_text" {
                super::qwen4_exp::complete_text(cfg, spec)?;
            }
        }
        Arch::Lfm2 => lfm2(cfg, model_type, spec)?,
        Arch::Minimax => minimax(cfg, spec)?,
        _ => {}
    }
    if model_type == "dots1" {
        dots1(cfg, spec)?;
    }
    moe_layouts::complete_moe(cfg, model_type, spec)?;
    Ok(())
}

/// DeepSeek Sparse Attention's indexer on the families that build
/// DeepSeek-V3.2's layers: GLM-MoE-DSA (`GlmMoeDsaIndexer(DeepseekV32Indexer)`)
/// and HY-V4, whose VL model's language model is HY-V4's
/// (`HYV4VLTextConfig(HYV4Config)`), with its own additions.
fn dsa_families(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    let hy_v4 = matches!(model_type, "hy_v4" | "hy_v4_vl_text");
    if hy_v4 || matches!(model_type, "deepseek_v32" | "glm_moe_dsa") {
        let layers = indexed_layers(cfg, model_type, spec.layers)?;
        if let Some(mla) = spec.mla.as_mut() {
            mla.indexer = Some(Indexer {
                head_dim: cfg.int(&["index_head_dim"], 1, MAX_HEADS)?.unwrap_or(128),
                heads: cfg.int(&["index_n_heads"], 1, MAX_HEADS)?.unwrap_or(64),
                layers,
                pool: 0,
                key_bytes: 0,
            });
        }
    }
    if hy_v4 {
        super::hyper::hy_v4(cfg, spec)?;
    }
    Ok(())
}

/// The families added in the 2026-11-27 (fourth) session, each in the
/// module of its kind.
fn complete_2026(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    super::moe_variants::complete(cfg, model_type, spec)?;
    if model_type == "mistral_large4_text" {
        super::mistral_large4::complete_text(cfg, spec)?;
    }
    if model_type == "dots3_note_text" {
        super::dots3_note::complete_text(cfg, spec)?;
    }
    super::looped::complete(cfg, model_type, spec)
}

/// OLMo-Hybrid (`OlmoHybridConfig`): OLMo-3's attention layers and Gated
/// DeltaNet layers with unfused q/k/v/g/a/b projections (as many
/// parameters as Qwen3-Next's fused ones). Without `layer_types`, every
/// fourth layer attends (`i % 4 == 3`, at least the last); the linear heads
/// default to the attention heads, the key width to ⌊0.75·hidden / key
/// heads⌋ and the value width to twice that.
fn olmo_hybrid(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let linear = match layer_types(cfg, layers)? {
        Some(types) => types.count(RECURRENT_TYPES),
        None => layers - (layers / 4).max(1),
    };
    let key_heads = cfg
        .int(&["linear_num_key_heads"], 1, MAX_HEADS)?
        .unwrap_or(spec.heads);
    let value_heads = cfg
        .int(&["linear_num_value_heads"], 1, MAX_HEADS)?
        .unwrap_or(spec.heads);
    let key_dim = match cfg.int(&["linear_key_head_dim"], 1, MAX_HEADS)? {
        Some(d) => d,
        None => {
            let d = 3 * spec.hidden / (4 * key_heads);
            if d == 0 {
                return Err(InputError::new(
                    cfg.field("linear_key_head_dim"),
                    "is missing and 0.75 × hidden_size / linear_num_key_heads is below 1: set it (1 or more)",
                ));
            }
            d
        }
    };
    let value_dim = cfg
        .int(&["linear_value_head_dim"], 1, MAX_HEADS)?
        .unwrap_or(2 * key_dim);
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::GatedDeltaNet,
        layers: linear,
        inner: value_heads * value_dim,
        heads: value_heads,
        groups: key_heads,
        state: key_dim,
        conv_kernel: cfg.int(&["linear_conv_kernel_dim"], 1, 64)?.unwrap_or(4),
        gated_norm: true,
        separate_z: true,
        ..Recurrent::default()
    });
    Ok(())
}

/// HunYuan-MoE (v1): q/k head norms, one shared expert as wide as a routed
/// one, expert counts possibly given per layer.
fn hunyuan_moe(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    spec.qk_norm = Some(QkNorm::Head);
    let width = dense_width(cfg)?;
    spec.moe = Some(Moe {
        experts: per_layer_int(cfg, &["num_experts", "num_local_experts"], MAX_EXPERTS)?
            .unwrap_or(1),
        experts_per_token: per_layer_int(cfg, &["moe_topk", "num_experts_per_tok"], MAX_EXPERTS)?
            .unwrap_or(1),
        shared_experts: 1,
        expert_intermediate: width,
        shared_intermediate: Some(width),
        dense_layers: 0,
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// dots.llm1 (`Dots1Attention`, `Dots1MoE`): GLM-4.5's MoE layers under
/// Qwen3's attention, q and k normed one head wide, o_proj biased with
/// q/k/v; without `layer_types`, the layers from `max_window_layers` (62)
/// on slide when `sliding_window` is set (`Dots1Config.__post_init__`).
fn dots1(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    spec.qk_norm = Some(QkNorm::Head);
    spec.out_bias = spec.qkv_bias;
    if cfg.obj.contains_key("layer_types") {
        return Ok(());
    }
    let first = cfg
        .int(&["max_window_layers"], 0, MAX_LAYERS)?
        .unwrap_or(62);
    slide_layers(spec, spec.layers.saturating_sub(first));
    Ok(())
}

/// Bamba (`BambaDecoderLayer`): GraniteMoeHybrid's Mamba-2 and attention
/// layers with a dense gated MLP of `intermediate_size` in every layer and
/// no experts; attention at `attn_layer_indices` (none by default).
fn bamba(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    let layers = spec.layers;
    let attention = match layer_types(cfg, layers)? {
        Some(types) => types.count(ATTENTION_TYPES),
        None => {
            let listed: Vec<u64> = cfg
                .array("attn_layer_indices")?
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            (0..layers).filter(|i| listed.contains(i)).count() as u64
        }
    };
    spec.attention_layers = Some(attention);
    let expand = cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2);
    let inner = spec.hidden.saturating_mul(expand);
    spec.recurrent = Some(mamba2_mixer(cfg, layers - attention, inner, true)?);
    spec.intermediate = dense_width(cfg)?;
    Ok(())
}

/// Llama 4: MoE layers every `interleave_moe_layer_step` (or as listed in
/// `moe_layers`), each with a shared expert as wide as a routed one; dense
/// layers use `intermediate_size_mlp`; chunked-attention layers keep at most
/// `attention_chunk_size` tokens.
fn llama4(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    attention_bias(cfg, spec, false)?;
    let expert = dense_width(cfg)?;
    let moe_count = match cfg.array("moe_layers")? {
        // `layer_idx in config.moe_layers`: the layers listed, once each
        Some(list) => list
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .filter(|i| *i < layers)
            .collect::<std::collections::BTreeSet<u64>>()
            .len() as u64,
        None => {
            let step = cfg
                .int(&["interleave_moe_layer_step"], 1, MAX_LAYERS)?
                .unwrap_or(1);
            // range(step - 1, layers, step): ⌊layers / step⌋ layers
            layers / step
        }
    }
    .min(layers);
    spec.intermediate = cfg
        .int(&["intermediate_size_mlp"], 1, MAX_DIM)?
        .unwrap_or(expert);
    spec.moe = Some(Moe {
        experts: cfg.req(&["num_local_experts"], 1, MAX_EXPERTS)?,
        experts_per_token: cfg
            .int(&["num_experts_per_tok"], 1, MAX_EXPERTS)?
            .unwrap_or(1),
        shared_experts: 1,
        expert_intermediate: expert,
        shared_intermediate: Some(expert),
        dense_layers: layers - moe_count,
        router_bias: false,
        latent: 0,
    });
    // Llama4TextConfig: `attention_chunk_size` defaults to 8192 when absent
    // (an explicit null turns chunking off); without `layer_types`, the
    // RoPE layers of `no_rope_layers` attend in chunks, and when that list
    // is absent or empty every `no_rope_layer_interval`-th layer (default
    // 4) is a NoPE, full-attention layer: 36 of Scout's 48 are chunked.
    let chunk = if cfg.obj.contains_key("attention_chunk_size") {
        cfg.int(&["attention_chunk_size"], 1, MAX_POSITION)?
    } else {
        Some(8192)
    };
    if let Some(chunk) = chunk {
        let chunked = match layer_types(cfg, layers)? {
            Some(types) => types.count(&["chunked_attention"]),
            // no_rope_layers: 1 = a RoPE layer, which attends in chunks
            None => match cfg.array("no_rope_layers")? {
                Some(list) if !list.is_empty() => {
                    list.iter().filter(|v| v.as_u64() == Some(1)).count() as u64
                }
                _ => {
                    let interval = cfg
                        .int(&["no_rope_layer_interval"], 1, MAX_LAYERS)?
                        .unwrap_or(4);
                    layers - layers / interval
                }
            },
        };
        if chunked > 0 {
            spec.sliding_window = Some(SlidingWindow {
                window: chunk,
                layers: chunked.min(layers),
                keeps_prompt: false,
            });
        }
    }
    Ok(())
}

/// ERNIE-4.5 MoE: layers `start..=end` whose `(index + 1)` is a multiple of
/// the interval are MoE; shared experts are one MLP of
/// `moe_num_shared_experts × moe_intermediate_size`; the router holds an
/// `e_score_correction_bias` parameter.
fn ernie_moe(cfg: &Cfg, layers: u64) -> Result<Moe> {
    let start = cfg
        .int(&["moe_layer_start_index"], 0, MAX_LAYERS)?
        .unwrap_or(0);
    let end = cfg
        .int(&["moe_layer_end_index"], 0, MAX_LAYERS)?
        .unwrap_or(layers.saturating_sub(1));
    let interval = cfg
        .int(&["moe_layer_interval"], 1, MAX_LAYERS)?
        .unwrap_or(1);
    let moe_count = (0..layers)
        .filter(|i| (i + 1) % interval == 0 && *i >= start && *i <= end)
        .count() as u64;
    let width = cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?;
    let shared = cfg.int(&["moe_num_shared_experts"], 0, 64)?.unwrap_or(0);
    Ok(Moe {
        experts: cfg.req(&["moe_num_experts", "num_experts"], 1, MAX_EXPERTS)?,
        experts_per_token: cfg.req(&["moe_k", "num_experts_per_tok"], 1, MAX_EXPERTS)?,
        shared_experts: shared,
        expert_intermediate: width,
        shared_intermediate: (shared > 0).then_some(width * shared),
        dense_layers: layers - moe_count,
        router_bias: true,
        latent: 0,
    })
}

/// The families whose every layer is recurrent, read by [`import_mamba`].
pub(super) fn recurrent_only(arch: Arch) -> bool {
    matches!(arch, Arch::Mamba | Arch::Mamba2 | Arch::Xlstm | Arch::Rwkv)
}

/// Mamba-1 or Mamba-2 alone: no attention, no feed-forward, one norm per
/// layer; xLSTM's and RWKV-4's recurrent-only blocks are read by their own
/// modules.
pub(super) fn import_mamba(cfg: &Cfg, arch: Arch, model_type: &str) -> Result<ModelSpec> {
    match arch {
        Arch::Xlstm => return super::xlstm::import_xlstm(cfg),
        Arch::Rwkv => return super::rwkv::import_rwkv(cfg),
        _ => {}
    }
    let hidden = cfg.req(HIDDEN, 1, MAX_DIM)?;
    let layers = cfg.req(LAYERS, 1, MAX_LAYERS)?;
    let expand = cfg.float("expand", 0.0, 64.0)?.unwrap_or(2.0);
    // Mamba2Mixer: intermediate_size = int(expand * hidden_size)
    let expanded = (expand * hidden as f64) as u64;
    let recurrent = if arch == Arch::Mamba2 {
        Recurrent {
            kind: RecurrentKind::Mamba2,
            layers,
            inner: expanded,
            heads: cfg.req(&["num_heads"], 1, MAX_HEADS)?,
            groups: cfg.int(&["n_groups"], 1, MAX_HEADS)?.unwrap_or(1),
            state: cfg.req(&["state_size"], 1, MAX_HEADS)?,
            conv_kernel: cfg.int(&["conv_kernel"], 1, 64)?.unwrap_or(4),
            proj_bias: cfg.flag("use_bias", false)?,
            conv_bias: cfg.flag("use_conv_bias", true)?,
            gated_norm: true,
            chunk: cfg.int(&["chunk_size"], 1, MAX_POSITION)?.unwrap_or(256),
            ..Recurrent::default()
        }
    } else {
        Recurrent {
            kind: RecurrentKind::Mamba,
            layers,
            inner: cfg
                .int(&["intermediate_size"], 1, MAX_DIM)?
                .unwrap_or(expanded),
            state: cfg.req(&["state_size"], 1, MAX_HEADS)?,
            conv_kernel: cfg.int(&["conv_kernel"], 1, 64)?.unwrap_or(4),
            dt_rank: dt_rank(cfg, "time_step_rank", hidden)?,
            proj_bias: cfg.flag("use_bias", false)?,
            conv_bias: cfg.flag("use_conv_bias", true)?,
            ..Recurrent::default()
        }
    };
    Ok(ModelSpec {
        name: model_type.to_string(),
        arch,
        hidden,
        layers,
        heads: 1,
        kv_heads: 1,
        head_dim: Some(1),
        intermediate: 1,
        vocab: cfg.req(VOCAB, 1, MAX_DIM)?,
        max_position: cfg.int(POSITIONS, 0, MAX_POSITION)?.unwrap_or(0),
        tied_embeddings: cfg.flag("tie_word_embeddings", arch == Arch::Mamba)?,
        norms_per_layer: Some(1),
        attention_layers: Some(0),
        mlp_layers: Some(0),
        recurrent: Some(recurrent),
        ..ModelSpec::default()
    })
}

/// Jamba: attention on layers `i % attn_layer_period == attn_layer_offset`,
/// Mamba (with dt/B/C norms) elsewhere; MoE where `i % expert_layer_period
/// == expert_layer_offset`.
fn jamba(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let every = |period: &'static str, offset: &'static str, p0: u64, o0: u64| -> Result<u64> {
        let p = cfg.int(&[period], 1, MAX_LAYERS)?.unwrap_or(p0);
        let o = cfg.int(&[offset], 0, MAX_LAYERS)?.unwrap_or(o0);
        Ok((0..layers).filter(|i| i % p == o).count() as u64)
    };
    let attention = every("attn_layer_period", "attn_layer_offset", 8, 4)?;
    let experts_layers = every("expert_layer_period", "expert_layer_offset", 2, 1)?;
    spec.attention_layers = Some(attention);
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::Mamba,
        layers: layers - attention,
        inner: spec
            .hidden
            .saturating_mul(cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2)),
        state: cfg.int(&["mamba_d_state"], 1, MAX_HEADS)?.unwrap_or(16),
        conv_kernel: cfg.int(&["mamba_d_conv"], 1, 64)?.unwrap_or(4),
        dt_rank: dt_rank(cfg, "mamba_dt_rank", spec.hidden)?,
        proj_bias: cfg.flag("mamba_proj_bias", false)?,
        conv_bias: cfg.flag("mamba_conv_bias", true)?,
        dt_bc_norms: true,
        ..Recurrent::default()
    });
    let experts = cfg.int(&["num_experts"], 1, MAX_EXPERTS)?.unwrap_or(16);
    if experts > 1 {
        spec.moe = Some(Moe {
            experts,
            experts_per_token: cfg.int(&["num_experts_per_tok"], 1, experts)?.unwrap_or(2),
            shared_experts: 0,
            expert_intermediate: dense_width(cfg)?,
            shared_intermediate: None,
            dense_layers: layers - experts_layers,
            router_bias: false,
            latent: 0,
        });
    }
    Ok(())
}

/// Nemotron-H's blocks as pattern characters, from `layers_block_type` or
/// `hybrid_override_pattern`.
pub(super) fn nemotron_blocks(cfg: &Cfg) -> Result<Vec<char>> {
    let blocks: Vec<char> = match cfg.strings("layers_block_type")? {
        Some(list) => list
            .iter()
            .map(|t| match *t {
                "mamba" | "linear_attention" => Ok('M'),
                "attention" | "full_attention" => Ok('*'),
                "mlp" => Ok('-'),
                "moe" => Ok('E'),
                other => Err(InputError::new(
                    cfg.field("layers_block_type"),
                    format!("\"{other}\" is not a block type: allowed mamba, attention, mlp, moe"),
                )),
            })
            .collect::<Result<_>>()?,
        None => match cfg.string("hybrid_override_pattern")? {
            Some(pattern) => pattern.chars().collect(),
            None => {
                return Err(InputError::new(
                    cfg.field("hybrid_override_pattern"),
                    "is missing: Nemotron-H lists its blocks there or in layers_block_type",
                ))
            }
        },
    };
    if let Some(bad) = blocks.iter().find(|c| !matches!(c, 'M' | '*' | '-' | 'E')) {
        return Err(InputError::new(
            cfg.field("hybrid_override_pattern"),
            format!("'{bad}' is not a block: allowed M (Mamba-2), * (attention), - (MLP), E (MoE)"),
        ));
    }
    if blocks.is_empty() || blocks.len() as u64 > MAX_LAYERS {
        return Err(InputError::new(
            cfg.field("hybrid_override_pattern"),
            format!("has {} blocks: allowed 1 to {MAX_LAYERS}", blocks.len()),
        ));
    }
    Ok(blocks)
}

/// Nemotron-H: a stack of single-purpose blocks (`M` Mamba-2, `*`
/// attention, `-` MLP, `E` MoE), each with one norm.
fn nemotron_h(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let blocks = nemotron_blocks(cfg)?;
    let count = |c: char| blocks.iter().filter(|b| **b == c).count() as u64;
    let layers = (blocks.len() as u64).clamp(1, MAX_LAYERS);
    if layers != spec.layers {
        return Err(InputError::new(
            cfg.field("num_hidden_layers"),
            format!("is {} but the block list has {layers} blocks", spec.layers),
        ));
    }
    spec.norms_per_layer = Some(1);
    spec.attention_layers = Some(count('*'));
    spec.mlp_layers = Some(count('-') + count('E'));
    spec.mlp = MlpKind::Plain;
    attention_bias(cfg, spec, false)?;
    let heads = cfg.req(&["mamba_num_heads"], 1, MAX_HEADS)?;
    let head_dim = cfg.req(&["mamba_head_dim"], 1, MAX_HEADS)?;
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::Mamba2,
        layers: count('M'),
        inner: heads * head_dim,
        heads,
        groups: cfg.int(&["n_groups"], 1, MAX_HEADS)?.unwrap_or(1),
        state: cfg.req(&["ssm_state_size"], 1, MAX_HEADS)?,
        conv_kernel: cfg.int(&["conv_kernel"], 1, 64)?.unwrap_or(4),
        // `use_bias` puts biases on in_proj and out_proj (transformers 5.24;
        // `mamba_proj_bias` sizes nothing)
        proj_bias: cfg.flag("use_bias", false)?,
        conv_bias: cfg.flag("use_conv_bias", true)?,
        gated_norm: true,
        // NemotronHConfig: mamba_ssm_cache_dtype = "float32" when absent.
        state_fp32: cfg.string("mamba_ssm_cache_dtype")?.unwrap_or("float32") == "float32",
        // NemotronHConfig: chunk_size = 128
        chunk: cfg.int(&["chunk_size"], 1, MAX_POSITION)?.unwrap_or(128),
        ..Recurrent::default()
    });
    if count('E') > 0 {
        // `NemotronHMLP(intermediate_size=...)` takes `intermediate_size or
        // config.intermediate_size`: a 0 or null width is the dense MLP's
        let shared = match cfg.int(&["moe_shared_expert_intermediate_size"], 0, MAX_DIM)? {
            Some(0) | None => spec.intermediate,
            Some(width) => width,
        };
        spec.moe = Some(Moe {
            experts: cfg.req(&["n_routed_experts"], 1, MAX_EXPERTS)?,
            experts_per_token: cfg.req(&["num_experts_per_tok"], 1, MAX_EXPERTS)?,
            shared_experts: u64::from(shared > 0),
            expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
            shared_intermediate: (shared > 0).then_some(shared),
            dense_layers: count('-'),
            router_bias: false,
            // LatentMoE (Nemotron 3): experts over `moe_latent_size`
            // channels between `fc1_latent_proj` and `fc2_latent_proj`
            latent: cfg.int(&["moe_latent_size"], 1, MAX_DIM)?.unwrap_or(0),
        });
        // its routers stay fp32 in a 16-bit load (`_keep_in_fp32_modules_strict`:
        // `gate.weight`, experts × hidden per MoE block; measured after
        // `from_pretrained(dtype=torch.bfloat16)` of a saved tiny model)
        let experts = spec.moe.as_ref().map_or(0, |m| m.experts);
        spec.fp32_params = spec
            .fp32_params
            .saturating_add(count('E').saturating_mul(experts.saturating_mul(spec.hidden)));
    }
    // `NemotronHForCausalLM` declares no tied weights: whatever the flag says
    spec.tied_embeddings = false;
    // `mlp_bias` biases the dense MLPs and the shared expert, never the
    // routed experts (their fused weights carry none)
    spec.mlp_bias = Some(false);
    if cfg.flag("mlp_bias", false)? {
        let h = spec.hidden;
        let dense = spec
            .intermediate
            .saturating_add(h)
            .saturating_mul(count('-'));
        let shared = spec
            .moe
            .as_ref()
            .and_then(|m| m.shared_intermediate)
            .map_or(0, |s| s.saturating_add(h).saturating_mul(count('E')));
        // the latent projections' biases: latent- and hidden-wide
        let latent = spec.moe.as_ref().map_or(0, |m| match m.latent {
            0 => 0,
            l => l.saturating_add(h).saturating_mul(count('E')),
        });
        spec.model_extra_params = spec
            .model_extra_params
            .saturating_add(dense)
            .saturating_add(shared)
            .saturating_add(latent);
    }
    Ok(())
}

/// The Mamba-2 mixer of the `mamba_*`-prefixed configs (Falcon-H1,
/// Granite-4.0-H), over `inner` channels on `layers` layers.
fn mamba2_mixer(cfg: &Cfg, layers: u64, inner: u64, gated_norm: bool) -> Result<Recurrent> {
    Ok(Recurrent {
        kind: RecurrentKind::Mamba2,
        layers,
        inner,
        heads: cfg.req(&["mamba_n_heads"], 1, MAX_HEADS)?,
        groups: cfg.int(&["mamba_n_groups"], 1, MAX_HEADS)?.unwrap_or(1),
        state: cfg.req(&["mamba_d_state"], 1, MAX_HEADS)?,
        conv_kernel: cfg.int(&["mamba_d_conv"], 1, 64)?.unwrap_or(4),
        proj_bias: cfg.flag("mamba_proj_bias", false)?,
        conv_bias: cfg.flag("mamba_conv_bias", true)?,
        gated_norm,
        chunk: cfg
            .int(&["mamba_chunk_size"], 1, MAX_POSITION)?
            .unwrap_or(256),
        ..Recurrent::default()
    })
}

/// Falcon-H1: every layer runs attention and a Mamba-2 mixer side by side,
/// then a gated MLP.
fn falcon_h1(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    let layers = spec.layers;
    spec.attention_layers = Some(layers);
    let inner = match cfg.int(&["mamba_d_ssm"], 1, MAX_DIM)? {
        Some(d) => d,
        None => spec
            .hidden
            .saturating_mul(cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2)),
    };
    let gated_norm = cfg.flag("mamba_rms_norm", false)?;
    spec.recurrent = Some(mamba2_mixer(cfg, layers, inner, gated_norm)?);
    Ok(())
}

/// Granite-4.0-H: Mamba-2 or attention per `layer_types`, then MoE with a
/// shared MLP (or the shared MLP alone when there are no experts).
fn granite_hybrid(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    let layers = spec.layers;
    let attention = match layer_types(cfg, layers)? {
        Some(types) => types.count(ATTENTION_TYPES),
        None => layers,
    };
    spec.attention_layers = Some(attention);
    let expand = cfg.int(&["mamba_expand"], 1, 64)?.unwrap_or(2);
    let inner = spec.hidden.saturating_mul(expand);
    spec.recurrent = Some(mamba2_mixer(cfg, layers - attention, inner, true)?);
    let shared = cfg
        .int(&["shared_intermediate_size"], 0, MAX_DIM)?
        .unwrap_or(0);
    let experts = cfg
        .int(&["num_local_experts"], 0, MAX_EXPERTS)?
        .unwrap_or(0);
    if experts == 0 {
        spec.intermediate = shared.max(1);
    } else {
        spec.moe = Some(Moe {
            experts,
            experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
            shared_experts: u64::from(shared > 0),
            expert_intermediate: dense_width(cfg)?,
            shared_intermediate: (shared > 0).then_some(shared),
            dense_layers: 0,
            router_bias: false,
            latent: 0,
        });
    }
    Ok(())
}

/// Qwen3-Next and Qwen3.5: Gated DeltaNet on `linear_attention` layers,
/// gated attention with q/k norms on the others; MoE with a gated shared
/// expert where `num_experts` is set.
fn qwen3_next(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    attention_bias(cfg, spec, false)?;
    let layers = spec.layers;
    let linear = match layer_types(cfg, layers)? {
        Some(types) => types.count(RECURRENT_TYPES),
        None => {
            let every = cfg
                .int(&["full_attention_interval"], 1, MAX_LAYERS)?
                .unwrap_or(4);
            layers - layers / every
        }
    };
    spec.gated_attention = true;
    spec.qk_norm = Some(QkNorm::Head);
    let value_heads = cfg.req(&["linear_num_value_heads"], 1, MAX_HEADS)?;
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::GatedDeltaNet,
        layers: linear,
        inner: value_heads * cfg.req(&["linear_value_head_dim"], 1, MAX_HEADS)?,
        heads: value_heads,
        groups: cfg.req(&["linear_num_key_heads"], 1, MAX_HEADS)?,
        state: cfg.req(&["linear_key_head_dim"], 1, MAX_HEADS)?,
        conv_kernel: cfg.int(&["linear_conv_kernel_dim"], 1, 64)?.unwrap_or(4),
        gated_norm: true,
        // Qwen3_5GatedDeltaNet projects z with its own in_proj_z; a
        // text_config without a model_type is a Qwen3.5 wrapper's.
        separate_z: cfg
            .string("model_type")?
            .is_none_or(|t| t.starts_with("qwen3_5")),
        ..Recurrent::default()
    });
    if let Some(experts) = cfg.int(&["num_experts"], 1, MAX_EXPERTS)? {
        let step = cfg
            .int(&["decoder_sparse_step"], 1, MAX_LAYERS)?
            .unwrap_or(1);
        let mlp_only = cfg.array("mlp_only_layers")?.cloned().unwrap_or_default();
        let dense = (0..layers)
            .filter(|i| mlp_only.iter().any(|v| v.as_u64() == Some(*i)) || (i + 1) % step != 0)
            .count() as u64;
        let shared = cfg
            .int(&["shared_expert_intermediate_size"], 0, MAX_DIM)?
            .unwrap_or(0);
        spec.moe = Some(Moe {
            experts,
            experts_per_token: cfg.req(&["num_experts_per_tok"], 1, experts)?,
            shared_experts: u64::from(shared > 0),
            expert_intermediate: cfg.req(&["moe_intermediate_size"], 1, MAX_DIM)?,
            shared_intermediate: (shared > 0).then_some(shared),
            dense_layers: dense,
            // shared_expert_gate: hidden -> 1
            router_bias: false,
            latent: 0,
        });
    }
    Ok(())
}

/// LFM2: short gated convolutions on `conv` layers, attention with q/k norms
/// on the others; the feed-forward width adjusted as `Lfm2MLP` does.
fn lfm2(cfg: &Cfg, model_type: &str, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    if model_type == "lfm3" {
        return super::lfm3::lfm3(cfg, spec);
    }
    let attention = match layer_types(cfg, layers)? {
        Some(types) => types.count(ATTENTION_TYPES),
        None => match cfg.array("full_attn_idxs")? {
            Some(list) => list.len() as u64,
            None => layers,
        },
    }
    .min(layers);
    spec.attention_layers = Some(attention);
    spec.qk_norm = Some(QkNorm::Head);
    let mut ff = dense_width(cfg)?;
    if cfg.flag("block_auto_adjust_ff_dim", false)? {
        // Lfm2MLP: int(2·ff/3), times the multiplier, rounded up to a multiple
        ff = 2 * ff / 3;
        if let Some(m) = cfg.float("block_ffn_dim_multiplier", 0.0, 64.0)? {
            ff = (m * ff as f64) as u64;
        }
        let multiple = cfg.int(&["block_multiple_of"], 1, MAX_DIM)?.unwrap_or(256);
        ff = ff.div_ceil(multiple) * multiple;
    }
    spec.intermediate = ff.clamp(1, MAX_DIM);
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::ShortConv,
        layers: layers - attention,
        inner: spec.hidden,
        conv_kernel: cfg.int(&["conv_L_cache"], 1, 64)?.unwrap_or(3),
        conv_bias: cfg.flag("conv_bias", false)?,
        ..Recurrent::default()
    });
    Ok(())
}

/// Apertus 1.5's language model: a head of `output_vocab_size` rows
/// (the ids `0..output_vocab_size`) over an embedding of `vocab_size`;
/// null or equal to the vocabulary, the usual one. Tied, the head is the
/// embedding itself, all `vocab_size` rows (`_tied_weights_keys` replaces
/// the pruned weight), so the width applies to an untied head only.
pub(super) fn output_vocab(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let vocab = spec.vocab;
    match cfg.int(&["output_vocab_size"], 1, vocab)? {
        Some(rows) if rows < vocab && !spec.tied_embeddings => {
            // the logits are `rows` wide; the embedding's other rows are
            // counted as rows beyond the head's vocabulary
            spec.vocab = rows;
            spec.type_vocab = vocab - rows;
        }
        _ => {}
    }
    Ok(())
}

/// MiniMax-01: lightning attention on `linear_attention` layers, softmax
/// attention on the others, Mixtral-style MoE on every layer.
fn minimax(cfg: &Cfg, spec: &mut ModelSpec) -> Result<()> {
    let layers = spec.layers;
    let linear = match layer_types(cfg, layers)? {
        Some(types) => types.count(RECURRENT_TYPES),
        None => 0,
    };
    spec.recurrent = Some(Recurrent {
        kind: RecurrentKind::Lightning,
        layers: linear,
        inner: spec.heads.saturating_mul(spec.head_dim()),
        heads: spec.heads,
        gated_norm: true,
        chunk: cfg.int(&["block_size"], 1, MAX_POSITION)?.unwrap_or(256),
        ..Recurrent::default()
    });
    spec.moe = Some(Moe {
        experts: cfg.req(&["num_local_experts"], 1, MAX_EXPERTS)?,
        experts_per_token: cfg.req(&["num_experts_per_tok"], 1, MAX_EXPERTS)?,
        shared_experts: 0,
        expert_intermediate: dense_width(cfg)?,
        shared_intermediate: None,
        dense_layers: 0,
        router_bias: false,
        latent: 0,
    });
    Ok(())
}

/// The layers that run their own indexer: GLM-MoE-DSA's `indexer_types`
/// (`indexer_types::full_indexers`); DeepSeek-V3.2 indexes every layer, HY-V4 by its
/// own default.
fn indexed_layers(cfg: &Cfg, model_type: &str, layers: u64) -> Result<u64> {
    if model_type == "deepseek_v32" {
        return Ok(layers);
    }
    if matches!(model_type, "hy_v4" | "hy_v4_vl_text") && !cfg.obj.contains_key("indexer_types") {
        return Ok(super::hyper::hy_v4_full_indexers(layers));
    }
    Ok(super::indexer_types::full_indexers(cfg, layers)?
        .iter()
        .filter(|f| **f)
        .count() as u64)
}
