//! Robots sources and the robots.txt version in force at a given time.
//!
//! A [`VersionSet`] holds every loaded robots.txt version of every origin, parsed and compiled
//! once and shared by all worker threads. Versions come from the sources of
//! `docs/guide/robots-sources.md` ([`source`]): one file with `--origin`, a directory with dated
//! versions, or a
//! manifest CSV that also records fetch failures.
//!
//! Invariant: versions whose files have the same bytes (the same `sha256`, parsed with the same
//! options) hold one shared [`Robots`], parsed and compiled once: a site load-balanced over two
//! servers is archived as hundreds of versions alternating between two files, and memory and
//! compilation follow the distinct files. A version stays a version of its own in time, label
//! and reports; everything counted or kept per version is therefore keyed by its [`VersionId`]
//! (the judge's selection cache, the rule counters, the summary's rows), never by the
//! [`Robots`] or its address. Only what follows from the bytes alone may be shared by the
//! [`Robots`]: the summary's rules, and the state a [`Robots`] keeps inside (its groups
//! compiled on first use, their lazy DFA caches and thrash flag), which changes no verdict.

pub mod source;
pub mod summary;

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;
use robots_audit_engine::Robots;

pub use crate::ids::VersionId;
use crate::origin::Origin;

/// What the fetch of a robots.txt answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchStatus {
    /// An HTTP status code.
    Http(u16),
    /// The server could not be reached at all.
    Unreachable,
}

impl FetchStatus {
    /// Google's reading of the status (RFC 9309 section 2.3.1). A 1xx is no final answer:
    /// Google reads an invalid response as a server error, and `fetch` records it as
    /// `unreachable` (`src/history/mod.rs`), so a manifest's 1xx row decides the same.
    pub fn effect(self) -> Effect {
        match self {
            FetchStatus::Http(200..=299) => Effect::Rules,
            FetchStatus::Http(100..=199 | 429 | 500..=599) | FetchStatus::Unreachable => {
                Effect::DisallowAll
            }
            // 3xx that could not be followed to a file, and 4xx: no robots.txt, no restrictions.
            FetchStatus::Http(_) => Effect::AllowAll,
        }
    }
}

impl std::fmt::Display for FetchStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchStatus::Http(code) => write!(f, "{code}"),
            FetchStatus::Unreachable => f.write_str("unreachable"),
        }
    }
}

/// How a version decides requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The file's rules decide.
    Rules,
    /// No robots.txt (4xx): everything is allowed.
    AllowAll,
    /// The robots.txt was unavailable (429, 5xx, unreachable): everything is disallowed.
    DisallowAll,
}

/// One robots.txt version of one origin.
#[derive(Debug)]
pub struct Version {
    /// The origin as the source names it: `https://host[:port]`, or `host[:port]` for any scheme.
    pub origin: String,
    /// From when it is in force; `None` from the beginning of time.
    pub valid_from: Option<Timestamp>,
    /// What the robots.txt fetch answered.
    pub status: FetchStatus,
    /// The parsed and compiled file, for 2xx versions: shared by every version with the same
    /// content (module docs).
    pub robots: Option<Arc<Robots>>,
    /// Where it was read from (a path), or the manifest line that declared it.
    pub source: String,
    /// Size of the file in bytes (before the 500 KiB cut).
    pub bytes: u64,
    /// SHA-256 of the file's bytes as loaded (`None` without a body): the version's content,
    /// by which `merge` refuses two reports that hold different files under one version.
    pub sha256: Option<[u8; 32]>,
}

impl Version {
    /// The label of the version in reports: its `valid_from` in RFC 3339, or `initial`.
    pub fn label(&self) -> String {
        match self.valid_from {
            Some(t) => t.to_string(),
            None => "initial".to_owned(),
        }
    }

    /// How reports name the "rule" of a version whose fetch status disallowed everything:
    /// `status 503`.
    pub fn status_rule(&self) -> String {
        self.status_rule_display().to_string()
    }

    /// [`Version::status_rule`] without building a string.
    pub fn status_rule_display(&self) -> impl std::fmt::Display + '_ {
        struct StatusRule<'v>(&'v FetchStatus);
        impl std::fmt::Display for StatusRule<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "status {}", self.0)
            }
        }
        StatusRule(&self.status)
    }

    /// How this version decides requests.
    pub fn effect(&self) -> Effect {
        match (self.status.effect(), &self.robots) {
            (Effect::Rules, None) => Effect::AllowAll,
            (effect, _) => effect,
        }
    }
}

/// The versions in force for one origin, ordered by `valid_from`.
#[derive(Debug, Default, Clone)]
struct Timeline {
    versions: Vec<VersionId>,
}

/// The version in force at a moment, with the one before it (for the grace period).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InForce {
    /// The version in force.
    pub current: VersionId,
    /// The version it replaced, if any.
    pub previous: Option<VersionId>,
}

/// Why a version cannot join a [`VersionSet`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// More versions than a [`VersionId`] can number.
    #[error("too many robots versions")]
    TooMany,
    /// Two versions of one origin in force from the same moment: which one decides would
    /// depend on the order the sources were read in.
    #[error("{origin} has two robots.txt versions valid from {valid_from}: {earlier} and {later}")]
    SameValidFrom {
        /// The origin, as the sources name it.
        origin: String,
        /// The label of the moment both are valid from ([`Version::label`]).
        valid_from: String,
        /// The source of the version added first.
        earlier: String,
        /// The source of the version refused.
        later: String,
    },
}

/// Every loaded robots.txt version, indexed by origin.
#[derive(Debug, Default)]
pub struct VersionSet {
    versions: Vec<Version>,
    by_origin: HashMap<String, Timeline>,
    by_host: HashMap<String, Timeline>,
}

impl VersionSet {
    /// An empty set.
    pub fn new() -> VersionSet {
        VersionSet::default()
    }

    /// Adds a version. Its `origin` is `https://host[:port]` for one scheme or `host[:port]` for
    /// any scheme (already normalised). Returns an error when the same origin already has a
    /// version with the same `valid_from`.
    pub fn add(&mut self, version: Version) -> Result<VersionId, VersionError> {
        let id = VersionId::from_index(self.versions.len()).ok_or(VersionError::TooMany)?;
        let any_scheme = !version.origin.contains("://");
        let map = if any_scheme {
            &mut self.by_host
        } else {
            &mut self.by_origin
        };
        let timeline = map.entry(version.origin.clone()).or_default();
        // The timeline is in time order: the version valid from the same moment, if any, is
        // where this one would go. A scan would make loading quadratic in the versions.
        let at = timeline
            .versions
            .partition_point(|&v| self.versions[v.index()].valid_from < version.valid_from);
        let clash = timeline
            .versions
            .get(at)
            .map(|&v| &self.versions[v.index()])
            .filter(|v| v.valid_from == version.valid_from);
        if let Some(earlier) = clash {
            return Err(VersionError::SameValidFrom {
                origin: version.origin.clone(),
                valid_from: version.label(),
                earlier: earlier.source.clone(),
                later: version.source.clone(),
            });
        }
        timeline.versions.insert(at, id);
        self.versions.push(version);
        Ok(id)
    }

    /// Puts the versions in the order of `robots.csv` and `state.json`: by origin, then time
    /// (versions without a time first), renumbering their ids. Loading ends with it, so the
    /// state of a run needs no reordered copy of the robots summary, however the sources
    /// listed the files.
    pub fn sort_versions(&mut self) {
        let mut order: Vec<usize> = (0..self.versions.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&self.versions[a], &self.versions[b]);
            (&a.origin, a.valid_from).cmp(&(&b.origin, b.valid_from))
        });
        if order.iter().enumerate().all(|(i, &at)| i == at) {
            return;
        }
        let mut new_id = vec![VersionId::MAX; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = VersionId::from_index(new).unwrap_or(VersionId::MAX);
        }
        let mut slots: Vec<Option<Version>> = self.versions.drain(..).map(Some).collect();
        self.versions = order.iter().filter_map(|&old| slots[old].take()).collect();
        for timeline in self.by_origin.values_mut().chain(self.by_host.values_mut()) {
            for id in &mut timeline.versions {
                *id = new_id[id.index()];
            }
        }
    }

    /// All versions, in load order (by origin and time once [`VersionSet::sort_versions`] ran).
    pub fn versions(&self) -> &[Version] {
        &self.versions
    }

    /// One version.
    pub fn version(&self, id: VersionId) -> &Version {
        &self.versions[id.index()]
    }

    /// Whether no version was loaded.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// The scheme-specific timeline of an origin first, then the any-scheme one.
    fn timeline_versions(&self, origin: &Origin) -> Option<&[VersionId]> {
        self.by_origin
            .get(&origin.to_string())
            .or_else(|| self.by_host.get(&origin.host_key()))
            .map(|t| t.versions.as_slice())
    }

    /// The versions of an origin in time order (empty when no source names it).
    pub fn versions_of(&self, origin: &Origin) -> Vec<VersionId> {
        self.timeline_versions(origin)
            .map(<[VersionId]>::to_vec)
            .unwrap_or_default()
    }

    /// The version in force at `time` among `versions` (as returned by [`versions_of`]).
    ///
    /// [`versions_of`]: VersionSet::versions_of
    pub fn in_force(&self, versions: &[VersionId], time: Timestamp) -> Option<InForce> {
        let at = self.in_force_at(versions, time)?;
        let current = *versions.get(at)?;
        let previous = at.checked_sub(1).and_then(|i| versions.get(i).copied());
        Some(InForce { current, previous })
    }

    /// The position in `versions` (as returned by [`versions_of`]) of the version in force at
    /// `time`; the versions before it came earlier, in order.
    ///
    /// [`versions_of`]: VersionSet::versions_of
    #[inline]
    pub fn in_force_at(&self, versions: &[VersionId], time: Timestamp) -> Option<usize> {
        let after = versions.partition_point(|&v| match self.versions[v.index()].valid_from {
            None => true,
            Some(from) => from <= time,
        });
        after.checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(origin: &str, from: Option<&str>, status: FetchStatus) -> Version {
        Version {
            origin: origin.to_owned(),
            valid_from: from.map(|t| t.parse().unwrap()),
            status,
            robots: None,
            source: "test".into(),
            bytes: 0,
            sha256: None,
        }
    }

    #[test]
    fn status_effects() {
        let cases = [
            (FetchStatus::Http(200), Effect::Rules),
            (FetchStatus::Http(204), Effect::Rules),
            (FetchStatus::Http(100), Effect::DisallowAll),
            (FetchStatus::Http(199), Effect::DisallowAll),
            (FetchStatus::Http(301), Effect::AllowAll),
            (FetchStatus::Http(404), Effect::AllowAll),
            (FetchStatus::Http(403), Effect::AllowAll),
            (FetchStatus::Http(429), Effect::DisallowAll),
            (FetchStatus::Http(500), Effect::DisallowAll),
            (FetchStatus::Http(503), Effect::DisallowAll),
            (FetchStatus::Unreachable, Effect::DisallowAll),
        ];
        for (status, effect) in cases {
            assert_eq!(status.effect(), effect, "{status}");
        }
    }

    #[test]
    fn versions_in_time() {
        let mut set = VersionSet::new();
        let late = set
            .add(version(
                "example.com",
                Some("2026-01-02T00:00:00Z"),
                FetchStatus::Http(503),
            ))
            .unwrap();
        let first = set
            .add(version(
                "example.com",
                Some("2026-01-01T00:00:00Z"),
                FetchStatus::Http(404),
            ))
            .unwrap();
        let clash = set
            .add(version(
                "example.com",
                Some("2026-01-01T00:00:00Z"),
                FetchStatus::Http(404),
            ))
            .unwrap_err();
        assert_eq!(
            clash.to_string(),
            "example.com has two robots.txt versions valid from 2026-01-01T00:00:00Z: test and test"
        );
        let origin = Origin::parse("http://example.com").unwrap();
        let versions = set.versions_of(&origin);
        assert_eq!(versions, vec![first, late]);
        let t = |s: &str| s.parse::<Timestamp>().unwrap();
        assert_eq!(set.in_force(&versions, t("2025-12-31T23:59:59Z")), None);
        assert_eq!(
            set.in_force(&versions, t("2026-01-01T00:00:00Z")),
            Some(InForce {
                current: first,
                previous: None
            })
        );
        assert_eq!(
            set.in_force(&versions, t("2026-01-03T00:00:00Z")),
            Some(InForce {
                current: late,
                previous: Some(first)
            })
        );
    }

    /// Sorting renumbers the versions by origin and time and every timeline follows them: each
    /// origin finds the same versions in force as before.
    #[test]
    fn sorted_versions_keep_their_timelines() {
        let mut set = VersionSet::new();
        let loaded = [
            ("b.example", Some("2026-01-02T00:00:00Z"), 503),
            ("https://a.example", None, 200),
            ("b.example", None, 404),
            ("a.example", Some("2026-01-01T00:00:00Z"), 500),
        ];
        for (origin, from, status) in loaded {
            set.add(version(origin, from, FetchStatus::Http(status)))
                .unwrap();
        }
        let in_force = |set: &VersionSet, origin: &str, at: &str| {
            let versions = set.versions_of(&Origin::parse(origin).unwrap());
            set.in_force(&versions, at.parse().unwrap())
                .map(|f| set.version(f.current).status.to_string())
        };
        let lookups = [
            ("https://a.example", "2026-01-05T00:00:00Z"),
            ("http://a.example", "2026-01-05T00:00:00Z"),
            ("http://a.example", "2025-01-01T00:00:00Z"),
            ("http://b.example", "2026-01-01T00:00:00Z"),
            ("http://b.example", "2026-01-03T00:00:00Z"),
        ];
        let before: Vec<_> = lookups.iter().map(|(o, t)| in_force(&set, o, t)).collect();
        set.sort_versions();
        let order: Vec<String> = set
            .versions()
            .iter()
            .map(|v| format!("{} {}", v.origin, v.label()))
            .collect();
        assert_eq!(
            order,
            [
                "a.example 2026-01-01T00:00:00Z",
                "b.example initial",
                "b.example 2026-01-02T00:00:00Z",
                "https://a.example initial",
            ]
        );
        let after: Vec<_> = lookups.iter().map(|(o, t)| in_force(&set, o, t)).collect();
        assert_eq!(after, before);
        assert_eq!(
            after,
            [
                Some("200".to_owned()),
                Some("500".to_owned()),
                None,
                Some("404".to_owned()),
                Some("503".to_owned()),
            ]
        );
    }

    #[test]
    fn scheme_specific_wins_over_any_scheme() {
        let mut set = VersionSet::new();
        let any = set
            .add(version("example.com", None, FetchStatus::Http(404)))
            .unwrap();
        let https = set
            .add(version("https://example.com", None, FetchStatus::Http(503)))
            .unwrap();
        assert_eq!(
            set.versions_of(&Origin::parse("https://example.com").unwrap()),
            vec![https]
        );
        assert_eq!(
            set.versions_of(&Origin::parse("http://example.com").unwrap()),
            vec![any]
        );
        assert!(
            set.versions_of(&Origin::parse("https://other.com").unwrap())
                .is_empty()
        );
    }
}
