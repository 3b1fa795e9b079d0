//! Errors and the exit codes they map to (`docs/contract.md`, "Exit codes").

use crate::audit::InputError;
use crate::audit::error::AuditError;
use crate::commit::CommitError;
use crate::merge::MergeError;
use crate::state::StateError;

/// Why a command could not finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Wrong usage: a bad flag value or combination (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Nothing could be audited: a bad robots source, no readable input, an unwritable `--out`
    /// (exit code 1).
    #[error("{0}")]
    Fatal(String),
    /// A report directory's state cannot be read or is inconsistent (exit code 1).
    #[error(transparent)]
    State(#[from] StateError),
    /// Report directories that cannot be merged (exit code 1).
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// The report set cannot be committed into `--out`, or another run holds it (exit code 1).
    #[error(transparent)]
    Commit(#[from] CommitError),
    /// Stopped by SIGINT, SIGTERM or SIGHUP; no report was committed (exit code 130).
    #[error("interrupted: no report was written")]
    Interrupted,
    /// Standard output was closed by its reader (`... | head -1`): the command ends quietly
    /// with exit code 0, as ripgrep does.
    #[error("standard output was closed")]
    OutputClosed,
}

impl From<AuditError> for Error {
    fn from(e: AuditError) -> Error {
        match e {
            AuditError::Fatal(message) => Error::Fatal(message),
            AuditError::Interrupted => Error::Interrupted,
        }
    }
}

/// A bad glob is a usage error (exit code 2); a directory with nothing to read ends the run
/// (exit code 1).
impl From<InputError> for Error {
    fn from(error: InputError) -> Error {
        match error {
            InputError::Glob { .. } => Error::Usage(error.to_string()),
            _ => Error::Fatal(error.to_string()),
        }
    }
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Fatal(_) | Error::State(_) | Error::Merge(_) | Error::Commit(_) => 1,
            Error::Interrupted => 130,
            Error::OutputClosed => EXIT_OK,
        }
    }

    /// A failure to write a command's output to standard output: [`Error::OutputClosed`] when
    /// its reader went away (a broken pipe), a fatal error otherwise.
    pub fn output(error: std::io::Error) -> Error {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            Error::OutputClosed
        } else {
            Error::Fatal(format!("cannot write output: {error}"))
        }
    }
}

/// Exit code 0: done.
pub const EXIT_OK: u8 = 0;
/// Exit code 3: done, reports written, but some input had errors (listed in `inputs.csv`).
pub const EXIT_INPUT_ERRORS: u8 = 3;
/// Exit code 3 as well: done, reports written, but requests were read and none could be judged
/// ([`nothing_judged`](crate::report::summary::nothing_judged) says why).
pub const EXIT_NOTHING_JUDGED: u8 = 3;
