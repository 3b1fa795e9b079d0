//! The examples of Google's "How Google interprets the robots.txt specification", under every
//! matching strategy.

use crate::strategies::parse;
use robots_audit_engine::{TokenMatch, path_params_query};

fn allowed(body: &str, tokens: &[&str], mode: TokenMatch, url: &str) -> bool {
    let robots = parse(body.as_bytes());
    let tokens: Vec<&[u8]> = tokens.iter().map(|token| token.as_bytes()).collect();
    let selection = robots.select(&tokens, mode);
    robots
        .verdict(&selection, &path_params_query(url.as_bytes()))
        .allowed
}

fn url_matching_based_on_path_values() {
    // (path value, matching paths, non-matching paths)
    let table: &[(&str, &[&str], &[&str])] = &[
        ("/", &["/", "/fish", "/a/b?c"], &[]),
        ("/*", &["/", "/fish", "/a/b?c"], &[]),
        ("/$", &["/"], &["/fish", "/?a", "/index.html"]),
        (
            "/fish",
            &[
                "/fish",
                "/fish.html",
                "/fish/salmon.html",
                "/fishheads",
                "/fishheads/yummy.html",
                "/fish.php?id=anything",
            ],
            &["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
        ),
        (
            "/fish*",
            &[
                "/fish",
                "/fish.html",
                "/fish/salmon.html",
                "/fishheads",
                "/fishheads/yummy.html",
                "/fish.php?id=anything",
            ],
            &["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
        ),
        (
            "/fish/",
            &["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
            &["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
        ),
        (
            "/*.php",
            &[
                "/index.php",
                "/filename.php",
                "/folder/filename.php",
                "/folder/filename.php?parameters",
                "/folder/any.php.file.html",
                "/filename.php/",
            ],
            &["/", "/windows.PHP"],
        ),
        (
            "/*.php$",
            &["/filename.php", "/folder/filename.php"],
            &[
                "/filename.php?parameters",
                "/filename.php/",
                "/filename.php5",
                "/windows.PHP",
            ],
        ),
        (
            "/fish*.php",
            &["/fish.php", "/fishheads/catfish.php?parameters"],
            &["/Fish.PHP"],
        ),
    ];
    for (value, matching, other) in table {
        let body = format!("user-agent: *\ndisallow: {value}\n");
        for path in *matching {
            let url = format!("https://example.com{path}");
            assert!(
                !allowed(&body, &["Googlebot"], TokenMatch::Google, &url),
                "{value} should match {path}"
            );
        }
        for path in *other {
            let url = format!("https://example.com{path}");
            assert!(
                allowed(&body, &["Googlebot"], TokenMatch::Google, &url),
                "{value} should not match {path}"
            );
        }
    }
}

fn order_of_precedence_for_rules() {
    let table: &[(&str, &str, bool)] = &[
        ("allow: /p\ndisallow: /", "https://example.com/page", true),
        (
            "allow: /folder\ndisallow: /folder",
            "https://example.com/folder/page",
            true,
        ),
        (
            "allow: /page\ndisallow: /*.htm",
            "https://example.com/page.htm",
            false,
        ),
        (
            "allow: /page\ndisallow: /*.ph",
            "https://example.com/page.php",
            true,
        ),
        ("allow: /$\ndisallow: /", "https://example.com/", true),
        (
            "allow: /$\ndisallow: /",
            "https://example.com/page.htm",
            false,
        ),
    ];
    for (rules, url, expected) in table {
        let body = format!("user-agent: *\n{rules}\n");
        assert_eq!(
            allowed(&body, &["Googlebot"], TokenMatch::Google, url),
            *expected,
            "{rules:?} on {url}"
        );
    }
}

fn user_agent_groups() {
    let body = "user-agent: googlebot-news\ndisallow: /group1\n\n\
                user-agent: *\ndisallow: /group2\n\n\
                user-agent: googlebot\ndisallow: /group3\n";
    let group = |tokens: &[&str], mode: TokenMatch| {
        let matched: Vec<&str> = ["/group1", "/group2", "/group3"]
            .into_iter()
            .filter(|path| !allowed(body, tokens, mode, &format!("https://example.com{path}")))
            .collect();
        match matched.as_slice() {
            [one] => *one,
            other => panic!("{tokens:?} obeys {other:?}"),
        }
    };
    // The crawler's tokens in the audit's fallback order.
    let table: &[(&str, &[&str], &str)] = &[
        (
            "Googlebot News",
            &["googlebot-news", "googlebot"],
            "/group1",
        ),
        ("Googlebot (web)", &["googlebot"], "/group3"),
        (
            "Googlebot Images",
            &["googlebot-image", "googlebot"],
            "/group3",
        ),
        ("Otherbot (web)", &["otherbot"], "/group2"),
        ("Otherbot (news)", &["otherbot"], "/group2"),
    ];
    for (crawler, tokens, expected) in table {
        assert_eq!(
            group(tokens, TokenMatch::ProductName),
            *expected,
            "{crawler}"
        );
    }
    // Google's matcher with one token: only the exact token counts.
    assert_eq!(group(&["googlebot-news"], TokenMatch::Google), "/group1");
    assert_eq!(group(&["googlebot"], TokenMatch::Google), "/group3");
    assert_eq!(group(&["googlebot-image"], TokenMatch::Google), "/group2");
}

fn grouping_of_rules_merges_groups_for_the_same_agent() {
    let body = "user-agent: googlebot-news\ndisallow: /fish\n\n\
                user-agent: *\ndisallow: /carrots\n\n\
                user-agent: googlebot-news\ndisallow: /shrimp\n";
    let news = |path: &str| {
        allowed(
            body,
            &["googlebot-news"],
            TokenMatch::Google,
            &format!("https://example.com{path}"),
        )
    };
    assert!(!news("/fish"));
    assert!(!news("/shrimp"));
    assert!(news("/carrots"));

    let body = "user-agent: googlebot\ndisallow: /a\n\nuser-agent: bingbot\ndisallow: /b\n\n\
                user-agent: googlebot\ndisallow: /c\n";
    for (path, expected) in [("/a", false), ("/b", true), ("/c", false), ("/d", true)] {
        let url = format!("https://example.com{path}");
        assert_eq!(
            allowed(body, &["googlebot"], TokenMatch::ProductName, &url),
            expected,
            "{path}"
        );
    }
}

fn sitemap_between_user_agents_keeps_one_group() {
    let body =
        "user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n";
    for agent in ["a", "b"] {
        for mode in [TokenMatch::Google, TokenMatch::ProductName] {
            assert!(
                !allowed(body, &[agent], mode, "https://example.com/x"),
                "{agent} {mode:?}"
            );
        }
    }
    assert!(allowed(
        body,
        &["c"],
        TokenMatch::Google,
        "https://example.com/x"
    ));
}

every_strategy!(
    url_matching_based_on_path_values,
    order_of_precedence_for_rules,
    user_agent_groups,
    grouping_of_rules_merges_groups_for_the_same_agent,
    sitemap_between_user_agents_keeps_one_group,
);
