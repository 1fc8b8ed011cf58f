//! The doctor on real messages: every file in data/oom/corpus is an error
//! as a stack printed it, copied from a public issue (source in
//! `expected.jsonl` and data/oom/README.md), with the fields the report must
//! carry. Bytes are the printed numbers converted by hand (GiB × 2^30,
//! MiB × 2^20, kB × 2^10) or the shape × dtype size TensorFlow names.

use serde_json::Value;
use vramfit_core::doctor::{parse_oom, NOT_FOUND};

fn corpus_dir() -> String {
    format!("{}/tests/data/oom/corpus", env!("CARGO_MANIFEST_DIR"))
}

struct Case {
    file: String,
    expect: serde_json::Map<String, Value>,
    codes: Vec<String>,
}

fn cases() -> Vec<Case> {
    let path = format!("{}/expected.jsonl", corpus_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("valid JSON line");
            assert!(
                value["source"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("https://")),
                "{line}: every message cites its source"
            );
            Case {
                file: value["file"].as_str().expect("file").to_string(),
                expect: value["expect"].as_object().expect("expect").clone(),
                codes: value["codes"]
                    .as_array()
                    .expect("codes")
                    .iter()
                    .filter_map(|c| c.as_str().map(String::from))
                    .collect(),
            }
        })
        .collect()
}

#[test]
fn every_corpus_message_reads_as_expected() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let path = format!("{}/{}", corpus_dir(), case.file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let parsed = parse_oom(&text);
        if case.expect.get("not_found") == Some(&Value::Bool(true)) {
            match parsed {
                Err(error) => assert_eq!(error.message, NOT_FOUND),
                Ok(report) => failures.push(format!(
                    "{}: expected no error found, got {:?}",
                    case.file, report.error
                )),
            }
            continue;
        }
        let report = match parsed {
            Ok(report) => report,
            Err(error) => {
                failures.push(format!("{}: {}", case.file, error.message));
                continue;
            }
        };
        let json = serde_json::to_value(&report).expect("serializes");
        for (key, want) in &case.expect {
            if &json[key] != want {
                failures.push(format!(
                    "{}: {key} = {} (want {want})",
                    case.file, json[key]
                ));
            }
        }
        let codes: Vec<&str> = report.diagnoses.iter().map(|d| d.code).collect();
        for code in &case.codes {
            if !codes.contains(&code.as_str()) {
                failures.push(format!("{}: no {code} in {codes:?}", case.file));
            }
        }
        assert!(
            report
                .diagnoses
                .iter()
                .all(|d| !d.message.is_empty() && !d.message_zh.is_empty()),
            "{}: every diagnosis in both languages",
            case.file
        );
        for diagnosis in &report.diagnoses {
            assert!(
                !diagnosis.message.contains("  ") && !diagnosis.message_zh.contains("  "),
                "{}: {} reads with a run of spaces",
                case.file,
                diagnosis.code
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // the issue asks for at least 40 real out-of-memory messages
    let ooms = cases
        .iter()
        .filter(|c| c.expect.get("out_of_memory") == Some(&Value::Bool(true)))
        .count();
    assert!(ooms >= 40, "{ooms} out-of-memory messages in the corpus");
}
