//! Golden reports: the README's sample night audited as the README runs it, every report file
//! (the CSVs, `state.json`, `report.html`) compared byte for byte with a copy checked in under
//! `tests/golden/`, so a change of output is seen in a diff, not found by reading code.
//!
//! - `sample-night/`: `audit` of `sample-data/logs` with the README's options.
//! - `sample-night-decisions/`: the same with `--decisions`.
//! - A merge of the sample night split in two (`--decisions`) is compared with
//!   `sample-night-decisions/`: merged reports equal one audit's, byte for byte.
//!
//! After a deliberate change of output, write the goldens anew and review the diff:
//!
//! ```text
//! ROBOTS_AUDIT_UPDATE_GOLDEN=1 cargo test --test tests golden::
//! git diff tests/golden/
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

/// Set to rewrite the golden directories from this build's output instead of comparing.
const UPDATE: &str = "ROBOTS_AUDIT_UPDATE_GOLDEN";

/// The sample night's log files, in the order the audit of their directory takes them.
const SAMPLE_LOGS: [&str; 3] = [
    "sample-data/logs/shop-access.log.gz",
    "sample-data/logs/vhost-2026-11-20.log.gz",
    "sample-data/logs/vhost-2026-11-21.log.gz",
];

fn golden_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The names of the files in `dir`, sorted.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The first line where `a` and `b` differ, both sides, for the failure message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let mut lines = a.lines().zip(b.lines()).enumerate();
    match lines.find(|(_, (x, y))| x != y) {
        Some((n, (x, y))) => format!("line {}:\n  golden: {x}\n  now:    {y}", n + 1),
        None => format!(
            "one ends early ({} and {} lines)",
            a.lines().count(),
            b.lines().count()
        ),
    }
}

/// Compares the reports in `out` with the golden directory `name`, or with
/// `ROBOTS_AUDIT_UPDATE_GOLDEN` set, makes them the golden directory.
fn check_golden(name: &str, out: &Path) {
    let golden = golden_dir(name);
    if std::env::var_os(UPDATE).is_some() {
        let _ = fs::remove_dir_all(&golden);
        fs::create_dir_all(&golden).unwrap();
        for file in file_names(out) {
            fs::copy(out.join(&file), golden.join(&file)).unwrap();
        }
        eprintln!("golden: wrote {}", golden.display());
        return;
    }
    assert_eq!(
        file_names(&golden),
        file_names(out),
        "{name}: the report files differ from the golden ones ({UPDATE}=1 rewrites them)"
    );
    for file in file_names(&golden) {
        let (want, got) = (
            fs::read(golden.join(&file)).unwrap(),
            fs::read(out.join(&file)).unwrap(),
        );
        assert!(
            want == got,
            "{name}/{file} differs from the golden file ({UPDATE}=1 rewrites it): {}",
            first_difference(&want, &got)
        );
    }
}

/// Audits `logs` as the README does into `out`, with `extra` options.
fn audit(out: &Path, extra: &[&str], logs: &[&str]) {
    sample_night_audit()
        .arg("--out")
        .arg(out)
        .args(extra)
        .args(logs)
        .assert()
        .success();
}

#[test]
fn the_sample_night_gives_the_golden_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    audit(&out, &[], &["sample-data/logs"]);
    check_golden("sample-night", &out);
}

#[test]
fn the_sample_night_with_decisions_gives_the_golden_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    audit(&out, &["--decisions"], &["sample-data/logs"]);
    check_golden("sample-night-decisions", &out);
}

#[test]
fn the_sample_night_split_in_two_merges_to_the_golden_reports() {
    if std::env::var_os(UPDATE).is_some() {
        // The merge is held to the audit's golden directory, never written into it.
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    audit(&first, &["--decisions"], &SAMPLE_LOGS[..2]);
    audit(&second, &["--decisions"], &SAMPLE_LOGS[2..]);
    let out = dir.path().join("merged");
    robots_audit()
        .args(["merge", "-q", "--out"])
        .arg(&out)
        .arg(&first)
        .arg(&second)
        .assert()
        .success();
    check_golden("sample-night-decisions", &out);
}
