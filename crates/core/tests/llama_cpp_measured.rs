//! llama.cpp's buffers and device memory as measured on a GPU
//! (`tests/data/llama_cpp/measured/`, README there): random-weight GGUFs of
//! public shapes, built, quantized and run by llama.cpp itself. Each run is
//! rebuilt from its model's config, file type and flags; the printed buffer
//! sizes and the device's used memory are only the check.

use serde_json::Value;
use vramfit_core::hf_config::from_hf_config;
use vramfit_core::llama_cpp::buffers::{buffers, Buffers, Flags};
use vramfit_core::llama_cpp::ggml::GgmlType;
use vramfit_core::llama_cpp::recipe::FileType;
use vramfit_core::llama_cpp::tensors::gguf_weights;
use vramfit_core::model::ModelSpec;

const MIB: f64 = (1u64 << 20) as f64;
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// The model each GGUF was written from (`make_gguf.py`): its public config,
/// with the layer and expert counts the file has.
fn spec(model: &str) -> ModelSpec {
    let (file, edits): (&str, &[(&str, u64)]) = match model {
        "llama1b" => ("meta-llama__Llama-3.2-1B", &[]),
        "qwen3moe" => (
            "Qwen__Qwen3-30B-A3B",
            &[("num_hidden_layers", 4), ("num_experts", 64)],
        ),
        "gemma3" => ("google__gemma-3-1b-it", &[]),
        other => panic!("unknown model {other}"),
    };
    let text = std::fs::read_to_string(format!("{DATA}/configs/{file}.json")).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    for (key, value) in edits {
        json[key] = (*value).into();
    }
    from_hf_config(&json.to_string()).unwrap()
}

struct Run {
    row: Value,
    ours: Buffers,
}

fn runs() -> Vec<Run> {
    let text =
        std::fs::read_to_string(format!("{DATA}/llama_cpp/measured/llama_cpp_runs.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            let spec = spec(row["model"].as_str().unwrap());
            let file_type = FileType::parse(row["file_type"].as_str().unwrap()).unwrap();
            let cache = GgmlType::parse_cache(row["cache_type"].as_str().unwrap()).unwrap();
            let flags = Flags {
                n_gpu_layers: row["n_gpu_layers"].as_u64().unwrap(),
                n_cpu_moe: row["n_cpu_moe"].as_u64().unwrap(),
                n_ctx: row["n_ctx"].as_u64().unwrap(),
                n_ubatch: row["n_ubatch"].as_u64().unwrap(),
                flash_attn: row["flash_attn"] == "on",
                type_k: cache,
                type_v: cache,
                gpus: 1,
                output_first: true,
            };
            let counts = spec.param_counts();
            let w = gguf_weights(&spec, &counts, file_type);
            let ours = buffers(&spec, &w, &flags);
            Run { row, ours }
        })
        .collect()
}

/// The MiB llama.cpp printed for buffers of `kind` whose name is in `names`.
fn printed(row: &Value, kind: &str, names: &[&str]) -> f64 {
    row["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == kind && names.contains(&b["buffer"].as_str().unwrap()))
        .map(|b| b["mib"].as_f64().unwrap())
        .sum()
}

fn mib(x: u128) -> f64 {
    x as f64 / MIB
}

/// Relative error of ours against what llama.cpp printed, printed per run.
fn error(ours: f64, printed: f64) -> f64 {
    if printed == 0.0 {
        return if ours == 0.0 { 0.0 } else { f64::INFINITY };
    }
    (ours - printed) / printed
}

fn tag(r: &Run) -> &str {
    r.row["tag"].as_str().unwrap()
}

/// Weights and KV cache are exact bytes: every run, GPU and host, within
/// 0.01 % (the printed MiB have two decimals). This is what `-ngl` means
/// today (the output layer first), `--n-cpu-moe` (the mapped range of a
/// layer whose experts stay on the host spans its attention too), a tied
/// head at `-ngl 0` (mapped once), and Gemma 3's window on five of every
/// six layers (`-ngl 10` of 26 holds two global layers' full cache).
#[test]
fn weights_and_cache_are_exact() {
    for r in runs() {
        let (b, row) = (&r.ours, &r.row);
        for (what, ours, printed) in [
            ("GPU model", b.gpu_model, printed(row, "model", &["CUDA0"])),
            (
                "host model",
                b.host_model,
                printed(row, "model", &["CPU_Mapped"]),
            ),
            ("GPU KV", b.gpu_kv, printed(row, "KV", &["CUDA0"])),
            ("host KV", b.host_kv, printed(row, "KV", &["CPU"])),
            (
                "output",
                b.output,
                printed(row, "output", &["CUDA_Host", "CPU"]),
            ),
        ] {
            let e = error(mib(ours), printed);
            assert!(
                e.abs() <= 1e-4 || (mib(ours) - printed).abs() < 0.01,
                "{}: {what} {:.2} MiB vs printed {printed}",
                tag(&r),
                mib(ours)
            );
        }
    }
}

/// The compute buffers from their dominant terms: the GPU's within 5 % on
/// every dense run (flash attention or not, any `-ngl`, `-ub` 128 to 2048,
/// contexts 4k to 32k) and the host's within 13 %. With a MoE layer's
/// experts on the GPU the graph allocator places the logits above smaller
/// tensors still alive (40 MiB above the logits at `-ub 512` with flash
/// attention, none with the experts on the host): not modelled, so those
/// runs are held to 12.5 %.
#[test]
fn compute_buffers_from_their_dominant_terms() {
    let mut errors = Vec::new();
    for r in runs() {
        let (b, row) = (&r.ours, &r.row);
        let gpu = error(mib(b.gpu_compute), printed(row, "compute", &["CUDA0"]));
        let host = error(mib(b.host_compute), printed(row, "compute", &["CUDA_Host"]));
        let experts_on_gpu = row["model"] == "qwen3moe" && row["n_cpu_moe"].as_u64() < Some(4);
        let bound = if experts_on_gpu { 0.125 } else { 0.05 };
        eprintln!(
            "{}: GPU compute {:+.1} %, host {:+.1} %",
            tag(&r),
            100.0 * gpu,
            100.0 * host
        );
        assert!(
            gpu.abs() <= bound,
            "{}: GPU compute {:+.1} %",
            tag(&r),
            100.0 * gpu
        );
        assert!(
            host.abs() <= 0.13,
            "{}: host compute {:+.1} %",
            tag(&r),
            100.0 * host
        );
        errors.push(gpu.abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    eprintln!("GPU compute median |error| {:.2} %", 100.0 * median);
    assert!(median <= 0.01, "median {:.2} %", 100.0 * median);
}

/// The whole device: the estimate's "device used" for the same scenario
/// against NVML's used bytes above the idle card, on every run. The
/// buffers are exact or near it; what is left is the process's own
/// memory (context, cuBLAS, the CUDA pool), 611 to 961 MiB, charged as
/// PyTorch's on Hopper (802 MiB): no run more than 2 % short of NVML, none
/// more than 18 % over (the small runs with flash attention, whose pool
/// stays small), the median within 4 %.
#[test]
fn device_used_against_nvml() {
    use vramfit_core::estimate::estimate_with_model;
    use vramfit_core::precision::WeightFormat;
    use vramfit_core::scenario::{CacheType, Engine, Scenario, TaskKind};
    let mut errors = Vec::new();
    for r in runs() {
        let row = &r.row;
        let mut sc = Scenario {
            task: TaskKind::Inference,
            ..Scenario::default()
        };
        sc.weights = match row["file_type"].as_str().unwrap() {
            "Q8_0" => WeightFormat::GgufQ8_0,
            _ => WeightFormat::GgufQ4KM,
        };
        sc.gpu.name = Some("h200-141gb".to_owned());
        let inf = &mut sc.inference;
        inf.engine = Engine::LlamaCpp;
        inf.batch = 1;
        inf.prompt_len = row["n_ctx"].as_u64().unwrap();
        inf.new_tokens = 0;
        inf.ubatch = row["n_ubatch"].as_u64().unwrap();
        inf.flash_attn = row["flash_attn"] == "on";
        inf.cache_type = match row["cache_type"].as_str().unwrap() {
            "q8_0" => CacheType::Q8_0,
            _ => CacheType::F16,
        };
        inf.gpu_layers = Some(row["n_gpu_layers"].as_u64().unwrap());
        inf.cpu_moe_layers = row["n_cpu_moe"].as_u64().unwrap();
        let spec = spec(row["model"].as_str().unwrap());
        let e = estimate_with_model(&sc, &spec).unwrap();
        let ours = e.headline_gpu().device_used_bytes as f64;
        let nvml = (row["nvml_used_peak"].as_u64().unwrap()
            - row["nvml_used_before"].as_u64().unwrap()) as f64;
        let err = (ours - nvml) / nvml;
        eprintln!(
            "{}: device {:.0} MiB vs NVML {:.0} ({:+.1} %)",
            tag(&r),
            ours / MIB,
            nvml / MIB,
            100.0 * err
        );
        assert!(
            (-0.02..=0.18).contains(&err),
            "{}: {:+.1} %",
            tag(&r),
            100.0 * err
        );
        errors.push(err.abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    assert!(median <= 0.04, "median {:.1} %", 100.0 * median);
}

/// llama.cpp's own offload plan (`llama-fit-params` on a card made small
/// with `--fit-target`, `llama_cpp_fit.jsonl`) is the largest `-ngl` whose
/// buffers fit what its process sees free: the card less the process's own
/// CUDA context, which no line reports. One context figure makes all 20 of
/// llama.cpp's choices ours (the largest `-ngl` our buffers fit, or none
/// where none fits, as at 64k without flash attention), and it lies below
/// the 611 MiB the runs left unaccounted once cuBLAS and the pool joined
/// the context: 530 to 560 MiB. A buffer rule off by one layer's bytes on
/// any plan leaves no such figure.
#[test]
fn the_largest_ngl_is_llama_cpps_own_choice() {
    let text =
        std::fs::read_to_string(format!("{DATA}/llama_cpp/measured/llama_cpp_fit.jsonl")).unwrap();
    let plans: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(plans.len(), 20);
    let matching: Vec<u64> = (300..=800)
        .step_by(10)
        .filter(|&context| plans.iter().all(|row| ours_is_theirs(row, context)))
        .collect();
    eprintln!("context figures (MiB) under which every plan is ours: {matching:?}");
    assert!(
        !matching.is_empty(),
        "no single context makes every plan ours"
    );
    assert!(
        matching.iter().all(|c| (500..611).contains(c)),
        "{matching:?}"
    );
}

/// Whether the largest `-ngl` our buffers fit in `card_free_mib` less
/// `context_mib` is the one llama.cpp printed.
fn ours_is_theirs(row: &Value, context_mib: u64) -> bool {
    let spec = spec(row["model"].as_str().unwrap());
    let counts = spec.param_counts();
    let w = gguf_weights(&spec, &counts, FileType::parse("Q4_K_M").unwrap());
    let n_layer = w.layers.len() as u64;
    let card = row["card_free_mib"].as_u64().unwrap();
    let budget = u128::from(card.saturating_sub(context_mib)) << 20;
    let gpu_total = |ngl: u64| {
        let flags = Flags {
            n_gpu_layers: ngl,
            n_cpu_moe: 0,
            n_ctx: row["n_ctx"].as_u64().unwrap(),
            n_ubatch: 512,
            flash_attn: row["flash_attn"] == "on",
            type_k: GgmlType::F16,
            type_v: GgmlType::F16,
            gpus: 1,
            output_first: true,
        };
        buffers(&spec, &w, &flags).gpu_total()
    };
    let ours = (0..=n_layer + 1)
        .rev()
        .find(|&ngl| gpu_total(ngl) <= budget);
    let printed: i64 = row["stdout"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .skip_while(|t| *t != "-ngl")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    let theirs = u64::try_from(printed).unwrap_or(n_layer + 1);
    match ours {
        Some(ngl) => ngl == theirs,
        None => theirs == 0,
    }
}
