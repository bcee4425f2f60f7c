//! The directory tree of a bundle, derived from the manifest's sorted paths.
//!
//! A bundle has no separate tree file: the manifest already lists every path, and a tree file
//! would repeat them. [`DirTree::from_paths`] rebuilds the tree in one pass; directories exist
//! only where a listed file is under them.
//!
//! The paper's tree walker lists a directory's files by name alone: every file its loader does
//! not drop by name (hidden, reserved, a symbolic link), binary and non-UTF-8 ones included; it
//! learns a file cannot be read, or holds nothing, only when its walk reaches it, and then skips
//! it. [`DirTree::from_listing`] keeps that: such files are named in [`DirTree::files`] (so they
//! are menu options and subtopics, and their folders exist) and marked as skipped when visited.

use crate::stable_sort;

/// One directory: its sub-directories and files, each sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DirTree {
    /// The directory's name (`""` for the root).
    pub name: String,
    /// Its path from the root without a trailing slash (`""` for the root).
    pub path: String,
    /// Sub-directories, sorted by name.
    pub dirs: Vec<DirTree>,
    /// File names directly in this directory, sorted: every listed file, menu-only ones too.
    pub files: Vec<String>,
    /// Those of `files` not in the bundle (binary, not UTF-8, over a size cap): menu options
    /// the walk skips when it reaches them, and never offered to the flat tournament.
    pub unreadable: Vec<String>,
    /// Those of `files` that are empty: the tree walk skips them when it reaches them (the
    /// paper's walker finds no section in them); the flat tournament offers them.
    pub empty: Vec<String>,
    /// The number of the bundle's files anywhere below this directory (unreadable ones not
    /// counted).
    pub file_count: usize,
}

/// What a listed file is to the walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// A bundle file with content.
    Searchable,
    /// A bundle file of zero bytes.
    Empty,
    /// A file the policy kept out by its content: named in menus only.
    Unreadable,
}

impl DirTree {
    /// The tree of these repository-relative paths (any order; duplicates count once), all
    /// searchable.
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> DirTree {
        let listing: Vec<(&str, Listed)> = paths
            .iter()
            .map(|path| (path.as_ref(), Listed::Searchable))
            .collect();
        DirTree::from_listing(&listing)
    }

    /// The tree of these listed files (any order; a path listed twice counts once, as first
    /// listed after sorting).
    pub fn from_listing(listing: &[(&str, Listed)]) -> DirTree {
        let mut sorted: Vec<(&str, Listed)> = listing.to_vec();
        stable_sort::by(&mut sorted, |a, b| a.0.cmp(b.0));
        sorted.dedup_by(|a, b| a.0 == b.0);
        let mut root = DirTree::default();
        for (path, listed) in sorted {
            let mut node = &mut root;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                node.file_count += usize::from(listed != Listed::Unreadable);
                if parts.peek().is_none() {
                    node.files.push(part.to_string());
                    match listed {
                        Listed::Searchable => {}
                        Listed::Empty => node.empty.push(part.to_string()),
                        Listed::Unreadable => node.unreadable.push(part.to_string()),
                    }
                    break;
                }
                // Paths arrive sorted, so a directory seen before is the last one pushed.
                if node.dirs.last().is_none_or(|dir| dir.name != part) {
                    let child_path = if node.path.is_empty() {
                        part.to_string()
                    } else {
                        format!("{}/{part}", node.path)
                    };
                    node.dirs.push(DirTree {
                        name: part.to_string(),
                        path: child_path,
                        ..DirTree::default()
                    });
                }
                let last = node.dirs.len() - 1;
                node = &mut node.dirs[last];
            }
        }
        root.sort();
        root
    }

    /// The directory at `path` (`""` is the root).
    pub fn find(&self, path: &str) -> Option<&DirTree> {
        if path.is_empty() {
            return Some(self);
        }
        let mut node = self;
        for part in path.split('/') {
            node = node.dirs.iter().find(|dir| dir.name == part)?;
        }
        Some(node)
    }

    /// Whether the tree walk skips the file at `path` when it reaches it (unreadable or empty).
    pub fn skipped_when_visited(&self, path: &str) -> bool {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        self.find(dir).is_some_and(|node| {
            node.unreadable.iter().any(|n| n == name) || node.empty.iter().any(|n| n == name)
        })
    }

    fn sort(&mut self) {
        // Byte order of full paths puts `a-b/x` before `a/x` ('-' < '/'), so names need a sort.
        stable_sort::by(&mut self.dirs, |a, b| a.name.cmp(&b.name));
        stable_sort::sort(&mut self.files);
        stable_sort::sort(&mut self.unreadable);
        stable_sort::sort(&mut self.empty);
        for dir in &mut self.dirs {
            dir.sort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_nested_directories_with_counts() {
        let tree = DirTree::from_paths(&[
            "src/lib.rs",
            "README.md",
            "src/bundle/mod.rs",
            "src/a-b/x.rs",
            "src/bundle/tree.rs",
            "README.md",
        ]);
        assert_eq!(tree.file_count, 5);
        assert_eq!(tree.files, ["README.md"]);
        let src = tree.find("src").unwrap();
        assert_eq!(src.path, "src");
        assert_eq!(src.files, ["lib.rs"]);
        assert_eq!(src.file_count, 4);
        let names: Vec<&str> = src.dirs.iter().map(|dir| dir.name.as_str()).collect();
        assert_eq!(names, ["a-b", "bundle"]);
        let bundle = tree.find("src/bundle").unwrap();
        assert_eq!(bundle.path, "src/bundle");
        assert_eq!(bundle.files, ["mod.rs", "tree.rs"]);
        assert!(tree.find("src/missing").is_none());
        assert_eq!(tree.find("").unwrap().file_count, 5);
    }

    #[test]
    fn unreadable_files_are_named_but_not_counted() {
        let tree = DirTree::from_listing(&[
            ("doc/logo.png", Listed::Unreadable),
            ("doc/guide.md", Listed::Searchable),
            ("doc/empty.txt", Listed::Empty),
            ("img/only.png", Listed::Unreadable),
        ]);
        assert_eq!(tree.file_count, 2);
        let doc = tree.find("doc").unwrap();
        assert_eq!(doc.files, ["empty.txt", "guide.md", "logo.png"]);
        assert_eq!(
            (doc.unreadable.as_slice(), doc.empty.as_slice()),
            (
                &["logo.png".to_string()][..],
                &["empty.txt".to_string()][..]
            )
        );
        // A folder of unreadable files is still a folder of the menus.
        assert_eq!(tree.find("img").unwrap().file_count, 0);
        assert!(tree.skipped_when_visited("doc/logo.png"));
        assert!(tree.skipped_when_visited("doc/empty.txt"));
        assert!(!tree.skipped_when_visited("doc/guide.md"));
        assert!(!tree.skipped_when_visited("nowhere/x"));
    }

    #[test]
    fn interleaved_directories_merge() {
        // "a/x", "a-b/y", "a/z" sort as "a-b/y" < "a/x" < "a/z": one `a` directory.
        let tree = DirTree::from_paths(&["a/x", "a-b/y", "a/z"]);
        assert_eq!(tree.dirs.len(), 2);
        assert_eq!(tree.find("a").unwrap().files, ["x", "z"]);
    }
}
