//! Writing a bundle: files into chunks, hashes, the compressed index and `manifest.json`
//! (native only).

use crate::stable_sort;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::chunkings::{ChunkingEntry, Columns};
use super::listing::{encode_header, encode_list, header_len, Listed};
use super::vectors::{encode_question_rows, encode_rows, Precision, VectorModel, VectorsEntry};
use super::{
    compress, plan_chunks, plan_chunks_by_content, ChunkEntry, ExcludedFile, FileEntry,
    FileListEntry, IndexEntry, Manifest, SourceFile, DEFAULT_CHUNK_TARGET_BYTES,
    DEFAULT_COMPRESSION_LEVEL, FORMAT_VERSION, LISTED_FORMAT_VERSION, MANIFEST_FILE,
    SPLIT_FORMAT_VERSION,
};
use crate::checksum::sha256_hex;
use crate::corpus::code_chunks::{BudgetCounter, Chunker, CodeChunk};
use crate::corpus::policy::{Decision, ExclusionReason, Policy};
use crate::error::{Error, Result};

/// What the bundler hands [`encode_bundle`].
#[derive(Debug, Clone, Default)]
pub struct BundleInput {
    /// See [`Manifest::source`].
    pub source: String,
    /// See [`Manifest::commit`].
    pub commit: Option<String>,
    /// See [`Manifest::tool_version`].
    pub tool_version: String,
    /// The policy the files passed; [`encode_bundle`] checks every file against it.
    pub policy: Policy,
    /// See [`Manifest::excluded`].
    pub excluded: BTreeMap<ExclusionReason, u64>,
    /// See [`Manifest::excluded_files`].
    pub excluded_files: Vec<ExcludedFile>,
    /// The searchable files, in any order.
    pub files: Vec<SourceFile>,
    /// The index blob and its format string, when the bundle has an index.
    pub index: Option<(Vec<u8>, String)>,
}

/// Packing settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleOptions {
    /// Uncompressed bytes to aim for per chunk (default [`DEFAULT_CHUNK_TARGET_BYTES`], 256 KiB).
    pub chunk_target_bytes: usize,
    /// DEFLATE level 0–12 (default [`DEFAULT_COMPRESSION_LEVEL`], 1).
    pub compression_level: u8,
    /// Format 6 (the default): the file list apart, hashes in chunk headers, chunks cut by
    /// content. False writes format 4's layout, the manifest listing every file.
    pub list_files_apart: bool,
}

impl Default for BundleOptions {
    fn default() -> Self {
        BundleOptions {
            chunk_target_bytes: DEFAULT_CHUNK_TARGET_BYTES,
            compression_level: DEFAULT_COMPRESSION_LEVEL,
            list_files_apart: true,
        }
    }
}

/// One file of the bundle folder, ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// The name relative to the bundle folder (`manifest.json`, `chunks/….deflate`).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A bundle as values and as files.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedBundle {
    /// The manifest.
    pub manifest: Manifest,
    /// Every file of the folder: `manifest.json` first, then the chunks, then the index.
    pub files: Vec<BundleFile>,
}

/// Builds a bundle from searchable files: sorts them, packs them into chunks, hashes everything
/// and writes the manifest. Refuses a duplicate path or a file the policy excludes, naming it.
pub fn encode_bundle(input: BundleInput, options: BundleOptions) -> Result<EncodedBundle> {
    PendingBundle::prepare(input, options)?.finish()
}

/// A bundle packed and hashed, whose chunks are still to compress: [`encode_bundle`] in two
/// steps, so that other threads can compress chunks meanwhile ([`PendingBundle::compress_next`]).
/// The bundler's index thread does, once its index is built, so the build's two threads finish
/// together. The result does not depend on which thread compressed which chunk.
#[derive(Debug)]
pub struct PendingBundle {
    /// The manifest without its chunks (they are listed by [`PendingBundle::finish`]).
    manifest: Manifest,
    index: Option<(Vec<u8>, String)>,
    compression_level: u8,
    raw_chunks: Vec<Vec<u8>>,
    /// Each chunk's file count, for format 6's chunk entries.
    chunk_files: Vec<Option<u32>>,
    /// The file list's bytes, for format 6.
    file_list: Option<Vec<u8>>,
    /// The first chunk nobody has claimed.
    next: AtomicUsize,
    compressed: Mutex<Vec<Option<(ChunkEntry, BundleFile)>>>,
}

impl PendingBundle {
    /// Sorts the files, checks them, packs them into chunks and hashes them: everything
    /// [`encode_bundle`] does but compress the chunks and write the manifest.
    pub fn prepare(input: BundleInput, options: BundleOptions) -> Result<PendingBundle> {
        let BundleInput {
            source,
            commit,
            tool_version,
            policy,
            excluded,
            excluded_files,
            mut files,
            index,
        } = input;
        stable_sort::by(&mut files, |a, b| a.path.cmp(&b.path));
        for pair in files.windows(2) {
            if pair[0].path == pair[1].path {
                return Err(Error::field(
                    &pair[0].path,
                    "path",
                    "listed twice in the bundle input",
                ));
            }
        }
        for file in &files {
            if let Decision::Excluded(reason) = policy.check(&file.path, &file.bytes) {
                return Err(Error::field(
                    &file.path,
                    "policy",
                    format!("excluded by the bundle's policy ({reason}); it cannot be bundled"),
                ));
            }
        }
        let apart = options.list_files_apart;
        let target = options.chunk_target_bytes.max(1);
        let placements = if apart {
            let named: Vec<(&str, usize)> = files
                .iter()
                .map(|file| (file.path.as_str(), file.bytes.len()))
                .collect();
            plan_chunks_by_content(&named, target)
        } else {
            let sizes: Vec<usize> = files.iter().map(|file| file.bytes.len()).collect();
            plan_chunks(&sizes, target)
        };
        let chunk_count = placements.last().map_or(0, |last| last.chunk + 1);
        let mut counts = vec![0usize; chunk_count];
        for placement in &placements {
            counts[placement.chunk] += 1;
        }
        let hashes: Vec<[u8; 32]> = files
            .iter()
            .map(|file| crate::checksum::sha256(&file.bytes))
            .collect();
        let mut raw_chunks: Vec<Vec<u8>> = vec![Vec::new(); chunk_count];
        if apart {
            let mut first = 0;
            for (chunk, &count) in raw_chunks.iter_mut().zip(&counts) {
                *chunk = encode_header(&hashes[first..first + count]);
                first += count;
            }
        }
        let mut entries = Vec::with_capacity(files.len());
        for ((file, placement), hash) in files.iter().zip(&placements).zip(&hashes) {
            raw_chunks[placement.chunk].extend_from_slice(&file.bytes);
            let header = if apart {
                header_len(counts[placement.chunk])
            } else {
                0
            };
            entries.push(FileEntry {
                path: file.path.clone(),
                bytes: file.bytes.len() as u64,
                lines: count_lines(&file.bytes),
                sha256: (!apart).then(|| crate::checksum::hex(hash)),
                chunk: placement.chunk as u32,
                offset: (header + placement.offset) as u64,
            });
        }
        let file_list = apart.then(|| {
            let listed: Vec<Listed> = entries
                .iter()
                .map(|entry| Listed {
                    path: entry.path.clone(),
                    bytes: entry.bytes,
                    lines: entry.lines,
                })
                .collect();
            encode_list(&listed)
        });
        Ok(PendingBundle {
            manifest: Manifest {
                format_version: if apart {
                    LISTED_FORMAT_VERSION
                } else {
                    FORMAT_VERSION
                },
                source,
                commit,
                tool_version,
                policy,
                excluded,
                excluded_files,
                files: entries,
                file_list: None,
                chunks: Vec::new(),
                index: None,
                chunkings: Vec::new(),
                split_index: None,
                question_vectors: None,
                store: None,
                derived_index: None,
            },
            index,
            compression_level: options.compression_level,
            compressed: Mutex::new(vec![None; chunk_count]),
            chunk_files: counts
                .iter()
                .map(|&count| apart.then_some(count as u32))
                .collect(),
            file_list,
            raw_chunks,
            next: AtomicUsize::new(0),
        })
    }

    /// Claims the next chunk nobody has claimed and compresses it; false when none is left.
    pub fn compress_next(&self) -> bool {
        let at = self.next.fetch_add(1, Ordering::Relaxed);
        let Some(raw) = self.raw_chunks.get(at) else {
            return false;
        };
        let chunk = compress_chunk(raw, self.compression_level);
        self.compressed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)[at] = Some(chunk);
        true
    }

    /// Compresses the chunks left, then lists them and the index and writes the manifest.
    pub fn finish(self) -> Result<EncodedBundle> {
        while self.compress_next() {}
        let PendingBundle {
            mut manifest,
            index,
            compression_level,
            raw_chunks,
            chunk_files,
            file_list,
            compressed,
            ..
        } = self;
        let compressed = compressed
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::with_capacity(raw_chunks.len() + 3);
        if let Some(raw) = file_list {
            let stored = compress(&raw, compression_level);
            let sha256 = sha256_hex(&stored);
            let name = format!("files/{sha256}.deflate");
            manifest.file_list = Some(FileListEntry {
                file: name.clone(),
                sha256,
                bytes: stored.len() as u64,
                raw_bytes: raw.len() as u64,
                count: manifest.files.len() as u64,
            });
            out.push(BundleFile {
                name,
                bytes: stored,
            });
        }
        for ((raw, chunk), files) in raw_chunks.iter().zip(compressed).zip(chunk_files) {
            // Every claimed chunk is stored before its claimer returns, and `self` is owned here,
            // so none is missing; one would be compressed now rather than lost.
            let (mut entry, file) = chunk.unwrap_or_else(|| compress_chunk(raw, compression_level));
            entry.files = files;
            manifest.chunks.push(entry);
            out.push(file);
        }
        manifest.index = index.map(|(blob, format)| {
            let stored = StoredIndex::new(&blob, format, compression_level);
            out.push(stored.file);
            stored.entry
        });
        out.insert(
            0,
            BundleFile {
                name: MANIFEST_FILE.to_string(),
                bytes: manifest_json(&manifest)?,
            },
        );
        Ok(EncodedBundle {
            manifest,
            files: out,
        })
    }
}

/// One chunk compressed, named by the hash of its stored bytes, with its manifest entry.
fn compress_chunk(raw: &[u8], level: u8) -> (ChunkEntry, BundleFile) {
    let stored = compress(raw, level);
    let sha256 = sha256_hex(&stored);
    let file = format!("chunks/{sha256}.deflate");
    (
        ChunkEntry {
            file: file.clone(),
            sha256,
            bytes: stored.len() as u64,
            raw_bytes: raw.len() as u64,
            files: None,
            entries: None,
        },
        BundleFile {
            name: file,
            bytes: stored,
        },
    )
}

/// `manifest.json`'s bytes: the manifest as compact JSON and a newline; format 6 without its
/// files (they are in the file list).
fn manifest_json(manifest: &Manifest) -> Result<Vec<u8>> {
    let written = match manifest.file_list {
        Some(_) => &Manifest {
            files: Vec::new(),
            ..manifest.clone()
        },
        None => manifest,
    };
    let mut json = serde_json::to_vec(written).map_err(|error| Error::Parse {
        file: MANIFEST_FILE.to_string(),
        message: error.to_string(),
    })?;
    json.push(b'\n');
    Ok(json)
}

/// An index blob compressed for a bundle, with its manifest entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredIndex {
    /// The manifest's `index` entry.
    pub entry: IndexEntry,
    /// The file to write, `index/<sha256>.tantivy.deflate`.
    pub file: BundleFile,
}

impl StoredIndex {
    /// Compresses `blob` at DEFLATE `level` and names it by the hash of the stored bytes.
    pub fn new(blob: &[u8], format: String, level: u8) -> StoredIndex {
        let stored = compress(blob, level);
        let sha256 = sha256_hex(&stored);
        let file = format!("index/{sha256}.tantivy.deflate");
        StoredIndex {
            entry: IndexEntry {
                file: file.clone(),
                sha256,
                bytes: stored.len() as u64,
                raw_bytes: Some(blob.len() as u64),
                format,
            },
            file: BundleFile {
                name: file,
                bytes: stored,
            },
        }
    }
}

impl EncodedBundle {
    /// The bytes of the bundle's file `name`, if it has one.
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|file| file.name == name)
            .map(|file| file.bytes.as_slice())
    }

    /// The stored file list's bytes (format 6).
    pub fn file_list_bytes(&self) -> Option<&[u8]> {
        self.manifest
            .file_list
            .as_ref()
            .and_then(|list| self.file(&list.file))
    }

    /// The manifest as a reader gets it: `manifest.json` decoded, with its file list (format
    /// 6), both from the bundle's bytes.
    pub fn read_back(&self) -> Result<Manifest> {
        let json = self.file(MANIFEST_FILE).ok_or_else(|| Error::MissingFile {
            file: MANIFEST_FILE.to_string(),
        })?;
        super::decode_listed_manifest(json, self.file_list_bytes())
    }

    /// The same bundle with this index (replacing any it had): the manifest's `index` entry names
    /// it and `manifest.json` is rewritten. The result equals passing the blob to
    /// [`encode_bundle`] in [`BundleInput::index`]; this lets a caller build and compress the
    /// index while the chunks are being compressed.
    pub fn with_index(mut self, index: StoredIndex) -> Result<EncodedBundle> {
        if let Some(old) = self.manifest.index.take() {
            self.files.retain(|file| file.name != old.file);
        }
        self.manifest.index = Some(index.entry);
        self.files.push(index.file);
        self.rewrite_manifest()
    }

    /// The same bundle with its index split (bundle format 5): the whole index blob, if any, is
    /// dropped, the split index's base file and packs added, and `manifest.json` rewritten.
    pub fn with_split_index(
        mut self,
        entry: IndexEntry,
        files: Vec<BundleFile>,
    ) -> Result<EncodedBundle> {
        if let Some(old) = self.manifest.index.take() {
            self.files.retain(|file| file.name != old.file);
        }
        if let Some(old) = self.manifest.split_index.take() {
            self.files.retain(|file| file.name != old.file);
        }
        self.manifest.format_version = self.manifest.format_version.max(SPLIT_FORMAT_VERSION);
        self.manifest.split_index = Some(entry);
        self.files.extend(files);
        self.rewrite_manifest()
    }

    /// The same bundle with these chunkings (replacing any of the same chunker): the manifest
    /// lists them in the given order and `manifest.json` is rewritten.
    pub fn with_chunkings(mut self, chunkings: Vec<StoredChunking>) -> Result<EncodedBundle> {
        for stored in chunkings {
            if let Some(at) = self
                .manifest
                .chunkings
                .iter()
                .position(|c| c.chunker == stored.entry.chunker)
            {
                let old = self.manifest.chunkings.remove(at);
                let index = old.index.map(|i| i.file);
                let vectors = old.vectors.map(|v| v.file);
                self.files.retain(|file| {
                    file.name != old.file
                        && Some(&file.name) != index.as_ref()
                        && Some(&file.name) != vectors.as_ref()
                });
            }
            self.files.push(stored.file);
            self.files.extend(stored.index_file);
            self.files.extend(stored.vectors_file);
            self.manifest.chunkings.push(stored.entry);
        }
        self.rewrite_manifest()
    }

    /// The bundle with the question set's vectors (replacing any it had).
    pub fn with_question_vectors(
        mut self,
        (entry, file): (super::VectorsEntry, BundleFile),
    ) -> Result<EncodedBundle> {
        if let Some(old) = self.manifest.question_vectors.take() {
            self.files.retain(|f| f.name != old.file);
        }
        self.files.push(file);
        self.manifest.question_vectors = Some(entry);
        self.rewrite_manifest()
    }

    /// `manifest.json` written again from the manifest.
    fn rewrite_manifest(mut self) -> Result<EncodedBundle> {
        let json = manifest_json(&self.manifest)?;
        match self
            .files
            .iter_mut()
            .find(|file| file.name == MANIFEST_FILE)
        {
            Some(manifest) => manifest.bytes = json,
            None => self.files.insert(
                0,
                BundleFile {
                    name: MANIFEST_FILE.to_string(),
                    bytes: json,
                },
            ),
        }
        Ok(self)
    }
}

/// Lines as the manifest counts them: newlines, plus one when the last line has no newline.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&byte| byte == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&byte| byte != b'\n'))
}

/// A chunking ready to be added to a bundle: its manifest entry and its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChunking {
    /// The manifest's entry.
    pub entry: ChunkingEntry,
    /// The table's file.
    pub file: BundleFile,
    /// The index's file, when built.
    pub index_file: Option<BundleFile>,
    /// The vectors' file, when embedded.
    pub vectors_file: Option<BundleFile>,
}

/// Encodes a chunking of the bundle's `files` (the manifest's, sorted) at DEFLATE `level`, sized
/// to `budget` by `counter`. Every chunk must name one of the files; chunks are stored in the
/// files' order, then by line.
pub fn encode_chunking(
    files: &[FileEntry],
    (chunker, budget, counter): (Chunker, u32, BudgetCounter),
    chunks: &[CodeChunk],
    level: u8,
) -> Result<StoredChunking> {
    let mut columns = Columns::default();
    let mut ordered: Vec<(u32, &CodeChunk)> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let at = files
            .binary_search_by(|f| f.path.as_str().cmp(&chunk.path))
            .map_err(|_| {
                Error::field(
                    &chunk.path,
                    "chunk",
                    "chunked, but not a file of the bundle",
                )
            })?;
        ordered.push((at as u32, chunk));
    }
    stable_sort::by_key(&mut ordered, |(file, chunk)| {
        (*file, chunk.start_line, chunk.end_line)
    });
    for (file, chunk) in ordered {
        let kind = match columns.kinds.iter().position(|k| *k == chunk.kind) {
            Some(at) => at,
            None => {
                columns.kinds.push(chunk.kind.clone());
                columns.kinds.len() - 1
            }
        };
        columns.file.push(file);
        columns.start.push(chunk.start_line);
        columns.end.push(chunk.end_line);
        columns.kind.push(kind as u16);
        columns.name.push(chunk.name.clone());
        columns.tokens.push(chunk.tokens);
    }
    // Serialising strings and integers cannot fail.
    let raw = serde_json::to_vec(&columns).unwrap_or_default();
    let stored = compress(&raw, level);
    let sha256 = sha256_hex(&stored);
    let name = format!("chunkings/{sha256}.json.deflate");
    Ok(StoredChunking {
        entry: ChunkingEntry {
            chunker,
            budget,
            counter: counter.recorded().to_string(),
            file: name.clone(),
            sha256,
            bytes: stored.len() as u64,
            raw_bytes: raw.len() as u64,
            chunks: chunks.len() as u64,
            index: None,
            header_epilogue: false,
            vectors: None,
        },
        file: BundleFile {
            name,
            bytes: stored,
        },
        index_file: None,
        vectors_file: None,
    })
}

/// A chunking's vectors (`rows`, `dimension` numbers each) as a bundle file at `precision`, and
/// its manifest entry.
pub fn store_vectors(
    model: VectorModel,
    rows: &[f32],
    dimension: usize,
    precision: Precision,
) -> (VectorsEntry, BundleFile) {
    let bytes = encode_rows(rows, dimension, precision);
    let extension = precision.name();
    stored(
        model,
        (precision, dimension, rows.len() / dimension.max(1)),
        bytes,
        extension,
    )
}

/// The question set's vectors (each question's text SHA-256 and vector) as a bundle file, and
/// its manifest entry.
pub fn store_question_vectors(
    model: VectorModel,
    questions: &[([u8; 32], Vec<f32>)],
    dimension: usize,
) -> (VectorsEntry, BundleFile) {
    let bytes = encode_question_rows(questions);
    stored(
        model,
        (Precision::F32, dimension, questions.len()),
        bytes,
        "questions",
    )
}

fn stored(
    model: VectorModel,
    (precision, dimension, count): (Precision, usize, usize),
    bytes: Vec<u8>,
    extension: &str,
) -> (VectorsEntry, BundleFile) {
    let sha256 = sha256_hex(&bytes);
    let file = format!("vectors/{sha256}.{extension}");
    (
        VectorsEntry {
            model: model.name.to_string(),
            weights_sha256: model.weights_sha256.to_string(),
            precision,
            dimension: dimension as u32,
            count: count as u64,
            file: file.clone(),
            sha256,
            bytes: bytes.len() as u64,
        },
        BundleFile { name: file, bytes },
    )
}
