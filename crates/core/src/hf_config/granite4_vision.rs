//! Granite 4 Vision (`granite4_vision`, `Granite4VisionForConditionalGeneration`,
//! transformers 5.24): LLaVA-NeXT's any-resolution tiles over a CLIP or
//! SigLIP tower (`vision_config.model_type`, CLIP by default; SigLIP with
//! its pooling head unless `vision_use_head` is off) and a Granite text
//! model (`Granite4VisionTextConfig`). In place of LLaVA's projector it
//! builds one `Granite4VisionWindowQFormerDownsampler` per entry of
//! `deepstack_layer_map` and four spatial ones: each a one-layer BLIP-2
//! Q-Former of the tower's width, a LayerNorm, `q²` learned queries and
//! `w²` window positions (`downsample_rate` "q/w"), and a projection to the
//! text width; plus `image_newline`. Only the wrapper's
//! `tie_word_embeddings` ties (default False). 6 configs exact on the meta
//! device (`tests/data/params/hf_variants_2026.csv`).

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::siglip::siglip_from;
use super::towers::vision_tower;
use super::vlm::narrow;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_DIM, MAX_LAYERS};

pub(super) fn import_granite4_vision(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let mut text = cfg.object_or_empty("text_config", &empty)?;
    text.defaults = Defaults::Class("granite4_vision_text");
    let mut spec = import_text(&text)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", false)?;
    let (q, w) = downsample_rate(cfg)?;
    let maps = match cfg.array("deepstack_layer_map")? {
        Some(list) => list.len() as u128,
        None => {
            return Err(InputError::new(
                cfg.field("deepstack_layer_map"),
                "is required: Granite 4 Vision builds a projector per (vision layer, text layer) pair it lists",
            ))
        }
    };
    let mut v = cfg.object_or_empty("vision_config", &empty)?;
    let mut tower = if v.string("model_type")? == Some("siglip_vision_model") {
        v.defaults = Defaults::SiglipVision;
        siglip_from(&v)?
    } else {
        v.defaults = Defaults::ClipVision;
        vision_tower(&v, false)?
    };
    if tower.hidden < 64 {
        // the Q-Former takes hidden // 64 heads
        return Err(InputError::new(
            v.field("hidden_size"),
            format!(
                "is {}: Granite 4 Vision's Q-Former needs 64 or more",
                tower.hidden
            ),
        ));
    }
    let (dw, h) = (u128::from(tower.hidden), u128::from(spec.hidden));
    let one = qformer(cfg, dw)? + 2 * dw + (q * q + w * w) * dw + dw * h + h;
    // and image_newline
    tower.projector_params = narrow((maps + 4) * one + h, "vision_config")?;
    spec.vision = Some(tower);
    spec.name = "granite4_vision".to_string();
    Ok(spec)
}

/// `downsample_rate` "q/w": each window of w × w patches hands on q × q
/// queries (the class default, None, builds nothing).
fn downsample_rate(cfg: &Cfg) -> Result<(u128, u128)> {
    let field = cfg.field("downsample_rate");
    let Some(rate) = cfg.string("downsample_rate")? else {
        return Err(InputError::new(
            field,
            "is required: \"q/w\", the queries per side each window of w × w patches hands on (\"4/8\")",
        ));
    };
    parse_rate(rate)
        .map(|(q, w)| (u128::from(q), u128::from(w)))
        .ok_or_else(|| InputError::new(field, format!("\"{rate}\" is not {RATE_FORM}")))
}

/// What a `downsample_rate` must be.
pub(super) const RATE_FORM: &str = "\"q/w\" with 1 ≤ q ≤ w ≤ 1024 (\"4/8\")";

/// The (q, w) of a `downsample_rate` "q/w", within [`RATE_FORM`].
pub(super) fn parse_rate(rate: &str) -> Option<(u64, u64)> {
    let (q, w) = rate.split_once('/')?;
    let (q, w) = (q.trim().parse::<u64>().ok()?, w.trim().parse::<u64>().ok()?);
    (q >= 1 && w >= q && w <= 1024).then_some((q, w))
}

/// `Blip2QFormerModel` at the tower's width (hidden, heads and encoder
/// width are the tower's, set in `__post_init__`): its LayerNorm, and per
/// layer self-attention, cross-attention every `cross_attention_frequency`
/// layers, the feed-forward and, with `use_qformer_text_input`, its text
/// twin. Absent, the wrapper's own sub-config (1 layer, cross-attention in
/// every layer); given, `Blip2QFormerConfig`'s defaults fill it (12
/// layers, cross-attention every second one: checked).
fn qformer(cfg: &Cfg, d: u128) -> Result<u128> {
    let (layers, i, every, text_input) = match cfg.object("qformer_config")? {
        None => (1, 3072, 1, false),
        Some(mut q) => {
            q.defaults = Defaults::Class("blip_2_qformer");
            (
                q.int(&["num_hidden_layers"], 0, MAX_LAYERS)?.unwrap_or(12),
                q.int(&["intermediate_size"], 1, MAX_DIM)?.unwrap_or(3072),
                q.int(&["cross_attention_frequency"], 1, MAX_LAYERS)?
                    .unwrap_or(2),
                q.flag("use_qformer_text_input", false)?,
            )
        }
    };
    let i = u128::from(i);
    let attention = 4 * (d * d + d) + 2 * d;
    let ffn = d * i + i + i * d + d + 2 * d;
    let mut total = 2 * d;
    for layer in 0..layers {
        total += attention + ffn;
        if layer % every == 0 {
            total += attention;
        }
        if text_input {
            total += ffn;
        }
    }
    Ok(total)
}
