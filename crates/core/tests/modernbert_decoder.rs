//! ModernBERT's decoder against transformers 5.24: what each layer saves
//! for backward, measured on CPU (`data/modernbert_decoder/`: tiny
//! random-weight models, SDPA and eager, fp32 and bf16, full and sliding
//! layers, with and without biases).

mod common;

use vramfit_core::activations::{act_fn, layer_terms, LayerShape};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::scenario::{Attention, Framework};

#[test]
fn each_layer_saves_what_transformers_saves() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (line, _) in common::json_lines("modernbert_decoder/modernbert_decoder_layers.jsonl") {
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let act_bytes: u128 = if line["dtype"] == "float32" { 4 } else { 2 };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let seq = u128::from(line["seq"].as_u64().expect("seq"));
        let attention = if line["attn"] == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        };
        // every row's sequence is longer than the window (8 tokens)
        let shape = LayerShape {
            attention,
            window_mask: line["added_layer_type"] == "sliding_attention",
            ..common::plain_layer_shape(&spec, batch, seq, act_bytes)
        };
        let ours: u128 = layer_terms(&shape, &spec, act_fn(&spec, Framework::Transformers))
            .iter()
            .map(|t| t.bytes)
            .sum();
        // two LayerNorms, their statistics in the activation dtype on CPU
        let cpu_stats = common::cpu_norm_stats(2, batch * seq, act_bytes);
        let want = u128::from(line["layer_bytes"].as_u64().expect("measured"));
        if ours - cpu_stats != want {
            failures.push(format!(
                "{} {} {} b={batch} s={seq} {}: ours {} vs {want}",
                line["variant"],
                line["attn"],
                line["dtype"],
                line["added_layer_type"],
                ours - cpu_stats
            ));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(checked, 64);
}

/// In a training estimate, transformers' sliding layers keep SDPA's mask
/// once the sequence reaches their window (below it transformers passes
/// none, `_ignore_causal_mask_sdpa`); litgpt and torchtune build their own
/// attention and are left alone. The small config has 3 sliding layers of
/// 5, window 8.
#[test]
fn sliding_layers_keep_a_mask_from_their_window_on() {
    use vramfit_core::scenario::{Checkpointing, ModelSource, Scenario, TaskKind};
    use vramfit_core::Part;
    let config = std::fs::read_to_string(
        common::data_dir().join("configs/variants_2026/modernbert-decoder__2.json"),
    )
    .expect("config");
    let spec = from_hf_config(&config).expect("imports");
    assert_eq!(
        spec.sliding_window.as_ref().map(|w| (w.window, w.layers)),
        Some((8, 3))
    );
    let activations = |spec: &vramfit_core::model::ModelSpec, seq: u64, framework| {
        let mut sc = Scenario {
            model: ModelSource::Spec(Box::new(spec.clone())),
            task: TaskKind::Training,
            attention: Attention::Sdpa,
            ..Scenario::default()
        };
        sc.training.seq_len = seq;
        sc.training.micro_batch = 2;
        sc.training.checkpointing = Checkpointing::Off;
        sc.training.framework = framework;
        common::part_bytes(&sc, Part::Activations)
    };
    let mut unwindowed = spec.clone();
    unwindowed.sliding_window = None;
    // bf16: 2 bytes a mask entry, 2 sequences
    for (seq, masks) in [(64, 3), (8, 3), (7, 0)] {
        let grew = activations(&spec, seq, Framework::Transformers)
            - activations(&unwindowed, seq, Framework::Transformers);
        // the layers' mean is rounded up per layer: under 5 bytes over
        let want = masks * 2 * 2 * seq.pow(2);
        assert!(
            grew >= want && grew - want < 5,
            "seq {seq}: {grew} vs {want}"
        );
    }
    assert_eq!(
        activations(&spec, 64, Framework::Litgpt),
        activations(&unwindowed, 64, Framework::Litgpt)
    );
}

/// A transformers SDPA prefill of a prompt as long as the window holds one
/// sliding layer's additive mask, e·b·p², at a time; a shorter prompt none.
#[test]
fn an_sdpa_prefill_over_the_window_holds_one_mask() {
    use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
    use vramfit_core::Part;
    let config = std::fs::read_to_string(
        common::data_dir().join("configs/variants_2026/modernbert-decoder__2.json"),
    )
    .expect("config");
    let spec = from_hf_config(&config).expect("imports");
    // FlashAttention windows in the kernel: the same estimate but the mask
    let activations = |attention, prompt: u64| {
        let mut sc = Scenario {
            model: ModelSource::Spec(Box::new(spec.clone())),
            task: TaskKind::Inference,
            attention,
            ..Scenario::default()
        };
        sc.inference.prompt_len = prompt;
        sc.inference.new_tokens = 1;
        sc.inference.batch = 3;
        common::part_bytes(&sc, Part::Activations)
    };
    // bf16, 3 prompts
    for (prompt, masks) in [(2048, 1), (8, 1), (7, 0)] {
        assert_eq!(
            activations(Attention::Sdpa, prompt) - activations(Attention::Flash, prompt),
            masks * 2 * 3 * prompt * prompt,
            "prompt {prompt}"
        );
    }
}
