//! Decimal text to `f64`, exactly as `str::parse::<f64>` reads it, without
//! the standard library's float parser.
//!
//! `str::parse::<f64>` is exact and fast, but its fast path carries a table
//! of 128-bit powers of five (10 KB, and it does not compress) that, with the
//! code around it, cost the web app's first load 13 KB gzipped. The numbers
//! read here are few and short (a link's fields, a typed value), so this
//! parser always takes the slow exact path: the digits as a big integer,
//! scaled by their power of ten, divided down to 56 bits and rounded half to
//! even. `tests/decimal.rs` checks it against `str::parse::<f64>` bit for bit
//! (random numbers, every exact halfway case it builds, long and malformed
//! texts).

use std::cmp::Ordering;

/// Significant digits kept. A halfway point between two adjacent `f64`s has
/// at most 768 significant digits, so the digits after the 800th only tell
/// whether the rest is zero: a nonzero rest is read as one more digit `1`,
/// which rounds the same way.
const MAX_DIGITS: usize = 800;

/// The value of `text` in Rust's float syntax (`[+-]`, digits with an
/// optional `.`, at least one digit, an optional `e`/`E` exponent), rounded
/// to the nearest `f64` with ties to even: the value `text.parse::<f64>()`
/// returns. `None` where that is an error or not finite (`inf`, `NaN`, a
/// value past `f64::MAX`).
pub fn parse_f64(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    // The value is `digits × 10^exponent`; leading zeros are not kept.
    let mut digits: Vec<u8> = Vec::new();
    let mut exponent: i64 = 0;
    let mut any_digit = false;
    let mut in_fraction = false;
    let mut dropped_nonzero = false;
    let mut at = 0;
    while let Some(&c) = rest.get(at) {
        match c {
            b'0'..=b'9' => {
                any_digit = true;
                let digit = c - b'0';
                if digits.len() < MAX_DIGITS {
                    if !(digits.is_empty() && digit == 0) {
                        digits.push(digit);
                    }
                    if in_fraction {
                        exponent -= 1;
                    }
                } else {
                    if !in_fraction {
                        exponent += 1;
                    }
                    dropped_nonzero |= digit != 0;
                }
            }
            b'.' if !in_fraction => in_fraction = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        at += 1;
    }
    if !any_digit {
        return None;
    }
    if at < rest.len() {
        exponent += read_exponent(&rest[at + 1..])?;
    }
    if dropped_nonzero {
        digits.push(1);
        exponent -= 1;
    } else {
        while digits.last() == Some(&0) {
            digits.pop();
            exponent += 1;
        }
    }
    let zero = if negative { -0.0 } else { 0.0 };
    let count = digits.len() as i64;
    // Below 10^-325 everything rounds to zero; from 10^309 up, past f64::MAX.
    if digits.is_empty() || count + exponent < -324 {
        return Some(zero);
    }
    if count - 1 + exponent > 308 {
        return None;
    }
    let bits = round_to_bits(&digits, exponent)?;
    let value = f64::from_bits(bits);
    Some(if negative { -value } else { value })
}

/// The exponent after `e`: an optional sign and at least one digit. As in
/// `str::parse`, digits stop counting once the exponent reaches 0x10000
/// (far past where every value is zero or too large).
fn read_exponent(text: &[u8]) -> Option<i64> {
    let (sign, digits) = match text.split_first() {
        Some((b'-', rest)) => (-1, rest),
        Some((b'+', rest)) => (1, rest),
        _ => (1, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        if value < 0x10000 {
            value = value * 10 + i64::from(c - b'0');
        }
    }
    Some(sign * value)
}

/// The bits of the `f64` nearest `digits × 10^exponent` (a nonzero value
/// under 10^309), ties to even; `None` when it rounds past `f64::MAX`.
fn round_to_bits(digits: &[u8], exponent: i64) -> Option<u64> {
    let mut num = Big::from_digits(digits);
    let mut den = Big(vec![1]);
    if exponent >= 0 {
        num.mul_pow10(exponent.unsigned_abs());
    } else {
        den.mul_pow10(exponent.unsigned_abs());
    }
    // Scale by 2^shift so that the quotient q = ⌊num / den⌋ has 55 or 56 bits.
    let shift = 55 - (num.bit_len() - den.bit_len());
    if shift >= 0 {
        num = num.shl(shift.unsigned_abs());
    } else {
        den = den.shl(shift.unsigned_abs());
    }
    let mut quotient: u64 = 0;
    for bit in (0..56).rev() {
        let part = den.shl(bit);
        if num.cmp(&part) != Ordering::Less {
            num.sub(&part);
            quotient |= 1 << bit;
        }
    }
    let inexact = !num.is_zero();
    // value = (quotient + rest) × 2^-shift; its unit in the last place is
    // 2^ulp: 53 significant bits, or 2^-1074 for subnormals.
    let top = 63 - i64::from(quotient.leading_zeros());
    let mut ulp = (top - shift - 52).max(-1074);
    let drop = ulp + shift;
    if drop > 56 {
        // Under half the smallest subnormal.
        return Some(0);
    }
    let mut mantissa = quotient >> drop;
    let rest = quotient & ((1 << drop) - 1);
    let half = 1 << (drop - 1);
    if rest > half || (rest == half && (inexact || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        ulp += 1;
    }
    if mantissa < 1 << 52 {
        // Subnormal (ulp is 2^-1074): the biased exponent is 0.
        return Some(mantissa);
    }
    let biased = u64::try_from(ulp + 1075).ok()?;
    (biased < 2047).then_some((biased << 52) | (mantissa & ((1 << 52) - 1)))
}

/// A nonnegative big integer: 32-bit limbs, least significant first, no
/// high zero limbs (zero is empty).
struct Big(Vec<u32>);

impl Big {
    fn from_digits(digits: &[u8]) -> Self {
        let mut big = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let mut value = 0;
            for &d in chunk {
                value = value * 10 + u32::from(d);
            }
            big.mul_add(10u32.pow(chunk.len() as u32), value);
        }
        big
    }

    /// `self × factor + add`.
    fn mul_add(&mut self, factor: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(factor) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut power: u64) {
        while power > 0 {
            let step = power.min(9);
            self.mul_add(10u32.pow(step as u32), 0);
            power -= step;
        }
    }

    fn bit_len(&self) -> i64 {
        match self.0.last() {
            Some(top) => self.0.len() as i64 * 32 - i64::from(top.leading_zeros()),
            None => 0,
        }
    }

    fn shl(&self, bits: u64) -> Big {
        let (limbs, bits) = ((bits / 32) as usize, (bits % 32) as u32);
        let mut out = vec![0; limbs];
        if bits == 0 {
            out.extend_from_slice(&self.0);
        } else {
            let mut carry = 0;
            for &limb in &self.0 {
                out.push((limb << bits) | carry);
                carry = limb >> (32 - bits);
            }
            if carry > 0 {
                out.push(carry);
            }
        }
        Big(out)
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `self − other`, for `other ≤ self`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = false;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let (d, b1) = limb.overflowing_sub(other.0.get(i).copied().unwrap_or(0));
            let (d, b2) = d.overflowing_sub(u32::from(borrow));
            *limb = d;
            borrow = b1 || b2;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
}
