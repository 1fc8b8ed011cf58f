//! Phi-4-multimodal (`phi4_multimodal`, `Phi4MultimodalForCausalLM`,
//! transformers 5.24): a flat Phi-3 decoder config (fused qkv and gate-up
//! projections, no biases) with a `vision_config` and an `audio_config`
//! whose towers are always built: a SigLIP tower with its pooling head (run,
//! its output unused) and a two-layer projector with two extensor vectors;
//! a Conformer audio encoder (NeMo subsampling, relative-position buckets)
//! with two projector pairs (speech, vision + speech). The released
//! vision and speech LoRAs are PEFT adapters outside the model. Counts
//! follow `modeling_phi4_multimodal.py` and equal `sum(p.numel())` on the
//! meta device (`tests/data/params/hf_variants_2026.csv`).

use serde_json::Map;

use super::reader::{Cfg, Defaults};
use super::siglip::siglip_from;
use super::vlm::narrow;
use crate::error::Result;
use crate::model::{Arch, ModelSpec, MAX_DIM};

type Import = fn(&Cfg, Arch, &str) -> Result<ModelSpec>;

pub(super) fn import_phi4mm(cfg: &Cfg, import_decoder: Import) -> Result<ModelSpec> {
    let mut flat = Cfg::new(cfg.obj, &cfg.prefix);
    flat.defaults = Defaults::Class("phi4_multimodal");
    let mut spec = import_decoder(&flat, Arch::Phi3, "phi4_multimodal")?;
    let empty = Map::new();
    let mut v = cfg.object_or_empty("vision_config", &empty)?;
    v.defaults = Defaults::Class("phi4_multimodal_vision");
    // its pooling head is built and run (the class has no vision_use_head)
    let mut tower = siglip_from(&v)?;
    let (dw, h) = (u128::from(tower.hidden), u128::from(spec.hidden));
    let vision = u128::from(tower.params.unwrap_or(0));
    tower.params = Some(narrow(vision + audio(cfg, h, &empty)?, "audio_config")?);
    // img_projection_up (D → H), img_projection_down (H → H), the global
    // and sub-image extensors (D each)
    tower.projector_params = narrow(dw * h + h + h * h + h + 2 * dw, "vision_config")?;
    spec.vision = Some(tower);
    spec.name = "phi4_multimodal".to_string();
    Ok(spec)
}

/// The Conformer audio encoder and its two projector pairs
/// (`Phi4MultimodalAudioConfig`'s defaults).
fn audio(cfg: &Cfg, h: u128, empty: &Map<String, serde_json::Value>) -> Result<u128> {
    let mut a = cfg.object_or_empty("audio_config", empty)?;
    a.defaults = Defaults::Class("phi4_multimodal_audio");
    let get = |key: &'static str, default: u64| -> Result<u128> {
        Ok(u128::from(a.int(&[key], 0, MAX_DIM)?.unwrap_or(default)))
    };
    let ha = get("hidden_size", 1024)?;
    let ia = get("intermediate_size", 1536)?;
    let blocks = get("num_blocks", 24)?;
    let heads = get("num_attention_heads", 16)?.max(1);
    let hd = match a.int(&["head_dim"], 1, MAX_DIM)? {
        Some(hd) => u128::from(hd),
        None => ha / heads,
    };
    let conv = get("nemo_conv_channels", 1024)?;
    let kernel = get("kernel_size", 3)?;
    let multiplier = get("depthwise_multiplier", 1)?;
    let ext = get("ext_pw_out_channel", 1024)?;
    let separable = get("depthwise_separable_out_channel", 1024)?;
    let reduction = get("time_reduction", 8)?.max(2);
    // NeMo's subsampling halves the mel axis log2(time_reduction) times
    let steps = u128::from(reduction.ilog2());
    let mut freq = get("input_size", 80)?;
    for _ in 0..steps {
        freq = freq.div_ceil(2);
    }
    let nemo = 10 * conv + (steps - 1) * (10 * conv + conv * conv + conv) + conv * freq * ha + ha;
    let buckets = get("bias_max_distance", 1000)?
        * if a.flag("bias_symmetric", false)? {
            1
        } else {
            2
        };
    let ffn = 2 * ha + ha * 2 * ia + 2 * ia + ia * ha + ha;
    let attention = 3 * (ha * heads * hd + heads * hd) + heads * hd * ha + ha;
    let conv_module = 2 * ha
        + (ha * 2 * ext + 4 * ext)
        + (ha * multiplier * kernel + ha * multiplier)
        + (ha * multiplier * separable + separable)
        + (ha * ext + ext);
    let block = 2 * ffn + attention + conv_module + 4 * ha;
    let input = ha * get("downsample_rate", 1)?;
    let projections = 2 * (input * h + h + h * h + h);
    Ok(nemo + buckets * heads + blocks * block + projections)
}
