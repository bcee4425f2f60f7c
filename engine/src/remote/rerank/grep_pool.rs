//! A grep plan run over a bundle's texts, as CodeNib's grep stage runs it: each action searches
//! the files its glob matches, in path order, at most [`GrepLimits::per_file`] matching lines per
//! file and [`GrepLimits::per_action`] per action; each matched line maps to the smallest chunk
//! that holds it (per file, chunks ordered by length, then start line, then name), and a line
//! outside every chunk is dropped. The actions' chunk lists are merged round-robin in priority
//! order, duplicates dropped, at most [`GrepLimits::candidates`]. An empty pool stays empty (no
//! BM25 refill). An action whose pattern does not compile fails alone, with its reason, and the
//! others still run.

use crate::stable_sort;

use std::ops::Range;

use regex::Regex;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::file_trigrams::{self, Candidates, FileTrigrams};
use super::needle::{
    fold_ascii, fold_look_alikes, holds_look_alikes, next_look_alike, Needle, LOOK_ALIKES,
};
use super::plan::{GrepAction, PathGlob, Plan};
use crate::corpus::code_chunks::ChunksByFile;
use crate::corpus::file_texts::FileTexts;

/// CodeNib's grep limits, the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepLimits {
    /// Matching lines kept per file per action (20).
    pub per_file: usize,
    /// Matching lines kept per action (500).
    pub per_action: usize,
    /// Candidates in the merged pool (100).
    pub candidates: usize,
}

impl Default for GrepLimits {
    fn default() -> Self {
        GrepLimits {
            per_file: 20,
            per_action: 500,
            candidates: 100,
        }
    }
}

/// What one action found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionMatches {
    /// The action's position in the plan.
    pub action: usize,
    /// The matched lines kept, `(file, 1-based line)` in path then line order, `file` the
    /// position of the line's path in the pool's [`GrepPool::files`] (a path is kept once a
    /// pool, not once a line: a pool keeps about 750 lines).
    pub lines: Vec<(u32, u32)>,
    /// Whether a limit cut the matches short.
    pub truncated: bool,
    /// Matched lines outside every chunk (dropped).
    pub outside: usize,
    /// The chunks the kept lines map to, first match first, each once.
    pub chunks: Vec<usize>,
    /// Why the action failed (an invalid pattern), when it did.
    pub error: Option<String>,
}

/// A plan's pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrepPool {
    /// The paths of the files holding a kept line, in path order (see [`ActionMatches::lines`]).
    pub files: Vec<String>,
    /// Every action's matches, in plan order.
    pub actions: Vec<ActionMatches>,
    /// The merged candidates (positions in the chunk table), best first.
    pub candidates: Vec<usize>,
}

/// One action ready to run: its regex, its glob, the needle its matches hold.
struct Search<'p> {
    action: &'p GrepAction,
    /// Compiled up front, unless the needle is the whole pattern ([`Needle::bounds`]): then
    /// only if the needle is not ASCII and a file holds a look-alike of its letters.
    regex: std::cell::OnceCell<Regex>,
    glob: std::rc::Rc<PathGlob>,
    needle: Option<Needle>,
    /// The blocks of files that may hold a match (`None`: any may).
    files: Option<Candidates<'p>>,
    /// The trigram index, which knows the lines before each block of a file it was made over.
    index: &'p FileTrigrams,
}

impl<'p> Search<'p> {
    /// The action ready to run, or why its pattern or glob does not compile.
    fn new(action: &'p GrepAction, index: &'p FileTrigrams) -> Result<Self, String> {
        let needle = Needle::of(&action.pattern, action.case_sensitive);
        let regex = std::cell::OnceCell::new();
        if needle.as_ref().is_none_or(|n| n.bounds().is_none()) {
            let _ = regex.set(action.regex()?);
        }
        let glob = action.matcher()?;
        let files = needle.as_ref().and_then(|n| {
            let bounds = n.bounds().unwrap_or_default();
            let trigrams = file_trigrams::trigrams_within_bounds(n.bytes(), bounds);
            index.candidates(&trigrams, n.exotic())
        });
        Ok(Search {
            action,
            regex,
            glob,
            needle,
            files,
            index,
        })
    }

    /// The compiled pattern, compiled now if it was not.
    fn regex(&self) -> Result<&Regex, String> {
        if let Some(regex) = self.regex.get() {
            return Ok(regex);
        }
        let compiled = self.action.regex()?;
        Ok(self.regex.get_or_init(|| compiled))
    }

    /// Whether the file numbered `id` in the index (`None`: a file it does not know) may hold a
    /// match.
    fn may_match(&self, id: Option<u32>) -> bool {
        match (&self.files, id) {
            (Some(files), Some(id)) => files.file(id),
            _ => true,
        }
    }

    /// The 0-based numbers of the first `most` lines of `text` (file `id` of the index) this
    /// action matches (see [`matching_lines`]), in `buffers.numbers` (cleared first), found
    /// through its needle when it has one, in the parts of the file that may hold it
    /// (`buffers.ranges`, refilled for it); `fold` is `text`'s, made on first need.
    fn lines(
        &self,
        (id, text): (Option<u32>, &str),
        fold: &mut Fold<'_>,
        (most, buffers): (usize, &mut Buffers),
    ) -> Result<(), String> {
        let Buffers { ranges, numbers } = buffers;
        numbers.clear();
        let indexed = id.filter(|_| fold.indexed());
        let counted = |at: usize| indexed.and_then(|id| self.index.line_before(id, at));
        let Some(needle) = &self.needle else {
            let regex = self.regex()?;
            matching_lines(
                (|_, line: &str| regex.is_match(line), counted),
                (text, most, numbers),
                |at| regex.find_at(text, at).map(|m| m.start()),
            );
            return Ok(());
        };
        // The blocks that may hold the needle, when the index was made over this text; a needle
        // with a line break may cross blocks, and is searched for in the whole text.
        let within = match (&self.files, indexed) {
            (Some(files), Some(id)) if !needle.bytes().contains(&b'\n') => {
                files.ranges_into(id, text.len(), ranges);
                Some(&*ranges)
            }
            _ => None,
        };
        let look_alikes = needle.exotic() && fold.look_alikes(text);
        let haystack = if needle.folded() {
            fold.of(text)
        } else {
            text.as_bytes()
        };
        let next = |at: usize| match &within {
            None => needle.find(&haystack[at..]).map(|found| at + found),
            Some(ranges) => ranges.iter().filter(|r| r.end > at).find_map(|r| {
                let from = r.start.max(at);
                needle
                    .find(&haystack[from..r.end])
                    .map(|found| from + found)
            }),
        };
        if let Some(bounds) = needle.bounds().filter(|_| !look_alikes) {
            // The needle is the whole pattern: an occurrence with its boundaries is a match, and
            // the others (`\bturn\b` in `return`) are passed over where they are found, their
            // lines neither cut out nor tested.
            let bounded = |mut at: usize| loop {
                let found = next(at)?;
                if needle.bounded_at(bounds, text, found) {
                    return Some(found);
                }
                at = found + 1;
            };
            matching_lines((|_, _: &str| true, counted), (text, most, numbers), bounded);
            return Ok(());
        }
        // Otherwise a found line is tested with the regex, or, in a file holding a look-alike,
        // with an ASCII needle that is the whole pattern, a line holding a look-alike with them
        // folded ([`fold_look_alikes`]).
        let test = match needle.bounds().filter(|_| needle.bytes().is_ascii()) {
            Some(bounds) => LineTest::Needle(bounds),
            None => LineTest::Regex(self.regex()?),
        };
        let test = |at: usize, line: &str| match test {
            LineTest::Needle(bounds) if line.is_ascii() => {
                needle.in_line(bounds, line, &haystack[at..at + line.len()])
            }
            LineTest::Needle(bounds) => {
                let folded = fold_look_alikes(line);
                needle.in_line(bounds, &folded, folded.as_bytes())
            }
            LineTest::Regex(regex) => regex.is_match(line),
        };
        if !look_alikes {
            matching_lines((test, counted), (text, most, numbers), next);
            return Ok(());
        }
        // A match may spell the needle's `k` or `s` with a look-alike, which the fold leaves as
        // it is: a line holding one is a candidate too. Each search's next find is kept until
        // passed, so no byte is searched twice however far the next look-alike is.
        let mut kept = [Ahead::default(); 1 + LOOK_ALIKES];
        let (needle_ahead, alikes) = kept.split_at_mut(1);
        matching_lines((test, counted), (text, most, numbers), |at| {
            let alike = alikes
                .iter_mut()
                .enumerate()
                .filter_map(|(nth, ahead)| ahead.from(at, |at| next_look_alike(text, nth, at)));
            needle_ahead[0]
                .from(at, next)
                .into_iter()
                .chain(alike)
                .min()
        });
        Ok(())
    }
}

/// What a search of one file fills, kept from file to file so that a pool makes each list
/// once: the byte ranges to read, and the 0-based numbers of the lines found.
#[derive(Default)]
struct Buffers {
    ranges: Vec<Range<usize>>,
    numbers: Vec<usize>,
}

/// How a candidate line is tested: with the needle and its word boundaries, or the regex.
#[derive(Clone, Copy)]
enum LineTest<'r> {
    Needle((bool, bool)),
    Regex(&'r Regex),
}

/// A forward search's next find, kept until the scan passes it.
#[derive(Default, Clone, Copy)]
struct Ahead {
    /// The last find and the position it was searched from.
    last: Option<(usize, Option<usize>)>,
}

impl Ahead {
    /// The first find at or after `at` (asked for with `at` never decreasing), by `find` when
    /// the kept one does not answer.
    fn from(&mut self, at: usize, find: impl FnOnce(usize) -> Option<usize>) -> Option<usize> {
        match self.last {
            Some((from, found)) if from <= at && found.is_none_or(|found| found >= at) => found,
            _ => {
                let found = find(at);
                self.last = Some((at, found));
                found
            }
        }
    }
}

/// What the current file's actions share, each made on first need or taken from the trigram
/// index: its text with the ASCII letters lower-cased, and whether it holds a look-alike of `k`
/// or `s`.
#[derive(Default)]
struct Fold<'i> {
    known: Option<&'i [u8]>,
    bytes: Vec<u8>,
    ready: bool,
    look_alikes: Option<bool>,
}

impl<'i> Fold<'i> {
    /// Whether the index was made over the current file's text.
    fn indexed(&self) -> bool {
        self.known.is_some()
    }

    /// Starts on another file, with what the index knows of it.
    fn reset(&mut self, known: Option<(&'i [u8], bool)>) {
        self.ready = false;
        self.known = known.map(|(folded, _)| folded);
        self.look_alikes = known.map(|(_, look_alikes)| look_alikes);
    }

    /// `text` folded ([`fold_ascii`]).
    fn of(&mut self, text: &str) -> &[u8] {
        if let Some(known) = self.known {
            return known;
        }
        if !self.ready {
            fold_ascii(text, &mut self.bytes);
            self.ready = true;
        }
        &self.bytes
    }

    /// Whether `text` holds a look-alike ([`holds_look_alikes`]).
    fn look_alikes(&mut self, text: &str) -> bool {
        *self
            .look_alikes
            .get_or_insert_with(|| holds_look_alikes(text))
    }
}

/// Runs `plan` over `files` (`(path, text)`, any order: searched in path order) with `limits`,
/// mapping matches onto the chunks of `by_file`; `index` is the files' trigram index, made once over the same
/// texts ([`FileTrigrams`]: a file it does not know is read). The files are read once,
/// each action in turn on each file (so that a file's fold serves every case-insensitive
/// action); every action keeps its own limits, as if it ran alone.
pub fn grep_pool<'t>(
    plan: &Plan,
    files: impl IntoIterator<Item = (&'t str, &'t str)>,
    index: &FileTrigrams,
    by_file: &ChunksByFile,
    limits: GrepLimits,
) -> GrepPool {
    let mut files: Vec<(&str, &str)> = files.into_iter().collect();
    // The index's own list is searched as it comes, each file's number its position; any
    // other list is put in path order and its files looked up.
    let numbered = index.in_order_over(&files);
    if !numbered {
        stable_sort::by(&mut files, |a, b| a.0.cmp(b.0));
    }
    let listed = Listed {
        file_at: |position| files[position],
        len: files.len(),
        numbered,
    };
    walk(plan, listed, index, by_file, limits)
}

/// [`grep_pool`] over a bundle's `texts`: when `index` was made over them
/// ([`FileTrigrams::over`]), each file's number is its position, and the list is neither
/// collected nor compared with the index's.
pub fn grep_pool_over(
    plan: &Plan,
    texts: &FileTexts,
    index: &FileTrigrams,
    by_file: &ChunksByFile,
    limits: GrepLimits,
) -> GrepPool {
    if !index.made_over(texts) {
        return grep_pool(plan, texts.iter(), index, by_file, limits);
    }
    let listed = Listed {
        file_at: |position| texts.file(position).unwrap_or_default(),
        len: texts.len(),
        numbered: true,
    };
    walk(plan, listed, index, by_file, limits)
}

/// The files a pool walks, in path order: the `position`-th as `(path, text)`, how many there
/// are, and whether each one's number in the index is its position.
struct Listed<F> {
    file_at: F,
    len: usize,
    numbered: bool,
}

/// The pool of `plan` over the `files` listed (see [`grep_pool`]).
fn walk<'t>(
    plan: &Plan,
    files: Listed<impl Fn(usize) -> (&'t str, &'t str)>,
    index: &FileTrigrams,
    by_file: &ChunksByFile,
    limits: GrepLimits,
) -> GrepPool {
    let numbered = files.numbered;
    let mut actions: Vec<ActionMatches> = (0..plan.actions.len())
        .map(|at| ActionMatches {
            action: at,
            lines: Vec::new(),
            truncated: false,
            outside: 0,
            chunks: Vec::new(),
            error: None,
        })
        .collect();
    // An action that failed to compile, or reached its limit, has no search left.
    let mut searches: Vec<Option<Search>> = plan
        .actions
        .iter()
        .zip(&mut actions)
        .map(|(action, found)| match Search::new(action, index) {
            Ok(search) => Some(search),
            Err(why) => {
                found.error = Some(why);
                None
            }
        })
        .collect();
    let mut seen: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); actions.len()];
    let mut fold = Fold::default();
    let mut buffers = Buffers::default();
    let mut kept_files: Vec<String> = Vec::new();
    for position in visits(&searches, index, files.len, numbered) {
        let (path, text) = (files.file_at)(position);
        let id = if numbered {
            Some(position as u32)
        } else {
            index.id_at(position, path)
        };
        // Most files hold no action's trigrams: nothing of them is looked at.
        if searches
            .iter()
            .flatten()
            .all(|search| !search.may_match(id))
        {
            continue;
        }
        fold.reset(id.and_then(|id| index.known(id, text)));
        // The file's chunks and its place in the pool's paths, on its first kept line.
        let mut in_file_chunks = None;
        let mut kept_as = None;
        for ((slot, found), seen) in searches.iter_mut().zip(&mut actions).zip(&mut seen) {
            let Some(search) = slot else { continue };
            if !search.may_match(id) || !search.glob.is_match(path) {
                continue;
            }
            // One line past what the limits keep tells whether they cut it.
            let room = limits
                .per_file
                .min(limits.per_action.saturating_sub(found.lines.len()));
            match search.lines((id, text), &mut fold, (room + 1, &mut buffers)) {
                Ok(()) => {}
                // Not reached: a pattern the needle stands for compiles (see `Needle::bounds`).
                Err(why) => {
                    found.error = Some(why);
                    *slot = None;
                    continue;
                }
            };
            for (in_file, &number) in buffers.numbers.iter().enumerate() {
                if in_file == limits.per_file {
                    found.truncated = true;
                    break;
                }
                if found.lines.len() == limits.per_action {
                    found.truncated = true;
                    *slot = None;
                    break;
                }
                let number = number as u32 + 1;
                let file = *kept_as.get_or_insert_with(|| {
                    kept_files.push(path.to_string());
                    kept_files.len() as u32 - 1
                });
                found.lines.push((file, number));
                let chunks = in_file_chunks.get_or_insert_with(|| by_file.of_file(path));
                match chunks.enclosing(number) {
                    Some(chunk) if seen.insert(chunk) => found.chunks.push(chunk),
                    Some(_) => {}
                    None => found.outside += 1,
                }
            }
        }
    }
    let lists: Vec<&[usize]> = actions.iter().map(|a| a.chunks.as_slice()).collect();
    let candidates = round_robin(&lists, limits.candidates);
    GrepPool {
        files: kept_files,
        actions,
        candidates,
    }
}

/// The positions in a list of `files` (in path order) a pool visits: when they are numbered as
/// in `index` and every action reads only the blocks holding its needle's trigrams, the files
/// holding one of those blocks (a third of the demo's files, a question); else every file.
/// Either way a visited file is searched only by the actions that may match in it.
fn visits(
    searches: &[Option<Search<'_>>],
    index: &FileTrigrams,
    files: usize,
    numbered: bool,
) -> Vec<usize> {
    let sets: Option<Vec<&Candidates<'_>>> = searches
        .iter()
        .flatten()
        .map(|search| search.files.as_ref())
        .collect();
    match sets {
        Some(sets) if numbered => index
            .files_in_any(&sets)
            .into_iter()
            .map(|id| id as usize)
            .collect(),
        _ => (0..files).collect(),
    }
}

/// The first `most` lines of `text` that `matches` (given the line's first byte in `text`, and
/// the line) accepts, each once, their 0-based numbers pushed onto `out` (after what it holds):
/// with a regex's `is_match`, the same lines as testing every line of `text.lines()` on its own. `next(at)` gives where a
/// match may start at or after byte `at` — a regex search over the whole text, or a needle's
/// ([`Needle`]) — and only the line holding it is tested, then the search goes on after that
/// line: the literal prefilters skip most of the text, about ten times faster on the demo corpus
/// than a match attempt per line. A match found across a line break only points at its first
/// line, which is then tested alone, so a pattern never matches across lines. `counted(at)`
/// gives, when known, a line start at or before byte `at` and the number of lines before it
/// (the trigram index's block), from which the match's line number is counted.
fn matching_lines(
    (mut matches, counted): (
        impl FnMut(usize, &str) -> bool,
        impl Fn(usize) -> Option<(usize, usize)>,
    ),
    (text, most, out): (&str, usize, &mut Vec<usize>),
    mut next: impl FnMut(usize) -> Option<usize>,
) {
    let (mut at, mut line_start, mut number) = (0, 0, 0);
    let most = out.len().saturating_add(most);
    while let Some(start) = next(at) {
        // `str::lines` has no empty line after a final newline (nor in an empty text).
        if start == text.len() && (text.is_empty() || text.ends_with('\n')) {
            break;
        }
        // Advance to the line holding the match's start, from the last line start before it
        // whose number is known.
        let bytes = text.as_bytes();
        if let Some((block, lines)) = counted(start).filter(|&(b, _)| b > line_start) {
            (line_start, number) = (block, lines);
        }
        number += memchr::memchr_iter(b'\n', &bytes[line_start..start]).count();
        line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[start..]).map_or(text.len(), |i| start + i);
        // As `str::lines`: a `\r` goes with the `\n` after it, not at the end of the text.
        let whole = &text[line_start..line_end];
        let line = match whole.strip_suffix('\r') {
            Some(stripped) if line_end < text.len() => stripped,
            _ => whole,
        };
        if matches(line_start, line) {
            out.push(number);
            if out.len() == most {
                break;
            }
        }
        if line_end >= text.len() {
            break;
        }
        at = line_end + 1;
        line_start = at;
        number += 1;
    }
}

/// The lists interleaved — the first of each in order, then the second of each, … — each item
/// once (its first appearance), at most `cap`.
pub fn round_robin(lists: &[&[usize]], cap: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    let longest = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    for depth in 0..longest {
        for list in lists {
            if out.len() == cap {
                return out;
            }
            if let Some(&item) = list.get(depth) {
                if seen.insert(item) {
                    out.push(item);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::code_chunks::test_chunk as chunk;
    use crate::corpus::code_chunks::CodeChunk;
    use crate::remote::rerank::plan::GrepAction;

    /// `plan`'s pool over `files`, its trigram index made over the same files.
    fn pool_of(
        plan: &Plan,
        files: &[(&str, &str)],
        chunks: &[CodeChunk],
        limits: GrepLimits,
    ) -> GrepPool {
        pool_in_blocks(plan, files, chunks, (limits, file_trigrams::BLOCK))
    }

    /// [`pool_of`] with the index's blocks at least `block` bytes long.
    fn pool_in_blocks(
        plan: &Plan,
        files: &[(&str, &str)],
        chunks: &[CodeChunk],
        (limits, block): (GrepLimits, usize),
    ) -> GrepPool {
        let index = FileTrigrams::in_blocks(files.iter().copied(), block);
        grep_pool(
            plan,
            files.iter().copied(),
            &index,
            &ChunksByFile::new(chunks),
            limits,
        )
    }

    /// Action `action`'s kept lines in `pool` as `(path, 1-based line)`.
    fn lines_of(pool: &GrepPool, action: usize) -> impl Iterator<Item = (&str, u32)> + '_ {
        pool.actions[action]
            .lines
            .iter()
            .map(|&(file, line)| (pool.files[file as usize].as_str(), line))
    }

    fn action(pattern: &str, glob: &str) -> GrepAction {
        GrepAction {
            pattern: pattern.into(),
            glob: glob.into(),
            case_sensitive: false,
        }
    }

    #[test]
    fn round_robin_interleaves_in_priority_order_and_drops_duplicates() {
        assert_eq!(
            round_robin(&[&[1, 2, 3], &[2, 4], &[5]], 10),
            [1, 2, 5, 4, 3]
        );
        assert_eq!(round_robin(&[&[1, 2, 3], &[4, 5, 6]], 3), [1, 4, 2]);
        assert!(round_robin(&[&[], &[]], 5).is_empty());
    }

    #[test]
    fn the_limits_cut_per_file_and_per_action_and_say_so() {
        let text = "hit\n".repeat(30);
        let files = [
            ("a.py", text.as_str()),
            ("b.py", text.as_str()),
            ("c.rs", "hit\n"),
        ];
        let chunks: Vec<CodeChunk> = (0..30)
            .flat_map(|at| {
                [
                    chunk("a.py", at + 1, at + 1, ""),
                    chunk("b.py", at + 1, at + 1, ""),
                ]
            })
            .collect();
        let limits = GrepLimits {
            per_file: 20,
            per_action: 25,
            candidates: 100,
        };
        let plan = Plan {
            actions: vec![action("hit", "**/*.py")],
        };
        let pool = pool_of(&plan, &files, &chunks, limits);
        let found = &pool.actions[0];
        assert!(found.truncated);
        assert_eq!(found.lines.len(), 25, "20 of a.py, then 5 of b.py");
        assert_eq!(lines_of(&pool, 0).filter(|(p, _)| *p == "a.py").count(), 20);
        assert_eq!(pool.files, ["a.py", "b.py"], "each path once");
        assert!(
            lines_of(&pool, 0).all(|(p, _)| p != "c.rs"),
            "the glob leaves c.rs out"
        );
        assert_eq!(pool.candidates.len(), 25);
    }

    #[test]
    fn a_bad_pattern_fails_its_action_alone_and_lines_outside_chunks_are_dropped() {
        let files = [("a.py", "def allow():\n    return rate\n# rate note\n")];
        let chunks = vec![chunk("a.py", 1, 2, "allow")];
        let plan = Plan {
            actions: vec![action("(unclosed", "**/*"), action("rate", "**/*")],
        };
        let pool = pool_of(&plan, &files, &chunks, GrepLimits::default());
        assert!(pool.actions[0]
            .error
            .as_deref()
            .unwrap()
            .contains("(unclosed"));
        assert_eq!(
            lines_of(&pool, 1).collect::<Vec<_>>(),
            [("a.py", 2), ("a.py", 3)]
        );
        assert_eq!(pool.actions[1].outside, 1);
        assert_eq!(pool.candidates, [0]);
        // Nothing matched: the pool stays empty.
        let none = Plan {
            actions: vec![action("absent", "**/*")],
        };
        assert!(pool_of(&none, &files, &chunks, GrepLimits::default())
            .candidates
            .is_empty());
    }

    #[test]
    fn case_sensitivity_is_the_actions() {
        let files = [("a.rs", "RateLimit\nratelimit\n")];
        let chunks = vec![chunk("a.rs", 1, 1, "x"), chunk("a.rs", 2, 2, "y")];
        let mut sensitive = action("RateLimit", "**/*");
        sensitive.case_sensitive = true;
        let plan = Plan {
            actions: vec![sensitive],
        };
        assert_eq!(
            pool_of(&plan, &files, &chunks, GrepLimits::default()).candidates,
            [0]
        );
        let plan = Plan {
            actions: vec![action("RateLimit", "**/*")],
        };
        assert_eq!(
            pool_of(&plan, &files, &chunks, GrepLimits::default()).candidates,
            [0, 1]
        );
    }

    proptest::proptest! {
        #[test]
        fn a_plan_finds_through_needles_and_trigrams_the_lines_a_line_by_line_search_finds(
            texts in proptest::collection::vec("[kKsSeEyY_\u{212A}\u{17F}é \n\r]{0,60}", 1..4),
            patterns in proptest::collection::vec(proptest::sample::select(vec![
                "key", "\\bkey\\b", "sey", "^s", "k$", "e_s", "ké", "y(?-i:K)e", "s\\s+k", "[ks]e",
                "ye|ke", "\\bye\\b", "\\bks\\b", "\\be_", "_s\\b", "y(?-i:é)", "\\bSéy\\b",
                "\\bs\\b", "\\be\\b ",
            ]), 1..4),
            case_sensitive in proptest::bool::ANY,
            (per_file, per_action) in (0..4usize, 0..6usize),
            block in 1..40usize,
        ) {
            let paths: Vec<String> = (0..texts.len()).map(|at| format!("f{at}.py")).collect();
            let files: Vec<(&str, &str)> =
                paths.iter().map(String::as_str).zip(texts.iter().map(String::as_str)).collect();
            let plan = Plan {
                actions: patterns
                    .iter()
                    .map(|p| GrepAction {
                        pattern: p.to_string(),
                        glob: "**/*".into(),
                        case_sensitive,
                    })
                    .collect(),
            };
            let limits = GrepLimits { per_file, per_action, candidates: 100 };
            // Blocks from a few bytes, so that a file is several, to one per file.
            let pool = pool_in_blocks(&plan, &files, &[], (limits, block));
            // The files in another order than the index's: put in path order and looked up.
            let index = FileTrigrams::in_blocks(files.iter().copied(), block);
            let reversed = files.iter().rev().copied();
            let looked_up = grep_pool(&plan, reversed, &index, &ChunksByFile::new(&[]), limits);
            proptest::prop_assert_eq!(&looked_up, &pool);
            // A bundle's texts with the index made over them, searched as numbered; with an
            // index made over other files, each file read whole.
            let bundle: FileTexts = paths.iter().cloned().zip(texts.iter().cloned()).collect();
            let by_file = ChunksByFile::new(&[]);
            let own = FileTrigrams::over(&bundle);
            proptest::prop_assert_eq!(&grep_pool_over(&plan, &bundle, &own, &by_file, limits), &pool);
            let elsewhere: FileTexts = paths
                .iter()
                .map(|path| format!("other/{path}"))
                .zip(texts.iter().cloned().cycle().skip(1))
                .collect();
            let other = FileTrigrams::over(&elsewhere);
            proptest::prop_assert_eq!(&grep_pool_over(&plan, &bundle, &other, &by_file, limits), &pool);
            // Every path holding a kept line, once, in path order.
            let mut kept_paths = std::collections::BTreeSet::new();
            for (nth, (action, found)) in plan.actions.iter().zip(&pool.actions).enumerate() {
                // Every matching line of every file, tested alone, then the limits.
                let regex = action.regex().unwrap();
                let (mut expected, mut truncated) = (Vec::new(), false);
                'files: for (path, text) in &files {
                    let lines = text.lines().enumerate().filter(|(_, line)| regex.is_match(line));
                    for (in_file, (at, _)) in lines.enumerate() {
                        if in_file == per_file {
                            truncated = true;
                            break;
                        }
                        if expected.len() == per_action {
                            truncated = true;
                            break 'files;
                        }
                        expected.push((*path, at as u32 + 1));
                    }
                }
                kept_paths.extend(expected.iter().map(|(path, _)| path.to_string()));
                let kept: Vec<(&str, u32)> = lines_of(&pool, nth).collect();
                proptest::prop_assert_eq!(&kept, &expected, "{}", action.pattern);
                proptest::prop_assert_eq!(found.truncated, truncated, "{}", action.pattern);
            }
            let kept_paths: Vec<String> = kept_paths.into_iter().collect();
            proptest::prop_assert_eq!(&pool.files, &kept_paths);
        }
    }

    proptest::proptest! {
        #[test]
        fn whole_text_search_finds_the_lines_a_line_by_line_search_finds(
            text in "[abcxy \\n\\r]{0,80}",
            pattern in proptest::sample::select(vec![
                "a", "^b", "c$", "a\\s+b", "[^x]+y", "\\bab\\b", "x|^$", "b\\r?$",
            ]),
        ) {
            let action = GrepAction {
                pattern: pattern.to_string(),
                glob: "**/*".into(),
                case_sensitive: true,
            };
            let regex = action.regex().unwrap();
            let expected: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, line)| regex.is_match(line))
                .map(|(at, _)| at)
                .collect();
            let mut found = Vec::new();
            matching_lines((|_, line: &str| regex.is_match(line), |_| None), (&text, usize::MAX, &mut found), |at| regex.find_at(&text, at).map(|m| m.start()));
            proptest::prop_assert_eq!(found, expected);
        }
    }
}
