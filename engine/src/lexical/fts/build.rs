//! Building the index blob (native only: tantivy's `IndexWriter` runs on threads).

use std::path::{Path, PathBuf};

use tantivy::directory::RamDirectory;
use tantivy::{Directory, Index, IndexSettings, IndexWriter, TantivyDocument};

use super::{blob, index_error, schema, Tokenizer, INDEX_NAME};
use crate::error::{Error, Result};

/// The writer's memory budget. One thread; a corpus that outgrows it is written as several
/// segments and merged back to one.
const WRITER_BUDGET_BYTES: usize = 96 * 1024 * 1024;

/// Indexes `(path, text)` pairs with the default `unicode61` tokenizer and returns the blob:
/// files sorted by path (the manifest's order; a file's id is its position), one merged segment,
/// every index file packed as [`blob`] describes. Refuses a path given twice.
pub fn build_index_blob<P: AsRef<str>, T: AsRef<str>>(files: &[(P, T)]) -> Result<Vec<u8>> {
    build(files, Tokenizer::Unicode61, usize::MAX)
}

/// [`build_index_blob`] with another tokenizer.
pub fn build_index_blob_with<P: AsRef<str>, T: AsRef<str>>(
    files: &[(P, T)],
    tokenizer: Tokenizer,
) -> Result<Vec<u8>> {
    build(files, tokenizer, usize::MAX)
}

/// The builder, committing after every `commit_every` documents (tests use it to force several
/// segments and so the merge).
fn build<P: AsRef<str>, T: AsRef<str>>(
    files: &[(P, T)],
    tokenizer: Tokenizer,
    commit_every: usize,
) -> Result<Vec<u8>> {
    let err = |error: tantivy::TantivyError| index_error(INDEX_NAME, error);
    let mut sorted: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_ref(), text.as_ref()))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(Error::field(
            pair[0].0,
            "path",
            "listed twice in the index input",
        ));
    }
    let (schema, fields) = schema(tokenizer);
    let directory = RamDirectory::create();
    let index = Index::create(directory.clone(), schema, IndexSettings::default()).map_err(err)?;
    index
        .tokenizers()
        .register(tokenizer.name(), tokenizer.analyzer());
    let mut writer: IndexWriter = index
        .writer_with_num_threads(1, WRITER_BUDGET_BYTES)
        .map_err(err)?;
    for (id, (path, text)) in sorted.iter().enumerate() {
        let mut document = TantivyDocument::new();
        document.add_text(fields.path, path);
        document.add_text(fields.content, text);
        document.add_u64(fields.file_id, id as u64);
        document.add_u64(fields.path_tokens, tokenizer.count_tokens(path));
        document.add_u64(fields.content_tokens, tokenizer.count_tokens(text));
        writer.add_document(document).map_err(err)?;
        if (id + 1) % commit_every == 0 {
            writer.commit().map_err(err)?;
        }
    }
    writer.commit().map_err(err)?;
    let segments = index.searchable_segment_ids().map_err(err)?;
    if segments.len() > 1 {
        writer.merge(&segments).wait().map_err(err)?;
    }
    writer.garbage_collect_files().wait().map_err(err)?;
    writer.wait_merging_threads().map_err(err)?;
    let meta = index.load_metas().map_err(err)?;
    if meta.segments.len() > 1 {
        return Err(index_error(
            INDEX_NAME,
            format!("{} segments after merging", meta.segments.len()),
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
    segment_files.sort();
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
    let paths: Vec<&str> = sorted.iter().map(|(path, _)| *path).collect();
    Ok(blob::encode(
        &tokenizer.index_format(),
        sorted.len() as u64,
        blob::paths_sha256(&paths),
        &index_files,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::fts::FtsIndex;

    #[test]
    fn merges_several_segments_into_one() {
        let files: Vec<(String, String)> = (0..7)
            .map(|i| {
                (
                    format!("f{i}.txt"),
                    format!("alpha beta{i} {}", "gamma ".repeat(i)),
                )
            })
            .collect();
        let paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
        let merged = build(&files, Tokenizer::Unicode61, 2).unwrap();
        let (header, index_files) = blob::decode("i", &merged).unwrap();
        assert_eq!(header.docs, 7);
        // meta.json plus one segment's files, all with the same segment id.
        let segments: std::collections::BTreeSet<&str> = index_files[1..]
            .iter()
            .map(|(name, _)| name.split('.').next().unwrap_or(""))
            .collect();
        assert_eq!(segments.len(), 1, "{index_files:?}");
        let single =
            FtsIndex::open("i", &build_index_blob(&files).unwrap(), paths.clone()).unwrap();
        let merged = FtsIndex::open("i", &merged, paths).unwrap();
        for query in ["gamma", "beta3 alpha", "alpha"] {
            assert_eq!(
                merged.fts5(query, 16).unwrap(),
                single.fts5(query, 16).unwrap(),
                "{query}"
            );
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
            &build_index_blob_with(&files, Tokenizer::Code).unwrap(),
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
