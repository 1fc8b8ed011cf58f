//! HyperCLOVA X Vision V2 (`hyperclovax_vision_v2`, transformers 5.24's
//! `HyperCLOVAXVisionV2ForConditionalGeneration`): a HyperCLOVA X language
//! model (Granite's layers with post-norms, `HyperCLOVAXConfig`'s defaults
//! for a partial or absent `text_config`), Qwen2.5-VL's tower and merger
//! exactly, and one biased linear from the merger's `out_hidden_size` to
//! the text width. Its images follow `Qwen2VLImageProcessor` (the image
//! rule, `image_rule.rs`); it keeps no parameter in fp32.

use serde_json::Map;

use super::reader::Cfg;
use super::vlm::{narrow, qwen2_5_vision};
use crate::error::Result;
use crate::model::{ModelSpec, MAX_DIM};

pub(super) fn import_hyperclovax_vl(
    cfg: &Cfg,
    import_text: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let empty = Map::new();
    let text = cfg.text_config_or_class(&empty, "hyperclovax")?;
    let mut spec = import_text(&text)?;
    // only the wrapper's flag ties (`_tied_weights_keys` read against the
    // top config, default True); the text config's is not read
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let vision = cfg.object_or_empty("vision_config", &empty)?;
    let (mut tower, merger) = qwen2_5_vision(&vision, None)?;
    let out = vision
        .int(&["out_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(3584);
    let h = u128::from(spec.hidden);
    let projector = u128::from(out) * h + h;
    tower.projector_params = narrow(u128::from(merger) + projector, "vision_config")?;
    spec.name = "hyperclovax_vision_v2".to_string();
    spec.vision = Some(tower);
    Ok(spec)
}
