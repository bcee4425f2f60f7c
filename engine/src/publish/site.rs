//! A published supplement site: its index `site.json` and its `CHECKSUMS`.
//!
//! `routelens publish` writes a folder that any static host serves as it is: the built app, each
//! study's files, each bundle folder, then
//!
//! - `site.json` ([`SiteIndex`], format `routelens-site/1`): the title, what built the site
//!   (tool, version, git commit, time), the studies (`{"id", "title", "kind", "path"}`, `path`
//!   relative to the site root: an archive's root folder, or one study file; a TREC run's entry
//!   adds `"qrels"`, its qrels file; a study with the paper's printed numbers adds `"printed"`,
//!   their file, and `"checked"`, how they fared when the site was built) and the bundles
//!   (`{"name", "base", "questions"}`, the folder and its question set, or null). `routelens
//!   serve` answers the same index for what it mounts, without checksums.
//! - `CHECKSUMS` ([`Checksums`]): the SHA-256 of every other file, one `<hex>  <path>` line each
//!   in path order, the format `sha256sum` writes, so `sha256sum -c CHECKSUMS` also checks a copy.
//!   The page fetches it with `site.json` and refuses any file of the site whose bytes hash to
//!   something else, naming the file; `routelens publish --verify` re-checks a deployed copy.
//!
//! Every path is relative and stays inside the site (no empty, `.` or `..` segment, no leading
//! `/`, no `\`), so the site works at `/`, under a sub-path and from a plain file server.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};

/// The index's file name, at the site root.
pub const SITE_FILE: &str = "site.json";

/// The checksum list's file name, at the site root.
pub const CHECKSUMS_FILE: &str = "CHECKSUMS";

/// The folder of a site that holds embedding models (`models/all-MiniLM-L6-v2/`), served by
/// `routelens serve` and written by `routelens publish --model`.
pub const MODELS_FOLDER: &str = "models";

/// The folder under [`MODELS_FOLDER`] a site's cross-encoder is served from.
pub const CROSS_ENCODER_FOLDER: &str = "cross-encoder";

/// The index's format tag.
pub const SITE_FORMAT: &str = "routelens-site/1";

/// `site.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteIndex {
    /// Always [`SITE_FORMAT`].
    pub format: String,
    /// The site's title, shown on the home page.
    pub title: String,
    /// What built the site.
    pub built: Built,
    /// The URL path the site was published for (`/paper/`), or null for "wherever it is put".
    #[serde(default)]
    pub base_path: Option<String>,
    /// Whether a `CHECKSUMS` file lists every file of the site (a published site; not `serve`).
    pub checksums: bool,
    /// The studies, by id.
    pub studies: Vec<SiteStudy>,
    /// The bundles, by name.
    pub bundles: Vec<SiteBundle>,
    /// Where the embedding model's files are (`config.json`, `model.safetensors`,
    /// `tokenizer.json`), fetched by the live worker for a typed dense or hybrid question: a
    /// folder of the site, or an `https://` URL (a model hub at a pinned revision, which the
    /// site's `connect-src` must then list). Absent when the site has no model: questions of a
    /// bundle's set still run dense and hybrid from their stored vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether `model`'s folder also holds the page's narrowed weights (the pin's
    /// `page_weights` file, which `routelens serve` and `publish --model` put there); the page
    /// then fetches them instead of the full `model.safetensors`. A model hub has none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub model_page_weights: bool,
    /// Where a cross-encoder's files are (`config.json`, `model.safetensors`,
    /// `tokenizer.json`) for the reranker rows and the Rerank view's cross-encoder: a folder of
    /// the site (`models/cross-encoder`) or an `https://` URL. Absent: the reader brings one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reranker_model: Option<String>,
}

/// What built a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Built {
    /// `routelens publish` or `routelens serve`.
    pub tool: String,
    /// The tool's version.
    pub version: String,
    /// The git commit of the checkout the tool was run in, when known.
    #[serde(default)]
    pub commit: Option<String>,
    /// When, as RFC 3339 UTC (`2026-12-01T18:00:00Z`).
    pub time: String,
}

/// How a study's files are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StudyKind {
    /// The fastindex archive: `path` is the folder holding `paper/data/`.
    Archive,
    /// One JSON Lines study file.
    Jsonl,
    /// One live study export (`routelens-live-study/1`).
    LiveExport,
    /// One per-case score table (CSV; engine `score_table`), read through the built-in mapping
    /// its header matches (CodeNib's).
    ScoreTable,
    /// A TREC run (`path`) with its qrels (`qrels`), read by `load_trec`: the field's own format,
    /// published as the researcher's two files, unconverted.
    Trec,
}

/// One study of a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteStudy {
    /// Short id, used in the permalink (`study=<id>`).
    pub id: String,
    /// Human title.
    pub title: String,
    /// How its files are read.
    pub kind: StudyKind,
    /// Its folder (an archive) or file, relative to the site root.
    pub path: String,
    /// A TREC run's qrels file, relative to the site root; absent for every other kind (and left
    /// out of the JSON then, so their entries read as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qrels: Option<String>,
    /// The paper's printed numbers (a `routelens-printed/1` file, engine `check::printed`),
    /// relative to the site root, when the site carries them; the study then opens on its paper
    /// page, every printed number beside its recomputation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<String>,
    /// How the printed numbers fared when the site was built, for the home page's summary line
    /// (the paper page checks them again in the browser).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Checked>,
    /// The issue texts shipped with the site (a JSON object of case id → text, each checked
    /// against its case's `query_sha256` when the site was built, and again by the page),
    /// relative to the site root: the page knows them as if the reader had loaded them, so a
    /// case's drill-down can run the live arms on its snapshot at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_texts: Option<String>,
}

impl SiteStudy {
    /// An entry with no qrels and no printed numbers.
    pub fn new(id: &str, title: &str, kind: StudyKind, path: &str) -> SiteStudy {
        SiteStudy {
            id: id.into(),
            title: title.into(),
            kind,
            path: path.into(),
            qrels: None,
            printed: None,
            checked: None,
            issue_texts: None,
        }
    }
}

/// How a study's printed numbers fared when its site was built (engine `check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checked {
    /// Recomputed to the printed digits.
    pub reproduced: usize,
    /// Recomputed to other digits (explained or not).
    pub differ: usize,
    /// That the data cannot yield, or whose recomputation failed.
    pub not_computable: usize,
}

impl Checked {
    /// The counts of a check's report.
    pub fn of(report: &crate::check::CheckReport) -> Checked {
        let [reproduced, differ, not_computable, failed] = report.counts();
        Checked {
            reproduced,
            differ,
            not_computable: not_computable + failed,
        }
    }

    /// How many printed numbers there are.
    pub fn total(&self) -> usize {
        self.reproduced + self.differ + self.not_computable
    }
}

/// One bundle of a site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteBundle {
    /// The bundle's name, used in the permalink (`bundle=<name>`).
    pub name: String,
    /// Its folder, relative to the site root.
    pub base: String,
    /// Its question set (JSON Lines), relative to the site root, when it has one.
    #[serde(default)]
    pub questions: Option<String>,
}

impl SiteIndex {
    /// Reads and checks `site.json` (`file` names it in errors): the format tag, unique ids and
    /// names, and paths that stay inside the site.
    pub fn from_json(file: &str, bytes: &[u8]) -> Result<SiteIndex> {
        let index: SiteIndex = crate::json_path::from_slice(bytes).map_err(|err| {
            let (path, inner) = (err.path, err.error);
            if path == "." {
                Error::Parse {
                    file: file.to_string(),
                    message: format!("not a site index: {inner}"),
                }
            } else {
                Error::field(file, path, inner.to_string())
            }
        })?;
        index.check(file)?;
        Ok(index)
    }

    /// The index as pretty JSON with a final newline, after the same checks as reading.
    pub fn to_json(&self) -> Result<String> {
        self.check(SITE_FILE)?;
        let mut text = serde_json::to_string_pretty(self).map_err(|err| Error::Parse {
            file: SITE_FILE.to_string(),
            message: err.to_string(),
        })?;
        text.push('\n');
        Ok(text)
    }

    fn check(&self, file: &str) -> Result<()> {
        if self.format != SITE_FORMAT {
            return Err(Error::field(
                file,
                "format",
                format!("{:?} is not {SITE_FORMAT:?}", self.format),
            ));
        }
        if let Some(base) = &self.base_path {
            check_base_path(base).map_err(|message| Error::field(file, "base_path", message))?;
        }
        for (field, model) in [
            ("model", &self.model),
            ("reranker_model", &self.reranker_model),
        ] {
            let Some(model) = model else { continue };
            let remote = model.starts_with("https://") || model.starts_with("http://");
            if !remote {
                check_path(model).map_err(|m| Error::field(file, field, m))?;
            }
        }
        let mut ids = BTreeSet::new();
        for (at, study) in self.studies.iter().enumerate() {
            let field = |name: &str| format!("studies[{at}].{name}");
            check_name(&study.id).map_err(|m| Error::field(file, field("id"), m))?;
            if !ids.insert(&study.id) {
                return Err(Error::field(
                    file,
                    field("id"),
                    format!("{:?} twice", study.id),
                ));
            }
            check_path(&study.path).map_err(|m| Error::field(file, field("path"), m))?;
            match (study.kind, &study.qrels) {
                (StudyKind::Trec, Some(qrels)) => {
                    check_path(qrels).map_err(|m| Error::field(file, field("qrels"), m))?
                }
                (StudyKind::Trec, None) => {
                    return Err(Error::field(
                        file,
                        field("qrels"),
                        "missing: a trec study names its qrels file",
                    ))
                }
                (_, Some(_)) => {
                    return Err(Error::field(
                        file,
                        field("qrels"),
                        "only a trec study has qrels",
                    ))
                }
                (_, None) => {}
            }
            if let Some(printed) = &study.printed {
                check_path(printed).map_err(|m| Error::field(file, field("printed"), m))?;
            }
            if study.checked.is_some() && study.printed.is_none() {
                return Err(Error::field(
                    file,
                    field("checked"),
                    "only a study with printed numbers is checked",
                ));
            }
        }
        let mut names = BTreeSet::new();
        for (at, bundle) in self.bundles.iter().enumerate() {
            let field = |name: &str| format!("bundles[{at}].{name}");
            check_name(&bundle.name).map_err(|m| Error::field(file, field("name"), m))?;
            if !names.insert(&bundle.name) {
                return Err(Error::field(
                    file,
                    field("name"),
                    format!("{:?} twice", bundle.name),
                ));
            }
            check_path(&bundle.base).map_err(|m| Error::field(file, field("base"), m))?;
            if let Some(questions) = &bundle.questions {
                check_path(questions).map_err(|m| Error::field(file, field("questions"), m))?;
            }
        }
        Ok(())
    }
}

/// Whether `name` can be a study id or bundle name: a plain URL segment (ASCII letters, digits,
/// `.`, `_`, `-`, not starting with `.`), which also keeps it apart from the `url:` and `picked:`
/// names the app gives what a reader opens.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if plain {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a plain name (ASCII letters, digits, '.', '_', '-', not starting with '.')"
        ))
    }
}

/// Whether `path` is a relative path that stays inside the site.
pub fn check_path(path: &str) -> std::result::Result<(), String> {
    let inside = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(['\\', '\0', '\n', '\r'])
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if inside {
        Ok(())
    } else {
        Err(format!(
            "{path:?} is not a relative path inside the site (no leading '/', no empty, '.' or '..' part)"
        ))
    }
}

/// Whether `base` is a URL path a site can be published under: starts and ends with `/`, plain
/// segments between.
pub fn check_base_path(base: &str) -> std::result::Result<(), String> {
    let inner = base.strip_prefix('/').and_then(|b| b.strip_suffix('/'));
    match inner {
        Some("") => Ok(()),
        Some(inner) if inner.split('/').all(|part| check_name(part).is_ok()) => Ok(()),
        _ => Err(format!(
            "{base:?} is not a base path: it starts and ends with '/', with plain segments between (/paper/)"
        )),
    }
}

/// `CHECKSUMS`: every file of the site but itself, by path, with its SHA-256 (lower-case hex).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checksums {
    files: BTreeMap<String, String>,
}

impl Checksums {
    /// An empty list.
    pub fn new() -> Self {
        Checksums::default()
    }

    /// Adds a file's bytes under `path` (refused when the path leaves the site or is listed).
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> Result<()> {
        self.add_hash(path, sha256_hex(bytes))
    }

    fn add_hash(&mut self, path: &str, hash: String) -> Result<()> {
        check_path(path).map_err(|message| Error::Parse {
            file: CHECKSUMS_FILE.to_string(),
            message,
        })?;
        if path == CHECKSUMS_FILE {
            return Err(Error::Parse {
                file: CHECKSUMS_FILE.to_string(),
                message: "a checksum list does not list itself".into(),
            });
        }
        if self.files.insert(path.to_string(), hash).is_some() {
            return Err(Error::Parse {
                file: CHECKSUMS_FILE.to_string(),
                message: format!("{path:?} is listed twice"),
            });
        }
        Ok(())
    }

    /// Reads a list (`file` names it in errors): one `<64 hex>  <path>` line each, as
    /// `sha256sum` writes them (a `*` before the path, binary mode, is accepted too).
    pub fn parse(file: &str, text: &str) -> Result<Checksums> {
        let mut list = Checksums::new();
        for (at, line) in text.lines().enumerate() {
            let bad = |message: String| Error::Line {
                file: file.to_string(),
                line: at + 1,
                message,
            };
            if line.is_empty() {
                continue;
            }
            let (hash, rest) = line
                .split_once(' ')
                .ok_or_else(|| bad("not `<sha256>  <path>`".into()))?;
            let path = rest
                .strip_prefix(' ')
                .or_else(|| rest.strip_prefix('*'))
                .ok_or_else(|| bad("not `<sha256>  <path>` (two spaces between)".into()))?;
            if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(format!("{hash:?} is not a SHA-256 in hex")));
            }
            list.add_hash(path, hash.to_ascii_lowercase())
                .map_err(|err| bad(err.to_string()))?;
        }
        Ok(list)
    }

    /// The list as `sha256sum` writes it, in path order.
    pub fn render(&self) -> String {
        self.files
            .iter()
            .map(|(path, hash)| format!("{hash}  {path}\n"))
            .collect()
    }

    /// The SHA-256 listed for `path`, if it is listed.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    /// Every listed path, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The number of files listed.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Checks a file of the site: listed, and its bytes hash to the listed value. The error
    /// names the file.
    pub fn check(&self, path: &str, bytes: &[u8]) -> Result<()> {
        let expected = self.get(path).ok_or_else(|| Error::Parse {
            file: path.to_string(),
            message: format!("not listed in the site's {CHECKSUMS_FILE}"),
        })?;
        let actual = sha256_hex(bytes);
        if actual == expected {
            Ok(())
        } else {
            Err(Error::SiteHash {
                file: path.to_string(),
                expected: expected.to_string(),
                actual,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> SiteIndex {
        SiteIndex {
            format: SITE_FORMAT.into(),
            title: "A paper".into(),
            built: Built {
                tool: "routelens publish".into(),
                version: "0.1.0".into(),
                commit: Some("abc".into()),
                time: "2026-12-01T18:00:00Z".into(),
            },
            base_path: Some("/paper/".into()),
            checksums: true,
            studies: vec![
                SiteStudy {
                    printed: Some("printed/fastindex.json".into()),
                    checked: Some(Checked {
                        reproduced: 3,
                        differ: 1,
                        not_computable: 2,
                    }),
                    ..SiteStudy::new(
                        "fastindex",
                        "fastindex",
                        StudyKind::Archive,
                        "studies/fastindex",
                    )
                },
                SiteStudy {
                    qrels: Some("studies/runs/qrels.txt".into()),
                    ..SiteStudy::new(
                        "runs",
                        "runs.trec + qrels.txt",
                        StudyKind::Trec,
                        "studies/runs/runs.trec",
                    )
                },
            ],
            bundles: vec![SiteBundle {
                name: "demo".into(),
                base: "bundles/demo".into(),
                questions: Some("bundles/demo/questions.jsonl".into()),
            }],
            model: Some("models/all-MiniLM-L6-v2".into()),
            model_page_weights: true,
            reranker_model: Some("models/cross-encoder".into()),
        }
    }

    #[test]
    fn an_index_round_trips_and_its_fields_are_checked() {
        let json = index().to_json().unwrap();
        assert_eq!(
            SiteIndex::from_json("site.json", json.as_bytes()).unwrap(),
            index()
        );
        type Change<'a> = &'a dyn Fn(&mut SiteIndex);
        let cases: [(&str, Change); 14] = [
            ("field format", &|i| i.format = "routelens-site/2".into()),
            ("field model", &|i| i.model = Some("../models".into())),
            ("field model", &|i| i.model = Some("ftp://hub/model".into())),
            ("field reranker_model", &|i| {
                i.reranker_model = Some("/etc/model".into())
            }),
            ("field studies[0].path", &|i| {
                i.studies[0].path = "../x".into()
            }),
            ("field bundles[0].base", &|i| {
                i.bundles[0].base = "/bundles/demo".into()
            }),
            ("field bundles[0].name", &|i| {
                i.bundles[0].name = "url:x".into()
            }),
            ("field base_path", &|i| i.base_path = Some("paper".into())),
            ("field studies[1].qrels: missing", &|i| {
                i.studies[1].qrels = None
            }),
            ("field studies[1].qrels: \"../q\"", &|i| {
                i.studies[1].qrels = Some("../q".into())
            }),
            ("field studies[0].qrels: only a trec study", &|i| {
                i.studies[0].qrels = Some("q".into())
            }),
            ("field studies[0].printed: \"/p.json\"", &|i| {
                i.studies[0].printed = Some("/p.json".into())
            }),
            (
                "field studies[0].checked: only a study with printed",
                &|i| i.studies[0].printed = None,
            ),
            ("field bundles[1].name: \"demo\" twice", &|i| {
                i.bundles.push(i.bundles[0].clone())
            }),
        ];
        for (expected, change) in cases {
            let mut bad = index();
            change(&mut bad);
            let json = serde_json::to_string(&bad).unwrap();
            let error = SiteIndex::from_json("site.json", json.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("site.json: ") && error.contains(expected),
                "{error}"
            );
        }
        let error = SiteIndex::from_json("site.json", b"{\"format\": 1}")
            .unwrap_err()
            .to_string();
        assert!(error.contains("field format"), "{error}");
    }

    /// A trec entry carries its qrels; every other kind's entry reads as it did before trec.
    #[test]
    fn only_a_trec_entry_has_qrels_in_its_json() {
        let json: serde_json::Value = serde_json::from_str(&index().to_json().unwrap()).unwrap();
        let archive = json["studies"][0].as_object().unwrap();
        assert!(!archive.contains_key("qrels"));
        assert_eq!(json["studies"][1]["kind"], "trec");
        assert_eq!(json["studies"][1]["qrels"], "studies/runs/qrels.txt");
    }

    #[test]
    fn checksums_render_as_sha256sum_and_name_a_bad_file() {
        let mut list = Checksums::new();
        list.add("index.html", b"<html>").unwrap();
        list.add("bundles/demo/manifest.json", b"{}").unwrap();
        let text = list.render();
        // sha256sum's own output for b"{}".
        assert!(text.starts_with(
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a  bundles/demo/manifest.json\n"
        ));
        assert_eq!(Checksums::parse("CHECKSUMS", &text).unwrap(), list);
        list.check("index.html", b"<html>").unwrap();
        let error = list.check("index.html", b"<html!").unwrap_err().to_string();
        assert!(
            error.starts_with("index.html: SHA-256 mismatch: the site's CHECKSUMS lists "),
            "{error}"
        );
        let error = list.check("extra.js", b"").unwrap_err().to_string();
        assert_eq!(error, "extra.js: not listed in the site's CHECKSUMS");
        assert!(list.add("index.html", b"again").is_err());
        assert!(list.add("CHECKSUMS", b"").is_err());
        for (line, expected) in [
            ("abc  x", "CHECKSUMS:1: \"abc\" is not a SHA-256"),
            ("nospace", "CHECKSUMS:1: not `<sha256>  <path>`"),
            (
                "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a  ../x",
                "CHECKSUMS:1: CHECKSUMS: \"../x\" is not a relative path",
            ),
        ] {
            let error = Checksums::parse("CHECKSUMS", line).unwrap_err().to_string();
            assert!(error.starts_with(expected), "{error}");
        }
    }
}
