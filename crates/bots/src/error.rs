//! The error every loader of this crate returns.

use std::fmt;

/// Where in a file a [`LoadError`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The index of the offending element of the file's JSON array (`bots`, the
    /// crawler-user-agents array, `prefixes` or `list`), counting from 0 as `jq '.[n]'` does.
    Entry(usize),
    /// A line of a plain-text file, counting from 1.
    Line(usize),
}

/// A bot catalog or IP range file that could not be loaded.
///
/// The message names the file, where in it the problem is, and what is wrong:
///
/// ```
/// use robots_audit_bots::Catalog;
///
/// let mut catalog = Catalog::empty();
/// let error = catalog
///     .extend_from_bytes(br#"{"bots": [{"name": "X", "tokens": ["x"], "category": "nope"}]}"#, "extra.json")
///     .unwrap_err();
/// assert!(error.to_string().starts_with("extra.json: entry 0: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file name (or other label) the caller gave for the input.
    pub file: String,
    /// Where the problem is, when it is in one place.
    pub position: Option<Position>,
    /// What is wrong, for a human.
    pub message: String,
}

impl LoadError {
    pub(crate) fn new(file: &str, position: Option<Position>, message: impl Into<String>) -> Self {
        LoadError {
            file: file.to_owned(),
            position,
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(Position::Entry(index)) => {
                write!(f, "{}: entry {}: {}", self.file, index, self.message)
            }
            Some(Position::Line(line)) => {
                write!(f, "{}: line {}: {}", self.file, line, self.message)
            }
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for LoadError {}
