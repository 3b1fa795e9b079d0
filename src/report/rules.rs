//! `rules.csv`: one row per rule of every loaded version, including rules that decided nothing.

use std::io::{self, Write};
use std::path::Path;

use robots_audit_engine::RuleId;

use super::{RowWriter, View, files};
use crate::audit::stats::{RuleCounts, RuleKey};
use crate::commit::NewFile;
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

/// Writes `rules.csv` into `dir`. Rows are written field by field into a buffer that goes to
/// the file each time it fills: a night over many origins has millions of rules, and holding
/// their rows, or a `String` per cell, would cost more than every counter of the run.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let mut file = NewFile::create(dir, files::RULES)?;
    file.write_all(HEADER.as_bytes())?;
    file.write_all(b"\n")?;
    let mut rows = RowWriter::new(view.raw_csv());
    let empty = RuleCounts::default();
    for id in view.state.robots.sorted() {
        let version = view.state.robots.version(id);
        let counts = |rule: Option<RuleId>| {
            view.totals
                .stats
                .rules
                .get(&RuleKey { version: id, rule })
                .unwrap_or(&empty)
        };
        let mut version_cells = VersionCells::Unwritten(&version.origin, version.label());
        match &version.decides {
            Decides::Status(status_rule) => {
                let rule = ("", None, status_rule.as_str());
                rows.rule_row(&mut version_cells, rule, &Decided::of(view, counts(None)));
            }
            Decides::Rules(rules) => {
                for (index, rule) in (0..).zip(rules.iter()) {
                    let rule_cells = (rule.group.as_str(), Some(rule.line), rule.text.as_str());
                    let decided = Decided::of(view, counts(Some(index)));
                    rows.rule_row(&mut version_cells, rule_cells, &decided);
                    if rows.rows().len() >= FULL_BUFFER {
                        file.write_all(rows.rows())?;
                        rows.rows().clear();
                    }
                }
            }
            Decides::AllowAll => {}
        }
    }
    file.write_all(rows.rows())?;
    file.finish()
}

/// Bytes of rows gathered before they go to the file.
const FULL_BUFFER: usize = 1 << 20;

/// The `origin` and `robots_version` cells of one version's rows: formatted by its first row,
/// then copied.
enum VersionCells<'v> {
    /// The origin and the version's label, not written yet.
    Unwritten(&'v str, String),
    /// Both cells as the first row wrote them, with the comma between them.
    Written(Vec<u8>),
}

/// What a rule decided, as the last cells of its row show it.
struct Decided {
    decided: u64,
    violations: u64,
    /// The agents' names, empty for none.
    agents: String,
}

impl Decided {
    fn of(view: &View<'_>, counts: &RuleCounts) -> Decided {
        Decided {
            decided: counts.decided,
            violations: counts.violations,
            // Most rules decided nothing: no names to gather, and an empty `String` does not
            // allocate.
            agents: if counts.agents.is_empty() {
                String::new()
            } else {
                agents_cell(view, counts)
            },
        }
    }
}

impl RowWriter {
    /// One row of `rules.csv`: the version's cells, then the rule's group label, line (none for
    /// a fetch status) and text, and what it decided.
    fn rule_row(
        &mut self,
        version: &mut VersionCells<'_>,
        (group, line, rule): (&str, Option<u32>, &str),
        decided: &Decided,
    ) {
        match version {
            VersionCells::Written(cells) => self.csv.kept(cells),
            VersionCells::Unwritten(origin, label) => {
                let start = self.csv.next_start();
                self.field(origin.as_bytes());
                self.field(label.as_bytes());
                *version =
                    VersionCells::Written(self.csv.out.get(start..).unwrap_or_default().to_vec());
            }
        }
        self.field(group.as_bytes());
        match line {
            Some(line) => self.number_field(line),
            None => self.word_field(""),
        }
        self.field(rule.as_bytes());
        self.number_field(decided.decided);
        self.number_field(decided.violations);
        self.field(decided.agents.as_bytes());
        self.end_row();
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::report::write_csv;

    /// Cells with what the cells rule and the quoting look for: formulas, commas, quotes, line
    /// ends, control bytes, non-ASCII text, nothing.
    fn cell() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            "[a-z/*$]{1,12}",
            "[=+@-][A-Z0-9(),\"]{0,8}",
            "[ -~]{0,20}",
            "[\\x00-\\x1f\\x7f,\"a]{1,6}",
            "[a-zä€/]{1,8}",
        ]
    }

    proptest! {
        /// The rows of a version are the rows `write_csv` writes of the same cells, in both
        /// cell modes: the version's cells copied from its first row, an empty line for a fetch
        /// status, empty agents for a rule that decided nothing.
        #[test]
        fn rule_rows_are_the_rows_write_csv_writes(
            raw in any::<bool>(),
            origin in cell(),
            label in cell(),
            rules in proptest::collection::vec(
                (
                    (cell(), proptest::option::of(any::<u32>()), cell()),
                    (any::<u64>(), any::<u64>(), cell()),
                ),
                1..5,
            ),
        ) {
            let mut ours = RowWriter::new(raw);
            let mut version = VersionCells::Unwritten(&origin, label.clone());
            let mut expected_rows = Vec::new();
            for ((group, line, text), (decided, violations, agents)) in &rules {
                ours.rule_row(
                    &mut version,
                    (group, *line, text),
                    &Decided { decided: *decided, violations: *violations, agents: agents.clone() },
                );
                expected_rows.push([
                    origin.clone(),
                    label.clone(),
                    group.clone(),
                    line.map(|l| l.to_string()).unwrap_or_default(),
                    text.clone(),
                    decided.to_string(),
                    violations.to_string(),
                    agents.clone(),
                ]);
            }
            let dir = tempfile::tempdir().unwrap();
            write_csv(dir.path(), "rules.csv", HEADER, raw, expected_rows).unwrap();
            let written = std::fs::read(dir.path().join("rules.csv")).unwrap();
            let expected = written.get(HEADER.len() + 1..).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(ours.rows()),
                String::from_utf8_lossy(expected)
            );
        }
    }
}
