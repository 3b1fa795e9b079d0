//! Every point of Google's robots.txt library as `docs/robots-txt.md` describes it, as tables,
//! under every matching strategy. The `sN_` prefixes of the test names number the points in the
//! order the library applies them: 2 tokenising, 3 key and value, 4 keys, 5 groups, 6 decision,
//! 7 matching, 8 escaping, 9 index.htm, 10 URL, 11 case.

use crate::strategies::{parse, parse_with};
use robots_audit_engine::{
    GOOGLEBOT_MAX_BYTES, MAX_LINE_BYTES, ParseOptions, RuleKind, TokenMatch, escape_pattern,
    path_params_query,
};

/// Google's decision for `url` and the line of the deciding rule (0 when none decided).
fn decide(body: &[u8], agents: &[&str], url: &str) -> (bool, u32) {
    decide_with(body, agents, url, TokenMatch::Google)
}

fn decide_with(body: &[u8], agents: &[&str], url: &str, mode: TokenMatch) -> (bool, u32) {
    let robots = parse(body);
    let agents: Vec<&[u8]> = agents.iter().map(|agent| agent.as_bytes()).collect();
    let selection = robots.select(&agents, mode);
    let verdict = robots.verdict(&selection, &path_params_query(url.as_bytes()));
    let line = verdict
        .rule
        .map_or(0, |id| robots.rules()[id as usize].line);
    (verdict.allowed, line)
}

fn allowed(body: &[u8], agent: &str, url: &str) -> bool {
    decide(body, &[agent], url).0
}

/// `(body, agent, url, allowed)` rows.
type Rows<'a> = &'a [(&'a [u8], &'a str, &'a str, bool)];

fn check_rows(section: &str, rows: Rows) {
    for (body, agent, url, expected) in rows {
        assert_eq!(
            allowed(body, agent, url),
            *expected,
            "{section}: body {:?} agent {agent:?} url {url:?}",
            String::from_utf8_lossy(body)
        );
    }
}

// Section 2: tokenising the body.

fn s2_byte_order_mark_prefixes() {
    let rest = b"user-agent: *\ndisallow: /\n";
    let rows: &[(&[u8], bool)] = &[
        (b"", false),
        (b"\xEF\xBB\xBF", false),
        (b"\xEF\xBB", false),
        (b"\xEF", false),
        // The first byte that breaks the BOM is content: the key becomes garbage.
        (b"\xEF\x11\xBF", true),
        (b"\xEF\xBB\xBF\xEF\xBB\xBF", true),
        (b"\xBB\xBF", true),
    ];
    for (prefix, expected) in rows {
        let body = [*prefix, rest].concat();
        assert_eq!(
            allowed(&body, "FooBot", "/x"),
            *expected,
            "prefix {prefix:?}"
        );
    }
    // A BOM later in the file is content too.
    assert!(allowed(
        b"user-agent: *\n\xEF\xBB\xBFdisallow: /\n",
        "FooBot",
        "/x"
    ));
}

fn s2_line_ends_and_line_numbers() {
    let rows: &[(&[u8], u32)] = &[
        (b"user-agent: *\ndisallow: /", 2),
        (b"user-agent: *\rdisallow: /", 2),
        (b"user-agent: *\r\ndisallow: /", 2),
        (b"user-agent: *\r\r\ndisallow: /", 3),
        (b"user-agent: *\n\rdisallow: /", 3),
        (b"user-agent: *\r\n\ndisallow: /", 3),
        (b"user-agent: *\r\n\r\ndisallow: /", 3),
        (b"user-agent: *\n\n\ndisallow: /", 4),
        (b"\r\nuser-agent: *\r\ndisallow: /", 3),
    ];
    for (body, line) in rows {
        assert_eq!(
            decide(body, &["FooBot"], "/x"),
            (false, *line),
            "body {body:?}"
        );
    }
}

fn s2_line_counts_exclude_the_empty_remainder() {
    let rows: &[(&[u8], u32)] = &[
        (b"", 0),
        (b"a", 1),
        (b"a\n", 1),
        (b"a\r\n", 1),
        (b"a\n\n", 2),
        (b"a\nb", 2),
        (b"a\r\r\nb\n", 3),
        (b"\n", 1),
        (b"a\n\0", 2),
    ];
    for (body, lines) in rows {
        assert_eq!(parse(body).stats().lines, *lines, "body {body:?}");
    }
}

fn s2_lines_keep_at_most_16663_bytes() {
    let head = b"disallow: /";
    for (length, kept_last) in [(MAX_LINE_BYTES, true), (MAX_LINE_BYTES + 1, false)] {
        let mut line = head.to_vec();
        line.resize(length - 1, b'a');
        line.push(b'z');
        let body = [b"user-agent: *\n".as_slice(), &line, b"\ndisallow: /next\n"].concat();
        let robots = parse(&body);
        let pattern = &robots.rules()[0].pattern;
        assert_eq!(
            pattern.last() == Some(&b'z'),
            kept_last,
            "line of {length} bytes"
        );
        assert_eq!(pattern.len(), MAX_LINE_BYTES - head.len() + 1);
        assert_eq!(
            &*robots.rules()[1].pattern,
            b"/next",
            "the next line is whole"
        );
    }
    // Leading whitespace counts towards the cap.
    let mut line = b"  disallow: /".to_vec();
    line.resize(MAX_LINE_BYTES + 1, b'a');
    let robots = parse(&[b"user-agent: *\n".as_slice(), &line].concat());
    assert_eq!(robots.rules()[0].pattern.len(), MAX_LINE_BYTES - 12);
}

fn s2_nul_ends_the_line() {
    check_rows(
        "§2 NUL",
        &[
            (b"user-agent: *\ndisallow: /a\0b\n", "FooBot", "/ax", false),
            (b"user-agent: *\ndisallow: /a\0b\n", "FooBot", "/b", true),
            (b"user-agent: *\n\0disallow: /\n", "FooBot", "/x", true),
            (b"user-agent: Foo\0Bar\ndisallow: /\n", "Foo", "/x", false),
        ],
    );
}

fn s2_total_size_is_unlimited_unless_cut() {
    let mut body = b"user-agent: *\n".to_vec();
    // The cut falls right after `disallow: /`.
    body.resize(GOOGLEBOT_MAX_BYTES - "disallow: /".len(), b'\n');
    body.extend_from_slice(b"disallow: /abc\n");
    let whole = parse(&body);
    assert_eq!(&*whole.rules()[0].pattern, b"/abc");
    assert!(!whole.stats().truncated);
    // The cut leaves a partial last line, parsed like any other.
    let cut = parse_with(&body, &ParseOptions::googlebot());
    assert_eq!(&*cut.rules()[0].pattern, b"/");
    let stats = cut.stats();
    assert!(stats.truncated);
    assert_eq!(stats.bytes, body.len());
    let exact = parse_with(
        &body,
        &ParseOptions {
            max_bytes: Some(body.len()),
        },
    );
    assert!(!exact.stats().truncated);
    let nothing = parse_with(&body, &ParseOptions { max_bytes: Some(0) });
    assert_eq!((nothing.stats().lines, nothing.groups().len()), (0, 0));
}

// Section 3: splitting a line into key and value.

fn s3_key_and_value() {
    check_rows(
        "§3",
        &[
            // The comment starts at the first `#`, even inside a value.
            (b"user-agent: *\ndisallow: /a#b\n", "FooBot", "/a", false),
            (
                b"user-agent: * # everyone\ndisallow: /a\n",
                "FooBot",
                "/a",
                false,
            ),
            (b"user-agent: *\n# disallow: /a\n", "FooBot", "/a", true),
            // Trimming strips SP, HT, VT, FF (and CR, LF).
            (
                b"user-agent: *\n\x0b\x0c disallow: /a \t\x0b\x0c\n",
                "FooBot",
                "/a",
                false,
            ),
            // Without a colon, SP or HT separate exactly two tokens.
            (b"user-agent: *\ndisallow /a\n", "FooBot", "/a", false),
            (b"user-agent: *\ndisallow\t/a\n", "FooBot", "/a", false),
            (b"user-agent: *\ndisallow /a /b\n", "FooBot", "/a", true),
            (b"user-agent Foo Bar\ndisallow: /a\n", "Foo", "/a", true),
            (b"user-agent *\ndisallow /a\n", "FooBot", "/a", false),
            // VT is not a separator, and after the blank only SP and HT are skipped.
            (b"user-agent: *\ndisallow\x0b/a\n", "FooBot", "/a", true),
            (b"user-agent: *\ndisallow \x0b /a\n", "FooBot", "/a", true),
            // The first colon separates: key `disallow /a`, value `b`, which never matches.
            (b"user-agent: *\ndisallow /a:b\n", "FooBot", "/a", true),
            (b"user-agent: *\ndisallow /a:b\n", "FooBot", "/b", true),
            // An empty key is no directive.
            (b"user-agent: *\n: /a\n", "FooBot", "/a", true),
            // Inner spaces are kept in the value.
            (b"user-agent: *\ndisallow: /a b\n", "FooBot", "/a%20b", true),
            (b"user-agent: *\ndisallow: /a b\n", "FooBot", "/a b", false),
        ],
    );
    let robots = parse(b"user-agent: *\ndisallow /a:b\n");
    assert_eq!(&*robots.rules()[0].pattern, b"b");
    assert_eq!(robots.rules()[0].text, "disallow /a:b");
}

// Section 4: key recognition.

fn s4_keys_by_prefix_with_typos() {
    let rows: &[(&str, Option<RuleKind>)] = &[
        ("allow", Some(RuleKind::Allow)),
        ("Allow", Some(RuleKind::Allow)),
        ("ALLOWANCE", Some(RuleKind::Allow)),
        ("alow", None),
        ("disallow", Some(RuleKind::Disallow)),
        ("DisAllow", Some(RuleKind::Disallow)),
        ("disallowed", Some(RuleKind::Disallow)),
        ("dissallow", Some(RuleKind::Disallow)),
        ("dissalow", Some(RuleKind::Disallow)),
        ("disalow", Some(RuleKind::Disallow)),
        ("diasllow", Some(RuleKind::Disallow)),
        ("disallaw", Some(RuleKind::Disallow)),
        ("dis-allow", None),
        ("noindex", None),
    ];
    for (key, kind) in rows {
        let robots = parse(format!("user-agent: *\n{key}: /a\n").as_bytes());
        assert_eq!(
            robots.rules().first().map(|rule| rule.kind),
            *kind,
            "key {key}"
        );
    }
    let agents = [
        "user-agent",
        "User-Agent",
        "USER-AGENTS",
        "User-AgentX",
        "useragent",
        "user agent",
    ];
    for key in agents {
        assert!(
            !allowed(
                format!("{key}: FooBot\ndisallow: /\n").as_bytes(),
                "FooBot",
                "/"
            ),
            "{key}"
        );
    }
    assert!(allowed(b"user_agent: FooBot\ndisallow: /\n", "FooBot", "/"));
    for key in ["sitemap", "Sitemap", "SITE-MAP", "sitemaps"] {
        let robots = parse(format!("{key}: http://h/s.xml\n").as_bytes());
        assert_eq!(robots.sitemaps().len(), 1, "{key}");
    }
}

fn s4_values_escaped_for_rules_raw_for_agents_and_sitemaps() {
    let robots = parse("user-agent: Bötbot\nsitemap: http://h/ä.xml\ndisallow: /ä%2f\n".as_bytes());
    assert_eq!(&*robots.groups()[0].agents[0], "Bötbot".as_bytes());
    assert_eq!(&*robots.sitemaps()[0], "http://h/ä.xml".as_bytes());
    assert_eq!(&*robots.rules()[0].pattern, b"/%C3%A4%2F");
    assert_eq!(robots.rules()[0].text, "disallow: /ä%2f");
}

fn s4_sitemap_and_unknown_lines_do_not_end_a_group() {
    let body =
        b"user-agent: a\nsitemap: http://h/s.xml\ncrawl-delay: 5\nuser-agent: b\ndisallow: /\n";
    for agent in ["a", "b"] {
        assert!(!allowed(body, agent, "/x"), "agent {agent}");
    }
    let robots = parse(body);
    assert_eq!(robots.groups().len(), 1);
    assert_eq!(robots.group_label(0), "a|b");
    // Nor does an unknown line between a rule and the next rule.
    assert!(!allowed(
        b"user-agent: a\nnoindex: /\ndisallow: /x\n",
        "a",
        "/x"
    ));
}

// Section 5: user-agent lines and groups.

fn s5_consecutive_agents_share_a_group() {
    check_rows(
        "§5 groups",
        &[
            // ID_LineSyntax_Groups_7: BazBot, a blank line and FooBot share a group.
            (
                b"user-agent: BazBot\n\nuser-agent: FooBot\ndisallow: /\n",
                "BazBot",
                "/x",
                false,
            ),
            (
                b"user-agent: BazBot\n# c\nuser-agent: FooBot\ndisallow: /\n",
                "BazBot",
                "/x",
                false,
            ),
            // A user-agent line after a rule starts a new group.
            (
                b"user-agent: a\ndisallow: /x\nuser-agent: b\ndisallow: /y\n",
                "a",
                "/y",
                true,
            ),
            (
                b"user-agent: a\ndisallow: /x\nuser-agent: b\ndisallow: /y\n",
                "b",
                "/x",
                true,
            ),
            // An empty value is a rule: it ends the agent run.
            (
                b"user-agent: a\nallow:\nuser-agent: b\ndisallow: /\n",
                "a",
                "/x",
                true,
            ),
            (
                b"user-agent: a\ndisallow:\nuser-agent: b\ndisallow: /\n",
                "b",
                "/x",
                false,
            ),
            // Rules before any user-agent line are ignored.
            (b"disallow: /\nuser-agent: *\n", "FooBot", "/x", true),
            (
                b"disallow: /\nuser-agent: *\ndisallow: /y\n",
                "FooBot",
                "/x",
                true,
            ),
        ],
    );
    let robots = parse(b"disallow: /\nuser-agent: *\nallow:\n");
    assert_eq!((robots.rules().len(), robots.stats().ignored_lines), (1, 1));
}

fn s5_global_agent_detection() {
    let rows: &[(&str, bool)] = &[
        ("*", true),
        ("* FooBot", true),
        ("*\tx", true),
        ("*\x0bx", true),
        ("*Bot", false),
        ("*/1.0", false),
        ("**", false),
    ];
    for (value, global) in rows {
        let body = format!("user-agent: {value}\ndisallow: /\n");
        let robots = parse(body.as_bytes());
        assert_eq!(
            robots
                .select(&[b"OtherBot"], TokenMatch::Google)
                .is_global(),
            *global,
            "{value:?}"
        );
        assert_eq!(
            robots
                .select(&[b"OtherBot"], TokenMatch::ProductName)
                .is_global(),
            *global,
            "{value:?}"
        );
    }
}

fn s5_agent_values_reduce_to_the_leading_letter_run() {
    let rows: &[(&str, &str, bool)] = &[
        ("FooBot/1.2", "FooBot", true),
        ("Foo Bar", "Foo", true),
        ("Foo Bar", "Foo Bar", false),
        ("Foo2Bot", "Foo", true),
        ("Foo2Bot", "Foo2Bot", false),
        ("FooBot*", "FooBot", true),
        ("*Bot", "Bot", false),
        ("ツFoo", "Foo", false),
        ("foobot", "FOOBOT", true),
        ("Foo_Bot-x", "foo_bot-X", true),
        // The caller's token is not reduced.
        ("FooBot/1.0", "FooBot/1.0", false),
        ("FooBot", "FooBot/1.0", false),
        // No prefix or hierarchy matching.
        ("FooBot-News", "FooBot", false),
        ("FooBot", "FooBot-News", false),
        // An empty reduced value equals an empty caller token.
        ("", "", true),
        ("*Bot", "", true),
    ];
    for (value, token, named) in rows {
        let body = format!("user-agent: {value}\ndisallow: /\n");
        assert_eq!(
            !allowed(body.as_bytes(), token, "/x"),
            *named,
            "value {value:?} token {token:?}"
        );
    }
}

fn s5_star_and_specific_in_one_group() {
    let body = b"user-agent: *\nuser-agent: FooBot\ndisallow: /a\n\nuser-agent: *\ndisallow: /b\n";
    // Specific for FooBot: the second `*` group does not apply.
    assert_eq!(decide(body, &["FooBot"], "/a"), (false, 3));
    assert_eq!(decide(body, &["FooBot"], "/b"), (true, 0));
    // Global for everyone else: both `*` groups merge.
    assert_eq!(decide(body, &["BarBot"], "/a"), (false, 3));
    assert_eq!(decide(body, &["BarBot"], "/b"), (false, 6));
}

fn s5_groups_naming_the_agent_merge_and_so_do_star_groups() {
    let body = b"user-agent: FooBot\ndisallow: /a\nuser-agent: *\ndisallow: /s\n\
                 user-agent: BarBot\ndisallow: /b\nuser-agent: foobot\nallow: /a/ok\n\
                 user-agent: *\ndisallow: /t\n";
    let rows: &[(&[&str], &str, (bool, u32))] = &[
        (&["FooBot"], "/a", (false, 2)),
        (&["FooBot"], "/a/ok", (true, 8)),
        (&["FooBot"], "/s", (true, 0)),
        (&["Other"], "/s", (false, 4)),
        (&["Other"], "/t", (false, 10)),
        // Several caller tokens: every group naming any of them applies, merged.
        (&["FooBot", "BarBot"], "/b", (false, 6)),
        (&["FooBot", "BarBot"], "/a/ok", (true, 8)),
        (&["FooBot", "BarBot"], "/t", (true, 0)),
        // Not "allowed if any token alone is allowed": BarBot alone may fetch /a.
        (&["BarBot"], "/a", (true, 0)),
        (&["FooBot", "BarBot"], "/a", (false, 2)),
    ];
    for (agents, url, expected) in rows {
        assert_eq!(
            decide(body, agents, url),
            *expected,
            "agents {agents:?} url {url}"
        );
    }
}

// Section 6: the decision.

fn s6_decision() {
    check_rows(
        "§6",
        &[
            // A tie goes to allow.
            (
                b"user-agent: *\ndisallow: /a\nallow: /a\n",
                "FooBot",
                "/a",
                true,
            ),
            (
                b"user-agent: *\nallow: /a$\ndisallow: /*a\n",
                "FooBot",
                "/a",
                true,
            ),
            // Named anywhere: `*` is ignored, even with an empty group (ID_LongestMatch_13).
            (
                b"user-agent: FooBot\n\nuser-agent: *\ndisallow: /\n",
                "FooBot",
                "/x",
                false,
            ),
            (
                b"user-agent: FooBot\nallow:\nuser-agent: *\ndisallow: /\n",
                "FooBot",
                "/x",
                true,
            ),
            (
                b"user-agent: FooBot\ndisallow:\nuser-agent: *\ndisallow: /\n",
                "FooBot",
                "/x",
                true,
            ),
            (
                b"user-agent: FooBot\ndisallow: /y\nuser-agent: *\ndisallow: /\n",
                "FooBot",
                "/x",
                true,
            ),
            (
                b"user-agent: *\ndisallow: /\nuser-agent: FooBot\n",
                "FooBot",
                "/x",
                true,
            ),
            // Not named: the `*` rules decide.
            (
                b"user-agent: BarBot\nallow: /\nuser-agent: *\ndisallow: /\n",
                "FooBot",
                "/x",
                false,
            ),
            // Nothing applies: allowed.
            (b"", "FooBot", "/x", true),
            (b"user-agent: BarBot\ndisallow: /\n", "FooBot", "/x", true),
            (b"user-agent: *\ndisallow:\nallow:\n", "FooBot", "/x", true),
        ],
    );
    assert_eq!(
        decide(b"user-agent: *\ndisallow:\n", &["FooBot"], "/x"),
        (true, 0)
    );
}

// Section 7: pattern matching.

fn s7_matching() {
    let rows: &[(&str, &str, bool)] = &[
        ("/", "/", true),
        ("/a", "/abc", true),
        ("/abc", "/a", false),
        ("/b", "/ab", false),
        ("/*", "/", true),
        ("/*c", "/a/b?c", true),
        ("/a*", "/a", true),
        ("/a**b", "/ab", true),
        ("/*/*/tree/master", "/google/robotstxt/tree/master/x", true),
        ("/*/*/tree/master$", "/google/robotstxt/tree/master", true),
        (
            "/*/*/tree/master$",
            "/google/robotstxt/tree/master/x",
            false,
        ),
        ("/*ab", "/aab", true),
        ("/a$b", "/a$bc", true),
        ("/a$$", "/a$", true),
        ("/a$$", "/a$$", false),
        ("/a$", "/a", true),
        ("/a$", "/a?", false),
        ("$", "/", false),
        ("a", "/a", false),
        ("/Fish", "/fish", false),
        ("/fish", "/Fish", false),
    ];
    for (pattern, url, matches) in rows {
        let body = format!("user-agent: *\ndisallow: {pattern}\n");
        assert_eq!(
            !allowed(body.as_bytes(), "FooBot", url),
            *matches,
            "{pattern} on {url}"
        );
    }
}

fn s7_priority_is_the_escaped_length() {
    check_rows(
        "§7 priority",
        &[
            // ID_LongestMatch_9: `/*.html` (7) beats `/page` (5).
            (
                b"user-agent: *\nallow: /page\ndisallow: /*.html\n",
                "FooBot",
                "/page.html",
                false,
            ),
            // Stars count: `/a**` (4) beats `/a*c` ... and `/a*` (3).
            (
                b"user-agent: *\ndisallow: /a*\nallow: /a**\n",
                "FooBot",
                "/ab",
                true,
            ),
            (
                b"user-agent: *\nallow: /a*\ndisallow: /a**\n",
                "FooBot",
                "/ab",
                false,
            ),
            // `$` counts: `/a$` (3) beats `/a` (2).
            (
                b"user-agent: *\nallow: /a\ndisallow: /a$\n",
                "FooBot",
                "/a",
                false,
            ),
            // Non-ASCII counts three bytes per byte: `/ä` is `/%C3%A4` (7) and beats `/%C3%` (5).
            (
                "user-agent: *\nallow: /%C3%\ndisallow: /ä\n".as_bytes(),
                "FooBot",
                "/%C3%A4",
                false,
            ),
            (
                "user-agent: *\nallow: /ä\ndisallow: /%C3%A4\n".as_bytes(),
                "FooBot",
                "/%C3%A4",
                true,
            ),
            // The priority is the pattern's length, not the length of what it matched.
            (
                b"user-agent: *\nallow: /*x\ndisallow: /abc\n",
                "FooBot",
                "/abcdefx",
                false,
            ),
        ],
    );
}

fn s7_reported_rule_is_the_first_among_equals() {
    let body = b"user-agent: *\ndisallow: /a\ndisallow: /*\ndisallow: /a\nallow: /b\nallow: /b\n";
    assert_eq!(decide(body, &["FooBot"], "/a"), (false, 2));
    assert_eq!(decide(body, &["FooBot"], "/b"), (true, 5));
    assert_eq!(decide(body, &["FooBot"], "/c"), (false, 3));
}

// Section 8: percent-encoding.

fn s8_patterns_are_normalised_urls_are_not() {
    let rows: &[(&str, &str, bool)] = &[
        ("/a%2fb", "/a%2Fb", true),
        ("/a%2fb", "/a%2fb", false),
        ("/a%2Fb", "/a%2fb", false),
        ("/ä", "/%C3%A4", true),
        ("/ä", "/%c3%a4", false),
        ("/ä", "/ä", false),
        ("/%C3%A4", "/ä", false),
        ("/%62%61%7A", "/baz", false),
        ("/baz", "/%62%61%7A", false),
        ("/%62%61%7A", "/%62%61%7A", true),
        ("/a b", "/a b", true),
        ("/a\"b", "/a\"b", true),
        ("/a?b", "/a?b", true),
        ("/%zz", "/%zz", true),
        ("/%", "/%", true),
        ("/%2", "/%2", true),
    ];
    for (pattern, url, matches) in rows {
        let body = format!("user-agent: *\ndisallow: {pattern}\n");
        assert_eq!(
            !allowed(body.as_bytes(), "FooBot", url),
            *matches,
            "{pattern} on {url}"
        );
    }
    let escapes: &[(&[u8], &[u8])] = &[
        (b"/%2f", b"/%2F"),
        (b"/%aB", b"/%AB"),
        (b"/%zz", b"/%zz"),
        (b"/%a", b"/%a"),
        (b"/\xE4", b"/%E4"),
        (b"/a b?c", b"/a b?c"),
    ];
    for (value, expected) in escapes {
        assert_eq!(&*escape_pattern(value), *expected, "value {value:?}");
    }
}

// Section 9: the index.htm special case.

fn s9_index_htm_also_allows_the_directory() {
    let body = b"user-agent: *\ndisallow: /d/\nallow: /d/index.html\n";
    let rows: &[(&str, (bool, u32))] = &[
        ("/d/", (true, 3)),
        ("/d/index.html", (true, 3)),
        ("/d/?q", (false, 2)),
        ("/d/x", (false, 2)),
    ];
    for (url, expected) in rows {
        assert_eq!(decide(body, &["FooBot"], url), *expected, "url {url}");
    }
    check_rows(
        "§9",
        &[
            // The rewrite has priority last_slash + 2: `/$` (2) ties with `/*` ...
            (
                b"user-agent: *\ndisallow: /*\nallow: /index.html\n",
                "FooBot",
                "/",
                true,
            ),
            // ... and loses to `/*$` (3).
            (
                b"user-agent: *\ndisallow: /*$\nallow: /index.html\n",
                "FooBot",
                "/",
                false,
            ),
            // `index.htm5` and `index.htm*` qualify; the check is case-sensitive.
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/index.htm5\n",
                "FooBot",
                "/d/",
                true,
            ),
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/index.htm*\n",
                "FooBot",
                "/d/",
                true,
            ),
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/Index.html\n",
                "FooBot",
                "/d/",
                false,
            ),
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/index.ht\n",
                "FooBot",
                "/d/",
                false,
            ),
            // Only the last segment counts.
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/index.html/x\n",
                "FooBot",
                "/d/",
                false,
            ),
            // Wildcards in the prefix stay wildcards.
            (
                b"user-agent: *\ndisallow: /\nallow: /*/index.html\n",
                "FooBot",
                "/abc/",
                true,
            ),
            // Disallow lines never get the rewrite.
            (
                b"user-agent: *\ndisallow: /d/index.html\n",
                "FooBot",
                "/d/",
                true,
            ),
        ],
    );
}

// Section 10: URL to path.

fn s10_path_params_query() {
    let rows: &[(&str, &str)] = &[
        ("", "/"),
        ("http://h", "/"),
        ("a", "/"),
        ("a/", "/"),
        ("a/b", "/b"),
        ("/a", "/a"),
        ("example.com?a", "/?a"),
        ("example.com;a", "/;a"),
        ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
        ("http://h#/a", "/"),
        ("http://h/a#b", "/a"),
        ("http://h:8080/a", "/a"),
        ("http://u:p@h/a", "/a"),
        ("https://H/A/b?C=D#E", "/A/b?C=D"),
        ("http://h/a/../b/./c", "/a/../b/./c"),
        ("http://h/%7e?a=%2F", "/%7e?a=%2F"),
        ("/a?b=http://c/d", "/a?b=http://c/d"),
        ("h?x://y", "/?x://y"),
    ];
    for (url, path) in rows {
        assert_eq!(
            &*path_params_query(url.as_bytes()),
            path.as_bytes(),
            "url {url}"
        );
    }
    // The verdict sees the query but not the fragment.
    assert!(!allowed(
        b"user-agent: *\ndisallow: /*?q\n",
        "FooBot",
        "http://h/a?q=1#x"
    ));
    assert!(allowed(
        b"user-agent: *\ndisallow: /a#\n",
        "FooBot",
        "http://h/b#a"
    ));
}

// Section 11: case sensitivity.

fn s11_case_sensitivity() {
    check_rows(
        "§11",
        &[
            (b"USER-AGENT: FOOBOT\nDISALLOW: /x\n", "foobot", "/x", false),
            (b"user-agent: foobot\ndisallow: /x\n", "FOOBOT", "/x", false),
            (b"user-agent: *\ndisallow: /X\n", "FooBot", "/x", true),
            (
                b"user-agent: *\ndisallow: /x%2a\n",
                "FooBot",
                "/x%2A",
                false,
            ),
            (b"user-agent: *\ndisallow: /x%2a\n", "FooBot", "/x%2a", true),
            (
                b"user-agent: *\ndisallow: /d/\nallow: /d/INDEX.html\n",
                "FooBot",
                "/d/",
                false,
            ),
        ],
    );
}

// The audit's product-name comparison (docs/contract.md, "Semantics of one request", step 5).

fn product_names_and_fallback_order() {
    let body = b"user-agent: MJ12bot\ndisallow: /mj\n\nuser-agent: archive.org_bot\ndisallow: /ia\n\n\
                 user-agent: 360Spider/2.0\ndisallow: /360\n\nuser-agent: googlebot\ndisallow: /g\n\n\
                 user-agent: Baiduspider+(+http://www.baidu.com/search/spider.htm)\ndisallow: /bd\n\n\
                 user-agent: bingbot(at)microsoft.com\ndisallow: /bing\n\n\
                 user-agent: AhrefsBot,SlySearch\ndisallow: /ahrefs\n\n\
                 user-agent: *\ndisallow: /all\n";
    let rows: &[(&[&str], &str, (bool, u32))] = &[
        (&["MJ12bot"], "/mj", (false, 2)),
        (&["mj12BOT"], "/mj", (false, 2)),
        // Google's reduction of `MJ12bot` is `MJ`, which the audit's rule keeps too.
        (&["MJ"], "/mj", (false, 2)),
        (&["archive.org_bot"], "/ia", (false, 5)),
        (&["archive"], "/ia", (false, 5)),
        (&["360Spider"], "/360", (false, 8)),
        (&["Googlebot-Image", "Googlebot"], "/g", (false, 11)),
        (&["Googlebot-Image", "Googlebot"], "/all", (true, 0)),
        (&["baiduspider"], "/bd", (false, 14)),
        (&["Baiduspider"], "/all", (true, 0)),
        (&["bingbot"], "/bing", (false, 17)),
        (&["ahrefsbot"], "/ahrefs", (false, 20)),
        // Only the first product of a list is a name.
        (&["SlySearch"], "/all", (false, 23)),
        // The first token named wins; later ones are not consulted.
        (&["MJ12bot", "Googlebot"], "/g", (true, 0)),
        (&["NoSuchBot"], "/all", (false, 23)),
    ];
    for (agents, url, expected) in rows {
        assert_eq!(
            decide_with(body, agents, url, TokenMatch::ProductName),
            *expected,
            "{agents:?} {url}"
        );
    }
    // Google's reduction cuts these names short.
    assert_eq!(decide(body, &["MJ12bot"], "/all"), (false, 23));
    assert_eq!(decide(body, &["MJ"], "/mj"), (false, 2));
    assert_eq!(decide(body, &["baiduspider"], "/bd"), (false, 14));
}

/// `(user-agent value, token, whether the value names the token)` under the audit's rule.
fn group_names_are_googles_reduction_or_the_product_name() {
    let rows: &[(&str, &str, bool)] = &[
        // Whole names with digits, dots and underscores.
        ("MJ12bot", "MJ12bot", true),
        ("MJ12bot", "mj12BOT", true),
        ("archive.org_bot", "archive.org_bot", true),
        ("360Spider", "360Spider", true),
        ("360Spider/2.0", "360spider", true),
        // Google's reduction names a token too.
        ("MJ12bot", "MJ", true),
        ("archive.org_bot", "archive", true),
        ("360Spider", "Spider", false),
        (
            "Baiduspider+(+http://www.baidu.com/search/spider.htm)",
            "baiduspider",
            true,
        ),
        (
            "Baiduspider+(+http://www.baidu.com/search/spider.htm)",
            "Baiduspider+",
            false,
        ),
        ("bingbot(at)microsoft.com", "bingbot", true),
        ("bingbot(at)microsoft.com", "microsoft.com", false),
        ("AhrefsBot,SlySearch", "ahrefsbot", true),
        ("AhrefsBot,SlySearch", "SlySearch", false),
        // The product name ends at any other byte.
        ("FooBot", "FooBot", true),
        ("FooBot/1.0", "FooBot", true),
        ("FooBot 1.0", "FooBot", true),
        ("FooBot\t1.0", "FooBot", true),
        ("FooBot*", "FooBot", true),
        ("FooBot;x", "FooBot", true),
        ("foobot", "FooBot", true),
        ("FooBot2", "FooBot", true),
        ("FooBot2", "FooBot2", true),
        ("FooBot.x", "FooBot", true),
        ("FooBot.x", "FooBot.x", true),
        ("Foo-Bot_x", "Foo-Bot_x", true),
        ("xFooBot", "FooBot", false),
        ("*FooBot", "FooBot", false),
        ("FooBot", "FooBot/1.0", false),
        ("FooBotX", "FooBot", false),
    ];
    for (value, token, named) in rows {
        let body = format!("user-agent: {value}\ndisallow: /\n");
        let robots = parse(body.as_bytes());
        let selection = robots.select(&[token.as_bytes()], TokenMatch::ProductName);
        assert_eq!(!selection.is_empty(), *named, "{value:?} names {token:?}");
        assert!(!selection.is_global());
    }
}

// Parse statistics, labels and the 1994 reading.

fn stats_count_lines_groups_rules_and_ignored_lines() {
    let body =
        b"# header\n\ndisallow: /early\nuser-agent: a\nuser-agent: b\nallow: /x\ndisallow:\n\
                 sitemap: http://h/s.xml\nsitemap:\nnoindex: /y\ngarbage line here\n: /z\n\
                 user-agent: *\ndisallow: /w\n";
    let stats = *parse(body).stats();
    assert_eq!(
        (
            stats.lines,
            stats.groups,
            stats.rules,
            stats.ignored_lines,
            stats.bytes,
            stats.truncated
        ),
        (14, 2, 3, 5, body.len(), false)
    );
}

fn groups_rules_and_labels() {
    let robots = parse(
        b"user-agent: a\nUser-Agent: B/1.0 # c\ndisallow: /x # no\n\nuser-agent: *\nallow: /\n",
    );
    assert_eq!(robots.groups().len(), 2);
    assert_eq!(
        (robots.groups()[0].line, robots.groups()[0].rules.clone()),
        (1, 0..1)
    );
    assert_eq!(
        (robots.groups()[1].line, robots.groups()[1].rules.clone()),
        (5, 1..2)
    );
    assert_eq!(robots.group_label(0), "a|B/1.0");
    assert_eq!(robots.group_label(1), "*");
    let rule = &robots.rules()[0];
    assert_eq!(
        (rule.kind, rule.text.as_str(), rule.line, rule.group),
        (RuleKind::Disallow, "disallow: /x", 3, 0)
    );
    let lossy = parse(b"user-agent: \xFFbot\ndisallow: /\xFF\n");
    assert_eq!(lossy.group_label(0), "\u{FFFD}bot");
    assert_eq!(lossy.rules()[0].text, "disallow: /\u{FFFD}");
}

fn the_1994_reading() {
    let body = b"user-agent: FooBot\nallow: /a/ok\ndisallow: /a\ndisallow: /*.pdf\ndisallow: /b$\n\
                 disallow: /a/o\n\nuser-agent: *\ndisallow: /\n";
    let robots = parse(body);
    let foobot = robots.select(&[b"FooBot"], TokenMatch::Google);
    let rows: &[(&str, Option<u32>)] = &[
        ("/a/ok", Some(1)),
        ("/a", Some(1)),
        ("/x.pdf", None),
        ("/*.pdf", Some(2)),
        ("/b", None),
        ("/b$x", Some(3)),
        ("/c", None),
    ];
    for (path, expected) in rows {
        assert_eq!(
            robots.disallowed_1994(&foobot, path.as_bytes()),
            *expected,
            "path {path}"
        );
    }
    let other = robots.select(&[b"Other"], TokenMatch::Google);
    assert_eq!(robots.disallowed_1994(&other, b"/x"), Some(5));
    assert_eq!(
        robots.disallowed_1994(&robots.select(&[], TokenMatch::Google), b"/x"),
        Some(5)
    );
    let empty = parse(b"user-agent: *\ndisallow:\n");
    assert_eq!(
        empty.disallowed_1994(&empty.select(&[], TokenMatch::Google), b"/x"),
        None
    );
}

every_strategy!(
    s2_byte_order_mark_prefixes,
    s2_line_ends_and_line_numbers,
    s2_line_counts_exclude_the_empty_remainder,
    s2_lines_keep_at_most_16663_bytes,
    s2_nul_ends_the_line,
    s2_total_size_is_unlimited_unless_cut,
    s3_key_and_value,
    s4_keys_by_prefix_with_typos,
    s4_values_escaped_for_rules_raw_for_agents_and_sitemaps,
    s4_sitemap_and_unknown_lines_do_not_end_a_group,
    s5_consecutive_agents_share_a_group,
    s5_global_agent_detection,
    s5_agent_values_reduce_to_the_leading_letter_run,
    s5_star_and_specific_in_one_group,
    s5_groups_naming_the_agent_merge_and_so_do_star_groups,
    s6_decision,
    s7_matching,
    s7_priority_is_the_escaped_length,
    s7_reported_rule_is_the_first_among_equals,
    s8_patterns_are_normalised_urls_are_not,
    s9_index_htm_also_allows_the_directory,
    s10_path_params_query,
    s11_case_sensitivity,
    product_names_and_fallback_order,
    group_names_are_googles_reduction_or_the_product_name,
    stats_count_lines_groups_rules_and_ignored_lines,
    groups_rules_and_labels,
    the_1994_reading,
);
