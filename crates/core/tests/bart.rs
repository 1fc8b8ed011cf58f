//! The BART-family encoder-decoders (transformers 5.24: BART, mBART,
//! Marian, Pegasus, M2M-100, PLBart, BlenderBot, BlenderBot-Small, MVP):
//! their parameter counts are in `params_2025.rs`; here the cache
//! `generate()` leaves (`data/cache/seq2seq_cache.jsonl`: tiny random
//! models on CPU, fp32 and bf16, three batch and length pairs) and the
//! engines that do not run them.

mod common;

use common::{data_dir, resolved_config};
use vramfit_core::estimate::estimate;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::scenario::{Engine, ModelSource, Scenario, TaskKind};

/// After `generate()` of N tokens from a source of S, each decoder layer
/// holds self-attention K/V over N positions (the start token and N − 1
/// generated ones) and cross-attention K/V over the S source tokens:
/// 2·b·d·(N + S) bytes per layer, which is the cache line's
/// (source + new tokens) × bytes per token.
#[test]
fn the_cache_holds_the_decoder_tokens_and_the_source_as_generate_leaves_them() {
    let text = std::fs::read_to_string(data_dir().join("cache/seq2seq_cache.jsonl"))
        .expect("cache measurements");
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let model_type = line["model_type"].as_str().unwrap_or_default();
        let spec = from_hf_config(&resolved_config(model_type, &line["config"]))
            .unwrap_or_else(|e| panic!("{model_type}: {e}"));
        let (ours, measured) =
            common::generate_cache_bytes(&spec, &line, ["self_bytes", "cross_bytes"]);
        assert_eq!(ours, measured, "{model_type} {}", line["dtype"]);
        checked += 1;
    }
    assert!(checked >= 18, "{checked} measurements");
}

/// vLLM, SGLang and llama.cpp do not run these models: the estimate says
/// so, naming the engine field, instead of pricing a decoder alone.
#[test]
fn engines_without_these_models_are_refused_by_field() {
    let text = std::fs::read_to_string(data_dir().join("configs/variants_2026/m2m_100__0.json"))
        .expect("config");
    let spec = from_hf_config(&text).expect("imports");
    for engine in [Engine::Vllm, Engine::Sglang, Engine::LlamaCpp] {
        let mut sc = Scenario {
            model: ModelSource::Spec(Box::new(spec.clone())),
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        sc.inference.engine = engine;
        let e = estimate(&sc).expect_err("refused");
        assert_eq!(e.field, "inference.engine", "{engine:?}: {e}");
    }
    let sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    assert!(estimate(&sc).is_ok(), "transformers runs it");
}

/// The estimate's notes for a scenario on a model from `config`.
fn position_notes(config: &str, task: TaskKind, tokens: (u64, u64)) -> Vec<String> {
    let text = std::fs::read_to_string(data_dir().join(config)).expect("config");
    let spec = from_hf_config(&text).expect("imports");
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task,
        ..Scenario::default()
    };
    sc.training.seq_len = tokens.0;
    sc.inference.prompt_len = tokens.0;
    sc.inference.new_tokens = tokens.1;
    let report = estimate(&sc).expect("estimates");
    report
        .notes
        .into_iter()
        .filter(|n| n.code == "beyond_positions")
        .map(|n| n.message)
        .collect()
}

/// A sequence longer than a learned position table fails in transformers
/// whatever the memory: GPT-2's 1,024 rows for prompt and generated tokens
/// together; BART's encoder reads the prompt and its decoder the generated
/// tokens, each within 1,024; M2M-100's sinusoids grow, and rotary models
/// have no table.
#[test]
fn sequences_beyond_a_learned_position_table_are_named() {
    let gpt2 = "configs/gpt2-xl.json";
    assert!(position_notes(gpt2, TaskKind::Inference, (1000, 24)).is_empty());
    let notes = position_notes(gpt2, TaskKind::Inference, (1000, 25));
    assert!(
        notes.len() == 1 && notes[0].starts_with("1025 tokens"),
        "{notes:?}"
    );
    assert!(position_notes(gpt2, TaskKind::Training, (1024, 0)).is_empty());
    assert_eq!(position_notes(gpt2, TaskKind::Training, (1025, 0)).len(), 1);
    let bart = "configs/variants_2026/bart__0.json";
    assert!(position_notes(bart, TaskKind::Inference, (1024, 1024)).is_empty());
    let notes = position_notes(bart, TaskKind::Inference, (1024, 1025));
    assert!(
        notes.len() == 1 && notes[0].contains("generated"),
        "{notes:?}"
    );
    let notes = position_notes(bart, TaskKind::Training, (1025, 0));
    assert!(notes.len() == 1 && notes[0].contains("source"), "{notes:?}");
    let m2m = "configs/variants_2026/m2m_100__0.json";
    assert!(position_notes(m2m, TaskKind::Inference, (5000, 500)).is_empty());
    let llama = "configs/meta-llama__Llama-2-13b-hf.json";
    assert!(position_notes(llama, TaskKind::Inference, (8000, 500)).is_empty());
}

/// On the CPU, where these rows were measured, dropout saves its mask as a
/// full tensor in the activation dtype (`x * noise`), where CUDA's fused
/// dropout, which the estimate models, keeps one byte per element; and
/// LayerNorm keeps its mean and 1/std in the activation dtype, where CUDA
/// keeps fp32. Both differences, for `masks` masks of `elements` each and
/// `norms` norms over `tokens` tokens.
fn cpu_extra(masks: u128, elements: u128, norms: u128, tokens: u128, act_bytes: u128) -> i128 {
    let masks = masks * elements * (act_bytes - 1);
    let stats = norms * tokens * (8 - 2 * act_bytes);
    i128::try_from(masks).unwrap() - i128::try_from(stats).unwrap()
}

/// What each encoder and decoder layer saves for backward, against the
/// layer differences measured with saved-tensor hooks (`data/bart/`: BART,
/// mBART, Marian and M2M-100, post- and pre-norm, GELU and ReLU, with their
/// default dropout and without, SDPA and eager, fp32 and bf16, batch 1 and
/// 2, sources of 32 and 64 with targets of 16 and 32). Left out: M2M-100's
/// SDPA rows with its attention-probability dropout, which the CPU runs
/// through SDPA's fp32 math path (CUDA's fused kernels drop in place).
#[test]
fn each_layer_saves_what_transformers_saves() {
    use vramfit_core::activations::{act_fn, layer_terms, LayerShape};
    use vramfit_core::scenario::{Attention, Framework};
    let text =
        std::fs::read_to_string(data_dir().join("bart/bart_layers.jsonl")).expect("measurements");
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let probabilities_dropped =
            line["config"]["model_type"] == "m2m_100" && line["variant"] == "default";
        if probabilities_dropped && line["attn"] == "sdpa" {
            continue;
        }
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let act_bytes = if line["dtype"] == "float32" { 4 } else { 2 };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let source = u128::from(line["source_len"].as_u64().expect("source"));
        let target = u128::from(line["target_len"].as_u64().expect("target"));
        let dropout = line["variant"] == "default";
        let attention = if line["attn"] == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        };
        let act = act_fn(&spec, Framework::Transformers);
        let shape = |seq, cross_seq| LayerShape {
            attention,
            cross_seq,
            dropout,
            ..common::plain_layer_shape(&spec, batch, seq, act_bytes)
        };
        let ours = |l: &LayerShape| -> i128 {
            i128::try_from(
                layer_terms(l, &spec, act)
                    .iter()
                    .map(|t| t.bytes)
                    .sum::<u128>(),
            )
            .unwrap()
        };
        let h = u128::from(spec.hidden);
        let masks = |n: u128| if dropout { n } else { 0 };
        // the eager attention's probability masks, full tensors on the CPU too
        let a = u128::from(spec.heads);
        let probability_masks = |scores: u128| -> i128 {
            if probabilities_dropped {
                i128::try_from(scores * (act_bytes - 1)).unwrap()
            } else {
                0
            }
        };
        let encoder = ours(&shape(source, 0))
            + cpu_extra(masks(2), batch * source * h, 2, batch * source, act_bytes)
            + probability_masks(a * batch * source * source);
        let decoder = ours(&shape(target, source))
            + cpu_extra(masks(3), batch * target * h, 3, batch * target, act_bytes)
            + probability_masks(a * batch * target * (target + source));
        let want = |k: &str| i128::from(line[k].as_u64().expect("measured") as i64);
        if (encoder, decoder) != (want("encoder_layer_bytes"), want("decoder_layer_bytes")) {
            failures.push(format!(
                "{} {} {} {} b={batch} S={source} T={target}: encoder {encoder} vs {}, decoder {decoder} vs {}",
                line["config"]["model_type"],
                line["variant"],
                line["attn"],
                line["dtype"],
                want("encoder_layer_bytes"),
                want("decoder_layer_bytes")
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
    assert_eq!(checked, 120);
}

/// An encoder's forward reads its input alone: BERT's 512 positions bound
/// the prompt, whatever the new tokens (which mean nothing to it).
#[test]
fn an_encoder_is_bounded_by_its_input_alone() {
    let run = |prompt: u64, new: u64| -> usize {
        let mut sc = Scenario {
            model: ModelSource::Catalog("bert-large-uncased".into()),
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        sc.inference.prompt_len = prompt;
        sc.inference.new_tokens = new;
        let report = estimate(&sc).expect("estimates");
        report
            .notes
            .iter()
            .filter(|n| n.code == "beyond_positions")
            .count()
    };
    assert_eq!(run(512, 128), 0);
    assert_eq!(run(513, 0), 1);
}
