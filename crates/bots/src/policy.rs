//! What operators document about their crawlers beyond user-agents: whether and how robots.txt
//! binds them, the host names their addresses reverse-resolve to, which of their published range
//! lists covers them, whether they honour `Crawl-delay`, and what each category of crawler uses
//! content for (see `Category::content_use`). A leaf: it depends on no other module. `docs/bots.md` describes the catalog fields these come from.
//!
//! Invariants (checked when a catalog loads): a policy other than [`RobotsPolicy::Obeys`], DNS
//! suffixes, range lists and `honours_crawl_delay: true` each come with the `https` URL of the
//! operator's page that documents them; DNS suffixes are lower-case host names without leading
//! or trailing dots; range list names are lower-case file stems.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How robots.txt binds a crawler, as its operator documents it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RobotsPolicy {
    /// Follows robots.txt as RFC 9309 and Google describe it: its own group, else `*`.
    #[default]
    Obeys,
    /// Obeys only groups that name one of its tokens; the `*` groups do not apply to it
    /// (Google's special-case crawlers such as AdsBot-Google).
    IgnoresGlobal,
    /// Fetches because a person asked for that URL; its operator says robots.txt does not apply
    /// (ChatGPT-User, Google's user-triggered fetchers).
    UserTriggered,
    /// Its operator says it ignores robots.txt altogether (Google-Safety).
    Ignores,
}

impl RobotsPolicy {
    /// Every policy, in the order reports list them.
    pub const ALL: [RobotsPolicy; 4] = [
        RobotsPolicy::Obeys,
        RobotsPolicy::IgnoresGlobal,
        RobotsPolicy::UserTriggered,
        RobotsPolicy::Ignores,
    ];

    /// The name used in catalog files and reports.
    ///
    /// ```
    /// use robots_audit_bots::RobotsPolicy;
    /// assert_eq!(RobotsPolicy::IgnoresGlobal.as_str(), "ignores_global");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            RobotsPolicy::Obeys => "obeys",
            RobotsPolicy::IgnoresGlobal => "ignores_global",
            RobotsPolicy::UserTriggered => "user_triggered",
            RobotsPolicy::Ignores => "ignores",
        }
    }

    /// The policy with this [`as_str`](RobotsPolicy::as_str) name, if any.
    pub fn from_name(name: &str) -> Option<RobotsPolicy> {
        RobotsPolicy::ALL
            .into_iter()
            .find(|policy| policy.as_str() == name)
    }

    /// Whether a request the robots.txt in force disallows is `exempt` rather than a
    /// violation (unless the audit runs with `--strict`).
    ///
    /// ```
    /// use robots_audit_bots::RobotsPolicy;
    /// assert!(RobotsPolicy::UserTriggered.is_exempt());
    /// assert!(!RobotsPolicy::IgnoresGlobal.is_exempt());
    /// ```
    pub fn is_exempt(self) -> bool {
        matches!(self, RobotsPolicy::UserTriggered | RobotsPolicy::Ignores)
    }

    /// Whether the `*` groups of a robots.txt apply to the crawler at all (they do not for
    /// [`IgnoresGlobal`](RobotsPolicy::IgnoresGlobal): with no group naming it, nothing is
    /// disallowed).
    pub fn follows_global_group(self) -> bool {
        self != RobotsPolicy::IgnoresGlobal
    }
}

impl fmt::Display for RobotsPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a crawler's operator documents about it besides its user-agents and tokens.
///
/// The default is what the audit assumes of a crawler nobody documented: it obeys robots.txt,
/// has no DNS suffixes, any range list loaded for its operator covers it, and it does not
/// honour `Crawl-delay`.
///
/// It serialises as the fields of a catalog entry, leaving out each field that has its default,
/// so that a listed catalog loads back as the same catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct BotPolicy {
    /// How robots.txt binds it.
    #[serde(skip_serializing_if = "is_default")]
    pub robots: RobotsPolicy,
    /// The operator's page that documents [`robots`](BotPolicy::robots) (required unless
    /// `obeys`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots_source: Option<String>,
    /// Host name suffixes its addresses reverse-resolve to (`googlebot.com`), lower case,
    /// without dots at either end; empty when the operator documents none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dns_suffixes: Vec<String>,
    /// The operator's page that documents the suffixes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns_source: Option<String>,
    /// The operator's published range lists that cover it, by file stem
    /// (`common-crawlers`, `special-crawlers`, `gptbot`, ...). `None`: undocumented, so a list
    /// loaded for its operator covers it whatever its name. `Some(vec![])`: its operator
    /// publishes lists, but none of them covers this crawler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranges: Option<Vec<String>>,
    /// The operator's page that names the range lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranges_source: Option<String>,
    /// Whether it waits `Crawl-delay` seconds between requests to a host. `false` both when its
    /// operator says it does not and when nobody documents it
    /// ([`crawl_delay_source`](BotPolicy::crawl_delay_source) tells the two apart).
    #[serde(skip_serializing_if = "is_default")]
    pub honours_crawl_delay: bool,
    /// The operator's page that says whether it honours `Crawl-delay`; `None` when undocumented.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl_delay_source: Option<String>,
}

impl BotPolicy {
    /// Whether `host` (a PTR name, any case, a trailing dot allowed) ends with one of the
    /// crawler's DNS suffixes at a label boundary. See [`host_has_suffix`].
    ///
    /// ```
    /// use robots_audit_bots::BotPolicy;
    /// let policy = BotPolicy {
    ///     dns_suffixes: vec!["googlebot.com".into(), "google.com".into()],
    ///     ..BotPolicy::default()
    /// };
    /// assert!(policy.host_matches(b"crawl-66-249-66-1.googlebot.com."));
    /// assert!(!policy.host_matches(b"crawl-66-249-66-1.googlebot.com.evil.example"));
    /// ```
    pub fn host_matches(&self, host: &[u8]) -> bool {
        self.dns_suffixes
            .iter()
            .any(|suffix| host_has_suffix(host, suffix))
    }

    /// Whether the range list named `list` (a file stem such as `common-crawlers`, or any name
    /// containing one as a whole word, such as `lord-alfred_googlebot_ipv4`) is one of the
    /// crawler's documented lists. A crawler whose lists are undocumented accepts every list.
    pub fn covered_by_list(&self, list: &str) -> bool {
        match &self.ranges {
            None => true,
            Some(kinds) => {
                let list = list.to_ascii_lowercase();
                kinds
                    .iter()
                    .any(|kind| list == *kind || contains_word(&list, kind))
            }
        }
    }
}

/// Whether `host` ends with `suffix` at a label boundary, ignoring ASCII case and one trailing
/// dot on either: `crawl-1-2-3-4.googlebot.com.` has the suffix `googlebot.com`, and so does
/// `googlebot.com` itself, but `evilgooglebot.com` does not. An empty suffix matches nothing.
///
/// ```
/// use robots_audit_bots::host_has_suffix;
/// assert!(host_has_suffix(b"MSNBOT-157-55-33-18.SEARCH.MSN.COM.", "search.msn.com"));
/// assert!(!host_has_suffix(b"notsearch.msn.com", "search.msn.com"));
/// ```
pub fn host_has_suffix(host: &[u8], suffix: &str) -> bool {
    let host = host.strip_suffix(b".").unwrap_or(host);
    let suffix = suffix.as_bytes();
    let suffix = suffix.strip_suffix(b".").unwrap_or(suffix);
    let suffix = suffix.strip_prefix(b".").unwrap_or(suffix);
    if suffix.is_empty() || host.len() < suffix.len() {
        return false;
    }
    let (head, tail) = host.split_at(host.len() - suffix.len());
    tail.eq_ignore_ascii_case(suffix) && (head.is_empty() || head.ends_with(b"."))
}

/// What a crawler uses the content it fetches for, in the vocabularies sites state usage
/// preferences in: Cloudflare's Content Signals (`Content-Signal: search=yes, ai-train=no`) and
/// the IETF aipref vocabulary (`Content-Usage: / train-ai=n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContentUse {
    /// Building a search index that links back to the content.
    Search,
    /// Training AI models.
    AiTraining,
    /// Feeding content to an AI model as input when answering (AI search, assistants).
    AiInput,
}

impl ContentUse {
    /// Its key in a `Content-Signal` line: `search`, `ai-train` or `ai-input`.
    pub fn content_signal_key(self) -> &'static str {
        match self {
            ContentUse::Search => "search",
            ContentUse::AiTraining => "ai-train",
            ContentUse::AiInput => "ai-input",
        }
    }

    /// Its label in the aipref vocabulary (`Content-Usage`): `search`, `train-ai` or `ai-use`.
    pub fn aipref_label(self) -> &'static str {
        match self {
            ContentUse::Search => "search",
            ContentUse::AiTraining => "train-ai",
            ContentUse::AiInput => "ai-use",
        }
    }
}

/// Whether a policy field has its default, which listing leaves out.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Why `url` cannot be a source, if it cannot: sources are `https` URLs with a host.
pub(crate) fn source_problem(url: &str) -> Option<&'static str> {
    let Some(rest) = url.strip_prefix("https://") else {
        return Some("a source must be an https:// URL");
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || !host.contains('.') {
        Some("a source URL needs a host name")
    } else if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a source URL cannot contain whitespace")
    } else {
        None
    }
}

/// Why `suffix` (already lower-cased, dots at the ends removed) cannot be a DNS suffix, if it
/// cannot: it must be a host name of at least two labels of letters, digits and `-`.
pub(crate) fn suffix_problem(suffix: &str) -> Option<&'static str> {
    let labels: Vec<&str> = suffix.split('.').collect();
    if labels.len() < 2 {
        return Some("a DNS suffix needs at least two labels (`googlebot.com`)");
    }
    let label_ok = |label: &&str| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    if labels.iter().all(label_ok) {
        None
    } else {
        Some("a DNS suffix is made of labels of letters, digits and '-'")
    }
}

/// Why `list` cannot name a published range list, if it cannot: a lower-case file stem of at
/// least three letters, digits, `-`, `_` or `.`.
pub(crate) fn list_problem(list: &str) -> Option<&'static str> {
    if list.len() >= 3
        && list.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
        })
    {
        None
    } else {
        Some("a range list is named by its file stem: three or more of a-z, 0-9, '-', '_', '.'")
    }
}

/// Whether `haystack` (lower-case) contains `needle` (any case, at least 3 bytes so that short
/// names such as `X` cannot match by accident) delimited by non-alphanumerics.
pub(crate) fn contains_word(haystack: &str, needle: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names_round_trip() {
        for policy in RobotsPolicy::ALL {
            assert_eq!(RobotsPolicy::from_name(policy.as_str()), Some(policy));
            assert_eq!(policy.to_string(), policy.as_str());
        }
        assert_eq!(RobotsPolicy::from_name("Obeys"), None);
        assert_eq!(RobotsPolicy::default(), RobotsPolicy::Obeys);
    }

    /// What each policy changes: whether `*` applies, and whether a disallowed request is
    /// exempt.
    #[test]
    fn policy_classes() {
        let cases: &[(RobotsPolicy, bool, bool)] = &[
            (RobotsPolicy::Obeys, true, false),
            (RobotsPolicy::IgnoresGlobal, false, false),
            (RobotsPolicy::UserTriggered, true, true),
            (RobotsPolicy::Ignores, true, true),
        ];
        for &(policy, global, exempt) in cases {
            assert_eq!(policy.follows_global_group(), global, "{policy}");
            assert_eq!(policy.is_exempt(), exempt, "{policy}");
        }
    }

    #[test]
    fn host_suffixes() {
        let cases: &[(&[u8], &str, bool)] = &[
            (b"crawl-66-249-66-1.googlebot.com", "googlebot.com", true),
            (b"crawl-66-249-66-1.googlebot.com.", "googlebot.com", true),
            (b"CRAWL-66-249-66-1.GoogleBot.Com", "googlebot.com", true),
            (b"googlebot.com", "googlebot.com", true),
            (b"googlebot.com.", "googlebot.com.", true),
            (b"x.googlebot.com", ".googlebot.com", true),
            (b"evilgooglebot.com", "googlebot.com", false),
            (b"crawl.googlebot.com.evil.example", "googlebot.com", false),
            (b"googlebot.co", "googlebot.com", false),
            (b"com", "googlebot.com", false),
            (b"", "googlebot.com", false),
            (b"a.googlebot.com", "", false),
            (b"a.googlebot.com..", "googlebot.com", false),
            (
                b"rate-limited-proxy-66-249-90-1.google.com",
                "google.com",
                true,
            ),
            (
                b"1-2-3-4.gae.googleusercontent.com",
                "googleusercontent.com",
                true,
            ),
            (b"\xff.search.msn.com", "search.msn.com", true),
        ];
        for &(host, suffix, expected) in cases {
            assert_eq!(
                host_has_suffix(host, suffix),
                expected,
                "{} ~ {suffix}",
                String::from_utf8_lossy(host)
            );
        }
    }

    #[test]
    fn list_coverage() {
        let documented = BotPolicy {
            ranges: Some(vec!["common-crawlers".into(), "googlebot".into()]),
            ..BotPolicy::default()
        };
        let none = BotPolicy {
            ranges: Some(Vec::new()),
            ..BotPolicy::default()
        };
        let undocumented = BotPolicy::default();
        let cases: &[(&BotPolicy, &str, bool)] = &[
            (&documented, "common-crawlers", true),
            (&documented, "Common-Crawlers", true),
            (&documented, "googlebot", true),
            (&documented, "lord-alfred_googlebot_ipv4", true),
            (&documented, "special-crawlers", false),
            (&documented, "google", false),
            (&documented, "mygooglebot", false),
            (&none, "common-crawlers", false),
            (&undocumented, "anything", true),
        ];
        for &(policy, list, expected) in cases {
            assert_eq!(policy.covered_by_list(list), expected, "{list}");
        }
    }

    #[test]
    fn source_rules() {
        let cases: &[(&str, bool)] = &[
            ("https://developers.google.com/crawling/docs/x", true),
            ("https://example.com", true),
            ("http://example.com/", false),
            ("https://", false),
            ("https://localhost/x", false),
            ("https://example.com/a b", false),
            ("example.com", false),
            ("", false),
        ];
        for &(url, valid) in cases {
            assert_eq!(source_problem(url).is_none(), valid, "{url:?}");
        }
    }

    #[test]
    fn suffix_and_list_rules() {
        for (suffix, valid) in [
            ("googlebot.com", true),
            ("crawl.amazonbot.amazon", true),
            ("com", false),
            ("a..com", false),
            ("goo_gle.com", false),
            ("googlebot.com/", false),
        ] {
            assert_eq!(suffix_problem(suffix).is_none(), valid, "{suffix}");
        }
        for (list, valid) in [
            ("common-crawlers", true),
            ("user-triggered-fetchers-google", true),
            ("gptbot", true),
            ("ab", false),
            ("Common", false),
            ("a b", false),
        ] {
            assert_eq!(list_problem(list).is_none(), valid, "{list}");
        }
    }
}
