//! T5Gemma 2 (transformers 5.24 `T5Gemma2ForConditionalGeneration`): Gemma
//! 3's layers as an encoder with Gemma 3's SigLIP tower and a decoder whose
//! merged attention reads the encoder. Its parameter counts, its cache
//! after `generate()` and what its layers save in training, against the
//! measurements in `data/t5gemma2/` (meta device; tiny random models on CPU).

mod common;

use vramfit_core::hf_config::from_hf_config;

fn lines(file: &str) -> Vec<serde_json::Value> {
    common::json_lines(&format!("t5gemma2/{file}"))
        .into_iter()
        .map(|(line, _)| line)
        .collect()
}

fn config(line: &serde_json::Value) -> String {
    let mut cfg = line["config"].clone();
    cfg["model_type"] = "t5gemma2".into();
    cfg.to_string()
}

/// The class defaults, the three checkpoints' shapes and four variants
/// (untied, a deeper encoder, attention biases, the tower left to SigLIP's
/// defaults) count what transformers instantiates, to the parameter, the
/// vision tower included.
#[test]
fn parameters_equal_what_transformers_builds() {
    let mut checked = 0;
    for line in lines("t5gemma2_params.jsonl") {
        let spec = from_hf_config(&config(&line)).expect("imports");
        let counts = spec.param_counts();
        assert_eq!(
            counts.total,
            line["params"].as_u64().expect("count"),
            "{}",
            line["name"]
        );
        let tower = spec.vision.as_ref().expect("a tower").params;
        assert_eq!(
            tower,
            line["vision_tower_params"].as_u64(),
            "{}",
            line["name"]
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

/// After `generate()` of N tokens from a source of S (an image's tokens
/// among them), every decoder layer holds its own keys and values over the
/// N decoder tokens (a sliding layer its window less one) and the
/// encoder's over the S source tokens.
#[test]
fn the_cache_holds_the_decoder_tokens_and_the_source() {
    let mut checked = 0;
    for line in lines("t5gemma2_cache.jsonl") {
        let spec = from_hf_config(&config(&line)).expect("imports");
        let keys = ["self_attention_bytes", "cross_attention_bytes"];
        let (ours, measured) = common::generate_cache_bytes(&spec, &line, keys);
        assert_eq!(ours, measured, "{} {}", line["size"], line["dtype"]);
        checked += 1;
    }
    assert_eq!(checked, 32);
}

/// An encoder whose heads differ from the decoder's is refused by field;
/// one of another depth imports.
#[test]
fn an_encoder_of_another_shape_is_refused_by_field() {
    let stack = |heads: u64, layers: u64| {
        serde_json::json!({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 500})
    };
    let cfg = serde_json::json!({"model_type": "t5gemma2",
        "encoder": {"text_config": stack(8, 2)}, "decoder": stack(4, 2)});
    let e = from_hf_config(&cfg.to_string()).expect_err("refused");
    assert_eq!(
        e.field, "config.json: encoder.text_config.hidden_size",
        "{e}"
    );
    let cfg = serde_json::json!({"model_type": "t5gemma2",
        "encoder": {"text_config": stack(4, 6)}, "decoder": stack(4, 2)});
    let spec = from_hf_config(&cfg.to_string()).expect("another depth imports");
    assert_eq!((spec.encoder_layers, spec.layers), (Some(6), 2));
    assert!(spec.merged_cross_attention);
}

/// What each encoder and decoder layer saves for backward, against the
/// layer differences measured with saved-tensor hooks (eager and SDPA,
/// fp32 and bf16, batch 1 and 2, three source and target lengths; one
/// key-value head, whose repeat SDPA keeps as a view; PEFT LoRA on q and v
/// or on q, k, v and o over the frozen model). A decoder layer's
/// merged attention keeps its keys and values over the target and the
/// source, the source's k-normed, and SDPA the mask over both.
#[test]
fn each_layer_saves_what_transformers_saves() {
    use vramfit_core::activations::{act_fn, layer_terms, GradNeeds, LayerShape, LoraActs};
    use vramfit_core::scenario::{Attention, Framework, LoraTarget};
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in lines("t5gemma2_layers.jsonl") {
        // PEFT's adapters on the frozen model: no base weight needs its input
        let lora = line["lora"]["targets"].as_array().map(|targets| LoraActs {
            rank: 8,
            targets: targets
                .iter()
                .map(|t| match t.as_str() {
                    Some("q") => LoraTarget::Q,
                    Some("k") => LoraTarget::K,
                    Some("v") => LoraTarget::V,
                    _ => LoraTarget::O,
                })
                .collect(),
            dropout: false,
            per_module_fp32: true,
            fused_qkv: false,
        });
        let grads = if lora.is_some() {
            GradNeeds {
                norms: false,
                qkv: false,
                o: false,
                gate_up: false,
                down: false,
                linear_outputs: false,
            }
        } else {
            GradNeeds::all()
        };
        let spec = from_hf_config(&config(&line)).expect("imports");
        let act_bytes = if line["dtype"] == "float32" { 4 } else { 2 };
        let attention = if line["attn"] == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        };
        let number = |k: &str| u128::from(line[k].as_u64().expect(k));
        let (batch, source, target) = (number("batch"), number("source_len"), number("target_len"));
        let act = act_fn(&spec, Framework::Transformers);
        let ours = |seq, cross_seq| -> u128 {
            let l = LayerShape {
                attention,
                cross_seq,
                grads,
                lora: lora.clone(),
                ..common::plain_layer_shape(&spec, batch, seq, act_bytes)
            };
            layer_terms(&l, &spec, act).iter().map(|t| t.bytes).sum()
        };
        let (encoder, decoder) = (ours(source, 0), ours(target, source));
        let want = (number("encoder_layer_bytes"), number("decoder_layer_bytes"));
        if (encoder, decoder) != want {
            failures.push(format!(
                "{} {} {} b={batch} S={source} T={target}: encoder {encoder} vs {} ({:+}), decoder {decoder} vs {} ({:+})",
                line["attn"],
                line["dtype"],
                line["lora"]["targets"],
                want.0,
                encoder as i128 - want.0 as i128,
                want.1,
                decoder as i128 - want.1 as i128,
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
    assert_eq!(checked, 36);
}

/// Images go through Gemma 3's processor over the encoder's tower: the
/// same rule as a Gemma 3 config with that tower (256 tokens an image, or
/// pan-and-scan's crops when the preprocessor asks), read from
/// `encoder.vision_config` and `encoder.mm_tokens_per_image`; a tower left
/// to SigLIP's defaults is 224 px in 16 px patches.
#[test]
fn images_take_gemma3s_processor_over_the_encoders_tower() {
    use vramfit_core::hf_config::rule_from_configs;
    use vramfit_core::image_tokens::ImageRule;
    let rows = lines("t5gemma2_params.jsonl");
    let named = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .expect("a measured config")
            .clone()
    };
    let t5 = named("4b-4b");
    let gemma3 = serde_json::json!({"model_type": "gemma3",
        "vision_config": t5["config"]["encoder"]["vision_config"],
        "mm_tokens_per_image": t5["config"]["encoder"]["mm_tokens_per_image"]});
    let pan_and_scan = r#"{"do_pan_and_scan": true, "pan_and_scan_min_crop_size": 256,
        "pan_and_scan_max_num_crops": 4, "pan_and_scan_min_ratio_to_activate": 1.2}"#;
    for pre in [None, Some(pan_and_scan)] {
        let ours = rule_from_configs(&config(&t5), pre).expect("a rule");
        assert_eq!(
            ours,
            rule_from_configs(&gemma3.to_string(), pre).expect("a rule")
        );
    }
    assert_eq!(
        rule_from_configs(&config(&t5), None).expect("a rule"),
        ImageRule::Fixed {
            tower: 64 * 64,
            language_model: 256
        }
    );
    let bare = rule_from_configs(&config(&named("270m-default-vision")), None).expect("a rule");
    assert_eq!(
        bare,
        ImageRule::Fixed {
            tower: 14 * 14,
            language_model: 256
        }
    );
}

/// In training, an image's 256 tokens lengthen the encoder's source, not
/// the decoder's target: the loss runs over the text target alone.
#[test]
fn images_lengthen_the_source_not_the_target() {
    use vramfit_core::report::Part;
    use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};
    let line = lines("t5gemma2_params.jsonl")
        .into_iter()
        .find(|r| r["name"] == "270m-270m")
        .expect("the 270M-270M");
    let spec = from_hf_config(&config(&line)).expect("imports");
    let vocab = u64::from(u32::try_from(spec.vocab).expect("vocab"));
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.micro_batch = 2;
    sc.training.seq_len = 512;
    sc.training.images_per_sample = 1;
    let e = vramfit_core::estimate(&sc).expect("estimates");
    let logits = e.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::LogitsLoss)
        .expect("a loss line");
    // 12 B per logit (fp32 log-softmax and two fp32 gradients) over the
    // 2 × 512 target tokens, not 2 × 768
    assert_eq!(logits.bytes, 12 * 2 * 512 * vocab, "{}", logits.formula);
}
