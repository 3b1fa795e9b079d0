//! `DIR/manifest.csv` and its files: read, merge observations in, replace atomically.
//!
//! The manifest is the one `audit --robots DIR/manifest.csv` reads (header
//! `origin,valid_from,status,file`, files relative to the manifest). Rows already there are
//! kept as written, whoever wrote them; only their order changes (sorted by origin, then
//! `valid_from`). An open manifest holds the directory's lock (`DIR/.manifest.lock`) until it is
//! committed or dropped: each command replaces the manifest whole, so of two commands updating
//! one directory at once, the last to finish would drop the other's rows.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::error::ManifestError;
use super::{HistoryError, Observation, Record, Recorded, sha256};
use crate::commit::{AtomicFile, DirLock, HolderText, LockRefused};
use crate::origin::Origin;
use crate::versions::FetchStatus;
use crate::versions::source::{
    MANIFEST_HEADER, manifest_columns, manifest_origin_key, manifest_status, manifest_valid_from,
};
use crate::versions::summary::hex;
use robots_audit_engine::GOOGLEBOT_MAX_BYTES;

/// The manifest's file name inside the history directory.
pub const MANIFEST_NAME: &str = "manifest.csv";

/// The lock file's name inside the history directory. It stays there (a few bytes, naming the
/// last holder): removing a lock file races with a command that has just opened it.
pub const LOCK_NAME: &str = ".manifest.lock";

/// One manifest row: the fields as written, and their parsed meaning.
#[derive(Debug, Clone)]
struct Row {
    origin: String,
    valid_from: String,
    status: String,
    file: String,
    key: String,
    from: Option<Timestamp>,
    parsed_status: FetchStatus,
}

/// An open history directory: its manifest's rows, changed in memory until [`commit`].
///
/// [`commit`]: Manifest::commit
#[derive(Debug)]
pub struct Manifest {
    dir: PathBuf,
    rows: Vec<Row>,
    changed: bool,
    /// SHA-256 of each file the manifest names (of its first 500 KiB), read once.
    digests: HashMap<String, [u8; 32]>,
    /// Held from before the manifest is read until it is committed or dropped.
    _lock: DirLock,
}

impl Manifest {
    /// Opens (creating it if needed) the history directory `dir`, takes its lock and reads its
    /// manifest, if any. Fails when another command holds the lock, or when the manifest is not
    /// one.
    pub fn open(dir: &Path) -> Result<Manifest, HistoryError> {
        Manifest::lock_and_read(dir, false, |_| {})
    }

    /// [`Manifest::open`], waiting for the command that holds the lock, if any, to end;
    /// `waiting` is told who holds it.
    pub fn open_waiting(
        dir: &Path,
        waiting: impl FnOnce(&HolderText),
    ) -> Result<Manifest, HistoryError> {
        Manifest::lock_and_read(dir, true, waiting)
    }

    fn lock_and_read(
        dir: &Path,
        wait: bool,
        waiting: impl FnOnce(&HolderText),
    ) -> Result<Manifest, HistoryError> {
        fs::create_dir_all(dir).map_err(|source| HistoryError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let lock_path = dir.join(LOCK_NAME);
        let lock = DirLock::take(&lock_path, wait, waiting).map_err(|refused| match refused {
            LockRefused::Held(holder) => HistoryError::Locked {
                dir: dir.to_path_buf(),
                holder,
            },
            LockRefused::Failed(source) => HistoryError::Lock {
                path: lock_path.clone(),
                source,
            },
        })?;
        let path = dir.join(MANIFEST_NAME);
        let rows = match fs::read(&path) {
            Ok(body) => parse(&path, &body)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(source) => return Err(HistoryError::Read { path, source }),
        };
        let mut manifest = Manifest {
            dir: dir.to_path_buf(),
            rows,
            changed: false,
            digests: HashMap::new(),
            _lock: lock,
        };
        manifest.sort();
        Ok(manifest)
    }

    /// The history directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest's path.
    pub fn path(&self) -> PathBuf {
        self.dir.join(MANIFEST_NAME)
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the manifest has no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Merges one observation in: a row (and its file) is added only when the status or the
    /// content differs from the row of that origin in force at `observation.at`.
    pub fn record(&mut self, observation: &Observation) -> Result<Recorded, HistoryError> {
        let key = observation.origin.to_string();
        let at = observation.at;
        // Rows are sorted by (key, from), `None` first: the row in force is the last one of
        // this key whose `from` is not after `at`.
        let end = self
            .rows
            .partition_point(|r| (r.key.as_str(), r.from) <= (key.as_str(), Some(at)));
        let in_force = end.checked_sub(1).filter(|&i| self.rows[i].key == key);
        if let Some(i) = in_force
            && self.same_as(i, observation)?
        {
            return Ok(Recorded::Unchanged);
        }
        let row = self.new_row(observation)?;
        self.changed = true;
        match in_force {
            Some(i) if self.rows[i].from == Some(at) => {
                self.rows[i] = row;
                Ok(Recorded::Replaced)
            }
            _ => {
                self.rows.insert(end, row);
                Ok(Recorded::Added)
            }
        }
    }

    /// Writes the manifest if anything changed: to a temporary file in the same directory,
    /// synced, renamed over `manifest.csv`, and the directory synced. Returns whether it wrote.
    pub fn commit(self) -> Result<bool, HistoryError> {
        if !self.changed {
            return Ok(false);
        }
        let fail = |source: std::io::Error| HistoryError::Write {
            path: self.path(),
            source,
        };
        let mut file = AtomicFile::create(&self.dir, MANIFEST_NAME).map_err(fail)?;
        {
            let mut writer = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(&mut file);
            writer
                .write_record(MANIFEST_HEADER.split(','))
                .map_err(|e| fail(e.into()))?;
            for row in &self.rows {
                writer
                    .write_record([&row.origin, &row.valid_from, &row.status, &row.file])
                    .map_err(|e| fail(e.into()))?;
            }
            writer.flush().map_err(fail)?;
        }
        file.commit().map_err(fail)?;
        sync_dir(&self.dir).map_err(fail)?;
        Ok(true)
    }

    fn sort(&mut self) {
        self.rows
            .sort_by(|a, b| (a.key.as_str(), a.from).cmp(&(b.key.as_str(), b.from)));
    }

    /// Whether row `i` says what `observation` says: the same status and, for 2xx, the same
    /// first 500 KiB of content.
    fn same_as(&mut self, i: usize, observation: &Observation) -> Result<bool, HistoryError> {
        if self.rows[i].parsed_status != observation.status {
            return Ok(false);
        }
        let Some(body) = &observation.body else {
            return Ok(true);
        };
        let file = self.rows[i].file.clone();
        if file.is_empty() {
            // A 2xx row without a file (the audit refuses those) never equals a fetched file.
            return Ok(false);
        }
        let digest = match self.digests.get(&file) {
            Some(digest) => *digest,
            None => {
                let path = self.dir.join(&file);
                // Only what the audit reads of it: its first 500 KiB.
                let mut content = Vec::new();
                File::open(&path)
                    .and_then(|f| f.take(GOOGLEBOT_MAX_BYTES as u64).read_to_end(&mut content))
                    .map_err(|source| HistoryError::NamedFile {
                        manifest: self.path(),
                        file: path,
                        source,
                    })?;
                let digest = sha256(&content);
                self.digests.insert(file, digest);
                digest
            }
        };
        Ok(digest == sha256(body))
    }

    /// The row for an observation, after its file (if any) is safely on disk.
    fn new_row(&mut self, observation: &Observation) -> Result<Row, HistoryError> {
        let file = match &observation.body {
            Some(body) => {
                let digest = sha256(body);
                let name = format!("{}/{}.txt", host_dir(&observation.origin), hex(digest));
                store(&self.dir, &name, body, digest)?;
                self.digests.insert(name.clone(), digest);
                name
            }
            None => String::new(),
        };
        Ok(Row {
            origin: observation.origin.to_string(),
            valid_from: observation.at.to_string(),
            status: observation.status.to_string(),
            file,
            key: observation.origin.to_string(),
            from: Some(observation.at),
            parsed_status: observation.status,
        })
    }
}

impl Record for Manifest {
    fn record(&mut self, observation: &Observation) -> Result<Recorded, HistoryError> {
        Manifest::record(self, observation)
    }

    /// Reads back the file of `origin`'s content by its name (`<host>[_<port>]/<sha256>.txt`,
    /// where [`Record::keep`] and every new row put it), or else a file this manifest wrote or
    /// compared with in this run, and checks that it still holds that content (it is `None`
    /// otherwise).
    fn recorded_body(
        &mut self,
        origin: &Origin,
        sha256_wanted: &[u8; 32],
    ) -> Result<Option<Vec<u8>>, HistoryError> {
        let named = format!("{}/{}.txt", host_dir(origin), hex(sha256_wanted));
        if let Some(body) = self.read_verified(&named, sha256_wanted, true)? {
            return Ok(Some(body));
        }
        let Some(file) = self
            .digests
            .iter()
            .find(|(_, digest)| *digest == sha256_wanted)
            .map(|(file, _)| file.clone())
        else {
            return Ok(None);
        };
        self.read_verified(&file, sha256_wanted, false)
    }

    fn keep(&mut self, origin: &Origin, body: &[u8]) -> Result<[u8; 32], HistoryError> {
        let digest = sha256(body);
        let name = format!("{}/{}.txt", host_dir(origin), hex(digest));
        store(&self.dir, &name, body, digest)?;
        self.digests.insert(name, digest);
        Ok(digest)
    }
}

impl Manifest {
    /// The first 500 KiB of `file` when they hash to `wanted`. A file that is not there is
    /// `None` when `may_be_missing`, and an error otherwise (the manifest names it).
    fn read_verified(
        &self,
        file: &str,
        wanted: &[u8; 32],
        may_be_missing: bool,
    ) -> Result<Option<Vec<u8>>, HistoryError> {
        let path = self.dir.join(file);
        let mut body = Vec::new();
        let read = File::open(&path)
            .and_then(|f| f.take(GOOGLEBOT_MAX_BYTES as u64).read_to_end(&mut body));
        match read {
            Ok(_) => Ok((sha256(&body) == *wanted).then_some(body)),
            Err(e) if may_be_missing && e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(HistoryError::NamedFile {
                manifest: self.path(),
                file: path,
                source,
            }),
        }
    }
}

/// The rows of one origin as they were, to put back with [`Manifest::restore`].
#[derive(Debug)]
pub struct SavedRows {
    key: String,
    rows: Vec<Row>,
    changed: bool,
}

impl Manifest {
    /// The rows of `origin` as they are now: an import that fails half-way through an origin
    /// puts them back, so the manifest never holds half of an origin's history. (Files it
    /// stored stay, unnamed: they are named by their content, and the next import that meets
    /// that content uses them.)
    pub fn save(&self, origin: &Origin) -> SavedRows {
        let key = origin.to_string();
        SavedRows {
            rows: self.rows.iter().filter(|r| r.key == key).cloned().collect(),
            key,
            changed: self.changed,
        }
    }

    /// Puts back the rows of an origin saved by [`Manifest::save`].
    pub fn restore(&mut self, saved: SavedRows) {
        self.rows.retain(|r| r.key != saved.key);
        self.rows.extend(saved.rows);
        self.changed = saved.changed;
        self.sort();
    }
}

/// The directory of an origin's files: its host, with `_<port>` for a non-default port (the
/// convention of the dated-directory robots source).
fn host_dir(origin: &Origin) -> String {
    match origin.port() {
        Some(port) => format!("{}_{port}", origin.host()),
        None => origin.host().to_owned(),
    }
}

/// Writes `dir/name` unless a file with that content is already there: to a temporary name,
/// synced, then renamed, so a file under its final name is always complete.
fn store(dir: &Path, name: &str, body: &[u8], digest: [u8; 32]) -> Result<(), HistoryError> {
    let path = dir.join(name);
    if fs::read(&path).is_ok_and(|existing| sha256(&existing) == digest) {
        return Ok(());
    }
    let fail = |source: std::io::Error| HistoryError::Write {
        path: path.clone(),
        source,
    };
    let parent = path.parent().unwrap_or(dir);
    fs::create_dir_all(parent).map_err(fail)?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let mut file = AtomicFile::create(parent, file_name).map_err(fail)?;
    file.write_all(body).map_err(fail)?;
    file.commit().map_err(fail)?;
    sync_dir(parent).map_err(fail)
}

/// Makes a rename inside `dir` durable.
pub(super) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Reads a manifest's rows with the rules the audit applies (`versions::source`), so a manifest
/// this module accepts is one the audit accepts.
fn parse(path: &Path, body: &[u8]) -> Result<Vec<Row>, ManifestError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(body);
    let csv_error = |source: csv::Error| ManifestError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let header = reader.byte_headers().map_err(csv_error)?;
    let columns = manifest_columns(header).map_err(|e| ManifestError::NotAManifest {
        path: path.to_path_buf(),
        problem: e.to_string(),
    })?;
    let mut rows = Vec::new();
    for record in reader.byte_records() {
        let record = record.map_err(csv_error)?;
        let line = record.position().map_or(0, |p| p.line());
        let fail = |problem: String| ManifestError::Row {
            path: path.to_path_buf(),
            line,
            problem,
        };
        if record.len() != 4 {
            return Err(fail(format!(
                "expected 4 fields, as in the header, found {}",
                record.len()
            )));
        }
        let field = |column: usize| {
            std::str::from_utf8(&record[columns[column]])
                .map(str::to_owned)
                .map_err(|_| fail("a field is not valid UTF-8".into()))
        };
        let (origin, valid_from, status, file) = (field(0)?, field(1)?, field(2)?, field(3)?);
        let key =
            manifest_origin_key(&origin).map_err(|e| fail(format!("origin {origin:?}: {e}")))?;
        let from = manifest_valid_from(&valid_from).map_err(|e| fail(e.to_string()))?;
        let parsed_status = manifest_status(&status).map_err(|e| fail(e.to_string()))?;
        rows.push(Row {
            origin,
            valid_from,
            status,
            file,
            key,
            from,
            parsed_status,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(at: &str, status: FetchStatus, body: Option<&str>) -> Observation {
        Observation::new(
            Origin::parse("https://example.com").unwrap(),
            at.parse().unwrap(),
            status,
            body.map(|b| b.as_bytes().to_vec()),
        )
    }

    fn manifest_text(dir: &Path) -> String {
        fs::read_to_string(dir.join(MANIFEST_NAME)).unwrap()
    }

    #[test]
    fn one_row_per_change_and_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let ok = FetchStatus::Http(200);
        let history = [
            observation("2026-01-01T00:00:00Z", ok, Some("a")),
            observation("2026-01-02T00:00:00Z", ok, Some("a")),
            observation("2026-01-03T00:00:00Z", FetchStatus::Http(503), None),
            observation("2026-01-04T00:00:00Z", FetchStatus::Http(503), None),
            observation("2026-01-05T00:00:00Z", ok, Some("b")),
            observation("2026-01-06T00:00:00Z", ok, Some("a")),
        ];
        let mut manifest = Manifest::open(dir.path()).unwrap();
        let results: Vec<Recorded> = history
            .iter()
            .map(|o| manifest.record(o).unwrap())
            .collect();
        use Recorded::*;
        assert_eq!(
            results,
            [Added, Unchanged, Added, Unchanged, Added, Added],
            "{results:?}"
        );
        assert!(manifest.commit().unwrap());
        let first = manifest_text(dir.path());
        let a = hex(sha256(b"a"));
        let b = hex(sha256(b"b"));
        assert_eq!(
            first,
            format!(
                "origin,valid_from,status,file\n\
                 https://example.com,2026-01-01T00:00:00Z,200,example.com/{a}.txt\n\
                 https://example.com,2026-01-03T00:00:00Z,503,\n\
                 https://example.com,2026-01-05T00:00:00Z,200,example.com/{b}.txt\n\
                 https://example.com,2026-01-06T00:00:00Z,200,example.com/{a}.txt\n"
            )
        );
        assert_eq!(
            fs::read(dir.path().join(format!("example.com/{a}.txt"))).unwrap(),
            b"a"
        );

        let mut again = Manifest::open(dir.path()).unwrap();
        for o in &history {
            assert_eq!(again.record(o).unwrap(), Unchanged);
        }
        assert!(!again.commit().unwrap(), "nothing new: nothing written");
        assert_eq!(manifest_text(dir.path()), first);
    }

    #[test]
    fn merges_with_rows_already_there_and_sorts() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("old.txt"), "a").unwrap();
        fs::write(
            dir.path().join(MANIFEST_NAME),
            "origin,valid_from,status,file\n\
             zeta.example,,404,\n\
             https://example.com,2026-01-10T00:00:00Z,200,old.txt\n",
        )
        .unwrap();
        let mut manifest = Manifest::open(dir.path()).unwrap();
        let ok = FetchStatus::Http(200);
        // Same content as the hand-written row in force: nothing new.
        assert_eq!(
            manifest
                .record(&observation("2026-01-11T00:00:00Z", ok, Some("a")))
                .unwrap(),
            Recorded::Unchanged
        );
        // Earlier than every row of the origin: inserted before them.
        assert_eq!(
            manifest
                .record(&observation(
                    "2025-06-01T00:00:00Z",
                    FetchStatus::Unreachable,
                    None
                ))
                .unwrap(),
            Recorded::Added
        );
        manifest.commit().unwrap();
        assert_eq!(
            manifest_text(dir.path()),
            "origin,valid_from,status,file\n\
             https://example.com,2025-06-01T00:00:00Z,unreachable,\n\
             https://example.com,2026-01-10T00:00:00Z,200,old.txt\n\
             zeta.example,,404,\n"
        );
    }

    /// A manifest the audit reads (columns in any order, `docs/contract.md`) is one `fetch` and
    /// `import` extend; it is written back in the header's order. A column the audit would
    /// refuse is named.
    #[test]
    fn columns_in_any_order_are_read_as_the_audit_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("old.txt"), "a").unwrap();
        fs::write(
            dir.path().join(MANIFEST_NAME),
            "File, Status ,origin,VALID_FROM\n\
             old.txt,200,https://example.com,2026-01-10T00:00:00Z\n",
        )
        .unwrap();
        let mut manifest = Manifest::open(dir.path()).unwrap();
        manifest
            .record(&observation(
                "2026-01-11T00:00:00Z",
                FetchStatus::Http(404),
                None,
            ))
            .unwrap();
        manifest.commit().unwrap();
        assert_eq!(
            manifest_text(dir.path()),
            "origin,valid_from,status,file\n\
             https://example.com,2026-01-10T00:00:00Z,200,old.txt\n\
             https://example.com,2026-01-11T00:00:00Z,404,\n"
        );
        fs::write(
            dir.path().join(MANIFEST_NAME),
            "origin,valid_from,status,file,note\n",
        )
        .unwrap();
        let error = Manifest::open(dir.path()).err().unwrap().to_string();
        assert!(error.contains("unknown column \"note\""), "{error}");
    }

    #[test]
    fn a_second_answer_in_the_same_second_replaces_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::open(dir.path()).unwrap();
        let t = "2026-01-01T00:00:00Z";
        manifest
            .record(&observation(t, FetchStatus::Http(200), Some("a")))
            .unwrap();
        assert_eq!(
            manifest
                .record(&observation(t, FetchStatus::Http(500), None))
                .unwrap(),
            Recorded::Replaced
        );
        assert_eq!(manifest.len(), 1);
        manifest.commit().unwrap();
        assert_eq!(
            manifest_text(dir.path()),
            "origin,valid_from,status,file\nhttps://example.com,2026-01-01T00:00:00Z,500,\n"
        );
    }

    #[test]
    fn uncommitted_changes_leave_the_manifest_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let before = "origin,valid_from,status,file\nexample.com,,404,\n";
        fs::write(dir.path().join(MANIFEST_NAME), before).unwrap();
        {
            let mut manifest = Manifest::open(dir.path()).unwrap();
            manifest
                .record(&observation(
                    "2026-01-01T00:00:00Z",
                    FetchStatus::Http(200),
                    Some("x"),
                ))
                .unwrap();
            // Dropped without commit: a crash before the rename.
        }
        assert_eq!(manifest_text(dir.path()), before);
    }

    #[test]
    fn a_file_that_is_no_manifest_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST_NAME), "User-agent: *\n").unwrap();
        let e = Manifest::open(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a robots manifest"), "{e}");
        fs::write(
            dir.path().join(MANIFEST_NAME),
            "origin,valid_from,status,file\nexample.com,yesterday,200,a.txt\n",
        )
        .unwrap();
        let e = Manifest::open(dir.path()).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }

    /// An observation drawn by the property test: origin a or b, a second, and one of four
    /// answers (two contents, 503, unreachable).
    fn drawn(origin: u8, second: i64, answer: u8) -> Observation {
        let (status, body) = match answer {
            0 => (FetchStatus::Http(200), Some(b"x".to_vec())),
            1 => (FetchStatus::Http(200), Some(b"y".to_vec())),
            2 => (FetchStatus::Http(503), None),
            _ => (FetchStatus::Unreachable, None),
        };
        Observation::new(
            Origin::parse(if origin == 0 {
                "https://a.example"
            } else {
                "b.example:8080"
            })
            .unwrap(),
            Timestamp::from_second(1_700_000_000 + second).unwrap(),
            status,
            body,
        )
    }

    fn draws() -> impl proptest::strategy::Strategy<Value = Vec<Observation>> {
        use proptest::prelude::*;
        prop::collection::btree_map((0u8..2, 0i64..40), 0u8..4, 0..16).prop_map(|m| {
            let mut all: Vec<Observation> =
                m.into_iter().map(|((o, t), a)| drawn(o, t, a)).collect();
            all.sort_by_key(|o| o.at);
            all
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Whatever the manifest already holds, a command that records its observations (in
        /// time order, one per origin and second) a second time adds nothing and rewrites
        /// nothing; rows stay sorted with one row per origin and second.
        #[test]
        fn a_second_run_adds_nothing(before in draws(), run in draws()) {
            let dir = tempfile::tempdir().unwrap();
            let mut manifest = Manifest::open(dir.path()).unwrap();
            for o in &before {
                manifest.record(o).unwrap();
            }
            manifest.commit().unwrap();
            let mut manifest = Manifest::open(dir.path()).unwrap();
            for o in &run {
                manifest.record(o).unwrap();
            }
            manifest.commit().unwrap();
            let text = fs::read(dir.path().join(MANIFEST_NAME)).ok();

            let mut again = Manifest::open(dir.path()).unwrap();
            for o in &run {
                proptest::prop_assert_eq!(again.record(o).unwrap(), Recorded::Unchanged);
            }
            let keys: Vec<(String, Option<Timestamp>)> =
                again.rows.iter().map(|r| (r.key.clone(), r.from)).collect();
            proptest::prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "{:?}", keys);
            proptest::prop_assert!(!again.commit().unwrap());
            proptest::prop_assert_eq!(fs::read(dir.path().join(MANIFEST_NAME)).ok(), text);
        }
    }

    #[test]
    fn files_of_a_non_default_port_go_under_host_port() {
        let origin = Origin::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(host_dir(&origin), "127.0.0.1_8080");
        assert_eq!(
            host_dir(&Origin::parse("https://example.com:443").unwrap()),
            "example.com"
        );
    }
}
