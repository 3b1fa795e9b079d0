//! The commit protocol and `merge`'s distrust, proved through the command: reports are committed
//! as one set whatever stops a run (SIGTERM, SIGINT, SIGKILL at many points, a second run on
//! the same `--out`), the user's own files survive, and `merge` refuses report directories the
//! tool could not have written (symlinked files, foreign names, overflowing counters).
//!
//! A full disk at every step is in `faults.rs` (`a_full_disk_at_any_write_leaves_out_as_it_was`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::Duration;

use crate::common::*;
use crate::faults::snapshot;
use robots_audit::commit::ReportDir;
use robots_audit::state::{State, json};

/// The sample night's log files.
const LOGS: [&str; 3] = [
    "sample-data/logs/shop-access.log.gz",
    "sample-data/logs/vhost-2026-11-20.log.gz",
    "sample-data/logs/vhost-2026-11-21.log.gz",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `audit --decisions` of `logs` into `out`, as the README runs it, not yet started.
fn audit_command(out: &Path, logs: &[&str]) -> StdCommand {
    let mut command = StdCommand::new(assert_cmd::cargo::cargo_bin("robots-audit"));
    command
        .current_dir(root())
        .args(["audit", "-q", "--decisions", "--threads", "2"])
        .args(SAMPLE_NIGHT_OPTIONS)
        .arg("--out")
        .arg(out)
        .args(logs);
    command
}

/// `merge --decisions`-made reports `dirs` into `out`, not yet started.
fn merge_command(out: &Path, dirs: &[&Path]) -> StdCommand {
    let mut command = StdCommand::new(assert_cmd::cargo::cargo_bin("robots-audit"));
    command.args(["merge", "-q", "--out"]).arg(out).args(dirs);
    command
}

fn run_ok(command: &mut StdCommand) {
    let output = command.output().unwrap();
    assert_reports_written(&output, "run");
}

/// The names beside `out` in its parent that are the tool's: only the lock file may stay.
fn beside(out: &Path) -> Vec<String> {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    let mut names: Vec<String> = fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.")))
        .collect();
    names.sort();
    names
}

/// Sends `signal` to `child` after `delay`, and waits for it.
fn stop_after(mut child: Child, signal: &str, delay: Duration) -> Option<i32> {
    std::thread::sleep(delay);
    let _ = StdCommand::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    child.wait().unwrap().code()
}

/// Two sets for one `--out`: the old one (the first night) with the user's own file and
/// directory in it, and what a whole run writes (all three files), as snapshots.
struct Sets {
    _dir: tempfile::TempDir,
    out: PathBuf,
    old: std::collections::BTreeMap<PathBuf, Vec<u8>>,
    new: std::collections::BTreeMap<PathBuf, Vec<u8>>,
}

fn sets(name: &str) -> Sets {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let whole = dir.path().join("whole");
    run_ok(&mut audit_command(&whole, &LOGS));
    run_ok(&mut audit_command(&out, &LOGS[..1]));
    write(&out, "notes.txt", "the user's");
    write(&out, "archive/old.csv", "the user's too");
    for user in ["notes.txt", "archive/old.csv"] {
        fs::copy(out.join(user), {
            let to = whole.join(user);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            to
        })
        .unwrap();
    }
    Sets {
        old: snapshot(&out),
        new: snapshot(&whole),
        out,
        _dir: dir,
    }
}

/// After a stop, `--out` is the old set or the new one byte for byte (the user's files
/// included), it merges, and the next run clears whatever the stopped one left.
fn assert_old_or_new(sets: &Sets, what: &str) {
    let now = snapshot(&sets.out);
    assert!(
        now == sets.old || now == sets.new,
        "{what}: --out is neither the old nor the new set: {:?}",
        now.keys().collect::<Vec<_>>()
    );
    let merged = sets.out.with_file_name("check-merge");
    run_ok(&mut merge_command(&merged, &[&sets.out]));
    let _ = fs::remove_dir_all(&merged);
    let _ = fs::remove_file(merged.with_file_name(".check-merge.lock"));
    run_ok(&mut audit_command(&sets.out, &LOGS[..1]));
    assert_eq!(
        beside(&sets.out),
        [format!(
            ".{}.lock",
            sets.out.file_name().unwrap().to_string_lossy()
        )],
        "{what}: left beside --out"
    );
    assert!(
        snapshot(&sets.out) == sets.old,
        "{what}: a later run commits"
    );
}

/// `audit` stopped by SIGTERM, SIGINT, SIGHUP and SIGKILL at many points of its run, the commit
/// included (the later delays fall after it): `--out` is always the old or the new set.
#[cfg(unix)]
#[test]
fn an_audit_stopped_at_any_point_leaves_the_old_or_the_new_set() {
    let sets = sets("out");
    for signal in ["-TERM", "-INT", "-HUP", "-KILL"] {
        for delay_ms in [0, 5, 15, 30, 60, 100, 150, 250, 400] {
            let child = audit_command(&sets.out, &LOGS)
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let code = stop_after(child, signal, Duration::from_millis(delay_ms));
            let what = format!("audit {signal} after {delay_ms} ms (exit {code:?})");
            assert!(!matches!(code, Some(1 | 2 | 101)), "{what}");
            assert_old_or_new(&sets, &what);
        }
    }
}

/// `merge --out month month night` (the nightly recipe, into one of its own inputs, with
/// `--decisions`) stopped at many points: the month is always the old or the new set.
#[cfg(unix)]
#[test]
fn a_merge_into_its_own_input_stopped_at_any_point_leaves_the_old_or_the_new_set() {
    let sets = sets("month");
    let rest = sets.out.with_file_name("rest");
    run_ok(&mut audit_command(&rest, &LOGS[1..]));
    let merged = snapshot(&{
        let scratch = sets.out.with_file_name("expected");
        run_ok(&mut merge_command(&scratch, &[&sets.out, &rest]));
        for user in ["notes.txt", "archive/old.csv"] {
            write(&scratch, user, fs::read(sets.out.join(user)).unwrap());
        }
        scratch
    });
    let sets = Sets {
        new: merged,
        ..sets
    };
    for signal in ["-TERM", "-INT", "-HUP", "-KILL"] {
        for delay_ms in [0, 5, 15, 30, 60, 100, 200] {
            let child = merge_command(&sets.out, &[&sets.out, &rest])
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let code = stop_after(child, signal, Duration::from_millis(delay_ms));
            let what = format!("merge {signal} after {delay_ms} ms (exit {code:?})");
            let now = snapshot(&sets.out);
            assert!(now == sets.old || now == sets.new, "{what}");
            // Back to the old set for the next stop.
            run_ok(&mut audit_command(&sets.out, &LOGS[..1]));
            assert!(snapshot(&sets.out) == sets.old, "{what}");
            assert_eq!(beside(&sets.out), [".month.lock"], "{what}");
        }
    }
}

/// A second run on the same `--out` while one holds it exits 1 at once, naming the holder, and
/// touches nothing; with `--wait` it waits and then commits.
#[cfg(unix)]
#[test]
fn a_second_run_is_refused_naming_the_first_or_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run_ok(&mut audit_command(&out, &LOGS[..1]));
    let before = snapshot(&out);
    // The first run reads standard input, and holds the lock until it ends.
    let mut first = audit_command(&out, &["-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let second = audit_command(&out, &LOGS).output().unwrap();
    let stderr = stderr_text(&second);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("another robots-audit run (pid {} on ", first.id()))
            && stderr.contains("--wait waits for it"),
        "{stderr}"
    );
    assert!(snapshot(&out) == before, "the refused run touched --out");
    let waiter = audit_command(&out, &LOGS)
        .arg("--wait")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // The first run ends (standard input closed, nothing read), then the waiting one runs.
    drop(first.stdin.take());
    first.wait().unwrap();
    let waited = waiter.wait_with_output().unwrap();
    let stderr = stderr_text(&waited);
    assert_eq!(waited.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("waiting for another robots-audit run"),
        "{stderr}"
    );
    let whole = dir.path().join("whole");
    run_ok(&mut audit_command(&whole, &LOGS));
    assert!(
        snapshot(&out) == snapshot(&whole),
        "the waiting run committed"
    );
}

/// The first night of a month: `merge --out month month night` with no month yet starts from
/// an empty set, and the month grows night by night into what one audit of every night gives.
#[test]
fn a_month_grows_from_nothing_night_by_night() {
    let dir = tempfile::tempdir().unwrap();
    let month = dir.path().join("month");
    for (n, log) in LOGS.iter().enumerate() {
        let night = dir.path().join(format!("night{n}"));
        run_ok(&mut audit_command(&night, &[log]));
        run_ok(&mut merge_command(&month, &[&month, &night]));
    }
    let whole = dir.path().join("whole");
    run_ok(&mut audit_command(&whole, &LOGS));
    assert!(snapshot(&month) == snapshot(&whole));
    // Any other missing report directory is still an error.
    let output = merge_command(&month, &[&month, &dir.path().join("absent")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr_text(&output));
}

/// A lock file whose journal names the parent (`.`) or its parent (`..`) as a leftover, as a
/// stranger who can write the lock file, or a torn write, could leave it: the next run clears
/// nothing outside what runs make beside `--out`, with or without an `--out` yet.
#[test]
fn a_journal_naming_the_parent_or_above_removes_nothing() {
    for name in ["..", "."] {
        for out_exists in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let parent = dir.path().join("reports");
            let out = parent.join("night");
            write(dir.path(), "precious.txt", "the user's");
            write(&parent, "notes.txt", "the user's too");
            if out_exists {
                run_ok(&mut audit_command(&out, &LOGS[..1]));
            }
            let journal = format!("7 elsewhere 2026-11-20T00:00:00Z\nstaging {name}\n");
            fs::write(parent.join(".night.lock"), journal).unwrap();
            run_ok(&mut audit_command(&out, &LOGS[..1]));
            let what = format!("staging {name}, --out there: {out_exists}");
            assert!(dir.path().join("precious.txt").exists(), "{what}");
            assert!(parent.join("notes.txt").exists(), "{what}");
            assert!(!out.join("notes.txt").exists(), "{what}");
        }
    }
}

/// Reads the state of report directory `dir`, changes it, and writes it back with a valid
/// checksum: what someone crafting a report directory can do.
fn rewrite_state(dir: &Path, change: impl FnOnce(&mut State)) {
    let mut state = State::read(&ReportDir::open(dir).unwrap()).unwrap();
    change(&mut state);
    let mut bytes = Vec::new();
    json::write(&state, &mut bytes).unwrap();
    fs::write(dir.join(json::FILE), bytes).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Report directories the tool could not have written are refused with exit 1, naming what is
/// wrong, and nothing is written: symlinked report files, a name in the state that is not one
/// of the tool's reports (`../x`), counters whose sums overflow, strings longer than the tool
/// writes.
#[cfg(unix)]
#[test]
fn merge_refuses_report_directories_the_tool_could_not_have_written() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    run_ok(&mut audit_command(&first, &LOGS[..2]));
    run_ok(&mut audit_command(&second, &LOGS[2..]));
    type Damage = Box<dyn Fn(&Path)>;
    let outside = dir.path().join("secret.txt");
    fs::write(&outside, "not a report\n").unwrap();
    let secret = outside.clone();
    let cases: Vec<(&str, Damage, &str)> = vec![
        (
            "symlinked rows",
            Box::new(move |d: &Path| {
                fs::remove_file(d.join("violations.csv")).unwrap();
                std::os::unix::fs::symlink(&secret, d.join("violations.csv")).unwrap();
            }),
            "violations.csv",
        ),
        (
            "symlinked state",
            Box::new(|d: &Path| {
                let real = d.with_file_name("real-state.json");
                fs::rename(d.join(json::FILE), &real).unwrap();
                std::os::unix::fs::symlink(&real, d.join(json::FILE)).unwrap();
            }),
            "cannot read",
        ),
        (
            "a foreign name",
            Box::new(|d: &Path| rewrite_state(d, |s| s.streamed.push("../x".into()))),
            "\"../x\"",
        ),
        (
            "overflowing counters",
            Box::new(|d: &Path| {
                rewrite_state(d, |s| {
                    for input in &mut s.inputs {
                        for counts in input.stats.pairs.values_mut() {
                            counts.requests = u64::MAX;
                        }
                    }
                })
            }),
            "sum past 18446744073709551615",
        ),
        (
            "overflowing lines",
            Box::new(|d: &Path| {
                rewrite_state(d, |s| {
                    for input in &mut s.inputs {
                        input.file.lines = u64::MAX;
                        input.file.other_requests = u64::MAX;
                        input.file.bytes = u64::MAX;
                    }
                })
            }),
            "sum past 18446744073709551615",
        ),
        (
            "overflowing totals over agents",
            Box::new(|d: &Path| {
                rewrite_state(d, |s| {
                    // One pair of each of two agents: each agent's sums fit, the run's do not.
                    let mut agents = std::collections::BTreeSet::new();
                    for input in &mut s.inputs {
                        for (&(agent, _), counts) in input.stats.pairs.iter_mut() {
                            if agents.len() < 2 && agents.insert(agent) {
                                counts.allowed = u64::MAX / 2 + 1;
                            }
                        }
                    }
                })
            }),
            "sum past 18446744073709551615",
        ),
        (
            "an overlong origin",
            Box::new(|d: &Path| {
                rewrite_state(d, |s| s.origins.push("x".repeat(5 << 20)));
            }),
            "longer than robots-audit writes",
        ),
    ];
    for (name, damage, expected) in cases {
        let report = dir.path().join(name.replace(' ', "-"));
        copy_dir(&second, &report);
        damage(&report);
        let out = dir.path().join(format!("{}-out", name.replace(' ', "-")));
        let output = merge_command(&out, &[&first, &report]).output().unwrap();
        let stderr = stderr_text(&output);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        if name != "symlinked state" {
            assert!(
                stderr.contains(&report.display().to_string()),
                "{name} names the report: {stderr}"
            );
        }
        assert!(!out.exists(), "{name}: nothing written");
    }
    // At the edge: a counter of u64::MAX that nothing adds to merges.
    let edge = dir.path().join("edge");
    copy_dir(&second, &edge);
    rewrite_state(&edge, |s| {
        let key = *s.inputs[0].stats.pairs.keys().next().unwrap();
        for input in &mut s.inputs {
            for (&(agent, _), counts) in input.stats.pairs.iter_mut() {
                if agent == key.0 {
                    counts.preference_conflicts = 0;
                }
            }
        }
        if let Some(counts) = s.inputs[0].stats.pairs.get_mut(&key) {
            counts.preference_conflicts = u64::MAX;
        }
    });
    let output = merge_command(&dir.path().join("edge-out"), &[&edge])
        .output()
        .unwrap();
    assert_reports_written(&output, "merge at the overflow edge");
}
