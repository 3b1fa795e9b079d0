//! The errors of this crate. Every loader returns a [`LoadError`]: the file, where in it, and
//! what is wrong. What is wrong is first one of the typed problems below, each raised where it
//! is found (a pattern that cannot be compiled, a catalog entry that breaks a rule, a documented
//! claim without its source, a range that is no prefix, a malformed DNS cache row), and becomes
//! the error's message where the file and the position are known. A leaf module: it depends on
//! no other module of the crate.

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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {}{message}", At(.position))]
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

    /// A problem found at `position` of `file`, with its message.
    pub(crate) fn at(file: &str, position: Option<Position>, problem: impl fmt::Display) -> Self {
        LoadError::new(file, position, problem.to_string())
    }
}

/// The position prefix of a [`LoadError`]'s message (`entry 3: `, `line 7: ` or nothing).
struct At<'a>(&'a Option<Position>);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(Position::Entry(index)) => write!(f, "entry {index}: "),
            Some(Position::Line(line)) => write!(f, "line {line}: "),
            None => Ok(()),
        }
    }
}

/// A user-agent pattern that cannot be used. The errors of the regex crates are boxed: they
/// are large, and rare.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PatternError {
    /// Not a regular expression regex-syntax reads.
    #[error("{0}")]
    Syntax(#[source] Box<regex_syntax::Error>),
    /// It would match every header.
    #[error("it matches the empty string, so it would match every user-agent")]
    MatchesEmpty,
    /// No header can match it.
    #[error("it can never match")]
    NeverMatches,
    /// The searcher that finds where an imported pattern matches cannot be built.
    #[error("{0}")]
    Locator(#[source] Box<regex_automata::nfa::thompson::BuildError>),
    /// The catalog's patterns, together, cannot be compiled into one matcher (too large).
    #[error("cannot compile the user-agent patterns: {0}")]
    Matcher(#[source] Box<regex_automata::meta::BuildError>),
}

/// A catalog entry of the project's own format that breaks a rule of the format.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EntryError {
    /// The entry does not have the format's fields and types.
    #[error("{0}")]
    Shape(#[from] serde_json::Error),
    /// An empty name, or one with control characters.
    #[error("invalid name {0:?}: it must be non-empty, without control characters")]
    InvalidName(String),
    /// Two entries of one file with one name.
    #[error("the name {name:?} is also used by entry {earlier}")]
    NameTaken {
        /// The name, as the later entry writes it.
        name: String,
        /// The position of the earlier entry in the file.
        earlier: usize,
    },
    /// No robots.txt token.
    #[error("{0}: `tokens` needs at least one robots.txt product token")]
    NoTokens(String),
    /// A token that no robots.txt group can name.
    #[error("{name}: invalid token {token:?}: {problem}")]
    InvalidToken {
        /// The entry's name.
        name: String,
        /// The token, lower-cased.
        token: String,
        /// Why no group can name it.
        problem: &'static str,
    },
    /// A token listed twice.
    #[error("{name}: token {token:?} is listed twice")]
    DuplicateToken {
        /// The entry's name.
        name: String,
        /// The token, lower-cased.
        token: String,
    },
    /// A literal of `patterns` that cannot be used.
    #[error("pattern {pattern:?}: {source}")]
    Pattern {
        /// The literal as written.
        pattern: String,
        /// What is wrong with it.
        source: PatternError,
    },
    /// A regular expression of `regexes` that cannot be used.
    #[error("regex {regex:?}: {source}")]
    Regex {
        /// The regular expression as written.
        regex: String,
        /// What is wrong with it.
        source: PatternError,
    },
    /// Examples that nothing can identify as the entry.
    #[error("{0}: `examples` without `patterns` or `regexes` can never identify as it")]
    ExamplesWithoutPatterns(String),
    /// A claim about the operator's documentation that breaks a rule.
    #[error("{name}: {source}")]
    Claim {
        /// The entry's name.
        name: String,
        /// What is wrong with the claim.
        source: ClaimError,
    },
    /// An example header that identifies as something else.
    #[error("example {example:?} is identified as {found}, not as this entry")]
    Example {
        /// The example as written.
        example: String,
        /// What it identifies as: a bot's name, an unknown bot or not a bot.
        found: String,
    },
}

/// A claim of a catalog entry about what the operator documents that breaks a rule: every claim
/// carries the https URL of the page that makes it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClaimError {
    /// A source that is not an https URL with a host.
    #[error("`{field}` {url:?}: {problem}")]
    BadSource {
        /// The source's field (`robots_source`, ...).
        field: &'static str,
        /// The URL as written.
        url: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A claim without its source.
    #[error("`{0}` is required: the operator's page that documents it")]
    MissingSource(&'static str),
    /// A DNS suffix that is no host name.
    #[error("DNS suffix {suffix:?}: {problem}")]
    DnsSuffix {
        /// The suffix as written.
        suffix: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A range list that is no file stem.
    #[error("range list {list:?}: {problem}")]
    RangeList {
        /// The list as written.
        list: String,
        /// What is wrong with it.
        problem: &'static str,
    },
}

/// A range of a range file that cannot be an operator's.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PrefixError {
    /// Neither a CIDR prefix nor an address.
    #[error("{0:?} is not an IP address or CIDR prefix")]
    Invalid(String),
    /// Shorter than the shortest prefix an operator's network has (the `u8`).
    #[error(
        "{0:?} is wider than any operator's network (shorter than /{1}): it would verify every client in it"
    )]
    TooWide(String, u8),
}

/// A row of a DNS cache file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheRowError {
    /// Too few or too many fields.
    #[error("{found} fields, expected {expected} ({header})")]
    FieldCount {
        /// The fields the row has.
        found: usize,
        /// The fields of the header.
        expected: usize,
        /// The header's field names, joined by `,`.
        header: String,
    },
    /// A field that is not UTF-8 text.
    #[error("{0} is not UTF-8")]
    NotUtf8(&'static str),
    /// An `ip` that is no address.
    #[error("ip `{0}` is not an IP address")]
    Ip(String),
    /// A `ptr` with whitespace or control characters.
    #[error("ptr `{}` is not a host name", .0.escape_debug())]
    Ptr(String),
    /// A `confirmed` that is neither `true` nor `false`.
    #[error("confirmed `{0}` is neither true nor false")]
    Confirmed(String),
    /// A confirmation without a name to confirm.
    #[error("confirmed is true without a ptr")]
    ConfirmedWithoutPtr,
    /// A `checked_at` that is not a time.
    #[error("checked_at `{0}` is not an RFC 3339 time (2026-01-31T12:00:00Z)")]
    CheckedAt(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message as the loaders wrote it when they returned strings.
    #[test]
    fn messages() {
        let claim = || ClaimError::MissingSource("robots_source");
        let cases: Vec<(String, &str)> = vec![
            (
                LoadError::new("a.json", Some(Position::Entry(3)), "bad").to_string(),
                "a.json: entry 3: bad",
            ),
            (
                LoadError::new("a.txt", Some(Position::Line(7)), "bad").to_string(),
                "a.txt: line 7: bad",
            ),
            (LoadError::new("a", None, "bad").to_string(), "a: bad"),
            (
                PatternError::MatchesEmpty.to_string(),
                "it matches the empty string, so it would match every user-agent",
            ),
            (PatternError::NeverMatches.to_string(), "it can never match"),
            (
                EntryError::InvalidName(" ".into()).to_string(),
                "invalid name \" \": it must be non-empty, without control characters",
            ),
            (
                EntryError::NameTaken {
                    name: "X".into(),
                    earlier: 0,
                }
                .to_string(),
                "the name \"X\" is also used by entry 0",
            ),
            (
                EntryError::NoTokens("X".into()).to_string(),
                "X: `tokens` needs at least one robots.txt product token",
            ),
            (
                EntryError::InvalidToken {
                    name: "X".into(),
                    token: "a b".into(),
                    problem: "why",
                }
                .to_string(),
                "X: invalid token \"a b\": why",
            ),
            (
                EntryError::DuplicateToken {
                    name: "X".into(),
                    token: "x".into(),
                }
                .to_string(),
                "X: token \"x\" is listed twice",
            ),
            (
                EntryError::Pattern {
                    pattern: "".into(),
                    source: PatternError::MatchesEmpty,
                }
                .to_string(),
                "pattern \"\": it matches the empty string, so it would match every user-agent",
            ),
            (
                EntryError::Regex {
                    regex: "[^\\x00-\\xFF]".into(),
                    source: PatternError::NeverMatches,
                }
                .to_string(),
                "regex \"[^\\\\x00-\\\\xFF]\": it can never match",
            ),
            (
                EntryError::ExamplesWithoutPatterns("X".into()).to_string(),
                "X: `examples` without `patterns` or `regexes` can never identify as it",
            ),
            (
                EntryError::Claim {
                    name: "X".into(),
                    source: claim(),
                }
                .to_string(),
                "X: `robots_source` is required: the operator's page that documents it",
            ),
            (
                EntryError::Example {
                    example: "curl/8".into(),
                    found: "not a bot".into(),
                }
                .to_string(),
                "example \"curl/8\" is identified as not a bot, not as this entry",
            ),
            (
                ClaimError::BadSource {
                    field: "dns_source",
                    url: "http://x".into(),
                    problem: "why",
                }
                .to_string(),
                "`dns_source` \"http://x\": why",
            ),
            (
                ClaimError::DnsSuffix {
                    suffix: "com".into(),
                    problem: "why",
                }
                .to_string(),
                "DNS suffix \"com\": why",
            ),
            (
                ClaimError::RangeList {
                    list: "X".into(),
                    problem: "why",
                }
                .to_string(),
                "range list \"X\": why",
            ),
            (
                PrefixError::Invalid("nonsense".into()).to_string(),
                "\"nonsense\" is not an IP address or CIDR prefix",
            ),
            (
                CacheRowError::FieldCount {
                    found: 3,
                    expected: 4,
                    header: "ip,ptr,confirmed,checked_at".into(),
                }
                .to_string(),
                "3 fields, expected 4 (ip,ptr,confirmed,checked_at)",
            ),
            (
                CacheRowError::NotUtf8("ptr").to_string(),
                "ptr is not UTF-8",
            ),
            (
                CacheRowError::Ip("x".into()).to_string(),
                "ip `x` is not an IP address",
            ),
            (
                CacheRowError::Ptr("a\tb".into()).to_string(),
                "ptr `a\\tb` is not a host name",
            ),
            (
                CacheRowError::Confirmed("yes".into()).to_string(),
                "confirmed `yes` is neither true nor false",
            ),
            (
                CacheRowError::ConfirmedWithoutPtr.to_string(),
                "confirmed is true without a ptr",
            ),
            (
                CacheRowError::CheckedAt("soon".into()).to_string(),
                "checked_at `soon` is not an RFC 3339 time (2026-01-31T12:00:00Z)",
            ),
        ];
        for (found, expected) in cases {
            assert_eq!(found, expected);
        }
    }
}
