//! Google's robots.txt tokenizer and the group builder (docs/robots-txt.md, "Reading the body" to "Groups").
//!
//! The body is cut into lines exactly as `RobotsTxtParser::Parse` does, each line is split into a
//! key and a value as `GetKeyAndValueFrom` does, and the directives are folded into groups the way
//! the streaming matcher would see them, so that later group selection and matching can work on a
//! static structure.

use crate::ascii::trim;
use crate::directives::Directives;
use crate::pattern::escape_pattern;
use crate::{Group, GroupId, Rule, RuleId, RuleKind};

/// Most content bytes Google's parser keeps of one line; later bytes up to the line end are dropped.
///
/// The reference buffers `2083 * 8` bytes including a C string terminator.
pub const MAX_LINE_BYTES: usize = 16_663;

/// The body size Googlebot reads: content after the first 500 KiB is ignored.
///
/// ```
/// use robots_audit_engine::{GOOGLEBOT_MAX_BYTES, ParseOptions};
///
/// assert_eq!(ParseOptions::googlebot().max_bytes, Some(GOOGLEBOT_MAX_BYTES));
/// ```
pub const GOOGLEBOT_MAX_BYTES: usize = 512_000;

const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// How a body is read before it is parsed.
///
/// The default reads the whole body, as Google's library does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    /// Parse only the first `max_bytes` bytes; `None` parses the whole body. A cut may leave a
    /// partial last line, which is parsed like any other line.
    pub max_bytes: Option<usize>,
}

impl ParseOptions {
    /// The options that reproduce Googlebot: only the first [`GOOGLEBOT_MAX_BYTES`] are read.
    #[must_use]
    pub const fn googlebot() -> ParseOptions {
        ParseOptions {
            max_bytes: Some(GOOGLEBOT_MAX_BYTES),
        }
    }
}

/// What the parser saw, for reports.
///
/// ```
/// use robots_audit_engine::Robots;
///
/// let robots = Robots::parse(b"# hi\nuser-agent: *\ndisallow: /a\nnoindex: /b\n");
/// let stats = robots.stats();
/// assert_eq!((stats.lines, stats.groups, stats.rules, stats.ignored_lines), (4, 1, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ParseStats {
    /// Size of the body as given, before any [`ParseOptions::max_bytes`] cut.
    pub bytes: usize,
    /// Whether [`ParseOptions::max_bytes`] cut the body.
    pub truncated: bool,
    /// Lines read. The empty remainder after a final line end is not a line, so `"a\n"` has one
    /// line and an empty body none; line numbers elsewhere are Google's.
    pub lines: u32,
    /// Groups: runs of user-agent lines with the rules that follow them.
    pub groups: u32,
    /// Allow and disallow lines inside a group, empty values included.
    pub rules: u32,
    /// Lines that are neither blank or comment-only nor a directive that took effect: garbage,
    /// unknown keys, rules before any user-agent line, empty sitemap values, and extension
    /// directives (`Crawl-delay`, `Content-Signal`, ...) that are malformed or outside a group
    /// (listed by [`Robots::ignored_directives`](crate::Robots::ignored_directives)).
    pub ignored_lines: u32,
}

/// The parsed structure of a body, before compilation.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub(crate) stats: ParseStats,
    pub(crate) groups: Vec<Group>,
    pub(crate) rules: Vec<Rule>,
    pub(crate) sitemaps: Vec<Box<[u8]>>,
    pub(crate) directives: Directives,
}

/// The line splitter of `RobotsTxtParser::Parse`: yields `(line number, content)`.
///
/// Content is capped at [`MAX_LINE_BYTES`] and ends at the first NUL, as in the C string the
/// reference hands to its line parser.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    rest: &'a [u8],
    number: u32,
    last_was_cr: bool,
    done: bool,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(body: &'a [u8]) -> Lines<'a> {
        // Only a prefix of the BOM is skipped; the first byte that breaks it is content.
        let bom = body
            .iter()
            .zip(UTF8_BOM)
            .take_while(|(byte, bom)| **byte == *bom)
            .count();
        Lines {
            rest: body.get(bom..).unwrap_or_default(),
            number: 0,
            last_was_cr: false,
            done: false,
        }
    }

    /// Whether the line last returned was the empty remainder after the final line end.
    fn is_trailing_remainder(&self, raw: &[u8]) -> bool {
        self.done && raw.is_empty()
    }
}

fn clip(raw: &[u8]) -> &[u8] {
    let capped = raw.get(..MAX_LINE_BYTES).unwrap_or(raw);
    match memchr::memchr(0, capped) {
        Some(nul) => capped.get(..nul).unwrap_or_default(),
        None => capped,
    }
}

impl<'a> Iterator for Lines<'a> {
    /// `(line number, content, raw line was empty and the body had ended)`.
    type Item = (u32, &'a [u8], bool);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let Some(end) = memchr::memchr2(b'\n', b'\r', self.rest) else {
                // The reference parses the pending buffer once more after the last byte, even
                // when it is empty.
                self.done = true;
                let raw = self.rest;
                self.rest = &[];
                self.number = self.number.saturating_add(1);
                let remainder = self.is_trailing_remainder(raw);
                return Some((self.number, clip(raw), remainder));
            };
            let raw = self.rest.get(..end).unwrap_or_default();
            let eol = self.rest.get(end).copied();
            self.rest = self.rest.get(end + 1..).unwrap_or_default();
            // An LF right after a CR that ended a line completes a CRLF; any other CR or LF ends
            // a line of its own.
            let crlf_continuation = raw.is_empty() && self.last_was_cr && eol == Some(b'\n');
            self.last_was_cr = eol == Some(b'\r');
            if !crlf_continuation {
                self.number = self.number.saturating_add(1);
                return Some((self.number, clip(raw), false));
            }
        }
    }
}

/// A line with its comment cut and its outer whitespace removed.
pub(crate) fn strip_comment(line: &[u8]) -> &[u8] {
    let content = match memchr::memchr(b'#', line) {
        Some(hash) => line.get(..hash).unwrap_or_default(),
        None => line,
    };
    trim(content)
}

/// `GetKeyAndValueFrom` on a line already passed through [`strip_comment`].
///
/// Returns `None` when the line is not a directive.
pub(crate) fn split_key_value(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let separator = match memchr::memchr(b':', line) {
        Some(colon) => colon,
        None => {
            // People forget the colon: a space or tab stands in for it, but only between exactly
            // two tokens (the line is trimmed, so something follows the whitespace).
            let blank = line.iter().position(|b| matches!(b, b' ' | b'\t'))?;
            let after = line.get(blank..).unwrap_or_default();
            let value_start = after
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t'))
                .unwrap_or(after.len());
            let value = after.get(value_start..).unwrap_or_default();
            if value.iter().any(|b| matches!(b, b' ' | b'\t')) {
                return None;
            }
            blank
        }
    };
    let key = trim(line.get(..separator).unwrap_or_default());
    if key.is_empty() {
        return None;
    }
    Some((key, trim(line.get(separator + 1..).unwrap_or_default())))
}

/// The directive a key names (`GetKeyType`): ASCII case-insensitive prefixes, typos included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    UserAgent,
    Allow,
    Disallow,
    Sitemap,
    Unknown,
}

const KEY_PREFIXES: [(&[u8], Key); 11] = [
    (b"user-agent", Key::UserAgent),
    (b"useragent", Key::UserAgent),
    (b"user agent", Key::UserAgent),
    (b"allow", Key::Allow),
    (b"disallow", Key::Disallow),
    (b"dissallow", Key::Disallow),
    (b"dissalow", Key::Disallow),
    (b"disalow", Key::Disallow),
    (b"diasllow", Key::Disallow),
    (b"disallaw", Key::Disallow),
    (b"sitemap", Key::Sitemap),
];
const SITEMAP_TYPO: &[u8] = b"site-map";

fn starts_with_ignore_case(key: &[u8], prefix: &[u8]) -> bool {
    key.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

pub(crate) fn classify_key(key: &[u8]) -> Key {
    KEY_PREFIXES
        .iter()
        .find(|(prefix, _)| starts_with_ignore_case(key, prefix))
        .map(|(_, kind)| *kind)
        .unwrap_or(if starts_with_ignore_case(key, SITEMAP_TYPO) {
            Key::Sitemap
        } else {
            Key::Unknown
        })
}

/// Parses a body into groups, rules and sitemaps.
pub(crate) fn parse(body: &[u8], options: &ParseOptions) -> Parsed {
    let limit = options.max_bytes.unwrap_or(usize::MAX).min(body.len());
    let read = body.get(..limit).unwrap_or(body);
    let mut builder = Builder {
        parsed: Parsed {
            stats: ParseStats {
                bytes: body.len(),
                truncated: limit < body.len(),
                ..ParseStats::default()
            },
            ..Parsed::default()
        },
        rule_since_agent: false,
    };
    for (number, line, remainder) in Lines::new(read) {
        if !remainder {
            builder.parsed.stats.lines = number;
        }
        builder.line(number, line);
    }
    let stats = &mut builder.parsed.stats;
    stats.groups = saturating_u32(builder.parsed.groups.len());
    stats.rules = saturating_u32(builder.parsed.rules.len());
    builder.parsed
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct Builder {
    parsed: Parsed,
    /// Whether a rule was seen since the last user-agent line (the reference's `seen_separator`).
    rule_since_agent: bool,
}

impl Builder {
    fn line(&mut self, number: u32, line: &[u8]) {
        let content = strip_comment(line);
        if content.is_empty() {
            return;
        }
        let took_effect = match split_key_value(content) {
            None => false,
            Some((key, value)) => match classify_key(key) {
                Key::UserAgent => self.user_agent(number, value),
                Key::Allow => self.rule(number, RuleKind::Allow, value, content),
                Key::Disallow => self.rule(number, RuleKind::Disallow, value, content),
                Key::Sitemap => self.sitemap(value),
                Key::Unknown => self.extension(number, key, value, content),
            },
        };
        if !took_effect {
            let ignored = &mut self.parsed.stats.ignored_lines;
            *ignored = ignored.saturating_add(1);
        }
    }

    fn user_agent(&mut self, number: u32, value: &[u8]) -> bool {
        let groups = &mut self.parsed.groups;
        if self.rule_since_agent || groups.is_empty() {
            if groups.len() >= GroupId::MAX as usize {
                return false;
            }
            let next_rule = saturating_u32(self.parsed.rules.len());
            groups.push(Group {
                agents: Vec::new(),
                line: number,
                rules: next_rule..next_rule,
            });
            self.rule_since_agent = false;
        }
        match groups.last_mut() {
            Some(group) => {
                group.agents.push(value.into());
                true
            }
            None => false,
        }
    }

    fn rule(&mut self, number: u32, kind: RuleKind, value: &[u8], content: &[u8]) -> bool {
        let group_id = saturating_u32(self.parsed.groups.len().saturating_sub(1));
        let Some(group) = self.parsed.groups.last_mut() else {
            // Rules before the first user-agent line belong to nobody.
            return false;
        };
        if self.parsed.rules.len() >= RuleId::MAX as usize {
            return false;
        }
        self.parsed.rules.push(Rule {
            kind,
            pattern: escape_pattern(value).into(),
            text: String::from_utf8_lossy(content).into_owned(),
            line: number,
            group: group_id,
        });
        group.rules.end = saturating_u32(self.parsed.rules.len());
        self.rule_since_agent = true;
        true
    }

    /// Crawl-rate and preference lines join the group the streaming matcher is in; they never
    /// end a group, as no unknown key does in Google's parser.
    fn extension(&mut self, number: u32, key: &[u8], value: &[u8], content: &[u8]) -> bool {
        let group = self.parsed.groups.len().checked_sub(1).map(saturating_u32);
        self.parsed
            .directives
            .line(number, key, value, content, group)
            .unwrap_or(false)
    }

    fn sitemap(&mut self, value: &[u8]) -> bool {
        if value.is_empty() {
            return false;
        }
        self.parsed.sitemaps.push(value.into());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &[u8]) -> Vec<(u32, Vec<u8>)> {
        Lines::new(body)
            .map(|(number, line, _)| (number, line.to_vec()))
            .collect()
    }

    #[test]
    fn line_ends_follow_the_reference() {
        let cases: &[(&[u8], &[&[u8]])] = &[
            (b"", &[b""]),
            (b"a", &[b"a"]),
            (b"a\n", &[b"a", b""]),
            (b"a\nb", &[b"a", b"b"]),
            (b"a\rb", &[b"a", b"b"]),
            (b"a\r\nb", &[b"a", b"b"]),
            (b"a\r\r\nb", &[b"a", b"", b"b"]),
            (b"a\n\rb", &[b"a", b"", b"b"]),
            (b"a\r\n\nb", &[b"a", b"", b"b"]),
            (b"a\r\n\r\nb", &[b"a", b"", b"b"]),
            (b"\r\n", &[b"", b""]),
            (b"\n\n", &[b"", b"", b""]),
        ];
        for (body, expected) in cases {
            let got: Vec<Vec<u8>> = lines(body).into_iter().map(|(_, l)| l).collect();
            let expected: Vec<Vec<u8>> = expected.iter().map(|l| l.to_vec()).collect();
            assert_eq!(got, expected, "body {body:?}");
        }
    }

    #[test]
    fn line_numbers_are_consecutive() {
        let numbers: Vec<u32> = lines(b"a\r\nb\rc\nd").iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3, 4]);
    }

    #[test]
    fn bom_prefixes_are_skipped_only_at_the_start() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"\xEF\xBB\xBFa", b"a"),
            (b"\xEF\xBBa", b"a"),
            (b"\xEFa", b"a"),
            (b"\xEF\x11\xBFa", b"\x11\xBFa"),
            (b"\xEF\xBB\xBF\xEF\xBB\xBFa", b"\xEF\xBB\xBFa"),
            (b"a\xEF\xBB\xBF", b"a\xEF\xBB\xBF"),
        ];
        for (body, first) in cases {
            assert_eq!(lines(body)[0].1, first.to_vec(), "body {body:?}");
        }
    }

    #[test]
    fn long_lines_are_capped_and_nul_ends_the_content() {
        let exact = vec![b'a'; MAX_LINE_BYTES];
        assert_eq!(lines(&exact)[0].1.len(), MAX_LINE_BYTES);
        let mut over = vec![b'a'; MAX_LINE_BYTES + 5];
        over.extend_from_slice(b"\nnext");
        let got = lines(&over);
        assert_eq!(got[0].1.len(), MAX_LINE_BYTES);
        assert_eq!(got[1].1, b"next");
        assert_eq!(lines(b"ab\0cd\nef")[0].1, b"ab");
        assert_eq!(lines(b"ab\0cd\nef")[1].1, b"ef");
    }

    #[test]
    fn key_value_split_follows_get_key_and_value_from() {
        type Split<'a> = Option<(&'a [u8], &'a [u8])>;
        let cases: &[(&[u8], Split)] = &[
            (b"user-agent: Foo", Some((b"user-agent", b"Foo"))),
            (b"user-agent :  Foo Bar", Some((b"user-agent", b"Foo Bar"))),
            (b"disallow /", Some((b"disallow", b"/"))),
            (b"disallow \t /", Some((b"disallow", b"/"))),
            (b"disallow /a /b", None),
            (b"user-agent Foo Bar", None),
            (b"disallow /a:b", Some((b"disallow /a", b"b"))),
            (b": /a", None),
            (b"disallow:", Some((b"disallow", b""))),
            (b"disallow", None),
            (b"disallow\x0b/a", None),
            (b"disallow \x0b/a", Some((b"disallow", b"/a"))),
            (b"disallow: /a b", Some((b"disallow", b"/a b"))),
        ];
        for (line, expected) in cases {
            assert_eq!(split_key_value(line), *expected, "line {line:?}");
        }
    }

    #[test]
    fn comments_and_ascii_whitespace_are_stripped() {
        assert_eq!(strip_comment(b"  disallow: /a#b"), b"disallow: /a");
        assert_eq!(
            strip_comment(b"\x0b\x0cdisallow: /a \t\x0b"),
            b"disallow: /a"
        );
        assert_eq!(strip_comment(b"# only"), b"");
        assert_eq!(strip_comment(b"\xC2\xA0x\xC2\xA0"), b"\xC2\xA0x\xC2\xA0");
    }

    #[test]
    fn keys_match_by_case_insensitive_prefix_with_typos() {
        let cases: &[(&[u8], Key)] = &[
            (b"user-agent", Key::UserAgent),
            (b"User-AgentX", Key::UserAgent),
            (b"user-agents", Key::UserAgent),
            (b"useragent", Key::UserAgent),
            (b"user agent", Key::UserAgent),
            (b"user_agent", Key::Unknown),
            (b"allow", Key::Allow),
            (b"ALLOWANCE", Key::Allow),
            (b"alow", Key::Unknown),
            (b"disallow", Key::Disallow),
            (b"disallowed", Key::Disallow),
            (b"dissallow", Key::Disallow),
            (b"dissalow", Key::Disallow),
            (b"disalow", Key::Disallow),
            (b"diasllow", Key::Disallow),
            (b"disallaw", Key::Disallow),
            (b"dis-allow", Key::Unknown),
            (b"sitemap", Key::Sitemap),
            (b"Site-Map", Key::Sitemap),
            (b"crawl-delay", Key::Unknown),
        ];
        for (key, expected) in cases {
            assert_eq!(classify_key(key), *expected, "key {key:?}");
        }
    }
}
