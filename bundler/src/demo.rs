//! `routelens demo`: the embedded default bundle, built from sources every machine has once the
//! project is built: this repository's checkout and the crates it depends on, pinned by its
//! `Cargo.lock` and taken from cargo's unpacked registry sources. Nothing third-party is ever
//! committed: only the list of crate names and the question set are.
//!
//! Layout inside the bundle:
//!
//! ```text
//! routelens/...          this repository: the files `git ls-files --cached --others
//!                        --exclude-standard` lists (a folder walk when it is not a git checkout),
//!                        minus bundler/demo/ (the question set would answer its own questions)
//! crates/<name>/...      each listed crate at the version Cargo.lock pins (the highest, when it
//!                        pins several), from <cargo home>/registry/src/*/<name>-<version>/;
//!                        no version in the path, so gold paths survive a dependency update
//! ```
//!
//! Every file passes the paper's searchable-file policy, `routelens bundle`'s default. The question set is written into the
//! bundle folder as `questions.jsonl` (beside the manifest, not listed in it), which is where
//! `routelens serve` finds it.
//!
//! The build is idempotent: the sources are read and hashed every time (a fraction of a second),
//! and when the existing bundle's manifest lists exactly those files with those hashes, the same
//! exclusions, policy, tool version and index format, and its chunk and index files are all
//! there, nothing is rebuilt.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use routelens_engine::corpus::bundle::LISTED_FORMAT_VERSION;
use routelens_engine::load::question_set::parse_questions;
use routelens_engine::retrieval::lexical::fts::split::SPLIT_FORMAT_PREFIX;
use routelens_engine::retrieval::lexical::fts::INDEX_FORMAT;
use routelens_engine::{sha256_hex, Policy};

use crate::bundle::{self, gold_report, json_line, tool_version, GoldStatus, Summary};
use crate::chunking::ChunkingOptions;
use crate::cli::{DemoArgs, OutputFormat};
use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::folder::{write_file_atomic, BundleFolder};
use crate::input::read_text;
use crate::sources::{self, Collection};

/// The built-in crate list.
pub const CRATES: &str = include_str!("../demo/crates.txt");
/// The built-in question set.
pub const QUESTIONS: &str = include_str!("../demo/questions.jsonl");
/// The demo's source name in its manifest.
pub const SOURCE: &str = "routelens-demo";
/// Where this repository's files go in the bundle.
pub const REPO_PREFIX: &str = "routelens";
/// Where the crates go in the bundle.
pub const CRATES_PREFIX: &str = "crates";
/// The repository folder left out of the demo (it holds the question set).
pub const LEFT_OUT: &str = "bundler/demo/";
/// The question set's name inside the bundle folder.
pub const QUESTIONS_FILE: &str = "questions.jsonl";

/// One `[[package]]` of a Cargo.lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedPackage {
    /// The crate name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Where it comes from (`registry+…`); `None` for workspace members.
    pub source: Option<String>,
}

/// The packages of a Cargo.lock (only the `name`, `version` and `source` keys are read).
pub fn parse_lock(text: &str) -> Vec<LockedPackage> {
    let mut packages = Vec::new();
    let mut current: Option<LockedPackage> = None;
    let value = |line: &str, key: &str| -> Option<String> {
        let rest = line
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix('=')?
            .trim();
        Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_string())
    };
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            packages.extend(current.take());
            if line == "[[package]]" {
                current = Some(LockedPackage {
                    name: String::new(),
                    version: String::new(),
                    source: None,
                });
            }
        } else if let Some(package) = current.as_mut() {
            if let Some(name) = value(line, "name") {
                package.name = name;
            } else if let Some(version) = value(line, "version") {
                package.version = version;
            } else if let Some(source) = value(line, "source") {
                package.source = Some(source);
            }
        }
    }
    packages.extend(current);
    packages.retain(|package| !package.name.is_empty() && !package.version.is_empty());
    packages
}

/// The registry package the lock pins for `name`: the highest version when there are several.
pub fn pinned<'a>(packages: &'a [LockedPackage], name: &str) -> Option<&'a LockedPackage> {
    packages
        .iter()
        .filter(|package| package.name == name)
        .filter(|package| {
            package.source.as_deref().is_some_and(|source| {
                source.starts_with("registry+") || source.starts_with("sparse+")
            })
        })
        .max_by_key(|package| version_key(&package.version))
}

/// A version's numeric parts, for ordering (`1.0.229` → `[1, 0, 229]`; pre-release tags are
/// ignored).
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['-', '+'])
        .next()
        .unwrap_or_default()
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// The crate names of a list: one a line, `#` starts a comment.
pub fn parse_crate_list(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

/// One crate of the demo.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DemoCrate {
    /// Its name, and its folder under `crates/`.
    pub name: String,
    /// The version Cargo.lock pins.
    pub version: String,
    /// The unpacked source folder it was read from.
    pub dir: String,
}

/// What `demo --format json` prints.
#[derive(Debug, serde::Serialize)]
struct DemoSummary {
    bundle: Summary,
    crates: Vec<DemoCrate>,
    /// Problems that did not stop the build: crates not pinned or not unpacked, gold files
    /// outside the bundle.
    warnings: Vec<String>,
    questions: usize,
    gold: Vec<GoldStatus>,
}

/// Runs `demo`.
pub fn run(args: &DemoArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let crate_list = match &args.crates {
        Some(path) => read_text(path)?,
        None => CRATES.to_string(),
    };
    let (questions_name, questions_text) = match &args.questions {
        Some(path) => (path.display().to_string(), read_text(path)?),
        None => (
            "bundler/demo/questions.jsonl".to_string(),
            QUESTIONS.to_string(),
        ),
    };
    let questions = parse_questions(&questions_name, &questions_text)?;
    crate::folder::check_target(&args.out)?;
    let lock_path = args.repo.join("Cargo.lock");
    let lock = parse_lock(&read_text(&lock_path)?);
    let cargo_home = match &args.cargo_home {
        Some(dir) => dir.clone(),
        None => default_cargo_home()?,
    };
    let registries = registry_dirs(&cargo_home);

    let started = Instant::now();
    let mut warnings = Vec::new();
    let mut collection = Collection::new(Policy::paper());
    match sources::git_listed_files(&args.repo) {
        Some(paths) => collection.add_listed(&args.repo, &paths, REPO_PREFIX)?,
        None => collection.add_tree(&args.repo, REPO_PREFIX)?,
    }
    let left_out = format!("{REPO_PREFIX}/{LEFT_OUT}");
    collection
        .files
        .retain(|file| !file.path.starts_with(&left_out));
    let mut crates = Vec::new();
    for name in parse_crate_list(&crate_list) {
        let Some(package) = pinned(&lock, &name) else {
            warnings.push(format!(
                "crate {name}: not pinned from a registry by {}",
                lock_path.display()
            ));
            continue;
        };
        let folder = format!("{}-{}", package.name, package.version);
        let Some(dir) = registries
            .iter()
            .map(|r| r.join(&folder))
            .find(|d| d.is_dir())
        else {
            warnings.push(format!(
                "crate {name} {}: not unpacked under {}/registry/src/ (build the project or run \
                 `cargo fetch`)",
                package.version,
                cargo_home.display()
            ));
            continue;
        };
        collection.add_tree(&dir, &format!("{CRATES_PREFIX}/{name}"))?;
        crates.push(DemoCrate {
            name,
            version: package.version.clone(),
            dir: dir.display().to_string(),
        });
    }
    collection.finish();
    let read_ms = elapsed_ms(started);

    // No vectors by default: the demo's 37,000 structural chunks take about an hour to embed on
    // two cores (docs/dense.md), beyond the run command's budget. With --embed, the questions'
    // vectors are stored too, so the grid's dense and hybrid rows need no model.
    let mut chunking = ChunkingOptions::from_args(&args.chunking, &[])?;
    if !chunking.embedded().is_empty() {
        chunking.questions = questions.iter().map(|q| q.question.clone()).collect();
    }
    let summary = match up_to_date(&args.out, &collection, &chunking) {
        Some(folder) if !args.force => {
            let mut summary = Summary::of_folder(&folder, &args.out, collection.skipped_special);
            summary.build_ms.total = read_ms;
            summary.build_ms.read = read_ms;
            summary.up_to_date = Some(true);
            summary
        }
        _ => {
            let options = bundle::BuildOptions {
                chunking,
                ..bundle::BuildOptions::default()
            };
            let built = bundle::build(collection, SOURCE.to_string(), None, options)?;
            let mut summary = built.write(&args.out, read_ms, started, None)?;
            summary.up_to_date = Some(false);
            summary
        }
    };
    let questions_path = args.out.join(QUESTIONS_FILE);
    if std::fs::read(&questions_path).ok().as_deref() != Some(questions_text.as_bytes()) {
        write_file_atomic(&questions_path, questions_text.as_bytes())?;
    }

    let folder = BundleFolder::open(&args.out)?;
    let mut gold = Vec::new();
    for question in &questions {
        for status in gold_report(&folder.manifest, &question.gold) {
            if let Some(reason) = &status.reason {
                warnings.push(format!(
                    "{questions_name}: question {}: gold file {} is outside the bundle ({reason})",
                    question.id, status.path
                ));
            }
            gold.push(status);
        }
    }
    let mut stderr = std::io::stderr();
    for warning in &warnings {
        let _ = writeln!(stderr, "warning: {warning}");
    }
    match args.format {
        OutputFormat::Json => {
            let demo = DemoSummary {
                bundle: summary,
                crates,
                warnings,
                questions: questions.len(),
                gold,
            };
            out.write_all(json_line(&demo)?.as_bytes())
                .map_err(Failure::output)
        }
        OutputFormat::Table => {
            summary.print(OutputFormat::Table, out)?;
            let pinned: Vec<String> = crates
                .iter()
                .map(|c| format!("{} {}", c.name, c.version))
                .collect();
            let inside = gold.iter().filter(|status| status.included).count();
            writeln!(
                out,
                "crates    {}: {}\nquestions {} in {} (gold: {inside} of {} files in the bundle)",
                crates.len(),
                pinned.join(", "),
                questions.len(),
                questions_path.display(),
                gold.len()
            )
            .map_err(Failure::output)
        }
    }
}

/// Whether the bundle stores exactly the vectors of these `questions` (none when empty).
fn question_vectors_match(folder: &BundleFolder, questions: &[String]) -> bool {
    let Some(entry) = &folder.manifest.question_vectors else {
        return questions.is_empty();
    };
    let Ok(stored) = folder.read(&entry.file) else {
        return false;
    };
    let Ok((vectors, _)) = folder.manifest.open_question_vectors(&stored) else {
        return false;
    };
    vectors.len() == questions.len()
        && vectors
            .iter()
            .zip(questions)
            .all(|((hash, _), text)| *hash == sha256_hex(text.as_bytes()))
}

/// The existing bundle at `out`, when it already holds exactly what `collection` would make.
fn up_to_date(
    out: &Path,
    collection: &Collection,
    chunking: &ChunkingOptions,
) -> Option<BundleFolder> {
    let folder = BundleFolder::open(out).ok()?;
    let manifest = &folder.manifest;
    let same = manifest.format_version == LISTED_FORMAT_VERSION
        && manifest.source == SOURCE
        && manifest.commit.is_none()
        && manifest.tool_version == tool_version()
        && manifest.policy == collection.policy
        && manifest.excluded == collection.excluded
        && manifest.excluded_files == collection.excluded_files
        && manifest
            .split_index
            .as_ref()
            .is_some_and(|index| index.format == format!("{SPLIT_FORMAT_PREFIX}{INDEX_FORMAT}"))
        && manifest
            .chunkings
            .iter()
            .map(|c| {
                (
                    c.chunker,
                    c.budget as usize,
                    c.counter.as_str(),
                    c.header_epilogue,
                )
            })
            .eq(chunking.chosen().into_iter().map(|c| {
                (
                    c,
                    chunking.limit(c),
                    chunking.counter.recorded(),
                    chunking.header_epilogue(c),
                )
            }))
        && manifest
            .chunkings
            .iter()
            .map(|c| (c.chunker, c.vectors.as_ref().map(|v| v.precision)))
            .eq(chunking.chosen().into_iter().map(|c| {
                (
                    c,
                    chunking
                        .embedded()
                        .contains(&c)
                        .then_some(chunking.precision),
                )
            }))
        && question_vectors_match(&folder, &chunking.questions)
        && manifest.files.len() == collection.files.len()
        && manifest
            .files
            .iter()
            .zip(&collection.files)
            .all(|(entry, file)| entry.path == file.path && entry.bytes == file.bytes.len() as u64);
    // The hashes last: format 6 keeps them in the chunks, which are read for them.
    let same = same
        && folder.files_present()
        && folder.file_hashes().is_ok_and(|hashes| {
            collection
                .files
                .iter()
                .all(|file| hashes.get(&file.path) == Some(&sha256_hex(&file.bytes)))
        });
    same.then_some(folder)
}

/// `$CARGO_HOME`, else `$HOME/.cargo`.
fn default_cargo_home() -> Result<PathBuf, Failure> {
    if let Some(home) = std::env::var_os("CARGO_HOME").filter(|home| !home.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    match std::env::var_os("HOME").filter(|home| !home.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".cargo")),
        None => Err(Failure::Usage(
            "neither CARGO_HOME nor HOME is set: pass --cargo-home DIR".into(),
        )),
    }
}

/// The unpacked-source folders of every registry cargo knows (`registry/src/*/`), sorted.
fn registry_dirs(cargo_home: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry").join("src"))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"# This file is automatically @generated by Cargo.
version = 4

[[package]]
name = "routelens"
version = "0.1.0"
dependencies = [
 "serde",
]

[[package]]
name = "thiserror"
version = "1.0.69"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "abc"

[[package]]
name = "thiserror"
version = "2.0.21"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "serde"
version = "1.0.229"
source = "sparse+https://index.crates.io/"

[metadata]
name = "not-a-package"
"#;

    #[test]
    fn reads_the_lock_and_pins_the_highest_registry_version() {
        let packages = parse_lock(LOCK);
        assert_eq!(packages.len(), 4);
        assert_eq!(pinned(&packages, "thiserror").unwrap().version, "2.0.21");
        assert_eq!(pinned(&packages, "serde").unwrap().version, "1.0.229");
        // A workspace member has no source: it is not a registry crate.
        assert!(pinned(&packages, "routelens").is_none());
        assert!(pinned(&packages, "not-a-package").is_none());
        assert!(version_key("1.10.0") > version_key("1.9.3"));
        assert!(version_key("0.2.0-rc.1") < version_key("0.2.1"));
    }

    #[test]
    fn the_built_in_lists_parse() {
        let crates = parse_crate_list(CRATES);
        assert!((10..=20).contains(&crates.len()), "{crates:?}");
        let questions = parse_questions("questions.jsonl", QUESTIONS).unwrap();
        assert!(questions.len() >= 20);
        for question in &questions {
            assert!(!question.gold.is_empty(), "{}: no gold", question.id);
            for path in &question.gold {
                let crate_path = path
                    .strip_prefix("crates/")
                    .and_then(|rest| rest.split_once('/'));
                let ok = match crate_path {
                    Some((name, _)) => crates.iter().any(|listed| listed == name),
                    None => path.starts_with("routelens/"),
                };
                assert!(
                    ok,
                    "{}: gold {path} is not under a demo prefix",
                    question.id
                );
            }
        }
        // Every question has gold lines, each on one of its gold files (read at the pinned
        // versions); bundler/tests/bundle.rs checks each span against the built bundle.
        for question in &questions {
            assert!(
                !question.gold_lines.is_empty(),
                "{}: no gold lines",
                question.id
            );
            for span in &question.gold_lines {
                assert!(question.gold.contains(&span.path), "{}", question.id);
            }
        }
        assert_eq!(
            parse_crate_list("# c\nserde # the core\n\n tantivy \n"),
            ["serde", "tantivy"]
        );
    }
}
