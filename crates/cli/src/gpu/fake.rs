//! Test hook: a `GpuSource` read from a JSON fixture instead of NVML, selected
//! with `VRAMFIT_FAKE_NVML=path.json`. The format is described in
//! `crates/cli/tests/data/README.md`.

use std::cell::Cell;
use std::path::Path;

use nvml_wrapper::error::NvmlError;
use serde::Deserialize;

use super::{DeviceInfo, GpuSource, MemoryReading, SourceError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    /// Where the values come from; not read by the code.
    #[allow(dead_code)]
    provenance: String,
    /// NVML's error name when initialization fails on that machine.
    #[serde(default)]
    init_error: Option<String>,
    #[serde(default)]
    devices: Vec<DeviceInfo>,
    /// Used bytes of each device (in `devices` order), one row per sample;
    /// the last row repeats once they run out.
    #[serde(default)]
    used_samples: Vec<Vec<Option<u64>>>,
}

pub struct FakeSource {
    devices: Vec<DeviceInfo>,
    used_samples: Vec<Vec<Option<u64>>>,
    next_sample: Cell<usize>,
}

/// The NVML errors a fixture may name, as nvml-wrapper spells them, so that
/// fixtures go through the same mapping as real NVML failures.
fn nvml_error_named(name: &str) -> Option<NvmlError> {
    Some(match name {
        "LibraryNotFound" => NvmlError::LibraryNotFound,
        "DriverNotLoaded" => NvmlError::DriverNotLoaded,
        "NoPermission" => NvmlError::NoPermission,
        "LibRmVersionMismatch" => NvmlError::LibRmVersionMismatch,
        "GpuLost" => NvmlError::GpuLost,
        "Unknown" => NvmlError::Unknown,
        _ => return None,
    })
}

impl FakeSource {
    pub fn load(path: &Path) -> Result<Self, SourceError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SourceError::Fixture(format!("cannot read {}: {e}", path.display())))?;
        let fixture: Fixture = serde_json::from_str(&text)
            .map_err(|e| SourceError::Fixture(format!("{}: {e}", path.display())))?;
        if let Some(name) = fixture.init_error {
            let error = nvml_error_named(&name).ok_or_else(|| {
                SourceError::Fixture(format!(
                    "init_error {name:?} is not one of LibraryNotFound, DriverNotLoaded, \
                     NoPermission, LibRmVersionMismatch, GpuLost, Unknown"
                ))
            })?;
            return Err(error.into());
        }
        let device_count = fixture.devices.len();
        if let Some((row, values)) = fixture
            .used_samples
            .iter()
            .enumerate()
            .find(|(_, values)| values.len() != device_count)
        {
            return Err(SourceError::Fixture(format!(
                "used_samples[{row}] has {} values for {device_count} devices",
                values.len()
            )));
        }
        Ok(Self {
            devices: fixture.devices,
            used_samples: fixture.used_samples,
            next_sample: Cell::new(0),
        })
    }
}

impl GpuSource for FakeSource {
    fn devices(&self) -> Result<Vec<DeviceInfo>, SourceError> {
        if self.devices.is_empty() {
            return Err(SourceError::NoDevices);
        }
        Ok(self.devices.clone())
    }

    fn sample_used(&self) -> Result<Vec<MemoryReading>, SourceError> {
        let devices = self.devices()?;
        let step = self.next_sample.get();
        self.next_sample.set(step.saturating_add(1));
        let row = self
            .used_samples
            .get(step)
            .or_else(|| self.used_samples.last());
        let mut readings = Vec::new();
        for (position, device) in devices.iter().enumerate() {
            let used = match row {
                Some(row) => row.get(position).copied().flatten(),
                None => device.memory_used_bytes,
            };
            let gpu = device.index.unwrap_or(position as u32);
            if let (Some(used_bytes), Some(total_bytes)) = (used, device.memory_total_bytes) {
                readings.push(MemoryReading {
                    gpu,
                    used_bytes,
                    total_bytes,
                });
            }
        }
        if readings.is_empty() {
            return Err(SourceError::Nvml(
                "the memory of no GPU could be read".into(),
            ));
        }
        Ok(readings)
    }
}
