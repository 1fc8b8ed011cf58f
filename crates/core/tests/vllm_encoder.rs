//! vLLM's profile run of a VLM: its encoder over a dummy batch of the
//! processor's largest image (`GPUModelRunner.profile_run`,
//! `vllm/multimodal/encoder_budget.py`) before the text step, the
//! embeddings held through it. The item counts are the ones vLLM logs as
//! "Encoder cache will be initialized with a budget of N tokens, and
//! profiled with M image items of the maximum feature size".

mod common;

use vramfit_core::activations::tower_forward_bytes;
use vramfit_core::image_tokens::largest::most_features;
use vramfit_core::image_tokens::ImageRule;
use vramfit_core::scenario::{Attention, Engine, ModelSource, Scenario};
use vramfit_core::Part;

fn served(spec: vramfit_core::model::ModelSpec) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        ..Scenario::default()
    };
    sc.inference.engine = Engine::Vllm;
    sc.inference.images_per_prompt = 1;
    sc.inference.prompt_len = 4096;
    sc.inference.new_tokens = 512;
    // An H100: vLLM's defaults of 1024 sequences and 8192 batched tokens.
    sc.gpu.name = Some("h100-sxm5-80gb".into());
    sc
}

/// The largest image of each rule: Qwen-VL's square at `max_pixels`
/// (the Hub's Qwen2.5-VL preprocessor: 12845056 pixels, 16384 tokens,
/// the budget vLLM logs for it), InternVL's 12 tiles with a thumbnail,
/// LLaVA-NeXT's pinpoint with the most features, Gemma 3's fixed square.
#[test]
fn the_largest_image_of_each_rule() {
    let qwen = ImageRule::QwenVl {
        patch: 14,
        merge: 2,
        min_pixels: 3136,
        max_pixels: 12_845_056,
    };
    let t = most_features(&qwen).expect("a size");
    assert_eq!((t.tower_tokens, t.language_model_tokens), (65_536, 16_384));
    let processor_default = most_features(&qwen.with_max_pixels(1_003_520)).expect("a size");
    // 980 px square: 70 × 70 patches, 35 × 35 tokens.
    assert_eq!(processor_default.language_model_tokens, 1225);

    let internvl = ImageRule::InternVl {
        tile: 448,
        patch: 14,
        min_tiles: 1,
        max_tiles: 12,
        tokens_per_tile: 256,
    };
    let t = most_features(&internvl).expect("a size");
    assert_eq!(t.tiles, Some(13));
    assert_eq!(t.language_model_tokens, 13 * 256);
    // Each tile through the tower with its class token.
    assert_eq!(t.tower_tokens, 13 * (32 * 32 + 1));

    let next = common::import("vlm/defaults__llava_next.json");
    let t = most_features(next.image_rule.as_ref().expect("a rule")).expect("a size");
    // The 336 × 1344 pinpoints: 4 crops and the base, 576 tokens each, less
    // nothing unpadded, plus a newline per row of 24 or 96 features.
    assert!(t.language_model_tokens > 4 * 576 + 576, "{t:?}");
    for &(h, w) in &[(336u64, 1344u64), (1344, 336), (672, 672)] {
        let other =
            vramfit_core::image_tokens::tokens(next.image_rule.as_ref().expect("a rule"), w, h)
                .expect("tokens");
        assert!(other.language_model_tokens <= t.language_model_tokens);
    }
}

/// Qwen2-VL-2B at the Hub's `max_pixels`: one 16384-token image (budget
/// 16384 > 8192 batched tokens), 65536 tower tokens, whose forward is the
/// profile's peak; at the processor's default a batch of 6 images of 1225.
#[test]
fn qwen2_vl_profile_runs_its_encoder_over_the_largest_image() {
    let mut vlm = common::import("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
    let tower = vlm.vision.clone().expect("a tower");
    let rule = vlm.image_rule.clone().expect("a rule");
    let mut text = vlm.clone();
    text.vision = None;
    text.image_rule = None;
    let text_peak = common::part_bytes(&served(text), Part::Activations) as u128;

    for (max_pixels, items, tower_tokens, embeddings) in [
        (12_845_056u64, 1u128, 65_536u128, 16_384u128),
        (1_003_520, 6, 4900, 1225),
    ] {
        vlm.image_rule = Some(rule.with_max_pixels(max_pixels));
        let peak = common::part_bytes(&served(vlm.clone()), Part::Activations) as u128;
        let total = items * tower_tokens;
        let (forward, _) =
            tower_forward_bytes(&tower, total, &[(items, tower_tokens)], 2, Attention::Flash);
        let held = items * embeddings * u128::from(vlm.hidden) * 2;
        assert_eq!(
            peak,
            forward.max(text_peak + held),
            "max_pixels {max_pixels}"
        );
    }
    // At 65536 tower tokens the encoder's forward is the peak, above the
    // text step's 1024 sampled rows of Qwen2's 151936-entry vocabulary.
    vlm.image_rule = Some(rule.with_max_pixels(12_845_056));
    let (forward, _) = tower_forward_bytes(&tower, 65_536, &[(1, 65_536)], 2, Attention::Flash);
    assert!(forward > text_peak + 16_384 * u128::from(vlm.hidden) * 2);
    assert_eq!(
        common::part_bytes(&served(vlm), Part::Activations) as u128,
        forward
    );
}

/// Gemma 3's fixed 256-token images: 8192 ÷ 256 = 32 dummy images, 4096
/// SigLIP tokens each; fewer batched tokens, fewer images and a larger pool.
#[test]
fn fixed_size_images_fill_the_batched_tokens() {
    let gemma = common::import("vlm/google__gemma-3-4b-it.json");
    let tower = gemma.vision.clone().expect("a tower");
    let mut sc = served(gemma.clone());
    let peak = common::part_bytes(&sc, Part::Activations) as u128;
    let (forward, _) = tower_forward_bytes(&tower, 32 * 4096, &[(32, 4096)], 2, Attention::Flash);
    assert!(peak >= forward);
    let pool = common::part_bytes(&sc, Part::KvCache);
    sc.inference.max_num_batched_tokens = Some(2048);
    let fewer = common::part_bytes(&sc, Part::Activations) as u128;
    let (forward_8, _) = tower_forward_bytes(&tower, 8 * 4096, &[(8, 4096)], 2, Attention::Flash);
    assert!(fewer < peak && fewer >= forward_8);
    assert!(common::part_bytes(&sc, Part::KvCache) > pool);
}

/// The note names the mechanism for a VLM on vLLM only.
#[test]
fn the_encoder_note_is_for_a_vlm_on_vllm() {
    use vramfit_core::estimate::estimate;
    let sc = served(common::import("vlm/Qwen__Qwen2-VL-2B-Instruct.json"));
    let has_note = |sc: &Scenario| {
        estimate(sc)
            .expect("estimates")
            .notes
            .iter()
            .any(|n| n.code == "vllm_encoder_profile")
    };
    assert!(has_note(&sc));
    let mut hf = sc.clone();
    hf.inference.engine = Engine::Transformers;
    assert!(!has_note(&hf));
    let mut text = sc.clone();
    text.model = ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into());
    text.inference.images_per_prompt = 0;
    assert!(!has_note(&text));
}
