//! A trained vision tower's saved tensors per layer against the CPU
//! measurements in `tests/data/tower_acts/` (`measure_towers.py`: CLIP,
//! SigLIP, Qwen2-VL, Qwen3-VL, InternVL and Qwen2.5-VL vision models of
//! transformers 5.24 / torch 2.15, four shapes, SDPA and eager, fp32 and
//! bf16). The CPU keeps LayerNorm's mean and 1/std in the input dtype where
//! CUDA keeps fp32, which the check accounts for (2 norms × 2 statistics
//! per token).

mod common;

use common::{csv_rows_in, get, get_u64, measured_tower};
use vramfit_core::activations::{tower_layer_terms, TowerBatch};
use vramfit_core::model::{TowerBlock, VisionTower};
use vramfit_core::scenario::Attention;

/// One measured row as the tower and batch it ran, its layer's bytes on the
/// CPU, and its family.
struct Measured {
    family: String,
    eager: bool,
    tower: VisionTower,
    batch: TowerBatch,
    per_layer: u128,
}

fn measured(block_of: impl Fn(&str) -> Option<TowerBlock>) -> Vec<Measured> {
    csv_rows_in("tower_acts", "tower_saved.csv")
        .into_iter()
        .filter_map(|row| {
            let family = get(&row, "family").to_owned();
            let block = block_of(&family)?;
            let (tower, batch) = measured_tower(&row, block, 4);
            Some(Measured {
                eager: batch.attention == Attention::Eager,
                tower,
                batch,
                per_layer: u128::from(get_u64(&row, "per_layer")),
                family,
            })
        })
        .collect()
}

fn layer_bytes(m: &Measured) -> u128 {
    tower_layer_terms(&m.tower, &m.batch)
        .expect("a measured family")
        .iter()
        .map(|t| t.bytes)
        .sum()
}

#[test]
fn clip_siglip_qwen_vl_internvl_and_llama4_layers_save_what_the_hooks_saw() {
    let rows = measured(|family| match family {
        "clip" => Some(TowerBlock::Clip),
        "siglip" => Some(TowerBlock::Siglip),
        "qwen2_vl" => Some(TowerBlock::Qwen2Vl),
        "qwen3_vl" => Some(TowerBlock::Qwen3Vl),
        "internvl" => Some(TowerBlock::InternVit),
        "internvl_rms" => Some(TowerBlock::InternVitRms),
        "internvl_qk" => Some(TowerBlock::InternVitQk),
        "internvl_rms_qk" => Some(TowerBlock::InternVitRmsQk),
        "llama4" => Some(TowerBlock::Llama4),
        "mllama" => Some(TowerBlock::Mllama),
        _ => None,
    });
    for m in &rows {
        let gpu = layer_bytes(m);
        let tokens = m.batch.images * m.batch.tokens_per_image;
        // The CPU's LayerNorm statistics (RMSNorm keeps fp32 on both).
        let cpu = if m.tower.block.rms_norm() {
            gpu
        } else {
            gpu - 2 * (8 - 2 * m.batch.act_bytes) * tokens
        };
        assert_eq!(cpu, m.per_layer, "{} {:?} {:?}", m.family, m.tower, m.batch);
    }
    assert_eq!(rows.len(), 160);
}

/// Llama 3.2 Vision's global layers: a local layer's tensors plus the two
/// gated ones and their tanh scalars (rows varying the global layers).
#[test]
fn llama_3_2_vision_global_layers_keep_their_gated_tensors() {
    let rows = measured(|family| (family == "mllama_global").then_some(TowerBlock::Mllama));
    for m in &rows {
        let tokens = m.batch.images * m.batch.tokens_per_image;
        let local = layer_bytes(m) - 2 * (8 - 2 * m.batch.act_bytes) * tokens;
        let one_gated = VisionTower {
            gated_layers: 1,
            ..m.tower.clone()
        };
        let gates = vramfit_core::activations::tower_gate_bytes(&one_gated, tokens, &m.batch);
        assert_eq!(local + gates, m.per_layer, "{:?}", m.batch);
    }
    assert_eq!(rows.len(), 16);
}

/// Qwen2.5-VL's blocks, windowed and full-attention (one image of T
/// patches, windows of 16): exact under SDPA either way and under eager
/// for full attention; eager windows are bounded by the full span.
#[test]
fn qwen25_vl_blocks_save_what_the_hooks_saw() {
    let rows = measured(|family| {
        family
            .starts_with("qwen2_5_vl")
            .then_some(TowerBlock::Qwen25Vl)
    });
    let (mut exact, mut bounded) = (0, 0);
    for m in &rows {
        let ours = layer_bytes(m);
        if m.eager && m.family == "qwen2_5_vl" {
            assert!(
                ours >= m.per_layer,
                "{} {:?}: {ours} < {}",
                m.family,
                m.batch,
                m.per_layer
            );
            bounded += 1;
        } else {
            assert_eq!(ours, m.per_layer, "{} {:?}", m.family, m.batch);
            exact += 1;
        }
    }
    assert_eq!((exact, bounded), (24, 8));
}

/// GLM-4.1V's blocks (`Glm4vVisionBlock`, full attention over each image):
/// Qwen2.5-VL's saved tensors to the byte, SDPA and eager, fp32 and bf16.
#[test]
fn glm4v_blocks_save_what_qwen25_vl_blocks_save() {
    let rows = measured(|family| (family == "glm4v").then_some(TowerBlock::Qwen25Vl));
    for m in &rows {
        assert_eq!(layer_bytes(m), m.per_layer, "{:?}", m.batch);
    }
    assert_eq!(rows.len(), 16);
}

/// Pixtral's blocks: two images as one sequence under a block-diagonal
/// mask, SDPA and eager (softmax over the whole sequence), fp32 and bf16.
#[test]
fn pixtral_blocks_save_what_the_hooks_saw() {
    let rows = measured(|family| (family == "pixtral").then_some(TowerBlock::Pixtral));
    for m in &rows {
        assert_eq!(layer_bytes(m), m.per_layer, "{:?} {:?}", m.tower, m.batch);
    }
    assert_eq!(rows.len(), 16);
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

/// OpenGVLab's remote-code InternViT checkpoints its own layers
/// (`InternVisionEncoder.gradient_checkpointing = True` from its
/// constructor): trained without the trainer's checkpointing, its tower
/// keeps each layer's input and one recomputed layer, as transformers'
/// converted tower does only under checkpointing.
#[test]
fn remote_code_internvit_keeps_only_its_layer_inputs() {
    use vramfit_core::scenario::{Checkpointing, Method, ModelSource, Scenario, TaskKind};
    use vramfit_core::Part;
    let remote = common::import("remote_code/OpenGVLab__InternVL3-1B.json");
    let tower = remote.vision.clone().expect("a tower");
    assert!(tower.block.always_checkpointed());
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(remote)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Full;
    sc.training.checkpointing = Checkpointing::Off;
    sc.training.seq_len = 256;
    sc.training.images_per_sample = 1;
    (sc.image_width, sc.image_height) = (Some(448), Some(448));
    let trained = common::part_bytes(&sc, Part::Activations);
    sc.training.freeze_vision = true;
    let frozen = common::part_bytes(&sc, Part::Activations);
    // One 448 px tile: 32² patches and the class token, bf16.
    let tokens = 1025u128;
    let batch = TowerBatch {
        images: 1,
        tokens_per_image: tokens,
        act_bytes: 2,
        attention: Attention::Sdpa,
    };
    let one_layer: u128 = tower_layer_terms(&tower, &batch)
        .expect("InternViT's terms")
        .iter()
        .map(|t| t.bytes)
        .sum();
    let inputs = u128::from(tower.layers) * 2 * tokens * u128::from(tower.hidden);
    assert_eq!(u128::from(trained - frozen), inputs + one_layer);
    assert!(inputs + one_layer < u128::from(tower.layers) * one_layer / 4);
}
