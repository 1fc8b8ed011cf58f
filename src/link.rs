//! The page's query string: the scenario (through the core's codec, shared
//! with `vramfit link`) plus the display units, which only the page has.

use vramfit_core::url::{decode_with, encode, Notice};
use vramfit_core::Scenario;

use crate::format::Units;

/// Link parameter for the units; the core codec leaves it to the page.
pub const UNITS_PARAM: &str = "u";

/// Everything a link holds.
#[derive(Clone, Debug, PartialEq)]
pub struct PageState {
    pub scenario: Scenario,
    pub units: Units,
    pub notices: Vec<Notice>,
}

/// Reads `location.search` (with or without `?`); never fails.
pub fn read(query: &str) -> PageState {
    // The embed parameters belong to the page too (read by crate::embed).
    let page_params = [
        UNITS_PARAM,
        crate::embed::EMBED_PARAM,
        crate::embed::SHOW_PARAM,
    ];
    let decoded = decode_with(query, &page_params);
    let mut notices = decoded.notices;
    let mut units = Units::default();
    let units_values = vramfit_core::url::query_pairs(query)
        .into_iter()
        .filter(|(k, _)| k == UNITS_PARAM)
        .map(|(_, v)| v);
    if let Some(value) = units_values.into_iter().next() {
        match Units::from_param(&value) {
            Some(u) => units = u,
            None => notices.push(Notice {
                param: UNITS_PARAM.to_owned(),
                message: format!("\"{value}\" is not gib or gb; GiB is used"),
            }),
        }
    }
    PageState {
        scenario: decoded.scenario,
        units,
        notices,
    }
}

/// The query string (without `?`) for the page's state.
pub fn write(scenario: &Scenario, units: Units) -> String {
    let mut query = encode(scenario);
    if let Some(u) = units.param() {
        query.push_str(&format!("&{UNITS_PARAM}={u}"));
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;
    use vramfit_core::scenario::TaskKind;

    #[test]
    fn units_ride_along_with_the_scenario() {
        let sc = Scenario {
            task: TaskKind::Training,
            ..Scenario::default()
        };
        let state = read(&write(&sc, Units::Decimal));
        assert_eq!(state.scenario, sc);
        assert_eq!(state.units, Units::Decimal);
        assert!(state.notices.is_empty());
        assert!(!write(&sc, Units::Binary).contains("u="));
    }

    #[test]
    fn bad_units_are_noticed() {
        let state = read("?v=1&u=furlongs&zz=1");
        let params: Vec<&str> = state.notices.iter().map(|n| n.param.as_str()).collect();
        assert!(
            params.contains(&"u") && params.contains(&"zz"),
            "{params:?}"
        );
        assert_eq!(state.units, Units::Binary);
    }
}
