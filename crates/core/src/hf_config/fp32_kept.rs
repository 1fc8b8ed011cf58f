//! The parameters a family's transformers modeling file keeps in fp32 when
//! the model loads in 16 bits (`_keep_in_fp32_modules_strict`, or created
//! fp32 explicitly), counted from the spec's fields for the families whose
//! importer does not count them itself; measured on the meta device after
//! `from_config(dtype=torch.bfloat16)` (`tests/data/params/fp32_kept.csv`,
//! transformers 5.24).

use crate::model::ModelSpec;

/// The families whose MoE routers (`gate.weight`, experts × hidden on every
/// MoE layer) stay fp32; a wrapper named by its own `model_type` when its
/// text model is one of them.
const ROUTERS_IN_FP32: [&str; 33] = [
    "dots3_note_text",
    "dots3_note",
    "flint",
    "ernie4_5_vl_moe",
    "axk2",
    "bailing_hybrid",
    "beam",
    "deepseek_v2",
    "deepseek_v3",
    "axk1",
    "kimi_k2",
    "kimi_k25",
    "deepseek_v32",
    "dots1",
    "ernie4_5_moe",
    "exaone_moe",
    "glm4_moe",
    "glm4_moe_lite",
    "glm4v_moe",
    "glm46v",
    "glmga",
    "glm_moe_dsa",
    "hy_v3",
    "hy_v4",
    "hy_v4_vl_text",
    "hy_v4_vl",
    "kimi_linear",
    "mimo_v2_flash",
    "mistral_large4_text",
    "mistral_large4",
    "sarvam_mla",
    "sarvam_moe",
    "solar_open",
];

/// fp32 parameters of `model_type` beyond what its importer counted.
pub(super) fn kept_params(model_type: &str, spec: &ModelSpec) -> u64 {
    let routers = if ROUTERS_IN_FP32.contains(&model_type) {
        super::moe_layouts::moe_routers(spec)
    } else {
        0
    };
    let moe_layers = spec
        .moe
        .as_ref()
        .map_or(0, |m| spec.layers.saturating_sub(m.dense_layers));
    let extra = match (model_type, &spec.recurrent) {
        // Kimi-Linear's `dt_bias`, per channel on its KDA layers
        ("kimi_linear", Some(r)) => r.layers.saturating_mul(r.inner),
        // OLMo-Hybrid creates its Gated DeltaNet's `A_log` (one per head) in fp32
        ("olmo_hybrid", Some(r)) => r.layers.saturating_mul(r.heads),
        // Zamba builds its Mamba `A_log` from an fp32 `arange`, and loading
        // keeps a parameter's dtype (inner × state per layer)
        ("zamba", Some(r)) => r.layers.saturating_mul(r.inner.saturating_mul(r.state)),
        // AFMoE's learned router bias (`expert_bias`), one per expert
        ("afmoe", _) => moe_layers.saturating_mul(spec.moe.as_ref().map_or(0, |m| m.experts)),
        ("hy_v4" | "hy_v4_vl_text" | "hy_v4_vl", _) => hy_v4_extra(spec),
        // ERNIE-4.5-VL's second (vision) router beside the text one, and
        // both routers' `e_score_correction_bias` (experts each): its
        // strict list is `gate.weight`, `e_score_correction_bias`
        ("ernie4_5_vl_moe", _) => super::moe_layouts::moe_routers(spec).saturating_add(
            moe_layers.saturating_mul(2 * spec.moe.as_ref().map_or(0, |m| m.experts)),
        ),
        // Mistral Large 4's rotary `alpha` (rope / 2, LeRoPE)
        ("mistral_large4_text" | "mistral_large4", _) => spec
            .mla
            .as_ref()
            .map_or(0, |m| m.qk_rope_head_dim.div_ceil(2)),
        _ => 0,
    };
    routers.saturating_add(extra)
}

/// HY-V4 keeps the sinks (one per head and layer), the indexers' k_norm
/// (LayerNorm, 2·d) and `weights_proj` (hidden → index heads) on the layers
/// that run one, every layer's two hyper-connections (as `hyper::hy_v4`
/// counts them: `fn` 2n × n·hidden, `base` 2n, `scale` 2), `hc_head`
/// (n × n·hidden + n + 1) and, untied, the head (`lm_head` is in its
/// strict list).
fn hy_v4_extra(spec: &ModelSpec) -> u64 {
    let h = spec.hidden;
    let layers = spec.layers;
    let sinks = layers.saturating_mul(spec.heads);
    let indexer = spec
        .mla
        .as_ref()
        .and_then(|m| m.indexer.as_ref())
        .map_or(0, |ix| {
            ix.layers
                .saturating_mul(2 * ix.head_dim + h.saturating_mul(ix.heads))
        });
    let streams = spec.hyper_connections.as_ref().map_or(0, |c| c.streams);
    let connection = (2 * streams)
        .saturating_mul(streams.saturating_mul(h))
        .saturating_add(2 * streams + 2);
    let connections = layers.saturating_mul(2 * connection);
    let head_mix = streams.saturating_mul(streams.saturating_mul(h)) + streams + 1;
    let lm_head = if spec.tied_embeddings {
        0
    } else {
        spec.vocab.saturating_mul(h)
    };
    sinks
        .saturating_add(indexer)
        .saturating_add(connections)
        .saturating_add(head_mix)
        .saturating_add(lm_head)
}
