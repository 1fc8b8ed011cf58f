//! Query strings: split into percent-decoded pairs, values percent-encoded,
//! and the whole numbers and flags their values spell.

/// Splits a query string into percent-decoded `(key, value)` pairs, in order.
/// `+` is a space; a `%` not followed by two hex digits stays as it is.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let query = query.split('#').next().unwrap_or(query);
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect()
}

/// Characters kept as they are in a value: RFC 3986 unreserved plus the
/// query-safe `/ : , @` so that model ids stay readable.
fn keep_literal(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b':' | b',' | b'@')
}

pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if keep_literal(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|c| char::from(*c).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                // Two hex digits are at most 0xFF: the cast cannot truncate.
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A whole number within `min..=max`.
pub(crate) fn parse_u64_in(v: &str, min: u64, max: u64) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("\"{v}\" is not a whole number from {min} to {max}")),
    }
}

pub(crate) fn parse_bool(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("\"{v}\" is not 1 or 0")),
    }
}

pub(crate) fn bool_text(b: bool) -> String {
    if b { "1" } else { "0" }.to_owned()
}
