//! xLSTM (transformers 5.24's `xLSTMForCausalLM`): its parameter counts are
//! in `params_2025.rs` and its `xLSTMCache` in `hybrid_cache.rs`; here the
//! 7B's state per sequence and the refusal of what is not modelled.

mod common;

use common::data_dir;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::precision::Dtype;
use vramfit_core::recurrent_state::state_bytes_per_sequence;
use vramfit_core::scenario::{Engine, ModelSource, Scenario, TaskKind};

fn xlstm_7b() -> vramfit_core::model::ModelSpec {
    // the class defaults are xLSTM-7B's shape
    let text = std::fs::read_to_string(data_dir().join("configs/variants_2026/xlstm__0.json"))
        .expect("config");
    from_hf_config(&text).expect("imports")
}

/// 32 layers × 8 heads × (C 256 × 512 + n 256 + m 1) × 2 B in bf16: the
/// `xLSTMCache` of one sequence, whatever its length (the 8-byte position
/// counter beside it left out, as for every cache here).
#[test]
fn the_7b_keeps_64_mib_of_state_per_sequence() {
    let spec = xlstm_7b();
    let (bytes, formula) =
        state_bytes_per_sequence(&spec, Dtype::Bf16, 1, Engine::Transformers).expect("a state");
    assert_eq!(bytes, 67_240_448, "{formula}");
    assert!(formula.contains("mLSTM"), "{formula}");
    // fp32 doubles it: the state follows the model's dtype
    let (fp32, _) =
        state_bytes_per_sequence(&spec, Dtype::Fp32, 1, Engine::Transformers).expect("a state");
    assert_eq!(fp32, 2 * bytes);
}

/// Inference is estimated; training, whose activations come from
/// mlstm_kernels' chunkwise kernels, is refused by field.
#[test]
fn training_is_refused_by_name_inference_is_not() {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(xlstm_7b())),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    let e = vramfit_core::estimate(&sc).expect("inference estimates");
    assert!(e.gpus[0].lines.iter().any(|l| l.formula.contains("mLSTM")));
    sc.task = TaskKind::Training;
    let err = vramfit_core::estimate(&sc).expect_err("refused");
    assert_eq!(err.field, "task");
    assert!(err.message.contains("xLSTM"), "{err}");
}
