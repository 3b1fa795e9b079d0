//! `hourly.csv`: one row per UTC hour and agent with a request in it, sorted by hour, then agent
//! name. For every agent, its rows add up to its row of `agents.csv` (docs/contract.md,
//! "hourly.csv").

use std::io;
use std::path::Path;

use super::{View, files, time, write_csv};
use crate::audit::hourly::hour_start;

/// The header of `hourly.csv`.
pub const HEADER: &str = "hour,agent,requests,robots_fetches,judged,allowed,disallowed,grace,exempt,unjudged,violations_served,spoofed,preference_conflicts";

/// Writes `hourly.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let mut rows = view.totals.stats.hourly.rows();
    rows.sort_by(|a, b| (a.0, view.state.agent_name(a.1)).cmp(&(b.0, view.state.agent_name(b.1))));
    let rows = rows.into_iter().map(|(hour, agent, c)| {
        [
            time(hour_start(hour)),
            view.state.agent_name(agent).to_owned(),
            c.requests.to_string(),
            c.robots_fetches.to_string(),
            c.judged().to_string(),
            c.allowed.to_string(),
            c.disallowed.to_string(),
            c.grace.to_string(),
            c.exempt.to_string(),
            c.unjudged.to_string(),
            c.violations_served.to_string(),
            c.spoofed.to_string(),
            c.preference_conflicts.to_string(),
        ]
    });
    write_csv(dir, files::HOURLY, HEADER, view.raw_csv(), rows)
}
