//! The Chunks view: one file of a bundle, numbered, with its chunk boundaries under each of the
//! bundle's chunkings side by side (a band per chunk, its first line naming it), and chunk search
//! over one chunking for a typed question. The file's text and every chunk table are fetched from
//! the bundle and verified by the engine (`Manifest::open_chunk`, `Manifest::open_chunking`);
//! nothing is parsed in the browser. The search runs in the live worker by BM25 (the chunking's
//! index from the bundle), dense (its stored vectors, fetched on first use) or hybrid (RRF of
//! both), `routelens search --unit chunk` answering the same; a question the bundle stores no
//! vector for has the worker fetch the embedding model once, with a progress bar and Cancel. A
//! result opens its file here.

pub mod params;

use leptos::prelude::*;
use leptos::task::spawn_local;
use routelens_engine::corpus::code_chunks::{Chunker, CodeChunk};
use routelens_engine::live::live_session::{AnswerBody, CallBody, ChunkResult};
use routelens_engine::retrieval::chunk_search::Retriever;

use crate::bundles::file_text;
use crate::components::bundle_select;
use crate::error::{Error, Result};
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::state::AppState;
use crate::{api, live};
use params::ChunksParamsStoreFields;

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
    let path = RwSignal::new(s.chunks().path().get_untracked().unwrap_or_default());
    let shown: RwSignal<Option<Result<Shown>>> = RwSignal::new(None);
    let busy = RwSignal::new(false);
    let show = move || {
        let (Some(name), file) = (s.shared().bundle().get_untracked(), path.get_untracked()) else {
            shown.set(Some(Err(Error::refused("choose a bundle first"))));
            return;
        };
        s.chunks()
            .path()
            .set((!file.is_empty()).then(|| file.clone()));
        busy.set(true);
        spawn_local(async move {
            let result = load(app, &name, &file).await;
            shown.set(Some(result));
            busy.set(false);
        });
    };
    // A permalink with a bundle and a path opens them.
    if s.shared().bundle().get_untracked().is_some() && !path.get_untracked().is_empty() {
        show();
    }
    let picker = move || {
        let chosen = s.shared().bundle().get_untracked().unwrap_or_default();
        bundle_select(
            bundles.get(),
            chosen,
            "chunks-bundle-select",
            "bundles-absent",
            move |entry| s.shared().bundle().set(Some(entry.name)),
        )
    };
    let search = search_panel(app, move |file: String| {
        path.set(file);
        show();
    });
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
            {search}
            <p class="note">
                "Each column is one of the bundle's chunkings; a band is one chunk, named on its "
                "first line (kind, then name). Windows overlap: a line in two windows shows the band "
                "of the later one."
            </p>
            {result}
        </section>
    }
}

/// Where a chunk search is.
#[derive(Debug, Clone, PartialEq)]
enum Searched {
    Idle,
    Running(live::Meter),
    Found {
        chunker: Chunker,
        retriever: Retriever,
        hits: Vec<ChunkResult>,
        ms: f64,
    },
    Failed(String),
}

/// A running search's call, for Cancel.
#[derive(Debug, Clone, Copy, Default)]
struct Call {
    id: Option<u64>,
    cancelled: bool,
}

/// Results per chunk search.
const CHUNK_HITS: usize = 10;

/// The question, the chunking, the cap, and the ranked chunks; `open` shows a result's file.
fn search_panel(
    app: AppState,
    open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let s = app.settings;
    let searched = RwSignal::new(Searched::Idle);
    let call = StoredValue::new(Call::default());
    let chunkings = LocalResource::new(move || app.bundles.chunkers(s.shared().bundle().get()));
    let chosen = move || {
        let have = chunkings.get().and_then(|r| r.ok()).unwrap_or_default();
        s.shared()
            .chunker()
            .get()
            .filter(|c| have.contains(c))
            .or_else(|| have.first().copied())
    };
    let run = move |_| {
        let (Some(name), Some(chunker)) = (s.shared().bundle().get_untracked(), chosen()) else {
            searched.set(Searched::Failed(
                "choose a bundle with chunkings first".into(),
            ));
            return;
        };
        let query = s.shared().query().get_untracked().unwrap_or_default();
        if query.trim().is_empty() {
            searched.set(Searched::Failed("type a question first".into()));
            return;
        }
        let cap = s.chunks().cap().get_untracked();
        let retriever = s.chunks().retriever().get_untracked();
        searched.set(Searched::Running(live::Meter {
            text: format!("{name}: loading the {} chunking", chunker.name()),
            bytes: None,
        }));
        call.set_value(Call::default());
        spawn_local(async move {
            let asked = (chunker, retriever);
            let found = chunk_search(app, &name, asked, (&query, cap), (searched, call)).await;
            call.update_value(|c| c.id = None);
            searched.set(match found {
                Ok((hits, ms)) => Searched::Found {
                    chunker,
                    retriever,
                    hits,
                    ms,
                },
                Err(err) => Searched::Failed(err.to_string()),
            });
        });
    };
    let cancel = move |_| {
        call.update_value(|c| c.cancelled = true);
        if let Some(id) = call.get_value().id {
            live::cancel(id);
        }
    };
    let options = move || {
        let have = chunkings.get().and_then(|r| r.ok()).unwrap_or_default();
        let current = chosen();
        have.into_iter()
            .map(|c| {
                view! {
                    <option value=c.name() selected=Some(c) == current>{c.name()}</option>
                }
            })
            .collect_view()
    };
    let results = move || match searched.get() {
        Searched::Idle => ().into_any(),
        Searched::Running(meter) => running(meter).into_any(),
        Searched::Failed(err) => {
            view! { <p class="error" data-testid="chunks-search-error">{err}</p> }.into_any()
        }
        Searched::Found {
            chunker,
            retriever,
            hits,
            ms,
        } => hits_table((chunker, retriever), hits, ms, open).into_any(),
    };
    let retrievers = move || {
        let current = s.chunks().retriever().get();
        Retriever::ALL
            .into_iter()
            .map(|r| view! { <option value=r.name() selected=r == current>{r.name()}</option> })
            .collect_view()
    };
    view! {
        <div class="controls">
            <label class="control wide">
                "question "
                <input
                    type="text"
                    size="50"
                    data-testid="chunks-query"
                    prop:value=move || s.shared().query().get().unwrap_or_default()
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        s.shared().query().set((!text.trim().is_empty()).then_some(text));
                    }
                />
            </label>
            <label class="control">
                "chunking "
                <select
                    data-testid="chunks-chunker"
                    on:change=move |ev| s.shared().chunker().set(Chunker::from_name(&event_target_value(&ev)))
                >
                    {options}
                </select>
            </label>
            <label class="control">
                "retriever "
                <select
                    data-testid="chunks-retriever"
                    on:change=move |ev| {
                        if let Some(r) = Retriever::from_name(&event_target_value(&ev)) {
                            s.chunks().retriever().set(r);
                        }
                    }
                >
                    {retrievers}
                </select>
            </label>
            <label class="control">
                "per-file cap "
                <input
                    type="text"
                    size="4"
                    data-testid="chunks-cap"
                    prop:value=move || s.chunks().cap().get().map(|c| c.to_string()).unwrap_or_default()
                    on:change=move |ev| {
                        s.chunks().cap().set(event_target_value(&ev).trim().parse::<usize>().ok().filter(|&c| c >= 1))
                    }
                />
            </label>
            <button
                data-testid="chunks-search"
                disabled=move || matches!(searched.get(), Searched::Running(_))
                on:click=run
            >
                "Search chunks"
            </button>
            <button
                data-testid="chunks-cancel"
                disabled=move || !matches!(searched.get(), Searched::Running(_))
                on:click=cancel
            >
                "Cancel"
            </button>
        </div>
        <p class="note">
            "bm25: the chunking's own index; dense: cosine between the question's all-MiniLM-L6-v2 \
             vector and each chunk's, stored in the bundle; hybrid: RRF (k = 60) of the two's top \
             60. A question of the bundle's set uses its stored vector; any other question has \
             this browser fetch the embedding model once (about 45 MB from a site that carries \
             it, 91 MB from a model hub; kept for later visits)."
        </p>
        {results}
    }
}

/// The progress line, with a bar while a large file comes in.
fn running(meter: live::Meter) -> impl IntoView {
    let bar = meter.bytes.map(|[done, total]| {
        let mb = |bytes: u64| bytes as f64 / 1e6;
        view! {
            <progress
                data-testid="chunks-search-bar"
                value=done.to_string()
                max=total.max(1).to_string()
            ></progress>
            <span class="num">{format!(" {:.1} of {:.1} MB", mb(done), mb(total))}</span>
        }
    });
    view! {
        <p class="progress" data-testid="chunks-search-progress">
            {meter.text}
            " "
            {bar}
        </p>
    }
}

/// Loads the chunking (and for dense and hybrid its vectors) into the worker, once, and searches
/// it; the worker fetches the embedding model first when the question needs it.
async fn chunk_search(
    app: AppState,
    name: &str,
    (chunker, retriever): (Chunker, Retriever),
    (query, cap): (&str, Option<usize>),
    (searched, call): (RwSignal<Searched>, StoredValue<Call>),
) -> Result<(Vec<ChunkResult>, f64)> {
    let progress: live::OnProgress =
        std::rc::Rc::new(move |meter| searched.set(Searched::Running(meter)));
    app.bundles
        .load_chunkings(
            name,
            false,
            (&[chunker], retriever.needs_vectors()),
            progress.clone(),
        )
        .await?;
    let body = CallBody::ChunkSearch {
        bundle: name.to_string(),
        chunker,
        query: query.to_string(),
        k: CHUNK_HITS,
        cap,
        retriever,
        model: crate::site::model_url(),
        page_weights: crate::site::model_page_weights(),
    };
    let started = live::start_metered(body, progress)?;
    call.update_value(|c| c.id = Some(started.id));
    if call.get_value().cancelled {
        live::cancel(started.id);
    }
    match started.answer().await? {
        AnswerBody::ChunkHits { hits, ms } => Ok((hits, ms)),
        other => Err(live::unexpected(&other)),
    }
}

fn hits_table(
    (chunker, retriever): (Chunker, Retriever),
    hits: Vec<ChunkResult>,
    ms: f64,
    open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let caption = format!(
        "chunk {} over {} chunks: {} result{} in {ms:.3} ms",
        retriever.name(),
        chunker.name(),
        hits.len(),
        if hits.len() == 1 { "" } else { "s" }
    );
    let rows = hits
        .into_iter()
        .enumerate()
        .map(|(rank, hit)| {
            let file = hit.path.clone();
            view! {
                <tr
                    data-testid="chunk-hit"
                    data-path=hit.path.clone()
                    data-start=hit.start_line
                    data-end=hit.end_line
                    data-name=hit.name.clone()
                    data-score=hit.score.to_string()
                >
                    <td class="num">{rank + 1}</td>
                    <td class="num">{format!("{:.4}", hit.score)}</td>
                    <td>
                        <button class="link" on:click=move |_| open(file.clone())>
                            {hit.path.clone()}
                        </button>
                    </td>
                    <td>{format!("{}-{}", hit.start_line, hit.end_line)}</td>
                    <td>{hit.kind.clone()}</td>
                    <td>{hit.name.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table data-testid="chunks-hits">
            <caption data-testid="chunks-search-caption">{caption}</caption>
            <thead>
                <tr>
                    <th>"rank"</th>
                    <th>"score"</th>
                    <th>"path"</th>
                    <th>"lines"</th>
                    <th>"kind"</th>
                    <th>"name"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Fetches and verifies the file's text and every chunking's table.
async fn load(app: AppState, name: &str, path: &str) -> Result<Shown> {
    let entry = app.bundles.find(name).await?;
    let files = app.bundles.open(&entry, &|_| {}).await?;
    let manifest = &files.manifest;
    if manifest.file(path).is_none() {
        return Err(Error::refused(format!(
            "{path:?} is not a file of bundle {name}"
        )));
    }
    let text = file_text(&entry, (manifest, &files.manifest_sha256), path).await?;
    if manifest.chunkings.is_empty() {
        return Err(Error::refused(format!(
            "bundle {name} has no chunkings (format {}); rebuild it with `routelens bundle`",
            manifest.format_version
        )));
    }
    let mut chunkings = Vec::new();
    for chunking in &manifest.chunkings {
        let stored = api::fetch_required(&entry.url_of(&manifest.located(&chunking.file))).await?;
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
            <div class="source-scroll">
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
        </div>
    }
}
