//! The crate's errors for what a user asked of it: a format, a field mapping or a time zone
//! that does not exist, a list of captured headers that cannot be read by position. What a
//! line gets wrong is no error but a [`SkipReason`](crate::SkipReason), and a damaged input is
//! a [`ReadError`](crate::ReadError).
//! A leaf: every module may name it.

/// A value given to the crate (an option's value, as the command line passes them on) that it
/// cannot use. The message names the option and says what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `--format NAME` names no format.
    #[error("unknown log format {name:?}; known formats: {known}")]
    UnknownFormat {
        /// The name given.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A `--field` mapping without `=`.
    #[error(
        "--field {spec:?}: expected NAME=JSON.PATH, e.g. user_agent=request.headers.User-Agent"
    )]
    MappingWithoutPath {
        /// The mapping as given.
        spec: String,
    },
    /// A `--field` mapping whose name is no [`FieldName`](crate::FieldName).
    #[error("--field {spec:?}: unknown field name {name:?}; known names: {known}")]
    UnknownFieldName {
        /// The mapping as given.
        spec: String,
        /// The name in it.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A `--field` mapping with nothing after `=`.
    #[error("--field {spec:?}: the JSON path is empty")]
    EmptyPath {
        /// The mapping as given.
        spec: String,
    },
    /// A `--field` mapping whose path has an empty segment (`a..b`).
    #[error("--field {spec:?}: the JSON path {path:?} has an empty segment")]
    EmptyPathSegment {
        /// The mapping as given.
        spec: String,
        /// The path in it.
        path: String,
    },
    /// `--timezone NAME` names no zone of the IANA time zone database.
    #[error("--timezone {name:?}: no such time zone (an IANA name such as Europe/Paris): {reason}")]
    UnknownTimeZone {
        /// The name given.
        name: String,
        /// What the time zone database said.
        reason: String,
    },
    /// A `--haproxy-captures` list that cannot be read by position
    /// ([`HaproxyCaptures`](crate::HaproxyCaptures)).
    #[error("--haproxy-captures {spec:?}: {problem}")]
    InvalidCaptures {
        /// The list as given.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
}
