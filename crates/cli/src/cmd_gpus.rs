//! `vramfit gpus`: the GPUs on this machine, their memory and who holds it,
//! each matched to the catalog entry the estimator uses.

use std::io::Write;
use std::process::ExitCode;

use vramfit_core::inventory::Inventory;

use crate::gpu::{open_source, used_percent, DeviceInfo, GpuProcess};
use crate::output::{fail, gib};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON: an array of devices, byte counts as integers, unknown fields null.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let devices = match open_source().and_then(|source| source.devices()) {
        Ok(devices) => devices,
        Err(error) => return fail(error),
    };
    let inventory = Inventory::new(devices);
    let text = if args.json {
        match serde_json::to_string_pretty(&inventory) {
            Ok(json) => json + "\n",
            Err(error) => return fail(format!("cannot write JSON: {error}")),
        }
    } else {
        render_table(&inventory)
    };
    emit(&text)
}

/// Writes to stdout; a closed pipe (`vramfit gpus | head -1`) is not an error.
fn emit(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => fail(format!("cannot write to stdout: {error}")),
    }
}

const UNKNOWN: &str = "unknown";

fn or_unknown(value: Option<&str>) -> &str {
    value.unwrap_or(UNKNOWN)
}

fn memory_cell(device: &DeviceInfo) -> String {
    match (device.memory_used_bytes, device.memory_total_bytes) {
        (Some(used), Some(total)) => {
            let percent = used_percent(used, total).unwrap_or(0.0);
            format!("{} / {} ({percent:.0}%)", gib(used), gib(total))
        }
        (None, Some(total)) => format!("{UNKNOWN} / {}", gib(total)),
        _ => UNKNOWN.to_string(),
    }
}

fn mig_cell(device: &DeviceInfo) -> String {
    let word = |on: bool| if on { "on" } else { "off" };
    match (device.mig_enabled, device.mig_enabled_pending) {
        (Some(now), Some(pending)) if now != pending => {
            format!("{} ({} after reset)", word(now), word(pending))
        }
        (Some(now), _) => word(now).to_string(),
        (None, _) => "n/a".to_string(),
    }
}

fn process_line(process: &GpuProcess) -> String {
    let used = process.used_bytes.map(gib);
    format!(
        "      pid {:<8} {:<24} {}",
        process.pid,
        or_unknown(process.name.as_deref()),
        or_unknown(used.as_deref())
    )
}

/// The table: a driver line, one row per GPU, then its UUID and processes.
fn render_table(inventory: &Inventory) -> String {
    let first = inventory.gpus.first().map(|gpu| &gpu.device);
    let driver = or_unknown(first.and_then(|d| d.driver_version.as_deref()));
    let cuda = or_unknown(first.and_then(|d| d.cuda_driver_version.as_deref()));
    let header = ["GPU", "NAME", "CATALOG", "MEMORY USED / TOTAL", "CC", "MIG"];
    let rows: Vec<[String; 6]> = inventory
        .gpus
        .iter()
        .enumerate()
        .map(|(position, gpu)| {
            let device = &gpu.device;
            [
                device.index.unwrap_or(position as u32).to_string(),
                or_unknown(device.name.as_deref()).to_string(),
                gpu.catalog_id.as_deref().unwrap_or("-").to_string(),
                memory_cell(device),
                or_unknown(device.compute_capability.as_deref()).to_string(),
                mig_cell(device),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let mut text = format!("NVIDIA driver {driver}, CUDA {cuda}\n");
    text += &line(&header);
    for (row, gpu) in rows.iter().zip(&inventory.gpus) {
        let device = &gpu.device;
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        text += &line(&cells);
        text += &format!("      uuid {}\n", or_unknown(device.uuid.as_deref()));
        match &device.processes {
            None => text += "      processes: unknown (not readable on this GPU)\n",
            Some(processes) if processes.is_empty() => text += "      processes: none\n",
            Some(processes) => {
                for process in processes {
                    text += &process_line(process);
                    text += "\n";
                }
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mig_cell_says_pending_changes() {
        let mut device = DeviceInfo::default();
        assert_eq!(mig_cell(&device), "n/a");
        device.mig_enabled = Some(false);
        device.mig_enabled_pending = Some(true);
        assert_eq!(mig_cell(&device), "off (on after reset)");
        device.mig_enabled = Some(true);
        assert_eq!(mig_cell(&device), "on");
    }

    #[test]
    fn memory_cell_with_unknown_parts() {
        let mut device = DeviceInfo::default();
        assert_eq!(memory_cell(&device), "unknown");
        // 80 GiB total; 20 GiB used is 25%.
        device.memory_total_bytes = Some(80 << 30);
        assert_eq!(memory_cell(&device), "unknown / 80.00 GiB");
        device.memory_used_bytes = Some(20 << 30);
        assert_eq!(memory_cell(&device), "20.00 GiB / 80.00 GiB (25%)");
    }
}
