//! DiffusionGemma's generation step: the decoder over the whole canvas
//! and its sampler's fp32 logits over it (transformers 5.24's
//! `DiffusionGemmaGenerationMixin`: a step's new storage measured on CPU at
//! 7.00 × 4·b·C·V, beside the carried self-conditioning logits in the
//! model's dtype), so a step costs b·C·(V·(28 + s) + (4·h + 3·i)·s) bytes.

mod common;

use common::{import, part_bytes};
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
use vramfit_core::Part;

fn generation(canvas: u64) -> Scenario {
    let mut spec = import("variants_2026/diffusion_gemma__0.json");
    spec.canvas = Some(canvas);
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.inference.batch = 1;
    sc.inference.prompt_len = 64;
    sc.inference.new_tokens = 256;
    sc
}

#[test]
fn the_checkpoint_config_denoises_256_tokens_a_step() {
    let spec = import("variants_2026/diffusion_gemma__0.json");
    assert_eq!(spec.canvas, Some(256));
}

#[test]
fn a_step_costs_the_canvas_logits_seven_times_over_in_fp32() {
    let spec = import("variants_2026/diffusion_gemma__0.json");
    let (v, h, i) = (spec.vocab, spec.hidden, spec.intermediate);
    // bf16: s = 2 bytes
    let per_token = v * (28 + 2) + (4 * h + 3 * i) * 2;
    let at = |c| part_bytes(&generation(c), Part::Activations);
    assert_eq!(at(256) - at(128), 128 * per_token);
    assert_eq!(at(128) - at(64), 64 * per_token);
    // 256 tokens of a 262,144-token vocabulary: about 2 GB a step
    assert!(at(256) > 256 * v * 30, "{}", at(256));
}
