//! The reference model: a plain, line-by-line restatement of Google's matcher (`robots.cc`,
//! described in `docs/robots-txt.md`), written independently of the engine. No automata, no
//! pre-parsing: one pass over the body per URL, the position-set wildcard algorithm, exactly as
//! the reference library works. It shares no code with the engine, so that a test comparing the
//! two compares two readings of the same behaviour.
//!
//! This is the one model that the engine's tests, property tests, differential tests and the
//! fuzz target compare the engine with. It is compiled only for the crate's own unit tests and
//! behind the non-default cargo feature `reference`, which the crate's integration tests (through
//! its dev-dependency on itself) and the fuzz crate enable; production code never calls it.
//!
//! It can also reproduce the known defects of the `robotstxt` crate ([`Quirks`]) so that the
//! differential test can show that each disagreement with that crate is one of its bugs.

use crate::{Rule, RuleId, RuleKind};

/// Deviations of the `robotstxt` crate (0.3.0) from Google's library, each switchable so that
/// the model can reproduce the crate. Every one contradicts Google's behaviour as
/// `docs/robots-txt.md` describes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quirks {
    /// The crate's `handle_sitemap` and `handle_unknown_action` set `seen_separator`, so a
    /// sitemap or unknown line between user-agent lines splits the group. Google:
    /// sitemap and unknown lines "do not end a group" (`ID_LineSyntax_Groups_OtherRules`).
    pub other_lines_end_group: bool,
    /// The crate's `escape_pattern`, when it rewrites a value at all (non-ASCII byte or
    /// lowercase `%xx` present), drops a `%` that is not followed by two hex digits together
    /// with the two bytes after it. Google (`MaybeEscapePattern`): "A `%` not followed by two hex digits
    /// stays as it is."
    pub bad_percent_dropped: bool,
    /// The crate's `matches` inserts into its position vector instead of overwriting it, so
    /// after a `*` only the first occurrence of the next byte is tried. `/*ab` never matches
    /// `/aab`. Google: `*` matches any run of bytes (position-set algorithm).
    pub greedy_wildcard: bool,
    /// The crate walks the body as `char`s and compares them with the BOM's bytes: a real BOM
    /// (U+FEFF) is never skipped, while leading `ï`, `»`, `¿` (U+00EF, U+00BB, U+00BF) are.
    /// Google: the longest prefix of the bytes `EF BB BF` is skipped.
    pub bom_as_chars: bool,
    /// The crate trims with Unicode `White_Space` (`str::trim`, `char::is_whitespace`), so a
    /// no-break space around a key or value, or after a leading `*`, is whitespace to it.
    /// Google: ASCII whitespace only (`absl::StripAsciiWhitespace`, C `isspace`).
    pub unicode_trim: bool,
    /// The crate does not end a line at NUL. Google: "a `0x00` byte ends the line's
    /// content".
    pub nul_kept: bool,
    /// The crate's `parse_key_value` trims the line only when it had a comment, tests for an
    /// empty key before trimming it, and in a line without a colon trims all whitespace after
    /// the first blank before looking for another one. So `  disallow /x` (no colon, no
    /// comment) is rejected, `  : /x` becomes an unknown directive, and `disallow \x0b /x` is
    /// accepted. Google: the line is trimmed first, then split, and without a colon
    /// only SP and HTAB separate the two tokens.
    pub crate_key_value: bool,
}

/// Google's behaviour: no quirks.
pub const NONE: Quirks = Quirks {
    other_lines_end_group: false,
    bad_percent_dropped: false,
    greedy_wildcard: false,
    bom_as_chars: false,
    unicode_trim: false,
    nul_kept: false,
    crate_key_value: false,
};

/// The decision for one URL and the line of the rule that decided, if one did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Whether the URL may be crawled.
    pub allowed: bool,
    /// The line of the rule that decided, or `None` when no rule matched.
    pub line: Option<u32>,
}

/// Google's `AllowedByRobots(body, agents, url)`, with the deciding line.
pub fn google(body: &[u8], agents: &[&[u8]], url: &[u8]) -> Outcome {
    model(body, agents, url, NONE)
}

/// The matcher with the given quirks.
pub fn model(body: &[u8], agents: &[&[u8]], url: &[u8], quirks: Quirks) -> Outcome {
    let path = path_params_query(url);
    let mut state = State {
        agents,
        path: &path,
        quirks,
        allow: Buckets::default(),
        disallow: Buckets::default(),
        seen_global: false,
        seen_specific: false,
        ever_seen_specific: false,
        seen_separator: false,
    };
    for (number, line) in lines(body, quirks) {
        state.line(number, &line);
    }
    state.outcome()
}

/// `GetPathParamsQuery`.
pub fn path_params_query(url: &[u8]) -> Vec<u8> {
    let start = if url.starts_with(b"//") { 2 } else { 0 };
    let find_any = |from: usize| (from..url.len()).find(|&i| matches!(url[i], b'/' | b'?' | b';'));
    let find_str = |needle: &[u8]| (start..url.len()).find(|&i| url[i..].starts_with(needle));
    let early_path = find_any(start);
    let mut authority = start;
    if let Some(scheme) = find_str(b"://")
        && early_path.is_none_or(|path| path > scheme)
    {
        authority = scheme + 3;
    }
    let Some(path_start) = find_any(authority) else {
        return b"/".to_vec();
    };
    let hash = find_str(b"#");
    if hash.is_some_and(|hash| hash < path_start) {
        return b"/".to_vec();
    }
    let mut path = url[path_start..hash.unwrap_or(url.len())].to_vec();
    if path[0] != b'/' {
        path.insert(0, b'/');
    }
    path
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const LINE_CAP: usize = 2083 * 8 - 1;

/// `RobotsTxtParser::Parse`, byte by byte.
fn lines(body: &[u8], quirks: Quirks) -> Vec<(u32, Vec<u8>)> {
    let mut rest = body;
    if quirks.bom_as_chars {
        if let Ok(text) = std::str::from_utf8(body) {
            let mut chars = text.char_indices().peekable();
            let mut skipped = 0;
            for expected in BOM {
                match chars.peek() {
                    Some(&(at, c)) if u32::from(c) == u32::from(expected) => {
                        skipped = at + c.len_utf8();
                        chars.next();
                    }
                    _ => break,
                }
            }
            rest = &body[skipped..];
        }
    } else {
        let mut skipped = 0;
        while skipped < 3 && body.get(skipped) == Some(&BOM[skipped]) {
            skipped += 1;
        }
        rest = &body[skipped..];
    }
    let mut out = Vec::new();
    let mut line = Vec::new();
    let mut last_was_cr = false;
    let mut number = 0;
    let finish = |line: &[u8]| -> Vec<u8> {
        match line.iter().position(|&b| b == 0) {
            Some(nul) if !quirks.nul_kept => line[..nul].to_vec(),
            _ => line.to_vec(),
        }
    };
    for &byte in rest {
        if byte != b'\n' && byte != b'\r' {
            if line.len() < LINE_CAP {
                line.push(byte);
            }
            continue;
        }
        let continuation = line.is_empty() && last_was_cr && byte == b'\n';
        if !continuation {
            number += 1;
            out.push((number, finish(&line)));
        }
        line.clear();
        last_was_cr = byte == b'\r';
    }
    number += 1;
    out.push((number, finish(&line)));
    out
}

fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

fn trim(bytes: &[u8], quirks: Quirks) -> &[u8] {
    if quirks.unicode_trim
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return text.trim().as_bytes();
    }
    let mut bytes = bytes;
    while let [first, rest @ ..] = bytes {
        if !is_ascii_space(*first) {
            break;
        }
        bytes = rest;
    }
    while let [rest @ .., last] = bytes {
        if !is_ascii_space(*last) {
            break;
        }
        bytes = rest;
    }
    bytes
}

/// `GetKeyAndValueFrom`, or the crate's `parse_key_value` with [`Quirks::crate_key_value`].
fn key_value(line: &[u8], quirks: Quirks) -> Option<(&[u8], &[u8])> {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let comment = line.iter().position(|&b| b == b'#');
    let line = &line[..comment.unwrap_or(line.len())];
    if quirks.crate_key_value {
        let line = if comment.is_some() {
            trim(line, quirks)
        } else {
            line
        };
        let separator = match line.iter().position(|&b| b == b':') {
            Some(colon) => colon,
            None => {
                let at = line.iter().position(blank)?;
                let value = trim(&line[at..], quirks);
                if value.is_empty() || value.iter().any(blank) {
                    return None;
                }
                at
            }
        };
        if separator == 0 {
            return None;
        }
        return Some((
            trim(&line[..separator], quirks),
            trim(&line[separator + 1..], quirks),
        ));
    }
    let line = trim(line, quirks);
    let separator = match line.iter().position(|&b| b == b':') {
        Some(colon) => colon,
        None => {
            let at = line.iter().position(blank)?;
            let value_start = line[at..].iter().position(|b| !blank(b))? + at;
            if line[value_start..].iter().any(blank) {
                return None;
            }
            at
        }
    };
    let key = trim(&line[..separator], quirks);
    if key.is_empty() {
        return None;
    }
    Some((key, trim(&line[separator + 1..], quirks)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyType {
    UserAgent,
    Allow,
    Disallow,
    Sitemap,
    Unknown,
}

fn key_type(key: &[u8]) -> KeyType {
    let starts = |prefix: &str| {
        key.len() >= prefix.len() && key[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    };
    if ["user-agent", "useragent", "user agent"]
        .into_iter()
        .any(starts)
    {
        KeyType::UserAgent
    } else if starts("allow") {
        KeyType::Allow
    } else if [
        "disallow",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ]
    .into_iter()
    .any(starts)
    {
        KeyType::Disallow
    } else if starts("sitemap") || starts("site-map") {
        KeyType::Sitemap
    } else {
        KeyType::Unknown
    }
}

/// `MaybeEscapePattern`, or the crate's `escape_pattern` with [`Quirks::bad_percent_dropped`].
fn escape(value: &[u8], quirks: Quirks) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let hex_at = |i: usize| value.get(i).is_some_and(u8::is_ascii_hexdigit);
    if quirks.bad_percent_dropped {
        // The crate's first pass decides whether anything changes; a `%` swallows the next
        // two bytes whatever they are.
        let mut changes = false;
        let mut i = 0;
        while i < value.len() {
            if value[i] == b'%' {
                let pair = &value[i + 1..(i + 3).min(value.len())];
                changes |= pair.len() == 2
                    && pair.iter().all(u8::is_ascii_hexdigit)
                    && pair.iter().any(u8::is_ascii_lowercase);
                i += 1 + pair.len();
            } else {
                changes |= value[i] >= 0x80;
                i += 1;
            }
        }
        if !changes {
            return value.to_vec();
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < value.len() {
            let byte = value[i];
            if byte == b'%' {
                let pair = &value[i + 1..(i + 3).min(value.len())];
                if pair.len() == 2 && pair.iter().all(u8::is_ascii_hexdigit) {
                    out.push(b'%');
                    out.extend(pair.iter().map(u8::to_ascii_uppercase));
                }
                i += 1 + pair.len();
            } else {
                if byte >= 0x80 {
                    out.extend([
                        b'%',
                        HEX[usize::from(byte >> 4)],
                        HEX[usize::from(byte & 15)],
                    ]);
                } else {
                    out.push(byte);
                }
                i += 1;
            }
        }
        return out;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < value.len() {
        let byte = value[i];
        if byte == b'%' && hex_at(i + 1) && hex_at(i + 2) {
            out.push(b'%');
            out.push(value[i + 1].to_ascii_uppercase());
            out.push(value[i + 2].to_ascii_uppercase());
            i += 3;
            continue;
        }
        if byte >= 0x80 {
            out.extend([
                b'%',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 15)],
            ]);
        } else {
            out.push(byte);
        }
        i += 1;
    }
    out
}

/// `RobotsMatchStrategy::Matches`: the position-set algorithm.
pub fn position_set_matches(path: &[u8], pattern: &[u8]) -> bool {
    let mut positions = vec![0usize];
    for (i, &byte) in pattern.iter().enumerate() {
        if byte == b'$' && i + 1 == pattern.len() {
            return positions.last() == Some(&path.len());
        }
        if byte == b'*' {
            positions = (positions[0]..=path.len()).collect();
            continue;
        }
        positions.retain(|&at| path.get(at) == Some(&byte));
        for at in &mut positions {
            *at += 1;
        }
        if positions.is_empty() {
            return false;
        }
    }
    true
}

/// `HandleAllow`'s retry for an allow pattern that did not match: a pattern whose last segment
/// starts with `/index.htm` also allows its directory, as the pattern `directory/$`.
fn index_htm_rewrite(pattern: &[u8]) -> Option<Vec<u8>> {
    let slash = pattern.iter().rposition(|&b| b == b'/')?;
    pattern[slash..]
        .starts_with(b"/index.htm")
        .then(|| [&pattern[..=slash], b"$"].concat())
}

/// Google's precedence applied directly to rules the engine parsed (so it checks matching and
/// precedence, not parsing): among the non-empty patterns that match `path`, the longest wins,
/// allow wins a tie, and the first in file order is reported among equals. An allow pattern
/// that does not match gets the index.htm retry. `None` when no rule matches.
pub fn best_rule(rules: &[Rule], path: &[u8]) -> Option<RuleId> {
    let mut best: Option<(usize, bool, RuleId)> = None;
    for (id, rule) in (0..).zip(rules) {
        if rule.pattern.is_empty() {
            continue;
        }
        let allow = rule.kind == RuleKind::Allow;
        let priority = if position_set_matches(path, &rule.pattern) {
            Some(rule.pattern.len())
        } else if allow {
            index_htm_rewrite(&rule.pattern)
                .filter(|rewritten| position_set_matches(path, rewritten))
                .map(|rewritten| rewritten.len())
        } else {
            None
        };
        let Some(priority) = priority else {
            continue;
        };
        let better = best.is_none_or(|(p, a, _)| priority > p || (priority == p && allow && !a));
        if better {
            best = Some((priority, allow, id));
        }
    }
    best.map(|(_, _, id)| id)
}

/// The crate's matcher: after a `*`, only the first occurrence of the next byte is tried.
fn greedy_matches(path: &[u8], pattern: &[u8]) -> bool {
    let mut at = 0;
    let mut open = false;
    for (i, &byte) in pattern.iter().enumerate() {
        if byte == b'$' && i + 1 == pattern.len() {
            return open || at == path.len();
        }
        if byte == b'*' {
            open = true;
        } else if open {
            match path[at..].iter().position(|&b| b == byte) {
                Some(offset) => at += offset + 1,
                None => return false,
            }
            open = false;
        } else if path.get(at) == Some(&byte) {
            at += 1;
        } else {
            return false;
        }
    }
    true
}

#[derive(Debug, Clone, Copy)]
struct Match {
    priority: i64,
    line: u32,
}

impl Default for Match {
    fn default() -> Self {
        Match {
            priority: -1,
            line: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Buckets {
    global: Match,
    specific: Match,
}

struct State<'a> {
    agents: &'a [&'a [u8]],
    path: &'a [u8],
    quirks: Quirks,
    allow: Buckets,
    disallow: Buckets,
    seen_global: bool,
    seen_specific: bool,
    ever_seen_specific: bool,
    seen_separator: bool,
}

impl State<'_> {
    fn line(&mut self, number: u32, line: &[u8]) {
        let Some((key, value)) = key_value(line, self.quirks) else {
            return;
        };
        match key_type(key) {
            KeyType::UserAgent => self.user_agent(value),
            KeyType::Allow => self.rule(number, &escape(value, self.quirks), true),
            KeyType::Disallow => self.rule(number, &escape(value, self.quirks), false),
            KeyType::Sitemap | KeyType::Unknown => {
                if self.quirks.other_lines_end_group {
                    self.seen_separator = true;
                }
            }
        }
    }

    fn user_agent(&mut self, value: &[u8]) {
        if self.seen_separator {
            self.seen_specific = false;
            self.seen_global = false;
            self.seen_separator = false;
        }
        let global = match value {
            [b'*'] => true,
            [b'*', rest @ ..] => {
                if self.quirks.unicode_trim {
                    std::str::from_utf8(rest)
                        .ok()
                        .and_then(|rest| rest.chars().next())
                        .is_some_and(char::is_whitespace)
                } else {
                    is_ascii_space(rest[0])
                }
            }
            _ => false,
        };
        if global {
            self.seen_global = true;
            return;
        }
        let end = value
            .iter()
            .position(|b| !(b.is_ascii_alphabetic() || *b == b'-' || *b == b'_'))
            .unwrap_or(value.len());
        let token = &value[..end];
        if self
            .agents
            .iter()
            .any(|agent| agent.eq_ignore_ascii_case(token))
        {
            self.seen_specific = true;
            self.ever_seen_specific = true;
        }
    }

    fn rule(&mut self, number: u32, pattern: &[u8], allow: bool) {
        if !self.seen_global && !self.seen_specific {
            return;
        }
        self.seen_separator = true;
        let matched = if self.quirks.greedy_wildcard {
            greedy_matches(self.path, pattern)
        } else {
            position_set_matches(self.path, pattern)
        };
        if matched {
            let priority = i64::try_from(pattern.len()).unwrap_or(i64::MAX);
            let kind = if allow {
                &mut self.allow
            } else {
                &mut self.disallow
            };
            let bucket = if self.seen_specific {
                &mut kind.specific
            } else {
                &mut kind.global
            };
            if bucket.priority < priority {
                *bucket = Match {
                    priority,
                    line: number,
                };
            }
        } else if allow && let Some(rewritten) = index_htm_rewrite(pattern) {
            self.rule(number, &rewritten, true);
        }
    }

    fn outcome(&self) -> Outcome {
        let decide = |allow: Match, disallow: Match| {
            let allowed = disallow.priority <= allow.priority;
            Outcome {
                allowed,
                line: Some(if allowed { allow.line } else { disallow.line }),
            }
        };
        if self.allow.specific.priority > 0 || self.disallow.specific.priority > 0 {
            return decide(self.allow.specific, self.disallow.specific);
        }
        if self.ever_seen_specific {
            return Outcome {
                allowed: true,
                line: None,
            };
        }
        if self.allow.global.priority > 0 || self.disallow.global.priority > 0 {
            return decide(self.allow.global, self.disallow.global);
        }
        Outcome {
            allowed: true,
            line: None,
        }
    }
}
