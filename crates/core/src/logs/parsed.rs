//! What a log held: its series, the x axis and the capacity it states.

use serde::Serialize;

use super::point::Point;
use super::units::UnitReading;

/// The readings of one label (`MA`, `max allocated`, `memory.used [MiB]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
    /// Host RAM (`CPU Virtual Memory`, `rss`), not the GPU.
    pub host: bool,
    /// How its numbers became bytes.
    pub units: UnitReading,
}

/// What the x axis counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XUnit {
    /// A step counter printed in the log.
    #[default]
    Step,
    /// No step printed: the index of the reading.
    Sample,
    /// A time column (the companion's `time_s`, nvidia-smi's timestamp).
    Seconds,
}

impl XUnit {
    pub fn name(self) -> &'static str {
        match self {
            XUnit::Step => "step",
            XUnit::Sample => "sample",
            XUnit::Seconds => "second",
        }
    }

    pub fn name_zh(self) -> &'static str {
        match self {
            XUnit::Step => "步",
            XUnit::Sample => "条读数",
            XUnit::Seconds => "秒",
        }
    }
}

/// Everything a log held.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ParsedLog {
    /// One per label, in the order first seen.
    pub series: Vec<Series>,
    /// The card's capacity when the log states it (companion CSV
    /// `total_bytes`, nvidia-smi `memory.total`, torchtitan's `(48.20%)`).
    pub capacity_bytes: Option<u64>,
    pub x_unit: XUnit,
    /// Lines read, each once.
    pub lines: usize,
}

/// Which GPU to read from the companion's multi-GPU CSV.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuPick {
    /// The largest reading across GPUs at each time: the one that will OOM first.
    #[default]
    Max,
    One(u32),
}
