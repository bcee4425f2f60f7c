//! The Context view's results: per packed arm the budget bar, the recall figures and the blocks in
//! pack order (gold lines marked), and with two arms their delivered gold lines side by side.
//! Everything shown is read off the engine's [`ContextReport`]; nothing is computed here but
//! formatting.

use std::collections::BTreeMap;

use leptos::prelude::*;
use routelens_engine::delivery::context::{ContextReport, GoldDelivery};
use routelens_engine::delivery::select::split_lines;

use super::state::Packed;

/// Gold lines shown at most per block (a longer run says how many more there are).
const MAX_GOLD_LINES_SHOWN: usize = 120;

/// Every packed arm, side by side, and the comparison when there are two.
pub fn packs_view(packs: Vec<Packed>) -> AnyView {
    let compare = (packs.len() == 2).then(|| compare_view(&packs));
    let class = if packs.len() == 2 {
        "pack-columns two"
    } else {
        "pack-columns"
    };
    let columns = packs.iter().map(pack_view).collect_view();
    view! {
        {compare}
        <div class=class>{columns}</div>
    }
    .into_any()
}

/// `12345` as `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn ranges_text(ranges: &[(u32, u32)]) -> String {
    ranges
        .iter()
        .map(|&(s, e)| {
            if s == e {
                s.to_string()
            } else {
                format!("{s}–{e}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn recall_view(report: &ContextReport) -> AnyView {
    let Some(score) = &report.score else {
        return view! {
            <p class="muted" data-testid="context-no-gold">
                "This issue has no gold line spans: no line recall."
            </p>
        }
        .into_any();
    };
    let file_recall = score.delivered_file_recall.map(|r| {
        format!(
            "delivered-file recall {}/{} = {r:.3}",
            score.delivered_gold_files, score.gold_files
        )
    });
    let clipped = score
        .clipped
        .iter()
        .map(|c| {
            format!(
                "gold span {}:{}-{} ends after the file's last line {} (clipped)",
                c.path, c.start_line, c.end_line, c.file_lines
            )
        })
        .map(|text| view! { <p class="notice">{text}</p> })
        .collect_view();
    view! {
        <p class="recall">
            <span data-testid="context-recall" data-recall=score.line_recall.to_string()>
                {format!(
                    "line recall {}/{} = {:.3}",
                    score.delivered_gold_lines,
                    score.gold_lines,
                    score.line_recall,
                )}
            </span>
            " · "
            <span data-testid="context-complete" data-complete=score.complete.to_string()>
                {if score.complete { "complete" } else { "not complete" }}
            </span>
            " · "
            <span data-testid="context-file-recall">{file_recall}</span>
        </p>
        {clipped}
    }
    .into_any()
}

fn pack_view(packed: &Packed) -> AnyView {
    let (report, ms) = match &packed.result {
        Ok(ok) => ok,
        Err(err) => {
            return view! {
                <div class="pack" data-testid="context-pack" data-arm=packed.arm.clone()>
                    <h3>{packed.arm.clone()}</h3>
                    <p class="error" data-testid="context-error">{err.clone()}</p>
                </div>
            }
            .into_any()
        }
    };
    let pack = &report.pack;
    let used = pack.tokens_used;
    let budget = pack.budget_tokens;
    let percent = if budget == 0 {
        0.0
    } else {
        100.0 * used as f64 / budget as f64
    };
    let included = pack.included().count();
    let missing = (!report.missing.is_empty()).then(|| {
        let text = report
            .missing
            .iter()
            .map(|m| format!("{} (rank {})", m.path, m.rank))
            .collect::<Vec<_>>()
            .join(", ");
        view! {
            <p class="notice" data-testid="context-missing">
                {format!("Not in the bundle, skipped: {text}")}
            </p>
        }
    });
    let blocks = pack
        .blocks
        .iter()
        .map(|block| {
            let gold = report.gold_in(&block.path, block.start_line, block.end_line);
            let gold_count: u64 = gold.iter().map(|&(s, e)| u64::from(e - s) + 1).sum();
            let status = match &block.skip_reason {
                None => "included".to_string(),
                Some(reason) => format!("skipped: {reason}"),
            };
            let lines = gold_lines_view(&packed.texts, &block.path, &gold);
            let class = if block.included {
                "block included"
            } else {
                "block skipped"
            };
            view! {
                <li
                    class=class
                    data-testid="context-block"
                    data-path=block.path.clone()
                    data-start=block.start_line.to_string()
                    data-end=block.end_line.to_string()
                    data-tokens=block.tokens.to_string()
                    data-included=block.included.to_string()
                    data-gold=gold_count.to_string()
                >
                    <span class="block-path">{block.path.clone()}</span>
                    " "
                    <span class="muted">
                        {format!(
                            "lines {}–{} · score {} · {} tokens",
                            block.start_line,
                            block.end_line,
                            block.score,
                            thousands(block.tokens),
                        )}
                    </span>
                    " "
                    <span class="block-status" data-testid="context-block-status">{status}</span>
                    {(gold_count > 0).then(|| view! {
                        <span class="gold-count">{format!(" · {gold_count} gold lines: {}", ranges_text(&gold))}</span>
                    })}
                    {lines}
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="pack" data-testid="context-pack" data-arm=packed.arm.clone()>
            <h3>{packed.arm.clone()}</h3>
            <div
                class="budget-bar"
                data-testid="context-budget"
                data-used=used.to_string()
                data-budget=budget.to_string()
                title=format!("{percent:.1}% of the budget")
            >
                <div class="budget-fill" style=format!("width: {:.2}%", percent.min(100.0))></div>
                <span class="budget-text">
                    {format!("{} / {} tokens", thousands(used), thousands(budget))}
                </span>
            </div>
            <p class="muted">
                {format!(
                    "{} files, {} blocks, {included} included · ",
                    report.files.len(),
                    pack.blocks.len(),
                )}
                <span data-testid="context-ms">{format!("select + pack {ms:.1} ms")}</span>
            </p>
            {recall_view(report)}
            {missing}
            <ol class="blocks">{blocks}</ol>
        </div>
    }
    .into_any()
}

/// A block's gold lines with their numbers, each a `<mark>`.
fn gold_lines_view(
    texts: &BTreeMap<String, String>,
    path: &str,
    gold: &[(u32, u32)],
) -> Option<AnyView> {
    if gold.is_empty() {
        return None;
    }
    let text = texts.get(path)?;
    let lines: Vec<&str> = split_lines(text).collect();
    let mut shown = 0usize;
    let mut total = 0usize;
    let mut marks = Vec::new();
    for &(start, end) in gold {
        for number in start..=end {
            total += 1;
            if shown == MAX_GOLD_LINES_SHOWN {
                continue;
            }
            let Some(line) = lines.get(number as usize - 1) else {
                continue;
            };
            shown += 1;
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            marks.push(view! {
                <mark class="gold-line" data-testid="context-gold-line" data-line=number.to_string()>
                    {format!("{number:05}: {line}")}
                </mark>
            });
        }
    }
    let more = (total > shown).then(|| format!("… and {} more gold lines", total - shown));
    Some(
        view! {
            <pre class="gold-lines" tabindex="0">{marks}</pre>
            {more}
        }
        .into_any(),
    )
}

/// Two arms' delivered and missed gold lines, file by file.
fn compare_view(packs: &[Packed]) -> AnyView {
    let columns = packs
        .iter()
        .map(|packed| {
            let body = match &packed.result {
                Err(err) => view! { <p class="error">{err.clone()}</p> }.into_any(),
                Ok((report, _)) => {
                    let recall = report.score.as_ref().map_or_else(
                        || "no gold lines".to_string(),
                        |s| {
                            format!(
                                "{}/{} gold lines delivered ({:.3})",
                                s.delivered_gold_lines, s.gold_lines, s.line_recall
                            )
                        },
                    );
                    let files = report
                        .gold_delivery()
                        .into_iter()
                        .map(delivery_view)
                        .collect_view();
                    view! {
                        <p data-testid="context-compare-recall">{recall}</p>
                        <ul>{files}</ul>
                    }
                    .into_any()
                }
            };
            view! {
                <div class="compare-col" data-testid="context-compare-col" data-arm=packed.arm.clone()>
                    <h4>{packed.arm.clone()}</h4>
                    {body}
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="compare" data-testid="context-compare">
            <h3>"Delivered gold lines, side by side"</h3>
            <div class="compare-cols">{columns}</div>
        </div>
    }
    .into_any()
}

fn delivery_view(file: GoldDelivery) -> impl IntoView {
    let delivered = (!file.delivered.is_empty()).then(|| {
        view! {
            <span class="delivered" data-testid="context-delivered-range">
                {format!("delivered {}", ranges_text(&file.delivered))}
            </span>
        }
    });
    let missed = (!file.missed.is_empty()).then(|| {
        view! {
            <span class="missed" data-testid="context-missed-range">
                {format!("missed {}", ranges_text(&file.missed))}
            </span>
        }
    });
    view! {
        <li data-testid="context-compare-file" data-path=file.path.clone()>
            <span class="block-path">{file.path.clone()}</span>
            " "
            {delivered}
            " "
            {missed}
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(16_000), "16,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(ranges_text(&[(1, 1), (3, 9)]), "1, 3–9");
    }
}
