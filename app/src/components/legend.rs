//! The legend of a ranked list's marks, said once beside every list that uses them.

use leptos::prelude::*;

/// "★ gold", and for a list cut at k, what a dimmed entry means.
#[component]
pub fn GoldLegend(
    /// Whether entries past k are dimmed in the list it explains.
    #[prop(optional)]
    beyond_k: bool,
) -> impl IntoView {
    view! {
        <p class="muted legend" data-testid="gold-legend">
            <span class="gold-sample">"★ gold"</span>
            ": a file the question's gold lists"
            {beyond_k.then_some(" · dimmed: ranked below k, not counted")}
        </p>
    }
}
