//! Differential test against the `robotstxt` crate, a Rust port of Google's library.
//!
//! On generated bodies and URLs, with `TokenMatch::Google`, the engine must decide exactly as the
//! reference model does, and wherever the crate decides differently, the difference must be fully
//! explained by a set of the crate's known defects ([`Quirks`], each documented with the
//! behaviour of Google's it departs from): the model with those quirks switched on must reproduce the
//! crate's answers for every URL of the body. Anything else fails the test.

use crate::corpus;

use std::collections::BTreeMap;
use std::sync::Mutex;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use robots_audit_engine::reference::{self, NONE, Quirks};
use robots_audit_engine::{Robots, TokenMatch, path_params_query};

/// The crate's known defects, one at a time.
const KNOWN_EXCEPTIONS: [(&str, Quirks); 7] = [
    (
        "other_lines_end_group",
        Quirks {
            other_lines_end_group: true,
            ..NONE
        },
    ),
    (
        "bad_percent_dropped",
        Quirks {
            bad_percent_dropped: true,
            ..NONE
        },
    ),
    (
        "greedy_wildcard",
        Quirks {
            greedy_wildcard: true,
            ..NONE
        },
    ),
    (
        "bom_as_chars",
        Quirks {
            bom_as_chars: true,
            ..NONE
        },
    ),
    (
        "unicode_trim",
        Quirks {
            unicode_trim: true,
            ..NONE
        },
    ),
    (
        "nul_kept",
        Quirks {
            nul_kept: true,
            ..NONE
        },
    ),
    (
        "crate_key_value",
        Quirks {
            crate_key_value: true,
            ..NONE
        },
    ),
];

fn quirks_of(mask: usize) -> (String, Quirks) {
    let mut names = Vec::new();
    let mut quirks = NONE;
    for (bit, (name, quirk)) in KNOWN_EXCEPTIONS.iter().enumerate() {
        if mask & (1 << bit) != 0 {
            names.push(*name);
            quirks = Quirks {
                other_lines_end_group: quirks.other_lines_end_group || quirk.other_lines_end_group,
                bad_percent_dropped: quirks.bad_percent_dropped || quirk.bad_percent_dropped,
                greedy_wildcard: quirks.greedy_wildcard || quirk.greedy_wildcard,
                bom_as_chars: quirks.bom_as_chars || quirk.bom_as_chars,
                unicode_trim: quirks.unicode_trim || quirk.unicode_trim,
                nul_kept: quirks.nul_kept || quirk.nul_kept,
                crate_key_value: quirks.crate_key_value || quirk.crate_key_value,
            };
        }
    }
    (names.join("+"), quirks)
}

fn crate_allowed(body: &str, agent: &str, url: &str) -> bool {
    robotstxt::DefaultMatcher::default().one_agent_allowed_by_robots(body, agent, url)
}

fn engine_allowed(robots: &Robots, agent: &str, url: &str) -> bool {
    let selection = robots.select(&[agent.as_bytes()], TokenMatch::Google);
    robots
        .verdict(&selection, &path_params_query(url.as_bytes()))
        .allowed
}

/// The smallest set of known defects that reproduces every answer of the crate on this body.
fn explain(body: &str, agent: &str, urls: &[String], crate_answers: &[bool]) -> Option<String> {
    let mut masks: Vec<usize> = (1..1 << KNOWN_EXCEPTIONS.len()).collect();
    masks.sort_by_key(|mask| mask.count_ones());
    masks.into_iter().find_map(|mask| {
        let (name, quirks) = quirks_of(mask);
        let reproduced = urls.iter().zip(crate_answers).all(|(url, answer)| {
            reference::model(body.as_bytes(), &[agent.as_bytes()], url.as_bytes(), quirks).allowed
                == *answer
        });
        reproduced.then_some(name)
    })
}

fn one_of(options: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(options).prop_map(str::to_owned)
}

fn pattern() -> impl Strategy<Value = String> {
    let pieces: &'static [&'static str] = &[
        "/",
        "/",
        "/",
        "a",
        "b",
        "a",
        "*",
        "*",
        "*a",
        "$",
        "?",
        "=",
        "%",
        "%2f",
        "%2F",
        "%zz",
        "%aa",
        "ä",
        "ä%",
        "%aa%zz",
        ".",
        "index.html",
        "x",
        "\0",
        " ",
        "\u{b}",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..6).prop_map(|parts| parts.concat())
}

fn line() -> impl Strategy<Value = String> {
    let indent = one_of(&["", "", "", "", "", "", "", "  ", "\t", "\u{a0}"]);
    let separator = one_of(&[": ", ": ", ": ", ":", " : ", " ", "\t", ":\u{a0}"]);
    let trailing = one_of(&["", "", "", "", "", "", " ", "\u{a0}"]);
    let comment = one_of(&["", "", "", " # c", "#x"]);
    let agent_value = one_of(&[
        "*",
        "*",
        "* junk",
        "*\u{a0}x",
        "FooBot",
        "foobot/1.0",
        "FooBot*",
        "BarBot",
        "BarBot",
        "Foo Bar",
        "*Bot",
        "",
        "Foo2Bot",
        "Foo-Bot_x",
        "\u{a0}FooBot",
    ]);
    let directive = prop_oneof![
        3 => (one_of(&["User-agent", "user-agent", "USER-AGENT", "useragent", "User agent", "user-agents"]), agent_value),
        3 => (one_of(&["Disallow", "disallow", "Disalow", "dissallow", "disallowed", "DISALLOW"]), pattern()),
        2 => (one_of(&["Allow", "allow", "ALLOW", "allowance"]), pattern()),
        2 => (one_of(&["Sitemap", "site-map", "Crawl-delay", "noindex", "Host"]), one_of(&["http://h/s.xml", "5", "/x"])),
    ];
    let raw = one_of(&[
        "",
        "",
        "# comment",
        "garbage here now",
        ": /x",
        "  : /x",
        "foo bar",
    ]);
    prop_oneof![
        6 => (indent, directive, separator, trailing, comment).prop_map(
            |(indent, (key, value), separator, trailing, comment)| {
                format!("{indent}{key}{separator}{value}{trailing}{comment}")
            }
        ),
        1 => raw,
    ]
}

fn body() -> impl Strategy<Value = String> {
    let bom = one_of(&["", "", "", "", "\u{feff}", "ï»¿", "ï"]);
    let end = one_of(&["\n", "\n", "\n", "\r\n", "\r", "\r\r\n", "\n\r"]);
    (bom, prop::collection::vec((line(), end), 0..12)).prop_map(|(bom, lines)| {
        let mut body = bom;
        for (line, end) in lines {
            body.push_str(&line);
            body.push_str(&end);
        }
        body
    })
}

fn url() -> impl Strategy<Value = String> {
    let pieces: &'static [&'static str] = &[
        "/",
        "/",
        "a",
        "b",
        "?",
        "=",
        "$",
        "%2F",
        "%2f",
        "%C3%A4",
        "index.html",
        "x",
        ".",
        "*",
        "%zz",
        "%aa",
        "%AA",
        "ab",
        "aab",
        "aab",
        "aaba",
    ];
    let prefix = one_of(&["http://h", "http://h", "https://h:8080", "", "//h"]);
    (
        prefix,
        prop::collection::vec(prop::sample::select(pieces), 0..7),
    )
        .prop_map(|(prefix, parts)| format!("{prefix}/{}", parts.concat()))
}

#[test]
fn verdicts_agree_with_robotstxt_except_for_its_known_defects() {
    // A fixed seed keeps the run reproducible, which the check that every defect was observed
    // relies on.
    let config = Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let agents: &'static [&'static str] =
        &["FooBot", "foobot", "BarBot", "Foo", "", "*", "Foo-Bot_x"];
    let strategy = (
        body(),
        prop::sample::select(agents),
        prop::collection::vec(url(), 8),
    );
    let found: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());
    let result = runner.run(&strategy, |(body, agent, urls)| {
        let robots = Robots::parse(body.as_bytes());
        let ours: Vec<bool> = urls
            .iter()
            .map(|url| engine_allowed(&robots, agent, url))
            .collect();
        for (url, ours) in urls.iter().zip(&ours) {
            let google = reference::google(body.as_bytes(), &[agent.as_bytes()], url.as_bytes());
            prop_assert_eq!(*ours, google.allowed, "engine vs model on url {:?}", url);
        }
        let theirs: Vec<bool> = urls
            .iter()
            .map(|url| crate_allowed(&body, agent, url))
            .collect();
        if ours != theirs {
            let class = explain(&body, agent, &urls, &theirs);
            prop_assert!(class.is_some(), "unexplained disagreement with robotstxt");
            if let (Some(class), Ok(mut found)) = (class, found.lock()) {
                *found.entry(class).or_default() += 1;
            }
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let found = found.into_inner().unwrap_or_default();
    eprintln!("disagreements with robotstxt, by explaining defects: {found:?}");
    // Every known defect shows up on its own, so the generator really exercises each of them.
    for (name, _) in KNOWN_EXCEPTIONS {
        assert!(found.contains_key(name), "{name} never observed: {found:?}");
    }
}

/// One minimal body per known defect: Google's answer, the crate's answer, and the quirk that
/// reproduces the crate.
#[test]
fn each_known_defect_of_robotstxt_is_a_departure_from_google() {
    let cases: &[(&str, &str, &str, &str, bool)] = &[
        // §4: a sitemap line does not end a group, so FooBot shares BarBot's rules.
        (
            "other_lines_end_group",
            "user-agent: FooBot\nsitemap: http://h/s.xml\nuser-agent: BarBot\ndisallow: /\n",
            "FooBot",
            "http://h/x",
            false,
        ),
        // §8: `%zz` stays as written; the crate drops it once it escapes `ä`.
        (
            "bad_percent_dropped",
            "user-agent: *\ndisallow: /ä%zz\n",
            "FooBot",
            "http://h/%C3%A4x",
            true,
        ),
        // §7: `*` matches any run of bytes, not just up to the first `a`.
        (
            "greedy_wildcard",
            "user-agent: *\ndisallow: /*ab\n",
            "FooBot",
            "http://h/aab",
            false,
        ),
        // §2: the byte order mark is skipped.
        (
            "bom_as_chars",
            "\u{feff}user-agent: *\ndisallow: /\n",
            "FooBot",
            "http://h/",
            false,
        ),
        // §3: a no-break space is not whitespace; it is part of the pattern.
        (
            "unicode_trim",
            "user-agent: *\ndisallow: /a\u{a0}\n",
            "FooBot",
            "http://h/ab",
            true,
        ),
        // §2: NUL ends the line, leaving `disallow: /`.
        (
            "nul_kept",
            "user-agent: *\ndisallow: /\0a\n",
            "FooBot",
            "http://h/x",
            false,
        ),
        // §3: the line is trimmed before the missing-colon rule applies.
        (
            "crate_key_value",
            "user-agent: *\n  disallow /\n",
            "FooBot",
            "http://h/x",
            false,
        ),
    ];
    for (name, body, agent, url, google_allows) in cases {
        let robots = Robots::parse(body.as_bytes());
        assert_eq!(
            engine_allowed(&robots, agent, url),
            *google_allows,
            "{name}: engine"
        );
        let model = reference::google(body.as_bytes(), &[agent.as_bytes()], url.as_bytes());
        assert_eq!(model.allowed, *google_allows, "{name}: model");
        assert_eq!(
            crate_allowed(body, agent, url),
            !google_allows,
            "{name}: robotstxt"
        );
        let quirk = KNOWN_EXCEPTIONS
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, quirk)| *quirk)
            .unwrap_or(NONE);
        let reproduced =
            reference::model(body.as_bytes(), &[agent.as_bytes()], url.as_bytes(), quirk);
        assert_eq!(
            reproduced.allowed, !google_allows,
            "{name}: quirk reproduces the crate"
        );
    }
}

/// Paths derived from a file's own rules, so that most URLs meet a matching rule.
fn urls_for(robots: &Robots) -> Vec<String> {
    let mut paths: Vec<String> = robots
        .rules()
        .iter()
        .filter(|rule| !rule.pattern.is_empty())
        .take(12)
        .flat_map(|rule| {
            let pattern = String::from_utf8_lossy(&rule.pattern).into_owned();
            let plain = pattern.trim_end_matches('$').replace('*', "x");
            [
                plain.clone(),
                format!("{plain}/more?q=1"),
                plain.chars().take(4).collect(),
            ]
        })
        .collect();
    paths.extend(["/", "/index.html", "/search?q=a", "/a/b/c.php?x=1"].map(str::to_owned));
    paths
        .into_iter()
        .map(|path| format!("https://example.com/{}", path.trim_start_matches('/')))
        .collect()
}

/// Every real file of the shared corpus: the engine agrees with the reference model, and every
/// disagreement of `robotstxt` is explained by its known defects. Needs the corpus and a few
/// minutes in a debug build: `cargo test --release -p robots-audit-engine -- --ignored`.
#[test]
#[ignore = "needs ../shared/data or ROBOTS_AUDIT_DATA; slow in debug builds"]
fn real_files_agree_with_the_reference() {
    let Some(files) = corpus::real_files() else {
        return;
    };
    let (mut checked, mut explained) = (0usize, BTreeMap::<String, usize>::new());
    for (file, body) in &files {
        let robots = Robots::parse(body);
        let urls = urls_for(&robots);
        for agent in ["Googlebot", "FooBot"] {
            let ours: Vec<bool> = urls
                .iter()
                .map(|url| engine_allowed(&robots, agent, url))
                .collect();
            for (url, ours) in urls.iter().zip(&ours) {
                let google = reference::google(body, &[agent.as_bytes()], url.as_bytes());
                assert_eq!(*ours, google.allowed, "{file} {agent} {url}");
                checked += 1;
            }
            let Ok(text) = std::str::from_utf8(body) else {
                continue;
            };
            // The crate counts the line cap in chars but slices bytes, so a long line with
            // multi-byte characters makes it panic (Google's cap is 16,663 bytes).
            let theirs = std::panic::catch_unwind(|| {
                urls.iter()
                    .map(|url| crate_allowed(text, agent, url))
                    .collect::<Vec<bool>>()
            });
            let Ok(theirs) = theirs else {
                *explained
                    .entry("panics_on_long_multibyte_line".to_owned())
                    .or_default() += 1;
                continue;
            };
            if ours != theirs {
                let class = explain(text, agent, &urls, &theirs);
                let class = class.unwrap_or_else(|| panic!("unexplained: {file} {agent}"));
                *explained.entry(class).or_default() += 1;
            }
        }
    }
    eprintln!(
        "{} files, {checked} verdicts; robotstxt disagreements: {explained:?}",
        files.len()
    );
    assert!(files.len() > 4_000);
}
