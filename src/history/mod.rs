//! Robots history: building the manifest source that `audit --robots DIR/manifest.csv` reads.
//!
//! Three producers observe an origin's robots.txt at moments in time: a live fetch
//! ([`fetch`]), the Wayback Machine's archive ([`wayback`]) and a git repository ([`git`]).
//! Each turns what it saw into [`Observation`]s and pushes them, one at a time and in time order,
//! into a [`Record`], which [`manifest::Manifest`] implements: no producer holds the bodies of
//! a whole history (a [`PerSecond`] in between holds one observation back, until the next one
//! shows whether it was the last of its second).
//!
//! Invariants kept by [`manifest::Manifest`]:
//! - a row is added only when the status or the content differs from the row in force just
//!   before it, so recording the same observations twice adds nothing (every command is
//!   idempotent);
//! - rows are sorted by origin, then `valid_from`; no origin has two rows with the same
//!   `valid_from` (the audit refuses such a manifest);
//! - a file is named by the SHA-256 of its content, `<host>[_<port>]/<sha256>.txt`, and is
//!   complete on disk before the manifest names it; the manifest itself is replaced atomically,
//!   so a crash at any moment leaves the previous manifest intact.
//!
//! The manifest format and the meaning of each status are in `docs/contract.md` ("Robots
//! sources"); the choices made here are in `docs/guide/robots-sources.md` ("Robots history").

pub mod copies;
mod error;
pub mod fetch;
pub mod git;
pub mod manifest;
pub mod wayback;

pub use error::HistoryError;

use jiff::Timestamp;

use crate::origin::Origin;
use crate::versions::FetchStatus;
use robots_audit_engine::GOOGLEBOT_MAX_BYTES;

/// What one look at an origin's robots.txt found at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The origin whose `/robots.txt` was looked at.
    pub origin: Origin,
    /// From when the answer is in force (whole seconds).
    pub at: Timestamp,
    /// The HTTP status, or `unreachable`.
    pub status: FetchStatus,
    /// The content for a 2xx status, at most [`GOOGLEBOT_MAX_BYTES`] bytes; `None` otherwise.
    pub body: Option<Vec<u8>>,
}

impl Observation {
    /// An observation; a body is kept only for a 2xx status, and cut to its first
    /// [`GOOGLEBOT_MAX_BYTES`] bytes as Google's crawler does. A final status outside 200..=599
    /// (a 1xx, or 600..=999, which HTTP clients accept) is `unreachable`.
    pub fn new(
        origin: Origin,
        at: Timestamp,
        status: FetchStatus,
        body: Option<Vec<u8>>,
    ) -> Observation {
        // Every producer's answers pass here, so no manifest this module writes holds a status
        // the audit's reading of manifests refuses (past 599, which would stop every later
        // command), and no 1xx, which is no answer at all and would read as "no restrictions".
        let status = match status {
            FetchStatus::Http(200..=599) | FetchStatus::Unreachable => status,
            FetchStatus::Http(_) => FetchStatus::Unreachable,
        };
        let body = if matches!(status, FetchStatus::Http(200..=299)) {
            let mut body = body.unwrap_or_default();
            body.truncate(GOOGLEBOT_MAX_BYTES);
            Some(body)
        } else {
            None
        };
        Observation {
            origin,
            at,
            status,
            body,
        }
    }
}

/// What [`Record::record`] did with an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// A new row: the status or the content differs from the row in force before it.
    Added,
    /// Nothing: the row in force at that moment already says the same.
    Unchanged,
    /// The row with the same origin and the same `valid_from` was replaced: two different
    /// answers within one second, the later one wins.
    Replaced,
}

/// Where the producers push what they observe.
pub trait Record {
    /// Records one observation; its body is stored before this returns, so the caller can drop
    /// it.
    fn record(&mut self, observation: &Observation) -> Result<Recorded, HistoryError>;

    /// The body of a content of `origin` this recorder recorded, kept (in this run or an
    /// earlier one) or found already recorded, by its SHA-256; `None` when it has none. A
    /// producer that meets a content again (the Wayback Machine's revisits, and the copies an
    /// earlier import read) reads it back here instead of keeping every body in memory or
    /// asking the source twice.
    fn recorded_body(
        &mut self,
        origin: &Origin,
        sha256: &[u8; 32],
    ) -> Result<Option<Vec<u8>>, HistoryError>;

    /// Stores a content of `origin` where [`Record::recorded_body`] finds it, whether or not a
    /// row will name it, and returns its SHA-256. Stored before this returns.
    fn keep(&mut self, origin: &Origin, body: &[u8]) -> Result<[u8; 32], HistoryError>;
}

/// How many observations recording added or changed, and how many it found already there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Rows added or replaced.
    pub added: usize,
    /// Observations the history already said.
    pub unchanged: usize,
}

impl Tally {
    /// Counts what recording one observation did.
    pub fn count(&mut self, recorded: Recorded) {
        match recorded {
            Recorded::Unchanged => self.unchanged += 1,
            Recorded::Added | Recorded::Replaced => self.added += 1,
        }
    }
}

/// Passes observations on to a [`Record`], keeping of those of one origin made in the same
/// second only the last: the manifest holds one row per origin and second, and recording both
/// would replace the first with the second on every run instead of adding nothing the second
/// time. Observations arrive in time order; one is held back until the next shows whether it is
/// the last of its second, and [`PerSecond::finish`] passes on the one still held.
#[derive(Debug)]
pub struct PerSecond<'r, R: Record + ?Sized> {
    recorder: &'r mut R,
    held: Option<Observation>,
    tally: Tally,
}

impl<'r, R: Record + ?Sized> PerSecond<'r, R> {
    /// Passes observations on to `recorder`.
    pub fn new(recorder: &'r mut R) -> PerSecond<'r, R> {
        PerSecond {
            recorder,
            held: None,
            tally: Tally::default(),
        }
    }

    /// The next observation, in time order.
    pub fn push(&mut self, observation: Observation) -> Result<(), HistoryError> {
        if let Some(held) = self.held.take()
            && (held.at != observation.at || held.origin != observation.origin)
        {
            let recorded = self.recorder.record(&held)?;
            self.tally.count(recorded);
        }
        self.held = Some(observation);
        Ok(())
    }

    /// [`Record::recorded_body`] of the recorder. The observation held back is not recorded
    /// yet: its body is not among them unless it was kept.
    pub fn recorded_body(
        &mut self,
        origin: &Origin,
        sha256: &[u8; 32],
    ) -> Result<Option<Vec<u8>>, HistoryError> {
        self.recorder.recorded_body(origin, sha256)
    }

    /// [`Record::keep`] of the recorder.
    pub fn keep(&mut self, origin: &Origin, body: &[u8]) -> Result<[u8; 32], HistoryError> {
        self.recorder.keep(origin, body)
    }

    /// Records the observation held back and returns what recording did in all.
    pub fn finish(mut self) -> Result<Tally, HistoryError> {
        if let Some(held) = self.held.take() {
            let recorded = self.recorder.record(&held)?;
            self.tally.count(recorded);
        }
        Ok(self.tally)
    }
}

/// The SHA-256 of a body: the history names its files by it, and producers recognise a content
/// they met before by it.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).into()
}

/// The default `User-Agent` of `fetch` and `import --wayback`: it names the program, so that a
/// site owner reading their logs knows what asked.
pub fn default_user_agent() -> String {
    format!(
        "robots-audit/{} (robots.txt history)",
        env!("CARGO_PKG_VERSION")
    )
}

/// The URL of an origin's robots.txt.
pub fn robots_url(origin: &Origin) -> String {
    format!("{origin}/robots.txt")
}

/// Reads at most `limit` bytes of a body; the rest is never read (the connection is dropped).
fn read_prefix(reader: impl std::io::Read, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut body = Vec::new();
    reader
        .take(u64::try_from(limit).unwrap_or(u64::MAX))
        .read_to_end(&mut body)?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_only_for_2xx_and_cut_at_500_kib() {
        let origin = Origin::parse("https://example.com").unwrap();
        let at: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let big = vec![b'a'; GOOGLEBOT_MAX_BYTES + 10];
        let ok = Observation::new(origin.clone(), at, FetchStatus::Http(200), Some(big));
        assert_eq!(ok.body.unwrap().len(), GOOGLEBOT_MAX_BYTES);
        let empty = Observation::new(origin.clone(), at, FetchStatus::Http(204), None);
        assert_eq!(empty.body, Some(Vec::new()));
        let missing = Observation::new(
            origin.clone(),
            at,
            FetchStatus::Http(404),
            Some(b"not found".to_vec()),
        );
        assert_eq!(missing.body, None);
        let down = Observation::new(origin, at, FetchStatus::Unreachable, None);
        assert_eq!(down.body, None);
    }

    #[test]
    fn a_final_status_outside_200_to_599_is_unreachable() {
        let origin = Origin::parse("https://example.com").unwrap();
        let at: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let observed = |code: u16| {
            let body = Some(b"User-agent: *\nDisallow: /\n".to_vec());
            Observation::new(origin.clone(), at, FetchStatus::Http(code), body)
        };
        for code in [100, 101, 199, 600, 999, 0, u16::MAX] {
            let observation = observed(code);
            assert_eq!(observation.status, FetchStatus::Unreachable, "{code}");
            assert_eq!(observation.body, None, "{code}");
        }
        for code in [200, 301, 404, 429, 503, 599] {
            assert_eq!(observed(code).status, FetchStatus::Http(code));
        }
    }

    /// Keeps what it is given, in order.
    #[derive(Default)]
    struct Kept(Vec<Observation>);

    impl Record for Kept {
        fn record(&mut self, observation: &Observation) -> Result<Recorded, HistoryError> {
            self.0.push(observation.clone());
            Ok(Recorded::Added)
        }

        fn recorded_body(
            &mut self,
            _: &Origin,
            _: &[u8; 32],
        ) -> Result<Option<Vec<u8>>, HistoryError> {
            Ok(None)
        }

        fn keep(&mut self, _: &Origin, body: &[u8]) -> Result<[u8; 32], HistoryError> {
            Ok(sha256(body))
        }
    }

    #[test]
    fn one_observation_per_origin_and_second() {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let a = Origin::parse("https://a.example").unwrap();
        let b = Origin::parse("https://b.example").unwrap();
        let o = |origin: &Origin, s: i64, code: u16| {
            Observation::new(origin.clone(), at(s), FetchStatus::Http(code), None)
        };
        let cases = [
            (
                vec![o(&a, 1, 404), o(&a, 1, 503), o(&b, 1, 410), o(&a, 2, 404)],
                vec![o(&a, 1, 503), o(&b, 1, 410), o(&a, 2, 404)],
            ),
            (vec![], vec![]),
            (vec![o(&a, 1, 404)], vec![o(&a, 1, 404)]),
            (
                vec![o(&a, 1, 404), o(&a, 1, 503), o(&a, 1, 500)],
                vec![o(&a, 1, 500)],
            ),
        ];
        for (given, want) in cases {
            let mut kept = Kept::default();
            let mut per_second = PerSecond::new(&mut kept);
            for observation in given {
                per_second.push(observation).unwrap();
            }
            let tally = per_second.finish().unwrap();
            assert_eq!(tally.added, want.len());
            assert_eq!(kept.0, want);
        }
    }

    #[test]
    fn prefix_reads_stop_at_the_limit() {
        let data = [7u8; 100];
        assert_eq!(read_prefix(&data[..], 40).unwrap().len(), 40);
        assert_eq!(read_prefix(&data[..], 400).unwrap().len(), 100);
    }
}
