//! The app's one error type. Every message names what it is about (a URL and its status, a
//! picked file, the engine's file and field), and reads as the text shown to the reader; the
//! engine's errors pass through unchanged.

/// Everything that can go wrong in the app.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The server answered 404.
    #[error("{url}: not found (HTTP 404)")]
    NotFound {
        /// The URL asked for.
        url: String,
    },
    /// The server answered with another failing status.
    #[error("{url}: HTTP {status} {status_text}")]
    Status {
        /// The URL asked for.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The status line's text.
        status_text: String,
    },
    /// The request failed, or its body could not be read or understood.
    #[error("{url}: {message}")]
    Fetch {
        /// The URL asked for.
        url: String,
        /// What failed.
        message: String,
    },
    /// A file the archive loader needs is not on the server.
    #[error("{file}: not found at {url} (HTTP 404); the loader needs this file")]
    MissingArchiveFile {
        /// The archive file's path.
        file: String,
        /// Where it was looked for.
        url: String,
    },
    /// An archive file could not be fetched.
    #[error("{file}: {source}")]
    ArchiveFile {
        /// The archive file's path.
        file: String,
        /// Why.
        source: Box<Error>,
    },
    /// The engine refused the input (its message names the file, field or line).
    #[error(transparent)]
    Engine(#[from] routelens_engine::Error),
    /// The browser refused: a picked file unreadable, a download or a worker not started.
    #[error("{0}")]
    Browser(String),
    /// The live worker failed a call or stopped (its message as it sent it).
    #[error("{0}")]
    Worker(String),
    /// An error about one thing of several (a question of a set, an arm).
    #[error("{what}: {source}")]
    About {
        /// What it is about.
        what: String,
        /// The error.
        source: Box<Error>,
    },
    /// What the reader asked cannot be done yet (no bundle open, no issue typed, ...).
    #[error("{0}")]
    Refused(String),
}

/// The app's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// `error`, about `what`.
    pub fn about(what: impl Into<String>, error: impl Into<Error>) -> Error {
        Error::About {
            what: what.into(),
            source: Box::new(error.into()),
        }
    }

    /// A refusal with this message.
    pub fn refused(message: impl Into<String>) -> Error {
        Error::Refused(message.into())
    }
}
