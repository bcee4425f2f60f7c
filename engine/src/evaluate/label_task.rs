//! A labelling task for the second labelling round CodeAtlas specified: per question, the pool of
//! files two labellers judge, and each labeller's order, with what made the pool kept apart.
//!
//! - **The pool** of a question is the union of the top K files of each arm (an arm's ranking of
//!   files, best first: a lexical arm's, a chunk ranking mapped to its files in order of first
//!   appearance, an imported run's) and the question set's current gold files.
//! - **The task** ([`LabelTask`]) lists each question's candidates sorted by path, so nothing in
//!   it tells which arm found a file, how high, or whether it is gold; each labeller gets a seed
//!   and the order it gives (questions shuffled, and each question's candidates): a Fisher–Yates
//!   pass over Python's MT19937 seeded with it, each swap's index ⌊random() · (i + 1)⌋, so the
//!   order is reproducible from the seed alone.
//! - **The coordinator's file** ([`Coordinator`], `routelens-label-coordinator/1`) says, per
//!   candidate, which arms had it at which rank and whether it was gold: for whoever runs the
//!   round, never for the labellers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::load::labels::{LabelTask, TaskLabeller, TaskQuestion, TASK_FORMAT};
use crate::load::question_set::Question;
use crate::scoring::stats::PyRandom;

/// The coordinator's file format.
pub const COORDINATOR_FORMAT: &str = "routelens-label-coordinator/1";

/// One arm's files per question, best first, and how many of each it pools.
#[derive(Debug, Clone, PartialEq)]
pub struct PooledArm {
    /// Its name (`fts5`, `structural/hybrid`, `run:bm25.trec`).
    pub name: String,
    /// K: its top K files are pooled.
    pub depth: usize,
    /// Per question (in the question set's order), its files, best first.
    pub rankings: Vec<Vec<String>>,
}

/// What made each candidate a candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coordinator {
    /// [`COORDINATOR_FORMAT`].
    pub format: String,
    /// The SHA-256 of the task file this belongs to (set once the task is written).
    pub task_sha256: String,
    /// Each arm and its K.
    pub arms: Vec<(String, usize)>,
    /// Per question.
    pub questions: Vec<CoordinatorQuestion>,
}

/// One question's candidates and their sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoordinatorQuestion {
    /// The question's id.
    pub id: String,
    /// Each candidate, sorted by path as in the task.
    pub candidates: Vec<CandidateSource>,
}

/// Where one candidate came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateSource {
    /// The file.
    pub path: String,
    /// Each arm that pooled it, with its 1-based rank there.
    pub arms: Vec<(String, usize)>,
    /// Whether the question set has it as gold.
    pub gold: bool,
}

/// The task and the coordinator's file for `questions` (their set's SHA-256 and the bundle's
/// commit recorded), pooled from `arms`, for `labellers` labellers seeded `seed`, `seed + 1`, …
pub fn build_task(
    questions: &[Question],
    (questions_sha256, bundle_commit): (&str, &str),
    arms: &[PooledArm],
    (labellers, seed): (usize, u64),
) -> Result<(LabelTask, Coordinator)> {
    if labellers < 2 {
        return Err(Error::setting("labellers", labellers, "2 or more"));
    }
    if questions.is_empty() {
        return Err(Error::setting("questions", 0, "at least one question"));
    }
    for arm in arms {
        if arm.depth == 0 {
            return Err(Error::setting(
                "pool",
                format!("{}@0", arm.name),
                "K of 1 or more",
            ));
        }
        if arm.rankings.len() != questions.len() {
            return Err(Error::setting(
                "pool",
                &arm.name,
                &format!("a ranking for each of the {} questions", questions.len()),
            ));
        }
    }
    let mut task_questions = Vec::with_capacity(questions.len());
    let mut sources = Vec::with_capacity(questions.len());
    for (at, question) in questions.iter().enumerate() {
        let mut pool: BTreeMap<String, CandidateSource> = BTreeMap::new();
        for arm in arms {
            let mut seen = Vec::new();
            for path in &arm.rankings[at] {
                if seen.len() == arm.depth {
                    break;
                }
                if seen.contains(&path) {
                    continue;
                }
                seen.push(path);
                pool.entry(path.clone())
                    .or_insert_with(|| source(path))
                    .arms
                    .push((arm.name.clone(), seen.len()));
            }
        }
        for path in &question.gold {
            pool.entry(path.clone())
                .or_insert_with(|| source(path))
                .gold = true;
        }
        task_questions.push(TaskQuestion {
            id: question.id.clone(),
            question: question.question.clone(),
            candidates: pool.keys().cloned().collect(),
        });
        sources.push(CoordinatorQuestion {
            id: question.id.clone(),
            candidates: pool.into_values().collect(),
        });
    }
    let orders = (0..labellers)
        .map(|i| {
            let labeller_seed = seed + i as u64;
            let mut random = PyRandom::new(labeller_seed);
            let mut order: Vec<usize> = (0..task_questions.len()).collect();
            shuffle(&mut order, &mut random);
            let order = order
                .into_iter()
                .map(|q| {
                    let mut candidates: Vec<usize> =
                        (0..task_questions[q].candidates.len()).collect();
                    shuffle(&mut candidates, &mut random);
                    (q, candidates)
                })
                .collect();
            TaskLabeller {
                seed: labeller_seed,
                order,
            }
        })
        .collect();
    Ok((
        LabelTask {
            format: TASK_FORMAT.into(),
            questions_sha256: questions_sha256.into(),
            bundle_commit: bundle_commit.into(),
            questions: task_questions,
            labellers: orders,
        },
        Coordinator {
            format: COORDINATOR_FORMAT.into(),
            task_sha256: String::new(),
            arms: arms.iter().map(|a| (a.name.clone(), a.depth)).collect(),
            questions: sources,
        },
    ))
}

fn source(path: &str) -> CandidateSource {
    CandidateSource {
        path: path.to_string(),
        arms: Vec::new(),
        gold: false,
    }
}

/// Fisher–Yates from the last position down, each index ⌊random() · (i + 1)⌋.
fn shuffle(items: &mut [usize], random: &mut PyRandom) {
    for i in (1..items.len()).rev() {
        let j = random.choice_index(i + 1);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(id: &str, gold: &[&str]) -> Question {
        Question {
            id: id.into(),
            question: format!("question {id}"),
            gold: gold.iter().map(|g| g.to_string()).collect(),
            gold_lines: Vec::new(),
        }
    }

    fn arm(name: &str, depth: usize, rankings: &[&[&str]]) -> PooledArm {
        PooledArm {
            name: name.into(),
            depth,
            rankings: rankings
                .iter()
                .map(|r| r.iter().map(|p| p.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn the_pool_is_each_arms_top_k_and_the_gold_sorted_by_path_with_its_sources_apart() {
        let questions = [question("q1", &["z.rs"]), question("q2", &[])];
        let arms = [
            arm("fts5", 2, &[&["b.rs", "a.rs", "c.rs"], &["d.rs"]]),
            arm(
                "structural/hybrid",
                1,
                &[&["c.rs", "b.rs"], &["d.rs", "e.rs"]],
            ),
        ];
        let (task, coordinator) = build_task(&questions, ("sha", "commit"), &arms, (2, 7)).unwrap();
        assert_eq!(
            task.questions[0].candidates,
            ["a.rs", "b.rs", "c.rs", "z.rs"]
        );
        assert_eq!(task.questions[1].candidates, ["d.rs"]);
        let sources = &coordinator.questions[0].candidates;
        assert_eq!(sources[1].arms, [("fts5".to_string(), 1)]);
        assert_eq!(sources[2].arms, [("structural/hybrid".to_string(), 1)]);
        assert!(sources[3].gold && sources[3].arms.is_empty());
        // The task itself says nothing of arms, ranks or gold.
        let text = serde_json::to_string(&task).unwrap();
        for hidden in ["fts5", "hybrid", "gold", "rank", "score"] {
            assert!(!text.contains(hidden), "{hidden} in {text}");
        }
        // Each labeller's order is a permutation of every question and candidate, from its seed.
        assert_eq!(
            task.labellers.iter().map(|l| l.seed).collect::<Vec<_>>(),
            [7, 8]
        );
        for labeller in &task.labellers {
            let mut seen: Vec<usize> = labeller.order.iter().map(|(q, _)| *q).collect();
            seen.sort_unstable();
            assert_eq!(seen, [0, 1]);
            for (q, candidates) in &labeller.order {
                let mut c = candidates.clone();
                c.sort_unstable();
                assert_eq!(
                    c,
                    (0..task.questions[*q].candidates.len()).collect::<Vec<_>>()
                );
            }
        }
        let again = build_task(&questions, ("sha", "commit"), &arms, (2, 7)).unwrap();
        assert_eq!(again.0, task);
    }

    #[test]
    fn settings_a_task_cannot_have_are_refused() {
        let questions = [question("q1", &["a.rs"])];
        let ok = [arm("fts5", 2, &[&["a.rs"]])];
        assert!(build_task(&questions, ("s", "c"), &ok, (1, 0)).is_err());
        assert!(build_task(&[], ("s", "c"), &ok, (2, 0)).is_err());
        let short = [arm("fts5", 2, &[])];
        assert!(build_task(&questions, ("s", "c"), &short, (2, 0)).is_err());
        let zero = [arm("fts5", 0, &[&["a.rs"]])];
        assert!(build_task(&questions, ("s", "c"), &zero, (2, 0)).is_err());
    }
}
