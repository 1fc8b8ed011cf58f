//! The wizard's decision table: every row well-formed, the right row for
//! models and GPUs of different sizes, rows that scale with the model, and
//! plans when a row's setup falls short.

use std::path::Path;

use vramfit_core::estimate;
use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};
use vramfit_core::wizard::{
    decision_table, find_row, recommend, Goal, Priority, WizardAnswers, WizardGpu,
};

const GIB: u64 = 1 << 30;

fn answers(goal: Goal, model: &str, gpu: Option<WizardGpu>, count: u64) -> WizardAnswers {
    WizardAnswers {
        goal,
        model: ModelSource::Catalog(model.into()),
        gpu,
        gpu_count: count,
        priority: Priority::Quality,
        start: None,
    }
}

fn card(name: &str) -> Option<WizardGpu> {
    Some(WizardGpu::Catalog(name.into()))
}

const LLAMA2_7B: &str = "meta-llama/Llama-2-7b-hf";
const LLAMA2_70B: &str = "meta-llama/Llama-2-70b-hf";

fn row_of(a: &WizardAnswers) -> String {
    recommend(a).unwrap_or_else(|e| panic!("{a:?}: {e}")).row_id
}

#[test]
fn every_row_parses_and_its_config_is_a_valid_scenario() {
    let rows = decision_table();
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let base = Scenario::default();
    for r in rows {
        assert!(
            !r.source.is_empty() && !r.text.en.is_empty() && !r.text.zh.is_empty(),
            "{}",
            r.id
        );
        assert!(!r.goals.is_empty(), "{}", r.id);
        for range in [r.bytes_per_param, r.total_bytes_per_param] {
            if let (Some(lo), Some(hi)) = (range.min, range.max) {
                assert!(lo < hi, "{}: empty range", r.id);
            }
        }
        // The row's settings applied to a scenario estimate without error.
        let mut sc = base.clone();
        r.config.apply(&mut sc);
        sc.model = ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into());
        sc.gpu.name = Some("h100-sxm5-80gb".into());
        estimate(&sc).unwrap_or_else(|e| panic!("{}: {e}", r.id));
        if let Some(rest) = r.source.split("shared/seeds/").nth(1) {
            let file = rest.split_whitespace().next().unwrap_or_default();
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/seeds")
                .join(file);
            assert!(path.exists(), "{} cites {file}", r.id);
        }
    }
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), rows.len(), "row ids are unique");
}

#[test]
fn the_table_covers_every_goal_count_and_ratio() {
    let rows = decision_table();
    for goal in [Goal::TrainFull, Goal::FineTune, Goal::Serve] {
        for count in [1u64, 2, 8, 16, 64] {
            for tenth in 1..400 {
                let r = tenth as f64 / 10.0;
                for p in [Priority::Speed, Priority::Quality, Priority::Cost] {
                    assert!(
                        find_row(rows, goal, count, r, r * count as f64, p).is_some(),
                        "{goal:?} ×{count} at {r} B/param, {p:?}"
                    );
                }
            }
        }
    }
    assert!(find_row(rows, Goal::Serve, 0, 0.0, 0.0, Priority::Cost).is_some());
}

#[test]
fn the_seed_table_rows_for_7b_pick_the_seed_recommendation() {
    // Llama-2-7B: 6 738 415 616 parameters. Bytes per parameter per card
    // (usable GiB × 2^30 ÷ params), by hand:
    //   RTX 2080 Ti 11 GiB → 1.75 ; RTX 3060 12 GiB → 1.91 ; T4 15 GiB → 2.39
    //   RTX 4080 15.99 GiB → 2.55 ; RTX 4090 23.99 GiB → 3.82 ; A100 80 GiB → 12.75
    // 000's table (7B): serve <12GB 8-bit + short generation, 12-16GB 8-bit,
    // >24GB float16; train <16GB 8-bit + checkpointing + LoRA, 16-24GB
    // 16-bit + checkpointing.
    let table_000 = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds/000_b0f8a550dab351ae.txt"),
    )
    .unwrap();
    assert!(table_000.contains("| 推理7B模型 | <12GB | 8-bit量化 + max_tokens=128 |"));
    assert!(table_000.contains("| 训练7B模型 | <16GB | 8-bit + Gradient Checkpointing + LoRA |"));
    let serve = |gpu: &str| row_of(&answers(Goal::Serve, LLAMA2_7B, card(gpu), 1));
    assert_eq!(serve("rtx-2080-ti"), "serve_under_12gb_8bit_short");
    assert_eq!(serve("rtx-3060-12gb"), "serve_12_to_16gb_8bit");
    assert_eq!(serve("rtx-4090"), "serve_16bit");
    assert_eq!(serve("a100-sxm4-80gb"), "serve_16bit");
    let tune = |gpu: &str| row_of(&answers(Goal::FineTune, LLAMA2_7B, card(gpu), 1));
    assert_eq!(tune("rtx-3060-12gb"), "fine_tune_under_16gb_8bit_lora");
    assert_eq!(tune("t4"), "fine_tune_under_16gb_8bit_lora");
    assert_eq!(tune("rtx-4080"), "fine_tune_16_to_24gb_lora_checkpointing");
    assert_eq!(tune("rtx-4090"), "fine_tune_24gb_plus_lora");
    // 12.75 B/param ≥ 10 (8 B/param of pure bf16 AdamW + 25%): full fine-tuning.
    assert_eq!(tune("a100-sxm4-80gb"), "fine_tune_full_16bit");
    let full = |gpu: &str| row_of(&answers(Goal::TrainFull, LLAMA2_7B, card(gpu), 1));
    assert_eq!(full("a100-sxm4-80gb"), "train_full_16bit");
    assert_eq!(full("rtx-4090"), "train_full_offload_all");
}

#[test]
fn seventy_b_on_eight_80gb_gpus() {
    // Llama-2-70B: 68 976 648 192 parameters; 80 GiB ÷ that = 1.245 B/param
    // per card, × 8 = 9.96 B/param together.
    let a = |goal| answers(goal, LLAMA2_70B, card("a100-sxm4-80gb"), 8);
    let serve = recommend(&a(Goal::Serve)).unwrap();
    assert_eq!(serve.row_id, "serve_tensor_parallel_16bit");
    assert_eq!(serve.scenario.parallel.tp, 8, "64 heads divide by 8");
    assert!((serve.bytes_per_param.unwrap() - 1.245).abs() < 0.001);
    assert!((serve.total_bytes_per_param.unwrap() - 9.96).abs() < 0.01);
    assert_eq!(row_of(&a(Goal::FineTune)), "fine_tune_multi_gpu_zero3_lora");
    // 9.96 < 10 B/param: ZeRO-3 alone would not hold pure-bf16 AdamW states.
    assert_eq!(
        row_of(&a(Goal::TrainFull)),
        "train_full_multi_gpu_zero3_offload"
    );
    // Sixteen cards: tensor parallel 8 within a node, pipeline 2 across.
    let big = recommend(&answers(
        Goal::TrainFull,
        LLAMA2_70B,
        card("h100-sxm5-80gb"),
        16,
    ))
    .unwrap();
    assert_eq!(big.row_id, "train_full_3d_parallel");
    assert_eq!((big.scenario.parallel.tp, big.scenario.parallel.pp), (8, 2));
}

#[test]
fn one_b_on_8gb_and_no_gpu() {
    // Llama-3.2-1B: 1 235 814 400 parameters; 8 GiB ÷ that = 6.95 B/param.
    let eight = Some(WizardGpu::MemoryBytes(8 * GIB));
    let r = recommend(&answers(
        Goal::Serve,
        "meta-llama/Llama-3.2-1B",
        eight.clone(),
        1,
    ))
    .unwrap();
    assert_eq!(r.row_id, "serve_16bit");
    assert_eq!(r.fits, Some(true));
    assert_eq!(
        row_of(&answers(
            Goal::FineTune,
            "meta-llama/Llama-3.2-1B",
            eight,
            1
        )),
        "fine_tune_24gb_plus_lora"
    );
    let cpu = recommend(&answers(Goal::Serve, LLAMA2_7B, None, 0)).unwrap();
    assert_eq!(cpu.row_id, "serve_no_gpu");
    assert_eq!(cpu.fits, None);
    assert_eq!(
        cpu.scenario.inference.engine,
        vramfit_core::scenario::Engine::LlamaCpp
    );
}

#[test]
fn rows_scale_with_model_size() {
    // The same bytes per parameter picks the same row at any size: 7B on a
    // 15.99 GiB RTX 4080 and 70B on a card ten times larger, 2.55 B/param each.
    let per_param = 15.9921875 * GIB as f64 / 6_738_415_616.0;
    let for_70b = (per_param * 68_976_648_192.0) as u64;
    let small = row_of(&answers(Goal::FineTune, LLAMA2_7B, card("rtx-4080"), 1));
    let large = row_of(&answers(
        Goal::FineTune,
        LLAMA2_70B,
        Some(WizardGpu::MemoryBytes(for_70b)),
        1,
    ));
    assert_eq!(small, large);
}

#[test]
fn a_row_that_falls_short_hands_over_to_plans_that_fit() {
    // 7B LoRA in bf16 without checkpointing at 2048 tokens on a 24 GiB card:
    // weights 12.55 GiB plus activations of 32 layers overflow it.
    let r = recommend(&answers(Goal::FineTune, LLAMA2_7B, card("rtx-4090"), 1)).unwrap();
    assert_eq!(r.fits, Some(false));
    assert!(!r.plans.is_empty());
    for p in &r.plans {
        let used = estimate(&p.scenario)
            .unwrap()
            .headline_gpu()
            .device_used_bytes;
        assert!(used <= r.capacity_bytes.unwrap());
    }
    // A row that fits needs none, and its figures are the estimate's.
    let ok = recommend(&answers(Goal::Serve, LLAMA2_7B, card("rtx-4090"), 1)).unwrap();
    assert_eq!(ok.fits, Some(true));
    assert!(ok.plans.is_empty());
    let e = estimate(&ok.scenario).unwrap();
    assert_eq!(e.headline_gpu().device_used_bytes, ok.device_used_bytes);
    // 16-bit weights: 6 738 415 616 × 2 B = 12.55 GiB at least.
    assert!(ok.device_used_bytes >= 6_738_415_616 * 2);
    assert_eq!(ok.scenario.task, TaskKind::Inference);
}

#[test]
fn priority_changes_the_row_where_the_table_says_so() {
    let mut a = answers(Goal::FineTune, LLAMA2_7B, card("t4"), 1);
    a.priority = Priority::Cost;
    assert_eq!(row_of(&a), "fine_tune_under_16gb_qlora_for_cost");
    // T4 has no bf16: the 16-bit type is fp16.
    let r = recommend(&answers(Goal::Serve, LLAMA2_7B, card("t4"), 1)).unwrap();
    assert_eq!(
        r.scenario.compute_dtype,
        vramfit_core::precision::Dtype::Fp16
    );
}

#[test]
fn bad_answers_name_the_field() {
    let err = |a: WizardAnswers| recommend(&a).unwrap_err().field;
    assert_eq!(
        err(answers(Goal::Serve, LLAMA2_7B, card("no-such-card"), 1)),
        "gpu"
    );
    assert_eq!(
        err(answers(Goal::FineTune, LLAMA2_7B, None, 0)),
        "gpu_count"
    );
    assert_eq!(
        err(answers(Goal::TrainFull, LLAMA2_7B, card("t4"), 0)),
        "gpu_count"
    );
    assert_eq!(err(answers(Goal::Serve, LLAMA2_7B, None, 2)), "gpu");
    assert_eq!(
        err(answers(Goal::Serve, "nope/none", card("t4"), 1)),
        "model"
    );
    assert_eq!(
        err(answers(
            Goal::Serve,
            LLAMA2_7B,
            Some(WizardGpu::MemoryBytes(5)),
            1
        )),
        "gpu"
    );
    assert_eq!(
        err(answers(Goal::Serve, LLAMA2_7B, card("t4"), 1 << 40)),
        "gpu_count"
    );
}

/// The wizard answers the user's question: it starts from their setup
/// (sequence length, LoRA rank, batch), changes only what the row
/// prescribes, and lists exactly those changes.
#[test]
fn the_wizard_keeps_the_users_setup_and_lists_its_changes() {
    let mut mine = vramfit_core::Scenario {
        task: vramfit_core::scenario::TaskKind::Training,
        ..Default::default()
    };
    mine.training.seq_len = 4096;
    mine.training.micro_batch = 2;
    mine.training.lora.rank = 16;
    let mut a = answers(Goal::FineTune, LLAMA2_7B, card("rtx-4090"), 1);
    mine.model = a.model.clone();
    mine.gpu.name = Some("rtx-4090".into());
    a.start = Some(mine.clone());
    let r = recommend(&a).expect("recommends");
    assert_eq!(r.scenario.training.seq_len, 4096);
    assert_eq!(r.scenario.training.micro_batch, 2);
    assert_eq!(r.scenario.training.lora.rank, 16);
    // Every listed change is a real difference, and every difference is listed.
    let keys: Vec<&str> = r.changes.iter().map(|c| c.key.as_str()).collect();
    assert!(
        !keys.is_empty(),
        "a 24 GB card needs some change for 7B fine-tuning"
    );
    for c in &r.changes {
        assert_ne!(c.from, c.to, "{c:?}");
    }
    let relinked = vramfit_core::url::encode(&r.scenario);
    let mut again = mine.clone();
    for c in &r.changes {
        let field = vramfit_core::scenario::fields::by_key(&c.key).expect("registry field");
        field
            .set_text(&mut again, &c.to)
            .expect("the new value is valid");
    }
    assert_eq!(vramfit_core::url::encode(&again), relinked);
    // Plain words: no row id, no interval notation.
    assert!(
        !r.why.en.contains(&r.row_id) && !r.why.en.contains('['),
        "{}",
        r.why.en
    );
}
