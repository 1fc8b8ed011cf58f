//! Shared printing helpers for every command.

use std::process::ExitCode;

/// Exit code for bad input, unreadable files and missing GPUs.
pub const EXIT_ERROR: u8 = 2;

/// Prints `vramfit: {message}` on stderr and returns exit code 2.
pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("vramfit: {message}");
    ExitCode::from(EXIT_ERROR)
}

/// Bytes for people: `13.52 GiB` (binary) with two decimals.
pub fn gib(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}
