//! The cache lines against the cache objects transformers creates: small
//! random-weight models of each family, prefilled and decoded on CPU in fp32
//! and bf16 at several batch sizes and lengths (`data/cache/`, torch 2.15.0,
//! transformers 5.24.0). Keys and values of the attention layers (and the
//! DeepSeek Sparse Attention indexer's keys) must equal our KV-cache bytes, and the convolution and recurrent states our
//! recurrent-state bytes, to the byte. Bookkeeping scalars of sliding layers
//! (`cumulative_length`, an 8-byte counter) are not memory anyone plans for
//! and are left out of both sides.

mod common;

use common::{data_dir, one_gpu, resolved_config};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes, static_kv_cache_bytes};
use vramfit_core::precision::Dtype;
use vramfit_core::recurrent_state::state_bytes_per_sequence;
use vramfit_core::scenario::Engine;

/// `StaticCache(max_cache_len=32)` in the static runs (`data/cache/README.md`).
const STATIC_MAX_CACHE_LEN: u128 = 32;

fn measured_bytes(line: &serde_json::Value, names: &[&str]) -> u64 {
    line["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|layer| layer["tensors"].as_array().into_iter().flatten())
        .filter(|t| {
            let name = t["name"].as_str().unwrap_or_default();
            names.iter().any(|n| name.starts_with(n))
        })
        .map(|t| t["bytes"].as_u64().unwrap_or(0))
        .sum()
}

#[test]
fn kv_and_state_bytes_equal_the_cache_objects_transformers_creates() {
    let text = std::fs::read_to_string(data_dir().join("cache/hybrid_cache.jsonl"))
        .expect("cache measurements");
    let mut failures = Vec::new();
    let mut checked = 0;
    for (i, row) in text.lines().enumerate() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let model_type = line["model_type"].as_str().unwrap_or_default();
        let spec = match from_hf_config(&resolved_config(model_type, &line["config"])) {
            Ok(spec) => spec,
            Err(e) => {
                failures.push(format!("line {i} {model_type}: {e}"));
                continue;
            }
        };
        let dtype = match line["dtype"].as_str() {
            Some("bfloat16") => Dtype::Bf16,
            _ => Dtype::Fp32,
        };
        let batch = u128::from(line["batch"].as_u64().unwrap_or(1));
        let tokens = u128::from(line["total_len"].as_u64().unwrap_or(1));
        let (per_token, _) = kv_bytes_per_token(&spec, dtype, &one_gpu(spec.layers));
        let kv = if line["cache_impl"]
            .as_str()
            .is_some_and(|c| c.starts_with("static"))
        {
            static_kv_cache_bytes(
                &spec,
                &one_gpu(spec.layers),
                per_token,
                batch,
                STATIC_MAX_CACHE_LEN,
            )
        } else {
            kv_cache_bytes(&spec, &one_gpu(spec.layers), per_token, batch, tokens)
        };
        let state = state_bytes_per_sequence(&spec, dtype, 1, Engine::Transformers)
            .map_or(0, |(bytes, _)| bytes * batch);
        let want_kv = u128::from(measured_bytes(&line, &["keys", "values", "indexer_keys"]));
        let want_state = u128::from(measured_bytes(
            &line,
            &[
                "conv_states",
                "recurrent_states",
                "ssm_states",
                "linear_cache",
            ],
        ));
        if (kv, state) != (want_kv, want_state) {
            failures.push(format!(
                "line {i} {model_type} {:?} b={batch} t={tokens}: kv {kv} vs {want_kv}, state {state} vs {want_state}",
                line["dtype"]
            ));
        }
        checked += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 200, "{checked} measurements");
}
