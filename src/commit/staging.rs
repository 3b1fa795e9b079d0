//! The new report set, built beside `--out` and swapped in as one.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::file::{NewFile, with_path};
use super::lock::OutLock;
use super::swap::{Swapped, swap_in};
use super::{CommitError, Owned, move_back_users_entries, staging_prefix};

/// The staging directory a stop may remove, if any: the signal handler's view of the run. A
/// commit holds this lock from its start to its end, so a stop never removes the staging
/// directory while it is being swapped in (after the exchange that name holds the previous set).
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
    /// `--out` over (anything not in `owned`) without changing `--out`, swaps the two
    /// directories with one rename, syncs their parent and removes the old set. Fails leaving
    /// `--out` as it was, or succeeds whole; a warning is returned when the old set could not be
    /// removed (the next run removes it).
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
        match fs::symlink_metadata(&target) {
            Ok(_) => carry_over(&target, &staging, owned).map_err(fail)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(with_path(e, &target))),
        }
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
        let swapped = swapped.map_err(fail)?;
        self.dir = None;
        drop(guard);
        let old = match swapped {
            Swapped::Placed => None,
            Swapped::Exchanged => Some(staging),
            Swapped::SetAside(aside) => Some(aside),
        };
        if let Some(old) = old
            && let Err(e) = move_back_users_entries(&old, &target, owned)
                .and_then(|()| fs::remove_dir_all(&old))
        {
            // The journal still names it: the next run moves the user's entries back and
            // removes it.
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

/// Carries the user's entries of `out` into `staging` without changing `out`, so that until
/// the swap `out` is the old set whole: files by a hard link (a copy of a regular file where
/// the file system has none), symlinks as symlinks, and directories made anew with their
/// entries carried the same way, all the way down. An entry on another mount (a mount point,
/// a bind mount of the same file system included) cannot be carried so, and fails the commit.
fn carry_over(out: &Path, staging: &Path, owned: Owned) -> io::Result<()> {
    let metadata = fs::metadata(out).map_err(|e| with_path(e, out))?;
    fs::set_permissions(staging, metadata.permissions())?;
    let mount = Mount::of(out, &metadata);
    // Directories made but not yet filled, looked at from a list rather than by recursion so
    // that no depth of the user's tree can exhaust the stack.
    let mut unfilled = Vec::new();
    for entry in fs::read_dir(out).map_err(|e| with_path(e, out))? {
        let name = entry?.file_name();
        if name.to_str().is_some_and(|name| owned.owns(name)) {
            continue;
        }
        carry(&out.join(&name), &staging.join(&name), mount, &mut unfilled)?;
    }
    while let Some((from, to, permissions)) = unfilled.pop() {
        for entry in fs::read_dir(&from).map_err(|e| with_path(e, &from))? {
            let name = entry?.file_name();
            carry(&from.join(&name), &to.join(&name), mount, &mut unfilled)?;
        }
        // Only once filled: the user's directory may not be writable.
        fs::set_permissions(&to, permissions).map_err(|e| with_path(e, &to))?;
        sync_dir(&to)?;
    }
    sync_dir(staging)
}

/// A directory made in the staging directory, with where its entries come from and the
/// permissions it gets once they are in.
type Unfilled = (PathBuf, PathBuf, fs::Permissions);

/// The mount an entry is on: its device, and on Linux the mount's id, which alone tells a bind
/// mount of a directory of the same file system from a directory (same device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mount {
    device: u64,
    id: Option<u64>,
}

impl Mount {
    /// The mount of `path` (not followed if a symlink), whose `metadata` is given.
    fn of(path: &Path, metadata: &fs::Metadata) -> Mount {
        Mount {
            device: metadata.dev(),
            id: mount_id(path),
        }
    }
}

/// The id of the mount `path` is on (not followed if a symlink), where the system says.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn mount_id(path: &Path) -> Option<u64> {
    use rustix::fs::{AtFlags, CWD, StatxFlags, statx};
    statx(CWD, path, AtFlags::SYMLINK_NOFOLLOW, StatxFlags::MNT_ID)
        .ok()
        .filter(|stat| StatxFlags::from_bits_retain(stat.stx_mask).contains(StatxFlags::MNT_ID))
        .map(|stat| stat.stx_mnt_id)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn mount_id(_path: &Path) -> Option<u64> {
    None
}

/// Carries one entry `from` to `to` (see [`carry_over`]); a directory is made and left in
/// `unfilled` to be filled. An entry on another mount than `--out` (a mount point, a bind
/// mount of the same file system included) fails: the old set is removed once swapped out,
/// and its removal would empty what is mounted there.
fn carry(from: &Path, to: &Path, mount: Mount, unfilled: &mut Vec<Unfilled>) -> io::Result<()> {
    let metadata = fs::symlink_metadata(from).map_err(|e| with_path(e, from))?;
    let kind = metadata.file_type();
    if Mount::of(from, &metadata) != mount {
        return Err(with_path(
            io::Error::other("a mount point cannot be carried into the new set"),
            from,
        ));
    }
    if kind.is_dir() {
        fs::create_dir(to).map_err(|e| with_path(e, to))?;
        unfilled.push((from.to_path_buf(), to.to_path_buf(), metadata.permissions()));
    } else if kind.is_symlink() {
        let target = fs::read_link(from).map_err(|e| with_path(e, from))?;
        std::os::unix::fs::symlink(target, to).map_err(|e| with_path(e, to))?;
    } else if let Err(e) = fs::hard_link(from, to) {
        // A copy reads its source: a FIFO or a device would block it or read without end.
        if !kind.is_file() {
            return Err(with_path(e, from));
        }
        fs::copy(from, to).map_err(|e| with_path(e, from))?;
    }
    Ok(())
}

/// Syncs a directory's entries to disk.
pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| with_path(e, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry under `dir`, with what it is: the bytes of a file, the target of a symlink,
    /// the permissions of a directory.
    fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
        let mut entries = Vec::new();
        let mut unseen = vec![dir.to_path_buf()];
        while let Some(at) = unseen.pop() {
            for entry in fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                let metadata = fs::symlink_metadata(&path).unwrap();
                let what = if metadata.is_symlink() {
                    format!("-> {}", fs::read_link(&path).unwrap().display())
                } else if metadata.is_dir() {
                    unseen.push(path.clone());
                    format!("dir {:o}", metadata.permissions().mode() & 0o777)
                } else {
                    String::from_utf8(fs::read(&path).unwrap()).unwrap()
                };
                entries.push((path.strip_prefix(dir).unwrap().to_path_buf(), what));
            }
        }
        entries.sort();
        entries
    }

    #[test]
    fn the_users_tree_is_carried_by_links_and_out_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (out, staging) = (dir.path().join("out"), dir.path().join("staging"));
        fs::create_dir_all(out.join("archive/2026/11")).unwrap();
        fs::write(out.join("archive/2026/11/old.csv"), "the user's").unwrap();
        fs::write(out.join("notes.txt"), "mine").unwrap();
        std::os::unix::fs::symlink("../notes.txt", out.join("archive/notes")).unwrap();
        fs::create_dir(out.join("sealed")).unwrap();
        fs::write(out.join("sealed/kept"), "read only").unwrap();
        fs::set_permissions(out.join("sealed"), fs::Permissions::from_mode(0o555)).unwrap();
        fs::write(out.join("agents.csv"), "the tool's").unwrap();
        fs::create_dir(&staging).unwrap();
        let before = tree(&out);

        carry_over(&out, &staging, Owned(&["agents.csv"])).unwrap();

        assert_eq!(tree(&out), before, "--out is not changed before the swap");
        let carried: Vec<_> = before
            .into_iter()
            .filter(|(path, _)| path != Path::new("agents.csv"))
            .collect();
        assert_eq!(tree(&staging), carried);
        let inode = |path: &Path| fs::metadata(path).unwrap().ino();
        for file in ["archive/2026/11/old.csv", "notes.txt", "sealed/kept"] {
            assert_eq!(inode(&out.join(file)), inode(&staging.join(file)), "{file}");
        }
        for sealed in [&out, &staging] {
            fs::set_permissions(sealed.join("sealed"), fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    /// Needs the right to mount (root): skipped without it.
    #[test]
    fn a_bind_mount_of_the_same_file_system_is_not_carried() {
        let dir = tempfile::tempdir().unwrap();
        let (out, staging) = (dir.path().join("out"), dir.path().join("staging"));
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(out.join("data")).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        fs::create_dir(&staging).unwrap();
        fs::write(elsewhere.join("kept"), "the user's").unwrap();
        let bound = std::process::Command::new("mount")
            .arg("--bind")
            .args([&elsewhere, &out.join("data")])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !bound {
            eprintln!("skipped: cannot bind mount here");
            return;
        }
        let carried = carry_over(&out, &staging, Owned(&[]));
        let unmounted = std::process::Command::new("umount")
            .arg(out.join("data"))
            .status()
            .is_ok_and(|status| status.success());
        assert!(unmounted);
        let error = carried.unwrap_err().to_string();
        assert!(error.contains("a mount point cannot be carried"), "{error}");
    }
}
