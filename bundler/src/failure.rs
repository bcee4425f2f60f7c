//! What can make a command fail, and the sysexits code each failure exits with, so that scripts
//! can tell a typo on the command line (64) from a bad study file (65) from a missing one (66).

use std::io;
use std::path::{Path, PathBuf};

use routelens_engine::Error;

/// `EX_USAGE`: the command line is wrong (also clap's parse errors).
pub const EX_USAGE: u8 = 64;
/// `EX_DATAERR`: an input file is malformed.
pub const EX_DATAERR: u8 = 65;
/// `EX_NOINPUT`: an input file or folder does not exist or cannot be read.
pub const EX_NOINPUT: u8 = 66;
/// `EX_UNAVAILABLE`: the decision service failed a routing run (its status is in the message).
pub const EX_UNAVAILABLE: u8 = 69;
/// `EX_IOERR`: writing output or serving failed.
pub const EX_IOERR: u8 = 74;
/// 128 + SIGINT, the shell's code for a command stopped by Ctrl-C (sysexits has none).
pub const EX_INTERRUPTED: u8 = 130;

/// A failed command. Every message names the file, field or setting it is about.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The engine refused the input or a setting; its message names file, field and line.
    #[error(transparent)]
    Engine(#[from] Error),
    /// The engine refused a file of an archive folder. The engine names files relative to the
    /// archive root; the folder is put in front so the message names the file on disk.
    #[error("{}/{source}", dir.display().to_string().trim_end_matches('/'))]
    Archive {
        /// The archive folder as given on the command line.
        dir: PathBuf,
        /// The engine's error.
        source: Error,
    },
    /// The engine refused a file of a bundle folder, or of a model folder (`embed`). The engine
    /// names files relative to the folder (`chunks/….deflate`, `config.json`); the folder is put
    /// in front, as for an archive.
    #[error("{}/{source}", dir.display().to_string().trim_end_matches('/'))]
    Bundle {
        /// The bundle folder as given on the command line.
        dir: PathBuf,
        /// The engine's error.
        source: Error,
    },
    /// A `git` command failed, in git's own words.
    #[error("{}: git {args}: {message}", repo.display())]
    Git {
        /// The repository as given on the command line.
        repo: PathBuf,
        /// The git subcommand and its arguments.
        args: String,
        /// What git said (its standard error), or why it could not run.
        message: String,
    },
    /// An input could not be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The path as given.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// An input that must exist does not, with what the user can do about it.
    #[error("{}: {message}", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
        /// What is missing and how to get it.
        message: String,
    },
    /// The command line is wrong in a way clap cannot see (what kind of study a path is).
    #[error("{0}")]
    Usage(String),
    /// A routing run failed part-way (the partial run was printed, and recorded when asked).
    #[error("routing failed: {message}")]
    Routing {
        /// The run's error.
        message: String,
        /// 69 for a service failure, 65 for a replay that does not match its recording.
        code: u8,
    },
    /// Ctrl-C stopped a run; what it did was printed and its run file kept, marked partial.
    #[error("{0}")]
    Interrupted(String),
    /// A replayed study did not reproduce every recorded ranking (the table was printed).
    #[error("{0}")]
    Replay(String),
    /// A printed number that should reproduce did not (the table was printed).
    #[error("{0}")]
    Check(String),
    /// A published site does not match its `CHECKSUMS` (every problem is named).
    #[error("{0}")]
    Verify(String),
    /// Writing the output failed, or the server could not start.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// Why it failed.
        source: io::Error,
    },
}

impl Failure {
    /// A failure to read `path`.
    pub fn read(path: &Path, source: io::Error) -> Self {
        Failure::Read {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A failure to write the command's output.
    pub fn output(source: io::Error) -> Self {
        Failure::Io {
            context: "writing output".into(),
            source,
        }
    }

    /// The sysexits code for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Engine(error)
            | Failure::Archive { source: error, .. }
            | Failure::Bundle { source: error, .. } => engine_code(error),
            Failure::Git { .. } => EX_DATAERR,
            Failure::Read { .. } | Failure::Missing { .. } => EX_NOINPUT,
            Failure::Usage(_) => EX_USAGE,
            Failure::Routing { code, .. } => *code,
            Failure::Interrupted(_) => EX_INTERRUPTED,
            Failure::Replay(_) | Failure::Verify(_) | Failure::Check(_) => EX_DATAERR,
            Failure::Io { .. } => EX_IOERR,
        }
    }

    /// Whether the output's reader went away (`| head`): the command then stops quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Failure::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Settings and arm names come from the command line (usage); a missing archive file is missing
/// input; everything else the engine refuses is bad data.
fn engine_code(error: &Error) -> u8 {
    match error {
        Error::UnknownArm { .. } | Error::Setting { .. } => EX_USAGE,
        Error::MissingFile { .. } => EX_NOINPUT,
        _ => EX_DATAERR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_sysexits() {
        let unknown = Error::UnknownArm {
            name: "x".into(),
            known: "a".into(),
        };
        assert_eq!(Failure::from(unknown).exit_code(), EX_USAGE);
        assert_eq!(
            Failure::from(Error::setting("k", 17, "1 to 16")).exit_code(),
            EX_USAGE
        );
        assert_eq!(
            Failure::from(Error::line("a.jsonl", 3, "bad")).exit_code(),
            EX_DATAERR
        );
        let missing = Error::MissingFile {
            file: "paper/data/README.md".into(),
        };
        let failure = Failure::Archive {
            dir: "archive/".into(),
            source: missing,
        };
        assert_eq!(failure.exit_code(), EX_NOINPUT);
        assert_eq!(
            failure.to_string(),
            "archive/paper/data/README.md: missing (the loader needs this file)"
        );
    }

    #[test]
    fn broken_pipe_is_recognised() {
        let pipe = Failure::output(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(pipe.is_broken_pipe());
        assert!(!Failure::Usage("x".into()).is_broken_pipe());
    }
}
