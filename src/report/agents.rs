//! `agents.csv`: one row per agent, sorted by agent name.

use std::io;
use std::path::Path;

use super::{View, files, rate, time, write_csv};
use crate::audit::checked::CountError;
use crate::audit::stats::{Counts, Stats};
use crate::ids::AgentId;
use crate::state::State;

/// The header of `agents.csv`.
pub const HEADER: &str = "agent,robots_tokens,operator,category,requests,robots_fetches,judged,allowed,disallowed,disallowed_verified,grace,exempt,unjudged,violation_rate,violations_served,coverage,origins,origins_robots_fetched,origins_with_violations,verified,spoofed,unverified,first_seen,last_seen,preference_conflicts";

/// One agent's counters summed over its origins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentTotals {
    /// The agent.
    pub agent: AgentId,
    /// Its counters over all origins.
    pub counts: Counts,
    /// Origins it requested (lines with no origin do not count).
    pub origins: u64,
    /// Origins whose robots.txt it fetched.
    pub origins_robots_fetched: u64,
    /// Origins where it made at least one violation.
    pub origins_with_violations: u64,
}

/// `judged / (requests - robots_fetches)`: the share of an agent's traffic that could be judged.
pub fn coverage(counts: &Counts) -> String {
    rate(
        counts.judged(),
        counts.requests.saturating_sub(counts.robots_fetches),
    )
}

/// The columns both `agents.csv` and `agent_origins.csv` show, in their order: `judged`,
/// `allowed`, `disallowed`, `disallowed_verified`, `grace`, `exempt`, `unjudged`,
/// `violation_rate`, `violations_served`, `coverage`.
pub fn verdict_columns(c: &Counts) -> [String; 10] {
    [
        c.judged().to_string(),
        c.allowed.to_string(),
        c.disallowed.to_string(),
        c.disallowed_verified.to_string(),
        c.grace.to_string(),
        c.exempt.to_string(),
        c.unjudged.to_string(),
        rate(c.disallowed, c.judged()),
        c.violations_served.to_string(),
        coverage(c),
    ]
}

/// Every agent's totals over its origins (`stats` summed over the inputs of `state`), sorted by
/// name; an error when a sum overflows.
pub fn totals(state: &State, stats: &Stats) -> Result<Vec<AgentTotals>, CountError> {
    let mut totals: Vec<AgentTotals> = (0..state.agents.len())
        .filter_map(AgentId::from_index)
        .map(|agent| AgentTotals {
            agent,
            ..AgentTotals::default()
        })
        .collect();
    for (&(agent, origin), counts) in &stats.pairs {
        let Some(t) = totals.get_mut(agent.index()) else {
            continue;
        };
        t.counts.merge(counts)?;
        if state
            .origins
            .get(origin.index())
            .is_some_and(|o| !o.is_empty())
        {
            t.origins += 1;
            t.origins_robots_fetched += u64::from(counts.robots_fetches > 0);
            t.origins_with_violations += u64::from(counts.disallowed > 0);
        }
    }
    totals.retain(|t| t.counts.requests > 0);
    totals.sort_by(|a, b| state.agent_name(a.agent).cmp(state.agent_name(b.agent)));
    Ok(totals)
}

/// One agent's row of `agents.csv`, in [`HEADER`]'s order (before the cells rule).
pub fn row(view: &View<'_>, t: &AgentTotals) -> Vec<String> {
    let agent = &view.state.agents[t.agent.index()];
    let c = &t.counts;
    let mut row = vec![
        agent.name.clone(),
        agent.tokens.join("|"),
        agent.operator.clone(),
        agent.category.as_str().to_owned(),
        c.requests.to_string(),
        c.robots_fetches.to_string(),
    ];
    row.extend(verdict_columns(c));
    row.extend([
        t.origins.to_string(),
        t.origins_robots_fetched.to_string(),
        t.origins_with_violations.to_string(),
        c.verified.to_string(),
        c.spoofed.to_string(),
        c.unverified.to_string(),
        time(c.first_seen()),
        time(c.last_seen()),
        c.preference_conflicts.to_string(),
    ]);
    row
}

/// Writes `agents.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let rows = view.agents.iter().map(|t| row(view, t));
    write_csv(dir, files::AGENTS, HEADER, view.raw_csv(), rows)
}
