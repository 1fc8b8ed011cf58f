//! The GPUs of one machine, as `vramfit gpus --json` prints them, and the
//! rule for which card (and how many) a scenario for that machine names. The
//! CLI prints the inventory and fills in `vramfit link --detect` from it; the
//! web app reads it back from a paste.

use serde::{Deserialize, Serialize};

use crate::error::InputError;
use crate::gpu::{find_gpu, GpuSpec};
use crate::scenario::Scenario;

/// One process holding memory on a GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuProcess {
    pub pid: u32,
    /// Executable name, when NVML may read it (other users' processes often not).
    pub name: Option<String>,
    /// Memory the process holds on this GPU; unknown under Windows WDDM and on
    /// some MIG setups.
    pub used_bytes: Option<u64>,
}

/// What one GPU says about itself. Every field is optional: a query the
/// driver does not support on this card leaves its field `None` ("unknown")
/// and never hides the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub index: Option<u32>,
    pub name: Option<String>,
    pub uuid: Option<String>,
    pub memory_total_bytes: Option<u64>,
    pub memory_used_bytes: Option<u64>,
    pub memory_free_bytes: Option<u64>,
    /// Memory the driver and firmware keep for themselves (NVML memory v2).
    pub memory_reserved_bytes: Option<u64>,
    /// Kernel driver version, `535.129.03`.
    pub driver_version: Option<String>,
    /// Highest CUDA version the driver supports, `12.2`.
    pub cuda_driver_version: Option<String>,
    /// CUDA compute capability, `8.0`.
    pub compute_capability: Option<String>,
    /// MIG mode now.
    pub mig_enabled: Option<bool>,
    /// MIG mode after the next GPU reset.
    pub mig_enabled_pending: Option<bool>,
    /// Processes holding memory (compute and graphics together).
    pub processes: Option<Vec<GpuProcess>>,
}

/// One device as the inventory lists it: what the GPU reports plus the
/// catalog id its name resolves to (null when the card is not in the catalog).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InventoryGpu {
    #[serde(flatten)]
    pub device: DeviceInfo,
    pub catalog_id: Option<String>,
}

impl InventoryGpu {
    /// The catalog entry of this device: its catalog id when the catalog
    /// knows it, else its name.
    pub fn catalog_entry(&self) -> Option<&'static GpuSpec> {
        self.catalog_id
            .as_deref()
            .and_then(find_gpu)
            .or_else(|| self.device.name.as_deref().and_then(find_gpu))
    }
}

/// The GPUs of one machine in device order; JSON is the array of devices
/// that `vramfit gpus --json` prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Inventory {
    pub gpus: Vec<InventoryGpu>,
}

/// Only the key the inventory adds to a device.
#[derive(Deserialize)]
struct CatalogKey {
    #[serde(default)]
    catalog_id: Option<String>,
}

/// The field every parse error of a paste is under.
const PASTE: &str = "gpus";

impl Inventory {
    /// Each device with the catalog id its name resolves to.
    pub fn new(devices: Vec<DeviceInfo>) -> Self {
        let gpus = devices
            .into_iter()
            .map(|device| {
                let catalog_id = device
                    .name
                    .as_deref()
                    .and_then(find_gpu)
                    .map(|spec| spec.id.clone());
                InventoryGpu { device, catalog_id }
            })
            .collect();
        Self { gpus }
    }

    /// Reads the output of `vramfit gpus --json`. Errors name the field
    /// (`gpus[1].memory_total_bytes`) and say what was expected there.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        let value: serde_json::Value = serde_json::from_str(text.trim()).map_err(|e| {
            InputError::new(PASTE, format!("not JSON from `vramfit gpus --json`: {e}"))
        })?;
        let serde_json::Value::Array(items) = value else {
            return Err(InputError::new(
                PASTE,
                "expected the array of GPUs `vramfit gpus --json` prints",
            ));
        };
        if items.is_empty() {
            return Err(InputError::new(PASTE, "the list has no GPU in it"));
        }
        let gpus = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let device: DeviceInfo = read_field(i, item)?;
                let key: CatalogKey = read_field(i, item)?;
                Ok(InventoryGpu {
                    device,
                    catalog_id: key.catalog_id,
                })
            })
            .collect::<Result<Vec<_>, InputError>>()?;
        Ok(Self { gpus })
    }

    /// The card a job on this machine runs on: the catalog model most of its
    /// GPUs are (ties go to the one listed first) with their count; when the
    /// catalog knows none of them, the capacity of the first GPU that reports
    /// one, with every GPU counted.
    pub fn machine_gpus(&self) -> Result<MachineGpus, InputError> {
        let mut models: Vec<(&'static GpuSpec, u64, Option<&str>)> = Vec::new();
        for gpu in &self.gpus {
            let Some(spec) = gpu.catalog_entry() else {
                continue;
            };
            match models.iter_mut().find(|(known, _, _)| known.id == spec.id) {
                Some((_, count, _)) => *count += 1,
                None => models.push((spec, 1, gpu.device.name.as_deref())),
            }
        }
        // max_by_key keeps the last of equal counts: search from the end.
        if let Some((spec, count, name)) = models.iter().rev().max_by_key(|(_, n, _)| *n) {
            return Ok(MachineGpus {
                card: Card::Catalog(spec.id.clone()),
                count: *count,
                name: name.map_or_else(|| spec.name.clone(), str::to_owned),
            });
        }
        self.gpus
            .iter()
            .find_map(|gpu| {
                let total = gpu.device.memory_total_bytes?;
                Some(MachineGpus {
                    card: Card::Capacity(total),
                    count: self.gpus.len() as u64,
                    name: gpu.device.name.clone().unwrap_or_else(|| "GPU".into()),
                })
            })
            .ok_or_else(|| {
                InputError::new(
                    PASTE,
                    "no GPU with a catalog model or a memory_total_bytes: nothing to size the job by",
                )
            })
    }
}

/// Deserializes `item` (the `i`th device), naming the field of an error.
fn read_field<T: serde::de::DeserializeOwned>(
    i: usize,
    item: &serde_json::Value,
) -> Result<T, InputError> {
    serde_path_to_error::deserialize(item).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.is_empty() {
            format!("{PASTE}[{i}]")
        } else {
            format!("{PASTE}[{i}].{path}")
        };
        InputError::new(field, e.into_inner().to_string())
    })
}

/// How a scenario names the card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Card {
    /// A catalog id (`a100-sxm4-40gb`).
    Catalog(String),
    /// A card the catalog does not know, by its total memory in bytes.
    Capacity(u64),
}

/// The card of a machine and how many of them a job there uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineGpus {
    pub card: Card,
    pub count: u64,
    /// What the devices call themselves (`NVIDIA A100-SXM4-40GB`).
    pub name: String,
}

impl MachineGpus {
    /// Sets the scenario's GPU and GPU count to this machine's.
    pub fn apply(&self, scenario: &mut Scenario) {
        let (name, memory_bytes) = match &self.card {
            Card::Catalog(id) => (Some(id.clone()), None),
            Card::Capacity(bytes) => (None, Some(*bytes)),
        };
        scenario.gpu.name = name;
        scenario.gpu.memory_bytes = memory_bytes;
        scenario.parallel.gpus = self.count;
    }
}
