//! The zone that times written without an offset are read in (`--timezone`): HAProxy's accept
//! date, IIS Advanced Logging's `date-local`/`time-local`. UTC unless the user names an IANA
//! zone, looked up in the system's time zone database or, when the system has none or lacks the
//! name, in the copy jiff bundles. Daylight saving time is the zone's: a wall time that occurs
//! twice (the hour a clock is set back) is read as the first, one that does not occur (the
//! hour skipped) with the offset before the change, so as the later instant (02:30 of a night
//! that skips from 02:00 to 03:00 is 03:30 of the new time), as RFC 5545 reads them (jiff's
//! `compatible`; docs/log-formats.md, "Times without an offset").
//!
//! A leaf below the parsers. Converting goes through jiff once per minute of wall time
//! ([`ZoneMinute`]), not once per line.

use std::fmt;

use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone, TimeZoneDatabase};

use crate::error::Error;
use crate::time::WallTime;

/// The zone times without an offset are read in. [`LocalZone::default`] is UTC.
///
/// ```
/// use robots_audit_logs::LocalZone;
///
/// assert_eq!(LocalZone::default().name(), "UTC");
/// assert_eq!(LocalZone::named("Europe/Paris")?.name(), "Europe/Paris");
/// assert!(LocalZone::named("Mars/Olympus_Mons").is_err());
/// # Ok::<(), robots_audit_logs::Error>(())
/// ```
#[derive(Clone)]
pub struct LocalZone {
    name: String,
    zone: TimeZone,
}

impl Default for LocalZone {
    fn default() -> LocalZone {
        LocalZone {
            name: "UTC".to_owned(),
            zone: TimeZone::UTC,
        }
    }
}

impl fmt::Debug for LocalZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LocalZone").field(&self.name).finish()
    }
}

impl PartialEq for LocalZone {
    fn eq(&self, other: &LocalZone) -> bool {
        self.name == other.name
    }
}

impl Eq for LocalZone {}

impl LocalZone {
    /// The IANA zone called `name` (`Europe/Paris`, `America/New_York`, `UTC`).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownTimeZone`] when neither the system's database nor jiff's bundled copy
    /// knows the name.
    pub fn named(name: &str) -> Result<LocalZone, Error> {
        let zone = match jiff::tz::db().get(name) {
            Ok(zone) => zone,
            Err(system) => {
                TimeZoneDatabase::bundled()
                    .get(name)
                    .map_err(|_| Error::UnknownTimeZone {
                        name: name.to_owned(),
                        reason: system.to_string(),
                    })?
            }
        };
        Ok(LocalZone {
            name: name.to_owned(),
            zone,
        })
    }

    /// The zone's name as given (`UTC` by default), for `inputs.csv`'s `assumed_zone`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The instant `wall` stands for in this zone. `minute` remembers the offset of the last
    /// minute converted, which the next line's time usually shares.
    pub(crate) fn timestamp(&self, wall: WallTime, minute: &mut ZoneMinute) -> Option<Timestamp> {
        let key = wall.second.div_euclid(60);
        let offset = match minute.last {
            Some((last, offset)) if last == key => offset,
            _ => {
                let offset = self.offset_at(key)?;
                minute.last = Some((key, offset));
                offset
            }
        };
        wall.at_offset(offset)
    }

    /// The offset, in seconds east of UTC, of the wall-clock minute `key` (minutes since
    /// 1970-01-01T00:00 of the wall clock).
    fn offset_at(&self, key: i64) -> Option<i64> {
        let start = key.checked_mul(60)?;
        let civil = Offset::UTC.to_datetime(Timestamp::from_second(start).ok()?);
        let instant = self.zone.to_ambiguous_timestamp(civil).compatible().ok()?;
        Some(start - instant.as_second())
    }
}

/// The offset of the last wall-clock minute a [`LocalZone`] converted, kept per block.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ZoneMinute {
    last: Option<(i64, i64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time;

    fn read(zone: &LocalZone, date: &str, clock: &str) -> Option<String> {
        let wall = time::w3c_wall(date.as_bytes(), clock.as_bytes())?;
        zone.timestamp(wall, &mut ZoneMinute::default())
            .map(|t| t.to_string())
    }

    #[test]
    fn daylight_saving_time_is_the_zones() {
        let paris = LocalZone::named("Europe/Paris").unwrap();
        let new_york = LocalZone::named("America/New_York").unwrap();
        let cases: &[(&LocalZone, &str, &str, &str)] = &[
            (&paris, "2026-01-15", "12:00:00", "2026-01-15T11:00:00Z"),
            (
                &paris,
                "2026-07-15",
                "12:00:00.250",
                "2026-07-15T10:00:00.25Z",
            ),
            // the hour skipped on 29 March 2026 reads with the offset before it
            (&paris, "2026-03-29", "02:30:00", "2026-03-29T01:30:00Z"),
            // the hour repeated on 25 October 2026 reads as its first occurrence
            (&paris, "2026-10-25", "02:30:00", "2026-10-25T00:30:00Z"),
            (&new_york, "2026-11-20", "20:00:00", "2026-11-21T01:00:00Z"),
            (
                &LocalZone::default(),
                "2026-11-20",
                "20:00:00",
                "2026-11-20T20:00:00Z",
            ),
        ];
        for &(zone, date, clock, want) in cases {
            assert_eq!(
                read(zone, date, clock).as_deref(),
                Some(want),
                "{} {date} {clock}",
                zone.name()
            );
        }
    }

    #[test]
    fn unknown_zones_are_refused_with_their_name() {
        let error = LocalZone::named("Europe/Atlantis").unwrap_err().to_string();
        assert!(error.contains("--timezone \"Europe/Atlantis\""), "{error}");
        assert_eq!(LocalZone::named("UTC").unwrap(), LocalZone::default());
    }

    proptest::proptest! {
        /// The per-minute cache gives what jiff gives for every wall time, whatever came before.
        #[test]
        fn the_minute_cache_agrees_with_jiff(
            start in 1_700_000_000i64..1_800_000_000,
            steps in proptest::collection::vec(0i64..5_000, 1..30),
        ) {
            let zone = LocalZone::named("Europe/Paris").unwrap();
            let mut minute = ZoneMinute::default();
            let mut second = start;
            for step in steps {
                second += step;
                let wall = WallTime { second, nanosecond: 0 };
                let civil = Offset::UTC.to_datetime(Timestamp::from_second(second).unwrap());
                let want = zone.zone.to_ambiguous_timestamp(civil).compatible().ok();
                proptest::prop_assert_eq!(zone.timestamp(wall, &mut minute), want);
            }
        }
    }
}
