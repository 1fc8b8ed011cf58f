//! How the views order, group and thin the core's answers (bar order,
//! identical GPUs drawn once, compare rows, plotted readings): plain
//! functions, tested natively, no DOM. The answers themselves are the core's.

use crate::i18n::part_key;
use vramfit_core::report::{Counter, Estimate, GpuReport, Part};
use vramfit_core::short_sort::sort_by_key;

/// The lines alive at the peak (what the stacked bar draws), largest first
/// within each counter so the bar reads allocated, then reserved, then device.
pub fn bar_lines(report: &GpuReport) -> Vec<(Part, u64, Counter)> {
    let mut lines: Vec<(Part, u64, Counter)> = report
        .lines
        .iter()
        .filter(|l| l.counter != Counter::NotAtPeak && l.bytes > 0)
        .map(|l| (l.part, l.bytes, l.counter))
        .collect();
    let rank = |c: Counter| match c {
        Counter::Allocated => 0,
        Counter::Reserved => 1,
        Counter::Device => 2,
        Counter::NotAtPeak => 3,
    };
    sort_by_key(&mut lines, |&(_, bytes, counter)| {
        (rank(counter), std::cmp::Reverse(bytes))
    });
    lines
}

/// GPUs whose breakdowns are identical, drawn once: `(first index, last index, report)`.
/// The estimate carries one report per distinct role; the last role spans
/// the remaining GPUs of the job.
pub fn distinct_gpus(estimate: &Estimate) -> Vec<(u64, u64, &GpuReport)> {
    let reports = &estimate.gpus;
    let last_gpu = estimate.gpu_count.max(1) - 1;
    reports
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let until = match reports.get(i + 1) {
                Some(next) => next.index.saturating_sub(1).max(r.index),
                None => last_gpu.max(r.index),
            };
            (r.index, until, r)
        })
        .collect()
}

/// One row of the compare table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompareRow {
    /// The text key of the row's name (`part-weights`, `total-peak-allocated`).
    pub key: String,
    pub pinned: Option<u64>,
    pub current: Option<u64>,
}

impl CompareRow {
    /// current − pinned (a missing side counts as 0).
    pub fn delta(&self) -> i128 {
        i128::from(self.current.unwrap_or(0)) - i128::from(self.pinned.unwrap_or(0))
    }
}

/// Every line of either breakdown (pinned order first), then the three totals.
pub fn compare_rows(pinned: &GpuReport, current: &GpuReport) -> Vec<CompareRow> {
    let bytes_of = |r: &GpuReport, part: Part| -> Option<u64> {
        let matching: Vec<u64> = r
            .lines
            .iter()
            .filter(|l| l.part == part)
            .map(|l| l.bytes)
            .collect();
        (!matching.is_empty()).then(|| matching.iter().sum())
    };
    let mut parts: Vec<Part> = Vec::new();
    for line in pinned.lines.iter().chain(&current.lines) {
        if !parts.contains(&line.part) {
            parts.push(line.part);
        }
    }
    let mut rows: Vec<CompareRow> = parts
        .into_iter()
        .map(|part| CompareRow {
            key: part_key(part),
            pinned: bytes_of(pinned, part),
            current: bytes_of(current, part),
        })
        .collect();
    let totals = [
        (
            "total-peak-allocated",
            pinned.peak_allocated_bytes,
            current.peak_allocated_bytes,
        ),
        (
            "total-peak-reserved",
            pinned.peak_reserved_bytes,
            current.peak_reserved_bytes,
        ),
        (
            "total-device-used",
            pinned.device_used_bytes,
            current.device_used_bytes,
        ),
    ];
    rows.extend(totals.into_iter().map(|(key, p, c)| CompareRow {
        key: key.to_owned(),
        pinned: Some(p),
        current: Some(c),
    }));
    rows
}

/// Most points the memory-log plot draws: a 10 MB log has ~10^5 readings,
/// far more than the ~1000 px of a plot can show.
pub const MAX_PLOTTED: usize = 1000;

/// At most `max` readings, in order: the largest of each run of consecutive
/// readings (memory peaks are what matter).
pub fn downsample(points: &[(f64, u64)], max: usize) -> Vec<(f64, u64)> {
    if points.len() <= max {
        return points.to_vec();
    }
    if max == 0 {
        return Vec::new();
    }
    let bucket = points.len().div_ceil(max);
    points
        .chunks(bucket)
        .filter_map(|chunk| chunk.iter().copied().max_by_key(|p| p.1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsampling_keeps_peaks_and_the_bound() {
        let points: Vec<(f64, u64)> = (0..10_000u64).map(|i| (i as f64, i % 7)).collect();
        let kept = downsample(&points, MAX_PLOTTED);
        assert!(kept.len() <= MAX_PLOTTED);
        // Buckets of 10 consecutive readings each hold a 6 (the max of i % 7).
        assert!(kept.iter().all(|p| p.1 == 6));
        assert_eq!(downsample(&points[..5], MAX_PLOTTED).len(), 5);
        assert!(downsample(&[], MAX_PLOTTED).is_empty());
    }
    use vramfit_core::estimate;
    use vramfit_core::scenario::{ModelSource, Scenario, TaskKind};

    fn training_scenario() -> Scenario {
        Scenario {
            model: ModelSource::Catalog("meta-llama/Llama-2-7b-hf".into()),
            task: TaskKind::Training,
            ..Scenario::default()
        }
    }

    #[test]
    fn bar_lines_sum_to_device_used() {
        let e = estimate(&training_scenario()).expect("estimates");
        let g = &e.gpus[0];
        let lines = bar_lines(g);
        let total: u64 = lines.iter().map(|l| l.1).sum();
        assert_eq!(total, g.device_used_bytes);
        let allocated: u64 = lines
            .iter()
            .filter(|l| l.2 == Counter::Allocated)
            .map(|l| l.1)
            .sum();
        assert_eq!(allocated, g.peak_allocated_bytes);
    }

    #[test]
    fn compare_rows_cover_both_sides_and_totals() {
        let sc = training_scenario();
        let mut lora = sc.clone();
        lora.training.method = vramfit_core::scenario::Method::Lora;
        let a = estimate(&sc).expect("full");
        let b = estimate(&lora).expect("lora");
        let rows = compare_rows(&a.gpus[0], &b.gpus[0]);
        let last = rows.last().expect("totals");
        assert_eq!(last.key, "total-device-used");
        assert_eq!(
            last.delta(),
            i128::from(b.gpus[0].device_used_bytes) - i128::from(a.gpus[0].device_used_bytes)
        );
        for line in a.gpus[0].lines.iter().chain(&b.gpus[0].lines) {
            assert!(rows.iter().any(|r| r.key == part_key(line.part)));
        }
    }

    #[test]
    fn identical_gpus_are_drawn_once() {
        let mut sc = training_scenario();
        sc.parallel.gpus = 4;
        sc.parallel.strategy = vramfit_core::scenario::Strategy::Ddp;
        let e = estimate(&sc).expect("estimates");
        let groups = distinct_gpus(&e);
        assert_eq!(groups.len(), 1);
        assert_eq!((groups[0].0, groups[0].1), (0, 3));
    }
}
