//! The run owns `--out`: after a run, the directory holds exactly that run's reports.
//!
//! A report file of the tool that the run did not write (a `decisions.csv` left by an earlier
//! run with `--decisions`) would sit beside the new reports and be read as part of them, so it
//! is removed once the run's own reports are committed. Only names of this list are touched:
//! anything else a user keeps in the directory stays. A fatal error stops the run before this
//! step, so it leaves the previous reports as they were.

use std::fs;
use std::io;
use std::path::Path;

use super::files;

/// Removes from `out` every file of [`files::ALL`] that is not in `written`; returns the names
/// removed. A file that is already gone is not an error.
pub fn remove_unwritten(out: &Path, written: &[&str]) -> io::Result<Vec<&'static str>> {
    let mut removed = Vec::new();
    for &name in files::ALL {
        if written.contains(&name) {
            continue;
        }
        match fs::remove_file(out.join(name)) {
            Ok(()) => removed.push(name),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot remove the stale report {}: {e}",
                        out.join(name).display()
                    ),
                ));
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tools_unwritten_reports_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["agents.csv", "decisions.csv", "notes.txt", "mine.csv"] {
            fs::write(dir.path().join(name), b"x").unwrap();
        }
        let removed = remove_unwritten(dir.path(), &["agents.csv", "violations.csv"]).unwrap();
        assert_eq!(removed, ["decisions.csv"]);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["agents.csv", "mine.csv", "notes.txt"]);
    }
}
