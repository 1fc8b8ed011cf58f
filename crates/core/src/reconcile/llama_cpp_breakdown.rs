//! llama.cpp's memory breakdown table, printed at exit by its tools since
//! late 2025 (`common_memory_breakdown_print`, `common/fit.cpp`), often the
//! only memory lines a default-verbosity log holds:
//!
//! ```text
//! | memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |
//! |   - CUDA0 (H200)       | 143155 = 141399 + (1145 =   762 +     128 +     254) +         611 |
//! |   - Host               |                     217 =   205 +       0 +      12                |
//! ```
//!
//! A GPU row is `total = free + (self = model + context + compute) +
//! unaccounted`, in whole MiB; the host row `self = model + context +
//! compute`. "Context" is the KV cache (and any recurrent state),
//! "unaccounted" what the process holds beside its buffers (the CUDA
//! context, cuBLAS, the backend's pool).

const MIB: f64 = (1u64 << 20) as f64;

/// One device's row, in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRow {
    pub device: String,
    pub model: f64,
    pub context: f64,
    pub compute: f64,
    /// GPU rows only: what the process holds beside its buffers.
    pub unaccounted: Option<f64>,
}

impl DeviceRow {
    /// The buffers and, on a GPU, the rest of the process: what this
    /// process holds on the device.
    pub fn process(&self) -> f64 {
        self.model + self.context + self.compute + self.unaccounted.unwrap_or(0.0)
    }
}

/// The table's rows: the GPUs in order, then the host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Breakdown {
    pub gpus: Vec<DeviceRow>,
    pub host: Option<DeviceRow>,
    /// The rows as printed, for the comparison's source line.
    pub lines: Vec<String>,
}

impl Breakdown {
    /// The GPU holding the most buffers.
    pub fn busiest(&self) -> Option<&DeviceRow> {
        self.gpus.iter().max_by(|a, b| {
            (a.model + a.context + a.compute).total_cmp(&(b.model + b.context + b.compute))
        })
    }

    /// Reads one line into the table; false when it is not a row of it.
    pub fn read_line(&mut self, line: &str) -> bool {
        let Some(at) = line.find("| - ").or_else(|| line.find("|   - ")) else {
            return false;
        };
        let row = &line[at..];
        let mut cells = row.split('|').map(str::trim).filter(|c| !c.is_empty());
        let (Some(name), Some(numbers)) = (cells.next(), cells.next()) else {
            return false;
        };
        let name = name.trim_start_matches('-').trim();
        let device = name.split([' ', '(']).next().unwrap_or("").to_owned();
        let values: Vec<f64> = numbers
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .filter(|t| !t.is_empty() && *t != "-")
            .filter_map(|t| t.parse::<f64>().ok())
            .collect();
        let parsed = match values.as_slice() {
            // total = free + (self = model + context + compute) + unaccounted
            [_total, _free, _self, model, context, compute, unaccounted] => DeviceRow {
                device,
                model: model * MIB,
                context: context * MIB,
                compute: compute * MIB,
                unaccounted: Some(unaccounted * MIB),
            },
            // self = model + context + compute (the host)
            [_self, model, context, compute] => DeviceRow {
                device,
                model: model * MIB,
                context: context * MIB,
                compute: compute * MIB,
                unaccounted: None,
            },
            _ => return false,
        };
        // Buffers are never negative; what is unaccounted can print so (a
        // driver that reports more free memory than the process left).
        if [parsed.model, parsed.context, parsed.compute]
            .iter()
            .any(|v| !v.is_finite() || *v < 0.0)
        {
            return false;
        }
        let parsed = DeviceRow {
            unaccounted: parsed.unaccounted.map(|u| u.max(0.0)),
            ..parsed
        };
        if parsed.unaccounted.is_some() {
            self.gpus.push(parsed);
        } else if name.eq_ignore_ascii_case("host") || name.starts_with("Host") {
            self.host = Some(parsed);
        } else {
            return false;
        }
        self.lines.push(line.trim().to_owned());
        true
    }

    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty() && self.host.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_row_and_the_host_row_are_read_in_bytes() {
        let mut b = Breakdown::default();
        assert!(b.read_line("0.00.769.050 I common_memory_breakdown_print: |   - CUDA0 (H200)       | 143155 = 141399 + (1145 =   762 +     128 +     254) +         611 |"));
        assert!(b.read_line("0.00.769.050 I common_memory_breakdown_print: |   - Host               |                     217 =   205 +       0 +      12                |"));
        assert!(!b.read_line("common_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   model   context   compute    unaccounted |"));
        let gpu = b.busiest().expect("a GPU");
        assert_eq!(gpu.device, "CUDA0");
        assert_eq!(gpu.model, 762.0 * MIB);
        assert_eq!(gpu.context, 128.0 * MIB);
        assert_eq!(gpu.compute, 254.0 * MIB);
        assert_eq!(gpu.process(), (762.0 + 128.0 + 254.0 + 611.0) * MIB);
        let host = b.host.as_ref().expect("the host");
        assert_eq!((host.model, host.compute), (205.0 * MIB, 12.0 * MIB));
    }

    #[test]
    fn other_tables_are_not_rows() {
        let mut b = Breakdown::default();
        for line in [
            "| NVIDIA-SMI 550.54 | Driver Version: 550.54 |",
            "| - a | b |",
            "|   - CUDA0 (RTX) | 1 = 2 |",
        ] {
            assert!(!b.read_line(line), "{line}");
        }
        assert!(b.is_empty());
    }
}
