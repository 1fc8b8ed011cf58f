//! What a memory number in a log means in bytes, and which assumption that
//! took. `GiB`/`MiB` are powers of 1024 and say so; `GB`/`MB`/`G`/`M` are
//! ambiguous (scripts print `bytes / 1e9` and `bytes / 2**30` under the same
//! label): they are read as the tool that printed them does when the line's
//! shape names the tool, else as decimal. A number without a unit takes the
//! unit of its key (`mem_gb`, `memory(GiB)`), of its line (`memory (MB) |`),
//! of its tool, or else of its magnitude.

use serde::Serialize;

use crate::doctor::size::{to_size, unit_multiplier, GbMeaning};

/// How the readings of a series were turned into bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Assumed {
    /// Every reading carried an unambiguous unit (GiB, MiB, bytes).
    Explicit,
    /// `GB`/`MB` read as 10^9 / 10^6 bytes: no tool identified.
    Decimal,
    /// `GB`/`MB` read as GiB / MiB because the tool divides by 2^30.
    Binary,
    /// Numbers without a unit: the tool's unit, or else their magnitude.
    Bare,
}

impl Assumed {
    /// Which assumption a series reports: the least certain of its readings.
    fn rank(self) -> u8 {
        match self {
            Assumed::Explicit => 0,
            Assumed::Binary => 1,
            Assumed::Bare => 2,
            Assumed::Decimal => 3,
        }
    }
}

/// The assumption and the tool that justified it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct UnitReading {
    pub assumed: Assumed,
    /// The tool identified by the line's shape (`DeepSpeed`, `torchtune`).
    pub tool: Option<&'static str>,
}

impl UnitReading {
    pub const EXPLICIT: UnitReading = UnitReading {
        assumed: Assumed::Explicit,
        tool: None,
    };

    /// The less certain of two readings' assumptions.
    pub fn merge(self, other: UnitReading) -> UnitReading {
        if other.assumed.rank() > self.assumed.rank() {
            other
        } else {
            self
        }
    }

    /// The assumption in English and Chinese, for the views.
    pub fn describe(self) -> (String, String) {
        let tool = self.tool.unwrap_or("the tool");
        match self.assumed {
            Assumed::Explicit => (
                "units as printed (GiB and MiB are powers of 1024)".into(),
                "单位按原样读取（GiB、MiB 为 1024 进制）".into(),
            ),
            Assumed::Decimal => (
                "GB/MB read as 10^9/10^6 bytes: nothing in the log names a tool that divides by \
                 2^30. If your script prints bytes / 1024**3, the readings are 7.4% higher in bytes."
                    .into(),
                "GB/MB 按 10^9/10^6 字节读取：日志中没有可识别的按 2^30 换算的工具。若你的脚本打印的是 \
                 bytes / 1024**3，实际字节数要高 7.4%。"
                    .into(),
            ),
            Assumed::Binary => (
                format!("GB/MB read as GiB/MiB: {tool} divides by 2^30"),
                format!("GB/MB 按 GiB/MiB 读取：{tool} 按 2^30 换算"),
            ),
            Assumed::Bare => match self.tool {
                Some(tool) => (
                    format!("numbers without a unit read in {tool}'s unit"),
                    format!("无单位的数字按 {tool} 的单位读取"),
                ),
                None => (
                    "numbers without a unit read by magnitude: below 1024 as GiB, below 10^7 as \
                     MiB, larger as bytes"
                        .into(),
                    "无单位的数字按大小推断：小于 1024 视为 GiB，小于 10^7 视为 MiB，更大视为字节".into(),
                ),
            },
        }
    }
}

/// A tool recognised by a marker in the line (lowercase), with the base of
/// its `GB`/`MB` and the unit of its bare numbers.
struct Tool {
    name: &'static str,
    marker: &'static str,
    gb: GbMeaning,
    /// Multiplier of a number printed without a unit.
    bare: Option<f64>,
}

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = MIB * 1024.0;

/// Sources: DeepSpeed `runtime/utils.py` `see_memory_usage` and `utils/timer.py`
/// (`memory_allocated() / (1024 * 1024 * 1024)` printed as `GB`); Megatron-LM
/// `training/utils.py` `report_memory` (`/ mega_bytes`, 1024 * 1024, printed
/// `memory (MB) | allocated: … | max allocated: …`); MMEngine's logger (`max_memory_allocated() / (1024 * 1024)`
/// printed bare after `memory:` beside `data_time`); torchtune's
/// `get_memory_stats` (`/ 2**30`, printed bare as `peak_memory_active:`).
const TOOLS: [Tool; 6] = [
    Tool {
        name: "DeepSpeed",
        marker: "see_memory_usage",
        gb: GbMeaning::Binary,
        bare: None,
    },
    Tool {
        name: "DeepSpeed",
        marker: "max_ma ",
        gb: GbMeaning::Binary,
        bare: None,
    },
    Tool {
        name: "DeepSpeed",
        marker: "memallocated=",
        gb: GbMeaning::Binary,
        bare: None,
    },
    Tool {
        name: "Megatron-LM",
        marker: "| max allocated:",
        gb: GbMeaning::Binary,
        bare: Some(MIB),
    },
    Tool {
        name: "MMEngine",
        marker: "data_time",
        gb: GbMeaning::Binary,
        bare: Some(MIB),
    },
    Tool {
        name: "torchtune",
        marker: "peak_memory_",
        gb: GbMeaning::Binary,
        bare: Some(GIB),
    },
];

/// How the numbers of one line are read.
#[derive(Clone, Copy)]
pub struct LineUnits<'a> {
    tool: Option<&'static Tool>,
    /// `memory (MB) |`: the unit a line declares for its bare numbers.
    declared: Option<&'a str>,
}

impl<'a> LineUnits<'a> {
    /// The units of `lower` (one lowercase line).
    pub fn of(lower: &'a str) -> Self {
        LineUnits {
            tool: TOOLS.iter().find(|tool| lower.contains(tool.marker)),
            declared: declared_unit(lower),
        }
    }

    /// Bytes of `value` printed with `unit` (empty for none) after `key`. A
    /// number without a unit takes its key's unit (`mem_gb`), else the
    /// line's (`memory (MB) |`), else its tool's, else its magnitude's.
    pub fn bytes(&self, value: f64, decimals: u32, unit: &str, key: &str) -> (u64, UnitReading) {
        let tool_name = self.tool.map(|t| t.name);
        let unit = Some(unit)
            .filter(|u| !u.is_empty())
            .or_else(|| unit_in_name(key))
            .or(self.declared);
        let Some(unit) = unit else {
            let (multiplier, tool) = match self.tool.and_then(|t| t.bare) {
                Some(bare) => (bare, tool_name),
                None => (magnitude_unit(value), None),
            };
            let reading = UnitReading {
                assumed: Assumed::Bare,
                tool,
            };
            return (to_size(value, decimals, multiplier).bytes, reading);
        };
        let ambiguous = is_ambiguous(unit);
        let (gb, reading) = match (ambiguous, self.tool) {
            (false, _) => (GbMeaning::Binary, UnitReading::EXPLICIT),
            (true, Some(tool)) => (
                tool.gb,
                UnitReading {
                    assumed: Assumed::Binary,
                    tool: tool_name,
                },
            ),
            (true, None) => (
                GbMeaning::Decimal,
                UnitReading {
                    assumed: Assumed::Decimal,
                    tool: None,
                },
            ),
        };
        let multiplier = unit_multiplier(unit, gb).unwrap_or(1.0);
        (to_size(value, decimals, multiplier).bytes, reading)
    }
}

/// `GB`, `MB`, `G`, `M`, `KB`, `K`, `TB`, `T`: the base is not printed.
pub fn is_ambiguous(unit: &str) -> bool {
    let lower = unit.to_ascii_lowercase();
    !lower.contains('i') && !lower.starts_with('b')
}

/// A unit word in a key or column name (`mem_gb`, `memory(GiB)`,
/// `memory.used [MiB]`, `used_bytes`).
pub fn unit_in_name(name: &str) -> Option<&str> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .rfind(|w| w.len() >= 2 && unit_multiplier(w, GbMeaning::Decimal).is_some())
}

/// `(mb)` / `(gib)` standing alone in a line: the unit of its bare numbers.
fn declared_unit(lower: &str) -> Option<&str> {
    let open = lower.find(" (")? + 2;
    let close = lower.get(open..)?.find(')')? + open;
    let word = lower.get(open..close)?;
    (word.len() <= 3 && unit_multiplier(word, GbMeaning::Binary).is_some()).then_some(word)
}

/// A bare memory number with no unit anywhere. A training run holds between
/// ~1 MiB and a few TiB, so: below 1024 it must be GiB, below 10^7 MiB (10
/// TiB), anything larger bytes.
fn magnitude_unit(value: f64) -> f64 {
    if value < 1024.0 {
        GIB
    } else if value < 1e7 {
        MIB
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_gb_read_by_tool_or_as_decimal() {
        let deepspeed = LineUnits::of("[utils.py:832:see_memory_usage] ma 0.13 gb");
        let (bytes, reading) = deepspeed.bytes(12.5, 1, "GB", "ma");
        // 12.5 × 2^30
        assert_eq!(bytes, 13_421_772_800);
        assert_eq!(reading.assumed, Assumed::Binary);
        assert_eq!(reading.tool, Some("DeepSpeed"));
        let plain = LineUnits::of("step 100: memory=12.5gb");
        assert_eq!(
            plain.bytes(12.5, 1, "GB", "memory"),
            (
                12_500_000_000,
                UnitReading {
                    assumed: Assumed::Decimal,
                    tool: None
                }
            )
        );
        assert_eq!(
            plain.bytes(12.5, 1, "GiB", "memory").1,
            UnitReading::EXPLICIT
        );
    }

    #[test]
    fn bare_numbers_by_key_line_tool_or_magnitude() {
        let none = LineUnits::of("x");
        // the key's unit: `memory(gib)` is 2^30, `mem_gb` 10^9 (no tool named)
        assert_eq!(none.bytes(2.0, 0, "", "memory(gib)").0, 2 << 30);
        assert_eq!(none.bytes(2.0, 0, "", "mem_gb").0, 2_000_000_000);
        // MMEngine prints MiB bare: 800 MiB, though below 1024
        let mm =
            LineUnits::of("epoch [1][50/100] lr: 0.02, time: 0.5, data_time: 0.05, memory: 800");
        assert_eq!(mm.bytes(800.0, 0, "", "memory").0, 800 << 20);
        // Megatron declares `(MB)` for the line: binary
        let megatron = LineUnits::of(
            "(after 10 iterations) memory (mb) | allocated: 7012.5 | max allocated: 9000.0",
        );
        assert_eq!(
            megatron.bytes(7012.5, 1, "", "allocated").0,
            (7012.5 * MIB) as u64
        );
        // magnitude: 20.1 → GiB
        assert_eq!(none.bytes(20.0, 0, "", "peak").0, 20 << 30);
    }
}
