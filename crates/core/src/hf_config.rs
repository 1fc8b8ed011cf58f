//! Imports a Hugging Face `config.json` into a [`ModelSpec`].
//!
//! Field names and defaults follow the transformers configuration classes of
//! each `model_type`. Every error names the config field it comes from
//! (`config.json: num_attention_heads`) and never panics, whatever the input.

mod apertus1p5;
mod aria;
mod checkpoint_quant;
mod class_defaults;
mod classic;
mod cosmos3_edge;
mod deepseek_vl;
mod encoders;
mod ernie4_5_vl;
mod fp32_kept;
mod gemma3n;
mod gemma4;
mod glm4v;
mod glm5_next;
mod granite4_vision;
mod granite_docling;
mod hyper;
mod idefics2;
mod image_rule;
mod indexer_types;
mod json_path;
mod kimi_k25;
mod llava_variants;
pub use image_rule::rule_from_configs;
mod video_rule;
pub use video_rule::video_rule_from_config;
mod audio_lm;
mod bart;
mod blip2;
mod deepseek_ocr2;
mod diffusion_gemma;
mod dots3_note;
mod fast_vlm;
mod fastvit;
mod florence2;
mod got_ocr2;
mod hunyuan_vl;
mod hy_v4_vl;
mod hyperclovax_vl;
mod inkling;
mod inkling2_vlm;
mod lfm2_vl;
mod lfm3;
mod llama4;
mod looped;
mod minicpm_v;
mod minimax_m3_vl;
mod mistral_large4;
mod mllama;
mod modern;
mod modernbert_decoder;
mod moe_layouts;
mod moe_variants;
mod molmo2;
mod muse;
mod nemotron_h_omni;
mod ovis2;
mod paddleocr_vl;
mod perception_lm;
mod phi4mm;
mod pixtral;
mod pyjson;
mod qwen4_exp;
mod qwen_omni;
mod reader;
mod recurrent_gemma;
mod rwkv;
mod shuffle;
mod siglip;
mod step3p7;
mod t5;
mod t5gemma;
mod t5gemma2;
mod towers;
mod unlimited_ocr;
mod video_llama3;
mod vlm;
mod vq_vlm;
mod whisper;
mod xlstm;
mod zamba2;

use serde_json::{Map, Value};

use crate::error::{InputError, Result};
use crate::model::{
    Arch, Mla, ModelSpec, Moe, SlidingWindow, MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS,
    MAX_POSITION,
};
pub use checkpoint_quant::{checkpoint_weights, unmodelled_quantization};
use reader::{Cfg, Defaults, HEADS, HIDDEN, KV_HEADS, LAYERS, POSITIONS, VOCAB};
use towers::{import_clip, import_llava, import_llava_next};

/// Every `model_type` this importer reads: the architecture table's, then
/// the multimodal wrappers it dispatches before the table.
pub fn model_types() -> Vec<&'static str> {
    let mut types: Vec<&'static str> = crate::model::arch::model_types().collect();
    for t in VLM_WRAPPERS.into_iter().chain(WRAPPERS_2026) {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    types
}

/// The same, as one list for messages.
pub fn supported_model_types() -> String {
    model_types().join(", ")
}

/// The multimodal wrappers [`import`] dispatches by name, before the
/// architecture table (a test imports each).
const VLM_WRAPPERS: [&str; 30] = [
    "exaone4_5",
    "qwen2_vl",
    "qwen2_5_vl",
    "mistral3",
    "gemma4",
    "gemma3n",
    "lfm3_vl",
    "glm4v",
    "glm4v_moe",
    "glm46v",
    "glmga",
    "glm_ocr",
    "qwen3_vl",
    "qwen3_vl_moe",
    "idefics3",
    "smolvlm",
    "kimi_k25",
    "idefics2",
    "lfm2_vl",
    "apertus1p5",
    "step3p7",
    "internvl",
    "internvl_chat",
    "paligemma",
    "aya_vision",
    "cohere2_vision",
    "llava_onevision",
    "llava_next",
    "llava_next_video",
    "mllama",
];

/// Parses a pasted `config.json` and builds the matching [`ModelSpec`].
pub fn from_hf_config(json: &str) -> Result<ModelSpec> {
    from_hf_configs(json, None)
}

/// Parses a `config.json` and, for a VLM, its `preprocessor_config.json`
/// (the pixel limits and tile counts of its image rule live there; the
/// processor classes' defaults apply when it is absent).
pub fn from_hf_configs(json: &str, preprocessor: Option<&str>) -> Result<ModelSpec> {
    let root = pyjson::config_root(json)?;
    let cfg = Cfg::new(&root, "");
    let mut spec = import(&cfg, Defaults::None)?;
    let model_type = cfg.string("model_type")?;
    let rule_family = model_type.is_some_and(|t| image_rule::applies(t, spec.vision.is_some()));
    if rule_family {
        spec.image_rule = match image_rule::rule_from_configs(json, preprocessor) {
            Ok(rule) => Some(rule),
            // An Aria projector with no queries for its crops' patch count
            // cannot read any image (transformers' KeyError at the first
            // one), as its class defaults' 32 px patches; its model loads.
            Err(e) if e.field.ends_with("projector_patch_to_query_dict") => None,
            Err(e) => return Err(e),
        };
    }
    spec.video = video_rule::video_rule_from_config(json)?.map(|rule| match rule {
        crate::video_tokens::VideoRule::Qwen2 { temporal, .. } => {
            crate::model::VideoFamily::Qwen2 { temporal }
        }
        crate::video_tokens::VideoRule::Qwen3 { temporal, .. } => {
            crate::model::VideoFamily::Qwen3 { temporal }
        }
        crate::video_tokens::VideoRule::Frames { .. } => crate::model::VideoFamily::Frames,
    });
    if let Some(name) = cfg.string("_name_or_path")? {
        if !name.is_empty() {
            spec.name = name.to_string();
        }
    }
    if let Some(t) = model_type {
        spec.fp32_params = spec
            .fp32_params
            .saturating_add(fp32_kept::kept_params(t, &spec));
        spec.hf_kernels = hf_kernels(&cfg, t)?;
        spec.eager_path = eager_path(&cfg, t)?;
    }
    spec.validate().map_err(|e| cfg.rename_error(e))?;
    Ok(spec)
}

/// The attention kernels transformers offers the config's language model:
/// the wrapper's class where it has no SDPA (HY-V4-VL), else the class of
/// its `text_config`'s `model_type` (PaliGemma 2 over Gemma-2 runs its
/// text eager, its SigLIP tower with SDPA).
fn hf_kernels(cfg: &Cfg, model_type: &str) -> Result<crate::model::kernels::HfKernels> {
    use crate::model::kernels::{for_model_type, HfKernels};
    let own = for_model_type(model_type);
    if own != HfKernels::All {
        return Ok(own);
    }
    let text_type = match cfg.object("text_config")? {
        Some(text) => text.string("model_type")?.map(for_model_type),
        None => None,
    };
    Ok(text_type.unwrap_or(HfKernels::All))
}

/// The eager path of the config's language model: its own `model_type`'s,
/// else its `text_config`'s.
fn eager_path(cfg: &Cfg, model_type: &str) -> Result<crate::model::kernels::EagerPath> {
    use crate::model::kernels::eager_path_for;
    let own = eager_path_for(model_type);
    if !own.is_architecture() {
        return Ok(own);
    }
    Ok(match cfg.object("text_config")? {
        Some(text) => text.string("model_type")?.map_or(own, eager_path_for),
        None => own,
    })
}

/// The `quant_method` of a config's `quantization_config` (`gptq`, `awq`,
/// `fp8`, `mxfp4`, `bitsandbytes`, `compressed-tensors`, ...), if any. The
/// weight format itself is chosen in the scenario; this only reports it.
pub fn quantization_method(json: &str) -> Result<Option<String>> {
    let root = pyjson::config_root(json)?;
    let cfg = Cfg::new(&root, "");
    match cfg.object("quantization_config")? {
        Some(q) => Ok(q.string("quant_method")?.map(str::to_string)),
        None => Ok(None),
    }
}

fn import(cfg: &Cfg, defaults: Defaults) -> Result<ModelSpec> {
    let model_type = cfg.model_type()?;
    // VLM wrappers: a language model from the families below plus a tower.
    match model_type {
        // EXAONE 4.5: Qwen2.5-VL's tower (grouped key-value heads) over EXAONE 4.
        // `__post_init__` reads the text type `exaone4_5_text` as `exaone4`.
        "exaone4_5" => {
            return vlm::import_exaone4_5(cfg, |text| match text.string("model_type")? {
                None | Some("exaone4_5_text") => import_decoder(text, Arch::Exaone4, "exaone4"),
                Some(_) => import(text, text.defaults),
            })
        }
        "qwen2_vl" | "qwen2_5_vl" => {
            return vlm::import_qwen_vl(cfg, model_type, |text| {
                import_decoder(text, Arch::Qwen2, model_type)
            })
        }
        "mistral3" => return pixtral::import_mistral3(cfg, |text| import(text, text.defaults)),
        "gemma4" => return gemma4::import_gemma4(cfg, import_gemma4_text),
        "gemma3n" => return gemma3n::import_gemma3n(cfg, import_gemma3n_text),
        "lfm3_vl" => {
            return lfm3::import_lfm3_vl(cfg, |text| match text.string("model_type")? {
                None => import_decoder(text, Arch::Lfm2, "lfm3"),
                Some(_) => import(text, text.defaults),
            })
        }
        "glm4v" | "glm4v_moe" | "glm46v" | "glmga" | "glm_ocr" => {
            return glm4v::import_glm4v(cfg, model_type, import_decoder)
        }
        "qwen3_vl" => {
            return vlm::import_qwen3_vl(cfg, model_type, |text| {
                import_decoder(text, Arch::Qwen3, "qwen3")
            })
        }
        // Qwen3-VL-MoE: the same tower over a Qwen3-MoE decoder
        // (`Qwen3VLMoeTextConfig`, model_type `qwen3_vl_moe_text`).
        "qwen3_vl_moe" => {
            return vlm::import_qwen3_vl(cfg, model_type, |text| {
                if text.string("model_type")?.is_some() {
                    import(text, text.defaults)
                } else {
                    import_decoder(text, Arch::Qwen3Moe, "qwen3_vl_moe_text")
                }
            })
        }
        // A text_config without a model_type is the wrapper's default class
        // (LlamaConfig for Idefics3 / SmolVLM, Qwen2Config for InternVL and
        // LLaVA-OneVision, GemmaConfig for PaliGemma).
        "idefics3" | "smolvlm" => {
            return shuffle::import_idefics3(cfg, model_type, text_or(Arch::Llama, "llama"))
        }
        "kimi_k25" => {
            return kimi_k25::import_kimi_k25(cfg, text_or(Arch::DeepseekV3, "deepseek_v3"))
        }
        "idefics2" => return idefics2::import_idefics2(cfg, text_or(Arch::Mistral, "mistral")),
        "lfm2_vl" => return lfm2_vl::import_lfm2_vl(cfg, text_or(Arch::Lfm2, "lfm2")),
        "apertus1p5" => return apertus1p5::import(cfg, text_or(Arch::Apertus, "apertus1p5_text")),
        "t5gemma" => return t5gemma::import_t5gemma(cfg, t5gemma_module),
        "t5gemma2" => return t5gemma2::import_t5gemma2(cfg, t5gemma2_stack),
        t if WRAPPERS_2026.contains(&t) => return import_2026_wrapper(cfg, model_type),
        // Step-3.7-Flash: its text config (`step3p5`) is Qwen3-MoE's layers
        // completed by `step3p7::complete_step3p5`.
        "step3p7" => {
            return step3p7::import_step3p7(cfg, |text| {
                import_decoder(text, Arch::Qwen3Moe, "step3p5")
            })
        }
        "internvl" => return shuffle::import_internvl(cfg, text_or(Arch::Qwen2, "qwen2")),
        "internvl_chat" => return shuffle::import_internvl_chat(cfg, import_own_type),
        "paligemma" => return siglip::import_paligemma(cfg, text_or(Arch::Gemma, "gemma")),
        // Command A Vision: Aya Vision's modules without the projector's norm.
        "aya_vision" | "cohere2_vision" => {
            return siglip::import_aya_vision(cfg, model_type, text_or(Arch::Cohere, "cohere2"))
        }
        "llava_onevision" => {
            return siglip::import_llava_onevision(cfg, text_or(Arch::Qwen2, "qwen2"))
        }
        "llava_next" | "llava_next_video" => {
            return import_llava_next(cfg, model_type, text_or(Arch::Llama, "llama"))
        }
        // Its text_config (`mllama_text_model`) is a Llama decoder.
        "mllama" => {
            return mllama::import_mllama(cfg, |text| {
                import_decoder(text, Arch::Llama, "mllama_text_model")
            })
        }
        _ => {}
    }
    let Some(family) = crate::model::arch::by_model_type(model_type) else {
        return Err(InputError::new(
            cfg.field("model_type"),
            format!(
                "\"{model_type}\" is not supported: supported: {}",
                supported_model_types()
            ),
        ));
    };
    let arch = family.arch;
    match arch {
        // A text_config without a model_type is a diff against LlamaConfig().
        Arch::Llava => import_llava(cfg, text_or(Arch::Llama, "llama")),
        Arch::ClipVision => import_clip(cfg, model_type),
        Arch::Gemma3 => match cfg.object("text_config")? {
            Some(text) if cfg.obj.contains_key("vision_config") => {
                vlm::import_gemma3(cfg, text, |t| {
                    import_decoder(t, Arch::Gemma3, "gemma3_text")
                })
            }
            Some(text) => import_decoder(&text, Arch::Gemma3, "gemma3_text"),
            None if matches!(model_type, "gemma4_text" | "gemma4_unified_text") => {
                import_gemma4_text(cfg)
            }
            None if model_type == "gemma3n_text" => import_gemma3n_text(cfg),
            None => import_decoder(cfg, Arch::Gemma3, model_type),
        },
        Arch::T5 | Arch::Whisper | Arch::Bart => import_t5(cfg, arch, model_type),
        a if modern::recurrent_only(a) => modern::import_mamba(cfg, a, model_type),
        // Multimodal wrappers (the language model is `text_config`) with
        // their vision tower; without a text_config the fields are read flat.
        Arch::Llama4 if model_type == "llama4" && cfg.obj.contains_key("text_config") => {
            llama4::import_llama4(cfg, |text| import_decoder(text, arch, "llama4_text"))
        }
        Arch::Qwen3Next
            if matches!(model_type, "qwen3_5" | "qwen3_5_moe")
                && cfg.obj.contains_key("text_config") =>
        {
            vlm::import_qwen3_5(cfg, model_type, |text| {
                import_decoder(text, arch, model_type)
            })
        }
        _ => {
            let mut sub = Cfg::new(cfg.obj, &cfg.prefix);
            sub.defaults = defaults;
            import_decoder(&sub, arch, model_type)
        }
    }
}

/// The `model_type`s of [`import_2026_wrapper`].
const WRAPPERS_2026: [&str; 67] = [
    "t5gemma",
    "t5gemma2",
    "chameleon",
    "emu3",
    "musicflamingo",
    "voxtral_realtime",
    "audioflamingo3",
    "granite_speech",
    "qwen3_asr",
    "glmasr",
    "voxtral",
    "qwen2_audio",
    "got_ocr2",
    "blip-2",
    "instructblip",
    "fast_vlm",
    "ovis2",
    "diffusion_gemma",
    "aria",
    "phi4_multimodal",
    "deepseek_vl",
    "deepseek_vl_hybrid",
    "janus",
    "granite4_vision",
    "qwen2_5_omni",
    "qwen2_5_omni_thinker",
    "qwen3_omni_moe",
    "qwen3_omni_moe_thinker",
    "gemma4_unified",
    "perception_lm",
    "minicpmv4_6",
    "minicpmv4_7",
    "hunyuan_vl",
    "granite_docling",
    "shieldgemma2",
    "lighton_ocr",
    "qianfan_ocr",
    "vipllava",
    "video_llava",
    "ernie4_5_vl_moe",
    "cosmos3_edge",
    "paddleocr_vl",
    "cohere_compass",
    "glm5_next",
    "qwen4_exp",
    "minimax_m3_vl",
    "hy_v4_vl",
    "mistral_large4",
    "video_llama_3",
    "gemma4_assistant",
    "gemma4_unified_assistant",
    "cosmos3_omni",
    "inkling_text",
    "inkling2_text",
    "inkling2_loop_text",
    "nemotron_h_omni",
    "molmo2",
    "deepseek_ocr2",
    "unlimited_ocr",
    "muse_glimmer",
    "muse_spark",
    "inkling2",
    "inkling2_loop",
    "hyperclovax_vision_v2",
    "minicpm_ocr",
    "dots3_note",
    "florence2",
];

/// The wrappers whose text model the common importer reads as a named
/// family and their module completes (GLM-5.3-Flash, Qwen4-Exp,
/// MiniMax-M3 VL, HY-V4-VL, Mistral Large 4, Aria, Cohere Compass,
/// PaddleOCR-VL, Cosmos3-Edge, ERNIE-4.5-VL, Qianfan-OCR, VipLLaVA,
/// Video-LLaVA, LightOnOCR, ShieldGemma 2, Granite-Docling, HunYuan-VL,
/// MiniCPM-V 4.6 and 4.7, PerceptionLM, Qwen2.5-Omni and Qwen3-Omni,
/// Granite 4 Vision, DeepSeek-VL, Janus, Phi-4-multimodal).
fn import_2026_wrapper(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    match model_type {
        "glm5_next" => glm5_next::import_glm5_next(cfg, import_decoder),
        "ovis2" => ovis2::import_ovis2(cfg, text_or(Arch::Qwen2, "qwen2")),
        "fast_vlm" => fast_vlm::import_fast_vlm(cfg, text_or(Arch::Qwen2, "qwen2")),
        "got_ocr2" => got_ocr2::import_got_ocr2(cfg, text_or(Arch::Qwen2, "qwen2")),
        "granite_speech" => audio_lm::import_granite_speech(cfg, |t| import(t, t.defaults)),
        "chameleon" => vq_vlm::import_chameleon(cfg, |t| import(t, t.defaults)),
        "emu3" => vq_vlm::import_emu3(cfg, |t| import(t, t.defaults)),
        "voxtral_realtime" => audio_lm::import_voxtral_realtime(cfg, |t| import(t, t.defaults)),
        "voxtral" | "qwen2_audio" | "audioflamingo3" | "musicflamingo" => {
            audio_lm::import_audio_lm(cfg, model_type, |t| import(t, t.defaults))
        }
        "qwen3_asr" | "glmasr" => audio_lm::import_asr(cfg, model_type, |t| import(t, t.defaults)),
        "blip-2" | "instructblip" => {
            blip2::import_blip2(cfg, model_type, |t| import(t, t.defaults))
        }
        "diffusion_gemma" => diffusion_gemma::import_diffusion_gemma(cfg, |wrapper| {
            gemma4::import_gemma4(wrapper, import_gemma4_text)
        }),
        "phi4_multimodal" => phi4mm::import_phi4mm(cfg, import_decoder),
        "deepseek_vl" | "deepseek_vl_hybrid" | "janus" => {
            deepseek_vl::import_deepseek_vl(cfg, model_type, text_or(Arch::Llama, "llama"))
        }
        "qwen2_5_omni" | "qwen2_5_omni_thinker" | "qwen3_omni_moe" | "qwen3_omni_moe_thinker" => {
            qwen_omni::import_omni(cfg, model_type, import_decoder)
        }
        "minimax_m3_vl" => {
            minimax_m3_vl::import_minimax_m3_vl(cfg, text_or(Arch::Mixtral, "minimax_m3_vl_text"))
        }
        // its text config class is fixed: a model_type inside is not read
        "hy_v4_vl" => hy_v4_vl::import_hy_v4_vl(cfg, |text| {
            import_decoder(text, Arch::DeepseekV3, "hy_v4_vl_text")
        }),
        "aria" => aria::import_aria(cfg, text_or(Arch::Mixtral, "aria_text")),
        "qianfan_ocr" => shuffle::import_qianfan_ocr(cfg, text_or(Arch::Qwen3, "qwen3")),
        "lighton_ocr" => pixtral::import_lighton_ocr(cfg, text_or(Arch::Qwen3, "qwen3")),
        "minicpmv4_6" | "minicpmv4_7" | "minicpm_ocr" => {
            minicpm_v::import_minicpm_v(cfg, text_or(Arch::Qwen3Next, "qwen3_5_text"))
        }
        // its text class is fixed: HunYuan's dense decoder
        "hunyuan_vl" => hunyuan_vl::import_hunyuan_vl(cfg, |text| {
            import_decoder(text, Arch::Hunyuan, "hunyuan_v1_dense")
        }),
        // its text class is fixed: Granite's decoder
        // its text class is fixed: Granite's decoder
        "granite4_vision" => granite4_vision::import_granite4_vision(cfg, |text| {
            import_decoder(text, Arch::Llama, "granite")
        }),
        "granite_docling" => granite_docling::import_granite_docling(cfg, |text| {
            import_decoder(text, Arch::Llama, "granite")
        }),
        // ShieldGemma 2: Gemma 3's model whole (`ShieldGemma2ForImageClassification`
        // wraps `Gemma3ForConditionalGeneration` and reads two of its
        // logits); its config ties when either flag does, the wrapper's
        // defaulting to False, the text config's to True (`__post_init__`)
        "shieldgemma2" => {
            let text = cfg.required_object("text_config", model_type)?;
            let tied = cfg.flag("tie_word_embeddings", false)?
                || text.flag("tie_word_embeddings", true)?;
            let mut spec = vlm::import_gemma3(cfg, text, |t| {
                import_decoder(t, Arch::Gemma3, "gemma3_text")
            })?;
            spec.tied_embeddings = tied;
            spec.name = model_type.to_string();
            Ok(spec)
        }
        "vipllava" => llava_variants::import_vipllava(cfg, text_or(Arch::Llama, "llama")),
        "perception_lm" => perception_lm::import_perception_lm(cfg, text_or(Arch::Llama, "llama")),
        "gemma4_unified" => import_gemma4_unified(cfg),
        "gemma4_assistant" | "gemma4_unified_assistant" => import_gemma4_assistant(cfg, model_type),
        "deepseek_ocr2" => deepseek_ocr2::import_deepseek_ocr2(cfg),
        "unlimited_ocr" => unlimited_ocr::import_unlimited_ocr(cfg),
        "hyperclovax_vision_v2" => {
            hyperclovax_vl::import_hyperclovax_vl(cfg, text_or(Arch::Llama, "hyperclovax"))
        }
        "muse_glimmer" | "muse_spark" => muse::import_muse(cfg, model_type),
        // its text class is fixed: Qwen3's decoder, OLMo-2's norms when told
        "molmo2" => molmo2::import_molmo2(cfg, |text, olmo| {
            if olmo {
                import_decoder(text, Arch::Olmo2, "olmo2")
            } else {
                import_decoder(text, Arch::Qwen3, "qwen3")
            }
        }),
        "nemotron_h_omni" => {
            nemotron_h_omni::import_nemotron_h_omni(cfg, text_or(Arch::NemotronH, "nemotron_h"))
        }
        "inkling_text" | "inkling2_text" | "inkling2_loop_text" => {
            inkling::import_inkling(cfg, model_type)
        }
        // a text config naming its model_type is read as that family
        "inkling2" | "inkling2_loop" => {
            inkling2_vlm::import_inkling2_vlm(cfg, model_type, |text, default| {
                match text.string("model_type")? {
                    Some(_) => import(text, text.defaults),
                    None => inkling::import_inkling(text, default),
                }
            })
        }
        // Cosmos3-Nano: Qwen3-VL's wrapper whole (its generator, sound and
        // action weights are dropped on load); a text config naming another
        // model_type builds that class
        "cosmos3_omni" => {
            vlm::import_qwen3_vl(cfg, model_type, |text| match text.string("model_type")? {
                Some(t) if t != "qwen3_vl_text" => import(text, text.defaults),
                _ => import_decoder(text, Arch::Qwen3, "qwen3"),
            })
        }
        "video_llava" => llava_variants::import_video_llava(cfg, text_or(Arch::Llama, "llama")),
        "video_llama_3" => video_llama3::import_video_llama3(cfg, text_or(Arch::Qwen2, "qwen2")),
        // its text class is fixed: ERNIE-4.5's decoder, two expert groups
        "ernie4_5_vl_moe" => ernie4_5_vl::import_ernie4_5_vl(cfg, |text| {
            import_decoder(text, Arch::Ernie45, "ernie4_5")
        }),
        // its text class is fixed: Llama with Arcee's relu² MLP
        "cosmos3_edge" => cosmos3_edge::import_cosmos3_edge(cfg, |text| {
            import_decoder(text, Arch::Llama, "arcee")
        }),
        // its text class is fixed (ERNIE-4.5's with M-RoPE)
        "paddleocr_vl" => paddleocr_vl::import_paddleocr_vl(cfg, |text| {
            let mut text = Cfg::new(text.obj, &text.prefix);
            text.defaults = Defaults::Class("paddleocr_vl_text");
            import_decoder(&text, Arch::Ernie45, "ernie4_5")
        }),
        // Cohere Compass: Qwen3-VL's config and tower over its own text class
        "cohere_compass" => vlm::import_qwen3_vl(cfg, model_type, |text| {
            import_decoder(text, Arch::Cohere, "cohere_compass_text")
        }),
        "mistral_large4" => mistral_large4::import_mistral_large4(cfg, |text| {
            import_decoder(text, Arch::DeepseekV3, "mistral_large4_text")
        }),
        "florence2" => florence2::import_florence2(cfg),
        "dots3_note" => dots3_note::import_dots3_note(cfg, |text| {
            import_decoder(text, Arch::DeepseekV3, "dots3_note_text")
        }),
        _ => qwen4_exp::import_qwen4_exp(cfg, import_decoder),
    }
}

/// A wrapper's `text_config` importer: by the `model_type` it names, or as
/// the wrapper's default class (`arch`, `name`) when it names none.
fn text_or(arch: Arch, name: &'static str) -> impl Fn(&Cfg) -> Result<ModelSpec> {
    move |text| {
        if text.string("model_type")?.is_some() {
            import(text, text.defaults)
        } else {
            import_decoder(text, arch, name)
        }
    }
}

/// Gemma 3n's language model: Gemma 3's layers and what `gemma3n` adds.
fn import_gemma3n_text(cfg: &Cfg) -> Result<ModelSpec> {
    gemma3n::import_text(cfg, |flat| {
        import_decoder(flat, Arch::Gemma3, "gemma3n_text")
    })
}

/// Gemma 4's language model: Gemma 3's layers and what `gemma4` adds (or
/// Gemma 4 Unified's, without per-layer embeddings and experts).
fn import_gemma4_text(cfg: &Cfg) -> Result<ModelSpec> {
    let unified = cfg.string("model_type")? == Some("gemma4_unified_text");
    let name = if unified {
        "gemma4_unified_text"
    } else {
        "gemma4_text"
    };
    let mut spec = import_decoder(cfg, Arch::Gemma3, name)?;
    gemma4::text_layers(cfg, &mut spec, unified)?;
    Ok(spec)
}

/// A wrapper's `text_config` as a map to complete (empty when absent).
fn text_config_map(cfg: &Cfg) -> Result<Map<String, Value>> {
    match cfg.obj.get("text_config") {
        Some(Value::Object(map)) => Ok(map.clone()),
        None | Some(Value::Null) => Ok(Map::new()),
        Some(other) => Err(InputError::new(
            cfg.field("text_config"),
            format!("expected an object, got {other}"),
        )),
    }
}

/// Gemma 4's multi-token-prediction drafters (`gemma4_assistant`,
/// `gemma4_unified_assistant`: `generate(..., assistant_model=...)`): a
/// Gemma 4 decoder whose layers read the main model's keys and values (a
/// `num_kv_shared_layers` of 0 becomes every layer), so it keeps no cache of
/// its own, with `pre_projection` (2 × backbone → hidden) and
/// `post_projection` (hidden → backbone) and, with `use_ordered_embeddings`,
/// a centroid head (hidden × `num_centroids`); tied by the wrapper's flag
/// alone (default True). `gemma4_assistant`'s config refuses per-layer
/// embeddings, experts, a double-wide MLP and unshared layers.
fn import_gemma4_assistant(cfg: &Cfg, model_type: &str) -> Result<ModelSpec> {
    let unified = model_type == "gemma4_unified_assistant";
    let text_type = if unified {
        "gemma4_unified_text"
    } else {
        "gemma4_text"
    };
    let mut text = text_config_map(cfg)?;
    text.insert("model_type".into(), text_type.into());
    let layers = {
        let t = Cfg::new(&text, "text_config.");
        t.int(LAYERS, 1, MAX_LAYERS)?.unwrap_or(30)
    };
    let shared = text.get("num_kv_shared_layers").and_then(Value::as_u64);
    if shared.unwrap_or(0) == 0 {
        text.insert("num_kv_shared_layers".into(), layers.into());
    }
    let t = Cfg::new(&text, "text_config.");
    if !unified {
        let refused = [
            (
                "hidden_size_per_layer_input",
                t.int(&["hidden_size_per_layer_input"], 0, MAX_DIM)?
                    .unwrap_or(256)
                    != 0,
            ),
            (
                "vocab_size_per_layer_input",
                t.int(&["vocab_size_per_layer_input"], 0, MAX_DIM)?
                    .unwrap_or(262_144)
                    != 0,
            ),
            ("enable_moe_block", t.flag("enable_moe_block", false)?),
            ("use_double_wide_mlp", t.flag("use_double_wide_mlp", false)?),
            (
                "num_kv_shared_layers",
                shared.is_some_and(|n| n != 0 && n != layers),
            ),
        ];
        if let Some((key, _)) = refused.iter().find(|(_, bad)| *bad) {
            return Err(InputError::new(
                t.field(key),
                "Gemma4AssistantConfig refuses it: a drafter has no per-layer embeddings (0), no experts, no double-wide MLP, and shares every layer's keys and values",
            ));
        }
    }
    let mut spec = import_gemma4_text(&t)?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    let h = u128::from(spec.hidden);
    let backbone = cfg
        .int(&["backbone_hidden_size"], 1, MAX_DIM)?
        .unwrap_or(if unified { 3840 } else { 1536 });
    let centroids = if cfg.flag("use_ordered_embeddings", false)? {
        cfg.int(&["num_centroids"], 1, MAX_DIM)?.unwrap_or(2048)
    } else {
        0
    };
    let extra = 3 * u128::from(backbone) * h + u128::from(centroids) * h;
    spec.model_extra_params = spec
        .model_extra_params
        .saturating_add(u64::try_from(extra).unwrap_or(u64::MAX));
    spec.name = model_type.to_string();
    Ok(spec)
}

/// Gemma 4 Unified's wrapper (`Gemma4UnifiedForConditionalGeneration`):
/// its language model (`gemma4_unified_text`, the class's defaults where
/// `text_config` is silent), tied by the wrapper's flag alone (default
/// True), and the audio embedder when `audio_config` is given: a scale-free
/// RMSNorm and `audio_embed_dim` × hidden, no tower. Its image embedder
/// (one token per merged patch, no tower) is not modelled and refused.
fn import_gemma4_unified(cfg: &Cfg) -> Result<ModelSpec> {
    if cfg.obj.get("vision_config").is_some_and(|v| !v.is_null()) {
        return Err(InputError::new(
            cfg.field("vision_config"),
            "Gemma 4 Unified's image embedder and its image tokens are not modelled yet: without vision_config its language model is",
        ));
    }
    let mut text = text_config_map(cfg)?;
    text.insert("model_type".into(), "gemma4_unified_text".into());
    let mut spec = import_gemma4_text(&Cfg::new(&text, "text_config."))?;
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", true)?;
    if let Some(audio) = cfg.object("audio_config")? {
        // Gemma4UnifiedAudioConfig's audio_embed_dim (640), which its
        // `audio_samples_per_token` and `hidden_size` alias
        let width = audio
            .int(
                &["audio_embed_dim", "audio_samples_per_token", "hidden_size"],
                1,
                MAX_DIM,
            )?
            .unwrap_or(640);
        spec.model_extra_params = spec
            .model_extra_params
            .saturating_add(width.saturating_mul(spec.hidden));
    }
    spec.name = "gemma4_unified".to_string();
    Ok(spec)
}

/// Decoder-only language models and BERT-style encoders.
fn import_decoder(cfg: &Cfg, arch: Arch, model_type: &str) -> Result<ModelSpec> {
    // DistilBERT's config names the width `dim` (`hidden_size` is its alias).
    let hidden_keys: &[&str] = if model_type == "distilbert" {
        &["dim", "hidden_size"]
    } else {
        HIDDEN
    };
    let hidden = cfg.req(hidden_keys, 1, MAX_DIM)?;
    let layers = match cfg.int(LAYERS, 1, MAX_LAYERS)? {
        // Nemotron-H's config derives the count from its block list.
        None if arch == Arch::NemotronH => modern::nemotron_blocks(cfg)?.len() as u64,
        _ => cfg.req(LAYERS, 1, MAX_LAYERS)?,
    };
    let heads = cfg.req(HEADS, 1, MAX_HEADS)?;
    let mut spec = ModelSpec {
        name: model_type.to_string(),
        arch,
        hidden,
        layers,
        heads,
        kv_heads: cfg.int(KV_HEADS, 1, MAX_HEADS)?.unwrap_or(heads),
        head_dim: cfg.int(&["head_dim"], 1, MAX_HEADS)?,
        vocab: cfg.req(VOCAB, 1, MAX_DIM)?,
        max_position: cfg.int(POSITIONS, 0, MAX_POSITION)?.unwrap_or(0),
        ..ModelSpec::default()
    };
    // Modeling files take `getattr(config, "head_dim", hidden // heads)`:
    // a width the heads do not divide is floored, not refused.
    if spec.head_dim.is_none() && !hidden.is_multiple_of(heads) {
        spec.head_dim = Some((hidden / heads).max(1));
    }
    // The family's defaults (the architecture table); the config's own
    // fields override them below.
    let family = crate::model::arch::row_of(arch);
    spec.tied_embeddings = cfg.flag("tie_word_embeddings", family.tied)?;
    spec.mlp = family.mlp;
    spec.norm = family.norm;
    spec.qkv_bias = family.qkv_bias;
    spec.out_bias = family.out_bias;
    let four_h = hidden.saturating_mul(4).min(MAX_DIM);
    match arch {
        Arch::Gpt2 | Arch::GptBigcode => {
            spec.intermediate = cfg.int(&["n_inner"], 1, MAX_DIM)?.unwrap_or(four_h);
            if arch == Arch::GptBigcode && cfg.flag("multi_query", true)? {
                spec.kv_heads = 1;
            }
            // GPT-1 (`OpenAIGPTModel`) has no final norm
            if model_type == "openai-gpt" {
                spec.final_norm = Some(false);
            }
        }
        Arch::Bloom => {
            spec.intermediate = four_h;
        }
        Arch::GptNeo => classic::gpt_neo(cfg, &mut spec, four_h)?,
        Arch::Falcon => classic::falcon(cfg, &mut spec)?,
        Arch::Opt if model_type != "opt" => classic::opt_like(cfg, model_type, &mut spec)?,
        Arch::Opt => {
            spec.intermediate = cfg.req(&["ffn_dim"], 1, MAX_DIM)?;
            let bias = cfg.flag("enable_bias", true)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            if let Some(p) = cfg.int(&["word_embed_proj_dim"], 1, MAX_DIM)? {
                if p != hidden {
                    spec.embed_proj_dim = Some(p);
                }
            }
            let pre_norm = cfg.flag("do_layer_norm_before", true)?;
            let removed = cfg.flag("_remove_final_layer_norm", false)?;
            spec.final_norm = Some(pre_norm && !removed);
        }
        Arch::Bert | Arch::DebertaV2 => encoders::complete(cfg, arch, model_type, &mut spec)?,
        Arch::Phi if model_type == "gptj" || model_type == "codegen" => {
            classic::gptj(cfg, &mut spec)?
        }
        Arch::Phi => {
            spec.intermediate = cfg.req(&["intermediate_size"], 1, MAX_DIM)?;
            spec.lm_head_bias = true;
            spec.parallel_block = true;
        }
        _ if model_type == "mpt" => classic::mpt(cfg, &mut spec)?,
        Arch::Mixtral if model_type == "dbrx" => classic::dbrx(cfg, &mut spec)?,
        // read whole in `modern::complete`, after the common window
        Arch::DeepseekV3 if model_type == "deepseek_v4" => {}
        Arch::GptNeox => {
            spec.intermediate = cfg.req(&["intermediate_size"], 1, MAX_DIM)?;
            let bias = cfg.flag("attention_bias", true)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            spec.mlp_bias = Some(true);
            if model_type == "persimmon" {
                classic::persimmon(cfg, &mut spec)?;
            }
        }
        Arch::Stablelm => {
            spec.intermediate = cfg.req(&["intermediate_size"], 1, MAX_DIM)?;
            spec.qkv_bias = cfg.flag("use_qkv_bias", false)?;
            spec.parallel_block = cfg.flag("use_parallel_residual", false)?;
        }
        _ if modern::completes(arch) => {}
        _ => import_llama_like(cfg, arch, &mut spec)?,
    }
    spec.sliding_window = sliding_window(cfg, arch, layers)?;
    modern::complete(cfg, arch, model_type, &mut spec)?;
    if model_type == "modernbert-decoder" {
        modernbert_decoder::complete(cfg, &mut spec)?;
    }
    Ok(spec)
}

/// Llama, Mistral, Mixtral, Qwen, Gemma, Phi-3, DeepSeek, gpt-oss: RMSNorm and
/// a gated MLP, with family-specific biases and MoE fields.
fn import_llama_like(cfg: &Cfg, arch: Arch, spec: &mut ModelSpec) -> Result<()> {
    // Gated MLP, RMSNorm and Qwen2's q/k/v biases come from the table.
    let dense = cfg.int(&["intermediate_size"], 1, MAX_DIM)?;
    match arch {
        Arch::GptOss => {
            let bias = cfg.flag("attention_bias", true)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            spec.mlp_bias = Some(true);
        }
        // DeepSeek-V2/V3's MLA (`DeepseekV3Attention`): `attention_bias` puts
        // biases on q_a_proj, kv_a_proj_with_mqa and o_proj, none on the MLPs.
        Arch::DeepseekV2 | Arch::DeepseekV3 => {
            let bias = cfg.flag("attention_bias", false)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            spec.mlp_bias = Some(false);
        }
        Arch::Llama | Arch::Mistral | Arch::Qwen3 | Arch::Qwen3Moe => {
            // InternLM2Config calls it `bias` (wqkv and wo alike).
            let bias = cfg.flag("attention_bias", cfg.flag("bias", false)?)?;
            spec.qkv_bias = bias;
            spec.out_bias = bias;
            spec.mlp_bias = Some(cfg.flag("mlp_bias", false)?);
        }
        _ => {}
    }
    let moe_width_keys: &[&str] = &["moe_intermediate_size"];
    spec.moe = match arch {
        Arch::Mixtral | Arch::GptOss => Some(Moe {
            // Aria's language model calls them `moe_num_experts`, `moe_topk`
            experts: cfg.req(
                &["num_local_experts", "num_experts", "moe_num_experts"],
                1,
                MAX_EXPERTS,
            )?,
            experts_per_token: cfg.req(
                &["num_experts_per_tok", "experts_per_token", "moe_topk"],
                1,
                MAX_EXPERTS,
            )?,
            shared_experts: 0,
            expert_intermediate: cfg.req(&["intermediate_size"], 1, MAX_DIM)?,
            shared_intermediate: None,
            dense_layers: 0,
            router_bias: false,
            latent: 0,
        }),
        // `num_experts` 0: every layer is dense (the decoder layer's
        // `config.num_experts > 0` test), the family's fallback.
        Arch::Qwen2Moe | Arch::Qwen3Moe
            if cfg.int(&["num_experts", "num_local_experts"], 0, MAX_EXPERTS)? == Some(0) =>
        {
            None
        }
        Arch::Qwen2Moe | Arch::Qwen3Moe => {
            let experts = cfg.req(&["num_experts", "num_local_experts"], 1, MAX_EXPERTS)?;
            let step = cfg
                .int(&["decoder_sparse_step"], 1, MAX_LAYERS)?
                .unwrap_or(1);
            let mut dense_layers = 0;
            let mlp_only = cfg.array("mlp_only_layers")?.cloned().unwrap_or_default();
            for layer in 0..spec.layers {
                let listed = mlp_only.iter().any(|v| v.as_u64() == Some(layer));
                if listed || (layer + 1) % step != 0 {
                    dense_layers += 1;
                }
            }
            let shared = cfg
                .int(&["shared_expert_intermediate_size"], 0, MAX_DIM)?
                .unwrap_or(0);
            Some(Moe {
                experts,
                experts_per_token: cfg.req(&["num_experts_per_tok"], 1, MAX_EXPERTS)?,
                shared_experts: u64::from(shared > 0),
                expert_intermediate: cfg.req(moe_width_keys, 1, MAX_DIM)?,
                shared_intermediate: (shared > 0).then_some(shared),
                dense_layers,
                router_bias: false,
                latent: 0,
            })
        }
        Arch::DeepseekV2 | Arch::DeepseekV3 => {
            match cfg.int(&["n_routed_experts"], 1, MAX_EXPERTS)? {
                Some(experts) => Some(Moe {
                    experts,
                    experts_per_token: cfg.req(&["num_experts_per_tok"], 1, MAX_EXPERTS)?,
                    shared_experts: cfg.int(&["n_shared_experts"], 0, 64)?.unwrap_or(0),
                    expert_intermediate: cfg.req(moe_width_keys, 1, MAX_DIM)?,
                    shared_intermediate: None,
                    dense_layers: cfg
                        .int(&["first_k_dense_replace"], 0, MAX_LAYERS)?
                        .unwrap_or(0)
                        .min(spec.layers),
                    router_bias: false,
                    latent: 0,
                }),
                None => None,
            }
        }
        _ => None,
    };
    // Models whose layers are all MoE may leave the dense width out.
    let all_moe = spec.moe.as_ref().is_some_and(|m| m.dense_layers == 0);
    spec.intermediate = match (dense, all_moe) {
        (Some(d), _) => d,
        (None, true) => spec.moe.as_ref().map_or(1, |m| m.expert_intermediate),
        (None, false) => cfg.req(&["intermediate_size"], 1, MAX_DIM)?,
    };
    if matches!(arch, Arch::DeepseekV2 | Arch::DeepseekV3) {
        spec.mla = Some(Mla {
            q_lora_rank: cfg.int(&["q_lora_rank"], 1, MAX_DIM)?,
            kv_lora_rank: cfg.req(&["kv_lora_rank"], 1, MAX_DIM)?,
            qk_nope_head_dim: cfg.req(&["qk_nope_head_dim"], 0, MAX_HEADS)?,
            qk_rope_head_dim: cfg.req(&["qk_rope_head_dim"], 0, MAX_HEADS)?,
            v_head_dim: cfg.req(&["v_head_dim"], 1, MAX_HEADS)?,
            indexer: None,
            nope_layers: 0,
            sliding: None,
        });
    }
    Ok(())
}

/// How many layers use a sliding window, from `layer_types`, the Gemma
/// patterns, or a window on every layer (Mistral, Phi-3, Qwen2 with
/// `use_sliding_window`).
fn sliding_window(cfg: &Cfg, arch: Arch, layers: u64) -> Result<Option<SlidingWindow>> {
    let Some(window) = cfg.int(&["sliding_window"], 0, MAX_POSITION)? else {
        return Ok(None);
    };
    if window == 0 {
        return Ok(None);
    }
    let windowed = if let Some(types) = cfg.array("layer_types")? {
        types
            .iter()
            .filter(|t| t.as_str() == Some("sliding_attention"))
            .count() as u64
    } else {
        match arch {
            // Gemma-2: even layers slide (`not bool(layer_idx % 2)`).
            Arch::Gemma2 => layers.div_ceil(2),
            // Gemma-3 and Cohere-2: every `sliding_window_pattern`-th layer
            // is global (Gemma3Config's default 6; Cohere2Config builds its
            // `layer_types` with `(i + 1) % pattern`, default 4).
            // EXAONE-4 (and K-EXAONE) likewise, default 4.
            Arch::Gemma3 | Arch::Cohere | Arch::Exaone4 => {
                let default = if arch == Arch::Gemma3 { 6 } else { 4 };
                let pattern = cfg
                    .int(&["sliding_window_pattern"], 1, MAX_LAYERS)?
                    .unwrap_or(default);
                reader::sliding_in_pattern(layers, pattern)
            }
            Arch::GptOss => layers.div_ceil(2),
            Arch::Qwen2 | Arch::Qwen2Moe | Arch::Qwen3 | Arch::Qwen3Moe => {
                if !cfg.flag("use_sliding_window", false)? {
                    return Ok(None);
                }
                let first = cfg
                    .int(&["max_window_layers"], 0, MAX_LAYERS)?
                    .unwrap_or(layers);
                layers.saturating_sub(first)
            }
            _ => layers,
        }
    };
    Ok(Some(SlidingWindow {
        window,
        layers: windowed.min(layers),
        keeps_prompt: false,
    }))
}

/// A nested config read as the type it names, or its wrapper's default.
fn import_own_type(cfg: &Cfg) -> Result<ModelSpec> {
    import(cfg, cfg.defaults)
}

/// A T5Gemma stack's module config: Gemma 2's layers.
fn t5gemma_module(module: &Cfg) -> Result<ModelSpec> {
    import_decoder(module, Arch::Gemma2, "t5gemma")
}

/// A T5Gemma 2 stack's config: Gemma 3's layers.
fn t5gemma2_stack(stack: &Cfg) -> Result<ModelSpec> {
    import_decoder(stack, Arch::Gemma3, "t5gemma2")
}

/// The encoder-decoder families: T5 and its descendants, Whisper and the
/// BART family (their own modules).
fn import_t5(cfg: &Cfg, arch: Arch, model_type: &str) -> Result<ModelSpec> {
    match arch {
        Arch::Whisper => whisper::import_whisper(cfg),
        Arch::Bart => bart::import_bart(cfg, model_type),
        _ => t5::import_t5(cfg, model_type),
    }
}
