//! Robots history: building the manifest source that `audit --robots DIR/manifest.csv` reads.
//!
//! Three producers observe an origin's robots.txt at moments in time: a live fetch
//! ([`fetch`]), the Wayback Machine's archive ([`wayback`]) and a git repository ([`git`]).
//! Each turns what it saw into [`Observation`]s; [`manifest`] merges them into `DIR/manifest.csv`.
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

pub mod fetch;
pub mod git;
pub mod manifest;
pub mod wayback;

use jiff::Timestamp;

use crate::origin::Origin;
use crate::policy::FetchStatus;
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
    /// [`GOOGLEBOT_MAX_BYTES`] bytes as Google's crawler does.
    pub fn new(
        origin: Origin,
        at: Timestamp,
        status: FetchStatus,
        body: Option<Vec<u8>>,
    ) -> Observation {
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

/// Keeps, of observations of one origin made in the same second, only the last: the manifest
/// holds one row per origin and second, and recording both would replace the first with the
/// second on every run instead of adding nothing the second time. `observations` are in time
/// order.
pub fn keep_last_per_second(observations: &mut Vec<Observation>) {
    let mut kept: Vec<Observation> = Vec::with_capacity(observations.len());
    for observation in observations.drain(..) {
        match kept.last_mut() {
            Some(last) if last.at == observation.at && last.origin == observation.origin => {
                *last = observation;
            }
            _ => kept.push(observation),
        }
    }
    *observations = kept;
}

/// A history command that could not do its work; the message names what and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryError(pub String);

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HistoryError {}

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
    fn one_observation_per_origin_and_second() {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let a = Origin::parse("https://a.example").unwrap();
        let b = Origin::parse("https://b.example").unwrap();
        let o = |origin: &Origin, s: i64, code: u16| {
            Observation::new(origin.clone(), at(s), FetchStatus::Http(code), None)
        };
        let mut all = vec![o(&a, 1, 404), o(&a, 1, 503), o(&b, 1, 410), o(&a, 2, 404)];
        keep_last_per_second(&mut all);
        assert_eq!(all, [o(&a, 1, 503), o(&b, 1, 410), o(&a, 2, 404)]);
    }

    #[test]
    fn prefix_reads_stop_at_the_limit() {
        let data = [7u8; 100];
        assert_eq!(read_prefix(&data[..], 40).unwrap().len(), 40);
        assert_eq!(read_prefix(&data[..], 400).unwrap().len(), 100);
    }
}
