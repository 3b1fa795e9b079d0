//! Crawl-rate and usage-preference directives through the public API: which group they join,
//! what a selection sees, the lines reported, and that they never move a verdict.

use std::time::Duration;

use proptest::prelude::*;
use robots_audit_engine::{
    DirectiveKind, IgnoredReason, Robots, Stance, TokenMatch, Use, VisitTime, path_params_query,
};

fn select(robots: &Robots, agent: &str) -> robots_audit_engine::Selection {
    robots.select(&[agent.as_bytes()], TokenMatch::ProductName)
}

fn delay(body: &str, agent: &str) -> Option<(Duration, u32, String)> {
    let robots = Robots::parse(body.as_bytes());
    let selection = select(&robots, agent);
    robots
        .crawl_delay(&selection)
        .map(|(delay, line)| (delay, line.line, line.text.clone()))
}

#[test]
fn crawl_delay_of_the_selection() {
    let secs = Duration::from_secs;
    type Case = (
        &'static str,
        &'static str,
        Option<(Duration, u32, &'static str)>,
    );
    let cases: &[Case] = &[
        (
            "user-agent: bingbot\ncrawl-delay: 10\n",
            "bingbot",
            Some((secs(10), 2, "crawl-delay: 10")),
        ),
        // Two delays in one group: the largest wins, whatever the order.
        (
            "user-agent: *\ncrawl-delay: 10\ncrawl-delay: 5\n",
            "x",
            Some((secs(10), 2, "crawl-delay: 10")),
        ),
        (
            "user-agent: *\ncrawl-delay: 5\ncrawl-delay: 10s\n",
            "x",
            Some((secs(10), 3, "crawl-delay: 10s")),
        ),
        // Equal delays: the first line is reported.
        (
            "user-agent: *\ncrawl-delay: 5\ncrawl-delay: 5.0\n",
            "x",
            Some((secs(5), 2, "crawl-delay: 5")),
        ),
        (
            "user-agent: *\nCrawl-delay: .5 # half\n",
            "x",
            Some((Duration::from_millis(500), 2, "Crawl-delay: .5")),
        ),
        // Merged groups naming the same bot: the largest over the groups.
        (
            "user-agent: bingbot\ncrawl-delay: 2\ndisallow: /a\nuser-agent: bingbot\ncrawl-delay: 7\n",
            "bingbot",
            Some((secs(7), 5, "crawl-delay: 7")),
        ),
        // A bot with its own group does not see the `*` group's delay.
        (
            "user-agent: *\ncrawl-delay: 9\ndisallow:\n\nuser-agent: bingbot\ndisallow: /x\n",
            "bingbot",
            None,
        ),
        (
            "user-agent: *\ncrawl-delay: 9\ndisallow:\n\nuser-agent: bingbot\ndisallow: /x\n",
            "other",
            Some((secs(9), 2, "crawl-delay: 9")),
        ),
        // Without a rule after it, the `*` group goes on through the blank line (Google), so
        // bingbot's user-agent line joins it, delay included.
        (
            "user-agent: *\ncrawl-delay: 9\n\nuser-agent: bingbot\ndisallow: /x\n",
            "bingbot",
            Some((secs(9), 2, "crawl-delay: 9")),
        ),
        // An unknown line between user-agent lines does not end a group (Google), so the delay
        // written under `a` applies to `b` too.
        (
            "user-agent: a\ncrawl-delay: 5\nuser-agent: b\ndisallow: /\n",
            "b",
            Some((secs(5), 2, "crawl-delay: 5")),
        ),
        // After a rule, a user-agent line starts a new group: the delay stays with `a`.
        (
            "user-agent: a\ndisallow: /\ncrawl-delay: 5\nuser-agent: b\ndisallow: /\n",
            "b",
            None,
        ),
        (
            "user-agent: a\ndisallow: /\ncrawl-delay: 5\nuser-agent: b\ndisallow: /\n",
            "a",
            Some((secs(5), 3, "crawl-delay: 5")),
        ),
        // Before any user-agent line, empty or malformed: ignored.
        ("crawl-delay: 5\nuser-agent: *\ndisallow: /\n", "x", None),
        ("user-agent: *\ncrawl-delay:\n", "x", None),
        ("user-agent: *\nCrawl-Delay: [5]\n", "x", None),
        // A malformed delay next to a good one leaves the good one in force.
        (
            "user-agent: *\ncrawl-delay: soon\ncrawl-delay: 3\n",
            "x",
            Some((secs(3), 3, "crawl-delay: 3")),
        ),
        // Google's two-token rule without a colon applies to these keys too.
        (
            "user-agent: *\ncrawl-delay 4\n",
            "x",
            Some((secs(4), 2, "crawl-delay 4")),
        ),
    ];
    for (body, agent, expected) in cases {
        let expected = expected.map(|(d, line, text)| (d, line, text.to_owned()));
        assert_eq!(delay(body, agent), expected, "body {body:?} agent {agent}");
    }
}

#[test]
fn request_rate_and_visit_time_of_the_selection() {
    let robots = Robots::parse(
        b"User-agent: *\nRequest-rate: 1/5         # one page every 5 seconds\n\
          Request-rate: 1/10s\nRequest-rate: 5/1\nVisit-time: 0400-0845\nVisit-time: 2200-0100\n\
          Visit-time: 25:00-26:00\n",
    );
    let all = select(&robots, "x");
    let (rate, line) = robots.request_rate(&all).unwrap();
    assert_eq!(
        (rate.requests, rate.per, line.line),
        (1, Duration::from_secs(10), 3)
    );
    let windows: Vec<(VisitTime, u32)> = robots
        .visit_times(&all)
        .map(|(window, line)| (window, line.line))
        .collect();
    assert_eq!(
        windows,
        [
            (
                VisitTime {
                    start: 240,
                    end: 525
                },
                5
            ),
            (
                VisitTime {
                    start: 1320,
                    end: 60
                },
                6
            )
        ]
    );
    let ignored: Vec<_> = robots
        .ignored_directives()
        .iter()
        .map(|i| (i.kind, i.reason, i.line, i.text.as_str()))
        .collect();
    assert_eq!(
        ignored,
        [(
            DirectiveKind::VisitTime,
            IgnoredReason::Malformed,
            7,
            "Visit-time: 25:00-26:00"
        )]
    );
}

#[test]
fn content_signal_of_the_selection() {
    let body =
        b"User-Agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nAllow: /\n\n\
        User-Agent: GPTBot\nContent-Signal: ai-train=no\nContent-Signal: /docs/ ai-train=yes\n\
        Disallow: /private/\n\nUser-Agent: GPTBot\nContent-Signal: /docs/ ai-train=no\n";
    let robots = Robots::parse(body);
    let any = select(&robots, "OtherBot");
    let gpt = select(&robots, "GPTBot");
    type Case = (&'static str, &'static [u8], Use, Option<(Stance, u32)>);
    let cases: &[Case] = &[
        ("OtherBot", b"/a", Use::Search, Some((Stance::Yes, 2))),
        ("OtherBot", b"/a", Use::AiInput, Some((Stance::Yes, 2))),
        ("OtherBot", b"/a", Use::TrainAi, Some((Stance::No, 2))),
        // GPTBot's groups replace `*`: no statement about search.
        ("GPTBot", b"/a", Use::Search, None),
        ("GPTBot", b"/a", Use::TrainAi, Some((Stance::No, 6))),
        // The longest path decides; two equally long in merged groups: `no` wins.
        ("GPTBot", b"/docs/x", Use::TrainAi, Some((Stance::No, 11))),
    ];
    for (agent, path, use_, expected) in cases {
        let selection = if *agent == "GPTBot" { &gpt } else { &any };
        let got = robots
            .signal(selection, path, *use_)
            .map(|p| (p.value, p.line));
        assert_eq!(got, *expected, "{agent} {path:?} {use_:?}");
    }
    let preference = robots.signal(&gpt, b"/docs/x", Use::TrainAi).unwrap();
    assert_eq!(
        (preference.kind, preference.text),
        (
            DirectiveKind::ContentSignal,
            "Content-Signal: /docs/ ai-train=no"
        )
    );
}

#[test]
fn content_usage_follows_the_attachment_draft_example() {
    // The example of draft-ietf-aipref-attach section 3.4.
    let body = b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: / train-ai=n\n\
        Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\n\
        Content-Usage: / train-ai=y\n";
    let robots = Robots::parse(body);
    let other = select(&robots, "OtherBot");
    let example = select(&robots, "ExampleBot");
    let usage = |selection, path: &[u8]| {
        robots
            .usage(selection, path, Use::TrainAi)
            .map(|p| (p.value, p.line))
    };
    assert_eq!(usage(&other, b"/test"), Some((Stance::No, 4)));
    assert_eq!(usage(&other, b"/ai-ok/test"), Some((Stance::Yes, 5)));
    assert_eq!(usage(&example, b"/test"), Some((Stance::Yes, 9)));
    assert!(!robots.verdict(&other, b"/never/test").allowed);
}

#[test]
fn content_usage_precedence_and_hierarchy() {
    type Case = (&'static str, &'static [u8], Use, Option<(Stance, u32)>);
    let cases: &[Case] = &[
        // Without a path the rule applies to every path, below any rule naming a path.
        (
            "user-agent: *\ncontent-usage: train-ai=n\n",
            b"/x",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        (
            "user-agent: *\ncontent-usage: train-ai=n\n",
            b"",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        (
            "user-agent: *\ncontent-usage: train-ai=n\ncontent-usage: / train-ai=y\n",
            b"/x",
            Use::TrainAi,
            Some((Stance::Yes, 3)),
        ),
        // Same path, conflicting values: the most restrictive wins, whatever the order.
        (
            "user-agent: *\ncontent-usage: / train-ai=n\ncontent-usage: / train-ai=y\n",
            b"/x",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        (
            "user-agent: *\ncontent-usage: / train-ai=y\ncontent-usage: / train-ai=n\n",
            b"/x",
            Use::TrainAi,
            Some((Stance::No, 3)),
        ),
        // A broader category's `n` covers the narrower ones...
        (
            "user-agent: *\ncontent-usage: / bots=n\n",
            b"/x",
            Use::Search,
            Some((Stance::No, 2)),
        ),
        // ... unless the narrower one is stated in the same rule.
        (
            "user-agent: *\ncontent-usage: / bots=n, search=y\n",
            b"/x",
            Use::Search,
            Some((Stance::Yes, 2)),
        ),
        // Separate rules on the same path are separate statements: the `n` wins.
        (
            "user-agent: *\ncontent-usage: / search=y\ncontent-usage: / bots=n\n",
            b"/x",
            Use::Search,
            Some((Stance::No, 3)),
        ),
        // The longest matching rule decides even when it says nothing about the use.
        (
            "user-agent: *\ncontent-usage: / train-ai=n\ncontent-usage: /blog/ search=y\n",
            b"/blog/a",
            Use::TrainAi,
            None,
        ),
        (
            "user-agent: *\ncontent-usage: / train-ai=n\ncontent-usage: /blog/ search=y\n",
            b"/blo",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        // Wildcards and end anchors match as in Allow and Disallow.
        (
            "user-agent: *\ncontent-usage: /*.pdf$ train-ai=n\n",
            b"/a/b.pdf",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        (
            "user-agent: *\ncontent-usage: /*.pdf$ train-ai=n\n",
            b"/a/b.pdf?x",
            Use::TrainAi,
            None,
        ),
        // Paths are escaped like rule patterns.
        (
            "user-agent: *\ncontent-usage: /caf\u{e9}/ train-ai=n\n",
            b"/caf%C3%A9/x",
            Use::TrainAi,
            Some((Stance::No, 2)),
        ),
        // A disallowed path keeps its preference here; the audit only asks for allowed requests.
        (
            "user-agent: *\ndisallow: /\ncontent-usage: / train-ai=n\n",
            b"/x",
            Use::TrainAi,
            Some((Stance::No, 3)),
        ),
    ];
    for (body, path, use_, expected) in cases {
        let robots = Robots::parse(body.as_bytes());
        let all = select(&robots, "x");
        let got = robots.usage(&all, path, *use_).map(|p| (p.value, p.line));
        assert_eq!(got, *expected, "body {body:?} path {path:?} {use_:?}");
    }
}

#[test]
fn preference_combines_both_mechanisms() {
    let robots = Robots::parse(
        b"user-agent: *\ncontent-signal: ai-train=no, search=yes\ncontent-usage: / train-ai=y, search=y\n",
    );
    let all = select(&robots, "x");
    let train = robots.preference(&all, b"/", Use::TrainAi).unwrap();
    assert_eq!(
        (train.value, train.kind, train.line),
        (Stance::No, DirectiveKind::ContentSignal, 2)
    );
    let search = robots.preference(&all, b"/", Use::Search).unwrap();
    assert_eq!(
        (search.value, search.kind, search.line),
        (Stance::Yes, DirectiveKind::ContentUsage, 3)
    );
    assert_eq!(robots.preference(&all, b"/", Use::AiInput), None);
}

#[test]
fn ignored_directives_are_listed_and_counted() {
    let body = b"Crawl-delay: 5\nuser-agent: *\nCrawl-delay:\nCrawl-Delay: [5]\nRequest-rate: 10\n\
        Visit-time: 0400\nContent-Signal: ai_train=no\nContent-Usage: / Train-AI=n\n\
        Content-Usage: / train-ai=n\nnoindex: /x\n";
    let robots = Robots::parse(body);
    let ignored: Vec<_> = robots
        .ignored_directives()
        .iter()
        .map(|i| (i.line, i.kind, i.reason.name()))
        .collect();
    assert_eq!(
        ignored,
        [
            (1, DirectiveKind::CrawlDelay, "outside_group"),
            (3, DirectiveKind::CrawlDelay, "empty"),
            (4, DirectiveKind::CrawlDelay, "malformed"),
            (5, DirectiveKind::RequestRate, "malformed"),
            (6, DirectiveKind::VisitTime, "malformed"),
            (7, DirectiveKind::ContentSignal, "nothing_known"),
            (8, DirectiveKind::ContentUsage, "malformed"),
        ]
    );
    // The seven above and the unknown `noindex`; the valid Content-Usage took effect.
    assert_eq!(robots.stats().ignored_lines, 8);
    assert_eq!(robots.directives().len(), 1);
    assert_eq!(robots.group_directives(0).len(), 1);
    assert!(robots.group_directives(1).is_empty());
}

/// Lines of every extension kind, valid, malformed and odd, as they may appear anywhere.
const EXTENSION_LINES: &[&str] = &[
    "Crawl-delay: 10",
    "crawl-delay: .5",
    "Crawl-delay: 10s",
    "Crawl-delay:",
    "Crawl-Delay: [5]",
    "crawl-delay 3",
    "Request-rate: 1/10s",
    "Request-rate: 10",
    "Visit-time: 0400-0845 # UTC",
    "Visit-time: 99",
    "Content-Signal: search=yes, ai-input=no, ai-train=no",
    "Content-Signal: /blog/ ai-train=no",
    "Content-Signal: junk",
    "Content-Usage: / train-ai=n",
    "Content-Usage: /ai-ok/ train-ai=y, bots=n",
    "Content-Usage: train-ai=n",
    "Content-Usage: / Train-AI=n",
    "Content-Usage /",
];

/// Google's directives and junk, to build the bodies the extension lines go into.
const BASE_LINES: &[&str] = &[
    "user-agent: *",
    "User-Agent: FooBot",
    "user-agent: BarBot",
    "allow: /",
    "disallow: /",
    "Disallow: /a",
    "allow: /a/b",
    "disallow: /*.php$",
    "disallow:",
    "sitemap: http://h/s.xml",
    "noindex: /b",
    "# comment",
    "",
    "garbage",
];
const AGENTS: &[&str] = &["FooBot", "BarBot", "OtherBot"];
const URLS: &[&str] = &["/", "/a", "/a/b", "/a/b.php", "/b", "/x.php?y"];

fn verdicts(body: &[u8]) -> Vec<(bool, Option<u32>)> {
    let robots = Robots::parse(body);
    let mut out = Vec::new();
    for agent in AGENTS {
        for mode in [TokenMatch::Google, TokenMatch::ProductName] {
            let selection = robots.select(&[agent.as_bytes()], mode);
            for url in URLS {
                let verdict = robots.verdict(&selection, &path_params_query(url.as_bytes()));
                out.push((verdict.allowed, verdict.rule));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Adding extension lines anywhere (inside groups, between user-agent lines, before the
    /// first group) changes no verdict, no deciding rule, no group and no rule.
    #[test]
    fn extension_lines_never_change_a_verdict(
        base in prop::collection::vec(prop::sample::select(BASE_LINES), 0..14),
        inserts in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(EXTENSION_LINES)), 1..6),
        crlf in any::<bool>(),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut with: Vec<&str> = base.clone();
        for (at, line) in &inserts {
            with.insert(at.index(with.len() + 1), line);
        }
        let plain = base.iter().map(|l| format!("{l}{end}")).collect::<String>();
        let extended = with.iter().map(|l| format!("{l}{end}")).collect::<String>();
        let (before, after) = (Robots::parse(plain.as_bytes()), Robots::parse(extended.as_bytes()));
        prop_assert_eq!(before.groups().len(), after.groups().len());
        for group in 0..before.groups().len() as u32 {
            prop_assert_eq!(before.group_label(group), after.group_label(group));
            prop_assert_eq!(&before.groups()[group as usize].rules, &after.groups()[group as usize].rules);
        }
        let texts = |robots: &Robots| robots.rules().iter().map(|r| r.text.clone()).collect::<Vec<_>>();
        prop_assert_eq!(texts(&before), texts(&after));
        prop_assert_eq!(verdicts(plain.as_bytes()), verdicts(extended.as_bytes()));
        // Every extension line is accounted for: in effect or listed as ignored.
        prop_assert_eq!(
            after.directives().len() + after.ignored_directives().len(),
            inserts.len()
        );
    }

    /// Arbitrary values after the extension keys never panic, and every line is accounted for.
    #[test]
    fn arbitrary_values_are_handled(
        key in prop::sample::select(vec!["Crawl-delay", "Request-rate", "Visit-time", "Content-Signal", "Content-Usage"]),
        value in prop::collection::vec(any::<u8>(), 0..60),
        path in prop::collection::vec(any::<u8>(), 0..20),
    ) {
        let mut body = b"user-agent: *\n".to_vec();
        body.extend_from_slice(key.as_bytes());
        body.push(b':');
        body.extend(value.iter().map(|b| if matches!(b, b'\n' | b'\r') { b' ' } else { *b }));
        let robots = Robots::parse(&body);
        let all = robots.select(&[], TokenMatch::Google);
        let _ = robots.crawl_delay(&all);
        let _ = robots.request_rate(&all);
        let _ = robots.visit_times(&all).count();
        for use_ in Use::ALL {
            let _ = robots.preference(&all, &path, use_);
        }
        prop_assert!(robots.directives().len() + robots.ignored_directives().len() <= 1);
    }
}
