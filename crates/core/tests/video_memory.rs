//! A video in a VLM's sample or prompt: its frames cost the tokens the
//! model's video processor makes of them (`vramfit_core::video_tokens`,
//! checked against transformers' video processors), in the language
//! model's sequence and in the tower. Qwen2.5-VL-7B from its config.

mod common;

use common::data_dir;
use vramfit_core::estimate::estimate;
use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};
use vramfit_core::video_tokens::{video_tokens, Video, VideoRule};

fn qwen25_vl() -> Scenario {
    let path = data_dir().join("configs/vlm/Qwen__Qwen2.5-VL-7B-Instruct.json");
    let text = std::fs::read_to_string(path).expect("fixture");
    let spec = vramfit_core::hf_config::from_hf_config(&text).expect("imports");
    Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        ..Scenario::default()
    }
}

fn peak(sc: &Scenario) -> u64 {
    estimate(sc).expect("estimates").gpus[0].peak_allocated_bytes
}

#[test]
fn a_video_costs_its_processors_tokens_in_the_sequence() {
    // Qwen2VLVideoProcessor: 64 frames of 640 × 360, patch 14, merge 2, two frames per patch.
    let expected = video_tokens(
        &VideoRule::qwen2(14, 2, 2),
        &Video {
            width: 640,
            height: 360,
            frames: 64,
            fps: None,
        },
    )
    .expect("tokens");
    let mut with_video = qwen25_vl();
    with_video.task = TaskKind::Training;
    with_video.training.method = Method::Lora;
    with_video.training.seq_len = 512;
    with_video.training.freeze_vision = true;
    with_video.video_frames = Some(64);
    (with_video.image_width, with_video.image_height) = (Some(640), Some(360));
    let mut as_text = with_video.clone();
    (
        as_text.video_frames,
        as_text.image_width,
        as_text.image_height,
    ) = (None, None, None);
    as_text.training.seq_len = 512 + expected.language_model_tokens;
    assert_eq!(expected.language_model_tokens, 9568);
    assert_eq!(peak(&with_video), peak(&as_text));
    let note = &estimate(&with_video).expect("estimates").notes[0];
    assert!(
        note.message.contains("9568 video tokens"),
        "{}",
        note.message
    );
    // A trained tower reads every frame's patches: 38,272 of them.
    let mut trained = with_video.clone();
    trained.training.freeze_vision = false;
    assert!(peak(&trained) > peak(&with_video));
    assert_eq!(expected.tower_tokens, 38_272);
}

#[test]
fn a_model_without_a_video_processor_refuses_frames_by_name() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into()),
        ..Scenario::default()
    };
    sc.video_frames = Some(8);
    let err = estimate(&sc).unwrap_err();
    assert_eq!(err.field, "video_frames");
    // The processor's own limits are refused by their field too.
    let mut sc = qwen25_vl();
    sc.video_frames = Some(8);
    (sc.image_width, sc.image_height) = (Some(4000), Some(10));
    let err = estimate(&sc).unwrap_err();
    assert_eq!(err.field, "image_width", "{err}");
}
