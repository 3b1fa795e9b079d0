//! Checking a bot's client IP against the address ranges its operator publishes.
//!
//! Range files are tied to a key: a bot name (the ranges apply to that bot only) or an operator
//! (they apply to every bot of that operator), compared ignoring ASCII case. Three formats are
//! read, told apart by content:
//!
//! * the JSON that Google, Bing, OpenAI and Perplexity publish:
//!   `{"creationTime": ..., "prefixes": [{"ipv4Prefix": "..."}, {"ipv6Prefix": "..."}]}` (an
//!   object may hold both keys; duplicates are harmless);
//! * a MISP warning list: `{"list": ["192.0.2.0/24", "2001:db8::/32", ...], ...}`;
//! * plain text: one CIDR or bare address (a /32 or /128) per line, `#` starts a comment.
//!
//! Ranges are kept sorted and merged per key and address family; [`Verifier::ranges_for`]
//! merges the keys that apply to a bot into one [`BotRanges`], whose lookup is a binary search
//! without allocation.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::str::FromStr;

use ipnet::IpNet;
use serde_json::Value;

use crate::catalog::{Bot, Catalog};
use crate::error::{LoadError, Position};

/// Whether a request really came from the bot its user-agent names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verification {
    /// The client IP is inside a range published for the bot (or its operator).
    Verified,
    /// Ranges of the client's address family are published for the bot, but the IP is outside
    /// all of them, or the logged client address is not an IP at all.
    Spoofed,
    /// No ranges to check against: none loaded for the bot or its operator, or only ranges of
    /// the other address family.
    Unverified,
}

impl Verification {
    /// The name used in reports: `verified`, `spoofed` or `unverified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::Verified => "verified",
            Verification::Spoofed => "spoofed",
            Verification::Unverified => "unverified",
        }
    }
}

/// Sorted, non-overlapping, non-adjacent inclusive ranges of one address family.
#[derive(Debug, Clone, Default)]
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

/// The ranges loaded for one key.
#[derive(Debug, Clone)]
struct KeyRanges {
    key: String,
    v4: RangeSet<u32>,
    v6: RangeSet<u128>,
}

impl KeyRanges {
    fn applies_to(&self, bot: &Bot) -> bool {
        self.key.eq_ignore_ascii_case(&bot.name) || self.key.eq_ignore_ascii_case(&bot.operator)
    }
}

/// Published crawler IP ranges, keyed by bot name or operator.
///
/// ```
/// use robots_audit_bots::{Bot, Category, Verification, Verifier};
///
/// let mut verifier = Verifier::new();
/// let json = br#"{"creationTime": "2025-01-01T00:00:00", "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}]}"#;
/// assert_eq!(verifier.add_ranges("Google", json, "googlebot.json").unwrap(), 1);
///
/// let bot = Bot {
///     name: "Googlebot-Image".into(),
///     tokens: vec!["googlebot-image".into(), "googlebot".into()],
///     operator: "Google".into(),
///     category: Category::Search,
/// };
/// assert_eq!(verifier.verify(&bot, b"192.0.2.7"), Verification::Verified);
/// assert_eq!(verifier.verify(&bot, b"[::ffff:192.0.2.7]:443"), Verification::Verified);
/// assert_eq!(verifier.verify(&bot, b"198.51.100.1"), Verification::Spoofed);
/// assert_eq!(verifier.verify(&bot, b"2001:db8::1"), Verification::Unverified);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Verifier {
    keys: Vec<KeyRanges>,
}

impl Verifier {
    /// A verifier without ranges: everything is [`Verification::Unverified`].
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// Loads a range file (any of the three formats) for `key`, a bot name or an operator, and
    /// returns how many prefixes it listed. Loading several files for one key adds them up.
    /// `name` labels the input in errors; on error nothing is added.
    pub fn add_ranges(&mut self, key: &str, bytes: &[u8], name: &str) -> Result<usize, LoadError> {
        let key = key.trim();
        if key.is_empty() {
            return Err(LoadError::new(
                name,
                None,
                "the key (a bot name or an operator) is empty",
            ));
        }
        let nets = parse_ranges(bytes, name)?;
        let index = match self
            .keys
            .iter()
            .position(|ranges| ranges.key.eq_ignore_ascii_case(key))
        {
            Some(index) => index,
            None => {
                self.keys.push(KeyRanges {
                    key: key.to_owned(),
                    v4: RangeSet::default(),
                    v6: RangeSet::default(),
                });
                self.keys.len() - 1
            }
        };
        if let Some(ranges) = self.keys.get_mut(index) {
            ranges.v4.extend(nets.iter().filter_map(|net| match net {
                IpNet::V4(net) => Some((u32::from(net.network()), u32::from(net.broadcast()))),
                IpNet::V6(_) => None,
            }));
            ranges.v6.extend(nets.iter().filter_map(|net| match net {
                IpNet::V6(net) => Some((u128::from(net.network()), u128::from(net.broadcast()))),
                IpNet::V4(_) => None,
            }));
        }
        Ok(nets.len())
    }

    /// The keys that ranges were loaded for, as first given.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|ranges| ranges.key.as_str())
    }

    /// Checks a logged client address against the ranges of `bot` (its name's and its
    /// operator's), as [`BotRanges::verify`] does. To check many requests of one bot, take its
    /// [`ranges_for`](Verifier::ranges_for) once instead: this merges them at every call.
    pub fn verify(&self, bot: &Bot, client_ip: &[u8]) -> Verification {
        self.ranges_for(bot).verify(client_ip)
    }

    /// The ranges that apply to `bot`, its name's and its operator's, merged into one set per
    /// address family.
    ///
    /// ```
    /// use robots_audit_bots::{Bot, Category, Verification, Verifier};
    ///
    /// let mut verifier = Verifier::new();
    /// verifier.add_ranges("Bing", b"192.0.2.0/25", "bing.txt").unwrap();
    /// verifier.add_ranges("Bingbot", b"192.0.2.128/25", "bingbot.txt").unwrap();
    /// let bot = Bot {
    ///     name: "Bingbot".into(),
    ///     tokens: vec!["bingbot".into()],
    ///     operator: "Bing".into(),
    ///     category: Category::Search,
    /// };
    /// let ranges = verifier.ranges_for(&bot);
    /// assert_eq!(ranges.verify(b"192.0.2.1"), Verification::Verified);
    /// assert_eq!(ranges.verify(b"192.0.2.200"), Verification::Verified);
    /// assert_eq!(ranges.verify(b"192.0.3.1"), Verification::Spoofed);
    /// ```
    pub fn ranges_for(&self, bot: &Bot) -> BotRanges {
        let mut merged = BotRanges::default();
        for ranges in self.keys.iter().filter(|ranges| ranges.applies_to(bot)) {
            merged.v4.extend(ranges.v4.ranges.iter().copied());
            merged.v6.extend(ranges.v6.ranges.iter().copied());
        }
        merged
    }

    /// Infers the key of a range file from its name, so that `--verify googlebot.json` needs no
    /// explicit key: the longest bot name, first robots.txt token or operator of `catalog` that
    /// the file stem contains as a whole word (delimited by non-alphanumerics), ignoring case. A
    /// bot wins over an operator of the same length, an earlier bot over a later one. Returns
    /// the bot name or operator as the catalog writes it.
    ///
    /// ```
    /// use std::path::Path;
    /// use robots_audit_bots::{Catalog, Verifier};
    ///
    /// let catalog = Catalog::builtin();
    /// let key = |file: &str| Verifier::key_from_file_name(&catalog, Path::new(file));
    /// assert_eq!(key("ranges/googlebot.json").as_deref(), Some("Googlebot"));
    /// assert_eq!(key("lord-alfred_openai_ipv4.txt").as_deref(), Some("OpenAI"));
    /// assert_eq!(key("misp_openai-gptbot_list.json").as_deref(), Some("GPTBot"));
    /// assert_eq!(key("ranges.txt"), None);
    /// ```
    pub fn key_from_file_name<'a>(catalog: &'a Catalog, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_string_lossy().to_ascii_lowercase();
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
        best.map(|(_, _, key)| key.to_owned())
    }
}

/// The published ranges of one bot (see [`Verifier::ranges_for`]), ready to check its requests.
#[derive(Debug, Clone, Default)]
pub struct BotRanges {
    v4: RangeSet<u32>,
    v6: RangeSet<u128>,
}

impl BotRanges {
    /// Whether no ranges apply to the bot: every request is [`Verification::Unverified`].
    pub fn is_empty(&self) -> bool {
        self.v4.is_empty() && self.v6.is_empty()
    }

    /// Checks a logged client address. Accepts `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1`,
    /// `[2001:db8::1]`, `[2001:db8::1]:443`, `fe80::1%eth0` and IPv4-mapped
    /// `::ffff:192.0.2.1` (compared as IPv4), with surrounding whitespace. An address inside a
    /// range is verified; outside all ranges of its family, or no address at all, spoofed; with
    /// no ranges of its family, unverified. A binary search, no allocation.
    pub fn verify(&self, client_ip: &[u8]) -> Verification {
        let (has_family, inside) = match parse_client_ip(client_ip) {
            Some(IpAddr::V4(ip)) => (!self.v4.is_empty(), self.v4.contains(u32::from(ip))),
            Some(IpAddr::V6(ip)) => (!self.v6.is_empty(), self.v6.contains(u128::from(ip))),
            None => (!self.is_empty(), false),
        };
        match (inside, has_family) {
            (true, _) => Verification::Verified,
            (false, true) => Verification::Spoofed,
            (false, false) => Verification::Unverified,
        }
    }
}

/// Whether `haystack` (lower-case) contains `needle` (any case, at least 3 bytes so that short
/// operator names such as `X` cannot match by accident) delimited by non-alphanumerics.
fn contains_word(haystack: &str, needle: &str) -> bool {
    if needle.len() < 3 {
        return false;
    }
    let needle = needle.to_ascii_lowercase();
    let bytes = haystack.as_bytes();
    haystack.match_indices(&needle).any(|(at, found)| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        let after = bytes.get(at + found.len());
        !before.is_some_and(u8::is_ascii_alphanumeric)
            && !after.is_some_and(u8::is_ascii_alphanumeric)
    })
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

/// Reads every prefix of a range file.
fn parse_ranges(bytes: &[u8], file: &str) -> Result<Vec<IpNet>, LoadError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.trim_ascii_start().starts_with(b"{") {
        parse_json_ranges(bytes, file)
    } else {
        parse_text_ranges(bytes, file)
    }
}

fn parse_json_ranges(bytes: &[u8], file: &str) -> Result<Vec<IpNet>, LoadError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|error| LoadError::new(file, None, format!("not valid JSON: {error}")))?;
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
    Ok(nets)
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
            (&ours, b"unknown", Spoofed),
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
