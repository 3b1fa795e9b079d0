//! The encoding of `state.json`: the envelope, its checksum, the version check, and the
//! counters' positional rows (`src/state/json/rows.rs`).
//!
//! The file is `{"format":"robots-audit-state","version":N,"payload":...,"sha256":...}`, where
//! `sha256` is the SHA-256 of the payload's bytes exactly as they stand in the file (compact
//! JSON; maps as lists of entries sorted by key; the counters as lists of their fields in order,
//! times as seconds since the epoch). A reader refuses another format, another version, or a
//! payload whose checksum differs, each with a message that says what to do.

mod rows;
pub mod seconds;

use std::io::{self, Write as _};

use serde::Deserialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::{State, StateError};
use crate::versions::summary::hex;

/// The file name in a report directory.
pub const FILE: &str = "state.json";
/// The `format` field.
pub const FORMAT: &str = "robots-audit-state";
/// The version this build writes and the only one it reads. 2 added the crawl-rate counters,
/// the preference-conflict counts and whether an agent honours `Crawl-delay`; 3 writes the
/// counters as lists without field names and their times as seconds; 4 fingerprints an input
/// by its decompressed content (3 by its bytes as read, compressed or not), so that `a.log` and
/// `a.log.gz` are one input, and records the `--raw-csv` setting; 5 counts the robots.txt
/// fetches of unknown user-agent headers, an input's assumed time zone, and what was folded
/// past the bound on traffic-minted names (`src/audit/fold.rs`). An older state's inputs must
/// be audited again.
pub const VERSION: u32 = 5;

/// A writer that hashes what it passes on: the payload's checksum, computed as it is written.
struct Hashing<W> {
    out: W,
    sha256: Sha256,
}

impl<W: io::Write> io::Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.sha256.update(bytes.get(..written).unwrap_or_default());
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The file as read: the payload kept as its bytes until the checksum has been verified.
#[derive(Deserialize)]
struct EnvelopeIn<'a> {
    format: String,
    version: u32,
    sha256: String,
    #[serde(borrow)]
    payload: &'a RawValue,
}

/// Writes `state` as `state.json` to `out` as it is serialised, the checksum last: a night over
/// many origins has a state of hundreds of megabytes, never held in memory as text.
pub fn write(state: &State, out: impl io::Write) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    write!(
        out,
        r#"{{"format":{},"version":{VERSION},"payload":"#,
        serde_json::to_string(FORMAT).map_err(io::Error::other)?
    )?;
    // The serialiser writes a token at a time: they are gathered before they are hashed, so
    // that the hash is updated a buffer at a time instead of a few bytes at a time.
    let mut hashing = io::BufWriter::with_capacity(
        1 << 16,
        Hashing {
            out: &mut out,
            sha256: Sha256::new(),
        },
    );
    serde_json::to_writer(&mut hashing, state).map_err(io::Error::other)?;
    let hashing = hashing
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    let sha256 = hex(hashing.sha256.finalize());
    writeln!(out, r#","sha256":"{sha256}"}}"#)?;
    out.flush()
}

/// Parses the bytes of a `state.json`, verifying its format, version and checksum.
pub fn parse(bytes: &[u8]) -> Result<State, StateError> {
    let envelope: EnvelopeIn<'_> =
        serde_json::from_slice(bytes).map_err(|e| StateError::Corrupt(e.to_string()))?;
    if envelope.format != FORMAT {
        return Err(StateError::Format(envelope.format));
    }
    if envelope.version > VERSION {
        return Err(StateError::Newer(envelope.version));
    }
    if envelope.version != VERSION {
        return Err(StateError::Older(envelope.version));
    }
    if checksum(envelope.payload.get()) != envelope.sha256 {
        return Err(StateError::Checksum);
    }
    serde_json::from_str(envelope.payload.get()).map_err(|e| StateError::Shape(e.to_string()))
}

/// SHA-256 of the payload's bytes, in hex.
fn checksum(payload: &str) -> String {
    hex(Sha256::digest(payload.as_bytes()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::state::Settings;

    fn state() -> State {
        State {
            settings: Settings {
                grace_seconds: 86_400,
                catalog_sha256: "ab".into(),
                format: "auto".into(),
                ..Settings::default()
            },
            agents: vec![],
            origins: vec!["https://e.com".into()],
            robots: Arc::default(),
            streamed: vec!["violations.csv".into()],
            folded: Default::default(),
            inputs: vec![],
        }
    }

    fn written(state: &State) -> Vec<u8> {
        let mut bytes = Vec::new();
        write(state, &mut bytes).unwrap();
        bytes
    }

    #[test]
    fn a_state_reads_back_as_written() {
        let state = state();
        assert_eq!(parse(&written(&state)).unwrap(), state);
    }

    #[test]
    fn damage_tampering_and_newer_versions_are_refused() {
        let bytes = String::from_utf8(written(&state())).unwrap();
        let version = |v: u32| format!("\"version\":{v}");
        let cases = [
            (bytes[..bytes.len() / 2].to_owned(), "corrupt or cut short"),
            (
                bytes.replace("https://e.com", "https://f.com"),
                "checksum mismatch",
            ),
            (
                bytes.replace(&version(VERSION), &version(VERSION + 1)),
                "newer than",
            ),
            (
                bytes.replace(&version(VERSION), &version(VERSION - 1)),
                "older robots-audit",
            ),
            (bytes.replace(FORMAT, "other"), "is not"),
        ];
        for (text, expected) in cases {
            let err = parse(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
    }
}
