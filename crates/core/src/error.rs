//! Errors that name the offending field and the range it accepts.

use std::fmt;

/// An input the estimator cannot use. `field` is the path of the input
/// (`model.hidden`, `training.micro_batch`, `config.json: num_attention_heads`),
/// `message` says what is wrong and what range is allowed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    pub field: String,
    pub message: String,
}

/// How every range error reads: `{value}{OUT_OF_RANGE}{min} to {max}`.
const OUT_OF_RANGE: &str = " is out of range: allowed ";

impl InputError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }

    /// `value` of `field` is outside `min..=max`.
    pub fn out_of_range(field: &str, value: impl fmt::Display, min: u64, max: u64) -> Self {
        Self::new(field, format!("{value}{OUT_OF_RANGE}{min} to {max}"))
    }

    /// The message in `lang`. Range errors (the most common, and every one
    /// written by [`InputError::out_of_range`]) read in Chinese too; other
    /// messages stay English.
    pub fn text(&self, lang: crate::lang::Lang) -> String {
        match (lang, self.message.split_once(OUT_OF_RANGE)) {
            (crate::lang::Lang::Zh, Some((value, allowed))) => {
                format!("{value} 超出范围：允许 {}", allowed.replace(" to ", " 到 "))
            }
            _ => self.message.clone(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for InputError {}

pub type Result<T> = std::result::Result<T, InputError>;

/// Checks `min <= value <= max` for an integer field. Never inlined: it is
/// called in well over a hundred places, and a copy of the error's
/// construction at each is kilobytes of the page's wasm.
#[inline(never)]
pub fn check_range(field: &str, value: u64, min: u64, max: u64) -> Result<u64> {
    if value < min || value > max {
        Err(InputError::out_of_range(field, value, min, max))
    } else {
        Ok(value)
    }
}

/// The first of a run of range checks that failed: each check is one call
/// that records, not a `?` copying the error at every place (kilobytes of
/// the page's wasm over the validators' hundreds of checks). A value read
/// after a failed check must not panic; [`RangeChecks::result`] ends a run.
#[derive(Default)]
pub struct RangeChecks(Option<InputError>);

impl RangeChecks {
    #[inline(never)]
    pub fn check(&mut self, field: &'static str, value: u64, min: u64, max: u64) {
        if self.0.is_none() {
            self.0 = check_range(field, value, min, max).err();
        }
    }

    /// The first failure, taken; `Ok` when every check passed.
    pub fn result(&mut self) -> Result<()> {
        self.0.take().map_or(Ok(()), Err)
    }
}

/// Checked arithmetic on byte counts: every overflow becomes an error naming
/// what was being computed, never a wrap or a panic.
pub trait Checked: Sized {
    fn mul_or(self, rhs: u64, what: &str) -> Result<u64>;
    fn add_or(self, rhs: u64, what: &str) -> Result<u64>;
}

impl Checked for u64 {
    fn mul_or(self, rhs: u64, what: &str) -> Result<u64> {
        self.checked_mul(rhs).ok_or_else(|| {
            InputError::new(
                what,
                "the size overflows 64-bit bytes: inputs are too large",
            )
        })
    }
    fn add_or(self, rhs: u64, what: &str) -> Result<u64> {
        self.checked_add(rhs).ok_or_else(|| {
            InputError::new(
                what,
                "the size overflows 64-bit bytes: inputs are too large",
            )
        })
    }
}

/// Multiplies a list of factors with overflow checks.
pub fn product(what: &str, factors: &[u64]) -> Result<u64> {
    factors.iter().try_fold(1u64, |acc, &f| acc.mul_or(f, what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;

    #[test]
    fn range_errors_speak_both_languages() {
        let err = check_range("training.micro_batch", 0, 1, 65_536).expect_err("0 < 1");
        assert_eq!(err.text(Lang::En), "0 is out of range: allowed 1 to 65536");
        assert_eq!(err.text(Lang::Zh), "0 超出范围：允许 1 到 65536");
        // Messages without a Chinese text fall back to English.
        let other = InputError::new("parallel.tp", "must divide the heads");
        assert_eq!(other.text(Lang::En), "must divide the heads");
        assert_eq!(other.text(Lang::Zh), "must divide the heads");
    }
}
