//! One run per `--out` at a time: an advisory lock on a file beside it, which is also the run's
//! journal.
//!
//! The `--out` directory is swapped as a whole, so it cannot carry its own lock: the lock is
//! `PARENT/.NAME.lock`, locked with [`File::try_lock`] (or [`File::lock`] with `--wait`), which
//! the kernel releases when the process ends, however it ends. The file holds the holder's pid,
//! host and start time, so that a second run can name it, and the names of the directories the
//! holder made beside `--out` (its staging directory, a set it renamed aside), so that the next
//! holder knows exactly what a killed run left ([`Journal`]). The file is never removed:
//! removing a lock file races with a run that has just opened it.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use jiff::Timestamp;

use super::CommitError;
use super::out::OutDir;

/// Who holds a lock, as the lock file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id.
    pub pid: u32,
    /// The host it runs on.
    pub host: String,
    /// When it took the lock.
    pub since: Timestamp,
}

impl Holder {
    fn this_process() -> Holder {
        Holder {
            pid: std::process::id(),
            host: host_name(),
            since: Timestamp::now(),
        }
    }

    /// `pid HOST TIME`, one line.
    fn to_line(&self) -> String {
        format!("{} {} {}\n", self.pid, self.host, self.since)
    }

    fn parse(text: &str) -> Option<Holder> {
        let mut words = text.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let host = words.next()?.to_owned();
        let since = words.next()?.parse().ok()?;
        Some(Holder { pid, host, since })
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pid {} on {} since {}", self.pid, self.host, self.since)
    }
}

/// The holder of a lock as far as it could be read: a run that has just taken the lock may not
/// have written its line yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HolderText(pub Option<Holder>);

impl fmt::Display for HolderText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(holder) => write!(f, "another robots-audit run ({holder})"),
            None => f.write_str("another robots-audit run"),
        }
    }
}

/// What the lock file says: its holder, and the directories the holder made beside `--out`
/// that a commit has not cleared yet (their names in the parent directory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Journal {
    /// The holder, when the file names one.
    pub holder: Option<Holder>,
    /// The holder's staging directory (which, once swapped, holds the previous set).
    pub staging: Option<String>,
    /// A previous set the holder renamed aside (the fallback swap).
    pub aside: Option<String>,
}

impl Journal {
    fn to_text(&self) -> String {
        let mut text = self
            .holder
            .as_ref()
            .map(Holder::to_line)
            .unwrap_or_default();
        for (key, name) in [("staging", &self.staging), ("aside", &self.aside)] {
            if let Some(name) = name {
                text.push_str(&format!("{key} {}\n", escape(name)));
            }
        }
        text
    }

    fn parse(text: &str) -> Journal {
        let mut lines = text.lines();
        let holder = lines.next().and_then(Holder::parse);
        let mut journal = Journal {
            holder,
            ..Journal::default()
        };
        for line in lines {
            // A name is one path component other than `.` and `..`: anything else is not the
            // tool's, and the parent or its parent must never be taken for a leftover.
            let named = |name: &str| {
                let name = unescape(name)?;
                (!name.contains('/') && name.starts_with('.') && name != "." && name != "..")
                    .then_some(name)
            };
            match line.split_once(' ') {
                Some(("staging", name)) => journal.staging = named(name),
                Some(("aside", name)) => journal.aside = named(name),
                _ => {}
            }
        }
        journal
    }
}

/// A name as the journal writes it: `%`, line breaks and the other control characters as `%XX`,
/// so that an `--out` whose name holds a line break cannot write a line of its own.
fn escape(name: &str) -> String {
    let mut text = String::with_capacity(name.len());
    for c in name.chars() {
        if c == '%' || c.is_ascii_control() {
            text.push_str(&format!("%{:02X}", u32::from(c)));
        } else {
            text.push(c);
        }
    }
    text
}

/// A name [`escape`] wrote; `None` when the text is not one it writes.
fn unescape(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = tail.get(2..)?;
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes)
        .ok()
        .filter(|name| !name.is_empty())
}

/// The lock on one `--out`, held until dropped (or the process ends).
#[derive(Debug)]
pub struct OutLock {
    /// Held for the kernel's lock; written as the journal.
    file: File,
    out: OutDir,
    /// What the previous holder's journal said when the lock was taken.
    previous: Journal,
    /// This process, as its journal names it.
    holder: Holder,
}

impl OutLock {
    /// Takes the lock of `out`. Held by another process: an error naming the holder, or with
    /// `wait`, `waiting` is told who holds it and the call blocks until it is released.
    pub fn take(
        out: OutDir,
        wait: bool,
        waiting: impl FnOnce(&HolderText),
    ) -> Result<OutLock, CommitError> {
        let path = out.lock_path();
        let fail = |source: io::Error| CommitError::Lock {
            path: path.clone(),
            source,
        };
        let (file, previous) =
            lock_file(&path, wait, waiting).map_err(|refused| match refused {
                LockRefused::Held(holder) => CommitError::Locked {
                    holder,
                    out: out.shown(),
                },
                LockRefused::Failed(source) => fail(source),
            })?;
        let lock = OutLock {
            file,
            out,
            previous: previous.clone(),
            holder: Holder::this_process(),
        };
        // Until the leftovers are cleared, the journal keeps naming them.
        lock.write_journal(&Journal {
            holder: Some(lock.holder.clone()),
            ..previous
        })
        .map_err(fail)?;
        Ok(lock)
    }

    /// The directory this lock is for.
    pub fn out(&self) -> &OutDir {
        &self.out
    }

    /// What the previous holder's journal said.
    pub fn previous(&self) -> &Journal {
        &self.previous
    }

    /// Records `journal` in the lock file, synced: it must name a directory before the run
    /// could leave it behind.
    pub fn write_journal(&self, journal: &Journal) -> io::Result<()> {
        write_journal(&self.file, journal)
    }

    /// This run's journal with `staging` and `aside` as given.
    pub fn journal(&self, staging: Option<&str>, aside: Option<&str>) -> Journal {
        Journal {
            holder: Some(self.holder.clone()),
            staging: staging.map(str::to_owned),
            aside: aside.map(str::to_owned),
        }
    }
}

/// The lock of a directory that a command updates in place rather than replaces (the robots
/// history of `fetch` and `import`): the kernel's lock of [`OutLock`], on a file inside the
/// directory, naming its holder. Held until dropped (or the process ends).
#[derive(Debug)]
pub struct DirLock {
    /// Held for the kernel's lock.
    _file: File,
}

impl DirLock {
    /// Takes the lock of the file `path`. Held by another process: [`LockRefused::Held`], or with
    /// `wait`, `waiting` is told who holds it and the call blocks until it is released.
    pub fn take(
        path: &Path,
        wait: bool,
        waiting: impl FnOnce(&HolderText),
    ) -> Result<DirLock, LockRefused> {
        let (file, _) = lock_file(path, wait, waiting)?;
        let holder = Journal {
            holder: Some(Holder::this_process()),
            ..Journal::default()
        };
        write_journal(&file, &holder).map_err(LockRefused::Failed)?;
        Ok(DirLock { _file: file })
    }
}

/// Why a [`DirLock`] was not taken.
#[derive(Debug)]
pub enum LockRefused {
    /// Another process holds it.
    Held(HolderText),
    /// The lock file cannot be opened, locked or written.
    Failed(io::Error),
}

/// Opens the lock file `path` (never through a symbolic link) and locks it, waiting for its
/// holder with `wait`; returns it locked, with the journal its previous holder left.
fn lock_file(
    path: &Path,
    wait: bool,
    waiting: impl FnOnce(&HolderText),
) -> Result<(File, Journal), LockRefused> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
        .map_err(LockRefused::Failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let holder = HolderText(read_journal(&mut file).holder);
            if !wait {
                return Err(LockRefused::Held(holder));
            }
            waiting(&holder);
            file.lock().map_err(LockRefused::Failed)?;
        }
        Err(TryLockError::Error(e)) => return Err(LockRefused::Failed(e)),
    }
    let previous = read_journal(&mut file);
    Ok((file, previous))
}

/// Records `journal` in a lock file, synced.
fn write_journal(file: &File, journal: &Journal) -> io::Result<()> {
    let text = journal.to_text();
    file.write_all_at(text.as_bytes(), 0)?;
    file.set_len(text.len() as u64)?;
    file.sync_data()
}

fn read_journal(file: &mut File) -> Journal {
    let mut text = String::new();
    let read = file
        .rewind()
        .and_then(|()| file.take(4096).read_to_string(&mut text));
    match read {
        Ok(_) => Journal::parse(&text),
        Err(_) => Journal::default(),
    }
}

/// This machine's name, as `uname -n` gives it.
fn host_name() -> String {
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy();
    if name.is_empty() {
        "unknown-host".to_owned()
    } else {
        name.replace(char::is_whitespace, "_")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_reads_back_from_its_line() {
        let holder = Holder {
            pid: 42,
            host: "web-1".into(),
            since: Timestamp::from_second(1_800_000_000).unwrap(),
        };
        assert_eq!(Holder::parse(&holder.to_line()), Some(holder.clone()));
        assert_eq!(Holder::parse(""), None);
        let journal = Journal {
            holder: Some(holder.clone()),
            staging: Some(".out.staging-abc".into()),
            aside: None,
        };
        assert_eq!(Journal::parse(&journal.to_text()), journal);
        let hostile = "1 h 2027-01-15T08:00:00Z\nstaging ../../etc\naside x\n";
        assert_eq!(Journal::parse(hostile).staging, None);
        assert_eq!(Journal::parse(hostile).aside, None);
        for parent in [".", "..", "%2E%2E", ".%2F", ".%2", ".%zz"] {
            let text = format!("1 h 2027-01-15T08:00:00Z\nstaging {parent}\naside {parent}\n");
            let journal = Journal::parse(&text);
            assert_eq!((journal.staging, journal.aside), (None, None), "{parent}");
        }
        // An --out named with a line break: its staging directory's name stays one line.
        let broken = Journal {
            holder: Some(holder.clone()),
            staging: Some(".x\nstaging ..\n.staging-abc%".into()),
            aside: None,
        };
        assert_eq!(Journal::parse(&broken.to_text()), broken);
        assert_eq!(
            HolderText(Some(holder)).to_string(),
            "another robots-audit run (pid 42 on web-1 since 2027-01-15T08:00:00Z)"
        );
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_first_and_waits_with_wait() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::resolve(&dir.path().join("out")).unwrap();
        let first = OutLock::take(out.clone(), false, |_| {}).unwrap();
        let error = OutLock::take(out.clone(), false, |_| {}).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(&format!("pid {} on", std::process::id()))
                && message.contains("--wait waits for it"),
            "{message}"
        );
        let waiter = std::thread::spawn(move || {
            let mut told = None;
            let lock = OutLock::take(out, true, |holder| told = Some(holder.clone()));
            (lock.is_ok(), told.is_some())
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        drop(first);
        assert_eq!(waiter.join().unwrap(), (true, true));
    }
}
