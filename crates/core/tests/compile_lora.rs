//! PEFT LoRA layers under torch.compile against the CPU measurements in
//! `tests/data/compile/lora_compiled.jsonl` (`measure_lora_compiled.py`:
//! transformers 5.24, peft 0.21.2, torch 2.15, inductor; README there). Each
//! row is one family × adapted modules × rank, eager or compiled; the
//! estimator's activation bytes per layer, (4 layers − 2 layers) / 2, must
//! equal the measured ones exactly. Rows with 16-bit adapters
//! (`autocast_adapter_dtype=False`) are data: a scenario's PEFT adapters are
//! PEFT's default fp32 ones.

mod common;

use common::{json_lines, part_bytes};
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind};
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Framework, LoraTarget, Method, ModelSource, TaskKind,
};
use vramfit_core::{Part, Scenario};

struct Row {
    family: String,
    targets: Vec<LoraTarget>,
    rank: u64,
    fp32_adapters: bool,
    compiled: bool,
    dims: [u64; 6],
    batch: u64,
    seq: u64,
    per_layer: u64,
}

fn rows() -> Vec<Row> {
    json_lines("compile/lora_compiled.jsonl")
        .into_iter()
        .map(|(v, l)| {
            let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {l}"));
            let targets = v["targets"]
                .as_array()
                .expect("targets")
                .iter()
                .map(|t| match t.as_str().expect("a target") {
                    "q" => LoraTarget::Q,
                    "k" => LoraTarget::K,
                    "v" => LoraTarget::V,
                    "o" => LoraTarget::O,
                    "gate" => LoraTarget::Gate,
                    "up" => LoraTarget::Up,
                    "down" => LoraTarget::Down,
                    other => panic!("target {other}"),
                })
                .collect();
            Row {
                family: v["family"].as_str().expect("family").to_string(),
                targets,
                rank: n("rank"),
                fp32_adapters: v["fp32_adapters"].as_bool().expect("fp32_adapters"),
                compiled: v["compiled"].as_bool().expect("compiled"),
                dims: [
                    "hidden",
                    "intermediate",
                    "heads",
                    "kv_heads",
                    "head_dim",
                    "vocab",
                ]
                .map(n),
                batch: n("b"),
                seq: n("s"),
                per_layer: n("per_layer"),
            }
        })
        .collect()
}

fn spec(r: &Row, layers: u64) -> ModelSpec {
    let arch = match r.family.as_str() {
        "llama" => Arch::Llama,
        "qwen2" => Arch::Qwen2,
        "qwen3" => Arch::Qwen3,
        "gemma" => Arch::Gemma,
        other => panic!("family {other}"),
    };
    let [hidden, intermediate, heads, kv_heads, head_dim, vocab] = r.dims;
    ModelSpec {
        name: format!("{}-cpu", r.family),
        arch,
        hidden,
        layers,
        heads,
        kv_heads,
        head_dim: Some(head_dim),
        intermediate,
        vocab,
        max_position: 4096,
        tied_embeddings: false,
        mlp: MlpKind::Gated,
        norm: NormKind::Rms,
        qkv_bias: r.family == "qwen2",
        ..ModelSpec::default()
    }
}

fn activations(r: &Row, layers: u64) -> u64 {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec(r, layers))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.weights = WeightFormat::Bf16;
    sc.training_precision = TrainingPrecision::Pure16;
    sc.attention = Attention::Sdpa;
    sc.training.framework = Framework::Transformers;
    sc.training.method = Method::Lora;
    sc.training.lora.rank = r.rank;
    sc.training.lora.targets = r.targets.clone();
    sc.training.lora.dropout = 0.0;
    sc.training.checkpointing = Checkpointing::Off;
    sc.training.micro_batch = r.batch;
    sc.training.seq_len = r.seq;
    sc.training.compile = r.compiled;
    part_bytes(&sc, Part::Activations)
}

#[test]
fn lora_layers_save_what_was_measured_eager_and_compiled() {
    let rows = rows();
    let checked: Vec<&Row> = rows.iter().filter(|r| r.fp32_adapters).collect();
    assert!(checked.iter().filter(|r| r.compiled).count() >= 7);
    for family in ["llama", "qwen2", "qwen3", "gemma"] {
        assert!(
            checked.iter().any(|r| r.family == family && r.compiled),
            "{family}"
        );
    }
    for r in checked {
        let est = (activations(r, 4) - activations(r, 2)) / 2;
        assert_eq!(
            est, r.per_layer,
            "{} {:?} r{} compiled={}",
            r.family, r.targets, r.rank, r.compiled
        );
    }
}
