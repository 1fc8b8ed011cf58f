//! The typed reader of a `config.json` object: every value read with its
//! range, every error naming the field (with the sub-config's prefix), and
//! the class defaults of sub-configs saved as a diff.

use crate::decimal::Decimal;
use serde_json::{Map, Value};

use super::class_defaults::CLASS_DEFAULTS;
use crate::error::{InputError, Result};
use crate::model::arch::model_type_list;
use crate::model::{ModelSpec, MAX_DIM};

/// Fallbacks for sub-configs that transformers saves as a diff against the
/// class defaults (LLaVA's `text_config`, `vision_config`).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Defaults {
    None,
    /// `LlamaConfig()` in transformers: 4096 hidden, 11008 MLP, 32 layers and heads,
    /// 32000 vocabulary, 2048 positions.
    Llama,
    /// `CLIPVisionConfig()` in transformers: ViT-B/32 at 224 px (768 hidden,
    /// 3072 MLP, 12 layers and heads).
    ClipVision,
    /// `MistralConfig()`: 4096 hidden, 14336 MLP, 32 layers and heads, 8 KV
    /// heads, 32000 vocabulary, 131072 positions (LLaVA-NeXT's text diffs).
    Mistral,
    /// `Qwen2VLTextConfig()` and `Qwen2_5_VLTextConfig()`: 8192 hidden,
    /// 29568 MLP, 80 layers, 64 heads, 8 KV heads, 152064 vocabulary, 32768
    /// positions.
    QwenVlText,
    /// `Gemma3TextConfig()`: 2304 hidden, 9216 MLP, 26 layers, 8 heads, 4
    /// KV heads of 256, 262208 vocabulary, 131072 positions.
    Gemma3Text,
    /// `SiglipVisionConfig()`: 768 hidden, 3072 MLP, 12 layers and heads,
    /// 224 px in 16 px patches.
    SiglipVision,
    /// `Qwen2Config()`: 4096 hidden, 22016 MLP, 32 layers, heads and KV
    /// heads (a fixed 32, not the head count), 151936 vocabulary, 32768
    /// positions (InternVL's and LLaVA-OneVision's default `text_config`).
    Qwen2,
    /// `GemmaConfig()`: 3072 hidden, 24576 MLP, 28 layers, 16 heads and KV
    /// heads of 256, 256000 vocabulary, 8192 positions (PaliGemma's text diffs).
    Gemma,
    /// `Gemma2Config()`: 2304 hidden, 9216 MLP, 26 layers, 8 heads, 4 KV
    /// heads of 256, 256000 vocabulary, 8192 positions (PaliGemma 2's).
    Gemma2,
    /// `Llama4TextConfig()` (a `llama4` wrapper's `text_config`, whatever
    /// model_type it names): 5120 hidden, 48 layers, 40 heads, 8 KV heads
    /// of 128, 16 experts of 8192 (one per token), 16384-wide dense MLPs,
    /// 202048 vocabulary, 131072 positions. `attention_chunk_size` (8192,
    /// nullable) is not given here: an explicit null must stay "none".
    Llama4Text,
    /// `Qwen3_5TextConfig()`: 4096 hidden, 12288 MLP, 32 layers, 16 heads,
    /// 4 KV heads of 256, Gated DeltaNet with 16 key and 32 value heads of
    /// 128, 248320 vocabulary, 32768 positions.
    Qwen35Text,
    /// `Qwen3_5MoeTextConfig()`: 2048 hidden, 40 layers, 16 heads, 2 KV
    /// heads of 256, the same Gated DeltaNet, 256 experts of 512 (8 per
    /// token) and a 512-wide shared expert.
    Qwen35MoeText,
    /// `MllamaTextConfig()`: 4096 hidden, 14336 MLP, 40 layers, 32 heads,
    /// 8 KV heads, 128256 vocabulary, 131072 positions.
    MllamaText,
    /// A named config class's defaults from `class_defaults.rs` (a
    /// wrapper's sub-config saved without its `model_type`).
    Class(&'static str),
    /// `MllamaVisionConfig()`: 1280 hidden, 5120 MLP, 32 local and 8
    /// global layers, 16 heads, 448 px in 14 px patches, 4 tiles, 7680-wide
    /// output (the last layer and five intermediate ones concatenated).
    MllamaVision,
}

impl Defaults {
    pub(super) fn value(self, key: &str) -> Option<u64> {
        match (self, key) {
            (Defaults::Class(model_type), _) => class_default_of(model_type, key),
            (Defaults::Llama, "hidden_size") => Some(4096),
            (Defaults::Llama, "intermediate_size") => Some(11008),
            (Defaults::Llama, "num_hidden_layers" | "num_attention_heads") => Some(32),
            (Defaults::Llama, "vocab_size") => Some(32000),
            (Defaults::Llama, "max_position_embeddings") => Some(2048),
            (Defaults::ClipVision, "hidden_size") => Some(768),
            (Defaults::ClipVision, "intermediate_size") => Some(3072),
            (Defaults::ClipVision, "num_hidden_layers" | "num_attention_heads") => Some(12),
            (Defaults::ClipVision, "image_size") => Some(224),
            (Defaults::ClipVision, "patch_size") => Some(32),
            (Defaults::Mistral, "hidden_size") => Some(4096),
            (Defaults::Mistral, "intermediate_size") => Some(14336),
            (Defaults::Mistral, "num_hidden_layers" | "num_attention_heads") => Some(32),
            (Defaults::Mistral, "num_key_value_heads") => Some(8),
            (Defaults::Mistral, "vocab_size") => Some(32000),
            (Defaults::Mistral, "max_position_embeddings") => Some(131_072),
            (Defaults::QwenVlText, "hidden_size") => Some(8192),
            (Defaults::QwenVlText, "intermediate_size") => Some(29568),
            (Defaults::QwenVlText, "num_hidden_layers") => Some(80),
            (Defaults::QwenVlText, "num_attention_heads") => Some(64),
            (Defaults::QwenVlText, "num_key_value_heads") => Some(8),
            (Defaults::QwenVlText, "vocab_size") => Some(152_064),
            (Defaults::QwenVlText, "max_position_embeddings") => Some(32768),
            (Defaults::Gemma3Text, "hidden_size") => Some(2304),
            (Defaults::Gemma3Text, "intermediate_size") => Some(9216),
            (Defaults::Gemma3Text, "num_hidden_layers") => Some(26),
            (Defaults::Gemma3Text, "num_attention_heads") => Some(8),
            (Defaults::Gemma3Text, "num_key_value_heads") => Some(4),
            (Defaults::Gemma3Text, "head_dim") => Some(256),
            (Defaults::Gemma3Text, "vocab_size") => Some(262_208),
            (Defaults::Gemma3Text, "max_position_embeddings") => Some(131_072),
            (Defaults::Gemma3Text | Defaults::Gemma2, "sliding_window") => Some(4096),
            (Defaults::SiglipVision, "hidden_size") => Some(768),
            (Defaults::SiglipVision, "intermediate_size") => Some(3072),
            (Defaults::SiglipVision, "num_hidden_layers" | "num_attention_heads") => Some(12),
            (Defaults::SiglipVision, "image_size") => Some(224),
            (Defaults::SiglipVision, "patch_size") => Some(16),
            (Defaults::Qwen2, "hidden_size") => Some(4096),
            (Defaults::Qwen2, "intermediate_size") => Some(22016),
            (
                Defaults::Qwen2,
                "num_hidden_layers" | "num_attention_heads" | "num_key_value_heads",
            ) => Some(32),
            (Defaults::Qwen2, "vocab_size") => Some(151_936),
            (Defaults::Qwen2, "max_position_embeddings") => Some(32768),
            (Defaults::Gemma, "hidden_size") => Some(3072),
            (Defaults::Gemma, "intermediate_size") => Some(24576),
            (Defaults::Gemma, "num_hidden_layers") => Some(28),
            (Defaults::Gemma, "num_attention_heads" | "num_key_value_heads") => Some(16),
            (Defaults::Gemma2, "hidden_size") => Some(2304),
            (Defaults::Gemma2, "intermediate_size") => Some(9216),
            (Defaults::Gemma2, "num_hidden_layers") => Some(26),
            (Defaults::Gemma2, "num_attention_heads") => Some(8),
            (Defaults::Gemma2, "num_key_value_heads") => Some(4),
            (Defaults::Gemma | Defaults::Gemma2, "head_dim") => Some(256),
            (Defaults::Gemma | Defaults::Gemma2, "vocab_size") => Some(256_000),
            (Defaults::Gemma | Defaults::Gemma2, "max_position_embeddings") => Some(8192),
            (Defaults::Llama4Text, "hidden_size") => Some(5120),
            (Defaults::Llama4Text, "intermediate_size") => Some(8192),
            (Defaults::Llama4Text, "intermediate_size_mlp") => Some(16384),
            (Defaults::Llama4Text, "num_hidden_layers") => Some(48),
            (Defaults::Llama4Text, "num_attention_heads") => Some(40),
            (Defaults::Llama4Text, "num_key_value_heads") => Some(8),
            (Defaults::Llama4Text, "head_dim") => Some(128),
            (Defaults::Llama4Text, "vocab_size") => Some(202_048),
            (Defaults::Llama4Text, "max_position_embeddings") => Some(131_072),
            (Defaults::Llama4Text, "num_local_experts") => Some(16),
            (Defaults::Llama4Text, "num_experts_per_tok" | "interleave_moe_layer_step") => Some(1),
            (Defaults::Qwen35Text, "hidden_size") => Some(4096),
            (Defaults::Qwen35Text, "intermediate_size") => Some(12288),
            (Defaults::Qwen35Text, "num_hidden_layers") => Some(32),
            (Defaults::Qwen35Text, "num_key_value_heads") => Some(4),
            (Defaults::Qwen35MoeText, "hidden_size") => Some(2048),
            (Defaults::Qwen35MoeText, "num_hidden_layers") => Some(40),
            (Defaults::Qwen35MoeText, "num_key_value_heads") => Some(2),
            (Defaults::Qwen35MoeText, "num_experts") => Some(256),
            (Defaults::Qwen35MoeText, "num_experts_per_tok") => Some(8),
            (
                Defaults::Qwen35MoeText,
                "moe_intermediate_size" | "shared_expert_intermediate_size",
            ) => Some(512),
            (Defaults::MllamaText, key) => match key {
                "hidden_size" => Some(4096),
                "intermediate_size" => Some(14336),
                "num_hidden_layers" => Some(40),
                "num_attention_heads" => Some(32),
                "num_key_value_heads" => Some(8),
                "vocab_size" => Some(128_256),
                "max_position_embeddings" => Some(131_072),
                _ => None,
            },
            (Defaults::MllamaVision, key) => match key {
                "hidden_size" => Some(1280),
                "intermediate_size" => Some(5120),
                "num_hidden_layers" => Some(32),
                "num_global_layers" => Some(8),
                "attention_heads" | "num_attention_heads" => Some(16),
                "image_size" => Some(448),
                "patch_size" => Some(14),
                "max_num_tiles" => Some(4),
                "vision_output_dim" => Some(7680),
                _ => None,
            },
            (Defaults::Qwen35Text | Defaults::Qwen35MoeText, key) => match key {
                "num_attention_heads" | "linear_num_key_heads" => Some(16),
                "head_dim" => Some(256),
                "linear_num_value_heads" => Some(32),
                "linear_key_head_dim" | "linear_value_head_dim" => Some(128),
                "linear_conv_kernel_dim" => Some(4),
                "vocab_size" => Some(248_320),
                "max_position_embeddings" => Some(32768),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The names families give the common fields, in the order they are tried.
pub(super) const HIDDEN: &[&str] = &["hidden_size", "n_embd", "d_model", "n_embed"];
pub(super) const LAYERS: &[&str] = &["num_hidden_layers", "n_layer", "num_layers", "n_layers"];
pub(super) const VOCAB: &[&str] = &["vocab_size"];
// XGLM calls them `attention_heads`.
pub(super) const HEADS: &[&str] = &[
    "num_attention_heads",
    "n_head",
    "num_heads",
    "n_heads",
    "attention_heads",
];
pub(super) const KV_HEADS: &[&str] = &["num_key_value_heads", "num_kv_heads", "n_head_kv"];
pub(super) const POSITIONS: &[&str] = &[
    "max_position_embeddings",
    "n_positions",
    "seq_length",
    "max_seq_len",
];

/// A JSON object with the path used in error messages.
pub(super) struct Cfg<'a> {
    pub(super) obj: &'a Map<String, Value>,
    pub(super) prefix: String,
    pub(super) defaults: Defaults,
}

impl<'a> Cfg<'a> {
    pub(super) fn new(obj: &'a Map<String, Value>, prefix: &str) -> Self {
        Cfg {
            obj,
            prefix: prefix.to_string(),
            defaults: Defaults::None,
        }
    }

    pub(super) fn field(&self, key: &str) -> String {
        format!("config.json: {}{key}", self.prefix)
    }

    /// The first of `keys` present and not null.
    pub(super) fn find(&self, keys: &[&'a str]) -> Option<(&'a str, &'a Value)> {
        keys.iter()
            .find_map(|k| self.obj.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
    }

    /// An integer in `min..=max` under any of `keys`, or `None` when absent.
    pub(super) fn int(&self, keys: &[&'a str], min: u64, max: u64) -> Result<Option<u64>> {
        let Some((key, value)) = self.find(keys) else {
            // An explicit null (DeepSeek-V2-Lite's `q_lora_rank`) means "none",
            // not "the class default": only an absent key takes it.
            let null = keys.iter().any(|k| self.obj.get(*k) == Some(&Value::Null));
            let fallback = keys
                .iter()
                .find_map(|k| self.defaults.value(k))
                .or_else(|| {
                    (!null)
                        .then(|| keys.iter().find_map(|k| self.class_default(k)))
                        .flatten()
                });
            // A class default of 0 for a positive field means "none"
            // (GLM-5.3's `head_dim`, which its class sets to the rotary
            // width, 0). Any other default can fall outside what the
            // config's other values allow (more shared layers than
            // layers): refused by name.
            if fallback == Some(0) && min > 0 {
                return Ok(None);
            }
            if let Some(n) = fallback.filter(|n| *n < min || *n > max) {
                let key = keys.first().copied().unwrap_or("?");
                return Err(InputError::new(
                    self.field(key),
                    format!("is missing, and its default {n} is out of range here: allowed {min} to {max}"),
                ));
            }
            return Ok(fallback);
        };
        let number = match value {
            Value::Number(n) => n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e18)
                    .map(|f| f as u64)
            }),
            _ => None,
        };
        let Some(number) = number else {
            return Err(InputError::new(
                self.field(key),
                format!("expected a whole number from {min} to {max}, got {value}"),
            ));
        };
        if number < min || number > max {
            return Err(InputError::out_of_range(&self.field(key), number, min, max));
        }
        Ok(Some(number))
    }

    /// A number in `min..=max` under `key`, or `None` when absent.
    pub(super) fn float(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if (min..=max).contains(&x) => Ok(Some(x)),
                _ => Err(InputError::new(
                    self.field(key),
                    format!(
                        "{n} is out of range: allowed {} to {}",
                        Decimal(min),
                        Decimal(max)
                    ),
                )),
            },
            Some(other) => Err(InputError::new(
                self.field(key),
                format!(
                    "expected a number from {} to {}, got {other}",
                    Decimal(min),
                    Decimal(max)
                ),
            )),
        }
    }

    /// The strings of the list under `key` (`layer_types`), or `None` when absent.
    pub(super) fn strings(&self, key: &str) -> Result<Option<Vec<&'a str>>> {
        let Some(items) = self.array(key)? else {
            return Ok(None);
        };
        items
            .iter()
            .map(|v| {
                v.as_str().ok_or_else(|| {
                    InputError::new(self.field(key), format!("expected strings, got {v}"))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    pub(super) fn req(&self, keys: &[&'a str], min: u64, max: u64) -> Result<u64> {
        self.int(keys, min, max)?.ok_or_else(|| {
            let also = if keys.len() > 1 {
                format!(" (also read as {})", keys[1..].join(", "))
            } else {
                String::new()
            };
            InputError::new(
                self.field(keys.first().copied().unwrap_or("?")),
                format!("is missing{also}: allowed {min} to {max}"),
            )
        })
    }

    /// transformers' default for `key` in this object's own config class
    /// (`class_defaults.rs`): what transformers fills in when a config
    /// leaves the key out, as a diff-saved or hand-written config does.
    fn class_default(&self, key: &str) -> Option<u64> {
        class_default_of(self.obj.get("model_type")?.as_str()?, key)
    }

    /// A flag under `key`; absent, the config class's default (the class
    /// the object is read as, else the one its `model_type` names), else
    /// `default`.
    pub(super) fn flag(&self, key: &str, default: bool) -> Result<bool> {
        match self.obj.get(key) {
            None => Ok(self
                .defaults
                .value(key)
                .or_else(|| self.class_default(key))
                .map_or(default, |v| v != 0)),
            Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(InputError::new(
                self.field(key),
                format!("expected true or false, got {other}"),
            )),
        }
    }

    pub(super) fn string(&self, key: &str) -> Result<Option<&'a str>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(InputError::new(
                self.field(key),
                format!("expected a string, got {other}"),
            )),
        }
    }

    pub(super) fn object(&self, key: &str) -> Result<Option<Cfg<'a>>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(o)) => Ok(Some(Cfg::new(o, &format!("{}{key}.", self.prefix)))),
            Some(other) => Err(InputError::new(
                self.field(key),
                format!("expected an object, got {other}"),
            )),
        }
    }

    /// The nested object at `key`, or, when it is absent or null, an empty
    /// one (`empty`, which outlives both), so every field takes its config
    /// class's default, as transformers builds a missing sub-config.
    pub(super) fn object_or_empty(
        &self,
        key: &str,
        empty: &'a Map<String, Value>,
    ) -> Result<Cfg<'a>> {
        Ok(self
            .object(key)?
            .unwrap_or_else(|| Cfg::new(empty, &format!("{}{key}.", self.prefix))))
    }

    /// A wrapper's `text_config`, an absent one read as empty: one that
    /// names no `model_type` takes `class`'s defaults, as the wrapper's
    /// `sub_configs_defaults` builds it; one that names a type, that type's.
    pub(super) fn text_config_or_class(
        &self,
        empty: &'a Map<String, Value>,
        class: &'static str,
    ) -> Result<Cfg<'a>> {
        let mut text = self.object_or_empty("text_config", empty)?;
        if text.string("model_type")?.is_none() {
            text.defaults = Defaults::Class(class);
        }
        Ok(text)
    }

    /// The nested object at `key` over a wrapper's own defaults for it
    /// (`defaults`, the JSON its config class builds when the key is
    /// absent): an absent or null one is the defaults; a given one replaces
    /// them whole, or, with `merge`, fills in only the keys it lacks (as
    /// each config class does with a dict).
    pub(super) fn object_over_defaults(
        &self,
        key: &str,
        defaults: &str,
        merge: bool,
    ) -> Result<Map<String, Value>> {
        let mut base: Map<String, Value> = serde_json::from_str(defaults).unwrap_or_default();
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(base),
            Some(Value::Object(given)) if merge => {
                base.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
                Ok(base)
            }
            Some(Value::Object(given)) => Ok(given.clone()),
            Some(other) => Err(InputError::new(
                self.field(key),
                format!("expected an object, got {other}"),
            )),
        }
    }

    /// The nested object at `key` that a `kind` config must carry
    /// (`text_config`, `vision_config`), or an error naming it.
    pub(super) fn required_object(&self, key: &str, kind: &str) -> Result<Cfg<'a>> {
        self.object(key)?.ok_or_else(|| {
            InputError::new(
                self.field(key),
                format!("is missing: a {kind} config needs one"),
            )
        })
    }

    /// The whole numbers of the list under `key` (a tuple saved as a
    /// list: `channel_multiplier`), each in `min..=max`, or `None` when
    /// absent; an entry out of range names its place.
    pub(super) fn ints(&self, key: &str, min: u64, max: u64) -> Result<Option<Vec<u64>>> {
        let Some(items) = self.array(key)? else {
            return Ok(None);
        };
        let whole = |v: &Value| {
            v.as_u64().or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e18)
                    .map(|f| f as u64)
            })
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            match whole(v).filter(|n| (min..=max).contains(n)) {
                Some(n) => out.push(n),
                None => {
                    return Err(InputError::new(
                        self.field(key),
                        format!("entry {i} is {v}: allowed whole numbers from {min} to {max}"),
                    ))
                }
            }
        }
        Ok(Some(out))
    }

    pub(super) fn array(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(other) => Err(InputError::new(
                self.field(key),
                format!("expected a list, got {other}"),
            )),
        }
    }

    pub(super) fn model_type(&self) -> Result<&'a str> {
        if let Some(t) = self.string("model_type")? {
            return Ok(t);
        }
        // Old Falcon checkpoints name only their class.
        if let Some(list) = self.array("architectures")? {
            if let Some(Value::String(first)) = list.first() {
                if first.starts_with("RefinedWeb") || first.starts_with("Falcon") {
                    return Ok("falcon");
                }
            }
        }
        Err(InputError::new(
            self.field("model_type"),
            format!("is missing: supported: {}", model_type_list()),
        ))
    }

    /// True when `architectures` lists a class whose name ends with `suffix`.
    pub(super) fn has_architecture(&self, suffix: &str) -> Result<bool> {
        Ok(self.array("architectures")?.is_some_and(|list| {
            list.iter()
                .any(|a| a.as_str().is_some_and(|s| s.ends_with(suffix)))
        }))
    }

    /// Maps a `model.*` error from `ModelSpec::validate` to the config key.
    pub(super) fn rename_error(&self, e: InputError) -> InputError {
        let keys: &[&str] = match e.field.as_str() {
            "model.hidden" => &["hidden_size", "n_embd", "d_model", "n_embed"],
            "model.layers" => &[
                "num_hidden_layers",
                "n_layer",
                "num_decoder_layers",
                "num_layers",
            ],
            "model.heads" => &["num_attention_heads", "n_head", "num_heads"],
            "model.kv_heads" => &["num_key_value_heads", "num_kv_heads", "n_head_kv"],
            "model.head_dim" => &["head_dim", "d_kv"],
            "model.intermediate" => &["intermediate_size", "n_inner", "d_ff", "ffn_dim"],
            "model.vocab" => &["vocab_size"],
            _ => &[],
        };
        let field = match keys.iter().find(|k| self.obj.contains_key(**k)) {
            Some(k) => self.field(k),
            None => format!("config.json ({})", e.field),
        };
        InputError::new(field, e.message)
    }
}

/// The default of `key` in `model_type`'s config class (`class_defaults.rs`).
fn class_default_of(model_type: &str, key: &str) -> Option<u64> {
    let (_, defaults) = CLASS_DEFAULTS.iter().find(|(t, _)| *t == model_type)?;
    defaults.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
}

/// `attention_bias` on q/k/v and the output (and `mlp_bias` on the MLP),
/// with the family's default.
pub(super) fn attention_bias(cfg: &Cfg, spec: &mut ModelSpec, default: bool) -> Result<()> {
    let bias = cfg.flag("attention_bias", default)?;
    spec.qkv_bias = bias;
    spec.out_bias = bias;
    spec.mlp_bias = Some(cfg.flag("mlp_bias", false)?);
    Ok(())
}

/// The feed-forward width (LFM2 calls it `block_ff_dim`).
pub(super) fn dense_width(cfg: &Cfg) -> Result<u64> {
    cfg.req(&["intermediate_size", "block_ff_dim"], 1, MAX_DIM)
}

/// Of `layers`, those that slide when every `pattern`-th attends globally
/// (the config classes' `(i + 1) % pattern != 0`).
pub(super) fn sliding_in_pattern(layers: u64, pattern: u64) -> u64 {
    layers - layers / pattern.max(1)
}

/// Keeps `spec`'s window on `sliding` layers, or drops it when none slide.
pub(super) fn slide_layers(spec: &mut ModelSpec, sliding: u64) {
    let layers = spec.layers;
    spec.sliding_window =
        spec.sliding_window
            .take()
            .filter(|_| sliding > 0)
            .map(|w| crate::model::SlidingWindow {
                layers: sliding.min(layers),
                ..w
            });
}

/// Counts of `layer_types` entries (`full_attention`, `linear_attention`, ...).
pub(super) struct LayerTypes<'a>(pub(super) Vec<&'a str>);

impl LayerTypes<'_> {
    pub(super) fn count(&self, names: &[&str]) -> u64 {
        self.0.iter().filter(|t| names.contains(t)).count() as u64
    }
}

/// The config's `layer_types`, which must list every layer when present.
pub(super) fn layer_types<'a>(cfg: &Cfg<'a>, layers: u64) -> Result<Option<LayerTypes<'a>>> {
    Ok(per_layer_strings(cfg, "layer_types", layers)?.map(LayerTypes))
}

/// A per-layer list of names (`layer_types`, `mlp_layer_types`,
/// `layers_block_type`), which must list every layer when present.
pub(super) fn per_layer_strings<'a>(
    cfg: &Cfg<'a>,
    key: &str,
    layers: u64,
) -> Result<Option<Vec<&'a str>>> {
    let Some(types) = cfg.strings(key)? else {
        return Ok(None);
    };
    one_per_layer(cfg, key, types.len(), layers)?;
    Ok(Some(types))
}

/// Refuses a per-layer list of `listed` entries for `layers` layers.
pub(super) fn one_per_layer(cfg: &Cfg, key: &str, listed: usize, layers: u64) -> Result<()> {
    if listed as u64 == layers {
        return Ok(());
    }
    Err(InputError::new(
        cfg.field(key),
        format!("lists {listed} layers but num_hidden_layers is {layers}"),
    ))
}

/// `time_step_rank` / `mamba_dt_rank`: a number or `"auto"` = ⌈hidden / 16⌉
/// (Mamba's, Jamba's and Zamba's configs).
pub(super) fn dt_rank(cfg: &Cfg, key: &'static str, hidden: u64) -> Result<u64> {
    match cfg.obj.get(key) {
        None | Some(Value::Null) => Ok(hidden.div_ceil(16)),
        Some(Value::String(s)) if s == "auto" => Ok(hidden.div_ceil(16)),
        _ => cfg.req(&[key], 1, MAX_DIM),
    }
}

/// The two stacks of a Whisper- or BART-style encoder-decoder: its width,
/// encoder and decoder layers, decoder heads and the two MLP widths.
/// `attribute_map`'s names (`hidden_size`, `num_hidden_layers`,
/// `num_attention_heads`: the encoder's) win over the fields when a config
/// gives both, as transformers sets them last; every head count must divide
/// the width.
pub(super) struct EncoderDecoder {
    pub(super) width: u64,
    pub(super) encoder: u64,
    pub(super) decoder: u64,
    pub(super) heads: u64,
    pub(super) encoder_ffn: u64,
    pub(super) decoder_ffn: u64,
}

pub(super) fn encoder_decoder(cfg: &Cfg) -> Result<EncoderDecoder> {
    let width = cfg.req(&["hidden_size", "d_model"], 1, crate::model::MAX_DIM)?;
    let layers = |keys: &[&'static str]| cfg.req(keys, 1, crate::model::MAX_LAYERS);
    let heads = |keys: &[&'static str]| cfg.req(keys, 1, crate::model::MAX_HEADS);
    let decoder_heads = heads(&["decoder_attention_heads"])?;
    let encoder_heads = heads(&["num_attention_heads", "encoder_attention_heads"])?;
    for (key, h) in [
        ("decoder_attention_heads", decoder_heads),
        ("encoder_attention_heads", encoder_heads),
    ] {
        if !width.is_multiple_of(h) {
            return Err(InputError::new(
                cfg.field(key),
                format!("is {h}: it must divide d_model ({width})"),
            ));
        }
    }
    Ok(EncoderDecoder {
        width,
        encoder: layers(&["num_hidden_layers", "encoder_layers"])?,
        decoder: layers(&["decoder_layers"])?,
        heads: decoder_heads,
        encoder_ffn: cfg.req(&["encoder_ffn_dim"], 1, crate::model::MAX_DIM)?,
        decoder_ffn: cfg.req(&["decoder_ffn_dim"], 1, crate::model::MAX_DIM)?,
    })
}
