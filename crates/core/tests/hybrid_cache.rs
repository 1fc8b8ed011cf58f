//! The cache lines against the cache objects transformers creates: small
//! random-weight models of each family, prefilled and decoded on CPU in fp32
//! and bf16 at several batch sizes and lengths (`data/cache/`, torch 2.15.0,
//! transformers 5.24.0). Keys and values of the attention layers (and the
//! DeepSeek Sparse Attention indexer's keys, DeepSeek-V4's compressed
//! entries and their buffers) must equal our KV-cache bytes, and the convolution and recurrent states our
//! recurrent-state bytes, to the byte. Bookkeeping scalars of sliding layers
//! (`cumulative_length`, an 8-byte counter) are not memory anyone plans for
//! and are left out of both sides.

mod common;

use common::{data_dir, one_gpu, resolved_config};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::inference::{
    kv_bytes_per_token, kv_cache_bytes, prefill_views_bytes, static_kv_cache_bytes,
};
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
        let prompt_tokens = line["prompt_len"].as_u64().map_or(tokens, u128::from);
        let (per_token, _) = kv_bytes_per_token(&spec, dtype, &one_gpu(spec.layers));
        let kv = if line["cache_impl"]
            .as_str()
            .is_some_and(|c| c.starts_with("static"))
        {
            static_kv_cache_bytes(
                &spec,
                &one_gpu(spec.layers),
                (per_token, dtype),
                batch,
                STATIC_MAX_CACHE_LEN,
            )
        } else {
            kv_cache_bytes(
                &spec,
                &one_gpu(spec.layers),
                (per_token, dtype),
                batch,
                (tokens, prompt_tokens),
            )
        };
        let state = state_bytes_per_sequence(&spec, dtype, 1, Engine::Transformers)
            .map_or(0, |(bytes, _)| bytes * batch);
        // DeepSeek-V4's compressed entries, open-entry buffers and overlap
        // rows are its KV cache too
        let want_kv = u128::from(measured_bytes(
            &line,
            &[
                "keys",
                "values",
                "indexer_keys",
                "indexer_position_ids",
                "idx_keys",
                "compressed_kv",
                "buffer_",
                "overlap_",
            ],
        ));
        let want_state = u128::from(measured_bytes(
            &line,
            &[
                "conv_states",
                // RecurrentGemma's recurrent blocks keep theirs as attributes
                "conv1d_state",
                // xLSTM's (C, n, m) per layer
                "rnn_state",
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

/// Right after a prefill into an empty cache, what the cache keeps alive
/// (the distinct storages behind its tensors, `retained_storage_bytes`) is
/// more than its tensors' shapes say: a sliding or chunked layer's window
/// is a slice of the prefill's whole keys and values, and DeepSeek-V4's
/// windows and open-entry buffers views of the step's projections. Both
/// equal the prefill's retained bytes, with the recurrent states beside
/// them, on every measured family.
#[test]
fn a_prefill_keeps_what_its_views_hold_as_measured() {
    let text = std::fs::read_to_string(data_dir().join("cache/hybrid_cache.jsonl"))
        .expect("cache measurements");
    let (mut checked, mut windowed, mut compressed) = (0, 0, 0);
    let mut failures = Vec::new();
    for row in text.lines() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let Some(want) = line["retained_storage_bytes"].as_u64() else {
            continue;
        };
        if line["decode_steps"].as_u64() != Some(0) || line["cache_impl"] != "dynamic" {
            continue;
        }
        let model_type = line["model_type"].as_str().unwrap_or_default();
        // MiniMax keeps its lightning-attention state outside the cache
        // layers the storage walk reads; Qwen4-Exp's text-only position
        // ids are one row broadcast over three and the batch (8 B per
        // token of storage where we count the 24 B its rows hold)
        if matches!(model_type, "minimax" | "qwen4_exp_text") {
            continue;
        }
        let spec = from_hf_config(&resolved_config(model_type, &line["config"])).expect("imports");
        let dtype = match line["dtype"].as_str() {
            Some("bfloat16") => Dtype::Bf16,
            _ => Dtype::Fp32,
        };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let prompt = u128::from(line["prompt_len"].as_u64().expect("prompt"));
        let shards = one_gpu(spec.layers);
        let retained = match vramfit_core::compressed_kv::prefill_retained_per_sequence(
            &spec, &shards, dtype, prompt,
        ) {
            Some(per_sequence) => {
                compressed += 1;
                batch * per_sequence
            }
            None => {
                let (per_token, _) = kv_bytes_per_token(&spec, dtype, &shards);
                let views = prefill_views_bytes(&spec, &shards, (per_token, dtype), batch, prompt);
                if views
                    > kv_cache_bytes(&spec, &shards, (per_token, dtype), batch, (prompt, prompt))
                {
                    windowed += 1;
                }
                views
            }
        };
        // RecurrentGemma keeps its states on its blocks, xLSTM in a
        // dictionary of its cache: both outside the storage walk
        let state = match model_type {
            "recurrent_gemma" | "xlstm" => 0,
            _ => state_bytes_per_sequence(&spec, dtype, 1, Engine::Transformers)
                .map_or(0, |(bytes, _)| bytes * batch),
        };
        if retained + state != u128::from(want) {
            failures.push(format!(
                "{model_type} {:?} b={batch} t={prompt}: {retained} + {state} vs {want}",
                line["dtype"]
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked >= 200 && windowed >= 40 && compressed >= 6,
        "{checked} prefills, {windowed} past a window, {compressed} compressed"
    );
}

/// Gemma 4's drafters read the main model's keys and values in every layer
/// (`kv_sharing_mode="reuse"` on all of them): they cache nothing of their
/// own (measured with `generate(assistant_model=...)`: the main model's
/// `shared_kv_states` are the same storage as its cache). A unified drafter
/// with unshared layers caches them as Gemma 4 does.
#[test]
fn gemma4_drafters_keep_no_cache_of_their_own() {
    for file in [
        "gemma4_assistant__1.json",
        "gemma4_unified_assistant__1.json",
    ] {
        let text = std::fs::read_to_string(data_dir().join("configs/variants_2026").join(file))
            .expect("config");
        let spec = from_hf_config(&text).expect("imports");
        let (per_token, _) = kv_bytes_per_token(&spec, Dtype::Bf16, &one_gpu(spec.layers));
        assert_eq!(per_token, 0, "{file}");
    }
    let text = std::fs::read_to_string(
        data_dir().join("configs/variants_2026/gemma4_unified_assistant__2.json"),
    )
    .expect("config");
    let spec = from_hf_config(&text).expect("imports");
    let (per_token, _) = kv_bytes_per_token(&spec, Dtype::Bf16, &one_gpu(spec.layers));
    // two unshared layers (sliding: 2 kv heads × 16; full: 1 kv head × 32,
    // its values stored beside the keys), K and V, 2 B each
    assert_eq!(per_token, 2 * 2 * (2 * 16 + 32));
}
