//! Plain-text rendering of the engine's tables for a terminal: numbers right-aligned so that their
//! digits line up, text left-aligned, two spaces between columns, no trailing spaces (so the output
//! diffs cleanly in tests).

use routelens_engine::{Cell, Table};

/// The table as aligned text: the title, the header, a rule, then the rows.
pub fn text_table(table: &Table) -> String {
    let columns = table.headers.len();
    let width = |text: &str| text.chars().count();
    let mut widths: Vec<usize> = table.headers.iter().map(|h| width(h)).collect();
    // A column is numeric when every cell in it carries a number (missing values are dashes).
    let mut numeric = vec![!table.rows.is_empty(); columns];
    for row in &table.rows {
        for (column, cell) in row.iter().enumerate().take(columns) {
            widths[column] = widths[column].max(width(&cell.text));
            numeric[column] &= cell.value.is_some() || cell.text == "–";
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(column, text)| {
                let pad = " ".repeat(widths[column].saturating_sub(width(text)));
                if numeric[column] {
                    format!("{pad}{text}")
                } else {
                    format!("{text}{pad}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = vec![table.title.clone()];
    out.push(line(table.headers.iter().map(String::as_str).collect()));
    out.push(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    for row in &table.rows {
        out.push(line(row.iter().map(|cell| cell.text.as_str()).collect()));
    }
    out.join("\n") + "\n"
}

/// A score with four decimals, or in scientific notation when that would show only zeros (FTS5's
/// idf floor of 1e-6 makes such scores for terms in most files).
pub fn score_cell(score: f64) -> Cell {
    if score != 0.0 && score.abs() < 0.0005 {
        Cell {
            text: format!("{score:.2e}"),
            value: Some(score),
            interval: None,
        }
    } else {
        Cell::number(score, 4)
    }
}

/// A question on one line, cut at 100 characters.
pub fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", &flat[..end]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use routelens_engine::Cell;

    #[test]
    fn aligns_numbers_right_and_text_left() {
        let mut table = Table::new("T", &["arm", "File@8"]);
        table
            .rows
            .push(vec![Cell::text("tree"), Cell::number(0.5, 3)]);
        table
            .rows
            .push(vec![Cell::text("tree+fts5"), Cell::number(10.25, 3)]);
        table.rows.push(vec![Cell::text("x"), Cell::missing()]);
        assert_eq!(
            text_table(&table),
            "T\n\
             arm        File@8\n\
             ---------  ------\n\
             tree        0.500\n\
             tree+fts5  10.250\n\
             x               –\n"
        );
    }

    #[test]
    fn an_empty_table_is_its_header() {
        let table = Table::new("Empty", &["a", "bb"]);
        assert_eq!(text_table(&table), "Empty\na  bb\n-  --\n");
    }

    #[test]
    fn tiny_scores_keep_their_digits() {
        assert_eq!(score_cell(3.87470477).text, "3.8747");
        assert_eq!(score_cell(1.5245769e-6).text, "1.52e-6");
        assert_eq!(score_cell(0.0).text, "0.0000");
    }

    #[test]
    fn long_questions_are_cut_on_one_line() {
        assert_eq!(one_line("a\n  b"), "a b");
        let long = "x".repeat(150);
        assert_eq!(one_line(&long).chars().count(), 101);
    }
}
