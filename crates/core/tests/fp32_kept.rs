//! Parameters transformers keeps in fp32 when a model loads in 16 bits
//! (`_keep_in_fp32_modules_strict`), counted on the meta device after
//! `from_config(dtype=torch.bfloat16)` (`data/params/fp32_kept.csv`, torch
//! 2.15.0, transformers 5.24.0) on every config of the families added
//! since 2026 that transformers builds here (300 and more): MoE routers,
//! Kimi-Linear's `dt_bias`, OLMo-Hybrid's `A_log`, AFMoE's expert bias,
//! HY-V4's sinks, indexers, connections and untied head, DeepSeek-V4's
//! sinks, norms, position biases and connections, GLM-5.3-Flash's KDA
//! gates and connection biases, Apertus 1.5's tokenizers. The weights line
//! of a transformers load charges them 4 B.

mod common;

use common::{config_text, csv_rows, get, get_u64, part_bytes};
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::report::Part;
use vramfit_core::scenario::{Engine, Framework, ModelSource, Scenario, TaskKind};

#[test]
fn the_fp32_parameters_are_the_ones_transformers_keeps() {
    let rows = csv_rows("fp32_kept.csv");
    assert!(rows.len() >= 300, "{} rows", rows.len());
    for row in &rows {
        let config = get(row, "config");
        let spec = from_hf_config(&config_text(config)).unwrap_or_else(|e| panic!("{config}: {e}"));
        assert_eq!(
            (spec.total_params(), spec.fp32_params),
            (
                get_u64(row, "num_parameters"),
                get_u64(row, "fp32_parameters")
            ),
            "{config}"
        );
    }
}

/// Apertus 1.5 in bf16 under transformers: 8,317,544,000 parameters at
/// 2 B, of which its tokenizers' 226,457,088 at 4 B; litgpt loads its own
/// way, every parameter at 2 B.
#[test]
fn a_transformers_load_charges_them_four_bytes() {
    let spec = from_hf_config(&config_text("variants_2026/apertus1p5__0.json")).expect("imports");
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Inference,
        ..Scenario::default()
    };
    sc.inference.engine = Engine::Transformers;
    assert_eq!(
        part_bytes(&sc, Part::Weights),
        8_317_544_000 * 2 + 226_457_088 * 2
    );
    sc.task = TaskKind::Training;
    sc.training.framework = Framework::Litgpt;
    assert_eq!(part_bytes(&sc, Part::Weights), 8_317_544_000 * 2);
}

/// NemotronH's routers (`gate.weight`, experts × hidden per MoE block) stay
/// fp32 in a 16-bit load, its wrapper's too: after a save and
/// `from_pretrained(dtype=torch.bfloat16)` of a tiny Nemotron-H Omni (two
/// MoE blocks of 4 experts over hidden 32) the only fp32 parameters are
/// its two routers, 4 × 32 each. (Its saved configs carry an infinite
/// `time_step_limit` the config class refuses to read back, so the table's
/// script cannot rebuild them.)
#[test]
fn nemotron_h_routers_stay_fp32() {
    let config = r#"{"model_type":"nemotron_h_omni","text_config":{"model_type":"nemotron_h","vocab_size":1000,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"mamba_num_heads":4,"mamba_head_dim":8,"n_groups":1,"ssm_state_size":8,"intermediate_size":48,"n_routed_experts":4,"moe_intermediate_size":16,"moe_shared_expert_intermediate_size":24,"num_experts_per_tok":2,"hybrid_override_pattern":"MEM*E"},"vision_config":{"hidden_size":16,"num_hidden_layers":1,"num_attention_heads":2,"max_img_size":64},"vision_hidden_size":16,"projector_hidden_size":16}"#;
    let spec = vramfit_core::hf_config::from_hf_config(config).expect("imports");
    assert_eq!(spec.fp32_params, 2 * 4 * 32);
}
