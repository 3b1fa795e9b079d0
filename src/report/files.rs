//! The one table of the files a run writes into its report directory: every writer names its
//! file from here, the commit carries everything else of the old `--out` into the new set
//! (`src/commit`), and `merge` reads only these names.

use crate::state::json;

/// `agents.csv`.
pub const AGENTS: &str = "agents.csv";
/// `agent_origins.csv`.
pub const AGENT_ORIGINS: &str = "agent_origins.csv";
/// `violations.csv` (streamed).
pub const VIOLATIONS: &str = "violations.csv";
/// `rules.csv`.
pub const RULES: &str = "rules.csv";
/// `robots.csv`.
pub const ROBOTS: &str = "robots.csv";
/// `inputs.csv`.
pub const INPUTS: &str = "inputs.csv";
/// `skipped_lines.csv`.
pub const SKIPPED_LINES: &str = "skipped_lines.csv";
/// `decisions.csv` (streamed, with `--decisions`).
pub const DECISIONS: &str = "decisions.csv";
/// `unknown_agents.csv`.
pub const UNKNOWN_AGENTS: &str = "unknown_agents.csv";
/// `hourly.csv`.
pub const HOURLY: &str = "hourly.csv";
/// `crawl_rate.csv`.
pub const CRAWL_RATE: &str = "crawl_rate.csv";
/// `preference_conflicts.csv` (streamed).
pub const PREFERENCE_CONFLICTS: &str = "preference_conflicts.csv";
/// `report.html`.
pub const REPORT_HTML: &str = "report.html";
/// `state.json`.
pub const STATE: &str = json::FILE;

/// Every file name the tool may write into a report directory.
pub const ALL: &[&str] = &[
    AGENTS,
    AGENT_ORIGINS,
    VIOLATIONS,
    RULES,
    ROBOTS,
    INPUTS,
    SKIPPED_LINES,
    DECISIONS,
    UNKNOWN_AGENTS,
    HOURLY,
    CRAWL_RATE,
    PREFERENCE_CONFLICTS,
    REPORT_HTML,
    STATE,
];

/// The reports written while the audit runs, a row per request, which `merge` concatenates
/// by the byte ranges the state records.
pub const STREAMED: &[&str] = &[VIOLATIONS, PREFERENCE_CONFLICTS, DECISIONS];

/// The streamed report of `name`, as this table spells it; `None` for any other name (`merge`
/// refuses a state that lists one).
pub fn streamed(name: &str) -> Option<&'static str> {
    STREAMED.iter().copied().find(|streamed| *streamed == name)
}
