//! Crawler identity for robots-audit: which bot sent a request, which robots.txt tokens it
//! answers to, and whether its IP address is really the operator's.
//!
//! * [`Catalog`]: the crawler catalog, built in (`data/catalog.json`, over 100 crawlers) and
//!   extensible from the project's own JSON format or the public crawler-user-agents JSON.
//! * [`Catalog::identify`]: a User-Agent header to an [`Identity`]: a catalog bot, an unknown
//!   bot that declares itself one (named after its product token), or not a bot.
//! * [`Verifier`]: published crawler IP ranges (Google-style JSON, MISP warning lists, plain
//!   CIDR lists), single files or dated snapshots, and a per-request [`Verification`] against
//!   the lists that cover the bot, as they stood at the request's time.
//! * [`BotPolicy`]: what each operator documents about its crawlers: the robots.txt policy
//!   ([`RobotsPolicy`]), reverse-DNS host suffixes ([`host_has_suffix`]), which published range
//!   lists cover it, whether it honours `Crawl-delay`; and [`Category::content_use`], the use
//!   a usage preference about a category of crawler concerns.
//!
//! ```
//! use robots_audit_bots::{Catalog, Identity, Verification, Verifier};
//!
//! let catalog = Catalog::builtin();
//! let ua = b"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)";
//! let Identity::Known(index) = catalog.identify(ua) else { panic!("GPTBot is in the catalog") };
//! let bot = &catalog.bots()[index];
//! assert_eq!((bot.name.as_str(), bot.operator.as_str()), ("GPTBot", "OpenAI"));
//!
//! let mut verifier = Verifier::new();
//! verifier.add_ranges("OpenAI", b"# published ranges\n192.0.2.0/28\n", "gptbot.txt").unwrap();
//! assert_eq!(verifier.verify(bot, b"192.0.2.3"), Verification::Verified);
//! assert_eq!(verifier.verify(bot, b"203.0.113.9"), Verification::Spoofed);
//! ```
//!
//! # The catalog format
//!
//! ```json
//! {"bots": [
//!   {"name": "Googlebot-Image", "operator": "Google", "category": "search",
//!    "tokens": ["googlebot-image", "googlebot"],
//!    "patterns": ["Googlebot-Image"], "regexes": [],
//!    "examples": ["Googlebot-Image/1.0"],
//!    "dns_suffixes": ["googlebot.com", "google.com"],
//!    "dns_source": "https://developers.google.com/crawling/docs/crawlers-fetchers/verify-google-requests",
//!    "ranges": ["common-crawlers", "googlebot"],
//!    "ranges_source": "https://developers.google.com/crawling/docs/crawlers-fetchers/verify-google-requests"},
//!   {"name": "AdsBot-Google", "operator": "Google", "category": "other",
//!    "tokens": ["adsbot-google"], "patterns": ["AdsBot-Google"],
//!    "robots": "ignores_global",
//!    "robots_source": "https://developers.google.com/crawling/docs/crawlers-fetchers/google-special-case-crawlers"}
//! ]}
//! ```
//!
//! `tokens` are the robots.txt product tokens the operator documents, in fallback order and
//! lower case; a token cannot hold whitespace, `/`, `*`, `;` or `#`, because a robots.txt group
//! name ends there (so `Sogou web spider` answers to `sogou`). `patterns` are literal substrings
//! and `regexes` regular expressions of the User-Agent header, both matched ignoring ASCII case on
//! raw bytes. An entry without patterns is known only by its token (`Google-Extended`,
//! `Applebot-Extended`: robots.txt switches, never sent as a user-agent). `examples` must
//! identify as their entry; loading checks it. `category` is one of `search`, `ai-training`,
//! `ai-search`, `ai-assistant`, `seo`, `social`, `archive`, `monitor`, `other`.
//!
//! What the operator documents, each claim with the `https` URL of its page (loading refuses a
//! claim without one):
//!
//! * `robots`: `obeys` (the default), `ignores_global` (only groups naming one of its tokens
//!   apply, never `*`), `user_triggered` (fetches on a person's request; robots.txt does not
//!   apply) or `ignores`; `robots_source` is required for all but `obeys`.
//! * `dns_suffixes`: host names its addresses reverse-resolve to, with `dns_source`.
//! * `ranges`: the operator's published range lists that cover it, by file stem
//!   (`common-crawlers`, `special-crawlers`, `gptbot`, ...), with `ranges_source`; `[]` when
//!   none does. Absent: a list loaded for its operator covers it, whatever its name.
//! * `honours_crawl_delay` (default `false`, also when undocumented) and
//!   `crawl_delay_source` (the page that says whether it does).
//!
//! # Precedence
//!
//! When patterns of several bots match, the most specific wins: the catalog's own patterns
//! before imported crawler-user-agents patterns, then the pattern with the longest minimum match
//! (for a literal, its length), then the bot listed first. See [`Catalog::identify`].

mod catalog;
mod declared;
mod error;
mod identify;
mod naming;
mod policy;
mod verify;

pub use catalog::{Bot, Catalog, Category};
pub use error::{LoadError, Position};
pub use identify::Identity;
pub use policy::{BotPolicy, ContentUse, RobotsPolicy, host_has_suffix};
pub use verify::{
    BotRanges, ClientAddress, ListInfo, RangeCheck, Verification, Verifier, client_address,
};

#[cfg(test)]
mod tests {
    /// The audit shares one catalog and one verifier between its worker threads.
    #[test]
    fn shared_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<crate::Catalog>();
        assert_send_sync::<crate::Verifier>();
        assert_send_sync::<crate::Identity>();
    }
}
