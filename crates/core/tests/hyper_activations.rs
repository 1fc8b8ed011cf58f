//! The hyper-connections' saved tensors against what PyTorch saved on CPU
//! (`data/hyper/hyper_saved.jsonl`, torch 2.15.0, transformers 5.24.0):
//! per decoder layer of tiny DeepSeek-V4, GLM-5.3-Flash, HY-V4 and
//! Qwen4-Exp models (manifold, independent and low-rank gated), with 2
//! and 4 streams, hidden 64 and 96, two batch shapes, fp32 and bf16, the
//! connections trained and frozen, the bytes saved inside the two
//! connection modules and by the layer's own expand-and-mix code
//! equal our term to the byte.

mod common;

use common::{data_dir, plain_layer_shape};
use vramfit_core::activations::{act_fn, layer_bytes, layer_terms, LayerShape};
use vramfit_core::model::{HyperConnections, HyperKind, ModelSpec};
use vramfit_core::scenario::{Checkpointing, Framework};

fn spec(row: &serde_json::Value) -> ModelSpec {
    let get = |k: &str| row[k].as_u64().expect(k);
    ModelSpec {
        hidden: get("hidden"),
        heads: 2,
        kv_heads: 2,
        intermediate: 2 * get("hidden"),
        hyper_connections: Some(HyperConnections {
            streams: get("hc_mult"),
            kind: match row["family"].as_str() {
                Some("hy_v4") => HyperKind::Independent,
                Some("qwen4_exp") => HyperKind::LowRank {
                    rank: get("hc_lowrank"),
                },
                family => HyperKind::Manifold {
                    sinkhorn_iters: get("sinkhorn_iters"),
                    // DeepSeek-V4 keeps `fn` in fp32; GLM-5.3-Flash's follows the dtype
                    fn_fp32: family == Some("deepseek_v4"),
                },
            },
        }),
        ..ModelSpec::default()
    }
}

fn shape(row: &serde_json::Value, spec: &ModelSpec) -> LayerShape {
    let bytes = if row["dtype"] == "bfloat16" { 2 } else { 4 };
    let get = |k: &str| u128::from(row[k].as_u64().expect(k));
    let mut l = plain_layer_shape(spec, get("batch"), get("seq"), bytes);
    l.grads.norms = row["frozen_hc"] != true;
    l.streams = get("hc_mult");
    l
}

#[test]
fn hyper_connections_save_what_pytorch_saved() {
    let text =
        std::fs::read_to_string(data_dir().join("hyper/hyper_saved.jsonl")).expect("measurements");
    let mut checked = 0;
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("json line");
        let spec = spec(&row);
        let l = shape(&row, &spec);
        let ours: u128 = layer_terms(&l, &spec, act_fn(&spec, Framework::Transformers))
            .iter()
            .filter(|t| t.name == "hyper-connections")
            .map(|t| t.bytes)
            .sum();
        for layer in row["layers"].as_array().expect("layers") {
            let measured =
                layer["hc_bytes"].as_u64().unwrap_or(0) + layer["glue_bytes"].as_u64().unwrap_or(0);
            assert_eq!(ours, u128::from(measured), "{line}");
            checked += 1;
        }
    }
    assert!(checked >= 250, "{checked} layers");
}

/// A checkpointed layer keeps its whole input: all four streams.
#[test]
fn a_checkpointed_layer_keeps_every_stream() {
    let row = serde_json::json!({"family": "glm5_next", "hidden": 4096, "hc_mult": 4,
        "sinkhorn_iters": 20, "batch": 1, "seq": 4096, "dtype": "bfloat16", "frozen_hc": false});
    let spec = spec(&row);
    let l = shape(&row, &spec);
    let terms = layer_terms(&l, &spec, act_fn(&spec, Framework::Transformers));
    assert_eq!(
        layer_bytes(&terms, &l, Checkpointing::Full),
        2 * 4096 * 4096 * 4
    );
}
