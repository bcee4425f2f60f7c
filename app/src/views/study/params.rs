//! The study views' own settings and their keys: Table 2's `ks=8,16` (its two k, also the fusion
//! view's and the line level's), the paired comparison's `left=tree`, `right=fts5`,
//! `metric=file|lines` and `subset=all|aligned` (all always written), the per-repository and
//! subgroup tables' `arms=tree,fts5` (written when some are chosen) and the drill-down's
//! `case=<case id>` (written when one is open; `issue=` is read as the same), and the drill-down
//! list's `crepo=<repository>`, `cside=better|worse|same` (the cases on that side of the paired
//! comparison) and `csort=issue|repo|difference|<arm>` (each written when set). Their single k,
//! bootstrap, fusions and metric settings are shared (`crate::params`).

use reactive_stores::Store;
use routelens_engine::scoring::case_list::Side;
use routelens_engine::{PairedMetric, Study, Subset};

use crate::params::part::{k_value, list, set, set_some, set_text, Claim, Params};

/// The study views' part of the settings. Defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Store)]
pub struct StudyViewParams {
    /// Table 2's left k (default 8).
    pub k_left: usize,
    /// Table 2's right k (default 16).
    pub k_right: usize,
    /// The paired comparison's left arm (default `tree`).
    pub left: String,
    /// The paired comparison's right arm (default `fts5`).
    pub right: String,
    /// What the paired comparison compares (default file recall).
    pub metric: PairedMetric,
    /// Which cases the paired comparison uses (default all; or the aligned subset).
    pub subset: Subset,
    /// Arms shown in the per-repository and subgroup tables (default empty, meaning all).
    pub arms: Vec<String>,
    /// The issue open in the drill-down (default none).
    pub issue: Option<String>,
    /// The drill-down list's repository (default every one).
    pub repo: Option<String>,
    /// The drill-down list's side of the paired comparison (default every case).
    pub side: Option<Side>,
    /// The drill-down list's sort column (default the study's order).
    pub sort: Option<String>,
}

impl Default for StudyViewParams {
    fn default() -> Self {
        StudyViewParams {
            k_left: 8,
            k_right: 16,
            left: "tree".into(),
            right: "fts5".into(),
            metric: PairedMetric::FileRecall,
            subset: Subset::All,
            arms: Vec::new(),
            issue: None,
            repo: None,
            side: None,
            sort: None,
        }
    }
}

impl Params for StudyViewParams {
    fn keys(&self) -> &'static [&'static str] {
        &[
            "ks", "left", "right", "metric", "subset", "arms", "case", "issue", "crepo", "cside",
            "csort",
        ]
    }

    fn write(&self, pairs: &mut Vec<(&'static str, String)>) {
        pairs.push(("ks", format!("{},{}", self.k_left, self.k_right)));
        pairs.push(("left", self.left.clone()));
        pairs.push(("right", self.right.clone()));
        pairs.push((
            "metric",
            match self.metric {
                PairedMetric::ArchivedLineRecall => "lines",
                _ => "file",
            }
            .into(),
        ));
        pairs.push((
            "subset",
            match self.subset {
                Subset::Aligned => "aligned",
                _ => "all",
            }
            .into(),
        ));
        if !self.arms.is_empty() {
            pairs.push(("arms", self.arms.join(",")));
        }
        if let Some(issue) = &self.issue {
            pairs.push(("case", issue.clone()));
        }
        if let Some(repo) = &self.repo {
            pairs.push(("crepo", repo.clone()));
        }
        if let Some(side) = self.side {
            pairs.push(("cside", side.name().into()));
        }
        if let Some(sort) = &self.sort {
            pairs.push(("csort", sort.clone()));
        }
    }

    fn read(&mut self, key: &str, value: &str) -> Claim {
        match key {
            "ks" => match list(value).as_slice() {
                [left, right] => match (k_value(left), k_value(right)) {
                    (Ok(left), Ok(right)) => {
                        (self.k_left, self.k_right) = (left, right);
                        Claim::Read
                    }
                    (Err(err), _) | (_, Err(err)) => Claim::Refused(err),
                },
                _ => Claim::Refused("expected two k values, like 8,16".into()),
            },
            "left" => set_text(&mut self.left, value),
            "right" => set_text(&mut self.right, value),
            "metric" => match value {
                "file" => set(&mut self.metric, Ok(PairedMetric::FileRecall)),
                "lines" => set(&mut self.metric, Ok(PairedMetric::ArchivedLineRecall)),
                _ => Claim::Refused("expected file or lines".into()),
            },
            "subset" => match value {
                "all" => set(&mut self.subset, Ok(Subset::All)),
                "aligned" => set(&mut self.subset, Ok(Subset::Aligned)),
                _ => Claim::Refused("expected all or aligned".into()),
            },
            "arms" => set(&mut self.arms, Ok(list(value))),
            "case" | "issue" => set_some(&mut self.issue, value),
            "crepo" => set_some(&mut self.repo, value),
            "cside" => match Side::from_name(value) {
                Some(side) => set(&mut self.side, Ok(Some(side))),
                None => Claim::Refused("expected better, worse or same".into()),
            },
            "csort" => set_some(&mut self.sort, value),
            _ => Claim::Unknown,
        }
    }
}

/// The indices of the arms chosen for the per-repository and subgroup tables (all when none are
/// chosen); names the study lacks are skipped.
pub fn chosen_arms(chosen: &[String], study: &Study) -> Vec<usize> {
    if chosen.is_empty() {
        return (0..study.arms.len()).collect();
    }
    (0..study.arms.len())
        .filter(|&index| chosen.iter().any(|name| *name == study.arms[index].name))
        .collect()
}
