//! The languages every text of the core exists in (notes, errors, doctor
//! and log diagnoses, wizard rows, plan changes); a leaf module, so any
//! module can speak both without depending on the one that wrote the text.

use serde::Serialize;

/// Language of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    #[default]
    En,
    Zh,
}
