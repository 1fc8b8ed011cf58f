//! LFM2-VL (`lfm2_vl`, `Lfm2VlForConditionalGeneration`): a SigLIP2 NaFlex
//! tower (patches as a linear layer over flattened pixels, a learned
//! position grid resampled to each image), a pixel-unshuffle projector and
//! the LFM2 language model. Counts name the modules of `modeling_lfm2_vl.py`
//! and `modeling_siglip2.py` (transformers 5.24); `tests/vlm.rs` and
//! `tests/params_2025.rs` check them.

use serde_json::Map;

use super::reader::Cfg;
use super::shuffle::width_and_heads;
use super::vlm::{counted, siglip_encoder, siglip_shape};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM, MAX_IMAGE_SIZE, MAX_LAYERS};

/// The language model of `text_config` (`Lfm2Config` when it names no
/// type), `Siglip2VisionModel` and `Lfm2VlMultiModalProjector`.
pub(super) fn import_lfm2_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "lfm2")?;
    let mut spec = import_text(&text)?;
    // The wrapper's flag (default True; `tie_embedding` its old name) ties
    // the head; the text config's is not read.
    let tie = cfg.flag("tie_embedding", true)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", tie)?;
    let empty_vision = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty_vision)?;
    // Siglip2VisionConfig's defaults.
    let (d, heads) = width_and_heads(&v, 768, 12)?;
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(12);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072);
    let channels = v.int(&["num_channels"], 1, 16)?.unwrap_or(3);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(16);
    let positions = v.int(&["num_patches"], 1, MAX_DIM)?.unwrap_or(256);
    // Siglip2VisionEmbeddings (a Linear over flattened patches, the
    // `num_patches` position table), SigLIP's layers and post_layernorm,
    // and the pooling head (`vision_use_head`, on in the class defaults)
    let head = v.flag("vision_use_head", true)?;
    let tower = siglip_encoder(d, layers, m, patch, channels, u128::from(positions), head);
    let dw = u128::from(d);
    // Lfm2VlMultiModalProjector: over d·f² channels after the pixel
    // unshuffle, a LayerNorm (`projector_use_layernorm`), Linear to
    // `projector_hidden_size`, Linear to the text width, both biased with
    // `projector_bias`.
    let f = u128::from(cfg.int(&["downsample_factor"], 1, 16)?.unwrap_or(2));
    let din = dw * f * f;
    let hp = u128::from(
        cfg.int(&["projector_hidden_size"], 1, MAX_DIM)?
            .unwrap_or(2560),
    );
    let ht = u128::from(spec.hidden);
    let norm = if cfg.flag("projector_use_layernorm", true)? {
        2 * din
    } else {
        0
    };
    let bias = if cfg.flag("projector_bias", true)? {
        hp + ht
    } else {
        0
    };
    let projector = norm + din * hp + hp * ht + bias;
    // SigLIP's layer (the same modules; SigLIP2 differs in its embeddings)
    let side = ((positions as f64).sqrt() as u64).max(1) * patch;
    let shape = siglip_shape(d, layers, heads, m, side, patch);
    spec.name = "lfm2_vl".to_string();
    spec.vision = Some(counted(shape, tower, projector)?);
    Ok(spec)
}
