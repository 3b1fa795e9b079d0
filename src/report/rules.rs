//! `rules.csv`: one row per rule of every loaded version, including rules that decided nothing.

use std::io;
use std::path::Path;

use super::write_csv;
use crate::audit::AuditResult;
use crate::audit::stats::RuleCounts;
use crate::policy::{Effect, VersionId};

/// The header of `rules.csv`.
pub const HEADER: &str = "origin,robots_version,group,line,rule,decided,violations,agents";

/// Versions sorted by origin, then time (`initial` first).
pub fn sorted_versions(result: &AuditResult) -> Vec<VersionId> {
    let versions = result.policy.versions();
    let mut ids: Vec<VersionId> = (0..versions.len() as VersionId).collect();
    ids.sort_by(|&a, &b| {
        let (a, b) = (&versions[a as usize], &versions[b as usize]);
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
                let counts = result.stats.rules.get(&(id, None)).unwrap_or(&empty);
                row(
                    String::new(),
                    String::new(),
                    format!("status {}", version.status),
                    counts,
                );
            }
            (Some(robots), Effect::Rules) => {
                for (index, rule) in robots.rules().iter().enumerate() {
                    let counts = result
                        .stats
                        .rules
                        .get(&(id, Some(index as u32)))
                        .unwrap_or(&empty);
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
