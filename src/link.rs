//! The page's query string: the scenario (through the core's codec, shared
//! with `vramfit link`) plus what only the page has: display units, the
//! active view, the language and the wizard's answers.

pub mod embed;

use vramfit_core::url::{decode_pairs, encode, query_pairs, Notice};
use vramfit_core::wizard::{Goal, Priority};
use vramfit_core::Scenario;

use crate::format::Units;
use crate::i18n::{lang_param, parse_lang, Lang, LANG_PARAM};

/// Link parameter for the units; the core codec leaves it to the page.
pub const UNITS_PARAM: &str = "u";
/// Link parameter for the active view (absent: the calculator).
pub const VIEW_PARAM: &str = "view";
/// Link parameters for the wizard's goal and priority; the wizard's model,
/// GPU and count are the calculator's own parameters.
pub const GOAL_PARAM: &str = "goal";
pub const PRIORITY_PARAM: &str = "prio";

/// The views of the page, in tab order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Calculator,
    Wizard,
    Doctor,
    Logs,
}

impl View {
    pub const ALL: [View; 4] = [View::Calculator, View::Wizard, View::Doctor, View::Logs];

    pub fn key(self) -> &'static str {
        match self {
            View::Calculator => "calculator",
            View::Wizard => "wizard",
            View::Doctor => "doctor",
            View::Logs => "logs",
        }
    }

    fn parse(value: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.key() == value)
    }

    /// The page of the site that shows this view.
    pub fn page(self) -> Page {
        match self {
            View::Calculator => Page::Calculator,
            View::Wizard | View::Doctor | View::Logs => Page::Tools,
        }
    }
}

/// The site's two pages, each its own wasm build: the calculator (what a
/// link opens first, kept small) and `tools/` (the wizard, the OOM doctor
/// and the log reader). The URL is the state, so moving between them is a
/// page load with the same query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    Calculator,
    Tools,
}

impl Page {
    /// The address, relative to page `self`, that shows `to` with `query`;
    /// `None` when `self` shows it.
    pub fn address_of(self, to: Page, query: &str) -> Option<String> {
        let path = match (self, to) {
            (Page::Calculator, Page::Tools) => "tools/",
            (Page::Tools, Page::Calculator) => "../",
            _ => return None,
        };
        Some(if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        })
    }
}

/// The wizard's own answers (goal and priority).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WizardChoice {
    pub goal: Goal,
    pub priority: Priority,
}

impl Default for WizardChoice {
    /// Fine-tuning for the least cost: the most common question on one card.
    fn default() -> Self {
        WizardChoice {
            goal: Goal::FineTune,
            priority: Priority::Cost,
        }
    }
}

pub fn goal_key(goal: Goal) -> &'static str {
    match goal {
        Goal::TrainFull => "train_full",
        Goal::FineTune => "fine_tune",
        Goal::Serve => "serve",
    }
}

pub fn priority_key(priority: Priority) -> &'static str {
    match priority {
        Priority::Speed => "speed",
        Priority::Quality => "quality",
        Priority::Cost => "cost",
    }
}

pub const GOALS: [Goal; 3] = [Goal::TrainFull, Goal::FineTune, Goal::Serve];
pub const PRIORITIES: [Priority; 3] = [Priority::Speed, Priority::Quality, Priority::Cost];

/// The page's settings beside the scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageSettings {
    pub units: Units,
    pub view: View,
    /// `None`: no `lang=` in the link (the browser's language applies).
    pub lang: Option<Lang>,
    pub wizard: WizardChoice,
}

/// Everything a link holds.
#[derive(Clone, Debug, PartialEq)]
pub struct PageState {
    pub scenario: Scenario,
    pub settings: PageSettings,
    pub notices: Vec<Notice>,
    /// `Some` when the link asks for embed mode (`embed=1`).
    pub embed: Option<embed::EmbedOptions>,
}

/// Reads `location.search` (with or without `?`); never fails.
pub fn read(query: &str) -> PageState {
    let params = [
        UNITS_PARAM,
        VIEW_PARAM,
        LANG_PARAM,
        GOAL_PARAM,
        PRIORITY_PARAM,
        // The embed parameters belong to the page too.
        embed::EMBED_PARAM,
        embed::SHOW_PARAM,
    ];
    // Split once: the core reads the scenario, the page its own parameters.
    let pairs = query_pairs(query);
    let decoded = decode_pairs(&pairs, &params);
    let mut notices = decoded.notices;
    let mut settings = PageSettings::default();
    let first = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let mut bad = |param: &str, value: &str, allowed: &str| {
        notices.push(Notice {
            param: param.to_owned(),
            message: format!("\"{value}\" is not {allowed}"),
        });
    };
    if let Some(value) = first(UNITS_PARAM) {
        match Units::from_param(&value) {
            Some(u) => settings.units = u,
            None => bad(UNITS_PARAM, &value, "gib or gb; GiB is used"),
        }
    }
    if let Some(value) = first(VIEW_PARAM) {
        match View::parse(&value) {
            Some(v) => settings.view = v,
            None => bad(VIEW_PARAM, &value, "calculator, wizard, doctor or logs"),
        }
    }
    if let Some(value) = first(LANG_PARAM) {
        match parse_lang(&value) {
            Some(l) => settings.lang = Some(l),
            None => bad(
                LANG_PARAM,
                &value,
                "en or zh; the browser's language is used",
            ),
        }
    }
    if let Some(value) = first(GOAL_PARAM) {
        match GOALS.into_iter().find(|g| goal_key(*g) == value) {
            Some(g) => settings.wizard.goal = g,
            None => bad(GOAL_PARAM, &value, "train_full, fine_tune or serve"),
        }
    }
    if let Some(value) = first(PRIORITY_PARAM) {
        match PRIORITIES.into_iter().find(|p| priority_key(*p) == value) {
            Some(p) => settings.wizard.priority = p,
            None => bad(PRIORITY_PARAM, &value, "speed, quality or cost"),
        }
    }
    PageState {
        scenario: decoded.scenario,
        settings,
        notices,
        embed: embed::embed_options(&pairs),
    }
}

/// The query string (without `?`) for the page's state; defaults omitted.
/// The wizard's answers are written only while the wizard is shown.
pub fn write(scenario: &Scenario, settings: &PageSettings) -> String {
    let mut query = encode(scenario);
    let mut push = |key: &str, value: &str| query.push_str(&format!("&{key}={value}"));
    if let Some(u) = settings.units.param() {
        push(UNITS_PARAM, u);
    }
    if settings.view != View::Calculator {
        push(VIEW_PARAM, settings.view.key());
    }
    if settings.view == View::Wizard {
        let default = WizardChoice::default();
        if settings.wizard.goal != default.goal {
            push(GOAL_PARAM, goal_key(settings.wizard.goal));
        }
        if settings.wizard.priority != default.priority {
            push(PRIORITY_PARAM, priority_key(settings.wizard.priority));
        }
    }
    if let Some(l) = settings.lang.and_then(lang_param) {
        push(LANG_PARAM, l);
    }
    query
}

#[cfg(test)]
mod tests {

    /// The pages' inline redirects (index.html, tools.html) list the tools
    /// page's views by hand, before any wasm runs: they must list exactly
    /// the views `View::page` puts there.
    #[test]
    fn the_redirect_scripts_list_the_tools_views() {
        for html in [include_str!("../index.html"), include_str!("../tools.html")] {
            let script = html
                .split("<script>")
                .nth(1)
                .and_then(|s| s.split("</script>").next())
                .unwrap_or_default();
            for view in View::ALL {
                let listed = script.contains(&format!("\"{}\"", view.key()));
                assert_eq!(listed, view.page() == Page::Tools, "{view:?}");
            }
        }
    }

    #[test]
    fn each_view_has_one_page_and_the_other_page_is_one_folder_away() {
        assert_eq!(View::Calculator.page(), Page::Calculator);
        for v in [View::Wizard, View::Doctor, View::Logs] {
            assert_eq!(v.page(), Page::Tools);
        }
        let q = "v=1&m=x&view=doctor";
        assert_eq!(
            Page::Calculator.address_of(Page::Tools, q).as_deref(),
            Some("tools/?v=1&m=x&view=doctor")
        );
        assert_eq!(
            Page::Tools.address_of(Page::Calculator, "v=1").as_deref(),
            Some("../?v=1")
        );
        assert_eq!(
            Page::Tools.address_of(Page::Calculator, "").as_deref(),
            Some("../")
        );
        assert_eq!(Page::Tools.address_of(Page::Tools, q), None);
        assert_eq!(Page::Calculator.address_of(Page::Calculator, q), None);
    }

    use super::*;
    use vramfit_core::scenario::TaskKind;

    fn training() -> Scenario {
        Scenario {
            task: TaskKind::Training,
            ..Scenario::default()
        }
    }

    #[test]
    fn units_ride_along_with_the_scenario() {
        let sc = training();
        let settings = PageSettings {
            units: Units::Decimal,
            ..PageSettings::default()
        };
        let state = read(&write(&sc, &settings));
        assert_eq!(state.scenario, sc);
        assert_eq!(state.settings.units, Units::Decimal);
        assert!(state.notices.is_empty());
        assert!(!write(&sc, &PageSettings::default()).contains("u="));
    }

    #[test]
    fn view_language_and_wizard_answers_round_trip() {
        let sc = training();
        let settings = PageSettings {
            units: Units::Binary,
            view: View::Wizard,
            lang: Some(Lang::Zh),
            wizard: WizardChoice {
                goal: Goal::Serve,
                priority: Priority::Speed,
            },
        };
        let query = write(&sc, &settings);
        assert!(query.contains("&view=wizard") && query.contains("&goal=serve"));
        assert!(query.contains("&prio=speed") && query.ends_with("&lang=zh"));
        let state = read(&query);
        assert_eq!(state.settings, settings);
        assert!(state.notices.is_empty(), "{:?}", state.notices);
        // The calculator is the default view and English the default language: no params.
        let plain = write(
            &sc,
            &PageSettings {
                lang: Some(Lang::En),
                ..PageSettings::default()
            },
        );
        assert!(
            !plain.contains("view=") && !plain.contains("lang="),
            "{plain}"
        );
    }

    #[test]
    fn bad_page_params_are_noticed() {
        let state = read("?v=1&u=furlongs&zz=1&view=chart&lang=fr&goal=x&prio=y");
        let params: Vec<&str> = state.notices.iter().map(|n| n.param.as_str()).collect();
        for p in ["u", "zz", "view", "lang", "goal", "prio"] {
            assert!(params.contains(&p), "{p} not in {params:?}");
        }
        assert_eq!(state.settings, PageSettings::default());
    }

    /// The frozen v1 link corpus (`crates/core/tests/data/links/v1.jsonl`,
    /// whose scenarios and estimates the core's test checks): the page reads
    /// the same scenario as the core, and the page and embed parameters
    /// each row froze.
    #[test]
    fn frozen_links_keep_their_page_meaning() {
        let corpus = include_str!("../crates/core/tests/data/links/v1.jsonl");
        let page_params = ["u", "view", "lang", "goal", "prio", "embed", "show"];
        for line in corpus.lines() {
            let row: serde_json::Value = serde_json::from_str(line).expect("corpus line");
            let link = row["link"].as_str().unwrap_or_default();
            let state = read(link);
            let core = vramfit_core::url::decode(link);
            assert_eq!(state.scenario, core.scenario, "{link}");
            let core_notices: Vec<&str> = core
                .notices
                .iter()
                .map(|n| n.param.as_str())
                .filter(|p| !page_params.contains(p))
                .collect();
            let page_notices: Vec<&str> = state.notices.iter().map(|n| n.param.as_str()).collect();
            assert_eq!(page_notices, core_notices, "{link}");
            let page = &row["page"];
            let want = |key: &str| page[key].as_str();
            assert_eq!(state.settings.units.param(), want("units"), "{link}");
            let view = want("view").unwrap_or("calculator");
            assert_eq!(state.settings.view.key(), view, "{link}");
            assert_eq!(state.settings.lang.map(lang_key), want("lang"), "{link}");
            let default = WizardChoice::default();
            let goal = want("goal").unwrap_or(goal_key(default.goal));
            assert_eq!(goal_key(state.settings.wizard.goal), goal, "{link}");
            let prio = want("prio").unwrap_or(priority_key(default.priority));
            assert_eq!(priority_key(state.settings.wizard.priority), prio, "{link}");
            let shown: Option<Vec<&str>> = read(link)
                .embed
                .map(|o| o.exposed.iter().map(|e| e.key()).collect());
            let frozen: Option<Vec<&str>> = page["embed"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect());
            assert_eq!(shown, frozen, "{link}");
        }
    }

    fn lang_key(lang: Lang) -> &'static str {
        match lang {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }
}
