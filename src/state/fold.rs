//! Folding a state's traffic-minted names past the bound (`src/audit/fold.rs` says why and how
//! the names kept are chosen): the same function for a run's state and for a merged one, so
//! that `merge` gives the bytes of one audit.
//!
//! Invariant: a folded state holds at most `kept_names` minted agents (self-declared or
//! list-matched, [`AgentState::minted`]) and at most `kept_names` origins that no robots
//! version names, the ones with the smallest hashes; every other one's counters are in the
//! [`OTHER_AGENTS`] or [`OTHER_ORIGINS`] row, and its hash in the state's sketches.

use std::collections::HashSet;

use crate::audit::fold::{FoldSketch, OTHER_AGENTS, OTHER_ORIGINS, name_hash};
use crate::audit::identity::AgentInfo;
use crate::audit::renumber::IdMap;
use crate::ids::{AgentId, OriginId, VersionId};
use crate::origin::Origin;

use super::{AgentState, State, StateError};

/// How a table is folded: the new position of each old one, the old positions kept (in
/// order), and whether the fold row is new (then it comes last).
struct Plan {
    new_of: Vec<usize>,
    kept: Vec<usize>,
    add_other: bool,
}

/// The plan for `names`, of which `minted` may be folded: the `limit` with the smallest hashes
/// (then bytes) are kept, the others' hashes go into `sketch`. `None` when nothing is folded.
fn plan(
    names: &[&str],
    minted: impl Fn(usize) -> bool,
    limit: usize,
    other: &str,
    sketch: &mut FoldSketch,
) -> Option<Plan> {
    let mut ranked: Vec<(u64, &str, usize)> = (0..names.len())
        .filter(|&i| minted(i))
        .map(|i| (name_hash(names[i].as_bytes()), names[i], i))
        .collect();
    if ranked.len() <= limit {
        return None;
    }
    ranked.sort_unstable();
    let mut demoted = vec![false; names.len()];
    for &(hash, _, i) in &ranked[limit..] {
        demoted[i] = true;
        sketch.insert(hash);
    }
    let mut new_of = vec![0; names.len()];
    let mut kept = Vec::new();
    for (i, &out) in demoted.iter().enumerate() {
        if !out {
            new_of[i] = kept.len();
            kept.push(i);
        }
    }
    let existing = names.iter().position(|&name| name == other);
    let other_at = existing.map_or(kept.len(), |i| new_of[i]);
    for (i, &out) in demoted.iter().enumerate() {
        if out {
            new_of[i] = other_at;
        }
    }
    Some(Plan {
        new_of,
        kept,
        add_other: existing.is_none(),
    })
}

/// The ids of a plan's new positions; `None` keeps the table as it is.
fn ids<Id>(
    plan: Option<&Plan>,
    len: usize,
    id: fn(usize) -> Option<Id>,
) -> Result<Vec<Id>, StateError> {
    (0..len)
        .map(|i| {
            id(plan.map_or(i, |p| p.new_of[i])).ok_or_else(|| {
                StateError::Inconsistent("too many ids for the state's tables".into())
            })
        })
        .collect()
}

impl State {
    /// By origin id: whether it is an origin (not the empty one of lines that named none) that
    /// no robots version names, as the audit looks an origin up (its scheme's timeline, then
    /// the any-scheme one). The [`OTHER_ORIGINS`] row is one.
    pub fn sourceless_origins(&self) -> Vec<bool> {
        let named: HashSet<&str> = self
            .robots
            .versions
            .iter()
            .map(|v| v.origin.as_str())
            .collect();
        self.origins
            .iter()
            .map(|name| {
                !name.is_empty()
                    && !Origin::parse(name).is_ok_and(|o| {
                        named.contains(o.to_string().as_str())
                            || named.contains(o.host_key().as_str())
                    })
            })
            .collect()
    }

    /// The same state with its minted agents and origins past the `kept_names` setting folded
    /// into [`OTHER_AGENTS`] and [`OTHER_ORIGINS`] (counters summed, the folded names' hashes
    /// added to the sketches), in canonical order ([`State::canonical`]).
    pub fn fold(mut self) -> Result<State, StateError> {
        let limit = self.settings.kept_names.max(1);
        let agent_names: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
        let agents = plan(
            &agent_names,
            |i| self.agents[i].minted && self.agents[i].name != OTHER_AGENTS,
            limit,
            OTHER_AGENTS,
            &mut self.folded.agents,
        );
        let origin_names: Vec<&str> = self.origins.iter().map(String::as_str).collect();
        let sourceless = self.sourceless_origins();
        let origins = plan(
            &origin_names,
            |i| sourceless[i] && origin_names[i] != OTHER_ORIGINS,
            limit,
            OTHER_ORIGINS,
            &mut self.folded.origins,
        );
        if agents.is_none() && origins.is_none() {
            return self.canonical();
        }
        let map = IdMap {
            agents: ids(agents.as_ref(), self.agents.len(), AgentId::from_index)?,
            origins: ids(origins.as_ref(), self.origins.len(), OriginId::from_index)?,
            versions: ids(None, self.robots.versions.len(), VersionId::from_index)?,
        };
        if let Some(plan) = &agents {
            let mut table: Vec<AgentState> =
                plan.kept.iter().map(|&i| self.agents[i].clone()).collect();
            if plan.add_other {
                table.push(AgentState::of(&AgentInfo::other_agents()));
            }
            self.agents = table;
        }
        if let Some(plan) = &origins {
            let mut table: Vec<String> =
                plan.kept.iter().map(|&i| self.origins[i].clone()).collect();
            if plan.add_other {
                table.push(OTHER_ORIGINS.to_owned());
            }
            self.origins = table;
        }
        for input in &mut self.inputs {
            input.stats = std::mem::take(&mut input.stats).remap(&map)?;
        }
        self.canonical()
    }
}
