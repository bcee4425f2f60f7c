//! What the Context view's parts share: the issue shown and each packed arm. A leaf: it imports
//! no sibling.

use std::collections::BTreeMap;
use std::rc::Rc;

use routelens_engine::delivery::context::ContextReport;
use routelens_engine::GoldSpan;

/// One packed arm: its name and report, or why it could not be packed.
#[derive(Clone)]
pub(super) struct Packed {
    /// The arm.
    pub(super) arm: String,
    /// The report and the select + pack time in ms.
    pub(super) result: Result<(Rc<ContextReport>, f64), String>,
    /// The texts of the files the report names (from the worker, which holds the bundle's).
    pub(super) texts: Rc<BTreeMap<String, String>>,
}

/// The issue of the view: text and, for a question, its id and gold spans.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Issue {
    /// The question id, or `None` for typed text.
    pub(super) id: Option<String>,
    /// The issue text.
    pub(super) text: String,
    /// Gold line spans (empty: no line scores).
    pub(super) gold_lines: Vec<GoldSpan>,
}
