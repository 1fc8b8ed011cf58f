//! VLM wrappers whose vision tower is not CLIP-shaped: Qwen2-VL,
//! Qwen2.5-VL, Qwen3-VL, Qwen3.5 (dense and MoE), Gemma 3 (SigLIP) and
//! Mistral 3 (Pixtral). The language model is the `text_config` (or, in
//! Qwen's flat Hub format, the top-level fields); the tower's parameters
//! are counted by the formula of its modeling file (every term below names
//! the module it comes from) and kept in `VisionTower::params`, its merger
//! in `projector_params`. The SigLIP count (`siglip_params`) serves
//! `shuffle.rs` and `siglip.rs` too.

use super::reader::{Cfg, Defaults};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, VisionTower, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The square image an estimate assumes when the scenario gives no size:
/// a dynamic-resolution tower has no size of its own. 448 px is 32 × 32
/// patches of 14 px, 256 merged tokens.
pub(super) const QWEN_DEFAULT_IMAGE: u64 = 448;

/// Qwen2-VL (`qwen2_vl`) or Qwen2.5-VL (`qwen2_5_vl`), with its language
/// model imported by `import_text` (the Qwen2 decoder).
pub(super) fn import_qwen_vl(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let v25 = model_type == "qwen2_5_vl";
    // transformers 5 saves `text_config`; the Hub's checkpoints keep the
    // text fields at the top level (`Qwen2VLConfig.__post_init__` moves them).
    let (mut spec, text_tied) = match cfg.object("text_config")? {
        Some(mut text) => {
            text.defaults = Defaults::QwenVlText;
            let tied = text.flag("tie_word_embeddings", false)?;
            (import_text(&text)?, tied)
        }
        None => {
            let mut flat = Cfg::new(cfg.obj, &cfg.prefix);
            flat.defaults = Defaults::QwenVlText;
            (import_text(&flat)?, false)
        }
    };
    // `Qwen2VLConfig.tie_word_embeddings` (default False); a pre-v5 save
    // that put it in text_config is forwarded to the outer config.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)? || text_tied;
    let vision = cfg.required_object("vision_config", model_type)?;
    let (tower, merger) = if v25 {
        qwen2_5_vision(&vision, None)?
    } else {
        qwen2_vision(&vision, spec.hidden)?
    };
    let mut tower = tower;
    tower.projector_params = merger;
    spec.name = model_type.to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// EXAONE 4.5 (`exaone4_5`): Qwen2.5-VL's tower and merger, its attention
/// with grouped keys and values (`Exaone4_5_VisionConfig.num_key_value_heads`,
/// default 8), over an EXAONE 4 language model (`text_config`, default
/// `exaone4`); only the wrapper's `tie_word_embeddings` ties.
pub(super) fn import_exaone4_5(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", "exaone4_5")?;
    text.defaults = Defaults::Class("exaone4");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let mut vision = cfg.required_object("vision_config", "exaone4_5")?;
    vision.defaults = Defaults::Class("exaone4_5_vision");
    let (mut tower, merger) = qwen2_5_vision(&vision, Some(8))?;
    tower.projector_params = merger;
    spec.name = "exaone4_5".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// Fields both Qwen towers share: (patch, temporal patch, input channels, merge).
fn patching(v: &Cfg) -> Result<(u64, u64, u64, u64)> {
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(14);
    let temporal = v.int(&["temporal_patch_size"], 1, 64)?.unwrap_or(2);
    let channels = v.int(&["in_channels", "in_chans"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    Ok((patch, temporal, channels, merge))
}

/// A tower's shape for the estimator (activations, image tokens), its
/// parameters not yet counted.
pub(super) fn tower_shape(
    hidden: u64,
    layers: u64,
    heads: u64,
    intermediate: u64,
    image_size: u64,
    patch_size: u64,
) -> VisionTower {
    VisionTower {
        hidden,
        layers,
        heads,
        intermediate,
        image_size,
        patch_size,
        projector_params: 0,
        projection_dim: 0,
        params: None,
        block: crate::model::TowerBlock::Other,
        gated_layers: 0,
        unhooked: false,
    }
}

/// A SigLIP-layer tower (`SiglipEncoderLayer`, Idefics3's copy of it).
pub(super) fn siglip_shape(
    hidden: u64,
    layers: u64,
    heads: u64,
    intermediate: u64,
    image_size: u64,
    patch_size: u64,
) -> VisionTower {
    VisionTower {
        block: crate::model::TowerBlock::Siglip,
        gated_layers: 0,
        unhooked: false,
        ..tower_shape(hidden, layers, heads, intermediate, image_size, patch_size)
    }
}

/// A shaped tower with its counted parameters, the tower's and the
/// The encoder sizes of a SigLIP-so400m-shaped `vision_config` (width 1152,
/// MLP 4304, 27 layers, 16 heads: the class defaults of HunYuan-VL's,
/// PaddleOCR-VL's and Cosmos3-Edge's towers), its own where it gives them:
/// (width, MLP width, layers, heads).
pub(super) fn so400m_dims(v: &Cfg) -> Result<(u64, u64, u64, u64)> {
    Ok((
        v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1152),
        v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(4304),
        v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(27),
        v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16),
    ))
}

/// projector's, each within the parameter limit.
pub(super) fn counted(mut shape: VisionTower, tower: u128, projector: u128) -> Result<VisionTower> {
    shape.params = Some(narrow(tower, "vision_config")?);
    shape.projector_params = narrow(projector, "vision_config")?;
    Ok(shape)
}

/// `Qwen2VisionTransformerPretrainedModel` (modeling_qwen2_vl.py), with
/// `Qwen2VLVisionConfig`'s defaults: (tower, merger).
fn qwen2_vision(v: &Cfg, text_hidden: u64) -> Result<(VisionTower, u64)> {
    let d = v.int(&["embed_dim"], 1, MAX_DIM)?.unwrap_or(1280);
    let depth = v.int(&["depth"], 1, MAX_LAYERS)?.unwrap_or(32);
    let heads = v.int(&["num_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    let ratio = v.int(&["mlp_ratio"], 1, 64)?.unwrap_or(4);
    // PatchMerger's output width: `vision_config.hidden_size` (the text width).
    let out = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(text_hidden);
    let (patch, temporal, channels, merge) = patching(v)?;
    let m = d.saturating_mul(ratio);
    let (d, m, out) = (d as u128, m as u128, out as u128);
    // PatchEmbed: Conv3d(in_channels, embed_dim, (temporal, patch, patch), bias=False).
    let embed = channels as u128 * temporal as u128 * (patch as u128).pow(2) * d;
    // Qwen2VLVisionBlock: norm1, norm2 = LayerNorm(embed_dim) (weight + bias);
    // VisionAttention: qkv = Linear(d, 3d, bias=True), proj = Linear(d, d);
    // VisionMlp: fc1 = Linear(d, d·mlp_ratio), fc2 = Linear(d·mlp_ratio, d).
    let block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * m + m) + (m * d + d);
    // PatchMerger: ln_q = LayerNorm(d); mlp = Linear(H, H), GELU,
    // Linear(H, hidden_size) with H = d·merge².
    let h = d * (merge as u128).pow(2);
    let merger = 2 * d + (h * h + h) + (h * out + out);
    let tower = embed + depth as u128 * block;
    let mut shape = tower_shape(
        d as u64,
        depth,
        heads,
        m as u64,
        QWEN_DEFAULT_IMAGE.max(patch),
        patch,
    );
    // Qwen2VLVisionConfig's `hidden_act` (quick_gelu); a fused GELU saves
    // what Qwen3-VL's block saves.
    shape.block = match v.string("hidden_act")?.unwrap_or("quick_gelu") {
        "quick_gelu" => crate::model::TowerBlock::Qwen2Vl,
        _ => crate::model::TowerBlock::Qwen3Vl,
    };
    shape.params = Some(narrow(tower, "vision_config")?);
    Ok((shape, narrow(merger, "vision_config")?))
}

/// `Qwen2_5_VisionTransformerPretrainedModel` (modeling_qwen2_5_vl.py),
/// with `Qwen2_5_VLVisionConfig`'s defaults: (tower, merger).
/// Qwen2.5-VL's tower and merger; `kv_default`: the grouped key-value heads
/// a tower has when its config names none (EXAONE 4.5's 8), `None` for
/// Qwen2.5-VL's ungrouped attention.
pub(super) fn qwen2_5_vision(v: &Cfg, kv_default: Option<u64>) -> Result<(VisionTower, u64)> {
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(3584);
    let depth = v.int(&["depth"], 1, MAX_LAYERS)?.unwrap_or(32);
    let heads = v.int(&["num_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3420);
    let out = v.int(&["out_hidden_size"], 1, MAX_DIM)?.unwrap_or(3584);
    let (patch, temporal, channels, merge) = patching(v)?;
    let (d, mw, out) = (d as u128, m as u128, out as u128);
    // Qwen2_5_VisionPatchEmbed: Conv3d(in_channels, hidden, (temporal, patch, patch), bias=False).
    let embed = channels as u128 * temporal as u128 * (patch as u128).pow(2) * d;
    // Qwen2_5_VLVisionBlock: norm1, norm2 = Qwen2_5_VLRMSNorm(hidden) (weight
    // only); attention: qkv = Linear(d, 3d, bias=True), proj = Linear(d, d);
    // Qwen2_5_VLMLP(bias=True): gate_proj, up_proj = Linear(d, m), down_proj = Linear(m, d).
    // EXAONE 4.5's tower groups its keys and values (`num_key_value_heads`,
    // heads of d ÷ num_heads): qkv = Linear(d, q + 2·kv, bias=True).
    let head = d / u128::from(heads.max(1));
    let kv_heads = v
        .int(&["num_key_value_heads"], 1, MAX_HEADS)?
        .or(kv_default);
    let (q, kv) = match kv_heads {
        Some(kv) => (head * u128::from(heads), head * u128::from(kv)),
        None => (d, d),
    };
    let qkv = d * (q + 2 * kv) + q + 2 * kv;
    let block = 2 * d + qkv + (q * d + d) + 2 * (d * mw + mw) + (mw * d + d);
    // Qwen2_5_VLPatchMerger: ln_q = Qwen2_5_VLRMSNorm(d); mlp = Linear(H, H),
    // GELU, Linear(H, out_hidden_size) with H = d·merge².
    let h = d * (merge as u128).pow(2);
    let merger = d + (h * h + h) + (h * out + out);
    let tower = embed + depth as u128 * block;
    let mut shape = tower_shape(
        d as u64,
        depth,
        heads,
        m,
        QWEN_DEFAULT_IMAGE.max(patch),
        patch,
    );
    shape.block = crate::model::TowerBlock::Qwen25Vl;
    shape.params = Some(narrow(tower, "vision_config")?);
    Ok((shape, narrow(merger, "vision_config")?))
}

/// Counts `extra` parameters beside the language model (an audio encoder
/// and projector, a VQ-VAE) in `model_extra_params`; an error naming
/// `field` when the whole passes the limit.
pub(super) fn add_extra_params(
    cfg: &Cfg,
    spec: &mut ModelSpec,
    extra: u128,
    field: &str,
) -> Result<()> {
    let total = u128::from(spec.total_params()) + extra;
    if total > u128::from(crate::model::MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field(field),
            format!(
                "gives {total} parameters, more than {}",
                crate::model::MAX_TOTAL_PARAMS
            ),
        ));
    }
    spec.model_extra_params = spec.model_extra_params.saturating_add(extra as u64);
    Ok(())
}

pub(super) fn narrow(n: u128, field: &str) -> Result<u64> {
    u64::try_from(n)
        .ok()
        .filter(|n| *n <= crate::model::MAX_TOTAL_PARAMS)
        .ok_or_else(|| {
            InputError::new(
                format!("config.json: {field}"),
                "the vision tower has more parameters than allowed (2^44)",
            )
        })
}

/// Gemma 3 with its vision tower (`Gemma3ForConditionalGeneration`): the
/// text model from `text_config` (a diff against `Gemma3TextConfig()`),
/// a SigLIP tower and `Gemma3MultiModalProjector`.
pub(super) fn import_gemma3(
    cfg: &Cfg,
    text: Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = text;
    text.defaults = Defaults::Gemma3Text;
    let mut spec = import_text(&text)?;
    // `Gemma3Config.tie_word_embeddings` defaults to True and alone decides
    // (`_tied_weights_keys` read against the wrapper's config: a text
    // config's False is not consulted; measured on the meta device).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let mut v = cfg.required_object("vision_config", "gemma3")?;
    v.defaults = Defaults::SiglipVision;
    spec.name = "gemma3".to_string();
    spec.vision = Some(gemma3_tower(&v, spec.hidden)?);
    Ok(spec)
}

/// Gemma 3's SigLIP tower (`vision_config`, SigLIP's class defaults where
/// it is silent) and its `Gemma3MultiModalProjector` into a `text_hidden`
/// wide model; T5Gemma 2's encoder builds the same two.
pub(super) fn gemma3_tower(v: &Cfg, text_hidden: u64) -> Result<VisionTower> {
    if let Some(other) = v
        .string("model_type")?
        .filter(|t| *t != "siglip_vision_model")
    {
        return Err(InputError::new(
            v.field("model_type"),
            format!("\"{other}\" is not supported: only siglip_vision_model towers"),
        ));
    }
    let d = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let layers = v.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let heads = v.req(&["num_attention_heads"], 1, MAX_HEADS)?;
    let m = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let image = v.req(&["image_size"], 1, MAX_IMAGE_SIZE)?;
    let patch = v.req(&["patch_size"], 1, image)?;
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    // SiglipVisionConfig.vision_use_head defaults to True (Gemma 3 sets False).
    let head = v.flag("vision_use_head", true)?;
    let tower = siglip_params(d, layers, m, image, patch, channels, head);
    let dw = d as u128;
    // Gemma3MultiModalProjector: mm_input_projection_weight (d × text hidden)
    // and mm_soft_emb_norm = Gemma3RMSNorm(d) (a weight only).
    let projector = dw * text_hidden as u128 + dw;
    counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        projector,
    )
}

/// A SigLIP encoder's parameters (`SiglipVisionTransformer`; Idefics3's and
/// SmolVLM's vision transformers are copies of it without the head):
/// width `d`, `layers` blocks with an `m`-wide MLP, `image`-px squares in
/// `patch`-px patches.
pub(super) fn siglip_params(
    d: u64,
    layers: u64,
    m: u64,
    image: u64,
    patch: u64,
    channels: u64,
    head: bool,
) -> u128 {
    let patches = ((image / patch.max(1)) as u128).pow(2);
    siglip_encoder(d, layers, m, patch, channels, patches, head)
}

/// [`siglip_params`] with the position table's rows given (SigLIP's
/// `(image_size // patch_size)²`, SigLIP2's `num_patches`, resampled to
/// each image): the patch embedding (a Conv2d over patches or SigLIP2's
/// Linear over flattened ones, the same weights and bias) and the rest.
pub(super) fn siglip_encoder(
    d: u64,
    layers: u64,
    m: u64,
    patch: u64,
    channels: u64,
    positions: u128,
    head: bool,
) -> u128 {
    let (dw, mw) = (d as u128, m as u128);
    // SiglipVisionEmbeddings: patch_embedding = Conv2d(channels, d, patch, stride=patch)
    // with a bias; position_embedding = Embedding(num_patches, d) (no class token).
    let embeddings = channels as u128 * (patch as u128).pow(2) * dw + dw + positions * dw;
    // SiglipEncoderLayer: layer_norm1, layer_norm2 = LayerNorm(d); SiglipAttention:
    // q, k, v, out_proj = Linear(d, d) with biases; SiglipMLP: fc1 = Linear(d, m),
    // fc2 = Linear(m, d).
    let block = 2 * 2 * dw + 4 * (dw * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    // SiglipVisionTransformer.post_layernorm = LayerNorm(d).
    let mut tower = embeddings + layers as u128 * block + 2 * dw;
    if head {
        // SiglipMultiheadAttentionPoolingHead: probe (1, 1, d); nn.MultiheadAttention
        // (in_proj 3d² + 3d, out_proj d² + d); layernorm = LayerNorm(d); mlp = SiglipMLP.
        tower +=
            dw + (3 * dw * dw + 3 * dw) + (dw * dw + dw) + 2 * dw + (dw * mw + mw) + (mw * dw + dw);
    }
    tower
}

/// Qwen3-VL (`qwen3_vl`, `Qwen3VLForConditionalGeneration`): the Qwen3
/// decoder from `text_config` (imported by `import_text`) and
/// `Qwen3VLVisionModel`, whose merger and DeepStack mergers are kept in
/// `projector_params`.
pub(super) fn import_qwen3_vl(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = cfg.required_object("text_config", model_type)?;
    let mut spec = import_text(&text)?;
    // `Qwen3VLConfig.tie_word_embeddings` (default False) decides.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let v = cfg.required_object("vision_config", model_type)?;
    // deepstack_visual_indexes: one extra merger per listed layer (default 3).
    let deepstack = match v.obj.get("deepstack_visual_indexes") {
        Some(serde_json::Value::Array(list)) => list.len() as u128,
        Some(serde_json::Value::Null) | None => 3,
        Some(_) => {
            return Err(InputError::new(
                v.field("deepstack_visual_indexes"),
                "must be a list of layer indexes",
            ))
        }
    };
    spec.name = model_type.to_string();
    spec.vision = Some(qwen3_vision(&v, deepstack)?);
    Ok(spec)
}

/// Qwen3.5 (`qwen3_5`, `Qwen3_5ForConditionalGeneration`) and Qwen3.5-MoE
/// (`qwen3_5_moe`, `Qwen3_5MoeForConditionalGeneration`): the Gated
/// DeltaNet hybrid of `text_config` (imported by `import_text`; the class is
/// fixed, `Qwen3_5TextConfig` / `Qwen3_5MoeTextConfig`, so a missing field
/// takes its default) and `Qwen3_5VisionModel` / `Qwen3_5MoeVisionModel`:
/// Qwen3-VL's tower with its one merger and no DeepStack mergers (a
/// `deepstack_visual_indexes` the Hub's configs carry is not read by the
/// model). A missing `vision_config` is the class defaults' tower, as
/// transformers builds it.
pub(super) fn import_qwen3_5(
    cfg: &Cfg,
    model_type: &str,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", model_type)?;
    text.defaults = if model_type == "qwen3_5_moe" {
        Defaults::Qwen35MoeText
    } else {
        Defaults::Qwen35Text
    };
    let mut spec = import_text(&text)?;
    // `Qwen3_5(Moe)ForConditionalGeneration` ties `lm_head` by the outer
    // config alone (`tie_word_embeddings`, default False): the text
    // config's flag is not consulted.
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let empty = serde_json::Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    spec.name = model_type.to_string();
    spec.vision = Some(qwen3_vision(&v, 0)?);
    Ok(spec)
}

/// `Qwen3VLVisionModel` (modeling_qwen3_vl.py) and its copy
/// `Qwen3_5VisionModel`, with `Qwen3VLVisionConfig`'s defaults (the same as
/// `Qwen3_5VisionConfig`'s) and `deepstack` DeepStack mergers: the tower's
/// shape, its count, and the mergers' in `projector_params`.
pub(super) fn qwen3_vision(v: &Cfg, deepstack: u128) -> Result<VisionTower> {
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(1152);
    let depth = v.int(&["depth"], 1, MAX_LAYERS)?.unwrap_or(27);
    let heads = v.int(&["num_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    // The attention splits the fused qkv into heads of hidden // heads.
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_heads"),
            format!(
                "{heads} heads do not divide hidden_size {d}: the vision attention cannot run it"
            ),
        ));
    }
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(4304);
    let out = v.int(&["out_hidden_size"], 1, MAX_DIM)?.unwrap_or(3584);
    let positions = v
        .int(&["num_position_embeddings"], 1, MAX_DIM)?
        .unwrap_or(2304);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16);
    let temporal = v.int(&["temporal_patch_size"], 1, 64)?.unwrap_or(2);
    let channels = v.int(&["in_channels"], 1, 64)?.unwrap_or(3);
    let merge = v.int(&["spatial_merge_size"], 1, 64)?.unwrap_or(2);
    let (dw, mw, out) = (d as u128, m as u128, out as u128);
    // Qwen3VLVisionPatchEmbed: Conv3d(in_channels, d, (temporal, patch, patch),
    // bias=True); Qwen3VLVisionModel.pos_embed = Embedding(num_position_embeddings, d).
    let embed = channels as u128 * temporal as u128 * (patch as u128).pow(2) * dw
        + dw
        + positions as u128 * dw;
    // Qwen3VLVisionBlock: norm1, norm2 = LayerNorm(d) (weight + bias);
    // Qwen3VLVisionAttention: qkv = Linear(d, 3d, bias=True), proj = Linear(d, d);
    // Qwen3VLVisionMLP: linear_fc1 = Linear(d, m), linear_fc2 = Linear(m, d), biased.
    let block =
        2 * 2 * dw + (3 * dw * dw + 3 * dw) + (dw * dw + dw) + (dw * mw + mw) + (mw * dw + dw);
    // Qwen3VLVisionPatchMerger: norm = LayerNorm(d), or LayerNorm(H) with
    // use_postshuffle_norm (the DeepStack mergers); linear_fc1 = Linear(H, H),
    // linear_fc2 = Linear(H, out_hidden_size), with H = d·merge².
    let h = dw * (merge as u128).pow(2);
    let linears = (h * h + h) + (h * out + out);
    let merger = 2 * dw + linears + deepstack * (2 * h + linears);
    let tower = embed + depth as u128 * block;
    let mut shape = tower_shape(d, depth, heads, m, QWEN_DEFAULT_IMAGE.max(patch), patch);
    // Qwen3VLVisionConfig's `hidden_act` (gelu_pytorch_tanh).
    shape.block = match v.string("hidden_act")?.unwrap_or("gelu_pytorch_tanh") {
        "quick_gelu" => crate::model::TowerBlock::Qwen2Vl,
        _ => crate::model::TowerBlock::Qwen3Vl,
    };
    shape.params = Some(narrow(tower, "vision_config")?);
    shape.projector_params = narrow(merger, "vision_config")?;
    // `Qwen3VLVisionModel` names no input embeddings (no `_input_embed_layer`).
    shape.unhooked = true;
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hf_config::rule_from_configs;
    use crate::image_tokens::ImageRule;

    const CSV: &str = include_str!("../../tests/data/params/hf_measured_vlm.csv");

    fn fixture(name: &str) -> &'static str {
        match name {
            "vlm/defaults__mistral3.json" => {
                include_str!("../../tests/data/configs/vlm/defaults__mistral3.json")
            }
            "vlm/mistralai__Mistral-Small-3.1-24B-Instruct-2503.json" => include_str!(
                "../../tests/data/configs/vlm/mistralai__Mistral-Small-3.1-24B-Instruct-2503.json"
            ),
            "vlm/defaults__qwen3_vl.json" => {
                include_str!("../../tests/data/configs/vlm/defaults__qwen3_vl.json")
            }
            "vlm/Qwen__Qwen3-VL-4B-Instruct.json" => {
                include_str!("../../tests/data/configs/vlm/Qwen__Qwen3-VL-4B-Instruct.json")
            }
            "vlm/Qwen__Qwen3-VL-8B-Instruct.json" => {
                include_str!("../../tests/data/configs/vlm/Qwen__Qwen3-VL-8B-Instruct.json")
            }
            other => panic!("no fixture {other}"),
        }
    }

    /// The measured `mistral3` rows of `hf_measured_vlm.csv` (transformers
    /// 5.24, meta device), until `from_hf_config` dispatches the family.
    #[test]
    fn mistral3_counts_exactly_what_transformers_builds() {
        let mut seen = 0;
        for line in CSV.lines().skip(1) {
            let cols: Vec<&str> = line.split(',').collect();
            if cols[1] != "Mistral3ForConditionalGeneration" {
                continue;
            }
            seen += 1;
            let text = fixture(cols[0]);
            let value: serde_json::Value = serde_json::from_str(text).expect("json");
            let cfg = Cfg::new(value.as_object().expect("object"), "");
            let spec = super::super::pixtral::import_mistral3(&cfg, |t| {
                super::super::import(t, t.defaults)
            })
            .unwrap_or_else(|e| panic!("{}: {e}", cols[0]));
            let counts = spec.param_counts();
            let n = |i: usize| cols[i].parse::<u64>().expect("number");
            assert_eq!(
                (counts.total, counts.vision, counts.projector),
                (n(2), n(3), n(4)),
                "{}",
                cols[0]
            );
            assert_eq!(spec.tied_embeddings, cols[5] == "true", "{}", cols[0]);
            // image_tokens' Mistral 3 rule: 14 px patches, 2 × 2 merge, 1540 px long side.
            assert_eq!(
                rule_from_configs(text, None).expect("rule"),
                ImageRule::Pixtral {
                    patch: 14,
                    merge: 2,
                    longest_edge: 1540
                }
            );
        }
        assert_eq!(seen, 2);
    }

    /// The measured `qwen3_vl` rows, likewise.
    #[test]
    fn qwen3_vl_counts_exactly_what_transformers_builds() {
        let mut seen = 0;
        for line in CSV.lines().skip(1) {
            let cols: Vec<&str> = line.split(',').collect();
            if cols[1] != "Qwen3VLForConditionalGeneration" {
                continue;
            }
            seen += 1;
            let text = fixture(cols[0]);
            let value: serde_json::Value = serde_json::from_str(text).expect("json");
            let cfg = Cfg::new(value.as_object().expect("object"), "");
            let spec = import_qwen3_vl(&cfg, "qwen3_vl", |t| {
                super::super::import_decoder(t, crate::model::Arch::Qwen3, "qwen3")
            })
            .unwrap_or_else(|e| panic!("{}: {e}", cols[0]));
            let counts = spec.param_counts();
            let n = |i: usize| cols[i].parse::<u64>().expect("number");
            assert_eq!(
                (counts.total, counts.vision, counts.projector),
                (n(2), n(3), n(4)),
                "{}",
                cols[0]
            );
            assert_eq!(spec.tied_embeddings, cols[5] == "true", "{}", cols[0]);
            // image_tokens' Qwen3-VL rule: 16 px patches, 2 × 2 merge and the
            // processor's 65,536 to 16,777,216 pixel defaults.
            assert_eq!(
                rule_from_configs(text, None).expect("rule"),
                ImageRule::QwenVl {
                    patch: 16,
                    merge: 2,
                    min_pixels: 65_536,
                    max_pixels: 16_777_216
                }
            );
        }
        assert_eq!(seen, 3);
    }
}
