//! DeepSeek Sparse Attention's indexer in a transformers prefill: what one
//! layer's indexer holds at its peak, measured on CPU with a live-storage
//! tracker (`data/indexer/indexer_peak.jsonl`, torch 2.15.0, transformers
//! 5.24.0, fp32, no grad), against our prompt-squared term. The measured
//! peak also holds the indexer's per-token tensors (its queries and keys
//! before the scores), which we do not count: the difference must be no
//! more than those, and the squared term must not exceed the peak.

mod common;

use common::{data_dir, resolved_config};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::model::ModelSpec;
use vramfit_core::precision::Dtype;
use vramfit_core::report::Part;
use vramfit_core::scenario::{Engine, ModelSource, Scenario, TaskKind};

/// The Activations line of a transformers prefill of `spec`: `batch`
/// prompts of `prompt` tokens, fp32, one new token.
fn activations(spec: &ModelSpec, batch: u64, prompt: u64) -> u64 {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec.clone())),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.inference.engine = Engine::Transformers;
    sc.inference.batch = batch;
    sc.inference.prompt_len = prompt;
    sc.inference.new_tokens = 1;
    sc.compute_dtype = Dtype::Fp32;
    let e = vramfit_core::estimate::estimate(&sc).expect("estimates");
    e.gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == Part::Activations)
        .map(|l| l.bytes)
        .sum()
}

#[test]
fn the_indexer_scores_are_the_prefill_peak_measured() {
    let text = std::fs::read_to_string(data_dir().join("indexer/indexer_peak.jsonl"))
        .expect("measurements");
    let mut checked = 0;
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("json line");
        if row["family"] != "deepseek_v32" {
            continue;
        }
        let get = |k: &str| row[k].as_u64().expect(k);
        let (heads, d, batch, seq) = (
            get("index_n_heads"),
            get("index_head_dim"),
            get("batch"),
            get("seq"),
        );
        let config = serde_json::json!({"vocab_size": 64, "hidden_size": 64, "intermediate_size": 64,
            "moe_intermediate_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
            "num_key_value_heads": 2, "n_routed_experts": 2, "num_experts_per_tok": 1, "q_lora_rank": 16,
            "kv_lora_rank": 16,
            "qk_nope_head_dim": 8, "qk_rope_head_dim": 8, "v_head_dim": 8, "index_n_heads": heads,
            "index_head_dim": d, "index_topk": 4, "first_k_dense_replace": 1});
        let spec = from_hf_config(&resolved_config("deepseek_v32", &config)).expect("imports");
        let mut without = spec.clone();
        if let Some(m) = without.mla.as_mut() {
            m.indexer = None;
        }
        let ours = activations(&spec, batch, seq) - activations(&without, batch, seq);
        let measured = get("peak_bytes");
        // the per-token tensors beside the scores: queries and keys in
        // fp32 and their rotary halves, the hidden-width projections
        let per_token = 4 * (6 * heads * d + 4 * 64);
        assert!(
            ours <= measured && measured - ours <= batch * seq * per_token,
            "{line}: ours {ours}"
        );
        checked += 1;
    }
    assert!(checked >= 6, "{checked} rows");
}

/// In training under the Hugging Face stack the indexer runs the same way
/// in every layer's forward, its output (top-k indices) keeping no graph:
/// at the end of forward its scores stand where the loss stands after
/// them, so the peak takes the larger. A 4,096-token sample of a model
/// with 64 index heads of 128: 8 · 64 · 4096² B of scores, beyond a loss
/// over a 64-token vocabulary.
#[test]
fn in_training_the_indexer_scores_compete_with_the_loss() {
    let config = serde_json::json!({"vocab_size": 64, "hidden_size": 256, "intermediate_size": 256,
        "moe_intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 4, "n_routed_experts": 2, "num_experts_per_tok": 1, "q_lora_rank": 64,
        "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
        "index_n_heads": 64, "index_head_dim": 128, "index_topk": 64, "first_k_dense_replace": 1});
    let spec = from_hf_config(&resolved_config("deepseek_v32", &config)).expect("imports");
    let mut without = spec.clone();
    if let Some(m) = without.mla.as_mut() {
        m.indexer = None;
    }
    let line = |spec: &ModelSpec, part: Part| -> u64 {
        let mut sc = Scenario {
            model: ModelSource::Spec(Box::new(spec.clone())),
            task: TaskKind::Training,
            ..Scenario::default()
        };
        sc.training.micro_batch = 1;
        sc.training.seq_len = 4096;
        sc.training.checkpointing = vramfit_core::scenario::Checkpointing::Off;
        vramfit_core::estimate::estimate(&sc)
            .expect("estimates")
            .gpus[0]
            .lines
            .iter()
            .filter(|l| l.part == part)
            .map(|l| l.bytes)
            .sum()
    };
    let scores = 8 * 64 * 4096 * 4096;
    let loss = line(&spec, Part::LogitsLoss);
    assert!(loss < scores);
    assert_eq!(
        line(&spec, Part::Activations) - line(&without, Part::Activations),
        scores - loss
    );
}
