//! Live results as a TREC run (`qid Q0 path rank score tag`), for trec_eval, ir_measures or any
//! other run reader.

/// One ranked list of a TREC run: the query id, the run tag (arm) and `(path, score)` best first.
#[derive(Debug, Clone, PartialEq)]
pub struct RunList<'a> {
    /// The query id (`qid`); whitespace in it is replaced by `_`.
    pub qid: &'a str,
    /// The run tag (the arm name); whitespace is replaced by `_`.
    pub tag: &'a str,
    /// Ranked paths with scores.
    pub results: &'a [(String, f64)],
}

/// TREC run lines `qid Q0 path rank score tag`, one per result, ranks from 1. Paths with
/// whitespace would break the format, so whitespace in any field becomes `_`; scores are written
/// with six decimals (non-finite scores as 0).
pub fn trec_run(lists: &[RunList<'_>]) -> String {
    fn field(text: &str) -> String {
        text.chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect()
    }
    let mut out = String::new();
    for list in lists {
        let (qid, tag) = (field(list.qid), field(list.tag));
        for (rank, (path, score)) in list.results.iter().enumerate() {
            let score = if score.is_finite() { *score } else { 0.0 };
            out.push_str(&format!(
                "{qid} Q0 {} {} {score:.6} {tag}\n",
                field(path),
                rank + 1
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trec_lines_rank_from_one() {
        let results = vec![
            ("src/a b.rs".to_string(), 2.5),
            ("lib.rs".to_string(), f64::NAN),
        ];
        let text = trec_run(&[RunList {
            qid: "query",
            tag: "fts5",
            results: &results,
        }]);
        assert_eq!(
            text,
            "query Q0 src/a_b.rs 1 2.500000 fts5\nquery Q0 lib.rs 2 0.000000 fts5\n"
        );
    }
}
