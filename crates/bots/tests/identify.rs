//! User-agent identification against the built-in catalog: precedence, unknown bots, browsers.

use std::sync::LazyLock;

use proptest::prelude::*;
use robots_audit_bots::{Catalog, Category, Identity};

static CATALOG: LazyLock<Catalog> = LazyLock::new(Catalog::builtin);

fn identified(ua: &[u8]) -> String {
    match CATALOG.identify(ua) {
        Identity::Known(index) => CATALOG.bots()[index].name.clone(),
        Identity::Unknown(bot) => format!("unknown:{}", bot.name),
        Identity::NotBot => "-".to_owned(),
    }
}

fn check(cases: &[(&str, &str)]) {
    for &(ua, expected) in cases {
        assert_eq!(identified(ua.as_bytes()), expected, "{ua}");
    }
}

#[test]
fn the_most_specific_pattern_wins() {
    check(&[
        // The Google family: one product token quoting another's name.
        (
            "Googlebot/2.1 (+http://www.google.com/bot.html)",
            "Googlebot",
        ),
        ("Googlebot-Image/1.0", "Googlebot-Image"),
        ("Googlebot-Video/1.0", "Googlebot-Video"),
        ("Googlebot-News", "Googlebot-News"),
        (
            "AdsBot-Google (+http://www.google.com/adsbot.html)",
            "AdsBot-Google",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 14_7_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Mobile/15E148 Safari/604.1 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)",
            "AdsBot-Google-Mobile",
        ),
        ("AdsBot-Google-Mobile-Apps", "AdsBot-Google-Mobile"),
        ("Mediapartners-Google", "Mediapartners-Google"),
        (
            "Mozilla/5.0 (compatible; Mediapartners-Google/2.1; +http://www.google.com/bot.html)",
            "Mediapartners-Google",
        ),
        ("GoogleOther", "GoogleOther"),
        ("GoogleOther-Image/1.0", "GoogleOther-Image"),
        ("GoogleOther-Video/1.0", "GoogleOther-Video"),
        (
            "Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)",
            "Google-InspectionTool",
        ),
        // Microsoft: the other crawlers link to bingbot.htm and msnbot.htm.
        (
            "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
            "Bingbot",
        ),
        (
            "Mozilla/5.0 (compatible; adidxbot/2.0; +http://www.bing.com/bingbot.htm)",
            "AdIdxBot",
        ),
        (
            "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534+ (KHTML, like Gecko) BingPreview/1.0b",
            "BingPreview",
        ),
        ("msnbot/2.0b (+http://search.msn.com/msnbot.htm)", "MSNBot"),
        (
            "msnbot-media/1.1 (+http://search.msn.com/msnbot.htm)",
            "msnbot-media",
        ),
        // OpenAI's three agents.
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
            "ChatGPT-User",
        ),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)",
            "GPTBot",
        ),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot",
            "OAI-SearchBot",
        ),
        // A user-agent naming two bots: the longer name is the more specific.
        ("ChatGPT-User/1.0 (like GPTBot)", "ChatGPT-User"),
        ("TelegramBot (like TwitterBot)", "TelegramBot"),
        (
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
            "Slackbot-LinkExpanding",
        ),
        ("Slackbot 1.0 (+https://api.slack.com/robots)", "Slackbot"),
        ("SemrushBot-SA/0.97", "SemrushBot-SA"),
        (
            "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
            "SemrushBot",
        ),
        (
            "Baiduspider-image+(+http://www.baidu.com/search/spider.htm)",
            "Baiduspider-image",
        ),
        (
            "Mozilla/5.0 (compatible; Baiduspider-render/2.0; +http://www.baidu.com/search/spider.html)",
            "Baiduspider",
        ),
        (
            "Mozilla/5.0 (compatible; AhrefsSiteAudit/6.1; +http://ahrefs.com/robot/site-audit)",
            "AhrefsSiteAudit",
        ),
        (
            "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
            "AhrefsBot",
        ),
        // Quoting an anchored name does not make a user-agent that bot.
        (
            "Feedly/1.0 (+http://www.feedly.com/fetcher.html; 16 subscribers; like FeedFetcher-Google)",
            "Feedly",
        ),
        (
            "FeedFetcher-Google; (+http://www.google.com/feedfetcher.html)",
            "FeedFetcher-Google",
        ),
        // Browsers carrying a tool's token.
        (
            "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
            "Chrome-Lighthouse",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/49.0.2623.75 Safari/537.36 Google Favicon",
            "Google Favicon",
        ),
        // Case does not matter; neither do surrounding bytes.
        (
            "MOZILLA/5.0 (COMPATIBLE; GOOGLEBOT-IMAGE/1.0)",
            "Googlebot-Image",
        ),
        ("\u{feff}  gptbot/1.0\t", "GPTBot"),
    ]);
}

/// A bot word right after `like` or `compatible with` names a product the header compares
/// itself to, not the one that sends it: the declared-bot rule neither counts it as evidence nor
/// names the header after it (docs/bots.md, "Identification").
#[test]
fn a_bot_a_header_compares_itself_to_is_not_its_name() {
    check(&[
        // With no bot word of its own, a feed reader is not a bot.
        (
            "FeedReader/1.2 (Linux; https://reader.example) like FooBot",
            "-",
        ),
        ("ReaderApp/3.0 (compatible with FooBot)", "-"),
        // A bot word of its own still names it.
        (
            "Mozilla/5.0 (compatible; quotebot/0.1; treat like FooBot)",
            "unknown:quotebot",
        ),
        (
            "ReaderApp/3.0 (+https://reader.example/about) like FooBot",
            "unknown:ReaderApp",
        ),
        // Built with a crawler framework: still a crawler, named after it as before.
        (
            "Fetcher/1.0 (built with StormCrawler 1.8; https://fetcher.example/)",
            "unknown:StormCrawler",
        ),
        // Nor is a catalog bot the header only compares itself to that bot.
        (
            "Mozilla/5.0 (compatible; quotebot/0.1; treat like Googlebot)",
            "unknown:quotebot",
        ),
        (
            "SentimentBot sentiment.example (compatible with Googlebot)",
            "unknown:SentimentBot",
        ),
        (
            "FeedReader/1.2 (Linux; https://reader.example) like Googlebot",
            "-",
        ),
        ("TelegramBot (like TwitterBot)", "TelegramBot"),
        // Named as its own, or with nothing before it, it is that bot (spoofed or not: the
        // ranges and DNS say), whatever else the header holds.
        (
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "Googlebot",
        ),
        (
            "Mozilla/5.0 (compatible; Googlebot; +http://www.google.com/bot.html)",
            "Googlebot",
        ),
        ("Googlebot", "Googlebot"),
        (
            "Mozilla/5.0 (compatible; Googlebot/2.1; like Googlebot)",
            "Googlebot",
        ),
        ("Mozilla/5.0 (compatible; unlike Googlebot)", "Googlebot"),
        (
            "Mozilla/5.0 (compatible; Googlebot) like Chrome",
            "Googlebot",
        ),
        ("Reader (incompatible with Googlebot)", "Googlebot"),
    ]);
}

#[test]
fn precedence_is_by_pattern_length_then_catalog_order() {
    let mut catalog = Catalog::empty();
    let json = br#"{"bots": [
        {"name": "First", "category": "other", "tokens": ["first"], "patterns": ["SameBot"]},
        {"name": "Second", "category": "other", "tokens": ["second"], "patterns": ["SameBot"]},
        {"name": "Longer", "category": "other", "tokens": ["longer"], "regexes": ["SameBot/\\d"]}
    ]}"#;
    catalog.extend_from_bytes(json, "tie.json").unwrap();
    let name = |ua: &[u8]| match catalog.identify(ua) {
        Identity::Known(index) => catalog.bots()[index].name.clone(),
        other => format!("{other:?}"),
    };
    assert_eq!(name(b"SameBot"), "First");
    assert_eq!(name(b"SameBot/2"), "Longer");
}

#[test]
fn unknown_bots_are_named_after_their_product_token() {
    check(&[
        (
            "Mozilla/5.0 (compatible; FooBot/1.0; +http://foo.example/bot)",
            "unknown:FooBot",
        ),
        ("NerdyBot", "unknown:NerdyBot"),
        (
            "Mozilla/5.0 (compatible; Adsbot/3.1; +https://seostar.co/robot/)",
            "unknown:Adsbot",
        ),
        (
            "Mozilla/5.0 (compatible; VeryNewCrawler/0.1; crawler@new.example)",
            "unknown:VeryNewCrawler",
        ),
        (
            "Mozilla/5.0 (compatible; Zooms-like/1.0; help@example.com)",
            "unknown:Zooms-like",
        ),
        ("my-spider/3.2", "unknown:my-spider"),
        // A crawling framework's default header: whatever runs it is crawling.
        ("Scrapy/2.11.0 (+https://scrapy.org)", "unknown:Scrapy"),
    ]);
    let Identity::Unknown(bot) =
        CATALOG.identify(b"Mozilla/5.0 (compatible; FooBot/1.0; +http://foo.example/bot)")
    else {
        panic!("FooBot is an unknown bot");
    };
    assert_eq!(bot.tokens, ["foobot", "foo"]);
    assert_eq!(bot.operator, "");
    assert_eq!(bot.category, Category::Other);
}

#[test]
fn browsers_and_http_libraries_are_not_bots() {
    check(&[
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "-",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "-",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
            "-",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
            "-",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
            "-",
        ),
        (
            "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36",
            "-",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/117.0.5938.60 Safari/537.36",
            "-",
        ),
        ("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)", "-"),
        (
            "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko",
            "-",
        ),
        ("curl/8.5.0", "-"),
        ("Wget/1.21.4", "-"),
        ("python-requests/2.31.0", "-"),
        (
            "python-requests/2.6.0 CPython/2.7.5 Linux/3.10.0-514.26.2.el7.x86_64",
            "-",
        ),
        ("Go-http-client/1.1", "-"),
        ("okhttp/4.12.0", "-"),
        ("Java/1.8.0_151", "-"),
        ("Apache-HttpClient/4.5.13 (Java/17.0.2)", "-"),
        ("MobileSafari/604.1 CFNetwork/978.0.7 Darwin/18.7.0", "-"),
        ("Tiny Tiny RSS/1.11 (http://tt-rss.org/)", "-"),
        // Generic software that names its project's page (see declared.rs).
        (
            "UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/",
            "-",
        ),
        (
            "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
            "-",
        ),
        (
            "Chef Client/10.18.2 (ruby-1.9.3-p327; ohai-6.16.0; x86_64-linux; +http://opscode.com)",
            "-",
        ),
        (
            "Mozilla/5.0 (compatible; Google Desktop/5.9.1005.12335; http://desktop.google.com/)",
            "-",
        ),
        ("-", "-"),
        ("", "-"),
    ]);
}

#[test]
fn invalid_utf8_and_control_bytes_are_data() {
    check(&[
        ("Googlebot\u{0}/2.1", "Googlebot"),
        ("Mozilla/5.0 (\u{7f}compatible; bingbot/2.0)", "Bingbot"),
    ]);
    assert_eq!(
        identified(b"\xff\xfe\xfd Googlebot-Image/1.0 \xc0"),
        "Googlebot-Image"
    );
    assert_eq!(identified(b"\xff\xfe\xfd"), "-");
    assert_eq!(identified(b"\xe2\x80 WeirdBot/1 \xe2"), "unknown:WeirdBot");
}

fn catalog(json: &str) -> Catalog {
    let mut catalog = Catalog::empty();
    catalog
        .extend_from_bytes(json.as_bytes(), "test.json")
        .unwrap();
    catalog
}

fn name(catalog: &Catalog, ua: &[u8]) -> String {
    match catalog.identify(ua) {
        Identity::Known(index) => catalog.bots()[index].name.clone(),
        Identity::Unknown(bot) => format!("unknown:{}", bot.name),
        Identity::NotBot => "-".to_owned(),
    }
}

#[test]
fn longer_patterns_win_then_catalog_order() {
    let catalog = catalog(
        r#"{"bots": [
            {"name": "A", "category": "other", "tokens": ["a"], "patterns": ["Zeta"]},
            {"name": "B", "category": "other", "tokens": ["b"], "patterns": ["Zeta-Image"]},
            {"name": "C", "category": "other", "tokens": ["c"], "patterns": ["Omega"]},
            {"name": "D", "category": "other", "tokens": ["d"], "regexes": ["om.ga"]},
            {"name": "E", "category": "other", "tokens": ["e"], "regexes": ["^Start"]}
        ]}"#,
    );
    let cases: &[(&[u8], &str)] = &[
        (b"Zeta/1.0", "A"),
        (b"Zeta-Image/1.0", "B"),
        (b"zeta-image", "B"),
        (b"x Zeta-Image Zeta", "B"),
        (b"Omega", "C"),
        (b"omxga", "D"),
        (b"Start here", "E"),
        (b"not at the Start", "-"),
        (b"\xff\xfeZETA\x00", "A"),
        (b"", "-"),
    ];
    for &(ua, expected) in cases {
        assert_eq!(
            name(&catalog, ua),
            expected,
            "{}",
            String::from_utf8_lossy(ua)
        );
    }
}

#[test]
fn an_empty_catalog_still_finds_declared_bots() {
    let catalog = Catalog::empty();
    assert_eq!(name(&catalog, b"Googlebot/2.1"), "unknown:Googlebot");
    assert_eq!(name(&catalog, b"Mozilla/5.0 (X11; Linux x86_64)"), "-");
}

/// Imported patterns come after the declared-bot rule, and name the product they hit.
#[test]
fn imported_patterns_name_the_product_they_match_in() {
    let catalog = catalog(
        r#"[
            {"pattern": "arabot", "instances": []},
            {"pattern": "psbot", "instances": ["psbot-image (+http://www.picsearch.com/bot.html)", "psbot/0.1 (+http://www.picsearch.com/bot.html)"]},
            {"pattern": "[wW]get", "instances": ["Wget/1.21"]},
            {"pattern": "example\\.org\\/agent", "instances": ["Mozilla/5.0 (X11; Linux) Fetchy/2 (http://example.org/agent)"]}
        ]"#,
    );
    let cases: &[(&[u8], &str)] = &[
        // Declared bots keep the name the declared-bot rule gives them.
        (
            b"Mozilla/5.0 (compatible; Clarabot/1.4; +http://www.clarabot.info/bots)",
            "unknown:Clarabot",
        ),
        (
            b"psbot/0.1 (+http://www.picsearch.com/bot.html)",
            "unknown:psbot",
        ),
        // Only the list says these are bots: named after the product the match is in.
        (b"Wget/1.20.3 (darwin18.6.0)", "Wget"),
        (b"GNU wget2/2.0", "unknown:wget2"),
        (b"Arabot-ish/1 (X11)", "unknown:Arabot-ish"),
        // A match inside a URL: the product the instances name.
        (b"Fetchy/3 (http://example.org/agent)", "Fetchy"),
        (b"Mozilla/5.0 (X11; Linux x86_64)", "-"),
    ];
    for &(ua, expected) in cases {
        assert_eq!(
            name(&catalog, ua),
            expected,
            "{}",
            String::from_utf8_lossy(ua)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn identify_never_panics_and_names_unknown_bots_with_valid_tokens(ua in proptest::collection::vec(any::<u8>(), 0..300)) {
        match CATALOG.identify(&ua) {
            Identity::Known(index) => prop_assert!(index < CATALOG.bots().len()),
            Identity::Unknown(bot) => {
                prop_assert!(!bot.name.is_empty());
                prop_assert!(bot.name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
                prop_assert_eq!(bot.tokens, vec![bot.name.to_ascii_lowercase()]);
            }
            Identity::NotBot => {}
        }
    }

    #[test]
    fn a_bot_token_anywhere_in_a_browser_user_agent_declares_it(
        name in "[A-Z][a-z]{2,8}(Bot|bot|Crawler|Spider)",
        version in "[0-9]\\.[0-9]",
    ) {
        prop_assume!(CATALOG.find(&name).is_none());
        let ua = format!("Mozilla/5.0 (compatible; {name}/{version}; +https://example.com/bot)");
        let identity = CATALOG.identify(ua.as_bytes());
        // A generated name can embed a catalog pattern (`Slurpbot`): then that bot is found.
        if let Identity::Unknown(bot) = identity {
            prop_assert_eq!(bot.name, name);
        } else {
            prop_assert!(matches!(identity, Identity::Known(_)));
        }
    }

    #[test]
    fn identification_ignores_ascii_case(index in 0usize..200, upper in any::<bool>()) {
        let examples: Vec<&String> = (0..CATALOG.bots().len()).flat_map(|i| CATALOG.examples(i)).collect();
        let example = examples[index % examples.len()];
        let changed = if upper { example.to_ascii_uppercase() } else { example.to_ascii_lowercase() };
        prop_assert_eq!(CATALOG.identify(changed.as_bytes()), CATALOG.identify(example.as_bytes()));
    }
}
