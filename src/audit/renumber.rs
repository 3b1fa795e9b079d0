//! New ids for old ones: the counters of one run under the ids of another.
//!
//! `merge` renumbers a whole table ([`IdMap`], by position), and a run folds the few ids its
//! bounded tables retired into their fold rows (`Folding`, `src/audit/fold.rs`); `Stats::remap`
//! (`src/audit/stats.rs`) takes either through [`Renumber`]. This module depends on the ids
//! alone, so that the counters and the bounded tables both use it without depending on each
//! other.

use super::checked::CountError;
use crate::ids::{AgentId, OriginId, VersionId};

/// How the ids of one run map to those of another (`merge`): by position, the new id of each
/// agent, origin and robots version of the run the counters come from.
#[derive(Debug, Clone, Default)]
pub struct IdMap {
    /// New id of each agent.
    pub agents: Vec<AgentId>,
    /// New id of each origin.
    pub origins: Vec<OriginId>,
    /// New id of each robots version.
    pub versions: Vec<VersionId>,
}

/// New ids for old ones, as `Stats::remap` asks for them: a whole table renumbered ([`IdMap`]),
/// or a few ids folded into a fold row (`src/audit/fold.rs`).
pub trait Renumber {
    /// The new id of `agent`; an error names an id outside the table (a corrupt state).
    fn agent(&self, agent: AgentId) -> Result<AgentId, CountError>;

    /// The new id of `origin`.
    fn origin(&self, origin: OriginId) -> Result<OriginId, CountError>;

    /// The new id of `version`.
    fn version(&self, version: VersionId) -> Result<VersionId, CountError>;
}

impl Renumber for IdMap {
    fn agent(&self, agent: AgentId) -> Result<AgentId, CountError> {
        self.agents
            .get(agent.index())
            .copied()
            .ok_or(unknown_id("agent", agent.index()))
    }

    fn origin(&self, origin: OriginId) -> Result<OriginId, CountError> {
        self.origins
            .get(origin.index())
            .copied()
            .ok_or(unknown_id("origin", origin.index()))
    }

    fn version(&self, version: VersionId) -> Result<VersionId, CountError> {
        self.versions
            .get(version.index())
            .copied()
            .ok_or(unknown_id("robots version", version.index()))
    }
}

fn unknown_id(kind: &'static str, index: usize) -> CountError {
    CountError::UnknownId {
        kind,
        id: u32::try_from(index).unwrap_or(u32::MAX),
    }
}
