//! One row of the registry: a scenario field, its kind and range, and how
//! it reads and writes its text (links, flags) and checks its value.

use crate::decimal::Decimal;
use crate::error::{check_range, InputError, Result};
use crate::gpu::find_gpu;
use crate::scenario::limits::{MAX_MEMORY, MIN_MEMORY};
use crate::scenario::{Choice, LoraTarget, Scenario};

use super::text::{self, parse_memory, Fraction};
use crate::url::query::{bool_text, parse_bool, parse_u64_in};

/// One scenario field. See the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its key in a share link (`mb`): part of the v=1 format, never renamed.
    pub key: &'static str,
    /// Its path in a scenario file, named by errors (`training.micro_batch`).
    pub path: &'static str,
    /// Its CLI flag without the dashes (`micro-batch`).
    pub flag: &'static str,
    /// One line saying what it is, for `--help`.
    pub help: &'static str,
    /// The Fluent message id of the web's label (`field-micro-batch`), where
    /// the web labels the field.
    pub label: Option<&'static str>,
    /// Whether an embed may expose it as an input (`show=mb`).
    pub embeddable: bool,
    /// The value's kind: range, allowed keys, how to read and write it.
    pub kind: Kind,
    pub(super) applies: fn(&Scenario) -> bool,
    /// Named values that set more than this field (an image size preset
    /// sets width and height): returns whether `text` was one.
    pub(super) preset: Option<Preset>,
}

/// Sets a named value (a preset) that writes more than one field; returns
/// whether the text was one, or what is wrong with it.
pub(super) type Preset = fn(&mut Scenario, &str) -> std::result::Result<bool, String>;

/// What a field holds. Accessors are plain functions over the scenario so
/// the rows stay a static table.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A whole number within `min..=max`.
    Count {
        min: u64,
        max: u64,
        get: fn(&Scenario) -> u64,
        set: fn(&mut Scenario, u64),
    },
    /// A whole number within `min..=max`, or `auto` (`None`: derived).
    OptionalCount {
        min: u64,
        max: u64,
        get: fn(&Scenario) -> Option<u64>,
        set: fn(&mut Scenario, Option<u64>),
    },
    /// On or off (`1`/`0` in a link).
    Flag {
        get: fn(&Scenario) -> bool,
        set: fn(&mut Scenario, bool),
    },
    /// One key of an enum, or `auto` where the field is optional.
    Choice(Choices),
    /// A decimal number within a [`Fraction`] range.
    Fraction {
        range: Fraction,
        get: fn(&Scenario) -> f64,
        set: fn(&mut Scenario, f64),
    },
    /// A decimal number within a [`Fraction`] range, or `auto` (`None`:
    /// derived).
    OptionalFraction {
        range: Fraction,
        get: fn(&Scenario) -> Option<f64>,
        set: fn(&mut Scenario, Option<f64>),
    },
    /// A memory size in bytes (`24GiB`, `80GB`), or `auto` (`None`).
    Memory {
        get: fn(&Scenario) -> Option<u64>,
        set: fn(&mut Scenario, Option<u64>),
    },
    /// A GPU of the catalog, by id or by the name NVML prints.
    GpuName,
    /// The layers LoRA adapts, a comma-separated list.
    LoraTargets,
    /// Image sizes of a mixed batch (`Scenario::image_mix`), a
    /// comma-separated list; empty for none.
    ImageMix,
}

/// The keys of an enum field and how to read and write them.
#[derive(Clone, Copy, Debug)]
pub struct Choices {
    /// Whether `auto` (`None`) is a value.
    pub optional: bool,
    /// Every key, in menu order (without `auto`).
    pub keys: fn() -> Vec<&'static str>,
    /// The keys a menu offers for a scenario: those its rules allow there.
    pub offered: fn(&Scenario) -> Vec<&'static str>,
    get: fn(&Scenario) -> &'static str,
    set: fn(&mut Scenario, &str) -> std::result::Result<(), String>,
}

/// Bytes per GiB: memory sizes that are whole GiB are written as such.
const GIB: u64 = 1 << 30;

impl Field {
    /// Whether the field means something in `sc` (training fields in a
    /// training scenario, LoRA fields with LoRA, ...). Validation checks
    /// only the fields that apply; the others keep whatever they hold.
    pub fn applies(&self, sc: &Scenario) -> bool {
        (self.applies)(sc)
    }

    /// The whole-number range of the value, for counts and memory sizes.
    pub fn range(&self) -> Option<(u64, u64)> {
        match self.kind {
            Kind::Count { min, max, .. } | Kind::OptionalCount { min, max, .. } => Some((min, max)),
            Kind::Memory { .. } => Some((MIN_MEMORY, MAX_MEMORY)),
            _ => None,
        }
    }

    /// The value as a link writes it (`4`, `nf4`, `1`, `24GiB`, `auto`).
    pub fn get_text(&self, sc: &Scenario) -> String {
        match self.kind {
            Kind::Count { get, .. } => get(sc).to_string(),
            Kind::OptionalCount { get, .. } => get(sc).map_or("auto".to_owned(), |n| n.to_string()),
            Kind::Flag { get, .. } => bool_text(get(sc)),
            Kind::Choice(c) => c.current(sc).to_owned(),
            Kind::Fraction { get, .. } => Decimal(get(sc)).to_string(),
            Kind::OptionalFraction { get, .. } => {
                get(sc).map_or("auto".to_owned(), |x| Decimal(x).to_string())
            }
            Kind::Memory { get, .. } => match get(sc) {
                Some(b) if b % GIB == 0 => format!("{}GiB", b / GIB),
                Some(b) => b.to_string(),
                None => "auto".to_owned(),
            },
            Kind::GpuName => sc.gpu.name.clone().unwrap_or_default(),
            Kind::LoraTargets => {
                let keys: Vec<&str> = sc.training.lora.targets.iter().map(|t| t.key()).collect();
                keys.join(",")
            }
            Kind::ImageMix => crate::scenario::image_mix_text(&sc.image_mix),
        }
    }

    /// Sets the field from text (a link value, a CLI argument). On error the
    /// scenario is unchanged and the message says what is allowed.
    pub fn set_text(&self, sc: &mut Scenario, value: &str) -> std::result::Result<(), String> {
        if let Some(preset) = self.preset {
            let mut tried = sc.clone();
            if preset(&mut tried, value)? {
                *sc = tried;
                return Ok(());
            }
        }
        match self.kind {
            Kind::Count { min, max, set, .. } => set(sc, parse_u64_in(value, min, max)?),
            Kind::OptionalCount { min, max, set, .. } => set(
                sc,
                match value {
                    "auto" => None,
                    v => Some(parse_u64_in(v, min, max)?),
                },
            ),
            Kind::Flag { set, .. } => set(sc, parse_bool(value)?),
            Kind::Choice(c) => (c.set)(sc, value)?,
            Kind::Fraction { range, set, .. } => set(sc, text::parse_fraction(value, range)?),
            Kind::OptionalFraction { range, set, .. } => set(
                sc,
                match value {
                    "auto" => None,
                    v => Some(text::parse_fraction(v, range)?),
                },
            ),
            Kind::Memory { set, .. } => set(
                sc,
                match value {
                    "auto" => None,
                    v => Some(parse_memory(v)?),
                },
            ),
            Kind::GpuName => {
                if find_gpu(value).is_none() {
                    return Err(format!("\"{value}\" is not in the GPU catalog"));
                }
                sc.gpu.name = Some(value.to_owned());
            }
            Kind::LoraTargets => sc.training.lora.targets = text::parse_lora_targets(value)?,
            Kind::ImageMix => sc.image_mix = crate::scenario::parse_image_mix(value)?,
        }
        Ok(())
    }

    /// Whether `a` and `b` hold different values in this field (a link
    /// writes the fields that differ from the default).
    pub fn differs(&self, a: &Scenario, b: &Scenario) -> bool {
        match self.kind {
            Kind::Count { get, .. } => get(a) != get(b),
            Kind::OptionalCount { get, .. } | Kind::Memory { get, .. } => get(a) != get(b),
            Kind::Flag { get, .. } => get(a) != get(b),
            Kind::Choice(c) => c.current(a) != c.current(b),
            Kind::Fraction { get, .. } => get(a) != get(b),
            Kind::OptionalFraction { get, .. } => get(a) != get(b),
            Kind::GpuName => a.gpu.name != b.gpu.name,
            Kind::LoraTargets => a.training.lora.targets != b.training.lora.targets,
            Kind::ImageMix => a.image_mix != b.image_mix,
        }
    }

    /// Checks the value in `sc` against the field's range, naming the
    /// field's path. GPU names are checked where they are resolved
    /// (`estimate::resolve_gpu`), enum values by their type.
    pub fn check(&self, sc: &Scenario) -> Result<()> {
        match self.kind {
            Kind::Count { min, max, get, .. } => {
                check_range(self.path, get(sc), min, max)?;
            }
            Kind::OptionalCount { min, max, get, .. } => {
                if let Some(n) = get(sc) {
                    check_range(self.path, n, min, max)?;
                }
            }
            Kind::Memory { get, .. } => {
                if let Some(bytes) = get(sc) {
                    check_range(self.path, bytes, MIN_MEMORY, MAX_MEMORY)?;
                }
            }
            Kind::Fraction { range, get, .. } => check_fraction(self.path, range, get(sc))?,
            Kind::OptionalFraction { range, get, .. } => {
                if let Some(x) = get(sc) {
                    check_fraction(self.path, range, x)?;
                }
            }
            Kind::LoraTargets => {
                if sc.training.lora.targets.is_empty() {
                    return Err(InputError::new(
                        self.path,
                        format!("name at least one target: {}", LoraTarget::allowed()),
                    ));
                }
            }
            Kind::ImageMix => {
                // A scenario file can hold what the text reader refuses.
                let mix = &sc.image_mix;
                if mix.len() > crate::scenario::MAX_IMAGE_MIX
                    || !mix.iter().all(|&s| crate::scenario::image_mix_size_ok(s))
                {
                    return Err(InputError::new(
                        self.path,
                        crate::scenario::IMAGE_MIX_ALLOWED,
                    ));
                }
            }
            Kind::Flag { .. } | Kind::Choice(_) | Kind::GpuName => {}
        }
        Ok(())
    }

    /// What the value may be, in a few words (`1 to 65536`, `infer, train`),
    /// for help texts.
    pub fn allowed(&self) -> String {
        match self.kind {
            Kind::Count { min, max, .. } => format!("{min} to {max}"),
            Kind::OptionalCount { min, max, .. } if self.preset.is_some() => {
                format!(
                    "{min} to {max}, WxH or a preset (either sets both sides: {}), or auto",
                    crate::scenario::IMAGE_PRESETS.map(|p| p.0).join(", ")
                )
            }
            Kind::OptionalCount { min, max, .. } => format!("{min} to {max}, or auto"),
            Kind::Flag { .. } => "1 or 0".to_owned(),
            Kind::Choice(c) if c.optional => format!("{}, or auto", (c.keys)().join(", ")),
            Kind::Choice(c) => (c.keys)().join(", "),
            Kind::Fraction { range, .. } => range.text().to_owned(),
            Kind::OptionalFraction { range, .. } => format!("{}, or auto", range.text()),
            Kind::Memory { .. } => {
                "1MiB to 1PiB: bytes, or with KiB/MiB/GiB/TiB/KB/MB/GB/TB; or auto".to_owned()
            }
            Kind::GpuName => "a GPU of the catalog (`vramfit catalog gpus`)".to_owned(),
            Kind::LoraTargets => {
                format!("comma-separated: {}, mlp, attn, all", LoraTarget::allowed())
            }
            Kind::ImageMix => crate::scenario::IMAGE_MIX_ALLOWED.to_owned(),
        }
    }
}

/// A decimal within `range` (never NaN), or an error naming `path`.
fn check_fraction(path: &str, range: Fraction, x: f64) -> Result<()> {
    if range.contains(x) {
        return Ok(());
    }
    Err(InputError::new(
        path,
        format!("{} is out of range: allowed {}", Decimal(x), range.text()),
    ))
}

impl Choices {
    /// The key the scenario holds (`auto` for `None`).
    pub fn current(&self, sc: &Scenario) -> &'static str {
        (self.get)(sc)
    }

    /// The enum field `get`/`set` reach, every key of `T` offered.
    pub(crate) const fn of<T: Choice>(
        get: fn(&Scenario) -> &'static str,
        set: fn(&mut Scenario, &str) -> std::result::Result<(), String>,
    ) -> Self {
        Choices {
            optional: false,
            keys: T::keys,
            offered: |_| T::keys(),
            get,
            set,
        }
    }

    /// An optional enum field: `auto` stands for `None`.
    pub(crate) const fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Offers only the keys `offered` returns for the scenario.
    pub(crate) const fn offering(mut self, offered: fn(&Scenario) -> Vec<&'static str>) -> Self {
        self.offered = offered;
        self
    }
}
