//! The snapshot rule: which of the open study's cases a bundle may answer. A case is offered only
//! to a bundle of its repository, built at its commit and under the study's file policy; every
//! case left out is named with the reason, for the page to show.

use crate::load::question_set::Question;
use crate::study::{Case, Study};

/// The open study's cases that a bundle can answer, as questions, and the cases of its repository
/// that it cannot because they were cut at another commit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaseMatch {
    /// Each case of the bundle's repository whose issue text is known, whose id is not already a
    /// question of the set, and whose `base_commit` is the bundle's commit (or that records none).
    pub questions: Vec<Question>,
    /// The cases of the repository left out because their snapshot or file policy is not the
    /// bundle's: one sentence each, naming the case and what differs, for the page to show.
    pub mismatched: Vec<String>,
}

/// What a bundle was built from, as far as matching study cases goes: its manifest's commit and
/// searchable-file policy.
#[derive(Debug, Clone, Copy)]
pub struct BundleSnapshot<'a> {
    /// The repository name the cases must carry.
    pub repo: &'a str,
    /// The commit its files were read at (`None`: a working tree).
    pub commit: Option<&'a str>,
    /// The policy that chose its files.
    pub policy: &'a crate::corpus::policy::Policy,
}

/// Matches the open study's cases to a bundle by repository *and* commit: a case that records a
/// `base_commit` is offered only when the bundle was built at that commit, since its gold lines
/// and the bundle's files would otherwise belong to different snapshots. A study that records its
/// file policy (the archive: `paper`) offers cases only to a bundle built under exactly that
/// policy, since another policy holds other files (BM25's statistics, the tree's menus). Cases
/// need their issue text in `texts` (by case id); ids already in `questions` are skipped.
pub fn study_case_questions(
    study: &Study,
    texts: &std::collections::BTreeMap<String, String>,
    bundle: BundleSnapshot<'_>,
    questions: &[Question],
) -> CaseMatch {
    let mut found = CaseMatch::default();
    for case in &study.cases {
        if case.repo != bundle.repo || questions.iter().any(|q| q.id == case.id) {
            continue;
        }
        let Some(text) = texts.get(&case.id) else {
            continue;
        };
        if let Some(why) = snapshot_mismatch(study, case, bundle) {
            found.mismatched.push(why);
            continue;
        }
        found.questions.push(Question {
            id: case.id.clone(),
            question: text.clone(),
            gold: case.gold_files.clone(),
            gold_lines: case.gold_spans.clone(),
        });
    }
    found
}

/// Why `bundle` must not answer `case` of `study`, or `None` when it may: the study records its
/// file policy and the bundle was built under another (or a changed one), or the case records a
/// `base_commit` and the bundle was built at another commit (or from a working tree). The
/// repository is not compared here: callers match cases to the bundle first. The sentence names
/// the case and what differs, for the page to show (a mismatch is never used silently).
pub fn snapshot_mismatch(study: &Study, case: &Case, bundle: BundleSnapshot<'_>) -> Option<String> {
    let policy_differs = study
        .policy
        .filter(|name| *name != bundle.policy.name || !bundle.policy.is_pristine());
    if let Some(study_policy) = policy_differs {
        return Some(format!(
            "case {} was ranked under the {study_policy} file policy, but the bundle under the {} \
             policy: not offered",
            case.id,
            bundle.policy.label()
        ));
    }
    let base = case.base_commit.as_deref()?;
    (bundle.commit != Some(base)).then(|| {
        format!(
            "case {} is at commit {base}, but the bundle {}: not offered",
            case.id,
            match bundle.commit {
                Some(commit) => format!("was built at {commit}"),
                None => "records no commit (a working tree)".to_string(),
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::policy::{Policy, PolicyName};
    use crate::live::study::live_study;
    use crate::load::question_set::parse_questions;

    #[test]
    fn study_cases_of_the_bundle_repository_with_a_text_become_questions() {
        let mut study = live_study("astropy", &parse_questions("q", "{\"id\":\"a\",\"question\":\"x\",\"gold\":[\"g.py\"]}\n{\"id\":\"b\",\"question\":\"y\"}\n").unwrap());
        study.cases[1].repo = "django".into();
        let texts: std::collections::BTreeMap<String, String> = [
            ("a".to_string(), "text a".to_string()),
            ("b".to_string(), "text b".to_string()),
        ]
        .into_iter()
        .collect();
        let paper = Policy::paper();
        let at = |repo, commit| BundleSnapshot {
            repo,
            commit,
            policy: &paper,
        };
        let found = study_case_questions(&study, &texts, at("astropy", None), &[]).questions;
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].id.as_str(), found[0].question.as_str()),
            ("a", "text a")
        );
        assert_eq!(found[0].gold, ["g.py"]);
        // No text, another repository, or already a question of the set: not offered.
        let none = |found: CaseMatch| found.questions.is_empty() && found.mismatched.is_empty();
        assert!(none(study_case_questions(
            &study,
            &Default::default(),
            at("astropy", None),
            &[]
        )));
        assert!(none(study_case_questions(
            &study,
            &texts,
            at("numpy", None),
            &[]
        )));
        assert!(none(study_case_questions(
            &study,
            &texts,
            at("astropy", None),
            &found
        )));
    }

    #[test]
    fn study_cases_match_a_bundle_by_repository_and_commit() {
        let mut study = live_study(
            "sympy",
            &parse_questions("q", "{\"id\":\"a\",\"question\":\"x\"}\n").unwrap(),
        );
        study.cases[0].base_commit = Some("2dfa7457".into());
        let texts: std::collections::BTreeMap<String, String> =
            [("a".to_string(), "text a".to_string())]
                .into_iter()
                .collect();
        study.policy = Some(PolicyName::Paper);
        let paper = Policy::paper();
        let at = |commit, policy| BundleSnapshot {
            repo: "sympy",
            commit,
            policy,
        };
        let same = study_case_questions(&study, &texts, at(Some("2dfa7457"), &paper), &[]);
        assert_eq!((same.questions.len(), same.mismatched.len()), (1, 0));
        let other = study_case_questions(&study, &texts, at(Some("39de9a26"), &paper), &[]);
        assert!(other.questions.is_empty());
        assert_eq!(
            other.mismatched,
            ["case a is at commit 2dfa7457, but the bundle was built at 39de9a26: not offered"]
        );
        let tree = study_case_questions(&study, &texts, at(None, &paper), &[]);
        assert!(tree.questions.is_empty());
        assert!(
            tree.mismatched[0].contains("records no commit"),
            "{:?}",
            tree.mismatched
        );
        // Another policy, or the paper's with a changed setting, is never compared silently.
        let strict = Policy::strict();
        let under_strict = study_case_questions(&study, &texts, at(Some("2dfa7457"), &strict), &[]);
        assert!(under_strict.questions.is_empty());
        assert_eq!(
            under_strict.mismatched,
            [
                "case a was ranked under the paper file policy, but the bundle under the strict \
              policy: not offered"
            ]
        );
        let capped = Policy {
            max_file_bytes: Some(1),
            ..Policy::paper()
        };
        let under_capped = study_case_questions(&study, &texts, at(Some("2dfa7457"), &capped), &[]);
        assert!(under_capped.mismatched[0].contains("paper (changed: max_file_bytes)"));
    }
}
