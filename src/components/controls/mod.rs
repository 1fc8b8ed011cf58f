//! Labelled form fields shared by the panels. Each keeps the text being
//! typed, reports a valid value at once, and shows what is wrong in a line
//! whose space is always reserved (no layout jump while typing).

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::prelude::*;
use vramfit_core::url::Choice;

/// A fresh element id for `for`/`aria-describedby` pairs.
pub fn next_id(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// What a choice is called in a menu: its link key, spaced.
pub fn choice_label<T: Choice>(choice: T) -> String {
    choice.key().replace('_', " ")
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

/// Parses a whole number typed by a person (`2,048` and `2048` alike).
pub fn parse_count(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' '))
        .collect();
    match cleaned.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("a whole number from {min} to {max}")),
    }
}

/// Parses a decimal number typed by a person, within `min..=max`.
pub fn parse_decimal(text: &str, min: f64, max: f64) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= min && x <= max => Ok(x),
        _ => Err(format!("a number from {min} to {max}")),
    }
}

/// A text field for a number; `parse` turns the text into a value or says why not.
#[component]
pub fn NumberField<T, P>(
    label: &'static str,
    #[prop(into)] value: Signal<T>,
    #[prop(into)] on_change: Callback<T>,
    parse: P,
    #[prop(optional)] hint: &'static str,
    #[prop(optional)] testid: &'static str,
) -> impl IntoView
where
    T: Clone + PartialEq + ToString + Send + Sync + 'static,
    P: Fn(&str) -> Result<T, String> + Copy + Send + Sync + 'static,
{
    let id = next_id("num");
    let message_id = format!("{id}-msg");
    let text = RwSignal::new(value.get_untracked().to_string());
    let error = RwSignal::new(None::<String>);
    // Follow outside changes (another control, back/forward) unless the text
    // already means that value.
    Effect::new(move |_| {
        let v = value.get();
        let shown = text.with_untracked(|t| parse(t).ok());
        if shown.as_ref() != Some(&v) {
            text.set(v.to_string());
            error.set(None);
        }
    });
    let on_input = move |ev| {
        let typed = event_target_value(&ev);
        match parse(&typed) {
            Ok(v) => {
                error.set(None);
                on_change.run(v);
            }
            Err(why) => error.set(Some(why)),
        }
        text.set(typed);
    };
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <input
                id=id
                type="text"
                inputmode="decimal"
                autocomplete="off"
                data-testid=testid_or_slug(testid, label)
                aria-describedby=message_id.clone()
                aria-invalid=move || error.with(Option::is_some).to_string()
                prop:value=move || text.get()
                on:input=on_input
            />
            <span id=message_id class="field-msg" class:field-error=move || error.with(Option::is_some)>
                {move || error.get().unwrap_or_else(|| hint.to_owned())}
            </span>
        </div>
    }
}

/// A menu over a [`Choice`] enum; `options` limits it to what applies.
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
    let id = next_id("sel");
    let options = options.unwrap_or_else(|| Signal::derive(|| T::ALL.to_vec()));
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <select
                id=id
                data-testid=(!testid.is_empty()).then_some(testid)
                on:change=move |ev| {
                    if let Some(choice) = T::parse(&event_target_value(&ev)) {
                        on_change.run(choice);
                    }
                }
            >
                {move || {
                    options
                        .get()
                        .into_iter()
                        .map(|c| {
                            view! {
                                <option value=c.key() prop:selected=move || value.get() == c>
                                    {choice_label(c)}
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
    let id = next_id("opt");
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <select id=id on:change=move |ev| on_change.run(T::parse(&event_target_value(&ev)))>
                <option value="auto" prop:selected=move || value.get().is_none()>{none_label}</option>
                {T::ALL
                    .iter()
                    .map(|&c| {
                        view! {
                            <option value=c.key() prop:selected=move || value.get() == Some(c)>
                                {choice_label(c)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
            <span class="field-msg"></span>
        </div>
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
            {label}
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
