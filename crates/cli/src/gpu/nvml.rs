//! `GpuSource` on NVML. nvml-wrapper loads libnvidia-ml.so.1 (Windows:
//! nvml.dll) at run time, so the binary builds and starts on machines without
//! a GPU; there `init` fails with `SourceError::NoLibrary`.

use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::struct_wrappers::device::ProcessInfo;
use nvml_wrapper::{Device, Nvml};

use super::{DeviceInfo, GpuProcess, GpuSource, MemoryReading, SourceError};

/// NVML's own bound on a process name buffer (`NVML_..._PROCESS_NAME` is not
/// exported; nvidia-smi truncates names well below this).
const PROCESS_NAME_MAX: usize = 256;

/// `nvmlDeviceGetMigMode` reports `NVML_DEVICE_MIG_ENABLE` (1) when MIG is on
/// (nvml.h).
const NVML_DEVICE_MIG_ENABLE: u32 = 1;

/// NVML, initialized once for the life of the command.
pub struct NvmlSource {
    nvml: Nvml,
}

/// The library nvml-wrapper loads by name.
#[cfg(windows)]
pub const LIBRARY: &str = "nvml.dll";
#[cfg(not(windows))]
pub const LIBRARY: &str = "libnvidia-ml.so.1";

/// NVML by name, through the loader's search path.
#[cfg(not(windows))]
fn open() -> Result<Nvml, NvmlError> {
    Nvml::init()
}

/// NVML by name (the search path includes System32, where current drivers
/// put nvml.dll), then from where drivers install it: `%SystemRoot%\System32`
/// and, for older drivers, `NVIDIA Corporation\NVSMI` under Program Files,
/// which is not on the search path.
#[cfg(windows)]
fn open() -> Result<Nvml, NvmlError> {
    match Nvml::init() {
        Err(first @ NvmlError::LibloadingError(_)) => {
            for path in nvml_dll_candidates(|name| std::env::var_os(name)) {
                if let Ok(nvml) = Nvml::builder().lib_path(path.as_os_str()).init() {
                    return Ok(nvml);
                }
            }
            Err(first)
        }
        other => other,
    }
}

/// Where Windows drivers install nvml.dll, from the environment's folders.
#[cfg(any(windows, test))]
fn nvml_dll_candidates(
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<std::path::PathBuf> {
    use std::path::PathBuf;
    let mut paths = Vec::new();
    if let Some(root) = env("SystemRoot") {
        paths.push(PathBuf::from(root).join("System32").join("nvml.dll"));
    }
    for folder in ["ProgramW6432", "ProgramFiles"] {
        if let Some(dir) = env(folder) {
            let path = PathBuf::from(dir)
                .join("NVIDIA Corporation")
                .join("NVSMI")
                .join("nvml.dll");
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

impl NvmlSource {
    pub fn init() -> Result<Self, SourceError> {
        Ok(Self { nvml: open()? })
    }

    fn device_count(&self) -> Result<u32, SourceError> {
        let count = self.nvml.device_count()?;
        if count == 0 {
            return Err(SourceError::NoDevices);
        }
        Ok(count)
    }

    /// Every field read on its own: one unsupported query leaves one `None`.
    fn describe(&self, index: u32, device: &Device<'_>) -> DeviceInfo {
        let mut info = DeviceInfo {
            index: Some(index),
            ..DeviceInfo::default()
        };
        if let Ok(name) = device.name() {
            info.name = Some(name);
        }
        if let Ok(uuid) = device.uuid() {
            info.uuid = Some(uuid);
        }
        if let Ok(memory) = device.memory_info() {
            info.memory_total_bytes = Some(memory.total);
            info.memory_used_bytes = Some(memory.used);
            info.memory_free_bytes = Some(memory.free);
            info.memory_reserved_bytes = Some(memory.reserved);
        }
        if let Ok(version) = self.nvml.sys_driver_version() {
            info.driver_version = Some(version);
        }
        if let Ok(version) = self.nvml.sys_cuda_driver_version() {
            info.cuda_driver_version = Some(cuda_version_text(version));
        }
        if let Ok(capability) = device.cuda_compute_capability() {
            info.compute_capability = Some(format!("{}.{}", capability.major, capability.minor));
        }
        if let Ok(mig) = device.mig_mode() {
            info.mig_enabled = Some(mig.current == NVML_DEVICE_MIG_ENABLE);
            info.mig_enabled_pending = Some(mig.pending == NVML_DEVICE_MIG_ENABLE);
        }
        info.processes = self.processes(device);
        info
    }

    /// Compute and graphics processes together; `None` when neither list can
    /// be read. A process in both lists is listed once.
    fn processes(&self, device: &Device<'_>) -> Option<Vec<GpuProcess>> {
        let compute = device.running_compute_processes();
        let graphics = device.running_graphics_processes();
        if compute.is_err() && graphics.is_err() {
            return None;
        }
        let mut listed: Vec<GpuProcess> = Vec::new();
        for process in compute.into_iter().chain(graphics).flatten() {
            let entry = self.process_entry(&process);
            match listed.iter_mut().find(|p| p.pid == entry.pid) {
                Some(existing) => {
                    existing.used_bytes = existing.used_bytes.max(entry.used_bytes);
                }
                None => listed.push(entry),
            }
        }
        Some(listed)
    }

    fn process_entry(&self, process: &ProcessInfo) -> GpuProcess {
        GpuProcess {
            pid: process.pid,
            name: self
                .nvml
                .sys_process_name(process.pid, PROCESS_NAME_MAX)
                .ok()
                .filter(|name| !name.is_empty()),
            used_bytes: match process.used_gpu_memory {
                UsedGpuMemory::Used(bytes) => Some(bytes),
                UsedGpuMemory::Unavailable => None,
            },
        }
    }
}

/// NVML encodes CUDA 12.2 as 12020 (1000 * major + 10 * minor, nvml.h
/// `NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR`).
pub fn cuda_version_text(version: i32) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}

impl GpuSource for NvmlSource {
    fn devices(&self) -> Result<Vec<DeviceInfo>, SourceError> {
        let count = self.device_count()?;
        let mut devices = Vec::new();
        for index in 0..count {
            match self.nvml.device_by_index(index) {
                Ok(device) => devices.push(self.describe(index, &device)),
                // A GPU that cannot be opened (lost, or hidden by cgroups) is
                // still listed, with only its index known.
                Err(_) => devices.push(DeviceInfo {
                    index: Some(index),
                    ..DeviceInfo::default()
                }),
            }
        }
        Ok(devices)
    }

    fn sample_used(&self) -> Result<Vec<MemoryReading>, SourceError> {
        let count = self.device_count()?;
        let mut readings = Vec::new();
        let mut last_error = None;
        for index in 0..count {
            let memory = self
                .nvml
                .device_by_index(index)
                .and_then(|device| device.memory_info());
            match memory {
                Ok(memory) => readings.push(MemoryReading {
                    gpu: index,
                    used_bytes: memory.used,
                    total_bytes: memory.total,
                }),
                Err(error) => last_error = Some(error),
            }
        }
        match (readings.is_empty(), last_error) {
            (true, Some(error)) => Err(error.into()),
            _ => Ok(readings),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{cuda_version_text, nvml_dll_candidates};
    use std::ffi::OsString;
    use std::path::PathBuf;

    #[test]
    fn nvml_dll_is_looked_for_in_system32_then_nvsmi() {
        let env = |name: &str| -> Option<OsString> {
            match name {
                "SystemRoot" => Some("C:\\Windows".into()),
                // 64-bit Windows sets both to the same folder for 64-bit programs.
                "ProgramW6432" | "ProgramFiles" => Some("C:\\Program Files".into()),
                _ => None,
            }
        };
        let nvsmi = PathBuf::from("C:\\Program Files")
            .join("NVIDIA Corporation")
            .join("NVSMI")
            .join("nvml.dll");
        let system32 = PathBuf::from("C:\\Windows")
            .join("System32")
            .join("nvml.dll");
        assert_eq!(nvml_dll_candidates(env), [system32, nvsmi]);
        assert!(nvml_dll_candidates(|_| None).is_empty());
    }

    #[test]
    fn cuda_versions_decode() {
        // nvml.h: 12020 is CUDA 12.2, 11080 is CUDA 11.8.
        assert_eq!(cuda_version_text(12020), "12.2");
        assert_eq!(cuda_version_text(11080), "11.8");
    }
}
