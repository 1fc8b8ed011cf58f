//! GPU catalog: capacity as nvidia-smi reports it, formats supported, bandwidth.
//!
//! The catalog lives in `data/gpus.json`, compiled into the library as Rust
//! rows by `build.rs` and turned into [`GpuSpec`]s once. Each entry's `source` says where every figure comes from.

use std::sync::OnceLock;

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
    /// Where the figures come from (empty in the web build: see build.rs).
    #[serde(default)]
    pub source: String,
    /// Memory the GPU may use when it is smaller than `memory_bytes`: Apple
    /// unified memory, where Metal's `recommendedMaxWorkingSetSize` allows
    /// about 75% of the total by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usable_memory_bytes: Option<u64>,
    /// The total `torch.cuda.mem_get_info()` reports, where it is known to
    /// be below `memory_bytes` (the driver keeps part of the memory that
    /// nvidia-smi lists): vLLM sizes its KV pool from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_total_bytes: Option<u64>,
    /// What to know when using the entry (per-GCD devices, ECC, assumptions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl GpuSpec {
    /// The bytes a workload can plan on: `usable_memory_bytes` where the
    /// device shares memory with the CPU, else `memory_bytes`.
    pub fn usable_bytes(&self) -> u64 {
        self.usable_memory_bytes.unwrap_or(self.memory_bytes)
    }

    /// Memory shared with the CPU and the OS (Apple silicon, DGX Spark /
    /// GB10, Jetson, APUs): the entries that state a usable share.
    pub fn is_unified(&self) -> bool {
        self.usable_memory_bytes.is_some()
    }

    /// The bytes a job may plan on when the OS and desktop keep
    /// `os_reserved` (given) or the catalog's default share (not given);
    /// a dedicated card's whole memory.
    pub fn budget_bytes(&self, os_reserved: Option<u64>) -> u64 {
        match os_reserved {
            Some(r) if self.is_unified() => self.memory_bytes.saturating_sub(r),
            _ => self.usable_bytes(),
        }
    }

    /// Every name the entry answers to: id, name, then aliases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [self.id.as_str(), self.name.as_str()]
            .into_iter()
            .chain(self.aliases.iter().map(String::as_str))
    }
}

/// One catalog entry as `build.rs` writes it from `data/gpus.json`.
struct GpuRow {
    id: &'static str,
    name: &'static str,
    vendor: &'static str,
    generation: Generation,
    memory_bytes: u64,
    bf16: bool,
    fp8: bool,
    bandwidth_gb_s: f64,
    aliases: &'static [&'static str],
    source: &'static str,
    usable_memory_bytes: Option<u64>,
    cuda_total_bytes: Option<u64>,
    notes: Option<&'static str>,
}

/// The catalog as shipped (`data/gpus.json`, citations left out of the web build).
const CATALOG: &[GpuRow] = include!(concat!(env!("OUT_DIR"), "/gpus.rs"));

/// Vendor and product-line words that NVML and vendors put in front of the
/// model name ("NVIDIA GeForce RTX 4090", "Tesla T4", "AMD Instinct MI300X").
/// They are dropped before matching so that either spelling finds the entry.
const NAME_PREFIXES: [&str; 6] = ["nvidia", "tesla", "geforce", "amd", "instinct", "apple"];

/// All catalog entries, in catalog order (datacenter NVIDIA, workstation and
/// consumer NVIDIA, AMD, Apple).
pub fn gpus() -> &'static [GpuSpec] {
    static CATALOG_SPECS: OnceLock<Vec<GpuSpec>> = OnceLock::new();
    CATALOG_SPECS.get_or_init(|| {
        CATALOG
            .iter()
            .map(|r| GpuSpec {
                id: r.id.to_string(),
                name: r.name.to_string(),
                vendor: r.vendor.to_string(),
                generation: r.generation,
                memory_bytes: r.memory_bytes,
                bf16: r.bf16,
                fp8: r.fp8,
                bandwidth_gb_s: r.bandwidth_gb_s,
                aliases: r.aliases.iter().map(|a| (*a).to_string()).collect(),
                source: r.source.to_string(),
                usable_memory_bytes: r.usable_memory_bytes,
                cuda_total_bytes: r.cuda_total_bytes,
                notes: r.notes.map(str::to_string),
            })
            .collect()
    })
}

/// Lower-case letters and digits only, with leading vendor words removed:
/// `"NVIDIA GeForce RTX 4090"` and `"rtx-4090"` both become `"rtx4090"`.
fn match_key(name: &str) -> String {
    let mut key: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    loop {
        let before = key.len();
        for prefix in NAME_PREFIXES {
            if let Some(rest) = key.strip_prefix(prefix) {
                if !rest.is_empty() {
                    key = rest.to_string();
                }
            }
        }
        if key.len() == before {
            return key;
        }
    }
}

/// The entry whose id, name or alias equals `query`, ignoring case, spaces,
/// dashes, punctuation and leading vendor words (`NVIDIA`, `Tesla`, `GeForce`,
/// `AMD`, `Instinct`, `Apple`). `None` when nothing matches exactly.
pub fn find_gpu(query: &str) -> Option<&'static GpuSpec> {
    let wanted = match_key(query);
    if wanted.is_empty() {
        return None;
    }
    gpus()
        .iter()
        .find(|gpu| gpu.names().any(|name| match_key(name) == wanted))
}

/// Entries whose names carry every word of `query` (the catalog search of
/// `crate::search`; vendor words such as "NVIDIA" are optional), in catalog
/// order, for pickers and `vramfit catalog gpus`. An empty query lists all.
pub fn search_gpus(query: &str) -> Vec<&'static GpuSpec> {
    let query = crate::search::Query::new(query).without(&NAME_PREFIXES);
    gpus()
        .iter()
        .filter(|gpu| query.matches(gpu.names().chain([gpu.vendor.as_str()])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_key_drops_vendor_words_and_punctuation() {
        assert_eq!(match_key("NVIDIA GeForce RTX 4090"), "rtx4090");
        assert_eq!(match_key("Tesla V100-SXM2-16GB"), "v100sxm216gb");
        assert_eq!(match_key("AMD Instinct MI300X"), "mi300x");
        // A bare vendor word stays, so it never matches everything.
        assert_eq!(match_key("NVIDIA"), "nvidia");
    }
}
