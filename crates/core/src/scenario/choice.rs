//! [`Choice`]: an enum whose every value has a short key, and the one parser
//! of those keys. Links, the CLI's flags, the web's menus and the measured
//! cases all read enum values through [`Choice::parse`], so a spelling that
//! works in one works in all (`train`, `training`, `Training`, `adapter-v2`).
//!
//! The keys of each enum are listed in `url/choice.rs` (scenario enums, the
//! architecture) and beside the wizard's own enums.

/// An enum whose every value has a short key.
pub trait Choice: Sized + Copy + PartialEq + 'static {
    /// Every value, in the order a menu shows them.
    const ALL: &'static [Self];
    /// The key in a link (`lora`, `gguf_q4_k_m`).
    fn key(self) -> &'static str;

    /// The value for a key or a serde name: case-insensitive, `-` read as
    /// `_`, surrounding spaces ignored; `None` otherwise.
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase().replace('-', "_");
        Self::ALL
            .iter()
            .copied()
            .find(|c| c.key() == text)
            .or_else(|| {
                Self::aliases()
                    .iter()
                    .find(|(name, _)| *name == text)
                    .map(|(_, c)| *c)
            })
    }

    /// Other names a value goes by (a scenario file's name where the link's
    /// key is shorter: `training` for `train`); lower case, `_` for `-`.
    /// A test checks every serde name parses.
    fn aliases() -> &'static [(&'static str, Self)] {
        &[]
    }

    /// `a, b, c`: the keys, for messages that say what is allowed.
    fn allowed() -> String {
        Self::keys().join(", ")
    }

    /// The keys in menu order.
    fn keys() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.key()).collect()
    }

    /// The value for `text`, or a message naming the allowed keys.
    fn parse_or_explain(text: &str) -> Result<Self, String> {
        Self::parse(text).ok_or_else(|| format!("\"{text}\" is not one of: {}", Self::allowed()))
    }
}

/// `impl Choice` for an enum from its `Variant => "key"` pairs, in menu order.
macro_rules! choice {
    ($t:ident { $($variant:ident => $key:literal),* $(,)? }) => {
        impl $crate::scenario::choice::Choice for $t {
            const ALL: &'static [Self] = &[$($t::$variant),*];
            fn key(self) -> &'static str {
                match self {
                    $($t::$variant => $key),*
                }
            }
        }
    };
}
pub(crate) use choice;
