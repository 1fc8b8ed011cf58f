//! `f64` to decimal text, exactly as `format!("{x}")` and `format!("{x:.N}")`
//! write it, without the standard library's float formatter (Grisu and
//! Dragon with their tables: 7.2 KB of the web app's first load,
//! gzipped, measured with `scripts/size-report.sh`).
//!
//! Every finite `f64` is a finite decimal, so the value's whole expansion is
//! built exactly (its integer mantissa times a power of two or five), then
//! rounded half to even at the place asked for: `{:.N}`. The shortest form
//! (`{}`) is the first rounding to nearest (a tie up, as the standard
//! library's shortest mode rounds), by significant digits, that
//! [`parse_f64`] reads back to the same value; it exists, as the whole
//! expansion reads back exactly, and where any rounding of a length reads
//! back, the nearest does. `tests/decimal.rs` checks both against the standard library on
//! random values of every magnitude and on exact halfway cases.

use std::fmt;

use super::parse::parse_f64;

/// An `f64` that formats as the standard library formats it (`{}`, `{:.N}`,
/// width, fill and alignment), through this module's exact expansion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decimal(pub f64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.pad_integral(true, "", "NaN");
        }
        let text = if x.is_infinite() {
            "inf".to_owned()
        } else {
            let digits = Digits::of(x.abs());
            match f.precision() {
                Some(places) => digits
                    .rounded(digits.point + places as i64, false)
                    .fixed(places),
                None => digits.shortest(x.abs()),
            }
        };
        f.pad_integral(!x.is_sign_negative(), "", &text)
    }
}

/// A nonnegative decimal `0.d₁d₂… × 10^point`: digits most significant
/// first, no leading zero (zero has none).
struct Digits {
    digits: Vec<u8>,
    point: i64,
}

impl Digits {
    /// The exact expansion of a finite, nonnegative `x`.
    fn of(x: f64) -> Digits {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa × 2^exponent
        let (mantissa, exponent) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), biased - 1075)
        };
        // Least significant digit first while multiplying.
        let mut digits: Vec<u8> = mantissa
            .to_string()
            .bytes()
            .rev()
            .map(|b| b - b'0')
            .collect();
        let point = if exponent >= 0 {
            // Times 2^exponent, at most 2^29 a step (the carry stays in u64).
            let mut left = exponent;
            while left > 0 {
                let step = left.min(29);
                multiply(&mut digits, 1 << step);
                left -= step;
            }
            digits.len() as i64
        } else {
            // m × 2^-k = m × 5^k / 10^k: at most 5^13 a step.
            let mut left = -exponent;
            while left > 0 {
                let step = left.min(13);
                multiply(&mut digits, 5u64.pow(step as u32));
                left -= step;
            }
            digits.len() as i64 + exponent
        };
        digits.reverse();
        let mut out = Digits { digits, point };
        out.trim();
        out
    }

    /// Drops leading zeros (moving the point) and trailing zeros.
    fn trim(&mut self) {
        let lead = self.digits.iter().take_while(|&&d| d == 0).count();
        self.digits.drain(..lead);
        self.point -= lead as i64;
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }

    /// The first `keep` digits, rounded to nearest on the rest; a tie
    /// goes to even, or up where `ties_up` (the shortest form's rule).
    fn rounded(&self, keep: i64, ties_up: bool) -> Digits {
        let len = self.digits.len() as i64;
        if keep >= len {
            return Digits {
                digits: self.digits.clone(),
                point: self.point,
            };
        }
        let zero = Digits {
            digits: Vec::new(),
            point: 0,
        };
        if keep < 0 {
            // The value is under a tenth of the last place kept.
            return zero;
        }
        let at = keep as usize;
        let first = self.digits[at];
        let rest_nonzero = self.digits[at + 1..].iter().any(|&d| d != 0);
        let kept_odd = ties_up || (at > 0 && self.digits[at - 1] % 2 == 1);
        let mut digits = self.digits[..at].to_vec();
        let mut point = self.point;
        if first > 5 || (first == 5 && (rest_nonzero || kept_odd)) {
            // Add one in the last kept place; all nines carry into a new digit.
            let mut i = digits.len();
            loop {
                if i == 0 {
                    digits.insert(0, 1);
                    point += 1;
                    break;
                }
                i -= 1;
                if digits[i] == 9 {
                    digits[i] = 0;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        } else if digits.is_empty() {
            return zero;
        }
        let mut out = Digits { digits, point };
        out.trim();
        out
    }

    /// The text with `places` digits after the point (none: no point).
    fn fixed(&self, places: usize) -> String {
        let digit = |i: i64| -> char {
            let d = usize::try_from(i)
                .ok()
                .and_then(|i| self.digits.get(i))
                .copied();
            char::from(b'0' + d.unwrap_or(0))
        };
        let mut text = String::new();
        if self.point <= 0 {
            text.push('0');
        } else {
            text.extend((0..self.point).map(digit));
        }
        if places > 0 {
            text.push('.');
            text.extend((self.point..self.point + places as i64).map(digit));
        }
        text
    }

    /// The fewest significant digits that read back as `x`: the nearest
    /// such rounding, a tie rounded up, as the standard library's
    /// shortest mode (`flt2dec::strategy::dragon::format_shortest`) does.
    fn shortest(&self, x: f64) -> String {
        for keep in 1..self.digits.len() as i64 {
            let candidate = self.rounded(keep, true);
            let text = candidate.fixed(candidate.places());
            if parse_f64(&text) == Some(x) {
                return text;
            }
        }
        self.fixed(self.places())
    }

    /// Digits after the point.
    fn places(&self) -> usize {
        usize::try_from(self.digits.len() as i64 - self.point).unwrap_or(0)
    }
}

/// `digits × factor` in place (least significant digit first).
fn multiply(digits: &mut Vec<u8>, factor: u64) {
    let mut carry = 0u64;
    for d in digits.iter_mut() {
        let t = u64::from(*d) * factor + carry;
        *d = (t % 10) as u8;
        carry = t / 10;
    }
    while carry > 0 {
        digits.push((carry % 10) as u8);
        carry /= 10;
    }
}
