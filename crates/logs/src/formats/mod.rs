//! One parser per log format, and the pieces they share.

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
