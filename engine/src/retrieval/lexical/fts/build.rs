//! Building the index blob: natively the texts are tokenized on a second thread; in the browser
//! (a merged site's bundle that stores no index, `Manifest::derived_index`) on the writer's own.

use crate::stable_sort;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::RamDirectory;
use tantivy::schema::document::{Document, ReferenceValue, ReferenceValueLeaf, Value};
use tantivy::schema::Field;
use tantivy::tokenizer::{TextAnalyzer, TokenizerManager};
use tantivy::{Directory, Index, IndexSettings, SingleSegmentIndexWriter};

use super::grouped::{Grouper, Replay};
use super::grouping::GroupingQueue;
use super::{blob, index_error, schema, Fields, IndexSpec, INDEX_NAME};
use crate::error::{Error, Result};

/// The writer's memory budget. With one segment written at the end it only sizes the initial
/// term table (tantivy gives it up to a third: 2^17 slots here), which doubles as terms arrive;
/// the whole corpus stays in memory until the end, as the caller already holds every text. The
/// demo corpus (68,000 terms) built 5–10 % faster than with a 96 MB budget, whose 2^19-slot table
/// falls out of the cache.
const WRITER_BUDGET_BYTES: usize = 6 * 1024 * 1024;

/// Indexes `(path, text)` pairs as [`IndexSpec::default`] says (`unicode61`, positions) and
/// returns the blob:
/// files sorted by path (the manifest's order; a file's id is its position), one segment, every
/// index file packed as [`blob`] describes. Refuses a path given twice.
pub fn build_index_blob<P: AsRef<str>, T: AsRef<str>>(files: &[(P, T)]) -> Result<Vec<u8>> {
    build_index_blob_with(files, IndexSpec::default())
}

/// [`build_index_blob`] with another tokenizer, or without positions.
pub fn build_index_blob_with<P: AsRef<str>, T: AsRef<str>>(
    files: &[(P, T)],
    spec: IndexSpec,
) -> Result<Vec<u8>> {
    let owned = files
        .iter()
        .map(|(path, text)| (path.as_ref().to_string(), text.as_ref().to_string()))
        .collect();
    build_index_blob_owned(owned, spec)
}

/// [`build_index_blob_with`] over texts it may keep, so that tantivy reads them in place
/// instead of copying each into a `TantivyDocument` (the bundler's path).
pub fn build_index_blob_owned(
    mut files: Vec<(String, String)>,
    spec: IndexSpec,
) -> Result<Vec<u8>> {
    let err = |error: tantivy::TantivyError| index_error(INDEX_NAME, error);
    stable_sort::by(&mut files, |a, b| a.0.cmp(&b.0));
    if let Some(pair) = files.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(Error::field(
            &pair[0].0,
            "path",
            "listed twice in the index input",
        ));
    }
    let files: Arc<[(String, String)]> = files.into();
    let fields = schema(spec).1;
    let directory = RamDirectory::create();
    let replay = Replay::new(spec.tokenizer.analyzer());
    let mut writer = new_writer(&directory, spec, replay.clone())?;
    // Each file's texts are tokenized and grouped (see [`grouped`]) ahead of the writer by a
    // second thread, helped by this one when it falls behind ([`grouping`]); their token counts
    // are the exact row lengths FTS5's scoring needs.
    let queue = GroupingQueue::new(&files);
    let grouper = move || Grouper::new(spec.tokenizer, spec.positions);
    let mut feed = |grouper: &mut Grouper| {
        let fed = (0..files.len()).try_for_each(|id| {
            let (path, content) = queue
                .take(id, grouper)
                .ok_or_else(|| index_error(INDEX_NAME, "the tokenizing thread stopped"))?;
            let (path_tokens, content_tokens) = (path.tokens(), content.tokens());
            replay.offer([path, content]);
            writer
                .add_document(FileDocument {
                    files: Arc::clone(&files),
                    id,
                    fields,
                    path_tokens,
                    content_tokens,
                })
                .map_err(err)
        });
        if fed.is_err() {
            queue.abandon();
        }
        fed
    };
    #[cfg(not(target_arch = "wasm32"))]
    std::thread::scope(|scope| {
        let helped = &queue;
        scope.spawn(move || helped.help(&mut grouper()));
        feed(&mut grouper())
    })?;
    // No thread in the browser's worker: `take` groups each file itself.
    #[cfg(target_arch = "wasm32")]
    feed(&mut grouper())?;
    let index_files = written_files(writer, &directory)?;
    let paths: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
    Ok(blob::encode(
        &spec.index_format(),
        files.len() as u64,
        blob::paths_sha256(&paths),
        &index_files,
    ))
}

/// A writer of one segment into `directory`, cutting the text fields with `analyzer`.
fn new_writer(
    directory: &RamDirectory,
    spec: IndexSpec,
    analyzer: impl Into<TextAnalyzer>,
) -> Result<SingleSegmentIndexWriter<FileDocument>> {
    let tokenizers = TokenizerManager::default();
    tokenizers.register(spec.tokenizer.name(), analyzer.into());
    // One segment written on the calling thread: no indexing threads and no merge (with two
    // threads the merge back to one segment cost more than the second thread saved). The
    // writer is public but doc-hidden in tantivy; Cargo.lock pins the version and the index
    // format names it.
    Index::builder()
        .schema(schema(spec).0)
        .settings(IndexSettings {
            // The document store (empty: no field is stored) is compressed on a thread of its
            // own by default, and the browser's worker has none.
            docstore_compress_dedicated_thread: !cfg!(target_arch = "wasm32"),
            ..IndexSettings::default()
        })
        .tokenizers(tokenizers)
        .single_segment_index_writer(directory.clone(), WRITER_BUDGET_BYTES)
        .map_err(|error| index_error(INDEX_NAME, error))
}

/// Finishes the segment and returns the index's files: `meta.json`, then the segment's files
/// sorted by name.
pub(in crate::retrieval::lexical) fn written_files<D: Document>(
    writer: SingleSegmentIndexWriter<D>,
    directory: &RamDirectory,
) -> Result<Vec<(String, Vec<u8>)>> {
    let err = |error: tantivy::TantivyError| index_error(INDEX_NAME, error);
    let index = writer.finalize().map_err(err)?;
    let meta = index.load_metas().map_err(err)?;
    if meta.segments.len() > 1 {
        return Err(index_error(
            INDEX_NAME,
            format!("{} segments written", meta.segments.len()),
        ));
    }
    let read_error = |path: &Path, error: String| {
        index_error(INDEX_NAME, format!("{}: {error}", path.display()))
    };
    let meta_path = Path::new("meta.json");
    let mut index_files = vec![(
        "meta.json".to_string(),
        directory
            .atomic_read(meta_path)
            .map_err(|error| read_error(meta_path, error.to_string()))?,
    )];
    let mut segment_files: Vec<PathBuf> = meta.list_segment_files().into_iter().collect();
    stable_sort::sort(&mut segment_files);
    for path in segment_files {
        if !directory
            .exists(&path)
            .map_err(|error| read_error(&path, error.to_string()))?
        {
            continue;
        }
        let bytes = directory
            .open_read(&path)
            .and_then(|slice| {
                slice.read_bytes().map_err(|error| {
                    tantivy::directory::error::OpenReadError::wrap_io_error(error, path.clone())
                })
            })
            .map_err(|error| read_error(&path, error.to_string()))?;
        index_files.push((
            path.to_string_lossy().into_owned(),
            bytes.as_slice().to_vec(),
        ));
    }
    Ok(index_files)
}

/// One file as tantivy's writer reads it: its fields borrowed from the shared texts.
struct FileDocument {
    files: Arc<[(String, String)]>,
    id: usize,
    fields: Fields,
    path_tokens: u64,
    content_tokens: u64,
}

impl Document for FileDocument {
    type Value<'a> = FileValue<'a>;
    type FieldsValuesIter<'a> = std::array::IntoIter<(Field, FileValue<'a>), 5>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        let (path, content) = &self.files[self.id];
        let fields = self.fields;
        [
            (fields.path, FileValue::Text(path)),
            (fields.content, FileValue::Text(content)),
            (fields.file_id, FileValue::Number(self.id as u64)),
            (fields.path_tokens, FileValue::Number(self.path_tokens)),
            (
                fields.content_tokens,
                FileValue::Number(self.content_tokens),
            ),
        ]
        .into_iter()
    }
}

/// A [`FileDocument`] field's value.
#[derive(Debug, Clone, Copy)]
enum FileValue<'a> {
    Text(&'a str),
    Number(u64),
}

impl<'a> Value<'a> for FileValue<'a> {
    type ArrayIter = std::iter::Empty<Self>;
    type ObjectIter = std::iter::Empty<(&'a str, Self)>;

    fn as_value(&self) -> ReferenceValue<'a, Self> {
        match *self {
            FileValue::Text(text) => ReferenceValueLeaf::Str(text).into(),
            FileValue::Number(number) => ReferenceValueLeaf::U64(number).into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::fts::{tokens_of, FtsIndex, Tokenizer, MAX_TOKEN_BYTES};

    #[test]
    fn writes_one_segment_in_path_order_with_exact_counts() {
        // Given out of order.
        let files: Vec<(String, String)> = (0..263)
            .rev()
            .map(|i| {
                (
                    format!("f{i:04}.txt"),
                    format!("alpha beta{i} {}", "gamma ".repeat(i % 9)),
                )
            })
            .collect();
        let mut paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
        paths.sort();
        let blob = build_index_blob(&files).unwrap();
        let (header, index_files) = blob::decode("i", &blob).unwrap();
        assert_eq!(header.docs, files.len() as u64);
        assert_eq!(header.paths_sha256, blob::paths_sha256(&paths));
        // meta.json plus one segment's files, all with the same segment id.
        let segments: std::collections::BTreeSet<&str> = index_files[1..]
            .iter()
            .map(|(name, _)| name.split('.').next().unwrap_or(""))
            .collect();
        assert_eq!(segments.len(), 1, "{index_files:?}");
        let index = FtsIndex::open("i", &blob, paths).unwrap();
        // gamma occurs i % 9 times in f{i}: the highest counts rank first, ties by path.
        let found = index.fts5("gamma", 3).unwrap();
        let ranked: Vec<&str> = found.results.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(ranked, ["f0008.txt", "f0017.txt", "f0026.txt"]);
        let beta = index.fts5("beta261", 16).unwrap();
        assert_eq!(beta.results.len(), 1);
        assert_eq!(beta.results[0].0, "f0261.txt");
    }

    /// The files of an index over `files` built the plain way: the analyzer itself in the
    /// writer, every count the analyzer's, on one thread.
    fn analyzed_index_files(files: &[(String, String)], spec: IndexSpec) -> Vec<Vec<u8>> {
        let tokenizer = spec.tokenizer;
        let files: Arc<[(String, String)]> = files.into();
        let directory = RamDirectory::create();
        let mut writer = new_writer(&directory, spec, tokenizer.analyzer()).unwrap();
        for (id, (path, text)) in files.iter().enumerate() {
            let document = FileDocument {
                files: Arc::clone(&files),
                id,
                fields: schema(spec).1,
                path_tokens: tokens_of(&mut tokenizer.analyzer(), path).len() as u64,
                content_tokens: tokens_of(&mut tokenizer.analyzer(), text).len() as u64,
            };
            writer.add_document(document).unwrap();
        }
        // Segment files differ in name only (a random segment id); meta.json names it.
        written_files(writer, &directory).unwrap()[1..]
            .iter()
            .map(|(_, bytes)| bytes.clone())
            .collect()
    }

    #[test]
    fn grouped_tokens_build_the_bytes_the_analyzer_builds() {
        let words = [
            "alpha",
            "Beta",
            "gamma_delta",
            "Café",
            "x86_64",
            "ßtraße",
            "日本語",
            "a",
        ];
        let long = "z".repeat(MAX_TOKEN_BYTES + 3);
        let mut files: Vec<(String, String)> = (0..296)
            .map(|i| {
                let text: Vec<&str> = (0..i % 23 + 1)
                    .map(|j| match (i * 7 + j * 3) % 11 {
                        9 => long.as_str(),
                        10 => "\n  ",
                        k => words[k % words.len()],
                    })
                    .collect();
                (format!("src/d{}/File_{i:03}.rs", i % 5), text.join(" "))
            })
            .collect();
        files.sort();
        for spec in IndexSpec::ALL {
            let blob = build_index_blob_with(&files, spec).unwrap();
            let grouped: Vec<Vec<u8>> = blob::decode("i", &blob).unwrap().1[1..]
                .iter()
                .map(|(_, bytes)| bytes.to_vec())
                .collect();
            let analyzed = analyzed_index_files(&files, spec);
            assert_eq!(grouped.len(), analyzed.len());
            for (at, (grouped, analyzed)) in grouped.iter().zip(&analyzed).enumerate() {
                // Not assert_eq: a mismatch would print the whole file.
                assert!(grouped == analyzed, "{spec:?}: segment file {at} differs");
            }
        }
    }

    #[test]
    fn the_code_tokenizer_finds_identifiers_unicode61_misses() {
        let files = [
            ("src/config.rs", "fn parseConfigFiles() {}"),
            ("src/other.rs", "fn unrelated() {}"),
        ];
        let paths: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        let code = FtsIndex::open(
            "i",
            &build_index_blob_with(&files, IndexSpec::of(Tokenizer::Code, true)).unwrap(),
            paths.clone(),
        )
        .unwrap();
        assert_eq!(code.tokenizer(), Tokenizer::Code);
        let plain = FtsIndex::open("i", &build_index_blob(&files).unwrap(), paths).unwrap();
        let query = "Parsing of files fails";
        let found = code.fts5(query, 8).unwrap();
        assert_eq!(found.results.len(), 1, "{found:?}");
        assert_eq!(found.results[0].0, "src/config.rs");
        // unicode61 keeps `parseconfigfiles` whole and does not stem: nothing matches.
        assert!(plain.fts5(query, 8).unwrap().results.is_empty());
    }

    #[test]
    fn refuses_duplicate_paths_and_indexes_nothing_fine() {
        let error = build_index_blob(&[("a", "x"), ("a", "y")]).unwrap_err();
        assert!(error.to_string().contains("listed twice"), "{error}");
        let empty: [(&str, &str); 0] = [];
        let index = FtsIndex::open("i", &build_index_blob(&empty).unwrap(), Vec::new()).unwrap();
        assert!(index.is_empty());
        assert!(index.fts5("anything", 16).unwrap().results.is_empty());
    }
}
