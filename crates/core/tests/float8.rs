//! float8 training (torchao's `Float8Linear`, torchtitan's `float8`
//! converter) saves, layer for layer, exactly what bf16 training saves: the
//! CPU measurement of `data/float8/` (torch 2.15.0, transformers 5.24.0,
//! torchao 0.18.0; tensorwise and rowwise recipes, three shapes) finds the
//! same bytes with and without the conversion, and the estimator's bf16
//! Llama layer terms equal them. So a float8 run's activations are its bf16
//! estimate.

mod common;

use common::{csv_rows_in, get, get_u64};
use vramfit_core::activations::{act_fn, layer_terms};
use vramfit_core::model::{Arch, ModelSpec};
use vramfit_core::scenario::Framework;

#[test]
fn float8_layers_save_what_bf16_layers_save_and_our_terms_say() {
    let rows = csv_rows_in("float8", "float8_saved.csv");
    assert!(rows.len() >= 6, "{} rows", rows.len());
    for row in &rows {
        let n = |k: &str| u128::from(get_u64(row, k));
        let float8 = n("float8_saved");
        assert_eq!(float8, n("bf16_saved"), "{}", get(row, "recipe"));
        let spec = ModelSpec {
            arch: Arch::Llama,
            hidden: get_u64(row, "hidden"),
            layers: 1,
            heads: get_u64(row, "heads"),
            kv_heads: get_u64(row, "kv_heads"),
            intermediate: get_u64(row, "intermediate"),
            vocab: 128,
            ..ModelSpec::default()
        };
        let shape = common::plain_layer_shape(&spec, n("batch"), n("seq"), 2);
        let ours: u128 = layer_terms(&shape, &spec, act_fn(&spec, Framework::Transformers))
            .iter()
            .map(|t| t.bytes)
            .sum();
        assert_eq!(ours, float8, "{row:?}");
    }
}
