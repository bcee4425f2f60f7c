//! # routelens app
//!
//! The browser front end: Leptos (client-side rendering) over the engine, built for wasm32 by
//! Trunk. It holds views and state only; every number comes from `routelens_engine`.
//!
//! Flow: the permalink ([`permalink`]) reads the settings ([`params`], each view's part in its
//! `params.rs`) and seeds the store ([`state`]); [`open`] gets a study's bytes
//! through [`api`] (the site's `site.json`, a URL, the pinned public archive, or picked files) and
//! hands them to the engine's loader; the views ([`views`]) render engine tables through
//! [`components::TableView`]; every settings change is written back into the URL.
//!
//! ## `data-testid`s (stable; the browser end-to-end tests use them)
//!
//! Page frame:
//! - `load-progress` (text "loading 3/11 files"), `load-error` (the engine's or fetch's message),
//!   `notice` (e.g. an ignored permalink value), `fusion-error`
//! - `study-title`, `study-source`, `study-close` (back to the home page), `permalink` (an anchor
//!   whose `href` is the current view's link)
//! - tabs, in two groups `tabs-paper` ("The paper") and `tabs-live` ("Run it live"): `tab-paper`
//!   (only when the study carries printed numbers), `tab-scores` (a score table's), `tab-table2`, `tab-fusion`, `tab-paired`, `tab-repos`, `tab-operations`, `tab-lines`,
//!   `tab-subgroups`, `tab-cases`, `tab-bench`, `tab-search`, `tab-context`, `tab-route`; the active one
//!   has class `active`
//!
//! Paper page (`view=paper`, the default): `paper-summary` (the check's summary line),
//! `paper-legend`, `paper-filter` (`all`, `not-reproduced`), `paper-section`, `paper-number`
//! (`data-outcome` `reproduced`, `differs`, `not_computable` or `failed`; cells `data-col`
//! `printed` and `recomputed`), `paper-error`. A live view says what it runs in `view-about`.
//!
//! Home: `home-intro`, `studies-list`, `study-open-<id>` (e.g. `study-open-fastindex`),
//! `study-checked-<id>` (how its printed numbers fared when the site was built), `studies-empty`,
//! `studies-absent`, `study-open-pinned`, `pick-folder` (a `webkitdirectory` input),
//! `pick-trec-run`, `pick-trec-qrels`, `open-trec`, `pick-jsonl`.
//!
//! Tables: each is a wrapper with the table's id holding an `<h3>` title, a `csv-download`
//! button and a `<table>`; rows carry `data-row` (first cell's text, e.g. the arm), cells
//! `data-col` (the header, e.g. `File@8`) and show the engine's `Cell.text` (`0.465`, `25/82`).
//! Ids: `table-file-recall`, `table-fusion-recall`, `table-paired`, `table-prespecified`,
//! `table-repo`, `table-operations`, `table-archived-lines`, `table-subgroups`,
//! `table-case-gold`, `table-case-measurements`.
//!
//! Controls: `k-left`, `k-right` (Table 2 and line level), `k-select` (the single-k views),
//! `left-arm`, `right-arm`, `paired-metric`, `paired-subset`, `paired-resamples`, `paired-seed`,
//! `arm-toggle-<arm>`, `fusion-arm-<arm>`, `fusion-rrf-k`, `fusion-depth`, `fusion-add`,
//! `fusion-item` (with `data-fusion`), `fusion-remove-<name>`, `fusion-message`, `paired-error`,
//! `lines-label`, `lines-none`, `lines-source` (`data-source` `archived` or `recomputed`: whether
//! some issue's files are in the loaded bundle), `lines-recompute`, `table-recomputed-lines`.
//!
//! Plots: `plot-repo-diff` (groups carry `data-repo`, `data-mean`), `plot-operations` (groups
//! carry `data-arm`).
//!
//! Drill-down: `case-list`, `case-row` (with `data-case`), `case-detail` (with `data-case`),
//! `case-repo`, `case-query-sha256`, `case-gold-spans`, `case-rankings` (columns carry
//! `data-arm`; items `data-gold`), `issue-text-file`, `issue-text-report`, `issue-text`.
//!
//! Benchmark: `rescore-runs`, `rescore-run`, `rescore-progress`, `rescore-ms` (the median in ms,
//! a bare number), `rescore-detail`, `rescore-error`.
//!
//! Search (`view=search`, no study needed; the home page has `tab-search`, the search page
//! `tab-home`): `bundle-select`, `bundles-absent` (no `site.json`), `bundle-summary`,
//! `bundle-progress` (text "manifest loaded …", "loading 3/52 files (…)", "loaded …"),
//! `bundle-error` (the engine's or fetch's message, naming the file), `question-select`,
//! `search-query` (textarea), `search-run`, `search-k`, `search-fuse-<arm>` (checkboxes, default
//! fts5 and rg), `search-add-arm`, `search-export-trec`, `search-qid`, `search-column` (one per
//! arm, with `data-arm`), `search-fused` (the RRF list, `data-arm` e.g. `fts5+rg`), inside a
//! column `search-ms` (query time in ms, `12.30 ms`), `search-recall` (`recall@8 1/1 = 1.000`, for
//! a question with gold), `search-hit` (with `data-path`, `data-gold`), `search-hit-open` (the
//! link), `file-view` (with `data-path`; matched terms in `<mark>`), `file-close`, `live-study`,
//! `table-live-recall` (Table 2 of the live study).
//!
//! Context (`view=context`, no study needed; also a tab of the home and search pages):
//! `context-bundle` (select), `context-progress` (bundle and rank-table loading: "loading 3/52
//! files (…)", "loading the cl100k_base rank table …"), `context-error`, `context-question`
//! (select), `context-arm`, `context-vs` (the comparison arm; empty for none), `context-k`,
//! `context-budget-input`, `context-radius`, `context-anchors`, `context-pack` (one per packed
//! arm, `data-arm`), inside it `context-budget` (the bar; `data-used`, `data-budget`, text
//! "12,345 / 16,000 tokens"), `context-ms` (select + pack time), `context-missing` (ranked paths
//! not in the bundle), `context-block` (pack order; `data-path`, `data-start`, `data-end`,
//! `data-tokens`, `data-included`, `data-gold` = gold lines inside), `context-block-status`
//! ("included" or "skipped: over budget: N tokens left"), `context-gold-line` (a gold line of a
//! block, `<mark>`, `data-line`), `context-recall` (`data-recall` = the exact line recall, text
//! "line recall 120/200 = 0.600"), `context-complete`, `context-file-recall`,
//! `context-no-gold`; comparison: `context-compare`, `context-compare-col` (`data-arm`),
//! `context-compare-file` (`data-path`), `context-delivered-range`, `context-missed-range`.
//! Line level over the bundle's questions: `context-lines-run`, `table-recomputed-lines`.
//! Benchmark: `context-bench-run`, `context-bench-ms` (median select + pack, warm token cache),
//! `context-bench-cold-ms` (first pack, every block encoded).
//! Route (`view=route`, no study needed): `route-bundle-select`, `route-bundle-summary`,
//! `route-question-select`, `route-query`, `route-strategy`, `route-decider-select` (offline,
//! http, proxy, replay), `route-model`, `route-max-files`, `route-max-calls`, `route-base`,
//! `route-key` (a password field), `route-remember`, `route-replay-file`,
//! `route-replay-summary`, `route-run-button`, `route-cancel`, `route-k`, `route-download`,
//! `route-add-arm`, `route-open-live`, `route-progress` (ends "… done: …" when a run ends),
//! `route-error`, `route-run` (with `data-decider`), `route-decider` (which decider produced the
//! run), `route-counters` holding `route-count-calls` (`calls: 7`), `route-count-input-tokens`,
//! `route-count-output-tokens`, `route-count-cost`, `route-count-elapsed`,
//! `route-count-waiting-for-the-decider`, `route-count-retries`; `route-state` (truncated or
//! failed), `route-recall`, `route-paths` with `route-path` items (`data-path`, `data-gold`),
//! `route-menus` with `route-menu` (`data-directory`) holding `route-option` rows (`data-path`,
//! `data-kept`), `route-live-study`, `table-route-live-recall`.
//!
//! ## Opening the paper's study in a test
//!
//! Against `routelens serve`: `/?study=fastindex` (add `&view=table2&ks=8,16` and so on; see
//! [`params`] and each view's `params.rs` for every parameter). The app fetches `site.json` (and `CHECKSUMS` on a published site), then the archive files.

use leptos::prelude::*;

pub mod api;
pub mod bundles;
mod components;
mod decisions;
pub mod error;
mod key_store;
mod live;
pub mod marks;
mod open;
mod open_cases;
mod packing;
mod params;
mod permalink;
pub mod rounds;
mod site;
mod state;
mod views;

// `api`, `bundles`, `error` and `marks` are public for the labelling round's pages (`rounds/`), a module
// of their own that fetches bundles and files as the app does.
// The permalink parser and the settings it fills, for the fuzz target that reads any query string
// (`fuzz/bodies`); the app itself reaches them through its modules.
pub use params::Settings;
pub use permalink::{from_query, to_query};

use params::page::{PageParamsStoreFields, StudyRef, View};
use params::SettingsStoreFields;
use state::{AppState, Status};

/// The whole app: reads the permalink, opens the study it names, and keeps the URL in step.
#[component]
pub fn App() -> impl IntoView {
    let (settings, notices) = permalink::read_location();
    let state = AppState::new(settings, notices);
    provide_context(state);
    open::start(state);
    // Mirrors every setting into the URL, so the address bar is always this view's permalink.
    Effect::new(move |_| permalink::write_location(&state.settings.get()));

    let has_study = Memo::new(move |_| state.study.with(Option::is_some));
    let has_scores = Memo::new(move |_| state.scores.with(Option::is_some));
    let view_field = state.settings.page().view();
    let searching = Memo::new(move |_| view_field.get().needs_no_study());
    view! {
        <header class="top">
            <h1>"routelens"</h1>
            <span class="tagline">"a code-retrieval paper's numbers, checked in your browser"</span>
        </header>
        <main>
            <StatusBar />
            {move || {
                if has_study.get() {
                    view! { <StudyPage /> }.into_any()
                } else if has_scores.get() {
                    view! { <ScoresPage /> }.into_any()
                } else if searching.get() {
                    view! { <SearchPage /> }.into_any()
                } else {
                    view! { <HomeTabs /> <views::HomeView /> }.into_any()
                }
            }}
        </main>
    }
}

/// The tabs of the views that need no study: the live ones, as a group.
fn bundle_tabs(state: AppState) -> impl IntoView {
    tab_group(
        "Run it live",
        "tabs-live",
        tab_buttons(state, View::LIVE, None),
    )
}

/// A labelled group of tabs.
fn tab_group(label: &'static str, testid: &'static str, tabs: impl IntoView) -> impl IntoView {
    view! {
        <div class="tab-group" role="group" aria-label=label data-testid=testid>
            <span class="tab-group-label">{label}</span>
            {tabs}
        </div>
    }
}

/// One tab button per view; the active one (the view shown: `shown`, else the setting) has class
/// `active`.
fn tab_buttons(
    state: AppState,
    views: impl IntoIterator<Item = View>,
    shown: Option<Memo<View>>,
) -> impl IntoView {
    let view_field = state.settings.page().view();
    let active = move || shown.map_or_else(|| view_field.get(), |shown| shown.get());
    views
        .into_iter()
        .map(|view| {
            view! {
                <button
                    class="tab"
                    class:active=move || active() == view
                    data-testid=format!("tab-{}", view.name())
                    on:click=move |_| view_field.set(view)
                >
                    {view.label()}
                </button>
            }
        })
        .collect_view()
}

/// What a live view runs, said above it.
fn about(view: View) -> impl IntoView {
    view.about()
        .map(|about| view! { <p class="about" data-testid="view-about">{about}</p> })
}

/// The home page's way into the Search, Context and Route views, which need no study.
#[component]
fn HomeTabs() -> impl IntoView {
    let state = AppState::get();
    view! {
        <nav class="tabs" aria-label="views">
            <button class="tab active">"Studies"</button>
            {bundle_tabs(state)}
        </nav>
    }
}

/// The Search, Context or Route view without a study open: a way back to the home page, the
/// three tabs, and the view.
#[component]
fn SearchPage() -> impl IntoView {
    let state = AppState::get();
    let link = move || format!("?{}", permalink::to_query(&state.settings.get()));
    let view_field = state.settings.page().view();
    let active = move || match view_field.get() {
        View::Context => view! { <views::ContextView /> }.into_any(),
        View::Route => view! { <views::RouteView /> }.into_any(),
        View::Chunks => view! { <views::ChunksView /> }.into_any(),
        View::Evaluate => view! { <views::EvaluateView /> }.into_any(),
        View::Rerank => view! { <views::RerankView /> }.into_any(),
        _ => view! { <views::SearchView /> }.into_any(),
    };
    view! {
        <nav class="tabs" aria-label="views">
            <button
                class="tab"
                data-testid="tab-home"
                on:click=move |_| state.settings.page().view().set(View::Table2)
            >
                "Studies"
            </button>
            {bundle_tabs(state)}
            " "
            <a data-testid="permalink" href=link>
                "permalink"
            </a>
        </nav>
        {move || about(view_field.get())}
        <div class="view">{active}</div>
    }
}

/// Loading progress, the last error, and notices.
#[component]
fn StatusBar() -> impl IntoView {
    let state = AppState::get();
    let status = move || match state.status.get() {
        Status::Idle => ().into_any(),
        Status::Loading { what, done, total } => view! {
            <p class="progress" data-testid="load-progress">
                {format!("loading {done}/{total} files")}
                <span class="muted">{format!(" ({what})")}</span>
            </p>
        }
        .into_any(),
        Status::Failed(message) => view! {
            <p class="error" data-testid="load-error">
                {message}
            </p>
        }
        .into_any(),
    };
    let notices = move || {
        state
            .notices
            .get()
            .into_iter()
            .map(|n| view! { <p class="notice" data-testid="notice">{n}</p> })
            .collect_view()
    };
    view! {
        {status}
        {notices}
    }
}

/// A loaded score table: its title, source, and its views (its values have no rankings, so no
/// study view applies): the paper page when the site carries its printed numbers, and its scores.
#[component]
fn ScoresPage() -> impl IntoView {
    let state = AppState::get();
    let title = move || state.title.get();
    let counts = move || {
        state.scores.get().map(|t| {
            format!(
                "{} cases in {} clusters, from {}",
                t.cases.len(),
                t.cluster_count(),
                t.file
            )
        })
    };
    let view_field = state.settings.page().view();
    let has_printed = move || state.printed.with(Option::is_some);
    let shown = Memo::new(move |_| match view_field.get() {
        View::Paper if has_printed() => View::Paper,
        _ => View::Scores,
    });
    let link = move || format!("?{}", permalink::to_query(&state.settings.get()));
    let tabs = move || {
        let views: Vec<View> = [View::Paper, View::Scores]
            .into_iter()
            .filter(|v| *v != View::Paper || has_printed())
            .collect();
        tab_group(
            "The paper",
            "tabs-paper",
            tab_buttons(state, views, Some(shown)),
        )
    };
    let active = move || match shown.get() {
        View::Paper => view! { <views::PaperView /> }.into_any(),
        _ => view! { <views::ScoresView /> }.into_any(),
    };
    view! {
        <section class="study-head">
            <h2 data-testid="study-title">{title}</h2>
            <p class="muted">
                <span data-testid="study-source">{counts}</span>
                " · "
                <a data-testid="permalink" href=link>
                    "permalink"
                </a>
                " · "
                <button data-testid="study-close" on:click=move |_| state.close()>
                    "Open another study"
                </button>
            </p>
        </section>
        <nav class="tabs" aria-label="views">{tabs}</nav>
        <div class="view">{active}</div>
    }
}

/// A loaded study: its title, source, the tabs, and the active view.
#[component]
fn StudyPage() -> impl IntoView {
    let state = AppState::get();
    let view_field = state.settings.page().view();
    let title = move || state.with_study(|study| study.title.clone());
    let link = move || format!("?{}", permalink::to_query(&state.settings.get()));
    let picked = move || state.settings.page().study().get() == StudyRef::Picked;
    let has_printed = move || state.printed.with(Option::is_some);
    // The paper page when the study carries its paper's printed numbers, else Table 2.
    let shown = Memo::new(move |_| match view_field.get() {
        View::Paper if !has_printed() => View::Table2,
        View::Scores => View::Table2,
        view => view,
    });
    let tabs = move || {
        let paper: Vec<View> = View::PAPER
            .into_iter()
            .filter(|v| *v != View::Paper || has_printed())
            .collect();
        view! {
            {tab_group("The paper", "tabs-paper", tab_buttons(state, paper, Some(shown)))}
            {tab_group("Run it live", "tabs-live", tab_buttons(state, View::LIVE, Some(shown)))}
        }
    };
    let fusion_errors = move || {
        state
            .study
            .with(|loaded| loaded.as_ref().map(|l| l.fusion_errors.clone()))
            .unwrap_or_default()
            .into_iter()
            .map(|e| view! { <p class="error" data-testid="fusion-error">{e}</p> })
            .collect_view()
    };
    let active = move || match shown.get() {
        View::Paper => view! { <views::PaperView /> }.into_any(),
        View::Table2 | View::Scores => view! { <views::Table2View /> }.into_any(),
        View::Fusion => view! { <views::FusionView /> }.into_any(),
        View::Paired => view! { <views::PairedView /> }.into_any(),
        View::Repos => view! { <views::ReposView /> }.into_any(),
        View::Operations => view! { <views::OperationsView /> }.into_any(),
        View::Lines => view! { <views::LinesView /> }.into_any(),
        View::Subgroups => view! { <views::SubgroupsView /> }.into_any(),
        View::Cases => view! { <views::CasesView /> }.into_any(),
        View::Bench => view! { <views::BenchView /> }.into_any(),
        View::Search => view! { <views::SearchView /> }.into_any(),
        View::Context => view! { <views::ContextView /> }.into_any(),
        View::Route => view! { <views::RouteView /> }.into_any(),
        View::Chunks => view! { <views::ChunksView /> }.into_any(),
        View::Evaluate => view! { <views::EvaluateView /> }.into_any(),
        View::Rerank => view! { <views::RerankView /> }.into_any(),
    };
    view! {
        <section class="study-head">
            <h2 data-testid="study-title">{title}</h2>
            <p class="muted">
                <span data-testid="study-source">{move || state.source_label.get()}</span>
                " · "
                <a data-testid="permalink" href=link>
                    "permalink"
                </a>
                {move || picked().then_some(" (picked files are not in the link: pick them again)")}
                " · "
                <button data-testid="study-close" on:click=move |_| state.close()>
                    "Open another study"
                </button>
            </p>
        </section>
        <nav class="tabs" aria-label="views">{tabs}</nav>
        {move || about(shown.get())}
        {fusion_errors}
        <div class="view">{active}</div>
    }
}
