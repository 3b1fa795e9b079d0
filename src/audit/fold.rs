//! Bounds on the names that traffic mints: self-declared and list-matched agents, and origins
//! without a robots source.
//!
//! Any line can name a new bot (`Bot0000001Bot/1.0`) or a new virtual host, so a run keeps at
//! most [`KEPT_NAMES`] of each kind (a setting of the state) and counts the rest in one row,
//! [`OTHER_AGENTS`] or [`OTHER_ORIGINS`]. Which names are kept depends on the names alone: the
//! `limit` names with the smallest [`name_hash`] (ties by the name's bytes). The smallest
//! `limit` of a union are always among the smallest `limit` of each of its parts, so a name kept
//! in the end was kept, with its complete counters, by every thread, input and merged report
//! that saw it, and folding the parts' other names gives what one run over everything gives.
//!
//! During a run, [`Admission`] keeps the smallest names seen so far: a name whose hash is above
//! the current `limit`-th goes straight to the fold row and is never stored; a name pushed out
//! by a smaller one is retired: its table forgets it and logs its id ([`Retired`]), and each
//! worker thread, at the end of its next block, forgets what it cached of it and, once its
//! counters have doubled since it last did, moves what it counted under the retired ids to the
//! fold row ([`Folding`], `Tally::fold_retired` in `src/audit/tally.rs`), so that names arriving
//! in an order that pushes out one name per line (decreasing hashes) cost at most twice the
//! memory of any other order, and moving costs each entry a few times in all rather than once
//! per block. What a thread did not move is moved when the run ends.
//! How many names were folded is counted by a [`FoldSketch`]: the smallest `limit` hashes of
//! the folded names, exact while it is not full and an estimate from the largest of its hashes
//! once it is, mergeable by the same argument.

use std::collections::{BTreeMap, BTreeSet};

use ahash::AHashSet;
use serde::{Deserialize, Serialize};

use super::checked::CountError;
use super::renumber::Renumber;
use crate::ids::{AgentId, OriginId, VersionId};

/// How many distinct names of each kind a run keeps by default (`state.json` records it as the
/// `kept_names` setting).
pub const KEPT_NAMES: usize = 10_000;

/// The row that counts the self-declared and list-matched agents past the bound.
pub const OTHER_AGENTS: &str = "(other self-declared bots)";

/// The row that counts the origins without a robots source past the bound.
pub const OTHER_ORIGINS: &str = "(other origins)";

/// The hash that ranks names: XXH3-64 (seed 0) of the name's bytes. Fixed and documented, so
/// that reports of different runs and machines keep the same names and merge.
pub fn name_hash(name: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(name)
}

/// What [`Admission::admit`] decided for a new name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit<Id> {
    /// Kept under the id given.
    Kept,
    /// Kept under the id given, pushing out the name that had this id: that name is folded.
    KeptPushingOut(Id),
    /// Not kept: counted in the fold row.
    Folded,
}

/// The smallest names seen so far, by [`name_hash`] then bytes, at most `limit` of them.
#[derive(Debug, Clone)]
pub struct Admission<Id> {
    limit: usize,
    kept: BTreeMap<(u64, Box<str>), Id>,
    /// The folded names' smallest hashes.
    folded: FoldSketch,
}

impl<Id: Copy> Admission<Id> {
    /// Keeps at most `limit` names (at least 1).
    pub fn new(limit: usize) -> Admission<Id> {
        Admission {
            limit: limit.max(1),
            kept: BTreeMap::new(),
            folded: FoldSketch::new(limit),
        }
    }

    /// Whether a new name would fold or push one out: the fold row is then needed.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= self.limit
    }

    /// Decides for `name`, not seen before, which would get `id`.
    pub fn admit(&mut self, name: &str, id: Id) -> Admit<Id> {
        let key = (name_hash(name.as_bytes()), Box::from(name));
        if self.kept.len() >= self.limit {
            let largest = self.kept.last_key_value().map(|(k, _)| k);
            if largest.is_none_or(|largest| key >= *largest) {
                self.folded.insert(key.0);
                return Admit::Folded;
            }
        }
        self.kept.insert(key, id);
        if self.kept.len() <= self.limit {
            return Admit::Kept;
        }
        match self.kept.pop_last() {
            Some(((hash, _), out)) => {
                self.folded.insert(hash);
                Admit::KeptPushingOut(out)
            }
            None => Admit::Kept,
        }
    }

    /// The hashes of the names folded so far.
    pub fn into_folded(self) -> FoldSketch {
        self.folded
    }
}

/// The ids a table retired during the run, in the order it retired them, and its fold row
/// (which exists once an id was retired).
#[derive(Debug, Clone)]
pub struct Retired<Id> {
    /// Every id retired so far.
    pub ids: Vec<Id>,
    /// The fold row's id.
    pub other: Option<Id>,
}

impl<Id> Default for Retired<Id> {
    fn default() -> Retired<Id> {
        Retired {
            ids: Vec::new(),
            other: None,
        }
    }
}

/// A table's entries without the retired ones, with the new position of each old one (a
/// retired one's is its fold row's); `None` when none was retired, the table then unchanged.
pub fn without_retired<T, Id: Copy>(
    entries: Vec<T>,
    retired: &Retired<Id>,
    index: fn(Id) -> usize,
) -> (Vec<T>, Option<Vec<usize>>) {
    let Some(other) = retired.other.filter(|_| !retired.ids.is_empty()) else {
        return (entries, None);
    };
    let mut is_retired = vec![false; entries.len()];
    for &out in &retired.ids {
        if let Some(flag) = is_retired.get_mut(index(out)) {
            *flag = true;
        }
    }
    let mut kept = Vec::new();
    let mut new_index = vec![0; entries.len()];
    for (i, entry) in entries.into_iter().enumerate() {
        if !is_retired[i] {
            new_index[i] = kept.len();
            kept.push(entry);
        }
    }
    let other_at = new_index.get(index(other)).copied().unwrap_or_default();
    for (at, &out) in new_index.iter_mut().zip(&is_retired) {
        if out {
            *at = other_at;
        }
    }
    (kept, Some(new_index))
}

/// Retired agents and origins with their fold rows: the renumbering that moves their counters
/// into the fold rows, every other id staying as it is.
#[derive(Debug, Clone, Default)]
pub struct Folding {
    agents: AHashSet<AgentId>,
    other_agent: Option<AgentId>,
    origins: AHashSet<OriginId>,
    other_origin: Option<OriginId>,
}

impl Folding {
    /// Adds retired agents, `other` being their fold row.
    pub fn agents(&mut self, ids: &[AgentId], other: Option<AgentId>) {
        self.agents.extend(ids.iter().copied());
        self.other_agent = other.or(self.other_agent);
    }

    /// Adds retired origins, `other` being their fold row.
    pub fn origins(&mut self, ids: &[OriginId], other: Option<OriginId>) {
        self.origins.extend(ids.iter().copied());
        self.other_origin = other.or(self.other_origin);
    }

    /// Adds the retired ids of `other`, whose fold rows are the same as these (a run has one of
    /// each kind).
    pub fn extend(&mut self, other: &Folding) {
        self.agents.extend(other.agents.iter().copied());
        self.origins.extend(other.origins.iter().copied());
        self.other_agent = other.other_agent.or(self.other_agent);
        self.other_origin = other.other_origin.or(self.other_origin);
    }

    /// Whether no id is retired.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.origins.is_empty()
    }

    /// Whether some agent is retired.
    pub fn has_agents(&self) -> bool {
        !self.agents.is_empty()
    }

    /// Whether some origin is retired.
    pub fn has_origins(&self) -> bool {
        !self.origins.is_empty()
    }

    /// The retired agents.
    pub fn retired_agents(&self) -> impl Iterator<Item = AgentId> + '_ {
        self.agents.iter().copied()
    }

    /// Whether `agent` is retired.
    pub fn is_retired(&self, agent: AgentId) -> bool {
        self.agents.contains(&agent)
    }
}

/// A retired id without a fold row to go to: the tables never retire one before making it.
fn no_fold_row(kind: &'static str, index: usize) -> CountError {
    CountError::UnknownId {
        kind,
        id: u32::try_from(index).unwrap_or(u32::MAX),
    }
}

impl Renumber for Folding {
    fn agent(&self, agent: AgentId) -> Result<AgentId, CountError> {
        if !self.agents.contains(&agent) {
            return Ok(agent);
        }
        self.other_agent
            .ok_or_else(|| no_fold_row("agent", agent.index()))
    }

    fn origin(&self, origin: OriginId) -> Result<OriginId, CountError> {
        if !self.origins.contains(&origin) {
            return Ok(origin);
        }
        self.other_origin
            .ok_or_else(|| no_fold_row("origin", origin.index()))
    }

    fn version(&self, version: VersionId) -> Result<VersionId, CountError> {
        Ok(version)
    }
}

/// The smallest hashes of the folded names of one kind, at most `limit`: a count of distinct
/// folded names that is exact while fewer than `limit` were folded, and past that an estimate
/// (the k-minimum-values estimator), the same for any split of the names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldSketch {
    /// At most this many hashes are kept.
    pub limit: usize,
    /// The hashes, ascending.
    pub hashes: BTreeSet<u64>,
}

/// What a run or a report folded: the sketches of the agents and of the origins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folded {
    /// Self-declared and list-matched agents.
    pub agents: FoldSketch,
    /// Origins without a robots source.
    pub origins: FoldSketch,
}

/// How many distinct names were folded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldCount {
    /// Exactly this many (ties of the 64-bit hash aside).
    Exact(u64),
    /// About this many: an estimate with a relative standard error of about
    /// `1 / sqrt(limit)`.
    About(u64),
}

impl FoldCount {
    /// The count, exact or estimated.
    pub fn value(self) -> u64 {
        match self {
            FoldCount::Exact(n) | FoldCount::About(n) => n,
        }
    }
}

impl FoldSketch {
    /// An empty sketch of at most `limit` hashes (at least 1).
    pub fn new(limit: usize) -> FoldSketch {
        FoldSketch {
            limit: limit.max(1),
            hashes: BTreeSet::new(),
        }
    }

    /// Adds the hash of a folded name.
    pub fn insert(&mut self, hash: u64) {
        if self.hashes.len() >= self.limit
            && self.hashes.last().is_some_and(|&largest| hash >= largest)
        {
            return;
        }
        self.hashes.insert(hash);
        if self.hashes.len() > self.limit {
            self.hashes.pop_last();
        }
    }

    /// Adds the hashes of another sketch.
    pub fn merge(&mut self, other: &FoldSketch) {
        for &hash in &other.hashes {
            self.insert(hash);
        }
    }

    /// How many distinct names were folded, `kept` names being kept beside them: exact while
    /// the sketch is not full; else `kept + limit` names had a hash up to the largest kept here,
    /// which puts the number of all names near `(kept + limit - 1) / (largest / 2^64)`.
    pub fn count(&self, kept: usize) -> FoldCount {
        let held = self.hashes.len() as u64;
        let Some(&largest) = self.hashes.last() else {
            return FoldCount::Exact(0);
        };
        if self.hashes.len() < self.limit {
            return FoldCount::Exact(held);
        }
        let ranked = (kept + self.limit) as f64;
        let fraction = (largest as f64 + 1.0) / 2f64.powi(64);
        let all = ((ranked - 1.0) / fraction).round();
        // Never fewer than the hashes held: the estimate can only err above that.
        let folded = (all - kept as f64).max(held as f64);
        FoldCount::About(if folded >= u64::MAX as f64 {
            u64::MAX
        } else {
            folded as u64
        })
    }

    /// Whether the sketch is one this tool writes: at most `limit` hashes.
    pub fn is_valid(&self, limit: usize) -> bool {
        self.limit == limit.max(1) && self.hashes.len() <= self.limit
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// XXH3-64 of the empty input, from the reference implementation's test vectors: the
    /// hash must never change, or reports of different releases would keep different names.
    #[test]
    fn the_hash_is_xxh3_64_of_the_bytes() {
        assert_eq!(name_hash(b""), 0x2D06_8005_38D3_94C2);
    }

    /// The names kept and pushed out, one by one, with a limit of 3.
    #[test]
    fn the_smallest_names_are_kept_whatever_the_order() {
        let mut names: Vec<String> = (0..5).map(|i| format!("bot{i}")).collect();
        names.sort_by_key(|n| name_hash(n.as_bytes()));
        let smallest: BTreeSet<&str> = names[..3].iter().map(String::as_str).collect();
        for order in [
            vec![4, 3, 2, 1, 0],
            vec![0, 1, 2, 3, 4],
            vec![3, 0, 4, 1, 2],
        ] {
            let mut admission = Admission::new(3);
            let mut kept: BTreeSet<&str> = BTreeSet::new();
            for (id, &i) in order.iter().enumerate() {
                let name = names[i].as_str();
                match admission.admit(name, id) {
                    Admit::Kept => {
                        kept.insert(name);
                    }
                    Admit::KeptPushingOut(out) => {
                        kept.insert(name);
                        kept.remove(names[order[out]].as_str());
                    }
                    Admit::Folded => {}
                }
            }
            assert_eq!(kept, smallest, "{order:?}");
            // Two folded: fewer than the sketch holds, so counted exactly.
            assert_eq!(admission.into_folded().count(3), FoldCount::Exact(2));
        }
    }

    #[test]
    fn a_full_sketch_estimates_the_count() {
        let mut sketch = FoldSketch::new(1_000);
        let n = 200_000u64;
        for i in 0..n {
            sketch.insert(name_hash(format!("Bot{i:07}Bot").as_bytes()));
        }
        let FoldCount::About(estimate) = sketch.count(0) else {
            panic!("a full sketch is an estimate");
        };
        // 1,000 hashes: a standard error of about 3 %; 10 % is over three of them.
        assert!(estimate.abs_diff(n) < n / 10, "{estimate}");
    }

    proptest! {
        /// Sketches of any split of the hashes, merged, are the sketch of all of them.
        #[test]
        fn sketches_merge_exactly(
            hashes in prop::collection::vec(any::<u64>(), 0..60),
            split in prop::collection::vec(0usize..3, 60),
            limit in 1usize..20,
        ) {
            let mut whole = FoldSketch::new(limit);
            let mut parts = vec![FoldSketch::new(limit); 3];
            for (&hash, &part) in hashes.iter().zip(&split) {
                whole.insert(hash);
                parts[part].insert(hash);
            }
            let mut merged = FoldSketch::new(limit);
            for part in parts.iter().rev() {
                merged.merge(part);
            }
            prop_assert_eq!(&merged, &whole);
            let distinct: BTreeSet<u64> = hashes.iter().copied().collect();
            if distinct.len() < limit {
                prop_assert_eq!(whole.count(0), FoldCount::Exact(distinct.len() as u64));
            }
        }
    }
}
