//! Timing the arms over a question set the way the native benchmark does.
//!
//! `bench/fts5_compare.py` runs `routelens search --arm fts5 --queries` in one process: every
//! question, several rounds, the arm alone, each call timed; a question's time is the median of
//! its rounds, and p50/p95 are nearest-rank percentiles over the questions. The Search view's
//! timing panel runs the same plan in the browser with the page's clock ([`TimingPlan`] says the
//! order, [`ArmTimes`] keeps the times and summarises them), so the two figures compare like with
//! like. Each arm gets its own pass: inside one pass nothing but that arm touches the caches, as
//! in the native run.

use super::LexicalArm;
use crate::stable_sort;

/// One timed call: which arm, which round, which question (an index into the question set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingStep {
    /// The arm called.
    pub arm: LexicalArm,
    /// The round, from 0.
    pub round: usize,
    /// The question's position in the set.
    pub question: usize,
}

/// The calls to make: for each arm, `rounds` passes over the questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimingPlan {
    arms: Vec<LexicalArm>,
    questions: usize,
    rounds: usize,
}

impl TimingPlan {
    /// A plan over `questions` questions, `rounds` times each (at least once), arm by arm.
    pub fn new(arms: &[LexicalArm], questions: usize, rounds: usize) -> TimingPlan {
        TimingPlan {
            arms: arms.to_vec(),
            questions,
            rounds: rounds.max(1),
        }
    }

    /// The number of calls.
    pub fn len(&self) -> usize {
        self.arms.len() * self.questions * self.rounds
    }

    /// Whether the plan makes no call.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `at`-th call, in order: arm-major, then round, then question.
    pub fn step(&self, at: usize) -> Option<TimingStep> {
        if at >= self.len() {
            return None;
        }
        let per_arm = self.questions * self.rounds;
        Some(TimingStep {
            arm: self.arms[at / per_arm],
            round: (at % per_arm) / self.questions,
            question: at % self.questions,
        })
    }
}

/// One arm's summary: per-question medians, then percentiles over the questions.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ArmTiming {
    /// The arm.
    pub arm: LexicalArm,
    /// Median over the questions of each question's median time, in milliseconds.
    pub p50_ms: f64,
    /// 95th percentile of the same (nearest rank).
    pub p95_ms: f64,
    /// Mean of the same.
    pub mean_ms: f64,
    /// Questions with at least one time.
    pub questions: usize,
    /// Timed calls.
    pub calls: usize,
}

/// The times recorded so far, per arm and question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArmTimes {
    /// `(arm, per question: the times of its rounds)`, in the order arms were first recorded.
    times: Vec<(LexicalArm, Vec<Vec<f64>>)>,
}

impl ArmTimes {
    /// Records one call's time in milliseconds.
    pub fn record(&mut self, step: TimingStep, ms: f64) {
        let slot = match self.times.iter().position(|(arm, _)| *arm == step.arm) {
            Some(slot) => slot,
            None => {
                self.times.push((step.arm, Vec::new()));
                self.times.len() - 1
            }
        };
        let questions = &mut self.times[slot].1;
        if questions.len() <= step.question {
            questions.resize(step.question + 1, Vec::new());
        }
        questions[step.question].push(ms);
    }

    /// Every recorded arm's summary, in recording order (an arm with no time is left out).
    pub fn summary(&self) -> Vec<ArmTiming> {
        self.times
            .iter()
            .filter_map(|(arm, questions)| {
                let medians: Vec<f64> = questions
                    .iter()
                    .filter(|times| !times.is_empty())
                    .map(|times| nearest_rank(times, 0.5))
                    .collect();
                if medians.is_empty() {
                    return None;
                }
                Some(ArmTiming {
                    arm: *arm,
                    p50_ms: nearest_rank(&medians, 0.5),
                    p95_ms: nearest_rank(&medians, 0.95),
                    mean_ms: medians.iter().sum::<f64>() / medians.len() as f64,
                    questions: medians.len(),
                    calls: questions.iter().map(Vec::len).sum(),
                })
            })
            .collect()
    }
}

/// The nearest-rank percentile (the value at rank ⌈q·n⌉, at least 1) of a non-empty list, as the
/// benchmark scripts compute it.
pub fn nearest_rank(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    stable_sort::by(&mut sorted, f64::total_cmp);
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_runs_each_arm_alone_round_by_round() {
        let plan = TimingPlan::new(&[LexicalArm::Fts5, LexicalArm::Rg], 3, 2);
        assert_eq!(plan.len(), 12);
        let steps: Vec<(LexicalArm, usize, usize)> = (0..plan.len())
            .map(|at| plan.step(at).unwrap())
            .map(|step| (step.arm, step.round, step.question))
            .collect();
        assert_eq!(steps[0], (LexicalArm::Fts5, 0, 0));
        assert_eq!(steps[2], (LexicalArm::Fts5, 0, 2));
        assert_eq!(steps[3], (LexicalArm::Fts5, 1, 0));
        assert_eq!(steps[6], (LexicalArm::Rg, 0, 0));
        assert_eq!(steps[11], (LexicalArm::Rg, 1, 2));
        assert_eq!(plan.step(12), None);
        assert!(TimingPlan::new(&[LexicalArm::Fts5], 0, 5).is_empty());
        assert_eq!(TimingPlan::new(&[LexicalArm::Fts5], 2, 0).len(), 2);
    }

    #[test]
    fn medians_per_question_then_percentiles_over_questions() {
        let plan = TimingPlan::new(&[LexicalArm::Fts5], 4, 3);
        let mut times = ArmTimes::default();
        // Question q's rounds take q+1, 10(q+1) and 100 ms: its median is 10(q+1).
        for at in 0..plan.len() {
            let step = plan.step(at).unwrap();
            let q = (step.question + 1) as f64;
            times.record(step, [q, 10.0 * q, 100.0][step.round]);
        }
        let summary = times.summary();
        assert_eq!(summary.len(), 1);
        let fts5 = &summary[0];
        assert_eq!((fts5.questions, fts5.calls), (4, 12));
        assert_eq!((fts5.p50_ms, fts5.p95_ms, fts5.mean_ms), (20.0, 40.0, 25.0));
        assert!(ArmTimes::default().summary().is_empty());
    }

    #[test]
    fn nearest_rank_matches_the_scripts() {
        let values: Vec<f64> = (1..=36).map(f64::from).collect();
        assert_eq!(nearest_rank(&values, 0.5), 18.0);
        assert_eq!(nearest_rank(&values, 0.95), 35.0);
        assert_eq!(nearest_rank(&[3.0, 1.0, 2.0], 0.5), 2.0);
        assert_eq!(nearest_rank(&[7.0], 0.95), 7.0);
    }
}
