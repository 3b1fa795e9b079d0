//! Crawler identity for robots-audit: which bot sent a request, which robots.txt tokens it
//! answers to, and whether its IP address is really the operator's.
//!
//! * [`Catalog`]: the crawler catalog, built in (`data/catalog.json`, over 120 crawlers) and
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
//! # Identification
//!
//! [`Catalog::identify`] decides a header by the first of these that applies:
//!
//! 1. a pattern of the catalog's own format (built in or loaded): the bot of the most specific
//!    matching pattern (the longest minimum match, for a literal its length:
//!    `Googlebot-Image` beats `Googlebot`), then the bot listed first;
//! 2. the declared-bot rule below: an unknown bot named after the product that declares it;
//! 3. a pattern imported from a crawler-user-agents list: the product the match falls in, read
//!    in the header itself (the catalog bot of that name, else an unknown bot of that name).
//!
//! So loading a list never changes the name or robots tokens of a header that the catalog's own
//! patterns or the declared-bot rule identify; it only turns headers that would not be bots
//! into bots. Everything else is [`Identity::NotBot`].
//!
//! # Who counts as a bot
//!
//! A bot is a program that fetches pages on its own for an operator who can be asked to obey
//! robots.txt. Without a catalog entry, a header counts as one when it names its own product
//! next to evidence that it is a bot: a name with `bot`, `crawl`, `spider`, `slurp` or
//! `searchengine` (a capitalised `Bot` inside a name, as in `AcademicBotRTU`, outside browsers'
//! headers); a contact (URL or e-mail address) in a `(compatible; ...)` comment; a `+http`
//! contact URL; or, outside browsers' headers, a comment of nothing but contacts, one of them the
//! product's own site or mailbox (`ltx71 - (http://ltx71.com/)`). A bot word right after `like`
//! or `compatible with` (`... like FooBot`) names another product and counts for nothing.
//! Browsers, people's own applications (desktop feed readers, desktop search tools) and generic
//! software that any program embeds (HTTP libraries such as `curl`, `python-requests` or
//! `node-fetch`, feed-parsing libraries, configuration-management clients) are not bots, even
//! with their project's URL in the header.
//!
//! Such a bot is named by the product that declares it, as written: the name carrying the bot
//! word (`FooBot`), the phrase a bare `bot` or `crawler` ends (`James BOT`), or else the first
//! product that is not a browser's (`XML-Sitemaps` in `... Gecko XML-Sitemaps/1.0`), never a
//! fragment of a comment; a version never changes the name. Its robots.txt tokens follow from the name alone:
//! the name in lower case with its words run together (`xml-sitemaps`, `jamesbot`), its first
//! word (`james`), and for a name ending in `bot` the name without it (`Veoozbot` answers to
//! `veooz`), so its own group applies. The rule, case by case, is the module documentation of
//! `src/declared.rs`; `tests/who_is_a_bot.rs` checks it on the 300 most frequent headers of real
//! logs, and `examples/identify.rs` prints it for any list of headers.

//! # The catalog format
//!
//! A catalog file (`--bots FILE`, and the built-in `data/catalog.json`) is a JSON object with a
//! `bots` array (an optional `description` string beside it), or that array alone:
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
//! | field | required | meaning |
//! | --- | --- | --- |
//! | `name` | yes | the bot's canonical name, as reports show it; unique ignoring ASCII case. An entry with the name of a loaded bot replaces it in place |
//! | `operator` | no | who runs it (`Google`); empty when unknown |
//! | `category` | yes | `search`, `ai-training`, `ai-search`, `ai-assistant`, `seo`, `social`, `archive`, `monitor` or `other` |
//! | `tokens` | yes | the robots.txt product tokens the operator documents, in fallback order: the first that some group of a robots.txt names selects the rules. Compared ignoring ASCII case; a token cannot hold whitespace, `/`, `*`, `;` or `#`, because a group name ends there (so `Sogou web spider` answers to `sogou`) |
//! | `patterns` | no | literal substrings of the User-Agent header |
//! | `regexes` | no | regular expressions of the header (Rust `regex` syntax; unanchored unless written with `^` or `$`) |
//! | `examples` | no | real headers of the bot; each must identify as this entry, and loading a file checks it |
//!
//! Patterns and regexes are matched ignoring ASCII case, on the header's raw bytes. A pattern
//! that matches the empty string (it would match every header) is refused. An entry without
//! patterns is known only by its tokens (`Google-Extended`, `Applebot-Extended`: robots.txt
//! switches, never sent as a user-agent). Unknown fields are errors, named with the file and
//! the entry.
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
//! A file in the public crawler-user-agents format (an array of
//! `{"pattern": ..., "instances": [...], ...}`) loads too: each `pattern` is a regular
//! expression, and each product its matches fall in within `instances` becomes a bot (category
//! `other`, no operator, the tokens of an unknown bot of that name) unless the catalog
//! already has a bot of that name or first token. Its other fields are ignored.
//!
//! [`Catalog::render_json`] prints a catalog in this format (`robots-audit bots --json`), and
//! [`Catalog::render_table`] as a table (`robots-audit bots`).

#![warn(missing_docs)]

mod bot;
mod catalog;
mod crawler_user_agents;
mod declared;
pub mod dns;
mod error;
mod identify;
mod listing;
mod naming;
mod policy;
mod verify;
mod words;

pub use bot::{Bot, Category};
pub use catalog::Catalog;
pub use error::{LoadError, Position};
pub use identify::Identity;
pub use policy::{BotPolicy, ContentUse, RobotsPolicy, host_has_suffix};
pub use verify::{
    BotRanges, ClientAddress, ListInfo, RangeCheck, Verification, Verifier, client_address,
    dotted_quad_address, is_rfc3339_offset,
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
