//! Mergeable counters per UTC hour and agent: what `hourly.csv` shows.
//!
//! Every request counted here has a time: a line whose time cannot be read is skipped by the
//! parser (`bad_time` in `skipped_lines.csv`) and never reaches the audit, so the hours of an
//! agent hold all of its requests and add up to its row of `agents.csv` (docs/contract.md,
//! "hourly.csv"). An hour is the request's seconds since the epoch divided by 3600, rounded
//! down (towards the past for times before 1970 as well).
//!
//! Counting is on the per-line hot path, so it costs a few instructions per request: each agent
//! remembers the last hour it was counted in and that hour's slot in a flat vector, and only a
//! request in another hour than the agent's previous one looks its slot up in a hash map. A
//! night's log is ordered by time, so that happens about once per agent and hour.
//!
//! Invariant: `index` maps every `(hour, agent)` of `slots` to its position, and `recent`
//! holds, per agent index, an hour and a slot that `index` agrees with (or `NO_HOUR`).

use ahash::AHashMap;
use jiff::Timestamp;

use robots_audit_bots::Verification;

use super::checked::{CountError, add};
use super::judge::{Outcome, is_served};
use crate::ids::AgentId;

/// Hours since the epoch (1970-01-01T00:00:00Z is hour 0).
pub type Hour = i64;

/// The second a request at `time` falls in (seconds since the epoch), rounded down.
#[inline]
pub fn second_of(time: Timestamp) -> i64 {
    // `jiff` keeps a fraction with the sign of the seconds and `as_second` drops it, rounding
    // towards zero: a time before 1970 with a fraction would count in the second after its own
    // (1969-12-31T23:59:59.5 in 1970's first second, minute and hour).
    time.as_second() - i64::from(time.subsec_nanosecond() < 0)
}

/// The hour a request at `time` falls in.
#[inline]
pub fn hour_of(time: Timestamp) -> Hour {
    second_of(time).div_euclid(3600)
}

/// Whether [`hour_of`] gives `hour` for some time: a state read from a file holds no other.
pub fn is_hour(hour: Hour) -> bool {
    (hour_of(Timestamp::MIN)..=hour_of(Timestamp::MAX)).contains(&hour)
}

/// The start of `hour`, as `hourly.csv` writes it: for the first hour of all, which starts before
/// the first time `jiff` represents, that time; `None` for no hour of [`is_hour`].
pub fn hour_start(hour: Hour) -> Option<Timestamp> {
    if !is_hour(hour) {
        return None;
    }
    let start = hour.checked_mul(3600)?.max(Timestamp::MIN.as_second());
    Timestamp::from_second(start).ok()
}

/// One agent's counters in one hour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HourCounts {
    /// Every request, robots fetches included.
    pub requests: u64,
    /// Requests for `/robots.txt`.
    pub robots_fetches: u64,
    /// Judged and allowed.
    pub allowed: u64,
    /// Judged and disallowed: violations.
    pub disallowed: u64,
    /// Disallowed only by a version younger than the grace period.
    pub grace: u64,
    /// Disallowed, by an agent whose operator documents that robots.txt does not bind it.
    pub exempt: u64,
    /// Not robots fetches, and no version in force.
    pub unjudged: u64,
    /// Violations the server answered with 2xx or 304.
    pub violations_served: u64,
    /// Requests from outside the agent's published IP ranges.
    pub spoofed: u64,
    /// Allowed requests whose usage preference in force says no to the agent's use.
    pub preference_conflicts: u64,
}

/// The fields in order, without their names: how `state.json` holds them, and how
/// [`HourCounts::merge`] adds them.
impl From<HourCounts> for [u64; 10] {
    fn from(c: HourCounts) -> [u64; 10] {
        [
            c.requests,
            c.robots_fetches,
            c.allowed,
            c.disallowed,
            c.grace,
            c.exempt,
            c.unjudged,
            c.violations_served,
            c.spoofed,
            c.preference_conflicts,
        ]
    }
}

impl From<[u64; 10]> for HourCounts {
    fn from(fields: [u64; 10]) -> HourCounts {
        let [
            requests,
            robots_fetches,
            allowed,
            disallowed,
            grace,
            exempt,
            unjudged,
            violations_served,
            spoofed,
            preference_conflicts,
        ] = fields;
        HourCounts {
            requests,
            robots_fetches,
            allowed,
            disallowed,
            grace,
            exempt,
            unjudged,
            violations_served,
            spoofed,
            preference_conflicts,
        }
    }
}

impl HourCounts {
    /// Requests that could be judged: allowed, disallowed, grace or exempt.
    pub fn judged(&self) -> u64 {
        // Saturating: a merge refuses counters whose sum overflows (see `merge`).
        self.allowed
            .saturating_add(self.disallowed)
            .saturating_add(self.grace)
            .saturating_add(self.exempt)
    }

    #[inline]
    fn record(
        &mut self,
        outcome: Outcome,
        status: u16,
        verification: Verification,
        conflict: bool,
    ) {
        self.requests += 1;
        self.preference_conflicts += u64::from(conflict);
        self.spoofed += u64::from(verification == Verification::Spoofed);
        match outcome {
            Outcome::RobotsFetch => self.robots_fetches += 1,
            Outcome::Unjudged => self.unjudged += 1,
            Outcome::Allowed => self.allowed += 1,
            Outcome::Grace => self.grace += 1,
            Outcome::Exempt => self.exempt += 1,
            Outcome::Disallowed => {
                self.disallowed += 1;
                self.violations_served += u64::from(is_served(status));
            }
        }
    }

    /// Adds `other` into `self`: every field is a count, so field by field, each sum checked
    /// (and `judged`'s too); `self` is unchanged when one overflows.
    pub fn merge(&mut self, other: &HourCounts) -> Result<(), CountError> {
        let mut sum: [u64; 10] = (*self).into();
        let other: [u64; 10] = (*other).into();
        for (field, more) in sum.iter_mut().zip(other) {
            *field = add(*field, more)?;
        }
        let merged = HourCounts::from(sum);
        add(merged.allowed, merged.disallowed)
            .and_then(|n| add(n, merged.grace))
            .and_then(|n| add(n, merged.exempt))?;
        *self = merged;
        Ok(())
    }
}

/// The recent hour of an agent not counted yet: no request falls in it, as `jiff` times lie
/// within some ten thousand years of the epoch.
const NO_HOUR: Hour = Hour::MIN;

/// The counters of every (hour, agent) with a request, of a run or of one thread's share of it.
#[derive(Debug, Clone, Default)]
pub struct Hourly {
    /// The counters, in the order their (hour, agent) was first seen.
    slots: Vec<((Hour, AgentId), HourCounts)>,
    /// Position in `slots` of each (hour, agent).
    index: AHashMap<(Hour, AgentId), u32>,
    /// By agent index: the hour it was last counted in and that hour's position in `slots`.
    recent: Vec<(Hour, u32)>,
}

impl Hourly {
    /// Counts one request of `agent` at `time`.
    #[inline]
    pub fn record(
        &mut self,
        time: Timestamp,
        agent: AgentId,
        outcome: Outcome,
        status: u16,
        verification: Verification,
        conflict: bool,
    ) {
        let hour = hour_of(time);
        let slot = match self.recent.get(agent.index()) {
            Some(&(last, slot)) if last == hour => slot,
            _ => self.recent_slot(hour, agent),
        };
        if let Some((_, counts)) = self.slots.get_mut(slot as usize) {
            counts.record(outcome, status, verification, conflict);
        }
    }

    /// The slot of (`hour`, `agent`), created on first use.
    fn slot(&mut self, hour: Hour, agent: AgentId) -> u32 {
        let slots = &mut self.slots;
        *self.index.entry((hour, agent)).or_insert_with(|| {
            slots.push(((hour, agent), HourCounts::default()));
            // Four thousand million (hour, agent) pairs would not fit in memory long before.
            u32::try_from(slots.len() - 1).unwrap_or(u32::MAX)
        })
    }

    /// The slot of (`hour`, `agent`), created on first use, remembered as the agent's recent one.
    /// Only counting a request remembers it: the audit's agent ids index its own table, while
    /// the ids of a `state.json` being read are not checked yet, and one near `u32::MAX` would
    /// make `recent` tens of gigabytes.
    #[cold]
    fn recent_slot(&mut self, hour: Hour, agent: AgentId) -> u32 {
        let slot = self.slot(hour, agent);
        let at = agent.index();
        if self.recent.len() <= at {
            self.recent.resize(at + 1, (NO_HOUR, 0));
        }
        self.recent[at] = (hour, slot);
        slot
    }

    /// The counters of `agent` in `hour`, created on first use.
    pub fn counts(&mut self, hour: Hour, agent: AgentId) -> &mut HourCounts {
        let slot = self.slot(hour, agent) as usize;
        &mut self.slots[slot].1
    }

    /// Adds `other` into `self`: the counters of each (hour, agent) add.
    pub fn merge(&mut self, other: &Hourly) -> Result<(), CountError> {
        for &((hour, agent), ref counts) in &other.slots {
            self.counts(hour, agent).merge(counts)?;
        }
        Ok(())
    }

    /// Every (hour, agent) with its counters, by hour then agent id.
    pub fn rows(&self) -> Vec<(Hour, AgentId, HourCounts)> {
        let mut rows: Vec<_> = self
            .slots
            .iter()
            .map(|&((hour, agent), counts)| (hour, agent, counts))
            .collect();
        rows.sort_unstable_by_key(|&(hour, agent, _)| (hour, agent));
        rows
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// How many (hour, agent) pairs were counted.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
}

/// Two counters are equal when they hold the same counts, whatever order the threads saw the
/// hours in.
impl PartialEq for Hourly {
    fn eq(&self, other: &Hourly) -> bool {
        self.slots.len() == other.slots.len() && self.rows() == other.rows()
    }
}

impl Eq for Hourly {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn agent(i: usize) -> AgentId {
        AgentId::from_index(i).unwrap()
    }

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(second).unwrap()
    }

    type Event = (usize, i64, usize, u16, bool);

    fn count(events: &[Event]) -> Hourly {
        let mut hourly = Hourly::default();
        for &(a, second, outcome, status, spoofed) in events {
            let verification = if spoofed {
                Verification::Spoofed
            } else {
                Verification::Verified
            };
            hourly.record(
                at(second),
                agent(a),
                Outcome::ALL[outcome],
                status,
                verification,
                Outcome::ALL[outcome] == Outcome::Allowed && second % 3 == 0,
            );
        }
        hourly
    }

    fn events() -> impl Strategy<Value = Vec<Event>> {
        prop::collection::vec(
            (
                0usize..4,
                -20_000i64..20_000,
                0..Outcome::ALL.len(),
                prop::sample::select(vec![200u16, 304, 404, 503]),
                any::<bool>(),
            ),
            0..60,
        )
    }

    #[test]
    fn hours_round_down_before_and_after_the_epoch() {
        assert_eq!(hour_of(at(0)), 0);
        assert_eq!(hour_of(at(3599)), 0);
        assert_eq!(hour_of(at(3600)), 1);
        assert_eq!(hour_of(at(-1)), -1);
        let before_the_epoch = Timestamp::new(0, -500_000_000).unwrap();
        assert_eq!(second_of(before_the_epoch), -1);
        assert_eq!(hour_of(before_the_epoch), -1);
        assert_eq!(second_of(Timestamp::new(-1, -750_000_000).unwrap()), -2);
        assert_eq!(second_of(Timestamp::new(1, 750_000_000).unwrap()), 1);
        assert_eq!(hour_start(-1), Some(at(-3600)));
        assert_eq!(hour_start(i64::MAX), None);
    }

    /// The hours of the first and the last times `jiff` represents are hours; none outside
    /// them is, and the first starts at the first time.
    #[test]
    fn the_hours_are_those_of_the_times_jiff_represents() {
        let (first, last) = (hour_of(Timestamp::MIN), hour_of(Timestamp::MAX));
        for (hour, is, start) in [
            (first - 1, false, None),
            (first, true, Some(Timestamp::MIN)),
            (first + 1, true, Some(at((first + 1) * 3600))),
            (0, true, Some(at(0))),
            (last, true, Some(at(last * 3600))),
            (last + 1, false, None),
            (i64::MIN, false, None),
            (i64::MAX, false, None),
        ] {
            assert_eq!(
                (is_hour(hour), hour_start(hour)),
                (is, start),
                "hour {hour}"
            );
        }
    }

    #[test]
    fn a_request_counts_in_its_own_hour_and_agent() {
        // Agent 0 at 00:59:59, 01:00:00 and back in hour 0; agent 1 interleaved.
        let hourly = count(&[
            (0, 3599, 3, 200, false),
            (1, 3599, 2, 200, true),
            (0, 3600, 0, 200, false),
            (0, 10, 3, 404, false),
            (1, 3700, 4, 200, false),
        ]);
        let rows = hourly.rows();
        let expect =
            |requests, robots_fetches, allowed, disallowed, grace, served, spoofed| HourCounts {
                requests,
                robots_fetches,
                allowed,
                disallowed,
                grace,
                exempt: 0,
                unjudged: 0,
                violations_served: served,
                spoofed,
                preference_conflicts: 0,
            };
        assert_eq!(
            rows,
            [
                (0, agent(0), expect(2, 0, 0, 2, 0, 1, 0)),
                (0, agent(1), expect(1, 0, 1, 0, 0, 0, 1)),
                (1, agent(0), expect(1, 1, 0, 0, 0, 0, 0)),
                (1, agent(1), expect(1, 0, 0, 0, 1, 0, 0)),
            ]
        );
    }

    /// The agent ids of a `state.json` are checked against its table only after it is read
    /// (`merge` renumbers them), so reading must not size anything by an id: a row naming agent
    /// 50,000,000 once made the cache of recent hours 800 MB, and one near `u32::MAX` (a 2 KB
    /// file) an allocation of 64 GiB that aborted the run.
    #[test]
    fn an_agent_id_read_costs_its_row_not_its_value() {
        let rows = format!(
            "[[0,50000000,[1,0,0,1,0,0,0,1,0,0]],[1,{},[1,0,0,1,0,0,0,1,0,0]]]",
            u32::MAX - 1
        );
        let mut read: Hourly = serde_json::from_str(&rows).unwrap();
        assert_eq!(read.rows().len(), 2);
        assert!(
            read.recent.len() < 1_000,
            "{} recent slots",
            read.recent.len()
        );
        let mut sum = Hourly::default();
        sum.merge(&read).unwrap();
        read.merge(&sum).unwrap();
        assert!(sum.recent.len() + read.recent.len() < 1_000);
        assert_eq!(read.rows()[0].2.requests, 2);
    }

    proptest! {
        #[test]
        fn any_split_over_threads_merges_to_the_same_counts(
            events in events(),
            cut in 0usize..60,
        ) {
            let whole = count(&events);
            let cut = cut.min(events.len());
            let (a, b) = events.split_at(cut);
            let mut ab = count(a);
            ab.merge(&count(b)).unwrap();
            let mut ba = count(b);
            ba.merge(&count(a)).unwrap();
            prop_assert_eq!(&ab, &whole);
            prop_assert_eq!(&ba, &whole);
            let requests: u64 = whole.rows().iter().map(|r| r.2.requests).sum();
            prop_assert_eq!(requests, events.len() as u64);
        }

        #[test]
        fn the_cache_agrees_with_a_plain_map(events in events()) {
            let mut plain: std::collections::BTreeMap<(Hour, AgentId), HourCounts> =
                std::collections::BTreeMap::new();
            for &(a, second, outcome, status, spoofed) in &events {
                let verification = if spoofed {
                    Verification::Spoofed
                } else {
                    Verification::Unverified
                };
                plain
                    .entry((hour_of(at(second)), agent(a)))
                    .or_default()
                    .record(
                        Outcome::ALL[outcome],
                        status,
                        verification,
                        Outcome::ALL[outcome] == Outcome::Allowed && second % 3 == 0,
                    );
            }
            let rows: Vec<_> = plain.into_iter().map(|((h, a), c)| (h, a, c)).collect();
            prop_assert_eq!(count(&events).rows(), rows);
        }
    }
}
