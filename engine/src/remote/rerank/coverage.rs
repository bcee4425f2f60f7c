//! The coverage audit of a candidate pool: before any reranker, how many target blocks can it
//! reach at all? CodeNib audited BM25 at depths 50, 100, 200, 500 and 1,000.
//!
//! A target block is a gold span (or, for a question with only gold files, a gold file). It is in
//! a pool when a candidate of its file overlaps it inside the candidate's visible lines (a
//! candidate shows its first 3,000 characters: `pools::candidates`). Per depth, the first `depth`
//! candidates of each question's pool: every pool here is a prefix of the deeper one (BM25's by
//! construction, grep's round-robin and the union's interleaving both stop at the cap), so one
//! deep pool per question serves every depth.

use serde::{Deserialize, Serialize};

use super::pools::Candidate;
use crate::GoldSpan;

/// CodeNib's audit depths.
pub const AUDIT_DEPTHS: [usize; 5] = [50, 100, 200, 500, 1_000];

/// One question's pool and its target blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Audited<'a> {
    /// The pool in first-stage order.
    pub pool: &'a [Candidate],
    /// The target blocks (a gold file is a span of every line: `1..=u32::MAX`).
    pub blocks: &'a [GoldSpan],
}

/// A depth's coverage over the questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageRow {
    /// Candidates per pool.
    pub depth: usize,
    /// Questions with at least one target block.
    pub issues: usize,
    /// Target blocks over those questions.
    pub blocks: usize,
    /// Of them, blocks some candidate covers.
    pub covered: usize,
    /// `covered / blocks`.
    pub share: f64,
    /// The mean over questions of each one's covered share.
    pub mean_share: f64,
    /// Questions none of whose blocks is covered.
    pub with_none: usize,
    /// Questions all of whose blocks are covered.
    pub with_all: usize,
}

/// Whether `candidate` covers `block`.
fn covers(candidate: &Candidate, block: &GoldSpan) -> bool {
    candidate.file == block.path
        && candidate.start_line <= block.end_line
        && block.start_line <= candidate.end_line
}

/// The audit at each of `depths`; questions without target blocks are left out (and not
/// counted in `issues`).
pub fn coverage(questions: &[Audited<'_>], depths: &[usize]) -> Vec<CoverageRow> {
    depths
        .iter()
        .map(|&depth| {
            let mut row = CoverageRow {
                depth,
                issues: 0,
                blocks: 0,
                covered: 0,
                share: 0.0,
                mean_share: 0.0,
                with_none: 0,
                with_all: 0,
            };
            let mut shares = 0.0;
            for q in questions.iter().filter(|q| !q.blocks.is_empty()) {
                let pool = &q.pool[..depth.min(q.pool.len())];
                let covered = q
                    .blocks
                    .iter()
                    .filter(|b| pool.iter().any(|c| covers(c, b)))
                    .count();
                row.issues += 1;
                row.blocks += q.blocks.len();
                row.covered += covered;
                shares += covered as f64 / q.blocks.len() as f64;
                row.with_none += usize::from(covered == 0);
                row.with_all += usize::from(covered == q.blocks.len());
            }
            if row.blocks > 0 {
                row.share = row.covered as f64 / row.blocks as f64;
                row.mean_share = shares / row.issues as f64;
            }
            row
        })
        .collect()
}

/// A question's target blocks: its gold spans, else each gold file whole.
pub fn target_blocks(spans: &[GoldSpan], files: &[String]) -> Vec<GoldSpan> {
    if !spans.is_empty() {
        return spans.to_vec();
    }
    files
        .iter()
        .map(|path| GoldSpan {
            path: path.clone(),
            start_line: 1,
            end_line: u32::MAX,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(file: &str, start: u32, end: u32) -> Candidate {
        Candidate {
            chunk: 0,
            name: String::new(),
            file: file.into(),
            start_line: start,
            end_line: end,
            content: String::new(),
        }
    }

    fn span(path: &str, start: u32, end: u32) -> GoldSpan {
        GoldSpan {
            path: path.into(),
            start_line: start,
            end_line: end,
        }
    }

    #[test]
    fn blocks_count_when_a_visible_candidate_overlaps_them_at_each_depth() {
        let first = [
            candidate("a.rs", 1, 10),
            candidate("b.rs", 1, 5),
            candidate("a.rs", 40, 60),
        ];
        let first_blocks = [span("a.rs", 50, 55), span("a.rs", 8, 9)];
        let second = [candidate("c.rs", 1, 3)];
        let second_blocks = [span("c.rs", 4, 9)];
        let questions = [
            Audited {
                pool: &first,
                blocks: &first_blocks,
            },
            Audited {
                pool: &second,
                blocks: &second_blocks,
            },
            Audited {
                pool: &second,
                blocks: &[],
            },
        ];
        let rows = coverage(&questions, &[1, 3]);
        // Depth 1: only a.rs 1-10, which covers 8-9.
        assert_eq!((rows[0].issues, rows[0].blocks, rows[0].covered), (2, 3, 1));
        assert_eq!((rows[0].with_none, rows[0].with_all), (1, 0));
        assert!((rows[0].mean_share - 0.25).abs() < 1e-12);
        // Depth 3: a.rs 40-60 covers 50-55 too; c.rs 1-3 stops before 4.
        assert_eq!(
            (rows[1].covered, rows[1].with_all, rows[1].with_none),
            (2, 1, 1)
        );
        assert!((rows[1].share - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_gold_file_is_a_block_of_every_line() {
        let blocks = target_blocks(&[], &["a.rs".to_string()]);
        let pool = [candidate("a.rs", 900, 901)];
        let rows = coverage(
            &[Audited {
                pool: &pool,
                blocks: &blocks,
            }],
            &[5],
        );
        assert_eq!(rows[0].with_all, 1);
    }
}
