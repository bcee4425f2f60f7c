//! The session itself: what is loaded, and each piece of work over it (see the module above).

use crate::stable_sort::Sorted;

use super::messages::{ChunkResult, LineJob, PackAnswer, PackedReport, WireRun};
use crate::checksum::sha256_hex;
use crate::corpus::bundle::{decode_listed_manifest, Manifest, MANIFEST_FILE};
use crate::corpus::code_chunks::Chunker;
use crate::corpus::file_texts::FileTexts;
use crate::corpus::tokens::{Cl100k, TokenCache};
use crate::delivery::context::{build_context, ContextSettings, RecomputedLines};
#[cfg(doc)]
use crate::delivery::synthetic::pack_bench_corpus;
use crate::delivery::synthetic::PACK_BENCH_ISSUE;
use crate::error::{Error, Result};
use crate::evaluate::{GridRun, GridSettings, GridStep};
use crate::load::question_set::{parse_question_set, verify_corpus};
use crate::remote::rerank::plan::parse_plan;
use crate::remote::rerank::run::{rerank_question, PreparedTexts, QuestionRun, RerankSettings};
use crate::retrieval::chunk_search::{ChunkRankings, Retriever};
#[cfg(feature = "dense")]
use crate::retrieval::cross_encoder::model::{ChunkTexts, CrossEncoder, CrossEncoderFiles};
use crate::retrieval::cross_encoder::{ChunkReranker, CrossEncoderIdentity};
#[cfg(feature = "dense")]
use crate::retrieval::dense::{
    embedder::{Embedder, ModelDigests, ModelFiles},
    pin::ModelPin,
};
use crate::retrieval::lexical::chunkings::OpenChunkings;
use crate::retrieval::lexical::fts::split::PackFile;
use crate::retrieval::lexical::issue_run::run_issue;
use crate::retrieval::lexical::{run_arm, LexicalArm, LexicalIndex, Needs, Sources, TextCorpus};
use crate::study::GoldSpan;

/// The session: at most one bundle, one counter and one embedder.
#[derive(Default)]
pub struct LiveSession {
    bundle: Option<LoadedBundle>,
    counter: Option<TokenCache<Cl100k>>,
    /// The embedding model, loaded for the first question whose vector the bundle does not
    /// store; kept across bundles.
    #[cfg(feature = "dense")]
    embedder: Option<std::sync::Arc<Embedder>>,
    /// The cross-encoder the reader brought, with the key of where it came from (its URLs);
    /// kept across bundles.
    #[cfg(feature = "dense")]
    cross_encoder: Option<(String, CrossEncoder)>,
}

/// The session's bundle and what of it is loaded.
struct LoadedBundle {
    name: String,
    manifest: Manifest,
    paths: Vec<String>,
    index: Option<LexicalIndex>,
    texts: Option<Texts>,
    chunkings: OpenChunkings,
    /// Whether the question set's stored vectors are loaded.
    question_vectors: bool,
}

/// Every file's text, by path, and the literal arms' corpus over them.
struct Texts {
    by_path: FileTexts,
    corpus: TextCorpus,
    /// The planner's term counts and the grep stage's file filter, made on their first use.
    prepared: std::cell::OnceCell<PreparedTexts>,
}

impl LiveSession {
    /// An empty session.
    pub fn new() -> Self {
        LiveSession::default()
    }

    /// Makes `name` the session's bundle from its manifest bytes and, for format 6, its file
    /// list's stored bytes. The same bundle with the same manifest keeps what is loaded;
    /// anything else drops it.
    pub fn open(
        &mut self,
        name: &str,
        manifest_bytes: &[u8],
        file_list: Option<&[u8]>,
    ) -> Result<&Manifest> {
        self.open_checked(name, (manifest_bytes, file_list), None)
    }

    /// [`LiveSession::open`], refusing manifest bytes that do not hash to `expected` (the
    /// SHA-256 of the manifest the page checked), naming the bundle.
    pub fn open_checked(
        &mut self,
        name: &str,
        (manifest_bytes, file_list): (&[u8], Option<&[u8]>),
        expected: Option<&str>,
    ) -> Result<&Manifest> {
        if let Some(expected) = expected {
            let actual = sha256_hex(manifest_bytes);
            if actual != expected {
                return Err(Error::Parse {
                    file: format!("{name}/{MANIFEST_FILE}"),
                    message: format!(
                        "refused: the copy the live worker fetched hashes to {actual}, not to \
                         {expected} as the copy the page checked"
                    ),
                });
            }
        }
        let manifest = decode_listed_manifest(manifest_bytes, file_list)?;
        let same = self
            .bundle
            .as_ref()
            .is_some_and(|b| b.name == name && b.manifest == manifest);
        if !same {
            self.bundle = Some(LoadedBundle {
                name: name.to_string(),
                paths: manifest.paths(),
                manifest,
                index: None,
                texts: None,
                chunkings: OpenChunkings::new(),
                question_vectors: false,
            });
            #[cfg(feature = "dense")]
            self.lend_embedder();
        }
        Ok(&self.bundle_named(name)?.manifest)
    }

    /// The open bundle's manifest, if `name` is open.
    pub fn manifest(&self, name: &str) -> Option<&Manifest> {
        self.bundle
            .as_ref()
            .filter(|b| b.name == name)
            .map(|b| &b.manifest)
    }

    /// Whether the open bundle `name` has its index loaded.
    pub fn has_index(&self, name: &str) -> bool {
        self.bundle_named(name).is_ok_and(|b| b.index.is_some())
    }

    /// Whether the open bundle `name` has its texts loaded.
    pub fn has_texts(&self, name: &str) -> bool {
        self.bundle_named(name).is_ok_and(|b| b.texts.is_some())
    }

    /// Whether the counter is built.
    pub fn has_counter(&self) -> bool {
        self.counter.is_some()
    }

    /// Loads bundle `name`'s index from the stored index file (verified against the manifest):
    /// the blob, or a split index's base file (its pages and packs come by
    /// [`LiveSession::add_index_file`]).
    pub fn load_index(&mut self, name: &str, stored: &[u8]) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        bundle.index = Some(LexicalIndex::from_bundle(&bundle.manifest, stored)?);
        Ok(())
    }

    /// Builds bundle `name`'s index from its loaded texts, for a bundle that stores none
    /// (`Manifest::derived_index`, a merged site's snapshot); the caller loads the texts first.
    pub fn derive_index(&mut self, name: &str) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        let texts = bundle.texts.as_ref().ok_or_else(|| Error::Unavailable {
            arm: "fts5".into(),
            needs: format!("the texts of bundle {name:?}, to build its index from"),
        })?;
        let files = texts
            .by_path
            .iter()
            .map(|(path, text)| (path.to_string(), text.to_string()))
            .collect();
        bundle.index = Some(LexicalIndex::derive(&bundle.manifest, files)?);
        Ok(())
    }

    /// The next round of bundle `name`'s split index files (table pages, then packs) that
    /// `arms` need for `issues` and that are not added yet, each once (none for a whole index or
    /// one not loaded): a caller fetches and adds them, then asks again until none are left.
    pub fn missing_index_files(
        &self,
        name: &str,
        arms: &[LexicalArm],
        issues: &[String],
    ) -> Vec<PackFile> {
        let Some(index) = self.bundle_named(name).ok().and_then(|b| b.index.as_ref()) else {
            return Vec::new();
        };
        let mut packs: Vec<PackFile> = issues
            .iter()
            .flat_map(|issue| {
                arms.iter()
                    .filter(|arm| arm.needs() == Needs::Index)
                    .flat_map(|&arm| index.missing_files(arm, issue))
            })
            .collect();
        crate::stable_sort::by(&mut packs, |a: &PackFile, b| a.file.cmp(&b.file));
        packs.dedup();
        packs
    }

    /// Adds a fetched page or pack of bundle `name`'s split index, verified against the hash
    /// its parent lists.
    pub fn add_index_file(&mut self, name: &str, file: &str, stored: &[u8]) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        let index = bundle.index.as_mut().ok_or_else(|| Error::Unavailable {
            arm: "fts5".into(),
            needs: format!("the index of bundle {name:?}, which is not loaded"),
        })?;
        index.add_file(file, stored)
    }

    /// The chunk holding `path` in bundle `name`: its position and file name (relative to the
    /// bundle's folder, the store's path included).
    pub fn chunk_of(&self, name: &str, path: &str) -> Result<(usize, String)> {
        let manifest = &self.bundle_named(name)?.manifest;
        let file = manifest.file(path).ok_or_else(|| {
            Error::field(
                MANIFEST_FILE,
                "files",
                format!("no file {path:?} in {name}"),
            )
        })?;
        let at = file.chunk as usize;
        let chunk = manifest.chunks.get(at).ok_or_else(|| {
            Error::field(
                MANIFEST_FILE,
                "chunks",
                format!("no chunk {at} for {path:?}"),
            )
        })?;
        Ok((at, manifest.located(&chunk.file)))
    }

    /// The text of `path` in bundle `name`, from the stored bytes of its chunk `at` (see
    /// [`LiveSession::chunk_of`]), chunk and file verified.
    pub fn file_text(&self, name: &str, at: usize, stored: &[u8], path: &str) -> Result<String> {
        let manifest = &self.bundle_named(name)?.manifest;
        let chunk = manifest.open_chunk(at, stored)?;
        manifest.file_text(&chunk, path).map(str::to_string)
    }

    /// Checks chunk `at` of bundle `name` against its manifest (to name a bad chunk before the
    /// rest are fetched).
    pub fn check_chunk(&self, name: &str, at: usize, stored: &[u8]) -> Result<()> {
        self.bundle_named(name)?.manifest.open_chunk(at, stored)?;
        Ok(())
    }

    /// Loads every file's text of bundle `name` from its chunks, in manifest order.
    pub fn load_texts<B: AsRef<[u8]>>(&mut self, name: &str, chunks: &[B]) -> Result<usize> {
        let bundle = self.bundle_named_mut(name)?;
        let by_path = FileTexts::from(bundle.manifest.read_all(chunks)?.into_iter().sorted_map());
        let corpus = TextCorpus::new(by_path.iter());
        let files = by_path.len();
        bundle.texts = Some(Texts {
            by_path,
            corpus,
            prepared: std::cell::OnceCell::new(),
        });
        Ok(files)
    }

    /// Whether the open bundle `name` has `chunker`'s chunking loaded.
    pub fn has_chunking(&self, name: &str, chunker: Chunker) -> bool {
        self.bundle_named(name)
            .is_ok_and(|b| b.chunkings.has(chunker))
    }

    /// Loads `chunker`'s chunking of bundle `name` from the stored bytes of its table and its
    /// chunk index (both verified against the manifest).
    pub fn load_chunking(
        &mut self,
        name: &str,
        chunker: Chunker,
        table: &[u8],
        index: &[u8],
    ) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        bundle
            .chunkings
            .open_stored(&bundle.manifest, chunker, table, index)
    }

    /// Whether bundle `name`'s `chunker` chunking has its vectors loaded.
    pub fn has_vectors(&self, name: &str, chunker: Chunker) -> bool {
        self.bundle_named(name)
            .is_ok_and(|b| b.chunkings.has_vectors(chunker))
    }

    /// Loads the vectors of bundle `name`'s loaded `chunker` chunking from their stored bytes
    /// (verified against the manifest, by `sha256` when the host computed it; another model's
    /// refused naming the file).
    pub fn load_vectors(
        &mut self,
        name: &str,
        chunker: Chunker,
        stored: (&[u8], Option<&str>),
    ) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        bundle
            .chunkings
            .open_vectors(&bundle.manifest, chunker, stored)
    }

    /// Whether bundle `name`'s question vectors are loaded.
    pub fn has_question_vectors(&self, name: &str) -> bool {
        self.bundle_named(name).is_ok_and(|b| b.question_vectors)
    }

    /// Loads bundle `name`'s stored question vectors (verified against the manifest).
    pub fn load_question_vectors(&mut self, name: &str, stored: &[u8]) -> Result<()> {
        let bundle = self.bundle_named_mut(name)?;
        bundle
            .chunkings
            .open_question_vectors(&bundle.manifest, stored)?;
        bundle.question_vectors = true;
        Ok(())
    }

    /// Whether `retriever` over bundle `name` needs the embedding model for `query`: it reads
    /// vectors, the bundle stores none for this text, and the model is not loaded.
    pub fn needs_model(&self, name: &str, retriever: Retriever, query: &str) -> bool {
        retriever.needs_vectors()
            && !self.has_embedder()
            && !self
                .bundle_named(name)
                .is_ok_and(|b| b.chunkings.has_stored_question(query))
    }

    /// Whether the embedding model is loaded.
    pub fn has_embedder(&self) -> bool {
        #[cfg(feature = "dense")]
        return self.embedder.is_some();
        #[cfg(not(feature = "dense"))]
        return false;
    }

    /// Loads the embedding model from its files (each one's size and SHA-256, `digests`,
    /// checked against the pin first) and lends it to the open bundle for questions it stores
    /// no vector for. With `page_weights`, `files.weights` are the page's narrowed weights
    /// (checked against their own pin, then widened).
    #[cfg(feature = "dense")]
    pub fn load_embedder(
        &mut self,
        files: &ModelFiles,
        digests: &ModelDigests,
        page_weights: bool,
    ) -> Result<()> {
        let pin = ModelPin::minilm();
        let embedder = if page_weights {
            Embedder::load_page_weights(files, digests, pin)?
        } else {
            Embedder::load_digested(files, digests, pin)?
        };
        self.embedder = Some(std::sync::Arc::new(embedder));
        self.lend_embedder();
        Ok(())
    }

    /// Hands the loaded embedder, if any, to the open bundle's chunkings.
    #[cfg(feature = "dense")]
    fn lend_embedder(&mut self) {
        if let (Some(embedder), Some(bundle)) = (&self.embedder, &mut self.bundle) {
            let embedder = embedder.clone();
            bundle.chunkings.set_embedder(Box::new(move |text: &str| {
                let mut vectors = embedder.embed(&[text])?;
                Ok(vectors.pop().unwrap_or_default())
            }));
        }
    }

    /// `retriever` over bundle `name`'s loaded `chunker` chunking (capped per file when `cap`
    /// is set), with the query's time by `clock` (ms): for dense and hybrid, embedding a
    /// question the bundle stores no vector for is part of the time.
    pub fn chunk_search(
        &self,
        name: &str,
        (chunker, retriever): (Chunker, Retriever),
        query: &str,
        (k, cap): (usize, Option<usize>),
        clock: &mut dyn FnMut() -> f64,
    ) -> Result<(Vec<ChunkResult>, f64)> {
        let chunkings = &self.bundle_named(name)?.chunkings;
        let started = clock();
        let hits = chunkings.search((chunker, retriever), query, k, cap)?;
        let ms = clock() - started;
        let table = chunkings.table(chunker)?;
        let results = hits
            .iter()
            .map(|hit| {
                let c = &table[hit.chunk];
                ChunkResult {
                    path: c.path.clone(),
                    start_line: c.start_line,
                    end_line: c.end_line,
                    kind: c.kind.clone(),
                    name: c.name.clone(),
                    score: hit.score,
                }
            })
            .collect();
        Ok((results, ms))
    }

    /// Whether the question set `text` (from `file`) pins its corpus and bundle `name` keeps its
    /// files' hashes with their texts (format 6) that are not loaded yet: then [`grid`] needs
    /// them. A set that does not parse needs nothing here ([`grid`] names its error).
    ///
    /// [`grid`]: LiveSession::grid
    pub fn pins_need_texts(&self, name: &str, file: &str, text: &str) -> bool {
        let Ok(bundle) = self.bundle_named(name) else {
            return false;
        };
        let hashes_apart = bundle.manifest.files.iter().any(|f| f.sha256.is_none());
        hashes_apart
            && bundle.texts.is_none()
            && parse_question_set(file, text).is_ok_and(|set| set.corpus.is_some())
    }

    /// A grid of `settings` over the question set `text` (from `file`) on bundle `name`: the
    /// set parsed, its corpus pin (if any) checked against the manifest.
    pub fn grid(
        &self,
        name: &str,
        file: &str,
        text: &str,
        settings: GridSettings,
    ) -> Result<GridRun> {
        let bundle = self.bundle_named(name)?;
        let manifest = &bundle.manifest;
        let set = parse_question_set(file, text)?;
        if let Some(pinned) = &set.corpus {
            // Format 6 keeps the files' hashes with their texts.
            let texts = bundle.texts.as_ref().map(|t| &t.by_path);
            verify_corpus(pinned, manifest, name, &mut |path| match texts {
                Some(texts) => Ok(sha256_hex(texts.get(path).map_or(&[][..], str::as_bytes))),
                None => Err(Error::field(
                    &format!("bundle {name}"),
                    "texts",
                    "not loaded, and the question set pins its corpus: this bundle keeps each \
                     file's SHA-256 with its text (format 6), so the texts are needed to check it",
                )),
            })?;
        }
        let available: Vec<Chunker> = manifest.chunkings.iter().map(|c| c.chunker).collect();
        GridRun::new(file, set, settings, &available)
    }

    /// Both of CodeNib's stages for `query` over bundle `name`'s loaded chunking and texts, with
    /// the run's time by `clock` (ms). `plan`, when given, is the plan's JSON text (named "the
    /// plan" in errors) and replaces the settings' plan.
    pub fn rerank(
        &self,
        name: &str,
        query: &str,
        (settings, plan): (&RerankSettings, Option<&str>),
        clock: &mut dyn FnMut() -> f64,
    ) -> Result<(QuestionRun, f64)> {
        let mut settings = settings.clone();
        if let Some(text) = plan {
            settings.plan = Some(parse_plan("the plan", text)?);
        }
        let bundle = self.bundle_named(name)?;
        let texts = bundle.texts.as_ref().ok_or_else(|| {
            Error::setting(
                "texts",
                name,
                "a bundle whose texts are loaded (grep reads them)",
            )
        })?;
        let started = clock();
        let prepared = texts
            .prepared
            .get_or_init(|| PreparedTexts::new(&texts.by_path));
        let text_of = texts.text_of();
        let wants_model = settings
            .rerankers
            .iter()
            .any(|r| r.cross_encoder_input().is_some());
        let scorer = if wants_model {
            Some(self.chunk_reranker(&text_of)?)
        } else {
            None
        };
        let run = rerank_question(
            query,
            &bundle.chunkings,
            &texts.by_path,
            prepared,
            (&settings, scorer.as_deref()),
        )?;
        Ok((run, clock() - started))
    }

    /// One step of `run` over bundle `name`'s loaded chunkings; its reranker rows are scored
    /// by the loaded cross-encoder over the bundle's texts.
    pub fn grid_step(&self, name: &str, run: &mut GridRun) -> Result<GridStep> {
        let bundle = self.bundle_named(name)?;
        if !run.needs_reranker() {
            return run.step(&bundle.chunkings);
        }
        let texts = bundle.texts.as_ref().ok_or_else(|| {
            Error::setting(
                "texts",
                name,
                "a bundle whose texts are loaded (the cross-encoder reads the chunks' lines)",
            )
        })?;
        let text_of = texts.text_of();
        let scorer = self.chunk_reranker(&text_of)?;
        run.step_with(&bundle.chunkings, Some(scorer.as_ref()))
    }

    /// Whether the cross-encoder loaded from `key` (its URLs) is the session's.
    pub fn has_cross_encoder(&self, key: &str) -> bool {
        #[cfg(feature = "dense")]
        return self.cross_encoder.as_ref().is_some_and(|(k, _)| k == key);
        #[cfg(not(feature = "dense"))]
        {
            let _ = key;
            false
        }
    }

    /// The loaded cross-encoder's name and files' SHA-256.
    pub fn cross_encoder_identity(&self) -> Option<CrossEncoderIdentity> {
        #[cfg(feature = "dense")]
        return self
            .cross_encoder
            .as_ref()
            .map(|(_, m)| m.identity().clone());
        #[cfg(not(feature = "dense"))]
        None
    }

    /// Loads a cross-encoder from its files' bytes (from `key`, its URLs), replacing any other.
    #[cfg(feature = "dense")]
    pub fn load_cross_encoder(
        &mut self,
        key: &str,
        files: &CrossEncoderFiles,
        name: &str,
    ) -> Result<CrossEncoderIdentity> {
        let model = CrossEncoder::load(files, name)?;
        let identity = model.identity().clone();
        self.cross_encoder = Some((key.to_string(), model));
        Ok(identity)
    }

    /// The loaded cross-encoder over texts by `text_of` (a build without `dense` has none).
    fn chunk_reranker<'m, 't: 'm>(
        &'m self,
        text_of: &'m dyn Fn(&str) -> Option<&'t str>,
    ) -> Result<Box<dyn ChunkReranker + 'm>> {
        #[cfg(feature = "dense")]
        {
            let (_, model) = self.cross_encoder.as_ref().ok_or_else(no_cross_encoder)?;
            Ok(Box::new(ChunkTexts { model, text_of }))
        }
        #[cfg(not(feature = "dense"))]
        {
            let _ = text_of;
            Err(no_cross_encoder())
        }
    }

    /// Builds the counter from the cl100k_base rank table's bytes.
    pub fn load_counter(&mut self, rank_table: &[u8]) -> Result<()> {
        self.counter = Some(TokenCache::new(Cl100k::from_rank_table(rank_table)?));
        Ok(())
    }

    /// Every arm over `issue` and the fusion of `fused` (the engine's [`run_issue`]); arms whose
    /// parts are not loaded fail with what they need.
    pub fn run_issue(
        &self,
        name: &str,
        issue: &str,
        k: usize,
        fused: &[String],
        now: &mut dyn FnMut() -> f64,
    ) -> Result<Vec<WireRun>> {
        let bundle = self.bundle_named(name)?;
        let runs = run_issue(&bundle.sources(), issue, k, fused, now);
        Ok(runs.into_iter().map(WireRun::from).collect())
    }

    /// One timed call of `arm` over `issue`, in ms of `now`; only the engine call is timed.
    pub fn time_call(
        &self,
        name: &str,
        arm: LexicalArm,
        issue: &str,
        k: usize,
        now: &mut dyn FnMut() -> f64,
    ) -> Result<f64> {
        let bundle = self.bundle_named(name)?;
        let sources = bundle.sources();
        let started = now();
        let output = run_arm(arm, &sources, issue, k);
        let ms = now() - started;
        output.map_err(|error| Error::Relayed {
            message: format!("{}: {error}", arm.name()),
        })?;
        Ok(ms)
    }

    /// Selects and packs each ranking for `issue`, each timed, with the texts of the files each
    /// report names. A ranking that cannot be packed answers with its message.
    pub fn pack(
        &mut self,
        name: &str,
        issue: &str,
        rankings: &[(String, Vec<String>)],
        settings: &ContextSettings,
        gold: &[GoldSpan],
        now: &mut dyn FnMut() -> f64,
    ) -> Result<Vec<PackAnswer>> {
        let (texts, counter) = self.texts_and_counter(name)?;
        let gold = (!gold.is_empty()).then_some(gold);
        Ok(rankings
            .iter()
            .map(|(arm, ranking)| {
                let started = now();
                let result =
                    build_context(issue, ranking, settings, texts.text_of(), gold, counter)
                        .map(|report| {
                            let ms = now() - started;
                            let shown = report
                                .files
                                .iter()
                                .chain(report.gold.iter().map(|span| &span.path));
                            let texts = shown
                                .filter_map(|path| {
                                    Some((path.clone(), texts.by_path.get(path)?.to_string()))
                                })
                                .collect();
                            PackedReport { report, ms, texts }
                        })
                        .map_err(|error| error.to_string());
                PackAnswer {
                    arm: arm.clone(),
                    result,
                }
            })
            .collect())
    }

    /// Packs every ranking of `job` and adds each line score to `rows` (one row per arm, in
    /// the order arms are first seen). A pack that fails fails the call: a missing score would
    /// bias the mean.
    pub fn score_lines(
        &mut self,
        name: &str,
        job: &LineJob,
        settings: &ContextSettings,
        rows: &mut Vec<RecomputedLines>,
    ) -> Result<()> {
        let (texts, counter) = self.texts_and_counter(name)?;
        for (arm, ranking) in &job.rankings {
            let report = build_context(
                &job.text,
                ranking,
                settings,
                texts.text_of(),
                Some(&job.gold),
                counter,
            )?;
            let Some(score) = report.score else { continue };
            match rows.iter_mut().find(|row| row.arm == *arm) {
                Some(row) => row.scores.push((job.index, score)),
                None => rows.push(RecomputedLines {
                    arm: arm.clone(),
                    k: settings.k,
                    scores: vec![(job.index, score)],
                }),
            }
        }
        Ok(())
    }

    /// One round of the pack bench over `corpus` ([`pack_bench_corpus`]): a first pack with a
    /// fresh memo (`warm` `None`) or a re-pack at the budget less `warm` with the session's
    /// memo. `(ms, tokens used)`.
    pub fn pack_bench_round(
        &mut self,
        corpus: &[(String, String)],
        warm: Option<usize>,
        now: &mut dyn FnMut() -> f64,
    ) -> Result<(f64, usize)> {
        let session_counter = self.counter.as_mut().ok_or_else(needs_counter)?;
        let ranking: Vec<String> = corpus.iter().map(|(path, _)| path.clone()).collect();
        let base = ContextSettings {
            k: corpus.len(),
            ..ContextSettings::default()
        };
        let settings = ContextSettings {
            budget_tokens: base.budget_tokens - warm.unwrap_or(0),
            ..base
        };
        let text_of = |path: &str| {
            corpus
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, text)| text.as_str())
        };
        // A first pack encodes every block: it gets an empty memo over the same encoder.
        let mut fresh;
        let counter = match warm {
            None => {
                fresh = TokenCache::new(session_counter.counter().clone());
                &mut fresh
            }
            Some(_) => session_counter,
        };
        let started = now();
        let report = build_context(
            PACK_BENCH_ISSUE,
            &ranking,
            &settings,
            text_of,
            None,
            counter,
        )?;
        Ok((now() - started, report.pack.tokens_used))
    }

    fn bundle_named(&self, name: &str) -> Result<&LoadedBundle> {
        match &self.bundle {
            Some(bundle) if bundle.name == name => Ok(bundle),
            other => Err(not_open(name, other.as_ref())),
        }
    }

    fn bundle_named_mut(&mut self, name: &str) -> Result<&mut LoadedBundle> {
        self.bundle_named(name)?;
        self.bundle.as_mut().ok_or_else(|| not_open(name, None))
    }

    fn texts_and_counter(&mut self, name: &str) -> Result<(&Texts, &mut TokenCache<Cl100k>)> {
        let bundle = match &self.bundle {
            Some(bundle) if bundle.name == name => bundle,
            other => return Err(not_open(name, other.as_ref())),
        };
        let texts = bundle.texts.as_ref().ok_or_else(|| Error::Unavailable {
            arm: "pack".into(),
            needs: format!("the texts of bundle {name:?}, which are not loaded"),
        })?;
        let counter = self.counter.as_mut().ok_or_else(needs_counter)?;
        Ok((texts, counter))
    }
}

impl LoadedBundle {
    fn sources(&self) -> Sources<'_> {
        let mut sources = Sources::new(&self.paths);
        if let Some(index) = &self.index {
            sources = sources.with_index(index);
        }
        if let Some(texts) = &self.texts {
            sources = sources.with_texts(&texts.corpus);
        }
        sources
    }
}

impl Texts {
    fn text_of<'s>(&'s self) -> impl Fn(&str) -> Option<&'s str> + 's {
        |path| self.by_path.get(path)
    }
}

fn not_open(name: &str, open: Option<&LoadedBundle>) -> Error {
    Error::Unavailable {
        arm: "live session".into(),
        needs: match open {
            Some(bundle) => format!("bundle {name:?} loaded, but {:?} is", bundle.name),
            None => format!("bundle {name:?} loaded, but no bundle is"),
        },
    }
}

fn no_cross_encoder() -> Error {
    Error::Unavailable {
        arm: "cross-encoder".into(),
        needs: "a cross-encoder model, which is not loaded (give its folder or URL)".into(),
    }
}

fn needs_counter() -> Error {
    Error::Unavailable {
        arm: "pack".into(),
        needs: "the cl100k_base counter, which is not built yet".into(),
    }
}
