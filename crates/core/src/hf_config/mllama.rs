//! Llama 3.2 Vision (`mllama`, `MllamaForConditionalGeneration` in
//! transformers' `modeling_mllama.py`): a Llama decoder in which some layers
//! (`cross_attention_layers`) attend to the image instead of the text, a
//! two-stage ViT over 560 px tiles, and one linear from the tower's
//! concatenated features into the text width. Both sub-configs are read
//! against their class defaults (`MllamaTextConfig()`,
//! `MllamaVisionConfig()`), as transformers builds a given dict.

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, narrow, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, TowerBlock, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// `MllamaTextModel.embed_tokens = nn.Embedding(vocab_size + 8, hidden)`:
/// rows the output head (`vocab_size` wide) does not have.
const EXTRA_EMBEDDING_ROWS: u64 = 8;

/// `MllamaTextConfig.cross_attention_layers`' default.
const DEFAULT_CROSS_LAYERS: u64 = 8;

/// `MllamaVisionConfig.supported_aspect_ratios`' default: 8 tile grids.
const DEFAULT_ASPECT_RATIOS: u64 = 8;

pub(super) fn import_mllama(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", "mllama")?;
    text.defaults = Defaults::MllamaText;
    let mut spec = import_text(&text)?;
    spec.cross_attention_layers = cross_layers(&text, spec.layers)?;
    spec.type_vocab = EXTRA_EMBEDDING_ROWS;
    // The head (`vocab_size` rows) and `embed_tokens` (8 more) differ in
    // shape, so transformers never ties them, whatever the flags say
    // (measured: `made_up__mllama_small_tied.json` counts both).
    spec.tied_embeddings = false;
    let mut vision = cfg.required_object("vision_config", "mllama")?;
    vision.defaults = Defaults::MllamaVision;
    let tower = mllama_tower(&vision, spec.hidden)?;
    spec.name = "mllama".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// How many of the decoder's layers are cross-attention layers: the
/// distinct indices of `cross_attention_layers` below `num_hidden_layers`
/// (`MllamaTextModel.__init__` tests `layer_idx in cross_attention_layers`).
fn cross_layers(text: &Cfg, layers: u64) -> Result<u64> {
    let Some(list) = text.array("cross_attention_layers")? else {
        return Ok(DEFAULT_CROSS_LAYERS.min(layers));
    };
    let mut seen = Vec::new();
    for value in list {
        let index = value.as_u64().ok_or_else(|| {
            InputError::new(
                text.field("cross_attention_layers"),
                format!(
                    "{value} is not a layer index: whole numbers 0 to {}",
                    layers - 1
                ),
            )
        })?;
        if index < layers && !seen.contains(&index) {
            seen.push(index);
        }
    }
    Ok(seen.len() as u64)
}

/// `MllamaVisionModel`: its shape and exact count, with the projector.
fn mllama_tower(v: &Cfg, text_hidden: u64) -> Result<crate::model::VisionTower> {
    let h = v.req(&["hidden_size"], 1, MAX_DIM)?;
    let heads = v.req(&["attention_heads", "num_attention_heads"], 1, MAX_HEADS)?;
    if !h.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("attention_heads"),
            format!("{heads} heads do not divide hidden_size {h}"),
        ));
    }
    let layers = v.req(&["num_hidden_layers"], 1, MAX_LAYERS)?;
    let global = v.req(&["num_global_layers"], 0, MAX_LAYERS)?;
    let i = v.req(&["intermediate_size"], 1, MAX_DIM)?;
    let image = v.req(&["image_size"], 1, MAX_IMAGE_SIZE)?;
    let patch = v.req(&["patch_size"], 1, image)?;
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let tiles = v.req(&["max_num_tiles"], 1, 64)?;
    let out = v.req(&["vision_output_dim"], 1, MAX_DIM)?;
    let ratios = match v.array("supported_aspect_ratios")? {
        Some(list) if !list.is_empty() => list.len() as u64,
        _ => DEFAULT_ASPECT_RATIOS,
    };
    let (hw, iw) = (u128::from(h), u128::from(i));
    let side = u128::from(image / patch);
    // tokens of one tile: its patches and the class token
    let n = side * side + 1;
    let ids = u128::from(ratios) + 1; // aspect-ratio ids, 0 for padding
    let m = u128::from(tiles);
    // patch_embedding: Conv2d(channels, h, patch, bias=False); class_embedding.
    let embed = u128::from(channels) * u128::from(patch).pow(2) * hw + hw;
    // MllamaPrecomputedPositionEmbedding: gate, embedding (n × h) and
    // tile_embedding = Embedding(ids, tiles · n · h).
    let positions = 1 + n * hw + ids * m * n * hw;
    // pre_ and post_tile_positional_embedding: Embedding(ids, tiles · h) + gate.
    let tile_embeddings = 2 * (ids * m * hw + 1);
    // layernorm_pre, layernorm_post.
    let norms = 2 * 2 * hw;
    // MllamaVisionEncoderLayer: q/k/v/o without biases, fc1/fc2 with, two
    // LayerNorms; the global encoder's layers add gate_attn and gate_ffn.
    let layer = 4 * hw * hw + 2 * hw * iw + iw + hw + 2 * 2 * hw;
    let encoders = u128::from(layers + global) * layer + 2 * u128::from(global);
    let tower = embed + positions + tile_embeddings + norms + encoders;
    // multi_modal_projector = Linear(vision_output_dim, text hidden, bias=True).
    let projector = u128::from(out) * u128::from(text_hidden) + u128::from(text_hidden);
    let _ = narrow(tower + projector, "vision_config")?;
    // The tower's layers, local and global, each over a tile's tokens.
    let mut shape = tower_shape(h, layers + global, heads, i, image, patch);
    shape.block = TowerBlock::Mllama;
    shape.gated_layers = global;
    counted(shape, tower, projector)
}
