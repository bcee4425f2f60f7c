//! The second labelling round's pages (`view=label`, `view=adjudicate`) are a wasm module of their
//! own (`rounds/`), so that the study views' first load does not grow by them. When the URL names
//! one of them, `main` loads that module instead of mounting the app: the labeller sees no tab,
//! link or gold of the study views, and the app's permalink never rewrites the page's URL.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The pages' script: Trunk's build of the `routelens-rounds` binary, relative to the page.
const SCRIPT: &str = "routelens-rounds.js";
/// The script that starts it, once it is loaded.
const START: &str = "routelens-rounds-start.js";

/// Whether the page's query string (`?view=label&…`) names one of the round's pages.
pub fn is_rounds_query(query: &str) -> bool {
    query
        .trim_start_matches('?')
        .split('&')
        .any(|pair| matches!(pair, "view=label" | "view=adjudicate"))
}

/// Loads the round's module (its glue, then the script that starts it), which mounts its page on
/// the body; a failure is said on the page.
pub fn load() {
    if let Err(message) = try_load() {
        say(&format!("the labelling pages could not start: {message}"));
    }
}

fn try_load() -> Result<(), String> {
    say("loading the labelling pages …");
    add_script(SCRIPT, |script| {
        let started = Closure::<dyn FnMut()>::new(start);
        script.set_onload(Some(started.as_ref().unchecked_ref()));
        started.forget();
    })
}

/// Appends a `<script src>` of `src` to the body, `prepare`d first; its failure to load is said.
fn add_script(
    src: &'static str,
    prepare: impl FnOnce(&web_sys::HtmlScriptElement),
) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let script: web_sys::HtmlScriptElement = document
        .create_element("script")
        .and_then(|e| e.dyn_into().map_err(JsValue::from))
        .map_err(|e| format!("{e:?}"))?;
    script.set_src(src);
    prepare(&script);
    let failed = Closure::<dyn FnMut()>::new(move || say(&format!("{src}: could not be loaded")));
    script.set_onerror(Some(failed.as_ref().unchecked_ref()));
    failed.forget();
    document
        .body()
        .ok_or("no body")?
        .append_child(&script)
        .map_err(|e| format!("{e:?}"))?;
    Ok(())
}

/// Adds the script that starts the module (`rounds/routelens-rounds-start.js`): the glue's
/// `wasm_bindgen` is a global binding of classic scripts, which only another script can call
/// (the page's Content-Security-Policy allows no `eval`).
fn start() {
    if let Err(message) = add_script(START, |_| ()) {
        say(&format!("{START}: {message}"));
    }
}

/// Shows `text` in the loading line (`rounds-loading`), which the round's page replaces.
fn say(text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let line = match document.get_element_by_id("rounds-loading") {
        Some(line) => line,
        None => {
            let Ok(line) = document.create_element("p") else {
                return;
            };
            line.set_id("rounds-loading");
            let _ = line.set_attribute("data-testid", "rounds-loading");
            if let Some(body) = document.body() {
                let _ = body.append_child(&line);
            }
            line
        }
    };
    line.set_text_content(Some(text));
}

#[cfg(test)]
mod tests {
    use super::is_rounds_query;

    #[test]
    fn only_the_rounds_views_load_the_rounds_module() {
        assert!(is_rounds_query("?view=label&task=t.json"));
        assert!(is_rounds_query("task=t.json&view=adjudicate"));
        assert!(!is_rounds_query("?view=labels"));
        assert!(!is_rounds_query("?view=search&q=view=label"));
        assert!(!is_rounds_query(""));
    }
}
