//! T5Gemma (transformers 5.24 `T5GemmaForConditionalGeneration`): Gemma 2's
//! layers as an encoder and a decoder. Its parameter counts are in
//! `params_2025.rs`; here its cache after `generate()`, what its layers
//! save in training (`data/t5gemma/`, tiny random models on CPU) and what
//! the importer refuses.

mod common;

use common::data_dir;
use vramfit_core::hf_config::from_hf_config;

fn lines(file: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(data_dir().join("t5gemma").join(file))
        .expect("measurements")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn config(line: &serde_json::Value) -> String {
    let mut cfg = line["config"].clone();
    cfg["model_type"] = "t5gemma".into();
    cfg.to_string()
}

/// After `generate()` of N tokens from a source of S, every decoder layer
/// holds self-attention K/V over its N decoder tokens (a sliding layer at
/// most its window less one) and cross-attention K/V over the S source
/// tokens, `num_key_value_heads` wide.
#[test]
fn the_cache_holds_the_decoder_tokens_and_the_source() {
    let mut checked = 0;
    for line in lines("t5gemma_cache.jsonl") {
        let spec = from_hf_config(&config(&line)).expect("imports");
        let keys = ["self_attention_bytes", "cross_attention_bytes"];
        let (ours, measured) = common::generate_cache_bytes(&spec, &line, keys);
        assert_eq!(ours, measured, "{} {}", line["size"], line["dtype"]);
        checked += 1;
    }
    assert_eq!(checked, 24);
}

/// An encoder wider than the decoder (T5Gemma 9B-2B) is refused by field:
/// the estimate models one width.
#[test]
fn an_encoder_of_another_shape_is_refused_by_field() {
    let module = |h: u64| {
        serde_json::json!({"hidden_size": h, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 500})
    };
    let cfg =
        serde_json::json!({"model_type": "t5gemma", "encoder": module(96), "decoder": module(64)});
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(e.field, "config.json: encoder", "{e}");
    let cfg =
        serde_json::json!({"model_type": "t5gemma", "encoder": module(64), "decoder": module(64)});
    let spec = from_hf_config(&cfg.to_string()).expect("one shape imports");
    assert_eq!(
        (spec.encoder_layers, spec.layers, spec.hidden),
        (Some(2), 2, 64)
    );
}

/// What each encoder and decoder layer saves for backward, against the
/// layer differences measured with saved-tensor hooks (eager, the only
/// attention the class offers; fp32 and bf16, batch 1 and 2, sources of 32
/// and 64 with targets of 16 and 32; full and sliding layers, which save
/// the same; the class's default, dropout 0). A decoder layer adds
/// cross-attention between two Gemma norms, its k and v repeated to every
/// query head as eager attention does.
#[test]
fn each_layer_saves_what_transformers_saves() {
    use vramfit_core::activations::{act_fn, layer_terms, LayerShape};
    use vramfit_core::scenario::{Attention, Framework};
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in lines("t5gemma_layers.jsonl") {
        if line["variant"] != "default" || line["row_set"] == "wide_encoder" {
            continue;
        }
        let spec = from_hf_config(&config(&line)).expect("imports");
        let act_bytes = if line["dtype"] == "float32" { 4 } else { 2 };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let source = u128::from(line["source_len"].as_u64().expect("source"));
        let target = u128::from(line["target_len"].as_u64().expect("target"));
        let act = act_fn(&spec, Framework::Transformers);
        let ours = |seq, cross_seq| -> i128 {
            let l = LayerShape {
                attention: Attention::Eager,
                cross_seq,
                ..common::plain_layer_shape(&spec, batch, seq, act_bytes)
            };
            i128::try_from(
                layer_terms(&l, &spec, act)
                    .iter()
                    .map(|t| t.bytes)
                    .sum::<u128>(),
            )
            .unwrap()
        };
        let (encoder, decoder) = (ours(source, 0), ours(target, source));
        let want = |k: &str| i128::from(line[k].as_u64().expect("measured") as i64);
        if (encoder, decoder) != (want("encoder_layer_bytes"), want("decoder_layer_bytes")) {
            failures.push(format!(
                "{} {} b={batch} S={source} T={target}: encoder {encoder} vs {} ({:+}), decoder {decoder} vs {} ({:+})",
                line["row_set"],
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
    assert_eq!(checked, 24);
}
