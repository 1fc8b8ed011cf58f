//! Parameter counts of the 2025–26 families against transformers: each
//! config fixture built on the meta device, `model.num_parameters()`
//! (tables and scripts in `data/params/`, torch 2.15.0, transformers 5.24.0).

mod common;

use std::path::Path;

use common::{config_text, csv_rows, data_dir, get, get_u64};
use vramfit_core::hf_config::from_hf_config;

/// Checks every row of `file` to the parameter. The bar is 0.1 %
/// of what transformers instantiates; every family here is modelled layer
/// by layer, so any difference at all is a mistake.
fn check_table(file: &str) -> usize {
    if !data_dir().join("params").join(file).exists() {
        return 0;
    }
    let mut failures = Vec::new();
    let rows = csv_rows(file);
    for row in &rows {
        let config = get(row, "config");
        let want = get_u64(row, "num_parameters");
        // The multimodal wrappers (Llama 4, Qwen3.5) import with their
        // vision tower: the total is the whole model's.
        let spec = match from_hf_config(&config_text(config)) {
            Ok(spec) => spec,
            Err(e) => {
                failures.push(format!("{config}: {e}"));
                continue;
            }
        };
        // the total the estimator uses (a params_override where the fields
        // cannot say that weights are shared: Zamba2)
        let got = vramfit_core::resolved::effective_counts(&spec).total;
        assert_eq!(got, spec.total_params(), "{config}");
        eprintln!(
            "{config:55} transformers {want:>15} ours {got:>15} {:+}",
            got as i128 - want as i128
        );
        if got != want {
            failures.push(format!("{config}: {got} vs {want}"));
        }
    }
    assert!(
        failures.is_empty(),
        "not the count transformers builds:\n{}",
        failures.join("\n")
    );
    rows.len()
}

#[test]
fn config_class_defaults_count_as_transformers_builds_them() {
    let rows = check_table("hf_defaults_2025.csv");
    // every family of the table has its default config measured
    assert!(rows >= 27, "{rows} rows");
}

#[test]
fn families_on_modelled_layers_count_as_transformers_builds_them() {
    check_table("hf_defaults_more.csv");
}

#[test]
fn families_added_in_2026_count_as_transformers_builds_them() {
    // class defaults plus varied small configs per family
    let rows = check_table("hf_variants_2026.csv");
    assert!(rows >= 20, "{rows} rows");
}

/// RoBERTa and the other encoders on BERT's layers, and ModernBERT, bare or with a
/// classification head (`measure_encoders.py`).
#[test]
fn encoders_count_as_transformers_builds_them() {
    let rows = check_table("hf_encoders.csv");
    assert!(rows >= 40, "{rows} rows");
}

/// Qwen2.5-Omni and Qwen3-Omni-MoE, whole (thinker, talker, vocoder) and
/// thinker alone (`measure_omni.py`); Qwen3-Omni-30B-A3B's geometry is
/// 35,259,818,545, its safetensors files' total.
#[test]
fn omni_models_count_as_transformers_builds_them() {
    let rows = check_table("hf_omni.csv");
    assert!(rows >= 22, "{rows} rows");
}

#[test]
fn published_configs_count_as_transformers_builds_them() {
    check_table("hf_measured_2025.csv");
}

#[test]
fn catalog_configs_count_as_transformers_builds_them() {
    let rows = check_table("hf_measured_catalog.csv");
    assert!(rows >= 60, "{rows} rows");
}

#[test]
fn fixtures_exist_for_every_row() {
    for row in csv_rows("hf_defaults_2025.csv") {
        let config = get(&row, "config");
        assert!(
            Path::new(&data_dir().join("configs").join(config)).exists(),
            "{config}"
        );
    }
}

/// What the config classes derive when a config leaves the lists out: the
/// sliding layers of `layer_types` and the dense layers of `mlp_layer_types`
/// that transformers built (`hf_variants_2026.csv`, blank where the class
/// keeps no such list) equal the importer's (DeepSeek-V4: its layers
/// without a compressor), for hand-written configs
/// (`first_k_dense_replace`, window patterns) as for saved ones.
#[test]
fn derived_layer_lists_match_the_config_classes() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in csv_rows("hf_variants_2026.csv") {
        let config = get(&row, "config");
        let spec = from_hf_config(&config_text(config)).expect("imports");
        let sliding = get(&row, "sliding_layers");
        // Gemma 4 keeps its global layers apart (`global_attention`);
        // families without a window list no sliding layers; Dory counts
        // its layers as they run (its cache, measured in `hybrid_cache.rs`),
        // as does Inkling 2 Loop, with images or without
        let runs_layers_again = config.contains("/dory__") || config.contains("/inkling2_loop");
        if !sliding.is_empty() && spec.global_attention.is_none() && !runs_layers_again {
            let windowed = spec.sliding_window.as_ref().map_or(0, |w| w.layers);
            // DeepSeek-V4's every layer has a window; the sliding ones
            // are those without a compressor
            let ours = match &spec.compressed_attention {
                Some(c) => windowed - c.csa_layers - c.hca_layers,
                None => windowed,
            };
            checked += 1;
            if sliding != ours.to_string() {
                failures.push(format!("{config}: sliding layers {ours} vs {sliding}"));
            }
        }
        let dense = get(&row, "dense_mlp_layers");
        if !dense.is_empty() {
            let ours = spec.moe.as_ref().map_or(spec.layers, |m| m.dense_layers);
            checked += 1;
            if dense != ours.to_string() {
                failures.push(format!("{config}: dense MLP layers {ours} vs {dense}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "{checked} lists checked");
}
