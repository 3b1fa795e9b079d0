//! An operator's month, night by night, as the cron lines of `docs/guide/nightly.md` run it:
//! `audit` of the night's log directories into `night/`, then `merge --out month month night`,
//! from no `month/` at all. The logs are rotated in place as logrotate does with `compress` and
//! `delaycompress` (a day's log is `access.log.1` one night and `access.log.2.gz` the next),
//! sent through syslog, exported from journald, and collected by docker compose. The month must
//! equal one audit of every distinct input, report for report, byte for byte, and every input
//! seen again (uncompressed one night, gzipped the next) is counted once with a warning.

use std::fs;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::common::*;
use crate::faults::snapshot;
use robots_audit::synth::{SynthCompression, SynthConfig, SynthFormat, generate};

/// Nights in the month.
const NIGHTS: usize = 4;
/// The origin of the combined lines, which carry no host (`--origin`).
const BACKEND: &str = "https://www.backend.example";

/// One day's lines of each source of the server.
struct Day {
    /// Combined lines nginx writes to `access.log`.
    nginx: Vec<String>,
    /// Combined lines a second web server sends through syslog.
    syslog: Vec<String>,
    /// Combined lines of a third one under docker compose.
    compose: Vec<String>,
    /// Caddy's JSON lines, read back from journald.
    caddy: Vec<String>,
    /// The day, `2026-11-21`.
    date: String,
}

/// The lines of a synthetic log file.
fn lines_of(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Synthetic days: combined lines of one origin (three sources a day) and Caddy lines of two
/// other origins, with the robots directory that holds all three origins' robots.txt.
fn days(dir: &Path, robots: &Path) -> Vec<Day> {
    let span = jiff::SignedDuration::from_hours(24 * NIGHTS as i64);
    let combined = generate(&SynthConfig {
        out: dir.join("synth-combined"),
        lines: 3 * NIGHTS as u64 * 150,
        files: 3 * NIGHTS,
        bots: 12,
        format: SynthFormat::Combined,
        compression: SynthCompression::Plain,
        seed: 27,
        duration: span,
        ..SynthConfig::default()
    })
    .unwrap();
    let caddy = generate(&SynthConfig {
        out: dir.join("synth-caddy"),
        lines: NIGHTS as u64 * 150,
        files: NIGHTS,
        origins: 2,
        bots: 12,
        format: SynthFormat::Caddy,
        compression: SynthCompression::Plain,
        seed: 28,
        duration: span,
        ..SynthConfig::default()
    })
    .unwrap();
    // Caddy's robots files as generated; the combined run's one origin under the name the
    // combined lines are audited as (`--origin`), since both runs name their first origin alike.
    fs::create_dir_all(robots).unwrap();
    for entry in fs::read_dir(&caddy.robots_dir).unwrap().flatten() {
        fs::copy(entry.path(), robots.join(entry.file_name())).unwrap();
    }
    let host = combined.origins[0].trim_start_matches("https://");
    fs::copy(
        combined.robots_dir.join(format!("{host}.txt")),
        robots.join("www.backend.example.txt"),
    )
    .unwrap();
    let start: Timestamp = "2026-11-21T00:00:00Z".parse().unwrap();
    (0..NIGHTS)
        .map(|n| Day {
            nginx: lines_of(&combined.files[3 * n]),
            syslog: lines_of(&combined.files[3 * n + 1]),
            compose: lines_of(&combined.files[3 * n + 2]),
            caddy: lines_of(&caddy.files[n]),
            date: (start + jiff::SignedDuration::from_hours(24 * n as i64))
                .strftime("%Y-%m-%d")
                .to_string(),
        })
        .collect()
}

/// rsyslog's RFC 3164 line for a combined line, stamped with the request's own time
/// (`[21/Nov/2026:04:27:15 +0000]` gives `Nov 21 04:27:15`).
fn syslog_line(line: &str) -> String {
    let time = &line[line.find('[').unwrap() + 1..];
    let (day, month, clock) = (&time[..2], &time[3..6], &time[12..20]);
    let day = day.trim_start_matches('0');
    format!("{month} {day:>2} {clock} web2 nginx: {line}")
}

/// `journalctl -u caddy -o short` for a Caddy line, stamped with its `ts`.
fn journald_line(line: &str) -> String {
    let json: serde_json::Value = serde_json::from_str(line).unwrap();
    let seconds = json["ts"].as_f64().unwrap() as i64;
    let time = Timestamp::from_second(seconds)
        .unwrap()
        .to_zoned(TimeZone::UTC)
        .strftime("%b %e %H:%M:%S");
    format!("{time} web caddy[2140]: {line}")
}

/// `docker compose logs` of the service `web`.
fn compose_line(line: &str) -> String {
    format!("web-1  | {line}")
}

fn text(lines: impl IntoIterator<Item = String>) -> String {
    lines.into_iter().map(|line| line + "\n").collect()
}

/// logrotate with `rotate 3`, `compress` and `delaycompress` on `dir/name`: `.2.gz` becomes
/// `.3.gz`, `.1` is gzipped into `.2.gz`, the live log becomes `.1`, and the server starts a
/// new live log, which holds `next` (the first lines of the next day) when the night's audit
/// runs.
fn rotate(dir: &Path, name: &str, next: &str) {
    let path = |suffix: &str| dir.join(format!("{name}{suffix}"));
    if path(".2.gz").exists() {
        fs::rename(path(".2.gz"), path(".3.gz")).unwrap();
    }
    if path(".1").exists() {
        let day = fs::read(path(".1")).unwrap();
        write_gz(dir, &format!("{name}.2.gz"), &day);
        fs::remove_file(path(".1")).unwrap();
    }
    if path("").exists() {
        fs::rename(path(""), path(".1")).unwrap();
    }
    fs::write(path(""), next).unwrap();
}

/// A report directory's files with every `from` path replaced by the `to` path of the same
/// length (so the byte ranges `state.json` records stay right), and `state.json`'s checksum,
/// which covers the names, left out.
fn renamed(dir: &Path, names: &[(String, String)]) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .map(|(path, bytes)| {
            let mut text = String::from_utf8(bytes).unwrap();
            for (from, to) in names {
                assert_eq!(from.len(), to.len());
                text = text.replace(from.as_str(), to);
            }
            if path == Path::new("state.json") {
                let at = text.rfind(",\"sha256\":").expect("a checksum");
                text.truncate(at);
            }
            (path, text.into_bytes())
        })
        .collect()
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    robots_audit().current_dir(dir).args(args).output().unwrap()
}

/// The options of every audit of the month, and of the one audit it is checked against.
const AUDIT: [&str; 7] = [
    "audit",
    "-q",
    "--robots",
    "robots",
    "--origin",
    BACKEND,
    "--decisions",
];

#[test]
fn a_month_of_rotated_gzipped_prefixed_logs_equals_one_audit_of_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server");
    let days = days(dir.path(), &server.join("robots"));
    for sub in ["nginx", "syslog", "journal", "compose"] {
        fs::create_dir_all(server.join(sub)).unwrap();
    }

    // The inputs of one audit of everything: each night's new inputs, in the order the nights
    // read them. A rotated log's name comes back every night with another day in it, so its
    // copy is kept under a name of the same length (`ngi00/access.log.1` for
    // `nginx/access.log.1`), renamed back in the reports before comparing.
    let mut distinct: Vec<String> = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    for (n, day) in days.iter().enumerate() {
        // By the end of day n the servers wrote the whole day into their live logs (the first
        // lines of which the night before saw there already).
        fs::write(server.join("nginx/access.log"), text(day.nginx.clone())).unwrap();
        fs::write(
            server.join("syslog/web2.log"),
            text(day.syslog.iter().map(|l| syslog_line(l))),
        )
        .unwrap();
        // The morning after: logrotate runs, journald's and compose's logs of the day are
        // exported, then the cron lines run.
        let next = days.get(n + 1);
        let first_lines = |lines: Option<&Vec<String>>, wrap: fn(&str) -> String| {
            text(lines.into_iter().flatten().take(5).map(|l| wrap(l)))
        };
        rotate(
            &server.join("nginx"),
            "access.log",
            &first_lines(next.map(|d| &d.nginx), str::to_owned),
        );
        rotate(
            &server.join("syslog"),
            "web2.log",
            &first_lines(next.map(|d| &d.syslog), syslog_line),
        );
        let journal = format!("journal/caddy-{}.log.gz", day.date);
        write_gz(
            &server,
            &journal,
            text(day.caddy.iter().map(|l| journald_line(l))).as_bytes(),
        );
        let compose = format!("compose/web-{}.log.gz", day.date);
        write_gz(
            &server,
            &compose,
            text(day.compose.iter().map(|l| compose_line(l))).as_bytes(),
        );
        // The live logs are still being written: they are left to the next night.
        let mut audit = AUDIT.to_vec();
        audit.extend([
            "--out",
            "night",
            "--exclude",
            "access.log",
            "--exclude",
            "web2.log",
        ]);
        audit.extend(["nginx", "syslog", "journal", "compose"]);
        let night = run(&server, &audit);
        assert_eq!(night.status.code(), Some(0), "{}", stderr_text(&night));
        let merged = run(
            &server,
            &["merge", "-q", "--out", "month", "month", "night"],
        );
        assert_eq!(merged.status.code(), Some(0), "{}", stderr_text(&merged));
        // What the night read again is counted once, each with its warning: yesterday's logs
        // gzipped, and the exports of the nights before.
        let warnings = stderr_text(&merged);
        let mut again = vec![];
        if n >= 1 {
            again.extend(["nginx/access.log.2.gz", "syslog/web2.log.2.gz"].map(String::from));
        }
        if n >= 2 {
            again.extend(["nginx/access.log.3.gz", "syslog/web2.log.3.gz"].map(String::from));
        }
        for earlier in &days[..n] {
            again.push(format!("journal/caddy-{}.log.gz", earlier.date));
            again.push(format!("compose/web-{}.log.gz", earlier.date));
        }
        for input in &again {
            assert!(
                warnings
                    .lines()
                    .any(|w| w.contains(&format!("input {input} of night"))
                        && w.contains("has the same content as input")
                        && w.ends_with("counted once")),
                "night {n}: no warning for {input}:\n{warnings}"
            );
        }
        assert_eq!(warnings.lines().count(), again.len(), "{warnings}");

        for (live, copy, file) in [
            ("nginx", format!("ngi{:02}", n), "access.log.1"),
            ("syslog", format!("sysl{:02}", n), "web2.log.1"),
        ] {
            fs::create_dir_all(server.join(&copy)).unwrap();
            fs::copy(server.join(live).join(file), server.join(&copy).join(file)).unwrap();
            distinct.push(format!("{copy}/{file}"));
            names.push((format!("{copy}/"), format!("{live}/")));
        }
        distinct.extend([journal, compose]);
    }

    let mut audit = AUDIT.to_vec();
    audit.extend(["--out", "whole"]);
    audit.extend(distinct.iter().map(String::as_str));
    let whole = run(&server, &audit);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr_text(&whole));
    let month = renamed(&server.join("month"), &[]);
    let one_audit = renamed(&server.join("whole"), &names);
    assert_eq!(
        month.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        one_audit.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for ((report, got), (_, want)) in month.iter().zip(&one_audit) {
        assert!(
            got == want,
            "{} differs from one audit's:\n{}\n---\n{}",
            report.display(),
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(want)
        );
    }

    // Every line of every input was read, the prefixes stripped, and verdicts were reached.
    let inputs = read_csv(&server.join("month/inputs.csv"));
    assert_eq!(inputs.len(), 4 * NIGHTS, "{inputs:#?}");
    for input in &inputs {
        assert_eq!(
            (input["skipped"].as_str(), input["error"].as_str()),
            ("0", ""),
            "{input:?}"
        );
        assert_eq!(input["lines"], input["parsed"], "{input:?}");
        let format = if input["file"].starts_with("journal/") {
            "caddy"
        } else {
            "combined"
        };
        assert_eq!(input["format"], format, "{input:?}");
    }
    let compressions: Vec<&str> = inputs.iter().map(|i| i["compression"].as_str()).collect();
    assert!(compressions.contains(&"gzip") && compressions.contains(&"plain"));
    let agents = read_csv(&server.join("month/agents.csv"));
    let judged: u64 = agents
        .iter()
        .map(|a| a["judged"].parse::<u64>().unwrap())
        .sum();
    let disallowed: u64 = agents
        .iter()
        .map(|a| a["disallowed"].parse::<u64>().unwrap())
        .sum();
    assert!(judged > 0 && disallowed > 0, "{agents:#?}");
    let origins = read_csv(&server.join("month/agent_origins.csv"));
    let seen: std::collections::BTreeSet<&str> =
        origins.iter().map(|o| o["origin"].as_str()).collect();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen.contains(BACKEND), "{seen:?}");
}
