//! Llama 3.2 Vision's cache against the cache objects transformers creates:
//! small random-weight `MllamaForConditionalGeneration` models of three
//! shapes, prefilled on 1 to 3 images per prompt and decoded two tokens, in
//! fp32 and bf16 (`data/cache/cross_cache.jsonl`, torch 2.15.0, transformers
//! 5.24.0). The cross-attention layers' K/V must equal our cross-attention
//! cache, sized by the image rule's tower tokens, and the other layers' K/V
//! our KV cache over the text, to the byte, after the prefill and after
//! decoding alike.

mod common;

use common::{data_dir, one_gpu};
use vramfit_core::cross_attention::cross_cache_bytes_per_sequence;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::image_tokens::tokens;
use vramfit_core::inference::{kv_bytes_per_token, kv_cache_bytes};
use vramfit_core::precision::Dtype;

fn kind_bytes(line: &serde_json::Value, kind: &str) -> u128 {
    line["layers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"] == kind)
        .flat_map(|l| l["tensors"].as_array().into_iter().flatten())
        .map(|t| u128::from(t["bytes"].as_u64().unwrap_or(0)))
        .sum()
}

#[test]
fn cross_and_self_attention_caches_equal_what_transformers_holds() {
    let text = std::fs::read_to_string(data_dir().join("cache/cross_cache.jsonl"))
        .expect("cross-attention cache measurements");
    let mut checked = 0;
    for (i, row) in text.lines().enumerate() {
        let line: serde_json::Value = serde_json::from_str(row).expect("json line");
        let config = serde_json::json!({
            "model_type": "mllama",
            "text_config": line["text_config"],
            "vision_config": line["vision_config"],
        });
        let spec = from_hf_config(&config.to_string()).unwrap_or_else(|e| panic!("line {i}: {e}"));
        let dtype = match line["dtype"].as_str() {
            Some("bfloat16") => Dtype::Bf16,
            _ => Dtype::Fp32,
        };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let images = line["images_per_prompt"].as_u64().expect("images");
        let side = line["vision_config"]["image_size"].as_u64().expect("side");
        // The tower tokens of one image, by the family's image rule: every
        // tile slot, padded or not, with its class token.
        let rule = spec.image_rule.as_ref().expect("mllama has an image rule");
        let per_image = tokens(rule, side, side).expect("sized").tower_tokens;
        let (cross, _) = cross_cache_bytes_per_sequence(&spec, dtype, (1, 1), images * per_image)
            .expect("cross-attention layers");
        let shards = one_gpu(spec.layers);
        let (per_token, _) = kv_bytes_per_token(&spec, dtype, &shards);
        let total = u128::from(line["total_len"].as_u64().expect("length"));
        let kv = kv_cache_bytes(&spec, &shards, (per_token, dtype), batch, (total, total));
        assert_eq!(
            (batch * cross, kv),
            (
                kind_bytes(&line, "cross_attention"),
                kind_bytes(&line, "full_attention")
            ),
            "line {i}: (cross-attention, self-attention) bytes"
        );
        checked += 1;
    }
    assert!(checked >= 36, "{checked} measurements");
}

/// The 11B shape served with two phone photos per prompt: every image
/// fills all 4 tile slots of 1601 tokens (40 × 40 patches and the class
/// token), whatever its size, so each of the 8 cross-attention layers keeps
/// K and V over 2 × 4 × 1601 tokens per sequence, and the 32 other layers
/// a per-token cache over the text.
#[test]
fn a_served_llama_3_2_vision_keeps_k_and_v_over_every_tile_slot() {
    use vramfit_core::report::Part;
    use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
    let path = data_dir().join("configs/vlm/made_up__mllama_11b_shape.json");
    let spec = from_hf_config(&std::fs::read_to_string(path).expect("fixture")).expect("imports");
    assert_eq!(
        (spec.cross_attention_layers, spec.attention_layer_count()),
        (8, 32)
    );
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Inference,
        image_width: Some(4032),
        image_height: Some(3024),
        ..Scenario::default()
    };
    sc.inference.batch = 3;
    sc.inference.images_per_prompt = 2;
    let e = vramfit_core::estimate::estimate(&sc).expect("estimates");
    let line = |part: Part| {
        e.gpus[0]
            .lines
            .iter()
            .find(|l| l.part == part)
            .map_or(0, |l| l.bytes)
    };
    let per_sequence = 8 * 2 * 8 * 128 * (2 * 4 * 1601) * 2;
    assert_eq!(line(Part::CrossAttentionCache), 3 * per_sequence);
    // Halving the images halves it; the per-token cache does not move
    // but for the one image token fewer per prompt.
    sc.inference.images_per_prompt = 1;
    let one = vramfit_core::estimate::estimate(&sc).expect("estimates");
    let cross_one = one.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == Part::CrossAttentionCache)
        .map_or(0, |l| l.bytes);
    assert_eq!(cross_one, 3 * per_sequence / 2);
}
