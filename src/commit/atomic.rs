//! One file replaced atomically, for files that are not part of a report set.

use std::fs::Permissions;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::file::with_path;

/// A file written under an unpredictable temporary name in the same directory (created
/// exclusively) and renamed over its final name by [`AtomicFile::commit`]. Dropped without a
/// commit (an error, a panic), it removes its temporary file, so a half-written file never
/// stands under its final name.
///
/// ```
/// # use robots_audit::commit::AtomicFile;
/// let dir = tempfile::tempdir().unwrap();
/// let mut file = AtomicFile::create(dir.path(), "manifest.csv").unwrap();
/// std::io::Write::write_all(&mut file, b"origin\n").unwrap();
/// assert!(!dir.path().join("manifest.csv").exists());
/// file.commit().unwrap();
/// assert!(dir.path().join("manifest.csv").exists());
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    writer: BufWriter<NamedTempFile>,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts writing `dir/name`.
    pub fn create(dir: &Path, name: &str) -> io::Result<AtomicFile> {
        // A temporary file is created readable by its owner only; this one becomes a file the
        // user keeps (a history's manifest and robots.txt copies, read by audits that may run
        // as another user), so it gets the mode any new file gets under the umask.
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(dir)
            .map_err(|e| with_path(e, &dir.join(name)))?;
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(1 << 16, temp),
            target: dir.join(name),
        })
    }

    /// Flushes, syncs and renames the file to its final name. On failure the temporary file is
    /// removed.
    pub fn commit(self) -> io::Result<()> {
        let target = self.target;
        let temp = self
            .writer
            .into_inner()
            .map_err(|e| with_path(e.into_error(), &target))?;
        temp.as_file()
            .sync_all()
            .map_err(|e| with_path(e, &target))?;
        temp.persist(&target)
            .map_err(|e| with_path(e.error, &target))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer
            .write(buf)
            .map_err(|e| with_path(e, &self.target))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush().map_err(|e| with_path(e, &self.target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_file_leaves_nothing_and_a_committed_one_replaces_the_old() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut file = AtomicFile::create(dir.path(), "x.csv").unwrap();
            file.write_all(b"partial").unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        std::fs::write(dir.path().join("x.csv"), b"old").unwrap();
        let mut file = AtomicFile::create(dir.path(), "x.csv").unwrap();
        file.write_all(b"new").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read(dir.path().join("x.csv")).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_committed_file_has_the_mode_of_any_new_file() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().mode() & 0o777;
        std::fs::write(dir.path().join("plain.csv"), b"").unwrap();
        let mut file = AtomicFile::create(dir.path(), "manifest.csv").unwrap();
        file.write_all(b"origin\n").unwrap();
        file.commit().unwrap();
        assert_eq!(mode("manifest.csv"), mode("plain.csv"));
    }
}
