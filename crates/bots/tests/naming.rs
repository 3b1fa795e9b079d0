//! Crawlers no catalog entry names: who counts as one, what it is called and which robots.txt
//! group it answers to, through the built-in catalog and the engine's group selection (the
//! audit's `TokenMatch::ProductName`). The cases are issue 27's, from real traffic, and the
//! shapes around them; the rule is in `src/declared.rs`, the tokens in `src/naming.rs`.

use std::sync::LazyLock;

use proptest::prelude::*;
use robots_audit_bots::{Catalog, Identity};
use robots_audit_engine::{Robots, TokenMatch};

static CATALOG: LazyLock<Catalog> = LazyLock::new(Catalog::builtin);

/// `(name, tokens)` of an unknown bot, `None` for anything else.
fn unknown(header: &str) -> Option<(String, Vec<String>)> {
    match CATALOG.identify(header.as_bytes()) {
        Identity::Unknown(bot) => Some((bot.name, bot.tokens)),
        Identity::Known(index) => panic!("{header:?} is {}", CATALOG.bots()[index].name),
        Identity::NotBot => None,
    }
}

/// A header and the unknown bot it must be: its name and tokens, or `None` for not a bot.
type Case = (
    &'static str,
    Option<(&'static str, &'static [&'static str])>,
);

#[test]
fn self_declared_crawlers_are_named_by_their_product() {
    let cases: &[Case] = &[
        (
            "Mozilla/5.0 (compatible; XML Sitemaps Generator; www.xml-sitemaps.com) Gecko XML-Sitemaps/1.0",
            Some(("XML-Sitemaps", &["xml-sitemaps"])),
        ),
        (
            "Mozilla/5.0 (Windows; U; Windows NT 5.1; en-US; rv:1.8.1.6) Gecko/20070725 Firefox/2.0.0.6 - James BOT - WebCrawler http://cognitiveseo.com/bot.html",
            Some(("James BOT", &["jamesbot", "james"])),
        ),
        (
            "Mozilla/5.0 (compatible; ETI SEO bot; +https://eti.example/seo)",
            Some(("ETI SEO bot", &["etiseobot", "eti"])),
        ),
        (
            "Veooz/1.0 (+http://www.veooz.com/veoozbot.html)",
            Some(("Veoozbot", &["veoozbot", "veooz"])),
        ),
        (
            "Mozilla/5.0 (compatible; Veoozbot/1.0; +http://www.veooz.com/veoozbot.html)",
            Some(("Veoozbot", &["veoozbot", "veooz"])),
        ),
        (
            "AcademicBotRTU (https://academicbot.rtu.lv; mailto:caps@rtu.lv)",
            Some(("AcademicBotRTU", &["academicbotrtu"])),
        ),
        ("ltx71 - (http://ltx71.com/)", Some(("ltx71", &["ltx71"]))),
        (
            "HonesoSearchEngine/1.0",
            Some(("HonesoSearchEngine", &["honesosearchengine"])),
        ),
        (
            "Kerrigan/2.0 (kerrigan@mashable.com)",
            Some(("Kerrigan", &["kerrigan"])),
        ),
        // Phones, browsers, libraries and people's own tools stay what they are.
        (
            "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
            None,
        ),
        ("python-requests/2.31.0", None),
        (
            "Liferea/1.8.3 (Linux; en_GB.UTF-8; http://liferea.sf.net/)",
            None,
        ),
        ("Tiny Tiny RSS/1.11 (http://tt-rss.org/)", None),
    ];
    for &(header, expected) in cases {
        let expected = expected.map(|(name, tokens)| {
            let tokens: Vec<String> = tokens.iter().map(|&token| token.to_owned()).collect();
            (name.to_owned(), tokens)
        });
        assert_eq!(unknown(header), expected, "{header}");
    }
}

/// The group a bot's tokens select in `robots`, by its label (`*` for the global groups).
fn group(robots: &Robots, header: &str) -> String {
    let (_, tokens) = unknown(header).unwrap_or_else(|| panic!("{header:?} is not a bot"));
    let tokens: Vec<&[u8]> = tokens.iter().map(String::as_bytes).collect();
    let selection = robots.select(&tokens, TokenMatch::ProductName);
    if selection.is_global() {
        return "*".to_owned();
    }
    let labels: Vec<String> = selection
        .groups()
        .iter()
        .map(|&group| robots.group_label(group))
        .collect();
    labels.join(",")
}

#[test]
fn a_crawlers_own_group_applies() {
    let robots = Robots::parse(
        b"User-agent: *\nDisallow: /\n\n\
          User-agent: XML-Sitemaps\nDisallow: /private\n\n\
          User-agent: James BOT\nDisallow: /james\n\n\
          User-agent: Veooz\nDisallow: /news\n\n\
          User-agent: ETI\nDisallow: /eti\n",
    );
    let cases: &[(&str, &str)] = &[
        (
            "Mozilla/5.0 (compatible; XML Sitemaps Generator; www.xml-sitemaps.com) Gecko XML-Sitemaps/1.0",
            "XML-Sitemaps",
        ),
        (
            "Mozilla/5.0 (Windows; U; Windows NT 5.1; en-US; rv:1.8.1.6) Gecko/20070725 Firefox/2.0.0.6 - James BOT - WebCrawler http://cognitiveseo.com/bot.html",
            "James BOT",
        ),
        ("Veooz/1.0 (+http://www.veooz.com/veoozbot.html)", "Veooz"),
        (
            "Mozilla/5.0 (compatible; Veoozbot/1.0; +http://www.veooz.com/veoozbot.html)",
            "Veooz",
        ),
        (
            "Mozilla/5.0 (compatible; ETI SEO bot; +https://eti.example/seo)",
            "ETI",
        ),
        ("ltx71 - (http://ltx71.com/)", "*"),
    ];
    for &(header, expected) in cases {
        assert_eq!(group(&robots, header), expected, "{header}");
    }

    // The verdicts follow: XML-Sitemaps may fetch what `*` forbids, but not its own `/private`.
    let header = cases[0].0;
    let (_, tokens) = unknown(header).unwrap();
    let tokens: Vec<&[u8]> = tokens.iter().map(String::as_bytes).collect();
    let selection = robots.select(&tokens, TokenMatch::ProductName);
    assert!(robots.verdict(&selection, b"/sitemap.xml").allowed);
    assert!(!robots.verdict(&selection, b"/private/page").allowed);

    // The name run together, as many robots.txt files write a bot of several words.
    let robots = Robots::parse(b"User-agent: *\nDisallow: /\n\nUser-agent: jamesbot\nAllow: /\n");
    assert_eq!(group(&robots, cases[1].0), "jamesbot");
}

proptest! {
    /// Whatever the header, an unknown bot's tokens are ones a robots.txt group can name: not
    /// empty, lower case, without whitespace, `/`, `*`, `;` or `#`; and the first is its name
    /// in lower case, its words run together.
    #[test]
    fn unknown_bots_have_usable_tokens(header in proptest::collection::vec(any::<u8>(), 0..100)) {
        if let Identity::Unknown(bot) = CATALOG.identify(&header) {
            let joined: String = bot.name.split(' ').collect::<String>().to_ascii_lowercase();
            prop_assert_eq!(bot.tokens.first(), Some(&joined));
            for token in &bot.tokens {
                prop_assert!(!token.is_empty());
                prop_assert!(!token.bytes().any(|b| b.is_ascii_whitespace()
                    || b.is_ascii_uppercase()
                    || matches!(b, b'/' | b'*' | b';' | b'#')), "{token:?}");
            }
        }
    }

    /// One name, one set of tokens: headers of one crawler that differ in version, comment or
    /// spelling of `bot` resolve to one bot.
    #[test]
    fn one_crawler_one_bot(
        stem in "Zq[a-z]{3,8}",
        version in "[0-9]\\.[0-9]{1,2}",
    ) {
        // A stem that already ends in `bot` (`Zqbot`) names another crawler than the stem with
        // `bot` added (`Zqbotbot`).
        prop_assume!(!stem.ends_with("bot"));
        let page = format!("http://www.{}.example/{}bot.html", stem.to_ascii_lowercase(), stem.to_ascii_lowercase());
        let headers = [
            format!("{stem}/{version} (+{page})"),
            format!("{stem} (+{page})"),
            format!("Mozilla/5.0 (compatible; {stem}/{version}; +{page})"),
            format!("Mozilla/5.0 (compatible; {stem}bot/{version}; +{page})"),
            format!("{stem}bot"),
        ];
        // A header that holds a catalog entry's pattern (`Zqaccbot` holds `CCBot`, the page
        // `zqmsnbot.html` holds `msnbot`) is that entry's, not a new crawler's.
        prop_assume!(!headers.iter().any(|header| matches!(
            CATALOG.identify(header.as_bytes()),
            Identity::Known(_)
        )));
        let bots: Vec<Option<(String, Vec<String>)>> = headers.iter().map(|header| unknown(header)).collect();
        prop_assert!(bots.iter().all(|bot| bot == &bots[0]), "{headers:?}: {bots:?}");
        prop_assert_eq!(bots[0].as_ref().map(|(name, _)| name.clone()), Some(format!("{stem}bot")));
    }
}
