//! `vramfit tokens --config FILE [--preprocessor FILE] --image WxH ...`: the
//! tokens each image costs a VLM, as its processor computes them.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use vramfit_core::hf_config::rule_from_configs;
use vramfit_core::image_tokens::{tokens, ImageTokens};
use vramfit_core::InputError;

use crate::output::fail;

#[derive(ClapArgs)]
pub struct Args {
    /// The VLM's config.json (qwen2_vl, qwen2_5_vl, qwen3_vl, internvl, gemma3, mllama).
    #[arg(long)]
    pub config: String,
    /// Its preprocessor_config.json (pixel limits, tile counts); the
    /// processor's defaults apply without it.
    #[arg(long)]
    pub preprocessor: Option<String>,
    /// An image as WIDTHxHEIGHT in pixels (repeatable, in order).
    #[arg(long = "image", required = true)]
    pub images: Vec<String>,
    /// One JSON object: images (width, height, tower_tokens,
    /// language_model_tokens) and total_language_model_tokens.
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

fn read(path: &str) -> Result<String, InputError> {
    std::fs::read_to_string(path).map_err(|e| InputError::new(path, format!("cannot read: {e}")))
}

fn counted(args: &Args) -> Result<Vec<ImageTokens>, InputError> {
    let preprocessor = args.preprocessor.as_deref().map(read).transpose()?;
    let rule = rule_from_configs(&read(&args.config)?, preprocessor.as_deref())?;
    args.images
        .iter()
        .map(|text| {
            let (w, h) = size(text)?;
            tokens(&rule, w, h)
        })
        .collect()
}

pub fn run(args: Args) -> ExitCode {
    let images = match counted(&args) {
        Ok(images) => images,
        Err(e) => return fail(&e),
    };
    let total: u64 = images.iter().map(|i| i.language_model_tokens).sum();
    if args.json {
        println!(
            "{}",
            serde_json::json!({"images": images, "total_language_model_tokens": total})
        );
    } else {
        for i in &images {
            println!(
                "{:>6} × {:<6} {:>7} tower tokens  {:>7} language-model tokens{}",
                i.width,
                i.height,
                i.tower_tokens,
                i.language_model_tokens,
                i.tiles.map_or(String::new(), |t| format!("  ({t} tiles)"))
            );
        }
        println!("total: {total} language-model tokens");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn image_sizes_read_as_people_write_them() {
        assert_eq!(size("1920x1080").ok(), Some((1920, 1080)));
        assert_eq!(size(" 640 X 480 ").ok(), Some((640, 480)));
        assert_eq!(size("336×336").ok(), Some((336, 336)));
        for bad in ["1920", "x", "axb", "-1x5"] {
            assert_eq!(size(bad).unwrap_err().field, "--image", "{bad}");
        }
    }
}
