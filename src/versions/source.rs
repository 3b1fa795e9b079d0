//! Loading robots sources: one file, a directory, or a manifest CSV (`docs/guide/robots-sources.md`).
//!
//! Every failure here is fatal for the run and names the file (and, for a manifest, the line):
//! an audit against the wrong robots.txt is worse than no audit.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use robots_audit_bots::is_rfc3339_offset;
use robots_audit_engine::{GOOGLEBOT_MAX_BYTES, ParseOptions, Robots};
use sha2::{Digest, Sha256};

use super::{FetchStatus, Version, VersionSet};
use crate::origin::{Origin, OriginError, normalize_host};

/// The manifest's header row.
pub const MANIFEST_HEADER: &str = "origin,valid_from,status,file";

/// A robots source that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError(pub String);

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SourceError {}

/// A manifest's header or field, or the name of a robots directory's entry, that does not say
/// what it must. The callers add the file and line.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// A header cell that is not a manifest column.
    #[error("unknown column {0:?} in the header (the columns are {MANIFEST_HEADER}, in any order)")]
    UnknownColumn(String),
    /// A manifest column named twice in the header.
    #[error("column {0:?} appears twice in the header")]
    RepeatedColumn(String),
    /// A manifest column the header does not name.
    #[error("the header has no column {0:?} (the columns are {MANIFEST_HEADER})")]
    MissingColumn(&'static str),
    /// An entry name `host_port` whose port is not a port number.
    #[error("invalid port in {0:?}")]
    Port(String),
    /// A host or origin that cannot be normalised.
    #[error(transparent)]
    Origin(#[from] OriginError),
    /// A `valid_from` that is neither empty nor an RFC 3339 time.
    #[error("valid_from {text:?} is not RFC 3339: {error}")]
    ValidFrom {
        /// The field as written.
        text: String,
        /// Why it was refused.
        error: NotRfc3339,
    },
    /// A `status` that is neither empty, an HTTP status nor `unreachable`.
    #[error("status {0:?} is neither an HTTP status nor 'unreachable'")]
    Status(String),
}

/// Why a time (a manifest's `valid_from`, a dated version's file name) is not RFC 3339.
#[derive(Debug, thiserror::Error)]
pub enum NotRfc3339 {
    /// jiff cannot read it as a time with an offset.
    #[error(transparent)]
    Syntax(#[from] jiff::Error),
    /// An offset that jiff reads but RFC 3339 does not write.
    #[error("the offset {0} is not one RFC 3339 writes (+hh:mm, hours 00 to 23)")]
    Offset(jiff::tz::Offset),
}

/// An RFC 3339 time: `+24:00`, which jiff reads and which would move a version by a day, is
/// refused rather than read ([`is_rfc3339_offset`]).
pub fn rfc3339_time(text: &str) -> Result<Timestamp, NotRfc3339> {
    let time: Timestamp = text.parse()?;
    match jiff::fmt::temporal::Pieces::parse(text)?.to_numeric_offset() {
        Some(offset) if !is_rfc3339_offset(offset) => Err(NotRfc3339::Offset(offset)),
        _ => Ok(time),
    }
}

/// How to load robots sources.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The origin a single robots.txt file belongs to (`--origin`).
    pub origin: Option<Origin>,
    /// The size cut; `None` parses whole files.
    pub max_bytes: Option<usize>,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            origin: None,
            max_bytes: Some(GOOGLEBOT_MAX_BYTES),
        }
    }
}

/// Loads every `--robots` path into one [`VersionSet`], its versions sorted by origin and time
/// ([`VersionSet::sort_versions`]).
///
/// A path is a directory (`<host>.txt` and `<host>/<RFC3339>.txt`), a manifest CSV (recognised
/// by its header row), or a single robots.txt file, which needs `options.origin`.
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<VersionSet, SourceError> {
    let mut loading = Loading::default();
    for path in paths {
        let meta = fs::metadata(path)
            .map_err(|e| SourceError(format!("robots source {}: {e}", path.display())))?;
        if meta.is_dir() {
            load_directory(&mut loading, path, options)?;
        } else {
            let mut start = Vec::new();
            fs::File::open(path)
                .and_then(|file| file.take(HEADER_BYTES).read_to_end(&mut start))
                .map_err(|e| SourceError(format!("cannot read {}: {e}", path.display())))?;
            if is_manifest(path, &start) {
                let body = fs::read(path).map_err(|e| {
                    SourceError(format!("cannot read manifest {}: {e}", path.display()))
                })?;
                load_manifest(&mut loading, path, &body, options)?;
            } else {
                let Some(origin) = &options.origin else {
                    return Err(SourceError(format!(
                        "robots file {} needs --origin to say which site it belongs to \
                         (or use a directory or a manifest)",
                        path.display()
                    )));
                };
                add(
                    &mut loading,
                    origin.to_string(),
                    None,
                    FetchStatus::Http(200),
                    path,
                    None,
                    options,
                )?;
            }
        }
    }
    loading.finish()
}

/// A manifest (as errors name it, shared by its rows) and one of its lines.
type ManifestLine = (Arc<str>, u64);

/// Versions being loaded, with every file read and parsed so far: versions with the same
/// bytes, parsed with the same options, share one [`Robots`] (module docs of
/// [`crate::versions`]). A site served by two servers with different files is archived as a
/// history alternating between them, and costs two parses and compilations, not one per
/// version; a file that many versions name is read once.
#[derive(Default)]
struct Loading {
    /// Each version, with the manifest and line that declared it (for an error about it).
    versions: Vec<(Version, Option<ManifestLine>)>,
    parsed: HashMap<([u8; 32], ParseOptions), Arc<Robots>>,
    /// What each file read so far holds: its SHA-256 and size.
    files: HashMap<PathBuf, ([u8; 32], u64)>,
}

impl Loading {
    /// The versions as one [`VersionSet`]. They join it in order of origin and time, so each
    /// is placed at the end of its timeline: a manifest of a million rows in any order costs
    /// one sort, not a million insertions in the middle. The sort is stable, so of two
    /// versions of one origin valid from the same moment the one loaded second is refused.
    fn finish(mut self) -> Result<VersionSet, SourceError> {
        self.versions
            .sort_by(|(a, _), (b, _)| (&a.origin, a.valid_from).cmp(&(&b.origin, b.valid_from)));
        let mut set = VersionSet::new();
        for (version, line) in self.versions {
            set.add(version).map_err(|e| match line {
                Some((manifest, line)) => SourceError(format!("{manifest} line {line}: {e}")),
                None => SourceError(e.to_string()),
            })?;
        }
        set.sort_versions();
        Ok(set)
    }
}

/// Reads a robots.txt: the first `max_bytes` bytes and one more (so the parse knows it was
/// cut), or all of it without a cut; the rest is only hashed and counted, so a file of any size
/// costs at most that much memory. Returns the bytes kept, the SHA-256 and size of the whole.
fn read_robots(
    path: &Path,
    max_bytes: Option<usize>,
) -> Result<(Vec<u8>, [u8; 32], u64), SourceError> {
    let fail =
        |e: io::Error| SourceError(format!("cannot read robots file {}: {e}", path.display()));
    let mut file = fs::File::open(path).map_err(fail)?;
    let mut kept = Vec::new();
    let keep = max_bytes.map_or(u64::MAX, |n| n as u64 + 1);
    (&mut file)
        .take(keep)
        .read_to_end(&mut kept)
        .map_err(fail)?;
    let mut hasher = Sha256::new();
    hasher.update(&kept);
    let mut size = kept.len() as u64;
    let mut chunk = vec![0; 64 * 1024];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(chunk.get(..n).unwrap_or_default());
                size += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(fail(e)),
        }
    }
    Ok((kept, hasher.finalize().into(), size))
}

/// How much of a robots source file is read to tell a manifest by its header row.
const HEADER_BYTES: u64 = 4096;

/// The manifest's columns, in the order [`MANIFEST_HEADER`] names them.
const MANIFEST_COLUMNS: [&str; 4] = ["origin", "valid_from", "status", "file"];

/// Whether a robots source file is a manifest: a `.csv` file always is (it is never read as a
/// robots.txt), and so is any file whose first line is a comma-separated list naming at least
/// one manifest column. A misspelt header is then reported column by column, instead of the
/// file being read as a robots.txt without rules.
fn is_manifest(path: &Path, body: &[u8]) -> bool {
    let csv_name = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("csv"));
    csv_name || {
        let cells = header_cells(body);
        cells.len() > 1
            && cells.iter().any(|cell| {
                MANIFEST_COLUMNS
                    .iter()
                    .any(|c| cell.eq_ignore_ascii_case(c))
            })
    }
}

/// The first line of `body` split at commas, each cell trimmed (a UTF-8 BOM and CR skipped).
fn header_cells(body: &[u8]) -> Vec<String> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let first = body.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    if !first.contains(&b',') {
        return Vec::new();
    }
    first
        .split(|&b| b == b',')
        .map(|cell| String::from_utf8_lossy(cell.trim_ascii()).into_owned())
        .collect()
}

/// Where each manifest column is in a header row: `[origin, valid_from, status, file]`.
/// Columns may come in any order; case and surrounding spaces do not matter. An unknown,
/// repeated or missing column is an error naming it.
pub fn manifest_columns(header: &csv::ByteRecord) -> Result<[usize; 4], FieldError> {
    let mut at = [None; 4];
    for (index, cell) in header.iter().enumerate() {
        let name = String::from_utf8_lossy(cell.trim_ascii());
        let known = MANIFEST_COLUMNS
            .iter()
            .position(|c| name.eq_ignore_ascii_case(c))
            .ok_or_else(|| FieldError::UnknownColumn(name.clone().into_owned()))?;
        if at[known].replace(index).is_some() {
            return Err(FieldError::RepeatedColumn(name.into_owned()));
        }
    }
    let mut columns = [0; 4];
    for (slot, (found, name)) in columns.iter_mut().zip(at.iter().zip(MANIFEST_COLUMNS)) {
        *slot = found.ok_or(FieldError::MissingColumn(name))?;
    }
    Ok(columns)
}

/// Adds a version whose robots.txt, for a 2xx status, is the file `source` (a status without a
/// file names the manifest); `line` is the manifest line that declares it. A file already read
/// is not read again.
fn add(
    loading: &mut Loading,
    origin: String,
    valid_from: Option<Timestamp>,
    status: FetchStatus,
    source: &Path,
    line: Option<ManifestLine>,
    options: &LoadOptions,
) -> Result<(), SourceError> {
    let parse_options = ParseOptions {
        max_bytes: options.max_bytes,
    };
    let file = matches!(status, FetchStatus::Http(200..=299)).then_some(source);
    let content = match file {
        None => None,
        Some(file) => Some(match loading.files.get(file) {
            Some(&(sha256, bytes)) => (sha256, bytes),
            None => {
                let (body, sha256, bytes) = read_robots(file, options.max_bytes)?;
                loading
                    .parsed
                    .entry((sha256, parse_options))
                    .or_insert_with(|| Arc::new(Robots::parse_with(&body, &parse_options)));
                loading.files.insert(file.to_path_buf(), (sha256, bytes));
                (sha256, bytes)
            }
        }),
    };
    let robots =
        content.and_then(|(sha256, _)| loading.parsed.get(&(sha256, parse_options)).cloned());
    loading.versions.push((
        Version {
            origin,
            valid_from,
            status,
            robots,
            source: source.display().to_string(),
            bytes: content.map_or(0, |(_, bytes)| bytes),
            sha256: content.map(|(sha256, _)| sha256),
        },
        line,
    ));
    Ok(())
}

/// Turns a directory entry name (`example.com`, `example.com_8080`, `bücher.de`) into the
/// any-scheme key `host[:port]`.
fn host_key_from_name(name: &str) -> Result<String, FieldError> {
    let (host, port) = match name.rsplit_once('_') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            let port: u16 = port
                .parse()
                .map_err(|_| FieldError::Port(name.to_owned()))?;
            (host, Some(port))
        }
        _ => (name, None),
    };
    let host = normalize_host(host.as_bytes())?;
    Ok(match port {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// A manifest's `valid_from` field: empty for the version in force from the start, else an
/// RFC 3339 time.
pub fn manifest_valid_from(field: &str) -> Result<Option<Timestamp>, FieldError> {
    match field {
        "" => Ok(None),
        t => rfc3339_time(t)
            .map(Some)
            .map_err(|error| FieldError::ValidFrom {
                text: t.to_owned(),
                error,
            }),
    }
}

/// A manifest's `status` field: empty for 200, an HTTP status, or `unreachable`.
pub fn manifest_status(field: &str) -> Result<FetchStatus, FieldError> {
    match field {
        "" => Ok(FetchStatus::Http(200)),
        s if s.eq_ignore_ascii_case("unreachable") => Ok(FetchStatus::Unreachable),
        s => match s.parse::<u16>() {
            Ok(code @ 100..=599) => Ok(FetchStatus::Http(code)),
            _ => Err(FieldError::Status(s.to_owned())),
        },
    }
}

/// The key under which a manifest's `origin` field is loaded: `scheme://host[:port]` normalised
/// for an origin with a scheme, `host[:port]` (any scheme) for a bare host.
pub fn manifest_origin_key(origin: &str) -> Result<String, FieldError> {
    if origin.contains("://") {
        Ok(Origin::parse(origin)?.to_string())
    } else {
        // The port follows the last colon, after an IPv6 host's closing bracket: the first colon
        // of `[2001:db8::1]` is inside the address.
        match origin.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') || host.ends_with(']') => {
                host_key_from_name(&format!("{host}_{port}"))
            }
            _ => host_key_from_name(origin),
        }
    }
}

fn load_directory(
    loading: &mut Loading,
    dir: &Path,
    options: &LoadOptions,
) -> Result<(), SourceError> {
    let err = |path: &Path, what: String| {
        SourceError(format!("robots directory entry {}: {what}", path.display()))
    };
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| {
            SourceError(format!(
                "cannot list robots directory {}: {e}",
                dir.display()
            ))
        })?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| {
            SourceError(format!(
                "cannot list robots directory {}: {e}",
                dir.display()
            ))
        })?;
    entries.sort();
    let manifest = dir.join("manifest.csv");
    if entries.contains(&manifest) {
        // `fetch` and `import` name files by their content, which no directory source reads.
        return Err(SourceError(format!(
            "robots directory {} holds the manifest that fetch and import write: \
             pass --robots {}",
            dir.display(),
            manifest.display()
        )));
    }
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return Err(err(&path, "the name is not valid UTF-8".into()));
        };
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            let key = host_key_from_name(name).map_err(|e| err(&path, e.to_string()))?;
            load_dated_versions(loading, &path, &key, options)?;
        } else if let Some(host) = name.strip_suffix(".txt") {
            let key = host_key_from_name(host).map_err(|e| err(&path, e.to_string()))?;
            add(
                loading,
                key,
                None,
                FetchStatus::Http(200),
                &path,
                None,
                options,
            )?;
        }
    }
    Ok(())
}

fn load_dated_versions(
    loading: &mut Loading,
    dir: &Path,
    key: &str,
    options: &LoadOptions,
) -> Result<(), SourceError> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .and_then(|rd| rd.map(|entry| entry.map(|e| e.path())).collect())
        .map_err(|e| {
            SourceError(format!(
                "cannot list robots directory {}: {e}",
                dir.display()
            ))
        })?;
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(stamp) = name.strip_suffix(".txt").filter(|_| !name.starts_with('.')) else {
            continue;
        };
        let valid_from = rfc3339_time(stamp).map_err(|e| {
            SourceError(format!(
                "robots version {}: the file name must be an RFC 3339 time such as \
                 2026-11-20T12:00:00Z.txt ({e})",
                path.display()
            ))
        })?;
        add(
            loading,
            key.to_owned(),
            Some(valid_from),
            FetchStatus::Http(200),
            &path,
            None,
            options,
        )?;
    }
    Ok(())
}

fn load_manifest(
    loading: &mut Loading,
    path: &Path,
    body: &[u8],
    options: &LoadOptions,
) -> Result<(), SourceError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let base = path.parent().unwrap_or(Path::new("."));
    let name: Arc<str> = format!("manifest {}", path.display()).into();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(body);
    let header = reader
        .byte_headers()
        .map_err(|e| SourceError(format!("manifest {}: {e}", path.display())))?
        .clone();
    let columns = manifest_columns(&header)
        .map_err(|e| SourceError(format!("manifest {}: {e}", path.display())))?;
    for record in reader.byte_records() {
        let record =
            record.map_err(|e| SourceError(format!("manifest {}: {e}", path.display())))?;
        let line = record.position().map_or(0, |p| p.line());
        let fail =
            |what: String| SourceError(format!("manifest {} line {line}: {what}", path.display()));
        if record.len() != header.len() {
            return Err(fail(format!(
                "expected {} fields, as in the header, found {}",
                header.len(),
                record.len()
            )));
        }
        let field = |column: usize| {
            std::str::from_utf8(&record[columns[column]])
                .map_err(|_| fail("a field is not valid UTF-8".into()))
        };
        let (origin, valid_from, status, file) = (field(0)?, field(1)?, field(2)?, field(3)?);
        let key =
            manifest_origin_key(origin).map_err(|e| fail(format!("origin {origin:?}: {e}")))?;
        let valid_from = manifest_valid_from(valid_from).map_err(|e| fail(e.to_string()))?;
        let status = manifest_status(status).map_err(|e| fail(e.to_string()))?;
        let is_2xx = matches!(status, FetchStatus::Http(200..=299));
        match (is_2xx, file) {
            (true, "") => return Err(fail(format!("status {status} needs a file"))),
            (false, file) if !file.is_empty() => {
                return Err(fail(format!(
                    "status {status} takes no file, found {file:?}"
                )));
            }
            _ => {}
        }
        let source = if file.is_empty() {
            path.to_path_buf()
        } else {
            base.join(file)
        };
        add(
            loading,
            key,
            valid_from,
            status,
            &source,
            Some((Arc::clone(&name), line)),
            options,
        )
        .map_err(|e| fail(e.0))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Versions whose files have the same bytes hold one parsed and compiled `Robots`, whatever
    /// the file is named and whichever source names it; other bytes have their own.
    #[test]
    fn versions_with_the_same_bytes_share_one_robots() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, body: &str| {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, body).unwrap();
            path
        };
        let a = "User-agent: *\nDisallow: /a/\n";
        write("a.txt", a);
        write("a-again.txt", a);
        write("b.txt", "User-agent: *\nDisallow: /b/\n");
        let manifest = write(
            "history.csv",
            "origin,valid_from,status,file\n\
             https://a.example,,200,a.txt\n\
             https://a.example,2026-01-01T00:00:00Z,200,b.txt\n\
             https://a.example,2026-01-02T00:00:00Z,200,a.txt\n\
             https://a.example,2026-01-03T00:00:00Z,503,\n\
             https://a.example,2026-01-04T00:00:00Z,200,a-again.txt\n",
        );
        write("sites/b.example.txt", a);
        let paths = [manifest, dir.path().join("sites")];
        let set = load(&paths, &LoadOptions::default()).unwrap();
        let versions: Vec<(String, Option<&Arc<Robots>>)> = set
            .versions()
            .iter()
            .map(|v| (format!("{} {}", v.origin, v.label()), v.robots.as_ref()))
            .collect();
        let robots_of = |label: &str| {
            let (_, robots) = versions.iter().find(|(l, _)| l == label).unwrap();
            robots.unwrap()
        };
        let first = robots_of("https://a.example initial");
        for same in [
            "https://a.example 2026-01-02T00:00:00Z",
            "https://a.example 2026-01-04T00:00:00Z",
            "b.example initial",
        ] {
            assert!(Arc::ptr_eq(first, robots_of(same)), "{same}");
        }
        assert!(!Arc::ptr_eq(
            first,
            robots_of("https://a.example 2026-01-01T00:00:00Z")
        ));
        assert_eq!(versions.iter().filter(|(_, r)| r.is_none()).count(), 1);
    }

    /// A manifest of many rows of one origin, in reverse order, loads whole and in order. Each
    /// version is placed by a binary search, not a scan: quadratic, this took about 4 minutes
    /// (the test is not timed, as speed is the benchmarks' to measure, but it would show).
    #[test]
    fn many_rows_of_one_origin_load_in_any_order() {
        const ROWS: i64 = 150_000;
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = String::from("origin,valid_from,status,file\n");
        for at in (0..ROWS).rev() {
            let time = Timestamp::from_second(1_700_000_000 + at * 60).unwrap();
            manifest.push_str(&format!(
                "https://a.example,{time},{},\n",
                404 + at % 2 * 99
            ));
        }
        let path = dir.path().join("history.csv");
        fs::write(&path, manifest).unwrap();
        let set = load(&[path], &LoadOptions::default()).unwrap();
        let origin = Origin::parse("https://a.example").unwrap();
        let versions = set.versions_of(&origin);
        assert_eq!(versions.len(), ROWS as usize);
        let at = Timestamp::from_second(1_700_000_000 + 61).unwrap();
        let current = set.in_force(&versions, at).unwrap().current;
        assert_eq!(set.version(current).status, FetchStatus::Http(503));
    }

    #[test]
    fn host_keys() {
        assert_eq!(host_key_from_name("Example.com").unwrap(), "example.com");
        assert_eq!(
            host_key_from_name("example.com_8080").unwrap(),
            "example.com:8080"
        );
        assert_eq!(host_key_from_name("bücher.de").unwrap(), "xn--bcher-kva.de");
        assert_eq!(
            host_key_from_name("my_host.example").unwrap(),
            "my_host.example"
        );
        assert!(host_key_from_name("example.com_99999").is_err());
        assert_eq!(
            host_key_from_name("[2001:DB8::1]_8080").unwrap(),
            "[2001:db8::1]:8080"
        );
        // A name in brackets holds an IPv6 address, or names no origin at all.
        for name in ["[zz]", "[zz]_8080", "[192.0.2.1]"] {
            assert!(host_key_from_name(name).is_err(), "{name}");
        }
    }

    /// A bare origin in a manifest is `host[:port]`, an IPv6 host in brackets as in a URL.
    #[test]
    fn bare_manifest_origins() {
        let cases = [
            ("a.example", "a.example"),
            ("A.example:8080", "a.example:8080"),
            ("[2001:DB8::1]", "[2001:db8::1]"),
            ("[2001:db8::1]:8080", "[2001:db8::1]:8080"),
            ("[::1]", "[::1]"),
        ];
        for (origin, key) in cases {
            assert_eq!(manifest_origin_key(origin).unwrap(), key, "{origin}");
        }
        assert!(manifest_origin_key("2001:db8::1").is_err());
    }

    #[test]
    fn field_errors_name_the_field() {
        let cases = [
            (
                manifest_status("2000").unwrap_err(),
                "status \"2000\" is neither an HTTP status nor 'unreachable'",
            ),
            (
                host_key_from_name("example.com_99999").unwrap_err(),
                "invalid port in \"example.com_99999\"",
            ),
            (
                manifest_origin_key("a.example:99999").unwrap_err(),
                "invalid port in \"a.example_99999\"",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
        let error = manifest_valid_from("yesterday").unwrap_err();
        assert!(
            matches!(&error, FieldError::ValidFrom { text, .. } if text == "yesterday"),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("valid_from \"yesterday\" is not RFC 3339: "),
            "{error}"
        );
        assert!(matches!(
            manifest_origin_key("https://exa mple.com"),
            Err(FieldError::Origin(_))
        ));
    }

    /// RFC 3339 writes an offset as `+hh:mm`, hours 00 to 23, no seconds. jiff reads offsets up
    /// to `+25:59:59`, so a manifest row or a dated file name `...+24:00` moved its version a
    /// whole day without a word.
    #[test]
    fn valid_from_offsets_are_rfc_3339s() {
        let dir = tempfile::tempdir().unwrap();
        for (time, instant) in [
            ("2026-03-29T01:00:00Z", Some("2026-03-29T01:00:00Z")),
            ("2026-03-29T01:00:00+05:30", Some("2026-03-28T19:30:00Z")),
            ("2026-03-29T01:00:00-09:30", Some("2026-03-29T10:30:00Z")),
            ("2026-03-29T01:00:00+23:59", Some("2026-03-28T01:01:00Z")),
            ("2026-03-29T01:00:00-00:00", Some("2026-03-29T01:00:00Z")),
            ("2026-03-29T01:00:00+24:00", None),
            ("2026-03-29T01:00:00-24:00", None),
            ("2026-03-29T01:00:00+25:59", None),
            ("2026-03-29T01:00:00+01:00:30", None),
        ] {
            let read = manifest_valid_from(time);
            assert_eq!(
                read.as_ref().ok().map(|t| t.map(|t| t.to_string())),
                instant.map(|i| Some(i.to_owned())),
                "manifest {time}: {read:?}"
            );
            if let Err(error) = read {
                assert!(error.to_string().contains("is not RFC 3339: "), "{error}");
            }
            let sites = dir.path().join(time);
            let dated = sites.join("example.com").join(format!("{time}.txt"));
            fs::create_dir_all(dated.parent().unwrap()).unwrap();
            fs::write(&dated, "User-agent: *\nDisallow: /\n").unwrap();
            let loaded = load(&[sites], &LoadOptions::default());
            assert_eq!(
                loaded.as_ref().ok().map(|set| set.versions()[0].label()),
                instant.map(str::to_owned),
                "directory {time}: {:?}",
                loaded.err()
            );
        }
    }

    #[test]
    fn manifest_detection() {
        let txt = Path::new("robots.txt");
        let cases: [(&Path, &[u8], bool); 8] = [
            (
                txt,
                b"origin,valid_from,status,file\nexample.com,,200,a.txt\n",
                true,
            ),
            (txt, b"\xEF\xBB\xBFOrigin,Valid_From,Status,File\r\n", true),
            (txt, b"file, status ,origin,valid_from\n", true),
            (txt, b"orgin,valid_from,status,file\n", true),
            (txt, b"User-agent: *\nDisallow: /\n", false),
            (txt, b"User-agent: a,b\nDisallow: /\n", false),
            (
                Path::new("history.CSV"),
                b"User-agent: *\nDisallow: /\n",
                true,
            ),
            (Path::new("history.csv"), b"", true),
        ];
        for (path, body, expected) in cases {
            assert_eq!(is_manifest(path, body), expected, "{path:?} {body:?}");
        }
    }

    #[test]
    fn manifest_columns_in_any_order() {
        let columns = |header: &str| {
            manifest_columns(&csv::ByteRecord::from(
                header.split(',').collect::<Vec<_>>(),
            ))
        };
        assert_eq!(
            columns("origin,valid_from,status,file").ok(),
            Some([0, 1, 2, 3])
        );
        assert_eq!(
            columns("file, Status,origin ,valid_from").ok(),
            Some([2, 3, 1, 0])
        );
        let errors = [
            ("orgin,valid_from,status,file", "unknown column \"orgin\""),
            (
                "origin,valid_from,status,file,note",
                "unknown column \"note\"",
            ),
            ("origin,valid_from,status", "no column \"file\""),
            (
                "origin,valid_from,status,file,origin",
                "\"origin\" appears twice",
            ),
        ];
        for (header, message) in errors {
            let error = columns(header).unwrap_err().to_string();
            assert!(error.contains(message), "{header}: {error}");
        }
    }
}
