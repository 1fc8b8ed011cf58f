//! SGLang's KV pool, sized by SGLang 0.5.5's own rule (see
//! `vramfit_core::serving::sglang`): the expected figures below are worked
//! out by hand from that rule, never read back from the estimator.
//!
//! The rule, with F0 the free memory before the weights load (the total
//! `torch.cuda.mem_get_info()` reports, less the CUDA context and, when the
//! model is split, the NCCL communicators):
//!
//! `rest = (F0 − loaded) − F0 × (1 − mem_fraction_static)`
//! `max_total_num_tokens = ⌊rest / cell⌋`
//!
//! and `mem_fraction_static`'s default for a card of `gpu_mem` MiB
//! (nvidia-smi) is `round((gpu_mem − reserved) / gpu_mem, 3)`, `reserved =
//! 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs +
//! 1024 × tp × pp / 8`, at least 10240 on cards above 60 GiB.
//!
//! Figures every test shares:
//! * H100 SXM5 80GB: nvidia-smi 81,559 MiB, `mem_get_info` total
//!   85,029,615,043 B, CUDA context 770 MiB = 807,403,520 B, so one GPU's
//!   F0 = 84,222,211,523 B; defaults chunked_prefill_size 8192 and
//!   cuda_graph_max_bs 256 (tp < 4) or 512 (tp ≥ 4).
//! * tp 1: reserved = 512 + 12,288 + 512 + 128 = 13,440 MiB, so
//!   mem_fraction_static = round(68,119 / 81,559, 3) = round(0.83521, 3) = 0.835.
//! * Llama-3.1-8B: 8,030,261,248 parameters × 2 B = 16,060,522,496 B plus
//!   SGLang's fp32 RoPE table 131,072 positions × 128 × 4 B = 67,108,864 B:
//!   loaded = 16,127,631,360 B; cell = 8 kv heads × 128 × 32 layers × 2 (K,V)
//!   × 2 B = 131,072 B.

use vramfit_core::report::{Estimate, Part};
use vramfit_core::scenario::{Engine, Scenario};
use vramfit_core::url::decode;

const H100_TOTAL: f64 = 85_029_615_043.0;
const H100_F0: f64 = 84_222_211_523.0;
const LLAMA_LOADED: f64 = 16_127_631_360.0;
const LLAMA_CELL: u64 = 131_072;

fn scenario(link: &str) -> Scenario {
    let d = decode(link);
    assert!(d.notices.is_empty(), "{link}: {:?}", d.notices);
    d.scenario
}

fn estimate(link: &str) -> Estimate {
    vramfit_core::estimate(&scenario(link)).expect("estimates")
}

fn line(e: &Estimate, part: Part) -> u64 {
    e.gpus[0]
        .lines
        .iter()
        .find(|l| l.part == part)
        .map_or(0, |l| l.bytes)
}

/// Bytes agree up to the float rounding of SGLang's GiB arithmetic.
fn near(ours: u64, expected: f64) -> bool {
    (ours as f64 - expected).abs() <= 16.0
}

const LLAMA_H100: &str = "v=1&m=meta-llama/Llama-3.1-8B&eng=sglang&gpu=h100-sxm5-80gb";

#[test]
fn llama_3_1_8b_on_an_h100_with_the_default_fraction() {
    // rest = 0.835 × 84,222,211,523 − 16,127,631,360
    //      = 70,325,546,621.7 − 16,127,631,360 = 54,197,915,261.7 B
    // tokens = ⌊54,197,915,261.7 / 131,072⌋ = ⌊413,497.28⌋ = 413,497
    // max_running_requests = min(413,497 // 2, clamp(⌊413,497 / 131,072 ×
    // 512⌋ = 1615, 2048, 4096)) = min(206,748, 2048) = 2048.
    let e = estimate(LLAMA_H100);
    let pool = e.serving.clone().expect("a pool");
    assert_eq!(pool.engine, Engine::Sglang);
    assert_eq!(pool.kv_pool_tokens, 413_497);
    assert!(
        near(pool.kv_pool_bytes, 54_197_915_261.7),
        "{}",
        pool.kv_pool_bytes
    );
    assert_eq!((pool.block_tokens, pool.block_bytes), (1, LLAMA_CELL));
    assert_eq!(pool.limits.max_num_seqs, 2048);
    assert_eq!(pool.limits.max_num_batched_tokens, 8192);
    assert!(!pool.limits.given);
    // The default request (1 sequence of 512 + 256 tokens): ⌊413,497 / 768⌋
    // = 538 at once; a request can reach context_len − 1 = 131,071 tokens.
    assert_eq!(pool.max_concurrent_sequences, 538);
    assert_eq!(pool.max_context, 131_071);
    assert!(pool.context_bound_by_model && pool.holds_request());
    assert_eq!(line(&e, Part::Weights), LLAMA_LOADED as u64);
    // What SGLang leaves is (1 − 0.835) × F0 = 13,896,664,901.3 B, inside
    // the card: weights + pool + rest + context = the whole total.
    assert!(near(line(&e, Part::Activations), 0.165 * H100_F0));
    assert!(near(e.headline_gpu().device_used_bytes, H100_TOTAL));
    assert_eq!(e.fits(), Some(true));
}

#[test]
fn qwen2_5_72b_split_over_four_h100s() {
    // tp 4: cuda_graph_max_bs 512, reserved = 512 + 12,288 + 1024 + 512 =
    // 14,336 MiB, mem_fraction_static = round(67,223 / 81,559, 3) = 0.824.
    // F0 = 85,029,615,043 − 807,403,520 − 1,983,905,792 (NCCL and custom
    // all-reduce: 1892 MiB) = 82,238,305,731 B.
    // loaded = 72,706,203,648 × 2 / 4 = 36,353,101,824 + RoPE 32,768 × 128 ×
    // 4 = 16,777,216 → 36,369,879,040 B.
    // rest = 0.824 × 82,238,305,731 − 36,369,879,040 = 31,394,484,882.3 B
    // (SGLang reads the ranks' minimum through float32: 31,394,482,946).
    // cell = 8 / 4 kv heads × 128 × 80 layers × 2 × 2 B = 81,920 B:
    // tokens = ⌊383,233.46⌋ = 383,233.
    // max_running_requests = min(191,616, clamp(⌊383,233 / 32,768 × 512⌋ =
    // 5988, 2048, 4096)) = 4096.
    let e = estimate("v=1&m=Qwen/Qwen2.5-72B-Instruct&eng=sglang&n=4&tp=4&gpu=h100-sxm5-80gb");
    let pool = e.serving.clone().expect("a pool");
    assert_eq!(pool.kv_pool_tokens, 383_233);
    assert!(
        (pool.kv_pool_bytes as f64 - 31_394_484_882.3).abs() < 4096.0,
        "{}",
        pool.kv_pool_bytes
    );
    assert_eq!(pool.block_bytes, 81_920);
    assert_eq!(pool.limits.max_num_seqs, 4096);
    assert_eq!(line(&e, Part::Weights), 36_369_879_040);
    assert_eq!(line(&e, Part::NonTorch), 1_983_905_792);
}

#[test]
fn deepseek_v2_lite_caches_the_compressed_latent() {
    // MLA: cell = 27 layers × (512 latent + 64 rope) × 2 B = 31,104 B.
    // loaded = 15,706,484,224 × 2 = 31,412,968,448 + RoPE 163,840 × 64 × 4
    // = 41,943,040 + the w_kc, w_vc copies of kv_b_proj 27 × 512 × 16 heads
    // × (128 + 128) × 2 = 113,246,208 → 31,568,157,696 B.
    // rest = 70,325,546,621.7 − 31,568,157,696 = 38,757,388,925.7 B
    // tokens = ⌊1,246,058.0⌋ = 1,246,058
    // max_running_requests = min(623,029, clamp(⌊1,246,058 / 163,840 ×
    // 512⌋ = 3893, 2048, 4096)) = 3893.
    let e = estimate("v=1&m=deepseek-ai/DeepSeek-V2-Lite-Chat&eng=sglang&gpu=h100-sxm5-80gb");
    let pool = e.serving.clone().expect("a pool");
    assert_eq!(pool.block_bytes, 31_104);
    assert_eq!(line(&e, Part::Weights), 31_568_157_696);
    assert!(near(pool.kv_pool_bytes, 38_757_388_925.7));
    assert_eq!(pool.kv_pool_tokens, 1_246_058);
    assert_eq!(pool.limits.max_num_seqs, 3893);
}

#[test]
fn an_explicit_fraction_moves_the_pool_linearly() {
    // rest(f) = f × F0 − loaded: each 0.1 adds 0.1 × 84,222,211,523 =
    // 8,422,221,152.3 B. At 0.7, 0.8, 0.9: 42,827,916,706.1,
    // 51,250,137,858.4, 59,672,359,010.7 B; / 131,072 → 326,751, 391,007,
    // 455,263 tokens.
    let mut pools = Vec::new();
    for (f, bytes, tokens) in [
        ("0.7", 42_827_916_706.1, 326_751),
        ("0.8", 51_250_137_858.4, 391_007),
        ("0.9", 59_672_359_010.7, 455_263),
    ] {
        let e = estimate(&format!("{LLAMA_H100}&mfs={f}"));
        let pool = e.serving.clone().expect("a pool");
        assert!(
            near(pool.kv_pool_bytes, bytes),
            "{f}: {}",
            pool.kv_pool_bytes
        );
        assert_eq!(pool.kv_pool_tokens, tokens, "{f}");
        // Weights and pool are f × F0; the rest is what SGLang leaves.
        let static_and_rest =
            line(&e, Part::Weights) + line(&e, Part::KvCache) + line(&e, Part::Activations);
        assert!(near(static_and_rest, H100_F0), "{f}: {static_and_rest}");
        pools.push(pool.kv_pool_bytes as f64);
    }
    for w in pools.windows(2) {
        assert!((w[1] - w[0] - 0.1 * H100_F0).abs() < 32.0, "{pools:?}");
    }
}

#[test]
fn the_chunk_sets_the_default_fraction_only() {
    // chunked_prefill_size 16,384: reserved = 512 + 24,576 + 512 + 128 =
    // 25,728 MiB, mem_fraction_static = round(55,831 / 81,559, 3) = 0.685;
    // rest = 0.685 × F0 − loaded = 57,692,214,893.3 − 16,127,631,360 =
    // 41,564,583,533.3 B → 317,112 tokens.
    let e = estimate(&format!("{LLAMA_H100}&cps=16384"));
    let pool = e.serving.expect("a pool");
    assert!(near(pool.kv_pool_bytes, 41_564_583_533.3));
    assert_eq!(pool.kv_pool_tokens, 317_112);
    assert_eq!(pool.limits.max_num_batched_tokens, 16_384);
    // A given fraction is not changed by the chunk.
    let given = |link: &str| estimate(link).serving.expect("a pool").kv_pool_tokens;
    assert_eq!(
        given(&format!("{LLAMA_H100}&mfs=0.8")),
        given(&format!("{LLAMA_H100}&mfs=0.8&cps=16384"))
    );
}

#[test]
fn a_vlm_takes_sglangs_smaller_default_fraction() {
    // LLaVA-1.5-7B's tower is ViT-L/14 (24 layers of 1024): complexity
    // ratio 1, so mem_fraction_static = 0.835 × 0.95 × 1.0 = 0.79325.
    // loaded = 7,063,427,072 × 2 + RoPE 4096 × 128 × 4 = 14,128,951,296 B;
    // rest = 0.79325 × F0 − loaded = 52,680,317,994.6 B; cell = 32 × 2 ×
    // 32 × 128 × 2 = 524,288 B → 100,479 tokens.
    let e = estimate("v=1&m=llava-hf/llava-1.5-7b-hf&eng=sglang&gpu=h100-sxm5-80gb");
    let pool = e.serving.expect("a pool");
    assert!(near(pool.kv_pool_bytes, 52_680_317_994.6));
    assert_eq!(pool.kv_pool_tokens, 100_479);
}

#[test]
fn concurrency_and_context_are_read_off_the_token_pool() {
    // L40S: 46,068 MiB → chunked_prefill_size 4096, cuda_graph_max_bs 32,
    // reserved = 512 + 6144 + 64 + 128 = 6848 MiB (no floor below 60 GiB),
    // mem_fraction_static = round(39,220 / 46,068, 3) = 0.851. F0 =
    // 48,305,799,168 − 512 MiB = 47,768,928,256 B; rest = 0.851 × F0 −
    // loaded = 24,523,726,585.9 B → 187,101 tokens.
    let base = "v=1&m=meta-llama/Llama-3.1-8B&eng=sglang&gpu=l40s&pl=16000&nt=2000";
    let pool = estimate(&format!("{base}&bs=6")).serving.expect("a pool");
    assert_eq!(pool.kv_pool_tokens, 187_101);
    // ⌊187,101 / 18,000⌋ = 10 sequences; 6 of ⌊187,101 / 6⌋ = 31,183.
    assert_eq!(pool.max_concurrent_sequences, 10);
    assert_eq!(pool.max_context, 31_183);
    assert!(pool.holds_request() && !pool.context_bound_by_model);
    // 64 sequences sharing a 12,000-token prompt: the radix cache keeps it
    // once; ⌊(187,101 − 12,000) / 6000⌋ = 29 at once, and 64 reach
    // 12,000 + ⌊175,101 / 64⌋ = 14,735 tokens. They are short by
    // (12,000 + 64 × 6000 − 187,101) × 131,072 B.
    let e = estimate(&format!("{base}&bs=64&pfx=12000"));
    let pool = e.serving.clone().expect("a pool");
    assert_eq!(pool.max_concurrent_sequences, 29);
    assert_eq!(pool.max_context, 14_735);
    assert!(!pool.holds_request());
    assert_eq!(pool.short_bytes(), (396_000 - 187_101) * LLAMA_CELL);
    assert_eq!(e.fits(), Some(false));
    // A given max_running_requests caps the concurrency.
    let capped = estimate(&format!("{base}&bs=6&mns=8"))
        .serving
        .expect("a pool");
    assert_eq!(capped.max_concurrent_sequences, 8);
}

#[test]
fn weights_beyond_the_static_share_leave_no_pool() {
    // Qwen2.5-72B in bf16 on one H100: 145 GB of weights exceed 0.835 × F0,
    // and SGLang stops ("Not enough memory. Please try to increase
    // --mem-fraction-static"): the pool is short by the difference.
    let e = estimate("v=1&m=Qwen/Qwen2.5-72B-Instruct&eng=sglang&gpu=h100-sxm5-80gb");
    let pool = e.serving.clone().expect("a pool");
    assert_eq!(pool.kv_pool_tokens, 0);
    let loaded = line(&e, Part::Weights) as f64;
    assert!(near(pool.deficit_bytes, loaded - 0.835 * H100_F0));
    assert_eq!(e.fits(), Some(false));
}

#[test]
fn bad_fractions_are_refused_naming_the_field() {
    for x in [0.0, 1.5, -0.2, f64::NAN] {
        let mut sc = scenario(LLAMA_H100);
        sc.inference.mem_fraction_static = Some(x);
        let err = vramfit_core::estimate(&sc).expect_err("refused");
        assert_eq!(err.field, "inference.mem_fraction_static", "{x}");
        assert!(
            err.message
                .ends_with("is out of range: allowed above 0 up to 1"),
            "{x}: {}",
            err.message
        );
    }
    // A link says which parameter it ignored and keeps SGLang's default.
    for text in ["0", "1.5", "NaN", "half"] {
        let d = decode(&format!("{LLAMA_H100}&mfs={text}"));
        assert_eq!(d.notices.len(), 1, "{text}");
        assert_eq!(d.notices[0].param, "mfs");
        assert_eq!(d.scenario.inference.mem_fraction_static, None);
    }
    // 1 is allowed; other engines ignore the field.
    let mut sc = scenario(LLAMA_H100);
    sc.inference.mem_fraction_static = Some(1.0);
    assert!(sc.validate().is_ok());
    sc.inference.mem_fraction_static = Some(7.0);
    sc.inference.engine = Engine::Vllm;
    assert!(sc.validate().is_ok());
}

#[test]
fn without_a_card_sglang_falls_back_to_0_88() {
    // SGLang's fraction when it cannot read the card: 0.88. Weights and the
    // requested KV (1 × 768 tokens × 131,072 B = 100,663,296) are 0.88 of
    // the memory, what it leaves is (16,127,631,360 + 100,663,296) × 0.12 /
    // 0.88 = 2,212,949,271.3 B.
    let e = estimate("v=1&m=meta-llama/Llama-3.1-8B&eng=sglang");
    assert!(e.serving.is_none());
    assert_eq!(line(&e, Part::KvCache), 100_663_296);
    assert!(near(line(&e, Part::Activations), 2_212_949_271.3));
}

#[test]
fn the_fit_table_answers_with_sglangs_pool() {
    let sc = scenario("v=1&m=meta-llama/Llama-3.1-8B&eng=sglang&bs=32&pl=30000&nt=2000");
    let rows = vramfit_core::solver::fit_table(&sc).expect("fit table");
    let h100 = rows
        .iter()
        .find(|r| r.gpu_id == "h100-sxm5-80gb")
        .expect("an H100 row");
    let mut on_h100 = sc.clone();
    on_h100.gpu.name = Some("h100-sxm5-80gb".into());
    let pool = vramfit_core::estimate(&on_h100)
        .expect("estimates")
        .serving
        .expect("a pool");
    assert_eq!(
        h100.concurrent_sequences,
        Some(pool.max_concurrent_sequences)
    );
    assert_eq!(h100.largest, Some(pool.max_context));
    // 413,497 tokens hold ⌊413,497 / 32,000⌋ = 12 of the 32 sequences.
    assert_eq!(pool.max_concurrent_sequences, 12);
    for r in &rows {
        let n = r.concurrent_sequences.expect("every row has a concurrency");
        assert_eq!(r.fits, n >= 32, "{}", r.gpu_id);
    }
}

#[test]
fn recurrent_models_are_refused_naming_the_engine() {
    let sc =
        scenario("v=1&m=Qwen/Qwen3-Next-80B-A3B-Instruct&eng=sglang&n=4&tp=4&gpu=h100-sxm5-80gb");
    let err = vramfit_core::estimate(&sc).expect_err("not modelled");
    assert_eq!(err.field, "inference.engine");
    assert!(
        err.message.contains("mamba_full_memory_ratio"),
        "{}",
        err.message
    );
}
