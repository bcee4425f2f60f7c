//! Which files hold each run of three characters, case folded: the grep stage's file filter, a
//! trigram index as in Russ Cox's "Regular Expression Matching with a Trigram Index". A file
//! that lacks one of a needle's (`rerank::needle`) trigrams cannot hold the needle, so the
//! action skips it without reading it; the others are searched as before, so the filter never
//! changes what is found, only what is read. Made once over a bundle's texts, like the
//! planner's term counts; a file it does not know is always read.
//!
//! A character is one of 38 classes: an ASCII letter in either case, a digit, `_`, or any other
//! byte, so there are 38³ = 54,872 trigrams. Hand-written: the index is a lookup table, a loop
//! and sorted lists, and the crates that keep one (for code search) come with their own storage
//! and query language.

use rustc_hash::FxHashMap;

use super::needle::{fold_ascii, holds_look_alikes};

/// Classes of a byte: 26 letters, 10 digits, `_`, and everything else.
const CLASSES: usize = 38;
/// Distinct trigrams.
const TRIGRAMS: usize = CLASSES * CLASSES * CLASSES;

/// The class of each byte.
const CLASS: [u8; 256] = {
    let mut table = [37u8; 256];
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

/// Each trigram of `bytes` in order, as a number below [`TRIGRAMS`].
fn each_trigram(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.windows(3).map(|w| {
        let class = |b: u8| CLASS[b as usize] as usize;
        (class(w[0]) * CLASSES + class(w[1])) * CLASSES + class(w[2])
    })
}

/// A needle's trigrams, each once, in order (none for fewer than three bytes).
pub fn trigrams_of(bytes: &[u8]) -> Vec<u32> {
    let mut out: Vec<u32> = each_trigram(bytes).map(|t| t as u32).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Every file's trigrams: for each trigram, the files holding it.
pub struct FileTrigrams {
    ids: FxHashMap<String, u32>,
    /// Each file's text folded (`needle::fold_ascii`), so that no pool folds it again.
    folded: Vec<Box<[u8]>>,
    postings: Vec<Vec<u32>>,
    look_alikes: Vec<u32>,
}

/// A set of files, by the index's numbers.
pub struct FileSet(Vec<u64>);

impl FileSet {
    fn of(files: usize, ids: impl IntoIterator<Item = u32>) -> Self {
        let mut words = vec![0u64; files.div_ceil(64)];
        for id in ids {
            words[id as usize / 64] |= 1 << (id % 64);
        }
        FileSet(words)
    }

    /// Whether file `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        self.0
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

impl FileTrigrams {
    /// The index of `files` (`(path, text)`).
    pub fn new<'t>(files: impl IntoIterator<Item = (&'t str, &'t str)>) -> Self {
        let mut ids = FxHashMap::default();
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); TRIGRAMS];
        let mut look_alikes = Vec::new();
        let mut folded = Vec::new();
        // The last file each trigram was seen in, as the file's number plus one.
        let mut seen_in = vec![0u32; TRIGRAMS];
        for (id, (path, text)) in files.into_iter().enumerate() {
            let id = id as u32;
            ids.insert(path.to_string(), id);
            for trigram in each_trigram(text.as_bytes()) {
                if seen_in[trigram] != id + 1 {
                    seen_in[trigram] = id + 1;
                    postings[trigram].push(id);
                }
            }
            if holds_look_alikes(text) {
                look_alikes.push(id);
            }
            let mut bytes = Vec::new();
            fold_ascii(text, &mut bytes);
            folded.push(bytes.into_boxed_slice());
        }
        FileTrigrams {
            ids,
            folded,
            postings,
            look_alikes,
        }
    }

    /// The index's number for the file at `path`, if it knows the file.
    pub fn id(&self, path: &str) -> Option<u32> {
        self.ids.get(path).copied()
    }

    /// What the index keeps of file `id`, whose text is `text`: the text folded, and whether it
    /// holds a letter that folds to `k` or `s` (`needle::holds_look_alikes`). `None` when the
    /// index was made over another text (its length differs).
    pub fn known(&self, id: u32, text: &str) -> Option<(&[u8], bool)> {
        let folded = self.folded.get(id as usize)?;
        (folded.len() == text.len())
            .then(|| (&folded[..], self.look_alikes.binary_search(&id).is_ok()))
    }

    /// The files that may hold a match of a needle with `trigrams` ([`trigrams_of`]): those
    /// holding every one, and with `exotic` (as `Needle::exotic`) those holding a look-alike
    /// letter, which may match without them. `None`: every file may (no trigram).
    pub fn candidates(&self, trigrams: &[u32], exotic: bool) -> Option<FileSet> {
        let mut lists: Vec<&[u32]> = trigrams
            .iter()
            .map(|&t| self.postings.get(t as usize).map_or(&[][..], Vec::as_slice))
            .collect();
        lists.sort_by_key(|l| l.len());
        let (rarest, others) = lists.split_first()?;
        let others: Vec<FileSet> = others
            .iter()
            .map(|l| FileSet::of(self.ids.len(), l.iter().copied()))
            .collect();
        let holding = rarest
            .iter()
            .copied()
            .filter(|&id| others.iter().all(|set| set.contains(id)));
        let exotic_files = self.look_alikes.iter().copied().filter(|_| exotic);
        Some(FileSet::of(self.ids.len(), holding.chain(exotic_files)))
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
}
