//! Idefics2 (`idefics2`, `Idefics2ForConditionalGeneration`): a SigLIP-shaped
//! tower at the image's own resolution, a connector of a SwiGLU projection
//! and a perceiver resampler that hands the language model a fixed number
//! of latents per image, over Mistral. Counts name the modules of
//! `modeling_idefics2.py` (transformers 5.24); `tests/vlm.rs` checks them.

use serde_json::Map;

use super::reader::Cfg;
use super::shuffle::{text_config, width_and_heads};
use super::vlm::{counted, siglip_params, siglip_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The language model from `text_config` (a `MistralConfig` when it names no
/// type), `Idefics2VisionTransformer` and `Idefics2Connector`.
pub(super) fn import_idefics2(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let text = text_config(cfg, "idefics2", "mistral")?;
    let mut spec = import_text(&text)?;
    // The head is tied by the wrapper's own flag (`Idefics2Config`, default
    // False); the text config's is not read (measured: idefics2__2).
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let h = spec.hidden as u128;
    // `Idefics2VisionConfig`'s defaults (the Hub's checkpoints: 1152 wide,
    // 27 layers, 980 px in 14 px patches).
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let (d, heads) = width_and_heads(&v, 768, 12)?;
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(224);
    let patch = v.int(&["patch_size"], 1, image)?.unwrap_or(32.min(image));
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    // Idefics2VisionEmbeddings (Conv2d with a bias, (image // patch)²
    // positions), SigLIP's layers and post_layernorm; no pooling head.
    let tower = siglip_params(d, layers, m, image, patch, channels, false);
    // Idefics2Connector.modality_projection = Idefics2MLP(d → the text's
    // intermediate_size → hidden): gate, up and down, no biases.
    let text_m = spec.intermediate as u128;
    let projection = 2 * d as u128 * text_m + text_m * h;
    let perceiver = cfg.object_or_empty("perceiver_config", &empty)?;
    let projector = projection.saturating_add(resampler_params(&perceiver, h)?);
    spec.name = "idefics2".to_string();
    spec.vision = Some(counted(
        siglip_shape(d, layers, heads, m, image, patch),
        tower,
        projector,
    )?);
    Ok(spec)
}

/// `Idefics2PerceiverResampler` at the text width `h` (`Idefics2Config`
/// sets the perceiver's hidden_size to the text model's).
fn resampler_params(p: &Cfg, h: u128) -> Result<u128> {
    let latents = p.int(&["resampler_n_latents"], 1, MAX_DIM)?.unwrap_or(64) as u128;
    let depth = p.int(&["resampler_depth"], 1, MAX_LAYERS)?.unwrap_or(3) as u128;
    let heads = p.int(&["resampler_n_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    let head_dim = p.int(&["resampler_head_dim"], 1, MAX_DIM)?.unwrap_or(96) as u128;
    let kv = p.int(&["num_key_value_heads"], 1, MAX_HEADS)?.unwrap_or(4);
    if kv > heads {
        // Idefics2PerceiverConfig.validate_architecture raises on it.
        return Err(InputError::new(
            p.field("num_key_value_heads"),
            format!("{kv} must be at most resampler_n_heads ({heads})"),
        ));
    }
    let (heads, kv) = (heads as u128, kv as u128);
    // Idefics2PerceiverLayer: input_latents_norm, input_context_norm and
    // post_attention_layernorm (RMSNorm h); q_proj, o_proj (h ↔ heads·
    // head_dim) and k_proj, v_proj (h → kv·head_dim), no biases; the MLP
    // h → 4h → h, gated.
    let attention = 2 * h * heads * head_dim + 2 * h * kv * head_dim;
    let layer = 3 * h + attention + 3 * h * 4 * h;
    // latents (n_latents × h) and the final RMSNorm.
    Ok(latents * h + depth * layer + h)
}
