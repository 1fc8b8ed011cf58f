//! Numbers for people: byte sizes in GiB or GB, counts with separators.

/// How byte sizes are shown. Kept in the link as `u=gb` (GiB is the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Units {
    /// Powers of 1024, as PyTorch and nvidia-smi report memory.
    #[default]
    Binary,
    /// Powers of 1000, as vendors label cards.
    Decimal,
}

impl Units {
    /// The value of the `u` link parameter; `None` for the default.
    pub fn param(self) -> Option<&'static str> {
        match self {
            Units::Binary => None,
            Units::Decimal => Some("gb"),
        }
    }

    pub fn from_param(value: &str) -> Option<Units> {
        match value {
            "gib" => Some(Units::Binary),
            "gb" => Some(Units::Decimal),
            _ => None,
        }
    }

    fn steps(self) -> (f64, [&'static str; 5]) {
        match self {
            Units::Binary => (1024.0, ["B", "KiB", "MiB", "GiB", "TiB"]),
            Units::Decimal => (1000.0, ["B", "KB", "MB", "GB", "TB"]),
        }
    }

    /// `13.52 GiB`: the largest unit that keeps the number at least 1, two
    /// decimals below 100, one below 1000, none above.
    pub fn bytes(self, bytes: u64) -> String {
        let (step, names) = self.steps();
        let mut value = bytes as f64;
        let mut unit = 0;
        while value >= step && unit + 1 < names.len() {
            value /= step;
            unit += 1;
        }
        let name = names.get(unit).copied().unwrap_or("B");
        if unit == 0 {
            format!("{bytes} B")
        } else {
            format!("{} {name}", round_for_people(value))
        }
    }

    /// Like [`Units::bytes`] with a sign: `+1.20 GiB`, `−512 MiB`, `0 B`.
    pub fn signed_bytes(self, delta: i128) -> String {
        let magnitude = u64::try_from(delta.unsigned_abs()).unwrap_or(u64::MAX);
        match delta.signum() {
            1 => format!("+{}", self.bytes(magnitude)),
            -1 => format!("\u{2212}{}", self.bytes(magnitude)),
            _ => "0 B".to_owned(),
        }
    }

    /// The size of one display unit at the gigabyte scale (for custom-capacity inputs).
    pub fn giga(self) -> u64 {
        match self {
            Units::Binary => 1 << 30,
            Units::Decimal => 1_000_000_000,
        }
    }
}

fn round_for_people(value: f64) -> String {
    let shown = vramfit_core::decimal::Decimal(value);
    if value < 100.0 {
        format!("{shown:.2}")
    } else if value < 1000.0 {
        format!("{shown:.1}")
    } else {
        format!("{shown:.0}")
    }
}

/// A coordinate or any other `f64` as text, as `{}` writes it: through the
/// core's formatter, so that the page carries no float formatter of its own
/// (attributes given an `f64` would bring in the standard library's).
pub fn num(x: f64) -> String {
    vramfit_core::decimal::Decimal(x).to_string()
}

/// `14,518,222,848`: digits grouped by three.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `6.74B`, `125M`, `7,000`: parameter counts at a glance.
pub fn count(n: u64) -> String {
    let x = n as f64;
    if n >= 1_000_000_000 {
        format!("{}B", trim(x / 1e9))
    } else if n >= 1_000_000 {
        format!("{}M", trim(x / 1e6))
    } else {
        grouped(n)
    }
}

fn trim(x: f64) -> String {
    let shown = vramfit_core::decimal::Decimal(x);
    let s = if x < 10.0 {
        format!("{shown:.2}")
    } else if x < 100.0 {
        format!("{shown:.1}")
    } else {
        format!("{shown:.0}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_pick_the_unit_people_expect() {
        // 14_518_222_848 / 2^30 = 13.5210...; / 10^9 = 14.518...
        assert_eq!(Units::Binary.bytes(14_518_222_848), "13.52 GiB");
        assert_eq!(Units::Decimal.bytes(14_518_222_848), "14.52 GB");
        assert_eq!(Units::Binary.bytes(512), "512 B");
        // 80 GiB exactly: 85_899_345_920 bytes.
        assert_eq!(Units::Binary.bytes(85_899_345_920), "80.00 GiB");
        // 2^40 * 1.5 = 1.5 TiB.
        assert_eq!(Units::Binary.bytes(1_649_267_441_664), "1.50 TiB");
        assert_eq!(Units::Binary.bytes(300 << 20), "300.0 MiB");
    }

    #[test]
    fn signed_bytes_carry_their_sign() {
        assert_eq!(Units::Binary.signed_bytes(1 << 30), "+1.00 GiB");
        assert_eq!(
            Units::Binary.signed_bytes(-(512 << 20)),
            "\u{2212}512.0 MiB"
        );
        assert_eq!(Units::Binary.signed_bytes(0), "0 B");
    }

    #[test]
    fn counts_read_at_a_glance() {
        assert_eq!(grouped(14_518_222_848), "14,518,222,848");
        assert_eq!(grouped(999), "999");
        assert_eq!(count(6_738_415_616), "6.74B");
        assert_eq!(count(124_439_808), "124M");
        assert_eq!(count(70_553_706_496), "70.6B");
        assert_eq!(count(7_000), "7,000");
    }

    #[test]
    fn units_round_trip_through_the_link() {
        for units in [Units::Binary, Units::Decimal] {
            let param = units.param().unwrap_or("gib");
            assert_eq!(Units::from_param(param), Some(units));
        }
        assert_eq!(Units::from_param("furlongs"), None);
    }
}
