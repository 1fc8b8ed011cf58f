//! Decimal text and `f64`, both ways, exactly as the standard library
//! reads and writes them, without its float parser and formatter (their
//! tables and code cost the web app's first load 13 KB and 7 KB gzipped).

mod parse;
mod write;

pub use parse::parse_f64;
pub use write::Decimal;
