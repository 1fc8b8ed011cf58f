//! Whisper against transformers 5.24 (torch 2.15, CPU): its parameter
//! counts are in `params_2025.rs` (`hf_variants_2026.csv`); here what each
//! encoder and decoder layer saves for backward (`data/whisper/`, read off
//! layer differences of tiny random-weight models trained on labels), and
//! the cross-attention cache over the encoder's frames.

mod common;

use common::{data_dir, one_gpu, plain_layer_shape};
use vramfit_core::activations::{act_fn, encoder_stem_bytes, layer_terms, LayerShape};
use vramfit_core::cross_attention::cross_cache_bytes_per_sequence;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes};
use vramfit_core::precision::Dtype;
use vramfit_core::scenario::{Attention, Engine, Framework, ModelSource, Scenario, TaskKind};

#[test]
fn each_layer_saves_what_transformers_saves() {
    let text = std::fs::read_to_string(data_dir().join("whisper/whisper_layers.jsonl"))
        .expect("measurements");
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let frames = u128::from(spec.encoder_tokens.expect("fixed frames"));
        let act_bytes = if line["dtype"] == "float32" { 4 } else { 2 };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let labels = u128::from(line["labels"].as_u64().expect("labels"));
        let attention = if line["attn"] == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        };
        let act = act_fn(&spec, Framework::Transformers);
        let shape = |seq, cross_seq| LayerShape {
            attention,
            cross_seq,
            ..plain_layer_shape(&spec, batch, seq, act_bytes)
        };
        let ours =
            |l: &LayerShape| -> u128 { layer_terms(l, &spec, act).iter().map(|t| t.bytes).sum() };
        let encoder =
            ours(&shape(frames, 0)) - common::cpu_norm_stats(2, batch * frames, act_bytes);
        let decoder =
            ours(&shape(labels, frames)) - common::cpu_norm_stats(3, batch * labels, act_bytes);
        let want = |k: &str| u128::from(line[k].as_u64().expect("measured"));
        if (encoder, decoder) != (want("encoder_layer_bytes"), want("decoder_layer_bytes")) {
            failures.push(format!(
                "{} {} b={batch} t={labels} variant {}: encoder {encoder} vs {}, decoder {decoder} vs {}",
                line["attn"],
                line["dtype"],
                line["variant"],
                want("encoder_layer_bytes"),
                want("decoder_layer_bytes")
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, 32);
}

fn large_v3() -> vramfit_core::model::ModelSpec {
    let config = serde_json::json!({
        "model_type": "whisper", "d_model": 1280, "encoder_layers": 32, "decoder_layers": 32,
        "encoder_attention_heads": 20, "decoder_attention_heads": 20, "encoder_ffn_dim": 5120,
        "decoder_ffn_dim": 5120, "vocab_size": 51866, "num_mel_bins": 128,
        "max_source_positions": 1500, "max_target_positions": 448
    });
    from_hf_config(&config.to_string()).expect("imports")
}

/// The engines whose accounting here has no cross-attention cache or no
/// Whisper at all refuse it by field instead of estimating a decoder alone;
/// transformers estimates it with the cross cache.
#[test]
fn engines_without_its_cache_refuse_it() {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(large_v3())),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    for engine in [Engine::Vllm, Engine::Sglang, Engine::LlamaCpp] {
        sc.inference.engine = engine;
        let err = vramfit_core::estimate(&sc).expect_err("refused");
        assert_eq!(err.field, "inference.engine", "{engine:?}: {err}");
    }
    sc.inference.engine = Engine::Transformers;
    let e = vramfit_core::estimate(&sc).expect("estimates");
    let cross = e.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == vramfit_core::Part::CrossAttentionCache)
        .expect("a cross-attention line");
    assert_eq!(cross.bytes, sc.inference.batch * 245_760_000);
}

/// Whisper-large-v3's shape: every decoder layer keeps K and V over the
/// encoder's 1,500 frames for the whole generation (`EncoderDecoderCache`'s
/// cross-attention cache), whatever the clip's length.
#[test]
fn the_cross_cache_holds_every_frame_on_every_decoder_layer() {
    let spec = large_v3();
    let (bytes, formula) =
        cross_cache_bytes_per_sequence(&spec, Dtype::Bf16, (1, 1), 0).expect("a cross cache");
    // 32 layers × 2 (K, V) × 1500 frames × 1280 × 2 B
    assert_eq!(bytes, 245_760_000, "{formula}");
    assert!(formula.contains("1500 encoder frames"), "{formula}");
    // two pipeline stages hold half the layers each
    let (half, _) = cross_cache_bytes_per_sequence(&spec, Dtype::Bf16, (1, 2), 0).expect("cache");
    assert_eq!(half, 122_880_000);
}

/// `generate()`'s cache objects: the self-attention cache over the decoder
/// tokens fed (the prompt and every new token but the last) and the
/// cross-attention cache over all 1,500 frames, the same for a 10 s clip as
/// for 30 s (`data/whisper/whisper_cache.jsonl`, 48 runs).
#[test]
fn the_caches_equal_the_ones_generate_holds() {
    let text = std::fs::read_to_string(data_dir().join("whisper/whisper_cache.jsonl"))
        .expect("measurements");
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let dtype = if line["dtype"] == "float32" {
            Dtype::Fp32
        } else {
            Dtype::Bf16
        };
        let get = |k: &str| u128::from(line[k].as_u64().expect("measured"));
        let batch = get("batch");
        let (per_token, _) = kv_bytes_per_token(&spec, dtype, &one_gpu(spec.layers));
        let tokens = get("self_tokens");
        let own = kv_cache_bytes(
            &spec,
            &one_gpu(spec.layers),
            (per_token, dtype),
            batch,
            (tokens, tokens),
        );
        let (cross, _) =
            cross_cache_bytes_per_sequence(&spec, dtype, (1, 1), 0).expect("cross cache");
        assert_eq!(
            (own, batch * cross),
            (get("self_bytes"), get("cross_bytes")),
            "{row}"
        );
        checked += 1;
    }
    assert_eq!(checked, 48);
}

/// Outside the layers, a fully trained Whisper keeps its stem's tensors
/// and the encoder's final norm and output: the (1, 1)-layer model's count
/// less its two layers and the decoder's head (the token ids, positions and
/// labels, 24 B a token; its final norm's input and statistics and the
/// head's input; the log-softmax over the vocabulary; the loss's scalar).
/// fp32 rows, where CPU and CUDA keep LayerNorm statistics alike.
#[test]
fn the_stem_and_encoder_output_are_what_the_rest_of_the_model_keeps() {
    let text = std::fs::read_to_string(data_dir().join("whisper/whisper_layers.jsonl"))
        .expect("measurements");
    let mut checked = 0;
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        if line["dtype"] != "float32" {
            continue;
        }
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let get = |k: &str| u128::from(line[k].as_u64().expect("measured"));
        let (batch, labels) = (get("batch"), get("labels"));
        let outside =
            get("one_layer_each_bytes") - get("encoder_layer_bytes") - get("decoder_layer_bytes");
        let (h, vocab) = (u128::from(spec.hidden), u128::from(spec.vocab));
        let head = batch * labels * (24 + 2 * h * 4 + 2 * 4 + vocab * 4) + 4;
        assert_eq!(
            encoder_stem_bytes(&spec, batch, 4, true),
            outside - head,
            "{row}"
        );
        checked += 1;
    }
    assert_eq!(checked, 16);
}

/// A config that leaves keys out takes WhisperConfig's defaults, as
/// transformers fills them: the bare model type is whisper-tiny, whose
/// count transformers builds as 37,760,640 (`hf_variants_2026.csv`, whisper__0).
#[test]
fn a_bare_config_is_the_class_defaults() {
    let spec = from_hf_config(r#"{"model_type": "whisper"}"#).expect("imports");
    assert_eq!(spec.param_counts().total, 37_760_640);
    assert_eq!(spec.encoder_tokens, Some(1500));
}

/// `attribute_map`'s names win when a config gives both: transformers sets
/// `num_hidden_layers` and `num_attention_heads` after the fields, so this
/// model has 3 encoder layers, not 2 (217,152 parameters, counted by
/// transformers 5.24 on the meta device).
#[test]
fn the_attribute_map_names_win_over_the_fields() {
    let config = r#"{"model_type": "whisper", "encoder_layers": 2, "num_hidden_layers": 3,
        "d_model": 64, "encoder_attention_heads": 4, "num_attention_heads": 8,
        "decoder_attention_heads": 4, "decoder_layers": 2, "encoder_ffn_dim": 96,
        "decoder_ffn_dim": 80, "vocab_size": 300, "num_mel_bins": 20,
        "max_source_positions": 50, "max_target_positions": 40,
        "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 1}"#;
    let spec = from_hf_config(config).expect("imports");
    assert_eq!(spec.encoder_layers, Some(3));
    assert_eq!(spec.total_params(), 217_152);
}
