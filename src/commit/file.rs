//! A file of a staging directory: created exclusively, written through a buffer, synced when
//! finished.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// A new file, created with `O_CREAT | O_EXCL` (never over an existing name, never through a
/// symlink), written through a 64 KiB buffer and synced to disk by [`NewFile::finish`]. Nothing
/// removes it on drop: it lives in a staging directory, which is removed as a whole when the
/// run does not commit.
#[derive(Debug)]
pub struct NewFile {
    writer: BufWriter<File>,
    path: PathBuf,
}

impl NewFile {
    /// Creates `dir/name`; fails if anything stands under that name.
    pub fn create(dir: &Path, name: &str) -> io::Result<NewFile> {
        let path = dir.join(name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| with_path(e, &path))?;
        Ok(NewFile {
            writer: BufWriter::with_capacity(1 << 16, file),
            path,
        })
    }

    /// Appends the rest of `from`, from its current position. On Linux the bytes go from file
    /// to file inside the kernel (`copy_file_range`), never through this process's memory.
    pub fn append_file(&mut self, from: &mut File) -> io::Result<u64> {
        self.writer.flush().map_err(|e| with_path(e, &self.path))?;
        io::copy(from, self.writer.get_mut()).map_err(|e| with_path(e, &self.path))
    }

    /// A second handle on the file, with which another thread can sync it while writing goes
    /// on (bytes still in this writer's buffer, at most 64 KiB, are not in the file yet).
    pub fn second_handle(&self) -> io::Result<File> {
        self.writer.get_ref().try_clone()
    }

    /// Flushes the buffer and syncs the file to disk: a full disk fails here at the latest.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush().map_err(|e| with_path(e, &self.path))?;
        self.writer
            .get_ref()
            .sync_all()
            .map_err(|e| with_path(e, &self.path))
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf).map_err(|e| with_path(e, &self.path))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush().map_err(|e| with_path(e, &self.path))
    }
}

/// A report directory that `merge` reads: every file comes from the directory this handle
/// first opened, never from a set another run swapped in under the same name later.
///
/// A commit replaces `--out` by renaming a new directory over the name (`src/commit/swap.rs`), so the
/// directory a name leads to is the identity of a report set. [`ReportDir::open`] records the
/// device and inode of the directory the name led to; [`ReportDir::open_file`] opens the name
/// again, refuses a different directory, and opens the file inside the one it checked. Holding
/// no descriptor between reads keeps a merge of a year of nights within any descriptor limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportDir {
    path: PathBuf,
    device: u64,
    inode: u64,
}

impl ReportDir {
    /// Opens the directory `path` (the user's own argument: a symlink to it is followed).
    pub fn open(path: &Path) -> io::Result<ReportDir> {
        let dir = open_directory(path)?;
        let metadata = dir.metadata().map_err(|e| with_path(e, path))?;
        Ok(ReportDir {
            path: path.to_path_buf(),
            device: metadata.dev(),
            inode: metadata.ino(),
        })
    }

    /// The directory's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the file `name` of this directory for reading if it is a regular file, without
    /// following a symlink (`O_NOFOLLOW`). An error when the path now leads to another
    /// directory: a run committed a new report set there since [`ReportDir::open`].
    pub fn open_file(&self, name: &str) -> io::Result<File> {
        let path = self.path.join(name);
        let dir = open_directory(&self.path)?;
        let metadata = dir.metadata().map_err(|e| with_path(e, &self.path))?;
        if (metadata.dev(), metadata.ino()) != (self.device, self.inode) {
            return Err(io::Error::other(format!(
                "{} was replaced by another run's reports while merge read it: merge again",
                self.path.display()
            )));
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = File::from(
            rustix::fs::openat(&dir, name, flags, Mode::empty())
                .map_err(|e| with_path(e.into(), &path))?,
        );
        if !file.metadata().map_err(|e| with_path(e, &path))?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a regular file", path.display()),
            ));
        }
        Ok(file)
    }
}

fn open_directory(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::DIRECTORY.bits() as i32)
        .open(path)
        .map_err(|e| with_path(e, path))
}

/// `e` with the path it concerns in its message.
pub fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_exists_or_is_a_symlink_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("taken.csv"), b"x").unwrap();
        std::os::unix::fs::symlink("/dev/null", dir.path().join("link.csv")).unwrap();
        for name in ["taken.csv", "link.csv"] {
            let error = NewFile::create(dir.path(), name).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::AlreadyExists, "{name}");
            assert!(error.to_string().contains(name), "{error}");
        }
        let mut file = NewFile::create(dir.path(), "new.csv").unwrap();
        file.write_all(b"a\n").unwrap();
        file.finish().unwrap();
        assert_eq!(std::fs::read(dir.path().join("new.csv")).unwrap(), b"a\n");
    }

    #[test]
    fn a_report_directory_reads_only_its_own_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let night = dir.path().join("night");
        std::fs::create_dir(&night).unwrap();
        std::fs::write(night.join("state.json"), b"{}").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", night.join("agents.csv")).unwrap();
        std::fs::create_dir(night.join("hourly.csv")).unwrap();
        let report = ReportDir::open(&night).unwrap();
        let mut text = String::new();
        io::Read::read_to_string(&mut report.open_file("state.json").unwrap(), &mut text).unwrap();
        assert_eq!(text, "{}");
        for (name, expected) in [
            ("agents.csv", "agents.csv"),
            ("hourly.csv", "is not a regular file"),
            ("rules.csv", "rules.csv"),
        ] {
            let error = report.open_file(name).unwrap_err().to_string();
            assert!(error.contains(expected), "{name}: {error}");
        }
        // Another set under the same name, as a commit leaves it.
        std::fs::rename(&night, dir.path().join("aside")).unwrap();
        std::fs::create_dir(&night).unwrap();
        std::fs::write(night.join("state.json"), b"{}").unwrap();
        let error = report.open_file("state.json").unwrap_err().to_string();
        assert!(
            error.contains("replaced by another run's reports"),
            "{error}"
        );
        assert!(ReportDir::open(&night.join("state.json")).is_err());
    }
}
