//! Helpers shared by the integration tests: write a scenario to a temp dir, run the binary,
//! read CSV reports back as maps.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The binary under test.
pub fn robots_audit() -> Command {
    Command::cargo_bin("robots-audit").expect("binary built")
}

/// Writes `contents` to `dir/rel`, creating parent directories.
pub fn write(dir: &Path, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, contents).unwrap();
    path
}

/// Gzips `text` into `dir/rel`.
pub fn write_gz(dir: &Path, rel: &str, text: &[u8]) -> PathBuf {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text).unwrap();
    write(dir, rel, enc.finish().unwrap())
}

/// A CSV report as rows of header -> value.
pub fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            headers
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// The row whose `key` column equals `value`.
pub fn row<'a>(
    rows: &'a [BTreeMap<String, String>],
    key: &str,
    value: &str,
) -> &'a BTreeMap<String, String> {
    rows.iter()
        .find(|r| r[key] == value)
        .unwrap_or_else(|| panic!("no row with {key}={value} in {rows:#?}"))
}

/// The header row of a CSV file.
pub fn header(path: &Path) -> String {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// What a finished run wrote to standard error, as text (invalid UTF-8 replaced).
pub fn stderr_text(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts that a run wrote its reports: exit 0, or 3 (nothing judged, or an input error),
/// naming `what` and the run's standard error otherwise.
pub fn assert_reports_written(output: &std::process::Output, what: &str) {
    assert!(
        matches!(output.status.code(), Some(0 | 3)),
        "{what}: {}",
        stderr_text(output)
    );
}

/// The sample night's options as the README gives them, relative to the repository root: its
/// robots directory, then its manifest, `--origin` and `--verify`.
pub const SAMPLE_NIGHT_OPTIONS: [&str; 8] = [
    "--robots",
    "sample-data/robots",
    "--robots",
    "sample-data/manifest.csv",
    "--origin",
    "https://shop.example.net",
    "--verify",
    "Google=sample-data/ranges/googlebot.json",
];

/// The README's audit of the sample night, run in the repository root: `audit -q` with
/// [`SAMPLE_NIGHT_OPTIONS`]. Callers add `--out`, options and logs.
pub fn sample_night_audit() -> Command {
    let mut cmd = robots_audit();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["audit", "-q"])
        .args(SAMPLE_NIGHT_OPTIONS);
    cmd
}

/// `state` (the text of a `state.json`) with its payload edited by `edit`, and the checksum that
/// makes it pass, as a bug or a hand edit would leave it.
pub fn resigned_state(state: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    use sha2::{Digest, Sha256};
    let mut envelope: serde_json::Value = serde_json::from_str(state).unwrap();
    edit(&mut envelope["payload"]);
    let payload = serde_json::to_string(&envelope["payload"]).unwrap();
    envelope["sha256"] = format!("{:x}", Sha256::digest(payload.as_bytes())).into();
    serde_json::to_string(&envelope).unwrap()
}

/// `fetch_all`'s answers, in the order of `origins`.
pub fn fetch_in_order(
    origins: &[robots_audit::origin::Origin],
    options: &robots_audit::history::fetch::FetchOptions,
) -> Vec<robots_audit::history::fetch::Fetched> {
    let mut answers = vec![None; origins.len()];
    robots_audit::history::fetch::fetch_all(
        origins,
        options,
        |i, fetched| -> Result<(), robots_audit::history::HistoryError> {
            answers[i] = Some(fetched);
            Ok(())
        },
    )
    .unwrap();
    answers.into_iter().map(Option::unwrap).collect()
}

/// The peak resident memory of a running child, in KiB, read from `/proc` until it exits
/// (Linux only: elsewhere `None`). Its own memory only, not that of the programs it runs.
pub fn peak_memory_kib(child: &mut std::process::Child) -> (std::process::ExitStatus, Option<u64>) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = None;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(Some(kib));
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
