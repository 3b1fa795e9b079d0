//! Loading range lists: the three file formats (Google-style JSON, MISP warning lists, plain
//! CIDR lists), a single file for a key or a directory of dated snapshots, and the key a file
//! name implies.

use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ipnet::IpNet;
use jiff::Timestamp;
use serde_json::Value;

use super::Verifier;
use super::ranges::{RangeList, Ranges};
use crate::catalog::Catalog;
use crate::error::{LoadError, Position, PrefixError};
use crate::policy::contains_word;

impl Verifier {
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
fn sorted_entries(dir: &Path, label: &str) -> Result<Vec<PathBuf>, LoadError> {
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

/// Whether `offset` is one RFC 3339 writes: `+hh:mm`, hours 00 to 23, no seconds. jiff reads
/// offsets up to `+25:59:59`, so a time written `...+24:00` would be read a whole day off; the
/// times an operator's files give (range snapshots here, robots versions in the audit) keep to
/// RFC 3339's.
pub fn is_rfc3339_offset(offset: jiff::tz::Offset) -> bool {
    offset.seconds() % 60 == 0 && offset.seconds().abs() < 24 * 3600
}

/// A snapshot time: RFC 3339, a date-time without offset (UTC, as Google's `creationTime`
/// writes it), or a date (midnight UTC).
fn parse_time(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(time) = Timestamp::from_str(text) {
        let offset = jiff::fmt::temporal::Pieces::parse(text)
            .ok()?
            .to_numeric_offset();
        return offset.is_none_or(is_rfc3339_offset).then_some(time);
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
                    nets.push(parse_net(text).map_err(|error| at(error.to_string()))?);
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
            nets.push(parse_net(text).map_err(|error| at(error.to_string()))?);
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
        nets.push(parse_net(text).map_err(|error| at(error.to_string()))?);
    }
    Ok(nets)
}

/// The shortest IPv4 prefix a range file may hold: Apple publishes 17.0.0.0/8, its whole
/// network. A shorter one, such as the `0.0.0.0/0` of a broken list, would verify every client.
const SHORTEST_V4: u8 = 8;

/// The shortest IPv6 prefix a range file may hold: the largest networks a registry hands one
/// holder are about /19, and an operator's crawlers sit in a /32 or less (Google's
/// 2001:4860::/32).
const SHORTEST_V6: u8 = 16;

/// A CIDR (host bits allowed and dropped) or a bare address; IPv4-mapped IPv6 prefixes become
/// IPv4 prefixes, as client addresses do. A prefix wider than any operator's network is
/// refused.
fn parse_net(text: &str) -> Result<IpNet, PrefixError> {
    let text = text.trim();
    let net = IpNet::from_str(text)
        .or_else(|_| IpAddr::from_str(text).map(IpNet::from))
        .map_err(|_| PrefixError::Invalid(text.to_owned()))?;
    let net = match net {
        IpNet::V6(v6) => match (
            v6.network().to_ipv4_mapped(),
            v6.prefix_len().checked_sub(96),
        ) {
            (Some(network), Some(len)) => ipnet::Ipv4Net::new(network, len).map_or(net, IpNet::V4),
            _ => net,
        },
        v4 => v4,
    }
    .trunc();
    let shortest = match net {
        IpNet::V4(_) => SHORTEST_V4,
        IpNet::V6(_) => SHORTEST_V6,
    };
    if net.prefix_len() < shortest {
        return Err(PrefixError::TooWide(text.to_owned(), shortest));
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("17.0.0.0/8", Some("17.0.0.0/8")),
            ("2001:4860::/16", Some("2001::/16")),
            ("0.0.0.0/0", None),
            ("64.0.0.0/2", None),
            ("::/0", None),
            ("2000::/3", None),
            ("::ffff:0.0.0.0/96", None),
        ];
        for &(text, expected) in cases {
            let parsed = parse_net(text).ok().map(|net| net.to_string());
            assert_eq!(parsed.as_deref(), expected, "{text}");
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

    /// Snapshot names and `creationTime`: RFC 3339 times, civil times and dates (read as UTC);
    /// an offset RFC 3339 does not write (`+24:00`, seconds) is no time, not a day's shift.
    #[test]
    fn snapshot_times() {
        let cases: &[(&str, Option<&str>)] = &[
            ("2025-06-01T00:00:00Z", Some("2025-06-01T00:00:00Z")),
            ("2025-06-01T00:00:00+05:30", Some("2025-05-31T18:30:00Z")),
            ("2025-06-01T00:00:00-23:59", Some("2025-06-01T23:59:00Z")),
            ("2025-06-01T00:00:00.000000", Some("2025-06-01T00:00:00Z")),
            ("2025-06-01", Some("2025-06-01T00:00:00Z")),
            ("2025-06-01T00:00:00+24:00", None),
            ("2025-06-01T00:00:00-25:59", None),
            ("2025-06-01T00:00:00+01:00:30", None),
            ("June 2025", None),
        ];
        for &(text, expected) in cases {
            assert_eq!(
                parse_time(text).map(|t| t.to_string()),
                expected.map(str::to_owned),
                "{text}"
            );
        }
    }
}
