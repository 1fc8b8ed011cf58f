//! The memory-log analyzer: reads memory readings out of training logs and
//! tells steady runs from leaks, and when a leak will hit the card's limit.
//!
//! A point is any line with a step counter and memory readings with units
//! (`line.rs`: `[train] step 50 | loss 3.087 | mem 30.22 GiB`, DeepSpeed's
//! `MA 12.5 GB  Max_MA 14.8 GB  CA 15.0 GB`, torchtune's
//! `peak_memory_active:20.1`, tqdm and MMEngine progress, `第 10 步 显存占用
//! 17.02 GB`), or a row of a table with a step or time column (`csv.rs`:
//! the companion CSV, Lightning's metrics.csv, nvidia-smi's CSV). Each label
//! is a series; the one growing fastest toward the capacity is analysed
//! (`pick.rs`). How each number became bytes is recorded (`units.rs`).
//! Lines are read once each, by hand-written scanners linear in the text.

mod analyze;
pub mod companion_csv;
mod csv;
pub mod fit;
mod line;
mod parsed;
mod pick;
mod point;
mod units;

use std::collections::HashMap;

pub use analyze::{analyze, Analysis, Cause, Trend};
use csv::CsvHeader;
use line::{read_line, Kind, Step};
pub use parsed::{GpuPick, ParsedLog, Series, XUnit};
pub use pick::{analyze_log, LogAnalysis, Text};
pub use point::Point;
pub use units::{Assumed, UnitReading};

/// The readings of the series the analysis would use without a capacity
/// (see [`analyze_log`]; with fewer than three readings, the longest
/// series), in the order they appear. Nothing found gives an empty list.
pub fn parse_log(text: &str) -> Vec<Point> {
    let mut parsed = parse_log_with(text, GpuPick::Max);
    let index = pick::pick(&parsed, None)
        .map(|choice| choice.index)
        .or_else(|| {
            (0..parsed.series.len())
                .max_by_key(|i| parsed.series.get(*i).map_or(0, |s| s.points.len()))
        });
    index
        .filter(|i| *i < parsed.series.len())
        .map(|i| parsed.series.swap_remove(i).points)
        .unwrap_or_default()
}

/// Every series of `text`, choosing the GPU of a companion CSV and keeping
/// the capacity the log states.
pub fn parse_log_with(text: &str, gpu: GpuPick) -> ParsedLog {
    let mut lines = text.split(['\n', '\r']).filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else {
        return ParsedLog::default();
    };
    if let Some(header) = CsvHeader::read(first) {
        return header.parse_rows(lines, gpu);
    }
    let mut text = FreeText::default();
    text.read(first);
    for line in lines {
        text.read(line);
    }
    text.finish()
}

/// Series gathered from free-text lines, and the step counter carried
/// between them.
#[derive(Default)]
struct FreeText {
    series: Vec<Series>,
    by_name: HashMap<String, usize>,
    /// A step printed on a line without readings (DeepSpeed prints
    /// `step=1248` one line above `MemAllocated=`); used by the reading lines
    /// that follow it, until the next step.
    pending_step: Option<f64>,
    last_x: Option<f64>,
    /// The first epoch of an epoch-restarting progress bar, so x counts
    /// batches from the start of the log.
    first_epoch: Option<f64>,
    any_step: bool,
    capacity: Option<u64>,
    lines: usize,
}

impl FreeText {
    fn read(&mut self, line: &str) {
        self.lines += 1;
        let read = read_line(line);
        let step = read.step.map(|step| match step {
            Step::At(x) => x,
            Step::InEpoch {
                epoch,
                done,
                per_epoch,
            } => (epoch - *self.first_epoch.get_or_insert(epoch)) * per_epoch + done,
        });
        if read.readings.is_empty() {
            if step.is_some() {
                self.pending_step = step;
            }
            return;
        }
        let x = match step.or(self.pending_step) {
            Some(x) => {
                self.any_step = true;
                x
            }
            None => self.last_x.map_or(0.0, |last| last + 1.0),
        };
        self.last_x = Some(x);
        for reading in read.readings {
            self.capacity = self.capacity.or(reading.capacity);
            if reading.kind == Kind::Capacity {
                if !reading.host {
                    self.capacity = self.capacity.or(Some(reading.bytes));
                }
                continue;
            }
            let index = match self.by_name.get(&reading.label) {
                Some(index) => *index,
                None => {
                    self.by_name
                        .insert(reading.label.clone(), self.series.len());
                    self.series.push(Series {
                        name: reading.label.clone(),
                        points: Vec::new(),
                        host: reading.host,
                        units: reading.units,
                    });
                    self.series.len() - 1
                }
            };
            if let Some(series) = self.series.get_mut(index) {
                series.units = series.units.merge(reading.units);
                series.points.push(Point {
                    step: x,
                    bytes: reading.bytes,
                });
            }
        }
    }

    fn finish(self) -> ParsedLog {
        ParsedLog {
            series: self.series,
            capacity_bytes: self.capacity,
            x_unit: if self.any_step {
                XUnit::Step
            } else {
                XUnit::Sample
            },
            lines: self.lines,
        }
    }
}
