//! Shared helpers for the parameter-count tests: reading the fixtures and the
//! measured CSV files under `tests/data/`.

#![allow(dead_code)]

use std::path::PathBuf;

use vramfit_core::hf_config::from_hf_config;
use vramfit_core::model::ModelSpec;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

pub fn config_text(file: &str) -> String {
    let path = data_dir().join("configs").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Imports a fixture from `tests/data/configs/`.
pub fn import(file: &str) -> ModelSpec {
    from_hf_config(&config_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The JSON lines of a measured file under `tests/data/`, each with its text.
pub fn json_lines(relative: &str) -> Vec<(serde_json::Value, String)> {
    let path = data_dir().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| (serde_json::from_str(l).expect("a JSON line"), l.to_string()))
        .collect()
}

/// What CPU LayerNorms keep less than CUDA's, which the estimate models:
/// their mean and 1/std (2 per token) in the activation dtype, not fp32.
pub fn cpu_norm_stats(norms: u128, tokens: u128, act_bytes: u128) -> u128 {
    norms * tokens * (8 - 2 * act_bytes)
}

/// Splits one CSV line, honouring double-quoted fields.
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    fields.push(current);
    fields
}

/// Rows of a CSV file under `tests/data/params/` as (header -> value) lookups.
pub fn csv_rows(file: &str) -> Vec<Vec<(String, String)>> {
    csv_rows_in("params", file)
}

/// Rows of a CSV file under `tests/data/<dir>/` as (header -> value) lookups.
pub fn csv_rows_in(dir: &str, file: &str) -> Vec<Vec<(String, String)>> {
    let path = data_dir().join(dir).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header = csv_fields(lines.next().expect("header line"));
    lines
        .map(|l| header.iter().cloned().zip(csv_fields(l)).collect())
        .collect()
}

pub fn get<'a>(row: &'a [(String, String)], key: &str) -> &'a str {
    row.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("column {key} missing"))
}

pub fn get_u64(row: &[(String, String)], key: &str) -> u64 {
    get(row, key)
        .parse()
        .unwrap_or_else(|e| panic!("column {key}: {e}"))
}

/// Relative difference |a - b| / b.
pub fn rel_diff(a: u64, b: u64) -> f64 {
    (a as f64 - b as f64).abs() / b as f64
}

/// Lists the config classes derive from the layer count: rebuilt by
/// transformers when `num_hidden_layers` changes, so not carried over from
/// the full-size defaults.
const DERIVED_LISTS: &[&str] = &[
    "layer_types",
    "layers_block_type",
    "moe_layers",
    "no_rope_layers",
    "full_attn_idxs",
    "mlp_layer_types",
    "mlp_only_layers",
    "num_attention_heads_per_layer",
];

/// A measured tiny model's config as transformers resolves it (the cache
/// and recurrent-activation measurements): the class defaults
/// (`configs/defaults_2025/`) overridden by the fields the run set.
pub fn resolved_config(model_type: &str, set: &serde_json::Value) -> String {
    // the class defaults: defaults_2025's, or for the families added later
    // their variants' `__0` (class defaults as transformers saves them)
    let path = data_dir().join(format!("configs/defaults_2025/{model_type}.json"));
    let later = data_dir().join(format!("configs/variants_2026/{model_type}__0.json"));
    let mut full: serde_json::Map<String, serde_json::Value> = std::fs::read_to_string(path)
        .or_else(|_| std::fs::read_to_string(later))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    for key in DERIVED_LISTS {
        full.remove(*key);
    }
    if let Some(fields) = set.as_object() {
        for (k, v) in fields {
            full.insert(k.clone(), v.clone());
        }
    }
    serde_json::Value::Object(full).to_string()
}

/// Bytes of one part of the headline GPU's breakdown for a scenario.
pub fn part_bytes(sc: &vramfit_core::Scenario, part: vramfit_core::Part) -> u64 {
    vramfit_core::estimate(sc).expect("estimates").gpus[0]
        .lines
        .iter()
        .filter(|l| l.part == part)
        .map(|l| l.bytes)
        .sum()
}

/// The tower and batch one row of a tower measurement (`tower_acts`,
/// `tower_forward`) ran: `layers` layers of the row's widths, and its
/// images. CLIP's, SigLIP's, InternVL's and Llama 4's rows are two images
/// (tiles); the Qwen-VL towers' one image of `tokens` patches, Pixtral's
/// two images as one sequence.
pub fn measured_tower(
    row: &[(String, String)],
    block: vramfit_core::model::TowerBlock,
    layers: u64,
) -> (
    vramfit_core::model::VisionTower,
    vramfit_core::activations::TowerBatch,
) {
    use vramfit_core::scenario::Attention;
    let tokens = u128::from(get_u64(row, "tokens"));
    let images = if block.dynamic_resolution() || block.one_sequence() {
        1
    } else {
        2
    };
    let tower = vramfit_core::model::VisionTower {
        hidden: get_u64(row, "hidden"),
        layers,
        heads: get_u64(row, "heads"),
        intermediate: get_u64(row, "intermediate"),
        image_size: get_u64(row, "image"),
        patch_size: get_u64(row, "patch"),
        block,
        ..vramfit_core::model::VisionTower::default()
    };
    let batch = vramfit_core::activations::TowerBatch {
        images,
        tokens_per_image: tokens / images,
        act_bytes: if get(row, "dtype") == "bfloat16" {
            2
        } else {
            4
        },
        attention: if get(row, "attention") == "eager" {
            Attention::Eager
        } else {
            Attention::Sdpa
        },
    };
    (tower, batch)
}

/// One GPU serving a model of `layers` layers: no parallelism, no offload.
pub fn one_gpu(layers: u64) -> vramfit_core::parallel::Shards {
    vramfit_core::parallel::Shards {
        gpus: 1,
        tp: 1,
        pp: 1,
        dp: 1,
        strategy: vramfit_core::scenario::Strategy::None,
        offload: vramfit_core::scenario::Offload::None,
        sequence_parallel: false,
        layers: u128::from(layers),
        training: false,
    }
}

/// One layer of `spec` over `batch` sequences of `seq` tokens, every weight
/// trained, SDPA, no LoRA or dropout: what the CPU measurements ran.
pub fn plain_layer_shape(
    spec: &vramfit_core::model::ModelSpec,
    batch: u128,
    seq: u128,
    act_bytes: u128,
) -> vramfit_core::activations::LayerShape {
    vramfit_core::activations::LayerShape {
        batch,
        seq,
        hidden: u128::from(spec.hidden),
        intermediate: u128::from(spec.intermediate),
        heads: u128::from(spec.heads),
        kv_heads: u128::from(spec.kv_heads),
        head_dim: u128::from(spec.head_dim()),
        act_bytes,
        autocast: false,
        attention: vramfit_core::scenario::Attention::Sdpa,
        grads: vramfit_core::activations::GradNeeds::all(),
        lora: None,
        dropout: false,
        fp32_linear_inputs: false,
        cross_seq: 0,
        streams: 1,
        window_mask: false,
        routed_experts: 0,
    }
}

/// Llama-3.2-1B's public config values, with `layers` layers.
pub fn llama_1b(layers: u64) -> ModelSpec {
    ModelSpec {
        name: format!("Llama-3.2-1B dims, {layers} layers"),
        arch: vramfit_core::model::Arch::Llama,
        hidden: 2048,
        layers,
        heads: 32,
        kv_heads: 8,
        head_dim: Some(64),
        intermediate: 8192,
        vocab: 128256,
        max_position: 131072,
        tied_embeddings: true,
        mlp: vramfit_core::model::MlpKind::Gated,
        norm: vramfit_core::model::NormKind::Rms,
        ..ModelSpec::default()
    }
}

/// Llama-3-8B's public config values, with `layers` layers.
pub fn llama_8b(layers: u64) -> ModelSpec {
    ModelSpec {
        name: format!("Llama-3-8B dims, {layers} layers"),
        hidden: 4096,
        head_dim: Some(128),
        intermediate: 14336,
        max_position: 8192,
        tied_embeddings: false,
        ..llama_1b(layers)
    }
}

/// An encoder-decoder's cache after `generate()`, ours against a measured
/// row (`batch`, `source_len`, `new_tokens`, `dtype`, and the self- and
/// cross-attention bytes under `keys`): every decoder layer holds K/V over
/// its decoder tokens and over the source, the cache line's
/// (source + new) × bytes per token. Returns (ours, measured).
#[allow(dead_code)]
pub fn generate_cache_bytes(
    spec: &ModelSpec,
    line: &serde_json::Value,
    keys: [&str; 2],
) -> (u128, u128) {
    use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes};
    use vramfit_core::precision::Dtype;
    let dtype = match line["dtype"].as_str() {
        Some("bfloat16") => Dtype::Bf16,
        _ => Dtype::Fp32,
    };
    let number = |k: &str| u128::from(line[k].as_u64().unwrap_or_else(|| panic!("{k}")));
    let (batch, source) = (number("batch"), number("source_len"));
    let shards = one_gpu(spec.layers);
    let (per_token, _) = kv_bytes_per_token(spec, dtype, &shards);
    let tokens = (source + number("new_tokens"), source);
    let ours = kv_cache_bytes(spec, &shards, (per_token, dtype), batch, tokens);
    (ours, number(keys[0]) + number(keys[1]))
}
