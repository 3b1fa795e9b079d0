//! Fuzz target `robots`: arbitrary bytes as a robots.txt body, a URL and agent tokens.
//!
//! The engine parses the body (whole, or cut at a fuzzed `max_bytes`), selects the groups of the
//! tokens with [`TokenMatch::Google`] and judges the URL. The verdict and the line of the deciding
//! rule are compared with [`reference`], a deliberately plain restatement of Google's streaming
//! matcher written from /work/shared/notes/rep-reference.md: no pre-parsing, no automata, one pass
//! over the body per URL, the position-set wildcard algorithm. Any disagreement is a finding, not
//! only a crash. The rest of the public surface (product-name selection, the 1994 reading, group
//! labels, statistics, escaping) is exercised for panics and for its documented invariants.
//!
//! Input layout, read from the end so that a plain robots.txt file is a usable seed:
//! `body ++ url ++ agents ++ [url_len] ++ [agents_len] ++ [flags]`. `agents` is split at `,`
//! into at most four tokens. Bit 0 of `flags` cuts the body at `body.len() * (flags >> 1) / 127`
//! bytes through `ParseOptions::max_bytes`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::engine::{
    ParseOptions, Robots, RuleKind, TokenMatch, escape_pattern, path_params_query,
};

/// One fuzz case, cut out of the raw input.
struct Case<'a> {
    body: &'a [u8],
    url: &'a [u8],
    agents: Vec<&'a [u8]>,
    max_bytes: Option<usize>,
}

impl<'a> Case<'a> {
    fn split(data: &'a [u8]) -> Option<Case<'a>> {
        let (&flags, rest) = data.split_last()?;
        let (&agents_len, rest) = rest.split_last()?;
        let (&url_len, rest) = rest.split_last()?;
        let (rest, agents) = rest.split_at(rest.len() - usize::from(agents_len).min(rest.len()));
        let (body, url) = rest.split_at(rest.len() - usize::from(url_len).min(rest.len()));
        let max_bytes = (flags & 1 == 1).then(|| body.len() * usize::from(flags >> 1) / 127);
        Some(Case {
            body,
            url,
            agents: agents.split(|&b| b == b',').take(4).collect(),
            max_bytes,
        })
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(case) = Case::split(data) else {
        return;
    };
    let robots = Robots::parse_with(
        case.body,
        &ParseOptions {
            max_bytes: case.max_bytes,
        },
    );
    let read = case
        .max_bytes
        .map_or(case.body, |max| case.body.get(..max).unwrap_or(case.body));

    let path = path_params_query(case.url);
    assert_eq!(
        &*path,
        reference::path_params_query(case.url).as_slice(),
        "path of url {:?}",
        case.url
    );

    let selection = robots.select(&case.agents, TokenMatch::Google);
    let verdict = robots.verdict(&selection, &path);
    let decided = verdict.rule.map(|id| {
        let rule = robots
            .rules()
            .get(id as usize)
            .expect("the deciding rule exists");
        assert!(
            selection.groups().contains(&rule.group),
            "the deciding rule belongs to a selected group"
        );
        assert_eq!(
            rule.kind == RuleKind::Allow,
            verdict.allowed,
            "the deciding rule's kind is the verdict"
        );
        rule.line
    });
    let expected = reference::allowed_by_robots(read, &case.agents, case.url);
    assert_eq!(
        (verdict.allowed, decided),
        (expected.allowed, expected.line),
        "engine (allowed, line) vs reference for body {:?}, agents {:?}, url {:?}",
        String::from_utf8_lossy(read),
        case.agents,
        String::from_utf8_lossy(case.url),
    );

    check_structure(&robots);
    let product = robots.select(&case.agents, TokenMatch::ProductName);
    let _ = robots.verdict(&product, &path);
    if let Some(id) = robots.disallowed_1994(&selection, &path) {
        let rule = robots
            .rules()
            .get(id as usize)
            .expect("the 1994 rule exists");
        assert_eq!(rule.kind, RuleKind::Disallow);
        assert!(!rule.pattern.is_empty() && path.starts_with(&rule.pattern));
        assert!(selection.groups().contains(&rule.group));
    }
    let escaped = escape_pattern(case.url);
    assert_eq!(escape_pattern(&escaped), escaped, "escaping is idempotent");
});

/// The parsed structure is consistent: every rule sits in its group's range, and the statistics
/// count what the accessors return.
fn check_structure(robots: &Robots) {
    let stats = robots.stats();
    assert_eq!(stats.groups as usize, robots.groups().len());
    assert_eq!(stats.rules as usize, robots.rules().len());
    for (id, group) in robots.groups().iter().enumerate() {
        for rule in group.rules.clone() {
            let rule = robots
                .rules()
                .get(rule as usize)
                .expect("group rules exist");
            assert_eq!(rule.group as usize, id);
        }
        let _ = robots.group_label(id as u32);
    }
}

/// Google's matcher, restated plainly from rep-reference sections 2 to 10.
mod reference {
    /// Content bytes kept of one line: the 2083 * 8 byte buffer less its C string terminator.
    const LINE_CAP: usize = 2083 * 8 - 1;
    const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
    const NO_MATCH: i64 = -1;

    /// The decision and the line of the rule that made it.
    #[derive(Debug, PartialEq, Eq)]
    pub struct Outcome {
        pub allowed: bool,
        pub line: Option<u32>,
    }

    /// `GetPathParamsQuery` (section 10).
    pub fn path_params_query(url: &[u8]) -> Vec<u8> {
        let search_start = if url.starts_with(b"//") { 2 } else { 0 };
        let first_of = |from: usize| {
            (from..url.len()).find(|&i| matches!(url.get(i), Some(b'/' | b'?' | b';')))
        };
        let early_path = first_of(search_start);
        let protocol_end = (search_start..url.len())
            .find(|&i| url.get(i..).is_some_and(|rest| rest.starts_with(b"://")));
        let authority = match (protocol_end, early_path) {
            (Some(protocol), Some(path)) if path < protocol => search_start,
            (Some(protocol), _) => protocol + 3,
            (None, _) => search_start,
        };
        let Some(path_start) = first_of(authority) else {
            return b"/".to_vec();
        };
        let hash = (search_start..url.len()).find(|&i| url.get(i) == Some(&b'#'));
        if hash.is_some_and(|hash| hash < path_start) {
            return b"/".to_vec();
        }
        let mut path = url
            .get(path_start..hash.unwrap_or(url.len()))
            .unwrap_or_default()
            .to_vec();
        if path.first() != Some(&b'/') {
            path.insert(0, b'/');
        }
        path
    }

    /// `MaybeEscapePattern` (section 8).
    fn escape(value: &[u8]) -> Vec<u8> {
        let hex = |at: usize| value.get(at).is_some_and(u8::is_ascii_hexdigit);
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(&byte) = value.get(i) {
            if byte == b'%' && hex(i + 1) && hex(i + 2) {
                out.push(b'%');
                out.extend(value[i + 1..i + 3].iter().map(u8::to_ascii_uppercase));
                i += 3;
            } else {
                if byte >= 0x80 {
                    out.extend_from_slice(format!("%{byte:02X}").as_bytes());
                } else {
                    out.push(byte);
                }
                i += 1;
            }
        }
        out
    }

    /// `RobotsMatchStrategy::Matches`: the position-set algorithm (section 7).
    fn matches(path: &[u8], pattern: &[u8]) -> bool {
        let mut positions = vec![0usize];
        for (i, &byte) in pattern.iter().enumerate() {
            if byte == b'$' && i + 1 == pattern.len() {
                return positions.last() == Some(&path.len());
            }
            if byte == b'*' {
                positions = (positions[0]..=path.len()).collect();
            } else {
                positions.retain(|&p| path.get(p) == Some(&byte));
                if positions.is_empty() {
                    return false;
                }
                positions.iter_mut().for_each(|p| *p += 1);
            }
        }
        true
    }

    fn is_space(byte: u8) -> bool {
        matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
    }

    fn trim(mut bytes: &[u8]) -> &[u8] {
        while let [first, rest @ ..] = bytes
            && is_space(*first)
        {
            bytes = rest;
        }
        while let [rest @ .., last] = bytes
            && is_space(*last)
        {
            bytes = rest;
        }
        bytes
    }

    fn starts_with_ignore_case(key: &[u8], prefix: &str) -> bool {
        key.len() >= prefix.len() && key[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    }

    /// Best priority and its line, per kind of rule.
    #[derive(Clone, Copy)]
    struct Best {
        priority: i64,
        line: u32,
    }

    const NONE: Best = Best {
        priority: NO_MATCH,
        line: 0,
    };

    struct Matcher<'a> {
        agents: &'a [&'a [u8]],
        path: Vec<u8>,
        seen_global: bool,
        seen_specific: bool,
        ever_seen_specific: bool,
        seen_separator: bool,
        /// `[allow, disallow]` for the agent's own groups and for the `*` groups.
        specific: [Best; 2],
        global: [Best; 2],
    }

    /// `RobotsMatcher::AllowedByRobots(body, agents, url)`, with the deciding line.
    pub fn allowed_by_robots(body: &[u8], agents: &[&[u8]], url: &[u8]) -> Outcome {
        let mut matcher = Matcher {
            agents,
            path: path_params_query(url),
            seen_global: false,
            seen_specific: false,
            ever_seen_specific: false,
            seen_separator: false,
            specific: [NONE; 2],
            global: [NONE; 2],
        };
        let skipped = BOM
            .iter()
            .zip(body)
            .take_while(|(bom, byte)| bom == byte)
            .count();
        let mut line = Vec::new();
        let mut raw_len = 0usize;
        let mut last_was_cr = false;
        let mut number = 0u32;
        for &byte in &body[skipped..] {
            if byte == b'\n' || byte == b'\r' {
                let crlf_continuation = raw_len == 0 && last_was_cr && byte == b'\n';
                if !crlf_continuation {
                    number += 1;
                    matcher.line(number, &line);
                }
                line.clear();
                raw_len = 0;
                last_was_cr = byte == b'\r';
            } else {
                if line.len() < LINE_CAP {
                    line.push(byte);
                }
                raw_len += 1;
            }
        }
        matcher.line(number + 1, &line);
        matcher.outcome()
    }

    impl Matcher<'_> {
        fn line(&mut self, number: u32, raw: &[u8]) {
            let cut = |bytes: &[u8], at: u8| match bytes.iter().position(|&b| b == at) {
                Some(end) => bytes[..end].to_vec(),
                None => bytes.to_vec(),
            };
            let content = cut(&cut(raw, 0), b'#');
            let content = trim(&content);
            if content.is_empty() {
                return;
            }
            let (key, value) = match content.iter().position(|&b| b == b':') {
                Some(colon) => (&content[..colon], &content[colon + 1..]),
                None => {
                    let Some(blank) = content.iter().position(|&b| b == b' ' || b == b'\t') else {
                        return;
                    };
                    let value = &content[blank..];
                    let start = value
                        .iter()
                        .position(|&b| b != b' ' && b != b'\t')
                        .unwrap_or(value.len());
                    if value[start..].iter().any(|&b| b == b' ' || b == b'\t') {
                        return;
                    }
                    (&content[..blank], value)
                }
            };
            let key = trim(key);
            if key.is_empty() {
                return;
            }
            let value = trim(value);
            if ["user-agent", "useragent", "user agent"]
                .iter()
                .any(|p| starts_with_ignore_case(key, p))
            {
                self.user_agent(value);
            } else if starts_with_ignore_case(key, "allow") {
                self.rule(true, number, &escape(value));
            } else if [
                "disallow",
                "dissallow",
                "dissalow",
                "disalow",
                "diasllow",
                "disallaw",
            ]
            .iter()
            .any(|p| starts_with_ignore_case(key, p))
            {
                self.rule(false, number, &escape(value));
            }
        }

        fn user_agent(&mut self, value: &[u8]) {
            if self.seen_separator {
                self.seen_specific = false;
                self.seen_global = false;
                self.seen_separator = false;
            }
            match value {
                [b'*'] => self.seen_global = true,
                [b'*', next, ..] if is_space(*next) => self.seen_global = true,
                _ => {
                    let end = value
                        .iter()
                        .position(|b| !(b.is_ascii_alphabetic() || *b == b'-' || *b == b'_'))
                        .unwrap_or(value.len());
                    let token = &value[..end];
                    if self.agents.iter().any(|a| a.eq_ignore_ascii_case(token)) {
                        self.seen_specific = true;
                        self.ever_seen_specific = true;
                    }
                }
            }
        }

        fn rule(&mut self, allow: bool, number: u32, pattern: &[u8]) {
            if !(self.seen_global || self.seen_specific) {
                return;
            }
            self.seen_separator = true;
            if !matches(&self.path, pattern) {
                if allow
                    && let Some(slash) = pattern.iter().rposition(|&b| b == b'/')
                    && pattern[slash..].starts_with(b"/index.htm")
                {
                    let mut rewritten = pattern[..=slash].to_vec();
                    rewritten.push(b'$');
                    self.rule(allow, number, &rewritten);
                }
                return;
            }
            let bucket = if self.seen_specific {
                &mut self.specific
            } else {
                &mut self.global
            };
            let best = &mut bucket[usize::from(!allow)];
            let priority = pattern.len() as i64;
            if priority > best.priority {
                *best = Best {
                    priority,
                    line: number,
                };
            }
        }

        fn outcome(&self) -> Outcome {
            let decide = |[allow, disallow]: [Best; 2]| {
                if disallow.priority > allow.priority {
                    Outcome {
                        allowed: false,
                        line: Some(disallow.line),
                    }
                } else {
                    Outcome {
                        allowed: true,
                        line: Some(allow.line),
                    }
                }
            };
            let [allow, disallow] = self.specific;
            if allow.priority > 0 || disallow.priority > 0 {
                return decide(self.specific);
            }
            if self.ever_seen_specific {
                return Outcome {
                    allowed: true,
                    line: None,
                };
            }
            let [allow, disallow] = self.global;
            if allow.priority > 0 || disallow.priority > 0 {
                return decide(self.global);
            }
            Outcome {
                allowed: true,
                line: None,
            }
        }
    }
}
