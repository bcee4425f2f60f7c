//! The common searchable-file policy: which files of a repository every arm may rank.
//!
//! The paper searched "the same eligible UTF-8 files" with every arm. This module is that rule as
//! a pure function of a repository-relative path and the file's bytes, so the bundler, the app and
//! `routelens bundle --explain PATH` all decide the same way. A file is searchable when every
//! check below passes; the first check that fails names the [`ExclusionReason`]:
//!
//! 1. **Path** ([`ExclusionReason::BadPath`]): a relative path with `/` separators and no empty,
//!    `.` or `..` component. The bundler also uses this reason for file names that are not UTF-8.
//! 2. **Hidden** ([`ExclusionReason::Hidden`]): no component (directory or file name) starts
//!    with `.`, so `.git/`, `.github/` and `.gitignore` are out.
//! 3. **Generated or vendored directory** ([`ExclusionReason::GeneratedDir`]): no *directory*
//!    component equals a name in [`Policy::excluded_dirs`] (exact, case-sensitive). The default
//!    list, [`DEFAULT_EXCLUDED_DIRS`], is the paper loader's list of non-hidden skipped
//!    directories (`__pycache__`, `build`, `coverage`, `dist`, `node_modules`, `target`, `venv`)
//!    plus `vendor`. Checks 2 and 3 look at components from the root down, and the first
//!    component that fails decides. A *file* named `build` is kept: only directories are
//!    skipped. The rule is crude on purpose, and it costs: five of the paper's cases lost gold
//!    files that were real source under directories named `build`.
//! 4. **Size** ([`ExclusionReason::TooLarge`]): at most [`Policy::max_file_bytes`] bytes
//!    (default 1 MiB). The paper had no cap; a cap keeps bundles and the browser's memory bounded.
//! 5. **Binary** ([`ExclusionReason::Binary`]): no NUL byte (checked before UTF-8, so an image is
//!    "binary", not "not UTF-8").
//! 6. **UTF-8** ([`ExclusionReason::NotUtf8`]): the bytes are valid UTF-8.
//!
//! Symbolic links are never followed; the bundler, which can see them, counts them as
//! [`ExclusionReason::Symlink`]. Empty files are searchable.
//!
//! The paper's loader also skipped files named `index.md`, `log.md` and `_error.log` (reserved
//! names of its own bundle format); this policy keeps them.

use std::fmt;

/// The default size cap: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1 << 20;

/// The default generated or vendored directory names, sorted.
pub const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
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
    /// A directory or the file name starts with `.`.
    Hidden,
    /// A directory is in the generated or vendored list.
    GeneratedDir,
    /// Larger than the size cap.
    TooLarge,
    /// Contains a NUL byte.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// A symbolic link (assigned by the caller that reads the file system).
    Symlink,
}

impl ExclusionReason {
    /// Every reason, in the order of the checks.
    pub const ALL: [ExclusionReason; 7] = [
        ExclusionReason::BadPath,
        ExclusionReason::Hidden,
        ExclusionReason::GeneratedDir,
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
        }
    }

    /// Whether the path alone decides this reason (so it can be re-derived without the bytes).
    pub fn is_path_rule(self) -> bool {
        matches!(
            self,
            ExclusionReason::BadPath | ExclusionReason::Hidden | ExclusionReason::GeneratedDir
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

/// The policy's settings. Written into the manifest, so a bundle says which rule made it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Files larger than this many bytes are excluded (default [`DEFAULT_MAX_FILE_BYTES`]).
    pub max_file_bytes: u64,
    /// Directory names excluded wherever they occur (default [`DEFAULT_EXCLUDED_DIRS`]).
    pub excluded_dirs: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            excluded_dirs: DEFAULT_EXCLUDED_DIRS
                .iter()
                .map(|name| name.to_string())
                .collect(),
        }
    }
}

/// Where a path rule failed: the reason and the component (with its position) that failed.
struct PathFailure<'a> {
    reason: ExclusionReason,
    component: &'a str,
    /// The path up to and including the failing component.
    prefix: &'a str,
}

impl Policy {
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

    /// Whether a directory name (one component) is in the excluded list.
    pub fn is_excluded_dir(&self, name: &str) -> bool {
        self.excluded_dirs.iter().any(|dir| dir == name)
    }

    /// One sentence saying why the file is in or out, for `routelens bundle --explain PATH`.
    pub fn explain(&self, path: &str, bytes: &[u8]) -> String {
        if let Some(failure) = self.path_failure(path) {
            return match failure.reason {
                ExclusionReason::Hidden => format!(
                    "{path}: excluded (hidden): `{}` starts with a dot, and hidden files and \
                     directories are not searched",
                    failure.prefix
                ),
                ExclusionReason::GeneratedDir => format!(
                    "{path}: excluded (generated-dir): it is inside `{}/`, and directories named \
                     `{}` are treated as generated or vendored (the list: {})",
                    failure.prefix,
                    failure.component,
                    self.excluded_dirs.join(", ")
                ),
                _ => format!(
                    "{path}: excluded (bad-path): {:?} is not a clean relative path component \
                     (empty, `.` or `..`, or the path is absolute)",
                    failure.component
                ),
            };
        }
        let size = bytes.len();
        match self.content_failure(bytes) {
            Some(ExclusionReason::TooLarge) => format!(
                "{path}: excluded (too-large): {size} bytes is over the cap of {} bytes",
                self.max_file_bytes
            ),
            Some(ExclusionReason::Binary) => {
                let at = bytes.iter().position(|&byte| byte == 0).unwrap_or(0);
                format!("{path}: excluded (binary): it has a NUL byte at offset {at}")
            }
            Some(_) => {
                let at = std::str::from_utf8(bytes)
                    .err()
                    .map_or(0, |error| error.valid_up_to());
                format!("{path}: excluded (not-utf8): the bytes are not UTF-8 from offset {at}")
            }
            None => format!(
                "{path}: included: UTF-8 text, {size} bytes (cap {}), no hidden or excluded \
                 directory in its path",
                self.max_file_bytes
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
            let reason = if component.is_empty() || component == "." || component == ".." {
                ExclusionReason::BadPath
            } else if component.starts_with('.') {
                ExclusionReason::Hidden
            } else if index < last && self.is_excluded_dir(component) {
                ExclusionReason::GeneratedDir
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
        if bytes.len() as u64 > self.max_file_bytes {
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
mod tests {
    use super::*;

    fn decide(path: &str, bytes: &[u8]) -> Decision {
        Policy::default().check(path, bytes)
    }

    #[test]
    fn includes_plain_text_and_empty_files() {
        assert_eq!(decide("src/lib.rs", b"fn main() {}\n"), Decision::Included);
        assert_eq!(decide("README", b""), Decision::Included);
        assert_eq!(
            decide("docs/caf\u{e9}.md", "h\u{e9}".as_bytes()),
            Decision::Included
        );
    }

    #[test]
    fn excludes_hidden_components_anywhere() {
        use ExclusionReason::Hidden;
        assert_eq!(decide(".gitignore", b"x"), Decision::Excluded(Hidden));
        assert_eq!(
            decide(".github/workflows/ci.yml", b"x"),
            Decision::Excluded(Hidden)
        );
        assert_eq!(decide("src/.cache/a.rs", b"x"), Decision::Excluded(Hidden));
    }

    #[test]
    fn excludes_generated_directories_but_not_files_with_those_names() {
        use ExclusionReason::GeneratedDir;
        assert_eq!(
            decide("build/gen.c", b"x"),
            Decision::Excluded(GeneratedDir)
        );
        assert_eq!(
            decide("web/node_modules/a/index.js", b"x"),
            Decision::Excluded(GeneratedDir)
        );
        assert_eq!(
            decide("vendor/lib.go", b"x"),
            Decision::Excluded(GeneratedDir)
        );
        // A file named like a generated directory is kept; so is a look-alike directory.
        assert_eq!(decide("scripts/build", b"#!/bin/sh\n"), Decision::Included);
        assert_eq!(decide("builds/a.c", b"x"), Decision::Included);
        assert_eq!(decide("Build/a.c", b"x"), Decision::Included);
    }

    #[test]
    fn first_failing_component_decides() {
        assert_eq!(
            decide("build/.hidden/a.c", b"x"),
            Decision::Excluded(ExclusionReason::GeneratedDir)
        );
        assert_eq!(
            decide(".git/build/a.c", b"x"),
            Decision::Excluded(ExclusionReason::Hidden)
        );
    }

    #[test]
    fn rejects_unclean_paths() {
        for path in ["", "/etc/passwd", "a//b", "a/./b", "../a", "a/"] {
            assert_eq!(
                decide(path, b"x"),
                Decision::Excluded(ExclusionReason::BadPath),
                "{path:?}"
            );
        }
    }

    #[test]
    fn content_rules_in_order() {
        let policy = Policy {
            max_file_bytes: 4,
            ..Policy::default()
        };
        assert_eq!(policy.check("a", b"abcd"), Decision::Included);
        assert_eq!(
            policy.check("a", b"abcde"),
            Decision::Excluded(ExclusionReason::TooLarge)
        );
        // NUL and invalid UTF-8 together: binary wins.
        assert_eq!(
            policy.check("a", b"\xff\0"),
            Decision::Excluded(ExclusionReason::Binary)
        );
        assert_eq!(
            policy.check("a", b"\xff\xfe"),
            Decision::Excluded(ExclusionReason::NotUtf8)
        );
        // Path rules come before content rules.
        assert_eq!(
            policy.check(".a", b"\0\0\0\0\0"),
            Decision::Excluded(ExclusionReason::Hidden)
        );
    }

    #[test]
    fn explains_each_verdict() {
        let policy = Policy::default();
        let explain = |path: &str, bytes: &[u8]| policy.explain(path, bytes);
        assert!(explain("src/a.rs", b"ok").contains("included"));
        let text = explain("pkg/build/gen/a.c", b"x");
        assert!(text.contains("`pkg/build/`"), "{text}");
        assert!(text.contains("generated-dir"), "{text}");
        assert!(explain("a/.env", b"x").contains("`a/.env` starts with a dot"));
        assert!(explain("a.bin", b"ab\0").contains("NUL byte at offset 2"));
        assert!(explain("a.txt", b"ab\xff").contains("not UTF-8 from offset 2"));
        assert!(explain("a/../b", b"x").contains("bad-path"));
        let big = vec![b'a'; (DEFAULT_MAX_FILE_BYTES + 1) as usize];
        assert!(explain("big.txt", &big).contains("1048577 bytes is over the cap of 1048576"));
    }

    #[test]
    fn reasons_serialize_as_their_names() {
        for reason in ExclusionReason::ALL {
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{}\"", reason.name()));
            assert_eq!(reason.to_string(), reason.name());
        }
        assert!(ExclusionReason::Hidden.is_path_rule());
        assert!(!ExclusionReason::Binary.is_path_rule());
    }
}
