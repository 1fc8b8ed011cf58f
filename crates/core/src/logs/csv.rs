//! Logs that are tables: a header naming an x column (a step, a time or
//! timestamp, or none: the row index) and memory columns, one series each.
//! Reads the companion's `time_s,gpu,used_bytes,total_bytes`, Lightning's
//! `DeviceStatsMonitor` metrics.csv (`…/allocated_bytes.all.current`,
//! sparse rows), nvidia-smi's `--query-gpu=timestamp,memory.used,memory.total
//! --format=csv` (`30210 MiB` cells) and any `step,memory_gb` table.

use super::parsed::{GpuPick, ParsedLog, Series, XUnit};
use super::point::Point;
use super::units::{LineUnits, UnitReading};
use crate::doctor::size::{read_number, unit_multiplier, GbMeaning};

/// Names of a step column (a column may also end in `/step`).
const STEP_NAMES: [&str; 5] = ["step", "global_step", "steps", "iter", "iteration"];
/// Names that start a time column (`time_s`, `timestamp`, `time`).
const TIME_PREFIXES: [&str; 2] = ["time", "elapsed"];
/// Words of a memory column (a unit word counts too).
const MEMORY_WORDS: [&str; 8] = [
    "mem",
    "memory",
    "vram",
    "used",
    "allocated",
    "reserved",
    "bytes",
    "显存",
];
/// Words of columns that are not memory in use: counts, rates, limits.
const NOT_MEMORY_WORDS: [&str; 9] = [
    "total",
    "free",
    "util",
    "utilization",
    "percent",
    "num",
    "count",
    "retries",
    "clocks",
];
/// Names of a GPU-index column.
const GPU_NAMES: [&str; 4] = ["gpu", "gpu_index", "device", "index"];

#[derive(Clone, Copy, PartialEq)]
enum XColumn {
    Step(usize),
    Time(usize),
    /// No x column: the row index.
    Row,
}

/// Columns of a CSV header.
pub struct CsvHeader {
    separator: char,
    x: XColumn,
    gpu: Option<usize>,
    total: Option<(usize, String)>,
    memory: Vec<(usize, String)>,
}

fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

impl CsvHeader {
    /// A header is a line of at least two names, none a number, at least one
    /// naming memory.
    pub fn read(line: &str) -> Option<Self> {
        let separator = if line.contains(',') {
            ','
        } else if line.contains('\t') {
            '\t'
        } else {
            return None;
        };
        let names: Vec<String> = line
            .split(separator)
            .map(|n| n.trim().trim_matches('"').to_lowercase())
            .collect();
        // a name is a word, not a value: `step 100: loss=2.34, memory=18.2gb` is a line of text
        let not_a_name = |n: &String| {
            n.is_empty()
                || n.starts_with(|c: char| c.is_ascii_digit())
                || n.contains(['=', ':', '{', '}', '\''])
        };
        if names.len() < 2 || names.iter().any(not_a_name) {
            return None;
        }
        let bare = |n: &str| n.split([' ', '[', '(']).next().unwrap_or("").to_string();
        let step = names.iter().position(|n| {
            let b = bare(n);
            STEP_NAMES.contains(&b.as_str()) || b.ends_with("/step")
        });
        let time = names
            .iter()
            .position(|n| TIME_PREFIXES.iter().any(|p| n.starts_with(p)));
        let epoch = names.iter().position(|n| bare(n) == "epoch");
        let x = match (step, time, epoch) {
            (Some(i), _, _) => XColumn::Step(i),
            (None, Some(i), _) => XColumn::Time(i),
            (None, None, Some(i)) => XColumn::Step(i),
            (None, None, None) => XColumn::Row,
        };
        let is_memory = |n: &str| {
            let named = words(n).any(|w| {
                MEMORY_WORDS.contains(&w)
                    || unit_multiplier(w, GbMeaning::Decimal).is_some() && w.len() >= 2
            });
            named && !words(n).any(|w| NOT_MEMORY_WORDS.contains(&w))
        };
        let x_index = match x {
            XColumn::Step(i) | XColumn::Time(i) => Some(i),
            XColumn::Row => None,
        };
        let gpu = names
            .iter()
            .position(|n| GPU_NAMES.contains(&bare(n).as_str()));
        let memory: Vec<(usize, String)> = names
            .iter()
            .enumerate()
            .filter(|(i, n)| Some(*i) != x_index && Some(*i) != gpu && is_memory(n))
            .map(|(i, n)| (i, n.clone()))
            .collect();
        if memory.is_empty() {
            return None;
        }
        let total = names
            .iter()
            .enumerate()
            .find(|(_, n)| words(n).any(|w| w == "total"))
            .map(|(i, n)| (i, n.clone()));
        Some(Self {
            separator,
            x,
            gpu,
            total,
            memory,
        })
    }

    pub fn parse_rows<'a>(&self, lines: impl Iterator<Item = &'a str>, pick: GpuPick) -> ParsedLog {
        let units = LineUnits::of("");
        let mut series: Vec<Series> = self
            .memory
            .iter()
            .map(|(_, name)| Series {
                name: name.clone(),
                points: Vec::new(),
                host: false,
                units: UnitReading::EXPLICIT,
            })
            .collect();
        let mut capacity: Option<u64> = None;
        let mut first_time: Option<f64> = None;
        let mut lines_read = 1;
        for (row, line) in lines.enumerate() {
            lines_read += 1;
            let cells: Vec<&str> = line
                .split(self.separator)
                .map(|c| c.trim().trim_matches('"'))
                .collect();
            let cell = |i: usize| cells.get(i).copied().unwrap_or("");
            let x = match self.x {
                XColumn::Step(i) => plain_number(cell(i)),
                XColumn::Time(i) => plain_number(cell(i))
                    .or_else(|| timestamp_seconds(cell(i)))
                    .map(|t| t - *first_time.get_or_insert(t)),
                XColumn::Row => Some(row as f64),
            };
            let Some(x) = x else { continue };
            let gpu = self.gpu.and_then(|i| plain_number(cell(i)));
            if let (GpuPick::One(wanted), Some(gpu)) = (pick, gpu) {
                if gpu != f64::from(wanted) {
                    continue;
                }
            }
            if let Some((i, name)) = &self.total {
                if let Some((bytes, _)) = cell_bytes(cell(*i), name, &units) {
                    capacity = Some(capacity.unwrap_or(0).max(bytes));
                }
            }
            for ((i, name), series) in self.memory.iter().zip(series.iter_mut()) {
                let Some((bytes, reading)) = cell_bytes(cell(*i), name, &units) else {
                    continue;
                };
                series.units = series.units.merge(reading);
                // several GPUs at the same time: keep the largest reading
                match series.points.last_mut() {
                    Some(last) if self.gpu.is_some() && last.step == x => {
                        last.bytes = last.bytes.max(bytes)
                    }
                    _ => series.points.push(Point { step: x, bytes }),
                }
            }
        }
        series.retain(|s| !s.points.is_empty());
        ParsedLog {
            series,
            capacity_bytes: capacity,
            x_unit: match self.x {
                XColumn::Step(_) => XUnit::Step,
                XColumn::Time(_) => XUnit::Seconds,
                XColumn::Row => XUnit::Sample,
            },
            lines: lines_read,
        }
    }
}

/// A cell that is only a number (`1200`, `3.5`, `1e9`).
fn plain_number(cell: &str) -> Option<f64> {
    cell.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Bytes of a memory cell: `30210 MiB`, or a number in the column's unit.
fn cell_bytes(cell: &str, column: &str, units: &LineUnits) -> Option<(u64, UnitReading)> {
    if let Some(value) = plain_number(cell) {
        return Some(units.bytes(value, 0, "", column));
    }
    let (value, decimals, end) = read_number(cell.as_bytes(), 0)?;
    let unit = cell.get(end..)?.trim();
    unit_multiplier(unit, GbMeaning::Binary)?;
    Some(units.bytes(value, decimals, unit, column))
}

/// Seconds since 1970 of `2024/05/01 12:00:00.123`, `2024-05-01 12:00:00`
/// or `2024-05-01T12:00:00` (nvidia-smi's and ISO timestamps).
fn timestamp_seconds(cell: &str) -> Option<f64> {
    let mut parts = cell.splitn(2, [' ', 'T']);
    let date = parts.next()?;
    let time = parts.next()?.trim_end_matches('Z');
    let mut ymd = date.split(['/', '-']).map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (ymd.next()??, ymd.next()??, ymd.next()??);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut hms = time.split(':');
    let hours: f64 = hms.next()?.parse().ok()?;
    let minutes: f64 = hms.next()?.parse().ok()?;
    let seconds: f64 = hms.next().unwrap_or("0").parse().ok()?;
    let days = days_from_civil(year, month, day);
    Some(days as f64 * 86_400.0 + hours * 3600.0 + minutes * 60.0 + seconds)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_to_seconds() {
        // 2000-03-01 is day 11017 after 1970-01-01
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        let a = timestamp_seconds("2024/05/01 12:00:00.500").expect("nvidia-smi form");
        let b = timestamp_seconds("2024-05-02T12:00:01").expect("ISO form");
        assert_eq!(b - a, 86_400.5);
        assert_eq!(timestamp_seconds("2024/13/01 12:00:00"), None);
        assert_eq!(timestamp_seconds("hello"), None);
    }
}
