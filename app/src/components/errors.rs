//! The fallback of the app's `ErrorBoundary`s: every caught error as its message, so a view can
//! render a `Result` and leave showing the failure to the boundary.

use leptos::error::Errors;
use leptos::prelude::*;

/// Every error the boundary caught, one message per line (class `error`, `data-testid`
/// `view-error`).
pub fn shown_errors(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <p class="error" data-testid="view-error">
            {move || {
                errors
                    .get()
                    .into_iter()
                    .map(|(_, error)| error.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            }}
        </p>
    }
}
