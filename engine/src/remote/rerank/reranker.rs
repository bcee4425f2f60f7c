//! The reranker interface. A reranker takes a pool's candidates in first-stage order and
//! returns an order; "no reranker" ([`keep_order`]) is one implementation, so whether a pool
//! still needs a judge is a comparison like any other. Judges score candidates in batches
//! ([`rerank_in_batches`], CodeNib's at most 10 per batch, one batch after another): each
//! candidate gets a probability per level of CodeNib's four-level scale ([`LEVELS`]), its score
//! is the expected level ÷ 3, and candidates sort by score, ties in first-stage order. A batch
//! that fails keeps its candidates in first-stage order after every scored one, and says why; if
//! every batch fails, the first-stage order stands, marked.

use crate::stable_sort;
use serde::{Deserialize, Serialize};

use super::pools::Candidate;
use crate::error::Result;
use crate::terms::extract_terms;

/// CodeNib's relevance levels, lowest first.
pub const LEVELS: [&str; 4] = [
    "Unrelated code that does not help answer the query.",
    "Shares terminology with the query but does not implement the relevant behavior.",
    "Supporting code that helps explain or locate the relevant behavior.",
    "Directly implements the requested behavior or contains the likely issue location.",
];

/// CodeNib's batch size.
pub const DEFAULT_BATCH: usize = 10;

/// A judge of candidates: for each candidate of a batch, a probability per level.
pub trait Judge {
    /// The judge's name (`offline`, `jev-1.13`, …).
    fn name(&self) -> String;
    /// The level probabilities of each candidate of `batch`, in its order.
    fn judge(&mut self, query: &str, batch: &[Candidate]) -> Result<Vec<[f64; 4]>>;
}

/// One candidate's judgment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// Its position in the pool (first-stage rank − 1).
    pub pool_rank: usize,
    /// Its level probabilities (none when its batch failed or nothing judged it).
    pub levels: Option<[f64; 4]>,
    /// Expected level ÷ 3.
    pub score: Option<f64>,
    /// Its batch.
    pub batch: usize,
}

/// A reranked pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reranked {
    /// The reranker (`none` for the pool's own order).
    pub reranker: String,
    /// Pool positions in the new order, best first.
    pub order: Vec<usize>,
    /// Every candidate's judgment, in pool order.
    pub judged: Vec<Judged>,
    /// Batches that failed, with why.
    pub failed_batches: Vec<(usize, String)>,
    /// Every batch failed: the order is the first stage's.
    pub all_failed: bool,
    /// A remote judge's calls, tokens, cost and time (none for the offline ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounting: Option<JudgeAccounting>,
}

/// What judging over the decision API cost, accounted as routing runs are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgeAccounting {
    /// The model asked.
    pub model: String,
    /// Calls answered successfully (retries not counted).
    pub calls: usize,
    /// Requests sent again after a 429 or 529.
    pub retries: usize,
    /// Input tokens the API reported.
    pub input_tokens: u64,
    /// Output tokens the API reported.
    pub output_tokens: u64,
    /// The estimated cost in dollars.
    pub cost_usd: f64,
    /// Time spent waiting for answers, as the driver measured it.
    pub decider_ms: u64,
}

/// The pool's own order ("no reranker").
pub fn keep_order(pool: &[Candidate]) -> Reranked {
    Reranked {
        reranker: "none".into(),
        order: (0..pool.len()).collect(),
        judged: (0..pool.len())
            .map(|at| Judged {
                pool_rank: at,
                levels: None,
                score: None,
                batch: 0,
            })
            .collect(),
        failed_batches: Vec::new(),
        all_failed: false,
        accounting: None,
    }
}

/// Batches judged one after another, as a step machine: [`Judging::next_batch`] says which pool
/// positions to judge, [`Judging::take`] takes their levels or why there are none. Judges that
/// answer at once go through [`rerank_in_batches`]; the Jev Score reranker's calls go out through
/// a driver (`super::jev`).
#[derive(Debug, Clone)]
pub struct Judging {
    reranker: String,
    pool_len: usize,
    batch: usize,
    judged: Vec<Judged>,
    failed: Vec<(usize, String)>,
}

impl Judging {
    /// Judging a pool of `pool_len` in batches of at most `batch` (at least 1).
    pub fn new(reranker: &str, pool_len: usize, batch: usize) -> Judging {
        Judging {
            reranker: reranker.to_string(),
            pool_len,
            batch: batch.max(1),
            judged: Vec::with_capacity(pool_len),
            failed: Vec::new(),
        }
    }

    /// The batch to judge next (its number and pool positions), or none when all are judged.
    pub fn next_batch(&self) -> Option<(usize, std::ops::Range<usize>)> {
        let first = self.judged.len();
        (first < self.pool_len).then(|| {
            (
                first / self.batch,
                first..(first + self.batch).min(self.pool_len),
            )
        })
    }

    /// The levels of the batch [`Judging::next_batch`] named, or why it has none.
    pub fn take(&mut self, levels: std::result::Result<Vec<[f64; 4]>, String>) {
        let Some((number, range)) = self.next_batch() else {
            return;
        };
        let levels = levels.and_then(|levels| {
            if levels.len() == range.len() {
                Ok(levels)
            } else {
                Err(format!(
                    "{} judgments for {} candidates",
                    levels.len(),
                    range.len()
                ))
            }
        });
        match levels {
            Ok(levels) => self
                .judged
                .extend(range.zip(levels).map(|(pool_rank, l)| Judged {
                    pool_rank,
                    levels: Some(l),
                    score: Some(expected_level(&l) / 3.0),
                    batch: number,
                })),
            Err(why) => {
                self.failed.push((number, why));
                self.judged.extend(range.map(|pool_rank| Judged {
                    pool_rank,
                    levels: None,
                    score: None,
                    batch: number,
                }));
            }
        }
    }

    /// The reranked pool. Batches never judged (the run stopped at an error or a cancel) count
    /// as failed, so a partial run still has a whole order.
    pub fn finish(mut self, accounting: Option<JudgeAccounting>) -> Reranked {
        // A run stopped early (an error, a cancel) leaves batches unjudged: they keep the
        // pool's order after every scored candidate, as a failed batch does.
        while let Some((number, range)) = self.next_batch() {
            self.failed
                .push((number, "not judged: the run stopped".into()));
            self.judged.extend(range.map(|pool_rank| Judged {
                pool_rank,
                levels: None,
                score: None,
                batch: number,
            }));
        }
        let judged = self.judged;
        let mut order: Vec<usize> = (0..self.pool_len).collect();
        // Scored first, by score (ties in pool order); then the failed batches' in pool order.
        stable_sort::by(&mut order, |&a, &b| {
            match (judged[a].score, judged[b].score) {
                (Some(x), Some(y)) => y.total_cmp(&x).then(a.cmp(&b)),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.cmp(&b),
            }
        });
        let batches = self.pool_len.div_ceil(self.batch);
        Reranked {
            reranker: self.reranker,
            order,
            judged,
            all_failed: batches > 0 && self.failed.len() == batches,
            failed_batches: self.failed,
            accounting,
        }
    }
}

/// Judges `pool` in batches of at most `batch` with a judge that answers at once (see the
/// module docs).
pub fn rerank_in_batches(
    judge: &mut dyn Judge,
    query: &str,
    pool: &[Candidate],
    batch: usize,
) -> Reranked {
    let mut judging = Judging::new(&judge.name(), pool.len(), batch);
    while let Some((_, range)) = judging.next_batch() {
        let levels = judge
            .judge(query, &pool[range])
            .map_err(|error| error.to_string());
        judging.take(levels);
    }
    judging.finish(None)
}

/// A pool ordered by one score per candidate, highest first, ties in pool order: a
/// cross-encoder's raw logits, which have no levels.
pub fn rerank_by_scores(reranker: &str, scores: &[f32]) -> Reranked {
    let judged: Vec<Judged> = scores
        .iter()
        .enumerate()
        .map(|(pool_rank, &score)| Judged {
            pool_rank,
            levels: None,
            score: Some(f64::from(score)),
            batch: 0,
        })
        .collect();
    let mut order: Vec<usize> = (0..scores.len()).collect();
    stable_sort::by(&mut order, |&a, &b| scores[b].total_cmp(&scores[a]));
    Reranked {
        reranker: reranker.to_string(),
        order,
        judged,
        failed_batches: Vec::new(),
        all_failed: false,
        accounting: None,
    }
}

/// Σ level × probability (levels 0–3).
pub fn expected_level(levels: &[f64; 4]) -> f64 {
    levels.iter().enumerate().map(|(l, p)| l as f64 * p).sum()
}

/// The offline judge: deterministic and lexical. A candidate's share `s` of the query's terms
/// found in its name, file and visible text puts its expected level near 3·s: the level
/// probabilities are proportional to exp(−(level − 3s)²).
#[derive(Debug, Default)]
pub struct OfflineJudge;

impl Judge for OfflineJudge {
    fn name(&self) -> String {
        "offline".into()
    }

    fn judge(&mut self, query: &str, batch: &[Candidate]) -> Result<Vec<[f64; 4]>> {
        let terms = extract_terms(query);
        Ok(batch
            .iter()
            .map(|c| {
                let seen = format!("{} {} {}", c.name, c.file, c.content).to_lowercase();
                let share = if terms.is_empty() {
                    0.0
                } else {
                    terms.iter().filter(|t| seen.contains(t.as_str())).count() as f64
                        / terms.len() as f64
                };
                let weights: Vec<f64> = (0..4)
                    .map(|l| (-(l as f64 - 3.0 * share).powi(2)).exp())
                    .collect();
                let total: f64 = weights.iter().sum();
                [0, 1, 2, 3].map(|l| weights[l] / total)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn candidate(at: usize, content: &str) -> Candidate {
        Candidate {
            chunk: at,
            name: format!("c{at}"),
            file: "a.py".into(),
            start_line: 1,
            end_line: 1,
            content: content.into(),
        }
    }

    /// Fails the batches it is told to; otherwise level 3 for candidates holding "limit".
    struct Flaky {
        fail: Vec<usize>,
        calls: usize,
    }

    impl Judge for Flaky {
        fn name(&self) -> String {
            "flaky".into()
        }
        fn judge(&mut self, _: &str, batch: &[Candidate]) -> Result<Vec<[f64; 4]>> {
            let call = self.calls;
            self.calls += 1;
            if self.fail.contains(&call) {
                return Err(Error::Relayed {
                    message: "HTTP 403".into(),
                });
            }
            Ok(batch
                .iter()
                .map(|c| {
                    if c.content.contains("limit") {
                        [0.0, 0.0, 0.0, 1.0]
                    } else {
                        [1.0, 0.0, 0.0, 0.0]
                    }
                })
                .collect())
        }
    }

    fn pool() -> Vec<Candidate> {
        ["x", "limit", "y", "limit", "z"]
            .iter()
            .enumerate()
            .map(|(at, text)| candidate(at, text))
            .collect()
    }

    #[test]
    fn scored_candidates_sort_by_expected_level_ties_in_pool_order() {
        let mut judge = Flaky {
            fail: vec![],
            calls: 0,
        };
        let out = rerank_in_batches(&mut judge, "q", &pool(), 2);
        assert_eq!(judge.calls, 3, "batches of 2 over 5");
        assert_eq!(out.order, [1, 3, 0, 2, 4]);
        assert_eq!(out.judged[1].score, Some(1.0));
        assert!(!out.all_failed && out.failed_batches.is_empty());
    }

    #[test]
    fn a_failed_batch_follows_every_scored_one_in_pool_order_and_all_failing_keeps_the_pool() {
        let mut judge = Flaky {
            fail: vec![0],
            calls: 0,
        };
        let out = rerank_in_batches(&mut judge, "q", &pool(), 2);
        // Batch 0 (candidates 0, 1) failed: after the scored 3, 2, 4.
        assert_eq!(out.order, [3, 2, 4, 0, 1]);
        assert_eq!(out.failed_batches, [(0, "HTTP 403".to_string())]);
        let mut judge = Flaky {
            fail: vec![0, 1, 2],
            calls: 0,
        };
        let out = rerank_in_batches(&mut judge, "q", &pool(), 2);
        assert_eq!(out.order, [0, 1, 2, 3, 4]);
        assert!(out.all_failed);
        assert_eq!(keep_order(&pool()).order, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn scores_order_a_pool_highest_first_ties_in_pool_order() {
        let out = rerank_by_scores("cross-encoder:text", &[0.5, 2.0, 0.5, -1.0]);
        assert_eq!(out.order, [1, 0, 2, 3]);
        assert_eq!(out.judged[3].score, Some(-1.0));
        assert!(out.judged.iter().all(|j| j.levels.is_none()));
    }

    #[test]
    fn the_offline_judge_puts_candidates_with_the_querys_terms_higher() {
        let pool = vec![
            candidate(0, "def parse(): pass"),
            candidate(1, "class RateLimit:\n  def allow(self, burst): limit"),
        ];
        let out = rerank_in_batches(&mut OfflineJudge, "burst limit allow", &pool, 10);
        assert_eq!(out.order, [1, 0]);
        let levels = out.judged[1].levels.unwrap();
        assert!((levels.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(out.judged[1].score.unwrap() > 0.8 && out.judged[0].score.unwrap() < 0.2);
    }
}
