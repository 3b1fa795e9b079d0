//! Fuzz target `robots`: arbitrary bytes as a robots.txt body, a URL and agent tokens.
//!
//! The engine parses the body (whole, or cut at a fuzzed `max_bytes`), selects the groups of the
//! tokens with [`TokenMatch::Google`] and judges the URL. The verdict and the line of the deciding
//! rule are compared with the engine's reference model (`crates/engine/src/reference.rs`, the
//! one the engine's tests use too), a deliberately plain restatement of Google's streaming
//! matcher as `docs/robots-txt.md` describes it: no pre-parsing, no automata, one pass over the
//! body per URL, the position-set wildcard algorithm. Any disagreement is a finding, not only a
//! crash. The body is judged by the engine's own choice of matchers and, compiled again, by a
//! strategy that the input picks, so that every matcher meets the fuzzer's bodies. The rest of the public surface (product-name selection, the 1994 reading, group
//! labels, statistics, escaping) is exercised for panics and for its documented invariants.
//!
//! Input layout, read from the end so that a plain robots.txt file is a usable seed:
//! `body ++ url ++ agents ++ [url_len] ++ [agents_len] ++ [flags]`. `agents` is split at `,`
//! into at most four tokens. Bit 0 of `flags` cuts the body at `body.len() * (flags >> 1) / 127`
//! bytes through `ParseOptions::max_bytes`; `url_len + agents_len` picks the second strategy.

#![no_main]
#![warn(missing_docs)]

use libfuzzer_sys::fuzz_target;
use robots_audit_engine::reference;
use robots_audit_engine::{
    MatchStrategy, ParseOptions, Robots, RuleKind, TokenMatch, escape_pattern, path_params_query,
};

/// One fuzz case, cut out of the raw input.
struct Case<'a> {
    body: &'a [u8],
    url: &'a [u8],
    agents: Vec<&'a [u8]>,
    max_bytes: Option<usize>,
    strategy: MatchStrategy,
}

impl<'a> Case<'a> {
    fn split(data: &'a [u8]) -> Option<Case<'a>> {
        let (&flags, rest) = data.split_last()?;
        let (&agents_len, rest) = rest.split_last()?;
        let (&url_len, rest) = rest.split_last()?;
        let (rest, agents) = rest.split_at(rest.len() - usize::from(agents_len).min(rest.len()));
        let (body, url) = rest.split_at(rest.len() - usize::from(url_len).min(rest.len()));
        let max_bytes = (flags & 1 == 1).then(|| body.len() * usize::from(flags >> 1) / 127);
        let pick = (usize::from(url_len) + usize::from(agents_len)) % MatchStrategy::ALL.len();
        Some(Case {
            body,
            url,
            agents: agents.split(|&b| b == b',').take(4).collect(),
            max_bytes,
            strategy: MatchStrategy::ALL[pick],
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
    let expected = reference::google(read, &case.agents, case.url);
    assert_eq!(
        (verdict.allowed, decided),
        (expected.allowed, expected.line),
        "engine (allowed, line) vs reference for body {:?}, agents {:?}, url {:?}",
        String::from_utf8_lossy(read),
        case.agents,
        String::from_utf8_lossy(case.url),
    );
    let forced = Robots::parse_with(
        case.body,
        &ParseOptions {
            max_bytes: case.max_bytes,
        },
    )
    .with_strategy(case.strategy);
    assert_eq!(
        forced.verdict(&selection, &path),
        verdict,
        "{:?} vs the engine's own choice",
        case.strategy
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
