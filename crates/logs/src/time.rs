//! Timestamps as logs write them, all converted to UTC [`Timestamp`]s.
//!
//! The CLF and RFC 3339 parsers run once per line, so they read the digits by hand and convert
//! with civil-calendar arithmetic instead of going through a time-zone database; jiff is the
//! fallback for the rarer RFC 3339 spellings.
//!
//! ```
//! use robots_audit_logs::time;
//!
//! let t = time::clf(b"10/Oct/2000:13:55:36 -0700").unwrap();
//! assert_eq!(t.to_string(), "2000-10-10T20:55:36Z");
//! assert_eq!(time::any(b"1716723772.5").unwrap().to_string(), "2024-05-26T11:42:52.5Z");
//! ```

use jiff::Timestamp;
use std::io::Write as _;

const SECONDS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// A validated civil date and time, offset from UTC by `offset_seconds`.
struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanosecond: u32,
    offset_seconds: i64,
}

impl Civil {
    /// The date and time as a wall clock shows it, when they are valid.
    fn wall(&self) -> Option<WallTime> {
        let valid = (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month)
            && self.hour < 24
            && self.minute < 60
            // A leap second (:60) is folded into :59, as jiff does when it parses one.
            && self.second <= 60;
        if !valid {
            return None;
        }
        let second = days_from_civil(self.year, self.month, self.day) * SECONDS_PER_DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second.min(59));
        Some(WallTime {
            second,
            nanosecond: self.nanosecond,
        })
    }

    fn to_timestamp(&self) -> Option<Timestamp> {
        self.wall()?.at_offset(self.offset_seconds)
    }
}

/// A date and time of day as a log wrote it without an offset: what a wall clock showed, in
/// seconds from 1970-01-01T00:00:00 of that clock. Which instant it was depends on the zone the
/// clock was in ([`LocalZone`](crate::LocalZone)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WallTime {
    pub(crate) second: i64,
    pub(crate) nanosecond: u32,
}

impl WallTime {
    /// The instant, for a clock `offset_seconds` east of UTC.
    pub(crate) fn at_offset(self, offset_seconds: i64) -> Option<Timestamp> {
        Timestamp::new(
            self.second - offset_seconds,
            i32::try_from(self.nanosecond).ok()?,
        )
        .ok()
    }
}

/// The value of a run of ASCII digits (at most 18, so it cannot overflow).
fn digits(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 18 {
        return None;
    }
    bytes.iter().try_fold(0u64, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u64::from(b - b'0'))
    })
}

fn two(bytes: &[u8], at: usize) -> Option<u32> {
    match bytes.get(at..at + 2)? {
        [high @ b'0'..=b'9', low @ b'0'..=b'9'] => {
            Some(u32::from(high - b'0') * 10 + u32::from(low - b'0'))
        }
        _ => None,
    }
}

/// Nanoseconds of a fraction written after the decimal point; digits past the ninth are
/// dropped. `None` unless every byte is a digit.
fn fraction_nanos(fraction: &[u8]) -> Option<u32> {
    if fraction.is_empty() || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut nanos = 0u32;
    for position in 0..9 {
        let digit = fraction.get(position).map_or(0, |b| u32::from(b - b'0'));
        nanos = nanos * 10 + digit;
    }
    Some(nanos)
}

/// Splits an optional `.fraction` off the front of `rest`: the nanoseconds and what follows.
fn leading_fraction(rest: &[u8]) -> Option<(u32, &[u8])> {
    match rest.split_first() {
        Some((b'.' | b',', tail)) => {
            let end = tail
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(tail.len());
            let (fraction, after) = tail.split_at(end);
            Some((fraction_nanos(fraction)?, after))
        }
        _ => Some((0, rest)),
    }
}

/// `+hhmm`, `-hh:mm`, `Z`: the offset east of UTC in seconds.
fn offset(zone: &[u8]) -> Option<i64> {
    let (sign, rest) = match zone {
        [b'Z' | b'z'] => return Some(0),
        [b'+', rest @ ..] => (1, rest),
        [b'-', rest @ ..] => (-1, rest),
        _ => return None,
    };
    let (hours, minutes) = match rest {
        [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => (two(&[*h1, *h2], 0)?, two(&[*m1, *m2], 0)?),
        [h1, h2] => (two(&[*h1, *h2], 0)?, 0),
        _ => return None,
    };
    zone_offset(sign, hours, minutes)
}

/// The largest offset from UTC any time zone has (`+14:00`, Line Islands; the westernmost is
/// `-12:00`). A larger one (`+2400`, which would move the time by a day) or minutes past 59
/// are damage, not a zone.
const MAX_OFFSET_SECONDS: i64 = 14 * 3600;

/// `sign` hours and minutes as seconds east of UTC, when they make an offset a zone can have.
fn zone_offset(sign: i64, hours: u32, minutes: u32) -> Option<i64> {
    let seconds = i64::from(hours * 3600 + minutes * 60);
    (minutes < 60 && seconds <= MAX_OFFSET_SECONDS).then_some(sign * seconds)
}

fn month_number(name: &[u8]) -> Option<u32> {
    let lower = match name {
        [a, b, c] => [
            a.to_ascii_lowercase(),
            b.to_ascii_lowercase(),
            c.to_ascii_lowercase(),
        ],
        _ => return None,
    };
    let month = match &lower {
        b"jan" => 1,
        b"feb" => 2,
        b"mar" => 3,
        b"apr" => 4,
        b"may" => 5,
        b"jun" => 6,
        b"jul" => 7,
        b"aug" => 8,
        b"sep" => 9,
        b"oct" => 10,
        b"nov" => 11,
        b"dec" => 12,
        _ => return None,
    };
    Some(month)
}

/// `HH:MM:SS` at the start of `bytes`, then an optional fraction: the parts and what follows.
fn clock(bytes: &[u8]) -> Option<(u32, u32, u32, u32, &[u8])> {
    if bytes.get(2) != Some(&b':') || bytes.get(5) != Some(&b':') {
        return None;
    }
    let (hour, minute, second) = (two(bytes, 0)?, two(bytes, 3)?, two(bytes, 6)?);
    let (nanosecond, rest) = leading_fraction(bytes.get(8..)?)?;
    Some((hour, minute, second, nanosecond, rest))
}

/// `YYYY-MM-DD` at the start of `bytes`: year, month, day.
fn ymd(bytes: &[u8]) -> Option<(i64, u32, u32)> {
    if bytes.len() < 10 || bytes.get(4) != Some(&b'-') || bytes.get(7) != Some(&b'-') {
        return None;
    }
    let year = i64::try_from(digits(bytes.get(..4)?)?).ok()?;
    Some((year, two(bytes, 5)?, two(bytes, 8)?))
}

/// The Common Log Format time, without its brackets: `10/Oct/2000:13:55:36 -0700`. Fractional
/// seconds (`13:55:36.123`, as `%{msec_frac}t` setups write) are accepted.
pub fn clf(bytes: &[u8]) -> Option<Timestamp> {
    match <&[u8; 26]>::try_from(bytes) {
        Ok(fixed) => clf_fixed(fixed),
        Err(_) => clf_general(bytes),
    }
}

/// The minute of the last 26-byte CLF time read. Neighbouring lines of a log mostly share
/// their minute, and then only the seconds need reading: the date and zone arithmetic is done
/// once per minute instead of once per line.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ClfMinute {
    /// The time as written, and the UTC second its minute starts at. Its seconds (bytes 18 and
    /// 19) are never compared.
    last: Option<([u8; 26], i64)>,
}

impl ClfMinute {
    /// [`clf`], answered from the remembered minute when `bytes` falls in it.
    pub(crate) fn clf(&mut self, bytes: &[u8]) -> Option<Timestamp> {
        let Ok(fixed) = <&[u8; 26]>::try_from(bytes) else {
            return clf_general(bytes);
        };
        // A leap second (:60) is folded into :59, as the full reading does.
        let second = two(fixed, 18)
            .filter(|&s| s <= 60)
            .map(|s| i64::from(s.min(59)));
        // The bytes around the seconds are compared where they are: a copy with its seconds
        // overwritten, read back at once, stalled the CPU on every line (the wide read of bytes
        // just written narrower cannot be forwarded from the stores).
        if let Some((last, start)) = &self.last
            && last[..18] == fixed[..18]
            && last[20..] == fixed[20..]
        {
            return Timestamp::from_second(start + second?).ok();
        }
        let time = clf_fixed(fixed)?;
        self.last = second.map(|second| (*fixed, time.as_second() - second));
        Some(time)
    }
}

/// The usual 26-byte CLF time, read at fixed positions: this runs once per line of most logs.
fn clf_fixed(b: &[u8; 26]) -> Option<Timestamp> {
    if b[2] != b'/'
        || b[6] != b'/'
        || b[11] != b':'
        || b[14] != b':'
        || b[17] != b':'
        || b[20] != b' '
    {
        return None;
    }
    let digit = |at: usize| {
        let value = b[at].wrapping_sub(b'0');
        (value < 10).then_some(u32::from(value))
    };
    let pair = |at: usize| Some(digit(at)? * 10 + digit(at + 1)?);
    let year = i64::from(pair(7)? * 100 + pair(9)?);
    let sign = match b[21] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let offset_seconds = zone_offset(sign, pair(22)?, pair(24)?)?;
    let civil = Civil {
        year,
        month: month_number(&[b[3], b[4], b[5]])?,
        day: pair(0)?,
        hour: pair(12)?,
        minute: pair(15)?,
        second: pair(18)?,
        nanosecond: 0,
        offset_seconds,
    };
    civil.to_timestamp()
}

fn clf_general(bytes: &[u8]) -> Option<Timestamp> {
    if bytes.get(2) != Some(&b'/') || bytes.get(6) != Some(&b'/') || bytes.get(11) != Some(&b':') {
        return None;
    }
    let day = two(bytes, 0)?;
    let month = month_number(bytes.get(3..6)?)?;
    let year = i64::try_from(digits(bytes.get(7..11)?)?).ok()?;
    let (hour, minute, second, nanosecond, rest) = clock(bytes.get(12..)?)?;
    let zone = rest.strip_prefix(b" ")?;
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        nanosecond,
        offset_seconds: offset(zone)?,
    };
    civil.to_timestamp()
}

/// W3C extended log `date` and `time` fields (`2015-01-13`, `00:32:17` or `00:32:17.250`),
/// which the format defines as UTC.
pub fn w3c(date: &[u8], time: &[u8]) -> Option<Timestamp> {
    w3c_wall(date, time)?.at_offset(0)
}

/// W3C `date` and `time` fields (or IIS Advanced Logging's `date-local` and `time-local`) as
/// the wall time they write.
pub(crate) fn w3c_wall(date: &[u8], time: &[u8]) -> Option<WallTime> {
    let (year, month, day) = ymd(date).filter(|_| date.len() == 10)?;
    wall((year, month, day), time)
}

/// A date and the time of day that is all of `time`, as a wall time.
fn wall((year, month, day): (i64, u32, u32), time: &[u8]) -> Option<WallTime> {
    let (hour, minute, second, nanosecond, rest) = clock(time)?;
    if !rest.is_empty() {
        return None;
    }
    Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        nanosecond,
        offset_seconds: 0,
    }
    .wall()
}

/// HAProxy's accept date, `06/Feb/2009:12:14:14.655`: a CLF time with milliseconds and without
/// an offset (HAProxy writes its own local time).
pub(crate) fn haproxy_wall(bytes: &[u8]) -> Option<WallTime> {
    if bytes.get(2) != Some(&b'/') || bytes.get(6) != Some(&b'/') || bytes.get(11) != Some(&b':') {
        return None;
    }
    let day = two(bytes, 0)?;
    let month = month_number(bytes.get(3..6)?)?;
    let year = i64::try_from(digits(bytes.get(7..11)?)?).ok()?;
    wall((year, month, day), bytes.get(12..)?)
}

/// An offset from UTC as a `#GMT-Offset` directive writes it (`-0800`, `+05:30`, `+02`), in
/// seconds east of UTC.
pub(crate) fn offset_seconds(zone: &[u8]) -> Option<i64> {
    offset(zone)
}

/// RFC 3339 / ISO 8601 with an offset: `2020-01-01T00:55:04.127531Z`, `2013-10-10T16:52:00+02:00`.
/// The common spellings are read by hand; anything else jiff accepts is accepted too.
pub fn rfc3339(bytes: &[u8]) -> Option<Timestamp> {
    rfc3339_fast(bytes).or_else(|| rfc3339_jiff(bytes))
}

/// The rarer spellings, through jiff, with the same bound on the offset as the fast reading
/// (jiff accepts offsets up to 25:59:59).
fn rfc3339_jiff(bytes: &[u8]) -> Option<Timestamp> {
    let pieces = jiff::fmt::temporal::Pieces::parse(bytes).ok()?;
    let offset = pieces.to_numeric_offset()?;
    if i64::from(offset.seconds()).abs() > MAX_OFFSET_SECONDS {
        return None;
    }
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

fn rfc3339_fast(bytes: &[u8]) -> Option<Timestamp> {
    let (year, month, day) = ymd(bytes)?;
    if !matches!(bytes.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let (hour, minute, second, nanosecond, zone) = clock(bytes.get(11..)?)?;
    let civil = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
        nanosecond,
        offset_seconds: offset(zone)?,
    };
    civil.to_timestamp()
}

/// A date and time without an offset (`2024-05-26 11:42:52`, `2024-05-26T11:42:52.5`), as the
/// wall time it writes.
fn naive(bytes: &[u8]) -> Option<WallTime> {
    let date = ymd(bytes)?;
    if !matches!(bytes.get(10), Some(b'T' | b' ')) {
        return None;
    }
    wall(date, bytes.get(11..)?)
}

/// The unit an epoch count is in, judged by its size: seconds up to 1e11 (the year 5138), then
/// milliseconds, microseconds, nanoseconds.
fn nanos_per_unit(magnitude: u64) -> i128 {
    match magnitude {
        0..100_000_000_000 => 1_000_000_000,
        100_000_000_000..100_000_000_000_000 => 1_000_000,
        100_000_000_000_000..100_000_000_000_000_000 => 1_000,
        _ => 1,
    }
}

fn from_nanos(nanos: i128) -> Option<Timestamp> {
    Timestamp::from_nanosecond(nanos).ok()
}

/// An integer count since the Unix epoch, in seconds, milliseconds, microseconds or
/// nanoseconds by magnitude (Cloudflare Logpush writes nanoseconds by default).
pub fn epoch_integer(value: i64) -> Option<Timestamp> {
    from_nanos(i128::from(value) * nanos_per_unit(value.unsigned_abs()))
}

/// A floating-point count since the Unix epoch (Caddy's `ts`), unit by magnitude as for
/// [`epoch_integer`].
pub fn epoch_float(value: f64) -> Option<Timestamp> {
    if !value.is_finite() || value.abs() >= 9.2e18 {
        return None;
    }
    // The logger wrote the shortest decimal that reads back as this double (Go's and Rust's
    // float printing agree on it), so its digits are read rather than the double: the double
    // nearest `1716723830.5081363` is `...50813651...`, across a microsecond boundary from
    // them. Below a nanosecond every unit reads 0, which also bounds the digits printed.
    let value = if value.abs() < 1e-9 { 0.0 } else { value };
    let mut text = [0u8; 64];
    let mut cursor = std::io::Cursor::new(&mut text[..]);
    write!(cursor, "{value}").ok()?;
    let written = usize::try_from(cursor.position()).ok()?;
    let (nanos, unit) = epoch_nanos(text.get(..written)?)?;
    // A double holds about 16 significant digits: for seconds since 1970 that is a fraction of
    // a microsecond, so finer digits are noise and the value is rounded to the microsecond
    // (half away from zero; integer division truncates toward zero).
    let step = unit.min(1_000);
    from_nanos((nanos + nanos.signum() * (step / 2)) / step * step)
}

/// An epoch count written as text (`1716723772`, `1716723772.6014807`, `-5`), unit by
/// magnitude as for [`epoch_integer`]. The fraction is read exactly, not through a float.
pub fn epoch(bytes: &[u8]) -> Option<Timestamp> {
    from_nanos(epoch_nanos(bytes)?.0)
}

/// The nanoseconds an epoch count written as text stands for, and the nanoseconds of its unit.
fn epoch_nanos(bytes: &[u8]) -> Option<(i128, i128)> {
    let (negative, unsigned) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let point = unsigned
        .iter()
        .position(|&b| b == b'.')
        .unwrap_or(unsigned.len());
    let (whole, fraction) = unsigned.split_at(point);
    let whole = digits(whole)?;
    let unit = nanos_per_unit(whole);
    let mut nanos = i128::from(whole) * unit;
    if let Some(fraction) = fraction.get(1..) {
        let mut scale = unit;
        for &b in fraction {
            if !b.is_ascii_digit() {
                return None;
            }
            scale /= 10;
            nanos += i128::from(b - b'0') * scale;
        }
    }
    Some((if negative { -nanos } else { nanos }, unit))
}

/// Any of the textual forms above, for JSON fields whose format is not fixed: an epoch count,
/// RFC 3339, a CLF time (nginx `$time_local`), or a date and time without offset (taken as
/// UTC; the JSON formats read it in the zone `--timezone` names).
pub fn any(bytes: &[u8]) -> Option<Timestamp> {
    match any_or_wall(bytes)? {
        Read::Instant(time) => Some(time),
        Read::Wall(wall) => wall.at_offset(0),
    }
}

/// A time as [`any_or_wall`] reads it.
pub(crate) enum Read {
    /// An instant: the text said which (an offset, `Z`, an epoch count).
    Instant(Timestamp),
    /// A date and time written without an offset, for the caller to read in its zone.
    Wall(WallTime),
}

/// [`any`], a time written without an offset given as the wall time it writes.
pub(crate) fn any_or_wall(bytes: &[u8]) -> Option<Read> {
    let bytes = bytes.trim_ascii();
    match bytes.first()? {
        b'0'..=b'9' | b'-' => epoch(bytes)
            .or_else(|| rfc3339(bytes))
            .map(Read::Instant)
            .or_else(|| naive(bytes).map(Read::Wall))
            .or_else(|| clf(bytes).map(Read::Instant)),
        b'[' => clf(bytes.strip_prefix(b"[")?.strip_suffix(b"]")?).map(Read::Instant),
        _ => rfc3339(bytes).map(Read::Instant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop_assert_eq, prop_assume, proptest};

    fn utc(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn clf_examples() {
        let cases: &[(&str, Option<&str>)] = &[
            ("10/Oct/2000:13:55:36 -0700", Some("2000-10-10T20:55:36Z")),
            ("17/May/2015:10:05:03 +0000", Some("2015-05-17T10:05:03Z")),
            ("22/Jan/2019:03:56:14 +0330", Some("2019-01-22T00:26:14Z")),
            ("29/Feb/2024:23:59:59 -0000", Some("2024-02-29T23:59:59Z")),
            ("01/jan/2020:00:00:00 +0100", Some("2019-12-31T23:00:00Z")),
            (
                "10/Oct/2000:13:55:36.250 +0000",
                Some("2000-10-10T13:55:36.25Z"),
            ),
            ("31/Dec/1999:23:59:60 +0000", Some("1999-12-31T23:59:59Z")),
            ("29/Feb/2023:00:00:00 +0000", None),
            ("10/Foo/2000:13:55:36 -0700", None),
            ("10/Oct/2000:24:00:00 -0700", None),
            ("10/Oct/2000:13:55:36", None),
            ("10/Oct/2000:13:55:36 0700", None),
            ("1/Oct/2000:13:55:36 -0700", None),
            ("", None),
            // out-of-range fields, each alone
            ("10/Oct/2000:13:55:36 +2400", None),
            ("10/Oct/2000:13:55:36 -2400", None),
            ("10/Oct/2000:13:55:36 +1401", None),
            ("10/Oct/2000:13:55:36 +0060", None),
            ("10/Oct/2000:13:55:36 +0099", None),
            ("10/Oct/2000:13:55:36 +1400", Some("2000-10-09T23:55:36Z")),
            ("10/Oct/2000:13:55:36 -1200", Some("2000-10-11T01:55:36Z")),
            ("10/Oct/2000:13:55:36.5 +2400", None),
            ("10/Oct/2000:13:55:36.5 +0160", None),
            ("10/Oct/2000:13:60:36 +0000", None),
            ("10/Oct/2000:13:55:61 +0000", None),
            ("00/Oct/2000:13:55:36 +0000", None),
            ("32/Oct/2000:13:55:36 +0000", None),
            ("31/Nov/2000:13:55:36 +0000", None),
            ("29/Feb/1900:13:55:36 +0000", None),
            ("29/Feb/2000:13:55:36 +0000", Some("2000-02-29T13:55:36Z")),
        ];
        for &(text, want) in cases {
            assert_eq!(clf(text.as_bytes()), want.map(utc), "{text}");
        }
    }

    #[test]
    fn w3c_examples() {
        assert_eq!(
            w3c(b"2015-01-13", b"00:32:17"),
            Some(utc("2015-01-13T00:32:17Z"))
        );
        assert_eq!(
            w3c(b"2015-01-13", b"00:32:17.5"),
            Some(utc("2015-01-13T00:32:17.5Z"))
        );
        assert_eq!(w3c(b"2015-13-13", b"00:32:17"), None);
        assert_eq!(w3c(b"2015-01-13", b"00:32"), None);
        assert_eq!(w3c(b"-", b"-"), None);
        for (date, time) in [
            ("2015-01-13", "24:00:00"),
            ("2015-01-13", "23:60:00"),
            ("2015-01-13", "23:59:61"),
            ("2015-02-30", "00:00:00"),
            ("2015-01-00", "00:00:00"),
            ("2015-01-13", "00:00:00+01:00"),
        ] {
            assert_eq!(w3c(date.as_bytes(), time.as_bytes()), None, "{date} {time}");
        }
        for text in [
            "2013-10-10 24:00:00",
            "2013-10-10 16:60:00",
            "2013-02-30 16:52:00",
        ] {
            assert_eq!(any(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn rfc3339_examples() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "2020-01-01T00:55:04.127531Z",
                Some("2020-01-01T00:55:04.127531Z"),
            ),
            ("2013-10-10T16:52:00+02:00", Some("2013-10-10T14:52:00Z")),
            ("2011-06-23T17:12:08.802Z", Some("2011-06-23T17:12:08.802Z")),
            ("2024-01-01 00:00:00-0130", Some("2024-01-01T01:30:00Z")),
            ("2024-01-01T00:00:00", None),
            ("yesterday", None),
            // out-of-range fields, each alone, in the fast and the jiff spellings
            ("2013-10-10T16:52:00+24:00", None),
            ("2013-10-10T16:52:00+2400", None),
            ("2013-10-10T16:52:00-25:59", None),
            ("2013-10-10T16:52:00+01:60", None),
            ("2013-10-10T16:52:00+14:00", Some("2013-10-10T02:52:00Z")),
            ("2013-10-10T16:52:00+24:00:00", None),
            ("2013-10-10T16:52:00+01:00:00", Some("2013-10-10T15:52:00Z")),
            ("2013-10-10T24:00:00Z", None),
            ("2013-10-10T23:60:00Z", None),
            ("2013-10-10T23:59:61Z", None),
            ("2013-13-10T16:52:00Z", None),
            ("2013-00-10T16:52:00Z", None),
            ("2013-02-29T16:52:00Z", None),
            ("2013-10-32T16:52:00Z", None),
        ];
        for &(text, want) in cases {
            assert_eq!(rfc3339(text.as_bytes()), want.map(utc), "{text}");
        }
    }

    #[test]
    fn epochs_by_magnitude() {
        let want = utc("2024-05-26T11:42:52Z");
        assert_eq!(epoch_integer(1_716_723_772), Some(want));
        assert_eq!(epoch_integer(1_716_723_772_000), Some(want));
        assert_eq!(epoch_integer(1_716_723_772_000_000), Some(want));
        assert_eq!(epoch_integer(1_716_723_772_000_000_000), Some(want));
        assert_eq!(epoch(b"1716723772"), Some(want));
        assert_eq!(
            epoch(b"1716723772.6014807"),
            Some(utc("2024-05-26T11:42:52.6014807Z"))
        );
        assert_eq!(
            epoch(b"1716723772123.5"),
            Some(utc("2024-05-26T11:42:52.1235Z"))
        );
        assert_eq!(epoch(b"-86400"), Some(utc("1969-12-31T00:00:00Z")));
        assert_eq!(epoch(b"17x"), None);
        assert_eq!(epoch(b""), None);
        assert_eq!(
            epoch_float(1_716_723_772.5),
            Some(utc("2024-05-26T11:42:52.5Z"))
        );
        assert_eq!(
            epoch_float(1_716_723_772.601_480_7),
            Some(utc("2024-05-26T11:42:52.601481Z"))
        );
        assert_eq!(
            epoch_float(1_716_723_772_601.5),
            Some(utc("2024-05-26T11:42:52.6015Z"))
        );
        assert_eq!(epoch_float(f64::NAN), None);
        assert_eq!(epoch_float(1e300), None);
    }

    #[test]
    fn any_examples() {
        let cases: &[(&str, Option<&str>)] = &[
            ("1716723772", Some("2024-05-26T11:42:52Z")),
            ("2013-10-10T16:52:00+02:00", Some("2013-10-10T14:52:00Z")),
            ("2013-10-10 16:52:00", Some("2013-10-10T16:52:00Z")),
            ("10/Oct/2000:13:55:36 -0700", Some("2000-10-10T20:55:36Z")),
            ("[10/Oct/2000:13:55:36 -0700]", Some("2000-10-10T20:55:36Z")),
            (" 1716723772 ", Some("2024-05-26T11:42:52Z")),
            ("-", None),
            ("", None),
        ];
        for &(text, want) in cases {
            assert_eq!(any(text.as_bytes()), want.map(utc), "{text}");
        }
    }

    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];

    proptest! {
        #[test]
        fn clf_agrees_with_jiff(
            seconds in -62_000_000_000i64..250_000_000_000,
            offset_minutes in -(14 * 60)..=(14 * 60i32),
        ) {
            let offset = jiff::tz::Offset::from_seconds(offset_minutes * 60).unwrap();
            let instant = Timestamp::from_second(seconds).unwrap();
            let local = offset.to_datetime(instant);
            prop_assume!((0..=9999).contains(&local.year()));
            let sign = if offset_minutes < 0 { '-' } else { '+' };
            let text = format!(
                "{:02}/{}/{:04}:{:02}:{:02}:{:02} {sign}{:02}{:02}",
                local.day(),
                MONTHS[usize::try_from(local.month() - 1).unwrap()],
                local.year(),
                local.hour(),
                local.minute(),
                local.second(),
                offset_minutes.abs() / 60,
                offset_minutes.abs() % 60,
            );
            prop_assert_eq!(clf(text.as_bytes()), Some(instant), "{}", text);
        }

        #[test]
        fn the_minute_cache_agrees_with_clf(
            start in 0i64..4_000_000_000,
            steps in proptest::collection::vec((0i64..200, 0usize..4), 1..40),
        ) {
            let mut cache = ClfMinute::default();
            let mut seconds = start;
            for (step, damage) in steps {
                seconds += step;
                let local = Timestamp::from_second(seconds).unwrap().to_zoned(jiff::tz::TimeZone::UTC);
                let mut text = local.strftime("%d/%b/%Y:%H:%M:%S +0000").to_string().into_bytes();
                // Seconds a log should not hold, and a damaged digit.
                match damage {
                    1 => text[18..20].copy_from_slice(b"60"),
                    2 => text[18..20].copy_from_slice(b"61"),
                    3 => text[19] = b'x',
                    _ => {}
                }
                prop_assert_eq!(cache.clf(&text), clf(&text), "{}", String::from_utf8_lossy(&text));
            }
        }

        #[test]
        fn rfc3339_agrees_with_jiff(seconds in -62_000_000_000i64..250_000_000_000, nanos in 0..1_000_000_000i32) {
            let instant = Timestamp::new(seconds, nanos).unwrap();
            let text = instant.to_string();
            prop_assert_eq!(rfc3339_fast(text.as_bytes()), Some(instant), "{}", text);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::arbitrary::any::<u8>(), 0..40)) {
            let _ = (clf(&bytes), rfc3339(&bytes), any(&bytes), epoch(&bytes), w3c(&bytes, &bytes));
        }
    }
}
