//! What the archive's copies held, kept in the history directory between runs:
//! `DIR/.wayback-copies.csv`, one row per content read (`service,origin,digest,status,sha256`).
//!
//! `import --wayback` reads at most `--max-copies` copies of an origin in one run and leaves the
//! rest for the next run. The next run must not read again what this one read, or it would stop
//! at the same place every time: within a run, a content once read is known by the archive's
//! digest (its status and SHA-256; the body is in the history directory, stored as it was read),
//! and this file carries that knowledge to the next run. A run then reads only the digests no
//! run has read, and goes through the captures exactly as one run without a cap would, so the
//! rows it ends with are the same.
//!
//! Invariants:
//! - a row is added only for a copy actually read from `service` for `origin` (never for a
//!   redirect that was not followed, nor a copy that failed), and for a 2xx status only once its
//!   body is stored under its SHA-256 (`<host>[_<port>]/<sha256>.txt`);
//! - the rows are keyed by service and origin, so another archive's digests or another origin's
//!   never stand for this one's;
//! - it is a cache: a row that cannot be read, or whose file is gone or holds other bytes, only
//!   costs that copy being read again; deleting the file makes the next run read every copy;
//! - it is written like the manifest (a temporary file, synced, renamed, the directory synced),
//!   by the command holding the directory's lock, before the manifest, and also every
//!   [`SAVE_EVERY`] copies read: an import stopped part-way (a kill, a job's time limit) keeps
//!   what it read, and the next one goes on from there instead of reading the same copies again
//!   and being stopped at the same place.
//!
//! The directory robots source skips names that start with `.`, so the file is never read as a
//! robots.txt.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use super::HistoryError;
use super::manifest::sync_dir;
use crate::commit::AtomicFile;
use crate::versions::summary::hex;

/// The file's name inside the history directory.
pub const COPIES_NAME: &str = ".wayback-copies.csv";

/// How many copies are read between two writes of the log during an import.
pub const SAVE_EVERY: usize = 50;

/// The file's header.
const HEADER: [&str; 5] = ["service", "origin", "digest", "status", "sha256"];

/// What a copy held: the status it was read with and its content's SHA-256.
pub type Copy = (u16, [u8; 32]);

/// The copies read from archives, by service and origin, then by the archive's digest.
#[derive(Debug)]
pub struct CopyLog {
    path: PathBuf,
    /// By service, then origin, then digest.
    known: BTreeMap<String, BTreeMap<String, HashMap<String, Copy>>>,
    /// Copies recorded since the log was last written.
    unsaved: usize,
}

impl CopyLog {
    /// Reads `dir`'s copy log, if any. Call it while holding the directory's lock (an open
    /// [`super::manifest::Manifest`]), and [`CopyLog::commit`] before that is released.
    pub fn load(dir: &Path) -> Result<CopyLog, HistoryError> {
        let path = dir.join(COPIES_NAME);
        let mut log = CopyLog {
            path,
            known: BTreeMap::new(),
            unsaved: 0,
        };
        let body = match fs::read(&log.path) {
            Ok(body) => body,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(log),
            Err(source) => {
                return Err(HistoryError::Read {
                    path: log.path,
                    source,
                });
            }
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(&body[..]);
        for record in reader.byte_records() {
            // A row that cannot be read is as if it were not there: that copy is read again.
            let Ok(record) = record else { continue };
            let Some([service, origin, digest, status, sha]) = fields(&record) else {
                continue;
            };
            let (Ok(status), Some(sha)) = (status.parse::<u16>(), unhex(sha)) else {
                continue;
            };
            log.known
                .entry(service.to_owned())
                .or_default()
                .entry(origin.to_owned())
                .or_default()
                .insert(digest.to_owned(), (status, sha));
        }
        Ok(log)
    }

    /// What the copy of `digest` held, as read from `service` for `origin`.
    pub fn get(&self, service: &str, origin: &str, digest: &str) -> Option<Copy> {
        self.known.get(service)?.get(origin)?.get(digest).copied()
    }

    /// Records what the copy of `digest` held.
    pub fn insert(&mut self, service: &str, origin: &str, digest: &str, copy: Copy) {
        let copies = self
            .known
            .entry(service.to_owned())
            .or_default()
            .entry(origin.to_owned())
            .or_default();
        if copies.insert(digest.to_owned(), copy) != Some(copy) {
            self.unsaved += 1;
        }
    }

    /// [`Self::commit`] once [`SAVE_EVERY`] copies were recorded since the last write; called
    /// as copies are read.
    pub fn save_now_and_then(&mut self) -> Result<(), HistoryError> {
        if self.unsaved >= SAVE_EVERY {
            self.commit()?;
        }
        Ok(())
    }

    /// Writes the log if anything was added since it was last written: to a temporary file in
    /// the same directory, synced, renamed, the directory synced. Returns whether it wrote.
    pub fn commit(&mut self) -> Result<bool, HistoryError> {
        if self.unsaved == 0 {
            return Ok(false);
        }
        let fail = |source: std::io::Error| HistoryError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut file = AtomicFile::create(dir, COPIES_NAME).map_err(fail)?;
        {
            let mut writer = csv::WriterBuilder::new().from_writer(&mut file);
            writer.write_record(HEADER).map_err(|e| fail(e.into()))?;
            let origins = self.known.iter().flat_map(|(service, origins)| {
                origins
                    .iter()
                    .map(move |(origin, copies)| (service, origin, copies))
            });
            for (service, origin, copies) in origins {
                let mut digests: Vec<_> = copies.iter().collect();
                digests.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (digest, (status, sha)) in digests {
                    writer
                        .write_record([
                            service.as_bytes(),
                            origin.as_bytes(),
                            digest.as_bytes(),
                            status.to_string().as_bytes(),
                            hex(sha).as_bytes(),
                        ])
                        .map_err(|e| fail(e.into()))?;
                }
            }
            writer.flush().map_err(fail)?;
        }
        file.commit().map_err(fail)?;
        sync_dir(dir).map_err(fail)?;
        self.unsaved = 0;
        Ok(true)
    }
}

/// A row's five fields; `None` when it has another number of them, or one is not UTF-8.
fn fields(record: &csv::ByteRecord) -> Option<[&str; 5]> {
    if record.len() != HEADER.len() {
        return None;
    }
    let mut fields = [""; 5];
    for (field, bytes) in fields.iter_mut().zip(record) {
        *field = std::str::from_utf8(bytes).ok()?;
    }
    Some(fields)
}

/// The 32 bytes written as 64 lower-case hex digits, as [`hex`] writes them.
fn unhex(text: &str) -> Option<[u8; 32]> {
    let digits = text.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0u8; 32];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = (value(pair[0])? << 4) | value(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::sha256;

    #[test]
    fn what_is_committed_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = CopyLog::load(dir.path()).unwrap();
        assert_eq!(log.get("s", "o", "A"), None);
        let (a, b) = ((200, sha256(b"a")), (404, sha256(b"not found")));
        log.insert("https://web.archive.org/", "https://example.com", "A", a);
        log.insert(
            "https://web.archive.org/",
            "https://example.com",
            "B,\"b\"",
            b,
        );
        log.insert("http://127.0.0.1:8080/", "https://example.com", "A", b);
        assert!(log.commit().unwrap());
        let mut log = CopyLog::load(dir.path()).unwrap();
        let archive = "https://web.archive.org/";
        assert_eq!(log.get(archive, "https://example.com", "A"), Some(a));
        assert_eq!(log.get(archive, "https://example.com", "B,\"b\""), Some(b));
        assert_eq!(
            log.get("http://127.0.0.1:8080/", "https://example.com", "A"),
            Some(b),
            "each service's digests are its own"
        );
        assert_eq!(log.get(archive, "http://example.com", "A"), None);
        log.insert(archive, "https://example.com", "A", a);
        assert!(!log.commit().unwrap(), "nothing new, nothing written");
    }

    #[test]
    fn rows_that_cannot_be_read_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let good = hex(sha256(b"a"));
        let text = format!(
            "service,origin,digest,status,sha256\n\
             s,o,A,200,{good}\n\
             s,o,B,2000000,{good}\n\
             s,o,C,200,{}\n\
             s,o,D,200,{}\n\
             s,o,E,200\n\
             s,o,F,200,{good},more\n\
             s,o,G@,200,{good}\n",
            &good[1..],
            good.to_uppercase(),
        );
        // Invalid UTF-8 in a digest: that row only is left out.
        let bytes: Vec<u8> = text
            .bytes()
            .map(|b| if b == b'@' { 0xff } else { b })
            .collect();
        fs::write(dir.path().join(COPIES_NAME), bytes).unwrap();
        let log = CopyLog::load(dir.path()).unwrap();
        assert_eq!(log.get("s", "o", "A"), Some((200, sha256(b"a"))));
        for digest in ["B", "C", "D", "E", "F", "G", "G\u{fffd}"] {
            assert_eq!(log.get("s", "o", digest), None, "{digest}");
        }
    }
}
