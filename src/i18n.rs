//! English and Chinese for every label and explanation: Project Fluent
//! (`fluent-bundle`), one `.ftl` file per language in `locales/`, compiled
//! into the wasm. The language lives in the URL (`lang=zh`; English, the
//! default, is omitted) and otherwise follows the browser's language.
//!
//! Core texts (wizard rows, plan changes, doctor and log diagnoses) carry
//! their own English and Chinese; the views pick by [`Lang`].

use std::cell::RefCell;
use std::collections::HashMap;

use fluent_bundle::{FluentArgs, FluentBundle, FluentResource, FluentValue};
use leptos::prelude::*;
pub use vramfit_core::doctor::Lang;

/// The locale files, embedded (the web app has no files to load at run time).
pub const EN_FTL: &str = include_str!("../locales/en.ftl");
pub const ZH_FTL: &str = include_str!("../locales/zh.ftl");

/// Link parameter for the language.
pub const LANG_PARAM: &str = "lang";

/// The link value of a language; `None` for the default, English.
pub fn lang_param(lang: Lang) -> Option<&'static str> {
    match lang {
        Lang::En => None,
        Lang::Zh => Some("zh"),
    }
}

/// Reads `lang=` (`en`, `zh`, and region forms such as `zh-CN`).
pub fn parse_lang(value: &str) -> Option<Lang> {
    let primary = value.split(['-', '_']).next().unwrap_or("").trim();
    match primary.to_ascii_lowercase().as_str() {
        "en" => Some(Lang::En),
        "zh" => Some(Lang::Zh),
        _ => None,
    }
}

/// The first of the browser's languages that the app speaks, else English.
pub fn browser_lang() -> Lang {
    let navigator = window().navigator();
    let preferred = navigator.languages();
    preferred
        .iter()
        .filter_map(|v| v.as_string())
        .chain(navigator.language())
        .find_map(|l| parse_lang(&l))
        .unwrap_or(Lang::En)
}

struct Bundles {
    en: FluentBundle<FluentResource>,
    zh: FluentBundle<FluentResource>,
}

fn bundle(source: &str, tag: &str) -> FluentBundle<FluentResource> {
    let id = tag.parse().unwrap_or_default();
    let mut bundle = FluentBundle::new(vec![id]);
    // No Unicode isolation marks around arguments: the page sets no mixed
    // directions, and the marks would show up in copied text and tests.
    bundle.set_use_isolating(false);
    // A file with a syntax error still yields every message it could read;
    // `tests` (native) fails on any such error.
    let resource =
        FluentResource::try_new(source.to_owned()).unwrap_or_else(|(partial, _)| partial);
    // Duplicate ids keep the first; the native test rejects duplicates.
    let _ = bundle.add_resource(resource);
    bundle
}

thread_local! {
    // The wasm page runs on one thread; the bundles are built on first use.
    static BUNDLES: RefCell<Option<Bundles>> = const { RefCell::new(None) };
}

fn with_bundle<R>(lang: Lang, f: impl FnOnce(&FluentBundle<FluentResource>) -> R) -> R {
    BUNDLES.with(|cell| {
        let mut slot = cell.borrow_mut();
        let bundles = slot.get_or_insert_with(|| Bundles {
            en: bundle(EN_FTL, "en"),
            zh: bundle(ZH_FTL, "zh"),
        });
        f(match lang {
            Lang::En => &bundles.en,
            Lang::Zh => &bundles.zh,
        })
    })
}

/// The text of `key` in `lang` with `args`; falls back to English, then to
/// the key itself (visible, never a panic).
pub fn text_with(lang: Lang, key: &str, args: &[(&str, String)]) -> String {
    let format = |b: &FluentBundle<FluentResource>| {
        let pattern = b.get_message(key)?.value()?;
        let mut fluent_args = FluentArgs::new();
        for (name, value) in args {
            fluent_args.set(*name, FluentValue::from(value.clone()));
        }
        let mut errors = Vec::new();
        Some(
            b.format_pattern(pattern, Some(&fluent_args), &mut errors)
                .into_owned(),
        )
    };
    with_bundle(lang, format)
        .or_else(|| with_bundle(Lang::En, format))
        .unwrap_or_else(|| key.to_owned())
}

/// The text of `key` in `lang`.
pub fn text(lang: Lang, key: &str) -> String {
    text_with(lang, key, &[])
}

thread_local! {
    // The language for code outside the reactive tree (input parsers run in
    // event handlers): mirrored from the page's signal by `LangSignal::provide`.
    static CURRENT: std::cell::Cell<Lang> = const { std::cell::Cell::new(Lang::En) };
}

/// The page's language where no reactive context is at hand.
pub fn current_lang() -> Lang {
    CURRENT.with(|c| c.get())
}

/// The page's language signal (provided by the app).
#[derive(Clone, Copy)]
pub struct LangSignal(pub RwSignal<Lang>);

impl LangSignal {
    /// Makes the language available to every component (and to
    /// [`current_lang`]), and keeps `<html lang>` in step for screen readers.
    pub fn provide(signal: RwSignal<Lang>) {
        provide_context(LangSignal(signal));
        CURRENT.with(|c| c.set(signal.get_untracked()));
        Effect::new(move |_| {
            let lang = signal.get();
            CURRENT.with(|c| c.set(lang));
            if let Some(html) = document().document_element() {
                let _ = html.set_attribute("lang", if lang == Lang::Zh { "zh" } else { "en" });
            }
        });
    }
}

/// The current language, tracked (re-renders on a switch).
pub fn lang() -> Lang {
    use_context::<LangSignal>().map_or(Lang::En, |l| l.0.get())
}

/// The current language, not tracked (for component bodies that a tracked
/// parent re-renders).
pub fn lang_untracked() -> Lang {
    use_context::<LangSignal>().map_or(Lang::En, |l| l.0.get_untracked())
}

/// A reactive text for a view: `{tr("tab-wizard")}`, `aria-label=tr("...")`.
pub fn tr(key: &'static str) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let signal = use_context::<LangSignal>().map(|l| l.0);
    move || text(signal.map_or(Lang::En, |s| s.get()), key)
}

/// Picks the English or Chinese of a core text pair.
pub fn pick<'a>(lang: Lang, en: &'a str, zh: &'a str) -> &'a str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// Message ids of a locale file (in order) and the syntax errors it has.
pub fn message_ids(source: &str) -> (Vec<String>, usize) {
    match FluentResource::try_new(source.to_owned()) {
        Ok(r) => (ids_of(&r), 0),
        Err((r, errors)) => (ids_of(&r), errors.len()),
    }
}

fn ids_of(resource: &FluentResource) -> Vec<String> {
    resource
        .entries()
        .filter_map(|e| match e {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
            _ => None,
        })
        .collect()
}

/// Ids present in one list and not the other: `(only_in_a, only_in_b)`.
pub fn missing_keys(a: &[String], b: &[String]) -> (Vec<String>, Vec<String>) {
    fn count(list: &[String]) -> HashMap<&str, usize> {
        let mut m: HashMap<&str, usize> = HashMap::new();
        for k in list {
            *m.entry(k.as_str()).or_default() += 1;
        }
        m
    }
    let (ma, mb) = (count(a), count(b));
    let mut only_a: Vec<String> = ma
        .keys()
        .filter(|k| !mb.contains_key(*k))
        .map(|k| k.to_string())
        .collect();
    let mut only_b: Vec<String> = mb
        .keys()
        .filter(|k| !ma.contains_key(*k))
        .map(|k| k.to_string())
        .collect();
    only_a.sort();
    only_b.sort();
    (only_a, only_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicates(ids: &[String]) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        ids.iter().filter(|k| !seen.insert(*k)).cloned().collect()
    }

    #[test]
    fn every_key_exists_in_both_languages() {
        let (en, en_errors) = message_ids(EN_FTL);
        let (zh, zh_errors) = message_ids(ZH_FTL);
        assert_eq!(
            (en_errors, zh_errors),
            (0, 0),
            "syntax errors in locales/*.ftl"
        );
        assert!(
            duplicates(&en).is_empty(),
            "en.ftl repeats {:?}",
            duplicates(&en)
        );
        assert!(
            duplicates(&zh).is_empty(),
            "zh.ftl repeats {:?}",
            duplicates(&zh)
        );
        let (only_en, only_zh) = missing_keys(&en, &zh);
        assert!(only_en.is_empty(), "missing in zh.ftl: {only_en:?}");
        assert!(only_zh.is_empty(), "missing in en.ftl: {only_zh:?}");
        assert!(en.len() > 50, "only {} keys", en.len());
    }

    #[test]
    fn the_key_check_catches_a_missing_key() {
        let a = vec!["x".to_owned(), "y".to_owned()];
        let b = vec!["y".to_owned(), "z".to_owned()];
        assert_eq!(
            missing_keys(&a, &b),
            (vec!["x".to_owned()], vec!["z".to_owned()])
        );
    }

    #[test]
    fn every_key_the_code_uses_is_defined() {
        // Scans the sources for tr("…") / text(…, "…") calls: a typo'd key
        // would otherwise show as the bare key on the page.
        let (en, _) = message_ids(EN_FTL);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut missing = Vec::new();
        let mut files = vec![root];
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                    files.push(entry.path());
                }
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap_or_default();
            for key in used_keys(&source) {
                if !en.contains(&key) {
                    missing.push(format!("{}: {key}", path.display()));
                }
            }
        }
        assert!(missing.is_empty(), "keys used but not defined: {missing:?}");
    }

    /// Literal keys passed to `tr`, `text` and `text_with` (first string argument).
    fn used_keys(source: &str) -> Vec<String> {
        let mut keys = Vec::new();
        for marker in [
            "tr(\"",
            "text(lang, \"",
            "text(lang(), \"",
            "text(current_lang(), \"",
            "text_with(lang, \"",
            "text_with(lang(), \"",
            "text_with(current_lang(), \"",
        ] {
            let mut rest = source;
            while let Some(at) = rest.find(marker) {
                rest = &rest[at + marker.len()..];
                if let Some(end) = rest.find('"') {
                    let key = &rest[..end];
                    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        keys.push(key.to_owned());
                    }
                }
            }
        }
        keys
    }

    #[test]
    fn chinese_texts_come_back_in_chinese_with_arguments() {
        let shown = text_with(Lang::Zh, "plan-heading", &[]);
        assert!(
            shown
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{shown}"
        );
        assert_eq!(text(Lang::En, "no-such-key"), "no-such-key");
        assert_eq!(parse_lang("zh-CN"), Some(Lang::Zh));
        assert_eq!(parse_lang("en_US"), Some(Lang::En));
        assert_eq!(parse_lang("fr"), None);
    }
}
