//! The field registry: one row per scenario field, each row consistent with
//! the scenario's JSON, the link codec and `Scenario::validate`.

use std::collections::HashSet;

use vramfit_core::cases::{case_scenario, parse_cases};
use vramfit_core::precision::WeightFormat;
use vramfit_core::scenario::fields::{by_key, Kind, FIELDS};
use vramfit_core::scenario::{Choice, Engine, Method, Scenario, TaskKind};
use vramfit_core::url::{decode, encode};

fn training() -> Scenario {
    Scenario {
        task: TaskKind::Training,
        ..Scenario::default()
    }
}

#[test]
fn keys_paths_and_flags_are_unique_and_found() {
    for (name, of) in [
        (
            "key",
            (|f| f.key) as fn(&vramfit_core::scenario::fields::Field) -> &str,
        ),
        ("path", |f| f.path),
        ("flag", |f| f.flag),
    ] {
        let mut seen = HashSet::new();
        for f in FIELDS {
            assert!(seen.insert(of(f)), "{name} {} twice", of(f));
        }
    }
    for f in FIELDS {
        assert_eq!(by_key(f.key).map(|g| g.path), Some(f.path));
    }
    assert!(by_key("m").is_none(), "the model is not a registry field");
}

#[test]
fn every_path_names_the_field_in_a_scenario_file() {
    // Setting a field through the registry changes exactly the JSON value at
    // its path: the path is what a scenario file and an error call it.
    let base = serde_json::to_value(Scenario::default()).expect("serializes");
    for f in FIELDS {
        let pointer = format!("/{}", f.path.replace('.', "/"));
        assert!(
            base.pointer(&pointer).is_some(),
            "{} is not in the JSON",
            f.path
        );
        let mut sc = Scenario::default();
        let value = match f.kind {
            Kind::Count { min, max, .. } | Kind::OptionalCount { min, max, .. } => {
                (if min + 3 <= max { min + 3 } else { max }).to_string()
            }
            // The other of the two values (a flag may default to on).
            Kind::Flag { get, .. } => if get(&Scenario::default()) { "0" } else { "1" }.into(),
            Kind::Choice(c) => (c.keys)().last().expect("keys").to_string(),
            Kind::Fraction { .. } | Kind::OptionalFraction { .. } => "0.5".into(),
            Kind::Memory { .. } => "24GiB".into(),
            Kind::GpuName => "h100-sxm5-80gb".into(),
            Kind::LoraTargets => "q,k,o".into(),
            Kind::ImageMix => "4032x3024,336x336".into(),
        };
        f.set_text(&mut sc, &value).expect(f.key);
        let changed = serde_json::to_value(&sc).expect("serializes");
        assert_ne!(
            changed.pointer(&pointer),
            base.pointer(&pointer),
            "{}",
            f.key
        );
        let mut rest = changed.clone();
        if let Some(slot) = rest.pointer_mut(&pointer) {
            *slot = base.pointer(&pointer).cloned().unwrap_or_default();
        }
        assert_eq!(rest, base, "{} changed more than {}", f.key, f.path);
        assert_eq!(f.get_text(&sc), value, "{}", f.key);
        assert!(f.differs(&sc, &Scenario::default()), "{}", f.key);
    }
}

#[test]
fn links_write_the_registry_text_in_registry_order() {
    let mut sc = training();
    sc.training.micro_batch = 4;
    sc.gpu.memory_bytes = Some(24 << 30);
    sc.weights = WeightFormat::Nf4;
    assert_eq!(encode(&sc), "v=1&t=train&w=nf4&mb=4&mem=24GiB");
    let d = decode("v=1&mb=0&meth=adapter-v2");
    assert_eq!(d.notices.len(), 1);
    assert_eq!(
        d.notices[0].message,
        "\"0\" is not a whole number from 1 to 65536; the default is used"
    );
    assert_eq!(d.scenario.training.method, Method::AdapterV2);
}

#[test]
fn ranges_come_from_the_limits() {
    let range = |key| by_key(key).and_then(|f| f.range());
    assert_eq!(range("mb"), Some((1, 65_536)));
    assert_eq!(range("ga"), Some((1, 1 << 20)));
    assert_eq!(range("gs"), Some((1, 1 << 20)));
    assert_eq!(range("seq"), Some((1, 1 << 24)));
    assert_eq!(range("nt"), Some((0, 1 << 24)));
    assert_eq!(range("img"), Some((0, 1024)));
    assert_eq!(range("mem"), Some((1 << 20, 1 << 50)));
    assert_eq!(range("w"), None);
}

#[test]
fn validation_names_the_path_of_a_field_that_applies() {
    let mut sc = training();
    sc.training.micro_batch = 0;
    let err = sc.validate().expect_err("micro-batch 0");
    assert_eq!(err.field, "training.micro_batch");
    assert_eq!(err.message, "0 is out of range: allowed 1 to 65536");
    // An inference scenario does not read the training fields.
    sc.task = TaskKind::Inference;
    assert!(sc.validate().is_ok());
    sc.inference.gpu_memory_utilization = 1.5;
    assert!(
        sc.validate().is_ok(),
        "only vLLM reads gpu_memory_utilization"
    );
    sc.inference.engine = Engine::Vllm;
    let err = sc.validate().expect_err("above 1");
    assert_eq!(err.field, "inference.gpu_memory_utilization");
    assert_eq!(err.message, "1.5 is out of range: allowed above 0 up to 1");
}

#[test]
fn lora_fields_apply_to_lora_only() {
    let mut sc = training();
    sc.training.lora.targets.clear();
    sc.training.lora.rank = 0;
    assert!(sc.validate().is_ok(), "full training ignores LoRA settings");
    sc.training.method = Method::Qlora;
    assert_eq!(
        sc.validate().expect_err("rank 0").field,
        "training.lora.rank"
    );
    sc.training.lora.rank = 8;
    let err = sc.validate().expect_err("no targets");
    assert_eq!(err.field, "training.lora.targets");
    assert_eq!(
        err.message,
        "name at least one target: q, k, v, o, gate, up, down, head"
    );
}

#[test]
fn the_layout_must_split_the_gpus() {
    let mut sc = Scenario::default();
    sc.parallel.gpus = 4;
    sc.parallel.tp = 8;
    let err = sc.validate().expect_err("tp above gpus");
    assert_eq!(
        (err.field.as_str(), err.message.as_str()),
        ("parallel.tp", "8 is out of range: allowed 1 to 4")
    );
    sc.parallel.tp = 3;
    let err = sc.validate().expect_err("4 GPUs in groups of 3");
    assert_eq!(err.message, "4 must be a multiple of tp × pp = 3");
}

#[test]
fn weight_formats_apply_to_their_engine_and_method() {
    let mut sc = Scenario {
        weights: WeightFormat::GgufQ4KM,
        ..Scenario::default()
    };
    let err = sc.validate().expect_err("GGUF in transformers");
    assert_eq!(err.field, "weights");
    assert!(
        err.message
            .starts_with("gguf_q4_k_m does not apply: GGUF weights load only in llama.cpp"),
        "{}",
        err.message
    );
    assert!(err
        .message
        .ends_with("allowed here: fp32, fp16, bf16, fp8, int8, nf4, fp4, gptq4, awq4, mxfp4"));
    sc.inference.engine = Engine::LlamaCpp;
    assert!(sc.validate().is_ok());
    sc.weights = WeightFormat::Nf4;
    assert_eq!(
        sc.validate().expect_err("NF4 in llama.cpp").field,
        "weights"
    );
    // QLoRA on a 16-bit choice means NF4; over GPTQ it is not QLoRA.
    let mut qlora = training();
    qlora.training.method = Method::Qlora;
    assert!(qlora.validate().is_ok());
    qlora.weights = WeightFormat::Gptq4;
    assert_eq!(
        qlora.validate().expect_err("QLoRA over GPTQ").field,
        "weights"
    );
    let offered: Vec<WeightFormat> = WeightFormat::ALL
        .into_iter()
        .filter(|w| w.applies(&qlora))
        .collect();
    assert_eq!(
        offered,
        [WeightFormat::Int8, WeightFormat::Nf4, WeightFormat::Fp4]
    );
    let menu = match by_key("w").map(|f| f.kind) {
        Some(Kind::Choice(c)) => (c.offered)(&qlora),
        _ => Vec::new(),
    };
    assert_eq!(menu, ["int8", "nf4", "fp4"]);
}

#[test]
fn no_measured_case_breaks_a_rule() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/groundtruth/cases.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("cases");
    let mut checked = 0;
    for case in parse_cases(&text).into_iter().filter_map(Result::ok) {
        if let Ok(sc) = case_scenario(&case) {
            assert!(sc.validate().is_ok(), "{}: {:?}", case.id, sc.validate());
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} cases");
}

#[test]
fn embeds_expose_the_twelve_inputs_they_always_had() {
    let keys: Vec<&str> = FIELDS
        .iter()
        .filter(|f| f.embeddable)
        .map(|f| f.key)
        .collect();
    assert_eq!(
        keys,
        ["w", "meth", "r", "mb", "ga", "seq", "bs", "pl", "nt", "eng", "n", "gpu"]
    );
    assert!(FIELDS
        .iter()
        .filter(|f| f.embeddable)
        .all(|f| f.label.is_some()));
}

#[test]
fn enums_parse_one_way_everywhere() {
    assert_eq!(TaskKind::parse("train"), Some(TaskKind::Training));
    assert_eq!(TaskKind::parse(" Training "), Some(TaskKind::Training));
    assert_eq!(Method::parse("ADAPTER-V2"), Some(Method::AdapterV2));
    assert_eq!(Engine::parse("llama-cpp"), Some(Engine::LlamaCpp));
    assert_eq!(
        WeightFormat::parse("GGUF-Q4-K-M"),
        Some(WeightFormat::GgufQ4KM)
    );
    assert_eq!(
        Method::parse_or_explain("sing"),
        Err(
            "\"sing\" is not one of: full, lora, qlora, adapter, adapter_v2, forward_backward"
                .into()
        )
    );
}
