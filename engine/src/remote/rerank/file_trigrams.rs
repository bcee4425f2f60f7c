//! Which parts of which files hold each run of three characters, case folded: the grep stage's
//! filter, a trigram index as in Russ Cox's "Regular Expression Matching with a Trigram Index".
//! A part that lacks one of a needle's (`rerank::needle`) trigrams cannot hold the needle, so
//! the action skips it without reading it; the rest is searched as before, so the filter never
//! changes what is found, only what is read. Made once over a bundle's texts, like the
//! planner's term counts; a file it does not know is always read whole.
//!
//! The parts are blocks of at least [`BLOCK`] bytes ending at a line's end, so a file shorter
//! than that is one block. A needle without a line break lies within a line, so within one
//! block. The index also keeps the number of lines before each block, so a match's line number
//! is counted from its block's start, not the file's.
//!
//! Nearly every action of the offline planner is a word between word boundaries (`\bturn\b`),
//! and the common ones hide in longer words (`return`): a block is indexed as if a line break
//! stood before and after it, and such a needle is looked up with the byte beyond each boundary
//! (a class of its own, see [`trigrams_within_bounds`]), so a block holding the word only inside
//! longer ones is left out. Over the demo's 36 questions a pool searched, per question, 28.1 MB
//! on average (median 15.3) in blocks of 4 kB without the boundaries, 14.1 MB with them, and
//! 7.6 MB (median 5.9) in blocks of 2 kB with them, which the browser's worker reads at a
//! fraction of the CLI's speed; blocks of 1 kB read 4.0 MB but took no less time, and hold a
//! quarter more postings than 2 kB (the demo's: 4.4, 5.7 and 7.3 million).
//!
//! A character is one of 38 classes: an ASCII letter in either case, a digit, `_`, or any other
//! byte, so there are 38³ = 54,872 trigrams. Hand-written: the index is a lookup table, a loop
//! and sorted lists, and the crates that keep one (for code search) come with their own storage
//! and query language.

use std::ops::Range;

use rustc_hash::FxHashMap;

use super::needle::{fold_ascii, holds_look_alikes};
use crate::corpus::file_texts::FileTexts;

/// Classes of a byte: 26 letters, 10 digits, `_`, and everything else.
const CLASSES: usize = 38;
/// Distinct trigrams.
const TRIGRAMS: usize = CLASSES * CLASSES * CLASSES;
/// Bytes a block holds at least (the last of a file may hold fewer).
pub const BLOCK: usize = 2 * 1024;

/// The class of each byte.
const CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 26 {
        table[b'a' as usize + b] = b as u8;
        table[b'A' as usize + b] = b as u8;
        b += 1;
    }
    let mut d = 0;
    while d < 10 {
        table[b'0' as usize + d] = 26 + d as u8;
        d += 1;
    }
    table[b'_' as usize] = 36;
    table
};

/// The class of everything but a letter, a digit and `_`.
const OTHER: u8 = 37;
/// A byte of class [`OTHER`]: what a block is indexed as if it stood before and after it.
const EDGE: u8 = b'\n';

/// The trigram of three bytes, as a number below [`TRIGRAMS`].
fn trigram([a, b, c]: [u8; 3]) -> usize {
    let class = |b: u8| CLASS[b as usize] as usize;
    (class(a) * CLASSES + class(b)) * CLASSES + class(c)
}

/// Each trigram of `bytes` in order.
fn each_trigram(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.windows(3).map(|w| trigram([w[0], w[1], w[2]]))
}

/// The trigrams across a block's ends, as if an [`EDGE`] stood before it and after it: a
/// block starts a line, after a line break or at the file's start, and ends with a line break
/// or at the file's end, so a word at either end has a boundary there as surely as one in the
/// middle of the block.
fn edge_trigrams(block: &[u8]) -> [Option<usize>; 2] {
    match *block {
        [] => [None, None],
        [only] => [Some(trigram([EDGE, only, EDGE])), None],
        [first, second, ..] => [
            Some(trigram([EDGE, first, second])),
            Some(trigram([
                block[block.len() - 2],
                block[block.len() - 1],
                EDGE,
            ])),
        ],
    }
}

/// A needle's trigrams, each once, in order (none for fewer than three bytes).
pub fn trigrams_of(bytes: &[u8]) -> Vec<u32> {
    let mut out: Vec<u32> = each_trigram(bytes).map(|t| t as u32).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The trigrams of a needle whose pattern needs a Unicode word boundary before it and/or after
/// it (`(start, end)`, as `Needle::bounds`), each once, in order. Where the needle's byte next to
/// such a boundary is a letter, a digit or `_`, the character beyond it is not a word character
/// (whose bytes are then all of class [`OTHER`]: ASCII's other bytes, or any byte of a
/// multi-byte character) or the block's edge: the needle is searched for with an [`EDGE`]
/// there. `\bturn\b` then leaves out a block whose only `turn` is in `return`.
pub fn trigrams_within_bounds(bytes: &[u8], (start, end): (bool, bool)) -> Vec<u32> {
    let word = |b: Option<&u8>| b.is_some_and(|&b| CLASS[b as usize] != OTHER);
    let mut bounded = Vec::with_capacity(bytes.len() + 2);
    if start && word(bytes.first()) {
        bounded.push(EDGE);
    }
    bounded.extend_from_slice(bytes);
    if end && word(bytes.last()) {
        bounded.push(EDGE);
    }
    trigrams_of(&bounded)
}

/// Where `text`'s blocks start: at 0, then after the first line end at least `block` bytes on.
fn block_starts(text: &[u8], block: usize) -> Vec<u32> {
    let mut starts = vec![0u32];
    let mut from = block.max(1);
    while from < text.len() {
        match memchr::memchr(b'\n', &text[from..]) {
            Some(end) if from + end + 1 < text.len() => {
                let start = from + end + 1;
                starts.push(start as u32);
                from = start + block.max(1);
            }
            _ => break,
        }
    }
    starts
}

/// Every block's trigrams: for each trigram, the blocks holding it.
pub struct FileTrigrams {
    ids: FxHashMap<String, u32>,
    /// Each file's path, by its number.
    paths: Vec<Box<str>>,
    /// Each file's text folded (`needle::fold_ascii`), so that no pool folds it again.
    folded: Vec<Box<[u8]>>,
    /// Each file's first block number, then one past the last block.
    first_block: Vec<u32>,
    /// Each block's first byte in its file.
    block_start: Vec<u32>,
    /// The number of lines before each block in its file (its first line's, from 0).
    block_line: Vec<u32>,
    postings: Vec<Vec<u32>>,
    look_alikes: Vec<u32>,
    /// Whether the paths rise strictly (the index was made over a list in path order).
    in_path_order: bool,
    /// The identity of the [`FileTexts`] it was made over, if it was.
    made_over: Option<u64>,
}

/// The blocks that may hold a needle's match, by the index's numbers.
pub struct Candidates<'i> {
    blocks: Vec<u64>,
    index: &'i FileTrigrams,
}

impl Candidates<'_> {
    fn contains(&self, block: u32) -> bool {
        self.blocks
            .get(block as usize / 64)
            .is_some_and(|w| w & (1 << (block % 64)) != 0)
    }

    /// Whether file `id` may hold a match: one of its blocks may.
    pub fn file(&self, id: u32) -> bool {
        self.index
            .blocks_of(id)
            .is_some_and(|blocks| self.any_in(blocks))
    }

    /// Whether one of `blocks` is in the set, read a word of 64 blocks at a time (a pool asks
    /// this for each file it visits and each action; a large file has hundreds of blocks).
    fn any_in(&self, blocks: Range<u32>) -> bool {
        let (start, end) = (blocks.start as usize, blocks.end as usize);
        if start >= end {
            return false;
        }
        let (first, last) = (start / 64, (end - 1) / 64);
        (first..=last).any(|at| {
            let low = if at == first { start % 64 } else { 0 };
            let high = if at == last { (end - 1) % 64 } else { 63 };
            let mask = (u64::MAX >> (63 - high)) & (u64::MAX << low);
            self.blocks.get(at).is_some_and(|word| word & mask != 0)
        })
    }

    /// The byte ranges of file `id` (`len` bytes long) that may hold a match, in order, with
    /// neighbouring blocks joined, in `out` (cleared first: a pool fills one list for every file
    /// and action it searches).
    pub fn ranges_into(&self, id: u32, len: usize, out: &mut Vec<Range<usize>>) {
        out.clear();
        let Some(blocks) = self.index.blocks_of(id) else {
            out.push(0..len);
            return;
        };
        let last = blocks.end;
        for block in blocks.filter(|&b| self.contains(b)) {
            let start = self.index.block_start[block as usize] as usize;
            let end = if block + 1 < last {
                self.index.block_start[block as usize + 1] as usize
            } else {
                len
            };
            match out.last_mut() {
                Some(previous) if previous.end == start => previous.end = end,
                _ => out.push(start..end),
            }
        }
    }
}

impl FileTrigrams {
    /// The index of `files` (`(path, text)`), in blocks of at least [`BLOCK`] bytes.
    pub fn new<'t>(files: impl IntoIterator<Item = (&'t str, &'t str)>) -> Self {
        FileTrigrams::in_blocks(files, BLOCK)
    }

    /// The index of `texts`, which then knows them by their identity ([`FileTrigrams::made_over`]).
    pub fn over(texts: &FileTexts) -> Self {
        FileTrigrams {
            made_over: Some(texts.identity()),
            ..FileTrigrams::new(texts.iter())
        }
    }

    /// The index of `files` in blocks of at least `block` bytes (the tests' small blocks).
    pub fn in_blocks<'t>(
        files: impl IntoIterator<Item = (&'t str, &'t str)>,
        block: usize,
    ) -> Self {
        let mut ids = FxHashMap::default();
        let mut paths = Vec::new();
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); TRIGRAMS];
        let mut look_alikes = Vec::new();
        let mut folded = Vec::new();
        let (mut first_block, mut block_start, mut block_line) =
            (Vec::new(), Vec::new(), Vec::new());
        // The last block each trigram was seen in, as the block's number plus one.
        let mut seen_in = vec![0u32; TRIGRAMS];
        for (id, (path, text)) in files.into_iter().enumerate() {
            let id = id as u32;
            ids.insert(path.to_string(), id);
            paths.push(Box::from(path));
            first_block.push(block_start.len() as u32);
            let bytes = text.as_bytes();
            let starts = block_starts(bytes, block);
            let mut lines = 0;
            for (nth, &start) in starts.iter().enumerate() {
                let block = block_start.len() as u32;
                block_start.push(start);
                block_line.push(lines);
                let end = starts.get(nth + 1).map_or(bytes.len(), |&e| e as usize);
                if end < bytes.len() {
                    lines += memchr::memchr_iter(b'\n', &bytes[start as usize..end]).count() as u32;
                }
                let part = &bytes[start as usize..end];
                let edges = edge_trigrams(part).into_iter().flatten();
                for trigram in each_trigram(part).chain(edges) {
                    if seen_in[trigram] != block + 1 {
                        seen_in[trigram] = block + 1;
                        postings[trigram].push(block);
                    }
                }
            }
            if holds_look_alikes(text) {
                look_alikes.push(id);
            }
            let mut bytes = Vec::new();
            fold_ascii(text, &mut bytes);
            folded.push(bytes.into_boxed_slice());
        }
        first_block.push(block_start.len() as u32);
        let in_path_order = paths.windows(2).all(|pair| pair[0] < pair[1]);
        FileTrigrams {
            in_path_order,
            made_over: None,
            ids,
            paths,
            folded,
            first_block,
            block_start,
            block_line,
            postings,
            look_alikes,
        }
    }

    /// The index's number for the file at `path`, if it knows the file.
    pub fn id(&self, path: &str) -> Option<u32> {
        self.ids.get(path).copied()
    }

    /// [`FileTrigrams::id`] of the file at `path`, which is the `position`-th of a list: the
    /// position itself when the index was made over the same list (the path there is the same),
    /// so that a pool's walk over every file in path order hashes no path.
    pub fn id_at(&self, position: usize, path: &str) -> Option<u32> {
        match self.paths.get(position) {
            Some(known) if **known == *path => Some(position as u32),
            _ => self.id(path),
        }
    }

    /// Whether `files` is the list the index was made over, in path order: the same paths in
    /// the same order, each text as long as the one indexed. A file's number is then its
    /// position, and a pool need not sort the list nor look any path up. (A bundle's own texts
    /// are known without a comparison: [`FileTrigrams::made_over`].)
    pub fn in_order_over(&self, files: &[(&str, &str)]) -> bool {
        self.in_path_order
            && files.len() == self.paths.len()
            && files.iter().zip(self.paths.iter().zip(&self.folded)).all(
                |((path, text), (known, folded))| folded.len() == text.len() && **known == **path,
            )
    }

    /// Whether the index was made over `texts` ([`FileTrigrams::over`]): a file's number is then
    /// its position there, known without a byte compared.
    pub fn made_over(&self, texts: &FileTexts) -> bool {
        self.made_over == Some(texts.identity())
    }

    /// The files holding a block of any of `sets`, by number, rising: the only files a pool
    /// whose every action has a needle with trigrams needs to visit.
    pub fn files_in_any(&self, sets: &[&Candidates<'_>]) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let mut file = 0;
        for at in 0..self.block_start.len().div_ceil(64) {
            let mut word = sets
                .iter()
                .fold(0, |any, set| any | set.blocks.get(at).copied().unwrap_or(0));
            while word != 0 {
                let block = (at * 64) as u32 + word.trailing_zeros();
                word &= word - 1;
                // The file holding `block`: the last whose first block is at or before it.
                while self.first_block[file + 1] <= block {
                    file += 1;
                }
                if out.last() != Some(&(file as u32)) {
                    out.push(file as u32);
                }
            }
        }
        out
    }

    /// The block numbers of file `id`.
    fn blocks_of(&self, id: u32) -> Option<Range<u32>> {
        let at = id as usize;
        Some(*self.first_block.get(at)?..*self.first_block.get(at + 1)?)
    }

    /// The start of the last block of file `id` at or before byte `at`, with the number of lines
    /// before it: where counting lines towards `at` may begin.
    pub fn line_before(&self, id: u32, at: usize) -> Option<(usize, usize)> {
        self.last_block(id, &self.block_start, at)
    }

    /// The start of the last block of the file at `path`, whose text is `text`, that begins at
    /// or before its 0-based line `line`, with the number of lines before it: where skipping to
    /// that line may begin. `None` when the index does not know the file or was made over
    /// another text.
    pub fn block_before_line(&self, path: &str, text: &str, line: usize) -> Option<(usize, usize)> {
        let id = self.id(path)?;
        self.known(id, text)?;
        self.last_block(id, &self.block_line, line)
    }

    /// The start and the lines before of the last block of file `id` whose entry in `column`
    /// (`block_start` or `block_line`, both rising through a file) is at most `most`.
    fn last_block(&self, id: u32, column: &[u32], most: usize) -> Option<(usize, usize)> {
        let blocks = self.blocks_of(id)?;
        let nth = column
            .get(blocks.start as usize..blocks.end as usize)?
            .partition_point(|&value| value as usize <= most)
            .checked_sub(1)?;
        let block = blocks.start as usize + nth;
        Some((
            self.block_start[block] as usize,
            self.block_line[block] as usize,
        ))
    }

    /// What the index keeps of file `id`, whose text is `text`: the text folded, and whether it
    /// holds a letter that folds to `k` or `s` (`needle::holds_look_alikes`). `None` when the
    /// index was made over another text (its length differs).
    pub fn known(&self, id: u32, text: &str) -> Option<(&[u8], bool)> {
        let folded = self.folded.get(id as usize)?;
        (folded.len() == text.len())
            .then(|| (&folded[..], self.look_alikes.binary_search(&id).is_ok()))
    }

    /// The blocks that may hold a match of a needle with `trigrams` ([`trigrams_of`]) and no line
    /// break: those holding every one, and with `exotic` (as `Needle::exotic`) every block of a
    /// file holding a look-alike letter, which may match without them. `None`: every block may
    /// (no trigram).
    pub fn candidates(&self, trigrams: &[u32], exotic: bool) -> Option<Candidates<'_>> {
        let mut lists: Vec<&[u32]> = trigrams
            .iter()
            .map(|&t| self.postings.get(t as usize).map_or(&[][..], Vec::as_slice))
            .collect();
        lists.sort_by_key(|l| l.len());
        let (rarest, others) = lists.split_first()?;
        let others: Vec<Candidates> = others
            .iter()
            .map(|l| self.block_set(l.iter().copied()))
            .collect();
        let holding = rarest
            .iter()
            .copied()
            .filter(|&b| others.iter().all(|set| set.contains(b)));
        let exotic_blocks = self
            .look_alikes
            .iter()
            .filter(|_| exotic)
            .filter_map(|&id| self.blocks_of(id))
            .flatten();
        Some(self.block_set(holding.chain(exotic_blocks)))
    }

    fn block_set(&self, blocks: impl IntoIterator<Item = u32>) -> Candidates<'_> {
        let mut words = vec![0u64; self.block_start.len().div_ceil(64)];
        for block in blocks {
            words[block as usize / 64] |= 1 << (block % 64);
        }
        Candidates {
            blocks: words,
            index: self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_one_of_the_needles_trigrams_is_left_out_and_case_does_not_matter() {
        let index = FileTrigrams::new([
            ("a.rs", "let Exponent = 1;"),
            ("b.rs", "expo nent"),
            ("c.rs", "serde_json"),
        ]);
        let (a, b, c) = (
            index.id("a.rs").unwrap(),
            index.id("b.rs").unwrap(),
            index.id("c.rs").unwrap(),
        );
        let files = index.candidates(&trigrams_of(b"exponent"), false).unwrap();
        assert!(files.contains(a));
        assert!(!files.contains(b), "no `pon`");
        assert!(!files.contains(c));
        let files = index
            .candidates(&trigrams_of(b"serde_json"), false)
            .unwrap();
        assert!(!files.contains(a) && files.contains(c));
        assert!(
            index.candidates(&trigrams_of(b"ex"), false).is_none(),
            "no trigram: every file"
        );
        assert_eq!(index.id("unknown.rs"), None, "an unknown file is read");
    }

    /// [`Candidates::ranges_into`] as a list, into one holding ranges from an earlier file.
    fn ranges(files: &Candidates, id: u32, len: usize) -> Vec<Range<usize>> {
        let mut out = vec![99..100, 200..300];
        files.ranges_into(id, len, &mut out);
        out
    }

    #[test]
    // A list of one range is what is meant.
    #[allow(clippy::single_range_in_vec_init)]
    fn a_long_file_is_searched_only_in_its_blocks_holding_every_trigram() {
        // Blocks of at least 10 bytes, each ending at a line's end: "alpha beta\n",
        // "gamma key\nkey delta\n", "epsilon omega\n", "zeta key\n".
        let text = "alpha beta\ngamma key\nkey delta\nepsilon omega\nzeta key\n";
        let index = FileTrigrams::in_blocks([("a.rs", text), ("b.rs", "no")], 10);
        let key = index.candidates(&trigrams_of(b"key"), false).unwrap();
        assert!(key.file(0) && !key.file(1));
        assert_eq!(ranges(&key, 0, text.len()), [11..31, 45..54]);
        // Neighbouring blocks make one range (`ta ` is `ta\n` to the index: one class).
        let ta_ = index.candidates(&trigrams_of(b"ta "), false).unwrap();
        assert_eq!(ranges(&ta_, 0, text.len()), [0..31, 45..54]);
        let ta = index.candidates(&trigrams_of(b"ta"), false);
        assert!(ta.is_none(), "no trigram: every block may");
        let ga = index.candidates(&trigrams_of(b"ga"), false);
        assert!(ga.is_none());
        let elta = index.candidates(&trigrams_of(b"elta"), false).unwrap();
        assert_eq!(ranges(&elta, 0, text.len()), [11..31]);
        let omega_zeta = index.candidates(&trigrams_of(b"eta"), false).unwrap();
        assert_eq!(ranges(&omega_zeta, 0, text.len()), [0..11, 45..54]);
        let neither = index.candidates(&trigrams_of(b"xyz"), false).unwrap();
        assert!(!neither.file(0) && ranges(&neither, 0, text.len()).is_empty());
        // A file the index does not know is read whole.
        assert_eq!(ranges(&key, 7, 3), [0..3]);
        // Where counting lines may begin: each block's start and the lines before it.
        assert_eq!(index.line_before(0, 0), Some((0, 0)));
        assert_eq!(index.line_before(0, 10), Some((0, 0)));
        assert_eq!(index.line_before(0, 11), Some((11, 1)));
        assert_eq!(index.line_before(0, 44), Some((31, 3)));
        assert_eq!(index.line_before(0, 53), Some((45, 4)));
        assert_eq!(index.line_before(1, 1), Some((0, 0)));
        assert_eq!(index.line_before(2, 0), None, "no such file");
    }

    #[test]
    fn a_files_number_is_its_position_in_the_same_list_else_looked_up_by_path() {
        let index = FileTrigrams::new([("a.rs", "x"), ("b.rs", "y")]);
        assert_eq!(index.id_at(1, "b.rs"), Some(1));
        assert_eq!(index.id_at(0, "b.rs"), Some(1), "another list");
        assert_eq!(index.id_at(5, "a.rs"), Some(0), "a longer list");
        assert_eq!(index.id_at(0, "c.rs"), None, "a file it does not know");
    }

    #[test]
    fn the_files_to_visit_are_those_holding_a_candidate_block_of_any_needle() {
        let files = [
            ("a.py", "alpha\nbeta\n"),
            ("b.py", ""),
            ("c.py", "gamma\n"),
            ("d.py", "beta gamma\n"),
        ];
        let index = FileTrigrams::in_blocks(files, 1);
        let needle = |word: &str| {
            index
                .candidates(&trigrams_of(word.as_bytes()), false)
                .unwrap()
        };
        let (beta, gamma, delta) = (needle("beta"), needle("gamma"), needle("delta"));
        assert_eq!(index.files_in_any(&[&beta]), [0, 3]);
        assert_eq!(index.files_in_any(&[&beta, &gamma]), [0, 2, 3]);
        assert_eq!(index.files_in_any(&[&delta]), [] as [u32; 0]);
        assert_eq!(index.files_in_any(&[]), [] as [u32; 0]);
    }

    #[test]
    fn only_the_indexed_list_in_path_order_is_taken_as_numbered() {
        let files = [("a.py", "one\n"), ("b.py", "two\n")];
        let index = FileTrigrams::new(files);
        assert!(index.in_order_over(&files));
        assert!(!index.in_order_over(&[files[1], files[0]]));
        assert!(!index.in_order_over(&files[..1]));
        assert!(!index.in_order_over(&[files[0], ("b.py", "three\n")]));
        assert!(!index.in_order_over(&[files[0], ("c.py", "two\n")]));
        // An index made over a list out of path order never numbers a list in path order.
        let backwards = FileTrigrams::new([files[1], files[0]]);
        assert!(!backwards.in_order_over(&[files[1], files[0]]));
    }

    #[test]
    fn an_exotic_needle_keeps_a_file_with_a_look_alike_letter() {
        let index = FileTrigrams::new([("a.rs", "\u{212A}ey"), ("b.rs", "hey")]);
        let key = trigrams_of(b"key");
        assert!(
            index.candidates(&key, true).unwrap().contains(0),
            "KELVIN SIGN + ey"
        );
        assert!(!index.candidates(&key, false).unwrap().contains(0));
        assert!(!index.candidates(&key, true).unwrap().contains(1));
        assert_eq!(
            index.known(0, "\u{212A}ey"),
            Some(("\u{212A}ey".as_bytes(), true))
        );
        assert_eq!(index.known(1, "hey"), Some((&b"hey"[..], false)));
        assert_eq!(index.known(1, "other"), None, "another text");
    }

    #[test]
    fn a_needle_between_word_boundaries_needs_a_word_edge_in_its_block() {
        // Blocks of at least 4 bytes: "turn\n", "return x\n", "(turn)\n", "t\ns", then b.rs's "t".
        let text = "turn\nreturn x\n(turn)\nt\ns";
        let index = FileTrigrams::in_blocks([("a.rs", text), ("b.rs", "t")], 4);
        let blocks = |needle: &[u8], bounds| {
            let trigrams = trigrams_within_bounds(needle, bounds);
            let found = index.candidates(&trigrams, false).unwrap();
            (0..7).filter(|&b| found.contains(b)).collect::<Vec<u32>>()
        };
        assert_eq!(blocks(b"turn", (false, false)), [0, 1, 2]);
        assert_eq!(
            blocks(b"turn", (true, true)),
            [0, 2],
            "not `return`: its `turn` ends a word only"
        );
        assert_eq!(blocks(b"turn", (false, true)), [0, 1, 2]);
        assert_eq!(
            blocks(b"Turn", (true, false)),
            [0, 2],
            "letters in either case"
        );
        // A word at a file's end, and a block of one byte.
        assert_eq!(blocks(b"s", (true, true)), [3]);
        assert_eq!(blocks(b"t", (true, true)), [3, 4]);
        // Beside a boundary, a needle's byte that is no word byte adds nothing.
        assert_eq!(
            trigrams_within_bounds(b"(t", (true, false)),
            trigrams_of(b"(t")
        );
        assert_eq!(
            trigrams_within_bounds(b"t)", (true, true)),
            trigrams_of(b"\nt)")
        );
    }

    #[test]
    fn trigrams_are_classes_of_folded_bytes() {
        assert_eq!(trigrams_of(b"aBc"), trigrams_of(b"AbC"));
        assert_eq!(
            trigrams_of(b"a.a"),
            trigrams_of(b"a-a"),
            "other bytes are one class"
        );
        assert_ne!(trigrams_of(b"a_a"), trigrams_of(b"a.a"));
        assert!(trigrams_of(b"xy").is_empty());
    }

    #[test]
    fn a_single_block_is_found_in_every_run_holding_it_whatever_the_words_edges() {
        let index = FileTrigrams::new([("a.rs", "")]);
        let edges = [0, 1, 62, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 257];
        for block in 0..256u32 {
            let mut blocks = vec![0u64; 4];
            blocks[block as usize / 64] |= 1 << (block % 64);
            let set = Candidates {
                blocks,
                index: &index,
            };
            for (&start, &end) in edges.iter().flat_map(|s| edges.iter().map(move |e| (s, e))) {
                let holds = start <= block && block < end;
                assert_eq!(
                    set.any_in(start..end),
                    holds,
                    "block {block} in {start}..{end}"
                );
            }
        }
    }

    proptest::proptest! {
        /// A run of blocks read a word at a time holds a block of the set exactly when one of
        /// its blocks, tested alone, is in it: runs within a word, across words and past the set.
        #[test]
        fn a_run_of_blocks_is_read_as_each_block_alone(
            words in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..4),
            sparse in proptest::collection::vec(0..256u32, 0..4),
            (start, len) in (0..300u32, 0..200u32),
        ) {
            let index = FileTrigrams::new([("a.rs", "")]);
            // Sparse sets too, whose words are mostly empty.
            let mut blocks = words;
            if !sparse.is_empty() {
                blocks = vec![0; 4];
                for b in sparse {
                    blocks[b as usize / 64] |= 1 << (b % 64);
                }
            }
            let set = Candidates { blocks, index: &index };
            let run = start..start + len;
            proptest::prop_assert_eq!(set.any_in(run.clone()), run.into_iter().any(|b| set.contains(b)));
        }
    }
}
