//! Files that appear under their final name only when complete.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file written under a temporary name in the same directory and renamed over its final name
/// by [`AtomicFile::commit`]. Dropped without a commit (an error, a panic, an interrupt), it
/// removes its temporary file, so a half-written report never stands under a final name.
///
/// ```
/// # use robots_audit::commit::atomic::AtomicFile;
/// let dir = tempfile::tempdir().unwrap();
/// let mut file = AtomicFile::create(dir.path(), "agents.csv").unwrap();
/// std::io::Write::write_all(&mut file, b"agent\n").unwrap();
/// assert!(!dir.path().join("agents.csv").exists());
/// file.commit().unwrap();
/// assert!(dir.path().join("agents.csv").exists());
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    writer: Option<BufWriter<File>>,
    temp: PathBuf,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts writing `dir/name`.
    pub fn create(dir: &Path, name: &str) -> io::Result<AtomicFile> {
        let temp = dir.join(temporary_name(name));
        let file = File::create(&temp).map_err(|e| with_path(e, &temp))?;
        Ok(AtomicFile {
            writer: Some(BufWriter::with_capacity(1 << 16, file)),
            temp,
            target: dir.join(name),
        })
    }

    /// Appends the rest of `from`, from its current position, after what was written so far.
    /// On Linux the bytes go from file to file inside the kernel (`copy_file_range`), never
    /// through this process's memory.
    pub fn append_file(&mut self, from: &mut File) -> io::Result<u64> {
        match &mut self.writer {
            Some(writer) => {
                writer.flush().map_err(|e| with_path(e, &self.temp))?;
                io::copy(from, writer.get_mut()).map_err(|e| with_path(e, &self.temp))
            }
            None => Err(io::Error::other("file already committed")),
        }
    }

    /// A second handle on the temporary file, with which another thread can sync it to disk
    /// while writing goes on. (Bytes still in this writer's buffer, at most 64 KiB, are not in
    /// the file yet.)
    pub fn second_handle(&self) -> io::Result<File> {
        match &self.writer {
            Some(writer) => writer.get_ref().try_clone(),
            None => Err(io::Error::other("file already committed")),
        }
    }

    /// Flushes, syncs and renames the file to its final name. On failure (a full disk fails
    /// the last flush) the writer is kept, so that dropping `self` removes the temporary file.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(writer) = &mut self.writer {
            writer.flush().map_err(|e| with_path(e, &self.temp))?;
            writer
                .get_ref()
                .sync_all()
                .map_err(|e| with_path(e, &self.temp))?;
        }
        fs::rename(&self.temp, &self.target).map_err(|e| with_path(e, &self.target))?;
        self.writer = None;
        Ok(())
    }
}

/// The hidden name under which this process writes `name` before it is complete. Every
/// temporary file of a run is named this way, so [`remove_temporaries`] finds them all.
pub fn temporary_name(name: &str) -> String {
    format!(".{name}.tmp-{}", std::process::id())
}

/// Removes this process's temporary files from `dir`: the last step of a forced stop.
pub fn remove_temporaries(dir: &Path) {
    let suffix = format!(".tmp-{}", std::process::id());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(&suffix) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// `e` with the path it concerns in its message.
pub fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.writer {
            Some(w) => w.write(buf).map_err(|e| with_path(e, &self.temp)),
            None => Err(io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.writer {
            Some(w) => w.flush().map_err(|e| with_path(e, &self.temp)),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let file = AtomicFile::create(dir.path(), "x.csv").unwrap();
        fs::write(dir.path().join("keep.csv"), b"x").unwrap();
        remove_temporaries(dir.path());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        drop(file);
    }

    #[test]
    fn dropped_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut file = AtomicFile::create(dir.path(), "x.csv").unwrap();
            file.write_all(b"partial").unwrap();
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
