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
