//! A candidate file beside the question: its text fetched from the task's bundle and verified,
//! the question's terms (the lexical arms' term extraction) in `<mark>`.

use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_app::bundles::{file_text, BundleFiles};
use routelens_app::marks::marked;

/// Lines shown at most (a file longer than this says so).
const MAX_LINES: usize = 2_000;

/// The file `path` of `bundle`, with `terms` marked.
#[component]
pub fn FilePane(
    bundle: Signal<Option<Rc<BundleFiles>>, LocalStorage>,
    path: Signal<Option<String>>,
    terms: Signal<Vec<String>>,
) -> impl IntoView {
    let texts: RwSignal<BTreeMap<String, Result<String, String>>> = RwSignal::new(BTreeMap::new());
    Effect::new(move |_| {
        let (Some(bundle), Some(path)) = (bundle.get(), path.get()) else {
            return;
        };
        if texts.with_untracked(|t| t.contains_key(&path)) {
            return;
        }
        spawn_local(async move {
            let text = file_text(
                &bundle.entry,
                (&bundle.manifest, &bundle.manifest_sha256),
                &path,
            )
            .await
            .map_err(|e| e.to_string());
            texts.update(|t| {
                t.insert(path, text);
            });
        });
    });
    move || {
        let path = path.get()?;
        let shown = texts.with(|t| t.get(&path).cloned());
        Some(match shown {
            None => view! { <p class="muted" data-testid="file-loading">{format!("loading {path} …")}</p> }
                .into_any(),
            Some(Err(e)) => view! { <p class="error" data-testid="file-error">{e}</p> }.into_any(),
            Some(Ok(text)) => render(&path, &text, &terms.get()).into_any(),
        })
    }
}

fn render(path: &str, text: &str, terms: &[String]) -> impl IntoView {
    let total = text.lines().count();
    let shown: String = text.split_inclusive('\n').take(MAX_LINES).collect();
    let pieces = marked(&shown, terms);
    view! {
        <div class="file-view" data-testid="file-view" data-path=path.to_string()>
            <h4>
                {path.to_string()}
                <span class="muted">{format!(" · {total} lines · terms: {}", terms.join(" "))}</span>
            </h4>
            {(total > MAX_LINES)
                .then(|| view! { <p class="muted">{format!("first {MAX_LINES} lines shown")}</p> })}
            // Focusable, so that a keyboard can scroll a long file (axe: scrollable-region-focusable).
            <pre tabindex="0">{pieces}</pre>
        </div>
    }
}
