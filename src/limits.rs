//! The longest strings the tool writes, defined once: the writers cut to them (or read nothing
//! longer), and `merge` refuses a state that holds a longer one, as the tool could not have
//! written it.

/// Any field of a log line (a user-agent, a path, an agent's name or tokens, an origin): no
/// line is longer (`robots_audit_logs::MAX_LINE_LEN`).
pub const FIELD: usize = robots_audit_logs::MAX_LINE_LEN;

/// An input's name as reports show it (the path as given): no longer path can be opened.
pub const FILE_NAME: usize = 4096;

/// The bytes of a skipped line sampled into `skipped_lines.csv`.
pub const EXCERPT: usize = 200;

/// The text of an excerpt: [`EXCERPT`] bytes, each invalid one replaced by U+FFFD (3 bytes).
pub const EXCERPT_TEXT: usize = 3 * EXCERPT;

/// What the tool reads of a robots.txt file, so of any of its lines or groups' labels.
pub const ROBOTS_FILE: usize = robots_audit_engine::GOOGLEBOT_MAX_BYTES;
