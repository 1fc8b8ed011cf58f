//! The OOM doctor on real and PyTorch-shaped messages (fixtures in data/oom,
//! provenance in data/oom/README.md). Expected bytes are the printed numbers
//! converted by hand: `x GiB` = round(x · 2^30).

use vramfit_core::doctor::{
    parse_oom, picture, OomFormat, OomReport, BEFORE_WINDOW, MESSAGE_WINDOW, NOT_FOUND,
};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

fn gib(x: f64) -> u64 {
    (x * GIB).round() as u64
}

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/oom/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn codes(report: &OomReport) -> Vec<&'static str> {
    report.diagnoses.iter().map(|d| d.code).collect()
}

fn message(report: &OomReport, code: &str) -> String {
    report
        .diagnoses
        .iter()
        .find(|d| d.code == code)
        .map(|d| d.message.clone())
        .unwrap_or_default()
}

#[test]
fn legacy_message_from_seed_004() {
    let report = parse_oom(&fixture("legacy_seed004.txt")).expect("message found");
    assert_eq!(report.format, OomFormat::Legacy);
    assert_eq!(report.gpu_index, Some(0));
    assert_eq!(report.requested_bytes, Some(gib(2.50)));
    // printed with two decimals: ± 0.005 GiB
    assert_eq!(report.requested_rounding_bytes, Some(gib(0.005)));
    assert_eq!(report.total_bytes, Some(gib(23.69)));
    assert_eq!(report.allocated_bytes, Some(gib(21.45)));
    assert_eq!(report.free_bytes, Some(gib(1.89)));
    assert_eq!(report.reserved_bytes, Some(gib(21.50)));
    // reserved − allocated = 21.50 − 21.45 GiB (the guide: 碎片率很低)
    assert_eq!(
        report.reserved_unallocated_bytes,
        Some(gib(21.50) - gib(21.45))
    );
    // total − reserved − free = 23.69 − 21.50 − 1.89 ≈ 0.30 GiB
    assert_eq!(
        report.non_pytorch_bytes,
        Some(gib(23.69) - gib(21.50) - gib(1.89))
    );
    assert_eq!(report.process_in_use_bytes, None);

    let found = codes(&report);
    // 2.50 > 1.89 free: short by 0.61 GiB = 624.64 MiB
    assert!(found.contains(&"shortfall"), "{found:?}");
    assert!(
        message(&report, "shortfall").contains("624.64 MiB"),
        "{}",
        message(&report, "shortfall")
    );
    // 21.45 / 23.69 = 90.5 % ≥ 90 %
    assert!(found.contains(&"card_too_small"), "{found:?}");
    // free + cached = 1.89 + 0.05 = 1.94 < 2.50: not fragmentation (the guide agrees)
    assert!(!found.contains(&"fragmentation"), "{found:?}");
    // 0.30 GiB outside PyTorch is a CUDA context, nothing more
    assert!(!found.contains(&"other_processes"), "{found:?}");
    // 2.50 GiB = 2^31 + 2^29. By hand: 1 × 20 heads × 8192² × 2 B = 40 · 2^26 = 2.5 GiB
    // and 1 × 40 heads × 4096² × 4 B = 160 · 2^24 = 2.5 GiB; the guide says
    // "2.50 GB 暗示是注意力矩阵".
    let attention = message(&report, "attention_matrix");
    assert!(
        attention.contains("20 heads × L=8192 (fp16/bf16)"),
        "{attention}"
    );
    assert!(
        attention.contains("40 heads × L=4096 (fp32)"),
        "{attention}"
    );
    // 2.5 GiB / (32000 · 4) = 20971.5 tokens: not a round count, so not logits
    assert!(!found.contains(&"logits"), "{found:?}");
}

#[test]
fn modern_message_from_seed_003() {
    let report = parse_oom(&fixture("modern_seed003.txt")).expect("message found");
    assert_eq!(report.format, OomFormat::Modern);
    assert_eq!(report.gpu_index, Some(0));
    assert_eq!(report.requested_bytes, Some(gib(1.23)));
    assert_eq!(report.total_bytes, Some(gib(19.58)));
    assert_eq!(report.free_bytes, Some(gib(1.06)));
    assert_eq!(report.process_in_use_bytes, Some(gib(18.50)));
    assert_eq!(report.allocated_bytes, Some(gib(14.94)));
    assert_eq!(report.reserved_unallocated_bytes, Some(gib(3.18)));
    // reserved = allocated + reserved-but-unallocated = 18.12 GiB
    assert_eq!(report.reserved_bytes, Some(gib(14.94) + gib(3.18)));
    // in use − reserved = 18.50 − 18.12 = 0.38 GiB
    assert_eq!(
        report.non_pytorch_bytes,
        Some(gib(18.50) - gib(14.94) - gib(3.18))
    );
    assert_eq!(report.other_processes_bytes, None);

    let found = codes(&report);
    // free 1.06 < 1.23 ≤ 1.06 + 3.18: the bytes exist but not in one piece
    // (the guide: 显存碎片化导致无法分配连续的 1.23GB 空间)
    assert!(found.contains(&"fragmentation"), "{found:?}");
    assert!(message(&report, "fragmentation").contains("expandable_segments:True"));
    // 14.94 / 19.58 = 76 % < 90 %
    assert!(!found.contains(&"card_too_small"), "{found:?}");
    // 1.23 / 19.58 = 6.3 % ≥ 5 %: not a small spike
    assert!(!found.contains(&"near_limit_spike"), "{found:?}");
    // T5-small: 8 heads and vocabulary 32128, neither in our tables: no shape claim
    assert!(
        !found.contains(&"attention_matrix") && !found.contains(&"logits"),
        "{found:?}"
    );
    // Chinese text exists for every finding
    assert!(report.diagnoses.iter().all(|d| !d.message_zh.is_empty()));
    assert!(report
        .diagnoses
        .iter()
        .any(|d| d.message_zh.contains("碎片")));
}

#[test]
fn modern_message_with_other_process_and_logits() {
    let report = parse_oom(&fixture("modern_other_process.txt")).expect("message found");
    assert_eq!(report.format, OomFormat::Modern);
    assert_eq!(report.gpu_index, Some(1));
    assert_eq!(report.other_processes_bytes, Some(gib(20.00)));
    // 55.98 − (52.10 + 3.05) = 0.83 GiB
    assert_eq!(
        report.non_pytorch_bytes,
        Some(gib(55.98) - gib(52.10) - gib(3.05))
    );
    let found = codes(&report);
    assert!(found.contains(&"other_processes"), "{found:?}");
    // 16384 · 128256 · 4 = 8,405,385,216 B = 7.828 GiB, printed 7.83 GiB
    // (within ± 0.005 GiB). 32064 · 4 = 128256 so Phi-3 with 65536 tokens is
    // the same size: both must be named.
    let logits = message(&report, "logits");
    assert!(
        logits.contains("16384 tokens × vocabulary 128256 (Llama 3)"),
        "{logits}"
    );
    assert!(
        logits.contains("65536 tokens × vocabulary 32064 (Phi-3)"),
        "{logits}"
    );
    // free + cached = 3.12 + 3.05 = 6.17 < 7.83
    assert!(!found.contains(&"fragmentation"), "{found:?}");
}

#[test]
fn pytorch_2_1_typo_in_a_container() {
    let report = parse_oom(&fixture("capacty_container.txt")).expect("message found");
    assert_eq!(report.total_bytes, Some(gib(79.15)));
    assert_eq!(report.free_bytes, Some((3.94 * MIB).round() as u64));
    assert_eq!(report.requested_bytes, Some((20.0 * MIB) as u64));
    let found = codes(&report);
    // 77.68 / 79.15 = 98 %
    assert!(found.contains(&"card_too_small"), "{found:?}");
    // 20 MiB is 0.02 % of the card and more than the 3.94 MiB free
    assert!(found.contains(&"near_limit_spike"), "{found:?}");
    // no "this process" line: the container hid the PID. "Process 3913" holds
    // 79.14 GiB ≥ allocated + cached = 77.68 + 1.01, so it is this process.
    assert_eq!(report.process_in_use_bytes, Some(gib(79.14)));
    assert_eq!(report.other_processes_bytes, None);
    // 79.14 − 77.68 − 1.01 = 0.45 GiB outside PyTorch: just the context
    assert_eq!(
        report.non_pytorch_bytes,
        Some(gib(79.14) - gib(77.68) - gib(1.01))
    );
    assert!(!found.contains(&"other_processes"), "{found:?}");
}

#[test]
fn memory_summary_table() {
    let report = parse_oom(&fixture("memory_summary.txt")).expect("table found");
    assert_eq!(report.format, OomFormat::MemorySummary);
    assert_eq!(report.gpu_index, Some(2));
    assert_eq!(report.allocated_bytes, Some((10240.0 * MIB) as u64));
    assert_eq!(report.peak_allocated_bytes, Some((14336.0 * MIB) as u64));
    assert_eq!(report.reserved_bytes, Some((15360.0 * MIB) as u64));
    assert_eq!(report.non_releasable_bytes, Some((4800.0 * MIB) as u64));
    // 15360 − 10240 = 5120 MiB = 33 % of reserved > 20 % (seed 004 rule)
    assert_eq!(
        report.reserved_unallocated_bytes,
        Some((5120.0 * MIB) as u64)
    );
    assert_eq!(codes(&report), vec!["fragmentation"]);
    assert_eq!(report.requested_bytes, None);
}

#[test]
fn message_and_summary_together() {
    let text = format!(
        "{}\n{}",
        fixture("memory_summary.txt"),
        fixture("modern_seed003.txt")
    );
    let report = parse_oom(&text).expect("found");
    // the message's numbers win, the table adds its peaks
    assert_eq!(report.allocated_bytes, Some(gib(14.94)));
    assert_eq!(report.peak_reserved_bytes, Some((15360.0 * MIB) as u64));
}

#[test]
fn cuda_error_without_numbers() {
    let report = parse_oom(&fixture("cuda_error.txt")).expect("an OOM error");
    assert_eq!(report.format, OomFormat::NoNumbers);
    assert_eq!(codes(&report), vec!["no_numbers"]);
    assert!(picture(&report).is_empty());
}

#[test]
fn picture_adds_up_to_the_card() {
    let report = parse_oom(&fixture("modern_seed003.txt")).expect("found");
    let segments = picture(&report);
    let keys: Vec<&str> = segments.iter().map(|s| s.key).collect();
    assert_eq!(
        keys,
        [
            "allocated",
            "reserved_unallocated",
            "non_pytorch",
            "free",
            "request"
        ]
    );
    // 14.94 + 3.18 + 0.38 + 1.06 = 19.56 GiB; the card is 19.58 (2 decimals of rounding each)
    let on_card: u64 = segments
        .iter()
        .filter(|s| s.key != "request")
        .map(|s| s.bytes)
        .sum();
    assert!(on_card.abs_diff(gib(19.58)) < gib(0.03), "{on_card}");
}

#[test]
fn no_message_is_a_clear_error() {
    for text in [
        "",
        "hello",
        "显存不足，怎么办？",
        "RuntimeError: expected scalar type Float",
        "\u{0}\u{1}\u{fffd}",
    ] {
        let error = parse_oom(text).expect_err(text);
        assert_eq!(error.field, "message");
        assert_eq!(error.message, NOT_FOUND);
    }
}

#[test]
fn truncated_and_odd_messages_do_not_panic() {
    let full = fixture("modern_other_process.txt");
    // every prefix, cut at char boundaries
    for end in (0..full.len()).filter(|i| full.is_char_boundary(*i)) {
        let _ = parse_oom(&full[..end]);
    }
    for text in [
        "CUDA out of memory. Tried to allocate",
        "CUDA out of memory. Tried to allocate 99999999999999999999999999999 TiB",
        "CUDA out of memory. Tried to allocate 1.2.3 GiB (GPU 99999999999;",
        "CUDA out of memory. Tried to allocate ,,,.. GiB of which is free",
        "CUDA out of memory. Process 1 has Process 2 has 3 GiB memory in use",
        "CUDA out of memory. Tried to allocate 0 bytes (GPU 0; 0 bytes total capacity; 5 GiB already allocated; 0 bytes free; 1 GiB reserved in total by PyTorch)",
        "| Allocated memory | x | y |\n| GPU reserved memory |",
        "CUDA 内存不足 out of memory. Tried to allocate 1.5 GiB。GPU 0 has a total capacity of 十 GiB",
    ] {
        let _ = parse_oom(text);
    }
}

#[test]
fn ten_megabyte_paste_returns() {
    let line = "2024-05-01 12:00:00 INFO step 1200 loss=2.1 lr=3e-5 | tried to | out of | 1,234 GiB | Process 7 has\n";
    let mut paste = line.repeat(10 * 1024 * 1024 / line.len());
    paste.push_str(&fixture("legacy_seed004.txt"));
    let started = std::time::Instant::now();
    let report = parse_oom(&paste).expect("message at the end");
    assert_eq!(report.requested_bytes, Some(gib(2.50)));
    // linear scanning: well under this even in a debug build
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());

    // the work after finding the message is one bounded window, whatever the paste's size
    assert!(report.excerpt.len() <= BEFORE_WINDOW + MESSAGE_WINDOW);

    // an error that is not an OOM, at the end of a 10 MB line: same bound
    let mut line = "x".repeat(10 * 1024 * 1024);
    line.push_str(" RuntimeError: CUDA error: device-side assert triggered");
    let report = parse_oom(&line).expect("named");
    assert!(!report.out_of_memory);
    assert!(report.excerpt.len() <= BEFORE_WINDOW + MESSAGE_WINDOW);

    let junk: String = (0..10 * 1024 * 1024)
        .map(|i| char::from(b"0123456789.,|GiB tried to allocate "[i % 35]))
        .collect();
    let _ = parse_oom(&junk);
}

#[test]
fn a_ten_megabyte_message_is_read_in_one_bounded_window() {
    // one message whose process list runs on for 10 MB on a single line
    let process = "Process 12 has 1.00 GiB memory in use. ";
    let mut message = String::from(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total \
         capacity of 79.15 GiB of which 3.94 MiB is free. ",
    );
    message.push_str(&process.repeat(10 * 1024 * 1024 / process.len()));
    let report = parse_oom(&message).expect("an OOM");
    assert_eq!(report.requested_bytes, Some(gib(2.0)));
    assert_eq!(report.total_bytes, Some(gib(79.15)));
    // Only the window's processes are summed: the window is at most
    // BEFORE_WINDOW + MESSAGE_WINDOW bytes, each "Process 12 has …" 39 bytes.
    assert!(report.excerpt.len() <= BEFORE_WINDOW + MESSAGE_WINDOW);
    let listed = report.other_processes_bytes.expect("processes") / gib(1.0);
    assert!(
        listed >= 90 && listed <= ((BEFORE_WINDOW + MESSAGE_WINDOW) / process.len()) as u64,
        "{listed}"
    );
}

#[test]
fn tensorflow_allocator_warning_is_not_a_failure() {
    // the warning TensorFlow's bfc_allocator.cc prints when it falls back
    let warning = "W tensorflow/core/common_runtime/bfc_allocator.cc:245] Allocator (GPU_0_bfc) ran out \
                   of memory trying to allocate 2.26GiB with freed_by_count=0. The caller indicates \
                   that this is not a failure, but may mean that there could be performance gains \
                   if more memory were available.";
    let report = parse_oom(warning).expect("named");
    assert!(!report.out_of_memory);
    assert_eq!(codes(&report), vec!["allocator_warning"]);
    // the same allocator failing for real, later in the paste, is the OOM
    let failed = format!(
        "{warning}\nResourceExhaustedError: OOM when allocating tensor with shape[2,1024] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
    );
    let report = parse_oom(&failed).expect("an OOM");
    assert!(report.out_of_memory);
    // 2 × 1024 floats
    assert_eq!(report.requested_bytes, Some(8192));
}

/// transformers refusing a FlashAttention or SDPA kernel the model's class
/// lacks (`_flash_attn_can_dispatch`'s message, as Gemma 3's wrapper raises
/// it) is named as such, not as an out-of-memory error, with the eager
/// fallback's cost in the explanation.
#[test]
fn a_missing_attention_kernel_is_not_out_of_memory() {
    let text = "Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n\
                ValueError: Gemma3ForConditionalGeneration does not support Flash Attention 2 yet. \
                Please request to add support where the model is hosted, on its model hub page";
    let report = parse_oom(text).expect("reads");
    assert!(!report.out_of_memory);
    assert_eq!(codes(&report), vec!["attention_kernel_missing"]);
    assert!(message(&report, "attention_kernel_missing").contains("score matrix"));
}
