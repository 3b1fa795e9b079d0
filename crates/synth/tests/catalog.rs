//! Every user-agent of the built-in table identifies, through the bot catalog, as the crawler
//! the truth files name; every browser user-agent is not a bot.

use robots_audit_bots::{Catalog, Identity};
use robots_audit_synth::{BOTS, BROWSERS};

/// The canonical name of each table entry, in table order; `true` marks the made-up crawlers,
/// which the catalog cannot know and names after their product token.
const EXPECTED: &[(&str, bool)] = &[
    ("Googlebot", false),
    ("Bingbot", false),
    ("GPTBot", false),
    ("ExampleCrawler", true),
    ("ClaudeBot", false),
    ("Googlebot-Image", false),
    ("AhrefsBot", false),
    ("CCBot", false),
    ("PerplexityBot", false),
    ("YandexBot", false),
    ("Applebot", false),
    ("AcmeResearchBot", true),
    ("SemrushBot", false),
    ("OAI-SearchBot", false),
    ("Baiduspider", false),
    ("MJ12bot", false),
    ("DuckDuckBot", false),
    ("Bytespider", false),
    ("Amazonbot", false),
    ("ChatGPT-User", false),
    ("facebookexternalhit", false),
    ("meta-externalagent", false),
    ("DotBot", false),
    ("PetalBot", false),
    ("Twitterbot", false),
    ("LinkedInBot", false),
    ("SeznamBot", false),
    ("archive.org_bot", false),
    ("NimbusSpider", true),
    ("Slurp", false),
    ("BLEXBot", false),
    ("Qwantbot", false),
    ("DataForSeoBot", false),
    ("Sogou web spider", false),
];

#[test]
fn every_table_user_agent_identifies_as_its_recorded_name() {
    assert_eq!(BOTS.len(), EXPECTED.len());
    let catalog = Catalog::builtin();
    for (bot, (name, made_up)) in BOTS.iter().zip(EXPECTED) {
        for user_agent in bot.user_agents {
            match catalog.identify(user_agent.as_bytes()) {
                Identity::Known(index) => {
                    assert!(
                        !made_up,
                        "{user_agent}: made-up crawler found in the catalog"
                    );
                    assert_eq!(&catalog.bots()[index].name, name, "{user_agent}");
                }
                Identity::Unknown(found) => {
                    assert!(
                        made_up,
                        "{user_agent}: real crawler missing from the catalog"
                    );
                    assert_eq!(&found.name, name, "{user_agent}");
                }
                Identity::NotBot => panic!("{user_agent}: not identified as a bot"),
            }
        }
    }
}

#[test]
fn the_table_has_at_least_thirty_real_and_some_made_up_crawlers() {
    let made_up = EXPECTED.iter().filter(|(_, m)| *m).count();
    assert!(EXPECTED.len() - made_up >= 30);
    assert!((2..=3).contains(&made_up));
    let mut names: Vec<&str> = EXPECTED.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names.len(),
        EXPECTED.len(),
        "each entry is a distinct crawler"
    );
}

#[test]
fn browsers_are_not_bots() {
    let catalog = Catalog::builtin();
    for user_agent in BROWSERS {
        assert!(
            matches!(catalog.identify(user_agent.as_bytes()), Identity::NotBot),
            "{user_agent}"
        );
    }
}
