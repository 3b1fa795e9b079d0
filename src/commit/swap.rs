//! The one rename that replaces `--out`: an exchange of two directories where the system has
//! it, two renames where it does not.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use rustix::io::Errno;

use super::aside_prefix;
use super::file::with_path;

/// How the new set came to stand at `--out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Swapped {
    /// There was no `--out`: renamed in.
    Placed,
    /// Exchanged with the old set, which now stands under the staging name.
    Exchanged,
    /// The fallback: the old set was renamed aside to this path first.
    SetAside(PathBuf),
}

/// Puts `staging` at `out` (`name` in `parent`): `renameat2(RENAME_EXCHANGE)`, so that `out` is
/// the old set or the new one at every instant. Where the file system does not support the
/// exchange (`EINVAL`, `ENOSYS`, `EOPNOTSUPP`: not Linux, or a network file system), the
/// fallback of [`swap_by_renames`], which tells `record_aside` the name it sets the old set
/// aside under before it does.
pub fn swap_in(
    staging: &Path,
    out: &Path,
    parent: &Path,
    name: &str,
    record_aside: impl FnOnce(&str) -> io::Result<()>,
) -> io::Result<Swapped> {
    match renameat_with(CWD, staging, CWD, out, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(Swapped::Exchanged),
        Err(Errno::NOENT) if fs::symlink_metadata(out).is_err() => {
            fs::rename(staging, out).map_err(|e| with_path(e, out))?;
            Ok(Swapped::Placed)
        }
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
            swap_by_renames(staging, out, parent, name, record_aside)
        }
        Err(e) => Err(with_path(e.into(), out)),
    }
}

/// The fallback: renames the old set aside (`PARENT/.NAME.aside-XXXX`), renames the new one in.
/// Between the two renames `out` is missing; the next run that finds it missing renames the set
/// aside back ([`super::recover`]), and removes it otherwise.
pub fn swap_by_renames(
    staging: &Path,
    out: &Path,
    parent: &Path,
    name: &str,
    record_aside: impl FnOnce(&str) -> io::Result<()>,
) -> io::Result<Swapped> {
    let suffix = staging
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit('-').next())
        .unwrap_or("set");
    let aside_name = format!("{}{suffix}", aside_prefix(name));
    record_aside(&aside_name)?;
    let aside = parent.join(aside_name);
    fs::rename(out, &aside).map_err(|e| with_path(e, out))?;
    if let Err(e) = fs::rename(staging, out) {
        let _ = fs::rename(&aside, out);
        return Err(with_path(e, out));
    }
    Ok(Swapped::SetAside(aside))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(dir: &Path, name: &str, content: &str) -> PathBuf {
        let path = dir.join(name);
        fs::create_dir(&path).unwrap();
        fs::write(path.join("agents.csv"), content).unwrap();
        path
    }

    #[test]
    fn the_exchange_puts_the_new_set_in_and_the_old_one_under_the_staging_name() {
        let dir = tempfile::tempdir().unwrap();
        let out = set(dir.path(), "out", "old");
        let staging = set(dir.path(), ".out.staging-abc", "new");
        assert_eq!(
            swap_in(&staging, &out, dir.path(), "out", |_| Ok(())).unwrap(),
            Swapped::Exchanged
        );
        assert_eq!(fs::read_to_string(out.join("agents.csv")).unwrap(), "new");
        assert_eq!(
            fs::read_to_string(staging.join("agents.csv")).unwrap(),
            "old"
        );
        let absent = dir.path().join("absent");
        let other = set(dir.path(), ".absent.staging-x", "first");
        assert_eq!(
            swap_in(&other, &absent, dir.path(), "absent", |_| Ok(())).unwrap(),
            Swapped::Placed
        );
        assert!(!other.exists());
    }

    #[test]
    fn the_fallback_sets_the_old_set_aside_under_a_recognisable_name() {
        let dir = tempfile::tempdir().unwrap();
        let out = set(dir.path(), "out", "old");
        let staging = set(dir.path(), ".out.staging-abc", "new");
        let mut recorded = String::new();
        let record = |name: &str| {
            recorded = name.to_owned();
            Ok(())
        };
        let Swapped::SetAside(aside) =
            swap_by_renames(&staging, &out, dir.path(), "out", record).unwrap()
        else {
            panic!("not set aside");
        };
        assert_eq!(aside, dir.path().join(".out.aside-abc"));
        assert_eq!(recorded, ".out.aside-abc");
        assert_eq!(fs::read_to_string(out.join("agents.csv")).unwrap(), "new");
        assert_eq!(fs::read_to_string(aside.join("agents.csv")).unwrap(), "old");
    }
}
