//! Cells an analyst opens: user-agents, paths, robots.txt lines and excerpts that start with a
//! formula or hold control bytes, through every CSV of a run (spreadsheet-safe by default,
//! as read with `--raw-csv`), and exit 3 when lines were read and nothing was judged.

use std::fs;
use std::path::Path;

use crate::common::*;

/// Cell prefixes a spreadsheet evaluates or acts on, each followed by something of its own.
const PREFIXES: [&str; 8] = [
    "=1+1",
    "  =2+2",
    "+SUM(1)",
    "-2+3",
    "@A1",
    "\t=x",
    "\r=y",
    "=HYPERLINK(\"http://x.example\",\"y\")",
];

/// A night whose user-agents, paths, robots.txt rules and skipped lines carry every prefix
/// (the rules and the robots.txt's group too), with `--decisions`.
fn night(dir: &Path) {
    let mut robots = String::new();
    let mut log = String::new();
    for (i, prefix) in PREFIXES.iter().enumerate() {
        let clean = prefix.replace(['\t', '\r', '"'], "");
        robots.push_str(&format!("User-agent: {clean}bot\nDisallow: /{clean}\n\n"));
        let path = format!("/{clean}{i}");
        let bot = format!(
            "{}Bot/1.0 (+http://x{i}.example/)",
            prefix.replace('"', "'")
        );
        let browser = format!("{} Mozilla/5.0", prefix.replace('"', "'"));
        for ua in [bot, browser] {
            log.push_str(&format!(
                "203.0.113.{i} - - [01/Jan/2026:10:00:0{i} +0000] \"GET {path} HTTP/1.1\" 200 10 \"-\" \"{ua}\"\n"
            ));
        }
        log.push_str(&format!("{prefix} not a log line\n"));
    }
    robots.push_str("User-agent: *\nDisallow: /\n");
    write(dir, "robots.txt", robots);
    write(dir, "=cmd.log", log);
}

fn audit(dir: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--decisions", "--robots", "robots.txt"])
        .args(["--origin", "https://example.com", "--out", out])
        .args(extra)
        .arg("=cmd.log")
        .output()
        .unwrap()
}

/// Every cell of every CSV in `out`.
fn cells(out: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for entry in fs::read_dir(out).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".csv") {
            continue;
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_path(entry.path())
            .unwrap();
        for record in reader.records() {
            for cell in record.unwrap().iter() {
                all.push((name.clone(), cell.to_owned()));
            }
        }
    }
    all
}

/// What a spreadsheet evaluates: a cell that starts with `=`, `+`, `-`, `@`, TAB or CR, after
/// any spaces (which some programs trim), unless it is a number.
fn is_formula(cell: &str) -> bool {
    let trimmed = cell.trim_start_matches(' ');
    trimmed.starts_with(['=', '+', '-', '@', '\t', '\r']) && trimmed.parse::<f64>().is_err()
}

#[test]
fn no_cell_of_any_csv_is_a_formula_or_holds_a_control_byte() {
    let dir = tempfile::tempdir().unwrap();
    night(dir.path());
    let output = audit(dir.path(), "out", &[]);
    assert_reports_written(&output, "audit");
    let all = cells(&dir.path().join("out"));
    let guarded: Vec<_> = all
        .iter()
        .filter(|(_, cell)| cell.starts_with('\''))
        .collect();
    for (file, cell) in &all {
        assert!(!is_formula(cell), "{file}: {cell:?} is a formula");
        assert!(!cell.chars().any(|c| c.is_control()), "{file}: {cell:?}");
    }
    // The prefixes reached the reports that show user-agents, paths, rules, excerpts and
    // sources, and each got its quote there.
    for file in [
        "violations.csv",
        "decisions.csv",
        "unknown_agents.csv",
        "skipped_lines.csv",
        "rules.csv",
    ] {
        assert!(
            guarded.iter().any(|(f, _)| f == file),
            "no guarded cell in {file}: {all:?}"
        );
    }
    assert!(
        all.iter().any(|(_, cell)| cell.contains("\\x09")),
        "TAB written visibly"
    );
    // --raw-csv: as read.
    let output = audit(dir.path(), "raw", &["--raw-csv"]);
    assert_reports_written(&output, "audit --raw-csv");
    let raw = cells(&dir.path().join("raw"));
    assert!(raw.iter().any(|(_, cell)| cell.starts_with("=1+1")));
    assert!(!raw.iter().any(|(_, cell)| cell.starts_with('\'')));
    // merge never mixes the two.
    let mixed = robots_audit()
        .current_dir(dir.path())
        .args(["merge", "-q", "--out", "mixed", "out", "raw"])
        .output()
        .unwrap();
    assert_eq!(mixed.status.code(), Some(1), "{}", stderr_text(&mixed));
    assert!(
        stderr_text(&mixed).contains("raw_csv"),
        "{}",
        stderr_text(&mixed)
    );
    for (flag, report, code) in [
        (None, "out", 0),
        (Some("--raw-csv"), "raw", 0),
        (Some("--raw-csv"), "out", 1),
        (None, "raw", 1),
    ] {
        let merged = robots_audit()
            .current_dir(dir.path())
            .args(["merge", "-q", "--out", "merged"])
            .args(flag)
            .arg(report)
            .output()
            .unwrap();
        let got = merged.status.code().map(|c| if c == 3 { 0 } else { c });
        assert_eq!(
            got,
            Some(code),
            "{flag:?} {report}: {}",
            stderr_text(&merged)
        );
    }
}

/// A forced `--format` that is not the log's skips every line: exit 3, the cause in one line.
#[test]
fn a_forced_format_that_skips_every_line_exits_3_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let line = "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 10 \"-\" \"Googlebot/2.1\"\n";
    write(dir.path(), "access.log", line.repeat(1_473));
    let output = robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "robots.txt", "--format", "w3c"])
        .args([
            "--origin",
            "https://example.com",
            "--out",
            "out",
            "access.log",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stderr_text(&output));
    let stderr = stderr_text(&output);
    assert!(
        stderr.contains("nothing judged: 1,473 of 1,473 lines")
            && stderr.contains("for --format w3c"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Standard input is named `-`, so the `source` cells of its rows start with `-` and are no
/// number (`-:1`): they get their quote as any other cell would, in every streamed report.
#[test]
fn the_source_cells_of_standard_input_are_guarded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let log = "203.0.113.1 - - [01/Jan/2026:10:00:00 +0000] \"GET /x HTTP/1.1\" 200 10 \"-\" \"Googlebot/2.1\"\n";
    let output = robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--decisions", "--robots", "robots.txt"])
        .args(["--origin", "https://example.com", "--out", "out", "-"])
        .write_stdin(log)
        .output()
        .unwrap();
    assert_reports_written(&output, "audit -");
    for file in ["violations.csv", "decisions.csv"] {
        let rows = read_csv(&dir.path().join("out").join(file));
        assert_eq!(rows.len(), 1, "{file}");
        assert_eq!(rows[0]["source"], "'-:1", "{file}");
    }
}

/// A terminal acts on C1 controls as on ASCII ones (U+009B is a CSI), and a bidirectional
/// control shows the rest of a line backwards (`cat violations.csv`: the columns after a
/// user-agent holding U+202E): each is written visibly as `\u{..}`, in streamed and summed
/// reports alike, and as read with `--raw-csv`.
#[test]
fn c1_and_bidirectional_controls_are_written_visibly() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /\nDisallow: /\u{9b}x\u{202e}\n",
    );
    let line = |ua: &str| {
        format!(
            "203.0.113.1 - - [01/Jan/2026:10:00:00 +0000] \"GET /\u{9b}x\u{202e}1 HTTP/1.1\" 200 10 \"-\" \"{ua}\"\n"
        )
    };
    let bot = "Googlebot/2.1 \u{9b}31m \u{202e}21 \u{2028}";
    let browser = "Mozilla/5.0 \u{85}\u{2067}x\u{2069}";
    write(dir.path(), "a.log", line(bot) + &line(browser));
    let run = |out: &str, extra: &[&str]| {
        robots_audit()
            .current_dir(dir.path())
            .args(["audit", "-q", "--decisions", "--robots", "robots.txt"])
            .args(["--origin", "https://example.com", "--out", out])
            .args(extra)
            .arg("a.log")
            .output()
            .unwrap()
    };
    let output = run("out", &[]);
    assert_reports_written(&output, "audit");
    let all = cells(&dir.path().join("out"));
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}')
    };
    for (file, cell) in &all {
        assert!(!cell.chars().any(hidden), "{file}: {cell:?}");
    }
    for (file, want) in [
        (
            "violations.csv",
            "Googlebot/2.1 \\u{9b}31m \\u{202e}21 \\u{2028}",
        ),
        ("violations.csv", "/\\u{9b}x\\u{202e}1"),
        ("decisions.csv", "/\\u{9b}x\\u{202e}1"),
        ("rules.csv", "Disallow: /\\u{9b}x\\u{202e}"),
        (
            "unknown_agents.csv",
            "Mozilla/5.0 \\u{85}\\u{2067}x\\u{2069}",
        ),
    ] {
        assert!(
            all.iter().any(|(f, cell)| f == file && cell == want),
            "no {want:?} in {file}: {all:?}"
        );
    }
    let output = run("raw", &["--raw-csv"]);
    assert_reports_written(&output, "audit --raw-csv");
    let raw = cells(&dir.path().join("raw"));
    assert!(raw.iter().any(|(_, cell)| cell == bot), "{raw:?}");
}

/// A time before year 1 is written by RFC 3339 with a sign (`-000249-10-15T19:33:20Z`): the
/// tool's own value, which computes nothing. Every report writes it the same way, unquoted, as
/// the streamed reports did while the summed ones gave it a `'`.
#[test]
fn times_before_year_one_are_written_alike_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots/example.com.txt",
        "User-agent: *\nDisallow: /\n",
    );
    write(
        dir.path(),
        "caddy.log",
        r#"{"ts":-70000000000,"request":{"client_ip":"203.0.113.9","method":"GET","host":"example.com","uri":"/x","headers":{"User-Agent":["Googlebot/2.1"]}},"status":200,"size":10}"#
            .to_owned()
            + "\n",
    );
    let output = robots_audit()
        .current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "robots",
            "--out",
            "out",
            "caddy.log",
        ])
        .output()
        .unwrap();
    assert_reports_written(&output, "audit");
    let out = dir.path().join("out");
    let time = "-000249-10-15T19:33:20Z";
    assert_eq!(read_csv(&out.join("violations.csv"))[0]["time"], time);
    let agents = read_csv(&out.join("agents.csv"));
    assert_eq!(agents[0]["first_seen"], time);
    assert_eq!(read_csv(&out.join("inputs.csv"))[0]["last_time"], time);
    assert_eq!(
        read_csv(&out.join("hourly.csv"))[0]["hour"],
        "-000249-10-15T19:00:00Z"
    );
}
