//! `routelens publish`: the built app, studies and bundles as one static, self-checking site.
//!
//! The site folder holds the app (every file of `--dist`, `index.html` given a `<base href>` when
//! `--base-path` is set and the app's Content-Security-Policy as a `<meta>`, with `--connect-src`
//! origins added), each study under `studies/<id>/` (only the files its loader reads: a TREC
//! run and its qrels side by side, as they are), its printed numbers under `printed/<id>.json`
//! and its issue texts, each checked against its case's hash, under `issue-texts/<id>.json`,
//! each bundle under `bundles/<name>/` (its manifest, index, chunks and question set, every one
//! verified first), `site.json` and `CHECKSUMS` (engine [`routelens_engine::publish::site`]). Every input is
//! read and checked before anything is written, and the folder is written whole, beside the target
//! and renamed into place ([`crate::folder::write_folder_of`]); an existing folder is replaced only
//! when it is a site (it holds a `site.json`) or empty. The written folder is then read back and
//! verified as `--verify` would.
//!
//! `--verify SITE` re-checks a deployed copy: every file listed in `CHECKSUMS` present with its
//! hash, no file unlisted, and `site.json` readable; every problem is named.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use routelens_engine::corpus::bundle::MANIFEST_FILE;
use routelens_engine::corpus::tokens::{CL100K_RANK_TABLE_FILE, CL100K_RANK_TABLE_SHA256};
use routelens_engine::live::evidence::LiveStudyExport;
use routelens_engine::load::issue_text::{check_issue_texts, parse_issue_texts, IssueText};
use routelens_engine::load::question_set::parse_questions;
use routelens_engine::publish::site::{
    check_base_path, check_name, Built, Checksums, SiteBundle, SiteIndex, SiteStudy, StudyKind,
    CHECKSUMS_FILE, CROSS_ENCODER_FOLDER, MODELS_FOLDER, SITE_FILE, SITE_FORMAT,
};
use routelens_engine::retrieval::cross_encoder::MODEL_FILES;
use routelens_engine::scoring::score_table::{load_score_table, Mapping};
use routelens_engine::{
    load_archive, load_jsonl, load_trec, sha256_hex, BundleFile, Error, Study, ARCHIVE_FILES,
};

use routelens_engine::retrieval::dense::pin::ModelPin;

use crate::cli::PublishArgs;
use crate::demo::QUESTIONS_FILE;
use crate::failure::Failure;
use crate::folder::{self, BundleFolder, FolderKind};
use crate::input::{read_archive, read_text};
use crate::printed::{self, Checkable};

/// A site folder: it holds a `site.json`.
const SITE: FolderKind = FolderKind {
    what: "site folder",
    marker: SITE_FILE,
};

/// The top-level names the site's own files take, which the app's build must not use.
const RESERVED: [&str; 7] = [
    SITE_FILE,
    CHECKSUMS_FILE,
    "studies",
    "bundles",
    PRINTED_FOLDER,
    ISSUE_TEXTS_FOLDER,
    MODELS_FOLDER,
];

/// Runs `publish` (or `publish --verify`).
pub fn run(args: &PublishArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(site) = &args.verify {
        let (files, bytes) = verify(site)?;
        writeln!(
            out,
            "{}: {files} files ({bytes} bytes) match its {CHECKSUMS_FILE}; none unlisted",
            site.display()
        )
        .map_err(Failure::output)?;
        return Ok(());
    }
    let Some(target) = &args.out else {
        return Err(Failure::Usage(
            "publish needs --out SITE_DIR (or --verify SITE_DIR)".into(),
        ));
    };
    folder::check_target_of(SITE, target)?;
    if let Some(base) = &args.base_path {
        check_base_path(base)
            .map_err(|message| Failure::Usage(format!("--base-path: {message}")))?;
    }
    // The command line's pairing first: a run without its qrels is a usage error, found before
    // the app is read.
    let paired = pair_qrels(&args.studies, &args.qrels)?;
    let mut connect_src = args.connect_src.clone();
    connect_src.extend(args.model_url.as_deref().map(origin_of).transpose()?);
    let mut files = read_app(&args.dist, args.base_path.as_deref(), &connect_src)?;
    let app_bytes = total(&files);
    let mut studies = Vec::new();
    let mut loaded = Vec::new();
    for (path, qrels) in paired {
        let (study, study_files, checkable) = read_study(path, qrels)?;
        if studies.iter().any(|s: &SiteStudy| s.id == study.id) {
            return Err(Failure::Usage(format!(
                "{}: a second study with id {:?}; studies are named by their folder or file",
                path.display(),
                study.id
            )));
        }
        studies.push(study);
        loaded.push(checkable);
        files.extend(study_files);
    }
    let mut summaries = Vec::new();
    for arg in &args.printed {
        let (at, path) = study_target("--printed", arg, &studies)?;
        let printed = printed::read(Some(&path), "")?;
        let name = format!("{PRINTED_FOLDER}/{}.json", studies[at].id);
        let report = printed::attach(&mut studies[at], &name, &printed, &loaded[at]);
        summaries.push(report.summary(&studies[at].id));
        files.push(BundleFile {
            name,
            bytes: printed.text.into_bytes(),
        });
    }
    for arg in &args.issue_texts {
        let (at, path) = study_target("--issue-texts", arg, &studies)?;
        let Checkable::Study(study) = &loaded[at] else {
            return Err(Failure::Usage(format!(
                "--issue-texts {arg}: study {:?} is a score table, which has no issue texts",
                studies[at].id
            )));
        };
        let accepted = checked_issue_texts(&path, study)?;
        let name = format!("{ISSUE_TEXTS_FOLDER}/{}.json", studies[at].id);
        summaries.push(format!(
            "{}: {} issue texts, each matching its case's query_sha256",
            studies[at].id,
            accepted.len()
        ));
        let mut bytes = serde_json::to_vec_pretty(&accepted).unwrap_or_default();
        bytes.push(b'\n');
        studies[at].issue_texts = Some(name.clone());
        files.push(BundleFile { name, bytes });
    }
    let study_bytes = total(&files) - app_bytes;
    let mut bundles = Vec::new();
    for dir in &args.bundles {
        let (bundle, bundle_files) = read_bundle(dir)?;
        if bundles.iter().any(|b: &SiteBundle| b.name == bundle.name) {
            return Err(Failure::Usage(format!(
                "{}: a second bundle named {:?}; bundles are named by their folder",
                dir.display(),
                bundle.name
            )));
        }
        bundles.push(bundle);
        // A merged site's shared store: each file once (named by its hash, so the same bytes).
        for file in bundle_files {
            if !files.iter().any(|f| f.name == file.name) {
                files.push(file);
            }
        }
    }
    let bundle_bytes = total(&files) - app_bytes - study_bytes;
    let model = match (&args.model, &args.model_url) {
        (Some(dir), _) => {
            let (folder, model_files) = read_model(dir)?;
            files.extend(model_files);
            Some(folder)
        }
        (None, Some(url)) => Some(url.trim_end_matches('/').to_string()),
        (None, None) => None,
    };
    // A model the site carries comes with the page's narrowed weights; a hub has only its own.
    let model_page_weights = args.model.is_some();
    let reranker_model = match &args.reranker_model {
        Some(dir) => {
            let folder = format!("{MODELS_FOLDER}/{CROSS_ENCODER_FOLDER}");
            // Loaded once, so a folder that is not a one-label cross-encoder is refused here.
            crate::model::load_cross_encoder(dir, None)?;
            for name in MODEL_FILES {
                files.push(BundleFile {
                    name: format!("{folder}/{name}"),
                    bytes: std::fs::read(dir.join(name))
                        .map_err(|e| Failure::read(&dir.join(name), e))?,
                });
            }
            Some(folder)
        }
        None => None,
    };
    let index = SiteIndex {
        format: SITE_FORMAT.into(),
        title: args.title.clone(),
        built: built("routelens publish"),
        base_path: args.base_path.clone(),
        checksums: true,
        studies,
        bundles,
        model,
        model_page_weights,
        reranker_model,
    };
    files.push(BundleFile {
        name: SITE_FILE.into(),
        bytes: index.to_json()?.into_bytes(),
    });
    let mut checksums = Checksums::new();
    for file in &files {
        checksums.add(&file.name, &file.bytes)?;
    }
    files.push(BundleFile {
        name: CHECKSUMS_FILE.into(),
        bytes: checksums.render().into_bytes(),
    });
    let written = folder::write_folder_of(SITE, target, &files)?;
    let (count, _) = verify(target)?;
    writeln!(
        out,
        "published {}: {count} files, {written} bytes (app {app_bytes}, {} studies {study_bytes}, \
         {} bundles {bundle_bytes}), every one verified against {CHECKSUMS_FILE}",
        target.display(),
        index.studies.len(),
        index.bundles.len(),
    )
    .map_err(Failure::output)?;
    for summary in summaries {
        writeln!(out, "{summary}").map_err(Failure::output)?;
    }
    Ok(())
}

/// The folder of a site holding each study's printed numbers, as `<id>.json`.
pub const PRINTED_FOLDER: &str = "printed";

/// The folder of a site holding each study's shipped issue texts, as `<id>.json`.
pub const ISSUE_TEXTS_FOLDER: &str = "issue-texts";

/// The issue texts at `path` (a folder of `<case id>.txt`, or a file in any form
/// `parse_issue_texts` reads), every one checked against `study`'s `query_sha256`: a text that
/// does not match, or names no case, stops publishing with the case and the reason.
fn checked_issue_texts(path: &Path, study: &Study) -> Result<BTreeMap<String, String>, Failure> {
    let shown = path.display().to_string();
    let texts = if path.is_dir() {
        let listing = std::fs::read_dir(path).map_err(|err| Failure::read(path, err))?;
        let mut files: Vec<PathBuf> = listing
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|file| file.extension().is_some_and(|ext| ext == "txt"))
            .collect();
        files.sort();
        let mut texts = Vec::new();
        for file in files {
            let id = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            texts.push(IssueText {
                id: id.to_string(),
                text: read_text(&file)?,
            });
        }
        texts
    } else {
        parse_issue_texts(&shown, &read_text(path)?)?
    };
    if texts.is_empty() {
        return Err(Failure::Usage(format!(
            "--issue-texts {shown}: no issue texts in it (a folder of <case id>.txt files, or \
             a JSON or JSON Lines file)"
        )));
    }
    let checked = check_issue_texts(study, texts);
    if let Some((id, why)) = checked.refused.into_iter().next() {
        return Err(Error::field(&shown, id, why.to_string()).into());
    }
    Ok(checked.accepted)
}

/// Which study an option such as `--printed` names (`ID=FILE`, or `FILE` when one study is
/// published) and the file.
fn study_target(
    option: &str,
    arg: &str,
    studies: &[SiteStudy],
) -> Result<(usize, PathBuf), Failure> {
    let ids = || {
        let ids: Vec<&str> = studies.iter().map(|s| s.id.as_str()).collect();
        ids.join(", ")
    };
    let named = arg.split_once('=');
    if let Some(at) = named.and_then(|(id, _)| studies.iter().position(|s| s.id == id)) {
        return Ok((at, PathBuf::from(named.map_or(arg, |(_, file)| file))));
    }
    match (studies, named) {
        // One study: the argument is its file (even one whose name holds '=').
        ([_], None) => Ok((0, PathBuf::from(arg))),
        ([_], Some(_)) if Path::new(arg).exists() => Ok((0, PathBuf::from(arg))),
        (_, Some((id, _))) => Err(Failure::Usage(format!(
            "{option} {arg}: no study {id:?} is published; the studies are: {}",
            ids()
        ))),
        (_, None) => Err(Failure::Usage(format!(
            "{option} {arg}: {} studies are published, so name the one it belongs to as ID=FILE \
             (the studies are: {})",
            studies.len(),
            ids()
        ))),
    }
}

fn total(files: &[BundleFile]) -> u64 {
    files.iter().map(|f| f.bytes.len() as u64).sum()
}

/// Every file of the built app (hidden entries, such as Trunk's staging folder, left out), with
/// `index.html` given its base URL.
fn read_app(
    dist: &Path,
    base_path: Option<&str>,
    connect: &[String],
) -> Result<Vec<BundleFile>, Failure> {
    let index_path = dist.join("index.html");
    if !index_path.is_file() {
        return Err(Failure::Missing {
            path: dist.to_path_buf(),
            message:
                "no index.html: build the app first (trunk build --release), or pass --dist DIR"
                    .into(),
        });
    }
    let mut files = Vec::new();
    let walk = walkdir::WalkDir::new(dist)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() == 0 || !entry.file_name().to_string_lossy().starts_with('.')
        });
    for entry in walk {
        let entry = entry.map_err(|err| Failure::Io {
            context: format!("reading {}", dist.display()),
            source: err.into(),
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = entry.path().strip_prefix(dist).unwrap_or(entry.path());
        let name = site_path(relative)?;
        if entry.depth() == 1 && RESERVED.contains(&name.as_str())
            || RESERVED.iter().any(|r| name.starts_with(&format!("{r}/")))
        {
            return Err(Failure::Usage(format!(
                "{}: the app's build uses {name:?}, a name the site keeps for its own files",
                entry.path().display()
            )));
        }
        let mut bytes =
            std::fs::read(entry.path()).map_err(|err| Failure::read(entry.path(), err))?;
        if name == "index.html" {
            if let Some(base) = base_path {
                bytes = with_base(&index_path, &bytes, base)?;
            }
            bytes = with_policy(&index_path, &bytes, connect)?;
        }
        files.push(BundleFile { name, bytes });
    }
    let table = files
        .iter()
        .find(|f| f.name == CL100K_RANK_TABLE_FILE)
        .ok_or_else(|| Failure::Missing {
            path: dist.join(CL100K_RANK_TABLE_FILE),
            message: "missing: the Context view's token table is copied in by Trunk's post-build \
                      hook (scripts/cl100k-asset.sh); rebuild the app"
                .into(),
        })?;
    if sha256_hex(&table.bytes) != CL100K_RANK_TABLE_SHA256 {
        return Err(Failure::Usage(format!(
            "{}: not the cl100k_base rank table (its SHA-256 is not {CL100K_RANK_TABLE_SHA256})",
            dist.join(CL100K_RANK_TABLE_FILE).display()
        )));
    }
    Ok(files)
}

/// `index.html` with `<base href="{base}">` as the first element of its head, so every relative
/// URL of the page (assets, `site.json`, data) resolves under the base path.
fn with_base(path: &Path, html: &[u8], base: &str) -> Result<Vec<u8>, Failure> {
    let text = std::str::from_utf8(html)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
    if text.contains("<base ") {
        return Err(Failure::Usage(format!(
            "{}: already has a <base> element; publish it without --base-path",
            path.display()
        )));
    }
    let at = text.find("<head>").ok_or_else(|| {
        Failure::Usage(format!(
            "{}: no <head> to put the base URL in",
            path.display()
        ))
    })? + "<head>".len();
    Ok(format!(
        "{}\n    <base href=\"{base}\" />{}",
        &text[..at],
        &text[at..]
    )
    .into_bytes())
}

/// `index.html` with the app's Content-Security-Policy as its head's first element (engine
/// `csp`): a static host sends no headers, so the page carries its own policy.
fn with_policy(path: &Path, html: &[u8], connect: &[String]) -> Result<Vec<u8>, Failure> {
    let text = std::str::from_utf8(html)
        .map_err(|_| Failure::Usage(format!("{}: not UTF-8", path.display())))?;
    let mut origins = routelens_engine::publish::csp::default_connect_origins();
    origins.extend(connect.iter().cloned());
    let policy = routelens_engine::publish::csp::policy(text, &origins, false);
    routelens_engine::publish::csp::with_meta(text, &policy)
        .map(String::into_bytes)
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{}: no <head> to put the Content-Security-Policy in",
                path.display()
            ))
        })
}

/// A path inside a folder as a site path (`/`-separated, UTF-8), refused when it is neither.
fn site_path(relative: &Path) -> Result<String, Failure> {
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    let name = parts.map(|parts| parts.join("/")).unwrap_or_default();
    routelens_engine::publish::site::check_path(&name)
        .map_err(|message| Failure::Usage(format!("{}: {message}", relative.display())))?;
    Ok(name)
}

/// A plain id from a folder's or file's name (its stem for a file).
fn id_of(path: &Path) -> Result<String, Failure> {
    let name = if path.is_dir() {
        path.file_name()
    } else {
        path.file_stem()
    };
    let id = name
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    check_name(&id).map_err(|message| {
        Failure::Usage(format!(
            "{}: cannot name a study or bundle: {message}",
            path.display()
        ))
    })?;
    Ok(id)
}

/// Whether a `--study` is a TREC run: a file that is none of the other kinds (.jsonl, .json,
/// .csv); TREC runs carry no extension of their own (`.run`, `.trec`, `.txt`, none).
fn is_trec_run(path: &Path) -> bool {
    !path.is_dir()
        && !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("jsonl" | "json" | "csv")
        )
}

/// Each `--study` with the `--qrels` it is published with: the TREC runs take the qrels in
/// order, or all share the one given; every other kind carries its own gold and takes none.
fn pair_qrels<'a>(
    studies: &'a [PathBuf],
    qrels: &'a [PathBuf],
) -> Result<Vec<(&'a Path, Option<&'a Path>)>, Failure> {
    for path in studies {
        std::fs::metadata(path).map_err(|err| Failure::read(path, err))?;
    }
    let runs: Vec<&Path> = studies
        .iter()
        .map(|p| p.as_path())
        .filter(|p| is_trec_run(p))
        .collect();
    match (runs.first(), qrels.first()) {
        (Some(run), None) => {
            return Err(Failure::Usage(format!(
                "{}: a TREC run is published with its qrels: add --qrels FILE (a published study \
                 is an archive folder, a .jsonl study, a .json live study export, a .csv score \
                 table or a TREC run with --qrels)",
                run.display()
            )))
        }
        (None, Some(qrels)) => {
            return Err(Failure::Usage(format!(
                "--qrels {}: no --study is a TREC run (a file that is not .jsonl, .json or .csv) \
                 for it to go with",
                qrels.display()
            )))
        }
        _ => {}
    }
    if qrels.len() > 1 && qrels.len() != runs.len() {
        let names: Vec<String> = runs.iter().map(|r| r.display().to_string()).collect();
        return Err(Failure::Usage(format!(
            "{} --qrels for {} TREC runs ({}): give one --qrels per run, in the order of the \
             runs, or one for them all",
            qrels.len(),
            runs.len(),
            names.join(", ")
        )));
    }
    let mut next = 0;
    Ok(studies
        .iter()
        .map(|path| {
            if !is_trec_run(path) {
                return (path.as_path(), None);
            }
            // The one shared, or the next in order (their counts are equal then).
            let qrels = if qrels.len() == 1 {
                &qrels[0]
            } else {
                &qrels[next]
            };
            next += 1;
            (path.as_path(), Some(qrels.as_path()))
        })
        .collect())
}

/// A study's site entry, its files, and the study as loaded (its printed numbers are checked
/// against it).
type StudyFiles = (SiteStudy, Vec<BundleFile>, Checkable);

/// A study's entry and files: loaded by the engine first, so a site never carries a study its
/// page would refuse. `qrels` makes `path` a TREC run.
fn read_study(path: &Path, qrels: Option<&Path>) -> Result<StudyFiles, Failure> {
    std::fs::metadata(path).map_err(|err| Failure::read(path, err))?;
    let id = id_of(path)?;
    let root = format!("studies/{id}");
    if let Some(qrels) = qrels {
        return read_trec(path, qrels, id, &root);
    }
    if path.is_dir() {
        let archive = read_archive(path)?;
        let study = load_archive(&archive).map_err(|source| Failure::Archive {
            dir: path.to_path_buf(),
            source,
        })?;
        // Only the files the loader reads, in the loader's order.
        let files = ARCHIVE_FILES
            .iter()
            .filter_map(|file| {
                archive.get(file.path).map(|bytes| BundleFile {
                    name: format!("{root}/{}", file.path),
                    bytes: bytes.clone(),
                })
            })
            .collect();
        let entry = SiteStudy::new(&id, &study.title, StudyKind::Archive, &root);
        return Ok((entry, files, Checkable::Study(Box::new(study))));
    }
    let file_name = site_path(Path::new(path.file_name().unwrap_or_default()))?;
    let text = read_text(path)?;
    let shown = path.display().to_string();
    let (kind, title, loaded) = match path.extension().and_then(|e| e.to_str()) {
        Some("jsonl") => {
            let study = load_jsonl(&shown, &text)?;
            (StudyKind::Jsonl, study.title.clone(), study_of(study))
        }
        Some("json") => {
            let study = LiveStudyExport::from_json(&shown, &text)?.study()?;
            (StudyKind::LiveExport, study.title.clone(), study_of(study))
        }
        Some("csv") => {
            let mapping =
                Mapping::detect(text.lines().next().unwrap_or_default()).ok_or_else(|| {
                    Failure::Usage(format!(
                    "{shown}: a published score table must match a built-in mapping (CodeNib's \
                     instance_id and repo columns)"
                ))
                })?;
            let table = load_score_table(&shown, &text, &mapping)?;
            (
                StudyKind::ScoreTable,
                file_name.clone(),
                Checkable::Scores(Box::new(table)),
            )
        }
        _ => {
            return Err(Failure::Usage(format!(
                "{shown}: a published study is an archive folder, a .jsonl study, a .json live \
                 study export, a .csv score table or a TREC run with --qrels"
            )))
        }
    };
    let name = format!("{root}/{file_name}");
    let entry = SiteStudy::new(&id, &title, kind, &name);
    let file = BundleFile {
        name,
        bytes: text.into_bytes(),
    };
    Ok((entry, vec![file], loaded))
}

/// A TREC run and its qrels, published side by side as they are (the field's own files, which
/// trec_eval, ranx and ir_measures read too) once the engine has loaded them.
fn read_trec(run: &Path, qrels: &Path, id: String, root: &str) -> Result<StudyFiles, Failure> {
    let run_name = site_path(Path::new(run.file_name().unwrap_or_default()))?;
    let qrels_name = site_path(Path::new(qrels.file_name().unwrap_or_default()))?;
    if run_name == qrels_name {
        return Err(Failure::Usage(format!(
            "{} and {}: a run and its qrels are published side by side in {root}/, so their \
             file names must differ",
            run.display(),
            qrels.display()
        )));
    }
    let (run_text, qrels_text) = (read_text(run)?, read_text(qrels)?);
    let study = load_trec(
        &run.display().to_string(),
        &run_text,
        &qrels.display().to_string(),
        &qrels_text,
    )?;
    let (path, qrels_path) = (format!("{root}/{run_name}"), format!("{root}/{qrels_name}"));
    let mut entry = SiteStudy::new(&id, &study.title, StudyKind::Trec, &path);
    entry.qrels = Some(qrels_path.clone());
    let files = vec![
        BundleFile {
            name: path,
            bytes: run_text.into_bytes(),
        },
        BundleFile {
            name: qrels_path,
            bytes: qrels_text.into_bytes(),
        },
    ];
    Ok((entry, files, study_of(study)))
}

fn study_of(study: routelens_engine::Study) -> Checkable {
    Checkable::Study(Box::new(study))
}

/// A bundle's entry and files: the folder verified in full (manifest, file list, index, every
/// chunk, every chunking's table and chunk index, the question set) before anything is copied. A
/// merged site's bundle keeps its files in the shared store its manifest names, and they are
/// written there (`bundles/store/…`), each once.
fn read_bundle(dir: &Path) -> Result<(SiteBundle, Vec<BundleFile>), Failure> {
    let name = id_of(dir)?;
    let bundle = BundleFolder::open(dir)?;
    let mut names = vec![MANIFEST_FILE.to_string()];
    names.extend(
        bundle
            .verified_files()?
            .iter()
            .map(|file| bundle.manifest.located(file)),
    );
    let questions_path = dir.join(QUESTIONS_FILE);
    let questions = questions_path.is_file().then(|| QUESTIONS_FILE.to_string());
    if questions.is_some() {
        parse_questions(
            &questions_path.display().to_string(),
            &read_text(&questions_path)?,
        )?;
        names.push(QUESTIONS_FILE.to_string());
    }
    let base = format!("bundles/{name}");
    let mut files = Vec::with_capacity(names.len());
    for file in names {
        let path = dir.join(&file);
        let bytes = std::fs::read(&path).map_err(|err| Failure::read(&path, err))?;
        files.push(BundleFile {
            name: resolved(&format!("{base}/{file}")),
            bytes,
        });
    }
    let questions = questions.map(|q| format!("{base}/{q}"));
    Ok((
        SiteBundle {
            name,
            base,
            questions,
        },
        files,
    ))
}

/// A site path with its `..` parts resolved (`bundles/a/../store/x` is `bundles/store/x`).
fn resolved(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// The embedding model's pinned files from `dir`, each checked against its pin, and the page's
/// narrowed weights made from them, as the site's `models/<install_as>/` folder (returned with
/// the files).
fn read_model(dir: &Path) -> Result<(String, Vec<BundleFile>), Failure> {
    let pin = ModelPin::minilm();
    let folder = format!("{MODELS_FOLDER}/{}", pin.install_as);
    let page = pin.page_weights().map_err(Failure::Engine)?;
    let narrowed = crate::page_weights::made_beside(dir)?;
    let mut files = vec![BundleFile {
        name: format!("{folder}/{}", page.file),
        bytes: std::fs::read(&narrowed).map_err(|e| Failure::read(&narrowed, e))?,
    }];
    for name in pin.files.keys() {
        let bytes = crate::model::read_model_file(dir, name)?;
        pin.check(name, &bytes).map_err(|source| Failure::Bundle {
            dir: dir.to_path_buf(),
            source,
        })?;
        files.push(BundleFile {
            name: format!("{folder}/{name}"),
            bytes,
        });
    }
    Ok((folder, files))
}

/// The origin (`https://host[:port]`) of `--model-url`, for the page's connect-src.
fn origin_of(url: &str) -> Result<String, Failure> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| {
            Failure::Usage(format!(
                "--model-url {url}: expected an https:// URL of the model's folder"
            ))
        })?;
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() {
        return Err(Failure::Usage(format!("--model-url {url}: no host")));
    }
    Ok(format!("{}{host}", &url[..url.len() - rest.len()]))
}

/// What built the site: this tool, the checkout's commit (`git rev-parse HEAD`, when it is one)
/// and the time (`SOURCE_DATE_EPOCH` when set, for a reproducible site).
pub(crate) fn built(tool: &str) -> Built {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|text| text.trim().to_string())
        .filter(|text| !text.is_empty());
    let when = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|secs| secs.parse::<u64>().ok())
        .map_or_else(std::time::SystemTime::now, |secs| {
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs)
        });
    Built {
        tool: tool.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        commit,
        time: humantime::format_rfc3339_seconds(when).to_string(),
    }
}

/// Checks a site folder against its `CHECKSUMS`; the number of files and bytes checked, or every
/// problem named.
fn verify(site: &Path) -> Result<(usize, u64), Failure> {
    let list_path = site.join(CHECKSUMS_FILE);
    if !list_path.is_file() {
        return Err(Failure::Missing {
            path: site.to_path_buf(),
            message: format!("not a published site (no {CHECKSUMS_FILE})"),
        });
    }
    let checksums = Checksums::parse(&list_path.display().to_string(), &read_text(&list_path)?)?;
    let mut problems = Vec::new();
    let mut bytes_checked = 0;
    for path in checksums.paths() {
        let full = site.join(path);
        match std::fs::read(&full) {
            Ok(bytes) => {
                bytes_checked += bytes.len() as u64;
                if let Err(err) = checksums.check(path, &bytes) {
                    problems.push(format!("{}/{err}", site.display()));
                }
            }
            Err(err) => problems.push(format!("{}: {err}", full.display())),
        }
    }
    for entry in walkdir::WalkDir::new(site).sort_by_file_name() {
        let entry = entry.map_err(|err| Failure::Io {
            context: format!("reading {}", site.display()),
            source: err.into(),
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let relative = entry.path().strip_prefix(site).unwrap_or(entry.path());
        let name = relative.to_string_lossy().replace('\\', "/");
        if name != CHECKSUMS_FILE && checksums.get(&name).is_none() {
            problems.push(format!(
                "{}: not listed in {CHECKSUMS_FILE}",
                entry.path().display()
            ));
        }
    }
    if checksums.get(SITE_FILE).is_none() {
        problems.push(format!(
            "{}: not listed in {CHECKSUMS_FILE}",
            site.join(SITE_FILE).display()
        ));
    } else if let Ok(bytes) = std::fs::read(site.join(SITE_FILE)) {
        if let Err(err) = SiteIndex::from_json(SITE_FILE, &bytes) {
            problems.push(format!("{}/{err}", site.display()));
        }
    }
    if problems.is_empty() {
        Ok((checksums.len(), bytes_checked))
    } else {
        Err(Failure::Verify(format!(
            "{}: {} problem(s) against its {CHECKSUMS_FILE}:\n  {}",
            site.display(),
            problems.len(),
            problems.join("\n  ")
        )))
    }
}
