//! A Llama 3.2 Vision cross-attention layer's saved tensors against the
//! CPU measurement (`data/cross_acts/cross_layer_saved.jsonl`, torch 2.15.0,
//! transformers 5.24.0): four shapes, SDPA and eager, fp32 and bf16, every
//! weight trainable or frozen, the image states needing a gradient or not.
//! Each row's bytes, less the layer's shared inputs, must equal the sum of
//! our terms.

mod common;

use common::data_dir;
use vramfit_core::activations::{cross_layer_terms, GradNeeds, LayerShape};
use vramfit_core::scenario::Attention;

fn shape(row: &serde_json::Value) -> LayerShape {
    let n = |k: &str| u128::from(row[k].as_u64().unwrap_or_else(|| panic!("{k}")));
    let trainable = row["weights_trainable"].as_bool().expect("flag");
    LayerShape {
        batch: n("batch"),
        seq: n("text_tokens"),
        hidden: n("hidden"),
        intermediate: n("intermediate"),
        heads: n("heads"),
        kv_heads: n("kv_heads"),
        head_dim: n("hidden") / n("heads"),
        act_bytes: if row["dtype"] == "bfloat16" { 2 } else { 4 },
        autocast: false,
        attention: if row["attention"] == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        },
        grads: if trainable {
            GradNeeds::all()
        } else {
            GradNeeds::default()
        },
        lora: None,
        dropout: false,
        fp32_linear_inputs: false,
        cross_seq: n("vision_tokens"),
        streams: 1,
        window_mask: false,
        routed_experts: 0,
    }
}

#[test]
fn cross_attention_layer_terms_equal_the_measured_saved_bytes() {
    let text = std::fs::read_to_string(data_dir().join("cross_acts/cross_layer_saved.jsonl"))
        .expect("measurements");
    let mut failures = Vec::new();
    let mut rows = 0;
    for (i, line) in text.lines().enumerate() {
        let row: serde_json::Value = serde_json::from_str(line).expect("json");
        let images_need_grad = row["vision_needs_grad"].as_bool().expect("flag");
        let got: u128 = cross_layer_terms(&shape(&row), images_need_grad)
            .iter()
            .map(|t| t.bytes)
            .sum();
        let want = u128::from(row["saved_bytes"].as_u64().expect("bytes"));
        if got != want {
            failures.push(format!("row {i}: {got} vs {want} ({row})"));
        }
        rows += 1;
    }
    assert!(rows >= 64, "{rows} rows");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
