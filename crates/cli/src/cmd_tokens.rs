//! `vramfit tokens --config FILE [--preprocessor FILE] --image WxH ...
//! [--video WxHxFRAMES[@FPS] ...]`: the tokens each image and video costs a
//! VLM, as its processors compute them.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::hf_config::{rule_from_configs, video_rule_from_config};
use vramfit_core::image_tokens::{tokens, ImageTokens};
use vramfit_core::video_tokens::{video_tokens, Video, VideoTokens};
use vramfit_core::InputError;

use crate::output::fail;

#[derive(ClapArgs)]
pub struct Args {
    /// The VLM's config.json: any model_type whose image rule the importer reads (Qwen-VL, InternVL, Gemma 3, Llama 3.2 Vision, LLaVA-NeXT, ERNIE-4.5-VL, MiniCPM-V, ...).
    #[arg(long)]
    pub config: String,
    /// Its preprocessor_config.json (pixel limits, tile counts); the
    /// processor's defaults apply without it.
    #[arg(long)]
    pub preprocessor: Option<String>,
    /// An image as WIDTHxHEIGHT in pixels (repeatable, in order).
    #[arg(long = "image", required_unless_present = "videos")]
    pub images: Vec<String>,
    /// A video as WIDTHxHEIGHTxFRAMES, optionally @FPS (its frame rate):
    /// Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 (repeatable, in order).
    #[arg(long = "video")]
    pub videos: Vec<String>,
    /// One JSON object: images (width, height, tower_tokens,
    /// language_model_tokens), videos (the same with frames, frames_used,
    /// grid_t/h/w) and total_language_model_tokens.
    #[arg(long)]
    pub json: bool,
}

/// `1920x1080` → (1920, 1080); the error names `--image`.
fn size(text: &str) -> Result<(u64, u64), InputError> {
    let bad = || {
        InputError::new(
            "--image",
            format!("\"{text}\" is not WIDTHxHEIGHT in pixels (e.g. 1920x1080)"),
        )
    };
    let (w, h) = text.trim().split_once(['x', 'X', '×']).ok_or_else(bad)?;
    Ok((
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    ))
}

/// `1280x720x64@30` → (1280, 720, 64, Some(30.0)); the error names `--video`.
fn video(text: &str) -> Result<Video, InputError> {
    let bad = || {
        InputError::new(
            "--video",
            format!("\"{text}\" is not WIDTHxHEIGHTxFRAMES[@FPS] (e.g. 1280x720x64@30)"),
        )
    };
    let (dims, fps) = match text.trim().split_once('@') {
        Some((dims, fps)) => (dims, Some(fps.trim().parse::<f64>().map_err(|_| bad())?)),
        None => (text.trim(), None),
    };
    let parts: Vec<&str> = dims.split(['x', 'X', '×']).map(str::trim).collect();
    let [w, h, frames] = parts.as_slice() else {
        return Err(bad());
    };
    Ok(Video {
        width: w.parse().map_err(|_| bad())?,
        height: h.parse().map_err(|_| bad())?,
        frames: frames.parse().map_err(|_| bad())?,
        fps,
    })
}

fn read(path: &str) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| InputError::new(path, format!("cannot read: {e}")))
}

fn counted(args: &Args) -> Result<(Vec<ImageTokens>, Vec<VideoTokens>), InputError> {
    let preprocessor = args.preprocessor.as_deref().map(read).transpose()?;
    let config = read(&args.config)?;
    let images = if args.images.is_empty() {
        Vec::new()
    } else {
        let rule = rule_from_configs(&config, preprocessor.as_deref())?;
        args.images
            .iter()
            .map(|text| {
                let (w, h) = size(text)?;
                tokens(&rule, w, h)
            })
            .collect::<Result<_, _>>()?
    };
    let videos = if args.videos.is_empty() {
        Vec::new()
    } else {
        let rule = video_rule_from_config(&config)?.ok_or_else(|| {
            InputError::new(
                "--video",
                "this model's processor takes no video here: Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 do",
            )
        })?;
        args.videos
            .iter()
            .map(|text| video_tokens(&rule, &video(text)?))
            .collect::<Result<_, _>>()?
    };
    Ok((images, videos))
}

pub fn run(args: Args) -> ExitCode {
    let (images, videos) = match counted(&args) {
        Ok(counted) => counted,
        Err(e) => return fail(&e),
    };
    let total: u64 = images.iter().map(|i| i.language_model_tokens).sum::<u64>()
        + videos.iter().map(|v| v.language_model_tokens).sum::<u64>();
    if args.json {
        let mut out = serde_json::json!({"images": images, "total_language_model_tokens": total});
        if !videos.is_empty() {
            out["videos"] = serde_json::json!(videos);
        }
        println!("{out}");
    } else {
        for i in &images {
            println!(
                "{:>6} × {:<6} {:>7} tower tokens  {:>7} language-model tokens{}",
                i.width,
                i.height,
                i.tower_tokens,
                i.language_model_tokens,
                i.tiles.map_or(String::new(), |t| {
                    format!("  ({t} {})", if t == 1 { "tile" } else { "tiles" })
                })
            );
        }
        for v in &videos {
            println!(
                "{:>6} × {:<6} × {:>5} frames ({} kept): {:>8} tower tokens  {:>7} language-model tokens",
                v.width, v.height, v.frames, v.frames_used, v.tower_tokens, v.language_model_tokens
            );
        }
        println!("total: {total} language-model tokens");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::{size, video};

    #[test]
    fn image_sizes_read_as_people_write_them() {
        assert_eq!(size("1920x1080").ok(), Some((1920, 1080)));
        assert_eq!(size(" 640 X 480 ").ok(), Some((640, 480)));
        assert_eq!(size("336×336").ok(), Some((336, 336)));
        for bad in ["1920", "x", "axb", "-1x5"] {
            assert_eq!(size(bad).unwrap_err().field, "--image", "{bad}");
        }
    }

    #[test]
    fn videos_read_with_or_without_a_frame_rate() {
        let v = video("1280x720x64@29.97").expect("a video");
        assert_eq!(
            (v.width, v.height, v.frames, v.fps),
            (1280, 720, 64, Some(29.97))
        );
        let v = video(" 640 X 480 x 8 ").expect("a video");
        assert_eq!((v.frames, v.fps), (8, None));
        for bad in ["1280x720", "1280x720x", "1280x720x64@", "axbxc", "1x2x3x4"] {
            assert_eq!(video(bad).unwrap_err().field, "--video", "{bad}");
        }
    }
}
