//! Why a line was skipped. A leaf: every parser reports through it.

use std::fmt;

/// Why a line was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// The time is missing its parts or is not a valid date.
    BadTime,
    /// The request line is `-`, binary junk, or has no target.
    BadRequestLine,
    /// The status is not a number from 0 to 999.
    BadStatus,
    /// The byte count is not a number or `-`.
    BadBytes,
    /// A quoted field has no closing quote.
    BadQuoting,
    /// A field the format needs is not there.
    MissingField,
    /// The line is not a JSON object.
    BadJson,
    /// An absolute URL was expected and the field holds neither a URL nor a path.
    BadUrl,
    /// A line that records something other than an HTTP or FTP request: a crawler's `dns:`
    /// lookup, a load balancer's TCP-listener entry.
    NotHttp,
    /// The line is [`MAX_LINE_LEN`](crate::MAX_LINE_LEN) bytes or longer.
    TooLong,
    /// A W3C data line with no `#Fields:` directive before it.
    NoFieldsHeader,
    /// The line does not have the format's shape: the wrong number of fields before the time,
    /// a client that is no address or host name, a vhost that is no `host[:port]`, a first
    /// field that is no timestamp, a JSON format's line that is no object. Such a line is
    /// another format's, and is never read as this one.
    WrongFormat,
}

impl SkipReason {
    /// Every reason.
    pub const ALL: [SkipReason; 12] = [
        SkipReason::BadTime,
        SkipReason::BadRequestLine,
        SkipReason::BadStatus,
        SkipReason::BadBytes,
        SkipReason::BadQuoting,
        SkipReason::MissingField,
        SkipReason::BadJson,
        SkipReason::BadUrl,
        SkipReason::NotHttp,
        SkipReason::TooLong,
        SkipReason::NoFieldsHeader,
        SkipReason::WrongFormat,
    ];

    /// The short snake_case name `skipped_lines.csv` writes.
    pub fn as_str(&self) -> &'static str {
        match self {
            SkipReason::BadTime => "bad_time",
            SkipReason::BadRequestLine => "bad_request_line",
            SkipReason::BadStatus => "bad_status",
            SkipReason::BadBytes => "bad_bytes",
            SkipReason::BadQuoting => "bad_quoting",
            SkipReason::MissingField => "missing_field",
            SkipReason::BadJson => "bad_json",
            SkipReason::BadUrl => "bad_url",
            SkipReason::NotHttp => "not_http",
            SkipReason::TooLong => "too_long",
            SkipReason::NoFieldsHeader => "no_fields_header",
            SkipReason::WrongFormat => "wrong_format",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_have_distinct_snake_case_names() {
        let reasons: std::collections::HashSet<&str> =
            SkipReason::ALL.iter().map(SkipReason::as_str).collect();
        assert_eq!(reasons.len(), SkipReason::ALL.len());
        assert!(
            reasons
                .iter()
                .all(|r| r.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        );
    }
}
