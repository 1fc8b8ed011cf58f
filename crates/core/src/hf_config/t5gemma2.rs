//! T5Gemma 2 (transformers 5.24's `modeling_t5gemma2.py`, Google's
//! 270M-270M to 4B-4B encoder-decoders adapted from Gemma 3): Gemma 3's
//! layers as an encoder (`encoder.text_config`, attending both ways) and
//! a decoder (`decoder`), the encoder with Gemma 3's SigLIP tower and
//! projector (`encoder.vision_config`, SigLIP's class defaults when
//! absent). Each decoder layer's `T5Gemma2MergedAttention` projects the
//! encoder's output with its own k and v and attends over the decoder's
//! keys and the encoder's in one softmax: no cross-attention block, so a
//! decoder layer counts what an encoder layer does.
//!
//! The embedding (and its `eoi_embedding`, one vector) is shared by both
//! stacks and the head under the wrapper's `tie_word_embeddings` (default
//! true; the stacks' own flags are not read); untied, the decoder has its
//! own table and vector and the head its own weight. Counted on the meta
//! device: `tests/data/t5gemma2/t5gemma2_params.jsonl`.
//!
//! transformers refuses an encoder of another width or vocabulary; the
//! estimate models one shape, so heads or an MLP that differ are refused
//! by field too. The stacks' depths may differ.

use serde_json::{Map, Value};

use super::reader::{Cfg, Defaults};
use crate::error::Result;
use crate::model::{Arch, ModelSpec};

/// Reads a T5Gemma 2 config; `gemma3` imports one stack's Gemma 3 layers.
pub(super) fn import_t5gemma2(
    cfg: &Cfg,
    gemma3: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::<String, Value>::new();
    let encoder_cfg = cfg.object_or_empty("encoder", &empty)?;
    let mut text = encoder_cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("t5gemma2_text");
    let encoder = gemma3(&text)?;
    let mut decoder_cfg = cfg.object_or_empty("decoder", &empty)?;
    decoder_cfg.defaults = Defaults::Class("t5gemma2_decoder");
    let mut spec = gemma3(&decoder_cfg)?;
    super::t5gemma::one_shape(&encoder, &spec, text.field("hidden_size"))?;
    let mut vision = encoder_cfg.object_or_empty("vision_config", &empty)?;
    vision.defaults = Defaults::SiglipVision;
    spec.vision = Some(super::vlm::gemma3_tower(&vision, spec.hidden)?);
    spec.name = "t5gemma2".to_string();
    spec.arch = Arch::Gemma3;
    spec.encoder_layers = Some(encoder.layers);
    spec.merged_cross_attention = true;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let h = u128::from(spec.hidden);
    // the shared `eoi_embedding`; untied, the decoder's own table and vector
    let decoder_table = if spec.tied_embeddings {
        0
    } else {
        u128::from(spec.vocab) * h + h
    };
    spec.model_extra_params = u64::try_from(h + decoder_table).unwrap_or(u64::MAX);
    Ok(spec)
}
