//! A Google-faithful robots.txt engine: parser, group selection, compiled matcher.
//!
//! It reproduces Google's open-source robots.txt library byte for byte, down to its tokenizer
//! quirks (BOM prefixes, CR/LF handling, the 16,663-byte line cap, NUL ending a line, missing
//! colons and key typos), its group rules (merged groups, `*` switched off by any mention of
//! the crawler) and its precedence (longest pattern wins, allow wins a tie, the index.htm
//! rewrite). Unlike the library, which re-parses the body for every URL, a body is parsed once
//! and each group is compiled on first use, into a multi-pattern lazy DFA when it is large and a
//! compact ordered scan when it is small, so a verdict costs about one pass over the path.
//!
//! Beyond Google's rules it reads the crawl-rate and usage-preference directives
//! (`Crawl-delay`, `Request-rate`, `Visit-time`, `Content-Signal`, `Content-Usage`) into their
//! groups, without letting them change a group or a verdict: see [`Robots::crawl_delay`] and
//! [`Robots::preference`].
//!
//! Everything works on bytes: bodies and paths may hold invalid UTF-8, and nothing panics on
//! input.
//!
//! ```
//! use robots_audit_engine::{ParseOptions, Robots, TokenMatch, path_params_query};
//!
//! let body = b"User-agent: Googlebot\nDisallow: /private\nAllow: /private/ok$\n\n\
//!              User-agent: *\nDisallow: /\n";
//! let robots = Robots::parse_with(body, &ParseOptions::googlebot());
//! let googlebot = robots.select(&[b"Googlebot-Image", b"Googlebot"], TokenMatch::ProductName);
//!
//! let verdict = robots.verdict(&googlebot, &path_params_query(b"https://example.com/private/ok"));
//! assert!(verdict.allowed);
//! let verdict = robots.verdict(&googlebot, &path_params_query(b"https://example.com/private/x"));
//! assert!(!verdict.allowed);
//! let rule = &robots.rules()[verdict.rule.unwrap() as usize];
//! assert_eq!((rule.line, rule.text.as_str()), (2, "Disallow: /private"));
//! assert_eq!(robots.group_label(rule.group), "Googlebot");
//!
//! // Anyone else falls under `*`.
//! let other = robots.select(&[b"OtherBot"], TokenMatch::ProductName);
//! assert!(other.is_global());
//! assert!(!robots.verdict(&other, b"/").allowed);
//! ```

#![warn(missing_docs)]

mod ascii;
mod compile;
mod directives;
mod legacy;
mod parse;
mod pattern;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod robots;
mod rules;
mod select;
mod url;

pub use compile::MatchStrategy;
pub use directives::{
    Directive, DirectiveKind, DirectiveValue, IgnoredDirective, IgnoredReason, Preference,
    RequestRate, Stance, Statement, Use, VisitTime,
};
pub use parse::{GOOGLEBOT_MAX_BYTES, MAX_LINE_BYTES, ParseOptions, ParseStats};
pub use pattern::escape_pattern;
pub use robots::{Robots, Verdict};
pub use rules::{Group, GroupId, Rule, RuleId, RuleKind};
pub use select::{Selection, TokenMatch};
pub use url::path_params_query;
