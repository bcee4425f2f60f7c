//! Which grammar reads a file, and each grammar's table of node kinds: what is a function, a
//! container with members, a single definition, an import, a comment or attribute that belongs
//! to the definition below it, a wrapper around a definition, or a block walked through.
//!
//! Tables of node kinds rather than tree-sitter queries: queries would pull in a query engine for
//! what a match on the kind does (TOOLCHAIN.md measured them tripling a wasm build).

/// A language with a structural chunker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceLanguage {
    /// `.py`, `.pyi`.
    Python,
    /// `.java`.
    Java,
    /// `.rs`.
    Rust,
    /// `.go`.
    Go,
    /// `.js`, `.jsx`, `.mjs`, `.cjs`.
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.c`.
    C,
    /// `.cc`, `.cpp`, `.cxx`, `.h`, `.hh`, `.hpp`, `.hxx` (headers are read as C++, which
    /// parses C's too).
    Cpp,
    /// `.md`, `.markdown`.
    Markdown,
}

impl SourceLanguage {
    /// The language of a path, by its extension (case-insensitive).
    pub fn of_path(path: &str) -> Option<SourceLanguage> {
        let name = path.rsplit('/').next()?;
        let (_, ext) = name.rsplit_once('.')?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "py" | "pyi" => SourceLanguage::Python,
            "java" => SourceLanguage::Java,
            "rs" => SourceLanguage::Rust,
            "go" => SourceLanguage::Go,
            "js" | "jsx" | "mjs" | "cjs" => SourceLanguage::JavaScript,
            "ts" | "mts" | "cts" => SourceLanguage::TypeScript,
            "tsx" => SourceLanguage::Tsx,
            "c" => SourceLanguage::C,
            "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" | "hxx" => SourceLanguage::Cpp,
            "md" | "markdown" => SourceLanguage::Markdown,
            _ => return None,
        })
    }

    /// The tree-sitter grammar (none for Markdown, which is split at its headings).
    pub(super) fn grammar(self) -> Option<Grammar> {
        let language: tree_sitter::Language = match self {
            SourceLanguage::Python => tree_sitter_python::LANGUAGE.into(),
            SourceLanguage::Java => tree_sitter_java::LANGUAGE.into(),
            SourceLanguage::Rust => tree_sitter_rust::LANGUAGE.into(),
            SourceLanguage::Go => tree_sitter_go::LANGUAGE.into(),
            SourceLanguage::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            SourceLanguage::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            SourceLanguage::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            SourceLanguage::C => tree_sitter_c::LANGUAGE.into(),
            SourceLanguage::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            SourceLanguage::Markdown => return None,
        };
        let kinds = match self {
            SourceLanguage::Python => &PYTHON,
            SourceLanguage::Java => &JAVA,
            SourceLanguage::Rust => &RUST,
            SourceLanguage::Go => &GO,
            SourceLanguage::JavaScript | SourceLanguage::TypeScript | SourceLanguage::Tsx => {
                &SCRIPT
            }
            SourceLanguage::C | SourceLanguage::Cpp => &C_FAMILY,
            SourceLanguage::Markdown => return None,
        };
        Some(Grammar { language, kinds })
    }
}

/// A grammar and its node-kind table.
pub(super) struct Grammar {
    pub language: tree_sitter::Language,
    pub kinds: &'static Kinds,
}

/// One grammar's node kinds, each with the chunk kind it becomes.
pub(super) struct Kinds {
    /// Function-like definitions: `function` at file level, `method` inside a container.
    pub functions: &'static [&'static str],
    /// Containers: (node kind, chunk kind, field holding the members).
    pub containers: &'static [(&'static str, &'static str, &'static str)],
    /// Definitions that are one unit whatever they hold: (node kind, chunk kind).
    pub items: &'static [(&'static str, &'static str)],
    /// Imports: a run of them alone is an `imports` chunk.
    pub imports: &'static [&'static str],
    /// Comments and attributes: directly above a definition, part of it.
    pub attached: &'static [&'static str],
    /// Wrappers around one definition (decorators, `export`, `template`): the unit starts at
    /// the wrapper and is what the wrapped definition is.
    pub wrappers: &'static [&'static str],
    /// Blocks whose children are walked as if they stood where the block does (`#ifdef`,
    /// `extern "C" {}`, a Java enum's declarations).
    pub transparent: &'static [&'static str],
    /// Variable declarations that are functions when their value is one (`const f = () => …`).
    pub bound_functions: &'static [&'static str],
}

const PYTHON: Kinds = Kinds {
    functions: &["function_definition"],
    containers: &[("class_definition", "class", "body")],
    items: &[],
    imports: &[
        "import_statement",
        "import_from_statement",
        "future_import_statement",
    ],
    attached: &["comment"],
    wrappers: &["decorated_definition"],
    transparent: &[],
    bound_functions: &[],
};

const JAVA: Kinds = Kinds {
    functions: &[
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
    ],
    containers: &[
        ("class_declaration", "class", "body"),
        ("interface_declaration", "interface", "body"),
        ("enum_declaration", "enum", "body"),
        ("record_declaration", "class", "body"),
        ("annotation_type_declaration", "interface", "body"),
    ],
    items: &[],
    imports: &["import_declaration", "package_declaration"],
    attached: &["line_comment", "block_comment"],
    wrappers: &[],
    transparent: &["enum_body_declarations"],
    bound_functions: &[],
};

const RUST: Kinds = Kinds {
    functions: &["function_item", "function_signature_item"],
    containers: &[
        ("impl_item", "impl", "body"),
        ("trait_item", "trait", "body"),
        ("mod_item", "namespace", "body"),
    ],
    items: &[
        ("struct_item", "struct"),
        ("enum_item", "enum"),
        ("union_item", "struct"),
        ("type_item", "type"),
        ("macro_definition", "function"),
    ],
    imports: &["use_declaration", "extern_crate_declaration"],
    attached: &["line_comment", "block_comment", "attribute_item"],
    wrappers: &[],
    transparent: &[],
    bound_functions: &[],
};

const GO: Kinds = Kinds {
    functions: &["function_declaration", "method_declaration"],
    containers: &[],
    items: &[("type_declaration", "type")],
    imports: &["import_declaration", "package_clause"],
    attached: &["comment"],
    wrappers: &[],
    transparent: &[],
    bound_functions: &[],
};

/// JavaScript, TypeScript and TSX.
const SCRIPT: Kinds = Kinds {
    functions: &[
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "function_signature",
    ],
    containers: &[
        ("class_declaration", "class", "body"),
        ("abstract_class_declaration", "class", "body"),
        ("interface_declaration", "interface", "body"),
        ("internal_module", "namespace", "body"),
        ("module", "namespace", "body"),
    ],
    items: &[
        ("type_alias_declaration", "type"),
        ("enum_declaration", "enum"),
    ],
    imports: &["import_statement"],
    attached: &["comment", "decorator"],
    wrappers: &["export_statement"],
    transparent: &[],
    bound_functions: &["lexical_declaration", "variable_declaration"],
};

/// C and C++.
const C_FAMILY: Kinds = Kinds {
    functions: &["function_definition"],
    containers: &[
        ("class_specifier", "class", "body"),
        ("struct_specifier", "struct", "body"),
        ("union_specifier", "struct", "body"),
        ("namespace_definition", "namespace", "body"),
    ],
    items: &[("enum_specifier", "enum"), ("type_definition", "type")],
    imports: &["preproc_include", "using_declaration"],
    attached: &["comment"],
    wrappers: &["template_declaration"],
    transparent: &[
        "preproc_ifdef",
        "preproc_if",
        "preproc_else",
        "preproc_elif",
        "linkage_specification",
    ],
    bound_functions: &[],
};
