//! GPU catalog: capacity as nvidia-smi reports it, formats supported, bandwidth.

use serde::{Deserialize, Serialize};

/// Hardware generation: decides CUDA context size, bf16/fp8 support and kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generation {
    Pascal,
    Volta,
    Turing,
    Ampere,
    Ada,
    Hopper,
    Blackwell,
    /// AMD CDNA (MI250, MI300X): ROCm.
    Cdna,
    /// Apple M-series unified memory (MPS).
    AppleSilicon,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuSpec {
    /// Stable short id used in URLs and flags: `a100-sxm4-40gb`.
    pub id: String,
    /// Marketing name: `NVIDIA A100-SXM4-40GB`.
    pub name: String,
    pub vendor: String,
    pub generation: Generation,
    /// Total memory as nvidia-smi / NVML reports it, in bytes.
    pub memory_bytes: u64,
    pub bf16: bool,
    pub fp8: bool,
    /// Memory bandwidth in GB/s.
    pub bandwidth_gb_s: f64,
    /// Other names the card goes by (NVML names, short names).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Where the figures come from.
    pub source: String,
}
