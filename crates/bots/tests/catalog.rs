//! The built-in catalog's content and the two loadable formats.

use std::path::{Path, PathBuf};

use robots_audit_bots::{Catalog, Category, Identity, LoadError, Position, RobotsPolicy};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn identified(catalog: &Catalog, ua: &str) -> String {
    match catalog.identify(ua.as_bytes()) {
        Identity::Known(index) => catalog.bots()[index].name.clone(),
        Identity::Unknown(bot) => format!("unknown:{}", bot.name),
        Identity::NotBot => "-".to_owned(),
    }
}

/// Entries known only by their robots.txt token: they never send a user-agent of their own.
const ROBOTS_ONLY: [&str; 2] = ["Google-Extended", "Applebot-Extended"];

#[test]
fn every_example_identifies_as_its_entry() {
    let catalog = Catalog::builtin();
    let mut checked = 0;
    for (index, bot) in catalog.bots().iter().enumerate() {
        let examples = catalog.examples(index);
        if ROBOTS_ONLY.contains(&bot.name.as_str()) {
            assert!(examples.is_empty(), "{} is robots-only", bot.name);
            continue;
        }
        assert!(
            !examples.is_empty(),
            "{} has no example user-agent",
            bot.name
        );
        for example in examples {
            assert_eq!(identified(&catalog, example), bot.name, "{example}");
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} examples");
}

#[test]
fn robots_only_entries_match_nothing() {
    let catalog = Catalog::builtin();
    for name in ROBOTS_ONLY {
        let index = catalog.find(name).unwrap();
        for ua in [
            name.to_owned(),
            format!("Mozilla/5.0 (compatible; {name}/1.0)"),
        ] {
            assert_ne!(
                catalog.identify(ua.as_bytes()),
                Identity::Known(index),
                "{ua}"
            );
        }
    }
}

#[test]
fn catalog_is_large_and_well_formed() {
    let catalog = Catalog::builtin();
    let bots = catalog.bots();
    assert!(bots.len() >= 70, "{} bots", bots.len());
    for (index, bot) in bots.iter().enumerate() {
        assert_eq!(
            catalog.find(&bot.name),
            Some(index),
            "duplicate name {}",
            bot.name
        );
        assert!(!bot.operator.is_empty(), "{} has no operator", bot.name);
        assert!(!bot.tokens.is_empty());
        for token in &bot.tokens {
            assert_eq!(token, &token.to_ascii_lowercase());
            assert!(!token.contains([' ', '/', '*', ';', '#']), "{token}");
        }
    }
    for category in Category::ALL {
        assert!(
            bots.iter().any(|bot| bot.category == category),
            "no bot of category {category}"
        );
    }
}

#[test]
fn required_bots_and_their_tokens() {
    let catalog = Catalog::builtin();
    let cases: &[(&str, &str, Category, &[&str])] = &[
        ("Googlebot", "Google", Category::Search, &["googlebot"]),
        (
            "Googlebot-Image",
            "Google",
            Category::Search,
            &["googlebot-image", "googlebot"],
        ),
        (
            "Googlebot-News",
            "Google",
            Category::Search,
            &["googlebot-news", "googlebot"],
        ),
        (
            "Googlebot-Video",
            "Google",
            Category::Search,
            &["googlebot-video", "googlebot"],
        ),
        (
            "Storebot-Google",
            "Google",
            Category::Search,
            &["storebot-google"],
        ),
        (
            "Google-InspectionTool",
            "Google",
            Category::Search,
            &["google-inspectiontool", "googlebot"],
        ),
        ("GoogleOther", "Google", Category::Other, &["googleother"]),
        (
            "GoogleOther-Image",
            "Google",
            Category::Other,
            &["googleother-image", "googleother"],
        ),
        (
            "GoogleOther-Video",
            "Google",
            Category::Other,
            &["googleother-video", "googleother"],
        ),
        (
            "Google-Extended",
            "Google",
            Category::AiTraining,
            &["google-extended"],
        ),
        (
            "AdsBot-Google",
            "Google",
            Category::Other,
            &["adsbot-google"],
        ),
        (
            "AdsBot-Google-Mobile",
            "Google",
            Category::Other,
            &["adsbot-google-mobile"],
        ),
        (
            "Mediapartners-Google",
            "Google",
            Category::Other,
            &["mediapartners-google"],
        ),
        (
            "FeedFetcher-Google",
            "Google",
            Category::Other,
            &["feedfetcher-google"],
        ),
        (
            "Google-Read-Aloud",
            "Google",
            Category::Other,
            &["google-read-aloud"],
        ),
        (
            "Google-Site-Verification",
            "Google",
            Category::Other,
            &["google-site-verification"],
        ),
        ("Bingbot", "Microsoft", Category::Search, &["bingbot"]),
        (
            "BingPreview",
            "Microsoft",
            Category::Search,
            &["bingpreview"],
        ),
        ("MSNBot", "Microsoft", Category::Search, &["msnbot"]),
        ("AdIdxBot", "Microsoft", Category::Other, &["adidxbot"]),
        (
            "Applebot",
            "Apple",
            Category::Search,
            &["applebot", "googlebot"],
        ),
        (
            "Applebot-Extended",
            "Apple",
            Category::AiTraining,
            &["applebot-extended"],
        ),
        (
            "DuckDuckBot",
            "DuckDuckGo",
            Category::Search,
            &["duckduckbot"],
        ),
        (
            "DuckAssistBot",
            "DuckDuckGo",
            Category::AiSearch,
            &["duckassistbot"],
        ),
        (
            "YandexBot",
            "Yandex",
            Category::Search,
            &["yandexbot", "yandex"],
        ),
        (
            "YandexImages",
            "Yandex",
            Category::Search,
            &["yandeximages", "yandex"],
        ),
        ("Baiduspider", "Baidu", Category::Search, &["baiduspider"]),
        (
            "Baiduspider-image",
            "Baidu",
            Category::Search,
            &["baiduspider-image", "baiduspider"],
        ),
        ("Sogou web spider", "Sogou", Category::Search, &["sogou"]),
        ("SeznamBot", "Seznam", Category::Search, &["seznambot"]),
        ("PetalBot", "Huawei", Category::Search, &["petalbot"]),
        ("Yeti", "Naver", Category::Search, &["yeti"]),
        ("Qwantbot", "Qwant", Category::Search, &["qwantbot"]),
        ("GPTBot", "OpenAI", Category::AiTraining, &["gptbot"]),
        (
            "OAI-SearchBot",
            "OpenAI",
            Category::AiSearch,
            &["oai-searchbot"],
        ),
        (
            "ChatGPT-User",
            "OpenAI",
            Category::AiAssistant,
            &["chatgpt-user"],
        ),
        (
            "ClaudeBot",
            "Anthropic",
            Category::AiTraining,
            &["claudebot"],
        ),
        (
            "Claude-SearchBot",
            "Anthropic",
            Category::AiSearch,
            &["claude-searchbot"],
        ),
        (
            "Claude-User",
            "Anthropic",
            Category::AiAssistant,
            &["claude-user"],
        ),
        (
            "anthropic-ai",
            "Anthropic",
            Category::AiTraining,
            &["anthropic-ai"],
        ),
        (
            "PerplexityBot",
            "Perplexity",
            Category::AiSearch,
            &["perplexitybot"],
        ),
        (
            "Perplexity-User",
            "Perplexity",
            Category::AiAssistant,
            &["perplexity-user"],
        ),
        ("CCBot", "Common Crawl", Category::AiTraining, &["ccbot"]),
        (
            "Bytespider",
            "ByteDance",
            Category::AiTraining,
            &["bytespider"],
        ),
        ("Amazonbot", "Amazon", Category::AiTraining, &["amazonbot"]),
        (
            "meta-externalagent",
            "Meta",
            Category::AiTraining,
            &["meta-externalagent"],
        ),
        (
            "meta-externalfetcher",
            "Meta",
            Category::AiAssistant,
            &["meta-externalfetcher"],
        ),
        (
            "FacebookBot",
            "Meta",
            Category::AiTraining,
            &["facebookbot"],
        ),
        (
            "facebookexternalhit",
            "Meta",
            Category::Social,
            &["facebookexternalhit"],
        ),
        ("AhrefsBot", "Ahrefs", Category::Seo, &["ahrefsbot"]),
        (
            "AhrefsSiteAudit",
            "Ahrefs",
            Category::Seo,
            &["ahrefssiteaudit"],
        ),
        ("SemrushBot", "Semrush", Category::Seo, &["semrushbot"]),
        (
            "SemrushBot-SA",
            "Semrush",
            Category::Seo,
            &["semrushbot-sa"],
        ),
        ("MJ12bot", "Majestic", Category::Seo, &["mj12bot"]),
        ("DotBot", "Moz", Category::Seo, &["dotbot"]),
        ("BLEXBot", "WebMeUp", Category::Seo, &["blexbot"]),
        (
            "DataForSeoBot",
            "DataForSEO",
            Category::Seo,
            &["dataforseobot"],
        ),
        ("serpstatbot", "Serpstat", Category::Seo, &["serpstatbot"]),
        (
            "archive.org_bot",
            "Internet Archive",
            Category::Archive,
            &["archive.org_bot", "ia_archiver"],
        ),
        (
            "ia_archiver",
            "Alexa Internet",
            Category::Archive,
            &["ia_archiver"],
        ),
        ("Twitterbot", "X", Category::Social, &["twitterbot"]),
        (
            "LinkedInBot",
            "LinkedIn",
            Category::Social,
            &["linkedinbot"],
        ),
        ("Slackbot", "Slack", Category::Social, &["slackbot"]),
        (
            "Slackbot-LinkExpanding",
            "Slack",
            Category::Social,
            &["slackbot-linkexpanding"],
        ),
        ("Discordbot", "Discord", Category::Social, &["discordbot"]),
        (
            "TelegramBot",
            "Telegram",
            Category::Social,
            &["telegrambot"],
        ),
        ("WhatsApp", "Meta", Category::Social, &["whatsapp"]),
        (
            "Pinterestbot",
            "Pinterest",
            Category::Social,
            &["pinterestbot", "pinterest"],
        ),
        ("Diffbot", "Diffbot", Category::AiTraining, &["diffbot"]),
        ("cohere-ai", "Cohere", Category::AiAssistant, &["cohere-ai"]),
        ("Timpibot", "Timpi", Category::AiTraining, &["timpibot"]),
        (
            "ImagesiftBot",
            "ImageSift",
            Category::AiTraining,
            &["imagesiftbot"],
        ),
        ("YouBot", "You.com", Category::AiSearch, &["youbot"]),
        (
            "UptimeRobot",
            "UptimeRobot",
            Category::Monitor,
            &["uptimerobot"],
        ),
        ("Pingdom", "Pingdom", Category::Monitor, &["pingdom"]),
    ];
    for &(name, operator, category, tokens) in cases {
        let index = catalog
            .find(name)
            .unwrap_or_else(|| panic!("{name} is missing"));
        let bot = &catalog.bots()[index];
        assert_eq!(bot.name, name);
        assert_eq!(bot.operator, operator, "{name}");
        assert_eq!(bot.category, category, "{name}");
        assert_eq!(bot.tokens, tokens, "{name}");
    }
}

#[test]
fn own_format_replaces_and_adds() {
    let mut catalog = Catalog::builtin();
    let before = catalog.bots().len();
    let googlebot = catalog.find("Googlebot").unwrap();
    assert_eq!(
        catalog.extend_from_file(&fixture("extra_catalog.json")),
        Ok(3)
    );
    assert_eq!(catalog.bots().len(), before + 2);
    // Replaced in place, under the new spelling, with only the new pattern.
    assert_eq!(catalog.find("Googlebot"), Some(googlebot));
    assert_eq!(catalog.bots()[googlebot].name, "googlebot");
    let cases: &[(&str, &str)] = &[
        (
            "Googlebot/2.1 (+http://www.google.com/bot.html)",
            "googlebot",
        ),
        (
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            "googlebot",
        ),
        ("Googlebot-Image/1.0", "Googlebot-Image"),
        ("ExampleCrawler/2.0", "ExampleCrawler"),
        (
            "example-crawler/7 (+https://example.com/crawler)",
            "ExampleCrawler",
        ),
        ("Mozilla/5.0 ExampleCrawler/2.0", "unknown:ExampleCrawler"),
        ("curl/8.5.0", "curl"),
        ("curl", "-"),
    ];
    for &(ua, expected) in cases {
        assert_eq!(identified(&catalog, ua), expected, "{ua}");
    }
    let example = catalog.find("ExampleCrawler").unwrap();
    assert_eq!(
        catalog.bots()[example].tokens,
        ["examplecrawler", "examplebot"]
    );
    assert_eq!(catalog.bots()[example].category, Category::Seo);
    assert_eq!(catalog.bots()[example].operator, "Example Inc.");
}

#[test]
fn own_format_as_a_bare_array_into_an_empty_catalog() {
    let mut catalog = Catalog::empty();
    let json =
        br#"[{"name": "A-Bot", "category": "other", "tokens": ["A-Bot"], "patterns": ["abot"]}]"#;
    assert_eq!(catalog.extend_from_bytes(json, "a.json"), Ok(1));
    assert_eq!(catalog.bots()[0].tokens, ["a-bot"]);
    assert_eq!(catalog.bots()[0].operator, "");
    assert_eq!(identified(&catalog, "ABot/1"), "A-Bot");
    assert_eq!(
        catalog.extend_from_bytes(b"\xEF\xBB\xBF[]", "bom.json"),
        Ok(0)
    );
}

#[test]
fn crawler_user_agents_import() {
    let mut catalog = Catalog::builtin();
    let before = catalog.bots().len();
    assert_eq!(
        catalog.extend_from_file(&fixture("crawler_user_agents.json")),
        Ok(8)
    );
    // Googlebot, msnbot and YandexBot join the built-in bots; Zoombot-News, Zoombot-Image,
    // Python-urllib, psbot-image, psbot-page, psbot, arabot and Nosuch.Fetcher are appended.
    assert_eq!(catalog.bots().len(), before + 8);
    let cases: &[(&str, &str)] = &[
        (
            "Googlebot/2.1 (+http://www.google.com/bot.html)",
            "Googlebot",
        ),
        // Declared bots keep the name of their own product token: never the name of another
        // product the same pattern matches.
        (
            "Zoombot-News/1.2 (+https://zoom.example/bot)",
            "unknown:Zoombot-News",
        ),
        ("zoombot-image/2.0", "unknown:zoombot-image"),
        ("Python-urllib/3.12", "Python-urllib"),
        ("msnbot/1.1", "MSNBot"),
        (
            "adidxbot/1.1 (+http://search.msn.com/msnbot.htm)",
            "AdIdxBot",
        ),
        ("Nosuch.Fetcher/0.1", "Nosuch.Fetcher"),
        // `psbot` and `arabot` match inside other products' names: never renamed to them.
        (
            "psbot/0.1 (+http://www.picsearch.com/bot.html)",
            "unknown:psbot",
        ),
        (
            "Mozilla/5.0 (compatible; Clarabot/1.4; +http://www.clarabot.info/bots)",
            "unknown:Clarabot",
        ),
        ("x Nosuch.Fetcher/0.1", "-"),
        // The list's pattern hits the URL; the header declares its own product.
        (
            "Mozilla/5.0 (compatible; NewThing; +http://yandex.com/bots)",
            "unknown:NewThing",
        ),
        (
            "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
            "YandexBot",
        ),
    ];
    for &(ua, expected) in cases {
        assert_eq!(identified(&catalog, ua), expected, "{ua}");
    }
    let urllib = catalog.find("Python-urllib").unwrap();
    let bot = &catalog.bots()[urllib];
    assert_eq!(
        (bot.tokens.as_slice(), bot.operator.as_str(), bot.category),
        (&["python-urllib".to_owned()][..], "", Category::Other)
    );
}

#[test]
fn load_errors_name_the_file_and_entry() {
    let cases: &[(&[u8], Option<Position>, &str)] = &[
        (b"{", None, "not valid JSON"),
        (b"42", None, "expected the catalog format"),
        (br#"{"robots": []}"#, None, "unknown top-level key \"robots\""),
        (br#"{"bots": {}}"#, None, "`bots` must be an array"),
        (br#"[{"url": "x"}]"#, Some(Position::Entry(0)), "expected the catalog format"),
        (br#"[{"pattern": "a"}, {"name": "b"}]"#, Some(Position::Entry(1)), "needs a `pattern`"),
        (br#"[{"name": "b"}, {"pattern": "a"}]"#, Some(Position::Entry(1)), "cannot have a `pattern`"),
        (br#"[{"pattern": "ok"}, {"pattern": "(unclosed"}]"#, Some(Position::Entry(1)), "pattern \"(unclosed\""),
        (br#"[{"pattern": ".*"}]"#, Some(Position::Entry(0)), "matches the empty string"),
        (br#"[{"pattern": "\\d+"}]"#, Some(Position::Entry(0)), "no product name"),
        (br#"{"bots": [{"name": "A", "category": "search"}]}"#, Some(Position::Entry(0)), "missing field `tokens`"),
        (br#"{"bots": [{"name": "A", "category": "nope", "tokens": ["a"]}]}"#, Some(Position::Entry(0)), "unknown variant `nope`"),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"], "pattern": "x"}]}"#, Some(Position::Entry(0)), "unknown field `pattern`"),
        (br#"{"bots": [{"name": " ", "category": "seo", "tokens": ["a"]}]}"#, Some(Position::Entry(0)), "invalid name"),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": []}]}"#, Some(Position::Entry(0)), "at least one"),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a b"]}]}"#, Some(Position::Entry(0)), "invalid token \"a b\""),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a", "A"]}]}"#, Some(Position::Entry(0)), "listed twice"),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"], "patterns": [""]}]}"#, Some(Position::Entry(0)), "pattern \"\""),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"], "regexes": ["[z-a]"]}]}"#, Some(Position::Entry(0)), "regex \"[z-a]\""),
        (br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"], "examples": ["A/1"]}]}"#, Some(Position::Entry(0)), "can never identify"),
        (
            br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"]}, {"name": "a", "category": "seo", "tokens": ["a"]}]}"#,
            Some(Position::Entry(1)),
            "also used by entry 0",
        ),
        (
            br#"{"bots": [{"name": "A", "category": "seo", "tokens": ["a"], "patterns": ["Abc"]},
                          {"name": "B", "category": "seo", "tokens": ["b"], "patterns": ["Abcd"], "examples": ["Abc/1"]}]}"#,
            Some(Position::Entry(1)),
            "example \"Abc/1\" is identified as A, not as this entry",
        ),
    ];
    for &(json, position, needle) in cases {
        let mut catalog = Catalog::empty();
        let error: LoadError = catalog.extend_from_bytes(json, "bots.json").unwrap_err();
        assert_eq!(error.file, "bots.json");
        assert_eq!(error.position, position, "{}", error);
        assert!(
            error.message.contains(needle),
            "{:?} lacks {needle:?}",
            error.message
        );
        assert!(error.to_string().starts_with("bots.json: "), "{error}");
        assert!(catalog.bots().is_empty());
    }
}

#[test]
fn unreadable_file() {
    let mut catalog = Catalog::empty();
    let path = fixture("does-not-exist.json");
    let error = catalog.extend_from_file(&path).unwrap_err();
    assert_eq!(error.file, path.display().to_string());
    assert!(error.message.starts_with("cannot read: "), "{error}");
}

fn bot<'a>(catalog: &'a Catalog, name: &str) -> &'a robots_audit_bots::Bot {
    &catalog.bots()[catalog
        .find(name)
        .unwrap_or_else(|| panic!("{name} is in the catalog"))]
}

/// Every documented claim of the built-in catalog names the operator's page, and every page is
/// an https URL.
#[test]
fn every_documented_claim_has_an_https_source() {
    let catalog = Catalog::builtin();
    let mut sources = 0;
    for entry in catalog.bots() {
        let policy = &entry.policy;
        let name = &entry.name;
        // An exception always cites its page; `obeys` cites one only where the operator says
        // so of a fetcher one would expect to be exempt (Claude-User).
        if policy.robots != RobotsPolicy::Obeys {
            assert!(
                policy.robots_source.is_some(),
                "{name}: a documented exception needs its source"
            );
        }
        assert_eq!(
            !policy.dns_suffixes.is_empty(),
            policy.dns_source.is_some(),
            "{name}: DNS suffixes and their source"
        );
        assert_eq!(
            policy
                .ranges
                .as_ref()
                .is_some_and(|lists| !lists.is_empty()),
            policy.ranges_source.is_some(),
            "{name}: range lists and their source"
        );
        if policy.honours_crawl_delay {
            assert!(policy.crawl_delay_source.is_some(), "{name}");
        }
        for source in [
            &policy.robots_source,
            &policy.dns_source,
            &policy.ranges_source,
            &policy.crawl_delay_source,
        ]
        .into_iter()
        .flatten()
        {
            assert!(source.starts_with("https://"), "{name}: {source}");
            assert!(!source.contains(char::is_whitespace), "{name}: {source}");
            sources += 1;
        }
    }
    assert!(sources > 60, "only {sources} sources");
}

/// The crawlers whose operators document an exception, each class in full: a new exception
/// must be added here (and to docs/guide/bots-and-verification.md).
#[test]
fn robots_policy_classes() {
    let catalog = Catalog::builtin();
    let cases: &[(RobotsPolicy, &[&str])] = &[
        (
            RobotsPolicy::IgnoresGlobal,
            &[
                "AdsBot-Google",
                "AdsBot-Google-Mobile",
                "Mediapartners-Google",
                "APIs-Google",
            ],
        ),
        (
            RobotsPolicy::UserTriggered,
            &[
                "FeedFetcher-Google",
                "Google-Read-Aloud",
                "Google-Site-Verification",
                "GoogleProducer",
                "Google-CWS",
                "Google-GeminiNotebook",
                "ChatGPT-User",
                "Perplexity-User",
                // Meta: "Because the fetch was initiated by a user, this crawler may bypass
                // robots.txt rules."
                "meta-externalfetcher",
            ],
        ),
        (RobotsPolicy::Ignores, &["Google-Safety"]),
    ];
    for &(policy, names) in cases {
        let mut found: Vec<&str> = catalog
            .bots()
            .iter()
            .filter(|entry| entry.policy.robots == policy)
            .map(|entry| entry.name.as_str())
            .collect();
        found.sort_unstable();
        let mut expected = names.to_vec();
        expected.sort_unstable();
        assert_eq!(found, expected, "{policy}");
    }
    for name in [
        "Googlebot",
        "Googlebot-Image",
        "Bingbot",
        "GPTBot",
        "OAI-SearchBot",
        "PerplexityBot",
        "ClaudeBot",
        // Anthropic says robots.txt controls Claude-User's user-initiated fetches.
        "Claude-User",
        "Applebot",
    ] {
        assert_eq!(
            bot(&catalog, name).policy.robots,
            RobotsPolicy::Obeys,
            "{name}"
        );
    }
    // Claude-User's `obeys` is documented, not a default: Anthropic's page is its source.
    assert_eq!(
        bot(&catalog, "Claude-User").policy.robots_source.as_deref(),
        Some(
            "https://support.anthropic.com/en/articles/8896518-does-anthropic-crawl-data-from-the-web-and-how-can-site-owners-block-the-crawler"
        )
    );
    // Every exception cites its operator's page.
    for entry in catalog.bots() {
        if entry.policy.robots != RobotsPolicy::Obeys {
            assert!(entry.policy.robots_source.is_some(), "{}", entry.name);
        }
    }
    // The user-agents Google documents for its new fetchers identify as them.
    for (ua, name) in [
        ("Mozilla/5.0 (compatible; Google-CWS)", "Google-CWS"),
        ("Google-Safety", "Google-Safety"),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36 (compatible; Google-GeminiNotebook; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-gemininotebook)",
            "Google-GeminiNotebook",
        ),
    ] {
        assert_eq!(identified(&catalog, ua), name, "{ua}");
    }
}

#[test]
fn crawl_delay_is_honoured_only_where_documented() {
    let catalog = Catalog::builtin();
    // (bot, honours, documented either way)
    let cases: &[(&str, bool, bool)] = &[
        ("Bingbot", true, true),
        ("MSNBot", true, true),
        ("ClaudeBot", true, true),
        ("Amazonbot", false, true),
        ("Googlebot", false, false),
        ("YandexBot", false, false),
        ("GPTBot", false, false),
    ];
    for &(name, honours, documented) in cases {
        let policy = &bot(&catalog, name).policy;
        assert_eq!(policy.honours_crawl_delay, honours, "{name}");
        assert_eq!(policy.crawl_delay_source.is_some(), documented, "{name}");
    }
}

/// The reverse-DNS names each operator documents satisfy its crawlers' suffixes; look-alikes
/// do not.
#[test]
fn dns_suffixes_of_the_operators() {
    let catalog = Catalog::builtin();
    let cases: &[(&str, &str, bool)] = &[
        ("Googlebot", "crawl-66-249-66-1.googlebot.com", true),
        (
            "Googlebot",
            "geo-crawl-35-247-243-240.geo.googlebot.com.",
            true,
        ),
        ("Googlebot-Image", "crawl-66-249-66-1.googlebot.com", true),
        (
            "AdsBot-Google",
            "rate-limited-proxy-66-249-90-77.google.com",
            true,
        ),
        ("AdsBot-Google", "crawl-66-249-66-1.googlebot.com", false),
        (
            "FeedFetcher-Google",
            "1-2-3-4.gae.googleusercontent.com",
            true,
        ),
        (
            "FeedFetcher-Google",
            "google-proxy-66-249-83-1.google.com",
            true,
        ),
        ("FeedFetcher-Google", "1-2-3-4.googleusercontent.com", false),
        ("Bingbot", "msnbot-157-55-33-18.search.msn.com", true),
        (
            "Bingbot",
            "msnbot-157-55-33-18.search.msn.com.evil.example",
            false,
        ),
        ("Applebot", "17-58-101-179.applebot.apple.com", true),
        ("YandexBot", "spider-5-255-253-1.yandex.com", true),
        ("YandexImages", "spider-5-255-253-1.yandex.ru", true),
        ("YandexBot", "notyandex.com", false),
        ("Amazonbot", "12-34-56-78.crawl.amazonbot.amazon", true),
        // Baidu: "The hostname of Baiduspider is *.baidu.com or *.baidu.jp."
        (
            "Baiduspider",
            "baiduspider-123-125-66-120.crawl.baidu.com",
            true,
        ),
        (
            "Baiduspider",
            "baiduspider-119-63-195-254.crawl.baidu.jp.",
            true,
        ),
        (
            "Baiduspider-image",
            "baiduspider-123-125-66-120.crawl.baidu.com",
            true,
        ),
        ("Baiduspider", "crawl.notbaidu.com", false),
        ("Baiduspider", "baidu.com.evil.example", false),
        // Yahoo: "The name of all Yahoo! Search crawlers will end with crawl.yahoo.net".
        ("Slurp", "lj612134.crawl.yahoo.net", true),
        ("Slurp", "media.yahoo.net", false),
        // DuckDuckGo publishes addresses, not a host suffix: no name verifies it.
        ("DuckDuckBot", "anything.duckduckgo.com", false),
        ("GPTBot", "anything.openai.com", false),
        ("Google Favicon", "crawl-66-249-66-1.googlebot.com", false),
    ];
    for &(name, host, expected) in cases {
        assert_eq!(
            bot(&catalog, name).policy.host_matches(host.as_bytes()),
            expected,
            "{name}: {host}"
        );
    }
}

#[test]
fn policy_fields_are_checked_on_load() {
    let entry = |fields: &str| {
        format!(
            r#"{{"bots": [{{"name": "X", "operator": "O", "category": "seo", "tokens": ["x"], {fields}}}]}}"#
        )
    };
    let cases: &[(&str, Option<&str>)] = &[
        (
            r#""robots": "ignores""#,
            Some("`robots_source` is required"),
        ),
        (
            r#""robots": "sometimes", "robots_source": "https://o.example/bots""#,
            Some("unknown variant"),
        ),
        (
            r#""robots": "ignores", "robots_source": "http://o.example/bots""#,
            Some("https://"),
        ),
        (
            r#""robots": "user_triggered", "robots_source": "https://o.example/bots""#,
            None,
        ),
        (
            r#""dns_suffixes": ["crawl.o.example"]"#,
            Some("`dns_source` is required"),
        ),
        (
            r#""dns_suffixes": ["example"], "dns_source": "https://o.example/dns""#,
            Some("two labels"),
        ),
        (
            r#""dns_suffixes": [".Crawl.O.Example."], "dns_source": "https://o.example/dns""#,
            None,
        ),
        (
            r#""ranges": ["o-bots"]"#,
            Some("`ranges_source` is required"),
        ),
        (
            r#""ranges": ["O Bots"], "ranges_source": "https://o.example/r""#,
            Some("file stem"),
        ),
        (r#""ranges": []"#, None),
        (
            r#""honours_crawl_delay": true"#,
            Some("`crawl_delay_source` is required"),
        ),
        (
            r#""honours_crawl_delay": false, "crawl_delay_source": "https://o.example/delay""#,
            None,
        ),
        (r#""crawl_delay": 5"#, Some("unknown field")),
    ];
    for &(fields, problem) in cases {
        let mut catalog = Catalog::empty();
        let result = catalog.extend_from_bytes(entry(fields).as_bytes(), "o.json");
        match problem {
            None => assert_eq!(result, Ok(1), "{fields}"),
            Some(needle) => {
                let error = result.unwrap_err();
                assert_eq!(error.position, Some(Position::Entry(0)), "{fields}");
                assert!(error.message.contains(needle), "{fields}: {error}");
            }
        }
    }
    let mut catalog = Catalog::empty();
    catalog
        .extend_from_bytes(
            entry(
                r#""dns_suffixes": [".Crawl.O.Example."], "dns_source": "https://o.example/dns""#,
            )
            .as_bytes(),
            "o.json",
        )
        .unwrap();
    assert_eq!(catalog.bots()[0].policy.dns_suffixes, ["crawl.o.example"]);
}

/// The user guide lists every crawler with a documented exception, with its operator's page.
#[test]
fn the_guide_lists_the_documented_exceptions() {
    let page = "../../docs/guide/bots-and-verification.md";
    let guide = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(page))
        .expect("the user guide's page on bots");
    let section = guide
        .split("### Crawlers with documented exceptions")
        .nth(1)
        .expect("guide section \"Crawlers with documented exceptions\"");
    let section = section.split("\n#").next().unwrap_or(section);
    let catalog = Catalog::builtin();
    for entry in catalog.bots() {
        let Some(source) = &entry.policy.robots_source else {
            continue;
        };
        let row = section
            .lines()
            .find(|line| line.starts_with(&format!("| {} |", entry.name)))
            .unwrap_or_else(|| panic!("{page} lacks a row for {}", entry.name));
        assert!(row.contains(entry.policy.robots.as_str()), "{row}");
        assert!(row.contains(source.as_str()), "{row}");
    }
}
