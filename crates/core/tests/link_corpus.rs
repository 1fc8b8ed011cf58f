//! Links keep their meaning forever.
//!
//! `data/links/v1.jsonl` holds share links written with format v=1 on
//! 2026-11-24 (commit 4651948), each with what it meant that day: the
//! parameters it noticed, its canonical re-encoding, and the estimate it
//! produced (every GPU's three totals and the CPU RAM), or the field its
//! error named. Links omit fields equal to their defaults, so
//! `Scenario::default()` is part of the v1 format: a change that alters what
//! one of these links means fails here. Such a change needs a new link
//! version that still decodes v1 as v1; the rows are never re-generated.
//! A link value or field added later (the `sglang` engine, `mfs`, `cps`)
//! gets rows of its own, appended and frozen the day it is added, each
//! carrying `added` (the date and what was added); no existing row changes.
//!
//! The estimator itself may get more exact (a sliding window caching one
//! token less, as transformers does): the frozen bytes are matched within
//! [`REFINEMENT`], far below what a changed default or field moves them.
//! Three changes may re-freeze rows with the new bytes, each row carrying
//! `refrozen` (the date and the reason); their links, notices and canonical
//! forms stay as frozen, and [`only_replaced_engine_rules_refreeze`] keeps
//! the mark to those rows:
//! * an engine's whole rule replaced by one read from its source: rows of
//!   that engine (`eng=vllm` naming vLLM, `eng=llama_cpp` naming llama.cpp);
//! * a measured correction of what an architecture's layers save: the
//!   reason starts with `2026-11-25: measured` and names the measurement, a
//!   file that exists under `tests/data/`, and only rows whose model is of
//!   the corrected architectures (Qwen3, Qwen3-MoE, Gemma, Gemma-2, Gemma-3:
//!   `s.arch=` or a catalog `m=` of those families) may carry it;
//! * a measured correction of the training step or a card's context: the
//!   reason holds `2026-11-26: measured on an H100` and names its file
//!   under `tests/data/`; only training rows and rows on Hopper or
//!   Blackwell cards may carry it (PEFT's fp32 adapters re-froze LoRA rows
//!   so, beside the H200's VLM runs of 2026-11-27 named in the same reason);
//! * a measured correction of sharded training: the reason holds
//!   `2026-11-27: sharded training measured on an H100` and names its file
//!   under `tests/data/`; only rows with FSDP or ZeRO may carry it;
//! * a measured correction of the allocator's cache: the reason holds
//!   `2026-11-27: allocator cache measured on an H100`, and the row keeps
//!   its bytes from before in `before_allocator_refreeze`: only reserved
//!   (and device used with it) may have moved. A row re-frozen again later
//!   for a replaced engine rule keeps what the allocator's re-freeze left
//!   in `after_allocator_refreeze`, which that check reads instead;
//! * the parameters a transformers load keeps in fp32: the reason holds
//!   `2026-11-27: fp32-kept parameters measured` and names its file under
//!   `tests/data/`; the row keeps its bytes from before in
//!   `before_fp32_refreeze`, and every number moved by exactly two bytes
//!   per kept parameter of its catalog model;
//! * transformers' eager fallback for classes without SDPA: the reason
//!   holds `2026-11-28: default attention measured` and names its file
//!   under `tests/data/`; the row keeps its bytes from before in
//!   `before_kernels_refreeze`, which its catalog model with all kernels
//!   must still estimate (a row re-frozen so keeps what an earlier
//!   re-freeze left in `after_views_refreeze`);
//! * the eager prefill's bytes per score measured per family: the reason
//!   holds `2026-11-28: eager prefill measured` and names its file under
//!   `tests/data/`; only transformers serving rows that run eager may
//!   carry it, their bytes from before in `before_eager_refreeze`.
//!
//! The page and embed parameters (`u`, `view`, `lang`, `goal`, `prio`,
//! `embed`, `show`) are the web page's: the core notices them as unknown,
//! and the web app's own test (`src/link.rs`) checks what the page reads.

mod common;

use serde_json::Value;
use vramfit_core::catalog::find_model;
use vramfit_core::model::kernels::HfKernels;
use vramfit_core::model::Arch;
use vramfit_core::precision::{Dtype, TrainingPrecision, WeightFormat};
use vramfit_core::scenario::{
    Attention, Checkpointing, Engine, Framework, LoraTarget, Method, ModelSource, Offload,
    Optimizer, Strategy, TaskKind,
};
use vramfit_core::url::{decode, encode, Choice};

const CORPUS: &str = include_str!("data/links/v1.jsonl");

/// How far an estimate may move from its frozen bytes: 0.01 %. Refinements
/// of the formulas move them by less (the W−1 sliding-window rule: 0.0003 %
/// on Mistral-style links); a changed default (a dtype, a batch, a flag)
/// moves them by whole percents.
const REFINEMENT: f64 = 1e-4;

fn close(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (*x as f64, *y as f64);
            (x - y).abs() <= REFINEMENT * y.max(1.0)
        })
}

fn rows() -> Vec<Value> {
    CORPUS
        .lines()
        .map(|line| serde_json::from_str(line).expect("every corpus line is JSON"))
        .collect()
}

fn text<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key].as_str().unwrap_or_default()
}

#[test]
fn the_corpus_is_large_enough_to_mean_something() {
    assert!(rows().len() >= 40, "at least 40 frozen links");
}

#[test]
fn every_frozen_link_decodes_and_estimates_as_it_did() {
    let mut failures = Vec::new();
    for row in rows() {
        let title = text(&row, "title");
        let link = text(&row, "link");
        let decoded = decode(link);
        let noticed: Vec<&str> = decoded.notices.iter().map(|n| n.param.as_str()).collect();
        let expected: Vec<&str> = row["notices"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if noticed != expected {
            failures.push(format!("{title}: notices {noticed:?}, froze {expected:?}"));
        }
        let canonical = encode(&decoded.scenario);
        if canonical != text(&row, "canonical") {
            failures.push(format!(
                "{title}: re-encodes as {canonical}, froze {}",
                text(&row, "canonical")
            ));
        }
        match (
            vramfit_core::estimate(&decoded.scenario),
            row.get("error_field"),
        ) {
            (Ok(e), None) => {
                let gpus: Vec<[u64; 3]> = e
                    .gpus
                    .iter()
                    .map(|g| {
                        [
                            g.peak_allocated_bytes,
                            g.peak_reserved_bytes,
                            g.device_used_bytes,
                        ]
                    })
                    .collect();
                let frozen: Vec<[u64; 3]> =
                    serde_json::from_value(row["gpus"].clone()).expect("gpus triples");
                if !close(&gpus.concat(), &frozen.concat()) {
                    failures.push(format!("{title}: GPUs {gpus:?}, froze {frozen:?}"));
                }
                let worst = e.headline_gpu();
                let headline = [
                    worst.peak_allocated_bytes,
                    worst.peak_reserved_bytes,
                    worst.device_used_bytes,
                ];
                let frozen_headline = [
                    row["peak_allocated_bytes"].as_u64().unwrap_or_default(),
                    row["peak_reserved_bytes"].as_u64().unwrap_or_default(),
                    row["device_used_bytes"].as_u64().unwrap_or_default(),
                ];
                if !close(&headline, &frozen_headline) {
                    failures.push(format!(
                        "{title}: headline {headline:?}, froze {frozen_headline:?}"
                    ));
                }
                if Some(e.cpu_ram_bytes) != row["cpu_ram_bytes"].as_u64() {
                    failures.push(format!("{title}: CPU RAM {}", e.cpu_ram_bytes));
                }
            }
            (Err(err), Some(field)) => {
                if Some(err.field.as_str()) != field.as_str() {
                    failures.push(format!("{title}: error names {}, froze {field}", err.field));
                }
            }
            (Ok(_), Some(field)) => {
                failures.push(format!("{title}: estimates, froze error {field}"))
            }
            (Err(err), None) => failures.push(format!("{title}: error {err}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Re-frozen bytes are only for a replaced engine rule: today vLLM's
/// (2026-11-25: the profile run, non-torch memory and the total vLLM reads)
/// and llama.cpp's (2026-11-25: its buffers by GGUF recipe and placement),
/// DeepSpeed ZeRO-3's gathered parameters (2026-11-26: its coordinator);
/// or for a measured correction of the layers' saved tensors
/// (2026-11-25: Qwen3, Gemma and Gemma-2 eager layers,
/// `tests/data/compile/compile_saved.csv`), on rows of those architectures.
#[test]
fn only_replaced_engine_rules_refreeze() {
    for row in rows() {
        if let Some(why) = row["refrozen"].as_str() {
            let link = text(&row, "link");
            let engine_rule = (link.contains("eng=vllm") && why.contains("vLLM"))
                || (link.contains("eng=llama_cpp") && why.contains("llama.cpp"))
                || (link.contains("par=zero") && why.contains(DEEPSPEED_RULE))
                || (link.contains("w=gptq4") && why.contains(GPTQ_KERNEL_RULE));
            let measured = why.starts_with(MEASURED) && {
                let file = measured_file(why).unwrap_or_else(|| {
                    panic!(
                        "{}: a measured re-freeze names no tests/data/ file ({why})",
                        text(&row, "title")
                    )
                });
                assert!(
                    file.is_file(),
                    "{}: {} does not exist",
                    text(&row, "title"),
                    file.display()
                );
                assert!(
                    measured_arch(link),
                    "{}: a measured re-freeze on a model outside {MEASURED_ARCHS:?}",
                    text(&row, "title")
                );
                true
            };
            let measured_h100 = why.contains(MEASURED_H100)
                && {
                    let file = measured_file(&why[why.find(MEASURED_H100).unwrap_or(0)..])
                        .unwrap_or_else(|| {
                            panic!("{}: names no tests/data/ file", text(&row, "title"))
                        });
                    assert!(file.is_file(), "{} does not exist", file.display());
                    assert!(
                    h100_correction_applies(link),
                    "{}: an H100-measured re-freeze on a row neither training nor on a Hopper/Blackwell card",
                    text(&row, "title")
                );
                    true
                };
            let sharded = why.contains(MEASURED_SHARDED) && {
                let file = measured_file(&why[why.find(MEASURED_SHARDED).unwrap_or(0)..])
                    .unwrap_or_else(|| {
                        panic!("{}: names no tests/data/ file", text(&row, "title"))
                    });
                assert!(file.is_file(), "{} does not exist", file.display());
                assert!(
                    link.contains("par=fsdp") || link.contains("par=zero"),
                    "{}: a sharded-training re-freeze on a row without FSDP or ZeRO",
                    text(&row, "title")
                );
                true
            };
            let allocator = why.contains(MEASURED_ALLOCATOR) && {
                allocator_cache_only_moved(&row);
                true
            };
            // each measured correction names its file and moved the row's
            // bytes by its own mechanism alone
            let checks: [(&str, OnlyMoved); 9] = [
                (MEASURED_REUSE, reuse_only_moved),
                (MEASURED_STREAMS, streams_only_moved),
                (MEASURED_T5, t5_layers_only_moved),
                (MEASURED_WINDOW_MASK, window_mask_only_moved),
                (MEASURED_ADAFACTOR, adafactor_step_only_moved),
                (MEASURED_FP32, fp32_kept_only_moved),
                (MEASURED_VIEWS, sliding_views_only_moved),
                (MEASURED_KERNELS, eager_fallback_only_moved),
                (MEASURED_EAGER, eager_prefill_only_moved),
            ];
            let mut corrected = false;
            for (marker, only_moved) in checks {
                if let Some(at) = why.find(marker) {
                    let file = measured_file(&why[at..]).unwrap_or_else(|| {
                        panic!("{}: names no tests/data/ file", text(&row, "title"))
                    });
                    assert!(file.is_file(), "{} does not exist", file.display());
                    only_moved(&row);
                    corrected = true;
                }
            }
            assert!(
                corrected || engine_rule || measured || measured_h100 || sharded || allocator,
                "{}: re-frozen without a replaced engine rule or a measured correction ({why})",
                text(&row, "title")
            );
        }
    }
}

/// How a re-freeze for a rule of DeepSpeed's ZeRO read from its source
/// reads (2026-11-26: the stage-3 parameter coordinator's fetch, prefetch
/// and release, `src/zero3.rs`; the reduce bucket gradients leave through
/// when the optimizer is on the CPU).
const DEEPSPEED_RULE: &str = "replaced by DeepSpeed's own rule";

/// How a re-freeze for the GPTQ kernel's scratch reads (2026-11-26:
/// transformers' default exllama kernel keeps an fp16 buffer of the
/// largest quantized weight, `src/dequant.rs`).
const GPTQ_KERNEL_RULE: &str = "replaced by the GPTQ kernel's own scratch";

/// How a measured correction's reason starts.
const MEASURED: &str = "2026-11-25: measured";

/// The architectures the measured correction of 2026-11-25 changed.
const MEASURED_ARCHS: [Arch; 5] = [
    Arch::Qwen3,
    Arch::Qwen3Moe,
    Arch::Gemma,
    Arch::Gemma2,
    Arch::Gemma3,
];

/// How the sharded-training correction's reason reads (2026-11-27): FSDP's
/// gathered units and mixed precision, measured on one rank of a world of
/// 2 or 8 on an H100 (`tests/data/sharded/`); only rows with FSDP or ZeRO.
const MEASURED_SHARDED: &str = "2026-11-27: sharded training measured on an H100";

/// How the allocator-cache correction's reason reads (2026-11-27): what
/// the caching allocator keeps beyond the live tensors, measured on an H100
/// with fixed and with expandable segments (`overhead.rs`).
const MEASURED_ALLOCATOR: &str = "2026-11-27: allocator cache measured on an H100";

/// A row re-frozen for the allocator's cache keeps its bytes from before
/// (`before_allocator_refreeze`), and only reserved moved: every GPU's
/// allocated peak stayed (within [`REFINEMENT`]) and device used moved with
/// reserved, byte for byte.
fn allocator_cache_only_moved(row: &Value) {
    let title = text(row, "title");
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_allocator_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_allocator_refreeze: {e}"));
    // A later re-freeze for a replaced engine rule keeps the bytes the
    // allocator's re-freeze left in `after_allocator_refreeze`.
    let after = row
        .get("after_allocator_refreeze")
        .unwrap_or(&row["gpus"])
        .clone();
    let now: Vec<[u64; 3]> = serde_json::from_value(after).expect("gpus triples");
    only_the_cache_moved(title, &before, &now);
}

/// How the fp32-kept parameters' correction reads (2026-11-27): what a
/// transformers load keeps in fp32 (`_keep_in_fp32_modules_strict`),
/// counted on the meta device (`tests/data/params/fp32_kept.csv`).
const MEASURED_FP32: &str = "2026-11-27: fp32-kept parameters measured";

/// A row re-frozen for the fp32-kept parameters keeps its bytes from
/// before (`before_fp32_refreeze`); its model, a catalog entry, keeps
/// parameters in fp32, and every number of every GPU moved by exactly
/// their two more bytes each.
fn fp32_kept_only_moved(row: &Value) {
    let title = text(row, "title");
    let kept = match decode(text(row, "link")).scenario.model {
        ModelSource::Catalog(id) => find_model(&id).map_or(0, |m| m.spec.fp32_params),
        _ => 0,
    };
    assert!(kept > 0, "{title}: its model keeps no parameters in fp32");
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_fp32_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_fp32_refreeze: {e}"));
    // A later re-freeze (the eager fallback) keeps what this one left in
    // `after_views_refreeze`.
    let after = row
        .get("after_views_refreeze")
        .unwrap_or_else(|| before_reuse(row))
        .clone();
    let now: Vec<[u64; 3]> = serde_json::from_value(after).expect("gpus triples");
    assert_eq!(before.len(), now.len(), "{title}: GPU count");
    for (b, n) in before.iter().zip(&now) {
        for (x, y) in b.iter().zip(n) {
            assert_eq!(y - x, 2 * kept, "{title}: moved {b:?} -> {n:?}");
        }
    }
}

/// How the sliding-window views' correction reads (2026-11-27): right
/// after a prefill, transformers' sliding and chunked cache layers keep
/// their window as a view of the whole prompt's keys and values, measured
/// on CPU (`tests/data/cache/hybrid_cache.jsonl`, `retained_storage_bytes`).
const MEASURED_VIEWS: &str = "2026-11-27: sliding-window cache views measured";

/// A row re-frozen for the sliding-window views keeps its bytes from
/// before (`before_views_refreeze`); it runs transformers' dynamic cache on
/// a catalog model with sliding layers, and every number of every GPU moved
/// by exactly the prompt's tokens beyond the window on those layers:
/// batch × (prompt − (window − 1)) × their bf16 bytes per token.
fn sliding_views_only_moved(row: &Value) {
    let title = text(row, "title");
    let scenario = decode(text(row, "link")).scenario;
    let inference = &scenario.inference;
    assert_eq!(inference.engine, Engine::Transformers, "{title}: engine");
    let ModelSource::Catalog(id) = &scenario.model else {
        panic!("{title}: not a catalog model");
    };
    let spec = &find_model(id).expect("catalog model").spec;
    let window = u128::from(spec.sliding_window.as_ref().expect("sliding layers").window);
    let shards = common::one_gpu(spec.layers);
    let (per_token, _) = vramfit_core::inference::kv_bytes_per_token(spec, Dtype::Bf16, &shards);
    let (_, sliding) = shards.kv_split(spec, (per_token, 2));
    let beyond = u128::from(inference.prompt_len).saturating_sub(window - 1);
    let moved = u128::from(inference.batch) * beyond * sliding;
    assert!(moved > 0, "{title}: its prompt fits its window");
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_views_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_views_refreeze: {e}"));
    // A later re-freeze (the eager fallback) keeps what this one left in
    // `after_views_refreeze`.
    let after = row
        .get("after_views_refreeze")
        .unwrap_or_else(|| before_reuse(row))
        .clone();
    let now: Vec<[u64; 3]> = serde_json::from_value(after).expect("gpus triples");
    assert_eq!(before.len(), now.len(), "{title}: GPU count");
    for (b, n) in before.iter().zip(&now) {
        for (x, y) in b.iter().zip(n) {
            assert_eq!(u128::from(y - x), moved, "{title}: moved {b:?} -> {n:?}");
        }
    }
}

/// A check that a re-frozen row's bytes moved by one mechanism alone.
type OnlyMoved = fn(&Value);

/// How the re-freeze for the blocks the gradients outgrow reads
/// (2026-11-29): gradients and optimizer-step temporaries larger than the
/// blocks forward freed take new segments beside them
/// (`training/reuse.rs`), and the split-segment share is a twentieth of the
/// per-step tensors (a tenth with ZeRO's and FSDP's side streams), chosen
/// on `tests/data/groundtruth/h100_measured.jsonl` and
/// `tests/data/sharded/sharded_cases.jsonl`.
const MEASURED_REUSE: &str = "2026-11-29: allocator cache measured on an H100";

/// A row's bytes before the re-freezes of [`MEASURED_REUSE`] and
/// [`MEASURED_STREAMS`]: what the earlier re-freezes' checks compare with.
fn before_reuse(row: &Value) -> &Value {
    row.get("before_reuse_refreeze")
        .or_else(|| row.get("before_streams_refreeze"))
        .unwrap_or(&row["gpus"])
}

/// How the re-freeze for the collectives' stream pools reads (2026-11-29):
/// the all-gather and reduce-scatter outputs cached for FSDP's own streams,
/// its reduce-scatter inputs larger than the loss's freed blocks in new
/// segments, and ZeRO-3's flat gradient bucket on its reduce stream
/// (`training/sharded.rs`), measured on one rank of 1, 2 and 8
/// (`tests/data/sharded/sharded.jsonl`).
const MEASURED_STREAMS: &str = "2026-11-29: the collectives' stream pools measured on an H100";

/// An FSDP or ZeRO-3 training row whose cache alone moved since
/// `before_streams_refreeze`.
fn streams_only_moved(row: &Value) {
    let title = text(row, "title");
    let link = text(row, "link");
    assert!(
        link.contains("par=fsdp") || link.contains("par=zero3"),
        "{title}: neither FSDP nor ZeRO-3"
    );
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_streams_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_streams_refreeze: {e}"));
    let now: Vec<[u64; 3]> = serde_json::from_value(row["gpus"].clone()).expect("gpus triples");
    only_the_cache_moved(title, &before, &now);
}

/// Every GPU's allocated peak stayed (within [`REFINEMENT`]) and device
/// used moved with reserved, byte for byte.
fn only_the_cache_moved(title: &str, before: &[[u64; 3]], now: &[[u64; 3]]) {
    assert_eq!(before.len(), now.len(), "{title}: GPU count");
    for (b, n) in before.iter().zip(now) {
        assert!(
            close(&[n[0]], &[b[0]]),
            "{title}: allocated moved {b:?} -> {n:?}"
        );
        assert_eq!(
            n[2] - n[1],
            b[2] - b[1],
            "{title}: device used moved beside reserved"
        );
    }
}

/// A training row whose allocated bytes stayed and whose device used moved
/// with reserved, byte for byte (the cache alone moved).
fn reuse_only_moved(row: &Value) {
    let title = text(row, "title");
    let scenario = decode(text(row, "link")).scenario;
    assert_eq!(scenario.task, TaskKind::Training, "{title}: not training");
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_reuse_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_reuse_refreeze: {e}"));
    let now: Vec<[u64; 3]> = serde_json::from_value(row["gpus"].clone()).expect("gpus triples");
    only_the_cache_moved(title, &before, &now);
}

/// How the re-freeze for T5's measured layers reads (2026-11-28): what each
/// T5 encoder and decoder layer saves, measured on CPU against transformers
/// 5.24 (`tests/data/t5/t5_layers.jsonl`): T5LayerNorm's 16-bit input, the
/// gated GELU's Python intermediates, the cross-attention's q input, the
/// decoder's third residual dropout and SDPA's boolean causal mask.
const MEASURED_T5: &str = "2026-11-28: T5 layers measured on CPU";

/// The row is a T5 training job and the correction only added saved
/// tensors: every GPU's bytes grew from `before_t5_refreeze`, by less than
/// a fifth.
fn t5_layers_only_moved(row: &Value) {
    let title = text(row, "title");
    let scenario = decode(text(row, "link")).scenario;
    let arch = match &scenario.model {
        ModelSource::Spec(spec) => Some(spec.arch),
        ModelSource::Catalog(id) => find_model(id).map(|m| m.spec.arch),
        ModelSource::Params(_) => None,
    };
    assert_eq!(arch, Some(Arch::T5), "{title}: not a T5 model");
    assert_eq!(scenario.task, TaskKind::Training, "{title}: not training");
    let before: Vec<[u64; 3]> =
        serde_json::from_value(row["before_t5_refreeze"].clone()).expect("the bytes before");
    let after: Vec<[u64; 3]> =
        serde_json::from_value(before_reuse(row).clone()).expect("gpus triples");
    for (b, a) in before.concat().iter().zip(after.concat()) {
        assert!(a >= *b && a - b < b / 5, "{title}: {b} -> {a}");
    }
}

/// How the re-freeze for SDPA's sliding-window mask reads (2026-11-29):
/// transformers hands SDPA a boolean mask on a sliding layer over at least
/// its window, which SDPA turns into an additive (b, 1, s, s) one it keeps
/// for backward, one per layer (`tests/data/modernbert_decoder/`).
const MEASURED_WINDOW_MASK: &str = "2026-11-29: SDPA's sliding-window mask measured on CPU";

/// The row trains a model with sliding layers, and each GPU's bytes grew by
/// whole b·s² masks (1 to 4 bytes each), at most one per sliding layer.
fn window_mask_only_moved(row: &Value) {
    let title = text(row, "title");
    let scenario = decode(text(row, "link")).scenario;
    assert_eq!(scenario.task, TaskKind::Training, "{title}: not training");
    let ModelSource::Spec(spec) = &scenario.model else {
        panic!("{title}: not a custom model");
    };
    let sliding = spec.sliding_window.as_ref().map_or(0, |w| w.layers);
    let t = &scenario.training;
    let mask = t.micro_batch * t.seq_len.pow(2);
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_window_mask_refreeze"].clone())
        .expect("the bytes before");
    let after: Vec<[u64; 3]> =
        serde_json::from_value(before_reuse(row).clone()).expect("gpus triples");
    for (b, a) in before.iter().zip(&after) {
        let moved = a[0] - b[0];
        assert!(
            moved > 0 && moved % mask == 0 && moved <= 4 * sliding * mask,
            "{title}: allocated moved {moved}, masks of {mask}, {sliding} sliding layers"
        );
    }
}

/// How the re-freeze for Adafactor's step reads (2026-11-29): transformers'
/// Adafactor steps a 16-bit parameter through `grad.float()` and
/// `p.float()` beside its two fp32 updates, four fp32 copies of the
/// largest tensor, not two (Llama-3-8B's and Mistral-7B's bf16 rows of
/// `tests/data/groundtruth/h100_measured.jsonl`).
const MEASURED_ADAFACTOR: &str = "2026-11-29: Adafactor's step measured on an H100";

/// The row trains with Adafactor, and no number grew past the two fp32
/// copies the correction added: half of today's step line.
fn adafactor_step_only_moved(row: &Value) {
    let title = text(row, "title");
    let link = text(row, "link");
    assert!(link.contains("opt=adafactor"), "{title}: not Adafactor");
    let estimate = vramfit_core::estimate(&decode(link).scenario).expect("estimates");
    let step = estimate.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == vramfit_core::Part::OptimizerStep)
        .map(|l| l.bytes)
        .unwrap_or_else(|| panic!("{title}: no optimizer step"));
    let before: Vec<[u64; 3]> =
        serde_json::from_value(row["before_adafactor_refreeze"].clone()).expect("the bytes before");
    let after: Vec<[u64; 3]> =
        serde_json::from_value(before_reuse(row).clone()).expect("gpus triples");
    for (b, a) in before.concat().iter().zip(after.concat()) {
        assert!(
            a >= *b && a - b <= step / 2,
            "{title}: {b} -> {a}, step {step}"
        );
    }
}

/// How the re-freeze for transformers' eager fallback reads (2026-11-28):
/// a class without SDPA (Gemma-2, gpt-oss) runs its default attention
/// eager, read from every class's flags and the attention `from_config`
/// builds (`tests/data/attention/`).
const MEASURED_KERNELS: &str = "2026-11-28: default attention measured";

/// The row's bytes moved by the fallback alone: with its model's kernels
/// set back to all three, today's estimate is the row's bytes from before
/// (`before_kernels_refreeze`), and the model is one transformers runs
/// eager by default.
fn eager_fallback_only_moved(row: &Value) {
    let title = text(row, "title");
    let mut scenario = decode(text(row, "link")).scenario;
    let ModelSource::Catalog(id) = &scenario.model else {
        panic!("{title}: not a catalog model");
    };
    let mut spec = find_model(id).expect("catalog model").spec.clone();
    assert_ne!(spec.hf_kernels, HfKernels::All, "{title}: has SDPA");
    spec.hf_kernels = HfKernels::All;
    scenario.model = ModelSource::Spec(Box::new(spec));
    let e = vramfit_core::estimate(&scenario).expect("estimates");
    let all_kernels: Vec<[u64; 3]> = e
        .gpus
        .iter()
        .map(|g| {
            [
                g.peak_allocated_bytes,
                g.peak_reserved_bytes,
                g.device_used_bytes,
            ]
        })
        .collect();
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_kernels_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_kernels_refreeze: {e}"));
    // SDPA's sliding-window mask (2026-11-29, `MEASURED_WINDOW_MASK`) came
    // after: with SDPA, a prefill over the window now also holds one e·b·p²
    let inference = &scenario.inference;
    let mask = inference.batch * inference.prompt_len.pow(2);
    let windowed = spec_window(&scenario).is_some_and(|w| inference.prompt_len >= w);
    let later_mask =
        |now: u64, then: u64| windowed && (now == then + 2 * mask || now == then + 4 * mask);
    let same = close(&all_kernels.concat(), &before.concat())
        || all_kernels
            .iter()
            .zip(&before)
            .all(|(n, b)| later_mask(n[0], b[0]) && n[1] >= b[1] && n[2] >= b[2]);
    assert!(
        same,
        "{title}: {all_kernels:?} with SDPA, froze {before:?} before"
    );
}

/// The sliding window of the scenario's model, if it has sliding layers.
fn spec_window(scenario: &vramfit_core::Scenario) -> Option<u64> {
    let spec = match &scenario.model {
        ModelSource::Spec(spec) => spec.as_ref().clone(),
        ModelSource::Catalog(id) => find_model(id)?.spec.clone(),
        ModelSource::Params(_) => return None,
    };
    spec.sliding_window
        .filter(|w| w.layers > 0)
        .map(|w| w.window)
}

/// How the re-freeze for the eager prefill's measured bytes reads
/// (2026-11-28): what one eager layer holds at its worst moment in a
/// prefill, measured per family (`tests/data/attention/eager_prefill.jsonl`),
/// where 6 B per score stood before.
const MEASURED_EAGER: &str = "2026-11-28: eager prefill measured";

/// The row serves with transformers under eager attention (chosen or
/// fallen back to), and its allocated peak moved up by a whole number of
/// the extra bytes per score times b·a (its bytes from before in
/// `before_eager_refreeze`).
fn eager_prefill_only_moved(row: &Value) {
    let title = text(row, "title");
    let scenario = decode(text(row, "link")).scenario;
    assert_eq!(scenario.task, TaskKind::Inference, "{title}: task");
    assert_eq!(
        scenario.inference.engine,
        Engine::Transformers,
        "{title}: engine"
    );
    let spec = &match &scenario.model {
        ModelSource::Catalog(id) => find_model(id).expect("catalog model").spec.clone(),
        ModelSource::Spec(spec) => (**spec).clone(),
        ModelSource::Params(_) => panic!("{title}: a bare parameter count"),
    };
    assert_eq!(
        vramfit_core::attention_run::attention_run(&scenario, spec),
        Attention::Eager,
        "{title}: runs eager"
    );
    let extra = u64::try_from(vramfit_core::activations::eager_prefill_score_bytes(
        spec.arch, 2,
    ))
    .expect("small")
        - 6;
    let heads = spec.heads.div_ceil(scenario.parallel.tp.max(1));
    let step = extra * scenario.inference.batch * heads;
    let before: Vec<[u64; 3]> = serde_json::from_value(row["before_eager_refreeze"].clone())
        .unwrap_or_else(|e| panic!("{title}: before_eager_refreeze: {e}"));
    let now: Vec<[u64; 3]> =
        serde_json::from_value(before_reuse(row).clone()).expect("gpus triples");
    for (b, n) in before.iter().zip(&now) {
        let moved = n[0] - b[0];
        assert!(
            moved > 0 && moved % step == 0,
            "{title}: allocated moved {moved}, not a multiple of {step}"
        );
    }
}

/// How the H100-measured correction's reason reads (2026-11-26): the
/// training step's mechanisms (the loss's logits freed with the output,
/// the checkpointed layer recomputed after the loss's backward, SGD
/// momentum in place) and the Hopper CUDA context, measured on an H100
/// (`tests/data/groundtruth/h100_measured.jsonl`).
const MEASURED_H100: &str = "2026-11-26: measured on an H100";

/// Whether the H100-measured correction can move the row: a training link,
/// or one on a Hopper or Blackwell card (whose context figure changed).
fn h100_correction_applies(link: &str) -> bool {
    let sc = decode(link).scenario;
    let hopper = sc
        .gpu
        .name
        .as_deref()
        .and_then(vramfit_core::gpu::find_gpu)
        .is_some_and(|g| {
            matches!(
                g.generation,
                vramfit_core::gpu::Generation::Hopper | vramfit_core::gpu::Generation::Blackwell
            )
        });
    sc.task == TaskKind::Training || hopper
}

/// The data file a reason names, `tests/data/…`, as a path in this crate;
/// `None` when it names none or one outside `tests/data/`.
fn measured_file(why: &str) -> Option<std::path::PathBuf> {
    let start = why.find("tests/data/")?;
    let name: String = why[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ';' | ':' | ')' | '`'))
        .collect();
    let name = name.trim_end_matches('.');
    let inside = name.len() > "tests/data/".len() && !name.split('/').any(|part| part == "..");
    inside.then(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
}

/// Whether the link's model, a custom `s.arch=` or a catalog `m=`, is of
/// the measured architectures.
fn measured_arch(link: &str) -> bool {
    let arch = match decode(link).scenario.model {
        ModelSource::Spec(spec) => Some(spec.arch),
        ModelSource::Catalog(id) => find_model(&id).map(|m| m.spec.arch),
        ModelSource::Params(_) => None,
    };
    arch.is_some_and(|a| MEASURED_ARCHS.contains(&a))
}

/// Every value of every enum a link carries appears in some frozen link.
#[test]
fn the_corpus_covers_every_enum_value() {
    let links: Vec<String> = rows()
        .iter()
        .map(|r| format!("&{}&", text(r, "canonical")))
        .collect();
    let mut missing = Vec::new();
    let mut check = |key: &str, values: Vec<&'static str>, default: &str| {
        for value in values {
            let covered = value == default
                || links.iter().any(|l| {
                    l.contains(&format!("&{key}={value}&"))
                        || (key == "lt" && l.contains("&lt=") && l.contains(value))
                });
            if !covered {
                missing.push(format!("{key}={value}"));
            }
        }
    };
    fn keys<T: Choice>() -> Vec<&'static str> {
        T::ALL.iter().map(|c| c.key()).collect()
    }
    check("t", keys::<TaskKind>(), "infer");
    check("w", keys::<WeightFormat>(), "bf16");
    check("dt", vec!["bf16", "fp16", "fp32"], "bf16");
    check("prec", keys::<TrainingPrecision>(), "pure16");
    check("attn", keys::<Attention>(), "sdpa");
    check("fw", keys::<Framework>(), "transformers");
    check("meth", keys::<Method>(), "full");
    check("lt", keys::<LoraTarget>(), "");
    check("opt", keys::<Optimizer>(), "adamw");
    check("osd", vec!["bf16", "fp32"], "auto");
    check("ckpt", keys::<Checkpointing>(), "off");
    check("kv", keys::<Dtype>(), "auto");
    check("eng", keys::<Engine>(), "transformers");
    check("par", keys::<Strategy>(), "none");
    check("off", keys::<Offload>(), "none");
    assert!(missing.is_empty(), "not in any frozen link: {missing:?}");
}
