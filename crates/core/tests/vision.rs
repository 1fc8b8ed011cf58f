//! Images in a VLM's sequence: LLaVA-1.5 turns a 336 px image into 576
//! tokens of its language model (24 × 24 patches of 14 px; the class token
//! stays in the CLIP tower), so an image costs what 576 text tokens cost in
//! the language model, plus the tower's own work.

use vramfit_core::estimate::estimate;
use vramfit_core::scenario::{Checkpointing, ModelSource, Scenario, TaskKind};
use vramfit_core::vision::image_tokens;

fn llava() -> Scenario {
    Scenario {
        model: ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into()),
        ..Scenario::default()
    }
}

fn peak(sc: &Scenario) -> u64 {
    estimate(sc).expect("estimates").gpus[0].peak_allocated_bytes
}

#[test]
fn a_336_px_image_is_577_tower_tokens_and_576_language_model_tokens() {
    let spec = vramfit_core::estimate::resolve_model(&llava().model).expect("catalog");
    let tower = spec.vision.expect("LLaVA has a vision tower");
    let tokens = image_tokens(&tower, None);
    assert_eq!((tokens.tower, tokens.language_model), (577, 576));
    // A 672 px image: 48 × 48 patches.
    assert_eq!(image_tokens(&tower, Some(672)).language_model, 2304);
}

#[test]
fn with_a_frozen_tower_images_cost_what_their_tokens_cost_as_text() {
    let mut with_images = llava();
    with_images.task = TaskKind::Training;
    with_images.training.seq_len = 512;
    with_images.training.images_per_sample = 4;
    with_images.training.freeze_vision = true;
    with_images.training.checkpointing = Checkpointing::Full;
    let mut as_text = with_images.clone();
    as_text.training.images_per_sample = 0;
    as_text.training.seq_len = 512 + 4 * 576;
    assert_eq!(peak(&with_images), peak(&as_text));
    // A trainable tower also keeps its own activations; checkpointed, as
    // transformers does the CLIP encoder's layers: each layer's input
    // (24 × 4·577·1024 × 2 B) plus one CLIP layer rebuilt in backward
    // (activations/tower.rs, measured on CPU: 8 × 2·T·h, 2 LayerNorms'
    // fp32 statistics 2 × 8·T, the logsumexp 4·16·T and quick_gelu's
    // three tensors of 2·T·i, T = 4·577).
    let mut trainable = with_images.clone();
    trainable.training.freeze_vision = false;
    assert!(peak(&trainable) > peak(&with_images));
    let activations = |sc: &Scenario| {
        estimate(sc).expect("estimates").gpus[0]
            .lines
            .iter()
            .filter(|l| l.part == vramfit_core::report::Part::Activations)
            .map(|l| l.bytes)
            .sum::<u64>()
    };
    let tokens = 4 * 577;
    let tokens_hidden_bytes = tokens * 1024 * 2;
    let rebuilt =
        8 * tokens_hidden_bytes + 2 * 8 * tokens + 4 * 16 * tokens + 3 * tokens * 4096 * 2;
    assert_eq!(
        activations(&trainable) - activations(&with_images),
        24 * tokens_hidden_bytes + rebuilt
    );
    let note = &estimate(&with_images).expect("estimates").notes[0];
    assert_eq!(note.code, "image_tokens");
    assert!(note.message.contains("2816"), "{}", note.message);
}

#[test]
fn an_image_in_a_prompt_fills_the_kv_cache_like_576_tokens() {
    let mut with_image = llava();
    with_image.task = TaskKind::Inference;
    with_image.inference.prompt_len = 64;
    with_image.inference.new_tokens = 128;
    with_image.inference.images_per_prompt = 1;
    let mut as_text = with_image.clone();
    as_text.inference.images_per_prompt = 0;
    as_text.inference.prompt_len = 64 + 576;
    assert_eq!(peak(&with_image), peak(&as_text));
    assert!(
        peak(&with_image)
            > peak(&{
                let mut text_only = with_image.clone();
                text_only.inference.images_per_prompt = 0;
                text_only
            })
    );
}

#[test]
fn too_many_image_tokens_name_the_field() {
    let mut sc = llava();
    sc.task = TaskKind::Training;
    sc.training.images_per_sample = 1024;
    sc.training.image_size = Some(65_536);
    let err = estimate(&sc).expect_err("2·10^10 tokens");
    assert_eq!(err.field, "training.images_per_sample");
    assert!(err.message.contains("up to 16777216"), "{}", err.message);
    // A model without a tower ignores the count.
    sc.model = ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into());
    assert!(estimate(&sc).is_ok());
}

/// A case as shared/measure/measure_cases.py writes one for
/// `_train("llava15-7b", 1, 512, images=4, opt="adamw_fused", gc=True)`:
/// the fields count the image tokens inside `seq_len`; the caveats say how
/// many images, their size, the tower's state and the fused optimizer.
const HARNESS_VLM_CASE: &str = r#"{"id": "vfm-example-llava15-7b-full-bf16-adamw_fused-mb1-s512-img4-visF-gc-sdpa-alloc",
 "reliability": "high", "framework": "transformers",
 "model": {"name": "llava-hf/llava-1.5-7b-hf", "arch": "llava"},
 "task": "training",
 "precision": {"weights": "bf16", "compute": "bf16", "mixed_precision": "pure"},
 "training": {"method": "full", "lora": null, "trainable_params": 6759555072, "optimizer": "adamw",
   "optimizer_state_dtype": "bf16", "optimizer_in_backward": false, "micro_batch": 1, "grad_accum": 1,
   "seq_len": 2816, "gradient_checkpointing": "full", "activation_offload": false,
   "chunked_loss": false, "compile": false, "packed": false},
 "inference": null, "attention": "sdpa",
 "parallel": {"gpus": 1, "strategy": "none", "tp": 1, "pp": 1, "offload": "none"},
 "gpu": {"name": null, "memory_bytes": null},
 "measured": {"metric": "peak_allocated", "bytes": 1, "as_published": "", "includes_cuda_context": false},
 "caveats": "measured as: 2 training steps; parameters bf16; torch.optim.AdamW(lr=1e-5, fused=True); VLM: 4 image(s) of 336x336 per sample = 2304 image tokens + 512 text tokens; vision tower frozen; projector trainable; image positions masked out of the loss (labels -100); gradient checkpointing on every layer"}"#;

#[test]
fn a_harness_vlm_case_reads_its_images_and_fused_optimizer_from_the_caveats() {
    let case: vramfit_core::cases::Case = serde_json::from_str(HARNESS_VLM_CASE).expect("case");
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    let t = &sc.training;
    assert_eq!(
        (t.images_per_sample, t.image_size, t.seq_len),
        (4, Some(336), 512)
    );
    assert!(t.freeze_vision && t.fused_optimizer);
    // The same run described by hand gives the same estimate.
    let mut by_hand = llava();
    by_hand.task = TaskKind::Training;
    by_hand.training.seq_len = 512;
    by_hand.training.images_per_sample = 4;
    by_hand.training.image_size = Some(336);
    by_hand.training.freeze_vision = true;
    by_hand.training.fused_optimizer = true;
    by_hand.training.trainable_params = Some(6_759_555_072);
    by_hand.training.checkpointing = Checkpointing::Full;
    let spec = vramfit_core::cases::case_model(&case).expect("catalog LLaVA");
    let from_case = vramfit_core::estimate::estimate_with_model(&sc, &spec).expect("estimates");
    assert_eq!(from_case.gpus[0].peak_allocated_bytes, peak(&by_hand));
}

#[test]
fn a_harness_generate_case_with_an_image_reads_its_text_prompt() {
    let case = HARNESS_VLM_CASE
        .replace(r#""task": "training""#, r#""task": "inference""#)
        .replace(
            r#""inference": null"#,
            r#""inference": {"batch": 4, "prompt_len": 640, "new_tokens": 128, "kv_cache_dtype": "bf16", "engine": "transformers"}"#,
        )
        .replace(
            "VLM: 4 image(s) of 336x336 per sample = 2304 image tokens + 512 text tokens",
            "model.generate greedy, batch 4, prompt 640 random tokens (1 image(s) x 576 image tokens + 64 text)",
        );
    let case: vramfit_core::cases::Case = serde_json::from_str(&case).expect("case");
    let sc = vramfit_core::cases::case_scenario(&case).expect("expressible");
    assert_eq!(
        (
            sc.inference.images_per_prompt,
            sc.inference.prompt_len,
            sc.inference.batch
        ),
        (1, 64, 4)
    );
}
