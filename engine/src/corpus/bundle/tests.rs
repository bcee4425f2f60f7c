//! The bundle format's unit tests: encoding, decoding and verification together.

use super::*;
use crate::checksum::sha256_hex;
use crate::error::Error;

fn input(files: &[(&str, &str)]) -> BundleInput {
    BundleInput {
        source: "demo".into(),
        commit: Some("0123abc".into()),
        tool_version: "routelens test".into(),
        excluded: [(ExclusionReason::Hidden, 3), (ExclusionReason::Binary, 1)].into(),
        excluded_files: vec![ExcludedFile {
            path: "logo.png".into(),
            reason: ExclusionReason::Binary,
        }],
        files: files
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect(),
        ..BundleInput::default()
    }
}

/// Small chunks, in format 4's layout (the manifest lists the files; most tests below read it).
fn small_chunks() -> BundleOptions {
    BundleOptions {
        chunk_target_bytes: 16,
        ..format_4()
    }
}

fn format_4() -> BundleOptions {
    BundleOptions {
        list_files_apart: false,
        ..BundleOptions::default()
    }
}

const FILES: &[(&str, &str)] = &[
    ("src/main.rs", "fn main() {}\n"),
    ("README.md", "# Demo\nno newline at end"),
    ("src/lib.rs", "pub mod a;\npub mod b;\n"),
    ("empty.txt", ""),
];

#[test]
fn round_trips_through_bytes() {
    let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
    let names: Vec<&str> = encoded.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names[0], MANIFEST_FILE);
    assert!(names[1..].iter().all(|name| name.starts_with("chunks/")));
    let manifest = decode_manifest(&encoded.files[0].bytes).unwrap();
    assert_eq!(manifest, encoded.manifest);
    assert_eq!(
        manifest.paths(),
        ["README.md", "empty.txt", "src/lib.rs", "src/main.rs"]
    );
    let readme = manifest.file("README.md").unwrap();
    assert_eq!((readme.bytes, readme.lines), (24, 2));
    assert_eq!(manifest.file("empty.txt").unwrap().lines, 0);
    assert_eq!(manifest.file("src/lib.rs").unwrap().lines, 2);
    assert_eq!(manifest.excluded[&ExclusionReason::Hidden], 3);
    // 24 bytes alone; then 0 + 22 (> 16 only after the empty file); then 13.
    assert_eq!(manifest.chunks.len(), 3);
    let stored: Vec<&[u8]> = encoded.files[1..].iter().map(|f| &f.bytes[..]).collect();
    let mut texts = manifest.read_all(&stored).unwrap();
    texts.sort();
    let mut expected: Vec<(String, String)> = FILES
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    expected.sort();
    assert_eq!(texts, expected);
    assert_eq!(manifest.raw_bytes(), 24 + 13 + 22);
    assert_eq!(
        manifest.tree().find("src").unwrap().files,
        ["lib.rs", "main.rs"]
    );
}

#[test]
fn one_chunk_serves_one_file() {
    let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
    let manifest = &encoded.manifest;
    let entry = manifest.file("src/main.rs").unwrap();
    let chunk_file = &manifest.chunks[entry.chunk as usize].file;
    let stored = &encoded
        .files
        .iter()
        .find(|f| &f.name == chunk_file)
        .unwrap()
        .bytes;
    let chunk = manifest.open_chunk(entry.chunk as usize, stored).unwrap();
    assert_eq!(
        manifest.file_text(&chunk, "src/main.rs").unwrap(),
        "fn main() {}\n"
    );
    let wrong = manifest.file_text(&chunk, "README.md").unwrap_err();
    assert!(wrong.to_string().contains("stored in chunk 0"), "{wrong}");
}

#[test]
fn refuses_tampered_chunks_and_files_naming_them() {
    let encoded = encode_bundle(input(FILES), format_4()).unwrap();
    let manifest = &encoded.manifest;
    assert_eq!(manifest.chunks.len(), 1);
    let mut stored = encoded.files[1].bytes.clone();
    stored[0] ^= 1;
    let error = manifest.open_chunk(0, &stored).unwrap_err();
    assert!(matches!(&error, Error::ManifestHash { file, .. } if file == &manifest.chunks[0].file));
    assert!(error.to_string().contains("SHA-256 mismatch"), "{error}");
    // A manifest whose file hash is wrong: the chunk passes, the file is refused by name.
    let mut altered = manifest.clone();
    altered.files[2].sha256 = Some("0".repeat(64));
    let chunk = altered.open_chunk(0, &encoded.files[1].bytes).unwrap();
    let error = altered.file_text(&chunk, "src/lib.rs").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("src/lib.rs: SHA-256 mismatch"),
        "{error}"
    );
    assert!(altered.read_all(&[&encoded.files[1].bytes]).is_err());
}

#[test]
fn index_blob_is_compressed_hashed_named_and_verified() {
    let mut bundle = input(FILES);
    let blob = b"blob ".repeat(40);
    bundle.index = Some((blob.clone(), "test/1".into()));
    let encoded = encode_bundle(bundle, format_4()).unwrap();
    let manifest = decode_manifest(&encoded.files[0].bytes).unwrap();
    let entry = manifest.index.clone().unwrap();
    let stored = &encoded.files.last().unwrap().bytes;
    assert_eq!(
        entry.file,
        format!("index/{}.tantivy.deflate", sha256_hex(stored))
    );
    assert_eq!(encoded.files.last().unwrap().name, entry.file);
    assert_eq!(entry.raw_bytes, Some(blob.len() as u64));
    assert!(stored.len() < blob.len());
    let (opened, raw) = manifest.open_index(stored).unwrap();
    assert_eq!((opened.format.as_str(), raw), ("test/1", blob));
    let mut damaged = stored.clone();
    damaged.push(0);
    let error = manifest.open_index(&damaged).unwrap_err();
    assert!(error.to_string().starts_with(&entry.file), "{error}");
    let raw = manifest.raw_bytes();
    assert_eq!(
        manifest.stored_bytes(10),
        10 + manifest.chunks[0].bytes + entry.bytes
    );
    assert!(raw > 0);
}

#[test]
fn reads_a_format_1_manifest_with_a_raw_index() {
    let mut value = manifest_value();
    value["format_version"] = 1.into();
    let sha = sha256_hex(b"blob");
    value["index"] = serde_json::json!({
        "file": format!("index/{sha}.tantivy"),
        "sha256": sha,
        "bytes": 4,
        "format": "test/1",
    });
    let manifest = decode_manifest(value.to_string().as_bytes()).unwrap();
    let (entry, raw) = manifest.open_index(b"blob").unwrap();
    assert_eq!((entry.raw_bytes, raw), (None, b"blob".to_vec()));
    // A raw index must not carry the compressed name, nor the reverse.
    value["index"]["file"] = format!("index/{sha}.tantivy.deflate").into();
    assert!(decode_manifest(value.to_string().as_bytes()).is_err());
}

#[test]
fn an_index_added_later_gives_the_same_bundle() {
    let level = small_chunks().compression_level;
    let mut with = input(FILES);
    with.index = Some((b"blob".to_vec(), "test/1".into()));
    let at_once = encode_bundle(with, small_chunks()).unwrap();
    let later = encode_bundle(input(FILES), small_chunks())
        .unwrap()
        .with_index(StoredIndex::new(b"blob", "test/1".into(), level))
        .unwrap();
    assert_eq!(later, at_once);
    // Replacing an index drops the old blob's file.
    let other = StoredIndex::new(b"other", "test/2".into(), level);
    let other_bytes = other.file.bytes.clone();
    let replaced = at_once.with_index(other).unwrap();
    assert_eq!(replaced.files.len(), later.files.len());
    let old = &later.manifest.index.as_ref().unwrap().file;
    assert!(!replaced.files.iter().any(|file| &file.name == old));
    let manifest = decode_manifest(&replaced.files[0].bytes).unwrap();
    assert_eq!(
        manifest.open_index(&other_bytes).unwrap().0.format,
        "test/2"
    );
}

#[test]
fn chunks_compressed_by_several_threads_give_the_same_bundle() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("src/f{i:02}.rs"),
                format!("fn f{i}() {{}}\n").repeat(i % 7 + 1),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let whole = encode_bundle(input(&files), small_chunks()).unwrap();
    assert!(whole.manifest.chunks.len() > 10);
    let pending = PendingBundle::prepare(input(&files), small_chunks()).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| while pending.compress_next() {});
        }
    });
    assert!(!pending.compress_next(), "every chunk was claimed");
    assert_eq!(pending.finish().unwrap(), whole);
    // Nobody else helping: finish compresses them all itself.
    let alone = PendingBundle::prepare(input(&files), small_chunks()).unwrap();
    assert_eq!(alone.finish().unwrap(), whole);
}

#[test]
fn refuses_bad_inputs() {
    let twice = input(&[("a", "x"), ("a", "y")]);
    let error = encode_bundle(twice, format_4()).unwrap_err();
    assert!(error.to_string().contains("listed twice"), "{error}");
    let hidden = input(&[(".env", "x")]);
    let error = encode_bundle(hidden, format_4()).unwrap_err();
    assert!(
        error.to_string().starts_with(".env: field policy"),
        "{error}"
    );
    let binary = BundleInput {
        files: vec![SourceFile {
            path: "a.bin".into(),
            bytes: vec![0, 1],
        }],
        ..BundleInput::default()
    };
    assert!(encode_bundle(binary, format_4()).is_err());
}

fn manifest_value() -> serde_json::Value {
    let encoded = encode_bundle(input(FILES), small_chunks()).unwrap();
    serde_json::from_slice(&encoded.files[0].bytes).unwrap()
}

fn decode_error(value: &serde_json::Value) -> String {
    decode_manifest(&serde_json::to_vec(value).unwrap())
        .unwrap_err()
        .to_string()
}

#[test]
fn refuses_malformed_manifests() {
    assert!(decode_manifest(b"{")
        .unwrap_err()
        .to_string()
        .contains("invalid JSON"));
    let mut value = manifest_value();
    value["format_version"] = 8.into();
    assert!(
        decode_error(&value)
            .contains("bundle format 8; this build reads formats [1, 2, 3, 4, 5, 6, 7]"),
        "{}",
        decode_error(&value)
    );
    // A split index's base file must be named by its hash, and stored compressed.
    let mut value = manifest_value();
    let hash = "a".repeat(64);
    value["split_index"] = serde_json::json!({
        "file": format!("index/{hash}.tantivy.deflate"),
        "sha256": hash,
        "bytes": 1,
        "raw_bytes": 1,
        "format": "split-1/tantivy-0.27/unicode61+positions/3",
    });
    assert!(
        decode_error(&value).contains("split_index.file"),
        "{}",
        decode_error(&value)
    );
    value["split_index"]["file"] = format!("index/{hash}.base.deflate").into();
    value["split_index"]["raw_bytes"] = serde_json::Value::Null;
    assert!(
        decode_error(&value).contains("split_index.raw_bytes"),
        "{}",
        decode_error(&value)
    );
    let mut value = manifest_value();
    value["surprise"] = 1.into();
    assert!(decode_error(&value).contains("unknown field"));
    let mut value = manifest_value();
    value["files"][1]["path"] = "../etc/passwd".into();
    assert!(decode_error(&value).contains("files[1].path"));
    let mut value = manifest_value();
    value["files"][1]["path"] = "A".into();
    assert!(decode_error(&value).contains("out of order"));
    let mut value = manifest_value();
    value["files"][0]["sha256"] = "XYZ".into();
    assert!(decode_error(&value).contains("files[0].sha256"));
    let mut value = manifest_value();
    value["files"][0]["chunk"] = 99.into();
    assert!(decode_error(&value).contains("chunk 99 does not exist"));
    let mut value = manifest_value();
    value["files"][0]["offset"] = u64::MAX.into();
    assert!(decode_error(&value).contains("does not fit"));
    let mut value = manifest_value();
    value["chunks"][0]["file"] = "chunks/other.deflate".into();
    assert!(decode_error(&value).contains("chunks[0].file"));
    let mut value = manifest_value();
    value["files"][0]["bytes"] = "many".into();
    assert!(decode_error(&value).contains("files[0].bytes"));
}

#[test]
fn counts_lines() {
    assert_eq!(count_lines(b""), 0);
    assert_eq!(count_lines(b"a"), 1);
    assert_eq!(count_lines(b"a\n"), 1);
    assert_eq!(count_lines(b"a\nb"), 2);
    assert_eq!(count_lines(b"\n\n"), 2);
}

fn code_chunk(
    path: &str,
    start: u32,
    end: u32,
    kind: &str,
    name: &str,
) -> crate::corpus::code_chunks::CodeChunk {
    crate::corpus::code_chunks::CodeChunk {
        path: path.into(),
        start_line: start,
        end_line: end,
        kind: kind.into(),
        name: name.into(),
        tokens: 7,
    }
}

#[test]
fn a_chunking_round_trips_and_is_refused_when_altered() {
    use crate::corpus::code_chunks::{BudgetCounter, Chunker};
    let encoded = encode_bundle(input(FILES), format_4()).unwrap();
    let chunks = vec![
        code_chunk("src/lib.rs", 1, 1, "module", ""),
        code_chunk("README.md", 1, 2, "section", "Demo"),
        code_chunk("src/lib.rs", 2, 2, "module", ""),
    ];
    let stored = encode_chunking(
        &encoded.manifest.files,
        (Chunker::Window, 254, BudgetCounter::Cl100k),
        &chunks,
        6,
    )
    .unwrap();
    let table = stored.file.bytes.clone();
    let encoded = encoded.with_chunkings(vec![stored]).unwrap();
    let json = &encoded
        .files
        .iter()
        .find(|f| f.name == MANIFEST_FILE)
        .unwrap()
        .bytes;
    let manifest = decode_manifest(json).unwrap();
    assert_eq!(manifest.format_version, FORMAT_VERSION);
    let entry = manifest.chunking(Chunker::Window).unwrap();
    assert_eq!(
        (entry.chunks, entry.budget, entry.counter.as_str()),
        (3, 254, "cl100k_base")
    );
    // Stored in the files' order: README.md first.
    let read = manifest.open_chunking(Chunker::Window, &table).unwrap();
    assert_eq!(
        read,
        [chunks[1].clone(), chunks[0].clone(), chunks[2].clone()]
    );
    // A changed byte is refused by name; a chunker the bundle lacks is named with what it has.
    let mut altered = table.clone();
    altered[3] ^= 1;
    let error = manifest
        .open_chunking(Chunker::Window, &altered)
        .unwrap_err();
    assert!(matches!(&error, Error::ManifestHash { file, .. } if file == &entry.file));
    let missing = manifest
        .chunking_or_error(Chunker::Structural)
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("no structural chunking; it has window"),
        "{missing}"
    );
    // A chunk of a file that is not in the bundle is refused when encoding.
    let stray = encode_chunking(
        &manifest.files,
        (Chunker::Window, 254, BudgetCounter::Cl100k),
        &[code_chunk("nope.rs", 1, 1, "window", "")],
        6,
    )
    .unwrap_err();
    assert!(stray.to_string().contains("nope.rs"), "{stray}");
}

#[test]
fn a_chunk_past_its_file_s_end_is_refused_naming_the_entry() {
    use crate::corpus::code_chunks::{BudgetCounter, Chunker};
    let encoded = encode_bundle(input(FILES), format_4()).unwrap();
    // src/lib.rs has 2 lines.
    let chunks = vec![code_chunk("src/lib.rs", 2, 3, "module", "")];
    let stored = encode_chunking(
        &encoded.manifest.files,
        (Chunker::Window, 254, BudgetCounter::Cl100k),
        &chunks,
        6,
    )
    .unwrap();
    let table = stored.file.bytes.clone();
    let encoded = encoded.with_chunkings(vec![stored]).unwrap();
    let error = encoded
        .manifest
        .open_chunking(Chunker::Window, &table)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("start[0]") && error.contains("not within src/lib.rs's 2 lines"),
        "{error}"
    );
}

/// A bundle of three chunks of [`FILES`] with their vectors stored at `precision`, and the
/// rows that went in (three unit vectors of dimension 4).
fn with_vectors(precision: Precision) -> (EncodedBundle, Vec<f32>) {
    use crate::corpus::code_chunks::{BudgetCounter, Chunker};
    let encoded = encode_bundle(input(FILES), format_4()).unwrap();
    let chunks = vec![
        code_chunk("src/lib.rs", 1, 1, "module", ""),
        code_chunk("README.md", 1, 2, "section", "Demo"),
        code_chunk("src/lib.rs", 2, 2, "module", ""),
    ];
    let mut stored = encode_chunking(
        &encoded.manifest.files,
        (Chunker::Window, 254, BudgetCounter::Minilm),
        &chunks,
        6,
    )
    .unwrap();
    let rows = vec![
        0.5,
        -0.5,
        0.5,
        0.5, //
        0.1,
        0.2,
        -0.3,
        0.927_361_8, //
        -1.0,
        0.0,
        0.0,
        0.0,
    ];
    let model = VectorModel {
        name: "m",
        weights_sha256: &"a".repeat(64),
    };
    let (entry, file) = store_vectors(model, &rows, 4, precision);
    stored.entry.vectors = Some(entry);
    stored.vectors_file = Some(file);
    (encoded.with_chunkings(vec![stored]).unwrap(), rows)
}

fn manifest_of(encoded: &EncodedBundle) -> Manifest {
    let json = &encoded
        .files
        .iter()
        .find(|f| f.name == MANIFEST_FILE)
        .unwrap()
        .bytes;
    decode_manifest(json).unwrap()
}

fn vectors_file(encoded: &EncodedBundle) -> Vec<u8> {
    encoded
        .files
        .iter()
        .find(|f| f.name.starts_with("vectors/"))
        .unwrap()
        .bytes
        .clone()
}

#[test]
fn vectors_round_trip_at_each_precision_within_its_error() {
    use crate::corpus::code_chunks::Chunker;
    // f32 exactly; f16 within half a unit in the last place (2^-11 relative); int8 within half
    // a step of the row's largest magnitude / 127.
    for (precision, error) in [
        (Precision::F32, 0.0),
        (Precision::F16, 1.0 / 2048.0),
        (Precision::Int8, 0.5 / 127.0),
    ] {
        let (encoded, rows) = with_vectors(precision);
        let manifest = manifest_of(&encoded);
        assert_eq!(manifest.format_version, FORMAT_VERSION);
        let stored = vectors_file(&encoded);
        assert_eq!(
            stored.len(),
            3 * precision.row_bytes(4),
            "{}",
            precision.name()
        );
        let (back, model) = manifest.open_vectors(Chunker::Window, &stored).unwrap();
        let back = back.widened();
        assert_eq!(model.model().name, "m");
        for (a, b) in rows.iter().zip(&back) {
            assert!(
                (a - b).abs() <= error,
                "{}: {a} became {b}",
                precision.name()
            );
        }
    }
}

#[test]
fn a_vector_number_that_is_not_finite_is_refused_naming_the_file_and_the_vector() {
    use crate::corpus::code_chunks::Chunker;
    // The third vector's second number made an infinity (f32) or every exponent bit set (f16:
    // an infinity, then a NaN), with the manifest's hash made to match the altered bytes.
    let cases: [(Precision, usize, &[u8]); 3] = [
        (Precision::F32, 4, &f32::INFINITY.to_le_bytes()),
        (Precision::F16, 2, &0x7c00u16.to_le_bytes()),
        (Precision::F16, 2, &0xfe01u16.to_le_bytes()),
    ];
    for (precision, width, number) in cases {
        let (encoded, _) = with_vectors(precision);
        let mut manifest = manifest_of(&encoded);
        let mut stored = vectors_file(&encoded);
        let at = (2 * 4 + 1) * width;
        stored[at..at + width].copy_from_slice(number);
        let entry = manifest.chunkings[0].vectors.as_mut().unwrap();
        entry.sha256 = crate::checksum::sha256_hex(&stored);
        let name = entry.file.clone();
        let refused = manifest
            .open_vectors(Chunker::Window, &stored)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains(&name)
                && refused.contains("vector 2")
                && refused.contains("not finite"),
            "{}: {refused}",
            precision.name()
        );
    }
}

#[test]
fn altered_short_or_unlisted_vectors_are_refused_naming_the_file() {
    use crate::corpus::code_chunks::Chunker;
    let (encoded, _) = with_vectors(Precision::F16);
    let manifest = manifest_of(&encoded);
    let mut stored = vectors_file(&encoded);
    let name = manifest.chunkings[0].vectors.as_ref().unwrap().file.clone();
    stored[3] ^= 1;
    let altered = manifest
        .open_vectors(Chunker::Window, &stored)
        .unwrap_err()
        .to_string();
    assert!(altered.contains(&name), "{altered}");
    // A digest the caller computed: its own bytes' is accepted as hashing here would be, any
    // other refused naming the file, even over the right bytes.
    let right = vectors_file(&encoded);
    let digest = crate::checksum::sha256_hex(&right);
    assert_eq!(
        manifest
            .open_vectors_digested(Chunker::Window, &right, Some(&digest))
            .unwrap()
            .0,
        manifest.open_vectors(Chunker::Window, &right).unwrap().0
    );
    let wrong = crate::checksum::sha256_hex(&stored);
    let refused = manifest
        .open_vectors_digested(Chunker::Window, &right, Some(&wrong))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains(&name) && refused.contains(&wrong),
        "{refused}"
    );
    // The right hash but a count that does not fit the bytes.
    let mut short = manifest.clone();
    let entry = short.chunkings[0].vectors.as_mut().unwrap();
    entry.count = 2;
    short.chunkings[0].chunks = 2;
    let refused = short
        .open_vectors(Chunker::Window, &vectors_file(&encoded))
        .unwrap_err()
        .to_string();
    assert!(refused.contains("take 16"), "{refused}");
    // A chunking without vectors says how to get them.
    let mut none = manifest.clone();
    none.chunkings[0].vectors = None;
    let missing = none
        .open_vectors(Chunker::Window, &[])
        .unwrap_err()
        .to_string();
    assert!(missing.contains("--embed window"), "{missing}");
    // A manifest naming its vectors file wrongly does not open.
    let mut json = serde_json::to_value(&manifest).unwrap();
    json["chunkings"][0]["vectors"]["file"] = "vectors/x.f16".into();
    let bad = decode_manifest(&serde_json::to_vec(&json).unwrap())
        .unwrap_err()
        .to_string();
    assert!(bad.contains("chunkings[0].vectors"), "{bad}");
}

#[test]
fn question_vectors_are_keyed_by_their_text_hash() {
    let (encoded, _) = with_vectors(Precision::F16);
    let model = VectorModel {
        name: "m",
        weights_sha256: &"a".repeat(64),
    };
    let text = "Where is the cache evicted?";
    let key = crate::checksum::sha256(text.as_bytes());
    let encoded = encoded
        .with_question_vectors(store_question_vectors(
            model,
            &[(key, vec![0.0, 1.0, 0.0, 0.0])],
            4,
        ))
        .unwrap();
    let manifest = manifest_of(&encoded);
    let stored = encoded
        .files
        .iter()
        .find(|f| f.name.ends_with(".questions"))
        .unwrap();
    let (vectors, _) = manifest.open_question_vectors(&stored.bytes).unwrap();
    assert_eq!(
        vectors,
        [(sha256_hex(text.as_bytes()), vec![0.0, 1.0, 0.0, 0.0])]
    );
}

/// Format 6: the manifest without its files, the file list apart, each chunk's header with its
/// files' hashes; read back, the same files, texts and hashes as format 4.
#[test]
fn format_6_lists_files_apart_and_hashes_them_in_chunk_headers() {
    let options = BundleOptions {
        chunk_target_bytes: 16,
        ..BundleOptions::default()
    };
    let encoded = encode_bundle(input(FILES), options).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&encoded.files[0].bytes).unwrap();
    assert_eq!(json["format_version"], 6);
    assert!(json.get("files").is_none(), "{json}");
    let list = encoded.manifest.file_list.clone().unwrap();
    assert_eq!(
        (encoded.files[1].name.as_str(), list.count),
        (list.file.as_str(), 4)
    );
    let json_bytes = &encoded.files[0].bytes;
    assert_eq!(file_list_of(json_bytes).unwrap(), Some(list.file.clone()));
    // Read without its list, a format-6 manifest is refused, never a bundle of no files.
    let alone = decode_manifest(json_bytes).unwrap_err().to_string();
    assert!(
        alone.contains(&list.file) && alone.contains("not read with it"),
        "{alone}"
    );
    let manifest = encoded.read_back().unwrap();
    assert_eq!(manifest, encoded.manifest);
    let head = manifest_head(json_bytes).unwrap();
    assert_eq!((head.source.as_str(), head.files), ("demo", 4));
    assert_eq!(head.commit.as_deref(), Some("0123abc"));
    let whole = encode_bundle(input(FILES), small_chunks())
        .unwrap()
        .manifest;
    let listed = |m: &Manifest| -> Vec<(String, u64, u64)> {
        m.files
            .iter()
            .map(|f| (f.path.clone(), f.bytes, f.lines))
            .collect()
    };
    assert_eq!(listed(&manifest), listed(&whole));
    let stored: Vec<&[u8]> = manifest
        .chunks
        .iter()
        .map(|c| encoded.file(&c.file).unwrap())
        .collect();
    let mut texts = manifest.read_all(&stored).unwrap();
    texts.sort();
    let mut expected: Vec<(String, String)> = FILES
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    expected.sort();
    assert_eq!(texts, expected);
    for file in &manifest.files {
        let chunk = manifest
            .open_chunk(file.chunk as usize, stored[file.chunk as usize])
            .unwrap();
        let want = whole.file(&file.path).unwrap().sha256.clone().unwrap();
        assert_eq!(manifest.file_sha256(&chunk, &file.path).unwrap(), want);
    }
    // The list must be the one named, and hold what the manifest says.
    let list_bytes = encoded.file(&list.file).unwrap();
    let mut damaged = list_bytes.to_vec();
    damaged[0] ^= 1;
    let error = decode_listed_manifest(json_bytes, Some(&damaged))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&list.file) && error.contains("SHA-256"),
        "{error}"
    );
    let mut miscounted = json.clone();
    miscounted["file_list"]["count"] = 5.into();
    assert!(decode_error(&miscounted).contains("file_list.count"));
    let mut listed_too = json.clone();
    listed_too["files"] = serde_json::to_value(&whole.files).unwrap();
    assert!(decode_error(&listed_too).contains("lists its files apart"));
    // A chunk whose header disagrees with the manifest's count is named.
    let mut recount = json.clone();
    recount["chunks"][0]["files"] = 9.into();
    recount["file_list"]["count"] = (4 - manifest.chunks[0].files.unwrap() + 9).into();
    let wrong = decode_listed_manifest(&serde_json::to_vec(&recount).unwrap(), Some(list_bytes))
        .unwrap_err()
        .to_string();
    assert!(
        wrong.contains("file_list.count") || wrong.contains("raw_bytes"),
        "{wrong}"
    );
}

/// Format 6 with an index split keeps format 6.
#[test]
fn a_split_index_keeps_format_6() {
    let encoded = encode_bundle(input(FILES), BundleOptions::default()).unwrap();
    let entry = IndexEntry {
        file: format!("index/{}.base.deflate", "a".repeat(64)),
        sha256: "a".repeat(64),
        bytes: 1,
        raw_bytes: Some(1),
        format: "split-1/x".into(),
    };
    let split = encoded.with_split_index(entry, Vec::new()).unwrap();
    assert_eq!(split.manifest.format_version, LISTED_FORMAT_VERSION);
    let whole = encode_bundle(input(FILES), format_4()).unwrap();
    assert_eq!(whole.manifest.format_version, FORMAT_VERSION);
}

/// A merged site's bundle names a shared store, and its files are found there.
#[test]
fn a_store_locates_the_files_and_must_be_a_relative_folder() {
    let encoded = encode_bundle(input(FILES), BundleOptions::default()).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&encoded.files[0].bytes).unwrap();
    json["store"] = "../store".into();
    let bytes = serde_json::to_vec(&json).unwrap();
    let list = encoded.manifest.file_list.clone().unwrap().file;
    assert_eq!(
        file_list_of(&bytes).unwrap(),
        Some(format!("../store/{list}"))
    );
    let manifest = decode_listed_manifest(&bytes, encoded.file_list_bytes()).unwrap();
    assert_eq!(
        manifest.located(&manifest.chunks[0].file),
        format!("../store/{}", manifest.chunks[0].file)
    );
    for bad in [
        "/store",
        "store/..",
        "../",
        "./store",
        "",
        "store",
        "../../store",
        "../a/../b",
    ] {
        json["store"] = bad.into();
        assert!(decode_error(&json).contains("field store"), "{bad}");
    }
    let mut old = manifest_value();
    old["store"] = "../store".into();
    assert!(decode_error(&old).contains("format 6 only"));
    assert!(is_store_path("../store/a") && !is_store_path("../../x") && !is_store_path("a/../b"));
}

/// A format-7 bundle whose files lie in a version pack beside other versions of them: each file
/// read back by its own entry, and a manifest that misplaces one refused by name.
#[cfg(feature = "version-packs")]
#[test]
fn a_version_pack_gives_each_bundle_its_own_versions() {
    let encoded = encode_bundle(input(FILES), BundleOptions::default()).unwrap();
    let list = encoded.file_list_bytes();
    let own = decode_listed_manifest(&encoded.files[0].bytes, list).unwrap();
    let texts: Vec<(String, String)> = {
        let chunks: Vec<&[u8]> = own
            .chunks
            .iter()
            .map(|c| {
                let file = encoded.files.iter().find(|f| f.name == c.file).unwrap();
                file.bytes.as_slice()
            })
            .collect();
        own.read_all(&chunks).unwrap()
    };
    // Each path's other version first, then this bundle's.
    let others: Vec<String> = texts
        .iter()
        .map(|(_, t)| format!("{t}// older\n"))
        .collect();
    let mut entries: Vec<&[u8]> = Vec::new();
    for ((_, text), other) in texts.iter().zip(&others) {
        entries.push(other.as_bytes());
        entries.push(text.as_bytes());
    }
    let raw = encode_pack(&entries);
    let stored = compress_pack(&raw, 3);
    let sha256 = sha256_hex(&stored);
    let mut json: serde_json::Value = serde_json::from_slice(&encoded.files[0].bytes).unwrap();
    json["format_version"] = VERSIONED_FORMAT_VERSION.into();
    let own_entries: Vec<u32> = (0..texts.len() as u32).map(|at| 2 * at + 1).collect();
    json["chunks"] = serde_json::json!([{
        "file": format!("chunks/{sha256}.zst"),
        "sha256": sha256,
        "bytes": stored.len(),
        "raw_bytes": raw.len(),
        "files": texts.len(),
        "entries": own_entries,
    }]);
    let decode =
        |json: &serde_json::Value| decode_listed_manifest(&serde_json::to_vec(json).unwrap(), list);
    let manifest = decode(&json).unwrap();
    assert_eq!(manifest.read_all(&[&stored]).unwrap(), texts);
    let chunk = manifest.open_chunk(0, &stored).unwrap();
    let (path, text) = &texts[1];
    assert_eq!(manifest.file_text(&chunk, path).unwrap(), text);
    assert_eq!(
        manifest.file_sha256(&chunk, path).unwrap(),
        sha256_hex(text.as_bytes())
    );

    // Another version's entry: its size, then (same size) its hash, differ from the list's.
    let mut shifted = json.clone();
    shifted["chunks"][0]["entries"] = serde_json::json!([0, 3, 5, 7]);
    let wrong = decode(&shifted).unwrap().read_all(&[&stored]).unwrap_err();
    assert!(wrong.to_string().contains("in its version pack"), "{wrong}");
    // An entry past the pack's, out of order, or in format 6.
    let mut beyond = json.clone();
    beyond["chunks"][0]["entries"] = serde_json::json!([1, 3, 5, 8]);
    let error = decode(&beyond).unwrap().open_chunk(0, &stored).unwrap_err();
    assert!(error.to_string().contains("entry 8, but"), "{error}");
    let mut unordered = json.clone();
    unordered["chunks"][0]["entries"] = serde_json::json!([3, 1, 5, 7]);
    assert!(decode(&unordered)
        .unwrap_err()
        .to_string()
        .contains("out of order"));
    let mut old = json.clone();
    old["format_version"] = LISTED_FORMAT_VERSION.into();
    assert!(decode(&old)
        .unwrap_err()
        .to_string()
        .contains("format 6 does not have"));
    // A pack named as a DEFLATE chunk.
    let mut misnamed = json.clone();
    misnamed["chunks"][0]["file"] = format!(
        "chunks/{}.deflate",
        json["chunks"][0]["sha256"].as_str().unwrap()
    )
    .into();
    assert!(decode(&misnamed).unwrap_err().to_string().contains(".zst"));
}

/// An index left for the reader to build is named by its format, in format 7, and only where
/// no index is stored.
#[test]
fn a_derived_index_stands_in_for_a_stored_one() {
    let encoded = encode_bundle(input(FILES), BundleOptions::default()).unwrap();
    let list = encoded.file_list_bytes();
    let mut json: serde_json::Value = serde_json::from_slice(&encoded.files[0].bytes).unwrap();
    json["derived_index"] = "tantivy-0.27/unicode61+positions/3".into();
    let decode =
        |json: &serde_json::Value| decode_listed_manifest(&serde_json::to_vec(json).unwrap(), list);
    assert!(decode(&json)
        .unwrap_err()
        .to_string()
        .contains("field derived_index"));
    json["format_version"] = VERSIONED_FORMAT_VERSION.into();
    let manifest = decode(&json).unwrap();
    assert_eq!(
        manifest.derived_index.as_deref(),
        Some("tantivy-0.27/unicode61+positions/3")
    );
    json["index"] = serde_json::json!({
        "file": format!("index/{}.tantivy.deflate", "a".repeat(64)),
        "sha256": "a".repeat(64), "bytes": 1, "raw_bytes": 1, "format": "x"
    });
    assert!(decode(&json)
        .unwrap_err()
        .to_string()
        .contains("stores no index"));
}
