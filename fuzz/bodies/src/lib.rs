//! What each fuzz target runs: one function per loader or decoder of a file routelens reads from
//! a stranger. The cargo-fuzz targets in `fuzz/fuzz_targets/` (nightly, libFuzzer) call these,
//! and `tests/corpus.rs` replays the committed corpora through them on stable, so CI catches a
//! regression without nightly.
//!
//! Every body holds two promises: no input panics (or aborts on an allocation), and a refusal
//! names the file it was handed (the engine's errors name file, field or line). Where one input
//! holds several files, they are separated by a line holding the ASCII record separator
//! ([`SEPARATOR`]), so seeds stay readable text and libFuzzer's dictionary can insert a split.
//! Where a loader checks SHA-256 first, the body fixes the hashes so that the fuzzed bytes reach
//! the parser behind the check (random bytes would stop at the hash every time).

use std::collections::BTreeMap;

use routelens_engine::checksum::sha256_hex;
use routelens_engine::corpus::bundle::{decode_listed_manifest, decode_manifest};
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::load::archive::{ARCHIVE_FILES, README};
use routelens_engine::remote::rerank::pools::Candidate;
use routelens_engine::remote::route::protocol::{
    Criteria, Question, Request, DEFAULT_MODEL, NONE_KEY, ROUTE_QUESTION,
};
use routelens_engine::remote::route::{ManualClock, Replayer, RunFile, Session};
use routelens_engine::DirTree;
use routelens_engine::Error;

/// Separates the files of one input: a line holding only the ASCII record separator.
pub const SEPARATOR: &[u8] = b"\n\x1e\n";

/// The files of one input, at most `max` (the last keeps any further separators).
fn parts(data: &[u8], max: usize) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() + 1 < max {
        let Some(at) = rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) else {
            break;
        };
        parts.push(&rest[..at]);
        rest = &rest[at + SEPARATOR.len()..];
    }
    parts.push(rest);
    parts
}

/// Text as a loader that reads text receives it (the CLI and the app decode UTF-8 lossily
/// nowhere: a file that is not UTF-8 is refused before the loader, so only text reaches it).
fn text(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// A refusal must name one of the files it was handed.
fn names_a_file(err: &Error, files: &[&str]) {
    let message = err.to_string();
    assert!(
        files.iter().any(|file| message.contains(file)),
        "the refusal names none of {files:?}: {message}"
    );
}

/// The fastindex archive: up to ten data files in `ARCHIVE_FILES` order after the README,
/// which the body writes with each supplied file's SHA-256.
pub fn archive(data: &[u8]) {
    let data_files: Vec<&str> = ARCHIVE_FILES
        .iter()
        .map(|file| file.path)
        .filter(|path| *path != README)
        .collect();
    let mut files = BTreeMap::new();
    let mut readme = String::from("| file | sha256 |\n| --- | --- |\n");
    for (path, bytes) in data_files.iter().zip(parts(data, data_files.len())) {
        // An empty part leaves the file out, so the loader's "missing" refusals are reached.
        if bytes.is_empty() {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        readme.push_str(&format!("| `{name}` | `{}` |\n", sha256_hex(bytes)));
        files.insert(path.to_string(), bytes.to_vec());
    }
    files.insert(README.to_string(), readme.into_bytes());
    if let Err(err) = routelens_engine::load_archive(&files) {
        names_a_file(&err, &data_files);
    }
}

/// A TREC run and its qrels.
pub fn trec(data: &[u8]) {
    let [run, qrels] = parts(data, 2)[..] else {
        return;
    };
    let (Some(run), Some(qrels)) = (text(run), text(qrels)) else {
        return;
    };
    if let Err(err) = routelens_engine::load_trec("run.txt", run, "qrels.txt", qrels) {
        names_a_file(&err, &["run.txt", "qrels.txt"]);
    }
}

/// A JSON Lines study.
pub fn jsonl(data: &[u8]) {
    let Some(study) = text(data) else { return };
    if let Err(err) = routelens_engine::load_jsonl("study.jsonl", study) {
        names_a_file(&err, &["study.jsonl"]);
    }
}

/// A score table: its column mapping (empty for CodeNib's built-in one) and its CSV.
pub fn score_table(data: &[u8]) {
    use routelens_engine::scoring::score_table::{load_score_table, Mapping};
    let [mapping, csv] = parts(data, 2)[..] else {
        return;
    };
    let (Some(mapping), Some(csv)) = (text(mapping), text(csv)) else {
        return;
    };
    let mapping = if mapping.is_empty() {
        Mapping::codenib()
    } else {
        match Mapping::from_json("mapping.json", mapping) {
            Ok(mapping) => mapping,
            Err(err) => return names_a_file(&err, &["mapping.json"]),
        }
    };
    if let Err(err) = load_score_table("cases.csv", csv, &mapping) {
        names_a_file(&err, &["cases.csv"]);
    }
}

/// A bundle: its `manifest.json`, for formats 6 and 7 then its file list's stored bytes, then stored
/// bytes for its chunks (format 7: version packs), its index and each chunking's table, in that order. The manifest's
/// SHA-256s, file names and stored sizes are set to the supplied bytes (what a bundle's author
/// controls anyway), its raw sizes and counts left as fuzzed.
pub fn bundle(data: &[u8]) {
    let mut parts = parts(data, 64).into_iter();
    let Some(manifest_bytes) = parts.next() else {
        return;
    };
    let listed = match with_named_list(manifest_bytes, &mut parts) {
        Some((json, list)) => decode_listed_manifest(&json, Some(list)),
        None => decode_manifest(manifest_bytes),
    };
    let mut manifest = match listed {
        Ok(manifest) => manifest,
        Err(err) => return names_a_file(&err, &["manifest.json", "files/"]),
    };
    let stored: Vec<&[u8]> = parts.collect();
    let mut next = stored.iter().copied().cycle();
    let mut take = |sha: &mut String, bytes: &mut u64| {
        let part = next.next().unwrap_or_default();
        *sha = sha256_hex(part);
        *bytes = part.len() as u64;
        part
    };
    let mut chunks = Vec::new();
    for entry in &mut manifest.chunks {
        chunks.push(take(&mut entry.sha256, &mut entry.bytes));
    }
    let index = manifest
        .index
        .as_mut()
        .map(|entry| take(&mut entry.sha256, &mut entry.bytes));
    let mut tables = Vec::new();
    for entry in &mut manifest.chunkings {
        tables.push((entry.chunker, take(&mut entry.sha256, &mut entry.bytes)));
    }
    // A refusal names the bundle file at fault, or the repository file whose text failed its
    // check.
    let mut files: Vec<String> = vec!["manifest.json".into()];
    files.extend(manifest.files.iter().map(|f| f.path.clone()));
    files.extend(manifest.chunks.iter().map(|c| c.file.clone()));
    files.extend(manifest.index.iter().map(|i| i.file.clone()));
    files.extend(manifest.chunkings.iter().map(|c| c.file.clone()));
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let check = |result: Result<(), Error>| {
        if let Err(err) = result {
            names_a_file(&err, &files);
        }
    };
    check(manifest.read_all(&chunks).map(drop));
    if let Some(stored) = index {
        check(manifest.open_index(stored).and_then(|(entry, blob)| {
            routelens_engine::retrieval::lexical::fts::blob::decode(&entry.file, &blob).map(drop)
        }));
    }
    for (chunker, stored) in tables {
        check(manifest.open_chunking(chunker, stored).map(drop));
    }
    check(manifest.open_chunking(Chunker::Window, &[]).map(drop));
}

/// A manifest naming a file list (format 6), rewritten to name the next part by its hash, with
/// that part; `None` for any other manifest (or one that is not JSON), left to `decode_manifest`.
fn with_named_list<'d>(
    manifest: &[u8],
    parts: &mut impl Iterator<Item = &'d [u8]>,
) -> Option<(Vec<u8>, &'d [u8])> {
    let mut value: serde_json::Value = serde_json::from_slice(manifest).ok()?;
    let entry = value.get_mut("file_list")?.as_object_mut()?;
    let list = parts.next().unwrap_or_default();
    let sha = sha256_hex(list);
    entry.insert("file".into(), format!("files/{sha}.deflate").into());
    entry.insert("sha256".into(), sha.into());
    entry.insert("bytes".into(), (list.len() as u64).into());
    Some((serde_json::to_vec(&value).ok()?, list))
}

/// A routing run file (`routelens route --record`), replayed when it reads, and a rerank run
/// file.
pub fn run_file(data: &[u8]) {
    let Some(text) = text(data) else { return };
    match RunFile::from_json("run.json", text) {
        Err(err) => names_a_file(&err, &["run.json"]),
        Ok(file) => replay(&file),
    }
    if let Err(err) =
        routelens_engine::remote::rerank::record::RerankRunFile::from_json("rerank.json", text)
    {
        names_a_file(&err, &["rerank.json"]);
    }
}

/// A run file that reads replays (`routelens route --decider replay:`) over a tree of its own
/// ranked paths, one step per recorded exchange and one more at most, whatever its settings,
/// responses and `partial` say.
fn replay(file: &RunFile) {
    let paths: Vec<&str> = file.run.paths.iter().take(64).map(String::as_str).collect();
    let tree = DirTree::from_paths(&paths);
    // Settings that cannot route are refused by name, before any step.
    let Ok(mut session) = Session::replay(file, &tree) else {
        return;
    };
    let (mut replayer, mut clock) = (Replayer::new(file), ManualClock::default());
    for _ in 0..=file.exchanges.len() {
        if !session.step(&mut replayer, &mut clock, &|| false) {
            break;
        }
    }
    session.cancel("the fuzzer stopped");
    drop(session.file().to_json());
}

/// A decision API reply: two bytes of status, a byte saying which of `Retry-After` and
/// `retry-after-ms` are present and whether the question was a route choice or a Jev score,
/// then those headers' values and the body.
pub fn decision_reply(data: &[u8]) {
    let [high, low, flags, rest @ ..] = data else {
        return;
    };
    let status = u16::from_be_bytes([*high, *low]) % 600;
    let mut fields = parts(rest, 3).into_iter().map(text);
    let (Some(Some(after)), Some(Some(after_ms)), Some(Some(body))) =
        (fields.next(), fields.next(), fields.next())
    else {
        return;
    };
    let retry_after = (flags & 1 != 0).then_some(after);
    let retry_after_ms = (flags & 2 != 0).then_some(after_ms);
    let request = if flags & 4 == 0 {
        route_request()
    } else {
        score_request()
    };
    // Every reply is either a response or a typed error: both are fine; neither may panic.
    let _ = routelens_engine::remote::route::protocol::decode_reply(
        &request,
        status,
        retry_after,
        retry_after_ms,
        body,
    );
}

/// A router's question over three options and "none".
fn route_request() -> Request {
    let criteria = Criteria(
        ["option_0", "option_1", "option_2", NONE_KEY]
            .iter()
            .map(|key| (key.to_string(), format!("folder {key}")))
            .collect(),
    );
    Request {
        state: "User question: where is the parser?".into(),
        model: DEFAULT_MODEL.into(),
        questions: BTreeMap::from([(
            ROUTE_QUESTION.to_string(),
            Question::Choice {
                instructions: "Pick the folder.".into(),
                criteria,
            },
        )]),
    }
}

/// The Jev judge's question over two candidates.
fn score_request() -> Request {
    let candidate = |chunk: usize, file: &str, content: &str| Candidate {
        chunk,
        name: file.into(),
        file: file.into(),
        start_line: 1,
        end_line: 1,
        content: content.into(),
    };
    let batch = [
        candidate(0, "a.rs", "fn parse() {}"),
        candidate(1, "b.rs", "fn b() {}"),
    ];
    routelens_engine::remote::rerank::jev::batch_request(
        "where is the parser?",
        0,
        &batch,
        DEFAULT_MODEL,
    )
}

/// `routelens pack`'s ranking file and gold file.
pub fn pack_inputs(data: &[u8]) {
    use routelens_engine::delivery::context::{parse_gold, parse_ranking};
    let [ranking, gold] = parts(data, 2)[..] else {
        return;
    };
    if let Some(ranking) = text(ranking) {
        if let Err(err) = parse_ranking("ranking.txt", ranking) {
            names_a_file(&err, &["ranking.txt"]);
        }
    }
    if let Some(gold) = text(gold) {
        if let Err(err) = parse_gold("gold.json", gold) {
            names_a_file(&err, &["gold.json"]);
        }
    }
}

/// A bundle's question set.
pub fn question_set(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Err(err) =
        routelens_engine::load::question_set::parse_question_set("questions.jsonl", text)
    {
        names_a_file(&err, &["questions.jsonl"]);
    }
}

/// A published site's `site.json` and `CHECKSUMS`.
pub fn site(data: &[u8]) {
    use routelens_engine::publish::site::{Checksums, SiteIndex};
    let [index, checksums] = parts(data, 2)[..] else {
        return;
    };
    if let Err(err) = SiteIndex::from_json("site.json", index) {
        names_a_file(&err, &["site.json"]);
    }
    if let Some(checksums) = text(checksums) {
        if let Err(err) = Checksums::parse("CHECKSUMS", checksums) {
            names_a_file(&err, &["CHECKSUMS"]);
        }
    }
}

/// A live study export, a grep plan and a file of issue texts: the other JSON documents a
/// reader opens.
pub fn documents(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Err(err) =
        routelens_engine::live::evidence::LiveStudyExport::from_json("live.json", text)
    {
        names_a_file(&err, &["live.json"]);
    }
    if let Err(err) = routelens_engine::remote::rerank::plan::parse_plan("plan.json", text) {
        names_a_file(&err, &["plan.json"]);
    }
    if let Err(err) = routelens_engine::parse_issue_texts("issues.jsonl", text) {
        names_a_file(&err, &["issues.jsonl"]);
    }
}

/// The permalink: any query string gives settings and notices, and the settings written back
/// read again to themselves without a notice.
pub fn permalink(data: &[u8]) {
    let Some(query) = text(data) else { return };
    let (settings, _) = routelens_app::from_query(query);
    let written = routelens_app::to_query(&settings);
    let (again, notices) = routelens_app::from_query(&written);
    assert!(notices.is_empty(), "{written:?} read back with {notices:?}");
    assert_eq!(settings, again, "{query:?} → {written:?}");
}

/// The split index's files (bundle format 5): each part of the input is decoded as the base
/// file, a table page or a pack by its first bytes (the reader's decoders behind its hash
/// checks, which fuzzed bytes cannot pass), over a corpus of up to 64 files.
pub fn split_index(data: &[u8]) {
    for (at, part) in parts(data, 16).into_iter().enumerate() {
        let file = format!("index/part-{at}.deflate");
        if let Err(err) =
            routelens_engine::retrieval::lexical::fts::split::decode_any(&file, part, 64)
        {
            names_a_file(&err, &[&file]);
        }
    }
}
