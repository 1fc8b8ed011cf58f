//! The compiled-in catalog: it parses, every entry validates, and every
//! computed count equals the measured count it states.

mod common;

use common::{csv_rows, get, get_u64};
use vramfit_core::catalog::{find_model, models, parse};

#[test]
fn catalog_parses_and_is_large_enough() {
    let embedded = include_str!("../data/models.json");
    let parsed = parse(embedded).expect("data/models.json parses");
    assert_eq!(parsed.len(), models().len());
    // The compiled catalog (trimmed by build.rs) reads as the data file does.
    for (raw, compiled) in parsed.iter().zip(models()) {
        assert_eq!(raw.spec, compiled.spec, "{}", raw.id);
    }
    assert!(models().len() >= 150, "{} models", models().len());
    assert!(parse("[{\"id\": 1}]").is_err());
}

#[test]
fn every_entry_validates_and_matches_its_stated_count() {
    for m in models() {
        m.spec
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", m.id));
        assert_eq!(m.spec.param_counts().total, m.params, "{}", m.id);
        assert!(!m.source.is_empty() && !m.family.is_empty(), "{}", m.id);
    }
}

#[test]
fn ids_and_names_are_unique() {
    let mut ids: Vec<String> = models().iter().map(|m| m.id.to_lowercase()).collect();
    let mut names: Vec<String> = models().iter().map(|m| m.name.to_lowercase()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    names.sort();
    names.dedup();
    assert_eq!((ids.len(), names.len()), (n, n));
}

/// Counts in the measured CSV (`note` starts with the HF id) equal the catalog's.
#[test]
fn catalog_counts_equal_the_measured_csv() {
    let mut checked = 0;
    for row in csv_rows("cpu_param_counts.csv") {
        let id = get(&row, "note").split(' ').next().unwrap_or("");
        if let Some(m) = find_model(id).filter(|m| m.id == id) {
            assert_eq!(m.params, get_u64(&row, "total_params"), "{id}");
            checked += 1;
        }
    }
    assert!(
        checked >= 15,
        "only {checked} catalog entries found in the CSV"
    );
}

/// Every model of cases.jsonl with a transformer architecture is in the
/// catalog; its count matches the case's, apart from the documented litgpt
/// untied heads and the rounded DeBERTa figure.
#[test]
fn every_case_model_is_in_the_catalog() {
    for row in csv_rows("cases_params.csv") {
        let id = get(&row, "model");
        if get(&row, "arch") == "stable_diffusion" {
            continue; // a UNet, not a transformer ModelSpec can describe
        }
        let m = find_model(id).unwrap_or_else(|| panic!("{id} missing from the catalog"));
        let case = get_u64(&row, "params");
        let notes = get(&row, "notes");
        if notes.contains("litgpt keeps lm_head as a separate tensor") {
            let mut untied = m.spec.clone();
            untied.tied_embeddings = false;
            assert_eq!(untied.param_counts().total, case, "{id} untied");
        } else if notes.contains("round(") {
            let off = common::rel_diff(m.params, case);
            assert!(off < 0.005, "{id}: {off}");
        } else {
            assert_eq!(m.params, case, "{id}");
        }
    }
}

#[test]
fn find_model_by_id_name_and_suffix() {
    let by_id = find_model("META-LLAMA/llama-2-7b-hf").expect("id");
    assert_eq!(by_id.id, "meta-llama/Llama-2-7b-hf");
    assert_eq!(
        find_model("llama-2-7b").map(|m| m.id.as_str()),
        Some("meta-llama/Llama-2-7b-hf")
    );
    assert_eq!(
        find_model("Llama-2-7b-hf").map(|m| m.id.as_str()),
        Some("meta-llama/Llama-2-7b-hf")
    );
    assert_eq!(
        find_model("Mixtral-8x7B-v0.1").map(|m| m.name.as_str()),
        Some("Mixtral-8x7B")
    );
    assert!(find_model("").is_none());
    assert!(find_model("no-such-model").is_none());
    // the scenario's default model
    assert!(find_model("meta-llama/Llama-3.1-8B").is_some());
}

/// One search for every face: "llama 7b" used to find nothing in the CLI
/// while the web found it; numbers match whole numbers only.
#[test]
fn catalog_search_finds_what_people_type() {
    use vramfit_core::catalog::{models, search_models};
    let ids = |q: &str| -> Vec<&str> { search_models(q).iter().map(|m| m.id.as_str()).collect() };
    assert!(ids("llama 7b").contains(&"meta-llama/Llama-2-7b-hf"));
    assert!(ids("7b llama").contains(&"codellama/CodeLlama-7b-hf"));
    // "3" being typed also finds 3.1; never Llama 2.
    let llama3 = ids("llama3 8b");
    assert!(
        llama3.contains(&"meta-llama/Meta-Llama-3-8B")
            && llama3.contains(&"meta-llama/Llama-3.1-8B")
    );
    assert!(
        llama3.iter().all(|id| !id.contains("Llama-2")),
        "{llama3:?}"
    );
    assert_eq!(
        ids("https://huggingface.co/meta-llama/Llama-3.1-8B"),
        [
            "meta-llama/Llama-3.1-8B",
            "meta-llama/Llama-3.1-8B-Instruct"
        ]
    );
    assert!(!ids("2b").contains(&"stabilityai/stablelm-2-1_6b"));
    // This year's families, as people type them.
    assert!(ids("qwen3 14b").contains(&"Qwen/Qwen3-14B"));
    assert!(ids("deepseek r1").contains(&"deepseek-ai/DeepSeek-R1"));
    assert!(ids("gpt-oss 120b").contains(&"openai/gpt-oss-120b"));
    assert!(ids("mamba 2.8b").contains(&"state-spaces/mamba-2.8b-hf"));
    assert!(ids("nemotron h 8b").contains(&"nvidia/Nemotron-H-8B-Base-8K"));
    assert_eq!(search_models("").len(), models().len());
    assert!(search_models("no such model anywhere").is_empty());
}

/// The web build reads the catalog from `data/models.links`, the JSON
/// catalog written as link text: the two hold the same models. After an
/// edit of `data/models.json`, `VRAMFIT_WRITE_CATALOG_LINKS=1 cargo test
/// --test catalog` writes the file again.
#[test]
fn the_web_catalog_is_the_json_catalog_as_link_text() {
    use vramfit_core::catalog::{links_text, models, parse_links};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/models.links");
    let written = links_text(models());
    if std::env::var_os("VRAMFIT_WRITE_CATALOG_LINKS").is_some() {
        std::fs::write(&path, &written).expect("writes data/models.links");
    }
    let file = std::fs::read_to_string(&path).expect("data/models.links");
    assert!(
        file == written,
        "data/models.links is stale: see this test's comment"
    );
    let read = parse_links(&file);
    assert_eq!(read.len(), models().len(), "a line did not parse");
    for (a, b) in read.iter().zip(models()) {
        let mut b = b.clone();
        b.source.clear();
        assert_eq!(a, &b, "{}", b.id);
    }
}
