//! Errors and the exit codes they map to (`docs/contract.md`, "Exit codes").

use std::fmt;

/// Why a command could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Wrong usage: a bad flag value or combination (exit code 2).
    Usage(String),
    /// Nothing could be audited: a bad robots source, no readable input, an unwritable `--out`
    /// (exit code 1).
    Fatal(String),
    /// Stopped by SIGINT or SIGTERM; no report was written (exit code 130).
    Interrupted,
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Fatal(_) => 1,
            Error::Interrupted => 130,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Fatal(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted: no report was written"),
        }
    }
}

impl std::error::Error for Error {}

/// Exit code 0: done.
pub const EXIT_OK: u8 = 0;
/// Exit code 3: done, reports written, but some input had errors (listed in `inputs.csv`).
pub const EXIT_INPUT_ERRORS: u8 = 3;
/// Exit code 3 as well: done, reports written, but requests were read and none could be judged
/// ([`AuditResult::nothing_judged`](crate::audit::AuditResult::nothing_judged) says why).
pub const EXIT_NOTHING_JUDGED: u8 = 3;
