//! litgpt's LLaMA-Adapter v2 wraps every linear, the head included, as
//! `adapter_scale * (linear(x) + adapter_bias)` with a trained scale, so
//! autograd saves each linear's output; it also trains the norms, whose
//! normalized input is saved for their weights. Adapter v1 does neither.
//! Before this was modelled, the resource-table rows litgpt-res-046
//! (StableLM-3B) and 048 (Llama-2-7B NF4) were 9% and 17% short. Adapter v1
//! starts at layer 2, and the layers before it keep no activations
//! (res-041/042/043: +6.6/+15.9/+4.1% before, +3.6/+9.0/+1.9% after).

use vramfit_core::estimate::estimate;
use vramfit_core::report::Part;
use vramfit_core::scenario::{Framework, Method, ModelSource, Scenario, TaskKind};

/// Activation bytes of Llama-2-7B (with `layers` layers) in litgpt, one
/// sample of 1304 tokens (the resource tables' longest Alpaca sample).
fn activation_bytes(method: Method, layers: u64) -> u64 {
    let mut spec = vramfit_core::catalog::find_model("meta-llama/Llama-2-7b-hf")
        .expect("catalog")
        .spec
        .clone();
    spec.layers = layers;
    spec.params_override = None;
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.framework = Framework::Litgpt;
    sc.training.method = method;
    sc.training.micro_batch = 1;
    sc.training.seq_len = TOKENS;
    let e = estimate(&sc).expect("estimates");
    e.gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == Part::Activations)
        .map(|l| l.bytes)
        .sum()
}

const TOKENS: u64 = 1304;
/// Non-layer saved tensors in bf16: (4 + 2·2)·b·s·h.
const NON_LAYER: u64 = 8 * TOKENS * 4096;

/// Adapter v1 puts its prompts in layers 2 and up; the frozen embedding feeds
/// layers 0 and 1 tensors that need no gradient, so they save nothing: each
/// added layer adds the same bytes, and the two first ones add none.
#[test]
fn adapter_v1_layers_before_the_first_prompt_save_nothing() {
    let per_layer = activation_bytes(Method::Adapter, 4) - activation_bytes(Method::Adapter, 3);
    assert!(per_layer > 100 << 20, "a Llama-2-7B layer at 1304 tokens");
    assert_eq!(
        activation_bytes(Method::Adapter, 4) - NON_LAYER,
        2 * per_layer
    );
    assert_eq!(
        activation_bytes(Method::Adapter, 32) - NON_LAYER,
        30 * per_layer
    );
}

#[test]
fn adapter_v2_saves_every_scaled_linear_output_and_the_normalized_inputs() {
    let (hidden, intermediate, vocab, layers) = (4096u64, 11_008, 32_000, 32);
    // Llama-2-7B (MHA): fused q/k/v 3h, o h, fc_1 and fc_2 i each, proj h; bf16.
    let outputs = 2 * TOKENS * (3 * hidden + hidden + 2 * intermediate + hidden);
    // Two RMSNorms per layer multiply by their weight: the normalized input, bf16.
    let normalized = 2 * 2 * TOKENS * hidden;
    let head = 2 * TOKENS * vocab;
    // v1's own layer bytes, and the two layers v1 leaves out of the graph.
    let v1_layer =
        activation_bytes(Method::Adapter, layers) - activation_bytes(Method::Adapter, layers - 1);
    assert_eq!(
        activation_bytes(Method::AdapterV2, layers) - activation_bytes(Method::Adapter, layers),
        layers * (outputs + normalized) + head + 2 * v1_layer
    );
}

#[test]
fn adapter_v2_rows_of_the_litgpt_resource_tables_are_within_5_percent() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/groundtruth/cases.jsonl"),
    )
    .expect("groundtruth copy");
    let mut seen = 0;
    for case in vramfit_core::cases::parse_cases(&text)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|c| {
            c.reliability != "low"
                && c.training
                    .as_ref()
                    .is_some_and(|t| t.method.as_deref() == Some("adapter_v2"))
        })
    {
        let error = vramfit_core::cases::score_case(&case)
            .rel_error
            .expect("scored");
        assert!(error.abs() < 0.05, "{}: {error:+.3}", case.id);
        seen += 1;
    }
    assert_eq!(seen, 2, "litgpt-res-046 and 048");
}
