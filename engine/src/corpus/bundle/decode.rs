//! Reading a bundle: `manifest.json` parsed and checked, and every chunk, file and index verified
//! against it as it is opened.

use super::listing::{decode_header, decode_list, header_len};
use super::versions::{decode_pack, decompress_pack, PackEntries};
use super::{
    decompress, ChunkEntry, DirTree, FileEntry, IndexEntry, Listed, Manifest,
    LISTED_FORMAT_VERSION, MANIFEST_FILE, READ_VERSIONS, VERSIONED_FORMAT_VERSION,
};
use crate::checksum::sha256_hex;
use crate::corpus::policy::is_clean_path;
use crate::error::{Error, Result};

/// Parses and checks `manifest.json` of a bundle that lists its files there (formats 1 to 5):
/// the format version first (so a newer bundle says so rather than failing on a new field), then
/// the fields, then that the paths are clean, sorted and unique, that every hash is 64 hex
/// digits, every hashed file is named by its hash, and every file lies inside its chunk. A
/// format-6 manifest is refused, naming its file list: read it with
/// [`decode_listed_manifest`], so that no reader goes on with a bundle of no files.
pub fn decode_manifest(bytes: &[u8]) -> Result<Manifest> {
    decode_listed_manifest(bytes, None)
}

/// Where the file list a bundle's `manifest.json` names is (format 6), relative to the bundle's
/// folder ([`Manifest::located`]): [`decode_listed_manifest`] then needs it; none for formats 1
/// to 5. The manifest is checked as a whole.
pub fn file_list_of(bytes: &[u8]) -> Result<Option<String>> {
    let manifest = decode_bare(bytes)?;
    Ok(manifest
        .file_list
        .as_ref()
        .map(|list| manifest.located(&list.file)))
}

/// [`decode_manifest`] for any format: a format-6 manifest with the stored bytes of the file
/// list it names (see [`file_list_of`]), verified against its hash and count, each file placed in
/// its chunk and checked as a manifest's own list is.
pub fn decode_listed_manifest(bytes: &[u8], file_list: Option<&[u8]>) -> Result<Manifest> {
    let manifest = decode_bare(bytes)?;
    match (&manifest.file_list, file_list) {
        (None, _) => Ok(manifest),
        (Some(_), Some(stored)) => manifest.with_file_list(stored),
        (Some(list), None) => Err(Error::field(
            MANIFEST_FILE,
            "file_list",
            format!(
                "format {} lists its files in {}, which was not read with it",
                manifest.format_version, list.file
            ),
        )),
    }
}

/// What a bundle was built from, read from its `manifest.json` alone (any format; a format-6 file
/// list is not read): enough to tell which study cases it is the snapshot of.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestHead {
    /// See [`Manifest::source`].
    pub source: String,
    /// See [`Manifest::commit`].
    pub commit: Option<String>,
    /// See [`Manifest::policy`].
    pub policy: crate::corpus::policy::Policy,
    /// How many files it holds.
    pub files: u64,
}

impl ManifestHead {
    /// The head of a manifest, with its files listed or not.
    pub fn of(manifest: &Manifest) -> ManifestHead {
        ManifestHead {
            source: manifest.source.clone(),
            commit: manifest.commit.clone(),
            policy: manifest.policy.clone(),
            files: manifest
                .file_list
                .as_ref()
                .map_or(manifest.files.len() as u64, |list| list.count),
        }
    }
}

/// `manifest.json` checked as [`decode_listed_manifest`] checks it, and its [`ManifestHead`].
pub fn manifest_head(bytes: &[u8]) -> Result<ManifestHead> {
    Ok(ManifestHead::of(&decode_bare(bytes)?))
}

/// The manifest's own JSON, checked, without a format-6 file list.
fn decode_bare(bytes: &[u8]) -> Result<Manifest> {
    let file = MANIFEST_FILE;
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| Error::Parse {
        file: file.to_string(),
        message: format!("invalid JSON: {error}"),
    })?;
    match value
        .get("format_version")
        .and_then(serde_json::Value::as_u64)
    {
        Some(version) if READ_VERSIONS.iter().any(|&read| u64::from(read) == version) => {}
        Some(version) => {
            return Err(Error::field(
                file,
                "format_version",
                format!("bundle format {version}; this build reads formats {READ_VERSIONS:?}"),
            ))
        }
        None => {
            return Err(Error::field(
                file,
                "format_version",
                "missing or not a number",
            ))
        }
    }
    let manifest: Manifest = crate::json_path::from_value(&value)
        .map_err(|err| Error::field(file, err.path, err.error.to_string()))?;
    manifest.check()?;
    Ok(manifest)
}

/// A chunk's verified, decompressed bytes (format 6: header included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    index: usize,
    raw: Vec<u8>,
    /// Where its header's hashes lie in `raw` (format 6).
    hashes: Option<std::ops::Range<usize>>,
    /// Its entries, when it is a version pack (format 7).
    pack: Option<PackEntries>,
}

impl Chunk {
    /// The chunk's position in [`Manifest::chunks`].
    pub fn index(&self) -> usize {
        self.index
    }
}

impl Manifest {
    /// Where the bundle's `file` (as the manifest names it) is relative to the bundle's folder:
    /// beside `manifest.json`, or in the shared store of a merged site.
    pub fn located(&self, file: &str) -> String {
        super::locate(self.store.as_deref(), file)
    }

    /// The entry of a path, by binary search over the sorted file list.
    pub fn file(&self, path: &str) -> Option<&FileEntry> {
        self.files
            .binary_search_by(|entry| entry.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// Every path, sorted.
    pub fn paths(&self) -> Vec<String> {
        self.files.iter().map(|entry| entry.path.clone()).collect()
    }

    /// The directory tree the walks route over: the bundle's files, and by name the files the
    /// policy kept out by their content (binary, not UTF-8, too large), as the paper's walker
    /// lists them (see [`DirTree::from_listing`]).
    pub fn tree(&self) -> DirTree {
        use crate::corpus::policy::ExclusionReason::{Binary, NotUtf8, TooLarge};
        let files = self.files.iter().map(|file| {
            let listed = if file.bytes == 0 {
                Listed::Empty
            } else {
                Listed::Searchable
            };
            (file.path.as_str(), listed)
        });
        let unreadable = self
            .excluded_files
            .iter()
            .filter(|file| matches!(file.reason, Binary | NotUtf8 | TooLarge))
            .map(|file| (file.path.as_str(), Listed::Unreadable));
        let listing: Vec<(&str, Listed)> = files.chain(unreadable).collect();
        DirTree::from_listing(&listing)
    }

    /// The files stored in chunk `index`, in path order.
    pub fn files_in_chunk(&self, index: usize) -> impl Iterator<Item = &FileEntry> {
        self.files
            .iter()
            .filter(move |entry| entry.chunk as usize == index)
    }

    /// The sum of the searchable files' sizes.
    pub fn raw_bytes(&self) -> u64 {
        self.files.iter().map(|entry| entry.bytes).sum()
    }

    /// The size of the bundle folder as the manifest knows it: the given manifest size plus the
    /// file list, every chunk, the index (of a split index, the base file: its packs are listed
    /// in it) and the chunkings.
    pub fn stored_bytes(&self, manifest_bytes: u64) -> u64 {
        manifest_bytes
            + self.file_list.as_ref().map_or(0, |list| list.bytes)
            + self.chunks.iter().map(|chunk| chunk.bytes).sum::<u64>()
            + self.index.as_ref().map_or(0, |index| index.bytes)
            + self.split_index.as_ref().map_or(0, |index| index.bytes)
            + self
                .chunkings
                .iter()
                .map(|c| c.bytes + c.index.as_ref().map_or(0, |index| index.bytes))
                .sum::<u64>()
    }

    /// Verifies the stored bytes of chunk `index` against the manifest and decompresses them.
    pub fn open_chunk(&self, index: usize, stored: &[u8]) -> Result<Chunk> {
        let entry = self.chunks.get(index).ok_or_else(|| {
            Error::setting(
                "chunk",
                index,
                &format!("0 to {} (the manifest's chunks)", self.chunks.len()),
            )
        })?;
        verify_hash(&entry.file, &entry.sha256, stored)?;
        if let Some(entries) = &entry.entries {
            return open_pack(index, entry, entries, stored);
        }
        let raw = decompress(&entry.file, stored, entry.raw_bytes as usize)?;
        let hashes = match entry.files {
            Some(count) => {
                let count = count as usize;
                decode_header(&entry.file, &raw, count)?;
                Some(header_len(0)..header_len(count))
            }
            None => None,
        };
        Ok(Chunk {
            index,
            raw,
            hashes,
            pack: None,
        })
    }

    /// The SHA-256 of `path`: the manifest's, or (format 6) its chunk header's, from the chunk.
    pub fn file_sha256(&self, chunk: &Chunk, path: &str) -> Result<String> {
        let (at, entry) = self.file_at(path)?;
        if let Some(sha256) = &entry.sha256 {
            return Ok(sha256.clone());
        }
        let misplaced = || {
            Error::field(
                path,
                "chunk",
                format!("stored in chunk {}, not chunk {}", entry.chunk, chunk.index),
            )
        };
        if entry.chunk as usize != chunk.index {
            return Err(misplaced());
        }
        let nth = self.nth_in_chunk(at, chunk);
        if let Some(pack) = &chunk.pack {
            let at = self.pack_entry(chunk, nth).ok_or_else(misplaced)?;
            return pack
                .sha256(&chunk.raw, at)
                .map(crate::checksum::hex)
                .ok_or_else(misplaced);
        }
        let hashes = chunk
            .hashes
            .clone()
            .ok_or_else(|| Error::field(path, "sha256", "listed nowhere"))?;
        let start = hashes.start + 32 * nth;
        chunk
            .raw
            .get(start..start + 32)
            .filter(|_| start < hashes.end)
            .map(crate::checksum::hex)
            .ok_or_else(misplaced)
    }

    /// Where the file at `at` in the file list comes among the files of `chunk`, which holds it.
    fn nth_in_chunk(&self, at: usize, chunk: &Chunk) -> usize {
        at - self
            .files
            .partition_point(|file| (file.chunk as usize) < chunk.index)
    }

    /// The pack entry of the chunk's `nth` file of this bundle (format 7).
    fn pack_entry(&self, chunk: &Chunk, nth: usize) -> Option<usize> {
        let entries = self.chunks.get(chunk.index)?.entries.as_ref()?;
        entries.get(nth).map(|&at| at as usize)
    }

    fn file_at(&self, path: &str) -> Result<(usize, &FileEntry)> {
        self.files
            .binary_search_by(|entry| entry.path.as_str().cmp(path))
            .map(|at| (at, &self.files[at]))
            .map_err(|_| Error::field(MANIFEST_FILE, "files", format!("no file {path:?}")))
    }

    /// The text of `path` from its (already opened) chunk, after checking its SHA-256.
    pub fn file_text<'c>(&self, chunk: &'c Chunk, path: &str) -> Result<&'c str> {
        let (at, entry) = self.file_at(path)?;
        if entry.chunk as usize != chunk.index {
            return Err(Error::field(
                path,
                "chunk",
                format!("stored in chunk {}, not chunk {}", entry.chunk, chunk.index),
            ));
        }
        // `check` proved the range lies inside the chunk's raw size, and `open_chunk` proved
        // the raw size; `get` keeps this panic-free regardless.
        let range = match &chunk.pack {
            Some(pack) => {
                let range = self
                    .pack_entry(chunk, self.nth_in_chunk(at, chunk))
                    .and_then(|at| pack.ranges.get(at).cloned())
                    .ok_or_else(|| Error::field(path, "chunk", "not in its version pack"))?;
                if range.len() as u64 != entry.bytes {
                    return Err(Error::field(
                        path,
                        "bytes",
                        format!(
                            "{} in the file list, {} in its version pack",
                            entry.bytes,
                            range.len()
                        ),
                    ));
                }
                range
            }
            None => entry.offset as usize..entry.offset as usize + entry.bytes as usize,
        };
        let bytes = chunk
            .raw
            .get(range)
            .ok_or_else(|| Error::field(path, "offset", "outside its chunk"))?;
        verify_hash(path, &self.file_sha256(chunk, path)?, bytes)?;
        std::str::from_utf8(bytes).map_err(|error| Error::Parse {
            file: path.to_string(),
            message: format!("not UTF-8: {error}"),
        })
    }

    /// Every file's text, given every chunk's stored bytes in manifest order; each chunk and
    /// each file is verified.
    pub fn read_all<B: AsRef<[u8]>>(&self, chunks: &[B]) -> Result<Vec<(String, String)>> {
        if chunks.len() != self.chunks.len() {
            return Err(Error::field(
                MANIFEST_FILE,
                "chunks",
                format!(
                    "{} chunks supplied, the manifest lists {}",
                    chunks.len(),
                    self.chunks.len()
                ),
            ));
        }
        let opened = chunks
            .iter()
            .enumerate()
            .map(|(index, stored)| self.open_chunk(index, stored.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        self.files
            .iter()
            .map(|entry| {
                let text = self.file_text(&opened[entry.chunk as usize], &entry.path)?;
                Ok((entry.path.clone(), text.to_string()))
            })
            .collect()
    }

    /// Verifies the index file's stored bytes against the manifest and returns its entry and
    /// the blob (decompressed when the manifest gives a raw size).
    pub fn open_index(&self, stored: &[u8]) -> Result<(&IndexEntry, Vec<u8>)> {
        let entry = self.index.as_ref().ok_or_else(|| {
            Error::field(MANIFEST_FILE, "index", "this bundle has no search index")
        })?;
        verify_hash(&entry.file, &entry.sha256, stored)?;
        let blob = match entry.raw_bytes {
            Some(raw_bytes) => decompress(&entry.file, stored, raw_bytes as usize)?,
            None => stored.to_vec(),
        };
        Ok((entry, blob))
    }

    /// The manifest with its files, from the stored bytes of the file list it names.
    fn with_file_list(mut self, stored: &[u8]) -> Result<Manifest> {
        let Some(entry) = self.file_list.clone() else {
            return Ok(self);
        };
        verify_hash(&entry.file, &entry.sha256, stored)?;
        let raw = decompress(&entry.file, stored, entry.raw_bytes as usize)?;
        let listed = decode_list(&entry.file, &raw)?;
        if listed.len() as u64 != entry.count {
            return Err(Error::field(
                MANIFEST_FILE,
                "file_list.count",
                format!(
                    "{}, but {} lists {} files",
                    entry.count,
                    entry.file,
                    listed.len()
                ),
            ));
        }
        let mut listed = listed.into_iter();
        let mut files = Vec::with_capacity(entry.count as usize);
        for (at, chunk) in self.chunks.iter().enumerate() {
            let count = chunk.files.unwrap_or_default() as usize;
            if chunk.entries.is_some() {
                // A version pack's files are placed by its header when it is opened: their
                // offsets here stay 0, inside the pack whatever the header says.
                files.extend(listed.by_ref().take(count).map(|file| FileEntry {
                    path: file.path,
                    bytes: file.bytes,
                    lines: file.lines,
                    sha256: None,
                    chunk: at as u32,
                    offset: 0,
                }));
                continue;
            }
            let mut offset = header_len(count) as u64;
            for file in listed.by_ref().take(count) {
                files.push(FileEntry {
                    path: file.path,
                    bytes: file.bytes,
                    lines: file.lines,
                    sha256: None,
                    chunk: at as u32,
                    offset,
                });
                offset = offset.saturating_add(file.bytes);
            }
            if offset != chunk.raw_bytes {
                return Err(Error::field(
                    MANIFEST_FILE,
                    format!("chunks[{at}].raw_bytes"),
                    format!(
                        "{}, but its header and files take {offset}",
                        chunk.raw_bytes
                    ),
                ));
            }
        }
        self.files = files;
        self.check_files(&entry.file)?;
        Ok(self)
    }

    fn check(&self) -> Result<()> {
        let listed_apart = self.format_version >= LISTED_FORMAT_VERSION;
        match (&self.file_list, listed_apart) {
            (Some(list), true) => {
                check_hex(&list.sha256, "file_list.sha256")?;
                check_named(&list.file, "files/", &list.sha256, ".deflate", "file_list")?;
                if !self.files.is_empty() {
                    return Err(Error::field(
                        MANIFEST_FILE,
                        "files",
                        "format 6 lists its files apart (file_list), not here",
                    ));
                }
                let counted: u64 = self
                    .chunks
                    .iter()
                    .map(|chunk| u64::from(chunk.files.unwrap_or_default()))
                    .sum();
                if counted != list.count {
                    return Err(Error::field(
                        MANIFEST_FILE,
                        "file_list.count",
                        format!("{}, but the chunks hold {counted} files", list.count),
                    ));
                }
            }
            (None, true) => {
                return Err(Error::field(MANIFEST_FILE, "file_list", "missing"));
            }
            (Some(_), false) => {
                return Err(Error::field(
                    MANIFEST_FILE,
                    "file_list",
                    format!("format {} lists its files itself", self.format_version),
                ));
            }
            (None, false) => self.check_files(MANIFEST_FILE)?,
        }
        for (index, chunk) in self.chunks.iter().enumerate() {
            let field = format!("chunks[{index}]");
            check_hex(&chunk.sha256, &format!("{field}.sha256"))?;
            let suffix = if chunk.entries.is_some() {
                self.check_pack_entry(chunk, &field)?;
                ".zst"
            } else {
                ".deflate"
            };
            check_named(&chunk.file, "chunks/", &chunk.sha256, suffix, &field)?;
            if chunk.files.is_some() != listed_apart {
                return Err(Error::field(
                    MANIFEST_FILE,
                    format!("{field}.files"),
                    "given in format 6 (and only there)",
                ));
            }
        }
        if let Some(index) = &self.index {
            check_hex(&index.sha256, "index.sha256")?;
            let suffix = if index.raw_bytes.is_some() {
                ".tantivy.deflate"
            } else {
                ".tantivy"
            };
            check_named(&index.file, "index/", &index.sha256, suffix, "index")?;
        }
        if let Some(split) = &self.split_index {
            check_hex(&split.sha256, "split_index.sha256")?;
            check_named(
                &split.file,
                "index/",
                &split.sha256,
                ".base.deflate",
                "split_index",
            )?;
            if split.raw_bytes.is_none() {
                return Err(Error::field(
                    MANIFEST_FILE,
                    "split_index.raw_bytes",
                    "missing: the base file is stored compressed",
                ));
            }
        }
        if let Some(store) = &self.store {
            if !listed_apart || !super::is_store_path(store) {
                return Err(Error::field(
                    MANIFEST_FILE,
                    "store",
                    format!(
                        "{store:?}: a folder beside the bundle's (`../store`), in format 6 only"
                    ),
                ));
            }
        }
        if let Some(format) = &self.derived_index {
            if self.format_version < VERSIONED_FORMAT_VERSION
                || self.index.is_some()
                || self.split_index.is_some()
                || format.is_empty()
            {
                return Err(Error::field(
                    MANIFEST_FILE,
                    "derived_index",
                    format!(
                        "{format:?}: an index format, in format {VERSIONED_FORMAT_VERSION} and \
                         only for a bundle that stores no index"
                    ),
                ));
            }
        }
        self.check_chunkings()?;
        self.check_vectors()
    }

    /// A version pack's entry (format 7): one entry per file, increasing.
    fn check_pack_entry(&self, chunk: &ChunkEntry, field: &str) -> Result<()> {
        let entries = chunk.entries.as_deref().unwrap_or_default();
        let wrong = |message: String| Err(Error::field(MANIFEST_FILE, field, message));
        if self.format_version < VERSIONED_FORMAT_VERSION {
            return wrong(format!(
                "a version pack (entries), which format {} does not have",
                self.format_version
            ));
        }
        if chunk.files != Some(entries.len() as u32) {
            return wrong(format!(
                "{} entries for {:?} files",
                entries.len(),
                chunk.files
            ));
        }
        if entries.windows(2).any(|pair| pair[0] >= pair[1]) {
            return wrong("entries out of order or repeated".into());
        }
        Ok(())
    }
}

/// A version pack, verified: its header read, and every entry the bundle names in it.
fn open_pack(index: usize, entry: &ChunkEntry, entries: &[u32], stored: &[u8]) -> Result<Chunk> {
    let raw = decompress_pack(&entry.file, stored, entry.raw_bytes as usize)?;
    let pack = decode_pack(&entry.file, &raw)?;
    if let Some(&beyond) = entries.iter().find(|&&at| at as usize >= pack.ranges.len()) {
        return Err(Error::field(
            MANIFEST_FILE,
            format!("chunks[{index}].entries"),
            format!(
                "entry {beyond}, but {} holds {}",
                entry.file,
                pack.ranges.len()
            ),
        ));
    }
    Ok(Chunk {
        index,
        raw,
        hashes: None,
        pack: Some(pack),
    })
}

impl Manifest {
    /// Every file's path clean, sorted and unique, its hash (where listed) hex, and its bytes
    /// inside its chunk; errors name `file`, the manifest or the file list.
    fn check_files(&self, file: &str) -> Result<()> {
        for (index, entry) in self.files.iter().enumerate() {
            let field = |name: &str| format!("files[{index}].{name}");
            if !is_clean_path(&entry.path) {
                return Err(Error::field(
                    file,
                    field("path"),
                    format!("{:?} is not a clean relative path", entry.path),
                ));
            }
            if index > 0 && self.files[index - 1].path >= entry.path {
                return Err(Error::field(
                    file,
                    field("path"),
                    format!("{:?} is out of order or repeated", entry.path),
                ));
            }
            match &entry.sha256 {
                Some(sha256) => check_hex(sha256, &field("sha256"))?,
                None if self.file_list.is_none() => {
                    return Err(Error::field(file, field("sha256"), "missing"))
                }
                None => {}
            }
            let chunk = self.chunks.get(entry.chunk as usize).ok_or_else(|| {
                Error::field(
                    file,
                    field("chunk"),
                    format!("chunk {} does not exist", entry.chunk),
                )
            })?;
            if entry
                .offset
                .checked_add(entry.bytes)
                .is_none_or(|end| end > chunk.raw_bytes)
            {
                return Err(Error::field(
                    file,
                    field("offset"),
                    format!("the file does not fit in chunk {}", entry.chunk),
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn verify_hash(file: &str, expected: &str, bytes: &[u8]) -> Result<()> {
    let actual = sha256_hex(bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(Error::ManifestHash {
            file: file.to_string(),
            expected: expected.to_string(),
            actual,
        })
    }
}

pub(super) fn check_hex(value: &str, field: &str) -> Result<()> {
    if value.len() == 64
        && value
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    {
        Ok(())
    } else {
        Err(Error::field(
            MANIFEST_FILE,
            field,
            format!("{value:?} is not a SHA-256 in lower-case hex"),
        ))
    }
}

pub(super) fn check_named(
    name: &str,
    dir: &str,
    sha256: &str,
    ext: &str,
    field: &str,
) -> Result<()> {
    if name == format!("{dir}{sha256}{ext}") {
        Ok(())
    } else {
        Err(Error::field(
            MANIFEST_FILE,
            format!("{field}.file"),
            format!("{name:?} should be named {dir}{sha256}{ext}"),
        ))
    }
}
