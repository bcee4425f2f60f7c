//! The permalink: every [`Settings`] field lives in the URL's query string, and the page keeps the
//! URL current with `history.replaceState` (no reloads, no history spam). On load the query is
//! read back, so reloading a URL restores the view.
//!
//! Parameters (defaults are the paper's, see [`Settings`]):
//! `study` (a served id, `pinned` or `picked`), `view`, `ks=8,16` (Table 2's two k), `k=8` (the
//! single-k views), `fuse=tree+fts5,rg+fts5`, `rrfk=60`, `depth=16`, `seed=0`, `resamples=10000`,
//! `left=tree`, `right=fts5`, `metric=file|lines`, `subset=all|aligned`, `arms=tree,fts5`,
//! `case=<case id>` (the issue open in the drill-down; `issue=` is read as the same),
//! `bundle=<name>` and `q=<question id or issue text>` (the Search and Context views), and for the
//! Context view `arm=fts5`, `vs=<arm>` (comparison), `budget=16000`, `radius=200`, `anchors=4`
//! (written only when not the default).
//! `bundle=<name>` and `q=<question id or issue text>` (the Search and Route views, whose k is
//! `k`); the Search view's fused arms `sfuse=fts5+rg` (written only when not the default; `sfuse=`
//! for none);
//! the Route view's `strategy=tree|flat`, `decider=offline|http|proxy|replay`, `base=<URL>`,
//! `model=jev-1.13.0`, `max_files=16`, `max_calls=32` (written only when not the default); a score
//! table's `frame=<name>`, `smetric=<metric>`, `cluster=repo|case` and
//! `spairs=<left>:<right>;…` (written only when set); `cluster` also holds for a study of
//! rankings, which adds `metrics=<name>,…`, `relevance=file|span` and `vmetric=<name>` (the
//! single-metric views' metric), written only when set; the Chunks view's `path=<file>` and its
//! chunk search's `chunker=<name>` and `cap=N` (its question is `q`); the Evaluate view's
//! `chunkers=structural,window`, `caps=1,2`, `eks=1,5,10`, `select=ndcg@10`, `edepth=100` and
//! `ecluster=case|project` (written only when not the default; its bootstrap is `resamples` and
//! `seed`); the Rerank view's `pool=bm25|grep|union`, `reranker=none|offline|jev`, the Jev
//! judge's `judge=http|proxy|replay` and `jmodel=`, and the planner's `planner=offline|http|replay`,
//! `pbase=` and `pmodel=` (its question `q`, its chunking `chunker`, the judge's API base the
//! Route view's `base`; the plan it runs is typed in the page, not linked). No API key is ever in
//! the link.
//!
//! Arm names never contain spaces or `+` except as the fusion separator, so `+` is read literally
//! here (not as a space, as form encoding would), which keeps `fuse=tree+fts5` readable.

use routelens_engine::{BootstrapConfig, PairedMetric, RrfConfig, Study, Subset};

use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::remote::rerank::pools::Route;
use routelens_engine::remote::rerank::settings::RerankerChoice;
use routelens_engine::remote::route::Strategy;
use routelens_engine::scoring::metric_tables::relevance_name;
use routelens_engine::scoring::unit_metrics::{Clustering, Metric, Relevance};

use crate::state::{
    ClusterBy, DeciderKind, GridSetup, PlannerKind, RerankRemote, RouteSetup, Settings, StudyRef,
    View,
};

/// Bytes kept as they are in a query value; everything else is percent-encoded.
fn keep(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-_.~+,:/@".contains(&byte)
}

/// Percent-encodes a query value, keeping `+` and `,` readable.
pub fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if keep(b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Decodes `%XX` escapes (invalid ones are kept as written); `+` stays `+`.
pub fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits `?a=1&b=2` into decoded pairs.
pub fn parse_query(search: &str) -> Vec<(String, String)> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// A comma-separated list, without empty items.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whole numbers joined by commas.
fn numbers(values: &[usize]) -> String {
    values
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A whole number of at least 1 (and at most 100,000: caps, cut-offs and depths).
fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is not a whole number from 1 to 100000")),
    }
}

/// The settings as a query string, without the leading `?`.
pub fn to_query(settings: &Settings) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    match &settings.study {
        StudyRef::None => {}
        StudyRef::Served(id) => pairs.push(("study", id.clone())),
        StudyRef::Url(url) => pairs.push(("study", format!("url:{url}"))),
        StudyRef::Pinned => pairs.push(("study", "pinned".into())),
        StudyRef::Picked => pairs.push(("study", "picked".into())),
        StudyRef::Live(bundle) => pairs.push(("study", format!("live:{bundle}"))),
    }
    pairs.push(("view", settings.view.name().into()));
    pairs.push(("ks", format!("{},{}", settings.k_left, settings.k_right)));
    pairs.push(("k", settings.k.to_string()));
    if !settings.fusions.is_empty() {
        let fusions: Vec<String> = settings.fusions.iter().map(|p| p.join("+")).collect();
        pairs.push(("fuse", fusions.join(",")));
    }
    pairs.push(("rrfk", settings.rank_constant.to_string()));
    pairs.push(("depth", settings.depth.to_string()));
    pairs.push(("seed", settings.seed.to_string()));
    pairs.push(("resamples", settings.resamples.to_string()));
    if let Some(frame) = &settings.score_frame {
        pairs.push(("frame", frame.clone()));
    }
    if let Some(metric) = &settings.score_metric {
        pairs.push(("smetric", metric.clone()));
    }
    if settings.score_cluster == ClusterBy::Case {
        pairs.push(("cluster", "case".into()));
    }
    if !settings.score_pairs.is_empty() {
        let written: Vec<String> = settings
            .score_pairs
            .iter()
            .map(|(left, right)| format!("{left}:{right}"))
            .collect();
        pairs.push(("spairs", written.join(";")));
    }
    if !settings.metrics.is_empty() {
        pairs.push(("metrics", settings.metrics.join(",")));
    }
    if let Some(relevance) = settings.relevance {
        pairs.push(("relevance", relevance_name(relevance).into()));
    }
    if let Some(metric) = &settings.view_metric {
        pairs.push(("vmetric", metric.clone()));
    }
    if let Some(path) = &settings.chunk_path {
        pairs.push(("path", path.clone()));
    }
    if let Some(chunker) = settings.chunk_chunker {
        pairs.push(("chunker", chunker.name().into()));
    }
    if let Some(cap) = settings.chunk_cap {
        pairs.push(("cap", cap.to_string()));
    }
    if settings.rerank_route != Route::Bm25 {
        pairs.push(("pool", settings.rerank_route.name().into()));
    }
    if settings.reranker != RerankerChoice::Offline {
        pairs.push(("reranker", settings.reranker.name().into()));
    }
    let (remote, defaults) = (&settings.rerank_remote, RerankRemote::default());
    if remote.judge != defaults.judge {
        pairs.push(("judge", remote.judge.name().into()));
    }
    if remote.jev_model != defaults.jev_model {
        pairs.push(("jmodel", remote.jev_model.clone()));
    }
    if remote.planner != defaults.planner {
        pairs.push(("planner", remote.planner.name().into()));
    }
    if remote.planner_base != defaults.planner_base {
        pairs.push(("pbase", remote.planner_base.clone()));
    }
    if remote.planner_model != defaults.planner_model {
        pairs.push(("pmodel", remote.planner_model.clone()));
    }
    let (grid, defaults) = (&settings.grid, GridSetup::default());
    if grid.chunkers != defaults.chunkers {
        let names: Vec<&str> = grid.chunkers.iter().map(|c| c.name()).collect();
        pairs.push(("chunkers", names.join(",")));
    }
    if grid.caps != defaults.caps {
        pairs.push(("caps", numbers(&grid.caps)));
    }
    if grid.k != defaults.k {
        pairs.push(("eks", numbers(&grid.k)));
    }
    if grid.select_by != defaults.select_by {
        pairs.push(("select", grid.select_by.clone()));
    }
    if grid.depth != defaults.depth {
        pairs.push(("edepth", grid.depth.to_string()));
    }
    if grid.cluster != defaults.cluster {
        pairs.push((
            "ecluster",
            match grid.cluster {
                Clustering::Repo => "project",
                Clustering::Case => "case",
            }
            .into(),
        ));
    }
    pairs.push(("left", settings.left.clone()));
    pairs.push(("right", settings.right.clone()));
    pairs.push((
        "metric",
        match settings.metric {
            PairedMetric::ArchivedLineRecall => "lines",
            _ => "file",
        }
        .into(),
    ));
    pairs.push((
        "subset",
        match settings.subset {
            Subset::Aligned => "aligned",
            _ => "all",
        }
        .into(),
    ));
    if !settings.arms.is_empty() {
        pairs.push(("arms", settings.arms.join(",")));
    }
    if let Some(issue) = &settings.issue {
        pairs.push(("case", issue.clone()));
    }
    if let Some(bundle) = &settings.bundle {
        pairs.push(("bundle", bundle.clone()));
    }
    if let Some(query) = &settings.query {
        pairs.push(("q", query.clone()));
    }
    // The Context view's settings, only when they differ from the paper's.
    let defaults = Settings::default();
    if settings.search_fused != defaults.search_fused {
        pairs.push(("sfuse", settings.search_fused.join("+")));
    }
    if settings.pack_arm != defaults.pack_arm {
        pairs.push(("arm", settings.pack_arm.clone()));
    }
    if let Some(vs) = &settings.pack_vs {
        pairs.push(("vs", vs.clone()));
    }
    for (key, value, default) in [
        ("budget", settings.budget, defaults.budget),
        ("radius", settings.radius, defaults.radius),
        ("anchors", settings.anchors, defaults.anchors),
    ] {
        if value != default {
            pairs.push((key, value.to_string()));
        }
    }
    // The Route view's settings, likewise.
    let (route, defaults) = (&settings.route, RouteSetup::default());
    if route.strategy != defaults.strategy {
        pairs.push(("strategy", route.strategy.name().into()));
    }
    if route.decider != defaults.decider {
        pairs.push(("decider", route.decider.name().into()));
    }
    if route.base != defaults.base {
        pairs.push(("base", route.base.clone()));
    }
    if route.model != defaults.model {
        pairs.push(("model", route.model.clone()));
    }
    if route.max_files != defaults.max_files {
        pairs.push(("max_files", route.max_files.to_string()));
    }
    if route.max_calls != defaults.max_calls {
        pairs.push(("max_calls", route.max_calls.to_string()));
    }
    pairs
        .into_iter()
        .map(|(key, value)| format!("{key}={}", encode(&value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Reads settings from a query string. A value that does not parse, or that the engine refuses
/// (k out of range, resamples below 2), keeps its default and yields a notice saying why.
pub fn from_query(search: &str) -> (Settings, Vec<String>) {
    let mut settings = Settings::default();
    let mut notices = Vec::new();
    for (key, value) in parse_query(search) {
        let mut refuse = |why: String| notices.push(format!("link: {key}={value} ignored: {why}"));
        let k = |text: &str| -> Result<usize, String> {
            let k: usize = text
                .parse()
                .map_err(|_| format!("{text:?} is not a whole number"))?;
            Study::check_k(k).map_err(|e| e.to_string())
        };
        match key.as_str() {
            "study" => {
                settings.study = match value.as_str() {
                    "" => StudyRef::None,
                    "pinned" => StudyRef::Pinned,
                    "picked" => StudyRef::Picked,
                    live if live.starts_with("live:") => StudyRef::Live(live[5..].to_string()),
                    url if url.starts_with("url:") => StudyRef::Url(url[4..].to_string()),
                    id => StudyRef::Served(id.to_string()),
                }
            }
            "view" => match View::from_name(&value) {
                Some(view) => settings.view = view,
                None => refuse("no such view".into()),
            },
            "ks" => match list(&value).as_slice() {
                [left, right] => match (k(left), k(right)) {
                    (Ok(left), Ok(right)) => (settings.k_left, settings.k_right) = (left, right),
                    (Err(err), _) | (_, Err(err)) => refuse(err),
                },
                _ => refuse("expected two k values, like 8,16".into()),
            },
            "k" => match k(&value) {
                Ok(k) => settings.k = k,
                Err(err) => refuse(err),
            },
            "sfuse" => {
                settings.search_fused = value
                    .split('+')
                    .filter(|arm| !arm.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            "fuse" => {
                settings.fusions = list(&value)
                    .iter()
                    .map(|fusion| fusion.split('+').map(str::to_string).collect())
                    .collect()
            }
            "rrfk" => match value.parse::<f64>() {
                Ok(rank_constant) => {
                    let config = RrfConfig {
                        rank_constant,
                        ..RrfConfig::default()
                    };
                    match config.validated() {
                        Ok(_) => settings.rank_constant = rank_constant,
                        Err(err) => refuse(err.to_string()),
                    }
                }
                Err(_) => refuse("not a number".into()),
            },
            "depth" => match value.parse::<usize>() {
                Ok(depth) if depth >= 1 => settings.depth = depth,
                _ => refuse("expected a whole number of at least 1".into()),
            },
            "seed" => match value.parse::<u64>() {
                Ok(seed) => settings.seed = seed,
                Err(_) => refuse("expected a whole number ≥ 0".into()),
            },
            "resamples" => match value.parse::<usize>() {
                Ok(resamples) => {
                    let config = BootstrapConfig { resamples, seed: 0 };
                    match config.validated() {
                        Ok(_) => settings.resamples = resamples,
                        Err(err) => refuse(err.to_string()),
                    }
                }
                Err(_) => refuse("not a whole number".into()),
            },
            "frame" if !value.is_empty() => settings.score_frame = Some(value.clone()),
            "smetric" if !value.is_empty() => settings.score_metric = Some(value.clone()),
            "cluster" => match value.as_str() {
                "repo" => settings.score_cluster = ClusterBy::Repo,
                "case" => settings.score_cluster = ClusterBy::Case,
                _ => refuse("expected repo or case".into()),
            },
            "spairs" => {
                let parsed: Option<Vec<(String, String)>> = value
                    .split(';')
                    .map(|pair| {
                        let (left, right) = pair.split_once(':')?;
                        (!left.is_empty() && !right.is_empty())
                            .then(|| (left.to_string(), right.to_string()))
                    })
                    .collect();
                match parsed {
                    Some(pairs) => settings.score_pairs = pairs,
                    None => refuse("expected LEFT:RIGHT pairs separated by ;".into()),
                }
            }
            "metrics" => match list(&value)
                .iter()
                .map(|name| Metric::parse(name).map(|m| m.name()))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(names) => settings.metrics = names,
                Err(err) => refuse(err.to_string()),
            },
            "vmetric" => match Metric::parse(&value) {
                Ok(metric) => settings.view_metric = Some(metric.name()),
                Err(err) => refuse(err.to_string()),
            },
            "path" if !value.is_empty() => settings.chunk_path = Some(value.clone()),
            "chunker" => match Chunker::from_name(&value) {
                Some(chunker) => settings.chunk_chunker = Some(chunker),
                None => refuse("expected structural, structural-unmerged or window".into()),
            },
            "cap" => match positive(&value) {
                Ok(cap) => settings.chunk_cap = Some(cap),
                Err(err) => refuse(err),
            },
            "pool" => match Route::from_name(&value) {
                Some(route) => settings.rerank_route = route,
                None => refuse("expected bm25, grep or union".into()),
            },
            "reranker" => match RerankerChoice::from_name(&value) {
                Some(choice) => settings.reranker = choice,
                None => refuse("expected none, offline or jev".into()),
            },
            "judge" => match DeciderKind::from_name(&value) {
                Some(kind) if kind != DeciderKind::Offline => settings.rerank_remote.judge = kind,
                _ => refuse("expected http, proxy or replay".into()),
            },
            "jmodel" => settings.rerank_remote.jev_model = value.clone(),
            "planner" => match PlannerKind::from_name(&value) {
                Some(kind) => settings.rerank_remote.planner = kind,
                None => refuse("expected offline, http or replay".into()),
            },
            "pbase" => settings.rerank_remote.planner_base = value.clone(),
            "pmodel" => settings.rerank_remote.planner_model = value.clone(),
            "chunkers" => match list(&value)
                .iter()
                .map(|name| Chunker::from_name(name).ok_or(name))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(chunkers) => settings.grid.chunkers = chunkers,
                Err(name) => refuse(format!("{name:?} is not a chunker")),
            },
            "caps" | "eks" => match list(&value)
                .iter()
                .map(|n| positive(n))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(numbers) if key == "caps" => settings.grid.caps = numbers,
                Ok(numbers) if !numbers.is_empty() => settings.grid.k = numbers,
                Ok(_) => refuse("expected at least one cut-off".into()),
                Err(err) => refuse(err),
            },
            "select" => match Metric::parse(&value) {
                Ok(metric) => settings.grid.select_by = metric.name(),
                Err(err) => refuse(err.to_string()),
            },
            "edepth" => match positive(&value) {
                Ok(depth) => settings.grid.depth = depth,
                Err(err) => refuse(err),
            },
            "ecluster" => match value.as_str() {
                "case" => settings.grid.cluster = Clustering::Case,
                "project" => settings.grid.cluster = Clustering::Repo,
                _ => refuse("expected case or project".into()),
            },
            "relevance" => match value.as_str() {
                "file" => settings.relevance = Some(Relevance::File),
                "span" => settings.relevance = Some(Relevance::Span),
                _ => refuse("expected file or span".into()),
            },
            "left" if !value.is_empty() => settings.left = value.clone(),
            "right" if !value.is_empty() => settings.right = value.clone(),
            "metric" => match value.as_str() {
                "file" => settings.metric = PairedMetric::FileRecall,
                "lines" => settings.metric = PairedMetric::ArchivedLineRecall,
                _ => refuse("expected file or lines".into()),
            },
            "subset" => match value.as_str() {
                "all" => settings.subset = Subset::All,
                "aligned" => settings.subset = Subset::Aligned,
                _ => refuse("expected all or aligned".into()),
            },
            "arms" => settings.arms = list(&value),
            "case" | "issue" if !value.is_empty() => settings.issue = Some(value.clone()),
            "bundle" if !value.is_empty() => settings.bundle = Some(value.clone()),
            "q" if !value.is_empty() => settings.query = Some(value.clone()),
            "arm" if !value.is_empty() => settings.pack_arm = value.clone(),
            "vs" if !value.is_empty() => settings.pack_vs = Some(value.clone()),
            "budget" => match value.parse::<usize>() {
                Ok(budget) => settings.budget = budget,
                Err(_) => refuse("expected a whole number of tokens".into()),
            },
            "radius" => match value.parse::<usize>() {
                Ok(radius) => settings.radius = radius,
                Err(_) => refuse("expected a whole number of lines".into()),
            },
            "anchors" => match value.parse::<usize>() {
                Ok(anchors) if anchors >= 1 => settings.anchors = anchors,
                _ => refuse("expected a whole number of at least 1".into()),
            },
            "strategy" => match value.as_str() {
                "tree" => settings.route.strategy = Strategy::Tree,
                "flat" => settings.route.strategy = Strategy::Flat,
                _ => refuse("expected tree or flat".into()),
            },
            "decider" => match DeciderKind::from_name(&value) {
                Some(kind) => settings.route.decider = kind,
                None => refuse("expected offline, http, proxy or replay".into()),
            },
            // A host is required: `http://` alone was once read and then written as `http:`,
            // which the next read refused (found by the `permalink` fuzz target).
            "base"
                if routelens_engine::publish::csp::origin(value.trim_end_matches('/'))
                    .is_some() =>
            {
                settings.route.base = value.trim_end_matches('/').to_string()
            }
            "base" => refuse("expected an http:// or https:// URL".into()),
            "model" if !value.is_empty() => settings.route.model = value.clone(),
            "max_files" | "max_calls" => match value.parse::<usize>() {
                Ok(n) if (1..=10_000).contains(&n) => {
                    if key == "max_files" {
                        settings.route.max_files = n
                    } else {
                        settings.route.max_calls = n
                    }
                }
                _ => refuse("expected a whole number from 1 to 10000".into()),
            },
            _ => refuse("unknown parameter".into()),
        }
    }
    (settings, notices)
}

/// The settings in the page's current URL.
pub fn read_location() -> (Settings, Vec<String>) {
    let search = leptos::prelude::window()
        .location()
        .search()
        .unwrap_or_default();
    from_query(&search)
}

/// Writes the settings into the URL without reloading or adding a history entry.
pub fn write_location(settings: &Settings) {
    let window = leptos::prelude::window();
    let path = window.location().pathname().unwrap_or_else(|_| "/".into());
    let url = format!("{path}?{}", to_query(settings));
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_setting() {
        let settings = Settings {
            study: StudyRef::Served("fastindex".into()),
            view: View::Cases,
            k_left: 3,
            k_right: 12,
            k: 16,
            fusions: vec![
                vec!["tree".into(), "fts5".into()],
                vec!["rg".into(), "fts5".into(), "basename".into()],
            ],
            rank_constant: 30.5,
            depth: 8,
            seed: 7,
            resamples: 2000,
            left: "tree+fts5".into(),
            right: "rg".into(),
            metric: PairedMetric::ArchivedLineRecall,
            subset: Subset::Aligned,
            arms: vec!["tree".into(), "fts5".into()],
            issue: Some("SWE-PolyBench__python__x y&z".into()),
            bundle: Some("demo".into()),
            query: Some("where is the json! macro?".into()),
            search_fused: vec!["fts5".into(), "basename".into(), "rg".into()],
            pack_arm: "rg".into(),
            pack_vs: Some("fts5+rg".into()),
            budget: 4000,
            radius: 50,
            anchors: 2,
            route: RouteSetup {
                strategy: Strategy::Flat,
                decider: DeciderKind::Http,
                base: "http://127.0.0.1:9/gw".into(),
                model: "jev-2".into(),
                max_files: 8,
                max_calls: 4,
            },
            score_frame: Some("published".into()),
            score_metric: Some("mrr".into()),
            score_cluster: ClusterBy::Case,
            score_pairs: vec![("a".into(), "b".into())],
            metrics: vec!["mrr".into(), "span_recall@5".into()],
            relevance: Some(Relevance::Span),
            view_metric: Some("ndcg@10".into()),
            chunk_path: Some("src/a b.rs".into()),
            chunk_chunker: Some(Chunker::Window),
            chunk_cap: Some(2),
            grid: GridSetup {
                chunkers: vec![Chunker::Structural, Chunker::StructuralUnmerged],
                caps: vec![1, 3],
                k: vec![5, 20],
                select_by: "mrr".into(),
                depth: 50,
                cluster: Clustering::Repo,
            },
            rerank_route: Route::Union,
            reranker: RerankerChoice::Jev,
            rerank_remote: RerankRemote {
                judge: DeciderKind::Replay,
                jev_model: "jev-2".into(),
                planner: PlannerKind::Http,
                planner_base: "http://127.0.0.1:9/v1".into(),
                planner_model: "m/x".into(),
            },
        };
        let query = to_query(&settings);
        assert!(query.contains("fuse=tree+fts5,rg+fts5+basename"), "{query}");
        assert!(query.contains("sfuse=fts5+basename+rg"), "{query}");
        assert!(
            query.contains("case=SWE-PolyBench__python__x%20y%26z"),
            "{query}"
        );
        assert_eq!(from_query(&format!("?{query}")), (settings, Vec::new()));
        assert_eq!(from_query(""), (Settings::default(), Vec::new()));
        assert!(!query.contains("key"), "{query}");
    }

    #[test]
    fn bad_grid_settings_keep_the_grids_defaults_and_say_why() {
        let (settings, notices) = from_query(
            "?chunkers=structural,bogus&caps=0&eks=&edepth=x&ecluster=repo&select=nope&cap=-1&chunker=x",
        );
        assert_eq!(settings.grid, GridSetup::default());
        assert_eq!((settings.chunk_cap, settings.chunk_chunker), (None, None));
        assert_eq!(notices.len(), 8, "{notices:?}");
        assert!(
            notices[0].contains("\"bogus\" is not a chunker"),
            "{notices:?}"
        );
    }

    /// Found by the `permalink` fuzz target: a base without a host was read, written back
    /// without its slashes, and refused on the next read.
    #[test]
    fn a_base_without_a_host_is_refused() {
        for base in ["http%3A%2F%2F", "https%3A%2F%2F%2F", "http%3A"] {
            let (settings, notices) = from_query(&format!("?base={base}"));
            assert_eq!(settings.route.base, RouteSetup::default().base, "{base}");
            assert_eq!(notices.len(), 1, "{base}: {notices:?}");
        }
        let (settings, _) = from_query("?base=http%3A%2F%2F127.0.0.1%3A9%2Fapi%2F");
        assert_eq!(settings.route.base, "http://127.0.0.1:9/api");
    }

    #[test]
    fn refused_values_keep_defaults_and_say_why() {
        let (settings, notices) = from_query("?ks=8,99&k=x&resamples=1&view=nope&study=pinned");
        assert_eq!((settings.k_left, settings.k_right, settings.k), (8, 16, 8));
        assert_eq!(settings.resamples, 10_000);
        assert_eq!(settings.study, StudyRef::Pinned);
        assert_eq!(notices.len(), 4, "{notices:?}");
        assert!(notices[0].contains("k = 99 is out of range"), "{notices:?}");
    }

    #[test]
    fn metric_names_are_read_as_plain_names_and_bad_ones_refused() {
        let (settings, notices) = from_query("?metrics=RR,Success@5&vmetric=nDCG@10&relevance=x");
        assert_eq!(settings.metrics, ["mrr", "hit@5"]);
        assert_eq!(settings.view_metric.as_deref(), Some("ndcg@10"));
        assert_eq!(settings.relevance, None);
        assert_eq!(notices.len(), 1, "{notices:?}");
        let (settings, notices) = from_query("?metrics=mrr,bogus@3");
        assert!(settings.metrics.is_empty());
        assert!(notices[0].contains("bogus@3"), "{notices:?}");
    }

    #[test]
    fn the_search_view_may_fuse_nothing() {
        let settings = Settings {
            search_fused: Vec::new(),
            ..Settings::default()
        };
        let query = to_query(&settings);
        assert!(
            query.contains("sfuse=&") || query.ends_with("sfuse="),
            "{query}"
        );
        assert_eq!(from_query(&format!("?{query}")), (settings, Vec::new()));
    }

    #[test]
    fn a_live_study_names_its_bundle() {
        let settings = Settings {
            study: StudyRef::Live("demo bundle".into()),
            ..Settings::default()
        };
        let query = to_query(&settings);
        assert!(query.contains("study=live:demo%20bundle"), "{query}");
        assert_eq!(from_query(&format!("?{query}")), (settings, Vec::new()));
    }

    #[test]
    fn a_score_tables_settings_round_trip() {
        let settings = Settings {
            score_frame: Some("base_aligned".into()),
            score_metric: Some("span_recall@5".into()),
            score_cluster: ClusterBy::Case,
            score_pairs: vec![
                (
                    "grep/typesafe/jev-1.13".into(),
                    "bm25/typesafe/jev-1.13".into(),
                ),
                ("a".into(), "b".into()),
            ],
            ..Settings::default()
        };
        let query = to_query(&settings);
        assert_eq!(from_query(&format!("?{query}")), (settings, Vec::new()));
        let (_, notices) = from_query("?spairs=a:b;c&cluster=x");
        assert_eq!(notices.len(), 2, "{notices:?}");
    }

    #[test]
    fn a_study_opened_by_url_names_it() {
        let opened = Settings {
            study: StudyRef::Url("https://example.org/paper/a b.jsonl?x=1&y=2".into()),
            ..Settings::default()
        };
        let query = to_query(&opened);
        assert!(query.contains("study=url:https"), "{query}");
        assert_eq!(from_query(&format!("?{query}")), (opened, Vec::new()));
    }

    #[test]
    fn decodes_percent_escapes_but_not_plus() {
        assert_eq!(decode("a%2Bb+c%20d%zz%"), "a+b+c d%zz%");
        assert_eq!(
            parse_query("?fuse=tree+fts5&x"),
            [
                ("fuse".to_string(), "tree+fts5".to_string()),
                ("x".to_string(), String::new())
            ]
        );
    }
}
