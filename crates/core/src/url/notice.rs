//! What a link said that could not be used as given.

/// A parameter of a link that was not used as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The query parameter (`mb`, `s.h`, `v`).
    pub param: String,
    /// What was wrong and what happened instead.
    pub message: String,
}

impl Notice {
    pub(super) fn new(param: &str, message: &str) -> Self {
        Notice {
            param: param.to_owned(),
            message: message.to_owned(),
        }
    }
}
