//! LoRA dropout is per module: litgpt's and torchtune's `LoRALinear` each
//! apply their own `nn.Dropout` to the input before A, so every adapted
//! module keeps its own dropped copy (activation dtype) and 1-byte mask.
//! litgpt fuses q, k and v into one linear (`attn`), one module for the
//! three; a Llama MLP has two up projections (`fc_1`, `fc_2`), two modules.
//! Before this, the litgpt config-hub rows with every linear adapted were
//! short: TinyLlama LoRA/QLoRA at micro-batch 8 (hub-081/082) −3% / −10%,
//! now +1% / −7%.

mod common;

use vramfit_core::report::Part;
use vramfit_core::scenario::{Framework, LoraTarget, Method, ModelSource, Scenario, TaskKind};

const TOKENS: u64 = 512;
// Llama-2-7B
const HIDDEN: u64 = 4096;
const LAYERS: u64 = 32;
const RANK: u64 = 8;

fn activations(framework: Framework, targets: &[LoraTarget]) -> u64 {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.framework = framework;
    sc.training.method = Method::Lora;
    sc.training.lora.rank = RANK;
    sc.training.lora.dropout = 0.05;
    sc.training.lora.targets = targets.to_vec();
    sc.training.micro_batch = 1;
    sc.training.seq_len = TOKENS;
    common::part_bytes(&sc, Part::Activations)
}

/// One more module reading an h-wide input: its bf16 dropped copy, its
/// 1-byte mask, and its A output (rank wide, bf16), in every layer.
const ONE_MORE_MODULE: u64 = LAYERS * ((2 + 1) * TOKENS * HIDDEN + 2 * TOKENS * RANK);

#[test]
fn each_adapted_mlp_projection_keeps_its_own_dropped_input() {
    use LoraTarget::*;
    for framework in [Framework::Litgpt, Framework::Torchtune] {
        assert_eq!(
            activations(framework, &[Q, V, Gate, Up]) - activations(framework, &[Q, V, Gate]),
            ONE_MORE_MODULE,
            "{framework:?}"
        );
    }
}

#[test]
fn litgpt_adapts_q_k_v_as_one_linear_torchtune_as_three() {
    use LoraTarget::*;
    // litgpt: the same dropped input for q, k and v; only the A outputs of
    // the targets differ (LoRAQKVLinear keeps one rank-wide A per target).
    let litgpt = activations(Framework::Litgpt, &[Q, K, V]) - activations(Framework::Litgpt, &[Q]);
    assert_eq!(litgpt, LAYERS * 2 * (2 * TOKENS * RANK));
    let torchtune =
        activations(Framework::Torchtune, &[Q, K, V]) - activations(Framework::Torchtune, &[Q]);
    assert_eq!(torchtune, 2 * ONE_MORE_MODULE);
}
