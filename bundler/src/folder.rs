//! A bundle folder on disk: written whole or not at all, and read back with every byte verified
//! by the engine.
//!
//! **Writing** ([`write_folder`]): the files go into a hidden temporary folder beside the target
//! (`.<name>.tmp-<pid>`), and the folder is then renamed into place. A folder that already holds
//! a bundle (it has a `manifest.json`) is renamed aside first and removed after, so readers see
//! the old bundle or the new one, never a mix, and a bundler stopped half-way leaves only its
//! hidden temporary folder. A folder that exists and is neither empty nor a bundle is refused,
//! never replaced. Files are not synced to disk (a bundle is a build output, like cargo's
//! `target/`): after a power loss a bundle may hold truncated files, which every reader refuses
//! by name when their hashes do not match the manifest.
//!
//! **Reading** ([`BundleFolder`]): the manifest first (the engine checks its shape), then only
//! what the arms need: the index blob for the BM25 arms, every chunk for the `rg` arms. Each is
//! verified against the manifest's SHA-256, and an error names the file inside the folder
//! (`demo/chunks/….deflate: SHA-256 mismatch: …`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use routelens_engine::corpus::bundle::MANIFEST_FILE;
use routelens_engine::corpus::bundle::{decode_listed_manifest, file_list_of};
use routelens_engine::corpus::code_chunks::{Chunker, CodeChunk};
use routelens_engine::load::question_set::{verify_corpus, PinnedFile};
use routelens_engine::retrieval::lexical::chunk_index::ChunkIndex;
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;
use routelens_engine::retrieval::lexical::fts::split::PackFile;
use routelens_engine::retrieval::lexical::LexicalIndex;
use routelens_engine::{BundleFile, Error, Manifest, TextCorpus};

use crate::failure::Failure;
use crate::model::{EmbedRun, ModelChoice};

/// A bundle folder whose manifest has been read and checked.
#[derive(Debug)]
pub struct BundleFolder {
    /// The folder as given.
    pub dir: PathBuf,
    /// The decoded manifest.
    pub manifest: Manifest,
    /// The manifest's size in bytes.
    pub manifest_bytes: u64,
}

impl BundleFolder {
    /// Reads and checks `dir/manifest.json`.
    pub fn open(dir: &Path) -> Result<BundleFolder, Failure> {
        std::fs::metadata(dir).map_err(|err| Failure::read(dir, err))?;
        let path = dir.join(MANIFEST_FILE);
        if !path.is_file() {
            return Err(Failure::Missing {
                path: dir.to_path_buf(),
                message: format!(
                    "not a bundle folder (no {MANIFEST_FILE}); build one with `routelens bundle`"
                ),
            });
        }
        let bytes = std::fs::read(&path).map_err(|err| Failure::read(&path, err))?;
        // Format 6 lists its files apart, in a file the manifest names.
        let listed = file_list_of(&bytes).map_err(|source| self_error(dir, source))?;
        let list = match &listed {
            Some(list) => Some(read_in(dir, list)?),
            None => None,
        };
        let manifest = decode_listed_manifest(&bytes, list.as_deref())
            .map_err(|source| self_error(dir, source))?;
        Ok(BundleFolder {
            dir: dir.to_path_buf(),
            manifest,
            manifest_bytes: bytes.len() as u64,
        })
    }

    /// Every file of the bundle but `manifest.json` and its question set, as the manifest names
    /// them, each read and verified: the file list, the index (a split index's base file, pages
    /// and packs), every chunk and file, every chunking's table, chunk index and vectors, the
    /// question set's vectors.
    pub fn verified_files(&self) -> Result<Vec<String>, Failure> {
        let bad = |source| self_error(&self.dir, source);
        self.read_texts()?;
        let manifest = &self.manifest;
        let mut names: Vec<String> = manifest.file_list.iter().map(|l| l.file.clone()).collect();
        names.extend(self.index_files()?.into_iter().map(|f| f.file));
        names.extend(manifest.chunks.iter().map(|c| c.file.clone()));
        for chunking in &manifest.chunkings {
            let table = self.open_chunking(chunking.chunker)?;
            if chunking.index.is_some() {
                self.open_chunk_index(chunking.chunker, &table)?;
            }
            names.push(chunking.file.clone());
            names.extend(chunking.index.iter().map(|i| i.file.clone()));
            if let Some(vectors) = &chunking.vectors {
                let bytes = self.read(&vectors.file)?;
                manifest
                    .open_vectors(chunking.chunker, &bytes)
                    .map_err(bad)?;
                names.push(vectors.file.clone());
            }
        }
        if let Some(vectors) = &manifest.question_vectors {
            let bytes = self.read(&vectors.file)?;
            manifest.open_question_vectors(&bytes).map_err(bad)?;
            names.push(vectors.file.clone());
        }
        Ok(names)
    }

    /// Refuses the bundle when it is not the corpus a question set pins (see
    /// `verify_corpus`), the files' hashes read from the chunks where the manifest lacks them.
    pub fn verify_pinned(&self, pinned: &[PinnedFile]) -> Result<(), Failure> {
        let hashes = self.file_hashes()?;
        verify_corpus(
            pinned,
            &self.manifest,
            &self.dir.display().to_string(),
            &mut |path| Ok(hashes.get(path).cloned().unwrap_or_default()),
        )?;
        Ok(())
    }

    /// Every file's SHA-256, in manifest order: the manifest's, or (format 6) from the headers
    /// of the chunks, each chunk read and verified.
    pub fn file_hashes(&self) -> Result<BTreeMap<String, String>, Failure> {
        let manifest = &self.manifest;
        let mut hashes = BTreeMap::new();
        let mut opened = None;
        for file in &manifest.files {
            if let Some(sha256) = &file.sha256 {
                hashes.insert(file.path.clone(), sha256.clone());
                continue;
            }
            let at = file.chunk as usize;
            let chunk = match &opened {
                Some((index, chunk)) if *index == at => chunk,
                _ => {
                    let entry = &manifest.chunks[at];
                    let stored = self.read(&entry.file)?;
                    let chunk = manifest
                        .open_chunk(at, &stored)
                        .map_err(|source| self_error(&self.dir, source))?;
                    &opened.insert((at, chunk)).1
                }
            };
            let sha256 = manifest
                .file_sha256(chunk, &file.path)
                .map_err(|source| self_error(&self.dir, source))?;
            hashes.insert(file.path.clone(), sha256);
        }
        Ok(hashes)
    }

    /// Reads a file of the folder by its name in the manifest (found in a merged site's shared
    /// store when the manifest names one).
    pub fn read(&self, name: &str) -> Result<Vec<u8>, Failure> {
        read_in(&self.dir, &self.manifest.located(name))
    }

    /// Whether the bundle has a search index, whole, split, or built from its texts.
    pub fn has_index(&self) -> bool {
        LexicalIndex::file_of(&self.manifest).is_some() || self.manifest.derived_index.is_some()
    }

    /// Reads, verifies and opens the search index: the blob, or a split index's base file with
    /// every pack (each verified against the base file).
    pub fn open_index(&self) -> Result<LexicalIndex, Failure> {
        let mut index = self.open_index_base()?;
        // Every page, then every pack the pages name.
        while let LexicalIndex::Split(split) = &index {
            let missing: Vec<PackFile> = split
                .known_files()
                .into_iter()
                .filter(|(_, added)| !added)
                .map(|(file, _)| file)
                .collect();
            if missing.is_empty() {
                break;
            }
            self.add_files(&mut index, &missing)?;
        }
        Ok(index)
    }

    /// Reads, verifies and opens the index blob, or only a split index's base file (its packs
    /// are added by [`BundleFolder::add_files`] as a search needs them, as the page does).
    /// A merged site's snapshot that stores no index has it built from its texts.
    pub fn open_index_base(&self) -> Result<LexicalIndex, Failure> {
        if self.manifest.derived_index.is_some() {
            return LexicalIndex::derive(&self.manifest, self.read_all_texts()?)
                .map_err(|source| self_error(&self.dir, source));
        }
        let (file, _) = LexicalIndex::file_of(&self.manifest).ok_or_else(|| {
            self_error(
                &self.dir,
                Error::field(MANIFEST_FILE, "index", "this bundle has no search index"),
            )
        })?;
        let stored = self.read(file)?;
        LexicalIndex::from_bundle(&self.manifest, &stored)
            .map_err(|source| self_error(&self.dir, source))
    }

    /// Reads and adds these pages or packs of a split index, each verified.
    pub fn add_files(&self, index: &mut LexicalIndex, files: &[PackFile]) -> Result<(), Failure> {
        for pack in files {
            let stored = self.read(&pack.file)?;
            index
                .add_file(&pack.file, &stored)
                .map_err(|source| self_error(&self.dir, source))?;
        }
        Ok(())
    }

    /// The index's files: the blob, or the base file and every page and pack (all read and
    /// verified).
    pub fn index_files(&self) -> Result<Vec<PackFile>, Failure> {
        let Some((file, bytes)) = LexicalIndex::file_of(&self.manifest) else {
            return Ok(Vec::new());
        };
        let mut files = vec![PackFile {
            file: file.to_string(),
            bytes,
        }];
        if let LexicalIndex::Split(split) = self.open_index()? {
            files.extend(split.known_files().into_iter().map(|(file, _)| file));
        }
        Ok(files)
    }

    /// Reads and verifies the table of `chunker`'s chunking.
    pub fn open_chunking(&self, chunker: Chunker) -> Result<Vec<CodeChunk>, Failure> {
        let entry = self
            .manifest
            .chunking_or_error(chunker)
            .map_err(|source| self_error(&self.dir, source))?;
        let stored = self.read(&entry.file)?;
        self.manifest
            .open_chunking(chunker, &stored)
            .map_err(|source| self_error(&self.dir, source))
    }

    /// Reads, verifies and opens the chunk index of `chunker`'s chunking over its `chunks`.
    pub fn open_chunk_index(
        &self,
        chunker: Chunker,
        chunks: &[CodeChunk],
    ) -> Result<ChunkIndex, Failure> {
        let entry = self
            .manifest
            .chunk_index_entry(chunker)
            .map_err(|source| self_error(&self.dir, source))?;
        let stored = self.read(&entry.file)?;
        let (entry, blob) = self
            .manifest
            .open_chunk_index(chunker, &stored)
            .map_err(|source| self_error(&self.dir, source))?;
        ChunkIndex::open(&entry.file, &blob, chunks).map_err(|source| self_error(&self.dir, source))
    }

    /// Opens the chunkings of `chunkers` (each table and index verified), for searching.
    pub fn open_chunkings(&self, chunkers: &[Chunker]) -> Result<OpenChunkings, Failure> {
        let mut open = OpenChunkings::new();
        for &chunker in chunkers {
            let table = self.open_chunking(chunker)?;
            let index = self.open_chunk_index(chunker, &table)?;
            open.insert(chunker, table, index);
        }
        Ok(open)
    }

    /// Adds to `open` the vectors of `chunkers` and the bundle's question vectors (each file
    /// verified, another model's refused), and, when one of `questions` has no stored vector,
    /// the embedding model `model` names to embed it.
    pub fn open_vectors(
        &self,
        open: &mut OpenChunkings,
        chunkers: &[Chunker],
        (questions, model): (&[&str], ModelChoice),
    ) -> Result<(), Failure> {
        let failed = |source| self_error(&self.dir, source);
        for &chunker in chunkers {
            let vectors = self.manifest.vectors_entry(chunker).map_err(failed)?;
            let stored = self.read(&vectors.file)?;
            open.open_vectors(&self.manifest, chunker, (&stored, None))
                .map_err(failed)?;
        }
        if let Some(entry) = &self.manifest.question_vectors {
            let stored = self.read(&entry.file)?;
            open.open_question_vectors(&self.manifest, &stored)
                .map_err(failed)?;
        }
        if questions.iter().any(|q| !open.has_stored_question(q)) {
            let embedder = model.load(EmbedRun::Questions)?;
            open.set_embedder(Box::new(move |text: &str| {
                Ok(embedder.embed(&[text])?.remove(0))
            }));
        }
        Ok(())
    }

    /// Reads and verifies every chunk and every file, and prepares them for literal search.
    pub fn read_texts(&self) -> Result<TextCorpus, Failure> {
        Ok(TextCorpus::new(self.read_all_texts()?))
    }

    /// Every file's path and text, in path order, each chunk and file verified.
    pub fn read_all_texts(&self) -> Result<Vec<(String, String)>, Failure> {
        let chunks = self
            .manifest
            .chunks
            .iter()
            .map(|chunk| self.read(&chunk.file))
            .collect::<Result<Vec<_>, _>>()?;
        self.manifest
            .read_all(&chunks)
            .map_err(|source| self_error(&self.dir, source))
    }

    /// Reads and verifies the texts of those of `paths` the bundle holds, opening only the chunks
    /// they are stored in; paths it does not hold are left out of the map.
    pub fn read_files<'p>(
        &self,
        paths: impl IntoIterator<Item = &'p str>,
    ) -> Result<BTreeMap<String, String>, Failure> {
        let mut by_chunk: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for path in paths {
            if let Some(entry) = self.manifest.file(path) {
                by_chunk.entry(entry.chunk as usize).or_default().push(path);
            }
        }
        let mut texts = BTreeMap::new();
        for (index, paths) in by_chunk {
            let Some(entry) = self.manifest.chunks.get(index) else {
                continue;
            };
            let stored = self.read(&entry.file)?;
            let chunk = self
                .manifest
                .open_chunk(index, &stored)
                .map_err(|source| self_error(&self.dir, source))?;
            for path in paths {
                let text = self
                    .manifest
                    .file_text(&chunk, path)
                    .map_err(|source| self_error(&self.dir, source))?;
                texts.insert(path.to_string(), text.to_string());
            }
        }
        Ok(texts)
    }

    /// Whether every chunk, the index and every chunking's table and index exist with the sizes
    /// the manifest lists (a quick check, not a verification).
    pub fn files_present(&self) -> bool {
        let sized = |name: &str, bytes: u64| {
            std::fs::metadata(self.dir.join(self.manifest.located(name)))
                .is_ok_and(|meta| meta.len() == bytes)
        };
        self.manifest
            .file_list
            .as_ref()
            .is_none_or(|list| sized(&list.file, list.bytes))
            && self
                .manifest
                .chunks
                .iter()
                .all(|chunk| sized(&chunk.file, chunk.bytes))
            && LexicalIndex::file_of(&self.manifest).is_none_or(|(file, bytes)| sized(file, bytes))
            && self.manifest.chunkings.iter().all(|chunking| {
                sized(&chunking.file, chunking.bytes)
                    && chunking
                        .index
                        .as_ref()
                        .is_none_or(|index| sized(&index.file, index.bytes))
            })
    }
}

/// Reads file `name` of bundle folder `dir`; a missing one is named as the bundle's.
fn read_in(dir: &Path, name: &str) -> Result<Vec<u8>, Failure> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => Failure::Bundle {
            dir: dir.to_path_buf(),
            source: Error::MissingFile {
                file: name.to_string(),
            },
        },
        _ => Failure::read(&path, err),
    })
}

fn self_error(dir: &Path, source: Error) -> Failure {
    Failure::Bundle {
        dir: dir.to_path_buf(),
        source,
    }
}

/// What kind of folder a writer makes, and so which existing folder it may replace: one holding
/// the kind's marker file (or an empty one).
#[derive(Debug, Clone, Copy)]
pub struct FolderKind {
    /// In messages: `bundle folder`, `site folder`.
    pub what: &'static str,
    /// The file every folder of this kind holds.
    pub marker: &'static str,
}

/// A bundle folder: it holds a `manifest.json`.
pub const BUNDLE: FolderKind = FolderKind {
    what: "bundle folder",
    marker: MANIFEST_FILE,
};

/// Writes the bundle's files as the folder `out`, atomically (see the module documentation).
/// Returns the number of bytes written.
pub fn write_folder(out: &Path, files: &[BundleFile]) -> Result<u64, Failure> {
    write_folder_of(BUNDLE, out, files)
}

/// Writes `files` as the folder `out` of kind `kind`, atomically (see the module documentation).
/// Returns the number of bytes written.
pub fn write_folder_of(kind: FolderKind, out: &Path, files: &[BundleFile]) -> Result<u64, Failure> {
    let mut folder = FolderWriter::begin(kind, out)?;
    for file in files {
        folder.add(&file.name, &file.bytes)?;
    }
    folder.finish()
}

/// A folder written file by file, for outputs too large to hold in memory at once (a merge of
/// many snapshots): the files go into the hidden temporary folder as they come, and
/// [`FolderWriter::finish`] renames it into place as [`write_folder_of`] does. Dropped
/// unfinished (an error on the way), it removes the temporary folder and leaves `out` as it was.
#[derive(Debug)]
pub struct FolderWriter {
    kind: FolderKind,
    out: PathBuf,
    parent: PathBuf,
    name: String,
    temp: PathBuf,
    written: u64,
    finished: bool,
}

impl FolderWriter {
    /// Checks `out` can take a folder of `kind` and makes the temporary folder beside it.
    pub fn begin(kind: FolderKind, out: &Path) -> Result<FolderWriter, Failure> {
        check_target_of(kind, out)?;
        let (parent, name) = split_target(out)?;
        std::fs::create_dir_all(&parent).map_err(|err| io(&parent, "creating", err))?;
        let temp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        if temp.exists() {
            std::fs::remove_dir_all(&temp).map_err(|err| io(&temp, "removing", err))?;
        }
        std::fs::create_dir(&temp).map_err(|err| io(&temp, "creating", err))?;
        Ok(FolderWriter {
            kind,
            out: out.to_path_buf(),
            parent,
            name,
            temp,
            written: 0,
            finished: false,
        })
    }

    /// Writes one file (`name` relative to the folder, `/`-separated).
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<(), Failure> {
        // The engine names the files; refuse anything that could leave the folder anyway.
        if name
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return Err(Failure::Usage(format!("refusing to write file {name:?}")));
        }
        let path = self.temp.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|err| io(dir, "creating", err))?;
        }
        write_bytes(&path, bytes)?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Renames the folder into place (an existing one of its kind is moved aside, then removed);
    /// returns the bytes written.
    pub fn finish(mut self) -> Result<u64, Failure> {
        let (out, temp) = (&self.out, &self.temp);
        let old = self
            .parent
            .join(format!(".{}.old-{}", self.name, std::process::id()));
        let replacing = out.exists();
        if replacing {
            std::fs::rename(out, &old).map_err(|err| io(out, "moving aside", err))?;
        }
        if let Err(err) = std::fs::rename(temp, out) {
            if replacing {
                let _ = std::fs::rename(&old, out);
            }
            return Err(io(
                out,
                &format!("renaming the new {} into", self.kind.what),
                err,
            ));
        }
        self.finished = true;
        if replacing {
            // The new folder is in place; a leftover old copy is only clutter.
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(self.written)
    }
}

impl Drop for FolderWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_dir_all(&self.temp);
        }
    }
}

/// Refuses an output that cannot take a bundle: a path with no folder name, an existing file, or
/// an existing folder that is neither empty nor a bundle. Commands call it before any work.
pub fn check_target(out: &Path) -> Result<(), Failure> {
    check_target_of(BUNDLE, out)
}

/// [`check_target`] for a folder of kind `kind`.
pub fn check_target_of(kind: FolderKind, out: &Path) -> Result<(), Failure> {
    split_target(out)?;
    match std::fs::symlink_metadata(out) {
        Ok(meta) if meta.is_dir() => {
            if !out.join(kind.marker).is_file() && !is_empty_dir(out)? {
                return Err(Failure::Usage(format!(
                    "{}: exists and is not a {} (no {}); refusing to replace it",
                    out.display(),
                    kind.what,
                    kind.marker
                )));
            }
            Ok(())
        }
        Ok(_) => Err(Failure::Usage(format!(
            "{}: exists and is not a folder; refusing to replace it",
            out.display()
        ))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(Failure::read(out, err)),
    }
}

/// The output folder's absolute path with its parent resolved (the folder itself may not exist
/// yet), or `None` when the parent does not exist either.
pub fn absolute_target(out: &Path) -> Option<PathBuf> {
    let (parent, name) = split_target(out).ok()?;
    Some(parent.canonicalize().ok()?.join(name))
}

/// Writes one small file atomically (a sibling temporary file, then a rename).
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let (parent, name) = split_target(path)?;
    let temp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = write_bytes(&temp, bytes)
        .and_then(|()| std::fs::rename(&temp, path).map_err(|err| io(path, "renaming into", err)));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn split_target(out: &Path) -> Result<(PathBuf, String), Failure> {
    let name = out
        .file_name()
        .and_then(|name| name.to_str())
        .filter(|name| !name.is_empty() && *name != "." && *name != "..")
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{}: the output needs a folder name of its own",
                out.display()
            ))
        })?;
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name.to_string()))
}

fn is_empty_dir(dir: &Path) -> Result<bool, Failure> {
    let mut entries = std::fs::read_dir(dir).map_err(|err| Failure::read(dir, err))?;
    Ok(entries.next().is_none())
}

fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut file = File::create(path).map_err(|err| io(path, "creating", err))?;
    file.write_all(bytes)
        .map_err(|err| io(path, "writing", err))
}

fn io(path: &Path, doing: &str, source: std::io::Error) -> Failure {
    Failure::Io {
        context: format!("{doing} {}", path.display()),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> BundleFile {
        BundleFile {
            name: name.into(),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn writes_replaces_and_refuses_foreign_folders() {
        let temp = tempfile::tempdir().unwrap();
        let out = temp.path().join("b");
        let first = [file("manifest.json", b"{}"), file("chunks/a.deflate", b"a")];
        assert_eq!(write_folder(&out, &first).unwrap(), 3);
        assert_eq!(std::fs::read(out.join("chunks/a.deflate")).unwrap(), b"a");
        let second = [
            file("manifest.json", b"{ }"),
            file("index/i.tantivy", b"ii"),
        ];
        write_folder(&out, &second).unwrap();
        assert!(!out.join("chunks").exists(), "the old bundle is gone");
        assert_eq!(std::fs::read(out.join("index/i.tantivy")).unwrap(), b"ii");
        // Nothing left beside it.
        let names: Vec<_> = std::fs::read_dir(temp.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["b"]);
        let foreign = temp.path().join("notes");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("todo.txt"), "keep me").unwrap();
        let error = write_folder(&foreign, &first).unwrap_err().to_string();
        assert!(error.contains("is not a bundle folder"), "{error}");
        assert_eq!(
            std::fs::read_to_string(foreign.join("todo.txt")).unwrap(),
            "keep me"
        );
        let bad = [file("../escape", b"x")];
        assert!(write_folder(&temp.path().join("c"), &bad).is_err());
        assert!(!temp.path().join("c").exists() && !temp.path().join("escape").exists());
    }
}
