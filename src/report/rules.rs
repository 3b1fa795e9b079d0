//! `rules.csv`: one row per rule of every loaded version, including rules that decided nothing.

use std::io;
use std::path::Path;

use super::write_csv;
use crate::audit::AuditResult;
use crate::audit::stats::{RuleCounts, RuleKey};
use crate::policy::summary::Decides;

/// The header of `rules.csv`.
pub const HEADER: &str = "origin,robots_version,group,line,rule,decided,violations,agents";

/// Writes `rules.csv` into `dir`.
pub fn write(dir: &Path, result: &AuditResult) -> io::Result<()> {
    let empty = RuleCounts::default();
    let mut rows = Vec::new();
    for id in result.robots.sorted() {
        let version = result.robots.version(id);
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
        match &version.decides {
            Decides::Status(status_rule) => {
                let key = RuleKey {
                    version: id,
                    rule: None,
                };
                let counts = result.stats.rules.get(&key).unwrap_or(&empty);
                row(String::new(), String::new(), status_rule.clone(), counts);
            }
            Decides::Rules(rules) => {
                for (index, rule) in (0..).zip(rules) {
                    let key = RuleKey {
                        version: id,
                        rule: Some(index),
                    };
                    let counts = result.stats.rules.get(&key).unwrap_or(&empty);
                    row(
                        rule.group.clone(),
                        rule.line.to_string(),
                        rule.text.clone(),
                        counts,
                    );
                }
            }
            Decides::AllowAll => {}
        }
    }
    write_csv(dir, "rules.csv", HEADER, rows)
}
