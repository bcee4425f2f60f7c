//! The bundle store, beside the study store: the site's bundle list (and those the reader opened) and each bundle's manifest
//! and question set, each fetched once per page and shared by the Search, Context and Route
//! views. A bundle's index and texts are loaded once into the live worker ([`crate::live`]),
//! which every view shares too, so switching views fetches nothing again.

mod file_text;
mod store;
mod with_study;

pub use file_text::file_text;
pub use store::{load_call, BundleFiles, BundleStore};
pub use with_study::{fetch_bundle, FetchedBundle};
