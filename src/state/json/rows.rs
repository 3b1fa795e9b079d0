//! The counters as `state.json` holds them: each as a list of its fields in order, without
//! their names (a night's state holds thousands of counters per input, and the names were most
//! of its bytes), times as seconds since the epoch ([`seconds`](super::seconds)).
//!
//! The layouts, one list each:
//! - [`Counts`]: `requests, robots_fetches, allowed, disallowed, disallowed_verified, grace,
//!   exempt, unjudged, violations_served, verified, spoofed, unverified, preference_conflicts,
//!   first_seen, last_seen, first_violation, first_robots_fetch, robots_fetch_statuses` (the
//!   statuses as a map of status to count);
//! - [`RuleKey`]: `version, rule` (`null` for the fetch status);
//! - [`RuleCounts`]: `decided, violations, agents`;
//! - [`HourCounts`]: the ten fields of its `[u64; 10]` form; [`Hourly`]: a list of
//!   `[hour, agent, counts]` by hour, then agent.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use robots_audit_engine::RuleId;
use serde::ser::SerializeTupleStruct as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::seconds;
use crate::audit::hourly::{Hour, HourCounts, Hourly, is_hour};
use crate::audit::stats::{Counts, FetchStatuses, RuleCounts, RuleKey};
use crate::ids::{AgentId, VersionId};

/// A time as [`seconds`] writes it.
struct Seconds(Option<Timestamp>);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        seconds::serialize(&self.0, serializer)
    }
}

/// [`Counts`] read back: its fields in order.
#[derive(Deserialize)]
struct CountsRow(
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    #[serde(with = "seconds")] Option<Timestamp>,
    #[serde(with = "seconds")] Option<Timestamp>,
    #[serde(with = "seconds")] Option<Timestamp>,
    #[serde(with = "seconds")] Option<Timestamp>,
    BTreeMap<u16, u64>,
);

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self;
        let mut row = serializer.serialize_tuple_struct("CountsRow", 18)?;
        for n in [
            c.requests,
            c.robots_fetches,
            c.allowed,
            c.disallowed,
            c.disallowed_verified,
            c.grace,
            c.exempt,
            c.unjudged,
            c.violations_served,
            c.verified,
            c.spoofed,
            c.unverified,
            c.preference_conflicts,
        ] {
            row.serialize_field(&n)?;
        }
        for time in [
            c.first_seen(),
            c.last_seen(),
            c.first_violation(),
            c.first_robots_fetch(),
        ] {
            row.serialize_field(&Seconds(time))?;
        }
        row.serialize_field(&c.robots_fetch_statuses)?;
        row.end()
    }
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Counts, D::Error> {
        let CountsRow(
            requests,
            robots_fetches,
            allowed,
            disallowed,
            disallowed_verified,
            grace,
            exempt,
            unjudged,
            violations_served,
            verified,
            spoofed,
            unverified,
            preference_conflicts,
            first_seen,
            last_seen,
            first_violation,
            first_robots_fetch,
            robots_fetch_statuses,
        ) = CountsRow::deserialize(deserializer)?;
        let mut counts = Counts::default();
        counts.requests = requests;
        counts.robots_fetches = robots_fetches;
        counts.allowed = allowed;
        counts.disallowed = disallowed;
        counts.disallowed_verified = disallowed_verified;
        counts.grace = grace;
        counts.exempt = exempt;
        counts.unjudged = unjudged;
        counts.violations_served = violations_served;
        counts.verified = verified;
        counts.spoofed = spoofed;
        counts.unverified = unverified;
        counts.preference_conflicts = preference_conflicts;
        counts.robots_fetch_statuses = FetchStatuses::from_map(robots_fetch_statuses);
        counts.set_times([first_seen, last_seen, first_violation, first_robots_fetch]);
        Ok(counts)
    }
}

impl Serialize for RuleKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.version, self.rule).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RuleKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RuleKey, D::Error> {
        let (version, rule) = <(VersionId, Option<RuleId>)>::deserialize(deserializer)?;
        Ok(RuleKey { version, rule })
    }
}

impl Serialize for RuleCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.decided, self.violations, &self.agents).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RuleCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RuleCounts, D::Error> {
        let (decided, violations, agents) =
            <(u64, u64, BTreeSet<AgentId>)>::deserialize(deserializer)?;
        Ok(RuleCounts {
            decided,
            violations,
            agents,
        })
    }
}

impl Serialize for HourCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        <[u64; 10]>::from(*self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for HourCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HourCounts, D::Error> {
        <[u64; 10]>::deserialize(deserializer).map(HourCounts::from)
    }
}

impl Serialize for Hourly {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.rows().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Hourly {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Hourly, D::Error> {
        let rows = Vec::<(Hour, AgentId, HourCounts)>::deserialize(deserializer)?;
        let mut hourly = Hourly::default();
        for (hour, agent, counts) in rows {
            if !is_hour(hour) {
                return Err(serde::de::Error::custom(format_args!(
                    "hour {hour} is outside the times robots-audit reads"
                )));
            }
            hourly
                .counts(hour, agent)
                .merge(&counts)
                .map_err(serde::de::Error::custom)?;
        }
        Ok(hourly)
    }
}
