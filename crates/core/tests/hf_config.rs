//! The config.json importer against counts measured with transformers, and
//! its error messages.

mod common;

use common::{config_text, csv_rows, get, get_u64, import};
use vramfit_core::hf_config::{checkpoint_weights, from_hf_config, quantization_method};
use vramfit_core::model::{Arch, MlpKind, NormKind};

/// T5 v1.1 / mT5 checkpoints keep a separate `lm_head`; transformers 5.x ties it
/// anyway, so its measured row is the tied count (see tests/data/params/README.md).
const T5_UNTIED: &[(&str, &str)] = &[
    ("bigscience__T0_3B.json", "bigscience/T0_3B"),
    ("bigscience__mt0-xxl.json", "bigscience/mt0-xxl"),
];

#[test]
fn every_fixture_matches_the_transformers_count() {
    let rows = csv_rows("hf_measured.csv");
    assert!(
        rows.len() >= 60,
        "expected the full fixture set, got {}",
        rows.len()
    );
    let mut archs = std::collections::BTreeSet::new();
    for row in &rows {
        let file = get(row, "config");
        let measured = get_u64(row, "num_parameters");
        let mut spec = import(file);
        archs.insert(format!("{:?}", spec.arch));
        if T5_UNTIED.iter().any(|(f, _)| *f == file) {
            assert!(!spec.tied_embeddings, "{file}: v1.1 head must be untied");
            spec.tied_embeddings = true;
        }
        assert_eq!(spec.param_counts().total, measured, "{file}");
    }
    assert!(
        archs.len() >= 15,
        "only {} architectures: {archs:?}",
        archs.len()
    );
}

#[test]
fn t5_v11_keeps_its_own_head_as_the_cases_count() {
    let cases = csv_rows("cases_params.csv");
    for (file, id) in T5_UNTIED {
        let case = cases
            .iter()
            .find(|r| get(r, "model") == *id)
            .unwrap_or_else(|| panic!("{id} not in cases"));
        assert_eq!(
            import(file).param_counts().total,
            get_u64(case, "params"),
            "{id}"
        );
    }
}

#[test]
fn field_layouts_are_read_per_architecture() {
    let falcon40 = import("tiiuae__falcon-40b.json");
    assert_eq!((falcon40.kv_heads, falcon40.norms_per_layer), (8, Some(2)));
    let falcon7 = import("tiiuae__falcon-7b--RefinedWebModel.json");
    assert_eq!(
        (falcon7.arch, falcon7.kv_heads, falcon7.parallel_block),
        (Arch::Falcon, 1, true)
    );
    let gpt2 = import("openai-community__gpt2.json");
    assert_eq!(
        (gpt2.hidden, gpt2.layers, gpt2.heads, gpt2.intermediate),
        (768, 12, 12, 3072)
    );
    assert_eq!(
        (gpt2.mlp, gpt2.norm, gpt2.tied_embeddings),
        (MlpKind::Plain, NormKind::Layer, true)
    );
    let t5 = import("google-t5__t5-small.json");
    assert_eq!(
        (t5.encoder_layers, t5.layers, t5.head_dim),
        (Some(6), 6, Some(64))
    );
    let octo = import("bigcode__octocoder.json");
    assert_eq!(octo.kv_heads, 1);
    let mistral = import("mistralai__Mistral-7B-v0.1.json");
    assert_eq!(
        mistral.sliding_window.map(|s| (s.window, s.layers)),
        Some((4096, 32))
    );
    let gemma2 = import("google__gemma-2-9b.json");
    // even layers of 42 slide
    assert_eq!(gemma2.sliding_window.map(|s| s.layers), Some(21));
    let gemma3 = import("google__gemma-3-1b-it.json");
    // 26 layers, every 6th global: 26 - 4
    assert_eq!(gemma3.sliding_window.map(|s| s.layers), Some(22));
    let oss = import("openai__gpt-oss-20b.json");
    assert_eq!(
        oss.sliding_window.map(|s| (s.window, s.layers)),
        Some((128, 12))
    );
    let ds = import("deepseek-ai__DeepSeek-V2-Lite-Chat.json");
    let moe = ds.moe.expect("deepseek moe");
    assert_eq!(
        (moe.experts, moe.shared_experts, moe.dense_layers),
        (64, 2, 1)
    );
    assert!(ds
        .mla
        .is_some_and(|m| m.q_lora_rank.is_none() && m.kv_lora_rank == 512));
    let llava = import("llava-hf__llava-1.5-7b-hf.json");
    // text_config lists only its differences from LlamaConfig(): 4096 hidden, 32 layers
    assert_eq!((llava.hidden, llava.layers, llava.vocab), (4096, 32, 32064));
    assert_eq!(
        llava
            .vision
            .map(|v| vramfit_core::vision::image_tokens(&v, None).tower),
        Some(577)
    );
    let bert = import("bert-large-uncased.json");
    assert_eq!((bert.type_vocab, bert.classifier_labels), (2, 0));
    let deberta = import("microsoft__deberta-v2-xlarge-mnli.json");
    assert_eq!(deberta.classifier_labels, 3);
}

#[test]
fn quantization_method_is_reported() {
    let q = |f: &str| quantization_method(&config_text(f)).expect(f);
    assert_eq!(q("openai__gpt-oss-20b.json").as_deref(), Some("mxfp4"));
    assert_eq!(q("deepseek-ai__DeepSeek-V3.json").as_deref(), Some("fp8"));
    assert_eq!(q("meta-llama__Llama-2-7b-hf.json"), None);
}

/// A quantized checkpoint's `quantization_config` names the format its
/// weights load in: the faces start from it instead of 16-bit weights.
#[test]
fn checkpoint_weight_formats_are_read() {
    use vramfit_core::precision::WeightFormat as W;
    let read = |json: &str| checkpoint_weights(json).expect(json);
    let q = |f: &str| read(&config_text(f)).map(|c| (c.weights, c.group_size, c.double_quant));
    assert_eq!(q("openai__gpt-oss-20b.json"), Some((W::Mxfp4, None, false)));
    assert_eq!(
        q("moonshotai__Kimi-K2-Instruct.json"),
        Some((W::Fp8, None, false))
    );
    assert_eq!(
        q("RedHatAI__Llama-3.3-70B-Instruct-fp8-dynamic.json"),
        Some((W::Fp8, None, false))
    );
    assert_eq!(q("meta-llama__Llama-2-7b-hf.json"), None);
    // quantization_config blocks as the Hub's quantized checkpoints carry them
    let with = |q: &str| {
        read(&format!(
            r#"{{"model_type":"llama","quantization_config":{q}}}"#
        ))
        .map(|c| (c.weights, c.group_size, c.double_quant))
    };
    // Qwen2.5-*-Instruct-AWQ
    assert_eq!(
        with(
            r#"{"bits":4,"group_size":128,"modules_to_not_convert":null,"quant_method":"awq","version":"gemm","zero_point":true}"#
        ),
        Some((W::Awq4, Some(128), false))
    );
    // GPTQ with act-order and one scale per column
    assert_eq!(
        with(
            r#"{"bits":4,"group_size":-1,"damp_percent":0.1,"desc_act":true,"quant_method":"gptq"}"#
        ),
        Some((
            W::Gptq4,
            Some(vramfit_core::scenario::limits::MAX_GROUP_SIZE),
            false
        ))
    );
    assert_eq!(
        with(r#"{"bits":8,"group_size":128,"quant_method":"gptq"}"#),
        Some((W::Int8, None, false))
    );
    // unsloth's *-bnb-4bit
    assert_eq!(
        with(
            r#"{"_load_in_4bit":true,"_load_in_8bit":false,"bnb_4bit_compute_dtype":"bfloat16","bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true,"load_in_4bit":true,"quant_method":"bitsandbytes"}"#
        ),
        Some((W::Nf4, None, true))
    );
    assert_eq!(
        with(r#"{"load_in_8bit":true,"quant_method":"bitsandbytes"}"#),
        Some((W::Int8, None, false))
    );
    // llm-compressor's W4A16
    assert_eq!(
        with(
            r#"{"quant_method":"compressed-tensors","config_groups":{"group_0":{"targets":["Linear"],"weights":{"num_bits":4,"type":"int","group_size":128,"strategy":"group"}}}}"#
        ),
        Some((W::Gptq4, Some(128), false))
    );
    // Quanto's and EETQ's int8, Quanto's float8 (`QuantoConfig.weights`)
    assert_eq!(
        with(r#"{"quant_method":"quanto","weights":"int8","activations":null}"#),
        Some((W::Int8, None, false))
    );
    assert_eq!(
        with(r#"{"quant_method":"quanto","weights":"float8"}"#),
        Some((W::Fp8, None, false))
    );
    assert_eq!(
        with(r#"{"quant_method":"eetq","weights":"int8"}"#),
        Some((W::Int8, None, false))
    );
    // torchao's serialized config, its group read; a bare name at its default
    assert_eq!(
        with(
            r#"{"quant_method":"torchao","quant_type":{"default":{"_type":"Int4WeightOnlyConfig","_version":2,"_data":{"group_size":64}}}}"#
        ),
        Some((W::Gptq4, Some(64), false))
    );
    assert_eq!(
        with(r#"{"quant_method":"torchao","quant_type":"int4_weight_only"}"#),
        Some((W::Gptq4, Some(128), false))
    );
    assert_eq!(
        with(
            r#"{"quant_method":"torchao","quant_type":{"default":{"_type":"Float8WeightOnlyConfig"}}}"#
        ),
        Some((W::Fp8, None, false))
    );
    // methods with no format here leave the scenario's, and are named
    assert_eq!(with(r#"{"quant_method":"hqq","nbits":4}"#), None);
    assert_eq!(with(r#"{"quant_method":"awq","bits":3}"#), None);
    let unmodelled = |q: &str| {
        vramfit_core::hf_config::unmodelled_quantization(&format!(
            r#"{{"model_type":"llama","quantization_config":{q}}}"#
        ))
    };
    assert_eq!(
        unmodelled(r#"{"quant_method":"hqq","nbits":4}"#).as_deref(),
        Some("hqq")
    );
    assert_eq!(
        unmodelled(r#"{"quant_method":"awq","bits":3}"#).as_deref(),
        Some("awq")
    );
    assert_eq!(unmodelled(r#"{"quant_method":"awq","bits":4}"#), None);
    assert_eq!(
        vramfit_core::hf_config::unmodelled_quantization(r#"{"model_type":"llama"}"#),
        None
    );
    // a wrong type is refused by its field, never guessed
    let e = checkpoint_weights(r#"{"quantization_config":{"quant_method":"awq","bits":"four"}}"#)
        .expect_err("bits as text");
    assert!(e.field.contains("bits"), "{e}");
}

fn err(json: &str) -> vramfit_core::InputError {
    from_hf_config(json).expect_err(json)
}

const LLAMA_MIN: &str = r#"{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
    "num_attention_heads":4,"intermediate_size":128,"vocab_size":100}"#;

#[test]
fn minimal_config_imports() {
    let spec = from_hf_config(LLAMA_MIN).expect("minimal llama");
    assert_eq!((spec.kv_heads, spec.tied_embeddings), (4, false));
}

#[test]
fn malformed_json_is_an_error() {
    let e = err("{\"model_type\": \"llama\",");
    assert_eq!(e.field, "config.json");
    assert!(e.message.contains("not valid JSON"), "{e}");
    assert_eq!(err("[1, 2]").field, "config.json");
    assert_eq!(err("").field, "config.json");
}

#[test]
fn missing_required_field_is_named() {
    // transformers fills an absent key from the config class (LlamaConfig:
    // 32 heads), and so does the importer ...
    let spec = from_hf_config(&LLAMA_MIN.replace("\"num_attention_heads\":4,", ""))
        .expect("LlamaConfig's default head count");
    assert_eq!(spec.heads, 32);
    // ... but a model_type transformers has no class for has no defaults:
    // what it needs and lacks is named.
    let e = err(r#"{"model_type": "kimi_k2", "num_hidden_layers": 2}"#);
    assert!(e.field.starts_with("config.json: "), "{e}");
    assert!(e.message.contains("missing"), "{e}");
    let e = err(r#"{"hidden_size": 8}"#);
    assert_eq!(e.field, "config.json: model_type");
}

#[test]
fn wrong_types_are_named() {
    let e = err(&LLAMA_MIN.replace(
        "\"num_attention_heads\":4",
        "\"num_attention_heads\":\"four\"",
    ));
    assert_eq!(e.field, "config.json: num_attention_heads");
    assert!(e.message.contains("whole number"), "{e}");
    let e = err(&LLAMA_MIN.replace("\"hidden_size\":64", "\"hidden_size\":-64"));
    assert_eq!(e.field, "config.json: hidden_size");
    let e = err(&LLAMA_MIN.replace("\"hidden_size\":64", "\"hidden_size\":64.5"));
    assert_eq!(e.field, "config.json: hidden_size");
    let e = err(&LLAMA_MIN.replace("}", ",\"tie_word_embeddings\":\"yes\"}"));
    assert_eq!(e.field, "config.json: tie_word_embeddings");
    let e = err(r#"{"model_type": 7}"#);
    assert_eq!(e.field, "config.json: model_type");
    let e = err(r#"{"model_type":"llava","vision_config":[],"text_config":{}}"#);
    assert_eq!(e.field, "config.json: vision_config");
}

#[test]
fn out_of_range_values_name_the_field_and_range() {
    let e = err(&LLAMA_MIN.replace(
        "\"num_hidden_layers\":2",
        "\"num_hidden_layers\":1000000000000000",
    ));
    assert_eq!(e.field, "config.json: num_hidden_layers");
    assert!(e.message.contains("allowed 1 to 10000"), "{e}");
    let e = err(&LLAMA_MIN.replace("\"hidden_size\":64", "\"hidden_size\":0"));
    assert_eq!(e.field, "config.json: hidden_size");
    // kv heads must divide heads: reported under the config's own key
    let e = err(&LLAMA_MIN.replace("}", ",\"num_key_value_heads\":3}"));
    assert_eq!(e.field, "config.json: num_key_value_heads");
    let e = err(&LLAMA_MIN.replace("}", ",\"num_key_value_heads\":8}"));
    assert_eq!(e.field, "config.json: num_key_value_heads");
    // heads that do not divide hidden: head_dim is floored, as transformers'
    // `hidden_size // num_attention_heads` does (64 / 5 -> 12)
    let spec = from_hf_config(
        &LLAMA_MIN.replace("\"num_attention_heads\":4", "\"num_attention_heads\":5"),
    )
    .expect("imports");
    assert_eq!(spec.head_dim, Some(12));
}

#[test]
fn unknown_model_type_lists_supported_ones() {
    let e = err(r#"{"model_type": "doge", "hidden_size": 8}"#);
    assert_eq!(e.field, "config.json: model_type");
    assert!(e.message.contains("\"doge\" is not supported"), "{e}");
    assert!(
        e.message.contains("llama") && e.message.contains("gpt_oss"),
        "{e}"
    );
}

#[test]
fn oversized_models_are_rejected_not_wrapped() {
    // 10000 layers of 2^24 hidden: far above 2^44 parameters
    let huge = r#"{"model_type":"llama","hidden_size":16777216,"num_hidden_layers":10000,
        "num_attention_heads":1,"intermediate_size":16777216,"vocab_size":16777216}"#;
    let e = err(huge);
    assert!(e.message.contains("2^44"), "{e}");
    // the families whose extra modules the importer counts itself: JetMoE's
    // unpicked attention experts, Laguna's heads above the mean; refused by
    // the range of the extra count or by the total, never wrapped
    let too_many = |e: &vramfit_core::InputError| {
        e.message.contains("2^44") || e.message.contains("out of range: allowed 0 to")
    };
    let jetmoe = r#"{"model_type":"jetmoe","hidden_size":16777216,"num_hidden_layers":10000,
        "num_key_value_heads":65536,"kv_channels":65536,"num_local_experts":4096,
        "num_experts_per_tok":1,"intermediate_size":16777216,"vocab_size":16777216}"#;
    let e = err(jetmoe);
    assert!(too_many(&e), "{e}");
    let mut heads = vec![65536u64; 10000];
    heads[0] = 1;
    let laguna = serde_json::json!({"model_type": "laguna", "hidden_size": 16777216,
        "num_hidden_layers": 10000, "num_attention_heads": 1, "num_key_value_heads": 1,
        "head_dim": 65536, "num_attention_heads_per_layer": heads, "num_experts": 4,
        "num_experts_per_tok": 1, "vocab_size": 16777216});
    let e = err(&laguna.to_string());
    assert!(too_many(&e), "{e}");
}

/// One architecture table: the importer, the link codec and the case
/// translator read the same rows, and an unknown model_type names the field
/// and lists every supported one from the table.
#[test]
fn the_architecture_table_is_the_one_source_of_names() {
    use vramfit_core::model::arch::{by_case_name, by_model_type, model_types, ARCHS, NAMES};
    use vramfit_core::url::Choice;
    let err = vramfit_core::hf_config::from_hf_config(r#"{"model_type": "doge"}"#)
        .expect_err("doge is not modelled yet");
    assert_eq!(err.field, "config.json: model_type");
    for t in model_types() {
        assert!(err.message.contains(t), "{t} missing from: {}", err.message);
    }
    for (row, names) in ARCHS.iter().zip(&NAMES) {
        assert_eq!(row.arch.key(), row.key);
        assert_eq!(vramfit_core::model::Arch::parse(row.key), Some(row.arch));
        assert_eq!(names.arch, row.arch);
        for t in names.model_types {
            assert_eq!(by_model_type(t).map(|r| r.arch), Some(row.arch));
        }
        for c in names.case_names {
            assert_eq!(by_case_name(c).map(|r| r.arch), Some(row.arch));
        }
    }
}

/// Llama4TextConfig's defaults when a config lists neither `layer_types`
/// nor `no_rope_layers` (Scout and Maverick ship neither): every 4th layer
/// is a NoPE full-attention layer, the rest attend in chunks of
/// `attention_chunk_size` (8192 when absent; an explicit null turns it off).
#[test]
fn llama4_chunked_layers_follow_the_config_defaults() {
    let text = config_text("meta-llama__Llama-4-Scout-17B-16E-Instruct--text_config.json");
    let chunked = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
        for key in ["no_rope_layers", "layer_types", "no_rope_layer_interval"] {
            cfg.as_object_mut().expect("object").remove(key);
        }
        edit(&mut cfg);
        from_hf_config(&cfg.to_string())
            .expect("imports")
            .sliding_window
            .map(|w| (w.window, w.layers))
    };
    assert_eq!(chunked(&|_| {}), Some((8192, 36)));
    assert_eq!(
        chunked(&|c| c["no_rope_layer_interval"] = 2.into()),
        Some((8192, 24))
    );
    assert_eq!(
        chunked(&|c| {
            c.as_object_mut()
                .expect("object")
                .remove("attention_chunk_size");
        }),
        Some((8192, 36))
    );
    assert_eq!(
        chunked(&|c| c["attention_chunk_size"] = serde_json::Value::Null),
        None
    );
    let mut listed = vec![1u64; 48];
    listed[0] = 0;
    assert_eq!(
        chunked(&|c| c["no_rope_layers"] = serde_json::json!(listed)),
        Some((8192, 47))
    );
}

#[test]
fn mlp_layer_types_must_list_every_layer_as_dense_or_sparse() {
    let base = config_text("variants_2026/glm4_moe_lite__1.json");
    let with = |types: serde_json::Value| {
        let mut cfg: serde_json::Value = serde_json::from_str(&base).expect("json");
        cfg["mlp_layer_types"] = types;
        err(&cfg.to_string())
    };
    let short = with(serde_json::json!(["dense", "sparse"]));
    assert_eq!(short.field, "config.json: mlp_layer_types");
    assert!(short.message.contains("lists 2 layers"), "{short}");
    let bad = with(serde_json::json!(["dense", "moe", "sparse"]));
    assert!(bad.message.contains("\"moe\" is not an MLP type"), "{bad}");
}

#[test]
fn hy_v3_with_biased_mlps_is_refused_by_name() {
    let mut cfg: serde_json::Value =
        serde_json::from_str(&config_text("variants_2026/hy_v3__1.json")).expect("json");
    cfg["mlp_bias"] = true.into();
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: mlp_bias");
    assert!(e.message.contains("experts do not"), "{e}");
}

#[test]
fn gemma3n_refuses_what_it_cannot_count_by_name() {
    let text = config_text("variants_2026/gemma3n_text__4.json");
    let with = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
        edit(&mut cfg);
        err(&cfg.to_string())
    };
    // MatFormer slices: layers of different MLP widths
    let mut widths = vec![256u64; 12];
    widths[3] = 128;
    let e = with(&|c| c["intermediate_size"] = serde_json::json!(widths));
    assert_eq!(e.field, "config.json: intermediate_size");
    assert!(e.message.contains("different MLP widths"), "{e}");
    let e = with(&|c| c["intermediate_size"] = serde_json::json!([256, 256]));
    assert!(e.message.contains("2 widths for 12 layers"), "{e}");
    // every global layer shared: no earlier global layer keeps keys and values
    let e = with(&|c| c["num_kv_shared_layers"] = 8.into());
    assert_eq!(e.field, "config.json: num_kv_shared_layers");
    // a timm tower the importer has no count for
    let mut wrapper: serde_json::Value =
        serde_json::from_str(&config_text("variants_2026/gemma3n__1.json")).expect("json");
    wrapper["vision_config"]["architecture"] = "resnet50".into();
    let e = err(&wrapper.to_string());
    assert_eq!(e.field, "config.json: vision_config.architecture");
    assert!(e.message.contains("mobilenetv5_300m_enc"), "{e}");
    wrapper["vision_config"]["architecture"] = "mobilenetv5_base".into();
    wrapper["vision_config"]["model_args"] = serde_json::json!({"depth": 3});
    let e = err(&wrapper.to_string());
    assert_eq!(e.field, "config.json: vision_config.model_args");
    wrapper["vision_config"]["model_args"] = serde_json::Value::Null;
    wrapper["audio_config"]["sscp_conv_kernel_size"] = serde_json::json!([[3, 3]]);
    let e = err(&wrapper.to_string());
    assert_eq!(e.field, "config.json: audio_config.sscp_conv_kernel_size");
}

#[test]
fn mimo_v2_flash_reads_sglang_window_and_its_value_heads() {
    // hand-written: `sliding_window_size` 63 (the tokens before the query),
    // 12 layers of which 0, 5 and 11 attend globally
    let spec =
        from_hf_config(&config_text("variants_2026/mimo_v2_flash__4.json")).expect("imports");
    let window = spec.sliding_window.as_ref().expect("sliding layers");
    assert_eq!((window.window, window.layers), (64, 9));
    assert_eq!((spec.head_dim(), spec.value_head_dim), (16, Some(12)));
    // sliding layers hold twice the config's 2 KV heads, the global ones 2
    assert_eq!(spec.kv_heads, 4);
    assert_eq!(spec.global_attention.as_ref().map(|g| g.kv_heads), Some(2));
    // per token: 9 sliding layers × 4 heads × (16 + 12) + 3 global × 2 × 28, in bf16
    let (per_token, _) = vramfit_core::inference::kv_bytes_per_token(
        &spec,
        vramfit_core::precision::Dtype::Bf16,
        &common::one_gpu(spec.layers),
    );
    assert_eq!(per_token, (9 * 4 * 28 + 3 * 2 * 28) * 2);
}

#[test]
fn kimi_linear_reads_the_checkpoint_layer_lists_and_refuses_bad_ones() {
    let text = config_text("variants_2026/kimi_linear__3.json");
    let spec = from_hf_config(&text).expect("imports");
    // kda_layers [1, 3, 4, 5] of 6: four Kimi Delta Attention layers of
    // 2 heads × 8, two MLA layers
    let r = spec.recurrent.as_ref().expect("KDA layers");
    assert_eq!(
        (r.layers, r.heads, r.state, r.inner, r.conv_kernel),
        (4, 2, 8, 16, 4)
    );
    assert_eq!(spec.attention_layer_count(), 2);
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["linear_attn_config"]["kda_layers"] = serde_json::json!([0, 3]);
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: linear_attn_config.kda_layers");
    assert!(e.message.contains("from 1 to 6"), "{e}");
}

#[test]
fn laguna_models_per_layer_heads_at_their_mean_and_refuses_bad_counts() {
    // heads [4, 6, 8, 4, 2] over 2 KV heads: 24 heads in 5 layers, modelled
    // as 4 per layer and 4 more counted apart (exact: hf_variants_2026.csv)
    let text = config_text("variants_2026/laguna__2.json");
    let spec = from_hf_config(&text).expect("imports");
    assert_eq!((spec.heads, spec.kv_heads), (4, 2));
    // per extra head: q and o (2·64·16), q's bias (16), a per-element gate (64·16)
    assert_eq!(spec.model_extra_params, 4 * (2 * 64 * 16 + 16 + 64 * 16));
    assert!(spec.gated_attention);
    let with = |key: &str, value: serde_json::Value| {
        let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
        cfg[key] = value;
        err(&cfg.to_string())
    };
    let e = with(
        "num_attention_heads_per_layer",
        serde_json::json!([4, 3, 8, 4, 2]),
    );
    assert_eq!(e.field, "config.json: num_attention_heads_per_layer");
    assert!(
        e.message.contains("multiple of num_key_value_heads (2)"),
        "{e}"
    );
    let e = with("num_attention_heads_per_layer", serde_json::json!([4, 4]));
    assert!(e.message.contains("lists 2 layers"), "{e}");
    let e = with("gating", "per-token".into());
    assert_eq!(e.field, "config.json: gating");
}

#[test]
fn jetmoe_attends_with_kv_heads_times_top_k_query_heads() {
    // 4 KV heads of kv_channels 16, 3 of 3 attention experts per token
    let text = config_text("variants_2026/jetmoe__3.json");
    let spec = from_hf_config(&text).expect("imports");
    assert_eq!((spec.heads, spec.kv_heads, spec.head_dim()), (12, 4, 16));
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["num_experts_per_tok"] = 4.into();
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: num_experts_per_tok");
}

#[test]
fn lfm3_lays_out_conv_full_and_sliding_layers_as_its_config_class() {
    // 9 layers without layer_types: full at 2 and 6, sliding at 4 and 8
    let spec = from_hf_config(&config_text("variants_2026/lfm3__1.json")).expect("imports");
    assert_eq!(spec.attention_layer_count(), 4);
    let w = spec.sliding_window.as_ref().expect("window");
    assert_eq!((w.window, w.layers), (256, 2));
    assert_eq!(spec.recurrent.as_ref().map(|r| r.layers), Some(5));
    // a null window: the "sliding" layer sees every token
    let spec = from_hf_config(&config_text("variants_2026/lfm3__3.json")).expect("imports");
    assert!(spec.sliding_window.is_none());
}

#[test]
fn apertus_1p5_logits_are_as_wide_as_its_pruned_head() {
    // vocab 300, output_vocab_size 200, untied: the head and the logits
    // have 200 rows, the embedding 300
    let spec =
        from_hf_config(&config_text("variants_2026/apertus1p5_text__1.json")).expect("imports");
    assert_eq!((spec.vocab, spec.type_vocab), (200, 100));
    // tied, the head is the whole embedding
    let spec =
        from_hf_config(&config_text("variants_2026/apertus1p5_text__2.json")).expect("imports");
    assert_eq!((spec.vocab, spec.type_vocab), (300, 0));
}

#[test]
fn dbrx_reads_its_nested_attention_and_expert_configs() {
    // attn_config.kv_n_heads 2, ffn_config: 6 experts of 48, top 2
    let text = config_text("variants_2026/dbrx__1.json");
    let spec = from_hf_config(&text).expect("imports");
    assert_eq!((spec.heads, spec.kv_heads), (8, 2));
    let moe = spec.moe.as_ref().expect("experts");
    assert_eq!(
        (moe.experts, moe.experts_per_token, moe.expert_intermediate),
        (6, 2, 48)
    );
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["tie_word_embeddings"] = true.into();
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: tie_word_embeddings");
    // MPT's MLP is 4 × d_model whatever expansion_ratio (2 here) says
    let spec = from_hf_config(&config_text("variants_2026/mpt__1.json")).expect("imports");
    assert_eq!((spec.intermediate, spec.kv_heads), (256, 4));
}

#[test]
fn zamba2_shares_its_blocks_only_when_tied_and_needs_its_layer_list() {
    // the class default: 54 layers, 9 hybrid ones running the shared block
    let spec = from_hf_config(&config_text("variants_2026/zamba2__0.json")).expect("imports");
    assert_eq!(spec.attention_layer_count(), 9);
    assert_eq!(spec.recurrent.as_ref().map(|r| r.layers), Some(54));
    // 4 hybrid layers over 3 blocks, untied: each hybrid layer owns its
    // copy, so untying adds (4 − 3) blocks beyond the head
    let text = config_text("variants_2026/zamba2__3.json");
    let untied = from_hf_config(&text).expect("imports").total_params();
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["tie_word_embeddings"] = true.into();
    let tied = from_hf_config(&cfg.to_string())
        .expect("imports")
        .total_params();
    let head = 100 * 64;
    assert!(untied - tied > head, "{untied} vs {tied}");
    cfg.as_object_mut()
        .expect("object")
        .remove("layers_block_type");
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: layers_block_type");
    assert!(e.message.contains("54 layers"), "{e}");
}

#[test]
fn hy_v4_indexes_layer_0_and_every_fourth_after_1_under_hyper_connections() {
    // 6 layers, 4 streams of hidden 64: layers 0, 1 and 5 run an indexer
    // (`HYV4Config.__post_init__`); exact counts in hf_variants_2026.csv
    let text = config_text("variants_2026/hy_v4__1.json");
    let spec = from_hf_config(&text).expect("imports");
    let mla = spec.mla.as_ref().expect("MLA");
    assert_eq!(mla.indexer.as_ref().map(|ix| ix.layers), Some(3));
    assert_eq!(spec.moe.as_ref().map(|m| m.dense_layers), Some(1));
    // the hyper head: hc_fn [4, 4·64], hc_base [4], hc_scale [1]
    assert_eq!(spec.model_extra_params, 4 * 4 * 64 + 4 + 1);
    let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
    cfg["layer_types"] = serde_json::json!(vec!["sliding_attention"; 6]);
    let e = err(&cfg.to_string());
    assert_eq!(e.field, "config.json: layer_types");
    assert!(e.message.contains("indexed_attention"), "{e}");
}

#[test]
fn deepseek_v4_reads_its_compressed_layers_from_each_source_the_config_takes() {
    let layers = |name: &str| {
        let spec = from_hf_config(&config_text(name)).expect("imports");
        let c = spec.compressed_attention.expect("compressed attention");
        let window = spec.sliding_window.expect("a window on every layer");
        assert_eq!(window.layers, spec.layers, "{name}");
        assert_eq!(spec.kv_heads, 1, "{name}: one head, key and value");
        (c.csa_layers, c.csa_rate, c.hca_layers, c.hca_rate)
    };
    // the class default: layers 0 and 1 HCA, then HCA and CSA alternating
    // (43 layers: 20 CSA, 23 HCA), rates 4 and 128
    assert_eq!(
        layers("variants_2026/deepseek_v4__0.json"),
        (20, 4, 23, 128)
    );
    // layer_types and compress_rates as saved
    assert_eq!(layers("variants_2026/deepseek_v4__3.json"), (3, 8, 1, 16));
    // legacy compress_ratios [0, 4, 128, 4] cut to 3 layers, compress_rate_hca
    assert_eq!(layers("variants_2026/deepseek_v4__4.json"), (1, 4, 1, 32));
    let text = config_text("variants_2026/deepseek_v4__4.json");
    let with = |key: &str, value: serde_json::Value| {
        let mut cfg: serde_json::Value = serde_json::from_str(&text).expect("json");
        cfg[key] = value;
        err(&cfg.to_string())
    };
    let e = with("compress_ratios", serde_json::json!([0, 8, 128]));
    assert_eq!(e.field, "config.json: compress_ratios");
    assert!(e.message.contains("allowed 0, 4, 128"), "{e}");
    let e = with("layer_types", serde_json::json!(["sliding_attention"]));
    assert!(e.message.contains("lists 1 layers"), "{e}");
    let e = with("layer_types", serde_json::json!(vec!["full_attention"; 3]));
    assert_eq!(e.field, "config.json: layer_types");
    // 6 heads × 64 = 384 does not split into 5 output groups
    let e = with("o_groups", 5.into());
    assert_eq!(e.field, "config.json: o_groups");
    assert!(e.message.contains("must divide"), "{e}");
}

/// DiffLlama's attention refuses an odd key-value head count and any
/// attention dropout (`DiffLlamaAttention.__init__`); so does the importer,
/// by field.
#[test]
fn diffllama_refuses_what_its_attention_refuses() {
    let odd = from_hf_config(
        r#"{"model_type":"diffllama","num_attention_heads":6,"num_key_value_heads":3}"#,
    )
    .expect_err("odd KV heads");
    assert_eq!(odd.field, "config.json: num_key_value_heads");
    let dropout = from_hf_config(r#"{"model_type":"diffllama","attention_dropout":0.1}"#)
        .expect_err("dropout");
    assert_eq!(dropout.field, "config.json: attention_dropout");
    // 16 layers of 4 λ vectors of 64 (2048 / 32 heads) beside Llama's
    let spec = from_hf_config(r#"{"model_type":"diffllama"}"#).expect("imports");
    assert_eq!(spec.layer_extra_params, 256);
}

/// GPT-Neo's `attention_types` must name every layer (its config class
/// refuses a mismatch), and its local layers keep the whole cache: the
/// class-default model caches 2 · 2048 · 2 B per token on all 24 layers.
#[test]
fn gpt_neo_names_every_layer_and_caches_them_all() {
    let e = from_hf_config(
        r#"{"model_type":"gpt_neo","num_layers":4,"attention_types":[[["global","local"],1]]}"#,
    )
    .expect_err("two of four layers");
    assert_eq!(e.field, "config.json: attention_types");
    let e = from_hf_config(
        r#"{"model_type":"gpt_neo","num_layers":2,"attention_types":[[["global","sparse"],1]]}"#,
    )
    .expect_err("an unknown kind");
    assert_eq!(e.field, "config.json: attention_types");
    // without attention_types, the class's default names 24 layers
    let e = from_hf_config(r#"{"model_type":"gpt_neo","num_layers":3}"#)
        .expect_err("the default pattern's 24 layers");
    assert_eq!(e.field, "config.json: attention_types");
    let spec = from_hf_config(r#"{"model_type":"gpt_neo"}"#).expect("imports");
    assert!(spec.sliding_window.is_none());
    let shards = vramfit_core::parallel::Shards::new(
        &vramfit_core::scenario::Parallel::default(),
        spec.layers,
        false,
    );
    let (per_token, _) = vramfit_core::inference::kv_bytes_per_token(
        &spec,
        vramfit_core::precision::Dtype::Bf16,
        &shards,
    );
    assert_eq!(per_token, 24 * 2 * 2048 * 2);
}

/// Every `model_type` the importer lists is one it reads: a config naming
/// only it fails, if at all, on a field, never as an unknown type; and the
/// README's count is the list's.
#[test]
fn every_listed_model_type_is_read() {
    let types = vramfit_core::hf_config::model_types();
    for t in &types {
        if let Err(e) = from_hf_config(&format!(r#"{{"model_type": "{t}"}}"#)) {
            assert!(!e.message.contains("is not supported"), "{t}: {e}");
        }
    }
    let unknown = from_hf_config(r#"{"model_type": "no_such_model"}"#).expect_err("unknown");
    assert!(unknown.message.contains("is not supported"), "{unknown}");
    let readme = include_str!("../../../README.md");
    let claim = format!("The importer reads {} `model_type`s", types.len());
    assert!(readme.contains(&claim), "README should say: {claim}");
}

/// Inkling 2 with images keeps its text model's cache (the loop's runs
/// each a slot), counts the tower beside it, and refuses a merger whose
/// output width is not the text model's, naming the field, as
/// `validate_architecture` does.
#[test]
fn inkling2_wrappers_keep_the_text_model_and_check_the_merger_width() {
    for t in ["inkling2", "inkling2_loop"] {
        let wrapper: serde_json::Value =
            serde_json::from_str(&config_text(&format!("variants_2026/{t}__1.json"))).unwrap();
        let mut text = wrapper["text_config"].clone();
        text["model_type"] = format!("{t}_text").into();
        let whole = from_hf_config(&wrapper.to_string()).expect("imports");
        let alone = from_hf_config(&text.to_string()).expect("imports");
        assert_eq!(whole.layers, alone.layers, "{t}: cache slots");
        assert!(!whole.tied_embeddings, "{t}");
        // the tower of INK2_V: 64 wide, 2 layers, 4 px patches on 3
        // channels, an 8² position grid, 2² merge into 96 then 64
        let tower = 64 * (3 * 16 + 64 + 4)
            + 2 * (4 * 64 * 64 + 2 * 64 * 256 + 256 + 11 * 64)
            + 4 * 64 * 96
            + 96 * 64;
        assert_eq!(
            whole.params_override.unwrap() - alone.params_override.unwrap(),
            tower,
            "{t}"
        );
        let mut wrong = wrapper.clone();
        wrong["vision_config"]["text_hidden_size"] = 128.into();
        let err = from_hf_config(&wrong.to_string()).unwrap_err();
        assert_eq!(
            err.field, "config.json: vision_config.text_hidden_size",
            "{t}"
        );
        assert!(err.message.contains("64"), "{}", err.message);
    }
}
