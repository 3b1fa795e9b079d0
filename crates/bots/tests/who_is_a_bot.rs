//! Who counts as a bot, checked on real traffic: the 300 most frequent User-Agent headers of the
//! real logs (`fixtures/top_user_agents.tsv`, the headers copied into the repository so the test
//! runs without the data), each with the agent a reader of the header expects. The rule is in
//! `src/declared.rs`; the catalog is `data/catalog.json`.

use robots_audit_bots::{Catalog, Identity};

const TABLE: &str = include_str!("fixtures/top_user_agents.tsv");

/// `(expected agent or "-", header)` of every row.
fn rows() -> Vec<(&'static str, &'static str)> {
    TABLE
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let mut fields = line.splitn(3, '\t');
            let (_requests, expected, header) = (fields.next(), fields.next(), fields.next());
            (expected.unwrap(), header.unwrap())
        })
        .collect()
}

fn agent(catalog: &Catalog, header: &str) -> String {
    match catalog.identify(header.as_bytes()) {
        Identity::Known(index) => catalog.bots()[index].name.clone(),
        Identity::Unknown(bot) => bot.name,
        Identity::NotBot => "-".to_owned(),
    }
}

#[test]
fn the_most_frequent_real_headers_resolve_as_a_reader_expects() {
    let rows = rows();
    assert_eq!(rows.len(), 300);
    let catalog = Catalog::builtin();
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|&(expected, header)| {
            let found = agent(&catalog, header);
            (found != expected).then(|| format!("{header:?}: expected {expected}, found {found}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The classes the rule settles, each with a case of its own beyond the real headers.
#[test]
fn generic_software_with_a_project_url_is_not_a_bot() {
    let catalog = Catalog::builtin();
    for header in [
        "node-fetch/2.6.7 (+https://github.com/node-fetch/node-fetch)",
        "UniversalFeedParser/5.2.1 +https://code.google.com/p/feedparser/",
        "SimplePie/1.5 (Feed Parser; http://simplepie.org; Allow like Gecko) Build/20180209",
        "Chef Client/17.10.0 (ruby-3.0.4-p208; ohai-17.9.0; x86_64-linux; +https://chef.io)",
        "Mozilla/5.0 (compatible; Google Desktop/5.9.1005.12335; http://desktop.google.com/)",
        "curl/8.5.0 (+https://curl.se)",
    ] {
        assert_eq!(agent(&catalog, header), "-", "{header}");
    }
}

#[test]
fn bot_declarations_that_were_missed() {
    let catalog = Catalog::builtin();
    let cases = [
        // A bot page in Internet Explorer's `compatible` comment.
        (
            "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1;  http://www.changedetection.com/bot.html )",
            "changedetection.com",
        ),
        // A numeric product token in a `compatible` comment with a contact.
        (
            "Mozilla/5.0 (compatible; 008/0.83; http://www.80legs.com/webcrawler.html) Gecko/2008032620",
            "008",
        ),
        // A product token in the same comment as the `+http` contact.
        (
            "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/115.0 (NewsFetch/2.0; +https://news.example/fetcher)",
            "NewsFetch",
        ),
    ];
    for (header, expected) in cases {
        assert_eq!(agent(&catalog, header), expected, "{header}");
    }
}
