//! Identifying the bot behind a User-Agent header: all catalog patterns compiled once into one
//! multi-pattern regex that reports every matching pattern; the rules are documented on
//! [`Catalog::identify`].

use regex_automata::util::primitives::PatternID;
use regex_automata::{Input, MatchKind, PatternSet, meta};

use crate::catalog::{Bot, Catalog, Category, Entry};
use crate::declared;

/// Upper bound on the size of the compiled pattern set. The built-in catalog needs well under a
/// megabyte; a crawler-user-agents import (about 1,500 patterns) a few megabytes.
const NFA_SIZE_LIMIT: usize = 64 << 20;

/// Room for the lazy DFA of each searching thread. Reporting every matching pattern builds large
/// DFA states; with the default 2 MiB a crawler-user-agents import keeps clearing the cache and
/// falling back to the much slower NFA simulation. 16 MiB keeps warm look-ups at a few
/// microseconds (measured on real logs) while bounding memory per thread.
const DFA_CACHE_CAPACITY: usize = 16 << 20;

/// Who sent a request, as far as its User-Agent header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// A catalog bot: the index into [`Catalog::bots`].
    Known(usize),
    /// No catalog entry matches, but the header declares a bot (a product token such as
    /// `FooBot/1.0`, a contact URL, the words bot, crawl, spider). The bot is named after its
    /// product token as written, its only robots.txt token is that name in lower case, it has
    /// no operator and its category is [`Category::Other`].
    Unknown(Bot),
    /// Anything else: browsers, and generic HTTP clients such as `curl/8.5.0`,
    /// `python-requests/2.31.0` or `Go-http-client/1.1` unless a catalog entry lists them.
    NotBot,
}

impl Catalog {
    /// Identifies the bot behind a User-Agent header (decoded, e.g. W3C `+` already turned into
    /// spaces). Any bytes are accepted; linear time in the header's length.
    ///
    /// When patterns of several bots match, the most specific wins:
    ///
    /// 1. a pattern of the project's own catalog format (built in or loaded) beats one imported
    ///    from a crawler-user-agents list, whose broader patterns (`yandex\.com\/bots`) would
    ///    otherwise take over curated entries: imported patterns decide only user-agents the
    ///    catalog does not know;
    /// 2. then the pattern with the longest minimum match (for a literal, its length:
    ///    `Googlebot-Image` beats `Googlebot`, `AdsBot-Google-Mobile` beats `AdsBot-Google`,
    ///    `TelegramBot` beats `Twitterbot` in `TelegramBot (like TwitterBot)`);
    /// 3. then the bot listed first in the catalog.
    ///
    /// Entries that other user-agents quote are anchored in the catalog instead
    /// (`^FeedFetcher-Google`, so `Feedly/1.0 (...; like FeedFetcher-Google)` stays Feedly).
    ///
    /// Without a catalog match, a user-agent that declares itself a bot is an
    /// [`Identity::Unknown`] bot, in this order of evidence:
    ///
    /// 1. a word (not a URL or e-mail address) whose name holds `crawl`, `spider` or `slurp`, or
    ///    `bot` not followed by a letter (`NerdyBot`, `MJ12bot`, `archive.org_bot`; not
    ///    `Bottle`). In a comment other than `(compatible; ...)`, a name with only `bot` needs a
    ///    version (`Applebot/0.1`), so that phone models such as `CUBOT P30` stay browsers. The
    ///    bot is named after that word;
    /// 2. a contact (URL or e-mail address) in a `(compatible; ...)` comment: the bot is the first
    ///    product after `compatible` (`Ezooms` in `(compatible; Ezooms/1.0; help@moz.com)`).
    ///    Internet Explorer's `(compatible; MSIE 7.0; ...)` does not count: toolbars write URLs
    ///    into it;
    /// 3. a `+http` contact URL anywhere: the bot is the first product before it that is not a
    ///    browser's (`UniversalFeedParser` in `UniversalFeedParser/4.2 +http://feedparser.org/`).
    ///
    /// Everything else is [`Identity::NotBot`], including generic HTTP clients.
    ///
    /// ```
    /// use robots_audit_bots::{Catalog, Identity};
    ///
    /// let catalog = Catalog::builtin();
    /// let ua = b"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    /// let Identity::Known(index) = catalog.identify(ua) else { panic!() };
    /// assert_eq!(catalog.bots()[index].tokens, ["bingbot"]);
    ///
    /// let Identity::Unknown(bot) = catalog.identify(b"Mozilla/5.0 (compatible; FooBot/1.0; +http://foo.example/bot)")
    /// else { panic!() };
    /// assert_eq!((bot.name.as_str(), bot.tokens[0].as_str()), ("FooBot", "foobot"));
    ///
    /// assert_eq!(catalog.identify(b"curl/8.5.0"), Identity::NotBot);
    /// ```
    pub fn identify(&self, user_agent: &[u8]) -> Identity {
        if let Some(index) = self.matcher().best(user_agent) {
            return Identity::Known(index);
        }
        match declared::declared_name(user_agent) {
            Some(name) => {
                let token = name.to_ascii_lowercase();
                Identity::Unknown(Bot {
                    name,
                    tokens: vec![token],
                    operator: String::new(),
                    category: Category::Other,
                    policy: Default::default(),
                })
            }
            None => Identity::NotBot,
        }
    }
}

/// Which bot a pattern belongs to, and how specific it is.
#[derive(Debug, Clone, Copy)]
struct Owner {
    bot: usize,
    curated: bool,
    specificity: usize,
}

/// Every catalog pattern, compiled into one regex.
#[derive(Debug, Clone, Default)]
pub(crate) struct Matcher {
    /// `None` when the catalog has no patterns.
    regex: Option<meta::Regex>,
    /// Indexed by pattern ID.
    owners: Vec<Owner>,
}

impl Matcher {
    pub(crate) fn build(entries: &[Entry]) -> Result<Matcher, String> {
        let mut hirs = Vec::new();
        let mut owners = Vec::new();
        for (bot, entry) in entries.iter().enumerate() {
            for pattern in &entry.patterns {
                hirs.push(&pattern.hir);
                owners.push(Owner {
                    bot,
                    curated: !pattern.imported,
                    specificity: pattern.specificity,
                });
            }
        }
        if hirs.is_empty() {
            return Ok(Matcher::default());
        }
        let config = meta::Config::new()
            .match_kind(MatchKind::All)
            // `best` runs once per distinct header and thread, and an overlapping search scans
            // the whole header anyway: a prefilter saved nothing there, and building it cost 90
            // million instructions (about 25 ms) at every start.
            .auto_prefilter(false)
            .nfa_size_limit(Some(NFA_SIZE_LIMIT))
            .hybrid_cache_capacity(DFA_CACHE_CAPACITY);
        let regex = meta::Regex::builder()
            .configure(config)
            .build_many_from_hir(&hirs)
            .map_err(|error| format!("cannot compile the user-agent patterns: {error}"))?;
        Ok(Matcher {
            regex: Some(regex),
            owners,
        })
    }

    /// The bot of the most specific matching pattern (see the module docs).
    pub(crate) fn best(&self, haystack: &[u8]) -> Option<usize> {
        let regex = self.regex.as_ref()?;
        let mut matched = PatternSet::new(regex.pattern_len());
        regex.which_overlapping_matches(&Input::new(haystack), &mut matched);
        matched
            .iter()
            .filter_map(|id: PatternID| self.owners.get(id.as_usize()))
            .max_by(|a, b| {
                (a.curated, a.specificity)
                    .cmp(&(b.curated, b.specificity))
                    .then(b.bot.cmp(&a.bot))
            })
            .map(|owner| owner.bot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

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
}
