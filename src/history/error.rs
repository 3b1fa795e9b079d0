//! Why a history command could not do its work. Every message names what and where: the
//! directory or file, the URL asked, or the repository, commit and path.

use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;

use crate::commit::HolderText;
use crate::error::Error;

/// A history command's failure.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The history directory could not be created.
    #[error("cannot create the history directory {}: {source}", .dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Another command is updating the history directory.
    #[error("{holder} is updating the history directory {}; --wait waits for it", .dir.display())]
    Locked {
        /// The directory.
        dir: PathBuf,
        /// Who holds its lock.
        holder: HolderText,
    },
    /// The history directory's lock file could not be opened, locked or written.
    #[error("cannot lock {}: {source}", .path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file of the history could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file of the history could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file the manifest names could not be read.
    #[error("{} names {}, which cannot be read: {source}", .manifest.display(), .file.display())]
    NamedFile {
        /// The manifest.
        manifest: PathBuf,
        /// The file it names.
        file: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The manifest is not one the audit reads.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The archive could not be read.
    #[error(transparent)]
    Wayback(#[from] WaybackError),
    /// The repository could not be read.
    #[error(transparent)]
    Git(#[from] GitError),
    /// `fetch` could not start its threads.
    #[error("cannot start the fetch threads: {0}")]
    FetchThreads(io::Error),
}

/// A history command's failure ends the command (exit code 1).
impl From<HistoryError> for Error {
    fn from(error: HistoryError) -> Error {
        Error::Fatal(error.to_string())
    }
}

/// Why `DIR/manifest.csv` is not a manifest the audit reads.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The CSV itself is broken.
    #[error("manifest {}: {source}", .path.display())]
    Csv {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: csv::Error,
    },
    /// The first line is not the manifest's header.
    #[error("{} is not a robots manifest: {problem}", .path.display())]
    NotAManifest {
        /// The file.
        path: PathBuf,
        /// What is wrong with its header.
        problem: String,
    },
    /// A row the audit would refuse.
    #[error("manifest {} line {line}: {problem}", .path.display())]
    Row {
        /// The manifest.
        path: PathBuf,
        /// The row's line.
        line: u64,
        /// What is wrong with it, as the audit's reading of manifests says it.
        problem: String,
    },
}

/// Why the archive's answers could not be used.
#[derive(Debug, thiserror::Error)]
pub enum WaybackError {
    /// Every try of a request failed.
    #[error("{url}: {failure}, {tries} time{} in a row; giving up", if *.tries == 1 { "" } else { "s" })]
    GaveUp {
        /// The URL asked.
        url: String,
        /// The last failure.
        failure: RequestFailure,
        /// How many times it was asked.
        tries: u32,
    },
    /// The index answered with a status other than 2xx.
    #[error("{url}: the CDX service answered {status}")]
    IndexStatus {
        /// The index URL.
        url: String,
        /// Its status.
        status: u16,
    },
    /// The index's answer is longer than is read.
    #[error(
        "{url}: the CDX answer is longer than {limit} bytes, the most read (a listing of one \
         robots.txt collapsed on a field is far shorter); a shorter period (--from, --to) asks \
         for fewer rows"
    )]
    IndexTooLong {
        /// The index URL.
        url: String,
        /// The most bytes read.
        limit: usize,
    },
    /// The index's answer is not a CDX listing.
    #[error("{url}: {source}")]
    Index {
        /// The index URL.
        url: String,
        /// What is wrong with the answer.
        source: CdxError,
    },
    /// `--wayback-url` is not a URL requests can be sent to.
    #[error("--wayback-url {url:?}: {problem}")]
    Service {
        /// As given.
        url: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The archive redirected a request out of where it may lead: off the archive's origin,
    /// or, for a copy, out of its `/web/` path. The redirect is not followed.
    #[error("{url}: redirected to {location}, outside {scope}; not followed")]
    Redirected {
        /// The URL asked.
        url: String,
        /// The redirect's `Location`, as shown.
        location: String,
        /// Where its redirects may lead.
        scope: String,
    },
    /// The archive redirected more times than are followed.
    #[error("{url}: still a redirect after {followed} redirects; not followed further")]
    Redirects {
        /// The URL asked.
        url: String,
        /// How many were followed.
        followed: u32,
    },
    /// The archived copy of a 2xx capture is missing.
    #[error("{url}: the archived copy of a {code} capture answered {status}")]
    CopyStatus {
        /// The copy's URL.
        url: String,
        /// The capture's status in the index.
        code: u16,
        /// What the copy's URL answered.
        status: u16,
    },
}

/// Why one request to the archive got no answer to use.
#[derive(Debug, thiserror::Error)]
pub enum RequestFailure {
    /// A 429 or 5xx status.
    #[error("answered {0}")]
    Status(u16),
    /// The body stopped early.
    #[error("the answer was cut off ({0})")]
    CutOff(io::Error),
    /// No answer: DNS, connection, TLS, timeout.
    #[error("{0}")]
    Transport(#[from] ureq::Error),
}

/// What is wrong with a CDX answer (`output=json`).
#[derive(Debug, thiserror::Error)]
pub enum CdxError {
    /// Not JSON, or not an array of rows of strings.
    #[error("the CDX answer is not a JSON array of rows: {0}")]
    NotRows(#[from] serde_json::Error),
    /// The header row lacks a field.
    #[error("the CDX answer has no {name} field (fields: {header:?})")]
    MissingField {
        /// The field.
        name: &'static str,
        /// The fields it has.
        header: Vec<String>,
    },
    /// A row is shorter than the header.
    #[error(
        "a CDX row has {found} field{}, the header {expected}",
        if *.found == 1 { "" } else { "s" }
    )]
    ShortRow {
        /// The row's fields.
        found: usize,
        /// The header's.
        expected: usize,
    },
    /// A status that is neither an HTTP status nor `-`.
    #[error("CDX status {0:?} is not an HTTP status")]
    Status(String),
    /// A timestamp that is not 14 digits.
    #[error("CDX timestamp {0:?} is not 14 digits")]
    StampDigits(String),
    /// 14 digits that are no time.
    #[error("CDX timestamp {stamp:?}: {source}")]
    StampTime {
        /// The timestamp.
        stamp: String,
        /// Why it is no time.
        source: jiff::Error,
    },
}

/// Why `--from` or `--to` is not a period bound.
#[derive(Debug, thiserror::Error)]
pub enum PeriodError {
    /// Written as a date, but no such date.
    #[error("{text:?} is not a date: {source}")]
    NoSuchDate {
        /// As given.
        text: String,
        /// Why.
        source: jiff::Error,
    },
    /// Not written as any of the accepted forms.
    #[error("{0:?} is not a date such as 2024, 2024-05, 2024-05-01 or 2024-05-01T12:00:00Z")]
    Unreadable(String),
}

/// Why the history of a file in a git repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `--path` names no file from the repository's root.
    #[error("--path {0:?} must name a file from the repository's root, such as public/robots.txt")]
    BadPath(String),
    /// The git program cannot be run.
    #[error(
        "import --git needs the git program, which could not be run ({0}); install git or put it on PATH"
    )]
    NoGit(io::Error),
    /// `git --version` failed.
    #[error("`git --version` failed: {0}")]
    Version(String),
    /// The revision is not one of a repository there.
    #[error("{}: {rev:?} is not a revision of a git repository there ({source})", .repo.display())]
    NotARevision {
        /// The repository.
        repo: PathBuf,
        /// The revision.
        rev: String,
        /// What git said.
        source: GitCommandError,
    },
    /// A git command failed.
    #[error("git {command} in {}: {source}", .repo.display())]
    Command {
        /// The command (`log`, `ls-tree`, `cat-file`).
        command: &'static str,
        /// The repository.
        repo: PathBuf,
        /// What git said.
        source: GitCommandError,
    },
    /// `git log` printed what it was not asked for.
    #[error("git log in {}: unexpected line {line:?}", .repo.display())]
    LogLine {
        /// The repository.
        repo: PathBuf,
        /// The line.
        line: String,
    },
    /// `git ls-tree` printed what it was not asked for.
    #[error("git ls-tree in {}: unexpected entry {entry:?}", .repo.display())]
    TreeEntry {
        /// The repository.
        repo: PathBuf,
        /// The entry.
        entry: String,
    },
    /// A committer time that is no time.
    #[error("commit {commit}: committer time {time}: {source}")]
    CommitTime {
        /// The commit.
        commit: String,
        /// Its committer time, in seconds.
        time: i64,
        /// Why.
        source: jiff::Error,
    },
    /// A commit whose committer time git cannot read: malformed, or before 1970.
    #[error(
        "commit {commit}: git reads no committer time in it (a date before 1970, or a malformed \
         one), so its version cannot be placed in time; import the history before it with \
         --rev {commit}^"
    )]
    NoCommitTime {
        /// The commit.
        commit: String,
    },
    /// A commit dated more than a day after the import started.
    #[error(
        "commit {commit}: committer time {at} is in the future: every later commit would be \
         dated from it too; import the history before it with --rev {commit}^"
    )]
    FutureCommitTime {
        /// The commit.
        commit: String,
        /// Its committer time.
        at: jiff::Timestamp,
    },
    /// The path is a directory in a commit.
    #[error("{path} is a directory, not a file, in commit {commit}")]
    Directory {
        /// The path.
        path: String,
        /// The commit.
        commit: String,
    },
    /// The path is a symbolic link in a commit: what the server sent then depends on the link's
    /// target on the server, which the repository does not say.
    #[error(
        "{path} is a symbolic link (to {target:?}), not a file, in commit {commit}: what the \
         server sent then is not in the repository; import the history before it with \
         --rev {commit}^, or from the link's target with --path"
    )]
    Symlink {
        /// The path.
        path: String,
        /// The commit.
        commit: String,
        /// The link's text (its first 4 KiB), lossy.
        target: String,
    },
    /// The path is a submodule in a commit: its content is another repository's.
    #[error(
        "{path} is a submodule (commit {submodule} of another repository), not a file, in \
         commit {commit}: import the history before it with --rev {commit}^, or import the \
         submodule's own repository"
    )]
    Submodule {
        /// The path.
        path: String,
        /// The commit.
        commit: String,
        /// The submodule's commit.
        submodule: String,
    },
}

/// Why a git command failed.
#[derive(Debug, thiserror::Error)]
pub enum GitCommandError {
    /// It could not be started or read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It ended with a failure: its standard error, or its exit status when that is empty.
    #[error("{}", if .stderr.is_empty() { format!("git exited with {}", .status) } else { .stderr.clone() })]
    Failed {
        /// Its exit status.
        status: ExitStatus,
        /// Its standard error, trimmed.
        stderr: String,
    },
}
