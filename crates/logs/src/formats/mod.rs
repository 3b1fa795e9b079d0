//! One parser per log format, and the pieces they share.
//!
//! Every parser answers a line with `Result<Option<Request>, SkipReason>`, the type the
//! audit receives, even the parsers that never pass a line over (only the W3C and CloudFront
//! parsers do, for their directives): the request is then written where the audit keeps it.
//! Returned bare and wrapped on the way, it was copied there (168 bytes a line, a call to
//! `memcpy`).

pub(crate) mod alb;
pub(crate) mod clf;
pub(crate) mod cloudfront;
pub(crate) mod crawl;
pub(crate) mod envoy;
pub(crate) mod haproxy;
pub(crate) mod header;
pub(crate) mod json;
pub(crate) mod lex;
pub(crate) mod w3c;

/// The answer of a parser that never passes a line over, as a bare request or reason, for
/// tests.
#[cfg(test)]
pub(crate) fn request_of(
    read: Result<Option<crate::record::Request<'_>>, crate::skip::SkipReason>,
) -> Result<crate::record::Request<'_>, crate::skip::SkipReason> {
    read.map(|read| read.expect("a line of this format is a request or skipped"))
}
