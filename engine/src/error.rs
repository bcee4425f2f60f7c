//! The engine's one error type. Every variant that comes from user input names the file and the
//! field or line it is about, so a message reads `runs/a.jsonl:12: missing field "paths"`.

/// Everything that can go wrong in the engine: bad input files, bad settings, bad requests.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file the loader needs was not supplied.
    #[error("{file}: missing (the loader needs this file)")]
    MissingFile {
        /// The file's path relative to the study root.
        file: String,
    },
    /// A file's bytes do not hash to the SHA-256 value the archive lists for it.
    #[error("{file}: SHA-256 mismatch: the archive lists {expected}, the file hashes to {actual}")]
    Checksum {
        /// The file's path relative to the study root.
        file: String,
        /// The value listed in the archive's README.
        expected: String,
        /// The value computed from the bytes supplied.
        actual: String,
    },
    /// A file could not be parsed at all (not UTF-8, not JSON).
    #[error("{file}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// What the parser said.
        message: String,
    },
    /// A field of a parsed file is missing or has a bad value.
    #[error("{file}: field {field}: {message}")]
    Field {
        /// The file.
        file: String,
        /// A path to the field, e.g. `results[3].paths`.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A line of a line-oriented file (TREC run, qrels, JSON Lines) is malformed.
    #[error("{file}:{line}: {message}")]
    Line {
        /// The file.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A study file with nothing to score: no cases (an empty JSON Lines study or qrels file,
    /// or one of blank lines) or no rankings (an empty TREC run). Refused by the loader, so the
    /// message names the file rather than an arm a later step cannot find.
    #[error("{file}: holds no {what} (no line {line_form})")]
    Empty {
        /// The file.
        file: String,
        /// What it should hold: `cases` or `rankings`.
        what: String,
        /// The form of the line it lacks, e.g. `qid 0 docid relevance`.
        line_form: String,
    },
    /// An arm name that the study does not have.
    #[error("unknown arm {name:?}; this study has: {known}")]
    UnknownArm {
        /// The name asked for.
        name: String,
        /// The study's arm names, comma separated.
        known: String,
    },
    /// A setting outside its allowed range.
    #[error("{setting} = {value} is out of range ({allowed})")]
    Setting {
        /// The setting's name, as the user sees it (`k`, `resamples`, `rrf-k`).
        setting: String,
        /// The value given.
        value: String,
        /// The allowed range, in words.
        allowed: String,
    },
    /// A bundle file's bytes do not hash to the SHA-256 value the bundle's manifest lists: the
    /// bundle is damaged or was altered, and is refused.
    #[error("{file}: SHA-256 mismatch: the manifest lists {expected}, the bytes hash to {actual}")]
    ManifestHash {
        /// The bundle file (`chunks/….deflate`) or the source file (`src/lib.rs`).
        file: String,
        /// The value listed in `manifest.json`.
        expected: String,
        /// The value computed from the bytes supplied.
        actual: String,
    },
    /// A file of a published site does not hash to the SHA-256 value its `CHECKSUMS` lists: the
    /// copy is damaged or was altered, and is refused.
    #[error("{file}: SHA-256 mismatch: the site's CHECKSUMS lists {expected}, the file hashes to {actual}")]
    SiteHash {
        /// The file, relative to the site root.
        file: String,
        /// The value listed in `CHECKSUMS`.
        expected: String,
        /// The value computed from the bytes supplied.
        actual: String,
    },
    /// The search index could not be built, serialised or opened.
    #[error("{file}: search index: {message}")]
    Index {
        /// The index blob's file name, or `index` while building.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// A lexical arm cannot run because what it needs is not loaded or not built in.
    #[error("arm {arm}: needs {needs}")]
    Unavailable {
        /// The arm's name.
        arm: String,
        /// What is missing, in words.
        needs: String,
    },
    /// An embedding model's files could not be read or run, or are not the pinned ones.
    #[error("{file}: embedding model: {message}")]
    Model {
        /// The model file (`model.safetensors`, `tokenizer.json`, `config.json`) or `model`.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// A cross-encoder's files could not be read or run, or are not the ones a run was made
    /// with.
    #[error("{file}: cross-encoder: {message}")]
    CrossEncoder {
        /// The model file (`model.safetensors`, `tokenizer.json`, `config.json`) or `model`.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// Token counting failed: the rank table could not be turned into an encoder, or the encoder
    /// failed on a text (a regular-expression limit).
    #[error("{context}: cannot count tokens: {message}")]
    Tokens {
        /// What was being counted or built: a block (`src/a.rs:1-220`), `text` or `cl100k_base`.
        context: String,
        /// What went wrong.
        message: String,
    },
    /// A gold span that does not fit its file (line scoring).
    #[error("gold span {path}:{start_line}-{end_line}: {message}")]
    Gold {
        /// The gold file.
        path: String,
        /// The span's first line as annotated.
        start_line: u32,
        /// The span's last line as annotated.
        end_line: u32,
        /// What is wrong with it.
        message: String,
    },
    /// An error raised on the other side of a message boundary (the browser's live worker) and
    /// carried back as its message, which is shown as it was.
    #[error("{message}")]
    Relayed {
        /// The error's message.
        message: String,
    },
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// A JSON file read into `T`: a syntax error names the file (with serde_json's line and
/// column), any other the file and the field's path. The run files and the live study export
/// read themselves through it.
pub(crate) fn from_json_file<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T> {
    crate::json_path::from_slice(text.as_bytes()).map_err(|err| {
        if err.is_syntax() {
            Error::Parse {
                file: file.to_string(),
                message: err.error.to_string(),
            }
        } else {
            Error::field(file, err.path, err.error.to_string())
        }
    })
}

impl Error {
    /// Shorthand for a [`Error::Field`] error.
    pub fn field(file: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Field {
            file: file.to_string(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// Shorthand for a [`Error::Line`] error.
    pub fn line(file: &str, line: usize, message: impl Into<String>) -> Self {
        Error::Line {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }

    /// Shorthand for a [`Error::Setting`] error.
    pub fn setting(setting: &str, value: impl ToString, allowed: &str) -> Self {
        Error::Setting {
            setting: setting.to_string(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }
}
