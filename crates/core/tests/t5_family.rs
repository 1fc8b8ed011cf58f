//! T5, UMT5, LongT5 and Switch Transformers against transformers 5.24: what
//! each encoder and decoder layer saves for backward and the cache
//! `generate()` leaves, measured on CPU (`data/t5/`).

mod common;

use vramfit_core::activations::{act_fn, encoder_score_pairs, layer_terms, LayerShape};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::scenario::{Attention, Framework};

/// On the CPU, where these rows were measured, dropout saves its mask as a
/// full tensor in the activation dtype (`x * noise`), where CUDA's fused
/// dropout, which the estimate models, keeps one byte per element.
fn cpu_masks(masks: u128, elements: u128, act_bytes: u128) -> i128 {
    i128::try_from(masks * elements * (act_bytes - 1)).unwrap()
}

fn rows() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(common::data_dir().join("t5/t5_layers.jsonl"))
        .expect("measurements");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

#[test]
fn each_layer_saves_what_transformers_saves() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in rows() {
        let model_type = line["config"]["model_type"].as_str().expect("type");
        // Switch's sparse layers route every token at capacity 64 (4
        // experts, at most 64 tokens a sequence); at capacity 8 some are
        // dropped, which the estimate, counting all as kept, leaves out
        let routed = line["layer_kind"] == "sparse";
        if routed && line["config"]["expert_capacity"] != 64 {
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
        let experts = line["config"]["num_experts"].as_u64().unwrap_or(0);
        let shape = |seq, cross_seq| LayerShape {
            attention,
            cross_seq,
            dropout,
            routed_experts: if routed { u128::from(experts) } else { 0 },
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
        // Dropout's masks are full tensors on the CPU: the residual and
        // feed-forward masks, and the probabilities' (fp32 on SDPA's math
        // path, which T5's self-attention takes for its bias's gradient).
        // With dropout, the CPU runs cross-attention on the math path too,
        // where CUDA's fused kernel drops in place: those decoder rows are
        // left out.
        let cross_on_math_path = dropout && attention == Attention::Sdpa;
        let masks = |n: u128| if dropout { n } else { 0 };
        let a = u128::from(spec.heads);
        let prob_mask = if attention == Attention::Sdpa {
            4
        } else {
            act_bytes
        };
        let probs = |scores: u128| cpu_masks(masks(1), a * batch * scores, prob_mask);
        let (h, i) = (u128::from(spec.hidden), u128::from(spec.intermediate));
        let encoder = ours(&shape(source, 0))
            + cpu_masks(masks(2), batch * source * h, act_bytes)
            + cpu_masks(masks(1), batch * source * i, act_bytes)
            + probs(encoder_score_pairs(&spec, source));
        let decoder = ours(&shape(target, source))
            + cpu_masks(masks(3), batch * target * h, act_bytes)
            + cpu_masks(masks(1), batch * target * i, act_bytes)
            + probs(target * target)
            + probs(target * source);
        let want = |k: &str| i128::from(line[k].as_u64().expect("measured") as i64);
        let decoder_checked = if cross_on_math_path {
            want("decoder_layer_bytes")
        } else {
            decoder
        };
        if (encoder, decoder_checked) != (want("encoder_layer_bytes"), want("decoder_layer_bytes"))
        {
            failures.push(format!(
                "{model_type} {} {} {} {} b={batch} S={source} T={target}: encoder {encoder} vs {} ({:+}), decoder {decoder} vs {} ({:+})",
                line["config"]["feed_forward_proj"],
                line["variant"],
                line["attn"],
                line["dtype"],
                want("encoder_layer_bytes"),
                encoder - want("encoder_layer_bytes"),
                want("decoder_layer_bytes"),
                decoder - want("decoder_layer_bytes"),
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
    assert_eq!(checked, 192);
}

/// After `generate()` of N tokens from a source of S, each of UMT5's,
/// LongT5's and Switch's decoder layers holds self-attention K/V over N
/// positions and
/// cross-attention K/V over the S source tokens, as T5's
/// (`data/t5/t5_cache.jsonl`: tiny random models on CPU, fp32 and bf16).
#[test]
fn the_cache_holds_the_decoder_tokens_and_the_source() {
    let text = std::fs::read_to_string(common::data_dir().join("t5/t5_cache.jsonl"))
        .expect("cache measurements");
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let (ours, measured) = common::generate_cache_bytes(
            &spec,
            &line,
            ["self_attention_bytes", "cross_attention_bytes"],
        );
        assert_eq!(ours, measured, "{row}");
        checked += 1;
    }
    assert_eq!(checked, 48);
}
