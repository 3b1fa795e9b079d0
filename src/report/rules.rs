//! `rules.csv`: one row per rule of every loaded version, including rules that decided nothing.

use std::io;
use std::path::Path;

use super::write_csv;
use crate::audit::AuditResult;
use crate::audit::stats::{RuleCounts, RuleKey};
use crate::ids::VersionId;
use crate::policy::Effect;

/// The header of `rules.csv`.
pub const HEADER: &str = "origin,robots_version,group,line,rule,decided,violations,agents";

/// Versions sorted by origin, then time (`initial` first).
pub fn sorted_versions(result: &AuditResult) -> Vec<VersionId> {
    let versions = result.policy.versions();
    let mut ids: Vec<VersionId> = (0..versions.len())
        .filter_map(VersionId::from_index)
        .collect();
    ids.sort_by(|&a, &b| {
        let (a, b) = (&versions[a.index()], &versions[b.index()]);
        (&a.origin, a.valid_from).cmp(&(&b.origin, b.valid_from))
    });
    ids
}

/// Writes `rules.csv` into `dir`.
pub fn write(dir: &Path, result: &AuditResult) -> io::Result<()> {
    let empty = RuleCounts::default();
    let mut rows = Vec::new();
    for id in sorted_versions(result) {
        let version = result.policy.version(id);
        let mut row = |group: String, line: String, rule: String, counts: &RuleCounts| {
            let mut agents: Vec<&str> = counts
                .agents
                .iter()
                .map(|&a| result.agent_name(a))
                .collect();
            agents.sort_unstable();
            rows.push(vec![
                version.origin.clone(),
                version.label(),
                group,
                line,
                rule,
                counts.decided.to_string(),
                counts.violations.to_string(),
                agents.join("|"),
            ]);
        };
        match (&version.robots, version.effect()) {
            (_, Effect::DisallowAll) => {
                let key = RuleKey {
                    version: id,
                    rule: None,
                };
                let counts = result.stats.rules.get(&key).unwrap_or(&empty);
                row(String::new(), String::new(), version.status_rule(), counts);
            }
            (Some(robots), Effect::Rules) => {
                for (index, rule) in (0..).zip(robots.rules()) {
                    let key = RuleKey {
                        version: id,
                        rule: Some(index),
                    };
                    let counts = result.stats.rules.get(&key).unwrap_or(&empty);
                    row(
                        robots.group_label(rule.group),
                        rule.line.to_string(),
                        rule.text.clone(),
                        counts,
                    );
                }
            }
            _ => {}
        }
    }
    write_csv(dir, "rules.csv", HEADER, rows)
}
