//! Video tokens against transformers' own video processors, run on
//! synthetic videos (`data/video/video_tokens.jsonl`, made by
//! `measure_video_tokens.py` beside it: transformers 5.24, torchvision):
//! every grid equal, and every clip the processor refuses refused here.

use vramfit_core::video_tokens::{video_tokens, Video, VideoRule};

#[test]
fn every_measured_video_gets_the_processors_grid() {
    let text = include_str!("data/video/video_tokens.jsonl");
    let (mut equal, mut refused) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("a JSON row");
        let n = |k: &str| row[k].as_u64().unwrap_or_else(|| panic!("{k} in {line}"));
        let rule = match row["processor"].as_str() {
            Some("qwen2_vl") => VideoRule::qwen2(14, 2, 2),
            Some("qwen3_vl") => VideoRule::qwen3(16, 2, 2),
            other => panic!("processor {other:?}"),
        };
        let video = Video {
            width: n("width"),
            height: n("height"),
            frames: n("frames"),
            fps: row["fps"].as_f64(),
        };
        let got = video_tokens(&rule, &video);
        if row.get("error").is_some() {
            assert!(
                got.is_err(),
                "{line}: the processor refused, we gave {got:?}"
            );
            refused += 1;
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(
            (got.grid_t, got.grid_h, got.grid_w),
            (n("grid_t"), n("grid_h"), n("grid_w")),
            "{line}"
        );
        assert_eq!(got.tower_tokens, got.grid_t * got.grid_h * got.grid_w);
        assert_eq!(got.language_model_tokens, got.tower_tokens / 4);
        equal += 1;
    }
    assert!(
        equal >= 200 && refused >= 10,
        "{equal} equal, {refused} refused"
    );
}

#[test]
fn absurd_videos_are_refused_by_field() {
    let rule = VideoRule::qwen2(14, 2, 2);
    let video = |width, height, frames, fps| Video {
        width,
        height,
        frames,
        fps,
    };
    for (v, field) in [
        (video(0, 480, 8, None), "video width"),
        (video(640, 0, 8, None), "video height"),
        (video(640, 480, 0, None), "video frames"),
        (video(1_000_000, 480, 8, None), "video width"),
        (video(640, 480, 8, Some(f64::NAN)), "video fps"),
        (video(640, 480, 8, Some(0.0)), "video fps"),
        (video(1, 100_000, 8, None), "video height"),
        (video(30_000, 100, 8, None), "video width"),
    ] {
        let e = video_tokens(&rule, &v).unwrap_err();
        assert_eq!(e.field, field, "{v:?}: {e}");
    }
    // A long video at the largest sizes does not overflow.
    let big = video_tokens(&rule, &video(65_536, 65_536, 1 << 20, None)).expect("counts");
    assert_eq!(big.grid_t, 1 << 19);
}

/// Video-LLaVA's processor on synthetic videos
/// (`data/video/video_llava_tokens.jsonl`, `measure_video_llava.py`):
/// every frame kept and cropped to the tower's square, `frames × (side² +
/// 1)` placeholders for any frame size, at three tower squares.
#[test]
fn video_llava_writes_every_frames_patches_and_class_token() {
    let text = include_str!("data/video/video_llava_tokens.jsonl");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("a JSON row");
        let n = |k: &str| row[k].as_u64().unwrap_or_else(|| panic!("{k} in {line}"));
        let rule = VideoRule::Frames {
            side: n("crop") / n("patch"),
        };
        let video = Video {
            width: n("width"),
            height: n("height"),
            frames: n("frames"),
            fps: None,
        };
        let got = video_tokens(&rule, &video).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(got.language_model_tokens, n("video_tokens"), "{line}");
        assert_eq!(got.tower_tokens, n("video_tokens"), "{line}");
        assert_eq!(
            got.frames_used,
            row["pixel_values_videos"][1].as_u64().unwrap()
        );
        checked += 1;
    }
    assert_eq!(checked, 60);
}

/// A Video-LLaVA config imports with its frames rule, and a video in the
/// scenario lengthens the language model's sequence by its tokens and runs
/// each frame through the tower.
#[test]
fn a_video_llava_estimate_counts_its_frames() {
    use vramfit_core::estimate::estimate_with_model;
    use vramfit_core::hf_config::from_hf_config;
    use vramfit_core::scenario::{Scenario, TaskKind};
    let config = include_str!("data/configs/variants_2026/video_llava__0.json");
    let spec = from_hf_config(config).expect("imports");
    assert_eq!(spec.video, Some(vramfit_core::model::VideoFamily::Frames));
    let mut sc = Scenario {
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.inference.prompt_len = 100;
    sc.inference.new_tokens = 1;
    let without = estimate_with_model(&sc, &spec).expect("estimates");
    sc.video_frames = Some(8);
    let with = estimate_with_model(&sc, &spec).expect("estimates");
    let kv = |e: &vramfit_core::report::Estimate| e.headline_gpu().kv_bytes_per_token;
    assert_eq!(kv(&with), kv(&without));
    // 2,056 more tokens of KV cache (8 frames × 257) at least.
    let grown =
        with.headline_gpu().peak_allocated_bytes - without.headline_gpu().peak_allocated_bytes;
    assert!(grown >= 2056 * kv(&with), "{grown}");
}
