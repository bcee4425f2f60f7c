//! A plain table of results: what the app renders and what CSV downloads contain. Numbers keep
//! full precision for CSV and a rounded form for display, so a downloaded table never loses digits.

/// One cell: display text, and the exact number behind it when there is one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cell {
    /// What a reader sees.
    pub text: String,
    /// The exact value, written to CSV in full.
    pub value: Option<f64>,
    /// The value's 95% interval (low, high), when it is an estimate; CSV gives it two columns
    /// of its own after the value's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<(f64, f64)>,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            value: None,
            interval: None,
        }
    }

    /// A number shown with `decimals` digits after the point (a value that rounds to zero
    /// shows no sign: `0.000`, never `-0.000`).
    pub fn number(value: f64, decimals: usize) -> Self {
        Cell {
            text: format!(
                "{:.decimals$}",
                unsigned_zero(half_away(value, decimals), decimals)
            ),
            value: Some(value),
            interval: None,
        }
    }

    /// A signed number shown with `decimals` digits (`+0.113`, `-0.020`; `0.000` for one that
    /// rounds to zero).
    pub fn signed(value: f64, decimals: usize) -> Self {
        let rounded = unsigned_zero(half_away(value, decimals), decimals);
        let text = if rounded == 0.0 {
            format!("{rounded:.decimals$}")
        } else {
            format!("{rounded:+.decimals$}")
        };
        Cell {
            text,
            value: Some(value),
            interval: None,
        }
    }

    /// A p-value: four decimals, or `< 0.0001` below that (never `0.0000`, which would claim
    /// certainty no test gives).
    pub fn p_value(p: f64) -> Self {
        Cell {
            text: if p < 0.00005 {
                "< 0.0001".into()
            } else {
                format!("{p:.4}")
            },
            value: Some(p),
            interval: None,
        }
    }

    /// A whole number.
    pub fn count(value: usize) -> Self {
        Cell {
            text: value.to_string(),
            value: Some(value as f64),
            interval: None,
        }
    }

    /// An estimate with its 95% interval, shown as `0.465 [0.398, 0.532]`.
    pub fn estimate(mean: f64, low: f64, high: f64, decimals: usize) -> Self {
        let shown = |v: f64| {
            format!(
                "{:.decimals$}",
                unsigned_zero(half_away(v, decimals), decimals)
            )
        };
        Cell {
            text: format!("{} [{}, {}]", shown(mean), shown(low), shown(high)),
            value: Some(mean),
            interval: Some((low, high)),
        }
    }

    /// A missing value, shown as an en dash.
    pub fn missing() -> Self {
        Cell::text("–")
    }
}

/// A titled table with a header row.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Table {
    /// A short title; also the CSV file's stem.
    pub title: String,
    /// Column names.
    pub headers: Vec<String>,
    /// Rows of cells, each as long as the header.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these headers.
    pub fn new(title: &str, headers: &[&str]) -> Self {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// The table as CSV (RFC 4180): numbers at full precision, text as shown. A column with
    /// intervals is followed by its `… 95% low` and `… 95% high` columns.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing to a Vec cannot fail; a failure here would be a bug in the csv crate.
        let write = |writer: &mut csv::Writer<Vec<u8>>, record: Vec<String>| {
            writer.write_record(record).expect("writing CSV to memory")
        };
        let estimated: Vec<bool> = (0..self.headers.len())
            .map(|at| {
                self.rows
                    .iter()
                    .any(|row| row.get(at).is_some_and(|c| c.interval.is_some()))
            })
            .collect();
        let mut headers = Vec::new();
        for (header, &estimate) in self.headers.iter().zip(&estimated) {
            headers.push(header.clone());
            if estimate {
                headers.extend([format!("{header} 95% low"), format!("{header} 95% high")]);
            }
        }
        write(&mut writer, headers);
        for row in &self.rows {
            let mut record = Vec::new();
            for (cell, &estimate) in row.iter().zip(&estimated) {
                record.push(
                    cell.value
                        .map_or_else(|| cell.text.clone(), |v| v.to_string()),
                );
                if estimate {
                    let (low, high) = cell
                        .interval
                        .map_or((String::new(), String::new()), |(l, h)| {
                            (l.to_string(), h.to_string())
                        });
                    record.extend([low, high]);
                }
            }
            write(&mut writer, record);
        }
        String::from_utf8(writer.into_inner().expect("flushing CSV to memory"))
            .expect("CSV of UTF-8 cells is UTF-8")
    }

    /// A file name for the CSV download: the title in lower case with hyphens.
    pub fn csv_file_name(&self) -> String {
        let stem: String = self
            .title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        let stem = stem
            .split('-')
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        format!("{stem}.csv")
    }
}

/// `value` moved to the nearest `decimals`-digit number when it lies exactly halfway, away from
/// zero, as the papers' tables round (fastindex's Table 7 prints VS Code's 1/8 as 0.13, where
/// Rust's formatting, like Python's, rounds an exact half to even: 0.12). Every other value is
/// left to the formatter, which rounds it correctly.
/// `value`, or plain zero when it shows as zero at `decimals` digits (so no `-0.000`).
fn unsigned_zero(value: f64, decimals: usize) -> f64 {
    let scale = 10f64.powi(decimals.min(17) as i32);
    if (value * scale).round() == 0.0 {
        0.0
    } else {
        value
    }
}

fn half_away(value: f64, decimals: usize) -> f64 {
    let scale = 10f64.powi(decimals.min(17) as i32);
    let scaled = value * scale;
    if scaled.is_finite() && (scaled - scaled.trunc()).abs() == 0.5 {
        scaled.round() / scale
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_shows_no_sign_and_p_values_never_show_zero() {
        assert_eq!(Cell::number(-0.00004, 3).text, "0.000");
        assert_eq!(Cell::signed(-0.00004, 3).text, "0.000");
        assert_eq!(Cell::signed(0.0, 3).text, "0.000");
        assert_eq!(Cell::signed(-0.0006, 3).text, "-0.001");
        assert_eq!(Cell::signed(0.0006, 3).text, "+0.001");
        assert_eq!(
            Cell::estimate(-0.0001, -0.02, 0.0, 3).text,
            "0.000 [-0.020, 0.000]"
        );
        assert_eq!(Cell::p_value(0.00001).text, "< 0.0001");
        assert_eq!(Cell::p_value(0.00001).value, Some(0.00001));
        assert_eq!(Cell::p_value(0.0001).text, "0.0001");
        assert_eq!(Cell::p_value(0.0312).text, "0.0312");
    }

    #[test]
    fn exact_halves_round_away_from_zero_like_the_papers() {
        assert_eq!(Cell::number(0.125, 2).text, "0.13");
        assert_eq!(Cell::number(-0.125, 2).text, "-0.13");
        assert_eq!(Cell::signed(0.0625, 3).text, "+0.063");
        assert_eq!(Cell::number(0.1249, 2).text, "0.12");
        assert_eq!(Cell::number(0.352, 3).text, "0.352");
        assert_eq!(Cell::number(2.5, 0).text, "3");
    }

    #[test]
    fn csv_keeps_full_precision_and_quotes_text() {
        let mut table = Table::new("Table 2: file recall", &["arm", "File@8"]);
        table
            .rows
            .push(vec![Cell::text("tree, wide"), Cell::number(1.0 / 3.0, 3)]);
        assert_eq!(table.rows[0][1].text, "0.333");
        assert_eq!(
            table.to_csv(),
            "arm,File@8\n\"tree, wide\",0.3333333333333333\n"
        );
        assert_eq!(table.csv_file_name(), "table-2-file-recall.csv");
    }

    #[test]
    fn an_estimate_shows_its_interval_and_csv_gives_it_two_columns() {
        let mut table = Table::new("metrics", &["arm", "mrr"]);
        table
            .rows
            .push(vec![Cell::text("tree"), Cell::estimate(0.5, 0.25, 0.75, 3)]);
        table.rows.push(vec![Cell::text("rg"), Cell::missing()]);
        assert_eq!(table.rows[0][1].text, "0.500 [0.250, 0.750]");
        assert_eq!(
            table.to_csv(),
            "arm,mrr,mrr 95% low,mrr 95% high\ntree,0.5,0.25,0.75\nrg,–,,\n"
        );
    }
}
