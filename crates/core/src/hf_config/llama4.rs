//! Llama 4 with its vision tower (`llama4`, `Llama4ForConditionalGeneration`):
//! the language model of `text_config` (always a `Llama4TextConfig`, so a
//! missing field takes that class's default), `Llama4VisionModel` (its
//! pixel-shuffle `vision_adapter` included, as the module nests it) and
//! `Llama4MultiModalProjector`. Every count below names the module of
//! `modeling_llama4.py` it comes from; `tests/vlm.rs` checks them against
//! transformers 5.24.

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::vlm::{counted, narrow, tower_shape};
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, VisionTower, MAX_DIM, MAX_HEADS, MAX_IMAGE_SIZE, MAX_LAYERS};

/// `Llama4ForConditionalGeneration`, its language model imported by
/// `import_text` (the `llama4_text` decoder). A missing `vision_config` is
/// `Llama4VisionConfig()`'s tower, as transformers builds it.
pub(super) fn import_llama4(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = cfg.required_object("text_config", "llama4")?;
    text.defaults = Defaults::Llama4Text;
    let mut spec = import_text(&text)?;
    // The head is tied by `Llama4ForCausalLM`'s own config, the text config
    // (`tie_word_embeddings`, default False); the wrapper's flag is not
    // consulted (the wrapper declares no tied weights of its own).
    spec.tied_embeddings = text.flag("tie_word_embeddings", false)?;
    let empty = Map::new();
    let v = cfg.object_or_empty("vision_config", &empty)?;
    let mut tower = vision_model(&v)?;
    // Llama4MultiModalProjector: linear_1 = Linear(vision_output_dim, text
    // hidden, bias=False) (`multi_modal_projector_bias` is not read).
    let out = v.int(&["vision_output_dim"], 1, MAX_DIM)?.unwrap_or(7680);
    tower.projector_params = narrow(out as u128 * spec.hidden as u128, "vision_config")?;
    spec.name = "llama4".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}

/// `Llama4VisionModel` with `Llama4VisionConfig`'s defaults: its shape and
/// its exact count (the vision adapter included).
fn vision_model(v: &Cfg) -> Result<VisionTower> {
    let d = v.int(&["hidden_size"], 1, MAX_DIM)?.unwrap_or(768);
    let layers = v.int(&["num_hidden_layers"], 1, MAX_LAYERS)?.unwrap_or(34);
    let heads = v.int(&["num_attention_heads"], 1, MAX_HEADS)?.unwrap_or(16);
    // Llama4VisionAttention builds heads × (hidden // heads) wide, but its
    // rotary embedding (hidden // heads // 2 frequencies a side) cannot
    // run when the heads do not divide the width.
    if !d.is_multiple_of(heads) {
        return Err(InputError::new(
            v.field("num_attention_heads"),
            format!(
                "{heads} heads do not divide hidden_size {d}: the vision attention cannot run it"
            ),
        ));
    }
    let channels = v.int(&["num_channels"], 1, 64)?.unwrap_or(3);
    let m = v.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(5632);
    let image = v.int(&["image_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(448);
    let patch = v.int(&["patch_size"], 1, MAX_IMAGE_SIZE)?.unwrap_or(14);
    if patch > image {
        return Err(InputError::new(
            v.field("patch_size"),
            format!("{patch} px patches do not fit the {image} px image_size"),
        ));
    }
    let p_in = v.int(&["projector_input_dim"], 1, MAX_DIM)?.unwrap_or(4096);
    let p_out = v
        .int(&["projector_output_dim"], 1, MAX_DIM)?
        .unwrap_or(4096);
    let (dw, mw) = (d as u128, m as u128);
    let side = (image / patch) as u128;
    // Llama4UnfoldConvolution.linear = Linear(channels·patch², d, bias=False);
    // class_embedding (d); positional_embedding_vlm ((image // patch)² + 1, d);
    // layernorm_pre, layernorm_post = LayerNorm(d).
    let embeddings =
        channels as u128 * (patch as u128).pow(2) * dw + dw + (side * side + 1) * dw + 2 * 2 * dw;
    // Llama4VisionEncoderLayer: q, k, v, o_proj = Linear(d, d, bias=True);
    // Llama4VisionMLP fc1 = Linear(d, m), fc2 = Linear(m, d), biased;
    // input_layernorm, post_attention_layernorm = LayerNorm(d).
    let block = 4 * (dw * dw + dw) + (dw * mw + mw) + (mw * dw + dw) + 2 * 2 * dw;
    // Llama4VisionPixelShuffleMLP.mlp (Llama4VisionMLP2): fc1 =
    // Linear(intermediate_size, projector_input_dim), fc2 =
    // Linear(projector_output_dim, projector_output_dim), no biases.
    let adapter = mw * p_in as u128 + (p_out as u128).pow(2);
    let params = embeddings + layers as u128 * block + adapter;
    let shape = crate::model::VisionTower {
        block: crate::model::TowerBlock::Llama4,
        gated_layers: 0,
        unhooked: false,
        ..tower_shape(d, layers, heads, m, image, patch)
    };
    counted(shape, params, 0)
}
