//! Two labellers' agreement report ([`super::agreement::AgreementReport`]) as the text a reader
//! reads: who judged what, the confusion matrix of grades, and each statistic's sentence. The
//! command line (`routelens agreement`) prints it and the adjudication page shows it, so the two
//! are the same text by construction.

use std::fmt::Write;

use super::agreement::AgreementReport;

/// The report as lines: coverage, the grade matrix (`labellers[0]` down, `labellers[1]` across),
/// then one sentence per statistic, with the resamples where it was undefined when there were any.
pub fn report_text(labellers: &[String; 2], report: &AgreementReport) -> String {
    let c = &report.coverage;
    let [a, b] = labellers;
    let mut text = format!(
        "{a} and {b}: {} questions; {} question–file pairs judged by both, {} by {a} only, {} by \
         {b} only, {} by neither; relevant at grade {} or more ({} resamples, seed {})\n\n",
        report.questions,
        c.both,
        c.only_a,
        c.only_b,
        c.neither,
        report.cut,
        report.resamples,
        report.seed
    );
    text += &format!("grades ({a} down, {b} across)\n      0     1     2     3\n");
    for (grade, row) in report.confusion.iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|n| format!("{n:>5}")).collect();
        let _ = writeln!(text, "{grade} {}", cells.join(" "));
    }
    text += "\n";
    for statistic in &report.statistics {
        text += &statistic.sentence;
        if statistic.undefined_resamples > 0 && statistic.value.is_some() {
            let _ = write!(
                text,
                " (undefined in {} of {} resamples)",
                statistic.undefined_resamples, report.resamples
            );
        }
        text += "\n";
    }
    text
}
