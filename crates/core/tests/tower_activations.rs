//! A trained vision tower's saved tensors per layer against the CPU
//! measurements in `tests/data/tower_acts/` (`measure_towers.py`: CLIP and
//! SigLIP vision models of transformers 5.24 / torch 2.15, two images,
//! four shapes, SDPA and eager, fp32 and bf16): exact to the byte. The CPU
//! keeps LayerNorm's mean and 1/std in the input dtype where CUDA keeps
//! fp32, which the check accounts for (2 norms × 2 statistics per token).

mod common;

use common::{csv_fields, data_dir};
use vramfit_core::activations::{tower_layer_terms, TowerBatch};
use vramfit_core::model::{TowerBlock, VisionTower};
use vramfit_core::scenario::Attention;

#[test]
fn clip_and_siglip_layers_save_what_the_hooks_saw() {
    let path = data_dir().join("tower_acts").join("tower_saved.csv");
    let text = std::fs::read_to_string(&path).expect("tower_saved.csv");
    let mut lines = text.lines();
    let header = csv_fields(lines.next().expect("header"));
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let mut checked = 0;
    for line in lines {
        let f = csv_fields(line);
        let block = match f[col("family")].as_str() {
            "clip" => TowerBlock::Clip,
            "siglip" => TowerBlock::Siglip,
            _ => continue,
        };
        let n = |name: &str| -> u64 { f[col(name)].parse().expect(name) };
        let act_bytes: u128 = if f[col("dtype")] == "bfloat16" { 2 } else { 4 };
        let tower = VisionTower {
            hidden: n("hidden"),
            layers: 4,
            heads: n("heads"),
            intermediate: n("intermediate"),
            image_size: n("image"),
            patch_size: n("patch"),
            block,
            ..VisionTower::default()
        };
        let tokens = u128::from(n("tokens"));
        let batch = TowerBatch {
            images: 2,
            tokens_per_image: tokens / 2,
            act_bytes,
            attention: if f[col("attention")] == "eager" {
                Attention::Eager
            } else {
                Attention::Sdpa
            },
        };
        let terms = tower_layer_terms(&tower, &batch).expect("measured family");
        let gpu: u128 = terms.iter().map(|t| t.bytes).sum();
        let cpu = gpu - 2 * (8 - 2 * act_bytes) * tokens;
        assert_eq!(cpu, u128::from(n("per_layer")), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 32);
}

#[test]
fn other_towers_are_not_claimed() {
    let tower = VisionTower {
        block: TowerBlock::Other,
        ..VisionTower::default()
    };
    let batch = TowerBatch {
        images: 1,
        tokens_per_image: 16,
        act_bytes: 2,
        attention: Attention::Sdpa,
    };
    assert!(tower_layer_terms(&tower, &batch).is_none());
}
