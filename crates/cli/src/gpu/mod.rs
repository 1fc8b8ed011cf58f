//! Reading real GPUs: what is installed, how much memory is used, by whom.
//!
//! Everything goes through `GpuSource`, so the commands run the same on NVML
//! (`nvml::NvmlSource`) and on recorded fixtures (`fake::FakeSource`, the test
//! hook selected by `VRAMFIT_FAKE_NVML`).

use std::fmt;

use nvml_wrapper::error::NvmlError;

pub mod fake;
pub mod nvml;

/// Test hook: when set to the path of a JSON fixture (see
/// `tests/data/README.md`), the commands read that fixture instead of NVML.
pub const FAKE_NVML_ENV: &str = "VRAMFIT_FAKE_NVML";

/// What a GPU says about itself: the core's inventory types, which
/// `vramfit gpus --json` prints.
pub use vramfit_core::inventory::{DeviceInfo, GpuProcess};

/// Used memory of one GPU at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryReading {
    pub gpu: u32,
    pub used_bytes: u64,
    pub total_bytes: u64,
}

/// Why no GPU could be read. Each variant prints one sentence saying what is
/// wrong and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// NVML (`nvml::LIBRARY`) could not be loaded: no NVIDIA driver installed.
    NoLibrary(String),
    /// The library loaded but the kernel driver is not running.
    DriverNotLoaded,
    /// The driver refused this user.
    NoPermission,
    /// The user-space library and the kernel driver are different versions.
    VersionMismatch,
    /// NVML initialized but lists no GPU.
    NoDevices,
    /// Any other NVML failure, with NVML's own words.
    Nvml(String),
    /// The test fixture named by `VRAMFIT_FAKE_NVML` is unusable.
    Fixture(String),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::NoLibrary(detail) => write!(
                f,
                "no NVIDIA driver/library found: {} could not be loaded ({detail}); \
                 install the NVIDIA driver or run on a machine with an NVIDIA GPU",
                nvml::LIBRARY
            ),
            SourceError::DriverNotLoaded => f.write_str(
                "the NVIDIA driver is not loaded: libnvidia-ml.so.1 is installed but the kernel \
                 module is not running (load it with `modprobe nvidia` or reboot)",
            ),
            SourceError::NoPermission => f.write_str(
                "no permission to talk to the NVIDIA driver: this user cannot open /dev/nvidia* \
                 (join the group that owns them, or give the container GPU access)",
            ),
            SourceError::VersionMismatch => f.write_str(
                "the NVIDIA driver and libnvidia-ml.so.1 are different versions, usually after a \
                 driver upgrade without a reboot: reboot or reload the nvidia kernel module",
            ),
            SourceError::NoDevices => {
                f.write_str("the NVIDIA driver is running but reports no GPU on this machine")
            }
            SourceError::Nvml(detail) => write!(f, "NVML failed: {detail}"),
            SourceError::Fixture(detail) => write!(f, "{FAKE_NVML_ENV} fixture: {detail}"),
        }
    }
}

impl std::error::Error for SourceError {}

impl From<NvmlError> for SourceError {
    fn from(error: NvmlError) -> Self {
        match error {
            NvmlError::LibloadingError(e) => SourceError::NoLibrary(e.to_string()),
            NvmlError::LibraryNotFound => {
                SourceError::NoLibrary("NVML reports its library missing".into())
            }
            // A library without nvmlInit_v2 is not a usable NVML.
            NvmlError::FailedToLoadSymbol(symbol) => {
                SourceError::NoLibrary(format!("symbol missing: {symbol}"))
            }
            NvmlError::DriverNotLoaded => SourceError::DriverNotLoaded,
            NvmlError::NoPermission => SourceError::NoPermission,
            NvmlError::LibRmVersionMismatch => SourceError::VersionMismatch,
            other => SourceError::Nvml(other.to_string()),
        }
    }
}

/// Where GPU facts come from: NVML on a real machine, a fixture in tests.
pub trait GpuSource {
    /// Every GPU with every field that could be read.
    fn devices(&self) -> Result<Vec<DeviceInfo>, SourceError>;
    /// Used and total memory of every GPU whose memory can be read now.
    fn sample_used(&self) -> Result<Vec<MemoryReading>, SourceError>;
}

/// NVML, or the fixture named by `VRAMFIT_FAKE_NVML` when that is set.
pub fn open_source() -> Result<Box<dyn GpuSource>, SourceError> {
    match std::env::var_os(FAKE_NVML_ENV) {
        Some(path) => Ok(Box::new(fake::FakeSource::load(path.as_ref())?)),
        None => Ok(Box::new(nvml::NvmlSource::init()?)),
    }
}

/// `used / total` in percent; `None` when the total is unknown or zero.
pub fn used_percent(used: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| used as f64 * 100.0 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvml_errors_map_to_their_sentences() {
        assert_eq!(
            SourceError::from(NvmlError::DriverNotLoaded),
            SourceError::DriverNotLoaded
        );
        assert_eq!(
            SourceError::from(NvmlError::NoPermission),
            SourceError::NoPermission
        );
        assert_eq!(
            SourceError::from(NvmlError::LibRmVersionMismatch),
            SourceError::VersionMismatch
        );
        assert!(matches!(
            SourceError::from(NvmlError::LibraryNotFound),
            SourceError::NoLibrary(_)
        ));
        assert!(matches!(
            SourceError::from(NvmlError::GpuLost),
            SourceError::Nvml(_)
        ));
    }

    #[test]
    fn a_missing_library_is_a_libloading_error_mapped_to_no_library() {
        // Loads a path that cannot exist, the same failure as a machine
        // without the driver, through the real NVML loader.
        let result = nvml_wrapper::Nvml::builder()
            .lib_path(std::ffi::OsStr::new(
                "/nonexistent/vramfit/libnvidia-ml.so.1",
            ))
            .init();
        match result.map_err(SourceError::from) {
            Err(SourceError::NoLibrary(detail)) => assert!(detail.contains("nonexistent")),
            Err(other) => panic!("mapped to {other:?}"),
            Ok(_) => panic!("NVML loaded from a path that does not exist"),
        }
    }

    #[test]
    fn every_sentence_is_one_line() {
        let all = [
            SourceError::NoLibrary("x".into()),
            SourceError::DriverNotLoaded,
            SourceError::NoPermission,
            SourceError::VersionMismatch,
            SourceError::NoDevices,
            SourceError::Nvml("x".into()),
            SourceError::Fixture("x".into()),
        ];
        for error in all {
            let text = error.to_string();
            assert!(!text.contains('\n') && !text.contains("  "), "{text}");
        }
    }

    #[test]
    fn used_percent_of_known_totals() {
        // 20 GiB of 80 GiB is a quarter.
        assert_eq!(used_percent(20 << 30, 80 << 30), Some(25.0));
        assert_eq!(used_percent(5, 0), None);
    }
}
