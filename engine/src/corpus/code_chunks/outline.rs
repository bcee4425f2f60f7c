//! A source file's outline from its tree-sitter parse: the units a structural chunk starts at,
//! walked level by level with the grammar's node-kind table ([`super::language`]).
//!
//! At a level (the file, a namespace, a class body) each named child is one of: a comment or
//! attribute (held until the next node, which it then starts with); a definition (a unit; a
//! container's header unit, then its members one level down); or other code. Consecutive other
//! code at the file or namespace level is one unit, `imports` for a run of imports and `module`
//! for the rest; inside a class, code before the first member definition is the header's, and
//! code after a member (a field between methods) starts a unit of the class's own kind and name.

use tree_sitter::{Node, Parser};

use super::chunk::{Outline, Unit};
use super::language::{Kinds, SourceLanguage};

/// The outline of `text` in `language`, or where its parse has a syntax error.
pub(super) fn outline(language: SourceLanguage, text: &str) -> Result<Outline, String> {
    let grammar = language
        .grammar()
        .ok_or_else(|| "no tree-sitter grammar".to_string())?;
    let mut parser = Parser::new();
    parser
        .set_language(&grammar.language)
        .map_err(|e| format!("grammar not loadable: {e}"))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| "the parser gave no tree".to_string())?;
    let root = tree.root_node();
    if root.has_error() {
        let row = first_error(root).map_or(0, |n| n.start_position().row);
        return Err(format!("syntax error at line {}", row + 1));
    }
    let mut walker = Walker {
        src: text.as_bytes(),
        kinds: grammar.kinds,
        outline: Outline {
            units: Vec::new(),
            parents: vec![0],
        },
    };
    walker.level(&children(root), 0, "", None);
    let mut outline = walker.outline;
    // Units start strictly later than the one before (two on one line: the first keeps it),
    // and the first starts at the file's first line, so every line is in one unit.
    let mut last = None;
    outline.units.retain(|unit| {
        let keep = last.is_none_or(|l| unit.start > l);
        if keep {
            last = Some(unit.start);
        }
        keep
    });
    match outline.units.first_mut() {
        Some(first) => first.start = 0,
        None => outline.units.push(Unit {
            start: 0,
            kind: "module",
            name: String::new(),
            group: 0,
            opens: None,
        }),
    }
    Ok(outline)
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let found = node
        .children(&mut cursor)
        .filter(|child| child.has_error() || child.is_missing())
        .find_map(first_error);
    found
}

fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// A definition found at a level.
struct Definition<'t> {
    kind: &'static str,
    name: String,
    /// A container's members and whether they are a class's (fields stay with it) or a
    /// namespace's (their own code runs).
    body: Option<(Node<'t>, bool)>,
}

/// A class body's owner, for the units its fields start.
#[derive(Clone)]
struct Owner {
    kind: &'static str,
    name: String,
}

struct Walker<'s> {
    src: &'s [u8],
    kinds: &'static Kinds,
    outline: Outline,
}

impl Walker<'_> {
    fn text(&self, node: Node) -> String {
        node.utf8_text(self.src).unwrap_or_default().to_string()
    }

    fn push(&mut self, start: usize, kind: &'static str, name: String, group: usize) {
        self.outline.units.push(Unit {
            start,
            kind,
            name,
            group,
            opens: None,
        });
    }

    /// Walks one level's nodes into units of container `group`, names qualified by `scope`;
    /// `owner` is set inside a class body.
    fn level(&mut self, nodes: &[Node], group: usize, scope: &str, owner: Option<Owner>) {
        // Start line of comments waiting for the next node.
        let mut held: Option<usize> = None;
        // The kind of the open run of other code, if any.
        let mut run: Option<&'static str> = None;
        // Whether a member definition came before, inside a class.
        let mut after_member = false;
        // The last row of the previous node that is not a comment.
        let mut previous_end: Option<usize> = None;
        for &node in nodes {
            let kind = node.kind();
            let row = node.start_position().row;
            if self.kinds.attached.contains(&kind) {
                // A comment on the row where the code before it ends trails that code
                // (`limit = 2 ** 16  # 64 KiB`); only a comment on a row of its own is held for
                // the next node. Held, a trailing comment pulled the next definition's start up
                // onto the code's row: a function swallowed into the module code before it, a
                // class field into the method below it.
                if previous_end != Some(row) {
                    held.get_or_insert(row);
                }
                continue;
            }
            previous_end = Some(node.end_position().row);
            if self.kinds.transparent.contains(&kind) {
                let start = held.take().unwrap_or(row);
                if owner.is_none() && run != Some("module") {
                    self.push(start, "module", String::new(), group);
                }
                let inner: Vec<Node> = children(node)
                    .into_iter()
                    .filter(|c| !matches!(c.kind(), "identifier" | "preproc_arg"))
                    .filter(|c| c.start_position().row > row || c.kind().ends_with("list"))
                    .flat_map(|c| {
                        if c.kind() == "declaration_list" {
                            children(c)
                        } else {
                            vec![c]
                        }
                    })
                    .collect();
                self.level(&inner, group, scope, owner.clone());
                run = None;
                continue;
            }
            if let Some(definition) = self.definition(node, owner.is_some()) {
                let start = held.take().unwrap_or(row);
                run = None;
                after_member = owner.is_some();
                let name = qualify(scope, &definition.name);
                match definition.body {
                    None => self.push(start, definition.kind, name, group),
                    Some((body, class_like)) => {
                        let id = self.outline.parents.len();
                        self.outline.parents.push(group);
                        self.outline.units.push(Unit {
                            start,
                            kind: definition.kind,
                            name: name.clone(),
                            group,
                            opens: Some(id),
                        });
                        let members = children(body);
                        let owner = class_like.then(|| Owner {
                            kind: definition.kind,
                            name: name.clone(),
                        });
                        self.level(&members, id, &name, owner);
                    }
                }
                continue;
            }
            // Other code.
            let start = held.take().unwrap_or(row);
            match &owner {
                Some(owner) => {
                    if after_member && run.is_none() {
                        self.push(start, owner.kind, owner.name.clone(), group);
                        run = Some(owner.kind);
                    }
                }
                None => {
                    let this = if self.kinds.imports.contains(&kind) {
                        "imports"
                    } else {
                        "module"
                    };
                    if run != Some(this) {
                        self.push(start, this, String::new(), group);
                        run = Some(this);
                    }
                }
            }
        }
    }

    /// What `node` defines, if it is a definition; `member` inside a class body.
    fn definition<'t>(&self, node: Node<'t>, member: bool) -> Option<Definition<'t>> {
        let kinds = self.kinds;
        let kind = node.kind();
        if kinds.wrappers.contains(&kind) {
            let inner = node
                .child_by_field_name("definition")
                .or_else(|| node.child_by_field_name("declaration"))
                .or_else(|| {
                    children(node)
                        .into_iter()
                        .rev()
                        .find(|c| !c.kind().contains("parameter"))
                })?;
            return self.definition(inner, member);
        }
        let function = if member { "method" } else { "function" };
        if kinds.functions.contains(&kind) {
            // A Go method is declared at file level, with its receiver.
            let receiver = node.child_by_field_name("receiver").is_some();
            return Some(Definition {
                kind: if receiver { "method" } else { function },
                name: self.function_name(node),
                body: None,
            });
        }
        if kinds.bound_functions.contains(&kind) {
            let declarator = children(node)
                .into_iter()
                .find(|c| c.kind() == "variable_declarator")?;
            let value = declarator.child_by_field_name("value")?;
            return matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            )
            .then(|| Definition {
                kind: function,
                name: declarator
                    .child_by_field_name("name")
                    .map(|n| self.text(n))
                    .unwrap_or_default(),
                body: None,
            });
        }
        if let Some(&(_, chunk_kind, field)) = kinds.containers.iter().find(|c| c.0 == kind) {
            let body = node.child_by_field_name(field)?;
            let name = match kind {
                "impl_item" => node
                    .child_by_field_name("type")
                    .map(|t| base_type(&self.text(t)))
                    .unwrap_or_default(),
                _ => self.field_text(node, "name"),
            };
            return Some(Definition {
                kind: chunk_kind,
                name,
                body: Some((body, chunk_kind != "namespace")),
            });
        }
        if let Some(&(_, chunk_kind)) = kinds.items.iter().find(|c| c.0 == kind) {
            let (chunk_kind, name) = match kind {
                "type_declaration" => self.go_type(node),
                _ => (chunk_kind, self.field_text(node, "name")),
            };
            return Some(Definition {
                kind: chunk_kind,
                name,
                body: None,
            });
        }
        None
    }

    fn field_text(&self, node: Node, field: &str) -> String {
        node.child_by_field_name(field)
            .map(|n| self.text(n))
            .unwrap_or_default()
    }

    /// A function's name: its `name` field; a Go method's `Receiver.name`; a C or C++
    /// function's innermost declarator (`Foo::bar` as `Foo.bar`).
    fn function_name(&self, node: Node) -> String {
        if let Some(receiver) = node.child_by_field_name("receiver") {
            let receiver = children(receiver)
                .into_iter()
                .find_map(|p| p.child_by_field_name("type"))
                .map(|t| base_type(&self.text(t)))
                .unwrap_or_default();
            return qualify(&receiver, &self.field_text(node, "name"));
        }
        if node.child_by_field_name("name").is_some() {
            return self.field_text(node, "name");
        }
        let mut declarator = node.child_by_field_name("declarator");
        while let Some(d) = declarator {
            match d.kind() {
                "identifier"
                | "field_identifier"
                | "qualified_identifier"
                | "destructor_name"
                | "operator_name"
                | "type_identifier"
                | "operator_cast" => {
                    return self.text(d).replace("::", ".");
                }
                _ => declarator = d.child_by_field_name("declarator"),
            }
        }
        String::new()
    }

    /// A Go type declaration's kind (`struct`, `interface` or `type`) and name.
    fn go_type(&self, node: Node) -> (&'static str, String) {
        let Some(spec) = children(node)
            .into_iter()
            .find(|c| matches!(c.kind(), "type_spec" | "type_alias"))
        else {
            return ("type", String::new());
        };
        let kind = match spec.child_by_field_name("type").map(|t| t.kind()) {
            Some("struct_type") => "struct",
            Some("interface_type") => "interface",
            _ => "type",
        };
        (kind, self.field_text(spec, "name"))
    }
}

/// `Foo<T>`, `*Foo`, `&'a mut Foo` as `Foo`.
fn base_type(text: &str) -> String {
    let text = text.split('<').next().unwrap_or(text);
    let text = text.split('[').next().unwrap_or(text);
    text.trim_start_matches(['*', '&'])
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string()
}

fn qualify(scope: &str, name: &str) -> String {
    match (scope.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (false, true) => scope.to_string(),
        (false, false) => format!("{scope}.{name}"),
    }
}
