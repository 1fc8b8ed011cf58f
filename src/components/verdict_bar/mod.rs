//! On a phone the result sits below every input: a bar at the top of the
//! calculator keeps the answer in sight (the verdict and the total that must
//! fit), following every edit. Hidden on wide screens, where the result is
//! beside the inputs (verdict_bar.css).

use leptos::prelude::*;
use vramfit_core::report::Verdict;

use crate::i18n::{colon, lang, text, text_with};
use crate::state::use_state;

#[component]
pub fn VerdictBar() -> impl IntoView {
    let state = use_state();
    let line = Memo::new(move |_| {
        let lang = lang();
        let units = state.units.get();
        state.estimate.with(|e| match e {
            Ok(e) if !e.gpus.is_empty() => {
                let used = units.bytes(e.headline_gpu().device_used_bytes);
                let total = format!("{}{}{used}", text(lang, "total-device-used"), colon(lang));
                let (verdict, class) = match e.verdict() {
                    Verdict::Fits { spare_bytes, .. } => (
                        text_with(lang, "embed-fits", &[("spare", units.bytes(spare_bytes))]),
                        "fits",
                    ),
                    Verdict::ShortBy { short_bytes, .. } => (
                        text_with(lang, "embed-short", &[("short", units.bytes(short_bytes))]),
                        "short",
                    ),
                    Verdict::Unknown => (text(lang, "pick-gpu"), ""),
                };
                (format!("{verdict} · {total}"), class)
            }
            Ok(_) => (text(lang, "no-gpu-in-estimate"), "short"),
            Err(err) => (err.to_string(), "short"),
        })
    });
    view! {
        // A stale result is marked by its class (result.css).
        <a
            class=move || {
                let stale = state.stale.with(Option::is_some);
                line.with(|l| format!("verdict-bar {}{}", l.1, if stale { " stale" } else { "" }))
            }
            href="#result-heading"
            data-testid="verdict-bar"
        >
            {move || line.with(|l| l.0.clone())}
        </a>
    }
}
