//! Every file's text by path, each path once, in path order: how a bundle's texts are kept once
//! read. A list rather than a map, so that what is made over it (the grep stage's trigram index)
//! numbers each file by its position; and each list has an identity of its own, so that such an
//! index knows, without comparing a byte, that it is handed the very list it was made over. A
//! pool had compared the demo's 1,896 paths with the index's at every question, and collected
//! them from a map first: a fourteenth of its time in the browser's worker.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The identity the next list gets.
static NEXT_IDENTITY: AtomicU64 = AtomicU64::new(0);

/// Every file's text by path, in path order. Nothing changes it once made, so two lists with the
/// same identity hold the same files.
#[derive(Debug)]
pub struct FileTexts {
    files: Vec<(String, String)>,
    identity: u64,
}

impl From<BTreeMap<String, String>> for FileTexts {
    fn from(by_path: BTreeMap<String, String>) -> Self {
        FileTexts {
            files: by_path.into_iter().collect(),
            identity: NEXT_IDENTITY.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl FromIterator<(String, String)> for FileTexts {
    /// The files in path order; a path given twice keeps its last text, as in a map.
    fn from_iter<I: IntoIterator<Item = (String, String)>>(files: I) -> Self {
        FileTexts::from(files.into_iter().collect::<BTreeMap<_, _>>())
    }
}

impl FileTexts {
    /// The text of the file at `path`.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files
            .binary_search_by(|(known, _)| known.as_str().cmp(path))
            .ok()
            .map(|at| self.files[at].1.as_str())
    }

    /// The `position`-th file in path order, as `(path, text)`.
    pub fn file(&self, position: usize) -> Option<(&str, &str)> {
        self.files
            .get(position)
            .map(|(path, text)| (path.as_str(), text.as_str()))
    }

    /// Every file as `(path, text)`, in path order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone {
        self.files
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str()))
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// This list's identity, which no other list made in this process shares.
    pub fn identity(&self) -> u64 {
        self.identity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(files: &[(&str, &str)]) -> FileTexts {
        files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn files_are_in_path_order_each_once_and_found_by_path() {
        let list = texts(&[("b.rs", "two"), ("a.rs", "one"), ("b.rs", "three")]);
        assert_eq!(
            list.iter().collect::<Vec<_>>(),
            [("a.rs", "one"), ("b.rs", "three")]
        );
        assert_eq!(list.get("b.rs"), Some("three"));
        assert_eq!(list.get("c.rs"), None);
        assert_eq!(list.file(1), Some(("b.rs", "three")));
        assert_eq!(list.file(2), None);
        assert_eq!(list.len(), 2);
    }

    #[test]
    fn every_list_has_an_identity_of_its_own() {
        let (one, same) = (texts(&[("a.rs", "x")]), texts(&[("a.rs", "x")]));
        assert_ne!(one.identity(), same.identity());
    }
}
