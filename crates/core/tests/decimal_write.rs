//! `decimal::Decimal` against the standard library's float formatting,
//! character for character: `{}` (shortest round trip), `{:.N}` (exact,
//! half to even), with width and alignment, on random values of every
//! magnitude, on exact halfway cases and on the values the app prints.

use vramfit_core::decimal::Decimal;

#[track_caller]
fn check(x: f64) {
    assert_eq!(format!("{}", Decimal(x)), format!("{x}"), "{{}} of {:e}", x);
    for places in [0usize, 1, 2, 3, 4, 6, 9, 17] {
        assert_eq!(
            format!("{:.*}", places, Decimal(x)),
            format!("{x:.places$}"),
            "{{:.{places}}} of {x:e}"
        );
    }
}

/// xorshift64*: the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn values_the_app_prints() {
    for x in [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        0.2,
        0.3,
        0.5,
        1.5,
        2.5,
        0.25,
        0.125,
        0.35,
        0.45,
        1.005,
        2.675,
        9.995,
        99.95,
        0.9,
        0.95,
        0.05,
        1e-7,
        1e21,
        1e22,
        1e23,
        123456.789,
        1.0 / 3.0,
        2.0 / 3.0,
        4.0 / 1024.0,
        1.1,
        2.2,
        3.3,
        80.0,
        79.99,
        1e15,
        1e16,
        1e17,
        9007199254740993.0,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1.7976931348623157e308,
    ] {
        check(x);
        check(-x);
    }
}

#[test]
fn infinities_and_nan() {
    for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        assert_eq!(format!("{}", Decimal(x)), format!("{x}"));
        assert_eq!(format!("{:.2}", Decimal(x)), format!("{x:.2}"));
    }
}

#[test]
fn width_fill_and_alignment() {
    for x in [3.25, -3.25, 1234.5, 0.0] {
        assert_eq!(format!("{:8.1}", Decimal(x)), format!("{x:8.1}"));
        assert_eq!(format!("{:<8.1}|", Decimal(x)), format!("{x:<8.1}|"));
        assert_eq!(format!("{:>8}", Decimal(x)), format!("{x:>8}"));
        assert_eq!(format!("{:^9.2}", Decimal(x)), format!("{x:^9.2}"));
        assert_eq!(format!("{:08.2}", Decimal(x)), format!("{x:08.2}"));
        assert_eq!(format!("{:+.1}", Decimal(x)), format!("{x:+.1}"));
    }
}

#[test]
fn random_bit_patterns() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..1_500 {
        let x = f64::from_bits(rng.next());
        if x.is_finite() {
            check(x);
        }
    }
}

#[test]
fn random_values_of_everyday_magnitude() {
    let mut rng = Rng(42);
    for _ in 0..8_000 {
        // A few significant digits at a scale from 1e-6 to 1e12: GiB,
        // fractions, ratios, rates.
        let digits = (rng.next() % 1_000_000) as f64;
        let scale = 10f64.powi((rng.next() % 19) as i32 - 6);
        let x = digits * scale / 1000.0;
        check(x);
        let ratio = (rng.next() % 100_000) as f64 / ((rng.next() % 9_999) + 1) as f64;
        check(ratio);
    }
}

#[test]
fn exact_halfway_cases_round_to_even() {
    // k + 1/2 at every place from units to 2^-20: exact in binary, so the
    // standard library sees a tie and keeps the even digit.
    for k in 0..2_000u32 {
        for shift in 1..=20 {
            let x = (f64::from(k) * 2.0 + 1.0) / f64::from(1u32 << shift);
            check(x);
        }
    }
}
