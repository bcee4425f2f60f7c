//! `routelens bundle`: read a repository through the policy, index it, write the bundle folder,
//! print what went in and what stayed out. `--explain PATH` says why one file is in or out.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use routelens_engine::corpus::bundle::{BundleOptions, PendingBundle, StoredIndex, MANIFEST_FILE};
use routelens_engine::retrieval::lexical::fts::split::{split_index, SplitFiles, SplitOptions};
use routelens_engine::retrieval::lexical::fts::{build_index_blob_owned, IndexSpec};
use routelens_engine::retrieval::lexical::FtsIndex;
use routelens_engine::{BundleInput, EncodedBundle, ExclusionReason, Policy};

use crate::chunking::{build_chunkings, ChunkingOptions};
use crate::cli::{BundleArgs, OutputFormat};
use crate::clock::elapsed_ms;
use crate::failure::Failure;
use crate::sources::{self, Collection};
use crate::vectors::EmbedCounts;
use routelens_engine::load::question_set::parse_questions;

/// The tool name and version written into every manifest.
pub fn tool_version() -> String {
    format!("routelens {}", env!("CARGO_PKG_VERSION"))
}

/// Runs `bundle`.
pub fn run(args: &BundleArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut policy = args.policy.policy();
    if let Some(cap) = args.max_file_bytes {
        policy.max_file_bytes = Some(cap);
    }
    if let Some(path) = &args.explain {
        let line = explain(&args.repo, args.commit.as_deref(), &policy, path)?;
        return writeln!(out, "{line}").map_err(Failure::output);
    }
    let Some(target) = &args.out else {
        return Err(Failure::Usage(
            "--out DIR is required to write a bundle".into(),
        ));
    };
    crate::folder::check_target(target)?;
    let gold = match &args.gold_file {
        Some(path) => Some(read_gold_file(path)?),
        None => None,
    };
    let started = Instant::now();
    let mut collection = Collection::new(policy);
    collection.skip_dir = crate::folder::absolute_target(target);
    let commit = match &args.commit {
        Some(commit) => Some(collection.add_git_commit(&args.repo, commit, "")?),
        None => {
            collection.add_tree(&args.repo, "")?;
            None
        }
    };
    let source = args
        .source_name
        .clone()
        .unwrap_or_else(|| sources::folder_name(&args.repo));
    let read_ms = elapsed_ms(started);
    let options = BuildOptions {
        index: IndexSpec::of(args.tokenizer.into(), !args.no_positions),
        split: (!args.no_split).then_some(SplitOptions {
            pack_bytes: args.pack_bytes,
            ..SplitOptions::default()
        }),
        bundle: BundleOptions {
            compression_level: args.compression_level,
            list_files_apart: !args.no_split,
            ..BundleOptions::default()
        },
        chunking: ChunkingOptions {
            questions: match &args.embed_questions {
                Some(path) => {
                    let name = path.display().to_string();
                    parse_questions(&name, &crate::input::read_text(path)?)?
                        .into_iter()
                        .map(|q| q.question)
                        .collect()
                }
                None => Vec::new(),
            },
            ..ChunkingOptions::from_args(&args.chunking, &[])?
        },
    };
    let built = build(collection, source, commit, options)?;
    let summary = built.write(target, read_ms, started, gold.as_deref())?;
    summary.print(args.format, out)
}

/// A bundle built in memory, with what the summary needs.
pub struct Built {
    /// The bundle's files and manifest.
    pub encoded: EncodedBundle,
    /// Skipped entries no policy rule names.
    pub skipped_special: u64,
    /// Milliseconds spent building the index blob (on its own thread).
    pub index_ms: f64,
    /// Milliseconds spent packing, compressing and hashing (at the same time as the index).
    pub encode_ms: f64,
    /// Milliseconds spent chunking and building the chunk indexes (after both).
    pub chunk_ms: f64,
    /// Files a structural chunker cut into windows, and why.
    pub chunk_notes: Vec<String>,
    /// What embedding did: per chunking embedded, and for the questions.
    pub embedding: Vec<(String, EmbedCounts)>,
}

/// How [`build`] indexes and packs.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The index's tokenizer and positions (default the paper's `unicode61`, with positions).
    pub index: IndexSpec,
    /// How the index is split into packs (bundle format 5), or `None` for the whole blob
    /// (`--no-split`).
    pub split: Option<SplitOptions>,
    /// Chunk size and DEFLATE level.
    pub bundle: BundleOptions,
    /// The chunkings of code chunks and their budget (default all three at 254 tokens).
    pub chunking: ChunkingOptions,
}

impl Default for BuildOptions {
    /// The paper's index, split into packs of the default size.
    fn default() -> Self {
        BuildOptions {
            index: IndexSpec::default(),
            split: Some(SplitOptions::default()),
            bundle: BundleOptions::default(),
            chunking: ChunkingOptions::default(),
        }
    }
}

/// The index as built, ready to add to the bundle.
enum BuiltIndex {
    Whole(StoredIndex),
    Split(SplitFiles),
}

/// Builds the index blob and stores it whole or split.
fn build_index(
    texts: Vec<(String, String)>,
    spec: IndexSpec,
    split: Option<SplitOptions>,
    compression_level: u8,
) -> Result<BuiltIndex, routelens_engine::Error> {
    let mut paths: Vec<String> = texts.iter().map(|(path, _)| path.clone()).collect();
    paths.sort();
    let blob = build_index_blob_owned(texts, spec)?;
    match split {
        None => Ok(BuiltIndex::Whole(StoredIndex::new(
            &blob,
            spec.index_format(),
            compression_level,
        ))),
        Some(split) => {
            let whole = FtsIndex::open("index", &blob, paths)?;
            split_index(
                &whole,
                SplitOptions {
                    compression_level,
                    ..split
                },
            )
            .map(BuiltIndex::Split)
        }
    }
}

/// Indexes and encodes a collection. The index is built and compressed on one thread while the
/// files are packed and hashed and the chunks compressed on another, at lower priority (the
/// index is the critical path); once the index is built, its thread compresses chunks too, so
/// that both finish together. The index is then added to the encoded bundle.
pub fn build(
    mut collection: Collection,
    source: String,
    commit: Option<String>,
    options: BuildOptions,
) -> Result<Built, Failure> {
    collection.finish();
    let skipped_special = collection.skipped_special;
    // The chunkers read the texts after the indexer has consumed its copy.
    let chunk_texts: Vec<(String, String)> = if options.chunking.chosen().is_empty() {
        Vec::new()
    } else {
        collection
            .files
            .iter()
            .filter_map(|f| Some((f.path.clone(), String::from_utf8(f.bytes.clone()).ok()?)))
            .collect()
    };
    let input = BundleInput {
        source,
        commit,
        tool_version: tool_version(),
        policy: collection.policy,
        excluded: collection.excluded,
        excluded_files: collection.excluded_files,
        // The encoder takes its files by value while the indexer reads them: one copy.
        files: collection.files.clone(),
        index: None,
    };
    let files = collection.files;
    // The encoder's packed bundle, shared so that the index thread can compress chunks too once
    // its index is built.
    let pending: OnceLock<Result<PendingBundle, routelens_engine::Error>> = OnceLock::new();
    let (indexed, encode_ms) = std::thread::scope(|scope| {
        let pending = &pending;
        let indexer = scope.spawn(move || {
            let started = Instant::now();
            let texts: Vec<(String, String)> = files
                .into_iter()
                // The policy let only UTF-8 through; a file that is not would be refused by
                // name by `PendingBundle::prepare`.
                .filter_map(|file| Some((file.path, String::from_utf8(file.bytes).ok()?)))
                .collect();
            let indexed = build_index(
                texts,
                options.index,
                options.split,
                options.bundle.compression_level,
            )
            .map(|built| (built, elapsed_ms(started)));
            if let Some(Ok(pending)) = pending.get() {
                while pending.compress_next() {}
            }
            indexed
        });
        let encoder = scope.spawn(move || {
            // The index is the build's critical path until it is built: on a machine with
            // fewer free cores than busy threads, the encoder yields to the indexer.
            lower_this_thread_priority();
            let started = Instant::now();
            let pending = pending.get_or_init(|| PendingBundle::prepare(input, options.bundle));
            if let Ok(pending) = pending {
                while pending.compress_next() {}
            }
            elapsed_ms(started)
        });
        // A panic on either thread is a bug: it goes on as the panic it was.
        (
            indexer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            encoder
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        )
    });
    let (built_index, index_ms) = indexed?;
    let encoded = pending
        .into_inner()
        .expect("the encoder thread packs the bundle before it returns")?
        .finish()?;
    let mut encoded = match built_index {
        BuiltIndex::Whole(stored) => encoded.with_index(stored)?,
        BuiltIndex::Split(split) => encoded.with_split_index(split.entry, split.files)?,
    };
    let (mut chunk_ms, mut chunk_notes, mut embedding) = (0.0, Vec::new(), Vec::new());
    if !chunk_texts.is_empty() {
        let chunked = build_chunkings(
            &encoded.manifest.files,
            &chunk_texts,
            options.chunking,
            options.bundle.compression_level,
        )?;
        (chunk_ms, chunk_notes, embedding) = (chunked.ms, chunked.notes, chunked.embedding);
        encoded = encoded.with_chunkings(chunked.stored)?;
        if let Some(questions) = chunked.question_vectors {
            encoded = encoded.with_question_vectors(questions)?;
        }
    }
    Ok(Built {
        encoded,
        skipped_special,
        index_ms,
        encode_ms,
        chunk_ms,
        chunk_notes,
        embedding,
    })
}

/// Lowers the calling thread's scheduling priority (nice 10). On Linux `setpriority` with
/// `PRIO_PROCESS` and id 0 applies to the calling thread only. Best effort: a failure leaves the
/// priority as it was, which changes only the timing.
fn lower_this_thread_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority takes plain integers and touches no memory of ours.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

impl Built {
    /// Writes the folder and returns the summary; `started` is when reading began.
    pub fn write(
        self,
        target: &Path,
        read_ms: f64,
        started: Instant,
        gold: Option<&[String]>,
    ) -> Result<Summary, Failure> {
        let write_started = Instant::now();
        crate::folder::write_folder(target, &self.encoded.files)?;
        let write_ms = elapsed_ms(write_started);
        let mut summary = Summary::of(&self.encoded, target, self.skipped_special);
        summary.build_ms = Timings {
            total: elapsed_ms(started),
            read: read_ms,
            index: self.index_ms,
            encode: self.encode_ms,
            chunk: self.chunk_ms,
            write: write_ms,
        };
        summary.chunk_notes = self.chunk_notes;
        summary.embedding = self
            .embedding
            .into_iter()
            .map(|(of, counts)| EmbedSummary { of, counts })
            .collect();
        if let Some(gold) = gold {
            summary.gold = Some(gold_report(&self.encoded.manifest, gold));
        }
        Ok(summary)
    }
}

/// What `bundle` prints: `--format json` writes this object.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    /// The manifest's source.
    pub source: String,
    /// The commit read, if any.
    pub commit: Option<String>,
    /// The bundle folder written.
    pub out: String,
    /// Searchable files in the bundle.
    pub files: u64,
    /// Their total size in bytes.
    pub raw_bytes: u64,
    /// Their total lines.
    pub lines: u64,
    /// Exclusions by reason (a pruned directory counts once).
    pub excluded: BTreeMap<ExclusionReason, u64>,
    /// FIFOs, sockets, devices and submodules, skipped unread.
    pub skipped_special: u64,
    /// The bundle folder's total size.
    pub bundle_bytes: u64,
    /// `manifest.json`'s size.
    pub manifest_bytes: u64,
    /// The number of chunk files.
    pub chunks: u64,
    /// Their total size.
    pub chunk_bytes: u64,
    /// The index's size: the blob, or the split index's base file and every pack.
    pub index_bytes: u64,
    /// The split index (bundle format 5), when the index is split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitSummary>,
    /// Each chunking: its chunker, chunks, and the sizes of its table and chunk index.
    pub chunkings: Vec<ChunkingSummary>,
    /// Files a structural chunker cut into windows (syntax errors), with why.
    pub chunk_notes: Vec<String>,
    /// What was embedded, and how much of it came from the vector cache.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub embedding: Vec<EmbedSummary>,
    /// Where the time went, in milliseconds.
    pub build_ms: Timings,
    /// With `--gold-file`: each gold path and whether it is in the bundle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gold: Option<Vec<GoldStatus>>,
    /// `demo` only: whether the bundle was already up to date and left as it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_to_date: Option<bool>,
}

/// What embedding one chunking (or the questions) did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EmbedSummary {
    /// The chunking's name, or `questions`.
    pub of: String,
    /// Texts, cached, embedded now, milliseconds.
    #[serde(flatten)]
    pub counts: EmbedCounts,
}

/// One chunking of the bundle, as the summary reports it.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct ChunkingSummary {
    /// The chunker's name.
    pub chunker: String,
    /// Its token budget.
    pub budget: u32,
    /// What counted it.
    pub counter: String,
    /// Chunks in its table.
    pub chunks: u64,
    /// The table's stored size.
    pub table_bytes: u64,
    /// The chunk index's stored size.
    pub index_bytes: u64,
    /// Its vectors' precision and stored size, when embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<(String, u64)>,
}

impl ChunkingSummary {
    /// Every chunking the manifest lists.
    fn of(manifest: &routelens_engine::Manifest) -> Vec<ChunkingSummary> {
        manifest
            .chunkings
            .iter()
            .map(|c| ChunkingSummary {
                chunker: c.chunker.name().to_string(),
                budget: c.budget,
                counter: c.counter.clone(),
                chunks: c.chunks,
                table_bytes: c.bytes,
                index_bytes: c.index.as_ref().map_or(0, |i| i.bytes),
                vectors: c
                    .vectors
                    .as_ref()
                    .map(|v| (v.precision.name().to_string(), v.bytes)),
            })
            .collect()
    }
}

/// Build time by phase, in milliseconds.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Timings {
    /// Everything, from the first read to the rename.
    pub total: f64,
    /// Reading the files through the policy.
    pub read: f64,
    /// Building the index blob, on a second thread.
    pub index: f64,
    /// Packing, compressing and hashing chunks, writing the manifest (at the same time as the
    /// index, so `total` is less than the sum).
    pub encode: f64,
    /// Chunking every file with each chunker and building the chunk indexes (after both).
    pub chunk: f64,
    /// Writing the folder.
    pub write: f64,
}

/// One gold path and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GoldStatus {
    /// The gold path.
    pub path: String,
    /// Whether the bundle holds it.
    pub included: bool,
    /// Why not: a policy reason's name, or `not-in-source`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The reason name for a gold path the source does not have at all.
pub const NOT_IN_SOURCE: &str = "not-in-source";

/// Where each gold path stands in a bundle: in it, or out with the policy's reason (re-derived
/// for path rules, listed in the manifest for content rules and links), or not in the source.
pub fn gold_report(manifest: &routelens_engine::Manifest, gold: &[String]) -> Vec<GoldStatus> {
    gold.iter()
        .map(|path| {
            let reason = if manifest.file(path).is_some() {
                None
            } else if let Some(reason) = manifest.policy.check_path(path) {
                Some(reason.name().to_string())
            } else if let Some(entry) = manifest.excluded_files.iter().find(|e| &e.path == path) {
                Some(entry.reason.name().to_string())
            } else {
                Some(NOT_IN_SOURCE.to_string())
            };
            GoldStatus {
                path: path.clone(),
                included: reason.is_none(),
                reason,
            }
        })
        .collect()
}

/// The split index's files: the base file always fetched, and the packs fetched by need.
#[derive(Debug, Default, serde::Serialize)]
pub struct SplitSummary {
    /// The base file's stored size.
    pub base_bytes: u64,
    /// Postings packs: how many, and their stored sizes' median and largest.
    pub postings: PackSizes,
    /// Positions packs (read for phrase terms only).
    pub positions: PackSizes,
    /// The pack tables' pages (a query reads its terms' pages, then their packs).
    pub pages: PackSizes,
}

/// How many packs of a kind, and their stored sizes.
#[derive(Debug, Default, serde::Serialize)]
pub struct PackSizes {
    /// How many.
    pub count: usize,
    /// Their total stored bytes.
    pub bytes: u64,
    /// The median pack's stored bytes.
    pub median_bytes: u64,
    /// The largest pack's stored bytes.
    pub largest_bytes: u64,
}

impl SplitSummary {
    /// From the base file's size and each pack's name and stored size.
    pub fn of(base_bytes: u64, packs: &[(&str, u64)]) -> SplitSummary {
        let sizes = |kind: &str| {
            let mut sizes: Vec<u64> = packs
                .iter()
                .filter(|(name, _)| name.ends_with(kind))
                .map(|&(_, bytes)| bytes)
                .collect();
            sizes.sort_unstable();
            PackSizes {
                count: sizes.len(),
                bytes: sizes.iter().sum(),
                median_bytes: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
                largest_bytes: sizes.last().copied().unwrap_or(0),
            }
        };
        SplitSummary {
            base_bytes,
            postings: sizes(".postings.deflate"),
            positions: sizes(".positions.deflate"),
            pages: sizes(".table.deflate"),
        }
    }

    /// Every file's bytes.
    fn total(&self) -> u64 {
        self.base_bytes + self.postings.bytes + self.positions.bytes + self.pages.bytes
    }

    fn line(&self) -> String {
        let kind = |name: &str, sizes: &PackSizes| {
            format!(
                "{} {name} {} bytes (median {}, largest {})",
                sizes.count, sizes.bytes, sizes.median_bytes, sizes.largest_bytes
            )
        };
        format!(
            "split     base file {} bytes (fetched before the first search); {}; {}; {}",
            self.base_bytes,
            kind("postings packs", &self.postings),
            kind("positions packs", &self.positions),
            kind("table pages", &self.pages)
        )
    }
}

impl Summary {
    /// The summary's sizes and counts from an encoded bundle.
    pub fn of(encoded: &EncodedBundle, target: &Path, skipped_special: u64) -> Summary {
        let manifest = &encoded.manifest;
        let manifest_bytes = encoded
            .files
            .iter()
            .find(|file| file.name == MANIFEST_FILE)
            .map_or(0, |file| file.bytes.len() as u64);
        Summary {
            source: manifest.source.clone(),
            commit: manifest.commit.clone(),
            out: target.display().to_string(),
            files: manifest.files.len() as u64,
            raw_bytes: manifest.raw_bytes(),
            lines: manifest.files.iter().map(|file| file.lines).sum(),
            excluded: manifest.excluded.clone(),
            skipped_special,
            bundle_bytes: manifest.stored_bytes(manifest_bytes),
            manifest_bytes,
            chunks: manifest.chunks.len() as u64,
            chunk_bytes: manifest.chunks.iter().map(|chunk| chunk.bytes).sum(),
            index_bytes: manifest.index.as_ref().map_or(0, |index| index.bytes),
            chunkings: ChunkingSummary::of(manifest),
            ..Summary::default()
        }
        .with_split(manifest.split_index.as_ref().map(|entry| {
            let packs: Vec<(&str, u64)> = encoded
                .files
                .iter()
                .map(|file| (file.name.as_str(), file.bytes.len() as u64))
                .collect();
            SplitSummary::of(entry.bytes, &packs)
        }))
    }

    /// The summary with the split index's sizes counted in.
    fn with_split(mut self, split: Option<SplitSummary>) -> Summary {
        if let Some(split) = &split {
            self.index_bytes = split.total();
            self.bundle_bytes += split.total();
        }
        self.split = split;
        self
    }

    /// Prints the summary as aligned lines or one JSON object.
    pub fn print(&self, format: OutputFormat, out: &mut dyn Write) -> Result<(), Failure> {
        let text = match format {
            OutputFormat::Json => json_line(self)?,
            OutputFormat::Table => self.text(),
        };
        out.write_all(text.as_bytes()).map_err(Failure::output)
    }

    fn text(&self) -> String {
        let mut lines = Vec::new();
        let at = self
            .commit
            .as_ref()
            .map(|sha| format!(" at {sha}"))
            .unwrap_or_default();
        let state = match self.up_to_date {
            Some(true) => "up to date, left as it was",
            _ => "written",
        };
        lines.push(format!("bundle    {} ({state})", self.out));
        lines.push(format!("source    {}{at}", self.source));
        lines.push(format!(
            "files     {} searchable, {} bytes, {} lines",
            self.files, self.raw_bytes, self.lines
        ));
        let excluded_total: u64 = self.excluded.values().sum();
        let by_reason: Vec<String> = ExclusionReason::ALL
            .iter()
            .filter_map(|reason| {
                let count = self.excluded.get(reason)?;
                Some(format!("{reason} {count}"))
            })
            .collect();
        let by_reason = if by_reason.is_empty() {
            String::new()
        } else {
            format!(": {}", by_reason.join(", "))
        };
        lines.push(format!(
            "excluded  {excluded_total}{by_reason} (an excluded directory counts once)"
        ));
        if self.skipped_special > 0 {
            lines.push(format!(
                "skipped   {} (not files: FIFOs, sockets, devices or submodules)",
                self.skipped_special
            ));
        }
        let ratio = if self.raw_bytes > 0 {
            format!(
                ", {:.3} of the raw bytes",
                self.bundle_bytes as f64 / self.raw_bytes as f64
            )
        } else {
            String::new()
        };
        lines.push(format!(
            "size      {} bytes{ratio}: manifest {}, {} chunk{} {}, index {}",
            self.bundle_bytes,
            self.manifest_bytes,
            self.chunks,
            if self.chunks == 1 { "" } else { "s" },
            self.chunk_bytes,
            self.index_bytes
        ));
        if let Some(split) = &self.split {
            lines.push(split.line());
        }
        for c in &self.chunkings {
            // CodeNib's chunker cuts by lines, not tokens.
            let unit = if c.chunker == "codenib" {
                "lines".to_string()
            } else {
                format!("tokens ({})", c.counter)
            };
            let vectors = c
                .vectors
                .as_ref()
                .map(|(precision, bytes)| format!(", vectors {bytes} bytes ({precision})"))
                .unwrap_or_default();
            lines.push(format!(
                "chunking  {}: {} chunks of at most {} {unit}, table {} bytes, index {} bytes{vectors}",
                c.chunker, c.chunks, c.budget, c.table_bytes, c.index_bytes
            ));
        }
        for e in &self.embedding {
            lines.push(format!(
                "embedded  {}: {} texts, {} from the cache, {} embedded in {:.1} s",
                e.of,
                e.counts.texts,
                e.counts.cached,
                e.counts.embedded,
                e.counts.ms / 1000.0
            ));
        }
        if !self.chunk_notes.is_empty() {
            lines.push(format!(
                "          {} files with syntax errors cut into windows (listed in --format json)",
                self.chunk_notes.len()
            ));
        }
        let t = &self.build_ms;
        lines.push(format!(
            "time      {:.0} ms (read {:.0}, index {:.0}, encode {:.0}, chunk {:.0}, write {:.0})",
            t.total, t.read, t.index, t.encode, t.chunk, t.write
        ));
        if !self.embedding.is_empty() {
            let ms: f64 = self.embedding.iter().map(|e| e.counts.ms).sum();
            lines.push(format!(
                "          (embedding {ms:.0} ms of the chunk time)"
            ));
        }
        if let Some(gold) = &self.gold {
            let inside = gold.iter().filter(|status| status.included).count();
            lines.push(format!(
                "gold      {inside} of {} gold files in the bundle",
                gold.len()
            ));
            for status in gold.iter().filter(|status| !status.included) {
                lines.push(format!(
                    "  outside: {} ({})",
                    status.path,
                    status.reason.as_deref().unwrap_or("")
                ));
            }
        }
        lines.join("\n") + "\n"
    }
}

impl Summary {
    /// The summary of a bundle folder already on disk.
    pub fn of_folder(
        folder: &crate::folder::BundleFolder,
        target: &Path,
        skipped_special: u64,
    ) -> Summary {
        let manifest = &folder.manifest;
        Summary {
            source: manifest.source.clone(),
            commit: manifest.commit.clone(),
            out: target.display().to_string(),
            files: manifest.files.len() as u64,
            raw_bytes: manifest.raw_bytes(),
            lines: manifest.files.iter().map(|file| file.lines).sum(),
            excluded: manifest.excluded.clone(),
            skipped_special,
            bundle_bytes: manifest.stored_bytes(folder.manifest_bytes),
            manifest_bytes: folder.manifest_bytes,
            chunks: manifest.chunks.len() as u64,
            chunk_bytes: manifest.chunks.iter().map(|chunk| chunk.bytes).sum(),
            index_bytes: manifest.index.as_ref().map_or(0, |index| index.bytes),
            chunkings: ChunkingSummary::of(manifest),
            ..Summary::default()
        }
        .with_split(folder_split(folder))
    }
}

/// The split index's sizes of a bundle on disk (none when whole, or when its base file cannot
/// be read: `search` names the problem then).
fn folder_split(folder: &crate::folder::BundleFolder) -> Option<SplitSummary> {
    let entry = folder.manifest.split_index.as_ref()?;
    let packs = folder.index_files().ok()?;
    let sizes: Vec<(&str, u64)> = packs.iter().map(|p| (p.file.as_str(), p.bytes)).collect();
    Some(SplitSummary::of(entry.bytes, &sizes))
}

/// One value as pretty JSON and a newline.
pub fn json_line<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|err| Failure::Io {
            context: "writing JSON".into(),
            source: std::io::Error::other(err),
        })
}

/// Reads `--gold-file`: a JSON list of paths.
fn read_gold_file(path: &Path) -> Result<Vec<String>, Failure> {
    let bytes = std::fs::read(path).map_err(|err| Failure::read(path, err))?;
    serde_json::from_slice(&bytes).map_err(|err| {
        Failure::Engine(routelens_engine::Error::Parse {
            file: path.display().to_string(),
            message: format!("expected a JSON list of paths: {err}"),
        })
    })
}

/// One sentence on why `path` is in or out of a bundle of `repo` (at `commit`, if given).
pub fn explain(
    repo: &Path,
    commit: Option<&str>,
    policy: &Policy,
    path: &str,
) -> Result<String, Failure> {
    std::fs::metadata(repo).map_err(|err| Failure::read(repo, err))?;
    // Path rules need no file.
    if policy.check_path(path).is_some() {
        return Ok(policy.explain(path, b""));
    }
    let symlink = |link: &str| {
        format!(
            "{path}: excluded (symlink): `{link}` is a symbolic link, and the bundler never \
             follows links"
        )
    };
    if let Some(commit) = commit {
        let sha = sources::resolve_commit(repo, commit)?;
        let listing = sources::git(repo, &["ls-tree", "-z", "--long", &sha, "--", path])?;
        let entry = listing
            .split(|&byte| byte == 0)
            .filter_map(sources::TreeEntry::parse)
            .find(|entry| entry.path == path.as_bytes());
        let Some(entry) = entry else {
            // A path under a symlinked directory is not in the tree either; say which link.
            return Err(Failure::Missing {
                path: PathBuf::from(path),
                message: format!("no such file in commit {sha}"),
            });
        };
        return Ok(match (entry.mode.as_str(), entry.kind.as_str()) {
            ("120000", _) => symlink(path),
            (_, "blob") => {
                let bytes = sources::cat_blobs(repo, std::iter::once(entry.oid.as_str()))?;
                policy.explain(path, bytes.first().map_or(&[][..], Vec::as_slice))
            }
            (_, "commit") => format!("{path}: skipped: a git submodule, which is not read"),
            _ => return Err(Failure::Usage(format!("{path}: a folder, not a file"))),
        });
    }
    if let Some(link) = sources::symlinked_ancestor(repo, path) {
        return Ok(symlink(&link));
    }
    let full = repo.join(path);
    let meta = std::fs::symlink_metadata(&full).map_err(|err| Failure::read(&full, err))?;
    if meta.file_type().is_symlink() {
        Ok(symlink(path))
    } else if meta.is_dir() {
        Err(Failure::Usage(format!(
            "{}: a folder, not a file",
            full.display()
        )))
    } else if meta.is_file() {
        let bytes = std::fs::read(&full).map_err(|err| Failure::read(&full, err))?;
        Ok(policy.explain(path, &bytes))
    } else {
        Ok(format!(
            "{path}: skipped: not a regular file (a FIFO, socket or device), never read"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use routelens_engine::{encode_bundle, SourceFile};

    #[test]
    fn gold_report_names_each_reason() {
        let input = BundleInput {
            files: vec![SourceFile {
                path: "src/a.rs".into(),
                bytes: b"fn a() {}".to_vec(),
            }],
            excluded_files: vec![routelens_engine::ExcludedFile {
                path: "logo.png".into(),
                reason: ExclusionReason::Binary,
            }],
            ..BundleInput::default()
        };
        let encoded = encode_bundle(input, BundleOptions::default()).unwrap();
        let gold: Vec<String> = ["src/a.rs", "node_modules/x.js", "logo.png", "gone.rs"]
            .map(String::from)
            .to_vec();
        let report = gold_report(&encoded.manifest, &gold);
        let reasons: Vec<Option<&str>> = report.iter().map(|s| s.reason.as_deref()).collect();
        assert_eq!(
            reasons,
            [
                None,
                Some("generated-dir"),
                Some("binary"),
                Some(NOT_IN_SOURCE)
            ]
        );
        assert!(report[0].included && !report[3].included);
    }
}
