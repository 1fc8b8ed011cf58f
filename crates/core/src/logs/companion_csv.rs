//! The CSV `vramfit watch --csv` writes and the log reader (`vramfit logs`,
//! the web's memory-log view) reads: one contract, so it lives beside the
//! reader. One row per GPU per sample, time in seconds since the start.

use crate::decimal::Decimal;
/// The header line, exactly.
pub const HEADER: &str = "time_s,gpu,used_bytes,total_bytes";

/// One row: used memory of one GPU at `time_s` seconds after the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub time_s: f64,
    pub gpu: u32,
    pub used_bytes: u64,
    pub total_bytes: u64,
}

/// The row for `sample`, with milliseconds on the time.
pub fn row(sample: &Sample) -> String {
    format!(
        "{:.3},{},{},{}",
        Decimal(sample.time_s),
        sample.gpu,
        sample.used_bytes,
        sample.total_bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::{parse_log_with, GpuPick};

    #[test]
    fn rows_match_the_header() {
        let line = row(&Sample {
            time_s: 1.23456,
            gpu: 1,
            used_bytes: 42,
            total_bytes: 85899345920,
        });
        assert_eq!(line, "1.235,1,42,85899345920");
        assert_eq!(line.split(',').count(), HEADER.split(',').count());
    }

    /// What the companion writes, the reader reads back: time as the step,
    /// each GPU's bytes, the card's total as the capacity.
    #[test]
    fn the_reader_reads_what_the_writer_writes() {
        let samples = [
            Sample {
                time_s: 0.0,
                gpu: 0,
                used_bytes: 1 << 30,
                total_bytes: 80 << 30,
            },
            Sample {
                time_s: 0.0,
                gpu: 1,
                used_bytes: 3 << 30,
                total_bytes: 80 << 30,
            },
            Sample {
                time_s: 1.5,
                gpu: 0,
                used_bytes: 2 << 30,
                total_bytes: 80 << 30,
            },
            Sample {
                time_s: 1.5,
                gpu: 1,
                used_bytes: 5 << 30,
                total_bytes: 80 << 30,
            },
        ];
        let mut text = format!("{HEADER}\n");
        for s in &samples {
            text.push_str(&row(s));
            text.push('\n');
        }
        let one = parse_log_with(&text, GpuPick::One(1));
        let read: Vec<(f64, u64)> = one.series[0]
            .points
            .iter()
            .map(|p| (p.step, p.bytes))
            .collect();
        assert_eq!(read, [(0.0, 3 << 30), (1.5, 5 << 30)]);
        assert_eq!(one.capacity_bytes, Some(80 << 30));
        let busiest = parse_log_with(&text, GpuPick::Max);
        let read: Vec<u64> = busiest.series[0].points.iter().map(|p| p.bytes).collect();
        assert_eq!(read, [3 << 30, 5 << 30]);
    }
}
