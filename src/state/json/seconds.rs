//! Serde for the counters' optional times as `state.json` holds them: `null`, whole seconds
//! since the Unix epoch as a number, or `[seconds, nanoseconds]` when the time has a fraction.
//!
//! Invariant: a time reads back exactly as written (no precision is lost), and a pair outside
//! the times `jiff` represents is an error, never a clamped time.

use std::fmt;

use jiff::Timestamp;
use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple as _;
use serde::{Deserializer, Serializer};

/// Writes `time` as `state.json` holds it.
pub fn serialize<S: Serializer>(
    time: &Option<Timestamp>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let Some(time) = time else {
        return serializer.serialize_none();
    };
    match time.subsec_nanosecond() {
        0 => serializer.serialize_i64(time.as_second()),
        nanos => {
            let mut pair = serializer.serialize_tuple(2)?;
            pair.serialize_element(&time.as_second())?;
            pair.serialize_element(&nanos)?;
            pair.end()
        }
    }
}

/// Reads a time as `state.json` holds it.
pub fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Timestamp>, D::Error> {
    deserializer.deserialize_any(TimeVisitor)
}

struct TimeVisitor;

fn time<E: de::Error>(seconds: i64, nanos: i32) -> Result<Option<Timestamp>, E> {
    Timestamp::new(seconds, nanos)
        .map(Some)
        .map_err(|e| E::custom(format!("time {seconds}.{nanos:09}: {e}")))
}

impl<'de> Visitor<'de> for TimeVisitor {
    type Value = Option<Timestamp>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null, seconds since the Unix epoch, or [seconds, nanoseconds]")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, seconds: i64) -> Result<Self::Value, E> {
        time(seconds, 0)
    }

    fn visit_u64<E: de::Error>(self, seconds: u64) -> Result<Self::Value, E> {
        let seconds = i64::try_from(seconds).map_err(|_| E::custom("time out of range"))?;
        time(seconds, 0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let missing = || de::Error::custom("a time pair needs seconds and nanoseconds");
        let seconds: i64 = seq.next_element()?.ok_or_else(missing)?;
        let nanos: i32 = seq.next_element()?.ok_or_else(missing)?;
        if nanos == 0 || seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "a time pair is [seconds, nanoseconds] with nanoseconds not 0",
            ));
        }
        time(seconds, nanos)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Wrapped(#[serde(with = "super")] Option<jiff::Timestamp>);

    #[test]
    fn times_read_back_exactly_and_bad_ones_are_refused() {
        let cases = [
            ("null", None),
            ("1795132800", Some("2026-11-20T00:00:00Z")),
            (
                "[1795132800,123456789]",
                Some("2026-11-20T00:00:00.123456789Z"),
            ),
            ("-1", Some("1969-12-31T23:59:59Z")),
            ("[-1,-500000000]", Some("1969-12-31T23:59:58.5Z")),
        ];
        for (json, time) in cases {
            let time = time.map(|t| t.parse().unwrap());
            assert_eq!(serde_json::to_string(&Wrapped(time)).unwrap(), json);
            assert_eq!(
                serde_json::from_str::<Wrapped>(json).unwrap(),
                Wrapped(time)
            );
        }
        for bad in [
            "\"2026-11-20T00:00:00Z\"",
            "[1795132800]",
            "[1795132800,0]",
            "[1795132800,1,2]",
            "[1795132800,1000000000]",
            "99999999999999",
            "18446744073709551615",
        ] {
            assert!(serde_json::from_str::<Wrapped>(bad).is_err(), "{bad}");
        }
    }
}
