//! A study case run live on its own snapshot, against the archive: which of the site's bundles is
//! the case's snapshot, and how far each live arm's ranking agrees with the arm's archived one.
//!
//! The agreement is the one `bench/live_vs_archive.py` reports for the paper's snapshots: how
//! many of the archived top k the live top k holds at the same rank, and the first rank where the
//! two differ (a list that ends early differs there).

use crate::live::snapshot::{snapshot_mismatch, BundleSnapshot};
use crate::study::Study;
use crate::table::{Cell, Table};

/// The first of `bundles` (each a name and what it was built from) that is the snapshot of the
/// study's case `case`: of its repository, at its commit, under the study's file policy.
pub fn snapshot_for_case<'b>(
    study: &Study,
    case: usize,
    bundles: &[(&'b str, BundleSnapshot<'_>)],
) -> Option<&'b str> {
    let case = study.cases.get(case)?;
    bundles
        .iter()
        .find(|(_, snapshot)| {
            snapshot.repo == case.repo && snapshot_mismatch(study, case, *snapshot).is_none()
        })
        .map(|(name, _)| *name)
}

/// How far a live ranking agrees with an archived one in their top k.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankAgreement {
    /// Ranks (of the first `compared`) where both lists hold the same path.
    pub same_rank: usize,
    /// The archived list's length within k.
    pub compared: usize,
    /// The first rank (1-based) where they differ within k, if any.
    pub first_difference: Option<usize>,
}

/// The agreement of `live` with `archived`, both best first, in their top `k`.
pub fn rank_agreement(live: &[String], archived: &[String], k: usize) -> RankAgreement {
    let (live, archived) = (
        &live[..live.len().min(k)],
        &archived[..archived.len().min(k)],
    );
    let same_rank = live.iter().zip(archived).filter(|(a, b)| a == b).count();
    let first_difference = (0..live.len().max(archived.len()))
        .find(|&at| live.get(at) != archived.get(at))
        .map(|at| at + 1);
    RankAgreement {
        same_rank,
        compared: archived.len(),
        first_difference,
    }
}

/// One arm of the case, live beside archived.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmAgainstArchive {
    /// The arm's name, the study's and the live arm's.
    pub arm: String,
    /// The archived top k.
    pub archived: Vec<String>,
    /// The live top k.
    pub live: Vec<String>,
    /// How far they agree.
    pub agreement: RankAgreement,
}

/// Every live arm (name and paths, best first) that the study also archives for case `case`,
/// in the live order, against the archived ranking at `k`.
pub fn against_archive(
    study: &Study,
    case: usize,
    live: &[(String, Vec<String>)],
    k: usize,
) -> Vec<ArmAgainstArchive> {
    live.iter()
        .filter_map(|(name, paths)| {
            let arm = study.arms.iter().find(|arm| arm.name == *name)?;
            let archived = arm.rankings.get(case)?;
            Some(ArmAgainstArchive {
                arm: name.clone(),
                archived: archived.iter().take(k).cloned().collect(),
                live: paths.iter().take(k).cloned().collect(),
                agreement: rank_agreement(paths, archived, k),
            })
        })
        .collect()
}

/// The comparison as a table: per arm, the ranks that agree and the first difference.
pub fn against_archive_table(arms: &[ArmAgainstArchive], k: usize) -> Table {
    let mut table = Table::new(
        &format!("Live on the case's snapshot against the archive, top {k}"),
        &[
            "arm",
            "same rank",
            "first difference",
            "archived there",
            "live there",
        ],
    );
    for arm in arms {
        let at = arm.agreement.first_difference;
        let path_at = |list: &[String]| {
            at.and_then(|rank| list.get(rank - 1))
                .map_or("—".to_string(), Clone::clone)
        };
        table.rows.push(vec![
            Cell::text(arm.arm.as_str()),
            Cell::text(format!(
                "{} of {}",
                arm.agreement.same_rank, arm.agreement.compared
            )),
            Cell::text(at.map_or("none".to_string(), |rank| format!("rank {rank}"))),
            Cell::text(path_at(&arm.archived)),
            Cell::text(path_at(&arm.live)),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::policy::Policy;
    use crate::live::study::live_study;
    use crate::load::question_set::parse_questions;

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn agreement_counts_same_ranks_and_the_first_difference() {
        let archived = paths(&["a", "b", "c", "d"]);
        let same = rank_agreement(&archived, &archived, 16);
        assert_eq!(
            (same.same_rank, same.compared, same.first_difference),
            (4, 4, None)
        );
        let swapped = rank_agreement(&paths(&["a", "c", "b", "d"]), &archived, 16);
        assert_eq!((swapped.same_rank, swapped.first_difference), (2, Some(2)));
        // A live list that ends early differs where it ends; k cuts both.
        let short = rank_agreement(&paths(&["a", "b"]), &archived, 16);
        assert_eq!((short.same_rank, short.first_difference), (2, Some(3)));
        let cut = rank_agreement(&paths(&["a", "b", "x"]), &archived, 2);
        assert_eq!(
            (cut.same_rank, cut.compared, cut.first_difference),
            (2, 2, None)
        );
        let longer = rank_agreement(&paths(&["a", "b", "c", "d", "e"]), &archived, 16);
        assert_eq!((longer.same_rank, longer.first_difference), (4, Some(5)));
    }

    #[test]
    fn the_case_finds_its_snapshot_and_its_arms_compare() {
        let questions = "{\"id\":\"q1\",\"question\":\"x\",\"gold\":[\"a\"]}\n";
        let mut study = live_study("acme", &parse_questions("q", questions).unwrap());
        study.cases[0].base_commit = Some("c2".into());
        let paper = Policy::paper();
        let at = |repo, commit| BundleSnapshot {
            repo,
            commit,
            policy: &paper,
        };
        let bundles = [
            ("other-repo", at("other", Some("c2"))),
            ("acme-old", at("acme", Some("c1"))),
            ("acme-new", at("acme", Some("c2"))),
        ];
        assert_eq!(snapshot_for_case(&study, 0, &bundles), Some("acme-new"));
        assert_eq!(snapshot_for_case(&study, 0, &bundles[..2]), None);
        assert_eq!(snapshot_for_case(&study, 7, &bundles), None);

        study.arms.push(crate::study::Arm::new(
            "fts5",
            "FTS5",
            crate::study::ArmOrigin::Archived,
            vec![paths(&["a", "b", "c"])],
        ));
        let live = vec![
            ("fts5".to_string(), paths(&["a", "c", "b"])),
            ("rg".to_string(), paths(&["z"])),
        ];
        let compared = against_archive(&study, 0, &live, 16);
        assert_eq!(compared.len(), 1, "rg is not archived");
        assert_eq!(compared[0].agreement.first_difference, Some(2));
        let table = against_archive_table(&compared, 16);
        let row: Vec<String> = table.rows[0].iter().map(|c| c.text.clone()).collect();
        assert_eq!(row, ["fts5", "1 of 3", "rank 2", "b", "c"]);
    }
}
