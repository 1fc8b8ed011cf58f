//! Numbers read at a path of keys in a JSON document (`vision_config` →
//! `patch_size`), for the image rules of the config and preprocessor files.

use serde_json::Value;

/// The value at `path`, if every key along it exists.
pub(super) fn field<'a>(obj: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, k| v.get(*k))
}

/// The first of `paths` holding an unsigned integer, else `default`.
pub(super) fn number(obj: &Value, paths: &[&[&str]], default: u64) -> u64 {
    paths
        .iter()
        .find_map(|p| field(obj, p).and_then(Value::as_u64))
        .unwrap_or(default)
}
