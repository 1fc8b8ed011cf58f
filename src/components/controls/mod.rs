//! Labelled form fields shared by the panels. Each keeps the text being
//! typed, reports a valid value at once, and shows what is wrong in a line
//! whose space is always reserved (no layout jump while typing).
//!
//! Styles (controls.css): label above the input, the message line below;
//! long option texts ("same as compute") wrap in their label rather than
//! being cut, a select never growing past its grid cell.

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::prelude::*;
use vramfit_core::url::Choice;

use crate::format::num;
use crate::i18n::{current_lang, lang, space, text_or, text_with};

/// A core input error: the field it names, then what is wrong, in the
/// page's language (English where the core has no Chinese text).
#[component]
pub fn InputErrorText(err: vramfit_core::InputError) -> impl IntoView {
    let field = err.field.clone();
    view! { <code>{field}</code>": "{move || err.text(lang())} }
}

/// A fresh element id for `for`/`aria-describedby` pairs.
pub fn next_id(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// What a choice is called in a menu: the message `choice-<key>` in the
/// page's language where a key is a word to translate (`none`, `pure16`),
/// else the link key spaced (`paged adamw8bit`: names stay names).
pub fn choice_label<T: Choice>(choice: T) -> String {
    key_label(choice.key())
}

/// [`choice_label`] of a link key.
pub fn key_label(key: &str) -> String {
    text_or(lang(), &format!("choice-{key}"), || key.replace('_', " "))
}

/// The range of the count at link key `key`, from the core's field
/// registry; unbounded for a key it does not know (the core's validation
/// still applies to whatever is typed).
pub fn field_range(key: &str) -> (u64, u64) {
    vramfit_core::scenario::fields::by_key(key)
        .and_then(|f| f.range())
        .unwrap_or((0, u64::MAX))
}

/// The test hook of a field: the given id, else the label in kebab case
/// (`micro-batch`, `sequence-length`).
pub fn testid_or_slug(testid: &str, label: &str) -> String {
    if !testid.is_empty() {
        return testid.to_owned();
    }
    let mut slug = String::with_capacity(label.len());
    for c in label.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_owned()
}

/// The label of a field in the page's language: the message `field-<slug>`
/// of the English label (`locales/*.ftl`), else the English label itself.
pub fn field_label(label: &'static str) -> impl Fn() -> String + Clone + Send + Sync + 'static {
    translated_or(format!("field-{}", testid_or_slug("", label)), label)
}

/// The message `key` in the page's language (tracked), else `english`.
fn translated_or(
    key: String,
    english: &'static str,
) -> impl Fn() -> String + Clone + Send + Sync + 'static {
    move || text_or(lang(), &key, || english.to_owned())
}

/// Parses a whole number typed by a person (`2,048` and `2048` alike).
pub fn parse_count(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' '))
        .collect();
    match cleaned.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(text_with(
            current_lang(),
            "err-whole-number",
            &[("min", min.to_string()), ("max", max.to_string())],
        )),
    }
}

/// Parses a whole number within the range of the count at link key `key`.
pub fn parse_field_count(text: &str, key: &str) -> Result<u64, String> {
    let (min, max) = field_range(key);
    parse_count(text, min, max)
}

/// Parses a decimal number typed by a person, within `min..=max`.
pub fn parse_decimal(text: &str, min: f64, max: f64) -> Result<f64, String> {
    // The core's reader: the same value as `str::parse`, without its tables.
    match vramfit_core::decimal::parse_f64(text.trim()) {
        Some(x) if x >= min && x <= max => Ok(x),
        _ => Err(text_with(
            current_lang(),
            "err-number",
            &[("min", num(min)), ("max", num(max))],
        )),
    }
}

/// A field's value as its text field shows it.
pub trait Shown {
    fn shown(&self) -> String;
}

impl Shown for u64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for String {
    fn shown(&self) -> String {
        self.clone()
    }
}

/// Through the core's formatter: the page carries no float formatter.
impl Shown for f64 {
    fn shown(&self) -> String {
        num(*self)
    }
}

/// A text field for a number; `parse` turns the text into a value or says why not.
///
/// Generic only in this thin layer: the markup lives in the non-generic
/// [`NumberInput`], so each call site adds two small closures, not a copy of
/// the view (wasm size).
#[component]
pub fn NumberField<T, P>(
    label: &'static str,
    #[prop(into)] value: Signal<T>,
    #[prop(into)] on_change: Callback<T>,
    parse: P,
    #[prop(optional)] hint: &'static str,
    #[prop(optional)] testid: &'static str,
    /// Letters too (`phone, 336x336`): a full keyboard, not a number pad.
    #[prop(optional)]
    words: bool,
) -> impl IntoView
where
    T: Clone + PartialEq + Shown + Send + Sync + 'static,
    P: Fn(&str) -> Result<T, String> + Copy + Send + Sync + 'static,
{
    let shown = Signal::derive(move || value.get().shown());
    let commit = Callback::new(move |text: String| match parse(&text) {
        Ok(v) => {
            on_change.run(v);
            None
        }
        Err(why) => Some(why),
    });
    view! { <NumberInput label shown commit hint testid words/> }
}

#[component]
fn NumberInput(
    label: &'static str,
    shown: Signal<String>,
    commit: Callback<String, Option<String>>,
    hint: &'static str,
    testid: &'static str,
    words: bool,
) -> impl IntoView {
    let id = next_id("num");
    let message_id = format!("{id}-msg");
    let text = RwSignal::new(shown.get_untracked());
    let error = RwSignal::new(None::<String>);
    // What the state showed right after the user's own typing: the value
    // read back from the state can differ from the text that set it ("2,048"
    // reads 2048; 23.9 GiB, stored in whole bytes, reads 23.90000000037253).
    // While the state still shows that, the field keeps the text as typed.
    let echo = RwSignal::new(None::<String>);
    // Follow outside changes (another control, back/forward, units).
    Effect::new(move |_| {
        let value = shown.get();
        if echo.with_untracked(|e| e.as_ref() != Some(&value)) {
            echo.set(None);
            if text.get_untracked() != value {
                text.set(value);
                error.set(None);
            }
        }
    });
    let hint_text = translated_or(testid_or_slug("", hint), hint);
    let on_input = move |ev| {
        let typed = event_target_value(&ev);
        text.set(typed.clone());
        error.set(commit.run(typed));
        echo.set(Some(shown.get_untracked()));
    };
    view! {
        <div class="field">
            <label for=id.clone()>{field_label(label)}</label>
            <input
                id=id
                type="text"
                inputmode=if words { "text" } else { "decimal" }
                autocomplete="off"
                data-testid=testid_or_slug(testid, label)
                aria-describedby=message_id.clone()
                aria-invalid=move || error.with(Option::is_some).to_string()
                prop:value=move || text.get()
                on:input=on_input
            />
            <span id=message_id class="field-msg" class:field-error=move || error.with(Option::is_some)>
                {move || error.get().unwrap_or_else(&hint_text)}
            </span>
        </div>
    }
}

/// A menu over a [`Choice`] enum; `options` limits it to what applies.
/// Thin generic layer over the non-generic [`ChoiceSelect`].
#[component]
pub fn ChoiceField<T>(
    label: &'static str,
    #[prop(into)] value: Signal<T>,
    #[prop(into)] on_change: Callback<T>,
    #[prop(into, optional)] options: Option<Signal<Vec<T>>>,
    #[prop(optional)] testid: &'static str,
) -> impl IntoView
where
    T: Choice + Send + Sync,
{
    let keys = match options {
        Some(options) => Signal::derive(move || {
            options
                .get()
                .into_iter()
                .map(|c| (c.key(), choice_label(c)))
                .collect()
        }),
        None => Signal::derive(|| T::ALL.iter().map(|&c| (c.key(), choice_label(c))).collect()),
    };
    let selected = Signal::derive(move || value.get().key());
    let pick = Callback::new(move |key: String| {
        if let Some(choice) = T::parse(&key) {
            on_change.run(choice);
        }
    });
    view! { <ChoiceSelect label keys selected pick testid/> }
}

/// The menu's entries: `keys`, plus the selected key when the options no
/// longer list it, so that a select always shows the value in the state
/// (a browser shows the first option when the selected one is missing).
pub fn menu_entries(
    mut keys: Vec<(&'static str, String)>,
    selected: &'static str,
) -> Vec<(&'static str, String)> {
    if !keys.iter().any(|(k, _)| *k == selected) {
        keys.insert(0, (selected, key_label(selected)));
    }
    keys
}

/// A menu over link keys: `keys` pairs each with its text.
#[component]
pub fn ChoiceSelect(
    label: &'static str,
    keys: Signal<Vec<(&'static str, String)>>,
    selected: Signal<&'static str>,
    pick: Callback<String>,
    testid: &'static str,
) -> impl IntoView {
    let id = next_id("sel");
    view! {
        <div class="field">
            <label for=id.clone()>{field_label(label)}</label>
            <select
                id=id
                data-testid=testid_or_slug(testid, label)
                prop:value=move || selected.get()
                on:change=move |ev| pick.run(event_target_value(&ev))
            >
                {move || {
                    menu_entries(keys.get(), selected.get())
                        .into_iter()
                        .map(|(key, text)| {
                            view! {
                                <option value=key prop:selected=move || selected.get() == key>
                                    {text}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
            <span class="field-msg"></span>
        </div>
    }
}

/// A menu over an optional [`Choice`]: `none_label` stands for `None`.
#[component]
pub fn OptionalChoiceField<T>(
    label: &'static str,
    none_label: &'static str,
    #[prop(into)] value: Signal<Option<T>>,
    #[prop(into)] on_change: Callback<Option<T>>,
) -> impl IntoView
where
    T: Choice + Send + Sync,
{
    let none_text = translated_or(testid_or_slug("", none_label), none_label);
    let keys = Signal::derive(move || {
        std::iter::once(("auto", none_text()))
            .chain(T::ALL.iter().map(|&c| (c.key(), choice_label(c))))
            .collect()
    });
    let selected = Signal::derive(move || value.get().map_or("auto", |c| c.key()));
    let pick = Callback::new(move |key: String| on_change.run(T::parse(&key)));
    view! { <ChoiceSelect label keys selected pick testid=""/> }
}

/// A line about the inputs with the change that answers it, as a button
/// (a search with no match: paste the config; several GPUs each holding a
/// copy: set tensor parallel). Nothing while `text` is `None`, no button
/// while `action` is. One copy of the markup for every such line.
#[component]
pub fn ActionNote(
    class: &'static str,
    testid: &'static str,
    button_testid: &'static str,
    #[prop(into)] text: Signal<Option<String>>,
    #[prop(into)] action: Signal<Option<String>>,
    on_click: Callback<String>,
) -> impl IntoView {
    move || {
        text.get().map(|t| {
            view! {
                <p class=class data-testid=testid role="status">
                    {t}
                    {move || {
                        action.get().map(|label| {
                            view! {
                                {space(lang())}
                                <button type="button" data-testid=button_testid on:click=move |_| on_click.run(String::new())>
                                    {label}
                                </button>
                            }
                        })
                    }}
                </p>
            }
        })
    }
}

#[component]
pub fn CheckField(
    label: &'static str,
    #[prop(into)] value: Signal<bool>,
    #[prop(into)] on_change: Callback<bool>,
) -> impl IntoView {
    view! {
        <label class="check">
            <input
                type="checkbox"
                prop:checked=move || value.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            {field_label(label)}
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_menu_always_lists_the_selected_key() {
        let keys = vec![("int8", "int8".to_owned()), ("nf4", "nf4".to_owned())];
        assert_eq!(menu_entries(keys.clone(), "nf4"), keys);
        let shown = menu_entries(keys, "bf16");
        assert_eq!(shown.first().map(|k| k.0), Some("bf16"));
        assert_eq!(shown.len(), 3);
    }

    #[test]
    fn counts_accept_separators_and_reject_out_of_range() {
        assert_eq!(parse_count("2,048", 1, 4096), Ok(2048));
        assert_eq!(parse_count(" 16 ", 1, 4096), Ok(16));
        assert!(parse_count("0", 1, 4096).is_err());
        assert!(parse_count("", 1, 4096).is_err());
        assert!(parse_count("1e3", 1, 4096).is_err());
    }

    #[test]
    fn decimals_stay_in_range() {
        assert_eq!(parse_decimal("0.9", 0.01, 1.0), Ok(0.9));
        assert!(parse_decimal("1.5", 0.01, 1.0).is_err());
        assert!(parse_decimal("NaN", 0.0, 1.0).is_err());
    }

    #[test]
    fn test_hooks_follow_the_label() {
        assert_eq!(testid_or_slug("", "micro-batch"), "micro-batch");
        assert_eq!(
            testid_or_slug("", "image side (px, 0 = model's)"),
            "image-side-px-0-model-s"
        );
        assert_eq!(testid_or_slug("gpu-count", "GPU count"), "gpu-count");
    }

    #[test]
    fn labels_read_as_words() {
        use vramfit_core::scenario::Optimizer;
        assert_eq!(choice_label(Optimizer::PagedAdamw8bit), "paged adamw8bit");
    }
}

/// A titled panel with one paste box (OOM doctor, memory logs): every edit
/// goes to `pasted`; the views parse a debounced copy of it.
#[component]
pub fn PastePanel(
    /// Element id prefix and test id stem (`doctor` → `doctor-paste`).
    name: &'static str,
    /// Locale keys of the heading, the box's label and the hint under it.
    heading: &'static str,
    label: &'static str,
    hint: &'static str,
    placeholder: &'static str,
    pasted: RwSignal<String>,
) -> impl IntoView {
    let heading_id = format!("{name}-heading");
    let paste_id = format!("{name}-paste");
    let (heading_ref, paste_for, paste_testid) =
        (heading_id.clone(), paste_id.clone(), paste_id.clone());
    view! {
        <section class=format!("panel {name}-input") aria-labelledby=heading_ref>
            <h2 id=heading_id>{crate::i18n::tr(heading)}</h2>
            <label for=paste_for>{crate::i18n::tr(label)}</label>
            <textarea
                id=paste_id
                data-testid=paste_testid
                rows="12"
                spellcheck="false"
                placeholder=placeholder
                on:input=move |ev| pasted.set(event_target_value(&ev))
            ></textarea>
            <p class="hint">{crate::i18n::tr(hint)}</p>
        </section>
    }
}
