//! The page's settings in its URL (`?view=label&task=…&labeller=…`): read once when the page
//! starts and written back as they change, so that a coordinator can send each labeller a link.
//! Grades, notes and decisions never go into it.

/// The query's value of `key`, if any.
pub fn get(key: &str) -> Option<String> {
    params()?.get(key).filter(|v| !v.is_empty())
}

/// Sets `key` to `value` in the address bar (removed when empty), without reloading.
pub fn set(key: &str, value: &str) {
    let Some(params) = params() else { return };
    if value.is_empty() {
        params.delete(key);
    } else {
        params.set(key, value);
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let url = format!("?{}", String::from(params.to_string()));
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

fn params() -> Option<web_sys::UrlSearchParams> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()
}
