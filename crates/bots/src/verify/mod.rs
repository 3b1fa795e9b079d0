//! Checking a bot's client address against the address ranges its operator publishes, as they
//! stood at the time of the request.
//!
//! Range lists are tied to a key: a bot name (the list covers that bot only) or an operator. An
//! operator publishes several lists, each for some of its crawlers (Google's
//! `common-crawlers.json`, `special-crawlers.json`, `user-triggered-fetchers.json`, ...); a list
//! keyed by an operator covers the bots whose catalog entry names that list (by file stem, see
//! [`BotPolicy::covered_by_list`](crate::BotPolicy::covered_by_list)). A bot is verified or
//! spoofed only against the lists that cover it; with none it is unverified.
//!
//! A list may be a single file, in force at every time, or a series of dated snapshots, each in
//! force from its time (the file's own `creationTime` when it has one) until the next: a
//! request is checked against the snapshot in force when it was made. Three formats are read,
//! told apart by content:
//!
//! * the JSON that Google, Bing, OpenAI and Perplexity publish:
//!   `{"creationTime": ..., "prefixes": [{"ipv4Prefix": "..."}, {"ipv6Prefix": "..."}]}` (an
//!   object may hold both keys; duplicates are harmless);
//! * a MISP warning list: `{"list": ["192.0.2.0/24", "2001:db8::/32", ...], ...}`;
//! * plain text: one CIDR or bare address (a /32 or /128) per line, `#` starts a comment.
//!
//! Ranges are kept sorted and merged per snapshot and address family;
//! [`Verifier::ranges_for`] merges the lists that cover one bot into a [`BotRanges`]: one set
//! per period between snapshot times (usually a single period), whose lookup is a binary
//! search without allocation.
//!
//! The client field of a log line is not always one address: it may be a host name
//! (`HostnameLookups On`), `-`, `unknown`, or an `X-Forwarded-For` list. Such a field is never
//! spoofed: a list is checked by its first public address, a host name needs forward DNS
//! ([`RangeCheck::ForwardDns`]), anything else is unverified. So is a private, loopback or
//! link-local address, which is the logging proxy's, not the crawler's.
//!
//! The work is split by job: `client.rs` reads client fields, `ranges.rs` keeps the interval
//! sets of addresses and the loaded lists, `load.rs` reads range files and snapshot
//! directories; this module verifies a request against them.

mod client;
mod load;
mod ranges;

use jiff::Timestamp;

pub use client::{ClientAddress, client_address, dotted_quad_address};
pub use load::is_rfc3339_offset;
use ranges::{RangeList, Ranges};

use crate::bot::Bot;

/// Whether a request really came from the bot its user-agent names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verification {
    /// The client IP is inside a range list that covers the bot, in force at the request's
    /// time.
    Verified,
    /// Outside the published ranges (or with none covering the bot), but forward-confirmed
    /// reverse DNS puts the address under one of the operator's documented host suffixes
    /// (`--verify dns`).
    VerifiedDns,
    /// Lists covering the bot publish ranges of the client's address family, but the public
    /// client address is outside all of them.
    Spoofed,
    /// Nothing to check against: no list covering the bot (at that time, or of the client's
    /// address family), or a client field that is not a public address.
    Unverified,
}

impl Verification {
    /// The name used in reports: `verified`, `verified_dns`, `spoofed` or `unverified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Verified => "verified",
            Verification::VerifiedDns => "verified_dns",
            Verification::Spoofed => "spoofed",
            Verification::Unverified => "unverified",
        }
    }
}

/// What the ranges can say about one request (see [`BotRanges::check_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeCheck<'a> {
    /// The ranges decided, or there was nothing to decide with.
    Done(Verification),
    /// The client field is a host name that ends with one of the bot's DNS suffixes: only a
    /// forward lookup of the name (it must resolve to an address whose PTR is that name) can
    /// verify it. Without DNS the request is [`Verification::Unverified`].
    ForwardDns(&'a [u8]),
}

impl RangeCheck<'_> {
    /// The verification when no DNS lookup is made: a host name is unverified.
    pub fn without_dns(self) -> Verification {
        match self {
            RangeCheck::Done(verification) => verification,
            RangeCheck::ForwardDns(_) => Verification::Unverified,
        }
    }
}

/// One summary line per loaded list (see [`Verifier::lists`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListInfo {
    /// The bot name or operator the list was loaded for.
    pub key: String,
    /// The list's name (a file stem, lower case), which decides which of the operator's bots
    /// it covers.
    pub list: String,
    /// The snapshot times, oldest first; empty for a list in force at every time.
    pub snapshots: Vec<Timestamp>,
}

/// Published crawler IP ranges, keyed by bot name or operator, possibly dated.
///
/// ```
/// use robots_audit_bots::{Catalog, Verification, Verifier};
///
/// let catalog = Catalog::builtin();
/// let bot = |name: &str| &catalog.bots()[catalog.find(name).unwrap()];
/// let mut verifier = Verifier::new();
/// let json = br#"{"creationTime": "2025-01-01T00:00:00", "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}]}"#;
/// assert_eq!(verifier.add_ranges("Google", json, "ranges/common-crawlers.json").unwrap(), 1);
///
/// let image = bot("Googlebot-Image");
/// assert_eq!(verifier.verify(image, b"192.0.2.7"), Verification::Verified);
/// assert_eq!(verifier.verify(image, b"[::ffff:192.0.2.7]:443"), Verification::Verified);
/// assert_eq!(verifier.verify(image, b"198.51.100.1"), Verification::Spoofed);
/// assert_eq!(verifier.verify(image, b"2001:db8::1"), Verification::Unverified);
/// // Google publishes FeedFetcher's addresses in another list: not loaded, so not judged.
/// assert_eq!(verifier.verify(bot("FeedFetcher-Google"), b"198.51.100.1"), Verification::Unverified);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Verifier {
    lists: Vec<RangeList>,
}

impl Verifier {
    /// A verifier without ranges: everything is [`Verification::Unverified`].
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// The keys that ranges were loaded for, as first given, each once.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        let mut seen: Vec<&str> = Vec::new();
        for list in &self.lists {
            if !seen.iter().any(|key| key.eq_ignore_ascii_case(&list.key)) {
                seen.push(&list.key);
            }
        }
        seen.into_iter()
    }

    /// Every loaded list, in loading order.
    pub fn lists(&self) -> Vec<ListInfo> {
        self.lists
            .iter()
            .map(|list| ListInfo {
                key: list.key.clone(),
                list: list.list.clone(),
                snapshots: list.times().collect(),
            })
            .collect()
    }

    /// Checks a logged client address against the lists that cover `bot`, as they stand now
    /// (their latest snapshots), as [`BotRanges::verify`] does. To check many requests of one
    /// bot, take its [`ranges_for`](Verifier::ranges_for) once instead: this merges them at
    /// every call.
    pub fn verify(&self, bot: &Bot, client_ip: &[u8]) -> Verification {
        self.ranges_for(bot).verify(client_ip)
    }

    /// [`verify`](Verifier::verify) against the snapshots in force at `time`.
    pub fn verify_at(&self, bot: &Bot, client_ip: &[u8], time: Timestamp) -> Verification {
        self.ranges_for(bot).verify_at(client_ip, time)
    }

    /// The ranges of the lists that cover `bot` (keyed by its name, or by its operator and
    /// named as one of its lists), merged per period between snapshot times, with its DNS
    /// suffixes.
    ///
    /// ```
    /// use robots_audit_bots::{Catalog, Verification, Verifier};
    ///
    /// let catalog = Catalog::builtin();
    /// let bingbot = &catalog.bots()[catalog.find("Bingbot").unwrap()];
    /// let mut verifier = Verifier::new();
    /// verifier.add_ranges("Microsoft", b"192.0.2.0/25", "bingbot.json").unwrap();
    /// verifier.add_ranges("Bingbot", b"192.0.2.128/25", "extra.txt").unwrap();
    /// let ranges = verifier.ranges_for(bingbot);
    /// assert_eq!(ranges.verify(b"192.0.2.1"), Verification::Verified);
    /// assert_eq!(ranges.verify(b"192.0.2.200"), Verification::Verified);
    /// assert_eq!(ranges.verify(b"192.0.3.1"), Verification::Spoofed);
    /// ```
    pub fn ranges_for(&self, bot: &Bot) -> BotRanges {
        let covering: Vec<&RangeList> = self.lists.iter().filter(|list| list.covers(bot)).collect();
        let mut times: Vec<Timestamp> = covering.iter().flat_map(|list| list.times()).collect();
        times.sort_unstable();
        times.dedup();
        let starts = std::iter::once(None).chain(times.into_iter().map(Some));
        let mut periods: Vec<Period> = Vec::new();
        for start in starts {
            let mut ranges = Ranges::default();
            for list in &covering {
                for part in list.at(start) {
                    ranges.add(part);
                }
            }
            // A period that says what the previous one said is the previous one.
            if periods.last().is_some_and(|last| last.ranges == ranges) {
                continue;
            }
            periods.push(Period { start, ranges });
        }
        BotRanges {
            periods,
            dns_suffixes: bot.policy.dns_suffixes.clone(),
        }
    }
}

/// A period of time during which the same ranges cover a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Period {
    /// `None`: since always.
    start: Option<Timestamp>,
    ranges: Ranges,
}

/// The published ranges that cover one bot (see [`Verifier::ranges_for`]), ready to check its
/// requests.
#[derive(Debug, Clone, Default)]
pub struct BotRanges {
    /// Sorted by start; the first starts at `None`. Usually one.
    periods: Vec<Period>,
    /// The bot's DNS suffixes, to tell which host-name clients forward DNS can verify.
    dns_suffixes: Vec<String>,
}

impl BotRanges {
    /// Whether no ranges cover the bot at any time: every request is
    /// [`Verification::Unverified`] (or needs DNS).
    pub fn is_empty(&self) -> bool {
        self.periods.iter().all(|period| period.ranges.is_empty())
    }

    /// Checks a logged client field against the latest snapshots (see
    /// [`check_at`](BotRanges::check_at) for the rules): for runs without request times.
    pub fn verify(&self, client_ip: &[u8]) -> Verification {
        self.check(client_ip, self.periods.last()).without_dns()
    }

    /// Checks a logged client field against the snapshots in force at `time`; a host name is
    /// unverified (see [`check_at`](BotRanges::check_at) to tell it apart).
    pub fn verify_at(&self, client_ip: &[u8], time: Timestamp) -> Verification {
        self.check_at(client_ip, time).without_dns()
    }

    /// What the ranges in force at `time` say of a logged client field (see
    /// [`client_address`] for the forms read): a public address inside them is verified,
    /// outside all ranges of its family spoofed, with none of its family unverified; a host
    /// name ending with one of the bot's DNS suffixes needs forward DNS; anything else
    /// (another host name, `-`, `unknown`, a private address, a list without a public
    /// address) is unverified, never spoofed. A binary search, no allocation.
    pub fn check_at<'a>(&self, client_ip: &'a [u8], time: Timestamp) -> RangeCheck<'a> {
        self.check_address_at(client_address(client_ip), time)
    }

    /// [`check_at`](BotRanges::check_at) for a client field already read by
    /// [`client_address`]: for callers that keep what each field they saw reads as.
    pub fn check_address_at<'a>(
        &self,
        client: ClientAddress<'a>,
        time: Timestamp,
    ) -> RangeCheck<'a> {
        let period = match self.periods.as_slice() {
            [only] => Some(only),
            periods => {
                let after = periods.partition_point(|period| period.start <= Some(time));
                after.checked_sub(1).and_then(|index| periods.get(index))
            }
        };
        self.check_address(client, period)
    }

    fn check<'a>(&self, client_ip: &'a [u8], period: Option<&Period>) -> RangeCheck<'a> {
        self.check_address(client_address(client_ip), period)
    }

    fn check_address<'a>(
        &self,
        client: ClientAddress<'a>,
        period: Option<&Period>,
    ) -> RangeCheck<'a> {
        match client {
            ClientAddress::Public(ip) => RangeCheck::Done(
                period.map_or(Verification::Unverified, |period| period.ranges.verify(ip)),
            ),
            ClientAddress::HostName(host)
                if self
                    .dns_suffixes
                    .iter()
                    .any(|suffix| crate::policy::host_has_suffix(host, suffix)) =>
            {
                RangeCheck::ForwardDns(host)
            }
            ClientAddress::HostName(_)
            | ClientAddress::NotPublic
            | ClientAddress::Several
            | ClientAddress::Unknown => RangeCheck::Done(Verification::Unverified),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bot's name and its operator each have ranges of one family: an address is verified
    /// inside either, spoofed outside all of its family's, and a bot without ranges is never
    /// judged.
    #[test]
    fn ranges_of_name_and_operator_add_up() {
        let mut verifier = Verifier::new();
        verifier
            .add_ranges("examplebot", b"192.0.2.0/24", "a.txt")
            .unwrap();
        verifier
            .add_ranges("EXAMPLE CORP", b"2001:db8::/32", "b.txt")
            .unwrap();
        verifier
            .add_ranges("Other", b"198.51.100.0/24", "c.txt")
            .unwrap();
        let bot = |name: &str, operator: &str| Bot {
            name: name.into(),
            tokens: Vec::new(),
            operator: operator.into(),
            category: crate::Category::Other,
            policy: Default::default(),
        };
        let (ours, name_only, stranger) = (
            bot("ExampleBot", "Example Corp"),
            bot("ExampleBot", "Someone"),
            bot("Stranger", "Nobody"),
        );
        use Verification::{Spoofed, Unverified, Verified};
        let cases: &[(&Bot, &[u8], Verification)] = &[
            (&ours, b"192.0.2.9", Verified),
            (&ours, b"[2001:db8::9]:80", Verified),
            (&ours, b"198.51.100.1", Spoofed),
            (&ours, b"2001:db9::1", Spoofed),
            (&ours, b"unknown", Unverified),
            (&name_only, b"2001:db8::9", Unverified),
            (&name_only, b"192.0.2.9", Verified),
            (&stranger, b"192.0.2.9", Unverified),
            (&stranger, b"unknown", Unverified),
        ];
        for &(bot, address, expected) in cases {
            let ranges = verifier.ranges_for(bot);
            assert_eq!(ranges.verify(address), expected, "{} {address:?}", bot.name);
            assert_eq!(verifier.verify(bot, address), expected);
        }
        assert!(verifier.ranges_for(&stranger).is_empty());
    }
}
