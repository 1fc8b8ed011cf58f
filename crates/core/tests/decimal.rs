//! `decimal::parse_f64` against `str::parse::<f64>`, bit for bit: it must
//! return the very value the standard parser does wherever that is finite,
//! and `None` elsewhere (errors, infinities, NaN).

use vramfit_core::decimal::parse_f64;

/// What `parse_f64` must return for `text`.
fn expected(text: &str) -> Option<u64> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(f64::to_bits)
}

#[track_caller]
fn check(text: &str) {
    assert_eq!(
        parse_f64(text).map(f64::to_bits),
        expected(text),
        "{text:?}: ours {:?}, std {:?}",
        parse_f64(text),
        text.parse::<f64>()
    );
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

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

#[test]
fn syntax_and_special_values_as_std() {
    for text in [
        "", "+", "-", ".", "+.", "-.", "e", "e5", ".e5", "1e", "1e+", "1e-", "1e5", "1E5", "1.e5",
        ".5", "5.", "+5", "-5", "+-5", "--5", "1.2.3", "1e5e5", "1e5.5", " 1", "1 ", "1_000",
        "0x10", "inf", "-inf", "infinity", "Infinity", "nan", "NaN", "-nan", "0", "-0", "+0",
        "0.0", "-0.0", "0e0", "-0e999999", "00000", "000.000e-5", "1", "-1", "0.1", "0.2", "0.3",
        "1.5", "0.05", "0.95", "23.5", "123456789012345678901234567890", "1e308", "1e309",
        "-1e309", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792",
        "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
        "4.9406564584124654e-324", "4.9406564584124655e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "2.47032822920623272088e-324", "1e-324", "3e-324",
        "1e-325", "1e-400", "-1e-400", "9007199254740993", "9007199254740993.0000000000000000001",
        "9007199254740995", "9007199254740992.9999999999999999", "1e22", "1e23", "8.98846567431158e307",
        "1e65535", "1e65536", "1e655360", "1e6553600", "1e-65536", "1e0000000000000000000000005",
        "0.000000000000000000000000000000000000000000001e45",
    ] {
        check(text);
    }
}

/// Random texts near the grammar: digits, points, signs, exponents and now
/// and then a character that does not belong.
#[test]
fn random_texts_as_std() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let pieces = [
        "0",
        "1",
        "2",
        "5",
        "7",
        "9",
        "00",
        "000000",
        "123456789",
        "999999999",
        ".",
        "e",
        "E",
        "+",
        "-",
        "e-",
        "e+",
        "e3",
        "e-30",
        "e308",
        "e-320",
        "x",
        " ",
        "_",
    ];
    for _ in 0..40_000 {
        let mut text = String::new();
        for _ in 0..rng.below(8) + 1 {
            text.push_str(rng.pick(&pieces));
        }
        check(&text);
    }
}

/// Every `f64` written in Rust's own forms (shortest, scientific, fixed
/// digits), with each form's last digit moved by one.
#[test]
fn printed_doubles_read_back_as_std() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..20_000 {
        let x = f64::from_bits(rng.next() & !(1 << 63));
        let x = if x.is_finite() { x } else { 1.0 };
        let digits = rng.below(25) as usize;
        for text in [
            format!("{x}"),
            format!("{x:e}"),
            format!("{x:.digits$e}"),
            format!("-{x:.digits$e}"),
            format!("{:.digits$}", x % 1e6),
        ] {
            check(&text);
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, ""));
            for change in [b'1', b'9'] {
                let mut m = mantissa.as_bytes().to_vec();
                if let Some(last) = m.iter_mut().rev().find(|c| c.is_ascii_digit()) {
                    *last = change;
                }
                let m = String::from_utf8(m).unwrap();
                if exponent.is_empty() {
                    check(&m);
                } else {
                    check(&format!("{m}e{exponent}"));
                }
            }
        }
    }
}

/// A nonnegative integer in decimal, least significant digit first.
struct DecimalDigits(Vec<u8>);

impl DecimalDigits {
    fn of(mut n: u64) -> Self {
        let mut digits = Vec::new();
        while n > 0 {
            digits.push((n % 10) as u8);
            n /= 10;
        }
        DecimalDigits(digits)
    }

    fn times(&mut self, factor: u32) {
        let mut carry = 0;
        for d in &mut self.0 {
            let t = u32::from(*d) * factor + carry;
            *d = (t % 10) as u8;
            carry = t / 10;
        }
        while carry > 0 {
            self.0.push((carry % 10) as u8);
            carry /= 10;
        }
    }

    fn text(&self) -> String {
        self.0.iter().rev().map(|d| char::from(b'0' + d)).collect()
    }
}

/// The exact decimal `mantissa × 2^exponent`, as digits and a power of ten.
fn exact(mantissa: u64, exponent: i64) -> (String, i64) {
    let mut digits = DecimalDigits::of(mantissa);
    if exponent >= 0 {
        for _ in 0..exponent {
            digits.times(2);
        }
        (digits.text(), 0)
    } else {
        // m × 2^-k = m × 5^k × 10^-k
        for _ in 0..-exponent {
            digits.times(5);
        }
        (digits.text(), exponent)
    }
}

/// The halfway points between neighbouring doubles (the ties to even, up to
/// 768 significant digits), a hair above and below each, and the same with
/// the hair past the 800th digit, where the parser stops keeping digits.
#[test]
fn exact_halfway_points_round_as_std() {
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    let mut cases: Vec<u64> = vec![
        0,
        1,
        2,
        (1 << 52) - 1,
        1 << 52,
        (1 << 52) + 1,
        f64::MAX.to_bits() - 1,
        f64::MAX.to_bits(),
        1.0f64.to_bits(),
        0.1f64.to_bits(),
    ];
    for _ in 0..300 {
        // Every binade, subnormals and the top one included.
        cases.push(rng.next() & ((1 << 63) - 1) & !(0x7FF << 52) | (rng.below(2047) << 52));
    }
    for bits in cases {
        let x = f64::from_bits(bits);
        assert!(x.is_finite());
        let (fraction, biased) = (bits & ((1 << 52) - 1), (bits >> 52) as i64);
        let (m, e) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | 1 << 52, biased - 1075)
        };
        // Halfway up: (2m + 1) × 2^(e - 1).
        let (digits, power) = exact(2 * m + 1, e - 1);
        check(&format!("{digits}e{power}"));
        check(&format!("{digits}1e{}", power - 1));
        check(&format!("{digits}{}1e{}", "0".repeat(900), power - 901));
        check(&format!("{digits}{}e{}", "0".repeat(900), power - 900));
        // A hair below: the last digit one less, then nines.
        let mut below = digits.clone().into_bytes();
        if let Some(last) = below.last_mut().filter(|d| **d > b'0') {
            *last -= 1;
            let below = String::from_utf8(below).unwrap();
            check(&format!("{below}9999e{}", power - 4));
            check(&format!("{below}{}e{}", "9".repeat(900), power - 900));
        }
        // The same in fixed notation when it is short enough to write.
        if (-400..=0).contains(&power) && digits.len() as i64 + power > 0 {
            let split = (digits.len() as i64 + power) as usize;
            check(&format!("{}.{}", &digits[..split], &digits[split..]));
        }
        // And each double itself, exactly.
        let (digits, power) = exact(m, e);
        check(&format!("{digits}e{power}"));
    }
}

/// Very long texts: many digits before and after the point, and exponents
/// past where `str::parse` stops counting exponent digits.
#[test]
fn long_texts_as_std() {
    let ones = "1".repeat(5000);
    let zeros = "0".repeat(70_000);
    for text in [
        ones.clone(),
        format!("0.{ones}"),
        format!("{ones}e-5000"),
        format!("{ones}e-5300"),
        format!("0.{zeros}1e70001"),
        format!("0.{zeros}1e700001"),
        format!("1{zeros}e-70000"),
        format!("1{zeros}e-700000"),
        format!("0.{zeros}"),
        format!("{zeros}.{zeros}1"),
    ] {
        check(&text);
    }
}
