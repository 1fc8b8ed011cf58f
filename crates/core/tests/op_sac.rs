//! torchtitan's per-op selective activation checkpointing against the CPU
//! measurements in `tests/data/sac/` (`measure_sac.py`: the SAC cache of
//! transformers 5.24 / torch 2.15 / peft 0.21.2 layers and of a block written
//! as torchtitan's Llama 3, README there). Every row is rebuilt as a
//! scenario and the estimator's activation bytes per layer,
//! (8 layers − 4 layers) / 4, must equal the measured layer input plus the
//! cached op outputs exactly, over shapes, dtypes and families.

mod common;

use common::{csv_rows_in, get, get_u64, part_bytes};
use vramfit_core::model::{Arch, MlpKind, ModelSpec, NormKind};
use vramfit_core::precision::{TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Framework, LoraTarget, Method, ModelSource, TaskKind,
};
use vramfit_core::{Part, Scenario};

struct Row {
    family: String,
    attention: String,
    dtype: String,
    dims: [u64; 7], // hidden, heads, kv_heads, head_dim, intermediate, batch, seq
    kept: u64,
}

fn rows() -> Vec<Row> {
    csv_rows_in("sac", "sac_saved.csv")
        .iter()
        .map(|row| {
            let n = |name: &str| get_u64(row, name);
            Row {
                family: get(row, "family").to_owned(),
                attention: get(row, "attention").to_owned(),
                dtype: get(row, "dtype").to_owned(),
                dims: [
                    n("hidden"),
                    n("heads"),
                    n("kv_heads"),
                    n("head_dim"),
                    n("intermediate"),
                    n("batch"),
                    n("seq"),
                ],
                kept: n("kept_bytes"),
            }
        })
        .collect()
}

fn spec(r: &Row, layers: u64) -> ModelSpec {
    let [hidden, heads, kv_heads, head_dim, intermediate, ..] = r.dims;
    let family = r.family.as_str();
    let arch = match family {
        "titan" | "llama" | "llama_lora_qv" | "llama_lora_all" => Arch::Llama,
        "qwen2" => Arch::Qwen2,
        "qwen3" => Arch::Qwen3,
        "gemma" => Arch::Gemma,
        "phi3" => Arch::Phi3,
        "gpt_neox" => Arch::GptNeox,
        other => panic!("family {other}"),
    };
    let neox = arch == Arch::GptNeox;
    ModelSpec {
        name: format!("{family}-cpu"),
        arch,
        hidden,
        layers,
        heads,
        kv_heads,
        head_dim: Some(head_dim),
        intermediate,
        vocab: 128,
        max_position: 256,
        tied_embeddings: family == "gemma",
        mlp: if neox { MlpKind::Plain } else { MlpKind::Gated },
        norm: if neox { NormKind::Layer } else { NormKind::Rms },
        qkv_bias: neox || family == "qwen2",
        out_bias: neox,
        parallel_block: neox,
        ..ModelSpec::default()
    }
}

/// The activations line of a training run of the row's model under op SAC.
fn activations(r: &Row, layers: u64) -> u64 {
    let [.., batch, seq] = r.dims;
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec(r, layers))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    (sc.weights, sc.training_precision) = match r.dtype.as_str() {
        "bfloat16" => (WeightFormat::Bf16, TrainingPrecision::Pure16),
        "float32" => (WeightFormat::Fp32, TrainingPrecision::Fp32),
        other => panic!("dtype {other}"),
    };
    sc.attention = match r.attention.as_str() {
        "sdpa" => Attention::Sdpa,
        "eager" => Attention::Eager,
        other => panic!("attention {other}"),
    };
    sc.training.framework = Framework::Transformers;
    sc.training.method = Method::Full;
    let targets = match r.family.as_str() {
        "llama_lora_qv" => Some(vec![LoraTarget::Q, LoraTarget::V]),
        "llama_lora_all" => {
            Some([LoraTarget::ATTENTION.to_vec(), LoraTarget::MLP.to_vec()].concat())
        }
        _ => None,
    };
    if let Some(targets) = targets {
        sc.training.method = Method::Lora;
        sc.training.lora.rank = 8;
        sc.training.lora.targets = targets;
        sc.training.lora.dropout = 0.0;
    }
    sc.training.checkpointing = Checkpointing::Op;
    sc.training.micro_batch = batch;
    sc.training.seq_len = seq;
    part_bytes(&sc, Part::Activations)
}

#[test]
fn op_sac_keeps_exactly_what_the_sac_cache_holds() {
    let rows = rows();
    assert!(rows.len() >= 80, "{} rows", rows.len());
    let mut families = std::collections::BTreeSet::new();
    for r in &rows {
        let per_layer = (activations(r, 8) - activations(r, 4)) / 4;
        assert_eq!(
            per_layer, r.kept,
            "{} {} {} {:?}: estimated {per_layer} B per layer, the SAC cache held {}",
            r.family, r.attention, r.dtype, r.dims, r.kept
        );
        families.insert(r.family.clone());
    }
    assert_eq!(families.len(), 9, "{families:?}");
}

/// A Llama-3-8B-sized layer at one 8192-token sequence, worked by hand
/// from the rule (q, k, v, o, gate, up, down: mm 1, 3, 5, 7 kept).
#[test]
fn op_sac_on_a_llama_3_8b_layer() {
    let row = Row {
        family: "llama".into(),
        attention: "sdpa".into(),
        dtype: "bfloat16".into(),
        dims: [4096, 32, 8, 128, 14336, 1, 8192],
        kept: 0,
    };
    let op = (activations(&row, 8) - activations(&row, 4)) / 4;
    // Layer input + q + v + gate + down + attention output, 2 B each, plus
    // the fp32 logsumexp: 2·s·(4096 + 4096 + 1024 + 14336 + 4096 + 4096) + 4·32·s.
    let tokens = 8192u64;
    assert_eq!(op, 2 * tokens * 31_744 + 4 * 32 * tokens);
}
