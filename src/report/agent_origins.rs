//! `agent_origins.csv`: one row per agent and origin, sorted by agent, then origin.

use std::io;
use std::path::Path;

use super::agents::verdict_columns;
use super::{View, files, time, write_csv};
use crate::audit::stats::Counts;
use crate::ids::{AgentId, OriginId};

/// The header of `agent_origins.csv`.
pub const HEADER: &str = "agent,origin,requests,robots_fetches,robots_fetch_statuses,first_robots_fetch,judged,allowed,disallowed,disallowed_verified,grace,exempt,unjudged,violation_rate,violations_served,coverage,first_seen,last_seen,first_violation,preference_conflicts";

/// One agent and origin's row of `agent_origins.csv`, in [`HEADER`]'s order (before the cells
/// rule).
pub fn row(view: &View<'_>, (agent, origin): (AgentId, OriginId), c: &Counts) -> Vec<String> {
    let statuses: Vec<String> = c
        .robots_fetch_statuses
        .iter()
        .map(|(s, n)| format!("{s}:{n}"))
        .collect();
    let mut row = vec![
        view.state.agent_name(agent).to_owned(),
        view.state.origin_name(origin).to_owned(),
        c.requests.to_string(),
        c.robots_fetches.to_string(),
        statuses.join(";"),
        time(c.first_robots_fetch()),
    ];
    row.extend(verdict_columns(c));
    row.extend([
        time(c.first_seen()),
        time(c.last_seen()),
        time(c.first_violation()),
        c.preference_conflicts.to_string(),
    ]);
    row
}

/// Writes `agent_origins.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let mut pairs: Vec<_> = view.totals.stats.pairs.iter().collect();
    pairs.sort_by(|(a, _), (b, _)| {
        (view.state.agent_name(a.0), view.state.origin_name(a.1))
            .cmp(&(view.state.agent_name(b.0), view.state.origin_name(b.1)))
    });
    let rows = pairs.into_iter().map(|(&key, c)| row(view, key, c));
    write_csv(dir, files::AGENT_ORIGINS, HEADER, view.raw_csv(), rows)
}
