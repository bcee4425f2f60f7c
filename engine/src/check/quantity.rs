//! The statistics a printed number can name, and their recomputation from the study's own data:
//! a study of rankings (the fastindex archive: recall, complete sets, archived line values,
//! paired comparisons, operating measurements, counts of cases, repositories, spans and one arm's
//! own finds). A per-case score table's are recomputed in [`super::scores`].

use crate::stable_sort;
use serde::{Deserialize, Serialize};

use super::condition::Condition;
use super::overlap::own_finds;
use crate::error::{Error, Result};
use crate::scoring::metrics::summarize;
use crate::scoring::numpy_bootstrap::percentiles;
use crate::scoring::paired::{compare, PairedMetric};
use crate::scoring::stats::BootstrapConfig;
use crate::study::subset::Subset;
use crate::study::Study;

/// What a printed number is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "stat",
    rename_all = "snake_case",
    try_from = "super::quantity_json::Fields"
)]
pub enum Quantity {
    /// The issue mean of file recall at `k` over a subset.
    FileRecall {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
        /// The cases (default all; see [`subset_named`]).
        subset: String,
    },
    /// How many cases have every gold file in the top `k`, out of the subset.
    FullCount {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
        /// The cases (default all).
        subset: String,
    },
    /// How many cases could have every gold file in the top `k` (at most `k` gold files).
    Ceiling {
        /// The candidate limit.
        k: usize,
    },
    /// Gold-file occurrences found in the top `k`, out of every occurrence (the micro average's
    /// numerator).
    MicroFound {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
    },
    /// Found occurrences over all occurrences.
    MicroRecall {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
    },
    /// The issue mean of the archived delivered-line recall at `k`.
    LineRecall {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
        /// The cases (default all).
        subset: String,
    },
    /// How many cases had every annotated line delivered (archived), out of the subset.
    CompleteLines {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
        /// The cases (default all).
        subset: String,
    },
    /// The mean of the archived packed tokens at `k`.
    ContextTokens {
        /// The arm's name.
        arm: String,
        /// The candidate limit.
        k: usize,
    },
    /// One part of a paired comparison (left − right) with the repository-cluster bootstrap the
    /// paper drew (10,000 resamples, seed 0).
    Paired {
        /// The left arm.
        left: String,
        /// The right arm.
        right: String,
        /// The candidate limit.
        k: usize,
        /// `file` (recall from the rankings) or `lines` (archived line recall).
        metric: String,
        /// The cases (default all).
        subset: String,
        /// Which number of the comparison.
        part: PairedPart,
    },
    /// How many cases are in a subset (a score table has only `all`).
    Cases {
        /// The subset (default all).
        subset: String,
    },
    /// How many repositories (clusters) the cases come from.
    Repositories {},
    /// How many cases have more than `k` gold files, so that none of them can be complete at `k`
    /// (the cases [`Quantity::Ceiling`] leaves out).
    OverCeiling {
        /// The candidate limit.
        k: usize,
    },
    /// How many gold spans the cases are annotated with, every span as the study lists it (two
    /// annotations of the same lines count twice, as the paper's gold audit counts them).
    GoldSpans {},
    /// The gold files `arm` has in its first `k` and none of `absent_from` has in its first `k`
    /// (see [`super::overlap`]): how many occurrences, or how many cases hold one.
    OwnFinds {
        /// The arm whose finds are counted.
        arm: String,
        /// The arms that must all lack them.
        absent_from: Vec<String>,
        /// The candidate limit, the same for every arm.
        k: usize,
        /// `occurrences` (out of every gold-file occurrence) or `cases` (out of every case).
        count: Tally,
    },
    /// A summary of an arm's per-case measurement (`model_calls`, `input_tokens`, `latency_ms`,
    /// `cost_usd`, …).
    Measurement {
        /// The arm's name.
        arm: String,
        /// The measurement's archived name.
        name: String,
        /// Which summary.
        of: Summary,
    },
    /// One arm's measurement summary over another's (the flat tournament's model calls per issue
    /// over tree's).
    MeasurementRatio {
        /// The arm over.
        left: String,
        /// The arm under.
        right: String,
        /// The measurement's archived name.
        name: String,
        /// Which summary of each.
        of: Summary,
    },
    /// A score table column's mean over its cases.
    ColumnMean {
        /// The column, as the CSV names it.
        column: String,
        /// Case ids left out (an article's success subset).
        exclude: Vec<String>,
    },
    /// A summary of a score table column over its cases (CodeNib's medians and p95s, by
    /// `np.percentile`; a number printed in seconds of a column in milliseconds gives `scale`).
    ColumnSummary {
        /// The column, as the CSV names it.
        column: String,
        /// Which summary.
        of: Summary,
        /// Case ids left out.
        exclude: Vec<String>,
    },
    /// How many of a score table's cases meet every condition (see [`super::condition`]), out of
    /// all of them.
    CasesWhere {
        /// The conditions.
        all: Vec<Condition>,
    },
    /// One part of a score table's paired comparison (left − right) by the CodeNib article's own
    /// rule: its generator, seed 20260923, 5,000 repository resamples
    /// ([`crate::scoring::numpy_bootstrap`]).
    ColumnPaired {
        /// The left column.
        left: String,
        /// The right column.
        right: String,
        /// Case ids left out (an article's success subset).
        exclude: Vec<String>,
        /// Which number: `mean`, `low` or `high`.
        part: PairedPart,
    },
}

/// One number of a paired comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairedPart {
    /// The mean difference.
    Mean,
    /// The interval's lower bound.
    Low,
    /// The interval's upper bound.
    High,
    /// Cases where left is higher.
    Wins,
    /// Cases where right is higher.
    Losses,
    /// Cases where they are equal.
    Ties,
    /// The exact sign-flip test over repository means.
    SignFlipP,
}

/// What a count of [`Quantity::OwnFinds`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tally {
    /// Gold-file occurrences (one gold file of one case).
    Occurrences,
    /// Cases with at least one.
    Cases,
}

/// A summary of per-case values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Summary {
    /// The mean over the cases that have a value.
    Mean,
    /// The sum.
    Sum,
    /// The median (the mean of the middle two for an even count; `np.percentile`'s 50th).
    Median,
    /// The 95th percentile, linear between closest ranks (`np.percentile`'s default).
    P95,
    /// The 95th percentile as the value at the lower closest rank, `sorted[⌊0.95·(n−1)⌋]` (how
    /// the fastindex study's runtime script takes it).
    P95LowerRank,
}

/// A recomputed number, with the whole it counts out of where it is a count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recomputed {
    /// The value.
    pub value: f64,
    /// For a count, the whole (`25/82`: 82).
    pub whole: Option<u64>,
}

impl Recomputed {
    pub(super) fn value(value: f64) -> Recomputed {
        Recomputed { value, whole: None }
    }

    pub(super) fn count(count: usize, whole: usize) -> Recomputed {
        Recomputed {
            value: count as f64,
            whole: Some(whole as u64),
        }
    }
}

/// The subset a printed number names: `all`, `aligned`, `unaligned`, `multi_dir`, `single_dir`,
/// `names_path`, `no_path`, `names_basename`, `no_basename` or `repo:NAME`.
pub fn subset_named(name: &str) -> Result<Subset> {
    Ok(match name {
        "all" => Subset::All,
        "aligned" => Subset::Aligned,
        "unaligned" => Subset::Unaligned,
        "multi_dir" => Subset::MultipleDirectories(true),
        "single_dir" => Subset::MultipleDirectories(false),
        "names_path" => Subset::MentionsGoldPath(true),
        "no_path" => Subset::MentionsGoldPath(false),
        "names_basename" => Subset::MentionsGoldBasename(true),
        "no_basename" => Subset::MentionsGoldBasename(false),
        other => match other.strip_prefix("repo:") {
            Some(repo) => Subset::Repo(repo.to_string()),
            None => {
                return Err(Error::setting(
                    "subset",
                    other,
                    "all, aligned, unaligned, multi_dir, single_dir, names_path, no_path, \
                     names_basename, no_basename or repo:NAME",
                ))
            }
        },
    })
}

fn indices(study: &Study, subset: &str) -> Result<Vec<usize>> {
    let cases = subset_named(subset)?.indices(study);
    if cases.is_empty() {
        return Err(Error::setting(
            "subset",
            subset,
            "a subset with cases in this study",
        ));
    }
    Ok(cases)
}

/// The archived line values of `arm` at `k` on `cases`, those that exist.
fn archived<T>(
    study: &Study,
    arm: &str,
    k: usize,
    cases: &[usize],
    pick: impl Fn(&crate::study::ArchivedLines) -> Option<T>,
) -> Result<Vec<T>> {
    let arm = study.arm(arm)?;
    let rows = arm.archived_lines.get(&k).ok_or_else(|| {
        Error::setting(
            "k",
            k,
            &format!("a k the archive has line values of {} for", arm.name),
        )
    })?;
    Ok(cases
        .iter()
        .filter_map(|&case| rows.get(case).copied().flatten().as_ref().and_then(&pick))
        .collect())
}

pub(super) fn mean(values: &[f64]) -> Result<f64> {
    if values.is_empty() {
        return Err(Error::setting("values", 0, "at least one value"));
    }
    Ok(values.iter().sum::<f64>() / values.len() as f64)
}

/// `of` over `values` (sorted in place for the lower-rank p95).
pub(super) fn summary(values: &mut [f64], of: Summary) -> Result<f64> {
    if values.is_empty() {
        return Err(Error::setting("values", 0, "at least one value"));
    }
    let percentile = |percent: f64| Ok(percentiles(values, &[percent])?[0]);
    match of {
        Summary::Mean => mean(values),
        Summary::Sum => Ok(values.iter().sum()),
        Summary::Median => percentile(50.0),
        Summary::P95 => percentile(95.0),
        Summary::P95LowerRank => {
            stable_sort::by(values, f64::total_cmp);
            Ok(values[((values.len() - 1) as f64 * 0.95).floor() as usize])
        }
    }
}

/// Recomputes `quantity` from a study of rankings.
pub fn recompute(study: &Study, quantity: &Quantity) -> Result<Recomputed> {
    let paper = BootstrapConfig::default();
    match quantity {
        Quantity::FileRecall { arm, k, subset } => {
            let summary = summarize(
                study,
                study.arm_index(arm)?,
                checked(*k)?,
                &indices(study, subset)?,
            );
            Ok(Recomputed::value(summary.file_recall))
        }
        Quantity::FullCount { arm, k, subset } => {
            let cases = indices(study, subset)?;
            let summary = summarize(study, study.arm_index(arm)?, checked(*k)?, &cases);
            Ok(Recomputed::count(summary.full, cases.len()))
        }
        Quantity::Ceiling { k } => {
            let k = checked(*k)?;
            let feasible = study
                .cases
                .iter()
                .filter(|c| c.gold_files.len() <= k)
                .count();
            Ok(Recomputed::count(feasible, study.cases.len()))
        }
        Quantity::MicroFound { arm, k } => {
            let all = indices(study, "all")?;
            let summary = summarize(study, study.arm_index(arm)?, checked(*k)?, &all);
            Ok(Recomputed::count(summary.found, summary.gold))
        }
        Quantity::MicroRecall { arm, k } => {
            let all = indices(study, "all")?;
            let summary = summarize(study, study.arm_index(arm)?, checked(*k)?, &all);
            Ok(Recomputed::value(summary.micro_recall))
        }
        Quantity::LineRecall { arm, k, subset } => {
            let cases = indices(study, subset)?;
            Ok(Recomputed::value(mean(&archived(
                study,
                arm,
                *k,
                &cases,
                |l| Some(l.line_recall),
            )?)?))
        }
        Quantity::CompleteLines { arm, k, subset } => {
            let cases = indices(study, subset)?;
            let complete = archived(study, arm, *k, &cases, |l| Some(l.complete_lines))?;
            let count = complete.iter().filter(|&&c| c).count();
            Ok(Recomputed::count(count, cases.len()))
        }
        Quantity::ContextTokens { arm, k } => {
            let cases = indices(study, "all")?;
            Ok(Recomputed::value(mean(&archived(
                study,
                arm,
                *k,
                &cases,
                |l| l.context_tokens,
            )?)?))
        }
        Quantity::Paired {
            left,
            right,
            k,
            metric,
            subset,
            part,
        } => {
            let metric = match metric.as_str() {
                "file" => PairedMetric::FileRecall,
                "lines" => PairedMetric::ArchivedLineRecall,
                other => return Err(Error::setting("metric", other, "file or lines")),
            };
            let cases = indices(study, subset)?;
            let pair = compare(study, left, right, checked(*k)?, metric, &cases, paper)?;
            Ok(match part {
                PairedPart::Mean => Recomputed::value(pair.mean),
                PairedPart::Low => Recomputed::value(pair.ci_low),
                PairedPart::High => Recomputed::value(pair.ci_high),
                PairedPart::Wins => Recomputed::count(pair.wins, pair.n),
                PairedPart::Losses => Recomputed::count(pair.losses, pair.n),
                PairedPart::Ties => Recomputed::count(pair.ties, pair.n),
                PairedPart::SignFlipP => Recomputed::value(pair.sign_flip_p),
            })
        }
        Quantity::Cases { subset } => {
            let cases = indices(study, subset)?;
            Ok(Recomputed::count(cases.len(), study.cases.len()))
        }
        Quantity::Repositories {} => Ok(Recomputed::value(study.repos().len() as f64)),
        Quantity::OverCeiling { k } => {
            let k = checked(*k)?;
            let over = study
                .cases
                .iter()
                .filter(|c| c.gold_files.len() > k)
                .count();
            Ok(Recomputed::count(over, study.cases.len()))
        }
        Quantity::GoldSpans {} => {
            let spans = study
                .cases
                .iter()
                .map(|c| c.gold_spans.len())
                .sum::<usize>();
            if spans == 0 {
                return Err(Error::setting(
                    "stat",
                    "gold_spans",
                    "a study with line-level gold",
                ));
            }
            Ok(Recomputed::value(spans as f64))
        }
        Quantity::OwnFinds {
            arm,
            absent_from,
            k,
            count,
        } => {
            let others = absent_from
                .iter()
                .map(|other| study.arm_index(other))
                .collect::<Result<Vec<_>>>()?;
            let finds = own_finds(study, study.arm_index(arm)?, &others, checked(*k)?);
            Ok(match count {
                Tally::Occurrences => Recomputed::count(finds.occurrences, finds.gold),
                Tally::Cases => Recomputed::count(finds.cases, study.cases.len()),
            })
        }
        Quantity::Measurement { arm, name, of } => {
            Ok(Recomputed::value(measurement(study, arm, name, *of)?))
        }
        Quantity::MeasurementRatio {
            left,
            right,
            name,
            of,
        } => {
            let under = measurement(study, right, name, *of)?;
            if under == 0.0 {
                return Err(Error::setting(
                    "right",
                    right,
                    &format!("an arm whose {name} is not zero"),
                ));
            }
            Ok(Recomputed::value(
                measurement(study, left, name, *of)? / under,
            ))
        }
        Quantity::ColumnMean { .. }
        | Quantity::ColumnPaired { .. }
        | Quantity::ColumnSummary { .. }
        | Quantity::CasesWhere { .. } => Err(Error::setting(
            "stat",
            "a score table column",
            "a statistic of a study of rankings (this study has no score table)",
        )),
    }
}

/// A summary of `arm`'s archived measurement `name` over the cases that have it.
fn measurement(study: &Study, arm: &str, name: &str, of: Summary) -> Result<f64> {
    let mut values: Vec<f64> = study
        .arm(arm)?
        .measurements
        .iter()
        .filter_map(|row| row.get(name).copied())
        .collect();
    if values.is_empty() {
        return Err(Error::setting(
            "measurement",
            name,
            &format!("a measurement the archive records for {arm}"),
        ));
    }
    summary(&mut values, of)
}

fn checked(k: usize) -> Result<usize> {
    Study::check_k(k)
}
