//! torchao 0.1's NF4 quantizer (torchtune QLoRA until June 2024) compares
//! every element with the 16 NF4 codes at once: 68 B of working memory per
//! element of the matrix being quantized, and the allocator keeps one such
//! working set per new largest shape (attention, then MLP) reserved after
//! loading. torchao 0.2 quantizes in chunks, leaving only the loading copies.

use vramfit_core::cases::{case_scenario, parse_cases, score_case};
use vramfit_core::estimate::estimate;
use vramfit_core::precision::WeightFormat;
use vramfit_core::scenario::{Framework, LoraTarget, Method, ModelSource, Scenario, TaskKind};

/// 68 B per element: two (n, 16) bf16 comparison tensors, the bf16 weight
/// and its block-scaled copy (torchao 0.1 `quantize_tensor_nearest`).
const WORKING_BYTES: u64 = 2 * 16 * 2 + 2 + 2;

fn torchtune_qlora(model: &str, targets: Vec<LoraTarget>, torchao_0_1: bool) -> Scenario {
    let mut sc = Scenario {
        model: ModelSource::Catalog(model.into()),
        task: TaskKind::Training,
        unchunked_nf4_quantizer: torchao_0_1,
        ..Scenario::default()
    };
    sc.training.framework = Framework::Torchtune;
    sc.training.method = Method::Qlora;
    sc.training.lora.targets = targets;
    sc.training.micro_batch = 2;
    sc.training.seq_len = 512;
    sc
}

fn all_linears() -> Vec<LoraTarget> {
    LoraTarget::ATTENTION
        .into_iter()
        .chain(LoraTarget::MLP)
        .collect()
}

/// Reserved with torchao 0.1 minus reserved with a chunked quantizer; the
/// allocated peak (reset after loading) must not move.
fn reserved_difference(model: &str, targets: Vec<LoraTarget>) -> u64 {
    let old = estimate(&torchtune_qlora(model, targets.clone(), true)).expect("estimates");
    let new = estimate(&torchtune_qlora(model, targets, false)).expect("estimates");
    assert_eq!(
        old.gpus[0].peak_allocated_bytes,
        new.gpus[0].peak_allocated_bytes
    );
    old.gpus[0].peak_reserved_bytes - new.gpus[0].peak_reserved_bytes
}

#[test]
fn each_new_largest_shape_keeps_its_working_set() {
    // Llama-2-7B (MHA): q, k, v, o are 4096 × 4096; gate, up, down 4096 × 11008.
    // The chunked build keeps two copies of the 32000 × 4096 bf16 embedding.
    let copies = 2 * 32_000 * 4096 * 2;
    assert_eq!(
        reserved_difference("meta-llama/Llama-2-7b-hf", all_linears()),
        WORKING_BYTES * (4096 * 4096 + 4096 * 11_008) - copies
    );
    // Llama-3-8B (GQA): k and v (4096 × 1024) are smaller than q and reuse
    // its working set; the MLP (4096 × 14336) needs its own.
    let copies = 2 * 128_256 * 4096 * 2;
    assert_eq!(
        reserved_difference("meta-llama/Meta-Llama-3-8B", all_linears()),
        WORKING_BYTES * (4096 * 4096 + 4096 * 14_336) - copies
    );
    // torchtune quantizes only the LoRA-wrapped linears: q and v, one shape.
    let copies = 2 * 32_000 * 4096 * 2;
    assert_eq!(
        reserved_difference(
            "meta-llama/Llama-2-7b-hf",
            vec![LoraTarget::Q, LoraTarget::V]
        ),
        WORKING_BYTES * 4096 * 4096 - copies
    );
}

#[test]
fn only_nf4_weights_go_through_the_quantizer() {
    let mut lora = torchtune_qlora("meta-llama/Llama-2-7b-hf", all_linears(), true);
    lora.training.method = Method::Lora;
    lora.weights = WeightFormat::Bf16;
    let mut chunked = lora.clone();
    chunked.unchunked_nf4_quantizer = false;
    assert_eq!(
        estimate(&lora).expect("lora").gpus[0].peak_reserved_bytes,
        estimate(&chunked).expect("lora").gpus[0].peak_reserved_bytes
    );
    // emptying the cache after loading releases the working sets too
    let mut emptied = torchtune_qlora("meta-llama/Llama-2-7b-hf", all_linears(), true);
    emptied.empty_cache_after_load = true;
    let mut emptied_chunked = emptied.clone();
    emptied_chunked.unchunked_nf4_quantizer = false;
    assert_eq!(
        estimate(&emptied).expect("a").gpus[0].peak_reserved_bytes,
        estimate(&emptied_chunked).expect("b").gpus[0].peak_reserved_bytes
    );
}

fn torchtune_case(id: &str) -> vramfit_core::cases::Case {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/groundtruth/cases.jsonl"),
    )
    .expect("groundtruth copy");
    parse_cases(&text)
        .into_iter()
        .filter_map(Result::ok)
        .find(|c| c.id == id)
        .expect("case present")
}

/// The torchtune QLoRA tutorial (April 2024, torchao 0.1): peak reserved
/// 9.13 GB after model init and 9.29 GB in training. Before this mechanism
/// the estimates were 51% and 36% short.
#[test]
fn torchtune_april_2024_qlora_rows_are_read_as_torchao_0_1() {
    for (id, within) in [
        ("torchtune-tutorial-115", 0.15),
        ("torchtune-tutorial-116", 0.10),
    ] {
        let case = torchtune_case(id);
        assert!(
            case_scenario(&case)
                .expect("scenario")
                .unchunked_nf4_quantizer
        );
        let score = score_case(&case);
        let error = score.rel_error.expect("scored");
        assert!(error.abs() < within, "{id}: {error:+.3}");
        // A run dated after torchtune pinned torchao 0.3 quantizes in chunks.
        let mut later = case.clone();
        later.source.version = "torchtune 0.2.0 (2024-07-12)".into();
        assert!(
            !case_scenario(&later)
                .expect("scenario")
                .unchunked_nf4_quantizer
        );
    }
    // The bf16 LoRA rows of the same tutorial never quantize.
    let lora = torchtune_case("torchtune-tutorial-114");
    assert!(
        !case_scenario(&lora)
            .expect("scenario")
            .unchunked_nf4_quantizer
    );
}

/// torchao 0.1's quantizer leaves its working sets cached after loading
/// (whole free segments), and the caching allocator frees those and retries
/// before it reports an out-of-memory error: they raise reserved where the
/// card has room but never decide a fit. On a 10 GB RTX 3080 the torchao 0.1
/// build fits exactly when the chunked (0.2+) build does, with the whole
/// card in use (the planner has no torchao upgrade to offer).
#[test]
fn the_quantizers_cached_working_sets_never_decide_a_fit() {
    let mut sc = torchtune_qlora("meta-llama/Llama-2-7b-hf", all_linears(), true);
    let mut chunked = sc.clone();
    chunked.unchunked_nf4_quantizer = false;
    // Without a card the cache is all there.
    let reserved = |s: &Scenario| estimate(s).expect("estimates").gpus[0].peak_reserved_bytes;
    assert!(reserved(&sc) > reserved(&chunked) + 1_000_000_000);
    sc.gpu.name = Some("rtx-3080-10gb".into());
    chunked.gpu.name = Some("rtx-3080-10gb".into());
    let old = estimate(&sc).expect("estimates");
    let new = estimate(&chunked).expect("estimates");
    assert_eq!(old.fits(), new.fits());
    assert_eq!(
        old.gpus[0].peak_allocated_bytes,
        new.gpus[0].peak_allocated_bytes
    );
    assert_eq!(old.gpus[0].device_used_bytes, new.gpus[0].device_used_bytes);
}

/// torchtune leaves the linears it does not adapt in bf16, so with q and v
/// targets the largest matrix ever dequantized is q (4096 × 4096), not the MLP.
#[test]
fn dequantization_buffers_follow_the_quantized_targets() {
    let buffers = |targets: Vec<LoraTarget>| -> u64 {
        let e = estimate(&torchtune_qlora("meta-llama/Llama-2-7b-hf", targets, false))
            .expect("estimates");
        e.gpus[0]
            .lines
            .iter()
            .filter(|l| l.part == vramfit_core::report::Part::QuantBuffers)
            .map(|l| l.bytes)
            .sum()
    };
    // Two bf16 copies of the largest quantized matrix.
    assert_eq!(
        buffers(vec![LoraTarget::Q, LoraTarget::V]),
        2 * 4096 * 4096 * 2
    );
    assert_eq!(buffers(all_linears()), 2 * 4096 * 11_008 * 2);
}
