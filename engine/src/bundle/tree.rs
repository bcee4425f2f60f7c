//! The directory tree of a bundle, derived from the manifest's sorted paths.
//!
//! A bundle has no separate tree file: the manifest already lists every path, and a tree file
//! would repeat them. [`DirTree::from_paths`] rebuilds the tree in one pass; directories exist
//! only where a searchable file is under them.

/// One directory: its sub-directories and files, each sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DirTree {
    /// The directory's name (`""` for the root).
    pub name: String,
    /// Its path from the root without a trailing slash (`""` for the root).
    pub path: String,
    /// Sub-directories, sorted by name.
    pub dirs: Vec<DirTree>,
    /// File names directly in this directory, sorted.
    pub files: Vec<String>,
    /// The number of files anywhere below this directory.
    pub file_count: usize,
}

impl DirTree {
    /// The tree of these repository-relative paths (any order; duplicates count once).
    pub fn from_paths<S: AsRef<str>>(paths: &[S]) -> DirTree {
        let mut sorted: Vec<&str> = paths.iter().map(AsRef::as_ref).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut root = DirTree::default();
        for path in sorted {
            let mut node = &mut root;
            let mut parts = path.split('/').peekable();
            while let Some(part) = parts.next() {
                node.file_count += 1;
                if parts.peek().is_none() {
                    node.files.push(part.to_string());
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

    fn sort(&mut self) {
        // Byte order of full paths puts `a-b/x` before `a/x` ('-' < '/'), so names need a sort.
        self.dirs.sort_by(|a, b| a.name.cmp(&b.name));
        self.files.sort();
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
    fn interleaved_directories_merge() {
        // "a/x", "a-b/y", "a/z" sort as "a-b/y" < "a/x" < "a/z": one `a` directory.
        let tree = DirTree::from_paths(&["a/x", "a-b/y", "a/z"]);
        assert_eq!(tree.dirs.len(), 2);
        assert_eq!(tree.find("a").unwrap().files, ["x", "z"]);
    }
}
