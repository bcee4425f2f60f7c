//! Plain-text rendering of the engine's tables for a terminal: numbers right-aligned so that their
//! digits line up, text left-aligned, two spaces between columns, no trailing spaces (so the output
//! diffs cleanly in tests).

use routelens_engine::Table;

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
}
