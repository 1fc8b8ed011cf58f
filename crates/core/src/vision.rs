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

mod batch;
mod note;

use batch::{batch_counts, longest_sample};
pub use batch::{ImageGroup, ImageTokens, SampleImages};

/// The tokens of one image of `image_size` pixels (the tower's own size when `None`).
pub fn image_tokens(tower: &VisionTower, image_size: Option<u64>) -> ImageTokens {
    let side = image_size.unwrap_or(tower.image_size) / tower.patch_size.max(1);
    let patches = side.saturating_mul(side);
    ImageTokens {
        tower: patches.saturating_add(1),
        language_model: patches,
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
            "video is modelled for the Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5 and Video-LLaVA families only; this model takes none here",
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
    let one_size = [(width, height)];
    let sizes: &[(u64, u64)] = if sc.image_mix.is_empty() {
        &one_size
    } else {
        &sc.image_mix
    };
    let mut per_size = Vec::with_capacity(sizes.len());
    for &(w, h) in sizes {
        let tokens = match &spec.image_rule {
            Some(rule) => rule_tokens(rule, w, h, !sc.image_mix.is_empty())?,
            // LLaVA-1.5's CLIPImageProcessor resizes the short side to the
            // tower's size and center-crops a square: any width × height
            // costs the tower's own tokens. `training.image_size` keeps its
            // meaning: a tower run at that square.
            None if explicit || !sc.image_mix.is_empty() => image_tokens(tower, None),
            None => image_tokens(tower, Some(w)),
        };
        per_size.push((w, h, tokens));
    }
    // Idefics2 pads every image of a batch to the largest (`do_pad`), and
    // its tower reads the padded pixels.
    let image_passes = match spec.image_rule {
        Some(ImageRule::Idefics2 { split, .. }) => {
            let most = per_size.iter().map(|s| s.2.tower).max().unwrap_or(0);
            per_size.iter_mut().for_each(|s| s.2.tower = most);
            if split {
                5
            } else {
                1
            }
        }
        Some(ImageRule::Gemma4 { .. }) => 1,
        _ => 0,
    };
    let samples = match sc.task {
        TaskKind::Training => sc.training.micro_batch,
        TaskKind::Inference => sc.inference.batch,
    }
    .max(1);
    let tokens: Vec<ImageTokens> = per_size.iter().map(|s| s.2).collect();
    let in_batch = batch_counts(images, samples, tokens.len());
    let groups = per_size
        .into_iter()
        .zip(in_batch)
        .map(|((width, height, tokens), in_batch)| ImageGroup {
            width,
            height,
            tokens,
            in_batch,
        })
        .collect();
    Ok(Some(SampleImages {
        images,
        samples,
        groups,
        longest_sample: longest_sample(&tokens, images, samples),
        rule: spec.image_rule.as_ref().map(ImageRule::family),
        image_passes,
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
        .and_then(|family| family.rule(spec))
        .ok_or_else(|| {
            InputError::new(
                "video_frames",
                "video is modelled for the Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5 and Video-LLaVA families only; this model takes none here",
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

/// One image under a family rule, errors named by the scenario's fields
/// (`image_mix` when the size is one of its list).
fn rule_tokens(rule: &ImageRule, width: u64, height: u64, mixed: bool) -> Result<ImageTokens> {
    let t = image_tokens::tokens(rule, width, height).map_err(|e| {
        let field = match e.field.as_str() {
            "image.width" | "image.height" | "image" if mixed => "image_mix".to_string(),
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
/// sequence (training: `seq_len`; inference: `prompt_len`; with mixed
/// sizes the longest sample's, to which the batch is padded), and a note
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
                "{added} image tokens + {text_tokens} text tokens = {total} \
                 is out of range: the sequence allows up to {MAX_TOKENS} tokens"
            ),
        ));
    }
    *text = total;
    // An encoder-decoder's images are the encoder's: its decoder trains on
    // the text target alone (Florence-2, T5Gemma 2)
    let encoder_decoder = spec.encoder_layers.is_some_and(|e| e > 0);
    if encoder_decoder && sc.task == TaskKind::Training && out.training.target_len.is_none() {
        out.training.target_len = Some(text_tokens);
    }
    Ok(Some((out, note::image_note(&sized, text_tokens, total))))
}

/// The model's largest image as vLLM profiles it: the image rule's image
/// with the most features ([`image_tokens::largest::most_features`]), else the
/// tower's own square; with its tiles when the rule tiles. `None` for a
/// model without a language model fed by a tower, or a rule that refuses
/// every size.
pub fn most_features(spec: &ModelSpec) -> Option<image_tokens::ImageTokens> {
    let tower = spec.vision.as_ref()?;
    if spec.layers == 0 || spec.vocab == 0 {
        return None;
    }
    match &spec.image_rule {
        Some(rule) => image_tokens::largest::most_features(rule).ok(),
        None => {
            let t = image_tokens(tower, None);
            Some(image_tokens::ImageTokens {
                width: tower.image_size,
                height: tower.image_size,
                tower_tokens: t.tower,
                language_model_tokens: t.language_model,
                tiles: None,
            })
        }
    }
}
