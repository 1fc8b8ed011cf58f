//! Unlimited-OCR's "reference sliding" cache against the cache objects
//! transformers 5.24 builds (`data/cache/unlimited_ocr_kv.jsonl`, 90 rows
//! of tiny random-weight models: prompts of 5, 100 and 300 tokens, 0 to
//! 300 generated, windows of 128 and 16, batch 1 and 2, bf16 and fp32, by
//! hand-fed decode steps and by `generate()`; `measure_unlimited_ocr_kv.py`):
//! every layer keeps the whole prompt and the last window − 1 generated
//! tokens (`UnlimitedOcrDynamicReferenceSlidingWindowLayer`).

mod common;

use common::one_gpu;
use serde_json::Value;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes};
use vramfit_core::precision::Dtype;

fn u(line: &Value, key: &str) -> u64 {
    line[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {line}"))
}

#[test]
fn the_cache_keeps_the_prompt_and_a_window_of_generated_tokens() {
    let table = include_str!("data/cache/unlimited_ocr_kv.jsonl");
    let mut checked = 0;
    for text in table.lines() {
        let line: Value = serde_json::from_str(text).expect("json line");
        let (heads, head_dim) = (u(&line, "kv_heads"), u(&line, "head_dim"));
        // the measured model's shape: head_dim is always hidden / heads
        let config = format!(
            r#"{{"model_type":"unlimited_ocr","text_config":{{"vocab_size":300,"hidden_size":{},
            "intermediate_size":64,"num_hidden_layers":{},"num_attention_heads":{heads},
            "num_key_value_heads":{heads},"n_routed_experts":4,"moe_intermediate_size":16,
            "n_shared_experts":1,"num_experts_per_tok":2,"sliding_window":{}}}}}"#,
            heads * head_dim,
            u(&line, "layers"),
            u(&line, "W"),
        );
        let spec = from_hf_config(&config).expect("config");
        let dtype = match line["dtype"].as_str() {
            Some("float32") => Dtype::Fp32,
            _ => Dtype::Bf16,
        };
        let shards = one_gpu(spec.layers);
        let (per_token, _) = kv_bytes_per_token(&spec, dtype, &shards);
        let (prompt, generated) = (u128::from(u(&line, "P")), u128::from(u(&line, "G")));
        let bytes = kv_cache_bytes(
            &spec,
            &shards,
            (per_token, dtype),
            u128::from(u(&line, "B")),
            (prompt + generated, prompt),
        );
        assert_eq!(bytes, u128::from(u(&line, "numel_bytes")), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 90);
}
