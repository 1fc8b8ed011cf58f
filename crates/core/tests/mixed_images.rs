//! A batch whose images differ in size (`image_mix`): every family's tower
//! runs only the batch's real images, so it costs the sum of their tokens
//! (packed), while the collator pads each sample's sequence to the longest
//! one, so the language model costs the longest sample times the batch.

mod common;

use common::{import, part_bytes};
use vramfit_core::estimate::estimate;
use vramfit_core::image_tokens::tokens;
use vramfit_core::scenario::{Method, ModelSource, Scenario, TaskKind};
use vramfit_core::vision::sample_images;
use vramfit_core::Part;

const PHONE: (u64, u64) = (4032, 3024);
const SQUARE: (u64, u64) = (336, 336);
const PAGE: (u64, u64) = (1700, 2200);

fn training(config: &str) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(import(config))),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.seq_len = 256;
    sc.training.images_per_sample = 1;
    sc
}

/// The language-model tokens of one image of `size` under the config's rule.
fn lm_tokens(config: &str, size: (u64, u64)) -> u64 {
    let rule = import(config).image_rule.expect("an image rule");
    tokens(&rule, size.0, size.1)
        .expect("a size the rule takes")
        .language_model_tokens
}

fn activations(sc: &Scenario) -> u64 {
    part_bytes(sc, Part::Activations)
}

/// One image of `size` in the tower, alone: a micro-batch of one with the
/// tower trained minus the same with it frozen.
fn tower_alone(config: &str, size: (u64, u64)) -> u64 {
    let mut sc = training(config);
    sc.image_mix = vec![size];
    let trained = activations(&sc);
    sc.training.freeze_vision = true;
    trained - activations(&sc)
}

#[test]
fn the_tower_costs_the_sum_of_a_mixed_batch_and_the_sequence_the_longest_sample() {
    for config in [
        // Dynamic resolution: one attention pass per image.
        "vlm/Qwen__Qwen2-VL-2B-Instruct.json",
        "vlm/Qwen__Qwen2.5-VL-3B-Instruct.json",
        // Tiles of the tower's square, as many as the image's grid.
        "vlm/llava-hf__llava-v1.6-mistral-7b-hf.json",
        "vlm/OpenGVLab__InternVL3-1B-hf.json",
    ] {
        let mut mixed = training(config);
        mixed.training.micro_batch = 2;
        mixed.image_mix = vec![PHONE, SQUARE];
        let mut padded = mixed.clone();
        padded.image_mix = vec![PHONE];
        // Both batches pad to a phone photo's sample: the language model's
        // share is the same, and the tower differs by one image.
        let expected =
            activations(&padded) - tower_alone(config, PHONE) + tower_alone(config, SQUARE);
        assert_eq!(activations(&mixed), expected, "{config}");
        assert!(
            tower_alone(config, PHONE) > tower_alone(config, SQUARE),
            "{config}"
        );

        // The sequence: 256 text tokens + the phone photo's tokens.
        let spec = import(config);
        let sized = sample_images(&mixed, &spec)
            .expect("sizes")
            .expect("images");
        assert_eq!(
            sized.language_model_tokens(),
            lm_tokens(config, PHONE),
            "{config}"
        );
        let mut as_text = mixed.clone();
        as_text.image_mix.clear();
        as_text.training.images_per_sample = 0;
        as_text.training.freeze_vision = true;
        as_text.training.seq_len = 256 + lm_tokens(config, PHONE);
        let mut frozen = mixed.clone();
        frozen.training.freeze_vision = true;
        assert_eq!(activations(&frozen), activations(&as_text), "{config}");
    }
}

/// Idefics2 pads every image of a batch to the largest (`do_pad`), and its
/// tower reads the padding: a phone photo beside a square costs what two
/// phone photos do.
#[test]
fn idefics2_pads_a_mixed_batch_to_its_largest_image() {
    let config = "variants_2026/idefics2__5.json";
    let mut mixed = training(config);
    mixed.training.micro_batch = 2;
    mixed.image_mix = vec![PHONE, SQUARE];
    let mut phones = mixed.clone();
    phones.image_mix = vec![PHONE];
    assert_eq!(activations(&mixed), activations(&phones));
    assert!(tower_alone(config, PHONE) > tower_alone(config, SQUARE));
    let spec = import(config);
    let sized = sample_images(&mixed, &spec)
        .expect("sizes")
        .expect("images");
    assert_eq!(sized.batch_tower_tokens(), 2 * 3640);
}

#[test]
fn sizes_cycle_over_the_batch_and_the_longest_sample_is_found() {
    let config = "vlm/Qwen__Qwen2-VL-2B-Instruct.json";
    let mut sc = training(config);
    // Two images per sample, three samples, three sizes: the samples hold
    // (phone, square), (page, phone), (square, page).
    sc.training.micro_batch = 3;
    sc.training.images_per_sample = 2;
    sc.image_mix = vec![PHONE, SQUARE, PAGE];
    let spec = import(config);
    let sized = sample_images(&sc, &spec).expect("sizes").expect("images");
    let counts: Vec<u64> = sized.groups.iter().map(|g| g.in_batch).collect();
    assert_eq!(counts, [2, 2, 2]);
    let (phone, square, page) = (
        lm_tokens(config, PHONE),
        lm_tokens(config, SQUARE),
        lm_tokens(config, PAGE),
    );
    let longest = (phone + square).max(page + phone).max(square + page);
    assert_eq!(longest, page + phone);
    assert_eq!(sized.language_model_tokens(), longest);
    // Five images over two sizes in a batch of five: three of the first.
    sc.training.micro_batch = 5;
    sc.training.images_per_sample = 1;
    sc.image_mix = vec![SQUARE, PHONE];
    let sized = sample_images(&sc, &spec).expect("sizes").expect("images");
    let counts: Vec<u64> = sized.groups.iter().map(|g| g.in_batch).collect();
    assert_eq!(counts, [3, 2]);
    assert_eq!(sized.language_model_tokens(), phone);
}

#[test]
fn one_listed_size_is_the_image_size() {
    let config = "vlm/Qwen__Qwen2.5-VL-3B-Instruct.json";
    let mut listed = training(config);
    listed.training.micro_batch = 3;
    listed.image_mix = vec![PAGE];
    let mut sized = listed.clone();
    sized.image_mix.clear();
    (sized.image_width, sized.image_height) = (Some(PAGE.0), Some(PAGE.1));
    let (a, b) = (estimate(&listed).unwrap(), estimate(&sized).unwrap());
    assert_eq!(
        a.gpus[0].peak_allocated_bytes,
        b.gpus[0].peak_allocated_bytes
    );
}

#[test]
fn the_note_says_which_rule_applied() {
    let mut sc = training("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
    sc.training.micro_batch = 4;
    sc.image_mix = vec![PHONE, SQUARE];
    let note = estimate(&sc).expect("estimates").notes.remove(0);
    assert!(note.message.contains("2 × 4032×3024"), "{}", note.message);
    assert!(
        note.message.contains("Packed in the tower"),
        "{}",
        note.message
    );
    assert!(
        note.message.contains("pads every sequence to the longest"),
        "{}",
        note.message
    );
    assert!(note.message_zh.contains("填充"), "{}", note.message_zh);
    // LLaVA-1.5 has no image rule: every size is the tower's square.
    let mut llava = Scenario {
        model: ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    llava.training.images_per_sample = 1;
    llava.training.micro_batch = 2;
    llava.image_mix = vec![SQUARE, PHONE];
    let note = estimate(&llava).expect("estimates").notes.remove(0);
    assert!(
        note.message.contains("by the tower's fixed square rule")
            && note.message.contains("1154 tokens in all"),
        "{}",
        note.message
    );
}

#[test]
fn sizes_the_rule_refuses_are_named_by_the_list() {
    let mut sc = training("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
    // Qwen-VL's processor refuses an aspect ratio over 200.
    sc.image_mix = vec![SQUARE, (1, 60_000)];
    assert_eq!(estimate(&sc).unwrap_err().field, "image_mix");
    // Sides out of range, non-sizes and over-long lists, from a link.
    for bad in ["0x5", "336x99999999", "big", &vec!["336"; 65].join(",")] {
        let d = vramfit_core::url::decode(&format!("v=1&t=train&img=1&imix={bad}"));
        assert!(
            d.notices.iter().any(|n| n.param == "imix"),
            "{bad}: {:?}",
            d.notices
        );
        assert!(d.scenario.image_mix.is_empty(), "{bad}");
    }
    // A scenario file can hold what the link refuses: validation names it.
    let mut file = training("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
    file.image_mix = vec![(0, 10)];
    assert_eq!(estimate(&file).unwrap_err().field, "image_mix");
}

#[test]
fn the_allowed_text_names_the_real_limits() {
    use vramfit_core::scenario::{IMAGE_MIX_ALLOWED, IMAGE_PRESETS, MAX_IMAGE_MIX};
    assert!(IMAGE_MIX_ALLOWED.contains(&format!("up to {MAX_IMAGE_MIX} ")));
    let max_side = vramfit_core::scenario::limits::MAX_IMAGE_SIZE;
    assert!(IMAGE_MIX_ALLOWED.contains(&format!("1 to {max_side} px")));
    for (name, _, _) in IMAGE_PRESETS {
        assert!(IMAGE_MIX_ALLOWED.contains(name), "{name}");
    }
    // The 64th size is taken, the 65th refused by the list's own message.
    let list = vec!["336"; MAX_IMAGE_MIX].join(",");
    assert_eq!(
        vramfit_core::scenario::parse_image_mix(&list)
            .unwrap()
            .len(),
        MAX_IMAGE_MIX
    );
    let err = vramfit_core::scenario::parse_image_mix(&format!("{list},336")).unwrap_err();
    assert!(err.contains(IMAGE_MIX_ALLOWED), "{err}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any list of sizes over any batch: no panic; every image of the batch
    /// is counted once; the longest sample holds at least the mean sample's
    /// tokens and at most `images` of the largest image's.
    #[test]
    fn any_mix_counts_every_image_once(
        sizes in proptest::collection::vec((1u64..=65_536, 1u64..=65_536), 1..=64),
        images in 1u64..=16,
        samples in 1u64..=4096,
    ) {
        let spec = import("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
        let mut sc = training("vlm/Qwen__Qwen2-VL-2B-Instruct.json");
        sc.training.micro_batch = samples;
        sc.training.images_per_sample = images;
        sc.image_mix = sizes;
        // The processor may refuse a size (an aspect ratio over 200): an
        // error naming the list, never a panic.
        match sample_images(&sc, &spec) {
            Err(e) => proptest::prop_assert_eq!(e.field, "image_mix"),
            Ok(sized) => {
                let sized = sized.expect("images");
                let counted: u64 = sized.groups.iter().map(|g| g.in_batch).sum();
                proptest::prop_assert_eq!(counted, images * samples);
                let total: u64 = sized
                    .groups
                    .iter()
                    .map(|g| g.in_batch * g.tokens.language_model)
                    .sum();
                let largest = sized.groups.iter().map(|g| g.tokens.language_model).max().unwrap_or(0);
                let longest = sized.language_model_tokens();
                proptest::prop_assert!(longest * samples >= total);
                proptest::prop_assert!(longest <= images * largest);
            }
        }
    }
}
