//! The attention transformers runs by default, measured (transformers
//! 5.24.0, torch 2.15.0): each family's class flags
//! (`data/attention/attention_kernels.jsonl`) and the attention
//! `from_config` builds with no choice, for every config the importer's
//! tests keep, one per `model_type` (`data/attention/default_attention.csv`).
//! Gemma-2, gpt-oss and the families with attention sinks have no SDPA, so
//! their default runs eager and stores every layer's score matrix.

mod common;

use common::{csv_rows_in, get, import, json_lines, part_bytes};
use vramfit_core::attention_run::runs;
use vramfit_core::catalog::models;
use vramfit_core::estimate;
use vramfit_core::model::kernels::{HfKernels, WITHOUT_SDPA};
use vramfit_core::model::ModelSpec;
use vramfit_core::plan::{fix_plans, PlanOptions, TechniqueId};
use vramfit_core::report::Part;
use vramfit_core::scenario::{
    Attention, Engine, Framework, Method, ModelSource, Scenario, TaskKind,
};

#[test]
fn the_table_is_the_classes_own_flags() {
    let mut measured: Vec<(String, HfKernels)> = json_lines("attention/attention_kernels.jsonl")
        .into_iter()
        .filter(|(v, _)| v.get("model_type").is_some())
        .filter(|(v, _)| v["sdpa"] == false)
        .map(|(v, _)| {
            let flash = v["flash"].as_bool().expect("flash flag");
            // FA3 (vLLM's build) and FA4 are Hopper's and Blackwell's
            let hopper = v["flash_kernels"].as_array().is_some_and(|ks| {
                ks.iter()
                    .filter_map(|k| k.as_str())
                    .all(|k| !k.contains("flash_attention_2") && !k.contains("flash-attn2"))
            });
            (
                v["model_type"].as_str().expect("model_type").to_string(),
                HfKernels::from_flags(false, flash, hopper),
            )
        })
        .collect();
    measured.sort_by(|a, b| a.0.cmp(&b.0));
    let table: Vec<(String, HfKernels)> = WITHOUT_SDPA
        .iter()
        .map(|(t, k)| ((*t).to_string(), *k))
        .collect();
    assert_eq!(table, measured);
}

#[test]
fn every_imported_config_runs_what_transformers_builds_by_default() {
    let rows = csv_rows_in("attention", "default_attention.csv");
    assert!(rows.len() >= 150, "{} rows", rows.len());
    let mut eager = 0;
    for row in &rows {
        let config = get(row, "config");
        let spec = import(config);
        let kernels = spec.transformers_kernels();
        let measured = match get(row, "default_attention") {
            "sdpa" => Attention::Sdpa,
            "eager" => Attention::Eager,
            other => panic!("{config}: attention {other}"),
        };
        assert_eq!(runs(kernels, Attention::Sdpa), measured, "{config}");
        if measured == Attention::Eager {
            eager += 1;
            let flash = get(row, "flash") == "True";
            assert_eq!(
                matches!(
                    kernels,
                    HfKernels::FlashOrEager | HfKernels::HopperFlashOrEager
                ),
                flash,
                "{config}"
            );
        }
    }
    assert!(eager >= 12, "{eager} eager families");
}

/// The catalog's entries say what their own config imports to.
#[test]
fn catalog_models_carry_their_kernels() {
    let mut without_sdpa = 0;
    for m in models() {
        let file = format!("{}.json", m.id.replace('/', "__"));
        let path = common::data_dir().join("configs").join(&file);
        if !path.exists() {
            continue;
        }
        let imported = import(&file).hf_kernels;
        assert_eq!(m.spec.hf_kernels, imported, "{}", m.id);
        without_sdpa += usize::from(imported != HfKernels::All);
    }
    assert!(without_sdpa >= 6, "{without_sdpa}");
}

fn gemma2_9b_training(seq: u64) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("google/gemma-2-9b".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = Method::Lora;
    sc.training.micro_batch = 1;
    sc.training.seq_len = seq;
    sc
}

fn activations(sc: &Scenario, framework: Framework, attention: Attention) -> u64 {
    let mut s = sc.clone();
    s.training.framework = framework;
    s.attention = attention;
    part_bytes(&s, Part::Activations)
}

/// Under transformers the default (SDPA) runs eager for Gemma-2: the
/// activations are eager's, grow with s² where SDPA's grow with s, and the
/// estimate says why. litgpt runs its own attention, left as chosen.
#[test]
fn gemma2_under_transformers_trains_eager_by_default() {
    let short = gemma2_9b_training(1024);
    let long = gemma2_9b_training(4096);
    for sc in [&short, &long] {
        let default = activations(sc, Framework::Transformers, Attention::Sdpa);
        assert_eq!(
            default,
            activations(sc, Framework::Transformers, Attention::Eager)
        );
        assert!(default > activations(sc, Framework::Transformers, Attention::Flash));
        assert_eq!(
            activations(sc, Framework::Litgpt, Attention::Sdpa),
            activations(sc, Framework::Litgpt, Attention::Flash)
        );
    }
    // 4× the tokens: SDPA's activations grow 4×, eager's score matrices 16×.
    let grow = |a: Attention| {
        activations(&long, Framework::Transformers, a) as f64
            / activations(&short, Framework::Transformers, a) as f64
    };
    assert!(grow(Attention::Sdpa) > 6.0, "{}", grow(Attention::Sdpa));
    assert!(grow(Attention::Flash) < 4.5, "{}", grow(Attention::Flash));
    let notes = estimate(&long).expect("estimates").notes;
    assert!(notes.iter().any(|n| n.code == "eager_attention_default"));
    let mut flash = long.clone();
    flash.attention = Attention::Flash;
    let notes = estimate(&flash).expect("estimates").notes;
    assert!(notes.iter().all(|n| !n.code.starts_with("eager_attention")));
}

/// Serving with transformers runs the same fallback; vLLM has its own
/// kernels. A model with no attention layer (Mamba) gets no note.
#[test]
fn the_fallback_follows_the_engine() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("google/gemma-2-9b".into()),
        ..Scenario::default()
    };
    sc.inference.prompt_len = 8192;
    sc.inference.engine = Engine::Transformers;
    let peak = |s: &Scenario| {
        estimate(s)
            .expect("estimates")
            .headline_gpu()
            .peak_allocated_bytes
    };
    let default = peak(&sc);
    sc.attention = Attention::Eager;
    assert_eq!(peak(&sc), default);
    sc.attention = Attention::Flash;
    assert!(peak(&sc) < default);
    sc.inference.engine = Engine::Vllm;
    sc.attention = Attention::Sdpa;
    assert!(estimate(&sc)
        .expect("estimates")
        .notes
        .iter()
        .all(|n| !n.code.starts_with("eager_attention")));
    let mamba = Scenario {
        model: ModelSource::Catalog("state-spaces/mamba-130m-hf".into()),
        ..Scenario::default()
    };
    assert!(estimate(&mamba)
        .expect("estimates")
        .notes
        .iter()
        .all(|n| !n.code.starts_with("eager_attention")));
}

/// A plan for a Gemma-2 job that its eager scores push out of memory
/// offers FlashAttention where the card runs it, and not where it cannot
/// (a T4 has SDPA only, which transformers does not offer Gemma-2).
#[test]
fn plans_offer_flash_attention_only_where_it_changes_the_kernel() {
    // LoRA at 4096 tokens on 80 GB: eager's scores take it to about
    // 171 GB, FlashAttention's activations to about 77 GB.
    let mut sc = gemma2_9b_training(4096);
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    let uses_flash = |r: &vramfit_core::plan::PlanReport| {
        r.plans.iter().any(|p| {
            p.changes
                .iter()
                .any(|c| c.id == TechniqueId::FlashAttention)
        })
    };
    assert!(report.plans[0].changes.len() == 1 && uses_flash(&report));
    sc.gpu.name = Some("t4".into());
    sc.training.seq_len = 2048;
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!uses_flash(&report));
}

/// A share link keeps the kernels (`s.hfk`), so a Hub model's link
/// estimates the same with no network.
#[test]
fn a_custom_model_link_keeps_the_kernels() {
    let spec: ModelSpec = import("google__gemma-2-9b.json");
    let sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    let link = vramfit_core::url::encode(&sc);
    assert!(link.contains("s.hfk=flash_or_eager"), "{link}");
    let decoded = vramfit_core::url::decode(&link);
    assert!(decoded.notices.is_empty(), "{:?}", decoded.notices);
    let back = decoded.scenario;
    assert_eq!(
        part_bytes(&back, Part::Activations),
        part_bytes(&sc, Part::Activations)
    );
}

/// gpt-oss's flash kernels (vLLM's FA3 build, FA4) need Hopper: serving it
/// with transformers at a long prompt, a plan offers FlashAttention on an
/// H100 and not on an A100 of the same memory.
#[test]
fn gpt_oss_gets_flash_attention_on_hopper_only() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("openai/gpt-oss-20b".into()),
        ..Scenario::default()
    };
    sc.inference.engine = Engine::Transformers;
    sc.inference.prompt_len = 16_384;
    let offers_flash = |gpu: &str| {
        let mut s = sc.clone();
        s.gpu.name = Some(gpu.into());
        let report = fix_plans(&s, &PlanOptions::default()).expect("plans");
        assert!(!report.fits, "{gpu}: {}", report.device_used_bytes);
        report.plans.iter().any(|p| {
            p.changes
                .iter()
                .any(|c| c.id == TechniqueId::FlashAttention)
        })
    };
    assert!(offers_flash("h100-sxm5-80gb"));
    assert!(!offers_flash("a100-sxm4-80gb"));
}

/// What one eager layer holds at its worst moment in a prefill, per score,
/// equals what each family's layer was measured to add (16-bit and fp32,
/// 2 and 4 heads, batch 1 and 2), and so does the mask per b·p²: the
/// architecture's rule, or the family's own path where it has one
/// (Flint's fp32 scores and sinks, MiMo-V2-Flash's input-dtype softmax,
/// MPT's boolean mask), as the importer reads it from each `model_type`.
#[test]
fn an_eager_prefill_holds_what_each_family_was_measured_to_hold() {
    use vramfit_core::activations::eager_prefill_bytes;
    use vramfit_core::model::kernels::eager_path_for;
    use vramfit_core::model::{Arch, ModelSpec};
    let mut checked = 0;
    for (row, _) in json_lines("attention/eager_prefill.jsonl") {
        let Some(family) = row.get("family").and_then(|f| f.as_str()) else {
            continue;
        };
        let arch = match family {
            "llama" | "granite_swa" | "mpt" => Arch::Llama,
            "qwen2" => Arch::Qwen2,
            "gemma2" | "vaultgemma" => Arch::Gemma2,
            "opt" => Arch::Opt,
            "gpt2" => Arch::Gpt2,
            "gpt_neox" => Arch::GptNeox,
            "bloom" => Arch::Bloom,
            "gpt_oss" => Arch::GptOss,
            "gpt_neo" => Arch::GptNeo,
            "flint" => Arch::Qwen3Moe,
            "mimo_v2_flash" => Arch::Glm4Moe,
            other => panic!("family {other}"),
        };
        let spec = ModelSpec {
            arch,
            eager_path: eager_path_for(family),
            ..ModelSpec::default()
        };
        let act: u128 = if row["dtype"] == "float32" { 4 } else { 2 };
        let (per_score, mask) = eager_prefill_bytes(&spec, act);
        let measured = row["bytes_per_score"].as_f64().expect("bytes per score");
        assert_eq!(per_score as f64, measured, "{family} {}", row["dtype"]);
        assert_eq!(
            row["mask_bytes_per_b_p2"].as_f64(),
            Some(mask as f64),
            "{family}"
        );
        checked += 1;
    }
    assert!(checked >= 112, "{checked} rows");
}

/// The importer gives each family with its own eager path that path, from
/// its configs (class defaults and varied ones), and a wrapper its text
/// model's.
#[test]
fn the_importer_reads_each_familys_eager_path() {
    use vramfit_core::hf_config::from_hf_config;
    use vramfit_core::model::kernels::{eager_path_for, EagerPath, EAGER_PATHS};
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/configs/variants_2026"
    );
    for (model_type, path) in EAGER_PATHS {
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).expect("configs") {
            let file = entry.expect("entry").path();
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with(&format!("{model_type}__")) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("config");
            let spec = from_hf_config(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(spec.eager_path, path, "{name}");
            seen += 1;
        }
        assert!(seen >= 1, "no config of {model_type}");
    }
    assert_eq!(eager_path_for("llama"), EagerPath::Architecture);
}

/// A sliding layer over its window gets transformers' mask, and with it
/// SDPA keeps k and v repeated to every query head beside the mask in the
/// activation dtype; one key-value head's repeat is a view (Gemma 3 and
/// Mistral, masked or not, one or two key-value heads, fp32 and bf16,
/// batch 1 and 2; `data/attention/masked_gqa.jsonl`, saved-tensor hooks).
#[test]
fn a_masked_sliding_layer_keeps_k_and_v_at_every_query_head() {
    use vramfit_core::activations::{act_fn, layer_terms, LayerShape};
    let mut checked = 0;
    for (line, _) in json_lines("attention/masked_gqa.jsonl") {
        let mut config = line["config"].clone();
        config["model_type"] = line["model_type"].clone();
        let spec = vramfit_core::hf_config::from_hf_config(&config.to_string()).expect("imports");
        let act_bytes: u128 = if line["dtype"] == "float32" { 4 } else { 2 };
        let batch = u128::from(line["batch"].as_u64().expect("batch"));
        let seq = u128::from(line["seq"].as_u64().expect("seq"));
        let shape = LayerShape {
            attention: Attention::Sdpa,
            window_mask: line["masked"] == true,
            ..common::plain_layer_shape(&spec, batch, seq, act_bytes)
        };
        let ours: u128 = layer_terms(&shape, &spec, act_fn(&spec, Framework::Transformers))
            .iter()
            .map(|t| t.bytes)
            .sum();
        let want = u128::from(line["layer_bytes"].as_u64().expect("measured"));
        assert_eq!(ours, want, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 32);
}
