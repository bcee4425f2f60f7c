//! The decision API key on this device, only when the user ticks "remember": `localStorage`
//! under one name, removed as soon as the box is unticked. Everywhere else the key lives in a
//! signal only.

use wasm_bindgen::{JsCast, JsValue};

/// Where a remembered key is kept (only when the user ticks the box).
const KEY_STORAGE: &str = "routelens.typesafe_key";

/// `window.localStorage`, through reflection (the app's web-sys build has no `Storage` binding).
fn local_storage() -> Option<JsValue> {
    let storage = js_sys::Reflect::get(
        &leptos::prelude::window(),
        &JsValue::from_str("localStorage"),
    )
    .ok()?;
    (!storage.is_undefined() && !storage.is_null()).then_some(storage)
}

/// Calls `localStorage.<method>(args…)`.
fn storage_call(method: &str, args: &[&str]) -> Option<JsValue> {
    let storage = local_storage()?;
    let function: js_sys::Function = js_sys::Reflect::get(&storage, &JsValue::from_str(method))
        .ok()?
        .dyn_into()
        .ok()?;
    let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    function.apply(&storage, &args).ok()
}

/// The key remembered on this device, if the user asked for that.
pub fn remembered_key() -> Option<String> {
    storage_call("getItem", &[KEY_STORAGE])?
        .as_string()
        .filter(|key| !key.is_empty())
}

/// Keeps the key in local storage when `remember`, else removes any kept copy.
pub fn remember_key(key: &str, remember: bool) {
    if remember && !key.trim().is_empty() {
        storage_call("setItem", &[KEY_STORAGE, key.trim()]);
    } else {
        storage_call("removeItem", &[KEY_STORAGE]);
    }
}
