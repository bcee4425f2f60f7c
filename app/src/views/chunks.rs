//! The Chunks view: one file of a bundle, numbered, with its chunk boundaries under each of the
//! bundle's chunkings side by side (a band per chunk, its first line naming it). The file's text
//! and every chunk table are fetched from the bundle and verified by the engine
//! (`Manifest::open_chunk`, `Manifest::open_chunking`); nothing is parsed in the browser.

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::code_chunks::CodeChunk;

use crate::api;
use crate::components::bundle_select;
use crate::error::{Error, Result};
use crate::state::{AppState, SettingsStoreFields};

/// A file with its chunks under each chunking.
#[derive(Debug, Clone)]
struct Shown {
    path: String,
    lines: Vec<String>,
    /// Chunker name and the file's chunks under it, in line order.
    chunkings: Vec<(String, Vec<CodeChunk>)>,
}

/// The Chunks view.
#[component]
pub fn ChunksView() -> impl IntoView {
    let app = AppState::get();
    let s = app.settings;
    let bundles = LocalResource::new(move || app.bundles.list());
    let path = RwSignal::new(s.chunk_path().get_untracked().unwrap_or_default());
    let shown: RwSignal<Option<Result<Shown>>> = RwSignal::new(None);
    let busy = RwSignal::new(false);
    let show = move || {
        let (Some(name), file) = (s.bundle().get_untracked(), path.get_untracked()) else {
            shown.set(Some(Err(Error::refused("choose a bundle first"))));
            return;
        };
        s.chunk_path().set((!file.is_empty()).then(|| file.clone()));
        busy.set(true);
        spawn_local(async move {
            let result = load(app, &name, &file).await;
            shown.set(Some(result));
            busy.set(false);
        });
    };
    // A permalink with a bundle and a path opens them.
    if s.bundle().get_untracked().is_some() && !path.get_untracked().is_empty() {
        show();
    }
    let picker = move || {
        let chosen = s.bundle().get_untracked().unwrap_or_default();
        bundle_select(
            bundles.get(),
            chosen,
            "chunks-bundle-select",
            "bundles-absent",
            move |entry| s.bundle().set(Some(entry.name)),
        )
    };
    let result = move || match shown.get() {
        None => ().into_any(),
        Some(Err(err)) => {
            view! { <p class="error" data-testid="chunks-error">{err.to_string()}</p> }.into_any()
        }
        Some(Ok(file)) => render(file).into_any(),
    };
    view! {
        <section>
            <div class="controls">
                {picker}
                <label class="control wide">
                    "file "
                    <input
                        type="text"
                        size="60"
                        data-testid="chunks-path"
                        prop:value=move || path.get()
                        on:change=move |ev| path.set(event_target_value(&ev))
                    />
                </label>
                <button
                    data-testid="chunks-show"
                    disabled=move || busy.get()
                    on:click=move |_| show()
                >
                    "Show chunks"
                </button>
            </div>
            <p class="note">
                "Each column is one of the bundle's chunkings; a band is one chunk, named on its "
                "first line (kind, then name). Windows overlap: a line in two windows shows the band "
                "of the later one."
            </p>
            {result}
        </section>
    }
}

/// Fetches and verifies the file's text and every chunking's table.
async fn load(app: AppState, name: &str, path: &str) -> Result<Shown> {
    let entry = app.bundles.find(name).await?;
    let files = app.bundles.open(&entry, |_| {}).await?;
    let manifest = &files.manifest;
    let file = manifest
        .file(path)
        .ok_or_else(|| Error::refused(format!("{path:?} is not a file of bundle {name}")))?;
    let at = file.chunk as usize;
    let stored = api::fetch_required(&entry.url_of(&manifest.chunks[at].file)).await?;
    let chunk = manifest.open_chunk(at, &stored)?;
    let text = manifest.file_text(&chunk, path)?;
    if manifest.chunkings.is_empty() {
        return Err(Error::refused(format!(
            "bundle {name} has no chunkings (format {}); rebuild it with `routelens bundle`",
            manifest.format_version
        )));
    }
    let mut chunkings = Vec::new();
    for chunking in &manifest.chunkings {
        let stored = api::fetch_required(&entry.url_of(&chunking.file)).await?;
        let table = manifest.open_chunking(chunking.chunker, &stored)?;
        let mine = table.into_iter().filter(|c| c.path == path).collect();
        chunkings.push((chunking.chunker.name().to_string(), mine));
    }
    Ok(Shown {
        path: path.to_string(),
        lines: text.lines().map(str::to_string).collect(),
        chunkings,
    })
}

/// The numbered source with a band column per chunking.
fn render(file: Shown) -> impl IntoView {
    let headers = file
        .chunkings
        .iter()
        .map(|(name, chunks)| {
            let n = chunks.len();
            view! { <th>{format!("{name} ({n} chunk{})", if n == 1 { "" } else { "s" })}</th> }
        })
        .collect_view();
    let rows = file
        .lines
        .iter()
        .enumerate()
        .map(|(at, line)| {
            let number = at as u32 + 1;
            let bands = file
                .chunkings
                .iter()
                .map(|(name, chunks)| {
                    // The last chunk that holds the line; its position gives the band's shade.
                    let holder = chunks
                        .iter()
                        .enumerate()
                        .rfind(|(_, c)| c.start_line <= number && number <= c.end_line);
                    match holder {
                        Some((ordinal, c)) => {
                            let starts = c.start_line == number;
                            let label = if starts {
                                if c.name.is_empty() {
                                    c.kind.clone()
                                } else {
                                    format!("{} {}", c.kind, c.name)
                                }
                            } else {
                                String::new()
                            };
                            view! {
                                <td
                                    class=if ordinal % 2 == 0 { "band band-a" } else { "band band-b" }
                                    data-chunker=name.clone()
                                    data-start=starts.then(|| c.start_line.to_string())
                                    data-end=starts.then(|| c.end_line.to_string())
                                >
                                    {label}
                                </td>
                            }
                            .into_any()
                        }
                        None => view! { <td data-chunker=name.clone()></td> }.into_any(),
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <td class="num">{number}</td>
                    <td><pre class="source-line">{line.clone()}</pre></td>
                    {bands}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="chunks" data-testid="chunks-file" data-path=file.path.clone()>
            <h3>{format!("{} ({} lines)", file.path, file.lines.len())}</h3>
            <table data-testid="chunks-table">
                <thead>
                    <tr>
                        <th>"line"</th>
                        <th>"source"</th>
                        {headers}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
