//! `rules.csv`: one row per rule of every loaded version, including rules that decided nothing.

use std::io;
use std::path::Path;

use robots_audit_engine::RuleId;

use super::{View, files, write_csv};
use crate::audit::stats::{RuleCounts, RuleKey};
use crate::versions::summary::Decides;

/// The header of `rules.csv`.
pub const HEADER: &str = "origin,robots_version,group,line,rule,decided,violations,agents";

/// The `agents` cell of a rule's row: the names of the agents it decided for, sorted, joined
/// by `|`.
pub fn agents_cell(view: &View<'_>, counts: &RuleCounts) -> String {
    let mut agents: Vec<&str> = counts
        .agents
        .iter()
        .map(|&a| view.state.agent_name(a))
        .collect();
    agents.sort_unstable();
    agents.join("|")
}

/// Writes `rules.csv` into `dir`, one version's rows at a time: a night over many origins has
/// millions of rules, and holding their rows would cost more than every counter of the run.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let empty = RuleCounts::default();
    let rows = view.state.robots.sorted().into_iter().flat_map(|id| {
        let version = view.state.robots.version(id);
        let row = |group: String, line: String, rule: String, counts: &RuleCounts| {
            [
                version.origin.clone(),
                version.label(),
                group,
                line,
                rule,
                counts.decided.to_string(),
                counts.violations.to_string(),
                agents_cell(view, counts),
            ]
        };
        let counts = |rule: Option<RuleId>| {
            view.totals
                .stats
                .rules
                .get(&RuleKey { version: id, rule })
                .unwrap_or(&empty)
        };
        match &version.decides {
            Decides::Status(status_rule) => vec![row(
                String::new(),
                String::new(),
                status_rule.clone(),
                counts(None),
            )],
            Decides::Rules(rules) => (0..)
                .zip(rules)
                .map(|(index, rule)| {
                    row(
                        rule.group.clone(),
                        rule.line.to_string(),
                        rule.text.clone(),
                        counts(Some(index)),
                    )
                })
                .collect(),
            Decides::AllowAll => Vec::new(),
        }
    });
    write_csv(dir, files::RULES, HEADER, view.raw_csv(), rows)
}
