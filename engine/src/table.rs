//! A plain table of results: what the app renders and what CSV downloads contain. Numbers keep
//! full precision for CSV and a rounded form for display, so a downloaded table never loses digits.

/// One cell: display text, and the exact number behind it when there is one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cell {
    /// What a reader sees.
    pub text: String,
    /// The exact value, written to CSV in full.
    pub value: Option<f64>,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            value: None,
        }
    }

    /// A number shown with `decimals` digits after the point.
    pub fn number(value: f64, decimals: usize) -> Self {
        Cell {
            text: format!("{:.decimals$}", half_away(value, decimals)),
            value: Some(value),
        }
    }

    /// A signed number shown with `decimals` digits (`+0.113`, `-0.020`).
    pub fn signed(value: f64, decimals: usize) -> Self {
        Cell {
            text: format!("{:+.decimals$}", half_away(value, decimals)),
            value: Some(value),
        }
    }

    /// A whole number.
    pub fn count(value: usize) -> Self {
        Cell {
            text: value.to_string(),
            value: Some(value as f64),
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

    /// The table as CSV (RFC 4180): numbers at full precision, text as shown.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing to a Vec cannot fail; a failure here would be a bug in the csv crate.
        let write = |writer: &mut csv::Writer<Vec<u8>>, record: Vec<String>| {
            writer.write_record(record).expect("writing CSV to memory")
        };
        write(&mut writer, self.headers.clone());
        for row in &self.rows {
            let record = row
                .iter()
                .map(|cell| {
                    cell.value
                        .map_or_else(|| cell.text.clone(), |v| v.to_string())
                })
                .collect();
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
}
