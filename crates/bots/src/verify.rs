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

use std::fs;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::str::FromStr;

use ipnet::IpNet;
use jiff::Timestamp;
use serde_json::Value;

use crate::bot::Bot;
use crate::catalog::Catalog;
use crate::error::{LoadError, Position};
use crate::policy::contains_word;

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

/// What a logged client field holds (see [`client_address`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAddress<'a> {
    /// A public address: the field's only address, or the first public one of a list.
    Public(IpAddr),
    /// Addresses, none of them public (a private, loopback, link-local, multicast or
    /// unspecified address): the logging proxy's, not the client's.
    NotPublic,
    /// A host name, as `HostnameLookups On` logs it (trailing dot removed).
    HostName(&'a [u8]),
    /// Anything else: `-`, `unknown`, empty, garbage.
    Unknown,
}

/// Reads a logged client field: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]:443`,
/// `fe80::1%eth0`, IPv4-mapped `::ffff:192.0.2.1` (read as IPv4), an `X-Forwarded-For` list
/// `198.51.100.7, 10.0.0.1` (its first public address), or a host name.
///
/// ```
/// use std::net::IpAddr;
/// use robots_audit_bots::{ClientAddress, client_address};
///
/// let ip: IpAddr = "66.249.66.1".parse().unwrap();
/// assert_eq!(client_address(b"66.249.66.1"), ClientAddress::Public(ip));
/// assert_eq!(client_address(b"10.0.0.3, 66.249.66.1"), ClientAddress::Public(ip));
/// assert_eq!(client_address(b"10.0.0.3"), ClientAddress::NotPublic);
/// assert_eq!(
///     client_address(b"crawl-66-249-66-1.googlebot.com"),
///     ClientAddress::HostName(b"crawl-66-249-66-1.googlebot.com")
/// );
/// assert_eq!(client_address(b"-"), ClientAddress::Unknown);
/// ```
pub fn client_address(raw: &[u8]) -> ClientAddress<'_> {
    if let Some(ip) = parse_client_ip(raw) {
        return public(ip);
    }
    if raw.contains(&b',') {
        let mut any = false;
        for item in raw.split(|&b| b == b',') {
            if let Some(ip) = parse_client_ip(item.trim_ascii()) {
                any = true;
                if is_public(ip) {
                    return ClientAddress::Public(ip);
                }
            }
        }
        return if any {
            ClientAddress::NotPublic
        } else {
            ClientAddress::Unknown
        };
    }
    let trimmed = raw.trim_ascii();
    match host_name(trimmed) {
        Some(host) => ClientAddress::HostName(host),
        None => ClientAddress::Unknown,
    }
}

fn public(ip: IpAddr) -> ClientAddress<'static> {
    if is_public(ip) {
        ClientAddress::Public(ip)
    } else {
        ClientAddress::NotPublic
    }
}

/// Whether a crawler can send requests from `ip`: not private, shared (100.64.0.0/10),
/// loopback, link-local, multicast, broadcast or unspecified. Documentation ranges count as
/// public (tests and examples use them).
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_private()
                || ip.is_loopback()
                || ip.is_link_local()
                || ip.is_multicast()
                || ip.is_broadcast()
                || ip.is_unspecified()
                || (a == 100 && (64..128).contains(&b))
                || a == 0)
        }
        IpAddr::V6(ip) => {
            let first = ip.segments()[0];
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// `raw` without a trailing dot when it is a host name: at most 253 bytes, two or more labels
/// of letters, digits, `-` and `_`, with a letter somewhere (so that no malformed address is
/// taken for a name).
fn host_name(raw: &[u8]) -> Option<&[u8]> {
    let name = raw.strip_suffix(b".").unwrap_or(raw);
    let labels_ok = name.split(|&b| b == b'.').all(|label| {
        (1..=63).contains(&label.len())
            && label
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    let shaped = name.len() <= 253
        && name.contains(&b'.')
        && name.iter().any(u8::is_ascii_alphabetic)
        && labels_ok;
    shaped.then_some(name)
}

/// Sorted, non-overlapping, non-adjacent inclusive ranges of one address family.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RangeSet<T> {
    ranges: Vec<(T, T)>,
}

impl<T: Copy + Ord + Successor> RangeSet<T> {
    fn extend(&mut self, more: impl IntoIterator<Item = (T, T)>) {
        self.ranges.extend(more);
        self.ranges.sort_unstable();
        let mut merged: Vec<(T, T)> = Vec::with_capacity(self.ranges.len());
        for &(start, end) in &self.ranges {
            match merged.last_mut() {
                Some(last) if start <= last.1.successor() => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        self.ranges = merged;
    }

    fn contains(&self, address: T) -> bool {
        let after = self.ranges.partition_point(|&(start, _)| start <= address);
        after
            .checked_sub(1)
            .and_then(|index| self.ranges.get(index))
            .is_some_and(|&(_, end)| address <= end)
    }

    fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// The next address, saturating at the top of the family (for merging adjacent ranges).
trait Successor {
    fn successor(self) -> Self;
}

impl Successor for u32 {
    fn successor(self) -> Self {
        self.saturating_add(1)
    }
}

impl Successor for u128 {
    fn successor(self) -> Self {
        self.saturating_add(1)
    }
}

/// The addresses of one snapshot (or of a union of snapshots), both families.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Ranges {
    v4: RangeSet<u32>,
    v6: RangeSet<u128>,
}

impl Ranges {
    fn add_nets(&mut self, nets: &[IpNet]) {
        self.v4.extend(nets.iter().filter_map(|net| match net {
            IpNet::V4(net) => Some((u32::from(net.network()), u32::from(net.broadcast()))),
            IpNet::V6(_) => None,
        }));
        self.v6.extend(nets.iter().filter_map(|net| match net {
            IpNet::V6(net) => Some((u128::from(net.network()), u128::from(net.broadcast()))),
            IpNet::V4(_) => None,
        }));
    }

    fn add(&mut self, other: &Ranges) {
        self.v4.extend(other.v4.ranges.iter().copied());
        self.v6.extend(other.v6.ranges.iter().copied());
    }

    fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    fn verify(&self, ip: IpAddr) -> Verification {
        let (has_family, inside) = match ip {
            IpAddr::V4(ip) => (!self.v4.is_empty(), self.v4.contains(u32::from(ip))),
            IpAddr::V6(ip) => (!self.v6.is_empty(), self.v6.contains(u128::from(ip))),
        };
        match (inside, has_family) {
            (true, _) => Verification::Verified,
            (false, true) => Verification::Spoofed,
            (false, false) => Verification::Unverified,
        }
    }
}

/// One range list loaded for a key: the files without a time (in force at every time) and the
/// dated snapshots (each in force from its time until the next).
#[derive(Debug, Clone)]
struct RangeList {
    /// A bot name or an operator, as first given.
    key: String,
    /// The list's name, lower case: a file stem such as `common-crawlers`, or the directory
    /// name of a snapshot series.
    list: String,
    timeless: Ranges,
    /// Sorted by time, one per distinct time.
    dated: Vec<(Timestamp, Ranges)>,
}

impl RangeList {
    fn covers(&self, bot: &Bot) -> bool {
        self.key.eq_ignore_ascii_case(&bot.name)
            || (!bot.operator.is_empty()
                && self.key.eq_ignore_ascii_case(&bot.operator)
                && bot.policy.covered_by_list(&self.list))
    }

    /// The times at which what this list says changes.
    fn times(&self) -> impl Iterator<Item = Timestamp> + '_ {
        self.dated.iter().map(|(time, _)| *time)
    }

    /// What the list says at `time` (`None`: before any snapshot, only the timeless files).
    fn at(&self, time: Option<Timestamp>) -> impl Iterator<Item = &Ranges> {
        let snapshot = time.and_then(|time| {
            let after = self.dated.partition_point(|(from, _)| *from <= time);
            after.checked_sub(1).and_then(|index| self.dated.get(index))
        });
        std::iter::once(&self.timeless).chain(snapshot.map(|(_, ranges)| ranges))
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

    /// Loads a range file (any of the three formats) for `key`, a bot name or an operator, in
    /// force at every time, and returns how many prefixes it listed. The list is named after
    /// the stem of `name` (`ranges/common-crawlers.json` is the list `common-crawlers`), which
    /// decides which of an operator's bots it covers. Files loaded for the same key and list
    /// add up. `name` labels the input in errors; on error nothing is added.
    pub fn add_ranges(&mut self, key: &str, bytes: &[u8], name: &str) -> Result<usize, LoadError> {
        let list = list_name(Path::new(name));
        self.add(key, &list, None, bytes, name)
    }

    /// Loads one dated snapshot of the list `list` (a file stem such as `common-crawlers`) for
    /// `key`: in force from `from`, or from the file's own `creationTime` when it has one, until
    /// the next snapshot of that list. Snapshots of the same time add up. Returns how many
    /// prefixes it listed.
    pub fn add_snapshot(
        &mut self,
        key: &str,
        list: &str,
        from: Timestamp,
        bytes: &[u8],
        name: &str,
    ) -> Result<usize, LoadError> {
        self.add(key, &list.to_ascii_lowercase(), Some(from), bytes, name)
    }

    fn add(
        &mut self,
        key: &str,
        list: &str,
        from: Option<Timestamp>,
        bytes: &[u8],
        name: &str,
    ) -> Result<usize, LoadError> {
        let key = key.trim();
        if key.is_empty() {
            return Err(LoadError::new(
                name,
                None,
                "the key (a bot name or an operator) is empty",
            ));
        }
        let (nets, created) = parse_ranges(bytes, name)?;
        // Only a snapshot's time matters: a file in force at every time ignores its own.
        let from = match (from, created) {
            (Some(_), Some(created)) => Some(parse_time(&created).ok_or_else(|| {
                LoadError::new(
                    name,
                    None,
                    format!("`creationTime` {created:?} is not a time (RFC 3339)"),
                )
            })?),
            (from, _) => from,
        };
        let index = match self
            .lists
            .iter()
            .position(|known| known.key.eq_ignore_ascii_case(key) && known.list == list)
        {
            Some(index) => index,
            None => {
                self.lists.push(RangeList {
                    key: key.to_owned(),
                    list: list.to_owned(),
                    timeless: Ranges::default(),
                    dated: Vec::new(),
                });
                self.lists.len() - 1
            }
        };
        if let Some(known) = self.lists.get_mut(index) {
            match from {
                None => known.timeless.add_nets(&nets),
                Some(from) => {
                    let at = known.dated.partition_point(|(time, _)| *time < from);
                    match known.dated.get_mut(at) {
                        Some((time, ranges)) if *time == from => ranges.add_nets(&nets),
                        _ => {
                            let mut ranges = Ranges::default();
                            ranges.add_nets(&nets);
                            known.dated.insert(at, (from, ranges));
                        }
                    }
                }
            }
        }
        Ok(nets.len())
    }

    /// Loads a directory of dated snapshots, `DIR/<name>/<time>.<ext>`, and returns how many
    /// files it read. `<name>` is a published list (`common-crawlers`, `googlebot`, `gptbot`:
    /// the key is then the operator of the catalog bots that name it), a bot name or an
    /// operator. `<time>` is RFC 3339 (`2025-06-01T00:00:00Z`), a date-time without offset
    /// (UTC) or a date; a file's own `creationTime` takes precedence. Hidden entries are
    /// skipped; anything else that does not fit is an error naming it.
    pub fn add_snapshot_dir(&mut self, catalog: &Catalog, dir: &Path) -> Result<usize, LoadError> {
        let label = dir.display().to_string();
        let mut next = self.clone();
        let mut files = 0;
        for entry in sorted_entries(dir, &label)? {
            let sub_label = entry.display().to_string();
            if !entry.is_dir() {
                return Err(LoadError::new(
                    &sub_label,
                    None,
                    "expected a directory named after a bot, an operator or a published list, holding <time>.json snapshots",
                ));
            }
            let sub_name = entry
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (key, list) = snapshot_key(catalog, &sub_name).ok_or_else(|| {
                LoadError::new(
                    &sub_label,
                    None,
                    format!(
                        "{sub_name:?} names no bot, operator or published range list of the catalog"
                    ),
                )
            })?;
            for file in sorted_entries(&entry, &sub_label)? {
                let file_label = file.display().to_string();
                let stem = file
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let from = parse_time(&stem).ok_or_else(|| {
                    LoadError::new(
                        &file_label,
                        None,
                        format!(
                            "the file name {stem:?} is not a time (RFC 3339, e.g. 2025-06-01T00:00:00Z, or a date)"
                        ),
                    )
                })?;
                let bytes = fs::read(&file).map_err(|error| {
                    LoadError::new(&file_label, None, format!("cannot read: {error}"))
                })?;
                next.add(&key, &list, Some(from), &bytes, &file_label)?;
                files += 1;
            }
        }
        *self = next;
        Ok(files)
    }

    /// Loads what a `--verify [KEY=]PATH` names: a directory of dated snapshots (see
    /// [`add_snapshot_dir`](Verifier::add_snapshot_dir); its subdirectories name the lists, so
    /// it takes no key), or one range file for `key`, or, without a key, for the key its name
    /// implies ([`key_from_file_name`](Verifier::key_from_file_name)). Returns how many files
    /// were read.
    pub fn add_path(
        &mut self,
        catalog: &Catalog,
        key: Option<&str>,
        path: &Path,
    ) -> Result<usize, LoadError> {
        let label = path.display().to_string();
        if path.is_dir() {
            if let Some(key) = key {
                return Err(LoadError::new(
                    &label,
                    None,
                    format!(
                        "a snapshot directory names its lists itself (DIR/<list, bot or operator>/<time>.json): drop {key:?}="
                    ),
                ));
            }
            return self.add_snapshot_dir(catalog, path);
        }
        let key = match key {
            Some(key) => key.to_owned(),
            None => Verifier::key_from_file_name(catalog, path).ok_or_else(|| {
                LoadError::new(
                    &label,
                    None,
                    "cannot tell which bot or operator these ranges belong to: give KEY=",
                )
            })?,
        };
        let bytes = fs::read(path)
            .map_err(|error| LoadError::new(&label, None, format!("cannot read: {error}")))?;
        self.add_ranges(&key, &bytes, &label)?;
        Ok(1)
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

    /// Infers the key of a range file from its name, so that `--verify googlebot.json` needs no
    /// explicit key: the longest name of the catalog that the file stem contains as a whole
    /// word (delimited by non-alphanumerics), ignoring case. A published list (`common-crawlers`,
    /// `googlebot`, `special-crawlers`, `gptbot`, ...) stands for the operator of the bots that
    /// name it, and wins over a bot name, first robots.txt token or operator of the same
    /// length; a bot wins over an operator of the same length, an earlier bot over a later one.
    /// Returns the bot name or operator as the catalog writes it.
    ///
    /// ```
    /// use std::path::Path;
    /// use robots_audit_bots::{Catalog, Verifier};
    ///
    /// let catalog = Catalog::builtin();
    /// let key = |file: &str| Verifier::key_from_file_name(&catalog, Path::new(file));
    /// assert_eq!(key("ranges/googlebot.json").as_deref(), Some("Google"));
    /// assert_eq!(key("user-triggered-fetchers-google.json").as_deref(), Some("Google"));
    /// assert_eq!(key("lord-alfred_openai_ipv4.txt").as_deref(), Some("OpenAI"));
    /// assert_eq!(key("misp_openai-gptbot_list.json").as_deref(), Some("OpenAI"));
    /// assert_eq!(key("googlebot-image.txt").as_deref(), Some("Googlebot-Image"));
    /// assert_eq!(key("yandexbot.txt").as_deref(), Some("YandexBot"));
    /// assert_eq!(key("ranges.txt"), None);
    /// ```
    pub fn key_from_file_name<'a>(catalog: &'a Catalog, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_string_lossy().to_ascii_lowercase();
        let list = list_operator(catalog, &stem);
        // (needle length, is a bot, key): the greatest wins; `>` keeps the earliest of equals.
        let mut best: Option<(usize, bool, &str)> = None;
        let mut offer = |candidate: (usize, bool, &'a str)| {
            if best.is_none_or(|(len, is_bot, _)| (candidate.0, candidate.1) > (len, is_bot)) {
                best = Some(candidate);
            }
        };
        for bot in catalog.bots() {
            let needles = [
                Some(bot.name.as_str()),
                bot.tokens.first().map(String::as_str),
            ];
            for needle in needles.into_iter().flatten() {
                if contains_word(&stem, needle) {
                    offer((needle.len(), true, bot.name.as_str()));
                }
            }
        }
        for bot in catalog.bots() {
            if contains_word(&stem, &bot.operator) {
                offer((bot.operator.len(), false, bot.operator.as_str()));
            }
        }
        match (list, best) {
            (Some((list_len, operator)), best)
                if best.is_none_or(|(len, _, _)| list_len >= len) =>
            {
                Some(operator.to_owned())
            }
            (_, best) => best.map(|(_, _, key)| key.to_owned()),
        }
    }
}

/// The operator of the catalog bots that name a published list contained in `stem` (the
/// longest such list), with that list's length, if any.
fn list_operator<'a>(catalog: &'a Catalog, stem: &str) -> Option<(usize, &'a str)> {
    let mut best: Option<(usize, &str)> = None;
    for bot in catalog.bots() {
        if bot.operator.is_empty() {
            continue;
        }
        for list in bot.policy.ranges.iter().flatten() {
            let found = stem == list.as_str() || contains_word(stem, list);
            if found && best.is_none_or(|(len, _)| list.len() > len) {
                best = Some((list.len(), bot.operator.as_str()));
            }
        }
    }
    best
}

/// The key and list name of a snapshot directory named `name`: a published list (its
/// operator's), a bot name or an operator.
fn snapshot_key(catalog: &Catalog, name: &str) -> Option<(String, String)> {
    let lower = name.to_ascii_lowercase();
    if let Some(operator) = catalog.bots().iter().find_map(|bot| {
        bot.policy
            .ranges
            .iter()
            .flatten()
            .any(|list| *list == lower)
            .then_some(bot.operator.as_str())
            .filter(|operator| !operator.is_empty())
    }) {
        return Some((operator.to_owned(), lower));
    }
    let known = catalog.bots().iter().find_map(|bot| {
        if bot.name.eq_ignore_ascii_case(name) {
            Some(bot.name.as_str())
        } else if !bot.operator.is_empty() && bot.operator.eq_ignore_ascii_case(name) {
            Some(bot.operator.as_str())
        } else {
            None
        }
    })?;
    Some((known.to_owned(), lower))
}

/// The entries of a directory, sorted, hidden ones left out.
fn sorted_entries(dir: &Path, label: &str) -> Result<Vec<std::path::PathBuf>, LoadError> {
    let read = fs::read_dir(dir)
        .map_err(|error| LoadError::new(label, None, format!("cannot read: {error}")))?;
    let mut paths = Vec::new();
    for entry in read {
        let entry =
            entry.map_err(|error| LoadError::new(label, None, format!("cannot read: {error}")))?;
        if !entry.file_name().to_string_lossy().starts_with('.') {
            paths.push(entry.path());
        }
    }
    paths.sort();
    Ok(paths)
}

/// The list a file is: its stem, lower case.
fn list_name(path: &Path) -> String {
    path.file_stem()
        .map(|stem| stem.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// A snapshot time: RFC 3339, a date-time without offset (UTC, as Google's `creationTime`
/// writes it), or a date (midnight UTC).
fn parse_time(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(time) = Timestamp::from_str(text) {
        return Some(time);
    }
    let utc = jiff::tz::TimeZone::UTC;
    if let Ok(civil) = jiff::civil::DateTime::from_str(text) {
        return civil.to_zoned(utc).ok().map(|zoned| zoned.timestamp());
    }
    jiff::civil::Date::from_str(text)
        .ok()?
        .to_zoned(utc)
        .ok()
        .map(|zoned| zoned.timestamp())
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
        let period = match self.periods.as_slice() {
            [only] => Some(only),
            periods => {
                let after = periods.partition_point(|period| period.start <= Some(time));
                after.checked_sub(1).and_then(|index| periods.get(index))
            }
        };
        self.check(client_ip, period)
    }

    fn check<'a>(&self, client_ip: &'a [u8], period: Option<&Period>) -> RangeCheck<'a> {
        match client_address(client_ip) {
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
            ClientAddress::HostName(_) | ClientAddress::NotPublic | ClientAddress::Unknown => {
                RangeCheck::Done(Verification::Unverified)
            }
        }
    }
}

/// Parses a logged client address (see [`Verifier::verify`]).
fn parse_client_ip(raw: &[u8]) -> Option<IpAddr> {
    // Most logged addresses are a plain dotted quad or plain IPv6 in hex groups. std's parser
    // takes about 200 instructions for the first and 1,600 for the second; these small readers
    // accept only text std reads the same way, and leave everything else to std.
    if let Some(ip) = parse_dotted_quad(raw) {
        return Some(IpAddr::V4(ip));
    }
    if raw.len() <= 15 && raw.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
        // Digits and dots that are no dotted quad: no address either, however read.
        return None;
    }
    if let Some(ip) = parse_hex_ipv6(raw) {
        return Some(ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4));
    }
    parse_decorated_ip(raw)
}

/// A client address with what logs put around it (brackets, a port, a zone, spaces), read by
/// std.
fn parse_decorated_ip(raw: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(raw).ok()?.trim();
    let host = if let Some(bracketed) = text.strip_prefix('[') {
        let (inner, rest) = bracketed.split_once(']')?;
        if !rest.is_empty() && !rest.strip_prefix(':').is_some_and(is_port) {
            return None;
        }
        inner
    } else {
        match text.split_once(':') {
            // One colon after a dotted address is a port; IPv6 has at least two colons.
            Some((host, port)) if host.contains('.') && !port.contains(':') => {
                if !is_port(port) {
                    return None;
                }
                host
            }
            _ => text,
        }
    };
    let host = host
        .split_once('%')
        .map_or(host, |(address, _zone)| address);
    match IpAddr::from_str(host).ok()? {
        IpAddr::V6(ip) => Some(ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4)),
        v4 => Some(v4),
    }
}

/// A dotted quad read exactly as `Ipv4Addr::from_str` reads one: four decimal octets of 1 to 3
/// digits, at most 255, without a leading zero (which could be meant as octal). `None` for
/// anything else.
fn parse_dotted_quad(raw: &[u8]) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    // Octets finished, and the value and digit count of the one being read.
    let mut done = 0;
    let mut value: u16 = 0;
    let mut digits = 0;
    for &b in raw {
        if b.is_ascii_digit() {
            if digits == 1 && value == 0 {
                return None;
            }
            value = value * 10 + u16::from(b - b'0');
            digits += 1;
            // Also caps the digits at 3: a fourth makes at least 1000 (no leading zero).
            if value > 255 {
                return None;
            }
        } else if b == b'.' && digits > 0 && done < 3 {
            octets[done] = u8::try_from(value).ok()?;
            done += 1;
            (value, digits) = (0, 0);
        } else {
            return None;
        }
    }
    if done != 3 || digits == 0 {
        return None;
    }
    octets[3] = u8::try_from(value).ok()?;
    Some(Ipv4Addr::from(octets))
}

/// IPv6 written in hex groups and colons only (`2001:db8:0:0:0:0:0:1`, `2001:db8::1`, `::`):
/// eight groups of 1 to 4 hex digits, or fewer with one `::` standing for at least one zero
/// group. Such text `Ipv6Addr::from_str` reads as the same address. `None` for anything else,
/// valid or not (an embedded IPv4 tail, a zone, brackets): the caller then asks std.
fn parse_hex_ipv6(raw: &[u8]) -> Option<Ipv6Addr> {
    let mut groups = [0u16; 8];
    let mut count = 0;
    // Where `::` stands: how many groups come before it.
    let mut gap = None;
    let mut rest = raw;
    if let Some(after) = rest.strip_prefix(b"::") {
        gap = Some(0);
        rest = after;
    }
    while !rest.is_empty() {
        // One group, then a `:` or `::` unless the text ends.
        let digits = rest
            .iter()
            .take(5)
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits == 0 || digits > 4 || count == 8 {
            return None;
        }
        let (group, after) = rest.split_at(digits);
        groups[count] = group
            .iter()
            .fold(0, |n, &b| (n << 4) | u16::from(hex_value(b)));
        count += 1;
        rest = match after {
            [] => after,
            [b':', b':', more @ ..] if gap.is_none() => {
                gap = Some(count);
                more
            }
            [b':', more @ ..] if !more.is_empty() => more,
            _ => return None,
        };
    }
    let mut address = [0u16; 8];
    match gap {
        None if count == 8 => address = groups,
        Some(before) if count < 8 => {
            let after = count - before;
            address[..before].copy_from_slice(&groups[..before]);
            address[8 - after..].copy_from_slice(&groups[before..count]);
        }
        _ => return None,
    }
    Some(Ipv6Addr::from(address))
}

/// The value of a hex digit (0 for anything else, which callers have ruled out).
fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// 1 to 5 digits.
fn is_port(text: &str) -> bool {
    (1..=5).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// Reads every prefix of a range file, and its `creationTime` (as written) when it has one.
fn parse_ranges(bytes: &[u8], file: &str) -> Result<(Vec<IpNet>, Option<String>), LoadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.trim_ascii_start().starts_with(b"{") {
        parse_json_ranges(bytes, file)
    } else {
        Ok((parse_text_ranges(bytes, file)?, None))
    }
}

fn parse_json_ranges(bytes: &[u8], file: &str) -> Result<(Vec<IpNet>, Option<String>), LoadError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|error| LoadError::new(file, None, format!("not valid JSON: {error}")))?;
    let created = match value.get("creationTime") {
        None | Some(Value::Null) => None,
        Some(Value::String(time)) => Some(time.clone()),
        Some(time) => Some(time.to_string()),
    };
    let mut nets = Vec::new();
    if let Some(prefixes) = value.get("prefixes") {
        let prefixes = prefixes
            .as_array()
            .ok_or_else(|| LoadError::new(file, None, "`prefixes` must be an array"))?;
        for (index, prefix) in prefixes.iter().enumerate() {
            let at = |message: String| LoadError::new(file, Some(Position::Entry(index)), message);
            let mut found = false;
            for key in ["ipv4Prefix", "ipv6Prefix"] {
                if let Some(value) = prefix.get(key) {
                    let text = value
                        .as_str()
                        .ok_or_else(|| at(format!("`{key}` must be a string")))?;
                    nets.push(parse_net(text).map_err(at)?);
                    found = true;
                }
            }
            if !found {
                return Err(at("expected an `ipv4Prefix` or `ipv6Prefix`".to_owned()));
            }
        }
    } else if let Some(list) = value.get("list") {
        let list = list
            .as_array()
            .ok_or_else(|| LoadError::new(file, None, "`list` must be an array"))?;
        for (index, item) in list.iter().enumerate() {
            let at = |message: String| LoadError::new(file, Some(Position::Entry(index)), message);
            let text = item
                .as_str()
                .ok_or_else(|| at("expected a string".to_owned()))?;
            nets.push(parse_net(text).map_err(at)?);
        }
    } else {
        return Err(LoadError::new(
            file,
            None,
            "expected a `prefixes` array (Google/Bing/OpenAI format) or a `list` array (MISP warning list)",
        ));
    }
    Ok((nets, created))
}

fn parse_text_ranges(bytes: &[u8], file: &str) -> Result<Vec<IpNet>, LoadError> {
    let mut nets = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let at = |message: String| LoadError::new(file, Some(Position::Line(index + 1)), message);
        let content = line
            .split(|&b| b == b'#')
            .next()
            .unwrap_or_default()
            .trim_ascii();
        if content.is_empty() {
            continue;
        }
        let text = std::str::from_utf8(content).map_err(|_| at("not UTF-8 text".to_owned()))?;
        nets.push(parse_net(text).map_err(at)?);
    }
    Ok(nets)
}

/// A CIDR (host bits allowed and dropped) or a bare address; IPv4-mapped IPv6 prefixes become
/// IPv4 prefixes, as client addresses do.
fn parse_net(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    let net = IpNet::from_str(text)
        .or_else(|_| IpAddr::from_str(text).map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an IP address or CIDR prefix"))?;
    Ok(match net {
        IpNet::V6(v6) => match (
            v6.network().to_ipv4_mapped(),
            v6.prefix_len().checked_sub(96),
        ) {
            (Some(network), Some(len)) => ipnet::Ipv4Net::new(network, len).map_or(net, IpNet::V4),
            _ => net,
        },
        v4 => v4,
    }
    .trunc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Strategy, any, prop_oneof};

    #[test]
    fn client_addresses() {
        let v4 = |a, b, c, d| Some(IpAddr::V4(Ipv4Addr::new(a, b, c, d)));
        let v6 = |s: &str| Some(IpAddr::V6(Ipv6Addr::from_str(s).unwrap()));
        let cases: &[(&[u8], Option<IpAddr>)] = &[
            (b"66.249.66.1", v4(66, 249, 66, 1)),
            (b" 66.249.66.1 \t", v4(66, 249, 66, 1)),
            (b"66.249.66.1:443", v4(66, 249, 66, 1)),
            (b"::ffff:66.249.66.1", v4(66, 249, 66, 1)),
            (b"[::ffff:66.249.66.1]:8080", v4(66, 249, 66, 1)),
            (b"2001:4860:4801:10::1", v6("2001:4860:4801:10::1")),
            (b"[2001:4860:4801:10::1]", v6("2001:4860:4801:10::1")),
            (b"[2001:4860:4801:10::1]:443", v6("2001:4860:4801:10::1")),
            (b"fe80::1%eth0", v6("fe80::1")),
            (b"66.249.66.1:", None),
            (b"66.249.66.1:123456", None),
            (b"66.249.66.1:80:80", None),
            (b"[2001:db8::1]x", None),
            (b"[2001:db8::1", None),
            (b"66.249.66", None),
            (b"123.123.123.123", v4(123, 123, 123, 123)),
            (b"999.1.1.1", None),
            (b"1.2.3.4.5", None),
            (b"...", None),
            (b"-", None),
            (b"", None),
            (b"\xff\xfe", None),
            (b"example.com", None),
        ];
        for &(raw, expected) in cases {
            assert_eq!(
                parse_client_ip(raw),
                expected,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    /// `parse_client_ip` as it was before the fast readers, std doing all the parsing: the
    /// reference they must agree with.
    fn reference_client_ip(raw: &[u8]) -> Option<IpAddr> {
        if raw.len() <= 15 && raw.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
            let text = std::str::from_utf8(raw).ok()?;
            return Ipv4Addr::from_str(text).ok().map(IpAddr::V4);
        }
        parse_decorated_ip(raw)
    }

    fn std_v4(text: &str) -> Option<Ipv4Addr> {
        Ipv4Addr::from_str(text).ok()
    }

    /// Every octet spelling of 1 to 4 digits (leading zeros, 256 and up included), in every
    /// position of a quad.
    #[test]
    fn dotted_quads_read_as_std_reads_them() {
        for len in 1..=4u32 {
            for n in 0..10u32.pow(len) {
                let octet = format!("{n:0width$}", width = len as usize);
                for position in 0..4 {
                    let mut parts = ["1", "22", "0", "255"];
                    parts[position] = &octet;
                    let text = parts.join(".");
                    assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(&text), "{text}");
                }
            }
        }
        for text in [
            "",
            ".",
            "1.2.3",
            "1.2.3.",
            ".1.2.3",
            "1..2.3",
            "1.2.3.4.",
            "1.2.3.4.5",
            "1.2.3.4 ",
            "+1.2.3.4",
            "1.2.3.-4",
            "0.0.0.0",
            "255.255.255.255",
            "1.2.3.4\0",
        ] {
            assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(text), "{text:?}");
        }
    }

    #[test]
    fn hex_ipv6_reads_as_std_reads_it() {
        let cases = [
            "::",
            "::1",
            "1::",
            "1::2",
            "2001:db8::",
            "2001:DB8:0:0:0:0:0:1",
            "2001:4860:4801:10:2af5:2afa:9f44:bee2",
            "0001:0002:0003:0004:0005:0006:0007:0008",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1:2:3::5:6:7:8",
            "::ffff:c000:0201",
        ];
        for text in cases {
            let want = Ipv6Addr::from_str(text).ok();
            assert!(want.is_some(), "{text}");
            assert_eq!(parse_hex_ipv6(text.as_bytes()), want, "{text}");
        }
        // Refused here (std may still read some: the caller asks it then).
        let refused = [
            "",
            ":",
            ":::",
            "1:::2",
            "1::2::3",
            ":1::",
            "1:",
            ":1",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7:8::",
            "::1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::8",
            "12345::",
            "1:2:3:4:5:6:7",
            "::ffff:1.2.3.4",
            "fe80::1%eth0",
            "[::1]",
            "g::",
            " ::1",
        ];
        for text in refused {
            assert_eq!(parse_hex_ipv6(text.as_bytes()), None, "{text:?}");
        }
    }

    /// An address in the forms logs write it: std's shortest text, or all eight groups with
    /// random zero padding and case.
    fn ipv6_text() -> impl Strategy<Value = String> {
        let full = (any::<[u16; 8]>(), any::<[bool; 8]>(), any::<bool>()).prop_map(
            |(groups, padded, upper)| {
                let text = groups
                    .iter()
                    .zip(padded)
                    .map(|(g, pad)| {
                        if pad {
                            format!("{g:04x}")
                        } else {
                            format!("{g:x}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(":");
                if upper { text.to_uppercase() } else { text }
            },
        );
        // Runs of zero groups, so that std's shortest form uses `::` in every position.
        let sparse = (any::<[u16; 8]>(), any::<u8>()).prop_map(|(mut groups, zeros)| {
            for (i, group) in groups.iter_mut().enumerate() {
                if zeros & (1 << i) != 0 {
                    *group = 0;
                }
            }
            Ipv6Addr::from(groups).to_string()
        });
        prop_oneof![
            full,
            sparse,
            any::<u128>().prop_map(|n| Ipv6Addr::from(n).to_string())
        ]
    }

    proptest::proptest! {
        #[test]
        fn dotted_quads_of_any_address(n in any::<u32>()) {
            let text = Ipv4Addr::from(n).to_string();
            proptest::prop_assert_eq!(parse_dotted_quad(text.as_bytes()), Some(Ipv4Addr::from(n)));
        }

        #[test]
        fn dotted_quads_of_random_text(text in "[0-9.]{0,17}") {
            proptest::prop_assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(&text));
        }

        #[test]
        fn hex_ipv6_of_any_address(text in ipv6_text()) {
            let want = Ipv6Addr::from_str(&text).ok();
            proptest::prop_assert!(want.is_some());
            proptest::prop_assert_eq!(parse_hex_ipv6(text.as_bytes()), want);
        }

        #[test]
        fn hex_ipv6_of_random_text(text in "[0-9a-fA-F:]{0,42}") {
            if let Some(ip) = parse_hex_ipv6(text.as_bytes()) {
                proptest::prop_assert_eq!(Some(ip), Ipv6Addr::from_str(&text).ok());
            }
        }

        /// The whole client address reader against the std-only reference, on text made of
        /// the bytes addresses, ports, brackets and zones are written with.
        #[test]
        fn client_addresses_agree_with_std(
            text in "[0-9a-fA-F:.\\[\\]% x]{0,45}",
            ip in ipv6_text(),
            v4 in any::<u32>(),
            form in 0..6usize,
        ) {
            let v4 = Ipv4Addr::from(v4).to_string();
            let texts = [
                text.clone(),
                ip.clone(),
                format!("[{ip}]:443"),
                format!("::ffff:{v4}"),
                format!("{v4}:8080"),
                format!(" {ip} "),
            ];
            for raw in [&texts[form], &text, &ip, &v4] {
                proptest::prop_assert_eq!(
                    parse_client_ip(raw.as_bytes()),
                    reference_client_ip(raw.as_bytes()),
                    "{:?}",
                    raw
                );
            }
        }
    }

    #[test]
    fn prefixes() {
        let cases: &[(&str, Option<&str>)] = &[
            ("192.0.2.0/24", Some("192.0.2.0/24")),
            ("192.0.2.77/24", Some("192.0.2.0/24")),
            ("192.0.2.7", Some("192.0.2.7/32")),
            ("2001:db8::/32", Some("2001:db8::/32")),
            ("2001:db8::1", Some("2001:db8::1/128")),
            ("::ffff:192.0.2.0/120", Some("192.0.2.0/24")),
            ("192.0.2.0/33", None),
            ("nonsense", None),
        ];
        for &(text, expected) in cases {
            let parsed = parse_net(text).ok().map(|net| net.to_string());
            assert_eq!(parsed.as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn ranges_merge_and_look_up() {
        let mut set = RangeSet::<u32>::default();
        set.extend([
            (10, 20),
            (21, 30),
            (40, 50),
            (45, 47),
            (u32::MAX - 1, u32::MAX),
        ]);
        assert_eq!(set.ranges, [(10, 30), (40, 50), (u32::MAX - 1, u32::MAX)]);
        let cases: &[(u32, bool)] = &[
            (0, false),
            (9, false),
            (10, true),
            (25, true),
            (30, true),
            (31, false),
            (50, true),
            (51, false),
            (u32::MAX, true),
        ];
        for &(address, inside) in cases {
            assert_eq!(set.contains(address), inside, "{address}");
        }
    }

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

    #[test]
    fn client_fields() {
        let ip = |text: &str| ClientAddress::Public(IpAddr::from_str(text).unwrap());
        let cases: &[(&[u8], ClientAddress<'_>)] = &[
            (b"66.249.66.1", ip("66.249.66.1")),
            (b"[2001:4860:4801:10::1]:443", ip("2001:4860:4801:10::1")),
            (b"::ffff:66.249.66.1", ip("66.249.66.1")),
            (b"10.1.2.3", ClientAddress::NotPublic),
            (b"172.16.0.1", ClientAddress::NotPublic),
            (b"192.168.0.1", ClientAddress::NotPublic),
            (b"100.64.0.1", ClientAddress::NotPublic),
            (b"169.254.0.1", ClientAddress::NotPublic),
            (b"0.0.0.0", ClientAddress::NotPublic),
            (b"255.255.255.255", ClientAddress::NotPublic),
            (b"224.0.0.1", ClientAddress::NotPublic),
            (b"fe80::1%eth0", ClientAddress::NotPublic),
            (b"fc00::1", ClientAddress::NotPublic),
            (b"ff02::1", ClientAddress::NotPublic),
            (b"100.128.0.1", ip("100.128.0.1")),
            (b"66.249.66.1, 10.0.0.1", ip("66.249.66.1")),
            (b"10.0.0.1, 66.249.66.1, 203.0.113.9", ip("66.249.66.1")),
            (b"10.0.0.1 ,  [2001:db8::7]:80", ip("2001:db8::7")),
            (b"10.0.0.1, 127.0.0.1", ClientAddress::NotPublic),
            (b"unknown, -", ClientAddress::Unknown),
            (
                b"crawl-1-2-3-4.googlebot.com",
                ClientAddress::HostName(b"crawl-1-2-3-4.googlebot.com"),
            ),
            (b" host.example. ", ClientAddress::HostName(b"host.example")),
            (
                b"my_host.example",
                ClientAddress::HostName(b"my_host.example"),
            ),
            (b"localhost", ClientAddress::Unknown),
            (b"1.2.3", ClientAddress::Unknown),
            (b"1.2.3.4.5", ClientAddress::Unknown),
            (b"a..b", ClientAddress::Unknown),
            (b"-", ClientAddress::Unknown),
            (b"unknown", ClientAddress::Unknown),
            (b"", ClientAddress::Unknown),
            (b"h\xc3\xa9.example", ClientAddress::Unknown),
        ];
        for &(raw, expected) in cases {
            assert_eq!(
                client_address(raw),
                expected,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    proptest::proptest! {
        /// Whatever the field, it is read without panicking, and only a public address is ever
        /// given as the client's.
        #[test]
        fn client_fields_of_any_bytes(raw in proptest::collection::vec(any::<u8>(), 0..80)) {
            if let ClientAddress::Public(ip) = client_address(&raw) {
                proptest::prop_assert!(is_public(ip));
            }
        }

        /// In a list, the first public address is the client, wherever it stands.
        #[test]
        fn first_public_address_of_a_list(
            private in proptest::collection::vec(any::<u8>(), 0..4),
            public in any::<u32>(),
            tail in any::<u32>(),
        ) {
            let public = Ipv4Addr::from(public);
            proptest::prop_assume!(is_public(IpAddr::V4(public)));
            let mut items: Vec<String> = private.iter().map(|n| format!("10.0.0.{n}")).collect();
            items.push(public.to_string());
            items.push(Ipv4Addr::from(tail).to_string());
            let field = items.join(", ");
            proptest::prop_assert_eq!(client_address(field.as_bytes()), ClientAddress::Public(IpAddr::V4(public)));
        }
    }

    #[test]
    fn word_containment() {
        let cases: &[(&str, &str, bool)] = &[
            ("googlebot", "Googlebot", true),
            ("lord-alfred_googlebot_ipv4", "googlebot", true),
            ("lord-alfred_googlebot_ipv4", "google", false),
            ("mygooglebot", "googlebot", false),
            ("x_ranges", "X", false),
            ("archive.org_bot", "archive.org_bot", true),
        ];
        for &(haystack, needle, expected) in cases {
            assert_eq!(
                contains_word(haystack, needle),
                expected,
                "{haystack} {needle}"
            );
        }
    }
}
