//! Reports committed as one set: at every instant `--out` holds the complete previous set of
//! reports or the complete new one, whatever stops the run (a signal, `kill -9`, a full disk, a
//! crash).
//!
//! The protocol, in order (the user's guide has it for users):
//!
//! 1. **Lock** ([`OutLock`]): one run per `--out` at a time, by an advisory lock on
//!    `PARENT/.NAME.lock`; a second run fails at once naming the holder, or waits (`--wait`).
//!    The lock file is also the holder's journal: it names every directory the holder makes
//!    beside `--out` before the holder could leave it behind ([`Journal`]).
//! 2. **Recover** ([`recover`]): the run holding the lock clears what the journal says killed
//!    runs left: a staging directory (the user's entries found in it that `--out` lacks, at any
//!    depth, are moved back first) and, where the fallback swap was cut short, a previous set left
//!    aside, which is renamed back when `--out` is missing (and otherwise removed, the user's
//!    entries moved back first).
//! 3. **Stage** ([`Staging`]): every report is written into `PARENT/.NAME.staging-XXXX`, created
//!    exclusively with an unpredictable name and recorded in the journal; every file in it is
//!    created with `O_EXCL` ([`NewFile`]) and synced.
//! 4. **Commit** ([`Staging::commit`]): the staging directory is synced; the user's own entries
//!    of the old `--out` (anything that is not one of the tool's names) are carried over without
//!    changing `--out`: files by hard link, directories made anew all the way down with their
//!    files linked; one `renameat2(RENAME_EXCHANGE)` swaps the two directories; their parent is
//!    synced; what the user wrote into `--out` after the carrying is moved from the old set into
//!    the new one, the old set, now under the staging name, is removed, and the journal cleared.
//!    Without a `--out` yet, a plain rename. Where the exchange is not supported, two renames
//!    ([`swap::swap_by_renames`]).
//!
//! [`AtomicFile`] is the single-file form for files that are not part of a set (a robots
//! history's manifest), and [`DirLock`] the lock of a directory updated in place (a robots
//! history).

pub mod atomic;
mod file;
mod lock;
mod out;
mod staging;
pub mod swap;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use self::atomic::AtomicFile;
pub use self::file::{NewFile, ReportDir, with_path};
pub use self::lock::{DirLock, Holder, HolderText, Journal, LockRefused, OutLock};
pub use self::out::OutDir;
pub use self::staging::{Staging, abandon};

/// Why a report set could not be committed.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// `--out` names no directory of its own (`/`).
    #[error("--out {out} names no directory of its own")]
    NoName {
        /// `--out` as given.
        out: String,
    },
    /// `--out` exists and is not a directory.
    #[error("--out {out} is not a directory")]
    NotADirectory {
        /// `--out` as given.
        out: String,
    },
    /// `--out` is the current directory or holds it.
    #[error(
        "--out {out} holds the current directory, which a run replaces as a whole; run from another directory"
    )]
    HoldsCurrentDir {
        /// `--out` as given.
        out: String,
    },
    /// `--out`'s parent cannot be created or read.
    #[error("cannot create --out {out}: {source}")]
    Create {
        /// `--out` as given.
        out: String,
        /// What failed.
        source: io::Error,
    },
    /// Another run holds the lock.
    #[error("{holder} is writing {out}; --wait waits for it")]
    Locked {
        /// Who holds it.
        holder: HolderText,
        /// `--out` as given.
        out: String,
    },
    /// The lock file cannot be opened or locked.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The staging directory cannot be created or written.
    #[error("cannot write into --out {out}: {source}")]
    Write {
        /// `--out` as given.
        out: String,
        /// What failed.
        source: io::Error,
    },
    /// The swap, or what prepares it, failed: `--out` is as it was.
    #[error("cannot write reports into {out}: {source}")]
    Commit {
        /// `--out` as given.
        out: String,
        /// What failed.
        source: io::Error,
    },
    /// What killed runs left could not be cleared.
    #[error("cannot clear what an interrupted run left beside --out {out}: {source}")]
    Recover {
        /// `--out` as given.
        out: String,
        /// What failed.
        source: io::Error,
    },
}

/// The names of the entries of a report set that belong to the tool: never carried from the
/// old set into the new one. The commit takes the list from its caller (the reports' table of
/// names), and also owns the temporary files that version 1 and 2 runs left (`.NAME.tmp-PID`,
/// `.NAME.part-N.tmp-PID`).
#[derive(Debug, Clone, Copy)]
pub struct Owned(pub &'static [&'static str]);

impl Owned {
    /// Whether the entry `name` of a report set is the tool's.
    pub fn owns(self, name: &str) -> bool {
        self.0.contains(&name)
            || name.strip_prefix('.').is_some_and(|rest| {
                self.0.iter().any(|report| {
                    rest.strip_prefix(report)
                        .is_some_and(|tail| tail.starts_with(".tmp-") || tail.starts_with(".part-"))
                })
            })
    }
}

/// The name prefix of the staging directories of `--out` named `name`.
fn staging_prefix(name: &str) -> String {
    format!(".{name}.staging-")
}

/// The name prefix of a previous set the fallback swap set aside.
fn aside_prefix(name: &str) -> String {
    format!(".{name}.aside-")
}

/// Clears what killed runs left beside the `--out` of `lock`, as the previous holder's journal
/// names it (see the module's doc), and staging directories left empty (a run killed before it
/// recorded one); returns a line for each thing done, for the run to show.
pub fn recover(lock: &OutLock, owned: Owned) -> Result<Vec<String>, CommitError> {
    let out = lock.out();
    let fail = |source: io::Error| CommitError::Recover {
        out: out.shown(),
        source,
    };
    let target = out.path();
    let previous = lock.previous();
    let mut notes = Vec::new();
    if let Some(aside) = previous
        .aside
        .as_deref()
        .filter(|name| made_by_a_run(name, &aside_prefix(out.name())))
        .map(|name| out.parent().join(name))
        && is_directory(&aside)
    {
        if fs::symlink_metadata(&target).is_err() {
            fs::rename(&aside, &target).map_err(|e| fail(with_path(e, &aside)))?;
            notes.push(format!(
                "restored {} from {}, set aside by an interrupted run",
                out.shown(),
                aside.display()
            ));
        } else {
            move_back_users_entries(&aside, &target, owned).map_err(fail)?;
            fs::remove_dir_all(&aside).map_err(|e| fail(with_path(e, &aside)))?;
            notes.push(format!(
                "removed {}, left by an interrupted run",
                aside.display()
            ));
        }
    }
    if let Some(staging) = previous
        .staging
        .as_deref()
        .filter(|name| made_by_a_run(name, &staging_prefix(out.name())))
        .map(|name| out.parent().join(name))
        && is_directory(&staging)
    {
        if fs::symlink_metadata(&target).is_ok() {
            move_back_users_entries(&staging, &target, owned).map_err(fail)?;
        }
        fs::remove_dir_all(&staging).map_err(|e| fail(with_path(e, &staging)))?;
        notes.push(format!(
            "removed {}, left by an interrupted run",
            staging.display()
        ));
    }
    let prefix = staging_prefix(out.name());
    for entry in fs::read_dir(out.parent()).map_err(|e| fail(with_path(e, out.parent())))? {
        let entry = entry.map_err(fail)?;
        let named = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(&prefix));
        if named && is_directory(&entry.path()) {
            // Only an empty one: a directory of that name with anything in it is not known to
            // be the tool's.
            let _ = fs::remove_dir(entry.path());
        }
    }
    lock.write_journal(&lock.journal(None, None))
        .map_err(|e| fail(with_path(e, &out.lock_path())))?;
    Ok(notes)
}

/// Whether `name`, read from a lock file, is a name a run gives a directory beside `--out`:
/// `prefix` and the random part of a staging directory's name. Whoever can write the lock file
/// must not get any other directory removed through it (the parent's own parent, say).
fn made_by_a_run(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Whether `path` is a directory itself (not a symlink to one).
fn is_directory(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Moves the user's entries found in `leftover` (a set about to be removed: a killed run's
/// staging directory, or the previous set once swapped out) back into `out`, all the way down,
/// wherever `out` has no entry of that name: what was carried by a link is in both, and what
/// was written into `--out` after the carrying (a file saved into a directory of the user's
/// while the run committed) is only in `leftover`. Looked at from a list rather than by
/// recursion so that no depth of the user's tree can exhaust the stack.
fn move_back_users_entries(leftover: &Path, out: &Path, owned: Owned) -> io::Result<()> {
    let mut directories = vec![(leftover.to_path_buf(), out.to_path_buf())];
    while let Some((from, to)) = directories.pop() {
        let top = from == leftover;
        for entry in fs::read_dir(&from).map_err(|e| with_path(e, &from))? {
            let entry = entry?;
            let name = entry.file_name();
            // Only the top holds the tool's reports; below, every name is the user's.
            if top && name.to_str().is_some_and(|name| owned.owns(name)) {
                continue;
            }
            let (old, new) = (entry.path(), to.join(&name));
            match fs::symlink_metadata(&new) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::rename(&old, &new).map_err(|e| with_path(e, &new))?;
                }
                Ok(kept) if kept.is_dir() && entry.file_type()?.is_dir() => {
                    directories.push((old, new));
                }
                Ok(_) => {}
                Err(e) => return Err(with_path(e, &new)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["agents.csv", "violations.csv", "state.json"];

    fn locked(dir: &Path) -> OutLock {
        OutLock::take(OutDir::resolve(&dir.join("out")).unwrap(), false, |_| {}).unwrap()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_tools_names_and_old_temporaries_are_owned() {
        let owned = Owned(NAMES);
        for name in [
            "agents.csv",
            ".agents.csv.tmp-123",
            ".violations.csv.part-2.tmp-9",
        ] {
            assert!(owned.owns(name), "{name}");
        }
        for name in ["notes.txt", ".agents.csv", "agents.csv.bak", ".x.tmp-1"] {
            assert!(!owned.owns(name), "{name}");
        }
    }

    #[test]
    fn a_commit_replaces_the_set_and_keeps_the_users_entries() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir_all(out.join("notes")).unwrap();
        fs::write(out.join("notes/a.txt"), b"mine").unwrap();
        fs::write(out.join("README"), b"mine too").unwrap();
        fs::write(out.join("agents.csv"), b"old").unwrap();
        fs::write(out.join("violations.csv"), b"old, not in the new set").unwrap();
        fs::write(out.join(".agents.csv.tmp-77"), b"left by version 2").unwrap();
        let lock = locked(dir.path());
        let staging = Staging::create(&lock).unwrap();
        let mut file = staging.create_file("agents.csv").unwrap();
        io::Write::write_all(&mut file, b"new").unwrap();
        file.finish().unwrap();
        assert_eq!(staging.commit(Owned(NAMES)).unwrap(), None);
        assert_eq!(names(&out), ["README", "agents.csv", "notes"]);
        assert_eq!(fs::read(out.join("agents.csv")).unwrap(), b"new");
        assert_eq!(fs::read(out.join("notes/a.txt")).unwrap(), b"mine");
        let parent = names(dir.path());
        assert_eq!(parent, [".out.lock", "out"], "nothing else beside --out");
    }

    #[test]
    fn a_dropped_staging_leaves_out_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("agents.csv"), b"old").unwrap();
        let lock = locked(dir.path());
        let staging = Staging::create(&lock).unwrap();
        staging.create_file("agents.csv").unwrap();
        drop(staging);
        assert_eq!(names(&out), ["agents.csv"]);
        assert_eq!(names(dir.path()), [".out.lock", "out"]);
    }

    /// What a killed run's journal says: the lock file as it left it.
    fn journal(dir: &Path, staging: Option<&str>, aside: Option<&str>) {
        let mut text = "7 elsewhere 2026-11-20T00:00:00Z\n".to_owned();
        if let Some(staging) = staging {
            text.push_str(&format!("staging {staging}\n"));
        }
        if let Some(aside) = aside {
            text.push_str(&format!("aside {aside}\n"));
        }
        fs::write(dir.join(".out.lock"), text).unwrap();
    }

    #[test]
    fn recovery_moves_the_users_entries_back_and_removes_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("agents.csv"), b"old").unwrap();
        // A run killed after moving the user's directory into its staging directory, as runs
        // did before directories were carried by links.
        let leftover = dir.path().join(".out.staging-killed1");
        fs::create_dir_all(leftover.join("notes")).unwrap();
        fs::write(leftover.join("agents.csv"), b"new, never committed").unwrap();
        journal(dir.path(), Some(".out.staging-killed1"), None);
        // A directory of the user's that only looks like one, and an empty one a run killed
        // before it recorded it left.
        let lookalike = dir.path().join(".out.staging-mine");
        fs::create_dir_all(&lookalike).unwrap();
        fs::write(lookalike.join("keep"), b"").unwrap();
        fs::create_dir_all(dir.path().join(".out.staging-empty")).unwrap();
        let lock = locked(dir.path());
        let notes = recover(&lock, Owned(NAMES)).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(names(&out), ["agents.csv", "notes"]);
        assert_eq!(fs::read(out.join("agents.csv")).unwrap(), b"old");
        assert!(lookalike.join("keep").exists());
        assert!(!leftover.exists());
        assert!(!dir.path().join(".out.staging-empty").exists());
        assert_eq!(
            lock.previous().staging.as_deref(),
            Some(".out.staging-killed1")
        );
        drop(lock);
        assert!(
            locked(dir.path()).previous().staging.is_none(),
            "journal cleared"
        );
    }

    /// What was written into `--out` after the carrying, at any depth, is only in the set
    /// swapped out: it is moved back; what both sets hold stays as the new set has it, and the
    /// old set's reports are not the user's.
    #[test]
    fn entries_only_the_old_set_holds_are_moved_back_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new) = (dir.path().join("old"), dir.path().join("new"));
        for set in [&old, &new] {
            fs::create_dir_all(set.join("archive")).unwrap();
            fs::write(set.join("archive/carried"), set.to_str().unwrap()).unwrap();
            fs::write(set.join("agents.csv"), set.to_str().unwrap()).unwrap();
        }
        fs::create_dir_all(old.join("archive/2026/11")).unwrap();
        fs::write(old.join("archive/2026/11/saved-late"), b"late").unwrap();
        fs::write(old.join("archive/saved-late"), b"late").unwrap();
        fs::write(old.join("notes.txt"), b"late").unwrap();
        fs::write(old.join("violations.csv"), b"the old report").unwrap();
        std::os::unix::fs::symlink("archive", old.join("link")).unwrap();
        fs::create_dir(new.join("link")).unwrap();
        move_back_users_entries(&old, &new, Owned(NAMES)).unwrap();
        for late in [
            "archive/2026/11/saved-late",
            "archive/saved-late",
            "notes.txt",
        ] {
            assert_eq!(fs::read(new.join(late)).unwrap(), b"late", "{late}");
        }
        let new_text = new.to_str().unwrap().as_bytes();
        assert_eq!(fs::read(new.join("archive/carried")).unwrap(), new_text);
        assert_eq!(fs::read(new.join("agents.csv")).unwrap(), new_text);
        assert!(!new.join("violations.csv").exists());
        assert!(new.join("link").is_dir() && !new.join("link").is_symlink());
        assert_eq!(names(&new), ["agents.csv", "archive", "link", "notes.txt"]);
    }

    #[test]
    fn recovery_removes_only_directories_a_run_names_for_this_out() {
        let dir = tempfile::tempdir().unwrap();
        let parent = dir.path().join("p");
        fs::create_dir_all(parent.join(".keep")).unwrap();
        fs::write(dir.path().join("precious"), b"").unwrap();
        fs::write(parent.join(".keep/mine"), b"").unwrap();
        for name in [
            "..",
            ".",
            ".keep",
            ".other.staging-abc",
            ".out.staging-../x",
        ] {
            fs::write(
                parent.join(".out.lock"),
                format!("7 h 2026-11-20T00:00:00Z\nstaging {name}\naside {name}\n"),
            )
            .unwrap();
            recover(&locked(&parent), Owned(NAMES)).unwrap();
            assert!(dir.path().join("precious").exists(), "{name}");
            assert!(parent.join(".keep/mine").exists(), "{name}");
        }
    }

    #[test]
    fn a_killed_run_on_an_out_named_with_a_line_break_is_cleared_there_only() {
        let dir = tempfile::tempdir().unwrap();
        let parent = dir.path().join("p");
        fs::create_dir_all(&parent).unwrap();
        fs::write(dir.path().join("precious"), b"").unwrap();
        let out = parent.join("x\nstaging ..\n");
        let lock = OutLock::take(OutDir::resolve(&out).unwrap(), false, |_| {}).unwrap();
        // Killed with its staging directory recorded: nothing of it runs on.
        let staging = Staging::create(&lock).unwrap();
        let left = staging.path().to_path_buf();
        std::mem::forget(staging);
        drop(lock);
        let lock = OutLock::take(OutDir::resolve(&out).unwrap(), false, |_| {}).unwrap();
        let notes = recover(&lock, Owned(NAMES)).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(!left.exists());
        assert!(dir.path().join("precious").exists() && parent.is_dir());
    }

    #[test]
    fn recovery_restores_a_set_left_aside_when_out_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let aside = dir.path().join(".out.aside-cut");
        fs::create_dir_all(&aside).unwrap();
        fs::write(aside.join("agents.csv"), b"previous").unwrap();
        journal(dir.path(), None, Some(".out.aside-cut"));
        let notes = recover(&locked(dir.path()), Owned(NAMES)).unwrap();
        assert!(notes[0].starts_with("restored"), "{notes:?}");
        assert_eq!(
            fs::read(dir.path().join("out/agents.csv")).unwrap(),
            b"previous"
        );
        // With --out there, a set aside is an old one: removed.
        fs::create_dir_all(&aside).unwrap();
        journal(dir.path(), None, Some(".out.aside-cut"));
        recover(&locked(dir.path()), Owned(NAMES)).unwrap();
        assert!(!aside.exists());
    }
}
