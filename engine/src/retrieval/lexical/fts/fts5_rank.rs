//! FTS5's `bm25()` over counted rows: the formula shared by the whole index
//! ([`FtsIndex`](super::FtsIndex), counting from tantivy's postings) and the split one
//! ([`SplitIndex`](super::split::SplitIndex), counting from its packs), so that both give the
//! same score bits.
//!
//! Every count is a whole number times a column weight of 1 or 2, and every length a whole
//! number, so their sums are exact in `f64` whatever order the rows were counted in; each score
//! sums its phrases in query order. The ranking is a total order (score, then file id), so the
//! rows' order does not matter either.

/// FTS5's k1.
const K1: f64 = 1.2;
/// FTS5's b.
const B: f64 = 0.75;

/// The `k` best `(score, file id)` of `files` (a file id and its row length `D` per matching
/// file), whose weighted phrase frequencies are the rows of `freqs` (`width` a row), over `n`
/// files holding `total` tokens in the searched columns: best first, ties by file id. A row
/// whose file id is not below `n` cannot be named and is dropped.
pub(super) fn fts5_rank(
    n: usize,
    total: f64,
    files: &[(u64, f64)],
    freqs: &[f64],
    width: usize,
    k: usize,
) -> Vec<(f64, u64)> {
    let count = n;
    let n = n as f64;
    // A row with a hit has at least one token, so the average is positive.
    let avgdl = if n > 0.0 { total / n } else { 1.0 };
    let mut hits = vec![0u64; width];
    for row in freqs.chunks_exact(width.max(1)) {
        for (hit, &freq) in hits.iter_mut().zip(row) {
            *hit += u64::from(freq > 0.0);
        }
    }
    let idf: Vec<f64> = hits
        .iter()
        .map(|&hit| {
            let value = ((n - hit as f64 + 0.5) / (hit as f64 + 0.5)).ln();
            if value <= 0.0 {
                1e-6
            } else {
                value
            }
        })
        .collect();
    let mut ranked: Vec<(f64, u64)> = files
        .iter()
        .zip(freqs.chunks_exact(width.max(1)))
        .filter(|((file_id, _), _)| (*file_id as usize) < count)
        .map(|(&(file_id, length), row)| {
            let norm = K1 * (1.0 - B + B * length / avgdl);
            let score = row
                .iter()
                .zip(&idf)
                .map(|(&freq, &idf)| idf * (freq * (K1 + 1.0)) / (freq + norm))
                .sum();
            (score, file_id)
        })
        .collect();
    let best_first = |a: &(f64, u64), b: &(f64, u64)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if ranked.len() > k {
        if k == 0 {
            return Vec::new();
        }
        ranked.select_nth_unstable_by(k - 1, best_first);
        ranked.truncate(k);
    }
    ranked.sort_unstable_by(best_first);
    ranked
}
