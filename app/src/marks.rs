//! A text with query terms marked: the pieces between the terms' spans (the engine's
//! `term_spans`, the lexical arms' own tokens) as text, the terms in `<mark>`. The Search view's
//! file pane and the labelling round's pages show files this way.

use leptos::prelude::*;
use routelens_engine::terms::term_spans;

/// `text` as pieces, every match of `terms` in `<mark>`.
pub fn marked(text: &str, terms: &[String]) -> Vec<AnyView> {
    let mut pieces = Vec::new();
    let mut at = 0;
    for (start, end) in term_spans(text, terms) {
        if let (Some(before), Some(hit)) = (text.get(at..start), text.get(start..end)) {
            pieces.push(before.to_string().into_any());
            pieces.push(view! { <mark>{hit.to_string()}</mark> }.into_any());
            at = end;
        }
    }
    pieces.push(text.get(at..).unwrap_or_default().to_string().into_any());
    pieces
}
