//! The permalink: every setting ([`Settings`]) lives in the URL's query string, and the page keeps
//! the URL current with `history.replaceState` (no reloads, no history spam). On load the query is
//! read back, so reloading a URL restores the view.
//!
//! The keys are the settings' parts' ([`Settings::parts`]): each part reads and writes its own,
//! and documents them (their values, defaults, and when they are written) in its module: the
//! shared ones in `crate::params` and `crate::packing::params`, each view's in its `params.rs`.
//! Here is only the loop over the parts and the query string's encoding. No API key is ever in the
//! link.
//!
//! Arm names never contain spaces or `+` except as the fusion separator, so `+` is read literally
//! here (not as a space, as form encoding would), which keeps `fuse=tree+fts5` readable.

use crate::params::part::Claim;
use crate::params::Settings;

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

/// The settings as a query string, without the leading `?`.
pub fn to_query(settings: &Settings) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    for part in settings.parts() {
        part.write(&mut pairs);
    }
    pairs
        .into_iter()
        .map(|(key, value)| format!("{key}={}", encode(&value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Reads settings from a query string: each pair goes to the part that lists its key. A value
/// that does not parse, or that the engine refuses (k out of range, resamples below 2), and a key
/// no part lists, keep the defaults and yield a notice saying why.
pub fn from_query(search: &str) -> (Settings, Vec<String>) {
    let mut settings = Settings::default();
    let mut notices = Vec::new();
    for (key, value) in parse_query(search) {
        let claim = settings
            .parts_mut()
            .into_iter()
            .find(|part| part.keys().contains(&key.as_str()))
            .map_or(Claim::Unknown, |part| part.read(&key, &value));
        let why = match claim {
            Claim::Read => continue,
            Claim::Refused(why) => why,
            Claim::Unknown => "unknown parameter".into(),
        };
        notices.push(format!("link: {key}={value} ignored: {why}"));
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
    use proptest::prelude::*;
    use routelens_engine::corpus::code_chunks::Chunker;
    use routelens_engine::remote::rerank::pools::Route;
    use routelens_engine::remote::rerank::settings::RerankerChoice;
    use routelens_engine::scoring::unit_metrics::{Clustering, Relevance};
    use routelens_engine::{PairedMetric, Subset};

    use super::*;
    use crate::decisions::DeciderKind;
    use crate::packing::params::PackParams;
    use crate::params::fusion::FusionParams;
    use crate::params::metric_tables::{ClusterBy, MetricTableParams};
    use crate::params::page::{PageParams, StudyRef, View};
    use crate::params::shared::SharedParams;
    use crate::views::chunks::params::ChunksParams;
    use crate::views::context::params::ContextParams;
    use crate::views::evaluate::params::EvaluateParams;
    use crate::views::rerank::params::{PlannerKind, RerankParams, RerankRemote};
    use crate::views::route::params::RouteParams;
    use crate::views::scores::params::ScoresParams;
    use crate::views::search::params::SearchParams;
    use crate::views::study::params::StudyViewParams;

    #[test]
    fn round_trips_every_setting() {
        let settings = Settings {
            page: PageParams {
                study: StudyRef::Served("fastindex".into()),
                view: View::Cases,
            },
            shared: SharedParams {
                k: 16,
                seed: 7,
                resamples: 2000,
                bundle: Some("demo".into()),
                query: Some("where is the json! macro?".into()),
                chunker: Some(Chunker::Window),
                api_base: "http://127.0.0.1:9/gw".into(),
                cross_encoder: Some("http://127.0.0.1:9/models/ce".into()),
                cross_encoder_name: Some("cross-encoder/ms-marco-MiniLM-L-6-v2@abc".into()),
            },
            fusion: FusionParams {
                fusions: vec![
                    vec!["tree".into(), "fts5".into()],
                    vec!["rg".into(), "fts5".into(), "basename".into()],
                ],
                rank_constant: 30.5,
                depth: 8,
            },
            metric_tables: MetricTableParams {
                cluster: ClusterBy::Case,
                metrics: vec!["mrr".into(), "span_recall@5".into()],
                relevance: Some(Relevance::Span),
                view_metric: Some("ndcg@10".into()),
            },
            packing: PackParams {
                budget: 4000,
                radius: 50,
                anchors: 2,
            },
            study_views: StudyViewParams {
                k_left: 3,
                k_right: 12,
                left: "tree+fts5".into(),
                right: "rg".into(),
                metric: PairedMetric::ArchivedLineRecall,
                subset: Subset::Aligned,
                arms: vec!["tree".into(), "fts5".into()],
                issue: Some("SWE-PolyBench__python__x y&z".into()),
                repo: Some("sympy/sympy".into()),
                side: Some(routelens_engine::scoring::case_list::Side::Worse),
                sort: Some("difference".into()),
            },
            scores: ScoresParams {
                frame: Some("published".into()),
                metric: Some("mrr".into()),
                pairs: vec![("a".into(), "b".into())],
                resamples: Some(2000),
                seed: Some(7),
            },
            search: SearchParams {
                fused: vec!["fts5".into(), "basename".into(), "rg".into()],
            },
            context: ContextParams {
                arm: "rg".into(),
                vs: Some("fts5+rg".into()),
            },
            route: RouteParams {
                strategy: routelens_engine::remote::route::Strategy::Flat,
                decider: DeciderKind::Http,
                model: "jev-2".into(),
                max_files: 8,
                max_calls: 4,
            },
            chunks: ChunksParams {
                path: Some("src/a b.rs".into()),
                cap: Some(2),
                retriever: routelens_engine::retrieval::chunk_search::Retriever::Hybrid,
            },
            evaluate: EvaluateParams {
                chunkers: vec![Chunker::Structural, Chunker::StructuralUnmerged],
                retrievers: vec![
                    routelens_engine::retrieval::chunk_search::Retriever::Bm25,
                    routelens_engine::retrieval::chunk_search::Retriever::Dense,
                ],
                caps: vec![1, 3],
                capped: vec![routelens_engine::retrieval::chunk_search::Retriever::Dense],
                rerankers: vec![routelens_engine::retrieval::cross_encoder::RerankInput::Prefixed],
                rerank_top: 20,
                k: vec![5, 20],
                select_by: "mrr".into(),
                depth: 50,
                cluster: Clustering::Repo,
                gold2: "https://example.org/adjudicated questions.jsonl?v=2&x".into(),
            },
            rerank: RerankParams {
                pool: Route::Union,
                reranker: RerankerChoice::Jev,
                remote: RerankRemote {
                    judge: DeciderKind::Replay,
                    jev_model: "jev-2".into(),
                    planner: PlannerKind::Http,
                    planner_base: "http://127.0.0.1:9/v1".into(),
                    planner_model: "m/x".into(),
                },
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
            "?chunkers=structural,bogus&caps=0&eks=&edepth=x&ecluster=repo&select=nope&cap=-1&chunker=x&retrievers=bm25,sparse&retriever=colbert",
        );
        assert_eq!(settings.evaluate, EvaluateParams::default());
        assert_eq!((settings.chunks.cap, settings.shared.chunker), (None, None));
        assert_eq!(settings.chunks, ChunksParams::default());
        assert_eq!(notices.len(), 10, "{notices:?}");
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
            assert_eq!(
                settings.shared.api_base,
                SharedParams::default().api_base,
                "{base}"
            );
            assert_eq!(notices.len(), 1, "{base}: {notices:?}");
        }
        let (settings, _) = from_query("?base=http%3A%2F%2F127.0.0.1%3A9%2Fapi%2F");
        assert_eq!(settings.shared.api_base, "http://127.0.0.1:9/api");
    }

    #[test]
    fn refused_values_keep_defaults_and_say_why() {
        let (settings, notices) = from_query("?ks=8,99&k=x&resamples=1&view=nope&study=pinned");
        let views = &settings.study_views;
        assert_eq!((views.k_left, views.k_right, settings.shared.k), (8, 16, 8));
        assert_eq!(settings.shared.resamples, 10_000);
        assert_eq!(settings.page.study, StudyRef::Pinned);
        assert_eq!(notices.len(), 4, "{notices:?}");
        assert!(notices[0].contains("k = 99 is out of range"), "{notices:?}");
    }

    #[test]
    fn metric_names_are_read_as_plain_names_and_bad_ones_refused() {
        let (settings, notices) = from_query("?metrics=RR,Success@5&vmetric=nDCG@10&relevance=x");
        let tables = &settings.metric_tables;
        assert_eq!(tables.metrics, ["mrr", "hit@5"]);
        assert_eq!(tables.view_metric.as_deref(), Some("ndcg@10"));
        assert_eq!(tables.relevance, None);
        assert_eq!(notices.len(), 1, "{notices:?}");
        let (settings, notices) = from_query("?metrics=mrr,bogus@3");
        assert!(settings.metric_tables.metrics.is_empty());
        assert!(notices[0].contains("bogus@3"), "{notices:?}");
    }

    #[test]
    fn the_search_view_may_fuse_nothing() {
        let settings = Settings {
            search: SearchParams { fused: Vec::new() },
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
            page: PageParams {
                study: StudyRef::Live("demo bundle".into()),
                ..PageParams::default()
            },
            ..Settings::default()
        };
        let query = to_query(&settings);
        assert!(query.contains("study=live:demo%20bundle"), "{query}");
        assert_eq!(from_query(&format!("?{query}")), (settings, Vec::new()));
    }

    #[test]
    fn a_score_tables_settings_round_trip() {
        let settings = Settings {
            scores: ScoresParams {
                frame: Some("base_aligned".into()),
                metric: Some("span_recall@5".into()),
                pairs: vec![
                    (
                        "grep/typesafe/jev-1.13".into(),
                        "bm25/typesafe/jev-1.13".into(),
                    ),
                    ("a".into(), "b".into()),
                ],
                resamples: Some(5000),
                seed: Some(20260923),
            },
            metric_tables: MetricTableParams {
                cluster: ClusterBy::Case,
                ..MetricTableParams::default()
            },
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
            page: PageParams {
                study: StudyRef::Url("https://example.org/paper/a b.jsonl?x=1&y=2".into()),
                ..PageParams::default()
            },
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

    /// Values worth trying for each key: defaults, other values the key takes, values at and
    /// past its limits, and values it refuses. Free text is tried for every key besides.
    fn samples() -> Vec<(&'static str, Vec<String>)> {
        let names = |names: &[&str]| names.iter().map(|name| name.to_string()).collect();
        let with_bad = |mut values: Vec<String>| {
            values.push("x".into());
            values
        };
        vec![
            (
                "study",
                names(&[
                    "",
                    "pinned",
                    "picked",
                    "fastindex",
                    "live:demo bundle",
                    "live:",
                    "url:https://example.org/a b.jsonl?x=1&y=2",
                ]),
            ),
            (
                "view",
                with_bad(View::ALL.iter().map(|v| v.name().to_string()).collect()),
            ),
            ("k", names(&["1", "8", "16", "0", "17", "x"])),
            ("seed", names(&["0", "7", "18446744073709551615", "-1"])),
            ("resamples", names(&["2", "10000", "1", "x"])),
            (
                "bundle",
                names(&["", "demo", "url:https://example.org/b/", "picked:folder"]),
            ),
            (
                "q",
                names(&["", "q1", "where is the json! macro?", "a&b=c%d+e#f"]),
            ),
            (
                "chunker",
                with_bad(Chunker::ALL.iter().map(|c| c.name().to_string()).collect()),
            ),
            (
                "base",
                names(&[
                    "https://api.typesafe.ai",
                    "http://127.0.0.1:9/gw/",
                    "http://",
                    "http:",
                    "ftp://example.org",
                    "",
                ]),
            ),
            (
                "fuse",
                names(&[
                    "",
                    "tree+fts5",
                    "tree+fts5,rg+fts5+basename",
                    ",",
                    "a++b",
                    "+",
                ]),
            ),
            (
                "rrfk",
                names(&["60", "30.5", "1e5", "0", "-1", "NaN", "inf", "x"]),
            ),
            ("depth", names(&["1", "16", "0", "x"])),
            ("cluster", names(&["repo", "case", "x"])),
            (
                "metrics",
                names(&["", "mrr,span_recall@5", "RR,Success@5", "mrr,bogus@3"]),
            ),
            ("relevance", names(&["file", "span", "x"])),
            (
                "vmetric",
                names(&["ndcg@10", "nDCG@10", "file_recall@8", "x"]),
            ),
            ("budget", names(&["16000", "4000", "0", "x"])),
            ("radius", names(&["200", "50", "0", "x"])),
            ("anchors", names(&["4", "2", "0", "x"])),
            ("ks", names(&["8,16", "3,12", "8,99", "8", "8,16,", "x,y"])),
            ("left", names(&["", "tree", "tree+fts5"])),
            ("right", names(&["", "fts5", "rg"])),
            ("metric", names(&["file", "lines", "x"])),
            ("subset", names(&["all", "aligned", "x"])),
            ("arms", names(&["", "tree,fts5", ","])),
            ("case", names(&["", "SWE-PolyBench__python__x y&z"])),
            ("issue", names(&["", "django__django-1"])),
            ("crepo", names(&["", "sympy/sympy"])),
            ("cside", names(&["better", "worse", "same", "x"])),
            ("csort", names(&["", "tree", "difference"])),
            ("frame", names(&["", "published"])),
            ("smetric", names(&["", "mrr"])),
            (
                "spairs",
                names(&[
                    "",
                    "a:b",
                    "grep/typesafe/jev-1.13:bm25/typesafe/jev-1.13;a:b",
                    "a:b;c",
                    "a:b:c",
                ]),
            ),
            ("sresamples", names(&["5000", "0", "x"])),
            ("sseed", names(&["20260923", "-1"])),
            ("sfuse", names(&["", "fts5+rg", "fts5+basename+rg", "+"])),
            ("arm", names(&["", "fts5", "rg"])),
            ("vs", names(&["", "fts5+rg"])),
            ("strategy", names(&["tree", "flat", "x"])),
            (
                "decider",
                with_bad(
                    DeciderKind::ALL
                        .iter()
                        .map(|d| d.name().to_string())
                        .collect(),
                ),
            ),
            ("model", names(&["", "jev-1.13.0", "jev-2"])),
            ("max_files", names(&["1", "16", "10000", "0", "10001", "x"])),
            ("max_calls", names(&["1", "32", "10000", "0", "10001", "x"])),
            ("path", names(&["", "src/a b.rs"])),
            ("cap", names(&["1", "2", "0", "-1", "x"])),
            ("retriever", names(&["bm25", "dense", "hybrid", "colbert"])),
            (
                "retrievers",
                names(&["", "bm25", "bm25,dense,hybrid", "hybrid,sparse"]),
            ),
            (
                "chunkers",
                names(&[
                    "",
                    "structural,window",
                    "structural-unmerged,codenib",
                    "structural,bogus",
                ]),
            ),
            ("caps", names(&["", "1,3", "0"])),
            ("capped", names(&["", "hybrid", "bm25,dense", "sparse"])),
            (
                "rerankers",
                names(&[
                    "",
                    "cross-encoder:text",
                    "cross-encoder:text,cross-encoder:prefixed",
                    "cross-encoder:lines",
                ]),
            ),
            ("rtop", names(&["30", "10", "0", "x"])),
            (
                "xmodel",
                names(&["", "http://127.0.0.1:9/models/ce", "models/cross-encoder"]),
            ),
            (
                "xname",
                names(&["", "cross-encoder/ms-marco-MiniLM-L-6-v2@abc"]),
            ),
            ("eks", names(&["", "1,5,10", "5,20", "0"])),
            ("select", names(&["ndcg@10", "mrr", "nope"])),
            ("edepth", names(&["100", "50", "0", "x"])),
            ("ecluster", names(&["case", "project", "repo"])),
            (
                "gold2",
                names(&["", "/bundles/demo/adjudicated.jsonl", "a b&c=d"]),
            ),
            (
                "pool",
                with_bad(Route::ALL.iter().map(|r| r.name().to_string()).collect()),
            ),
            (
                "reranker",
                with_bad(
                    RerankerChoice::ALL
                        .iter()
                        .map(|r| r.name().to_string())
                        .collect(),
                ),
            ),
            ("judge", names(&["http", "proxy", "replay", "offline", "x"])),
            ("jmodel", names(&["", "jev-1.13", "jev-2"])),
            (
                "planner",
                with_bad(
                    PlannerKind::ALL
                        .iter()
                        .map(|p| p.name().to_string())
                        .collect(),
                ),
            ),
            ("pbase", names(&["", "http://127.0.0.1:9/v1"])),
            ("pmodel", names(&["", "m/x"])),
        ]
    }

    #[test]
    fn the_samples_cover_every_key() {
        let mut sampled: Vec<&str> = samples().into_iter().map(|(key, _)| key).collect();
        let settings = Settings::default();
        let mut keys: Vec<&str> = settings
            .parts()
            .iter()
            .flat_map(|part| part.keys().iter().copied())
            .collect();
        sampled.sort();
        keys.sort();
        assert_eq!(sampled, keys, "every key has sample values here");
    }

    /// One `key=value` of a link: a key's sample value, free text for a key, or an unknown key.
    fn pair() -> impl Strategy<Value = (String, String)> {
        let table = samples();
        let keys: Vec<&str> = table.iter().map(|(key, _)| *key).collect();
        let sampled: Vec<(String, String)> = table
            .iter()
            .flat_map(|(key, values)| values.iter().map(|value| (key.to_string(), value.clone())))
            .collect();
        prop_oneof![
            4 => prop::sample::select(sampled),
            1 => (prop::sample::select(keys), "\\PC{0,12}")
                .prop_map(|(key, value)| (key.to_string(), value)),
            1 => ("[a-z_]{0,6}", "\\PC{0,6}"),
        ]
    }

    proptest! {
        /// Any link's settings, written and read again, are the same settings, with no notice.
        #[test]
        fn read_write_read_keeps_the_settings(pairs in prop::collection::vec(pair(), 0..16)) {
            let query: Vec<String> = pairs
                .iter()
                .map(|(key, value)| format!("{}={}", encode(key), encode(value)))
                .collect();
            let (first, _) = from_query(&format!("?{}", query.join("&")));
            let written = to_query(&first);
            let (again, notices) = from_query(&format!("?{written}"));
            prop_assert!(notices.is_empty(), "{} read back with {:?}", written, notices);
            prop_assert_eq!(again, first, "{}", written);
        }
    }
}
