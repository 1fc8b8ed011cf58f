//! The log reader on real logs: every file in data/logs/corpus is training
//! output as a tool printed it, copied from a public issue or pull request
//! (source in `expected.jsonl` and data/logs/README.md), with what must be
//! read from it: the series (one per label), the x axis, the capacity the
//! log states, the series chosen for the trend and how its units were read.
//! Bytes are the printed numbers converted by hand: GiB × 2^30, MiB × 2^20,
//! GB × 10^9 (no tool named) or × 2^30 (DeepSpeed), bare numbers in the
//! tool's unit (torchtune GiB, MMEngine MiB) or by magnitude.

use serde_json::Value;
use vramfit_core::logs::{analyze_log, parse_log_with, GpuPick};

fn corpus_dir() -> String {
    format!("{}/tests/data/logs/corpus", env!("CARGO_MANIFEST_DIR"))
}

fn check(file: &str, expect: &serde_json::Map<String, Value>) -> Vec<String> {
    let path = format!("{}/{file}", corpus_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parsed = parse_log_with(&text, GpuPick::Max);
    let mut failures = Vec::new();
    let mut fail = |what: String| failures.push(format!("{file}: {what}"));
    let names: Vec<&str> = parsed.series.iter().map(|s| s.name.as_str()).collect();
    let want_names: Vec<&str> = expect["series"]
        .as_array()
        .expect("series")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if names != want_names {
        fail(format!("series {names:?}, want {want_names:?}"));
    }
    let x_unit = serde_json::to_value(parsed.x_unit).expect("x unit");
    if x_unit != expect["x_unit"] {
        fail(format!("x_unit {x_unit}, want {}", expect["x_unit"]));
    }
    if let Some(capacity) = expect.get("capacity") {
        if parsed.capacity_bytes != capacity.as_u64() {
            fail(format!(
                "capacity {:?}, want {capacity}",
                parsed.capacity_bytes
            ));
        }
    }
    for host in expect
        .get("host")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !parsed
            .series
            .iter()
            .any(|s| Some(s.name.as_str()) == host.as_str() && s.host)
        {
            fail(format!("{host} is not read as host RAM"));
        }
    }
    let analysis = analyze_log(&parsed, None);
    let chosen = match (&analysis, expect["chosen"].as_str()) {
        (Ok(a), Some(want)) if a.series == want => Some(a),
        (Err(_), None) => None,
        (Ok(a), want) => {
            fail(format!("chose {:?}, want {want:?}", a.series));
            return failures;
        }
        (Err(e), Some(want)) => {
            fail(format!("error {}, want {want}", e.message));
            return failures;
        }
    };
    let series = chosen
        .and_then(|a| parsed.series.iter().find(|s| s.name == a.series))
        .or_else(|| parsed.series.first());
    if let (Some(a), Some(assumed)) = (chosen, expect.get("assumed")) {
        let units = serde_json::to_value(a.units).expect("units");
        if &units["assumed"] != assumed {
            fail(format!("units {units}, want {assumed}"));
        }
        if let Some(tool) = expect.get("tool") {
            if &units["tool"] != tool {
                fail(format!("tool {}, want {tool}", units["tool"]));
            }
        }
        if a.units_note.en.is_empty() || a.series_reason.zh.is_empty() {
            fail("reasons in both languages".into());
        }
    }
    let Some(series) = series else {
        fail("no series".into());
        return failures;
    };
    if let Some(first) = expect.get("first").and_then(Value::as_array) {
        let got = series.points.first().map(|p| (p.step, p.bytes));
        let want = (
            first[0].as_f64().unwrap_or(-1.0),
            first[1].as_u64().unwrap_or(0),
        );
        if got != Some(want) {
            fail(format!("first point {got:?}, want {want:?}"));
        }
    }
    if let Some(steps) = expect.get("steps").and_then(Value::as_array) {
        let got: Vec<f64> = series.points.iter().map(|p| p.step).collect();
        let want: Vec<f64> = steps.iter().filter_map(Value::as_f64).collect();
        if got != want {
            fail(format!("steps {got:?}, want {want:?}"));
        }
    }
    if let (Some(points), Some(a)) = (expect.get("points"), chosen) {
        if a.analysis.points.len() as u64 != points.as_u64().unwrap_or(0) {
            fail(format!("{} points, want {points}", a.analysis.points.len()));
        }
    }
    if let (Some(trend), Some(a)) = (expect.get("trend"), chosen) {
        if a.analysis.trend.name() != trend.as_str().unwrap_or("") {
            fail(format!("trend {}, want {trend}", a.analysis.trend.name()));
        }
    }
    failures
}

#[test]
fn every_corpus_log_reads_as_expected() {
    let path = format!("{}/expected.jsonl", corpus_dir());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut failures = Vec::new();
    let mut files = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).expect("valid JSON line");
        assert!(
            value["source"]
                .as_str()
                .is_some_and(|s| s.starts_with("https://")),
            "{line}: every log cites its source"
        );
        let file = value["file"].as_str().expect("file");
        failures.extend(check(file, value["expect"].as_object().expect("expect")));
        files += 1;
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // the issue asks for at least 15 log shapes
    assert!(files >= 15, "{files} logs in the corpus");
}
