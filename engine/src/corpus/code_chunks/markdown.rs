//! A Markdown file's outline: a unit per heading, nested by level, named by its heading path
//! (`Guide > Install`); text before the first heading is a unit of its own. Headings are read
//! with pulldown-cmark, so a `#` line inside a fenced code block is not one.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::chunk::{Outline, Unit};

/// The outline of a Markdown text.
pub(super) fn outline(text: &str) -> Outline {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(at, _)| at + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&start| start <= offset) - 1;
    let mut outline = Outline {
        units: Vec::new(),
        parents: vec![0],
    };
    // Open headings: (level, container, heading path).
    let mut open: Vec<(u8, usize, String)> = Vec::new();
    let mut heading: Option<(usize, u8, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((line_of(range.start), level as u8, String::new()));
            }
            Event::Text(part) | Event::Code(part) => {
                if let Some((_, _, title)) = heading.as_mut() {
                    title.push_str(&part);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let Some((line, level, title)) = heading.take() else {
                    continue;
                };
                while open.last().is_some_and(|(l, ..)| *l >= level) {
                    open.pop();
                }
                let (group, path) = match open.last() {
                    Some((_, id, path)) => (*id, format!("{path} > {}", title.trim())),
                    None => (0, title.trim().to_string()),
                };
                let id = outline.parents.len();
                outline.parents.push(group);
                if outline.units.is_empty() && line > 0 {
                    outline.units.push(preamble());
                }
                outline.units.push(Unit {
                    start: line,
                    kind: "section",
                    name: path.clone(),
                    group,
                    opens: Some(id),
                });
                open.push((level, id, path));
            }
            _ => {}
        }
    }
    if outline.units.is_empty() {
        outline.units.push(preamble());
    }
    outline
}

/// The unnamed section of the text before the first heading (or of a text with none).
fn preamble() -> Unit {
    Unit {
        start: 0,
        kind: "section",
        name: String::new(),
        group: 0,
        opens: None,
    }
}
