//! The bundle's file texts, prepared for literal substring search.
//!
//! `rg -i -F` finds a term in a file when the term is a substring of a lower-cased line. Every
//! term is made of `[a-z0-9_]` (see [`crate::terms`]), so a term that occurs in a lower-cased
//! text lies inside one maximal run of `[a-z0-9_]`: it occurs in the text exactly when it is a
//! substring of one of the text's *words* (its runs). [`TextCorpus`] therefore keeps the
//! corpus's distinct words, the files each occurs in, and a trigram index over the words (terms
//! have at least three characters). A query looks a term's rarest trigram up, checks the
//! candidate words with `contains`, and unions their files: no file text is scanned at query
//! time, so a query costs the same in the browser as natively, and well under a millisecond on a
//! few thousand files.

use std::collections::HashMap;

use crate::terms::token_runs;

/// Terms are at least this long, so shorter words can never contain one.
const MIN_WORD_LEN: usize = 3;

/// File texts and paths, indexed for literal term lookup.
#[derive(Debug, Clone, Default)]
pub struct TextCorpus {
    paths: Vec<String>,
    lower_paths: Vec<String>,
    words: Vec<String>,
    /// For each word, the files it occurs in, ascending.
    word_files: Vec<Vec<u32>>,
    /// For each trigram of any word, the words containing it, ascending.
    trigrams: HashMap<[u8; 3], Vec<u32>>,
}

impl TextCorpus {
    /// Prepares `(path, text)` pairs. A path given twice keeps its first text.
    pub fn new<P, T>(files: impl IntoIterator<Item = (P, T)>) -> TextCorpus
    where
        P: Into<String>,
        T: AsRef<str>,
    {
        let mut corpus = TextCorpus::default();
        let mut seen_paths = std::collections::HashSet::new();
        let mut word_ids: HashMap<String, u32> = HashMap::new();
        for (path, text) in files {
            let path = path.into();
            if !seen_paths.insert(path.clone()) {
                continue;
            }
            let file = corpus.paths.len() as u32;
            let lower = text.as_ref().to_lowercase();
            for word in token_runs(&lower).filter(|word| word.len() >= MIN_WORD_LEN) {
                let id = match word_ids.get(word) {
                    Some(&id) => id,
                    None => {
                        let id = corpus.words.len() as u32;
                        word_ids.insert(word.to_string(), id);
                        corpus.words.push(word.to_string());
                        corpus.word_files.push(Vec::new());
                        id
                    }
                };
                // Files arrive in order, so a repeat of the word in this file is the last entry.
                let files = &mut corpus.word_files[id as usize];
                if files.last() != Some(&file) {
                    files.push(file);
                }
            }
            corpus.lower_paths.push(path.to_lowercase());
            corpus.paths.push(path);
        }
        for (id, word) in corpus.words.iter().enumerate() {
            let bytes = word.as_bytes();
            let mut seen: Vec<[u8; 3]> = Vec::new();
            for window in bytes.windows(3) {
                let key = [window[0], window[1], window[2]];
                if !seen.contains(&key) {
                    seen.push(key);
                    corpus.trigrams.entry(key).or_default().push(id as u32);
                }
            }
        }
        corpus
    }

    /// The number of files (the `N` of the `rg` score).
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether the corpus has no files.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The paths, in the order given.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The number of distinct words of three or more characters.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The lower-cased path of file `file`.
    pub(crate) fn lower_path(&self, file: usize) -> &str {
        &self.lower_paths[file]
    }

    /// For each file that contains at least one of `terms`, the indices of the terms it contains
    /// (ascending), in file order. Terms must be lower-case `[a-z0-9_]` strings.
    pub fn matches(&self, terms: &[String]) -> Vec<(usize, Vec<usize>)> {
        let mut found: Vec<Vec<usize>> = vec![Vec::new(); self.paths.len()];
        let mut marked = vec![false; self.paths.len()];
        for (term_index, term) in terms.iter().enumerate() {
            for file in self.files_containing(term, &mut marked) {
                found[file].push(term_index);
            }
        }
        found
            .into_iter()
            .enumerate()
            .filter(|(_, terms)| !terms.is_empty())
            .collect()
    }

    /// The files containing `term` as a substring of a word, ascending. `marked` is scratch
    /// space of one flag per file, all false on entry and on return.
    fn files_containing(&self, term: &str, marked: &mut [bool]) -> Vec<usize> {
        let bytes = term.as_bytes();
        if bytes.len() < MIN_WORD_LEN {
            return Vec::new();
        }
        let mut rarest: Option<&Vec<u32>> = None;
        for window in bytes.windows(3) {
            match self.trigrams.get(&[window[0], window[1], window[2]]) {
                None => return Vec::new(),
                Some(words) if rarest.is_none_or(|best| words.len() < best.len()) => {
                    rarest = Some(words);
                }
                Some(_) => {}
            }
        }
        let mut files = Vec::new();
        for &word in rarest.into_iter().flatten() {
            if self.words[word as usize].contains(term) {
                for &file in &self.word_files[word as usize] {
                    let flag = &mut marked[file as usize];
                    if !*flag {
                        *flag = true;
                        files.push(file as usize);
                    }
                }
            }
        }
        for &file in &files {
            marked[file] = false;
        }
        files.sort_unstable();
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn finds_terms_as_case_insensitive_substrings() {
        let corpus = TextCorpus::new([
            ("a.rs", "fn ReIndexing() {}\n// max_depth"),
            ("b.rs", "let index = 1;"),
            ("c.rs", "nothing here"),
            ("d.rs", "IN-DEX is split by a dash; IND EX by a space"),
        ]);
        assert_eq!(corpus.len(), 4);
        let terms = strings(&["dex", "index", "max_depth", "x_d", "zzz"]);
        assert_eq!(
            corpus.matches(&terms),
            [(0, vec![0, 1, 2, 3]), (1, vec![0, 1]), (3, vec![0])]
        );
    }

    #[test]
    fn matches_what_a_scan_of_the_lower_cased_text_finds() {
        let texts = [
            "Größe und ÖL: size_of::<T>() in KELVIN \u{212A}elvin",
            "snake_case_name and CamelCaseName, x86_64-unknown",
            "",
            "aaaa aaa",
        ];
        let corpus = TextCorpus::new(texts.iter().enumerate().map(|(i, t)| (i.to_string(), *t)));
        let terms = strings(&[
            "size_of",
            "kelvin",
            "case_n",
            "camelcase",
            "x86_64",
            "aaaa",
            "aaa",
            "e_o",
            "öl",
        ]);
        // `öl` is not a valid term (non-ASCII) and is never found: words are ASCII runs.
        for (file, found) in corpus.matches(&terms) {
            let lower = texts[file].to_lowercase();
            let expected: Vec<usize> = (0..terms.len())
                .filter(|&t| terms[t].is_ascii() && lower.contains(&terms[t]))
                .collect();
            assert_eq!(found, expected, "file {file}");
        }
        assert_eq!(corpus.matches(&strings(&["aaaa"])), [(3, vec![0])]);
    }

    #[test]
    fn duplicate_paths_keep_the_first_text() {
        let corpus = TextCorpus::new([("a", "alpha"), ("a", "beta")]);
        assert_eq!(corpus.len(), 1);
        assert!(corpus.matches(&strings(&["beta"])).is_empty());
        assert!(TextCorpus::default().matches(&strings(&["abc"])).is_empty());
    }
}
