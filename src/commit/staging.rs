//! The new report set, built beside `--out` and swapped in as one.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::file::{NewFile, with_path};
use super::lock::OutLock;
use super::swap::{Swapped, swap_in};
use super::{CommitError, Owned, staging_prefix};

/// The staging directory a stop may remove, if any: the signal handler's view of the run. A
/// commit holds this lock from its first move to its last, so a stop never removes a staging
/// directory that holds entries of the user's.
static REMOVABLE: Mutex<Option<PathBuf>> = Mutex::new(None);

fn removable() -> MutexGuard<'static, Option<PathBuf>> {
    REMOVABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// For a forced stop (a signal the run did not wind down from in time): removes the staging
/// directory of this process unless a commit is under way, in which case it waits for the
/// commit to end. Returns a guard that keeps any commit from starting: exit while holding it.
pub fn abandon() -> impl Drop {
    let mut guard = removable();
    if let Some(dir) = guard.take() {
        let _ = fs::remove_dir_all(dir);
    }
    guard
}

/// A staging directory: a sibling of `--out` with an unpredictable name, created exclusively
/// and named in the lock's journal, where every report of the run is written.
/// [`Staging::commit`] swaps it with `--out`; dropped without a commit, it is removed, and
/// `--out` is as it was.
#[derive(Debug)]
pub struct Staging<'l> {
    lock: &'l OutLock,
    /// `None` once committed.
    dir: Option<PathBuf>,
}

impl<'l> Staging<'l> {
    /// Creates the staging directory of the run that holds `lock`.
    pub fn create(lock: &'l OutLock) -> Result<Staging<'l>, CommitError> {
        let out = lock.out();
        let fail = |source: io::Error| CommitError::Write {
            out: out.shown(),
            source,
        };
        let dir = tempfile::Builder::new()
            .prefix(&staging_prefix(out.name()))
            .rand_bytes(12)
            .permissions(fs::Permissions::from_mode(0o777))
            .tempdir_in(out.parent())
            .map_err(fail)?
            .keep();
        *removable() = Some(dir.clone());
        let staging = Staging {
            lock,
            dir: Some(dir),
        };
        lock.write_journal(&lock.journal(Some(&staging.name()), None))
            .map_err(fail)?;
        Ok(staging)
    }

    /// The directory's name in `--out`'s parent.
    fn name(&self) -> String {
        self.path()
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.as_deref().unwrap_or(Path::new(""))
    }

    /// Creates the report file `name` in it.
    pub fn create_file(&self, name: &str) -> io::Result<NewFile> {
        NewFile::create(self.path(), name)
    }

    /// Makes the staging directory `--out`: syncs it, carries the user's own entries of the old
    /// `--out` over (anything not in `owned`), swaps the two directories with one rename, syncs
    /// their parent and removes the old set. Fails leaving `--out` as it was (the user's
    /// directories moved back), or succeeds whole; a warning is returned when the old set could
    /// not be removed (the next run removes it).
    pub fn commit(mut self, owned: Owned) -> Result<Option<String>, CommitError> {
        let mut guard = removable();
        guard.take();
        let out = self.lock.out();
        let fail = |source: io::Error| CommitError::Commit {
            out: out.shown(),
            source,
        };
        let staging = self.path().to_path_buf();
        let target = out.path();
        sync_dir(&staging).map_err(fail)?;
        let moved = match fs::symlink_metadata(&target) {
            Ok(_) => carry_over(&target, &staging, owned).map_err(fail)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(fail(with_path(e, &target))),
        };
        let name = self.name();
        let record_aside = |aside: &str| {
            self.lock
                .write_journal(&self.lock.journal(Some(&name), Some(aside)))
        };
        let swapped = swap_in(&staging, &target, out.parent(), out.name(), record_aside).and_then(
            |swapped| {
                sync_dir(out.parent())?;
                Ok(swapped)
            },
        );
        let swapped = match swapped {
            Ok(swapped) => swapped,
            Err(e) => {
                move_back(&moved, &staging, &target);
                return Err(fail(e));
            }
        };
        self.dir = None;
        drop(guard);
        let old = match swapped {
            Swapped::Placed => None,
            Swapped::Exchanged => Some(staging),
            Swapped::SetAside(aside) => Some(aside),
        };
        if let Some(old) = old
            && let Err(e) = fs::remove_dir_all(&old)
        {
            // The journal still names it: the next run removes it.
            return Ok(Some(format!(
                "cannot remove the previous reports {} (the next run will): {e}",
                old.display()
            )));
        }
        let cleared = self.lock.write_journal(&self.lock.journal(None, None));
        Ok(cleared.err().map(|e| {
            format!(
                "cannot update the lock file {}: {e}",
                out.lock_path().display()
            )
        }))
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let mut guard = removable();
            if fs::remove_dir_all(&dir).is_ok() {
                let _ = self.lock.write_journal(&self.lock.journal(None, None));
            }
            guard.take();
        }
    }
}

/// Carries the user's entries of `out` into `staging`: files by a hard link (a copy where the
/// file system has none), symlinks as symlinks, directories moved. Returns the directories
/// moved, to move back if the swap fails.
fn carry_over(out: &Path, staging: &Path, owned: Owned) -> io::Result<Vec<PathBuf>> {
    let mode = fs::metadata(out)?.permissions().mode();
    fs::set_permissions(staging, fs::Permissions::from_mode(mode))?;
    let mut directories = Vec::new();
    for entry in fs::read_dir(out).map_err(|e| with_path(e, out))? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_str().is_some_and(|name| owned.owns(name)) {
            continue;
        }
        let (from, to) = (entry.path(), staging.join(&name));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            directories.push((from, to));
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&from)?, &to)
                .map_err(|e| with_path(e, &to))?;
        } else if fs::hard_link(&from, &to).is_err() {
            fs::copy(&from, &to).map_err(|e| with_path(e, &from))?;
        }
    }
    // Directories last, just before the swap: the fewer moves to undo on a failure.
    let mut moved = Vec::new();
    for (from, to) in directories {
        if let Err(e) = fs::rename(&from, &to) {
            move_back(&moved, staging, out);
            return Err(with_path(e, &from));
        }
        moved.push(to);
    }
    sync_dir(staging)?;
    Ok(moved)
}

/// Moves the user's directories `moved` from `staging` back into `out` (best effort: the next
/// run's recovery moves back what is left).
fn move_back(moved: &[PathBuf], staging: &Path, out: &Path) {
    for dir in moved {
        if let Ok(rest) = dir.strip_prefix(staging) {
            let _ = fs::rename(dir, out.join(rest));
        }
    }
}

/// Syncs a directory's entries to disk.
pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| with_path(e, dir))
}
