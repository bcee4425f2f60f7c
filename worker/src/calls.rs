//! What each call does: fetching (the worker's only I/O) and the session's work, with progress
//! lines and, for long calls, a step loop that yields to hear `cancel`.

use routelens_engine::corpus::bundle::{file_list_of, locate};
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::delivery::context::ContextSettings;
use routelens_engine::delivery::synthetic::pack_bench_corpus;
use routelens_engine::evaluate::adjudication_report::{gold_agreement, same_questions};
use routelens_engine::evaluate::{GridReport, GridRun, GridSettings, GridStep};
use routelens_engine::live::live_session::{
    AlsoGold, AnswerBody, BundleUrls, CallBody, CrossEncoderAt, LineJob, LiveSession,
};
use routelens_engine::load::question_set::parse_question_set;
use routelens_engine::remote::rerank::settings::RerankSettings;
use routelens_engine::retrieval::lexical::timing::{ArmTimes, TimingPlan};
use routelens_engine::retrieval::lexical::LexicalIndex;
use routelens_engine::{BootstrapConfig, Error, LexicalArm, Result as EngineResult};

use routelens_engine::retrieval::chunk_search::Retriever;

use crate::cross_encoder::load_cross_encoder;
use crate::host::{fetch, fetch_metered, next_tick, now_ms, sha256_hex, with_session, Progress};
use crate::model::load_model;
use crate::packs::{fetch_packs, remember, urls_of};

/// The session's work, its error as the message the page shows.
fn session<T>(work: impl FnOnce(&mut LiveSession) -> EngineResult<T>) -> Result<T, String> {
    with_session(work).map_err(|error| error.to_string())
}

/// How often a long call reports progress and checks for `cancel`, in ms.
const YIELD_EVERY_MS: f64 = 50.0;

/// Answers one call; a failure answers with its message.
pub async fn answer(p: Progress, body: CallBody) -> AnswerBody {
    let done = match body {
        CallBody::Load {
            bundle,
            files,
            manifest_sha256,
            index,
            texts,
            chunkings,
            vectors,
        } => {
            let parts = Parts {
                index,
                texts,
                chunkings,
                vectors,
            };
            load(p, &bundle, &files, manifest_sha256.as_deref(), parts).await
        }
        CallBody::LoadCounter { url } => load_counter(p, &url).await,
        CallBody::RunIssue {
            bundle,
            issue,
            k,
            fused,
        } => match fetch_packs(p, &bundle, std::slice::from_ref(&issue)).await {
            Ok(()) => session(|s| s.run_issue(&bundle, &issue, k, &fused, &mut now_ms))
                .map(|runs| AnswerBody::Ran { runs }),
            Err(message) => Err(message),
        },
        CallBody::RunIssues {
            bundle,
            issues,
            k,
            fused,
        } => run_issues(p, &bundle, &issues, k, &fused).await,
        CallBody::Pack {
            bundle,
            issue,
            rankings,
            settings,
            gold,
        } => session(|s| s.pack(&bundle, &issue, &rankings, &settings, &gold, &mut now_ms))
            .map(|packs| AnswerBody::Packed { packs }),
        CallBody::LineScores {
            bundle,
            jobs,
            settings,
        } => line_scores(p, &bundle, jobs, settings).await,
        CallBody::Time {
            bundle,
            questions,
            rounds,
            k,
        } => time(p, &bundle, &questions, rounds, k).await,
        CallBody::PackBench => pack_bench(p).await,
        CallBody::ChunkSearch {
            bundle,
            chunker,
            query,
            k,
            cap,
            retriever,
            model,
            page_weights,
        } => {
            chunk_search(
                p,
                (&bundle, chunker, retriever),
                &query,
                (k, cap),
                model.as_deref().map(|folder| (folder, page_weights)),
            )
            .await
        }
        CallBody::Evaluate {
            bundle,
            questions,
            settings,
            reranker_model,
            also_questions,
        } => {
            evaluate(
                p,
                &bundle,
                (&questions, also_questions.as_deref()),
                settings,
                reranker_model.as_ref(),
            )
            .await
        }
        CallBody::Rerank {
            bundle,
            query,
            settings,
            plan,
            reranker_model,
        } => {
            rerank(
                p,
                &bundle,
                &query,
                (&settings, plan.as_deref()),
                reranker_model.as_ref(),
            )
            .await
        }
        // Heard by the channel as it arrives; never queued.
        CallBody::FileText { bundle, path } => file_text(&bundle, &path).await,
        CallBody::Cancel { call } => Err(format!("cancel {call} reached the queue")),
    };
    done.unwrap_or_else(|message| AnswerBody::Failed { message })
}

/// The parts of a bundle a `load` call asks for.
struct Parts {
    index: bool,
    texts: bool,
    chunkings: Vec<Chunker>,
    vectors: bool,
}

/// A chunk search; a dense or hybrid question the bundle stores no vector for first loads the
/// embedding model from `model`'s folder (once a session), its narrowed page weights when the
/// folder holds them.
async fn chunk_search(
    p: Progress,
    (bundle, chunker, retriever): (&str, Chunker, Retriever),
    query: &str,
    (k, cap): (usize, Option<usize>),
    model: Option<(&str, bool)>,
) -> Result<AnswerBody, String> {
    if with_session(|s| s.needs_model(bundle, retriever, query)) {
        let (base, page_weights) = model.ok_or_else(|| {
            format!(
                "{}: this question's vector is not stored in the bundle, and no embedding model                  is at hand to embed it",
                retriever.name()
            )
        })?;
        load_model(p, base, page_weights).await?;
    }
    session(|s| s.chunk_search(bundle, (chunker, retriever), query, (k, cap), &mut now_ms))
        .map(|(hits, ms)| AnswerBody::ChunkHits { hits, ms })
}

/// Opens the bundle from its manifest, then fetches and verifies the parts asked for that are
/// not loaded yet, each file named in the progress as it comes.
async fn load(
    p: Progress,
    bundle: &str,
    urls: &BundleUrls,
    manifest_sha256: Option<&str>,
    Parts {
        index,
        texts,
        chunkings,
        vectors,
    }: Parts,
) -> Result<AnswerBody, String> {
    let url_of = |file: &str| {
        urls.url_of(file)
            .ok_or_else(|| format!("{bundle}: the picked folder has no {file}"))
    };
    remember(bundle, urls);
    if !with_session(|s| s.manifest(bundle).is_some()) {
        p.say(format!("{bundle}: fetching manifest.json"));
        let manifest_bytes = fetch(&url_of("manifest.json")?).await?;
        // Format 6 lists its files apart; the list is named (and hashed) by the manifest.
        let list = file_list_of(&manifest_bytes).map_err(|error| format!("{bundle}: {error}"))?;
        let list_bytes = match list {
            Some(file) => {
                p.say(format!("{bundle}: fetching the file list"));
                Some(fetch(&url_of(&file)?).await?)
            }
            None => None,
        };
        session(|s| {
            s.open_checked(
                bundle,
                (&manifest_bytes, list_bytes.as_deref()),
                manifest_sha256,
            )
            .map(|_| ())
        })?;
    }
    // A merged site's bundles keep their files in a shared store.
    let store = with_session(|s| s.manifest(bundle).and_then(|m| m.store.clone()));
    let url_of = |file: &str| url_of(&locate(store.as_deref(), file));
    let (index_entry, chunks, files, stored_bytes) = with_session(|s| {
        s.manifest(bundle).map(|m| {
            (
                LexicalIndex::file_of(m).map(|(file, bytes)| (file.to_string(), bytes)),
                m.chunks
                    .iter()
                    .map(|c| (c.file.clone(), c.bytes))
                    .collect::<Vec<_>>(),
                m.files.len(),
                m.stored_bytes(0),
            )
        })
    })
    .ok_or_else(|| format!("{bundle}: the manifest did not stay loaded"))?;
    let total = chunks.len() + 1;
    // A merged site's snapshot may store no index: it is built here from the texts.
    let derived = with_session(|s| {
        s.manifest(bundle)
            .is_some_and(|m| m.derived_index.is_some())
    });
    if index && !derived && !with_session(|s| s.has_index(bundle)) {
        let (file, bytes) =
            index_entry.ok_or_else(|| format!("{bundle}: this bundle has no search index"))?;
        p.say(format!(
            "loading 1/{total} files (the index, {bytes} bytes)"
        ));
        let blob = fetch(&url_of(&file)?).await?;
        session(|s| s.load_index(bundle, &blob))?;
    }
    if (texts || (index && derived)) && !with_session(|s| s.has_texts(bundle)) {
        let mut stored = Vec::with_capacity(chunks.len());
        let all_bytes: u64 = chunks.iter().map(|(_, bytes)| bytes).sum();
        let mut fetched = 0;
        for (at, (file, bytes)) in chunks.iter().enumerate() {
            // In words, not by the content-hashed file name.
            p.say(format!(
                "loading {}/{total} files (the texts, part {} of {}: {} of {} kB in)",
                at + 2,
                at + 1,
                chunks.len(),
                fetched / 1000,
                all_bytes / 1000
            ));
            fetched += bytes;
            let bytes = fetch(&url_of(file)?).await?;
            // Verified as it arrives, so a bad chunk is named before the rest are fetched.
            session(|s| s.check_chunk(bundle, at, &bytes))?;
            stored.push(bytes);
        }
        session(|s| s.load_texts(bundle, &stored))?;
    }
    if index && derived && !with_session(|s| s.has_index(bundle)) {
        p.say(format!(
            "building the search index from the {files} files' texts (this snapshot stores none)"
        ));
        session(|s| s.derive_index(bundle))?;
    }
    for &chunker in &chunkings {
        if with_session(|s| s.has_chunking(bundle, chunker)) {
            continue;
        }
        let (table, index) = session(|s| {
            let manifest = s
                .manifest(bundle)
                .ok_or_else(|| Error::setting("bundle", bundle, "the open bundle"))?;
            let table = manifest.chunking_or_error(chunker)?.file.clone();
            let index = manifest.chunk_index_entry(chunker)?.clone();
            Ok((table, index))
        })?;
        p.say(format!("loading the {} chunking's table", chunker.name()));
        let table_bytes = fetch(&url_of(&table)?).await?;
        p.say(format!(
            "loading the {} chunking's search index ({} kB)",
            chunker.name(),
            index.bytes / 1000
        ));
        let index_bytes = fetch(&url_of(&index.file)?).await?;
        session(|s| s.load_chunking(bundle, chunker, &table_bytes, &index_bytes))?;
    }
    if vectors {
        load_vectors(p, bundle, &chunkings, &url_of).await?;
    }
    Ok(AnswerBody::Loaded {
        files,
        chunks: chunks.len(),
        stored_bytes,
        texts: with_session(|s| s.has_texts(bundle)),
    })
}

/// The text of `path` in the loaded `bundle`: its chunk fetched and verified (for the page, which
/// cannot decode a version pack).
async fn file_text(bundle: &str, path: &str) -> Result<AnswerBody, String> {
    let (at, file) = session(|s| s.chunk_of(bundle, path))?;
    let url = urls_of(bundle)?
        .url_of(&file)
        .ok_or_else(|| format!("{bundle}: the picked folder has no {file}"))?;
    let stored = fetch(&url).await?;
    let text = session(|s| s.file_text(bundle, at, &stored, path))?;
    Ok(AnswerBody::FileText { text })
}

/// Fetches and verifies the vectors of each of `chunkings` that stores them, and the question
/// set's, unless loaded; each with its bytes in the progress.
async fn load_vectors(
    p: Progress,
    bundle: &str,
    chunkings: &[Chunker],
    url_of: &impl Fn(&str) -> Result<String, String>,
) -> Result<(), String> {
    let (entries, questions) = with_session(|s| {
        s.manifest(bundle).map(|m| {
            let entries: Vec<_> = m
                .chunkings
                .iter()
                .filter(|c| chunkings.contains(&c.chunker))
                .filter_map(|c| c.vectors.clone().map(|v| (c.chunker, v)))
                .collect();
            (entries, m.question_vectors.clone())
        })
    })
    .ok_or_else(|| format!("{bundle}: the manifest did not stay loaded"))?;
    for (chunker, entry) in entries {
        if with_session(|s| s.has_vectors(bundle, chunker)) {
            continue;
        }
        let text = format!(
            "loading the {} chunking's vectors ({} vectors, {})",
            chunker.name(),
            entry.count,
            entry.precision.name()
        );
        let bytes = fetch_metered(&url_of(&entry.file)?, |got| {
            p.say_bytes(text.clone(), got, entry.bytes);
            !p.cancelled()
        })
        .await?;
        // The browser hashes the bytes (native code; the engine's hash in wasm took about
        // 400 ms for the demo's three chunkings), and the engine checks that digest.
        let digest = sha256_hex(&bytes).await;
        session(|s| s.load_vectors(bundle, chunker, (&bytes, Some(&digest))))?;
    }
    if let Some(entry) = questions {
        if !with_session(|s| s.has_question_vectors(bundle)) {
            p.say(format!(
                "loading the question set's vectors ({} questions)",
                entry.count
            ));
            let bytes = fetch(&url_of(&entry.file)?).await?;
            session(|s| s.load_question_vectors(bundle, &bytes))?;
        }
    }
    Ok(())
}

async fn load_counter(p: Progress, url: &str) -> Result<AnswerBody, String> {
    let started = now_ms();
    if !with_session(|s| s.has_counter()) {
        p.say(format!(
            "loading the cl100k_base rank table ({url}, 1.7 MB)"
        ));
        let bytes = fetch(url).await?;
        p.say(format!(
            "building the cl100k_base encoder from {} bytes",
            bytes.len()
        ));
        with_session(|s| s.load_counter(&bytes)).map_err(|e| format!("{url}: {e}"))?;
    }
    Ok(AnswerBody::CounterReady {
        ms: now_ms() - started,
    })
}

async fn run_issues(
    p: Progress,
    bundle: &str,
    issues: &[String],
    k: usize,
    fused: &[String],
) -> Result<AnswerBody, String> {
    fetch_packs(p, bundle, issues).await?;
    let mut out = Vec::with_capacity(issues.len());
    let mut painted = f64::NEG_INFINITY;
    for (done, issue) in issues.iter().enumerate() {
        if now_ms() - painted > YIELD_EVERY_MS {
            p.say(format!("running question {}/{}", done + 1, issues.len()));
            next_tick().await;
            if p.cancelled() {
                return Ok(AnswerBody::RanAll {
                    issues: out,
                    cancelled: true,
                });
            }
            painted = now_ms();
        }
        let runs = session(|s| s.run_issue(bundle, issue, k, fused, &mut now_ms))?;
        out.push(runs);
    }
    Ok(AnswerBody::RanAll {
        issues: out,
        cancelled: false,
    })
}

async fn line_scores(
    p: Progress,
    bundle: &str,
    jobs: Vec<LineJob>,
    settings: ContextSettings,
) -> Result<AnswerBody, String> {
    let mut rows = Vec::new();
    let total = jobs.len();
    for (done, job) in jobs.iter().enumerate() {
        p.say(format!("packing issue {}/{total}", done + 1));
        next_tick().await;
        if p.cancelled() {
            return Ok(AnswerBody::Lines {
                rows,
                cancelled: true,
            });
        }
        session(|s| s.score_lines(bundle, job, &settings, &mut rows))?;
    }
    Ok(AnswerBody::Lines {
        rows,
        cancelled: false,
    })
}

/// The plan of [`TimingPlan`]: arm by arm, round by round, question by question; only the
/// engine call is timed.
async fn time(
    p: Progress,
    bundle: &str,
    questions: &[String],
    rounds: usize,
    k: usize,
) -> Result<AnswerBody, String> {
    // Fetching is not timed: every question's packs come first.
    fetch_packs(p, bundle, questions).await?;
    let plan = TimingPlan::new(&LexicalArm::ALL, questions.len(), rounds);
    let mut times = ArmTimes::default();
    let mut painted = now_ms();
    for at in 0..plan.len() {
        let Some(step) = plan.step(at) else { break };
        if now_ms() - painted > YIELD_EVERY_MS {
            p.say(format!(
                "timing {}: call {at} of {}",
                step.arm.name(),
                plan.len()
            ));
            next_tick().await;
            if p.cancelled() {
                return Ok(AnswerBody::Timed {
                    arms: times.summary(),
                    cancelled: true,
                });
            }
            painted = now_ms();
        }
        let question = &questions[step.question];
        let ms = session(|s| s.time_call(bundle, step.arm, question, k, &mut now_ms))?;
        times.record(step, ms);
    }
    Ok(AnswerBody::Timed {
        arms: times.summary(),
        cancelled: false,
    })
}

/// CodeNib's two stages for one question; a cross-encoder reranker first loads its model.
async fn rerank(
    p: Progress,
    bundle: &str,
    query: &str,
    (settings, plan): (&RerankSettings, Option<&str>),
    model: Option<&CrossEncoderAt>,
) -> Result<AnswerBody, String> {
    let wants_model = settings
        .rerankers
        .iter()
        .any(|r| r.cross_encoder_input().is_some());
    if let (true, Some(at)) = (wants_model, model) {
        load_cross_encoder(p, at).await?;
    }
    session(|s| s.rerank(bundle, query, (settings, plan), &mut now_ms)).map(|(run, ms)| {
        AnswerBody::Reranked {
            run: Box::new(run),
            ms,
        }
    })
}

/// The grid, a step at a time: progress (and a look for `cancel`) every 50 ms. Reranker rows
/// with a model first load it, and the settings then name it (other files named are refused).
/// With a second question set of the same questions, the same grid against its gold after, and
/// how far the two golds agree.
async fn evaluate(
    p: Progress,
    bundle: &str,
    (questions, also): (&str, Option<&str>),
    mut settings: GridSettings,
    model: Option<&CrossEncoderAt>,
) -> Result<AnswerBody, String> {
    let started = now_ms();
    if let (false, Some(at)) = (settings.rerankers.is_empty(), model) {
        let loaded = load_cross_encoder(p, at).await?;
        if let Some(asked) = &settings.reranker_model {
            asked
                .check_same(&loaded, "the grid's settings")
                .map_err(|error| error.to_string())?;
        }
        settings.reranker_model = Some(loaded);
    }
    let text = fetch_text(p, questions).await?;
    let second = match also {
        Some(url) => {
            let other = fetch_text(p, url).await?;
            let sets = (|| {
                let first = parse_question_set(questions, &text)?;
                let second = parse_question_set(url, &other)?;
                same_questions(&first, &second, url)?;
                let bootstrap = BootstrapConfig {
                    resamples: settings.resamples,
                    seed: settings.seed,
                };
                gold_agreement(&first.questions, &second.questions, bootstrap)
            })();
            Some((url, other, sets.map_err(|e| e.to_string())?))
        }
        None => None,
    };
    // A pinned corpus is checked by the files' hashes, which format 6 keeps with the texts.
    if with_session(|s| s.pins_need_texts(bundle, questions, &text)) {
        let texts = Parts {
            index: false,
            texts: true,
            chunkings: Vec::new(),
            vectors: false,
        };
        load(p, bundle, &urls_of(bundle)?, None, texts).await?;
    }
    let run = session(|s| s.grid(bundle, questions, &text, settings.clone()))?;
    let (report, done, total) = match run_grid(p, bundle, run, started, "").await? {
        Ok(report) => report,
        Err(cancelled) => return Ok(cancelled),
    };
    let also = match second {
        Some((url, other, gold_agreement)) => {
            let run = session(|s| s.grid(bundle, url, &other, settings))?;
            let against = format!("against {url}: ");
            match run_grid(p, bundle, run, started, &against).await? {
                Ok((report, ..)) => Some(Box::new(AlsoGold {
                    questions: url.to_string(),
                    report,
                    agreement: gold_agreement
                        .statistics
                        .into_iter()
                        .map(|s| s.sentence)
                        .collect(),
                })),
                Err(cancelled) => return Ok(cancelled),
            }
        }
        None => None,
    };
    Ok(AnswerBody::Evaluated {
        report: Some(Box::new(report)),
        also,
        done,
        total,
        ms: now_ms() - started,
    })
}

/// A question set's text, fetched.
async fn fetch_text(p: Progress, url: &str) -> Result<String, String> {
    p.say(format!("fetching the question set {url}"));
    let bytes = fetch(url).await?;
    String::from_utf8(bytes).map_err(|_| format!("{url}: not UTF-8 text"))
}

/// Steps `run` to its report (with its steps done and in all), saying `label` before each
/// progress line; cancelled, the answer that says how far it got.
async fn run_grid(
    p: Progress,
    bundle: &str,
    mut run: GridRun,
    started: f64,
    label: &str,
) -> Result<Result<(GridReport, usize, usize), AnswerBody>, String> {
    let mut painted = f64::NEG_INFINITY;
    let mut done = 0;
    loop {
        let step = session(|s| s.grid_step(bundle, &mut run))?;
        let GridStep::Working {
            done: d,
            total,
            next,
        } = step
        else {
            break;
        };
        done = d;
        if now_ms() - painted > YIELD_EVERY_MS {
            let (scored, most) = run.pairs();
            let pairs = if most > 0 {
                // The time left, at the pace of the steps so far.
                let left = (now_ms() - started) / d as f64 * (total - d) as f64 / 1000.0;
                format!(" ({scored} of at most {most} pairs scored; about {left:.0} s left)")
            } else {
                String::new()
            };
            p.say(format!("{label}step {d} of {total}: {next}{pairs}"));
            next_tick().await;
            if p.cancelled() {
                return Ok(Err(AnswerBody::Evaluated {
                    report: None,
                    also: None,
                    done,
                    total,
                    ms: now_ms() - started,
                }));
            }
            painted = now_ms();
        }
    }
    let total = run.total();
    let report = run.report().map_err(|e| e.to_string())?;
    Ok(Ok((report, done.max(total), total)))
}

/// Five first packs (fresh memo) and twenty re-packs at a budget one token lower each time.
async fn pack_bench(p: Progress) -> Result<AnswerBody, String> {
    let corpus = pack_bench_corpus();
    let mut cold = Vec::new();
    let mut tokens = 0;
    for round in 0..5 {
        p.say(format!("first pack, run {}/5", round + 1));
        next_tick().await;
        let (ms, used) = session(|s| s.pack_bench_round(&corpus, None, &mut now_ms))?;
        cold.push(ms);
        tokens = used;
    }
    p.say("re-packs".into());
    next_tick().await;
    // The first fills the session's memo; the twenty after it are timed.
    session(|s| s.pack_bench_round(&corpus, Some(0), &mut now_ms))?;
    let mut warm = Vec::new();
    for round in 0..20 {
        let (ms, _) = session(|s| s.pack_bench_round(&corpus, Some(round), &mut now_ms))?;
        warm.push(ms);
    }
    Ok(AnswerBody::Bench {
        cold_ms: median(cold),
        warm_ms: median(warm),
        tokens,
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
