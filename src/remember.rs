//! A returning user's first screen answers "does it fit" for their own setup:
//! the page keeps its last query string in the browser's local storage and
//! opens it when the address carries none. A share link (any query) always
//! wins: nothing stored overrides what a link says.

use crate::storage;

/// The local-storage key of the last setup.
const KEY: &str = "vramfit:last-setup";

/// The query to open: the address's own when it has one, else the last
/// setup this browser saw (if storage is available and holds one).
pub fn query_to_open(address_query: &str) -> String {
    if !address_query.trim_start_matches('?').is_empty() {
        return address_query.to_owned();
    }
    storage::get(KEY).unwrap_or_default()
}

/// Keeps `query` as the last setup. Storage may be full or disabled
/// (private windows): the page works the same without it.
/// The view is left out: the site's address opens the calculator, whose
/// page this is, and a remembered tool would load the other page first.
pub fn remember(query: &str) {
    storage::set(KEY, &setup_only(query));
}

/// `query` without its `view=` parameter.
pub fn setup_only(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.starts_with("view="))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::setup_only;

    #[test]
    fn the_view_is_not_remembered() {
        assert_eq!(setup_only("v=1&m=x&view=doctor&lang=zh"), "v=1&m=x&lang=zh");
        assert_eq!(setup_only("view=logs"), "");
        assert_eq!(setup_only("v=1&bs=2"), "v=1&bs=2");
    }
}
