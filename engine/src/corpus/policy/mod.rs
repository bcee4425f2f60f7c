//! The searchable-file policies: which files of a repository every arm may rank.
//!
//! The paper searched "the same eligible UTF-8 files" with every arm. A policy is that rule as a
//! pure function of a repository-relative path and the file's bytes, so the bundler, the app and
//! `routelens bundle --explain PATH` all decide the same way. Two are named:
//!
//! - **`paper`** ([`Policy::paper`], the default): the paper's loader, so that a bundle of a
//!   case's snapshot holds exactly the files the paper indexed (`file_count` in the archive). It
//!   skips directories, at any depth, named in [`PAPER_SKIPPED_DIRS`] (`.git`, `node_modules`,
//!   `build`, …; no `vendor`), enters every other directory, hidden ones included (`.github/`,
//!   `.ci/`), drops files whose *name* starts with `.`, files named in [`PAPER_RESERVED_NAMES`]
//!   (`index.md`, `log.md`, `_error.log`: its own bundle format's names), symbolic links, and
//!   files that are not valid UTF-8 or hold a NUL byte. It has no size cap. Like the paper's
//!   loader, which rejects every path whose parts include a skipped name, it also drops a *file*
//!   with such a name (a file called `build`).
//! - **`strict`** ([`Policy::strict`]): routelens's earlier rule. No component (directory or
//!   file) may start with `.`; directories named in [`STRICT_EXCLUDED_DIRS`] (the paper's
//!   non-hidden list plus `vendor`) are skipped; files over 1 MiB are cut.
//!
//! A file is searchable when every check passes; the first that fails names the
//! [`ExclusionReason`]. Path rules look at components from the root down and the first component
//! that fails decides:
//!
//! 1. **Path** ([`ExclusionReason::BadPath`]): a relative path with `/` separators and no empty,
//!    `.` or `..` component. The bundler also uses this reason for file names that are not UTF-8.
//! 2. **Skipped directory** ([`ExclusionReason::GeneratedDir`]): a *directory* component equals a
//!    name in [`Policy::excluded_dirs`] (exact, case-sensitive). A *file* of such a name is kept
//!    under strict and dropped under paper ([`Policy::skip_files_with_dir_names`]).
//! 3. **Hidden** ([`ExclusionReason::Hidden`]): the file name starts with `.`, or, when
//!    [`Policy::skip_hidden_dirs`] is set (strict), any directory does (checked before 2 there, so
//!    `.git/build/a` is hidden under strict).
//! 4. **Reserved name** ([`ExclusionReason::ReservedName`]): the file name is in
//!    [`Policy::reserved_names`].
//!
//! Content rules follow: **size** ([`ExclusionReason::TooLarge`], only with a cap), **binary**
//! ([`ExclusionReason::Binary`]: a NUL byte, checked before UTF-8 so an image is "binary") and
//! **UTF-8** ([`ExclusionReason::NotUtf8`]). Symbolic links are never followed; the bundler,
//! which can see them, counts them as [`ExclusionReason::Symlink`]. Empty files are searchable.

use std::fmt;

/// The strict policy's size cap: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1 << 20;

/// The directory names the paper's loader skips at any depth, sorted.
pub const PAPER_SKIPPED_DIRS: &[&str] = &[
    ".cache",
    ".coverage",
    ".fastindex",
    ".git",
    ".hg",
    ".mypy_cache",
    ".next",
    ".nuxt",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "build",
    "coverage",
    "dist",
    "node_modules",
    "target",
    "venv",
];

/// The file names the paper's loader drops (names of its own bundle format), sorted.
pub const PAPER_RESERVED_NAMES: &[&str] = &["_error.log", "index.md", "log.md"];

/// The strict policy's skipped directory names, sorted: the paper's list without the hidden
/// names (every hidden directory is out under strict) plus `vendor`.
pub const STRICT_EXCLUDED_DIRS: &[&str] = &[
    "__pycache__",
    "build",
    "coverage",
    "dist",
    "node_modules",
    "target",
    "vendor",
    "venv",
];

/// Why a file is not searchable. The names are the keys of the manifest's policy counts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ExclusionReason {
    /// The path is not a clean relative path (or its name is not UTF-8).
    BadPath,
    /// The file name starts with `.` (under strict, any directory too).
    Hidden,
    /// A directory is in the skipped list.
    GeneratedDir,
    /// Larger than the size cap.
    TooLarge,
    /// Contains a NUL byte.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// A symbolic link (assigned by the caller that reads the file system).
    Symlink,
    /// The file name is reserved (the paper's `index.md`, `log.md`, `_error.log`).
    ReservedName,
}

impl ExclusionReason {
    /// Every reason, in the order of the checks.
    pub const ALL: [ExclusionReason; 8] = [
        ExclusionReason::BadPath,
        ExclusionReason::GeneratedDir,
        ExclusionReason::Hidden,
        ExclusionReason::ReservedName,
        ExclusionReason::TooLarge,
        ExclusionReason::Binary,
        ExclusionReason::NotUtf8,
        ExclusionReason::Symlink,
    ];

    /// The reason's name as written in the manifest (`generated-dir`).
    pub fn name(self) -> &'static str {
        match self {
            ExclusionReason::BadPath => "bad-path",
            ExclusionReason::Hidden => "hidden",
            ExclusionReason::GeneratedDir => "generated-dir",
            ExclusionReason::TooLarge => "too-large",
            ExclusionReason::Binary => "binary",
            ExclusionReason::NotUtf8 => "not-utf8",
            ExclusionReason::Symlink => "symlink",
            ExclusionReason::ReservedName => "reserved-name",
        }
    }

    /// Whether the path alone decides this reason (so it can be re-derived without the bytes).
    pub fn is_path_rule(self) -> bool {
        matches!(
            self,
            ExclusionReason::BadPath
                | ExclusionReason::Hidden
                | ExclusionReason::GeneratedDir
                | ExclusionReason::ReservedName
        )
    }
}

impl fmt::Display for ExclusionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The policy's verdict on one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Searchable.
    Included,
    /// Not searchable, for this reason.
    Excluded(ExclusionReason),
}

/// Which named policy a [`Policy`] started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyName {
    /// The paper's loader ([`Policy::paper`]).
    Paper,
    /// routelens's stricter rule ([`Policy::strict`]).
    Strict,
}

impl PolicyName {
    /// `paper` or `strict`.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Paper => "paper",
            PolicyName::Strict => "strict",
        }
    }

    /// The named policy with its own settings.
    pub fn policy(self) -> Policy {
        match self {
            PolicyName::Paper => Policy::paper(),
            PolicyName::Strict => Policy::strict(),
        }
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PolicyName {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "paper" => Ok(PolicyName::Paper),
            "strict" => Ok(PolicyName::Strict),
            other => Err(format!("no policy named {other:?} (paper, strict)")),
        }
    }
}

/// Bundles written before the policies had names were built under today's `strict`.
fn strict_name() -> PolicyName {
    PolicyName::Strict
}

fn yes() -> bool {
    true
}

/// The policy's settings. Written into the manifest, so a bundle says which rule made it; the
/// fields missing from older manifests default to the strict policy's, which made them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The named policy these settings started from.
    #[serde(default = "strict_name")]
    pub name: PolicyName,
    /// Files larger than this many bytes are excluded; `None`: no cap (the paper's).
    pub max_file_bytes: Option<u64>,
    /// Directory names skipped wherever they occur.
    pub excluded_dirs: Vec<String>,
    /// Whether directories whose name starts with `.` are skipped (strict) or entered (paper).
    #[serde(default = "yes")]
    pub skip_hidden_dirs: bool,
    /// File names dropped wherever they occur.
    #[serde(default)]
    pub reserved_names: Vec<String>,
    /// Whether a *file* named like a skipped directory is dropped too (paper) or kept (strict).
    #[serde(default)]
    pub skip_files_with_dir_names: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::paper()
    }
}

/// Where a path rule failed: the reason and the component (with its position) that failed.
struct PathFailure<'a> {
    reason: ExclusionReason,
    component: &'a str,
    /// The path up to and including the failing component.
    prefix: &'a str,
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| name.to_string()).collect()
}

/// Whether `path` is a clean relative path: `/` separators, no empty, `.` or `..` component.
pub fn is_clean_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

impl Policy {
    /// The paper's loader: see the module documentation.
    pub fn paper() -> Policy {
        Policy {
            name: PolicyName::Paper,
            max_file_bytes: None,
            excluded_dirs: names(PAPER_SKIPPED_DIRS),
            skip_hidden_dirs: false,
            reserved_names: names(PAPER_RESERVED_NAMES),
            skip_files_with_dir_names: true,
        }
    }

    /// routelens's stricter rule: see the module documentation.
    pub fn strict() -> Policy {
        Policy {
            name: PolicyName::Strict,
            max_file_bytes: Some(DEFAULT_MAX_FILE_BYTES),
            excluded_dirs: names(STRICT_EXCLUDED_DIRS),
            skip_hidden_dirs: true,
            reserved_names: Vec::new(),
            skip_files_with_dir_names: false,
        }
    }

    /// Whether these are exactly the named policy's own settings (no option changed them).
    pub fn is_pristine(&self) -> bool {
        *self == self.name.policy()
    }

    /// A short label: `paper`, or `paper (changed: max_file_bytes)` when options changed it.
    pub fn label(&self) -> String {
        let own = self.name.policy();
        let mut changed = Vec::new();
        if self.max_file_bytes != own.max_file_bytes {
            changed.push("max_file_bytes");
        }
        if self.excluded_dirs != own.excluded_dirs {
            changed.push("excluded_dirs");
        }
        if self.skip_hidden_dirs != own.skip_hidden_dirs {
            changed.push("skip_hidden_dirs");
        }
        if self.reserved_names != own.reserved_names {
            changed.push("reserved_names");
        }
        if self.skip_files_with_dir_names != own.skip_files_with_dir_names {
            changed.push("skip_files_with_dir_names");
        }
        if changed.is_empty() {
            self.name.to_string()
        } else {
            format!("{} (changed: {})", self.name, changed.join(", "))
        }
    }

    /// The decision from the path alone: `Some(reason)` when a path rule excludes it. A walker
    /// can call this on a directory's path (with a trailing file name) to prune it unread.
    pub fn check_path(&self, path: &str) -> Option<ExclusionReason> {
        self.path_failure(path).map(|failure| failure.reason)
    }

    /// The decision on one file from its repository-relative path and its bytes.
    pub fn check(&self, path: &str, bytes: &[u8]) -> Decision {
        if let Some(reason) = self.check_path(path) {
            return Decision::Excluded(reason);
        }
        match self.content_failure(bytes) {
            Some(reason) => Decision::Excluded(reason),
            None => Decision::Included,
        }
    }

    /// Whether a directory name (one component) is in the skipped list.
    pub fn is_excluded_dir(&self, name: &str) -> bool {
        self.excluded_dirs.iter().any(|dir| dir == name)
    }

    /// Whether a file of `size` bytes is over the cap.
    pub fn is_too_large(&self, size: u64) -> bool {
        self.max_file_bytes.is_some_and(|cap| size > cap)
    }

    /// One sentence saying why the file is in or out under this policy, naming the rule, for
    /// `routelens bundle --explain PATH`.
    pub fn explain(&self, path: &str, bytes: &[u8]) -> String {
        let policy = self.label();
        if let Some(failure) = self.path_failure(path) {
            return match failure.reason {
                ExclusionReason::Hidden if failure.prefix == path => format!(
                    "{path}: excluded (hidden) under the {policy} policy: the file name `{}` \
                     starts with a dot",
                    failure.component
                ),
                ExclusionReason::Hidden => format!(
                    "{path}: excluded (hidden) under the {policy} policy: `{}` starts with a dot, \
                     and hidden directories are not searched",
                    failure.prefix
                ),
                ExclusionReason::GeneratedDir if failure.prefix == path => format!(
                    "{path}: excluded (generated-dir) under the {policy} policy: its name `{}` is \
                     a skipped directory name, and a path with such a part is not read (the \
                     list: {})",
                    failure.component,
                    self.excluded_dirs.join(", ")
                ),
                ExclusionReason::GeneratedDir => format!(
                    "{path}: excluded (generated-dir) under the {policy} policy: it is inside \
                     `{}/`, and directories named `{}` are skipped (the list: {})",
                    failure.prefix,
                    failure.component,
                    self.excluded_dirs.join(", ")
                ),
                ExclusionReason::ReservedName => format!(
                    "{path}: excluded (reserved-name) under the {policy} policy: files named `{}` \
                     are dropped (the list: {})",
                    failure.component,
                    self.reserved_names.join(", ")
                ),
                _ => format!(
                    "{path}: excluded (bad-path): {:?} is not a clean relative path component \
                     (empty, `.` or `..`, or the path is absolute)",
                    failure.component
                ),
            };
        }
        let size = bytes.len();
        let cap = match self.max_file_bytes {
            Some(cap) => format!("cap {cap}"),
            None => "no cap".to_string(),
        };
        match self.content_failure(bytes) {
            Some(ExclusionReason::TooLarge) => format!(
                "{path}: excluded (too-large) under the {policy} policy: {size} bytes is over the \
                 cap of {} bytes",
                self.max_file_bytes.unwrap_or_default()
            ),
            Some(ExclusionReason::Binary) => {
                let at = bytes.iter().position(|&byte| byte == 0).unwrap_or(0);
                format!(
                    "{path}: excluded (binary) under the {policy} policy: it has a NUL byte at \
                     offset {at}"
                )
            }
            Some(_) => {
                let at = std::str::from_utf8(bytes)
                    .err()
                    .map_or(0, |error| error.valid_up_to());
                format!(
                    "{path}: excluded (not-utf8) under the {policy} policy: the bytes are not \
                     UTF-8 from offset {at}"
                )
            }
            None => format!(
                "{path}: included under the {policy} policy: UTF-8 text, {size} bytes ({cap}), \
                 no skipped directory, hidden or reserved name in its path"
            ),
        }
    }

    fn path_failure<'a>(&self, path: &'a str) -> Option<PathFailure<'a>> {
        if path.is_empty() || path.starts_with('/') {
            return Some(PathFailure {
                reason: ExclusionReason::BadPath,
                component: path,
                prefix: path,
            });
        }
        let components: Vec<&str> = path.split('/').collect();
        let last = components.len() - 1;
        let mut end = 0;
        for (index, &component) in components.iter().enumerate() {
            end += component.len();
            let prefix = &path[..end];
            end += 1;
            let is_dir = index < last;
            let hidden = component.starts_with('.') && (!is_dir || self.skip_hidden_dirs);
            let reason = if component.is_empty() || component == "." || component == ".." {
                ExclusionReason::BadPath
            } else if hidden && self.skip_hidden_dirs {
                // Strict: a hidden component is out before the directory list is read.
                ExclusionReason::Hidden
            } else if (is_dir || self.skip_files_with_dir_names) && self.is_excluded_dir(component)
            {
                ExclusionReason::GeneratedDir
            } else if hidden {
                ExclusionReason::Hidden
            } else if !is_dir && self.reserved_names.iter().any(|name| name == component) {
                ExclusionReason::ReservedName
            } else {
                continue;
            };
            return Some(PathFailure {
                reason,
                component,
                prefix,
            });
        }
        None
    }

    fn content_failure(&self, bytes: &[u8]) -> Option<ExclusionReason> {
        if self.is_too_large(bytes.len() as u64) {
            Some(ExclusionReason::TooLarge)
        } else if bytes.contains(&0) {
            Some(ExclusionReason::Binary)
        } else if std::str::from_utf8(bytes).is_err() {
            Some(ExclusionReason::NotUtf8)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;
