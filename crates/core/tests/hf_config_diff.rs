//! Configs saved as a diff against their class defaults
//! (`tests/data/configs_diff/`, written by its `make_diff.py` with
//! transformers 5.24: only the keys that differ from
//! `CONFIG_MAPPING[model_type]()`, non-finite floats as `Infinity`) import
//! exactly as the full fixtures they came from: transformers fills an absent
//! key from the class, and so must the importer.

use std::fs;
use std::path::Path;
use vramfit_core::hf_config::from_hf_config;

#[test]
fn a_diff_saved_config_imports_as_the_full_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = check_folder(&dir, "");
    assert!(text >= 50, "{text} diff fixtures");
    // VLMs: the wrapper, its text_config and its vision_config each diff
    // against their own classes; tower, projector and image rule agree too.
    let vlm = check_folder(&dir, "vlm");
    assert!(vlm >= 40, "{vlm} VLM diff fixtures");
}

/// Imports every diff fixture of `configs_diff/<sub>` and its full twin of
/// `configs/<sub>`, asserting they describe the same model; the count.
fn check_folder(dir: &Path, sub: &str) -> usize {
    let mut checked = 0;
    for entry in fs::read_dir(dir.join("configs_diff").join(sub)).expect("the diff fixtures") {
        let path = entry.expect("a directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let diff = fs::read_to_string(&path).expect("readable");
        let full =
            fs::read_to_string(dir.join("configs").join(sub).join(name)).expect("its full fixture");
        let full = from_hf_config(&full).unwrap_or_else(|e| panic!("{name} (full): {e}"));
        let from_diff = from_hf_config(&diff).unwrap_or_else(|e| panic!("{name} (diff): {e}"));
        // transformers 5 forces T5's `tie_word_embeddings` to True in
        // `T5Config.__post_init__`, so a diff cannot say "untied": the one
        // place the class and the checkpoint disagree (params/README.md).
        let t5 =
            diff.contains("\"model_type\": \"t5\"") || diff.contains("\"model_type\": \"mt5\"");
        if !t5 {
            assert_eq!(
                from_diff.param_counts().total,
                full.param_counts().total,
                "{name}: parameters"
            );
            assert_eq!(from_diff.tied_embeddings, full.tied_embeddings, "{name}");
        }
        assert_eq!(
            (
                from_diff.layers,
                from_diff.hidden,
                from_diff.heads,
                from_diff.kv_heads
            ),
            (full.layers, full.hidden, full.heads, full.kv_heads),
            "{name}: shape"
        );
        assert_eq!(from_diff.head_dim(), full.head_dim(), "{name}: head_dim");
        assert_eq!(
            from_diff.sliding_window, full.sliding_window,
            "{name}: window"
        );
        assert_eq!(from_diff.moe, full.moe, "{name}: experts");
        assert_eq!(
            from_diff.recurrent, full.recurrent,
            "{name}: recurrent layers"
        );
        assert_eq!(from_diff.vision, full.vision, "{name}: vision tower");
        assert_eq!(from_diff.image_rule, full.image_rule, "{name}: image rule");
        checked += 1;
    }
    checked
}

/// Python writes an infinite float as a bare `Infinity` (Mamba-2's default
/// `time_step_limit`); such a config is read, not refused as "not JSON".
#[test]
fn pythons_infinity_is_read() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/configs_diff");
    let text = fs::read_to_string(dir.join("mistralai__Mamba-Codestral-7B-v0.1.json"))
        .expect("the Mamba-2 diff fixture");
    assert!(text.contains("Infinity"));
    let spec = from_hf_config(&text).expect("imports");
    assert_eq!(spec.layers, 64);
}

/// InternVL as OpenGVLab publishes it (`internvl_chat`, remote code): the
/// same tower and projector as transformers' converted twin, the language
/// model with the untied head its own `Qwen2Config` builds.
#[test]
fn remote_code_internvl_counts_as_its_converted_twin_plus_its_head() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/configs");
    let read = |p: &str| fs::read_to_string(dir.join(p)).expect("fixture");
    let chat = from_hf_config(&read("remote_code/OpenGVLab__InternVL3-1B.json")).expect("imports");
    let hf = from_hf_config(&read("vlm/OpenGVLab__InternVL3-1B-hf.json")).expect("imports");
    let (c, h) = (chat.param_counts(), hf.param_counts());
    // tests/data/params/hf_measured_vlm.csv: the -hf model, tied.
    assert_eq!(h.total, 802_293_120);
    assert_eq!((c.vision, c.projector), (304_012_288, 4_482_816));
    assert!(!chat.tied_embeddings);
    assert_eq!(c.total, 802_293_120 + 151_674 * 896);
    // The same tower shape; the remote code's layers checkpoint themselves
    // (its own InternVisionEncoder), transformers' follow the trainer.
    let (mut remote, converted) = (chat.vision.expect("tower"), hf.vision.expect("tower"));
    assert_eq!(
        (remote.block, converted.block),
        (
            vramfit_core::model::TowerBlock::InternVitRemote,
            vramfit_core::model::TowerBlock::InternVit
        )
    );
    assert!(remote.block.always_checkpointed() && !converted.block.always_checkpointed());
    remote.block = converted.block;
    assert_eq!(remote, converted, "the same tower shape");
}

/// InternLM2 (InternVL 2.5's 8B and 26B language model, remote code) has
/// Llama's layout: its fused `wqkv` holds q, k and v.
#[test]
fn internlm2_imports_with_llamas_layout() {
    let cfg = r#"{"model_type": "internlm2", "hidden_size": 4096, "intermediate_size": 14336,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
        "vocab_size": 92553, "max_position_embeddings": 32768, "bias": false,
        "tie_word_embeddings": false}"#;
    let spec = from_hf_config(cfg).expect("imports");
    let (h, kv, i, v, l) = (4096u64, 1024u64, 14336u64, 92553u64, 32u64);
    let per_layer = h * (h + 2 * kv) + h * h + 3 * h * i + 2 * h;
    assert_eq!(spec.param_counts().total, l * per_layer + 2 * v * h + h);
}
