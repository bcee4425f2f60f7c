//! Reading a repository's files for a bundle, through the engine's searchable-file policy.
//!
//! Three readers fill one [`Collection`]:
//!
//! - [`Collection::add_tree`] walks a working tree. Directories that a path rule excludes
//!   (hidden, generated or vendored) are pruned unread and count **once** each under their reason;
//!   a hidden file or one with a name that is not UTF-8 counts once itself. Symbolic links are
//!   never followed: each one counts as `symlink` (unless a path rule excluded it first). FIFOs,
//!   sockets and devices are skipped unread and counted apart ([`Collection::skipped_special`]).
//!   A file is read up to one byte past the size cap, never further.
//! - [`Collection::add_git_commit`] reads a commit through the `git` command line
//!   (`git ls-tree -r -z --long`, then one `git cat-file --batch` for the blobs). A folder inside
//!   a repository gives that folder's part of the tree, paths relative to it, as the working tree
//!   walk does. Pruning is
//!   counted the same way: every file under an excluded directory counts the directory once.
//!   Blobs over the cap are not fetched; symbolic links (mode 120000) count as `symlink`;
//!   submodules are skipped and counted apart.
//! - [`Collection::add_listed`] reads the working-tree files of a path list (the demo uses
//!   `git ls-files`), with the same pruning count.
//!
//! Every path is given a prefix (`""`, `routelens`, `crates/serde`) before the policy sees it,
//! so the policy judges the path as the bundle will hold it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use routelens_engine::{Decision, ExcludedFile, ExclusionReason, Policy, SourceFile};

use crate::failure::Failure;

/// The files a bundle will hold and what the policy left out.
#[derive(Debug, Default)]
pub struct Collection {
    /// The policy every file is checked against.
    pub policy: Policy,
    /// The searchable files.
    pub files: Vec<SourceFile>,
    /// Exclusions by reason; a pruned directory counts once.
    pub excluded: BTreeMap<ExclusionReason, u64>,
    /// The files excluded by a content rule or as symbolic links.
    pub excluded_files: Vec<ExcludedFile>,
    /// Entries skipped unread that no policy rule names: FIFOs, sockets, devices, submodules.
    pub skipped_special: u64,
    /// A folder the walk leaves out unread and uncounted: the bundle being written, when it lies
    /// inside the tree (an absolute, canonical path).
    pub skip_dir: Option<PathBuf>,
    /// Path-rule units already counted (pruned directories), so each counts once.
    pruned: BTreeSet<String>,
}

impl Collection {
    /// An empty collection under `policy`.
    pub fn new(policy: Policy) -> Self {
        Collection {
            policy,
            ..Collection::default()
        }
    }

    /// Sorts files and excluded files by path, as the manifest lists them.
    pub fn finish(&mut self) {
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.excluded_files.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// Walks the working tree at `root`, putting `prefix` before every path.
    pub fn add_tree(&mut self, root: &Path, prefix: &str) -> Result<(), Failure> {
        let meta = std::fs::metadata(root).map_err(|err| Failure::read(root, err))?;
        if !meta.is_dir() {
            return Err(Failure::Usage(format!(
                "{}: not a folder (a repository's working tree is expected)",
                root.display()
            )));
        }
        // Canonical, so that `skip_dir` compares equal (no link below it is ever followed).
        let root = root
            .canonicalize()
            .map_err(|err| Failure::read(root, err))?;
        let mut stack = vec![(root, prefix.to_string())];
        while let Some((dir, rel_dir)) = stack.pop() {
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&dir).map_err(|err| Failure::read(&dir, err))? {
                let entry = entry.map_err(|err| Failure::read(&dir, err))?;
                entries.push(entry);
            }
            entries.sort_by_key(|entry| entry.file_name());
            let mut subdirs = Vec::new();
            for entry in entries {
                let full = entry.path();
                let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                    self.count(ExclusionReason::BadPath);
                    continue;
                };
                let rel = join(&rel_dir, &name);
                // `file_type` does not follow symbolic links.
                let kind = entry.file_type().map_err(|err| Failure::read(&full, err))?;
                if kind.is_dir() {
                    if self.skip_dir.as_ref() == Some(&full) {
                        continue;
                    }
                    match self.policy.check_path(&join(&rel, "x")) {
                        Some(reason) => self.count(reason),
                        None => subdirs.push((full, rel)),
                    }
                } else if let Some(reason) = self.policy.check_path(&rel) {
                    self.count(reason);
                } else if kind.is_symlink() {
                    self.exclude_file(rel, ExclusionReason::Symlink);
                } else if kind.is_file() {
                    let bytes = read_capped(&full, self.policy.max_file_bytes)?;
                    self.add_bytes(rel, bytes);
                } else {
                    self.skipped_special += 1;
                }
            }
            // Depth first, in name order.
            stack.extend(subdirs.into_iter().rev());
        }
        Ok(())
    }

    /// Reads the working-tree files at `root` named by `paths` (relative, `/`-separated), putting
    /// `prefix` before each. A listed path that no longer exists is skipped.
    pub fn add_listed(
        &mut self,
        root: &Path,
        paths: &[String],
        prefix: &str,
    ) -> Result<(), Failure> {
        for path in paths {
            let rel = join(prefix, path);
            if self.check_path_once(&rel) {
                continue;
            }
            let full = root.join(path);
            // A listed file inside a symlinked directory is reached through a link.
            if let Some(link) = symlinked_ancestor(root, path) {
                let rel_link = join(prefix, &link);
                if self.pruned.insert(rel_link.clone()) {
                    self.exclude_file(rel_link, ExclusionReason::Symlink);
                }
                continue;
            }
            let meta = match std::fs::symlink_metadata(&full) {
                Ok(meta) => meta,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(err) => return Err(Failure::read(&full, err)),
            };
            if meta.file_type().is_symlink() {
                self.exclude_file(rel, ExclusionReason::Symlink);
            } else if meta.is_file() {
                let bytes = read_capped(&full, self.policy.max_file_bytes)?;
                self.add_bytes(rel, bytes);
            } else if !meta.is_dir() {
                self.skipped_special += 1;
            }
        }
        Ok(())
    }

    /// Reads the files of `commit` in the git repository at `repo`; returns the commit's full
    /// hash.
    pub fn add_git_commit(
        &mut self,
        repo: &Path,
        commit: &str,
        prefix: &str,
    ) -> Result<String, Failure> {
        let sha = resolve_commit(repo, commit)?;
        let listing = git(repo, &["ls-tree", "-r", "-z", "--long", &sha])?;
        let mut wanted: Vec<(String, String)> = Vec::new();
        for record in listing.split(|&byte| byte == 0).filter(|r| !r.is_empty()) {
            let entry = TreeEntry::parse(record).ok_or_else(|| Failure::Git {
                repo: repo.to_path_buf(),
                args: "ls-tree".into(),
                message: format!(
                    "unexpected output line {:?}",
                    String::from_utf8_lossy(record)
                ),
            })?;
            let Ok(path) = String::from_utf8(entry.path) else {
                self.count(ExclusionReason::BadPath);
                continue;
            };
            let rel = join(prefix, &path);
            if self.check_path_once(&rel) {
                continue;
            }
            if entry.kind == "commit" {
                self.skipped_special += 1;
            } else if entry.mode == "120000" {
                self.exclude_file(rel, ExclusionReason::Symlink);
            } else if entry.kind != "blob" {
                self.skipped_special += 1;
            } else if entry
                .size
                .is_some_and(|size| self.policy.is_too_large(size))
            {
                self.exclude_file(rel, ExclusionReason::TooLarge);
            } else {
                wanted.push((rel, entry.oid));
            }
        }
        let blobs = cat_blobs(repo, wanted.iter().map(|(_, oid)| oid.as_str()))?;
        for ((rel, _), bytes) in wanted.into_iter().zip(blobs) {
            self.add_bytes(rel, bytes);
        }
        Ok(sha)
    }

    /// Applies the content rules to a file that passed the path rules.
    fn add_bytes(&mut self, path: String, bytes: Vec<u8>) {
        match self.policy.check(&path, &bytes) {
            Decision::Included => self.files.push(SourceFile { path, bytes }),
            Decision::Excluded(reason) => self.exclude_file(path, reason),
        }
    }

    /// Counts a file excluded by a content rule or as a link, and lists it.
    fn exclude_file(&mut self, path: String, reason: ExclusionReason) {
        self.count(reason);
        self.excluded_files.push(ExcludedFile { path, reason });
    }

    fn count(&mut self, reason: ExclusionReason) {
        *self.excluded.entry(reason).or_insert(0) += 1;
    }

    /// For a path from a flat listing: whether a path rule excludes it, counting its pruned
    /// directory (or the file itself) once.
    fn check_path_once(&mut self, rel: &str) -> bool {
        let Some(reason) = self.policy.check_path(rel) else {
            return false;
        };
        let unit = pruned_unit(&self.policy, rel);
        if self.pruned.insert(unit) {
            self.count(reason);
        }
        true
    }
}

/// `dir/name`, or `name` at the root.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The unit a path rule counts for `path`: its shallowest excluded directory, or the path itself
/// when only the file name fails.
fn pruned_unit(policy: &Policy, path: &str) -> String {
    for (at, _) in path.match_indices('/') {
        let dir = &path[..at];
        if policy.check_path(&format!("{dir}/x")).is_some() {
            return dir.to_string();
        }
    }
    path.to_string()
}

/// The first ancestor directory of `path` under `root` that is a symbolic link, as a relative
/// path.
pub fn symlinked_ancestor(root: &Path, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let mut full = root.to_path_buf();
    for (index, part) in parts.iter().enumerate().take(parts.len().saturating_sub(1)) {
        full.push(part);
        let is_link =
            std::fs::symlink_metadata(&full).is_ok_and(|meta| meta.file_type().is_symlink());
        if is_link {
            return Some(parts[..=index].join("/"));
        }
    }
    None
}

/// Reads at most `cap + 1` bytes: enough for the policy to see that a file is over the cap.
/// With no cap (the paper's policy), the whole file.
pub fn read_capped(path: &Path, cap: Option<u64>) -> Result<Vec<u8>, Failure> {
    let file = File::open(path).map_err(|err| Failure::read(path, err))?;
    let mut bytes = Vec::new();
    file.take(cap.map_or(u64::MAX, |cap| cap.saturating_add(1)))
        .read_to_end(&mut bytes)
        .map_err(|err| Failure::read(path, err))?;
    Ok(bytes)
}

/// One record of `git ls-tree -z --long`: `<mode> <type> <oid> <size>\t<path>`.
#[derive(Debug, PartialEq, Eq)]
pub struct TreeEntry {
    /// The file mode (`100644`, `100755`, `120000`, `160000`, `040000`).
    pub mode: String,
    /// `blob`, `tree` or `commit`.
    pub kind: String,
    /// The object id.
    pub oid: String,
    /// The blob size; `None` for `-` (trees and submodules).
    pub size: Option<u64>,
    /// The path, raw bytes (git does not quote paths with `-z`).
    pub path: Vec<u8>,
}

impl TreeEntry {
    /// Parses one record; `None` when it is not of that shape.
    pub fn parse(record: &[u8]) -> Option<TreeEntry> {
        let tab = record.iter().position(|&byte| byte == b'\t')?;
        let meta = std::str::from_utf8(&record[..tab]).ok()?;
        let mut fields = meta.split_whitespace();
        let (mode, kind, oid, size) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        if fields.next().is_some() {
            return None;
        }
        let size = match size {
            "-" => None,
            number => Some(number.parse().ok()?),
        };
        Some(TreeEntry {
            mode: mode.to_string(),
            kind: kind.to_string(),
            oid: oid.to_string(),
            size,
            path: record[tab + 1..].to_vec(),
        })
    }
}

/// Runs `git -C repo <args>` and returns its standard output.
pub fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, Failure> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| git_failure(repo, args, format!("could not run git: {err}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let message = stderr.trim().lines().next().unwrap_or("failed").to_string();
        return Err(git_failure(repo, args, message));
    }
    Ok(output.stdout)
}

fn git_failure(repo: &Path, args: &[&str], message: String) -> Failure {
    Failure::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    }
}

/// The full hash of a commit-ish, refusing anything git would read as an option.
pub fn resolve_commit(repo: &Path, commit: &str) -> Result<String, Failure> {
    if commit.is_empty() || commit.starts_with('-') || commit.contains(char::is_whitespace) {
        return Err(Failure::Usage(format!(
            "--commit {commit:?}: expected a commit (a hash, a branch or a tag)"
        )));
    }
    let spec = format!("{commit}^{{commit}}");
    let out =
        git(repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(
            |failure| match failure {
                Failure::Git {
                    repo,
                    args,
                    message,
                } if message == "failed" => Failure::Git {
                    repo,
                    args,
                    message: format!("no commit {commit:?} in this repository"),
                },
                other => other,
            },
        )?;
    let sha = String::from_utf8_lossy(&out).trim().to_string();
    if sha.len() < 40 || !sha.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Err(git_failure(
            repo,
            &["rev-parse", &spec],
            format!("unexpected output {sha:?}"),
        ));
    }
    Ok(sha)
}

/// Fetches blobs by object id with one `git cat-file --batch`, in order.
pub fn cat_blobs<'a>(
    repo: &Path,
    oids: impl Iterator<Item = &'a str>,
) -> Result<Vec<Vec<u8>>, Failure> {
    let oids: Vec<String> = oids.map(str::to_string).collect();
    let oids_len = oids.len();
    if oids.is_empty() {
        return Ok(Vec::new());
    }
    let args = ["cat-file", "--batch"];
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| git_failure(repo, &args, format!("could not run git: {err}")))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(git_failure(repo, &args, "no pipes to git".into()));
    };
    // Writing all ids while reading the answers would deadlock on full pipes: write on a thread.
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        for oid in &oids {
            writeln!(stdin, "{oid}")?;
        }
        Ok(())
    });
    let mut reader = BufReader::new(stdout);
    let mut blobs = Vec::new();
    let mut header = String::new();
    let failed = |message: String| git_failure(repo, &args, message);
    loop {
        header.clear();
        let read = reader
            .read_line(&mut header)
            .map_err(|err| failed(err.to_string()))?;
        if read == 0 {
            break;
        }
        let fields: Vec<&str> = header.split_whitespace().collect();
        let size: u64 = match fields.as_slice() {
            [_, "blob", size] => size
                .parse()
                .map_err(|_| failed(format!("bad header {header:?}")))?,
            _ => return Err(failed(format!("unexpected answer {:?}", header.trim_end()))),
        };
        let mut bytes = Vec::new();
        (&mut reader)
            .take(size)
            .read_to_end(&mut bytes)
            .map_err(|err| failed(err.to_string()))?;
        let mut newline = [0u8; 1];
        reader
            .read_exact(&mut newline)
            .map_err(|err| failed(err.to_string()))?;
        if bytes.len() as u64 != size {
            return Err(failed(format!(
                "a blob ended early ({} of {size} bytes)",
                bytes.len()
            )));
        }
        blobs.push(bytes);
    }
    let written = writer.join();
    let status = child.wait().map_err(|err| failed(err.to_string()))?;
    if !status.success() || !matches!(written, Ok(Ok(()))) {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        return Err(failed(
            stderr.trim().lines().next().unwrap_or("failed").to_string(),
        ));
    }
    if blobs.len() != oids_len {
        return Err(failed(format!(
            "{} of {oids_len} blobs answered",
            blobs.len()
        )));
    }
    Ok(blobs)
}

/// The repository's files as git lists them: tracked, and untracked but not ignored; `None`
/// when `repo` is not a git working tree (or git is missing).
pub fn git_listed_files(repo: &Path) -> Option<Vec<String>> {
    let out = git(
        repo,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )
    .ok()?;
    let mut paths: Vec<String> = out
        .split(|&byte| byte == 0)
        .filter(|path| !path.is_empty())
        .map(|path| String::from_utf8_lossy(path).into_owned())
        .collect();
    paths.sort();
    paths.dedup();
    Some(paths)
}

/// A repository's folder name, for a bundle's default source name.
pub fn folder_name(repo: &Path) -> String {
    let canonical: PathBuf = repo.canonicalize().unwrap_or_else(|_| repo.to_path_buf());
    canonical
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| repo.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ls_tree_records() {
        let entry = TreeEntry::parse(
            b"100644 blob 3b18e512dba79e4c8300dd08aeb37f8e728b8dad      12\tsrc/a b.rs",
        )
        .unwrap();
        assert_eq!(entry.mode, "100644");
        assert_eq!(entry.kind, "blob");
        assert_eq!(entry.size, Some(12));
        assert_eq!(entry.path, b"src/a b.rs");
        let module = TreeEntry::parse(
            b"160000 commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad       -\tlib",
        )
        .unwrap();
        assert_eq!((module.kind.as_str(), module.size), ("commit", None));
        assert!(TreeEntry::parse(b"100644 blob x 12 src").is_none());
        assert!(TreeEntry::parse(b"100644 blob x twelve\tsrc").is_none());
    }

    #[test]
    fn pruned_units_are_the_shallowest_excluded_directory() {
        let policy = Policy::default();
        assert_eq!(
            pruned_unit(&policy, "a/node_modules/b/c.js"),
            "a/node_modules"
        );
        assert_eq!(pruned_unit(&policy, ".git/config"), ".git");
        assert_eq!(pruned_unit(&policy, "src/.env"), "src/.env");
        let mut collection = Collection::new(policy);
        assert!(collection.check_path_once("node_modules/a.js"));
        assert!(collection.check_path_once("node_modules/b/c.js"));
        assert!(collection.check_path_once("src/.env"));
        assert!(!collection.check_path_once("src/lib.rs"));
        assert_eq!(collection.excluded[&ExclusionReason::GeneratedDir], 1);
        assert_eq!(collection.excluded[&ExclusionReason::Hidden], 1);
    }

    #[test]
    fn joins_paths() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(
            join("crates/serde", "src/lib.rs"),
            "crates/serde/src/lib.rs"
        );
    }
}
