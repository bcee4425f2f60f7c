//! Line scores: the number of distinct query terms among a line's tokens, computed in one pass
//! that splits and scores together (ASCII lines as they are scanned, others from their
//! lower-cased text).

use super::lines::{line_end_len, CLASS, HIGH, OTHER, TOKEN, TOKEN_LOWER};
use super::query::QueryTerms;
use crate::terms::token_runs;

/// Splits `text` into lines and scores them in one pass. `each(end, score)` is called for every
/// line in order with the byte offset just past the line (its end included) and its score.
pub(super) fn scan_lines(terms: &QueryTerms, text: &str, mut each: impl FnMut(usize, u32)) {
    let bytes = text.as_bytes();
    let mut scorer = LineScorer::new(terms);
    let mut line_start = 0;
    // ASCII lines are scored as they are scanned: lower-casing each `[A-Za-z0-9_]` run on its
    // own is the same as lower-casing the line first. A line with a non-ASCII byte is scored
    // again from its text, lower-cased as Python's `str.lower` does.
    let mut non_ascii = false;
    let mut score = 0;
    scorer.next_line();
    let mut i = 0;
    while i < bytes.len() {
        let class = CLASS[usize::from(bytes[i])];
        if class == TOKEN {
            let start = i;
            i += 1;
            while i < bytes.len() && CLASS[usize::from(bytes[i])] == TOKEN {
                i += 1;
            }
            if !non_ascii {
                score += scorer.ascii_token(&bytes[start..i]);
            }
            continue;
        }
        if class == OTHER {
            i += 1;
            continue;
        }
        non_ascii |= class == HIGH;
        let len = line_end_len(bytes, i);
        if len == 0 {
            i += 1;
            continue;
        }
        i += len;
        let line_score = if non_ascii {
            scorer.unicode_line(&text[line_start..i])
        } else {
            score
        };
        each(i, line_score);
        line_start = i;
        non_ascii = false;
        score = 0;
        scorer.next_line();
    }
    if line_start < bytes.len() {
        let line_score = if non_ascii {
            scorer.unicode_line(&text[line_start..])
        } else {
            score
        };
        each(bytes.len(), line_score);
    }
}

/// Scores lines by their distinct terms, reusing its buffers across lines.
struct LineScorer<'t> {
    terms: &'t QueryTerms,
    /// `seen[term] == stamp` when the term was already counted on the current line.
    seen: Vec<u32>,
    stamp: u32,
    token: Vec<u8>,
}

impl<'t> LineScorer<'t> {
    fn new(terms: &'t QueryTerms) -> Self {
        LineScorer {
            terms,
            seen: vec![0; terms.terms.len()],
            stamp: 0,
            token: Vec::new(),
        }
    }

    /// Starts a new line: no term counted yet.
    fn next_line(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
    }

    /// 1 when the ASCII token run `run` is a term not yet counted on this line.
    fn ascii_token(&mut self, run: &[u8]) -> u32 {
        let first = TOKEN_LOWER[usize::from(run[0])];
        if !self.terms.may_match(first, run.len()) {
            return 0;
        }
        self.token.clear();
        self.token
            .extend(run.iter().map(|&b| TOKEN_LOWER[usize::from(b)]));
        let term = self.terms.lookup(&self.token);
        self.count(term)
    }

    /// The score of a whole line that holds non-ASCII text.
    fn unicode_line(&mut self, line: &str) -> u32 {
        self.next_line();
        let lower = line.to_lowercase();
        token_runs(&lower)
            .map(|run| {
                let term = self.terms.lookup(run.as_bytes());
                self.count(term)
            })
            .sum()
    }

    /// 1 when `term` matched and was not yet counted on this line.
    fn count(&mut self, term: Option<u32>) -> u32 {
        match term {
            Some(t) if self.seen[t as usize] != self.stamp => {
                self.seen[t as usize] = self.stamp;
                1
            }
            _ => 0,
        }
    }
}

/// Every line's score: the number of distinct terms among its tokens, in line order.
pub fn score_lines(terms: &QueryTerms, text: &str) -> Vec<u32> {
    let mut scores = Vec::new();
    scan_lines(terms, text, |_, score| scores.push(score));
    scores
}
