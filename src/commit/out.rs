//! `--out` resolved: the directory whose entries the run replaces as one set.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use super::CommitError;

/// `--out` as the commit sees it: its parent (canonical) and its name there. An existing `--out`
/// that is a symlink stands for the directory it names, so the swap replaces that directory and
/// leaves the link alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutDir {
    parent: PathBuf,
    name: String,
    /// As given on the command line, for messages.
    given: PathBuf,
}

impl OutDir {
    /// Resolves `out`, creating its parent directories. Fails when `out` is something other
    /// than a directory, names no directory of its own (`/`), or holds the current directory
    /// (which the swap would move away from under the process).
    pub fn resolve(out: &Path) -> Result<OutDir, CommitError> {
        let shown = || out.display().to_string();
        let target = match fs::canonicalize(out) {
            Ok(real) => real,
            Err(_) => out.to_path_buf(),
        };
        let name = target
            .file_name()
            .and_then(OsStr::to_str)
            .filter(|name| *name != "..")
            .ok_or_else(|| CommitError::NoName { out: shown() })?
            .to_owned();
        let parent = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|source| CommitError::Create {
            out: shown(),
            source,
        })?;
        let parent = fs::canonicalize(&parent).map_err(|source| CommitError::Create {
            out: shown(),
            source,
        })?;
        let resolved = OutDir {
            parent,
            name,
            given: out.to_path_buf(),
        };
        let path = resolved.path();
        if let Ok(meta) = fs::symlink_metadata(&path)
            && !meta.is_dir()
        {
            return Err(CommitError::NotADirectory { out: shown() });
        }
        if std::env::current_dir().is_ok_and(|cwd| cwd.starts_with(&path)) {
            return Err(CommitError::HoldsCurrentDir { out: shown() });
        }
        Ok(resolved)
    }

    /// The directory: `PARENT/NAME`.
    pub fn path(&self) -> PathBuf {
        self.parent.join(&self.name)
    }

    /// The parent directory, canonical.
    pub fn parent(&self) -> &Path {
        &self.parent
    }

    /// The directory's name in its parent.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `--out` as given, for messages.
    pub fn shown(&self) -> String {
        self.given.display().to_string()
    }

    /// The lock file beside it: `PARENT/.NAME.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.parent.join(format!(".{}.lock", self.name))
    }

    /// Whether `dir` (a report directory named on the command line) is this directory.
    pub fn is(&self, dir: &Path) -> bool {
        let dir = fs::canonicalize(dir).unwrap_or_else(|_| {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
            let parent = parent.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            fs::canonicalize(parent)
                .map(|p| p.join(dir.file_name().unwrap_or_default()))
                .unwrap_or_else(|_| dir.to_path_buf())
        });
        dir == self.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_is_resolved_through_its_parent_and_a_link_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(dir.path()).unwrap();
        let out = OutDir::resolve(&dir.path().join("a/b/out")).unwrap();
        assert_eq!(out.path(), real.join("a/b/out"));
        assert_eq!(out.name(), "out");
        assert!(real.join("a/b").is_dir() && !real.join("a/b/out").exists());
        fs::create_dir(real.join("reports-2026")).unwrap();
        std::os::unix::fs::symlink(real.join("reports-2026"), real.join("reports")).unwrap();
        let linked = OutDir::resolve(&dir.path().join("reports")).unwrap();
        assert_eq!(linked.path(), real.join("reports-2026"));
        assert!(linked.is(&dir.path().join("reports")));
        assert!(out.is(&dir.path().join("a/b/out")));
        assert!(!out.is(&dir.path().join("a/b")));
    }

    #[test]
    fn what_cannot_be_an_out_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("file"), b"x").unwrap();
        for (out, message) in [
            (dir.path().join("file"), "is not a directory"),
            (dir.path().join("file/out"), "cannot create --out"),
            (PathBuf::from("/"), "names no directory"),
        ] {
            let error = OutDir::resolve(&out).unwrap_err().to_string();
            assert!(error.contains(message), "{}: {error}", out.display());
        }
    }
}
