//! The tokens a video costs a Qwen-VL model, as transformers' video
//! processors compute them (`Qwen2VLVideoProcessor` for qwen2_vl and
//! qwen2_5_vl, `Qwen3VLVideoProcessor` for qwen3_vl, qwen3_5 and
//! qwen3_5_moe, by `video_processing_auto`): frames sampled, each resized
//! to multiples of patch × merge within the processor's pixel limits,
//! two frames per temporal patch, `merge²` patches per language-model token.
//! Checked against the processors on synthetic videos
//! (`tests/data/video/video_tokens.jsonl`, `tests/video_tokens.rs`).

use crate::decimal::Decimal;
use serde::Serialize;

use crate::error::{check_range, InputError, Result};
use crate::image_tokens::{round_half_even, smart_resize};
use crate::scenario::limits::MAX_IMAGE_SIZE;

/// Frames a video may have here (an hour at 30 fps is 108,000).
pub const MAX_FRAMES: u64 = 1 << 20;

/// How a family turns a video into tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VideoRule {
    /// Qwen2-VL and Qwen2.5-VL: every frame given (`do_sample_frames =
    /// False`), each resized alone by the image rule with the video limits
    /// (`size` 128·28² to 768·28² pixels), frames padded to whole
    /// temporal patches.
    Qwen2 {
        patch: u64,
        merge: u64,
        temporal: u64,
        min_pixels: u64,
        max_pixels: u64,
    },
    /// Qwen3-VL and Qwen3.5: frames sampled at `fps` (2) of the video's own
    /// rate (24 when unknown), between `min_frames` (4) and `max_frames`
    /// (768); one resize for the whole clip, whose pixel limits count every
    /// frame (`size` 128·32² to 768·32²).
    Qwen3 {
        patch: u64,
        merge: u64,
        temporal: u64,
        min_pixels: u64,
        max_pixels: u64,
        fps: f64,
        min_frames: u64,
        max_frames: u64,
    },
    /// Video-LLaVA (`VideoLlavaVideoProcessor`): every frame given, each
    /// resized and cropped to the tower's square (`side` patches a side),
    /// one tower pass per frame, and all its `side² + 1` outputs (the class
    /// token too, whatever the select strategy) written into the text.
    Frames { side: u64 },
}

impl VideoRule {
    /// The processor's defaults for a family, with the tower's patch,
    /// merge and temporal sizes from its config.
    pub fn qwen2(patch: u64, merge: u64, temporal: u64) -> VideoRule {
        VideoRule::Qwen2 {
            patch,
            merge,
            temporal,
            min_pixels: 128 * 28 * 28,
            max_pixels: 28 * 28 * 768,
        }
    }

    pub fn qwen3(patch: u64, merge: u64, temporal: u64) -> VideoRule {
        VideoRule::Qwen3 {
            patch,
            merge,
            temporal,
            min_pixels: 128 * 32 * 32,
            max_pixels: 32 * 32 * 768,
            fps: 2.0,
            min_frames: 4,
            max_frames: 768,
        }
    }
}

/// One video as given: its frame size, frame count and, if known, its frame rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Video {
    pub width: u64,
    pub height: u64,
    pub frames: u64,
    pub fps: Option<f64>,
}

/// What a video costs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VideoTokens {
    pub width: u64,
    pub height: u64,
    pub frames: u64,
    /// Frames the processor keeps (sampled) before padding to temporal patches.
    pub frames_used: u64,
    pub grid_t: u64,
    pub grid_h: u64,
    pub grid_w: u64,
    /// Patches the vision tower reads: `grid_t × grid_h × grid_w` (with a
    /// class token per frame for Video-LLaVA).
    pub tower_tokens: u64,
    /// Tokens of one tower pass (a temporal patch's grid, or a frame with
    /// its class token): attention runs within each.
    pub frame_tokens: u64,
    /// Video tokens in the text: the tower's patches over `merge²`
    /// (Qwen3-VL also writes a timestamp per temporal patch, text tokens
    /// its tokenizer decides, not counted here).
    pub language_model_tokens: u64,
}

/// The tokens of `video` under `rule`; the processor's refusals (an aspect
/// ratio over 200, fewer frames than one temporal patch for Qwen3-VL) are
/// errors naming the field.
pub fn video_tokens(rule: &VideoRule, video: &Video) -> Result<VideoTokens> {
    check_range("video width", video.width, 1, MAX_IMAGE_SIZE)?;
    check_range("video height", video.height, 1, MAX_IMAGE_SIZE)?;
    check_range("video frames", video.frames, 1, MAX_FRAMES)?;
    if let Some(fps) = video.fps {
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(InputError::new(
                "video fps",
                format!(
                    "{} is out of range: above 0 up to 1000 frames per second",
                    Decimal(fps)
                ),
            ));
        }
    }
    let (w, h) = (video.width, video.height);
    // Every frame is cropped to the tower's square: any aspect ratio goes.
    if let VideoRule::Frames { side } = *rule {
        return Ok(frame_tokens(video, side));
    }
    if w.max(h) > 200 * w.min(h) {
        return Err(InputError::new(
            "video width",
            format!("{w}×{h}: the processor takes aspect ratios up to 200:1"),
        ));
    }
    let (frames_used, grid, merge, temporal) = match *rule {
        VideoRule::Qwen2 {
            patch,
            merge,
            temporal,
            min_pixels,
            max_pixels,
        } => {
            let (rh, rw) = smart_resize(h, w, patch * merge, min_pixels, max_pixels);
            (video.frames, (rh / patch, rw / patch), merge, temporal)
        }
        VideoRule::Qwen3 {
            patch,
            merge,
            temporal,
            min_pixels,
            max_pixels,
            fps,
            min_frames,
            max_frames,
        } => {
            // `sample_frames`: int(total / video fps × fps), clamped.
            let rate = video.fps.unwrap_or(24.0);
            let sampled = (video.frames as f64 / rate * fps) as u64;
            let n = sampled.max(min_frames).min(max_frames).min(video.frames);
            if n < temporal {
                return Err(InputError::new(
                    "video frames",
                    format!(
                        "{n} frame(s) kept of {}: the processor needs at least {temporal} (one temporal patch)",
                        video.frames
                    ),
                ));
            }
            let (rh, rw) = clip_resize(n, h, w, temporal, patch * merge, min_pixels, max_pixels);
            (n, (rh / patch, rw / patch), merge, temporal)
        }
        VideoRule::Frames { side } => return Ok(frame_tokens(video, side)),
    };
    let grid_t = frames_used.div_ceil(temporal);
    let (grid_h, grid_w) = grid;
    let tower = grid_t * grid_h * grid_w;
    Ok(VideoTokens {
        width: w,
        height: h,
        frames: video.frames,
        frames_used,
        grid_t,
        grid_h,
        grid_w,
        tower_tokens: tower,
        frame_tokens: grid_h * grid_w,
        language_model_tokens: tower / (merge * merge),
    })
}

/// Video-LLaVA's frames: one tower pass of `side² + 1` tokens each, all of
/// them in the text.
fn frame_tokens(video: &Video, side: u64) -> VideoTokens {
    let frame = side.saturating_mul(side).saturating_add(1);
    let tower = video.frames.saturating_mul(frame);
    VideoTokens {
        width: video.width,
        height: video.height,
        frames: video.frames,
        frames_used: video.frames,
        grid_t: video.frames,
        grid_h: side,
        grid_w: side,
        tower_tokens: tower,
        frame_tokens: frame,
        language_model_tokens: tower,
    }
}

/// Qwen3-VL's `smart_resize` for a clip: sides to multiples of `factor`,
/// the pixels of every frame (frames rounded to temporal patches) within
/// the limits; sides under one factor are scaled up first.
fn clip_resize(
    frames: u64,
    height: u64,
    width: u64,
    temporal: u64,
    factor: u64,
    min_pixels: u64,
    max_pixels: u64,
) -> (u64, u64) {
    let (mut h, mut w) = (height as f64, width as f64);
    let f = factor as f64;
    if height < factor || width < factor {
        let scale = (f / h).max(f / w);
        h = (h * scale).trunc();
        w = (w * scale).trunc();
    }
    let t = frames as f64;
    let mut h_bar = round_half_even(h / f) * f;
    let mut w_bar = round_half_even(w / f) * f;
    let t_bar = round_half_even(t / temporal as f64) * temporal as f64;
    if t_bar * h_bar * w_bar > max_pixels as f64 {
        let beta = (t * h * w / max_pixels as f64).sqrt();
        h_bar = f.max((h / beta / f).floor() * f);
        w_bar = f.max((w / beta / f).floor() * f);
    } else if t_bar * h_bar * w_bar < min_pixels as f64 {
        let beta = (min_pixels as f64 / (t * h * w)).sqrt();
        h_bar = (h * beta / f).ceil() * f;
        w_bar = (w * beta / f).ceil() * f;
    }
    (h_bar as u64, w_bar as u64)
}
