//! Row streams that leave the workers out of order and reach the report in input order.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::atomic::temporary_name;

/// The rows of one report (violations, decisions), in input order: files in the order given,
/// blocks of a file in the order they were read, whatever thread processed them.
///
/// Each input file gets a part file in the output directory, written as soon as its next block
/// is in; [`OrderedParts::append_to`] concatenates the parts in file order. Memory holds only the
/// blocks that finished before an earlier block of the same file, a handful per thread.
#[derive(Debug)]
pub struct OrderedParts {
    parts: Vec<Mutex<Part>>,
}

#[derive(Debug)]
struct Part {
    path: PathBuf,
    next: u64,
    pending: BTreeMap<u64, Vec<u8>>,
    out: Option<BufWriter<File>>,
}

impl OrderedParts {
    /// Parts for `files` input files, temporary files in `dir`.
    pub fn new(dir: &Path, stem: &str, files: usize) -> OrderedParts {
        let parts = (0..files)
            .map(|i| {
                Mutex::new(Part {
                    path: dir.join(temporary_name(&format!("{stem}.part-{i}"))),
                    next: 0,
                    pending: BTreeMap::new(),
                    out: None,
                })
            })
            .collect();
        OrderedParts { parts }
    }

    /// Hands in the rows of block `seq` of input `file`. Every block must be handed in, empty or
    /// not, so that the blocks after it can be written.
    pub fn submit(&self, file: usize, seq: u64, rows: Vec<u8>) -> io::Result<()> {
        let Some(part) = self.parts.get(file) else {
            return Err(io::Error::other(format!("no part for input {file}")));
        };
        let mut part = part.lock().unwrap_or_else(PoisonError::into_inner);
        part.pending.insert(seq, rows);
        loop {
            let next = part.next;
            let Some(rows) = part.pending.remove(&next) else {
                break;
            };
            part.next += 1;
            if rows.is_empty() {
                continue;
            }
            if part.out.is_none() {
                let file = File::create(&part.path)?;
                part.out = Some(BufWriter::with_capacity(1 << 16, file));
            }
            if let Some(out) = &mut part.out {
                out.write_all(&rows)?;
            }
        }
        Ok(())
    }

    /// Appends every part, in input order, to `out`, and removes the part files.
    pub fn append_to(&self, out: &mut impl Write) -> io::Result<()> {
        for part in &self.parts {
            let mut part = part.lock().unwrap_or_else(PoisonError::into_inner);
            if !part.pending.is_empty() {
                return Err(io::Error::other("a block of rows never arrived"));
            }
            if let Some(mut writer) = part.out.take() {
                writer.flush()?;
                drop(writer);
                let mut file = File::open(&part.path)?;
                io::copy(&mut file, out)?;
                fs::remove_file(&part.path)?;
            }
        }
        Ok(())
    }
}

impl Drop for OrderedParts {
    /// Removes the part files left: a run that failed or stopped, or an `append_to` that failed
    /// after closing a part (a full disk fails its last flush).
    fn drop(&mut self) {
        for part in &self.parts {
            let part = part.lock().unwrap_or_else(PoisonError::into_inner);
            if part.out.is_some() || part.next > 0 {
                let _ = fs::remove_file(&part.path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_out_in_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let parts = OrderedParts::new(dir.path(), "v", 2);
        parts.submit(1, 1, b"f1b1\n".to_vec()).unwrap();
        parts.submit(0, 2, b"f0b2\n".to_vec()).unwrap();
        parts.submit(1, 0, b"f1b0\n".to_vec()).unwrap();
        parts.submit(0, 1, Vec::new()).unwrap();
        parts.submit(0, 0, b"f0b0\n".to_vec()).unwrap();
        let mut out = Vec::new();
        parts.append_to(&mut out).unwrap();
        assert_eq!(out, b"f0b0\nf0b2\nf1b0\nf1b1\n");
        drop(parts);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_missing_block_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let parts = OrderedParts::new(dir.path(), "v", 1);
        parts.submit(0, 1, b"late\n".to_vec()).unwrap();
        assert!(parts.append_to(&mut Vec::new()).is_err());
    }
}
