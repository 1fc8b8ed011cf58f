//! The memory-log analyzer on the seed's leak log and on each log shape
//! (fixtures in data/logs, provenance in data/logs/README.md).

use vramfit_core::logs::{analyze, parse_log, parse_log_with, GpuPick, Point, Trend};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

fn gib(x: f64) -> u64 {
    (x * GIB).round() as u64
}

/// A log's `GB` when no tool is named: 10^9 bytes.
fn gb(x: f64) -> u64 {
    (x * 1e9).round() as u64
}

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/logs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn close(actual: f64, expected: f64, relative: f64) -> bool {
    (actual - expected).abs() <= relative * expected.abs()
}

#[test]
fn leak_log_from_seed_004() {
    let points = parse_log(&fixture("leak_seed004.txt"));
    // nine readings; "Step 1000: CUDA OOM" has none. `GB` with no tool named is 10^9 bytes.
    let expected_gb = [18.2, 18.5, 18.9, 19.4, 20.1, 20.9, 21.8, 22.9, 24.2];
    assert_eq!(points.len(), 9);
    for (i, (point, value)) in points.iter().zip(expected_gb).enumerate() {
        assert_eq!(point.step, 100.0 * (i + 1) as f64);
        assert_eq!(point.bytes, gb(value));
    }

    let analysis = analyze(points, Some(gib(32.0))).expect("nine readings");
    // Hand computation: x̄ = 500, Σ(x−x̄)² = 10⁴·60 = 600000,
    // Σ(x−x̄)·y = 100·(−4·18.2 − 3·18.5 − 2·18.9 − 19.4 + 20.9 + 2·21.8 + 3·22.9 + 4·24.2)
    //          = 100·44.5 GB, slope = 4450 / 600000 GB/step = 7,416,667 B/step.
    assert!(
        close(analysis.growth_bytes_per_step, 7_416_667.0, 1e-4),
        "{}",
        analysis.growth_bytes_per_step
    );
    // Differences 0.3 0.4 0.5 0.7 0.8 0.9 1.1 1.3 GB grow steadily: the guide
    // says "增长速度在加速". Exact least squares (fractions, by hand in Python):
    // y = 18.111905 + 4.5779e-4·x + 6.9589e-6·x² GB, residual ratio 0.0044.
    assert_eq!(analysis.trend, Trend::Accelerating);
    // slope of that quadratic at x = 900: (4.5779e-4 + 2·6.9589e-6·900) GB = 12,983,766 B/step
    assert!(
        close(analysis.final_growth_bytes_per_step, 12_983_766.0, 1e-4),
        "{}",
        analysis.final_growth_bytes_per_step
    );
    // its root at 32 GiB = 34.359738 GB: x = (−a1 + √(a1² − 4·a2·(a0 − 34.359738))) / (2·a2) = 1495.478
    let predicted = analysis.predicted_oom_step.expect("capacity given");
    assert!(close(predicted, 1495.478, 1e-4), "{predicted}");
    let codes: Vec<&str> = analysis.causes.iter().map(|c| c.code).collect();
    assert_eq!(codes.first(), Some(&"growing_inputs"));
    assert!(
        codes.contains(&"graph_kept") && codes.contains(&"hooks_not_removed"),
        "{codes:?}"
    );
    let graph_kept = analysis
        .causes
        .iter()
        .find(|c| c.code == "graph_kept")
        .expect("named");
    assert!(
        graph_kept.message.contains("loss.item()") && graph_kept.message_zh.contains("loss.item()")
    );
}

#[test]
fn linear_leak_predicts_the_step() {
    // 10 GiB + 20 MiB per step for 50 steps: 980 MiB of growth, 9.5 % of the
    // mean (above the 5 % steady threshold). 12 GiB = 10 GiB + 2048 MiB is
    // reached at step 2048 / 20 = 102.4.
    let points: Vec<Point> = (0..50)
        .map(|s| Point {
            step: f64::from(s),
            bytes: gib(10.0) + (f64::from(s) * 20.0 * MIB) as u64,
        })
        .collect();
    let analysis = analyze(points, Some(gib(12.0))).expect("fits");
    assert_eq!(analysis.trend, Trend::Linear);
    assert!(close(analysis.growth_bytes_per_step, 20.0 * MIB, 1e-9));
    assert!(close(
        analysis.predicted_oom_step.expect("capacity"),
        102.4,
        1e-9
    ));
    assert_eq!(analysis.causes.first().map(|c| c.code), Some("graph_kept"));
}

#[test]
fn slow_growth_under_the_steady_threshold() {
    // 10 GiB + 1 MiB per step for 50 steps: 49 MiB over the run is 0.5 % of
    // the ~10 GiB mean, under the 5 % threshold: steady, no prediction.
    let points: Vec<Point> = (0..50)
        .map(|s| Point {
            step: f64::from(s),
            bytes: gib(10.0) + (f64::from(s) * MIB) as u64,
        })
        .collect();
    let analysis = analyze(points, Some(gib(11.0))).expect("fits");
    assert_eq!(analysis.trend, Trend::Steady);
    assert_eq!(analysis.predicted_oom_step, None);
}

#[test]
fn steady_run_with_noise() {
    // 20 GiB ± 100 MiB alternating: slope ≈ 0, no prediction
    let points: Vec<Point> = (0..40)
        .map(|s| Point {
            step: f64::from(s * 10),
            bytes: gib(20.0) + if s % 2 == 0 { 100 << 20 } else { 0 },
        })
        .collect();
    let analysis = analyze(points.clone(), Some(gib(80.0))).expect("fits");
    assert_eq!(analysis.trend, Trend::Steady);
    assert_eq!(analysis.predicted_oom_step, None);
    assert!(analysis.causes.is_empty());
    // 20.1 GiB on a 21 GiB card is 96 % ≥ 90 %: steady but without headroom
    let tight = analyze(points, Some(gib(21.0))).expect("fits");
    assert_eq!(tight.causes.first().map(|c| c.code), Some("near_capacity"));
}

#[test]
fn shrinking_run_is_steady() {
    let points: Vec<Point> = (0..10)
        .map(|s| Point {
            step: f64::from(s),
            bytes: gib(20.0 - f64::from(s)),
        })
        .collect();
    assert_eq!(
        analyze(points, Some(gib(24.0))).expect("fits").trend,
        Trend::Steady
    );
}

#[test]
fn too_few_or_degenerate_points_are_errors() {
    let error = analyze(
        vec![Point {
            step: 1.0,
            bytes: 1,
        }],
        None,
    )
    .expect_err("one point");
    assert_eq!(error.field, "points");
    let same_step = vec![
        Point {
            step: 5.0,
            bytes: 1
        };
        4
    ];
    assert_eq!(
        analyze(same_step, None).expect_err("one step").field,
        "points"
    );
}

#[test]
fn hugging_face_trainer_dicts() {
    let points = parse_log(&fixture("hf_trainer.txt"));
    let steps: Vec<f64> = points.iter().map(|p| p.step).collect();
    assert_eq!(steps, [10.0, 20.0, 30.0, 40.0]);
    // `mem_gb` names no tool: 10^9 bytes
    assert_eq!(points.first().map(|p| p.bytes), Some(gb(12.0)));
    assert_eq!(points.last().map(|p| p.bytes), Some(gb(13.5)));
    let analysis = analyze(points, Some(16_000_000_000)).expect("fits");
    assert_eq!(analysis.trend, Trend::Linear);
    // 0.5 GB per 10 steps; 13.5 + 0.05·(x − 40) = 16 → x = 90
    assert!(close(
        analysis.predicted_oom_step.expect("capacity"),
        90.0,
        1e-6
    ));
}

#[test]
fn lightning_bar_with_carriage_returns() {
    let points = parse_log(&fixture("lightning.txt"));
    // epoch 0: 500/1000 and 1000/1000, epoch 1: 500/1000 → 1·1000 + 500
    let expected = [(500.0, 10.0), (1000.0, 10.1), (1500.0, 10.0)];
    assert_eq!(points.len(), 3);
    for (point, (step, value)) in points.iter().zip(expected) {
        assert_eq!(point.step, step);
        // `mem=10.0G` names no tool: 10^9 bytes
        assert_eq!(point.bytes, gb(value));
    }
}

#[test]
fn csv_with_memory_column_in_mib() {
    let points = parse_log(&fixture("steps.csv"));
    assert_eq!(points.len(), 4);
    assert_eq!(
        points.get(1),
        // `allocated_mb` names no tool: 10^6 bytes
        Some(&Point {
            step: 100.0,
            bytes: 8_200_000_000
        })
    );
    assert_eq!(analyze(points, None).expect("fits").trend, Trend::Steady);
}

#[test]
fn companion_csv_max_or_one_gpu() {
    let text = fixture("companion.csv");
    let all = parse_log_with(&text, GpuPick::Max);
    // 24 GiB cards
    assert_eq!(all.capacity_bytes, Some(25_769_803_776));
    assert_eq!(all.series.len(), 1);
    let max: Vec<u64> = all.series[0].points.iter().map(|p| p.bytes).collect();
    assert_eq!(max, [2_000_000_000, 1_900_000_000, 1_800_000_000]);
    let gpu0: Vec<u64> = parse_log_with(&text, GpuPick::One(0)).series[0]
        .points
        .iter()
        .map(|p| p.bytes)
        .collect();
    assert_eq!(gpu0, [1_000_000_000, 1_100_000_000, 1_200_000_000]);
}

#[test]
fn lines_without_step_are_numbered() {
    let points = parse_log("gpu mem: 1.0 GiB\nnoise\ngpu mem: 2.0 GiB\ngpu mem: 3072 MiB\n");
    let read: Vec<(f64, u64)> = points.iter().map(|p| (p.step, p.bytes)).collect();
    assert_eq!(read, [(0.0, gib(1.0)), (1.0, gib(2.0)), (2.0, gib(3.0))]);
}

#[test]
fn bad_input_gives_what_it_can() {
    for text in [
        "",
        "\n\n",
        "步骤 100：显存 18.2GB",
        "\u{0}\u{ff}junk",
        "memory",
        "mem=",
        "mem=GB",
        "step,memory\nx,y\n",
        "%|||/",
    ] {
        let _ = parse_log(text);
    }
    assert!(parse_log("").is_empty());
    assert!(parse_log("no readings here").is_empty());
    // a reading inside Chinese text still counts
    assert_eq!(
        parse_log("第 3 步 memory=2GB")
            .first()
            .map(|p| (p.step, p.bytes)),
        Some((3.0, 2_000_000_000))
    );
}

#[test]
fn ten_megabyte_log_returns() {
    let mut log = String::new();
    let mut step = 0u64;
    while log.len() < 10 * 1024 * 1024 {
        step += 1;
        log.push_str(&format!(
            "Step {step}: Loss=2.00, Memory={}.{}GB\n",
            10 + step % 7,
            step % 10
        ));
    }
    let started = std::time::Instant::now();
    // every line read once: the reader counts the lines it looked at
    let parsed = parse_log_with(&log, GpuPick::Max);
    assert_eq!(parsed.lines as u64, step);
    assert_eq!(parsed.series.len(), 1);
    let points = parse_log(&log);
    assert_eq!(points.len() as u64, step);
    let analysis = analyze(points, Some(gib(80.0))).expect("fits");
    assert_eq!(analysis.trend, Trend::Steady);
    // one line of 10 MB made of near-misses
    let junk = "mem mem= memory: step %| 12/ ".repeat(10 * 1024 * 1024 / 30);
    assert_eq!(parse_log_with(&junk, GpuPick::Max).lines, 1);
    let _ = parse_log(&junk);
    // one 2 MB line of 250,000 readings: each looked at once
    let readings = "x mem=1GB ".repeat(2 * 1024 * 1024 / 10);
    let parsed = parse_log_with(&readings, GpuPick::Max);
    assert_eq!(parsed.lines, 1);
    assert_eq!(parsed.series.len(), 2 * 1024 * 1024 / 10);
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

#[test]
fn every_line_shape_of_the_issue_is_a_point() {
    // (line, step, bytes, series): the shapes issue 15 lists
    let cases: [(&str, f64, u64, &str); 9] = [
        (
            "[train] step 50 | loss 3.087 | mem 30.22 GiB",
            50.0,
            gib(30.22),
            "mem",
        ),
        (
            "step: 10  memory: 38.11GiB(48.20%)",
            10.0,
            gib(38.11),
            "memory",
        ),
        ("[step 10] mem=2.0GiB", 10.0, gib(2.0), "mem"),
        ("iter 10 mem 2.0 GiB", 10.0, gib(2.0), "mem"),
        ("it 10/5000 mem=2.0GiB", 10.0, gib(2.0), "mem"),
        (" 10/5000 [00:01<00:10, mem=2.0GiB]", 10.0, gib(2.0), "mem"),
        (
            "global_step=10 peak_memory_active:20.1",
            10.0,
            gib(20.1),
            "peak_memory_active",
        ),
        ("第 10 步，显存占用 17.02 GB", 10.0, gb(17.02), "显存占用"),
        (
            "{'loss': 1.0, 'step': 10, 'memory/max_mem_allocated(gib)': 19.8}",
            10.0,
            gib(19.8),
            "memory/max_mem_allocated(gib)",
        ),
    ];
    for (line, step, bytes, series) in cases {
        let parsed = parse_log_with(line, GpuPick::Max);
        let first = parsed
            .series
            .first()
            .unwrap_or_else(|| panic!("{line}: no series"));
        assert_eq!(first.name, series, "{line}");
        assert_eq!(
            first.points.first().map(|p| (p.step, p.bytes)),
            Some((step, bytes)),
            "{line}"
        );
    }
    // `(48.20%)` of the card: 38.11 GiB / 0.482
    let parsed = parse_log_with("step: 10  memory: 38.11GiB(48.20%)", GpuPick::Max);
    assert_eq!(
        parsed.capacity_bytes,
        Some((gib(38.11) as f64 / 0.482) as u64)
    );
}

#[test]
fn tables_with_a_time_column_or_raw_byte_columns() {
    // nvidia-smi --query-gpu=timestamp,memory.used,memory.total --format=csv -l 1
    let smi = "timestamp, memory.used [MiB], memory.total [MiB]\n\
               2024/05/01 12:00:00.000, 30210 MiB, 81559 MiB\n\
               2024/05/01 12:00:01.000, 30310 MiB, 81559 MiB\n\
               2024/05/01 12:00:02.500, 30410 MiB, 81559 MiB\n";
    let parsed = parse_log_with(smi, GpuPick::Max);
    assert_eq!(parsed.x_unit, vramfit_core::logs::XUnit::Seconds);
    assert_eq!(parsed.capacity_bytes, Some(81559 * (1 << 20)));
    let points: Vec<(f64, u64)> = parsed.series[0]
        .points
        .iter()
        .map(|p| (p.step, p.bytes))
        .collect();
    assert_eq!(
        points,
        [(0.0, 30210 << 20), (1.0, 30310 << 20), (2.5, 30410 << 20)]
    );
    // Lightning's DeviceStatsMonitor metrics.csv: raw bytes, sparse rows,
    // counts (`allocation.all.current`) are not memory
    let lightning = "DeviceStatsMonitor.on_train_batch_end/allocated_bytes.all.current,DeviceStatsMonitor.on_train_batch_end/allocation.all.current,epoch,step\n\
                     1000000000,12,0,0\n\
                     ,,0,1\n\
                     1100000000,12,0,2\n\
                     1200000000,13,0,4\n";
    let parsed = parse_log_with(lightning, GpuPick::Max);
    assert_eq!(parsed.series.len(), 1);
    assert_eq!(parsed.x_unit, vramfit_core::logs::XUnit::Step);
    let points: Vec<(f64, u64)> = parsed.series[0]
        .points
        .iter()
        .map(|p| (p.step, p.bytes))
        .collect();
    assert_eq!(
        points,
        [
            (0.0, 1_000_000_000),
            (2.0, 1_100_000_000),
            (4.0, 1_200_000_000)
        ]
    );
    assert_eq!(
        parsed.series[0].units.assumed,
        vramfit_core::logs::Assumed::Explicit
    );
}
