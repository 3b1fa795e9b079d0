//! The bound on one line, which every layer that holds lines keeps: the reader that cuts them
//! (`chunk.rs`), the prefixes that join a collector's records into one line (`prefix/`), and the
//! parsers that skip a line this long. It lives apart so that each of them depends on it and
//! none on another for it.

/// The hard cap on one line. A longer line is cut to its first `MAX_LINE_LEN` bytes (the rest
/// is read and dropped, never held in memory), and parsers skip any line this long as
/// [`SkipReason::TooLong`](crate::SkipReason::TooLong). Lines shorter than this are delivered
/// whole.
pub const MAX_LINE_LEN: usize = 4 << 20;
