//! A grep plan: what a planner (a model, the offline planner, a file) asks the grep stage to
//! search. CodeNib's planner returns 1–6 independent actions, each a ripgrep-style Rust regex,
//! a repository-relative glob (`**/*` for every file) and whether the match is case-sensitive.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use globset::GlobMatcher;
use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The most actions a plan may hold (CodeNib's planner schema: 1–6).
pub const MAX_ACTIONS: usize = 6;

/// One grep action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepAction {
    /// A Rust regex, matched line by line.
    pub pattern: String,
    /// Which files: a glob over repository-relative paths (`**/*` for all).
    #[serde(default = "every_file")]
    pub glob: String,
    /// Case-sensitive matching.
    #[serde(default)]
    pub case_sensitive: bool,
}

fn every_file() -> String {
    "**/*".into()
}

/// A plan: its actions in priority order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The actions, first the most important.
    pub actions: Vec<GrepAction>,
}

impl GrepAction {
    /// The compiled pattern (an invalid one is the action's own failure, not the plan's).
    pub fn regex(&self) -> std::result::Result<Regex, String> {
        // Multi-line with CRLF: `^` and `$` hold at line ends when a whole file is searched
        // (`grep_pool` tests each found line alone as well).
        RegexBuilder::new(&self.pattern)
            .case_insensitive(!self.case_sensitive)
            .multi_line(true)
            .crlf(true)
            .size_limit(1 << 22)
            .build()
            // The regex crate's message spans lines (the pattern, a caret); its last says why.
            .map_err(|e| {
                let message = e.to_string();
                let why = message.lines().last().unwrap_or_default().trim();
                format!("pattern {:?} does not compile: {why}", self.pattern)
            })
    }

    /// The compiled glob, kept per thread by its text: compiling one builds a regex, and a
    /// plan's globs repeat from question to question (every offline plan's are `**/*`).
    pub fn matcher(&self) -> std::result::Result<Rc<PathGlob>, String> {
        if let Some(kept) = GLOBS.with_borrow(|globs| globs.get(&self.glob).cloned()) {
            return Ok(kept);
        }
        let matcher = globset::GlobBuilder::new(&self.glob)
            .literal_separator(true)
            .build()
            .map(|g| {
                Rc::new(if EVERY_PATH.contains(&self.glob.as_str()) {
                    PathGlob::Every
                } else {
                    PathGlob::Glob(g.compile_matcher())
                })
            })
            .map_err(|e| format!("glob {:?}: {e}", self.glob))?;
        GLOBS.with_borrow_mut(|globs| {
            if globs.len() == GLOBS_KEPT {
                globs.clear();
            }
            globs.insert(self.glob.clone(), Rc::clone(&matcher));
        });
        Ok(matcher)
    }
}

/// The globs that match every path, with `*` kept within one folder as here: `**` matches
/// anything, and `**/*` any folders, then a name.
const EVERY_PATH: [&str; 2] = ["**", "**/*"];

/// A compiled glob.
#[derive(Debug)]
pub enum PathGlob {
    /// One of [`EVERY_PATH`], which is not run: the grep stage asks it of every file and
    /// action, and its regex was a tenth of a pool's time in the browser outside the search.
    Every,
    /// Any other.
    Glob(GlobMatcher),
}

impl PathGlob {
    /// Whether the glob matches `path`.
    pub fn is_match(&self, path: &str) -> bool {
        match self {
            PathGlob::Every => true,
            PathGlob::Glob(glob) => glob.is_match(path),
        }
    }
}

/// How many compiled globs a thread keeps before it starts again.
const GLOBS_KEPT: usize = 64;

thread_local! {
    static GLOBS: RefCell<HashMap<String, Rc<PathGlob>>> = RefCell::new(HashMap::new());
}

/// Reads a plan from JSON (`{"actions": [...]}` or the bare list), `file` naming it in errors:
/// 1–6 actions, each with a non-empty pattern and a glob that compiles. A pattern that does not
/// compile is kept: running it fails that action alone, as in CodeNib.
pub fn parse_plan(file: &str, text: &str) -> Result<Plan> {
    let value: serde_json::Value =
        serde_json::from_slice(text.as_bytes()).map_err(|e| Error::Parse {
            file: file.to_string(),
            message: e.to_string(),
        })?;
    let plan = if value.is_array() {
        serde_json::json!({ "actions": value })
    } else {
        value
    };
    // Through the text, as every other reader of a plan: one instance of its `Deserialize`.
    let plan: Plan =
        serde_json::from_slice(plan.to_string().as_bytes()).map_err(|e| Error::Parse {
            file: file.to_string(),
            message: e.to_string(),
        })?;
    check_plan(file, &plan)?;
    Ok(plan)
}

/// Checks a plan's shape (see [`parse_plan`]).
pub fn check_plan(file: &str, plan: &Plan) -> Result<()> {
    if plan.actions.is_empty() || plan.actions.len() > MAX_ACTIONS {
        return Err(Error::field(
            file,
            "actions",
            format!(
                "{} actions; a plan holds 1 to {MAX_ACTIONS}",
                plan.actions.len()
            ),
        ));
    }
    for (at, action) in plan.actions.iter().enumerate() {
        if action.pattern.is_empty() {
            return Err(Error::field(
                file,
                format!("actions[{at}].pattern"),
                "empty",
            ));
        }
        action
            .matcher()
            .map_err(|why| Error::field(file, format!("actions[{at}].glob"), why))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_reads_as_an_object_or_a_list_with_defaults() {
        let plan = parse_plan("p.json", r#"[{"pattern": "RateLimit\\w+"}]"#).unwrap();
        assert_eq!(plan.actions[0].glob, "**/*");
        assert!(!plan.actions[0].case_sensitive);
        let same = parse_plan(
            "p.json",
            r#"{"actions": [{"pattern": "RateLimit\\w+", "glob": "**/*", "case_sensitive": false}]}"#,
        )
        .unwrap();
        assert_eq!(plan, same);
    }

    #[test]
    fn bad_plans_are_refused_naming_the_field() {
        let refused = |text: &str| parse_plan("p.json", text).unwrap_err().to_string();
        assert!(refused("[]").contains("actions"));
        let seven = format!("[{}]", [r#"{"pattern":"a"}"#; 7].join(","));
        assert!(refused(&seven).contains("7 actions"));
        assert!(refused(r#"[{"pattern":""}]"#).contains("actions[0].pattern"));
        assert!(refused(r#"[{"pattern":"a","glob":"src/[x"}]"#).contains("actions[0].glob"));
        assert!(refused(r#"[{"pattern":"a","extra":1}]"#).contains("extra"));
        assert!(refused("{").contains("p.json"));
        // An invalid pattern is the action's failure when it runs, not the plan's.
        let plan = parse_plan("p.json", r#"[{"pattern":"(unclosed"}]"#).unwrap();
        assert!(plan.actions[0].regex().unwrap_err().contains("(unclosed"));
    }

    #[test]
    fn a_glob_is_compiled_once_a_thread_and_matches_as_compiled_afresh() {
        let action = |glob: &str| GrepAction {
            pattern: "a".into(),
            glob: glob.into(),
            case_sensitive: false,
        };
        let first = action("src/**/*.py").matcher().unwrap();
        let again = action("src/**/*.py").matcher().unwrap();
        assert!(Rc::ptr_eq(&first, &again));
        assert!(!Rc::ptr_eq(&first, &action("**/*.py").matcher().unwrap()));
        assert!(first.is_match("src/a/b.py") && !first.is_match("lib/b.py"));
        // `literal_separator`: a `*` stays within one folder, kept or not.
        assert!(!action("*.py").matcher().unwrap().is_match("src/b.py"));
        assert!(action("src/[x").matcher().is_err());
        assert!(action("src/[x").matcher().is_err(), "a failure is not kept");
    }

    #[test]
    fn the_globs_taken_to_match_every_path_do_as_compiled() {
        let paths = [
            "",
            "a",
            "a.py",
            "src/a.py",
            "/abs/b.rs",
            "a//b",
            "dir/",
            ".hidden/x",
            "ü/ß.py",
            "a\nb/c",
        ];
        for glob in EVERY_PATH {
            let compiled = globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .unwrap()
                .compile_matcher();
            for path in paths {
                assert!(compiled.is_match(path), "{glob} {path:?}");
            }
            let kept = GrepAction {
                pattern: "a".into(),
                glob: glob.into(),
                case_sensitive: false,
            }
            .matcher()
            .unwrap();
            assert!(matches!(*kept, PathGlob::Every));
        }
    }
}
