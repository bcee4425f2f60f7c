//! Menus: what the model is shown at a directory, and how a menu too big for one call is split.
//!
//! A directory's children become options, directories first and then files, each group sorted
//! by name (the order [`DirTree`] keeps). The texts are name-only, as in the paper:
//!
//! - a file: `<path>: - [<name>](<name>)`
//! - a directory: `<path>: - [<name>/](<name>/); subtopics: <names>`, where the names are up to
//!   12 descendant names collected breadth-first from at most three levels below it: directory
//!   names and file names without their extension, `-` read as a space. As in the paper's code,
//!   names are not deduplicated: a folder holding `v6/meta.json` and `v7/meta.json` lists
//!   `v6, v7, meta, meta`.
//!
//! Each option is cut to 800 characters. A menu is split into consecutive parts, each one call,
//! when it has more than 254 options or when the state plus its option texts would pass 48,000
//! characters; each part gets its own `none_of_these`.

use std::collections::VecDeque;
use std::ops::Range;

use super::protocol::{option_key, Criteria, Question, Request, NONE_KEY, ROUTE_QUESTION};
use super::settings::RouteSettings;
use crate::corpus::bundle::DirTree;
use crate::stable_sort::Sorted;
use crate::terms::first_chars;

/// One option of a menu: a child of the directory being routed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MenuOption {
    /// The child's path from the bundle root.
    pub path: String,
    /// Whether the child is a directory.
    pub is_dir: bool,
    /// The criterion text the model reads.
    pub text: String,
}

/// The option text of a file.
pub fn file_text(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    format!("{path}: - [{name}]({name})")
}

/// The option text of a directory, with its subtopics.
pub fn dir_text(dir: &DirTree, settings: &RouteSettings) -> String {
    let names = subtopics(dir, settings.subtopic_names, settings.subtopic_depth);
    let name = &dir.name;
    let mut text = format!("{}: - [{name}/]({name}/)", dir.path);
    if !names.is_empty() {
        text.push_str("; subtopics: ");
        text.push_str(&names.join(", "));
    }
    text
}

/// Up to `max` descendant names of `dir`, breadth-first, from at most `depth` levels below it.
pub fn subtopics(dir: &DirTree, max: usize, depth: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut queue: VecDeque<(&DirTree, usize)> = VecDeque::from([(dir, 0)]);
    let add = |name: String, names: &mut Vec<String>| {
        if names.len() < max {
            names.push(name);
        }
    };
    while let Some((node, level)) = queue.pop_front() {
        if level >= depth || names.len() >= max {
            break;
        }
        for sub in &node.dirs {
            add(sub.name.replace('-', " "), &mut names);
            queue.push_back((sub, level + 1));
        }
        for file in &node.files {
            add(stem(file).replace('-', " "), &mut names);
        }
    }
    names
}

/// A file name without its extension (`a.tar.gz` → `a.tar`; `.env` stays `.env`).
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// The options at a directory: sub-directories, then files, each cut to the option limit.
pub fn directory_options(dir: &DirTree, settings: &RouteSettings) -> Vec<MenuOption> {
    let cut = |text: String| first_chars(&text, settings.max_option_chars).to_string();
    let dirs = dir.dirs.iter().map(|sub| MenuOption {
        path: sub.path.clone(),
        is_dir: true,
        text: cut(dir_text(sub, settings)),
    });
    let files = dir.files.iter().map(|name| {
        let path = join(&dir.path, name);
        MenuOption {
            text: cut(file_text(&path)),
            path,
            is_dir: false,
        }
    });
    dirs.chain(files).collect()
}

/// `parent/name`, or `name` at the root.
pub fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

/// Splits options into consecutive parts, one call each: a part ends before it would hold more
/// than `max_menu_options` options or before the state plus its texts would pass
/// `max_menu_chars` characters. Every part holds at least one option.
pub fn split_menu(
    state_chars: usize,
    options: &[MenuOption],
    settings: &RouteSettings,
) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut chars = state_chars;
    for (i, option) in options.iter().enumerate() {
        let len = option.text.chars().count();
        let full = i - start >= settings.max_menu_options;
        let too_long = chars + len > settings.max_menu_chars;
        if i > start && (full || too_long) {
            parts.push(start..i);
            start = i;
            chars = state_chars;
        }
        chars += len;
    }
    if start < options.len() {
        parts.push(start..options.len());
    }
    parts
}

/// The choice request for one menu part: `option_0` … in order, then `none_of_these`.
pub fn choice_request(
    state: &str,
    instructions: &str,
    options: &[MenuOption],
    settings: &RouteSettings,
) -> Request {
    let mut criteria: Vec<(String, String)> = options
        .iter()
        .enumerate()
        .map(|(i, option)| (option_key(i), option.text.clone()))
        .collect();
    criteria.push((NONE_KEY.to_string(), settings.none_of_these.clone()));
    Request {
        state: state.into(),
        model: settings.model.clone(),
        questions: [(
            ROUTE_QUESTION.to_string(),
            Question::Choice {
                instructions: instructions.to_string(),
                criteria: Criteria(criteria),
            },
        )]
        .into_iter()
        .sorted_map(),
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn option_texts_are_name_only() {
        let tree = DirTree::from_paths(&[
            "src/parser/json-value.rs",
            "src/parser/mod.rs",
            "src/lib.rs",
            "src/a/b/c/deep.rs",
            "src/a/b/c/d/too-deep.rs",
            "README.md",
        ]);
        let options = directory_options(&tree, &RouteSettings::default());
        assert_eq!(
            options,
            [
                MenuOption {
                    path: "src".into(),
                    is_dir: true,
                    text: "src: - [src/](src/); subtopics: a, parser, lib, b, json value, mod, c"
                        .into()
                },
                MenuOption {
                    path: "README.md".into(),
                    is_dir: false,
                    text: "README.md: - [README.md](README.md)".into()
                },
            ]
        );
        let src = tree.find("src").unwrap();
        let options = directory_options(src, &RouteSettings::default());
        assert_eq!(
            options[0].text,
            "src/a: - [a/](a/); subtopics: b, c, d, deep"
        );
        assert_eq!(options[2].text, "src/lib.rs: - [lib.rs](lib.rs)");
        assert_eq!(
            options.iter().map(|o| o.path.as_str()).collect::<Vec<_>>(),
            ["src/a", "src/parser", "src/lib.rs"]
        );
    }

    #[test]
    fn subtopics_keep_repeated_names_like_the_paper() {
        let tree = DirTree::from_paths(&[
            "data/index_v6/meta.json",
            "data/index_v7/meta.json",
            "data/index_v7/sub-dir/meta.json",
        ]);
        let names = subtopics(tree.find("data").unwrap(), 12, 3);
        assert_eq!(
            names,
            ["index_v6", "index_v7", "meta", "sub dir", "meta", "meta"]
        );
        let options = directory_options(&tree, &RouteSettings::default());
        assert_eq!(
            options[0].text,
            "data: - [data/](data/); subtopics: index_v6, index_v7, meta, sub dir, meta, meta"
        );
    }

    #[test]
    fn subtopics_stop_at_twelve() {
        let paths: Vec<String> = (0..20).map(|i| format!("d/f{i:02}.rs")).collect();
        let mut paths = paths;
        paths.push("d/x/f00.py".into());
        let tree = DirTree::from_paths(&paths);
        let names = subtopics(tree.find("d").unwrap(), 12, 3);
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], "x");
        assert_eq!(names[1], "f00");
        assert_eq!(names[11], "f10");
        assert_eq!(stem(".env"), ".env");
        assert_eq!(stem("a.tar.gz"), "a.tar");
    }

    #[test]
    fn options_are_cut_to_800_characters() {
        let long = format!("{}.rs", "é".repeat(900));
        let tree = DirTree::from_paths(&[long.as_str(), "b.rs"]);
        let options = directory_options(&tree, &RouteSettings::default());
        assert_eq!(options[0].text, "b.rs: - [b.rs](b.rs)");
        assert_eq!(options[1].text.chars().count(), 800);
        assert!(options[1].text.starts_with("ééé"));
    }

    fn options(n: usize, chars: usize) -> Vec<MenuOption> {
        (0..n)
            .map(|i| MenuOption {
                path: format!("f{i}"),
                is_dir: false,
                text: "x".repeat(chars),
            })
            .collect()
    }

    #[test]
    fn splits_past_254_options() {
        let settings = RouteSettings::default();
        assert_eq!(split_menu(100, &options(254, 10), &settings), vec![0..254]);
        assert_eq!(
            split_menu(100, &options(255, 10), &settings),
            [0..254, 254..255]
        );
        assert_eq!(
            split_menu(100, &options(600, 10), &settings),
            [0..254, 254..508, 508..600]
        );
        assert!(split_menu(100, &[], &settings).is_empty());
    }

    #[test]
    fn splits_before_48000_characters() {
        let settings = RouteSettings::default();
        // 515 state characters + 59 options of 800 = 47,715; a 60th would pass 48,000.
        assert_eq!(
            split_menu(515, &options(60, 800), &settings),
            [0..59, 59..60]
        );
        // Exactly 48,000 fits.
        assert_eq!(split_menu(0, &options(60, 800), &settings), vec![0..60]);
        assert_eq!(split_menu(1, &options(60, 800), &settings), [0..59, 59..60]);
    }

    #[test]
    fn requests_end_with_none_of_these() {
        let settings = RouteSettings::default();
        let request = choice_request("User question: q", "pick", &options(2, 3), &settings);
        let Question::Choice { criteria, .. } = &request.questions["route"] else {
            panic!("choice expected")
        };
        assert_eq!(
            criteria.keys().collect::<Vec<_>>(),
            ["option_0", "option_1", "none_of_these"]
        );
        assert_eq!(
            criteria.get("none_of_these"),
            Some("None contains direct answer evidence")
        );
        assert_eq!(request.chars(), "User question: q".len() + 6 + 36);
    }
}
