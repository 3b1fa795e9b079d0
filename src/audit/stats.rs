//! Mergeable counters.
//!
//! Every worker thread keeps its own [`Stats`] and they are merged at the end. Merging is
//! associative and commutative (sums, minima, maxima and set unions only), so the result does not
//! depend on how lines were spread over threads, and partial results can be combined later.
//! Every sum of a merge is checked: counters read from report directories may be anything, and
//! a sum past `u64::MAX` is refused ([`CountError::Overflow`]), never wrapped.
//!
//! A night of many virtual hosts holds a [`Counts`] for every bot on every host, so its size is
//! most of the run's memory. Its times are kept as their parts with a sentinel for none
//! (`Times`: 48 bytes rather than four `Option<Timestamp>` of 24), and its robots fetches by
//! status inline while there is one status ([`FetchStatuses`]: no B-tree node of about 140 bytes
//! for the common single `200`). The table of pairs holds each pair's counters in a box: a
//! hash table is between seven sixteenths and seven eighths full, and grows, is merged into
//! another and is renumbered by building a second table beside the first, so with 168 bytes
//! inline every one of those held two tables of 176 bytes a bucket (650,000 pairs: 185 MB
//! each), where a box costs 16 bytes a bucket and one allocation of the counters' size, which
//! moves with its pointer. Invariants: a time held reads back exactly as recorded or read; a
//! [`FetchStatuses`] holds a B-tree only for two or more statuses; and neither form nor the box
//! changes what a merge adds up or how it compares (equality is by content).

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use robots_audit_engine::RuleId;

use super::checked::{CountError, add};
use super::hourly::Hourly;
use super::judge::{Outcome, is_served};
use super::rate::{RateKey, Rates};
use super::renumber::Renumber;
use crate::ids::{AgentId, IdHashMap, OriginId, VersionId};

/// Counters of one agent on one origin (`state.json` holds them as a list of their fields in
/// order: `src/state/json.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Every request, robots fetches included.
    pub requests: u64,
    /// Requests for `/robots.txt`.
    pub robots_fetches: u64,
    /// Judged and allowed.
    pub allowed: u64,
    /// Judged and disallowed: violations.
    pub disallowed: u64,
    /// Violations by requests whose identity was verified (by ranges or by DNS).
    pub disallowed_verified: u64,
    /// Disallowed, but allowed by some version in force during the grace window before.
    pub grace: u64,
    /// Disallowed, but of an agent robots.txt does not bind (not counted with `--strict`).
    pub exempt: u64,
    /// Not robots fetches, and no version in force.
    pub unjudged: u64,
    /// Violations the server answered with 2xx or 304.
    pub violations_served: u64,
    /// Requests from inside the agent's published IP ranges.
    pub verified: u64,
    /// Requests from outside the agent's published IP ranges.
    pub spoofed: u64,
    /// Requests of agents without published ranges.
    pub unverified: u64,
    /// Allowed requests whose usage preference in force says no to the agent's use.
    pub preference_conflicts: u64,
    /// The earliest request, the latest, the earliest violation and the earliest robots fetch
    /// ([`Counts::first_seen`] and the others read them).
    times: Times,
    /// Robots fetches by HTTP status.
    pub robots_fetch_statuses: FetchStatuses,
}

/// The four times of a [`Counts`], each as `jiff`'s two parts (seconds, and nanoseconds of the
/// same sign), which order as the times do. None is a sentinel no time has (`jiff` keeps
/// seconds within about ±4 × 10^11): `i64::MAX` seconds for the three earliest times, so that any
/// time is earlier, and `i64::MIN` for the latest, so that any time is later. The minimum or
/// maximum of a time and none is then a plain comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Times {
    seconds: [i64; 4],
    nanos: [i32; 4],
}

/// The slots of [`Times`].
const FIRST_SEEN: usize = 0;
const LAST_SEEN: usize = 1;
const FIRST_VIOLATION: usize = 2;
const FIRST_ROBOTS_FETCH: usize = 3;

/// What each slot of [`Times`] holds for none.
const NO_TIME: [i64; 4] = [i64::MAX, i64::MIN, i64::MAX, i64::MAX];

impl Default for Times {
    fn default() -> Times {
        Times {
            seconds: NO_TIME,
            nanos: [0; 4],
        }
    }
}

impl Times {
    fn get(&self, slot: usize) -> Option<Timestamp> {
        if self.seconds[slot] == NO_TIME[slot] {
            return None;
        }
        // Every time held was a `Timestamp`'s parts, so this never fails.
        Timestamp::new(self.seconds[slot], self.nanos[slot]).ok()
    }

    fn set(&mut self, slot: usize, time: Option<Timestamp>) {
        (self.seconds[slot], self.nanos[slot]) = match time {
            Some(t) => (t.as_second(), t.subsec_nanosecond()),
            None => (NO_TIME[slot], 0),
        };
    }

    /// Keeps the earlier of the time in `slot` and `(seconds, nanos)`.
    #[inline]
    fn min(&mut self, slot: usize, (seconds, nanos): (i64, i32)) {
        if (seconds, nanos) < (self.seconds[slot], self.nanos[slot]) {
            (self.seconds[slot], self.nanos[slot]) = (seconds, nanos);
        }
    }

    /// Keeps the later of the time in `slot` and `(seconds, nanos)`.
    #[inline]
    fn max(&mut self, slot: usize, (seconds, nanos): (i64, i32)) {
        if (seconds, nanos) > (self.seconds[slot], self.nanos[slot]) {
            (self.seconds[slot], self.nanos[slot]) = (seconds, nanos);
        }
    }

    fn part(&self, slot: usize) -> (i64, i32) {
        (self.seconds[slot], self.nanos[slot])
    }
}

/// Robots fetches by HTTP status, in status order. A bot nearly always gets one status for
/// robots.txt from a host, which is kept inline; two or more go to a B-tree.
#[derive(Debug, Clone, Default)]
pub struct FetchStatuses(Statuses);

#[derive(Debug, Clone, Default)]
enum Statuses {
    #[default]
    None,
    One(u16, u64),
    #[expect(
        clippy::box_collection,
        reason = "boxed, the B-tree takes 8 bytes of every pair's counters rather than 24"
    )]
    Many(Box<BTreeMap<u16, u64>>),
}

impl FetchStatuses {
    /// The statuses and their counts, by status.
    pub fn iter(&self) -> impl Iterator<Item = (u16, u64)> + '_ {
        let (one, many) = match &self.0 {
            Statuses::None => (None, None),
            Statuses::One(status, n) => (Some((*status, *n)), None),
            Statuses::Many(map) => (None, Some(map.iter().map(|(&s, &n)| (s, n)))),
        };
        one.into_iter().chain(many.into_iter().flatten())
    }

    /// The count of `status`.
    pub fn get(&self, status: u16) -> Option<u64> {
        match &self.0 {
            Statuses::None => None,
            Statuses::One(s, n) => (*s == status).then_some(*n),
            Statuses::Many(map) => map.get(&status).copied(),
        }
    }

    /// Whether no status is held.
    pub fn is_empty(&self) -> bool {
        matches!(self.0, Statuses::None)
    }

    /// Adds `n` fetches answered with `status` (kept, with its count, even when `n` is 0).
    pub fn add(&mut self, status: u16, n: u64) -> Result<(), CountError> {
        match &mut self.0 {
            Statuses::None => self.0 = Statuses::One(status, n),
            Statuses::One(s, count) if *s == status => *count = add(*count, n)?,
            Statuses::One(s, count) => {
                let map = BTreeMap::from([(*s, *count), (status, n)]);
                self.0 = Statuses::Many(Box::new(map));
            }
            Statuses::Many(map) => {
                let count = map.entry(status).or_default();
                *count = add(*count, n)?;
            }
        }
        Ok(())
    }

    /// The statuses of a map of them.
    pub fn from_map(map: BTreeMap<u16, u64>) -> FetchStatuses {
        let mut statuses = map.iter();
        FetchStatuses(match (statuses.next(), statuses.next()) {
            (None, _) => Statuses::None,
            (Some((&status, &n)), None) => Statuses::One(status, n),
            (Some(_), Some(_)) => Statuses::Many(Box::new(map)),
        })
    }
}

/// By content: one status inline and the same status alone in a B-tree are equal (a B-tree is
/// only made for two, but equality does not depend on it).
impl PartialEq for FetchStatuses {
    fn eq(&self, other: &FetchStatuses) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for FetchStatuses {}

/// As the map of status to count it stands for.
impl Serialize for FetchStatuses {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for FetchStatuses {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<FetchStatuses, D::Error> {
        BTreeMap::deserialize(deserializer).map(FetchStatuses::from_map)
    }
}

impl Counts {
    /// The earliest request.
    pub fn first_seen(&self) -> Option<Timestamp> {
        self.times.get(FIRST_SEEN)
    }

    /// The latest request.
    pub fn last_seen(&self) -> Option<Timestamp> {
        self.times.get(LAST_SEEN)
    }

    /// The earliest violation.
    pub fn first_violation(&self) -> Option<Timestamp> {
        self.times.get(FIRST_VIOLATION)
    }

    /// The earliest robots fetch.
    pub fn first_robots_fetch(&self) -> Option<Timestamp> {
        self.times.get(FIRST_ROBOTS_FETCH)
    }

    /// Sets the times, in the order of the getters above (as `state.json` reads them).
    pub fn set_times(
        &mut self,
        [first_seen, last_seen, first_violation, first_robots_fetch]: [Option<Timestamp>; 4],
    ) {
        self.times.set(FIRST_SEEN, first_seen);
        self.times.set(LAST_SEEN, last_seen);
        self.times.set(FIRST_VIOLATION, first_violation);
        self.times.set(FIRST_ROBOTS_FETCH, first_robots_fetch);
    }

    /// Requests that could be judged: allowed, disallowed, grace or exempt.
    pub fn judged(&self) -> u64 {
        // Saturating: a merge refuses counters whose sum overflows (see `merge`).
        self.allowed
            .saturating_add(self.disallowed)
            .saturating_add(self.grace)
            .saturating_add(self.exempt)
    }

    /// Records one request.
    pub fn record(&mut self, time: Timestamp, outcome: Outcome, status: u16) {
        let time = (time.as_second(), time.subsec_nanosecond());
        self.requests += 1;
        self.times.min(FIRST_SEEN, time);
        self.times.max(LAST_SEEN, time);
        match outcome {
            Outcome::RobotsFetch => {
                self.robots_fetches += 1;
                self.times.min(FIRST_ROBOTS_FETCH, time);
                // Cannot overflow: `requests`, added to just above, counts at least as many.
                let _ = self.robots_fetch_statuses.add(status, 1);
            }
            Outcome::Unjudged => self.unjudged += 1,
            Outcome::Allowed => self.allowed += 1,
            Outcome::Grace => self.grace += 1,
            Outcome::Exempt => self.exempt += 1,
            Outcome::Disallowed => {
                self.disallowed += 1;
                self.times.min(FIRST_VIOLATION, time);
                self.violations_served += u64::from(is_served(status));
            }
        }
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &Counts) -> Result<(), CountError> {
        self.requests = add(self.requests, other.requests)?;
        self.robots_fetches = add(self.robots_fetches, other.robots_fetches)?;
        self.allowed = add(self.allowed, other.allowed)?;
        self.disallowed = add(self.disallowed, other.disallowed)?;
        self.disallowed_verified = add(self.disallowed_verified, other.disallowed_verified)?;
        self.grace = add(self.grace, other.grace)?;
        self.exempt = add(self.exempt, other.exempt)?;
        self.unjudged = add(self.unjudged, other.unjudged)?;
        self.violations_served = add(self.violations_served, other.violations_served)?;
        self.verified = add(self.verified, other.verified)?;
        self.spoofed = add(self.spoofed, other.spoofed)?;
        self.unverified = add(self.unverified, other.unverified)?;
        self.preference_conflicts = add(self.preference_conflicts, other.preference_conflicts)?;
        // Sums of the counters a report derives (judged, requests less robots fetches) fit too.
        add(self.allowed, self.disallowed)
            .and_then(|n| add(n, self.grace))
            .and_then(|n| add(n, self.exempt))?;
        // None's sentinels lose every comparison (see `Times`).
        self.times.min(FIRST_SEEN, other.times.part(FIRST_SEEN));
        self.times.max(LAST_SEEN, other.times.part(LAST_SEEN));
        self.times
            .min(FIRST_VIOLATION, other.times.part(FIRST_VIOLATION));
        self.times
            .min(FIRST_ROBOTS_FETCH, other.times.part(FIRST_ROBOTS_FETCH));
        for (status, n) in other.robots_fetch_statuses.iter() {
            self.robots_fetch_statuses.add(status, n)?;
        }
        Ok(())
    }
}

/// A new pair's counters, out of line: the allocation and the counters' first values would
/// otherwise be inlined into the per-line path that counts, for one pair in many lines.
#[cold]
#[inline(never)]
fn new_counts() -> Box<Counts> {
    Box::default()
}

/// A rule of a version, or the version's fetch status when that decided (`status 503`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleKey {
    /// The version.
    pub version: VersionId,
    /// The rule (the engine's index into the version's rules); `None`: the fetch status.
    pub rule: Option<RuleId>,
}

/// How often one rule decided, and for whom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleCounts {
    /// Requests this rule decided (allowed or disallowed).
    pub decided: u64,
    /// Violations this rule decided.
    pub violations: u64,
    /// The agents it decided for.
    pub agents: BTreeSet<AgentId>,
}

impl RuleCounts {
    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &RuleCounts) -> Result<(), CountError> {
        self.decided = add(self.decided, other.decided)?;
        self.violations = add(self.violations, other.violations)?;
        self.agents.extend(other.agents.iter().copied());
        Ok(())
    }
}

/// All counters of a run (or of one thread's share of it, or of one input).
///
/// `state.json` keeps one per input (serialised with serde, maps as lists of entries sorted by
/// key), and `merge` renumbers their ids with [`Stats::remap`]. A new counter is carried by
/// both once it is a field here with serde derives, a line in [`Stats::merge`] and one in
/// [`Stats::remap`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Per agent and origin, each pair's counters in a box of their own (see the module docs).
    #[serde(with = "super::entries")]
    pub pairs: IdHashMap<(AgentId, OriginId), Box<Counts>>,
    /// Per deciding rule.
    #[serde(with = "super::entries")]
    pub rules: IdHashMap<RuleKey, RuleCounts>,
    /// Per UTC hour and agent (`hourly.csv`).
    pub hourly: Hourly,
    /// Requests per second of each agent on each origin under a crawl delay (`crawl_rate.csv`).
    pub rates: Rates,
}

impl Stats {
    /// The counters of one agent on one origin, created on first use.
    #[inline]
    pub fn pair(&mut self, agent: AgentId, origin: OriginId) -> &mut Counts {
        self.pairs.entry((agent, origin)).or_insert_with(new_counts)
    }

    /// Adds the counters of a pair, moving them in when the pair is new here.
    fn add_pair(
        &mut self,
        key: (AgentId, OriginId),
        counts: Box<Counts>,
    ) -> Result<(), CountError> {
        match self.pairs.entry(key) {
            Entry::Occupied(mut held) => held.get_mut().merge(&counts),
            Entry::Vacant(slot) => {
                slot.insert(counts);
                Ok(())
            }
        }
    }

    /// Records that `rule` decided a request of `agent`.
    pub fn rule_decided(&mut self, rule: RuleKey, agent: AgentId, violation: bool) {
        let counts = self.rules.entry(rule).or_default();
        counts.decided += 1;
        counts.violations += u64::from(violation);
        counts.agents.insert(agent);
    }

    /// How many counters there are (per pair, rule, hour and crawl-rate key): what
    /// [`Stats::remap`] goes through.
    pub fn entries(&self) -> usize {
        self.pairs.len() + self.rules.len() + self.hourly.len() + self.rates.key_count()
    }

    /// Checks that the counters of every pair summed fit, and with them every sum the reports
    /// make of some pairs: an agent's over its origins (`agents.csv`), an origin's, and the
    /// whole run's (the summary's and `report.html`'s totals).
    pub fn check_sums(&self) -> Result<(), CountError> {
        let mut all = Counts::default();
        for counts in self.pairs.values() {
            all.merge(counts)?;
        }
        Ok(())
    }

    /// Adds `other` into `self`; `self` may be left part-added when a sum overflows.
    pub fn merge(&mut self, mut other: Stats) -> Result<(), CountError> {
        self.drain_from(&mut other)
    }

    /// Adds `other` into `self` and leaves `other` empty, its table of pairs keeping its memory
    /// for the pairs counted next (a worker thread's, moved to the run's shared sum,
    /// `src/audit/tally.rs`); `self` may be left part-added when a sum overflows.
    pub fn drain_from(&mut self, other: &mut Stats) -> Result<(), CountError> {
        for (key, counts) in other.pairs.drain() {
            self.add_pair(key, counts)?;
        }
        for (key, counts) in std::mem::take(&mut other.rules) {
            self.rules.entry(key).or_default().merge(&counts)?;
        }
        self.hourly.merge(&std::mem::take(&mut other.hourly))?;
        self.rates.merge(std::mem::take(&mut other.rates))
    }
}

impl Stats {
    /// The same counters under the ids of `map`, the counters of ids mapped to one id summed.
    /// Distinct ids stay distinct when `map` is one-to-one, which `merge` guarantees (ids are
    /// mapped by name). Taking `self` lets the crawl-rate counts, the one counter that grows
    /// with the times counted, move rather than be copied.
    pub fn remap(self, map: &impl Renumber) -> Result<Stats, CountError> {
        let mut out = Stats::default();
        // The pairs, the largest table, go through a list, so that the old table is freed
        // before the new one is made, and the new one is made at its size at once: building it
        // beside the old by doubling held two and a half tables at the end of a run.
        let mut pairs = Vec::with_capacity(self.pairs.len());
        for ((agent, origin), counts) in self.pairs {
            pairs.push(((map.agent(agent)?, map.origin(origin)?), counts));
        }
        out.pairs.reserve(pairs.len());
        for (key, counts) in pairs {
            out.add_pair(key, counts)?;
        }
        for (key, counts) in &self.rules {
            let key = RuleKey {
                version: map.version(key.version)?,
                rule: key.rule,
            };
            let agents = counts
                .agents
                .iter()
                .map(|&a| map.agent(a))
                .collect::<Result<_, _>>()?;
            out.rules.entry(key).or_default().merge(&RuleCounts {
                decided: counts.decided,
                violations: counts.violations,
                agents,
            })?;
        }
        for (hour, agent, counts) in self.hourly.rows() {
            out.hourly.counts(hour, map.agent(agent)?).merge(&counts)?;
        }
        out.rates = self.rates.map_keys(|key| {
            Ok(RateKey {
                agent: map.agent(key.agent)?,
                origin: map.origin(key.origin)?,
                ..key
            })
        })?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::renumber::IdMap;
    use proptest::prelude::*;
    use robots_audit_bots::Verification;

    fn arb_stats() -> impl Strategy<Value = Stats> {
        let event = (
            0usize..3,
            0usize..3,
            0i64..1_000_000,
            0usize..6,
            prop::sample::select(vec![200u16, 304, 404, 503]),
            0u32..4,
            any::<bool>(),
            prop::option::of(0u32..3),
        );
        prop::collection::vec(event, 0..40).prop_map(|events| {
            let mut stats = Stats::default();
            for (agent, origin, secs, outcome, status, rule, v, delay) in events {
                let time = Timestamp::from_second(secs).unwrap();
                let outcome = Outcome::ALL[outcome];
                let (agent, origin) = (
                    AgentId::from_index(agent).unwrap(),
                    OriginId::from_index(origin).unwrap(),
                );
                let verification = if v {
                    Verification::Verified
                } else {
                    Verification::Spoofed
                };
                let conflict = outcome == Outcome::Allowed && secs % 2 == 0;
                stats
                    .hourly
                    .record(time, agent, outcome, status, verification, conflict);
                if let Some(delay) = delay {
                    let key = RateKey {
                        agent,
                        origin,
                        delay_ms: delay * 5_000,
                    };
                    stats.rates.record(key, secs);
                }
                let counts = stats.pair(agent, origin);
                counts.record(time, outcome, status);
                counts.preference_conflicts += u64::from(conflict);
                if v {
                    counts.verified += 1;
                } else {
                    counts.spoofed += 1;
                }
                let key = RuleKey {
                    version: VersionId::default(),
                    rule: Some(rule),
                };
                stats.rule_decided(key, agent, outcome == Outcome::Disallowed);
            }
            stats
        })
    }

    proptest! {
        #[test]
        fn merge_is_commutative(a in arb_stats(), b in arb_stats()) {
            let mut ab = a.clone();
            ab.merge(b.clone()).unwrap();
            let mut ba = b;
            ba.merge(a).unwrap();
            prop_assert_eq!(ab, ba);
        }

        /// Renumbering by a one-to-one map and back gives the counters back, and renumbering
        /// commutes with merging: what `merge` relies on.
        #[test]
        fn remapping_is_one_to_one_and_commutes_with_merging(a in arb_stats(), b in arb_stats()) {
            let ids = |n: usize| (0..n).rev().collect::<Vec<usize>>();
            let forward = IdMap {
                agents: ids(3).into_iter().map(|i| AgentId::from_index(i + 5).unwrap()).collect(),
                origins: ids(3).into_iter().map(|i| OriginId::from_index(i).unwrap()).collect(),
                versions: vec![VersionId::from_index(2).unwrap()],
            };
            let mut back = IdMap {
                agents: vec![AgentId::default(); 8],
                origins: vec![OriginId::default(); 3],
                versions: vec![VersionId::default(); 3],
            };
            for (old, new) in forward.agents.iter().enumerate() {
                back.agents[new.index()] = AgentId::from_index(old).unwrap();
            }
            for (old, new) in forward.origins.iter().enumerate() {
                back.origins[new.index()] = OriginId::from_index(old).unwrap();
            }
            let there = a.clone().remap(&forward).unwrap();
            prop_assert_eq!(&there.clone().remap(&back).unwrap(), &a);
            let mut merged = a.clone();
            merged.merge(b.clone()).unwrap();
            let mut remapped = there;
            remapped.merge(b.remap(&forward).unwrap()).unwrap();
            prop_assert_eq!(merged.remap(&forward).unwrap(), remapped);
        }

        #[test]
        fn merge_is_associative(a in arb_stats(), b in arb_stats(), c in arb_stats()) {
            let mut left = a.clone();
            left.merge(b.clone()).unwrap();
            left.merge(c.clone()).unwrap();
            let mut bc = b;
            bc.merge(c).unwrap();
            let mut right = a;
            right.merge(bc).unwrap();
            prop_assert_eq!(left, right);
        }
    }

    #[test]
    fn an_id_outside_the_map_is_an_error_not_a_panic() {
        let mut stats = Stats::default();
        stats
            .pair(AgentId::from_index(4).unwrap(), OriginId::default())
            .requests = 1;
        let err = stats.remap(&IdMap::default()).unwrap_err();
        assert!(err.to_string().contains("agent 4"), "{err}");
    }

    #[test]
    fn counters_read_back_as_written() {
        let mut stats = Stats::default();
        let counts = stats.pair(AgentId::default(), OriginId::from_index(2).unwrap());
        counts.record(
            Timestamp::from_second(90).unwrap(),
            Outcome::Disallowed,
            200,
        );
        counts.robots_fetch_statuses.add(503, 2).unwrap();
        let key = RuleKey {
            version: VersionId::default(),
            rule: Some(4),
        };
        stats.rule_decided(key, AgentId::default(), true);
        let json = serde_json::to_string(&stats).unwrap();
        let back: Stats = serde_json::from_str(&json).unwrap();
        assert_eq!(back, stats);
    }

    #[test]
    fn record_counts_each_outcome() {
        let t = |s| Timestamp::from_second(s).unwrap();
        let mut c = Counts::default();
        c.record(t(30), Outcome::RobotsFetch, 200);
        c.record(t(10), Outcome::Disallowed, 200);
        c.record(t(20), Outcome::Disallowed, 404);
        c.record(t(40), Outcome::Allowed, 200);
        c.record(t(50), Outcome::Grace, 200);
        c.record(t(60), Outcome::Exempt, 200);
        c.record(t(5), Outcome::Unjudged, 200);
        assert_eq!(
            (
                c.requests,
                c.robots_fetches,
                c.judged(),
                c.disallowed,
                c.exempt,
                c.violations_served
            ),
            (7, 1, 5, 2, 1, 1)
        );
        assert_eq!(
            c.judged(),
            c.allowed + c.disallowed + c.grace + c.exempt,
            "judged is the sum of its outcomes"
        );
        assert_eq!(
            (c.first_seen(), c.last_seen(), c.first_violation()),
            (Some(t(5)), Some(t(60)), Some(t(10)))
        );
        assert_eq!(c.robots_fetch_statuses.get(200), Some(1));
    }

    /// Times at the ends of what `jiff` holds, with fractions of either sign, read back as
    /// recorded, and order as `Timestamp`s do.
    #[test]
    fn times_read_back_exactly_and_order_as_timestamps() {
        let times = [
            Timestamp::MIN,
            Timestamp::new(-1, -500_000_000).unwrap(),
            Timestamp::new(0, -1).unwrap(),
            Timestamp::UNIX_EPOCH,
            Timestamp::new(0, 1).unwrap(),
            Timestamp::new(1_795_132_800, 123_456_789).unwrap(),
            Timestamp::MAX,
        ];
        for &a in &times {
            let mut c = Counts::default();
            assert_eq!(c.first_seen(), None);
            c.record(a, Outcome::RobotsFetch, 200);
            assert_eq!(
                (c.first_seen(), c.last_seen(), c.first_robots_fetch()),
                (Some(a), Some(a), Some(a))
            );
            for &b in &times {
                let mut d = c.clone();
                d.record(b, Outcome::Disallowed, 200);
                assert_eq!(d.first_seen(), Some(a.min(b)), "{a} {b}");
                assert_eq!(d.last_seen(), Some(a.max(b)), "{a} {b}");
                assert_eq!(d.first_violation(), Some(b));
            }
        }
        let mut set = Counts::default();
        set.set_times([Some(times[1]), None, Some(times[6]), None]);
        assert_eq!(
            (
                set.first_seen(),
                set.last_seen(),
                set.first_violation(),
                set.first_robots_fetch()
            ),
            (Some(times[1]), None, Some(times[6]), None)
        );
    }

    proptest! {
        /// Statuses kept inline (one) or in a B-tree (several) add up as a map of them does,
        /// in any order and split, compare by content, and serialise as the map.
        #[test]
        fn fetch_statuses_merge_as_a_map(
            parts in prop::collection::vec(
                prop::collection::vec((prop::sample::select(vec![200u16, 304, 404, 503]), 0u64..5), 0..4),
                0..4,
            ),
        ) {
            let mut expected: BTreeMap<u16, u64> = BTreeMap::new();
            let mut forward = FetchStatuses::default();
            let mut backward = FetchStatuses::default();
            for part in &parts {
                let mut counts = Counts::default();
                for &(status, n) in part {
                    *expected.entry(status).or_default() += n;
                    counts.robots_fetch_statuses.add(status, n).unwrap();
                }
                let mut with = Counts { robots_fetch_statuses: forward, ..Counts::default() };
                with.merge(&counts).unwrap();
                forward = with.robots_fetch_statuses;
            }
            for part in parts.iter().rev() {
                for &(status, n) in part {
                    backward.add(status, n).unwrap();
                }
            }
            let as_map: BTreeMap<u16, u64> = forward.iter().collect();
            prop_assert_eq!(&as_map, &expected);
            prop_assert_eq!(&forward, &backward);
            prop_assert_eq!(&forward, &FetchStatuses::from_map(expected.clone()));
            prop_assert_eq!(
                serde_json::to_string(&forward).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
            let back: FetchStatuses = serde_json::from_str(&serde_json::to_string(&forward).unwrap()).unwrap();
            prop_assert_eq!(back, forward);
        }
    }

    /// One status in a B-tree (which `FetchStatuses` never makes, but equality must not
    /// depend on that) equals the same status inline.
    #[test]
    fn fetch_statuses_compare_by_content() {
        let inline = FetchStatuses::from_map(BTreeMap::from([(200, 3)]));
        let tree = FetchStatuses(Statuses::Many(Box::new(BTreeMap::from([(200, 3)]))));
        assert_eq!(inline, tree);
        assert_ne!(inline, FetchStatuses::default());
    }

    /// What the compact forms are for: a pair's counters stay within 168 bytes (they were 224).
    #[test]
    fn counts_stay_small() {
        assert!(
            std::mem::size_of::<Counts>() <= 168,
            "{}",
            std::mem::size_of::<Counts>()
        );
    }
}
