//! The field registry: every scenario field but the model, once.
//!
//! Each [`Field`] row says what the faces and the checks need to know about
//! one field: its share-link key (`mb`), its path in a scenario file and in
//! error messages (`training.micro_batch`), its CLI flag (`--micro-batch`),
//! a line of help, the web's label, its [`Kind`] (range, allowed keys,
//! accessors) and when it applies. From the rows come
//! - the link codec (`url.rs`): keys, text and order of a v=1 link;
//! - [`Scenario::validate`]: the range of every field that applies;
//! - the CLI's scenario flags (`vramfit estimate --micro-batch 4`);
//! - the web inputs' ranges and the inputs an embed may expose.
//!
//! A new scenario field is one row in `fields/table.rs` (after the last v1
//! key: links keep their order), plus its use in the estimator.
//!
//! The model source (`m`, `p`, `s.*`) is not a row: it is a whole
//! architecture, read and written by `url/model_spec.rs`.

mod field;
mod table;
mod text;

pub use field::{Choices, Field, Kind};
pub use table::{by_key, FIELDS};
pub use text::{parse_memory, Fraction};
