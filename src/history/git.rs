//! Past versions of a robots.txt kept in a git repository, read with the `git` program.
//!
//! One observation per commit that changed the path, on the first-parent line of the revision
//! (the branch as it was deployed: a merge counts once, when it landed), in force from the
//! commit's committer time. A commit whose tree has no file at the path is a deletion: status
//! 404 (no robots.txt, no restrictions). Committer times that go backwards along the line
//! (clock skew, rebases) are raised to the previous commit's time, so the rows keep the order
//! of the history.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use jiff::Timestamp;

use super::{HistoryError, Observation};
use crate::origin::Origin;
use crate::versions::FetchStatus;

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

/// The observations of `source`, attributed to `origin`, oldest first.
pub fn import(source: &GitSource<'_>, origin: &Origin) -> Result<Vec<Observation>, HistoryError> {
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
    .map_err(|e| {
        HistoryError(format!(
            "{}: {:?} is not a revision of a git repository there ({e})",
            repo.display(),
            source.rev
        ))
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
    .map_err(|e| HistoryError(format!("git log in {}: {e}", repo.display())))?;
    let mut commits = Vec::new();
    for line in String::from_utf8_lossy(&log).lines() {
        let parsed = line
            .split_once(' ')
            .and_then(|(hash, time)| Some((hash.to_owned(), time.parse::<i64>().ok()?)));
        let Some((hash, time)) = parsed else {
            return Err(HistoryError(format!(
                "git log in {}: unexpected line {line:?}",
                repo.display()
            )));
        };
        commits.push((hash, time));
    }
    let mut blobs = Blobs::start(repo)?;
    let mut observations = Vec::with_capacity(commits.len());
    let mut latest = i64::MIN;
    for (hash, time) in commits {
        latest = latest.max(time);
        let at = Timestamp::from_second(latest)
            .map_err(|e| HistoryError(format!("commit {hash}: committer time {time}: {e}")))?;
        let observation = match blobs.read(&hash, &path)? {
            Some(content) => {
                Observation::new(origin.clone(), at, FetchStatus::Http(200), Some(content))
            }
            None => Observation::new(origin.clone(), at, FetchStatus::Http(404), None),
        };
        observations.push(observation);
    }
    super::keep_last_per_second(&mut observations);
    Ok(observations)
}

/// The path as git names it from the root: no leading `/` or `./`, no `..`, not empty.
fn clean_path(path: &str) -> Result<String, HistoryError> {
    let trimmed = path.trim_start_matches("./").trim_start_matches('/');
    let bad = trimmed.is_empty()
        || trimmed.ends_with('/')
        || trimmed.contains('\n')
        || trimmed
            .split('/')
            .any(|part| part == ".." || part == "." || part.is_empty());
    if bad {
        return Err(HistoryError(format!(
            "--path {path:?} must name a file from the repository's root, such as public/robots.txt"
        )));
    }
    Ok(trimmed.to_owned())
}

fn check_git() -> Result<(), HistoryError> {
    match Command::new("git").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(HistoryError(format!(
            "`git --version` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
        Err(e) => Err(HistoryError(format!(
            "import --git needs the git program, which could not be run ({e}); install git or put it on PATH"
        ))),
    }
}

/// A git command in `repo` whose standard output is wanted; its standard error is the error.
fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let message = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(if message.is_empty() {
            format!("git exited with {}", out.status)
        } else {
            message
        })
    }
}

/// One `git cat-file --batch` process: asked for `<commit>:<path>`, it answers with the
/// object's content, or says it is missing.
struct Blobs {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl Blobs {
    fn start(repo: &Path) -> Result<Blobs, HistoryError> {
        let fail = |e: std::io::Error| HistoryError(format!("cannot run git cat-file: {e}"));
        let mut child = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["cat-file", "--batch"])
            .env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(fail)?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(HistoryError("git cat-file: no pipes".into()));
        };
        Ok(Blobs {
            child,
            input,
            output: BufReader::new(output),
        })
    }

    /// The file at `path` in `commit`; `None` when the commit has no such path.
    fn read(&mut self, commit: &str, path: &str) -> Result<Option<Vec<u8>>, HistoryError> {
        let fail = |e: std::io::Error| HistoryError(format!("git cat-file: {e}"));
        writeln!(self.input, "{commit}:{path}").map_err(fail)?;
        self.input.flush().map_err(fail)?;
        let mut header = String::new();
        self.output.read_line(&mut header).map_err(fail)?;
        let header = header.trim_end();
        if header.ends_with(" missing") {
            return Ok(None);
        }
        let fields: Vec<&str> = header.split(' ').collect();
        let [_, kind, size] = fields[..] else {
            return Err(HistoryError(format!(
                "git cat-file: unexpected answer {header:?}"
            )));
        };
        let size: usize = size
            .parse()
            .map_err(|_| HistoryError(format!("git cat-file: unexpected answer {header:?}")))?;
        let mut content = vec![0; size];
        self.output.read_exact(&mut content).map_err(fail)?;
        let mut newline = [0u8; 1];
        self.output.read_exact(&mut newline).map_err(fail)?;
        if kind != "blob" {
            return Err(HistoryError(format!(
                "{path} is a {kind}, not a file, in commit {commit}"
            )));
        }
        Ok(Some(content))
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        // Every answer wanted has been read: the process has nothing left to say.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
        for bad in ["", "/", "public/", "../robots.txt", "a//b", "a/./b", "a\nb"] {
            assert!(clean_path(bad).is_err(), "{bad:?}");
        }
    }
}
