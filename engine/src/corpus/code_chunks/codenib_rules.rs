//! CodeNib's definitions per language (depth 2, containers left out): what its chunker makes a
//! chunk of, from a tree-sitter parse. A container (class, struct, `impl`) contributes its
//! members, named `Container.member`, never itself; code between definitions is no definition.
//!
//! - Python: top-level functions (a decorated one from its first decorator) and the methods of
//!   top-level classes.
//! - Rust: `fn`, `const`, `static` and `type` items, and the functions of an `impl` (named by the
//!   implementing type, its generics dropped).
//! - Go: functions, methods (`Receiver.method`, the receiver's type), `var` and `const`
//!   declarations.
//! - JavaScript and TypeScript, both read with the TypeScript grammar as CodeNib reads them:
//!   functions, class methods, functions bound by `const`/`let`/`var` or by `exports.x =`,
//!   object literals and other initialised variables (an `export` unwrapped).
//! - Java: methods and constructors of every type, nested types recursed (`Outer.Inner.m`).
//! - C and C++: function definitions (an out-of-line `A::f` named `A.f`), the methods defined in
//!   a class or struct body, top-level declarations that are not prototypes, and `#define`s;
//!   namespaces, `extern "C"` blocks and preprocessor conditionals are walked through.
//!
//! Hand-written walks over node kinds rather than tree-sitter queries, as `language.rs` says why.

use crate::stable_sort;
use tree_sitter::{Node, Parser};

use super::language::SourceLanguage;

/// One definition: rows `start..=end` (0-based), its chunk kind and qualified name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Definition {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
    pub name: String,
}

/// The definitions of `text`, in line order (a file with syntax errors keeps those found).
pub(super) fn definitions(language: SourceLanguage, text: &str) -> Result<Vec<Definition>, String> {
    let grammar: tree_sitter::Language = match language {
        SourceLanguage::Python => tree_sitter_python::LANGUAGE.into(),
        SourceLanguage::Java => tree_sitter_java::LANGUAGE.into(),
        SourceLanguage::Rust => tree_sitter_rust::LANGUAGE.into(),
        SourceLanguage::Go => tree_sitter_go::LANGUAGE.into(),
        SourceLanguage::JavaScript | SourceLanguage::TypeScript | SourceLanguage::Tsx => {
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
        }
        SourceLanguage::C | SourceLanguage::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        SourceLanguage::Markdown => return Ok(Vec::new()),
    };
    let mut parser = Parser::new();
    parser
        .set_language(&grammar)
        .map_err(|e| format!("grammar not loadable: {e}"))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| "the parser gave no tree".to_string())?;
    let mut found = Found {
        src: text.as_bytes(),
        out: Vec::new(),
    };
    let root = tree.root_node();
    match language {
        SourceLanguage::Python => found.python(root),
        SourceLanguage::Rust => found.rust(root),
        SourceLanguage::Go => found.go(root),
        SourceLanguage::Java => found.java(root, ""),
        SourceLanguage::C | SourceLanguage::Cpp => found.c_family(root, true),
        _ => found.script(root),
    }
    let mut out = found.out;
    stable_sort::by_key(&mut out, |d| (d.start, d.end));
    out.dedup();
    Ok(out)
}

fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

struct Found<'s> {
    src: &'s [u8],
    out: Vec<Definition>,
}

impl Found<'_> {
    fn text(&self, node: Node) -> String {
        node.utf8_text(self.src).unwrap_or_default().to_string()
    }

    fn field_text(&self, node: Node, field: &str) -> Option<String> {
        node.child_by_field_name(field).map(|n| self.text(n))
    }

    /// Records `range`'s rows; a node ending at column 0 ends on the row before.
    fn push(&mut self, range: Node, kind: &'static str, name: String) {
        let start = range.start_position().row;
        let end_at = range.end_position();
        let end = if end_at.column == 0 && end_at.row > start {
            end_at.row - 1
        } else {
            end_at.row
        };
        if !name.is_empty() {
            self.out.push(Definition {
                start,
                end,
                kind,
                name,
            });
        }
    }

    fn python(&mut self, root: Node) {
        for node in named(root) {
            let (range, definition) = match node.kind() {
                "decorated_definition" => match node.child_by_field_name("definition") {
                    Some(inner) => (node, inner),
                    None => continue,
                },
                _ => (node, node),
            };
            match definition.kind() {
                "function_definition" => {
                    let name = self.field_text(definition, "name").unwrap_or_default();
                    self.push(range, "function", name);
                }
                "class_definition" => {
                    let class = self.field_text(definition, "name").unwrap_or_default();
                    let Some(body) = definition.child_by_field_name("body") else {
                        continue;
                    };
                    for member in named(body) {
                        let method = match member.kind() {
                            "decorated_definition" => member.child_by_field_name("definition"),
                            _ => Some(member),
                        };
                        if let Some(m) = method.filter(|m| m.kind() == "function_definition") {
                            let name = self.field_text(m, "name").unwrap_or_default();
                            self.push(member, "method", format!("{class}.{name}"));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn rust(&mut self, root: Node) {
        for node in named(root) {
            let item = |kind: &'static str| Some(kind);
            let kind = match node.kind() {
                "function_item" => item("function"),
                "const_item" => item("const"),
                "static_item" => item("static"),
                "type_item" => item("type"),
                _ => None,
            };
            if let Some(kind) = kind {
                let name = self.field_text(node, "name").unwrap_or_default();
                self.push(node, kind, name);
            } else if node.kind() == "impl_item" {
                let owner = self.field_text(node, "type").unwrap_or_default();
                let owner = owner
                    .split('<')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                let Some(body) = node.child_by_field_name("body") else {
                    continue;
                };
                for member in named(body)
                    .into_iter()
                    .filter(|m| m.kind() == "function_item")
                {
                    let name = self.field_text(member, "name").unwrap_or_default();
                    self.push(member, "method", format!("{owner}.{name}"));
                }
            }
        }
    }

    fn go(&mut self, root: Node) {
        for node in named(root) {
            match node.kind() {
                "function_declaration" => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    self.push(node, "function", name);
                }
                "method_declaration" => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    let receiver = node
                        .child_by_field_name("receiver")
                        .and_then(|r| first_of(r, &["type_identifier"]))
                        .map(|t| self.text(t))
                        .unwrap_or_default();
                    self.push(node, "method", format!("{receiver}.{name}"));
                }
                "var_declaration" | "const_declaration" => {
                    let kind = if node.kind() == "var_declaration" {
                        "var"
                    } else {
                        "const"
                    };
                    let names = spec_names(node)
                        .into_iter()
                        .map(|n| self.text(n))
                        .collect::<Vec<_>>();
                    self.push(node, kind, names.join(", "));
                }
                _ => {}
            }
        }
    }

    fn script(&mut self, root: Node) {
        for node in named(root) {
            let node = if node.kind() == "export_statement" {
                match node
                    .child_by_field_name("declaration")
                    .or_else(|| named(node).into_iter().next())
                {
                    Some(inner) => inner,
                    None => continue,
                }
            } else {
                node
            };
            match node.kind() {
                "function_declaration" | "generator_function_declaration" => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    self.push(node, "function", name);
                }
                "class_declaration" | "abstract_class_declaration" => {
                    let class = self.field_text(node, "name").unwrap_or_default();
                    let Some(body) = node.child_by_field_name("body") else {
                        continue;
                    };
                    for member in named(body)
                        .into_iter()
                        .filter(|m| m.kind() == "method_definition")
                    {
                        let name = self.field_text(member, "name").unwrap_or_default();
                        self.push(member, "method", format!("{class}.{name}"));
                    }
                }
                "lexical_declaration" | "variable_declaration" => {
                    for declarator in named(node)
                        .into_iter()
                        .filter(|d| d.kind() == "variable_declarator")
                    {
                        let Some(value) = declarator.child_by_field_name("value") else {
                            continue;
                        };
                        let name = declarator
                            .child_by_field_name("name")
                            .filter(|n| n.kind() == "identifier")
                            .map(|n| self.text(n))
                            .unwrap_or_default();
                        let kind = if is_function(value) {
                            "function"
                        } else if value.kind() == "object" {
                            "object"
                        } else {
                            "variable"
                        };
                        self.push(node, kind, name);
                    }
                }
                "expression_statement" => {
                    let Some(assign) = named(node)
                        .into_iter()
                        .find(|n| n.kind() == "assignment_expression")
                    else {
                        continue;
                    };
                    let (Some(left), Some(right)) = (
                        assign.child_by_field_name("left"),
                        assign.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    let target = self.text(left);
                    let exported =
                        target.starts_with("exports.") || target.starts_with("module.exports");
                    if exported && is_function(right) {
                        self.push(node, "function", target);
                    }
                }
                _ => {}
            }
        }
    }

    fn java(&mut self, level: Node, scope: &str) {
        for node in named(level) {
            match node.kind() {
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration" => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    let scoped = if scope.is_empty() {
                        name
                    } else {
                        format!("{scope}.{name}")
                    };
                    if let Some(body) = node.child_by_field_name("body") {
                        self.java(body, &scoped);
                    }
                }
                "enum_body_declarations" => self.java(node, scope),
                "method_declaration" | "constructor_declaration" => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    if scope.is_empty() {
                        self.push(node, "function", name);
                    } else {
                        self.push(node, "method", format!("{scope}.{name}"));
                    }
                }
                _ => {}
            }
        }
    }

    /// A C/C++ level: the file (`top`: declarations and defines count) or a block walked
    /// through.
    fn c_family(&mut self, level: Node, top: bool) {
        for node in named(level) {
            let node = if node.kind() == "template_declaration" {
                match named(node).into_iter().find(|n| {
                    matches!(
                        n.kind(),
                        "function_definition"
                            | "class_specifier"
                            | "struct_specifier"
                            | "declaration"
                    )
                }) {
                    Some(inner) => inner,
                    None => continue,
                }
            } else {
                node
            };
            match node.kind() {
                "function_definition" => {
                    let name = self.declarator_name(node).replace("::", ".");
                    let kind = if name.contains('.') {
                        "method"
                    } else {
                        "function"
                    };
                    self.push(node, kind, name);
                }
                "class_specifier" | "struct_specifier" => self.c_class(node),
                "declaration" if top => {
                    if let Some(class) = named(node)
                        .into_iter()
                        .find(|n| matches!(n.kind(), "class_specifier" | "struct_specifier"))
                    {
                        self.c_class(class);
                    }
                    if first_of(node, &["function_declarator"]).is_none() {
                        let name = self.declarator_name(node);
                        self.push(node, "declaration", name);
                    }
                }
                "preproc_def" | "preproc_function_def" if top => {
                    let name = self.field_text(node, "name").unwrap_or_default();
                    self.push(node, "define", name);
                }
                "namespace_definition" | "linkage_specification" => {
                    if let Some(body) = node.child_by_field_name("body") {
                        self.c_family(body, top);
                    }
                }
                "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
                | "declaration_list" => self.c_family(node, top),
                _ => {}
            }
        }
    }

    /// The methods defined in a class or struct body.
    fn c_class(&mut self, class: Node) {
        let owner = self.field_text(class, "name").unwrap_or_default();
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        for member in named(body) {
            let member = if member.kind() == "template_declaration" {
                match named(member)
                    .into_iter()
                    .find(|n| n.kind() == "function_definition")
                {
                    Some(inner) => inner,
                    None => continue,
                }
            } else {
                member
            };
            if member.kind() == "function_definition" && !owner.is_empty() {
                let name = self.declarator_name(member);
                self.push(member, "method", format!("{owner}.{name}"));
            }
        }
    }

    /// The name a C/C++ declarator chain ends in: an identifier, a field identifier, a qualified
    /// name, a destructor or an operator.
    fn declarator_name(&self, node: Node) -> String {
        let mut at = node.child_by_field_name("declarator");
        while let Some(d) = at {
            match d.kind() {
                "identifier"
                | "field_identifier"
                | "qualified_identifier"
                | "destructor_name"
                | "operator_name"
                | "type_identifier" => return self.text(d),
                _ => {
                    at = d
                        .child_by_field_name("declarator")
                        .or_else(|| named(d).into_iter().next())
                }
            }
        }
        String::new()
    }
}

/// Whether a value node is a function.
fn is_function(value: Node) -> bool {
    matches!(
        value.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// The first node of one of `kinds` under `node`, depth first.
fn first_of<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    if kinds.contains(&node.kind()) {
        return Some(node);
    }
    named(node)
        .into_iter()
        .find_map(|child| first_of(child, kinds))
}

/// The first name of each `var_spec`/`const_spec` of a Go declaration, wherever the grammar
/// nests them (`var ( … )` holds a spec list).
fn spec_names(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    for child in named(node) {
        match child.kind() {
            "var_spec" | "const_spec" => {
                if let Some(name) = child.child_by_field_name("name") {
                    out.push(name);
                }
            }
            "var_spec_list" | "const_spec_list" => out.extend(spec_names(child)),
            _ => {}
        }
    }
    out
}
