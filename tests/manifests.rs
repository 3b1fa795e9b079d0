//! Manifests are recognised by their header, columns in any order (docs/contract.md, robots
//! sources): a misspelt or extra column is an error naming the manifest and the column, never a
//! robots.txt without rules. Rows naming the same file, or files with the same bytes, are
//! versions of their own in every report.

use crate::common::*;
use std::fs;
use std::path::Path;

const AHREFS: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";

const LOG: &str = "203.0.113.9 - - [20/Nov/2026:10:00:00 +0000] \"GET /private/x HTTP/1.1\" 200 10 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n";

/// Writes the robots file, the log and a manifest whose header and rows are `manifest`.
fn scenario(dir: &Path, manifest: &str) {
    write(
        dir,
        "robots/site.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    write(dir, "access.log", LOG.repeat(2));
    write(dir, "history.csv", manifest);
}

fn audit(dir: &Path) -> assert_cmd::Command {
    let mut cmd = robots_audit();
    cmd.current_dir(dir).args([
        "audit",
        "-q",
        "--robots",
        "history.csv",
        "--origin",
        "https://example.com",
        "--out",
        "out",
        "access.log",
    ]);
    cmd
}

#[test]
fn columns_in_any_order_with_spaces_give_the_same_reports() {
    let manifests = [
        "origin,valid_from,status,file\nhttps://example.com,,200,robots/site.txt\n",
        "file , status,origin, valid_from\nrobots/site.txt,200,https://example.com,\n",
        "\u{feff}Origin,Valid_From,Status,File\r\nhttps://example.com , , 200 , robots/site.txt\r\n",
    ];
    let mut reports = Vec::new();
    for manifest in manifests {
        let dir = tempfile::tempdir().unwrap();
        scenario(dir.path(), manifest);
        audit(dir.path()).assert().code(0);
        let agents = read_csv(&dir.path().join("out/agents.csv"));
        assert_eq!(
            row(&agents, "agent", "AhrefsBot")["disallowed"],
            "2",
            "{manifest}"
        );
        reports.push(fs::read(dir.path().join("out/violations.csv")).unwrap());
    }
    assert!(reports.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_bad_header_is_an_error_naming_the_manifest_and_the_column() {
    let cases = [
        ("orgin,valid_from,status,file\n", "unknown column \"orgin\""),
        (
            "origin,valid_from,status,file,note\n",
            "unknown column \"note\"",
        ),
        ("origin,status,file\n", "no column \"valid_from\""),
        (
            "origin,file,file,status,valid_from\n",
            "\"file\" appears twice",
        ),
    ];
    for (header, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        scenario(
            dir.path(),
            &format!("{header}https://example.com,,200,robots/site.txt\n"),
        );
        let output = audit(dir.path()).assert().code(1).get_output().clone();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("history.csv"), "{header}: {stderr}");
        assert!(stderr.contains(message), "{header}: {stderr}");
        assert!(!dir.path().join("out/agents.csv").exists());
    }
}

#[test]
fn a_csv_file_is_never_read_as_a_robots_txt() {
    let dir = tempfile::tempdir().unwrap();
    scenario(dir.path(), "User-agent: *\nDisallow: /\n");
    let output = audit(dir.path()).assert().code(1).get_output().clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("history.csv"), "{stderr}");
}

#[test]
fn two_versions_valid_from_the_same_time_name_both_files() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots/other.txt",
        "User-agent: *\nDisallow: /\n",
    );
    scenario(
        dir.path(),
        "origin,valid_from,status,file\nhttps://example.com,,200,robots/site.txt\nhttps://example.com,,200,robots/other.txt\n",
    );
    let output = audit(dir.path()).assert().code(1).get_output().clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("site.txt") && stderr.contains("other.txt"),
        "{stderr}"
    );
}

#[test]
fn grace_in_days_and_weeks() {
    for (grace, code) in [("1d", 0), ("1w", 0), ("2d12h", 0), ("1mo", 2), ("-1d", 2)] {
        let dir = tempfile::tempdir().unwrap();
        scenario(
            dir.path(),
            "origin,valid_from,status,file\nhttps://example.com,,200,robots/site.txt\n",
        );
        audit(dir.path())
            .args(["--grace", grace])
            .assert()
            .code(code);
    }
}

/// A history alternating between two files (a site load-balanced over two servers, as the
/// Wayback Machine archives it), the first file named again under another name: versions with
/// the same file share its parsed rules, yet each keeps its own rows, counts and label, and a
/// version with the same file as the one before it grants no grace.
#[test]
fn versions_with_the_same_file_keep_their_own_rows_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let a = "User-agent: *\nDisallow: /a/\n";
    write(dir.path(), "robots/a.txt", a);
    write(dir.path(), "robots/a-again.txt", a);
    write(dir.path(), "robots/b.txt", "User-agent: *\nDisallow: /b/\n");
    write(
        dir.path(),
        "history.csv",
        "origin,valid_from,status,file\n\
         https://example.com,,200,robots/a.txt\n\
         https://example.com,2026-11-20T10:00:00Z,200,robots/b.txt\n\
         https://example.com,2026-11-20T11:00:00Z,200,robots/a.txt\n\
         https://example.com,2026-11-20T12:00:00Z,200,robots/a-again.txt\n",
    );
    let requests = [
        ("09:30", "/a/1"),
        ("10:05", "/b/2"),
        ("10:30", "/b/3"),
        ("10:40", "/a/4"),
        ("11:30", "/a/5"),
        ("11:35", "/b/6"),
        ("12:05", "/a/7"),
        ("12:10", "/b/8"),
    ];
    let log: String = requests
        .iter()
        .map(|(time, path)| {
            format!(
                "203.0.113.9 - - [20/Nov/2026:{time}:00 +0000] \"GET {path} HTTP/1.1\" 200 10 \"-\" \"{AHREFS}\"\n"
            )
        })
        .collect();
    write(dir.path(), "access.log", log);
    audit(dir.path()).args(["--grace", "15m"]).assert().code(0);
    let out = dir.path().join("out");
    let report = |name: &str| fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(
        report("robots.csv"),
        "origin,robots_version,status,source,bytes,truncated,lines,groups,rules,ignored_lines\n\
         https://example.com,initial,200,robots/a.txt,28,false,2,1,1,0\n\
         https://example.com,2026-11-20T10:00:00Z,200,robots/b.txt,28,false,2,1,1,0\n\
         https://example.com,2026-11-20T11:00:00Z,200,robots/a.txt,28,false,2,1,1,0\n\
         https://example.com,2026-11-20T12:00:00Z,200,robots/a-again.txt,28,false,2,1,1,0\n"
    );
    assert_eq!(
        report("rules.csv"),
        "origin,robots_version,group,line,rule,decided,violations,agents\n\
         https://example.com,initial,*,2,Disallow: /a/,1,1,AhrefsBot\n\
         https://example.com,2026-11-20T10:00:00Z,*,2,Disallow: /b/,2,1,AhrefsBot\n\
         https://example.com,2026-11-20T11:00:00Z,*,2,Disallow: /a/,1,1,AhrefsBot\n\
         https://example.com,2026-11-20T12:00:00Z,*,2,Disallow: /a/,1,1,AhrefsBot\n"
    );
    let violations: Vec<String> = read_csv(&out.join("violations.csv"))
        .iter()
        .map(|v| format!("{} {} {}", v["path"], v["rule"], v["robots_version"]))
        .collect();
    assert_eq!(
        violations,
        [
            "/a/1 Disallow: /a/ initial",
            "/b/3 Disallow: /b/ 2026-11-20T10:00:00Z",
            "/a/5 Disallow: /a/ 2026-11-20T11:00:00Z",
            "/a/7 Disallow: /a/ 2026-11-20T12:00:00Z",
        ]
    );
    let agents = read_csv(&out.join("agents.csv"));
    let ahrefs = row(&agents, "agent", "AhrefsBot");
    assert_eq!(
        ["allowed", "disallowed", "grace"].map(|column| ahrefs[column].as_str()),
        ["3", "4", "1"]
    );
    let state: serde_json::Value = serde_json::from_str(&report("state.json")).unwrap();
    let rules: Vec<&serde_json::Value> = state["payload"]["robots"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|version| &version["decides"]["rules"][0]["text"])
        .collect();
    assert_eq!(
        rules,
        [
            "Disallow: /a/",
            "Disallow: /b/",
            "Disallow: /a/",
            "Disallow: /a/"
        ]
    );
}

/// A robots.txt of any size costs the 500 KiB the audit reads of it, not its size: the rest is
/// only hashed and counted, however many rows name the file.
#[test]
fn a_huge_robots_txt_named_by_many_rows_is_not_held_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = b"User-agent: *\nDisallow: /private/\n".to_vec();
    body.resize(48 << 20, b'#');
    write(dir.path(), "robots/site.txt", &body);
    let mut manifest =
        "origin,valid_from,status,file\nhttps://example.com,,200,robots/site.txt\n".to_owned();
    for day in 1..=28 {
        manifest.push_str(&format!(
            "https://example.com,2026-02-{day:02}T00:00:00Z,200,robots/site.txt\n"
        ));
    }
    write(dir.path(), "access.log", LOG.repeat(2));
    write(dir.path(), "history.csv", manifest);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
        .current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "history.csv",
            "--out",
            "out",
            "access.log",
        ])
        .args(["--origin", "https://example.com"])
        .spawn()
        .unwrap();
    let (status, peak) = peak_memory_kib(&mut child);
    assert_eq!(status.code(), Some(0));
    let robots = read_csv(&dir.path().join("out/robots.csv"));
    assert_eq!(robots.len(), 29);
    assert!(
        robots
            .iter()
            .all(|r| r["bytes"] == (48 << 20).to_string() && r["truncated"] == "true"),
        "{robots:?}"
    );
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(row(&agents, "agent", "AhrefsBot")["disallowed"], "2");
    if let Some(peak) = peak {
        assert!(peak < 40 << 10, "peak {peak} KiB for a 48 MiB robots.txt");
    }
}

/// In a robots directory, names that start with `.` are never read, in a host's dated versions
/// as at the top (an editor's `.2026-02-01T00:00:00Z.txt.swp` or a hidden copy). A directory
/// written by `fetch` or `import` is named as one: its manifest is what to pass.
#[test]
fn a_robots_directory_skips_hidden_dated_files_and_points_at_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "access.log", LOG.repeat(2));
    write(
        dir.path(),
        "robots/example.com/2026-01-01T00:00:00Z.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    write(
        dir.path(),
        "robots/example.com/.old.txt",
        "User-agent: *\nDisallow: /\n",
    );
    let run = |source: &str| {
        robots_audit()
            .current_dir(dir.path())
            .args([
                "audit",
                "-q",
                "--robots",
                source,
                "--out",
                "out",
                "access.log",
            ])
            .args(["--origin", "https://example.com"])
            .output()
            .unwrap()
    };
    let output = run("robots");
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(row(&agents, "agent", "AhrefsBot")["disallowed"], "2");

    write(
        dir.path(),
        "history/manifest.csv",
        "origin,valid_from,status,file\nhttps://example.com,,200,example.com/0a1b.txt\n",
    );
    write(
        dir.path(),
        "history/example.com/0a1b.txt",
        "User-agent: *\n",
    );
    let output = run("history");
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_text(&output);
    assert!(
        stderr.contains(&format!(
            "--robots {}",
            Path::new("history").join("manifest.csv").display()
        )),
        "{stderr}"
    );
}
