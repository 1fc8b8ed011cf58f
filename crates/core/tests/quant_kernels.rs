//! The scratch a GPTQ/AWQ kernel keeps on the GPU in transformers, worked
//! from the kernels' own sizing (auto-gptq / gptqmodel / AutoAWQ:
//! `temp_dq_size`, `temp_fwd_size`, `scratch_space_fixed(2048, 8)`; the
//! exllama v1 `temp_dq` of `qweight.numel() × 8` fp16 elements; Marlin's
//! `out / 128 × 16` int32 workspace per linear) on Llama-2-7B
//! (h 4096, i 11008, 32 layers).

use vramfit_core::report::Part;
use vramfit_core::url::decode;

mod common;

fn buffers(weights: &str, extra: &str) -> u64 {
    let link = format!("v=1&m=meta-llama/Llama-2-7b-hf&w={weights}&pl=512&nt=128{extra}");
    common::part_bytes(&decode(&link).scenario, Part::QuantBuffers)
}

fn scratch(extra: &str) -> u64 {
    buffers("gptq4", extra)
}

#[test]
fn each_kernel_keeps_its_own_scratch() {
    // transformers' GPTQConfig defaults to exllama v1: the largest weight in fp16.
    assert_eq!(scratch(""), 2 * 4096 * 11008);
    assert_eq!(scratch("&qk=exllama"), 2 * 4096 * 11008);
    // exllama v2: gate/up (4096 → 11008) is the largest of both parts.
    assert_eq!(
        scratch("&qk=exllama_v2"),
        (4096 * 11008 * 2 + 128) + (11008 * 2048 * 8 * 4 + 128)
    );
    // Marlin: q, k, v, o, down 4096 / 128 × 64 B; gate, up 11008 / 128 × 64 B.
    assert_eq!(scratch("&qk=marlin"), 32 * (5 * 2048 + 2 * 5504));
    assert_eq!(scratch("&qk=none"), 0);
}

#[test]
fn awq_runs_gemm_unless_told_and_other_engines_keep_their_own() {
    let awq = |extra: &str| buffers("awq4", extra);
    assert_eq!(awq(""), 0);
    assert_eq!(
        awq("&qk=exllama_v2"),
        (4096 * 11008 * 2 + 128) + (11008 * 2048 * 8 * 4 + 128)
    );
    // vLLM sizes its own kernels in its profile run: no transformers scratch.
    assert_eq!(scratch("&eng=vllm&qk=exllama_v2"), 0);
}
