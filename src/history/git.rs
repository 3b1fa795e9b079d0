//! Past versions of a robots.txt kept in a git repository, read with the `git` program.
//!
//! One observation per commit that changed the path, on the first-parent line of the revision
//! (the branch as it was deployed: a merge counts once, when it landed), in force from the
//! commit's committer time. A commit whose tree has no file at the path is a deletion: status
//! 404 (no robots.txt, no restrictions). Committer times that go backwards along the line
//! (clock skew, rebases) are raised to the previous commit's time, so the rows keep the order
//! of the history.
//!
//! The committer time, not the author time: a rebased or cherry-picked commit keeps the author
//! time of its first writing, which may be long before the content landed on the branch. A
//! committer time no clock can have written is an error naming the commit: one more than
//! [`FUTURE_TOLERANCE`] after the import started would be raised onto every later commit, so
//! that all of them would share its second and all but the last be lost, while the versions
//! before it would judge every request up to that future; one git cannot read (before 1970, or
//! malformed) is no time at all.
//!
//! A shallow clone lists the oldest commit it holds as if it had added every file: the version
//! in force then is dated from that commit, perhaps later than it was committed. [`import`]
//! says so ([`GitImported::shallow`]) rather than guessing an earlier time.
//!
//! Each commit's entry at the path is looked up with `git ls-tree`, which gives its mode: a
//! regular file's blob is read with `git cat-file`, at most 500 KiB of it (the process is
//! stopped there, so a huge blob is never read whole). A symbolic link (mode 120000) or a
//! submodule (160000) at the path is an error naming the commit: what the server sent at that
//! time is not in the repository, and storing the link's text or nothing would judge requests
//! against a robots.txt that was never served. Observations go into the history one by one.

use std::path::Path;
use std::process::{Command, Stdio};

use jiff::{SignedDuration, Timestamp};

use super::error::{GitCommandError, GitError};
use super::{HistoryError, Observation, PerSecond, Record, read_prefix};
use crate::origin::Origin;
use crate::versions::FetchStatus;
use robots_audit_engine::GOOGLEBOT_MAX_BYTES;

/// What to read.
#[derive(Debug, Clone)]
pub struct GitSource<'a> {
    /// The repository (a work tree or a bare repository).
    pub repo: &'a Path,
    /// The file's path from the repository's root.
    pub path: &'a str,
    /// The revision whose history is read (`HEAD` by default).
    pub rev: &'a str,
}

/// How much of a symbolic link's text an error shows.
const LINK_TEXT_SHOWN: usize = 4096;

/// How far after the import's start a committer time may be: a commit made on a machine whose
/// clock runs a little ahead is still read, one dated days or years ahead is refused.
pub const FUTURE_TOLERANCE: SignedDuration = SignedDuration::from_hours(24);

/// What an import from git found besides its observations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitImported {
    /// In a shallow clone whose first-parent line ends at a commit whose parents are not in the
    /// clone: that commit and its committer time. The history before it is not in the clone.
    pub shallow: Option<(String, Timestamp)>,
}

/// Pushes the observations of `source`, attributed to `origin`, oldest first, into `history`.
pub fn import<R: Record + ?Sized>(
    source: &GitSource<'_>,
    origin: &Origin,
    history: &mut PerSecond<'_, R>,
) -> Result<GitImported, HistoryError> {
    // Adding a day to the clock's time fails only at the end of jiff's range (year 9999).
    let latest_possible = Timestamp::now()
        .checked_add(FUTURE_TOLERANCE)
        .unwrap_or(Timestamp::MAX);
    let path = clean_path(source.path)?;
    check_git()?;
    let repo = source.repo;
    let commit = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{}^{{commit}}", source.rev),
        ],
    )
    .map_err(|source_error| GitError::NotARevision {
        repo: repo.to_path_buf(),
        rev: source.rev.to_owned(),
        source: source_error,
    })?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let log = git(
        repo,
        &[
            "-c",
            "log.showSignature=false",
            "log",
            "--first-parent",
            "--reverse",
            "--format=%H %ct",
            &commit,
            "--",
            &format!(":(top,literal){path}"),
        ],
    )
    .map_err(|e| command_error("log", repo, e))?;
    let mut commits = Vec::new();
    for line in String::from_utf8_lossy(&log).lines() {
        let Some((hash, time)) = line
            .split_once(' ')
            .filter(|(hash, _)| !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        else {
            return Err(GitError::LogLine {
                repo: repo.to_path_buf(),
                line: line.to_owned(),
            }
            .into());
        };
        // git prints no committer time for a date it cannot read (one before 1970 among them).
        let Ok(time) = time.parse::<i64>() else {
            return Err(GitError::NoCommitTime {
                commit: hash.to_owned(),
            }
            .into());
        };
        let at = Timestamp::from_second(time).map_err(|source| GitError::CommitTime {
            commit: hash.to_owned(),
            time,
            source,
        })?;
        if at > latest_possible {
            return Err(GitError::FutureCommitTime {
                commit: hash.to_owned(),
                at,
            }
            .into());
        }
        commits.push((hash.to_owned(), at));
    }
    let imported = GitImported {
        shallow: shallow_start(repo, &commit)?,
    };
    let mut latest = Timestamp::MIN;
    for (hash, at) in commits {
        latest = latest.max(at);
        let at = latest;
        let observation = match file_at(repo, &hash, &path)? {
            Some(content) => {
                Observation::new(origin.clone(), at, FetchStatus::Http(200), Some(content))
            }
            None => Observation::new(origin.clone(), at, FetchStatus::Http(404), None),
        };
        history.push(observation)?;
    }
    Ok(imported)
}

/// In a shallow clone, the commit where the first-parent line of `commit` ends because its
/// parents are not in the clone, and its committer time; `None` in a full history.
fn shallow_start(repo: &Path, commit: &str) -> Result<Option<(String, Timestamp)>, HistoryError> {
    let shallow = git(repo, &["rev-parse", "--is-shallow-repository"])
        .map_err(|e| command_error("rev-parse", repo, e))?;
    if shallow.trim_ascii() != b"true" {
        return Ok(None);
    }
    // The line's last commit: one without parents, as the clone records them.
    let first = git(
        repo,
        &[
            "rev-list",
            "--first-parent",
            "--max-parents=0",
            "--format=%H %ct",
            "--no-commit-header",
            commit,
        ],
    )
    .map_err(|e| command_error("rev-list", repo, e))?;
    let first = String::from_utf8_lossy(&first);
    let Some((hash, time)) = first.lines().next().and_then(|l| l.split_once(' ')) else {
        return Ok(None);
    };
    let boundaries = git(repo, &["rev-parse", "--git-path", "shallow"])
        .map_err(|e| command_error("rev-parse", repo, e))?;
    let boundaries = repo.join(String::from_utf8_lossy(&boundaries).trim());
    let listed = std::fs::read(&boundaries).map_err(|source| HistoryError::Read {
        path: boundaries,
        source,
    })?;
    let is_boundary = listed
        .split(|&b| b == b'\n')
        .any(|line| line.trim_ascii() == hash.as_bytes());
    let at = time
        .parse::<i64>()
        .ok()
        .and_then(|t| Timestamp::from_second(t).ok());
    Ok(at.filter(|_| is_boundary).map(|at| (hash.to_owned(), at)))
}

/// The content of the regular file at `path` in `commit` (its first 500 KiB); `None` when the
/// commit has nothing at the path. Anything else at the path is an error naming the commit.
fn file_at(repo: &Path, commit: &str, path: &str) -> Result<Option<Vec<u8>>, HistoryError> {
    let listing = git(repo, &["ls-tree", "-z", "--full-tree", commit, "--", path])
        .map_err(|e| command_error("ls-tree", repo, e))?;
    // ls-tree matches paths literally; an entry is `<mode> <type> <object>\t<name>`.
    let entry = listing
        .split(|&b| b == 0)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let text = String::from_utf8_lossy(entry).into_owned();
            let parsed = text.split_once('\t').and_then(|(meta, name)| {
                let mut meta = meta.split(' ');
                let (mode, _, object) = (meta.next()?, meta.next()?, meta.next()?);
                Some((mode.to_owned(), object.to_owned(), name.to_owned()))
            });
            parsed.ok_or_else(|| GitError::TreeEntry {
                repo: repo.to_path_buf(),
                entry: text,
            })
        })
        .find(|parsed| !matches!(parsed, Ok((_, _, name)) if name != path))
        .transpose()?;
    let Some((mode, object, _)) = entry else {
        return Ok(None);
    };
    let read = |limit: usize| {
        read_blob(repo, &object, limit).map_err(|e| command_error("cat-file", repo, e))
    };
    match mode.as_str() {
        "100644" | "100755" | "100664" => Ok(Some(read(GOOGLEBOT_MAX_BYTES)?)),
        "120000" => Err(GitError::Symlink {
            path: path.to_owned(),
            commit: commit.to_owned(),
            target: String::from_utf8_lossy(&read(LINK_TEXT_SHOWN)?).into_owned(),
        }
        .into()),
        "160000" => Err(GitError::Submodule {
            path: path.to_owned(),
            commit: commit.to_owned(),
            submodule: object,
        }
        .into()),
        "040000" => Err(GitError::Directory {
            path: path.to_owned(),
            commit: commit.to_owned(),
        }
        .into()),
        _ => Err(GitError::TreeEntry {
            repo: repo.to_path_buf(),
            entry: format!("{mode} {object}\t{path}"),
        }
        .into()),
    }
}

/// The first `limit` bytes of a blob. `git cat-file` is stopped once they are read, so a blob
/// of any size costs at most `limit` bytes here (and no more reading than that).
fn read_blob(repo: &Path, object: &str, limit: usize) -> Result<Vec<u8>, GitCommandError> {
    let mut child = git_command(repo)
        .args(["cat-file", "blob", object])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let body = match child.stdout.take() {
        Some(stdout) => read_prefix(stdout, limit),
        None => Ok(Vec::new()),
    };
    let stopped_early = body.as_ref().is_ok_and(|b| b.len() >= limit);
    if stopped_early || body.is_err() {
        // The rest is not wanted: git need not write it.
        let _ = child.kill();
    }
    let output = child.wait_with_output()?;
    let body = body?;
    if !stopped_early && !output.status.success() {
        return Err(failed(&output));
    }
    Ok(body)
}

/// The path as git names it from the root: no leading `/` or `./`, no `..`, not empty.
fn clean_path(path: &str) -> Result<String, GitError> {
    let trimmed = path.trim_start_matches("./").trim_start_matches('/');
    let bad = trimmed.is_empty()
        || trimmed.ends_with('/')
        || trimmed.contains('\n')
        || trimmed.contains('\0')
        || trimmed
            .split('/')
            .any(|part| part == ".." || part == "." || part.is_empty());
    if bad {
        return Err(GitError::BadPath(path.to_owned()));
    }
    Ok(trimmed.to_owned())
}

fn check_git() -> Result<(), GitError> {
    match Command::new("git").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(GitError::Version(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        )),
        Err(e) => Err(GitError::NoGit(e)),
    }
}

/// `git -C repo`, in the C locale, never prompting, reading nothing.
fn git_command(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(repo)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null());
    command
}

/// A git command in `repo` whose standard output is wanted; its standard error is the error.
fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, GitCommandError> {
    let out = git_command(repo).args(args).output()?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(failed(&out))
    }
}

/// A command that ended with a failure, with what it said.
fn failed(out: &std::process::Output) -> GitCommandError {
    GitCommandError::Failed {
        status: out.status,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
    }
}

fn command_error(command: &'static str, repo: &Path, source: GitCommandError) -> HistoryError {
    GitError::Command {
        command,
        repo: repo.to_path_buf(),
        source,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_the_root() {
        assert_eq!(clean_path("robots.txt").unwrap(), "robots.txt");
        assert_eq!(
            clean_path("./public/robots.txt").unwrap(),
            "public/robots.txt"
        );
        assert_eq!(
            clean_path("/public/robots.txt").unwrap(),
            "public/robots.txt"
        );
        for bad in [
            "",
            "/",
            "public/",
            "../robots.txt",
            "a//b",
            "a/./b",
            "a\nb",
            "a\0b",
        ] {
            assert!(clean_path(bad).is_err(), "{bad:?}");
        }
    }
}
