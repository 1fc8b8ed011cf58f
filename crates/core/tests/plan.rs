//! Fix-it plans: the search's answers checked against independent estimates,
//! the techniques' data against the guides it quotes.

use std::path::Path;

use vramfit_core::estimate;
use vramfit_core::plan::{fix_plans, techniques, Applies, PlanOptions, TechniqueId};
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};

fn seed(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/seeds")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const SEED_000: &str = "000_b0f8a550dab351ae.txt";
const SEED_004: &str = "004_565dbeec11e80ffe.txt";

fn technique(id: TechniqueId) -> &'static vramfit_core::plan::Technique {
    techniques()
        .iter()
        .find(|t| t.id == id)
        .expect("technique in the data")
}

/// Llama-2-7B full fine-tuning (AdamW, bf16, micro-batch 4, 1024 tokens) on a
/// 16 GiB RTX 4080: weights alone take 6 738 415 616 × 2 B = 12.55 GiB, and
/// AdamW adds 2 × 12.55 GiB more, so it cannot fit (hand computation).
fn llama7b_full_on_16gb() -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.micro_batch = 4;
    sc.training.grad_accum = 2;
    sc.training.seq_len = 1024;
    sc.gpu.name = Some("rtx-4080".into());
    sc
}

#[test]
fn every_technique_parses_has_sources_and_sane_costs() {
    let all = techniques();
    assert_eq!(
        all.len(),
        TechniqueId::ALL.len(),
        "one entry per technique id"
    );
    for id in TechniqueId::ALL {
        assert_eq!(all.iter().filter(|t| t.id == id).count(), 1, "{id:?}");
    }
    for t in all {
        assert!(!t.sources.is_empty(), "{:?} has no source", t.id);
        assert!(
            t.speed_factor >= 1.0,
            "{:?}: factors ≥ 1 keep the search monotone",
            t.id
        );
        assert!(t.quality_risk_pct >= 0.0 && t.penalty >= 0.0, "{:?}", t.id);
        assert!(!t.name.en.is_empty() && !t.name.zh.is_empty(), "{:?}", t.id);
        assert!(
            !t.change.en.is_empty() && !t.change.zh.is_empty(),
            "{:?}",
            t.id
        );
        assert!(!t.memory_effect.is_empty(), "{:?}", t.id);
        // Both languages for what the plans show (a missing Chinese text
        // would leave English in the Chinese page).
        for (field, text) in [
            ("speed_cost", &t.speed_cost),
            ("quality_risk", &t.quality_risk),
        ] {
            assert!(
                !text.en.is_empty() && !text.zh.is_empty(),
                "{:?}: {field} in both languages",
                t.id
            );
            assert!(
                text.zh
                    .chars()
                    .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{:?}: {field}.zh is Chinese",
                t.id
            );
        }
        for s in &t.sources {
            if let Some(rest) = s.strip_prefix("shared/seeds/") {
                let file = rest.split_whitespace().next().unwrap_or_default();
                assert!(!seed(file).is_empty(), "{:?} cites {file}", t.id);
            } else {
                assert!(s.starts_with("https://"), "{:?}: source {s}", t.id);
            }
        }
    }
}

#[test]
fn documented_costs_are_the_guides_figures() {
    let s000 = seed(SEED_000);
    // 000 §方案2: "训练时间增加20-30%" → the factor lies in 1.20..=1.30.
    assert!(s000.contains("训练时间增加20-30%"));
    let f = technique(TechniqueId::GradientCheckpointing).speed_factor;
    assert!((1.20..=1.30).contains(&f), "{f}");
    // 000 quantization table: 8-bit "<1%" and "-5%", 4-bit "1-3%" and "-15%".
    assert!(s000.contains("| **8-bit** | **7GB** | **<1%** | **-5%** ⭐ |"));
    assert!(s000.contains("| 4-bit | 3.5GB | 1-3% | -15% |"));
    let q8 = technique(TechniqueId::Quantize8bit);
    assert_eq!((q8.speed_factor, q8.quality_risk_pct), (1.05, 1.0));
    let q4 = technique(TechniqueId::Quantize4bit);
    assert_eq!(q4.speed_factor, 1.15);
    assert!((1.0..=3.0).contains(&q4.quality_risk_pct));
    // 004 §9.2.4: "训练速度降低 2-3 倍" → offload factors within 2..=3.
    assert!(seed(SEED_004).contains("训练速度降低 2-3 倍"));
    for id in [
        TechniqueId::OffloadOptimizer,
        TechniqueId::OffloadOptimizerParams,
    ] {
        let f = technique(id).speed_factor;
        assert!((2.0..=3.0).contains(&f), "{id:?} {f}");
    }
    // 001: "ZeRO-3会增加30%通信开销" → 1.3.
    assert!(seed("001_76a7c1c577738585.txt").contains("ZeRO-3会增加30%通信开销"));
    assert_eq!(technique(TechniqueId::Zero3).speed_factor, 1.3);
}

#[test]
fn llama7b_full_finetune_on_16gb_gets_plans_that_fit() {
    let sc = llama7b_full_on_16gb();
    let base = estimate(&sc).expect("estimates");
    let capacity = vramfit_core::gpu::find_gpu("rtx-4080")
        .expect("catalog")
        .usable_bytes();
    // 12.55 GiB of weights + 25.1 GiB of AdamW states already exceed 16 GiB.
    assert!(base.headline_gpu().device_used_bytes > capacity);
    let effective_batch = sc.training.micro_batch * sc.training.grad_accum;

    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    assert_eq!(report.capacity_bytes, capacity);
    assert_eq!(report.plans.len(), 3, "three plans: {report:#?}");
    for (i, plan) in report.plans.iter().enumerate() {
        // Recomputed independently from the plan's own scenario.
        let e = estimate(&plan.scenario).expect("plan scenario estimates");
        let used = e.headline_gpu().device_used_bytes;
        assert_eq!(used, plan.device_used_bytes);
        assert!(used <= capacity, "plan {i} uses {used} > {capacity}");
        assert_eq!(plan.headroom_bytes, capacity as i64 - used as i64);
        let t = &plan.scenario.training;
        assert_eq!(t.micro_batch * t.grad_accum, effective_batch, "plan {i}");
        // The cost is the changes' own figures combined.
        let slowdown: f64 = plan.changes.iter().map(|c| c.speed_factor).product();
        let risk: f64 = plan.changes.iter().map(|c| c.quality_risk_pct).sum();
        assert!((plan.cost.slowdown - slowdown).abs() < 1e-9);
        assert!((plan.cost.quality_risk_pct - risk).abs() < 1e-9);
        assert!(plan
            .changes
            .iter()
            .all(|c| !c.sources.is_empty() && !c.zh.is_empty()));
        // Training plans never carry inference-only changes.
        assert!(plan.changes.iter().all(|c| {
            techniques()
                .iter()
                .any(|t| t.id == c.id && t.task != Applies::Inference)
        }));
    }
    for pair in report.plans.windows(2) {
        assert!(pair[0].cost.score <= pair[1].cost.score, "sorted by cost");
    }
    // Distinct: no plan's change set contains another's.
    let sets: Vec<Vec<TechniqueId>> = report
        .plans
        .iter()
        .map(|p| p.changes.iter().map(|c| c.id).collect())
        .collect();
    for (i, a) in sets.iter().enumerate() {
        for (j, b) in sets.iter().enumerate() {
            if i != j {
                assert!(!a.iter().all(|x| b.contains(x)), "plan {i} ⊆ plan {j}");
            }
        }
    }
}

#[test]
fn a_setup_that_fits_needs_no_plan() {
    let mut sc = llama7b_full_on_16gb();
    sc.task = TaskKind::Inference;
    // 7B in bf16 on an 80 GB A100: 12.55 GiB of weights leave room.
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(report.fits);
    assert!(report.plans.is_empty());
    assert_eq!(report.evaluated, 1);
}

#[test]
fn serving_plans_use_inference_changes_only() {
    let mut sc = llama7b_full_on_16gb();
    sc.task = TaskKind::Inference;
    sc.inference.batch = 8;
    sc.inference.prompt_len = 2048;
    sc.gpu.name = Some("rtx-3060-12gb".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    assert!(!report.plans.is_empty());
    for plan in &report.plans {
        assert!(plan.device_used_bytes <= report.capacity_bytes);
        for c in &plan.changes {
            let t = techniques().iter().find(|t| t.id == c.id).expect("known");
            assert_ne!(t.task, Applies::Training, "{:?} in a serving plan", c.id);
        }
        assert_eq!(plan.scenario.task, TaskKind::Inference);
    }
}

#[test]
fn vision_tower_freezing_only_for_vision_models() {
    let text_plans = fix_plans(
        &llama7b_full_on_16gb(),
        &PlanOptions {
            max_plans: 10,
            ..PlanOptions::default()
        },
    )
    .expect("plans");
    assert!(text_plans
        .plans
        .iter()
        .flat_map(|p| &p.changes)
        .all(|c| c.id != TechniqueId::FreezeVision));

    // LLaVA-1.5-7B full fine-tuning with images on a 48 GB card: freezing
    // the CLIP tower (303M parameters) is free, so the cheapest plans use it
    // whenever it saves memory.
    let mut sc = llama7b_full_on_16gb();
    sc.model = ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into());
    sc.training.images_per_sample = 1;
    sc.gpu.name = Some("rtx-a6000".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.plans.is_empty());
    for plan in &report.plans {
        assert!(
            estimate(&plan.scenario)
                .unwrap()
                .headline_gpu()
                .device_used_bytes
                <= report.capacity_bytes
        );
        if plan
            .changes
            .iter()
            .any(|c| c.id == TechniqueId::FreezeVision)
        {
            assert!(plan.scenario.training.freeze_vision);
        }
    }
}

#[test]
fn more_gpus_shard_a_70b_model() {
    // Llama-2-70B full training on 80 GB cards: 68.98e9 × 8 B (pure bf16
    // AdamW) = 514 GiB of model states, six cards' worth at least.
    let mut sc = llama7b_full_on_16gb();
    sc.model = ModelSource::Catalog("meta-llama/Llama-2-70b-hf".into());
    sc.training.method = vramfit_core::scenario::Method::Full;
    sc.gpu.name = Some("a100-sxm4-80gb".into());
    let options = PlanOptions {
        max_plans: 5,
        ..PlanOptions::default()
    };
    let report = fix_plans(&sc, &options).expect("plans");
    assert!(!report.plans.is_empty());
    for plan in &report.plans {
        let p = &plan.scenario.parallel;
        assert!(p.gpus <= options.max_gpus);
        assert!((plan.cost.gpu_factor - p.gpus as f64).abs() < 1e-9);
        assert!(
            estimate(&plan.scenario)
                .unwrap()
                .headline_gpu()
                .device_used_bytes
                <= report.capacity_bytes
        );
    }
    // With a single GPU allowed, only changes on that GPU remain.
    let one = fix_plans(
        &sc,
        &PlanOptions {
            max_gpus: 1,
            ..options
        },
    )
    .expect("plans");
    assert!(one.plans.iter().all(|p| p.scenario.parallel.gpus == 1));
}

#[test]
fn bad_input_names_the_field() {
    let mut sc = llama7b_full_on_16gb();
    sc.gpu.name = None;
    assert_eq!(
        fix_plans(&sc, &PlanOptions::default()).unwrap_err().field,
        "gpu"
    );
    sc.gpu.name = Some("no-such-gpu".into());
    assert_eq!(
        fix_plans(&sc, &PlanOptions::default()).unwrap_err().field,
        "gpu.name"
    );
    let sc = llama7b_full_on_16gb();
    let zero = PlanOptions {
        max_plans: 0,
        ..PlanOptions::default()
    };
    assert_eq!(fix_plans(&sc, &zero).unwrap_err().field, "max_plans");
    let mut weights = PlanOptions::default();
    weights.weights.speed = f64::NAN;
    assert_eq!(fix_plans(&sc, &weights).unwrap_err().field, "weights.speed");
    let mut sc = llama7b_full_on_16gb();
    sc.training.micro_batch = 0;
    assert_eq!(
        fix_plans(&sc, &PlanOptions::default()).unwrap_err().field,
        "training.micro_batch"
    );
}

/// Prints the search time for the 7B case (run with `--release -- --nocapture`
/// to measure; nothing is asserted about time).
#[test]
fn report_search_time() {
    let sc = llama7b_full_on_16gb();
    // The first call also parses the embedded catalogs; the second is warm.
    for run in ["cold", "warm"] {
        let start = std::time::Instant::now();
        let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
        println!(
            "plan search ({run}): {:?} for {} estimates",
            start.elapsed(),
            report.evaluated
        );
    }
}

/// GLM-4-9B full fine-tuning in pure bf16 on an H100 80 GB, 1 × 2048
/// tokens under checkpointing: weights, gradients and AdamW's two bf16
/// moments take 8 B × 9.4 B parameters = 75 GB, and the default foreach step
/// adds one more 2 B-per-parameter temporary (18.8 GB), beyond the card even
/// with the allocator's cache released. The same step measured on
/// Llama-3-8B (h100_measured.jsonl): foreach at 1 × 1024 peaked at 80.37 GB
/// allocated, fused at 4 × 2048 at 60.7 GiB. Fusing the step removes exactly
/// the temporary, at no speed or quality cost, so it ranks first.
#[test]
fn a_fused_step_is_the_free_fix_for_the_foreach_temporary() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("THUDM/GLM-4-9B-0414".into()),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.seq_len = 2048;
    sc.training.micro_batch = 1;
    sc.training.checkpointing = vramfit_core::scenario::Checkpointing::Full;
    sc.gpu.name = Some("h100-sxm5-80gb".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    let best = &report.plans[0];
    let ids: Vec<TechniqueId> = best.changes.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![TechniqueId::FusedOptimizer]);
    assert_eq!((best.cost.slowdown, best.cost.quality_risk_pct), (1.0, 0.0));
    assert!(best.scenario.training.fused_optimizer);
    assert_eq!(
        best.changes[0].en,
        "adamw with fused=True (no foreach temporary)"
    );
    let check = estimate::estimate(&best.scenario).expect("estimates");
    assert!(check.fits() == Some(true));
}

/// Llama-2-13B in fp16 serving 16 × (512 + 512) tokens on an A100 40 GB with
/// a 2023 transformers (tuple caches): weights 26 GB + twice the 13.4 GB
/// cache at the last step do not fit; one cache does, so upgrading to the
/// DynamicCache is a plan, free of speed and quality cost.
#[test]
fn old_tuple_caches_are_fixed_by_upgrading_transformers() {
    let mut sc = Scenario {
        model: ModelSource::Catalog("meta-llama/Llama-2-13b-hf".into()),
        weights: vramfit_core::precision::WeightFormat::Fp16,
        compute_dtype: vramfit_core::precision::Dtype::Fp16,
        ..Scenario::default()
    };
    sc.inference.batch = 16;
    sc.inference.prompt_len = 512;
    sc.inference.new_tokens = 512;
    sc.inference.tuple_cache = true;
    sc.gpu.name = Some("a100-sxm4-40gb".into());
    let report = fix_plans(&sc, &PlanOptions::default()).expect("plans");
    assert!(!report.fits);
    let upgrade = report
        .plans
        .iter()
        .find(|p| p.changes.iter().any(|c| c.id == TechniqueId::DynamicCache))
        .expect("a plan that upgrades transformers");
    assert!(!upgrade.scenario.inference.tuple_cache);
    assert!(
        estimate::estimate(&upgrade.scenario)
            .expect("estimates")
            .fits()
            == Some(true)
    );
}

/// Qwen2.5-VL-7B LoRA over 512 text tokens on a 24 GB card, its tower
/// frozen, chunked loss and checkpointing on: what is left to cut is the
/// images' and the video's tokens.
fn qwen25_vl_lora_on_4090() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/configs/vlm/Qwen__Qwen2.5-VL-7B-Instruct.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let spec = vramfit_core::hf_config::from_hf_config(&text).expect("imports");
    let mut sc = Scenario {
        model: ModelSource::Spec(Box::new(spec)),
        task: TaskKind::Training,
        ..Scenario::default()
    };
    sc.training.method = vramfit_core::scenario::Method::Lora;
    sc.training.seq_len = 512;
    sc.training.chunked_loss = true;
    sc.training.freeze_vision = true;
    sc.training.checkpointing = vramfit_core::scenario::Checkpointing::Full;
    sc.gpu.name = Some("rtx-4090".into());
    sc
}

/// Qwen2.5-VL-7B LoRA with eight phone photos per sample (chunked loss on) on
/// a 24 GB card: lowering the processor's `max_pixels` is a candidate
/// (each photo is then about a quarter of the tokens), and a plan that uses
/// it fits with the lowered limit in its scenario's model; LLaVA-1.5, whose
/// tower resizes every image to its square, never gets it.
#[test]
fn fewer_image_pixels_only_where_the_processor_has_a_limit() {
    use vramfit_core::image_tokens::ImageRule;
    let mut sc = qwen25_vl_lora_on_4090();
    sc.training.images_per_sample = 8;
    sc.image_width = Some(4032);
    sc.image_height = Some(3024);
    let options = PlanOptions {
        max_plans: 20,
        ..PlanOptions::default()
    };
    let report = fix_plans(&sc, &options).expect("plans");
    assert!(!report.fits);
    let lowered: Vec<_> = report
        .plans
        .iter()
        .filter(|p| {
            p.changes
                .iter()
                .any(|c| c.id == TechniqueId::FewerImagePixels)
        })
        .collect();
    assert!(!lowered.is_empty(), "no plan lowers the pixel limit");
    for plan in lowered {
        let ModelSource::Spec(spec) = &plan.scenario.model else {
            panic!("the plan carries the changed model");
        };
        let Some(ImageRule::QwenVl { max_pixels, .. }) = spec.image_rule else {
            panic!("a Qwen-VL rule");
        };
        assert!(max_pixels <= 1_003_520 / 4, "{max_pixels}");
        let used = estimate(&plan.scenario)
            .expect("estimates")
            .headline_gpu()
            .device_used_bytes;
        assert!(used <= report.capacity_bytes);
    }
    assert!(technique(TechniqueId::FewerImagePixels).penalty > 0.0);

    let mut llava = llama7b_full_on_16gb();
    llava.model = ModelSource::Catalog("llava-hf/llava-1.5-7b-hf".into());
    llava.training.images_per_sample = 4;
    let report = fix_plans(&llava, &options).expect("plans");
    assert!(report
        .plans
        .iter()
        .flat_map(|p| &p.changes)
        .all(|c| c.id != TechniqueId::FewerImagePixels));
}

/// A long video that does not fit: sampling fewer frames is a plan change
/// (halving them, never below the two of a temporal patch), and no plan
/// offers it without a video.
#[test]
fn fewer_video_frames_where_there_is_a_video() {
    let mut sc = qwen25_vl_lora_on_4090();
    sc.video_frames = Some(512);
    (sc.image_width, sc.image_height) = (Some(640), Some(360));
    let options = PlanOptions {
        max_plans: 20,
        ..PlanOptions::default()
    };
    let report = fix_plans(&sc, &options).expect("plans");
    assert!(!report.fits);
    let fewer: Vec<_> = report
        .plans
        .iter()
        .filter(|p| {
            p.changes
                .iter()
                .any(|c| c.id == TechniqueId::FewerVideoFrames)
        })
        .collect();
    assert!(!fewer.is_empty(), "no plan samples fewer frames");
    for plan in fewer {
        let frames = plan.scenario.video_frames.expect("still a video");
        assert!((2..512).contains(&frames) && 512 % frames == 0, "{frames}");
        let used = estimate(&plan.scenario)
            .expect("estimates")
            .headline_gpu()
            .device_used_bytes;
        assert!(used <= report.capacity_bytes);
    }
    assert!(technique(TechniqueId::FewerVideoFrames).penalty > 0.0);
    // Images alone: no frames to drop.
    let mut images = sc.clone();
    images.video_frames = None;
    images.training.images_per_sample = 40;
    let report = fix_plans(&images, &options).expect("plans");
    assert!(!report.fits && !report.plans.is_empty());
    assert!(report
        .plans
        .iter()
        .flat_map(|p| &p.changes)
        .all(|c| c.id != TechniqueId::FewerVideoFrames));
}
