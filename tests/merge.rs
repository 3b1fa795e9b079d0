//! `merge`: the reports of split audits merged equal one audit over all the inputs, byte for
//! byte; an input held twice counts once; what cannot be merged is refused.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::{read_csv, resigned_state, robots_audit, sample_night_audit, stderr_text};
use proptest::prelude::*;
use robots_audit::commit::ReportDir;
use robots_audit::merge::{Merger, Placement, copy_streamed, merge_dirs};
use robots_audit::report::View;
use robots_audit::report::output::render;
use robots_audit::state::{State, json};
use robots_audit::synth::{Summary, SynthConfig, TRUTH_COUNTERS, generate};

/// A synthetic night in 8 files, with its one audit over all of them (`--decisions`).
struct Night {
    _dir: tempfile::TempDir,
    summary: Summary,
    files: Vec<PathBuf>,
    all: PathBuf,
}

fn night() -> &'static Night {
    static NIGHT: OnceLock<Night> = OnceLock::new();
    NIGHT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let config = SynthConfig {
            out: dir.path().join("synth"),
            lines: 6_000,
            origins: 5,
            bots: 20,
            files: 8,
            seed: 12,
            ..SynthConfig::default()
        };
        let summary = generate(&config).unwrap();
        let mut files: Vec<PathBuf> = fs::read_dir(config.out.join("logs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let all = dir.path().join("all");
        audit(&summary, &files, &all);
        Night {
            _dir: dir,
            summary,
            files,
            all,
        }
    })
}

fn audit(summary: &Summary, files: &[PathBuf], out: &Path) {
    audit_on_threads(summary, files, out, 2);
}

fn audit_on_threads(summary: &Summary, files: &[PathBuf], out: &Path, threads: usize) {
    audit_command(summary, files, out, threads).assert().code(0);
}

fn audit_command(
    summary: &Summary,
    files: &[PathBuf],
    out: &Path,
    threads: usize,
) -> assert_cmd::Command {
    let mut cmd = robots_audit();
    cmd.args(["audit", "-q", "--decisions", "--no-html", "--threads"])
        .arg(threads.to_string())
        .arg("--out")
        .arg(out)
        .arg("--robots")
        .arg(&summary.robots_dir);
    for (bot, path) in &summary.ranges {
        cmd.arg("--verify").arg(format!("{bot}={}", path.display()));
    }
    cmd.args(files);
    cmd
}

/// Audits each range of the night's files into its own report directory under `dir`: `part0`,
/// `part1`, and so on.
fn audit_parts(
    night: &Night,
    dir: &Path,
    ranges: impl IntoIterator<Item = Range<usize>>,
) -> Vec<PathBuf> {
    ranges
        .into_iter()
        .enumerate()
        .map(|(i, range)| {
            let out = dir.join(format!("part{i}"));
            audit(&night.summary, &night.files[range], &out);
            out
        })
        .collect()
}

fn merge(out: &Path, reports: &[PathBuf]) -> assert_cmd::assert::Assert {
    robots_audit()
        .args(["merge", "-q", "--no-html", "--out"])
        .arg(out)
        .args(reports)
        .assert()
}

/// Every file of `a` (every CSV, and `state.json`, whose tables are in canonical order) equals
/// the one of the same name in `b`, byte for byte, and both hold the same files.
fn same_reports(a: &Path, b: &Path) {
    let names = |dir: &Path| {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(a), names(b));
    for name in names(a) {
        assert!(
            fs::read(a.join(&name)).unwrap() == fs::read(b.join(&name)).unwrap(),
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Random splits of the night's files into 1 to 8 groups (consecutive, in order), each
    /// audited, merged in order, equal the one audit.
    #[test]
    fn merged_splits_equal_one_audit(cuts in proptest::collection::btree_set(1usize..8, 0..8)) {
        let night = night();
        let dir = tempfile::tempdir().unwrap();
        let mut bounds = vec![0];
        bounds.extend(cuts);
        bounds.push(night.files.len());
        let reports = audit_parts(night, dir.path(), bounds.windows(2).map(|pair| pair[0]..pair[1]));
        let merged = dir.path().join("merged");
        merge(&merged, &reports).code(0);
        same_reports(&night.all, &merged);
    }
}

/// Threads meet agents and origins in an order of their own; the state is written in one
/// order, so one night gives one `state.json`, whatever the thread count.
#[test]
fn one_night_gives_one_state_whatever_the_thread_count() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    for threads in [1, 3] {
        let out = dir.path().join(format!("threads{threads}"));
        audit_on_threads(&night.summary, &night.files, &out, threads);
        same_reports(&night.all, &out);
    }
}

/// A merged input that had an error makes `merge` exit 3 as the audit did, and standard
/// error names it, even with `-q`: the cron job that merges learns why.
#[test]
fn a_merged_input_with_an_error_is_named_and_exits_3() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut-short.log.gz");
    let bytes = fs::read(&night.files[1]).unwrap();
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (good, bad) = (dir.path().join("good"), dir.path().join("bad"));
    audit(&night.summary, &night.files[..1], &good);
    let audited = audit_command(&night.summary, std::slice::from_ref(&cut), &bad, 2)
        .assert()
        .code(3);
    let audit_stderr = stderr_text(audited.get_output());
    let merged = merge(&dir.path().join("merged"), &[good, bad]).code(3);
    let stderr = stderr_text(merged.get_output());
    assert!(stderr.contains("cut-short.log.gz"), "{stderr}");
    assert_eq!(
        stderr, audit_stderr,
        "merge names the input as the audit did"
    );
}

#[test]
fn a_report_merged_with_itself_is_the_report_with_a_warning() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let merged = dir.path().join("merged");
    let assert = merge(&merged, &[night.all.clone(), night.all.clone()]).code(0);
    let stderr = stderr_text(assert.get_output());
    assert_eq!(
        stderr.matches("counted once").count(),
        night.files.len(),
        "{stderr}"
    );
    assert!(
        stderr.contains(&night.files[0].display().to_string()),
        "{stderr}"
    );
    same_reports(&night.all, &merged);
}

/// logrotate's `delaycompress`: a night's log is audited as `access.log.1`, and the next night
/// the same content, compressed since, as `access.log.2.gz` beside the new log. Merged, the
/// two nights count it once, with the warning: the reports of the two files audited once.
#[test]
fn a_rotated_log_compressed_the_next_night_counts_once() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let mut content = Vec::new();
    flate2::read::MultiGzDecoder::new(fs::File::open(&night.files[0]).unwrap())
        .read_to_end(&mut content)
        .unwrap();
    let rotated = dir.path().join("access.log.1");
    fs::write(&rotated, &content).unwrap();
    let compressed = dir.path().join("access.log.2.gz");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&content).unwrap();
    fs::write(&compressed, gzip.finish().unwrap()).unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    audit(&night.summary, std::slice::from_ref(&rotated), &first);
    audit(
        &night.summary,
        &[compressed, night.files[1].clone()],
        &second,
    );
    let merged = dir.path().join("merged");
    let assert = merge(&merged, &[first, second]).code(0);
    let stderr = stderr_text(assert.get_output());
    assert_eq!(stderr.matches("counted once").count(), 1, "{stderr}");
    assert!(stderr.contains("access.log.2.gz"), "{stderr}");
    let once = dir.path().join("once");
    audit(&night.summary, &[rotated, night.files[1].clone()], &once);
    same_reports(&once, &merged);
}

#[test]
fn merges_of_merges_and_overlapping_reruns_count_each_input_once() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    // The last is a night re-run: b again, with the first file of c.
    let [a, b, c, rerun]: [PathBuf; 4] = audit_parts(night, dir.path(), [0..3, 3..6, 6..8, 3..7])
        .try_into()
        .unwrap();
    let ab = dir.path().join("ab");
    merge(&ab, &[a, b.clone()]).code(0);
    let all = dir.path().join("all");
    let assert = merge(&all, &[ab, rerun, c]).code(0);
    let stderr = stderr_text(assert.get_output());
    assert_eq!(stderr.matches("counted once").count(), 4, "{stderr}");
    // The re-run's inputs 3..6 were counted in b, its input 6 is new: all in order.
    same_reports(&night.all, &all);
}

#[test]
fn merged_synthetic_nights_match_the_ground_truth() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let halves = audit_parts(night, dir.path(), [0..4, 4..8]);
    let merged = dir.path().join("merged");
    merge(&merged, &halves).code(0);
    let got = read_csv(&merged.join("agents.csv"));
    let want = read_csv(&night.summary.truth_agents);
    assert_eq!(got.len(), want.len());
    for want in &want {
        let row = got
            .iter()
            .find(|r| r["agent"] == want["agent"])
            .unwrap_or_else(|| panic!("{} missing", want["agent"]));
        for column in TRUTH_COUNTERS {
            assert_eq!(row[column], want[column], "{} {column}", want["agent"]);
        }
    }
}

#[test]
fn the_sample_night_split_per_file_with_decisions_merges_to_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/logs");
    let mut files: Vec<PathBuf> = fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let run = |out: &Path, files: &[PathBuf]| {
        sample_night_audit()
            .args(["--decisions", "--no-html", "--out"])
            .arg(out)
            .args(files)
            .assert()
            .code(0);
    };
    let whole = dir.path().join("whole");
    run(&whole, &files);
    let mut parts = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let out = dir.path().join(format!("file{i}"));
        run(&out, std::slice::from_ref(file));
        parts.push(out);
    }
    let merged = dir.path().join("merged");
    merge(&merged, &parts).code(0);
    same_reports(&whole, &merged);
    assert!(read_csv(&merged.join("decisions.csv")).len() > 100);
}

#[test]
fn different_settings_or_robots_content_are_refused_naming_the_difference() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let strict = dir.path().join("strict");
    let mut cmd = robots_audit();
    cmd.args([
        "audit",
        "-q",
        "--decisions",
        "--no-html",
        "--strict",
        "--out",
    ])
    .arg(&strict)
    .arg("--robots")
    .arg(&night.summary.robots_dir);
    for (bot, path) in &night.summary.ranges {
        cmd.arg("--verify").arg(format!("{bot}={}", path.display()));
    }
    cmd.arg(&night.files[0]).assert().code(0);
    let out = dir.path().join("out");
    let assert = merge(&out, &[night.all.clone(), strict.clone()]).code(1);
    let stderr = stderr_text(assert.get_output());
    assert!(
        stderr.contains("different settings") && stderr.contains("strict"),
        "{stderr}"
    );
    assert!(stderr.contains(&strict.display().to_string()), "{stderr}");
    assert!(!out.join("agents.csv").exists());

    // The same robots version (origin and time) with another file.
    let robots = dir.path().join("robots");
    copy_dir(&night.summary.robots_dir, &robots);
    let changed = first_file(&robots);
    let mut body = fs::read(&changed).unwrap();
    body.extend_from_slice(b"\nUser-agent: *\nDisallow: /changed-by-the-test\n");
    fs::write(&changed, body).unwrap();
    let other = dir.path().join("other");
    let mut cmd = robots_audit();
    cmd.args(["audit", "-q", "--decisions", "--no-html", "--out"])
        .arg(&other)
        .arg("--robots")
        .arg(&robots);
    for (bot, path) in &night.summary.ranges {
        cmd.arg("--verify").arg(format!("{bot}={}", path.display()));
    }
    cmd.arg(&night.files[0]).assert().code(0);
    let assert = merge(&out, &[night.all.clone(), other.clone()]).code(1);
    let stderr = stderr_text(assert.get_output());
    assert!(stderr.contains("differs between"), "{stderr}");
    assert!(stderr.contains(&other.display().to_string()), "{stderr}");
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// The first robots.txt file (by name) under `dir`.
fn first_file(dir: &Path) -> PathBuf {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            return first_file(&entry);
        }
        if entry.extension().is_some_and(|e| e == "txt") {
            return entry;
        }
    }
    panic!("no robots.txt under {}", dir.display());
}

/// Something done to a copy of a report directory.
type Damage<'a> = Box<dyn Fn(&Path) + 'a>;

/// `state` with the hours of its first input's hourly counts set to `first` (the first row's)
/// and `last` (the last row's, when given).
fn with_hours(state: &str, first: i64, last: Option<i64>) -> String {
    resigned_state(state, |payload| {
        let rows = payload["inputs"][0]["stats"]["hourly"]
            .as_array_mut()
            .unwrap();
        assert!(rows.len() >= 2, "the night has one hour");
        rows[0][0] = first.into();
        if let Some(last) = last {
            rows.last_mut().unwrap()[0] = last.into();
        }
    })
}

/// A state whose hours are the first and the last a time can fall in merges: `hourly.csv` names
/// them (the first by the first time there is; `jiff`'s times run from -9999-01-02T01:59:59Z to
/// 9999-12-30T22:00:00.999999999Z), and `report.html` draws the twenty thousand years between
/// them in steps of days.
#[test]
fn the_first_and_last_hours_of_all_merge() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(night.all.join(json::FILE)).unwrap();
    let hours = [
        (
            jiff::Timestamp::MIN.as_second().div_euclid(3600),
            // A time before year 1 is the tool's own value, written as in violations.csv.
            "-009999-01-02T01:59:59Z",
        ),
        (
            jiff::Timestamp::MAX.as_second().div_euclid(3600),
            "9999-12-30T22:00:00Z",
        ),
    ];
    let report = dir.path().join("edges");
    copy_dir(&night.all, &report);
    let edited = with_hours(&text, hours[0].0, Some(hours[1].0));
    fs::write(report.join(json::FILE), edited).unwrap();
    let out = dir.path().join("out");
    robots_audit()
        .args(["merge", "-q", "--out"])
        .arg(&out)
        .arg(&report)
        .assert()
        .code(predicates::prelude::predicate::in_iter([0, 3]));
    let written: BTreeSet<String> = read_csv(&out.join("hourly.csv"))
        .into_iter()
        .map(|row| row["hour"].clone())
        .collect();
    for (_, shown) in hours {
        assert!(written.contains(shown), "no hour {shown} in {written:?}");
    }
    let page = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.len() < 2_000_000, "the page is {} bytes", page.len());
    assert!(
        page.contains(" days (UTC)"),
        "the timeline is not drawn in days"
    );
}

/// A state holding one robots version twice with different content is refused, naming it,
/// merged alone or first (the merge panicked, naming a report it did not hold yet).
#[test]
fn a_robots_version_twice_in_one_state_is_refused() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(night.all.join(json::FILE)).unwrap();
    let report = dir.path().join("twice");
    copy_dir(&night.all, &report);
    let twice = resigned_state(&text, |payload| {
        let versions = payload["robots"]["versions"].as_array_mut().unwrap();
        let mut other = versions[0].clone();
        other["bytes"] = (other["bytes"].as_u64().unwrap() + 1).into();
        versions.push(other);
    });
    fs::write(report.join(json::FILE), twice).unwrap();
    for reports in [
        vec![report.clone()],
        vec![report.clone(), night.all.clone()],
    ] {
        let out = dir.path().join("out");
        let assert = merge(&out, &reports).code(1);
        let stderr = stderr_text(assert.get_output());
        assert!(
            stderr.contains("version initial twice, with different content"),
            "{stderr}"
        );
        assert!(!out.exists(), "a refused merge wrote {}", out.display());
    }
}

#[test]
fn corrupt_tampered_newer_or_mismatched_reports_are_refused() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(night.all.join(json::FILE)).unwrap();
    // The last hour a time can fall in, and the one after it.
    let last_hour = jiff::Timestamp::MAX.as_second().div_euclid(3600);
    let far_agent = u32::MAX - 1;
    let far_agent_refused = format!("agent {far_agent} is not in the state's agents");
    let cases: [(&str, Damage, &str); 10] = [
        (
            // Once read by sizing a cache by the id: a 64 GiB allocation that aborted the merge.
            "an hour of an agent id near u32::MAX",
            Box::new(|d: &Path| {
                let state = resigned_state(&text, |payload| {
                    let rows = payload["inputs"][0]["stats"]["hourly"]
                        .as_array_mut()
                        .unwrap();
                    let mut row = rows[0].clone();
                    row[1] = far_agent.into();
                    rows.push(row);
                    // Another content, so that the input is kept and its ids renumbered.
                    payload["inputs"][0]["fingerprint"] = "0123456789abcdef0123456789abcdef".into();
                });
                fs::write(d.join(json::FILE), state).unwrap()
            }),
            &far_agent_refused,
        ),
        (
            "an hour after the last time",
            Box::new(|d: &Path| {
                fs::write(d.join(json::FILE), with_hours(&text, last_hour + 1, None)).unwrap()
            }),
            "is outside the times robots-audit reads",
        ),
        (
            "an hour of i64::MIN",
            Box::new(|d: &Path| {
                fs::write(d.join(json::FILE), with_hours(&text, i64::MIN, None)).unwrap()
            }),
            "is outside the times robots-audit reads",
        ),
        (
            "cut",
            Box::new(|d: &Path| fs::write(d.join(json::FILE), &text[..text.len() / 3]).unwrap()),
            "corrupt or cut short",
        ),
        (
            "tampered",
            Box::new(|d: &Path| {
                let tampered = text.replacen("\"requests\":", "\"requests\":1", 1);
                fs::write(d.join(json::FILE), tampered).unwrap()
            }),
            "checksum mismatch",
        ),
        (
            "newer",
            Box::new(|d: &Path| {
                fs::write(
                    d.join(json::FILE),
                    text.replacen(
                        &format!("\"version\":{}", json::VERSION),
                        "\"version\":9",
                        1,
                    ),
                )
                .unwrap()
            }),
            "newer than",
        ),
        (
            "older",
            Box::new(|d: &Path| {
                fs::write(
                    d.join(json::FILE),
                    text.replacen(
                        &format!("\"version\":{}", json::VERSION),
                        &format!("\"version\":{}", json::VERSION - 1),
                        1,
                    ),
                )
                .unwrap()
            }),
            "audit its inputs again with this version",
        ),
        (
            "missing",
            Box::new(|d: &Path| fs::remove_file(d.join(json::FILE)).unwrap()),
            "cannot read",
        ),
        (
            "changed rows",
            Box::new(|d: &Path| {
                let mut rows = fs::read(d.join("violations.csv")).unwrap();
                rows.extend_from_slice(b"one,more,row\n");
                fs::write(d.join("violations.csv"), rows).unwrap()
            }),
            "is not the file its state.json describes",
        ),
        (
            // Once read into memory whole, whatever its length, before its size was checked.
            "no header line",
            Box::new(|d: &Path| fs::write(d.join("violations.csv"), vec![b'a'; 1 << 20]).unwrap()),
            "has no header line within its first 65536 bytes",
        ),
    ];
    for (name, damage, expected) in cases {
        let report = dir.path().join(name);
        copy_dir(&night.all, &report);
        damage(&report);
        let out = dir.path().join(format!("{name}-out"));
        let assert = merge(&out, &[night.all.clone(), report.clone()]).code(1);
        let stderr = stderr_text(assert.get_output());
        assert!(stderr.contains(expected), "{name}: {stderr}");
        assert!(!out.join("agents.csv").exists(), "{name}: nothing written");
    }
}

#[test]
fn the_library_merges_as_the_command_does() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let parts = audit_parts(night, dir.path(), [0..5, 5..8]);
    let merged = merge_dirs(&parts).unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    assert_eq!(merged.placements[1][0], Placement::Kept(5));
    let out = dir.path().join("merged");
    fs::create_dir_all(&out).unwrap();
    for name in &merged.state.streamed {
        copy_streamed(&out, name, &merged.sources, &merged.placements).unwrap();
    }
    render(&out, &View::of(&merged.state).unwrap(), false, 2).unwrap();
    same_reports(&night.all, &out);
    // A Merger fed the states one by one gives the same sum; given none, it says so.
    let mut merger = Merger::new();
    for part in &parts {
        let report = ReportDir::open(part).unwrap();
        merger.add(&report, State::read(&report).unwrap()).unwrap();
    }
    assert_eq!(merger.finish().unwrap().state, merged.state);
    assert!(Merger::new().finish().is_err());
    // The merged state reads back and sums to the same result.
    let again = State::read(&ReportDir::open(&out).unwrap()).unwrap();
    assert_eq!(again, merged.state);
    let whole = State::read(&ReportDir::open(&night.all).unwrap()).unwrap();
    assert_eq!(again.inputs.len(), whole.inputs.len());
    let requests = |state: &State| {
        let totals = state.totals().unwrap();
        totals.stats.pairs.values().map(|c| c.requests).sum::<u64>()
    };
    assert_eq!(requests(&again), requests(&whole));
}

/// The nightly pattern: each night merged into the month's own directory, report.html included,
/// and a night merged again changes nothing.
#[test]
fn a_month_grows_in_place_night_by_night_report_html_included() {
    let dir = tempfile::tempdir().unwrap();
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/logs");
    let mut files: Vec<PathBuf> = fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let run = |out: &Path, files: &[PathBuf]| {
        sample_night_audit()
            .arg("--out")
            .arg(out)
            .args(files)
            .assert()
            .code(0);
    };
    let whole = dir.path().join("whole");
    run(&whole, &files);
    let month = dir.path().join("month");
    for (i, file) in files.iter().enumerate() {
        let night = dir.path().join(format!("night{i}"));
        run(&night, std::slice::from_ref(file));
        let mut reports = Vec::new();
        if i > 0 {
            reports.push(month.clone());
        }
        reports.push(night);
        robots_audit()
            .args(["merge", "-q", "--out"])
            .arg(&month)
            .args(&reports)
            .assert()
            .code(0);
    }
    assert!(month.join("report.html").exists());
    same_reports(&whole, &month);
    let again = dir.path().join("night1");
    let assert = robots_audit()
        .args(["merge", "-q", "--out"])
        .arg(&month)
        .arg(&month)
        .arg(&again)
        .assert()
        .code(0);
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("counted once"));
    same_reports(&whole, &month);
}

/// An audit given the same file twice counted it twice; merging that report, alone or with
/// itself, keeps what the audit counted.
#[test]
fn a_file_given_twice_to_one_audit_stays_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/logs/shop-access.log.gz");
    let twice = dir.path().join("twice");
    sample_night_audit()
        .args(["--no-html", "--out"])
        .arg(&twice)
        .arg(&file)
        .arg(&file)
        .assert()
        .code(0);
    for reports in [vec![twice.clone()], vec![twice.clone(), twice.clone()]] {
        let out = dir.path().join("out");
        merge(&out, &reports).code(0);
        same_reports(&twice, &out);
    }
    assert_eq!(read_csv(&twice.join("inputs.csv")).len(), 2);
}

/// A run that commits into a report directory while `merge` reads it swaps in a whole new set:
/// merge reads the streamed reports of the set whose state it read, or refuses, and never
/// copies another set's rows under the first one's counts, even rows of the same size.
#[test]
fn a_report_directory_swapped_while_merge_reads_it_is_refused() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("night");
    copy_dir(&night.all, &report);
    let merged = merge_dirs(std::slice::from_ref(&report)).unwrap();
    // Another run's set: the same sizes, one row's byte changed.
    let other = dir.path().join("other");
    copy_dir(&night.all, &other);
    let mut rows = fs::read(other.join("violations.csv")).unwrap();
    let header = rows.iter().position(|&b| b == b'\n').unwrap();
    assert!(rows.len() > header + 2, "the night has violations");
    rows[header + 1] ^= 1;
    fs::write(other.join("violations.csv"), &rows).unwrap();
    // The commit's swap: the old set aside, the new one in its place.
    fs::rename(&report, dir.path().join("night.aside")).unwrap();
    fs::rename(&other, &report).unwrap();
    let out = dir.path().join("merged");
    fs::create_dir_all(&out).unwrap();
    let copied = copy_streamed(&out, "violations.csv", &merged.sources, &merged.placements);
    let error = copied
        .expect_err("rows of another set were copied")
        .to_string();
    assert!(error.contains("replaced"), "{error}");
    assert!(error.contains("merge again"), "{error}");
}

/// A manifest at `path` for the night's robots files: each origin's file from the beginning,
/// and, with `closed_at`, a 503 version from then on. Origins alternate between the
/// scheme-specific and the any-scheme form.
fn manifest(night: &Night, path: &Path, closed_at: Option<&str>) {
    let mut rows = String::from("origin,valid_from,status,file\n");
    let mut files: Vec<PathBuf> = fs::read_dir(&night.summary.robots_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for (i, file) in files.iter().enumerate() {
        let host = file.file_stem().unwrap().to_str().unwrap();
        let origin = if i % 2 == 0 {
            format!("https://{host}")
        } else {
            host.to_owned()
        };
        rows.push_str(&format!("{origin},,200,{}\n", file.display()));
        if let Some(time) = closed_at {
            rows.push_str(&format!("{origin},{time},503,\n"));
        }
    }
    fs::write(path, rows).unwrap();
}

/// The robots history grows night by night: a report made before a version existed merges
/// with one made after, as one audit with the whole history, when the version came after its
/// last request. A report that lacks a version in force for some of its requests was judged
/// otherwise than one audit would judge it: refused, naming the version and both reports,
/// leaving --out as it was (the merge once summed it silently).
#[test]
fn reports_of_robots_histories_that_judge_otherwise_are_refused() {
    let night = night();
    let dir = tempfile::tempdir().unwrap();
    let morning = &night.files[..4];
    let afternoon = &night.files[4..];
    // The night's files follow each other in time: the version comes right after the
    // morning's last request.
    let last = read_csv(&night.all.join("inputs.csv"))[3]["last_time"].clone();
    let closed: jiff::Timestamp = last.parse().unwrap();
    let noon = (closed + jiff::SignedDuration::from_secs(1)).to_string();
    let before = dir.path().join("before.csv");
    let after = dir.path().join("after.csv");
    manifest(night, &before, None);
    manifest(night, &after, Some(&noon));
    let run = |manifest: &Path, files: &[PathBuf], out: &Path| {
        let mut cmd = robots_audit();
        cmd.args(["audit", "-q", "--decisions", "--no-html", "--out"])
            .arg(out)
            .arg("--robots")
            .arg(manifest)
            .args(files)
            .assert()
            .code(0);
    };
    let whole = dir.path().join("whole");
    run(&after, &night.files, &whole);
    let early = dir.path().join("early");
    run(&before, morning, &early);
    let late = dir.path().join("late");
    run(&after, afternoon, &late);
    let merged = dir.path().join("merged");
    merge(&merged, &[early.clone(), late.clone()]).code(0);
    same_reports(&whole, &merged);

    // The afternoon judged without the noon version.
    let stale = dir.path().join("stale");
    run(&before, afternoon, &stale);
    let morning_after = dir.path().join("morning_after");
    run(&after, morning, &morning_after);
    let out = dir.path().join("out");
    merge(&out, std::slice::from_ref(&early)).code(0);
    let kept = crate::faults::snapshot(&out);
    for reports in [
        vec![morning_after.clone(), stale.clone()],
        vec![stale.clone(), morning_after.clone()],
        // The month in place: its morning again, counted once, brings the version.
        vec![out.clone(), morning_after.clone(), stale.clone()],
    ] {
        let assert = merge(&out, &reports).code(1);
        let stderr = stderr_text(assert.get_output());
        assert!(
            stderr.contains(&format!(
                "{} was audited without robots.txt of",
                stale.display()
            )) && stderr.contains(&format!("version {noon}"))
                && stderr.contains("audit both with the same robots sources"),
            "{stderr}"
        );
        assert!(
            crate::faults::snapshot(&out) == kept,
            "a refused merge changed --out"
        );
    }
}
