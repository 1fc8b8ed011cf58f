//! The note that says how a VLM's images became tokens: the family rule,
//! each size's tokens, and for a batch of mixed sizes which images the
//! tower runs (all of them, summed) and how long the padded sequences are.

use super::batch::SampleImages;
use crate::report::Note;

/// The note for `sized`, whose longest sample holds `text` text tokens and
/// `total` tokens in all.
pub(super) fn image_note(sized: &SampleImages, text: u64, total: u64) -> Note {
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
    let images = sized.images;
    let longest = sized.longest_sample.language_model;
    let (images_en, images_zh) = match images {
        0 => (String::new(), String::new()),
        _ if sized.mixed() => (
            format!(" + {longest} image tokens of the longest sample's {images} image(s)"),
            format!(" + 最长样本 {images} 张图的 {longest} 个图像 token"),
        ),
        _ => {
            let per_image = sized.first().tokens.language_model;
            let plural = if per_image == 1 { "" } else { "s" };
            (
                format!(" + {images} image(s) × {per_image} image token{plural}"),
                format!(" + {images} 张图 × 每张 {per_image} 个图像 token"),
            )
        }
    };
    let sequence_en = format!(
        "The language model's sequence: {text} text tokens{images_en}{video_en} = {total} tokens."
    );
    let sequence_zh =
        format!("语言模型的序列：{text} 个文本 token{images_zh}{video_zh} = {total} 个 token。");
    if images == 0 {
        return Note::new("image_tokens", sequence_en, sequence_zh);
    }
    if sized.mixed() {
        return mixed_note(sized, sequence_en, sequence_zh);
    }
    match sized.rule {
        None => Note::new("image_tokens", sequence_en, sequence_zh),
        Some(rule) => {
            let g = sized.first();
            let (w, h, tower, lm) = (g.width, g.height, g.tokens.tower, g.tokens.language_model);
            Note::new(
                "image_tokens",
                format!(
                    "Image tokens by the {rule} rule: each {w}×{h} image is {tower} tower \
                     tokens and {lm} language-model token{}. {sequence_en}",
                    if lm == 1 { "" } else { "s" }
                ),
                format!(
                    "图像 token 按 {rule} 规则计算：每张 {w}×{h} 的图像在视觉编码器中为 {tower} 个 token，\
                     在语言模型中为 {lm} 个 token。{sequence_zh}"
                ),
            )
        }
    }
}

/// A batch of mixed sizes: each size's share, the tower's sum, the padding.
fn mixed_note(sized: &SampleImages, sequence_en: String, sequence_zh: String) -> Note {
    // A tower without an image rule resizes every image to its square.
    let (rule, rule_zh) = match sized.rule {
        Some(rule) => (rule, rule),
        None => ("tower's fixed square", "视觉编码器固定方形"),
    };
    let sizes_en: Vec<String> = sized
        .groups
        .iter()
        .map(|g| {
            format!(
                "{} × {}×{} ({} tower, {} language-model tokens each)",
                g.in_batch, g.width, g.height, g.tokens.tower, g.tokens.language_model
            )
        })
        .collect();
    let sizes_zh: Vec<String> = sized
        .groups
        .iter()
        .map(|g| {
            format!(
                "{} 张 {}×{}（每张视觉编码器 {} 个、语言模型 {} 个 token）",
                g.in_batch, g.width, g.height, g.tokens.tower, g.tokens.language_model
            )
        })
        .collect();
    let (samples, tower) = (sized.samples, sized.batch_tower_tokens());
    Note::new(
        "image_tokens",
        format!(
            "Images of mixed sizes by the {rule} rule, in a batch of {samples}: {}. \
             Packed in the tower: it runs only the batch's real images, {tower} tokens in all \
             (the sum, not the largest image times the batch). Padded in the language model: \
             the collator pads every sequence to the longest sample. {sequence_en}",
            sizes_en.join(", ")
        ),
        format!(
            "混合尺寸的图像（按 {rule_zh} 规则），每批 {samples} 个样本：{}。\
             视觉编码器按打包计算：只处理批内真实的图像，共 {tower} 个 token（求和，而非最大图像乘以批大小）。\
             语言模型按填充计算：整理器把每条序列填充到最长的样本。{sequence_zh}",
            sizes_zh.join("，")
        ),
    )
}
