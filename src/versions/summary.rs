//! What the reports show of the robots versions, without the compiled files: the rows of
//! `robots.csv` and `rules.csv` and each version's content hash.
//!
//! The audit judges with the live [`VersionSet`]; the reports render from this summary, which
//! `state.json` stores, so that `merge` renders `robots.csv` and `rules.csv` without the robots
//! sources. Invariant: `versions` is in the set's load order, so a [`VersionId`] of the run
//! indexes it.

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;
use robots_audit_engine::Robots;
use serde::{Deserialize, Serialize};

use super::{Effect, Version, VersionId, VersionSet};
use crate::origin::Origin;

/// The parse counts of a version's file, as `robots.csv` shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseSummary {
    /// Whether the 500 KiB cut applied.
    pub truncated: bool,
    /// Lines read.
    pub lines: u32,
    /// Groups.
    pub groups: u32,
    /// Allow and disallow lines in groups.
    pub rules: u32,
    /// Lines that took no effect.
    pub ignored_lines: u32,
}

/// One rule as `rules.csv` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSummary {
    /// The group's label.
    pub group: String,
    /// The line number.
    pub line: u32,
    /// The rule as written.
    pub text: String,
}

/// How a version decides, as `rules.csv` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decides {
    /// By its rules, in the engine's order (a rule's position is its `RuleId`). Versions that
    /// share their file share them too: `state.json` writes them out for each version all the
    /// same.
    Rules(Arc<[RuleSummary]>),
    /// Everything is disallowed by the fetch status (`status 503`).
    Status(String),
    /// Everything is allowed: no row.
    AllowAll,
}

/// One version as the reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionSummary {
    /// As the source names it.
    pub origin: String,
    /// From when it is in force (`None`: from the beginning of time).
    pub valid_from: Option<Timestamp>,
    /// The fetch status as `robots.csv` writes it.
    pub status: String,
    /// Where it was read from.
    pub source: String,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// SHA-256 of the file as loaded, in hex; empty without a body.
    pub sha256: String,
    /// Parse counts, for versions with a parsed file.
    pub parse: Option<ParseSummary>,
    /// Its rules.
    pub decides: Decides,
}

/// The rules of each file already summarised, by the address of its shared [`Robots`]: the
/// [`VersionSet`] summarised holds every one of them, so no two files can have the same
/// address meanwhile.
type RulesByFile = HashMap<*const Robots, Arc<[RuleSummary]>>;

impl VersionSummary {
    /// The summary of `version`, its rules taken from `summarised` when another version with
    /// the same file was summarised before.
    fn of(version: &Version, summarised: &mut RulesByFile) -> VersionSummary {
        let decides = match (&version.robots, version.effect()) {
            (_, Effect::DisallowAll) => Decides::Status(version.status_rule()),
            (Some(robots), Effect::Rules) => Decides::Rules(Arc::clone(
                summarised.entry(Arc::as_ptr(robots)).or_insert_with(|| {
                    robots
                        .rules()
                        .iter()
                        .map(|rule| RuleSummary {
                            group: robots.group_label(rule.group),
                            line: rule.line,
                            text: rule.text.clone(),
                        })
                        .collect()
                }),
            )),
            _ => Decides::AllowAll,
        };
        VersionSummary {
            origin: version.origin.clone(),
            valid_from: version.valid_from,
            status: version.status.to_string(),
            source: version.source.clone(),
            bytes: version.bytes,
            sha256: version.sha256.map(hex).unwrap_or_default(),
            parse: version.robots.as_ref().map(|robots| {
                let stats = robots.stats();
                ParseSummary {
                    truncated: stats.truncated,
                    lines: stats.lines,
                    groups: stats.groups,
                    rules: stats.rules,
                    ignored_lines: stats.ignored_lines,
                }
            }),
            decides,
        }
    }

    /// The label of the version in reports: its `valid_from` in RFC 3339, or `initial`.
    pub fn label(&self) -> String {
        match self.valid_from {
            Some(t) => t.to_string(),
            None => "initial".to_owned(),
        }
    }

    /// Whether `other` is the same version with different content: what `merge` refuses.
    /// Where each was read from may differ.
    pub fn content_differs(&self, other: &VersionSummary) -> bool {
        (
            &self.status,
            self.bytes,
            &self.sha256,
            &self.parse,
            &self.decides,
        ) != (
            &other.status,
            other.bytes,
            &other.sha256,
            &other.parse,
            &other.decides,
        )
    }
}

/// Every loaded version, in load order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsSummary {
    /// Indexed by [`VersionId`].
    pub versions: Vec<VersionSummary>,
}

impl RobotsSummary {
    /// The summary of every version of `set`.
    pub fn of(set: &VersionSet) -> RobotsSummary {
        let mut summarised = RulesByFile::new();
        RobotsSummary {
            versions: set
                .versions()
                .iter()
                .map(|version| VersionSummary::of(version, &mut summarised))
                .collect(),
        }
    }

    /// One version.
    pub fn version(&self, id: VersionId) -> &VersionSummary {
        &self.versions[id.index()]
    }

    /// The ids of every version, sorted by origin, then time (`initial` first): the order of
    /// `robots.csv` and `rules.csv`.
    pub fn sorted(&self) -> Vec<VersionId> {
        let mut ids: Vec<VersionId> = (0..self.versions.len())
            .filter_map(VersionId::from_index)
            .collect();
        ids.sort_by(|&a, &b| {
            let (a, b) = (self.version(a), self.version(b));
            (&a.origin, a.valid_from).cmp(&(&b.origin, b.valid_from))
        });
        ids
    }

    /// The first version of `origin` in time, as the audit looks it up (the scheme-specific
    /// timeline first, then the any-scheme one).
    pub fn first_version_of(&self, origin: &Origin) -> Option<&VersionSummary> {
        let first_of = |name: &str| {
            self.versions
                .iter()
                .filter(|v| v.origin == name)
                .min_by_key(|v| v.valid_from)
        };
        first_of(&origin.to_string()).or_else(|| first_of(&origin.host_key()))
    }
}

/// Lower-case hex.
pub fn hex(bytes: impl AsRef<[u8]>) -> String {
    use std::fmt::Write as _;
    let bytes = bytes.as_ref();
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::versions::FetchStatus;
    use robots_audit_engine::Robots;

    /// Versions sharing one `Robots` share their summarised rules, which `state.json` still
    /// writes out for each of them; a version with other bytes has rules of its own.
    #[test]
    fn versions_sharing_a_file_share_its_rules() {
        let shared = Arc::new(Robots::parse(b"User-agent: *\nDisallow: /a/\n"));
        let other = Arc::new(Robots::parse(b"User-agent: *\nDisallow: /a/\n"));
        let mut set = VersionSet::new();
        for (day, robots) in [(1, &shared), (2, &other), (3, &shared)] {
            set.add(Version {
                origin: "https://e.com".into(),
                valid_from: Some(Timestamp::from_second(day * 86_400).unwrap()),
                status: FetchStatus::Http(200),
                robots: Some(Arc::clone(robots)),
                source: "e.txt".into(),
                bytes: 0,
                sha256: None,
            })
            .unwrap();
        }
        let summary = RobotsSummary::of(&set);
        let rules: Vec<&Arc<[RuleSummary]>> = summary
            .versions
            .iter()
            .map(|v| match &v.decides {
                Decides::Rules(rules) => rules,
                decides => panic!("{decides:?}"),
            })
            .collect();
        assert!(Arc::ptr_eq(rules[0], rules[2]));
        assert!(!Arc::ptr_eq(rules[0], rules[1]));
        let json = serde_json::to_string(&summary).unwrap();
        let rule = r#"{"rules":[{"group":"*","line":2,"text":"Disallow: /a/"}]}"#;
        assert_eq!(json.matches(rule).count(), 3, "{json}");
    }

    #[test]
    fn a_version_summarised_keeps_what_the_reports_show() {
        let body = b"User-agent: a\nDisallow: /x\n";
        let mut set = VersionSet::new();
        set.add(Version {
            origin: "https://e.com".into(),
            valid_from: None,
            status: FetchStatus::Http(200),
            robots: Some(Robots::parse(body).into()),
            source: "e.txt".into(),
            bytes: body.len() as u64,
            sha256: Some([7; 32]),
        })
        .unwrap();
        let summary = RobotsSummary::of(&set);
        let v = &summary.versions[0];
        assert_eq!(v.label(), "initial");
        assert_eq!(v.sha256, "07".repeat(32));
        let Decides::Rules(rules) = &v.decides else {
            panic!("{:?}", v.decides)
        };
        assert_eq!((rules[0].line, rules[0].text.as_str()), (2, "Disallow: /x"));
        let mut other = v.clone();
        other.source = "elsewhere.txt".into();
        assert!(!v.content_differs(&other));
        other.sha256 = "08".repeat(32);
        assert!(v.content_differs(&other));
        let origin = Origin::parse("https://e.com").unwrap();
        assert_eq!(summary.first_version_of(&origin), Some(v));
    }
}
