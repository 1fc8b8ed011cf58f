//! DiffusionGemma (`diffusion_gemma`, `DiffusionGemmaForBlockDiffusion`,
//! transformers 5.24): a block-diffusion model over Gemma 4's text layers.
//! Its encoder (Gemma 4's vision tower, `embed_vision` and a text stack)
//! writes the prompt and each finished canvas into an ordinary cache; its
//! decoder (the same text stack plus a self-conditioning MLP) denoises a
//! canvas of `canvas_length` tokens over several passes that read the
//! cache. The text stack is parameter for parameter `Gemma4TextModel` with
//! shared-K/V full layers (`attention_k_eq_v`), the expert block on every
//! layer and no per-layer embeddings or cache sharing, whatever the config
//! says of those keys (`DiffusionGemmaTextConfig` drops them); the experts
//! are required. The wrapper's `tie_word_embeddings` (default True) ties
//! every encoder weight to the decoder's (their biases excepted: each keeps
//! its own attention biases) and the head to the embedding; untied, the two
//! stacks are separate. Counts: `tests/data/params/hf_variants_2026.csv`
//! (7 configs exact). Generation keeps the prompt and the finished
//! canvases in Gemma 4's cache; each denoising pass runs the decoder over
//! the canvas (`ModelSpec::canvas`, `canvas_length`: 256), with fp32 logits
//! over all of it.

use serde_json::{Map, Value};

use super::reader::Cfg;
use crate::error::{InputError, Result};
use crate::model::{ModelSpec, MAX_TOTAL_PARAMS};

/// The wrapper: Gemma 4's wrapper import on the text config with its
/// layers' fixed choices, then the decoder's additions.
pub(super) fn import_diffusion_gemma(
    cfg: &Cfg,
    import_gemma4: impl Fn(&Cfg) -> Result<ModelSpec>,
) -> Result<ModelSpec> {
    let mut text = match cfg.obj.get("text_config") {
        Some(Value::Object(map)) => map.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Err(InputError::new(
                cfg.field("text_config"),
                format!("expected an object, got {other}"),
            ))
        }
    };
    for key in ["num_experts", "top_k_experts", "moe_intermediate_size"] {
        if matches!(text.get(key), None | Some(Value::Null)) {
            return Err(InputError::new(
                format!("config.json: text_config.{key}"),
                "is missing: DiffusionGemma's layers all hold experts, which cannot be built without it",
            ));
        }
    }
    text.insert("model_type".into(), "gemma4_text".into());
    text.insert("attention_k_eq_v".into(), true.into());
    text.insert("enable_moe_block".into(), true.into());
    text.insert("use_double_wide_mlp".into(), false.into());
    text.insert("hidden_size_per_layer_input".into(), 0.into());
    text.insert("num_kv_shared_layers".into(), 0.into());
    let biased = text.get("attention_bias").and_then(Value::as_bool) == Some(true);
    let mut wrapper = cfg.obj.clone();
    wrapper.insert("model_type".into(), "gemma4".into());
    wrapper.insert("text_config".into(), Value::Object(text));
    // the vision tower is always built (absent: Gemma 4's vision defaults)
    if matches!(wrapper.get("vision_config"), None | Some(Value::Null)) {
        wrapper.insert("vision_config".into(), Value::Object(Map::new()));
    }
    wrapper.remove("audio_config");
    let mut spec = import_gemma4(&Cfg::new(&wrapper, ""))?;
    let counts = spec.param_counts();
    let (h, i) = (u128::from(spec.hidden), u128::from(spec.intermediate));
    // the decoder's self-conditioning MLP: gate, up, down and a scaled norm
    let self_conditioning = 3 * h * i + h;
    // tied: the decoder's own attention biases (the model with them less
    // the model without); untied: a whole second text stack (the first's
    // embedding, layers and final norm)
    let second = if !spec.tied_embeddings {
        u128::from(counts.total - counts.lm_head - counts.vision - counts.projector)
    } else if biased {
        if let Some(Value::Object(t)) = wrapper.get_mut("text_config") {
            t.insert("attention_bias".into(), false.into());
        }
        let unbiased = import_gemma4(&Cfg::new(&wrapper, ""))?.param_counts().total;
        u128::from(counts.total.saturating_sub(unbiased))
    } else {
        0
    };
    let extra = u128::from(spec.model_extra_params) + self_conditioning + second;
    if u128::from(counts.total) + self_conditioning + second > u128::from(MAX_TOTAL_PARAMS) {
        return Err(InputError::new(
            cfg.field("text_config"),
            format!("gives more than {MAX_TOTAL_PARAMS} parameters"),
        ));
    }
    spec.model_extra_params = extra as u64;
    spec.canvas = Some(
        cfg.int(&["canvas_length"], 1, crate::model::MAX_POSITION)?
            .unwrap_or(256),
    );
    spec.name = "diffusion_gemma".to_string();
    Ok(spec)
}
