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
fn clip_siglip_qwen_vl_and_internvl_layers_save_what_the_hooks_saw() {
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
            "qwen2_vl" => TowerBlock::Qwen2Vl,
            "qwen3_vl" => TowerBlock::Qwen3Vl,
            "internvl" => TowerBlock::InternVit,
            "internvl_rms" => TowerBlock::InternVitRms,
            _ => continue,
        };
        // Qwen-VL rows are one image of `tokens` patches; CLIP's and
        // SigLIP's two images.
        let images = if matches!(block, TowerBlock::Qwen2Vl | TowerBlock::Qwen3Vl) {
            1
        } else {
            2
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
            images,
            tokens_per_image: tokens / images,
            act_bytes,
            attention: if f[col("attention")] == "eager" {
                Attention::Eager
            } else {
                Attention::Sdpa
            },
        };
        let terms = tower_layer_terms(&tower, &batch).expect("measured family");
        let gpu: u128 = terms.iter().map(|t| t.bytes).sum();
        // The CPU's LayerNorm statistics (RMSNorm keeps fp32 on both).
        let cpu = if block == TowerBlock::InternVitRms {
            gpu
        } else {
            gpu - 2 * (8 - 2 * act_bytes) * tokens
        };
        assert_eq!(cpu, u128::from(n("per_layer")), "{line}");
        checked += 1;
    }
    assert_eq!(checked, 96);
}

/// Qwen2.5-VL's blocks, windowed and full-attention (one image of T
/// patches, windows of 16): exact under SDPA either way and under eager
/// for full attention; eager windows are bounded by the full span.
#[test]
fn qwen25_vl_blocks_save_what_the_hooks_saw() {
    let path = data_dir().join("tower_acts").join("tower_saved.csv");
    let text = std::fs::read_to_string(&path).expect("tower_saved.csv");
    let mut lines = text.lines();
    let header = csv_fields(lines.next().expect("header"));
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (mut exact, mut bounded) = (0, 0);
    for line in lines {
        let f = csv_fields(line);
        let full = match f[col("family")].as_str() {
            "qwen2_5_vl" => false,
            "qwen2_5_vl_full" => true,
            _ => continue,
        };
        let n = |name: &str| -> u64 { f[col(name)].parse().expect(name) };
        let eager = f[col("attention")] == "eager";
        let tower = VisionTower {
            hidden: n("hidden"),
            layers: 4,
            heads: n("heads"),
            intermediate: n("intermediate"),
            image_size: n("image"),
            patch_size: n("patch"),
            block: TowerBlock::Qwen25Vl,
            ..VisionTower::default()
        };
        let batch = TowerBatch {
            images: 1,
            tokens_per_image: u128::from(n("tokens")),
            act_bytes: if f[col("dtype")] == "bfloat16" { 2 } else { 4 },
            attention: if eager {
                Attention::Eager
            } else {
                Attention::Sdpa
            },
        };
        let ours: u128 = tower_layer_terms(&tower, &batch)
            .expect("modelled")
            .iter()
            .map(|t| t.bytes)
            .sum();
        let measured = u128::from(n("per_layer"));
        if eager && !full {
            assert!(ours >= measured, "{line}: {ours} < {measured}");
            bounded += 1;
        } else {
            assert_eq!(ours, measured, "{line}");
            exact += 1;
        }
    }
    assert_eq!((exact, bounded), (24, 8));
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
