//! Compare: a pinned result beside the current one, with the difference per line.

use leptos::prelude::*;

use crate::analysis::compare_rows;
use crate::i18n::{lang, text, text_with, tr};
use crate::state::use_state;

#[component]
pub fn Compare() -> impl IntoView {
    let state = use_state();
    let rows = Memo::new(move |_| {
        let pinned = state.pinned.get()?;
        let current = state.estimate.with(|e| {
            e.as_ref()
                .ok()
                .and_then(|e| (!e.gpus.is_empty()).then(|| e.headline_gpu().clone()))
        })?;
        Some((pinned.model.clone(), compare_rows(&pinned.report, &current)))
    });
    view! {
        <Show when=move || state.pinned.with(Option::is_some)>
            <section class="panel compare" aria-labelledby="compare-heading">
                <h2 id="compare-heading">{tr("compare-heading")}</h2>
                {move || {
                    let units = state.units.get();
                    match rows.get() {
                        None => view! { <p>{tr("compare-none")}</p> }.into_any(),
                        Some((model, rows)) => view! {
                            <table data-testid="compare-table">
                                <thead>
                                    <tr>
                                        <th scope="col">{tr("compare-line")}</th>
                                        <th scope="col">{text_with(lang(), "compare-pinned", &[("model", model)])}</th>
                                        <th scope="col">{tr("compare-current")}</th>
                                        <th scope="col">{tr("compare-difference")}</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {rows
                                        .into_iter()
                                        .map(|r| {
                                            let delta = r.delta();
                                            let trend = match delta.signum() {
                                                1 => "up",
                                                -1 => "down",
                                                _ => "",
                                            };
                                            let show = move |b: Option<u64>| b.map_or_else(|| "—".to_owned(), |b| units.bytes(b));
                                            view! {
                                                <tr>
                                                    <th scope="row">{text(lang(), &r.key)}</th>
                                                    <td>{show(r.pinned)}</td>
                                                    <td>{show(r.current)}</td>
                                                    <td class=trend>{units.signed_bytes(delta)}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                }}
                <p class="compare-actions">
                    <a href=move || state.pinned.with(|p| p.as_ref().map(|p| format!("?{}", p.query)))>{tr("compare-open")}</a>
                    <button type="button" on:click=move |_| state.pinned.set(None)>{tr("unpin")}</button>
                </p>
            </section>
        </Show>
    }
}
