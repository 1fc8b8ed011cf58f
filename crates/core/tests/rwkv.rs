//! RWKV-4 (transformers 5.24's `RwkvForCausalLM`): its parameter counts,
//! the state `forward(use_cache=True)` returns, and what is refused, against
//! `data/rwkv/rwkv.jsonl` (meta device; tiny random models on CPU).

mod common;

use vramfit_core::hf_config::from_hf_config;
use vramfit_core::precision::Dtype;
use vramfit_core::recurrent_state::state_bytes_per_sequence;
use vramfit_core::scenario::{Engine, ModelSource, Scenario, TaskKind};

fn rows(kind: &str) -> Vec<serde_json::Value> {
    common::json_lines("rwkv/rwkv.jsonl")
        .into_iter()
        .map(|(line, _)| line)
        .filter(|line| line["kind"] == kind)
        .collect()
}

/// The class defaults, the six RWKV-4 Pile sizes, the World vocabulary and
/// three variants (an explicit MLP width, a narrower time mixing, a tied
/// head) count what transformers builds, to the parameter.
#[test]
fn parameters_equal_what_transformers_builds() {
    let mut checked = 0;
    for line in rows("params") {
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        assert_eq!(
            spec.param_counts().total,
            line["params"].as_u64().expect("count"),
            "{}",
            line["name"]
        );
        checked += 1;
    }
    assert_eq!(checked, 11);
}

/// Per sequence and layer, the two token shifts in the model's dtype and
/// the WKV numerator, denominator and maximum in fp32, whatever the prompt.
#[test]
fn the_state_is_what_the_model_returns() {
    let mut checked = 0;
    for line in rows("state") {
        let spec = from_hf_config(&line["config"].to_string()).expect("imports");
        let dtype = match line["dtype"].as_str() {
            Some("bfloat16") => Dtype::Bf16,
            _ => Dtype::Fp32,
        };
        let (per_sequence, formula) =
            state_bytes_per_sequence(&spec, dtype, 1, Engine::Transformers).expect("a state");
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        assert_eq!(
            per_sequence * batch,
            u128::from(line["state_bytes"].as_u64().expect("bytes")),
            "{formula}: {line}"
        );
        assert!(formula.contains("RWKV"), "{formula}");
        checked += 1;
    }
    assert_eq!(checked, 16);
}

/// Inference on transformers is estimated, with no attention scores in its
/// prefill; training (the WKV CUDA kernel's saves) and the engines that do
/// not run RWKV-4 are refused by field.
#[test]
fn inference_estimates_training_and_other_engines_are_refused() {
    let line = rows("params")
        .into_iter()
        .find(|l| l["name"] == "rwkv-4-169m-pile")
        .expect("the 169M");
    let spec = from_hf_config(&line["config"].to_string()).expect("imports");
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    let e = vramfit_core::estimate(&sc).expect("inference estimates");
    let lines = &e.gpus[0].lines;
    assert!(lines.iter().any(|l| l.formula.contains("RWKV")));
    assert!(!lines.iter().any(|l| l.formula.contains("eager scores")));
    for engine in [Engine::Vllm, Engine::Sglang, Engine::LlamaCpp] {
        sc.inference.engine = engine;
        let err = vramfit_core::estimate(&sc).expect_err("refused");
        assert_eq!(err.field, "inference.engine", "{engine:?}");
        assert!(err.message.contains("RWKV-4"), "{err}");
    }
    sc.inference.engine = Engine::Transformers;
    sc.task = TaskKind::Training;
    let err = vramfit_core::estimate(&sc).expect_err("refused");
    assert_eq!(err.field, "task");
    assert!(err.message.contains("RWKV-4"), "{err}");
}
