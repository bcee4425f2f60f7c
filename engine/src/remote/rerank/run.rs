//! Both stages for one question over a bundle's opened chunking and texts, as `routelens rerank`
//! and the browser's worker run them: the plan (given, or the offline planner's), the grep pool
//! when a route needs it, the BM25 pool, and for each route × reranker the reranked pool.

use rustc_hash::FxHashMap;

use super::file_trigrams::FileTrigrams;
use super::grep_pool::{grep_pool_over, GrepLimits};
use super::planner::offline_plan;
use super::pools::{candidates, union_pool, Route};
use super::reranker::{keep_order, rerank_by_scores, rerank_in_batches, OfflineJudge};
pub use super::settings::{QuestionRun, RerankArm, RerankSettings, RerankerChoice};
use crate::corpus::file_texts::FileTexts;
use crate::error::{Error, Result};
use crate::retrieval::chunk_search::{ChunkRankings, Retriever};
use crate::retrieval::cross_encoder::{ChunkReranker, RerankInput};
use crate::retrieval::lexical::chunkings::OpenChunkings;
use crate::terms::token_runs;

/// Runs both stages for `query` (see the module docs). `texts` holds every file's text by path;
/// `prepared` is made from them once, for every question ([`PreparedTexts`]);
/// `cross_encoder` scores the cross-encoder rerankers' pairs (a run asking for one without it is
/// refused).
pub fn rerank_question(
    query: &str,
    chunkings: &OpenChunkings,
    texts: &FileTexts,
    prepared: &PreparedTexts,
    (settings, cross_encoder): (&RerankSettings, Option<&dyn ChunkReranker>),
) -> Result<QuestionRun> {
    if settings.pool.depth == 0 || settings.batch == 0 {
        return Err(Error::setting(
            "pool/batch",
            0,
            "at least 1 candidate per pool and per batch",
        ));
    }
    let chunker = settings.chunker;
    let table = chunkings.table(chunker)?;
    let needs_grep = settings.routes.iter().any(|r| *r != Route::Bm25);
    let plan = match (&settings.plan, needs_grep) {
        (_, false) => None,
        (Some(plan), true) => Some(plan.clone()),
        (None, true) => offline_plan(query, &|term| prepared.terms.holding(term)),
    };
    let limits = GrepLimits {
        candidates: settings.pool.depth,
        ..settings.limits
    };
    let grep = match &plan {
        Some(plan) => Some(grep_pool_over(
            plan,
            texts,
            &prepared.trigrams,
            chunkings.chunks_by_file(chunker)?,
            limits,
        )),
        None => None,
    };
    let bm25: Vec<usize> =
        if settings.routes.contains(&Route::Bm25) || settings.routes.contains(&Route::Union) {
            chunkings
                .search((chunker, Retriever::Bm25), query, settings.pool.depth, None)?
                .into_iter()
                .map(|h| h.chunk)
                .collect()
        } else {
            Vec::new()
        };
    let grep_ids = grep
        .as_ref()
        .map(|g| g.candidates.clone())
        .unwrap_or_default();
    let mut arms = Vec::new();
    for &route in &settings.routes {
        let pool = match route {
            Route::Bm25 => bm25.clone(),
            Route::Grep => grep_ids.clone(),
            Route::Union => union_pool(&bm25, &grep_ids, settings.pool.depth),
        };
        let mut seen = candidates(
            &pool,
            table,
            (|p| texts.get(p), &prepared.trigrams),
            settings.pool.visible_chars,
        )?;
        for (nth, &choice) in settings.rerankers.iter().enumerate() {
            let reranked = match choice {
                RerankerChoice::None => keep_order(&seen),
                RerankerChoice::Offline => {
                    rerank_in_batches(&mut OfflineJudge, query, &seen, settings.batch)
                }
                RerankerChoice::Jev => keep_order(&seen),
                RerankerChoice::CrossEncoderText | RerankerChoice::CrossEncoderPrefixed => {
                    let input = choice.cross_encoder_input().unwrap_or(RerankInput::Text);
                    let model = cross_encoder.ok_or_else(|| {
                        Error::setting(
                            "reranker",
                            choice.name(),
                            "a cross-encoder model (a folder or URL of its files)",
                        )
                    })?;
                    let passages = model.passages(table, &pool, input)?;
                    rerank_by_scores(choice.name(), &model.score(query, &passages)?)
                }
            };
            // The last arm of the route takes the candidates (each up to `visible_chars` long).
            let last = nth + 1 == settings.rerankers.len();
            arms.push(RerankArm {
                route,
                candidates: if last {
                    std::mem::take(&mut seen)
                } else {
                    seen.clone()
                },
                reranked,
                judge_pending: choice == RerankerChoice::Jev,
            });
        }
    }
    Ok(QuestionRun { plan, grep, arms })
}

/// What every question's two stages share over one bundle's texts, made once when the texts
/// are there: how many files hold each token (the offline planner's rarity) and which files
/// hold each trigram (the grep stage's file filter).
pub struct PreparedTexts {
    terms: TermFiles,
    trigrams: FileTrigrams,
}

impl PreparedTexts {
    /// Both, over every file's text by path.
    pub fn new(texts: &FileTexts) -> Self {
        PreparedTexts {
            terms: TermFiles::new(texts.iter().map(|(_, text)| text)),
            trigrams: FileTrigrams::over(texts),
        }
    }
}

/// How many files hold each token (the offline planner's rarity), counted once over the texts:
/// a query term is a token (`terms::extract_terms`), so a file holds it when one of its tokens
/// is the term — a lookup per term instead of a scan of every text. Made on a question's first
/// run in the page, so made cheaply: an ASCII text (nearly all) lower-cased in place of a copy
/// by Unicode's rules (the same for ASCII), each token's count kept with the last file counted
/// instead of a set of each file's tokens, and a token's key made once.
struct TermFiles {
    /// Each token's count of files, and the number of the last file counted.
    files: FxHashMap<String, (u32, u32)>,
}

impl TermFiles {
    /// Counts the files of each lower-cased token of the texts.
    fn new<'t>(texts: impl IntoIterator<Item = &'t str>) -> Self {
        let mut files: FxHashMap<String, (u32, u32)> = FxHashMap::default();
        let mut ascii = String::new();
        for (file, text) in (0u32..).zip(texts) {
            let lower = if text.is_ascii() {
                ascii.clear();
                ascii.push_str(text);
                ascii.make_ascii_lowercase();
                std::borrow::Cow::Borrowed(ascii.as_str())
            } else {
                std::borrow::Cow::Owned(text.to_lowercase())
            };
            for token in token_runs(&lower) {
                match files.get_mut(token) {
                    Some((_, last)) if *last == file => {}
                    Some((count, last)) => {
                        *count += 1;
                        *last = file;
                    }
                    None => {
                        files.insert(token.to_string(), (1, file));
                    }
                }
            }
        }
        TermFiles { files }
    }

    /// Files holding the token `term` (lower-case).
    fn holding(&self, term: &str) -> usize {
        self.files.get(term).map_or(0, |&(count, _)| count as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_counts_the_files_holding_it_lower_cased_by_unicode_rules() {
        let terms = TermFiles::new([
            "Parser parser PARSER",
            "let parser = 1; // \u{212A}ey",
            "max_depth Key",
            "",
        ]);
        assert_eq!(terms.holding("parser"), 2, "once per file, any case");
        assert_eq!(terms.holding("key"), 2, "the KELVIN SIGN lower-cases to k");
        assert_eq!(terms.holding("max_depth"), 1);
        assert_eq!(terms.holding("depth"), 0, "a token, not a part of one");
        assert_eq!(terms.holding("let"), 1);
    }
}
