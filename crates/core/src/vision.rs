//! Images in the sequence of a VLM: how many tokens the vision tower reads
//! per image and how many it hands to the language model, which then sees
//! them as ordinary sequence positions (activations, KV cache, logits).
//!
//! A model with an image rule (`ModelSpec::image_rule`: Qwen-VL's dynamic
//! resolution, LLaVA-NeXT's grids, ...) sizes each image from its width ×
//! height as transformers' processors do (`image_tokens`); a model without
//! one is a LLaVA-1.5-style tower whose processor resizes and crops every
//! image to the tower's square.

use crate::error::{InputError, Result};
use crate::image_tokens::{self, ImageRule};
use crate::model::{ModelSpec, VisionTower};
use crate::report::Note;
use crate::scenario::limits::MAX_TOKENS;
use crate::scenario::{Scenario, TaskKind};

/// Tokens of one image: what the tower processes (patches + the class
/// token) and what the language model receives. LLaVA-1.5 drops the class
/// token (transformers `vision_feature_select_strategy="default"`): 336 px
/// in 14 px patches = 576 tokens in the LM sequence, 577 in the tower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageTokens {
    pub tower: u64,
    pub language_model: u64,
}

/// The tokens of one image of `image_size` pixels (the tower's own size when `None`).
pub fn image_tokens(tower: &VisionTower, image_size: Option<u64>) -> ImageTokens {
    let side = image_size.unwrap_or(tower.image_size) / tower.patch_size.max(1);
    let patches = side.saturating_mul(side);
    ImageTokens {
        tower: patches.saturating_add(1),
        language_model: patches,
    }
}

/// The images of one training sample or one prompt, sized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleImages {
    /// Images per sample (training) or per prompt (inference).
    pub images: u64,
    /// Each image's width × height as the scenario gives it.
    pub width: u64,
    pub height: u64,
    /// Tokens of one image.
    pub per_image: ImageTokens,
    /// The family rule that sized it (`None`: the tower's fixed square).
    pub rule: Option<&'static str>,
    /// One video's tokens, when the sample or prompt has one.
    pub video: Option<crate::video_tokens::VideoTokens>,
}

impl SampleImages {
    /// Tokens the tower processes for all the images of a sample.
    pub fn tower_tokens(&self) -> u64 {
        let video = self.video.as_ref().map_or(0, |v| v.tower_tokens);
        self.images
            .saturating_mul(self.per_image.tower)
            .saturating_add(video)
    }

    /// Tokens the images add to the language model's sequence.
    pub fn language_model_tokens(&self) -> u64 {
        let video = self.video.as_ref().map_or(0, |v| v.language_model_tokens);
        self.images
            .saturating_mul(self.per_image.language_model)
            .saturating_add(video)
    }
}

/// The width × height of each image: the scenario's `image_width` /
/// `image_height` (one given: a square), else training's square
/// `image_size`, else the tower's own square.
fn image_size(sc: &Scenario, tower: &VisionTower) -> (u64, u64, bool) {
    match (sc.image_width, sc.image_height) {
        (Some(w), Some(h)) => (w, h, true),
        (Some(s), None) | (None, Some(s)) => (s, s, true),
        (None, None) => {
            let square = match sc.task {
                TaskKind::Training => sc.training.image_size,
                TaskKind::Inference => None,
            };
            let side = square.unwrap_or(tower.image_size);
            (side, side, false)
        }
    }
}

/// The sized images of `sc` on `spec`; `None` when the model has no
/// language model fed by a vision tower or there are no images. Fails
/// (naming the field) when the rule refuses a size.
pub fn sample_images(sc: &Scenario, spec: &ModelSpec) -> Result<Option<SampleImages>> {
    if sc.video_frames.is_some() && (spec.video.is_none() || spec.vision.is_none()) {
        return Err(InputError::new(
            "video_frames",
            "this model's processor takes no video (the Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 families do)",
        ));
    }
    let Some(tower) = &spec.vision else {
        return Ok(None);
    };
    // A bare vision tower (CLIP on its own) has no language model to feed.
    if spec.layers == 0 || spec.vocab == 0 {
        return Ok(None);
    }
    let images = sc.images();
    let (width, height, explicit) = image_size(sc, tower);
    let video = video_tokens(sc, spec, width, height)?;
    if images == 0 && video.is_none() {
        return Ok(None);
    }
    let (per_image, rule) = match &spec.image_rule {
        Some(rule) => (rule_tokens(rule, width, height)?, Some(rule.family())),
        // LLaVA-1.5's CLIPImageProcessor resizes the short side to the
        // tower's size and center-crops a square: any width × height costs
        // the tower's own tokens. `training.image_size` keeps its meaning:
        // a tower run at that square.
        None if explicit => (image_tokens(tower, None), None),
        None => (image_tokens(tower, Some(width)), None),
    };
    Ok(Some(SampleImages {
        images,
        width,
        height,
        per_image,
        rule,
        video,
    }))
}

/// The tokens of the scenario's video at the image size, by the model's
/// video processor; an error naming `video_frames` for a model that takes
/// no video, or the processor's own refusal.
fn video_tokens(
    sc: &Scenario,
    spec: &ModelSpec,
    width: u64,
    height: u64,
) -> Result<Option<crate::video_tokens::VideoTokens>> {
    let Some(frames) = sc.video_frames else {
        return Ok(None);
    };
    let rule = spec
        .video
        .and_then(|family| family.rule(spec.image_rule.as_ref()))
        .ok_or_else(|| {
            InputError::new(
                "video_frames",
                "this model's processor takes no video (the Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 families do)",
            )
        })?;
    let video = crate::video_tokens::Video {
        width,
        height,
        frames,
        fps: sc.video_fps.map(|f| f as f64),
    };
    crate::video_tokens::video_tokens(&rule, &video)
        .map(Some)
        .map_err(|e| {
            let field = match e.field.as_str() {
                "video frames" => "video_frames",
                "video fps" => "video_fps",
                _ => "image_width",
            };
            InputError::new(field, e.message)
        })
}

/// One image under a family rule, errors named by the scenario's fields.
fn rule_tokens(rule: &ImageRule, width: u64, height: u64) -> Result<ImageTokens> {
    let t = image_tokens::tokens(rule, width, height).map_err(|e| {
        let field = match e.field.as_str() {
            "image.width" => "image_width".to_string(),
            "image.height" => "image_height".to_string(),
            "image" => "image_width".to_string(),
            other => format!("model.image_rule ({other})"),
        };
        InputError::new(field, e.message)
    })?;
    Ok(ImageTokens {
        tower: t.tower_tokens,
        language_model: t.language_model_tokens,
    })
}

/// The scenario with the images' tokens added to the language model's
/// sequence (training: `seq_len`; inference: `prompt_len`), and a note
/// saying so; `None` when the model has no vision tower or there are no
/// images. Fails when the sequence would pass [`MAX_TOKENS`].
pub fn with_image_tokens(sc: &Scenario, spec: &ModelSpec) -> Result<Option<(Scenario, Note)>> {
    let Some(sized) = sample_images(sc, spec)? else {
        return Ok(None);
    };
    let field = match sc.task {
        TaskKind::Training => "training.images_per_sample",
        TaskKind::Inference => "inference.images_per_prompt",
    };
    let images = sized.images;
    let per_image = sized.per_image.language_model;
    let added = sized.language_model_tokens();
    let mut out = sc.clone();
    let text = match sc.task {
        TaskKind::Training => &mut out.training.seq_len,
        TaskKind::Inference => &mut out.inference.prompt_len,
    };
    let text_tokens = *text;
    let total = text_tokens.saturating_add(added);
    if total > MAX_TOKENS {
        return Err(InputError::new(
            field,
            format!(
                "{images} images × {per_image} tokens + {text_tokens} text tokens = {total} \
                 is out of range: the sequence allows up to {MAX_TOKENS} tokens"
            ),
        ));
    }
    *text = total;
    let (video_en, video_zh) = match &sized.video {
        Some(v) => (
            format!(
                " + a {}×{} video of {} frames ({} sampled, {} tower tokens) = {} video tokens",
                v.width, v.height, v.frames, v.frames_used, v.tower_tokens, v.language_model_tokens
            ),
            format!(
                " + 一段 {}×{}、{} 帧的视频（采样 {} 帧，视觉编码器 {} 个 token）= {} 个视频 token",
                v.width, v.height, v.frames, v.frames_used, v.tower_tokens, v.language_model_tokens
            ),
        ),
        None => (String::new(), String::new()),
    };
    let (images_en, images_zh) = if images > 0 {
        (
            format!(" + {images} image(s) × {per_image} image tokens"),
            format!(" + {images} 张图 × 每张 {per_image} 个图像 token"),
        )
    } else {
        (String::new(), String::new())
    };
    let sequence_en = format!(
        "The language model's sequence: {text_tokens} text tokens{images_en}{video_en} = {total} tokens."
    );
    let sequence_zh = format!(
        "语言模型的序列：{text_tokens} 个文本 token{images_zh}{video_zh} = {total} 个 token。"
    );
    let note = match sized.rule {
        _ if images == 0 => Note::new("image_tokens", sequence_en, sequence_zh),
        None => Note::new("image_tokens", sequence_en, sequence_zh),
        Some(rule) => {
            let (w, h, tower) = (sized.width, sized.height, sized.per_image.tower);
            Note::new(
                "image_tokens",
                format!(
                    "Image tokens by the {rule} rule: each {w}×{h} image is {tower} tower \
                     tokens and {per_image} language-model tokens. {sequence_en}"
                ),
                format!(
                    "图像 token 按 {rule} 规则计算：每张 {w}×{h} 的图像在视觉编码器中为 {tower} 个 token，\
                     在语言模型中为 {per_image} 个 token。{sequence_zh}"
                ),
            )
        }
    };
    Ok(Some((out, note)))
}
