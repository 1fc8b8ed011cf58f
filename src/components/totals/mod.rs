//! The three totals users confuse, side by side: peak allocated (live
//! tensors), peak reserved (plus the caching allocator's blocks) and device
//! used (what nvidia-smi shows). Each carries its exact byte count in
//! `data-bytes`, equal to `vramfit estimate --json` (the end-to-end test
//! reads them), for the headline GPU the caller passes.

use leptos::prelude::*;
use vramfit_core::report::GpuReport;

use crate::format::{grouped, Units};
use crate::i18n::{lang_untracked, text};

/// The totals of one GPU. `compact` (embed mode) leaves out what each means.
/// Rendered inside the caller's tracked closure: the language is read untracked.
#[component]
pub fn Totals(report: GpuReport, units: Units, #[prop(optional)] compact: bool) -> impl IntoView {
    let lang = lang_untracked();
    let rows = [
        (
            "peak-allocated-bytes",
            "total-peak-allocated",
            report.peak_allocated_bytes,
            "meaning-peak-allocated",
        ),
        (
            "peak-reserved-bytes",
            "total-peak-reserved",
            report.peak_reserved_bytes,
            "meaning-peak-reserved",
        ),
        (
            "device-used-bytes",
            "total-device-used",
            report.device_used_bytes,
            "meaning-device-used",
        ),
    ];
    view! {
        <dl class="totals" class:compact=compact>
            {rows
                .into_iter()
                .map(|(testid, name, bytes, meaning)| view! {
                    <div class="total">
                        <dt>{text(lang, name)}</dt>
                        <dd data-testid=testid data-bytes=bytes.to_string() title=format!("{} bytes", grouped(bytes))>
                            {units.bytes(bytes)}
                        </dd>
                        {(!compact).then(|| view! { <dd class="meaning">{text(lang, meaning)}</dd> })}
                    </div>
                })
                .collect_view()}
        </dl>
    }
}
