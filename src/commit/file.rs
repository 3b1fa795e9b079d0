//! A file of a staging directory: created exclusively, written through a buffer, synced when
//! finished.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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

/// Opens `path` for reading if it is a regular file, without following a symlink at its last
/// component (`O_NOFOLLOW`): what `merge` reads of a report directory.
pub fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(|e| with_path(e, path))?;
    if !file.metadata().map_err(|e| with_path(e, path))?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
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
}
