//! ERNIE-4.5-VL (`ernie4_5_vl_moe`, `Ernie4_5_VLMoeForConditionalGeneration`,
//! transformers 5.24): ERNIE-4.5's decoder whose sparse layers hold two
//! expert groups, one for text tokens and a narrower one for image and
//! video tokens (`moe_intermediate_size = [text, vision]`, each group with
//! its own router and `e_score_correction_bias`), beside one shared MLP
//! every token runs; Qwen2-VL's ViT blocks behind a bias-free linear patch
//! embedding and a final LayerNorm; and a resampler that merges
//! `spatial_merge_size`² patches, pairs frames and maps them to the text
//! width. Its image processor is Qwen2-VL's resize with the pixel limits
//! of its `size` (`shortest_edge`, `longest_edge`).

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{Arch, ModelSpec, Moe, TowerBlock, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS};

/// The wrapper: the text model from `text_config` (`Ernie4_5_VLMoeTextConfig`'s
/// defaults where it is silent), the tower and the resampler; the head is
/// tied by the wrapper's `tie_word_embeddings` alone (default true; the
/// text config's flag is not read: `_tied_weights_keys`).
pub(super) fn import_ernie4_5_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("ernie4_5_vl_moe_text");
    let mut spec = import_text(&text)?;
    spec.arch = Arch::Ernie45Moe;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let (moe, vision_group) = expert_groups(&text, spec.layers, spec.hidden)?;
    let sparse = spec.layers - moe.dense_layers;
    // the vision group is resident beside the text experts but no text
    // token reaches it: counted as parameters outside the MoE
    spec.model_extra_params = sparse.saturating_mul(vision_group);
    // `use_bias` biases the dense and shared MLPs but not the experts
    // (3-D tensors without one): counted beside, as the spec's MLP biases
    // would reach every expert
    if spec.out_bias {
        spec.mlp_bias = Some(false);
        let dense_bias = 2 * spec.intermediate + spec.hidden;
        let shared_bias = moe
            .shared_intermediate
            .map_or(0, |w| w.saturating_mul(2).saturating_add(spec.hidden));
        spec.model_extra_params = spec
            .model_extra_params
            .saturating_add(moe.dense_layers.saturating_mul(dense_bias))
            .saturating_add(sparse.saturating_mul(shared_bias));
    }
    spec.moe = (sparse > 0).then_some(moe);
    spec.name = "ernie4_5_vl_moe".to_string();
    spec.vision = Some(tower(cfg, spec.hidden)?);
    Ok(spec)
}

/// The text experts as the spec's MoE, and the parameters of one sparse
/// layer's vision group: its router (`experts × hidden`) and bias
/// (`experts`) and its experts' gate, up and down projections.
fn expert_groups(text: &Cfg, layers: u64, hidden: u64) -> Result<(Moe, u64)> {
    let experts = text
        .int(&["moe_num_experts", "num_experts"], 1, MAX_EXPERTS)?
        .unwrap_or(64);
    let top_k = text
        .int(&["moe_k", "num_experts_per_tok"], 1, experts)?
        .unwrap_or(6);
    let shared = text.int(&["moe_num_shared_experts"], 0, 64)?.unwrap_or(2);
    let widths = text
        .ints("moe_intermediate_size", 1, MAX_DIM)?
        .unwrap_or_else(|| vec![1536, 512]);
    let [text_width, vision_width] = widths[..] else {
        return Err(InputError::new(
            text.field("moe_intermediate_size"),
            format!(
                "has {} entries: ERNIE-4.5-VL takes two, [text experts' width, vision experts' width]",
                widths.len()
            ),
        ));
    };
    // Ernie4_5_VLMoeTextConfig: `["dense"] + ["sparse"] * (layers - 1)`
    let dense = match text.strings("mlp_layer_types")? {
        Some(types) => {
            super::reader::one_per_layer(text, "mlp_layer_types", types.len(), layers)?;
            super::moe_layouts::dense_in(text, &types)?
        }
        None => 1.min(layers),
    };
    let vision_group = experts
        .saturating_mul(hidden)
        .saturating_add(experts)
        .saturating_add(
            3u64.saturating_mul(experts)
                .saturating_mul(vision_width)
                .saturating_mul(hidden),
        );
    let moe = Moe {
        experts,
        experts_per_token: top_k,
        shared_experts: shared,
        expert_intermediate: text_width,
        // one MLP of `text width × shared` (Ernie4_5_VLMoeMLP), every token
        shared_intermediate: (shared > 0).then_some(text_width.saturating_mul(shared)),
        dense_layers: dense,
        router_bias: true,
        latent: 0,
    };
    Ok((moe, vision_group))
}

/// `Ernie4_5_VLMoeVisionTransformerPretrainedModel` (its vision config's
/// defaults: 32 blocks of 1280, 16 heads, 5120 wide, 14 px patches) and
/// the resampler (`Ernie4_5_VLMoeVariableResolutionResamplerModel`).
fn tower(cfg: &Cfg, text_hidden: u64) -> Result<crate::model::VisionTower> {
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1280);
    let depth = v
        .int(&["depth", "num_hidden_layers"], 1, MAX_LAYERS)?
        .unwrap_or(32);
    let heads = v
        .int(&["num_heads", "num_attention_heads"], 1, MAX_HEADS)?
        .unwrap_or(16);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(5120);
    let patch = v.int(&["patch_size"], 1, 1024)?.unwrap_or(14);
    let channels = v.int(&["in_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let frames = v.int(&["temporal_merge_size"], 1, 64)?.unwrap_or(2);
    let (dw, mw, h) = (u128::from(d), u128::from(m), u128::from(text_hidden));
    // patch_embed: Linear(channels·patch², d, bias=False); each block:
    // norm1, norm2 = LayerNorm(d), qkv = Linear(d, 3d) and proj, fc1 and
    // fc2 biased (Qwen2-VL's block); then `ln`, a LayerNorm(d)
    let embed = u128::from(channels) * u128::from(patch).pow(2) * dw;
    let block = 4 * dw + (3 * dw * dw + 3 * dw) + (dw * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    let tower = embed + u128::from(depth) * block + 2 * dw;
    // spatial_linear: fc1, fc2 (S → S) and LayerNorm(S); temporal_linear:
    // fc1 (S·frames → S), fc2 (S → S), LayerNorm(S); mlp (S → text) and
    // after_norm, an RMSNorm of the text width; S = d · merge²
    let s = dw * u128::from(merge).pow(2);
    let spatial = 2 * (s * s + s) + 2 * s;
    let temporal = (s * u128::from(frames) * s + s) + (s * s + s) + 2 * s;
    let resampler = spatial + temporal + (s * h + h) + h;
    let mut shape = tower_shape(
        d,
        depth,
        heads,
        m,
        super::vlm::QWEN_DEFAULT_IMAGE.max(patch),
        patch,
    );
    shape.block = TowerBlock::Qwen2Vl;
    counted(shape, tower, resampler)
}
