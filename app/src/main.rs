//! Mounts the app, or loads the labelling round's pages when the URL names one; everything else
//! lives in the library.
fn main() {
    console_error_panic_hook::set_once();
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    if routelens_app::rounds::is_rounds_query(&query) {
        routelens_app::rounds::load();
    } else {
        leptos::mount::mount_to_body(routelens_app::App);
    }
}
