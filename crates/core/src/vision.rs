//! Images in the sequence of a VLM: how many tokens the vision tower reads
//! per image and how many it hands to the language model, which then sees
//! them as ordinary sequence positions (activations, KV cache, logits).

use crate::error::{InputError, Result};
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

/// The scenario with the images' tokens added to the language model's
/// sequence (training: `seq_len`; inference: `prompt_len`), and a note
/// saying so; `None` when the model has no vision tower or there are no
/// images. Fails when the sequence would pass [`MAX_TOKENS`].
pub fn with_image_tokens(sc: &Scenario, spec: &ModelSpec) -> Result<Option<(Scenario, Note)>> {
    let Some(tower) = &spec.vision else {
        return Ok(None);
    };
    // A bare vision tower (CLIP on its own) has no language model to feed.
    if spec.layers == 0 || spec.vocab == 0 {
        return Ok(None);
    }
    let (images, image_size, field) = match sc.task {
        TaskKind::Training => (
            sc.training.images_per_sample,
            sc.training.image_size,
            "training.images_per_sample",
        ),
        TaskKind::Inference => (
            sc.inference.images_per_prompt,
            None,
            "inference.images_per_prompt",
        ),
    };
    if images == 0 {
        return Ok(None);
    }
    let per_image = image_tokens(tower, image_size).language_model;
    let added = images.saturating_mul(per_image);
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
    let note = Note::new(
        "image_tokens",
        format!(
            "The language model's sequence: {text_tokens} text tokens + {images} image(s) × \
             {per_image} image tokens = {total} tokens."
        ),
        format!(
            "语言模型的序列：{text_tokens} 个文本 token + {images} 张图 × 每张 {per_image} 个图像 token = {total} 个 token。"
        ),
    );
    Ok(Some((out, note)))
}
