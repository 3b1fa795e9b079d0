//! Exit codes and error messages of the command line (docs/contract.md, "Exit codes", "Bad input").

use crate::common::*;
use predicates::prelude::*;
use std::fs;
use std::path::Path;

const LINE: &str = "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET /private/x HTTP/1.1\" 200 10 \"-\" \"Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)\"\n";

fn setup(dir: &Path) {
    write(dir, "robots.txt", "User-agent: *\nDisallow: /private/\n");
    write(dir, "access.log", LINE.repeat(3));
}

fn audit(dir: &Path) -> assert_cmd::Command {
    let mut cmd = robots_audit();
    cmd.current_dir(dir).args(["audit", "-q"]);
    cmd
}

/// An audit of the files [`setup`] writes, reports into `out`.
fn audit_example(dir: &Path) -> assert_cmd::Command {
    let mut cmd = audit(dir);
    cmd.args(["--robots", "robots.txt", "--origin", "https://example.com"])
        .args(["--out", "out"]);
    cmd
}

#[test]
fn exit_0_when_done() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    audit_example(dir.path())
        .args(["access.log"])
        .assert()
        .code(0)
        .stdout("");
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(row(&agents, "agent", "AhrefsBot")["disallowed"], "3");
    for name in [
        "agents.csv",
        "agent_origins.csv",
        "violations.csv",
        "rules.csv",
        "robots.csv",
        "inputs.csv",
        "skipped_lines.csv",
        "unknown_agents.csv",
        "hourly.csv",
        "crawl_rate.csv",
        "preference_conflicts.csv",
    ] {
        assert!(dir.path().join("out").join(name).exists(), "{name}");
    }
    assert!(!dir.path().join("out/decisions.csv").exists());
    let leftovers: Vec<_> = fs::read_dir(dir.path().join("out"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn headers_are_the_documented_ones() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    audit_example(dir.path())
        .args(["--decisions", "access.log"])
        .assert()
        .success();
    let out = dir.path().join("out");
    let expected = [
        (
            "agents.csv",
            "agent,robots_tokens,operator,category,requests,robots_fetches,judged,allowed,disallowed,disallowed_verified,grace,exempt,unjudged,violation_rate,violations_served,coverage,origins,origins_robots_fetched,origins_with_violations,verified,spoofed,unverified,first_seen,last_seen,preference_conflicts",
        ),
        (
            "agent_origins.csv",
            "agent,origin,requests,robots_fetches,robots_fetch_statuses,first_robots_fetch,judged,allowed,disallowed,disallowed_verified,grace,exempt,unjudged,violation_rate,violations_served,coverage,first_seen,last_seen,first_violation,preference_conflicts",
        ),
        (
            "violations.csv",
            "time,origin,agent,user_agent,client_ip,verification,method,path,status,bytes,rule,rule_line,group,robots_version,holds_under_1994,source",
        ),
        (
            "rules.csv",
            "origin,robots_version,group,line,rule,decided,violations,agents",
        ),
        (
            "robots.csv",
            "origin,robots_version,status,source,bytes,truncated,lines,groups,rules,ignored_lines",
        ),
        (
            "inputs.csv",
            "file,format,compression,bytes_read,bytes,lines,parsed,skipped,bot_requests,other_requests,first_time,last_time,error,assumed_zone",
        ),
        ("skipped_lines.csv", "file,line,reason,excerpt"),
        (
            "hourly.csv",
            "hour,agent,requests,robots_fetches,judged,allowed,disallowed,grace,exempt,unjudged,violations_served,spoofed,preference_conflicts",
        ),
        (
            "decisions.csv",
            "time,origin,agent,user_agent,client_ip,method,path,status,verdict,rule,rule_line,robots_version,source",
        ),
        (
            "unknown_agents.csv",
            "user_agent,requests,robots_fetches,first_seen,last_seen,sample_path",
        ),
        (
            "crawl_rate.csv",
            "agent,origin,crawl_delay,honours_crawl_delay,requests,early_requests,early_rate,busiest_minute,busiest_minute_requests,allowed_per_minute,exact",
        ),
        (
            "preference_conflicts.csv",
            "time,origin,agent,path,use,preference,directive,directive_line,robots_version,source",
        ),
    ];
    for (name, want) in expected {
        assert_eq!(header(&out.join(name)), want, "{name}");
    }
}

#[test]
fn exit_2_on_wrong_usage() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let cases: [&[&str]; 9] = [
        &["audit", "--robots", "robots.txt"],
        &["audit", "access.log"],
        &[
            "audit",
            "--robots",
            "robots.txt",
            "--no-such-flag",
            "access.log",
        ],
        &[
            "audit",
            "--robots",
            "robots.txt",
            "--grace",
            "soon",
            "access.log",
        ],
        &[
            "audit",
            "--robots",
            "robots.txt",
            "--format",
            "xml",
            "access.log",
        ],
        &[
            "audit",
            "--robots",
            "robots.txt",
            "--origin",
            "https://",
            "access.log",
        ],
        &[
            "audit",
            "--robots",
            "robots.txt",
            "--threads",
            "0",
            "access.log",
        ],
        &["check", "--robots", "robots.txt", "/x"],
        &["frobnicate"],
    ];
    for args in cases {
        robots_audit()
            .current_dir(dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::is_empty().not())
            .stderr(predicate::str::contains("panicked").not());
    }
}

#[test]
fn exit_1_when_nothing_can_be_audited() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    write(
        dir.path(),
        "bad-manifest.csv",
        "origin,valid_from,status,file\nexample.com,yesterday,200,robots.txt\n",
    );
    write(dir.path(), "not-a-dir", "x");
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "--robots",
                "missing.txt",
                "--origin",
                "https://example.com",
                "access.log",
            ],
            "missing.txt",
        ),
        (&["--robots", "robots.txt", "access.log"], "needs --origin"),
        (&["--robots", "bad-manifest.csv", "access.log"], "line 2"),
        (
            &[
                "--robots",
                "robots.txt",
                "--origin",
                "https://example.com",
                "no-such.log",
            ],
            "no readable input",
        ),
        (
            &[
                "--robots",
                "robots.txt",
                "--origin",
                "https://example.com",
                "--out",
                "not-a-dir/out",
                "access.log",
            ],
            "--out",
        ),
    ];
    for (args, message) in cases {
        audit(dir.path())
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn exit_3_when_some_input_had_errors() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let gz = write_gz(dir.path(), "full.log.gz", LINE.repeat(2000).as_bytes());
    let bytes = fs::read(&gz).unwrap();
    write(dir.path(), "cut.log.gz", &bytes[..bytes.len() / 2]);
    audit_example(dir.path())
        .args(["access.log", "cut.log.gz"])
        .assert()
        .code(3);
    let inputs = read_csv(&dir.path().join("out/inputs.csv"));
    assert_eq!(inputs[0]["error"], "");
    let cut = &inputs[1];
    assert!(!cut["error"].is_empty());
    let parsed: u64 = cut["parsed"].parse().unwrap();
    assert!(
        parsed > 0 && parsed < 2000,
        "lines before the damage are kept: {parsed}"
    );
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(
        row(&agents, "agent", "AhrefsBot")["requests"],
        (3 + parsed).to_string()
    );
}

#[test]
fn skipped_lines_are_counted_and_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LINE.repeat(2).into_bytes();
    log.extend_from_slice(b"\x00\xff garbage line\n");
    log.extend_from_slice(LINE.as_bytes());
    assert_eq!(line_counts(dir.path(), log), ["4", "3", "1"]);
    let samples = read_csv(&dir.path().join("out/skipped_lines.csv"));
    assert_eq!(samples.len(), 1);
    assert_eq!(samples[0]["line"], "3");
}

/// Blank lines and `#` lines hold no request and are no damage: counted in `lines`, in
/// neither `parsed` nor `skipped` (a night's `lines` is `parsed` + `skipped` + those).
#[test]
fn lines_that_hold_no_request_are_read_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let log = format!("{LINE}\n   \r\n# rotated at midnight\n{LINE}\u{feff}\n");
    assert_eq!(line_counts(dir.path(), log), ["6", "2", "0"]);
}

/// `lines`, `parsed` and `skipped` of `inputs.csv` after the audit of `log` as `combined`.
fn line_counts(dir: &Path, log: impl AsRef<[u8]>) -> [String; 3] {
    setup(dir);
    write(dir, "night.log", log);
    audit_example(dir)
        .args(["--format", "combined", "night.log"])
        .assert()
        .code(0);
    let inputs = read_csv(&dir.join("out/inputs.csv"));
    ["lines", "parsed", "skipped"].map(|column| inputs[0][column].clone())
}

#[test]
fn reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    audit_example(dir.path())
        .args(["-"])
        .write_stdin(LINE.repeat(5))
        .assert()
        .code(0);
    let agents = read_csv(&dir.path().join("out/agents.csv"));
    assert_eq!(row(&agents, "agent", "AhrefsBot")["requests"], "5");
}

#[test]
fn check_prints_the_deciding_rule() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: FooBot\nAllow: /private/ok\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n",
    );
    robots_audit()
        .current_dir(dir.path())
        .args([
            "check",
            "--robots",
            "robots.txt",
            "--agent",
            "FooBot",
            "https://example.com/private/x",
            "/private/ok/1",
            "",
            "/public",
        ])
        .assert()
        .code(0)
        .stdout(
            "disallowed\thttps://example.com/private/x\tDisallow: /private/\t3\t-\t-\n\
             allowed\t/private/ok/1\tAllow: /private/ok\t2\t-\t-\n\
             allowed\t\t-\t0\t-\t-\n\
             allowed\t/public\t-\t0\t-\t-\n",
        );
    robots_audit()
        .current_dir(dir.path())
        .args([
            "check",
            "--robots",
            "robots.txt",
            "--agent",
            "OtherBot",
            "/public",
        ])
        .assert()
        .stdout("disallowed\t/public\tDisallow: /\t6\t-\t-\n");
    robots_audit()
        .current_dir(dir.path())
        .args([
            "check",
            "--robots",
            "missing.txt",
            "--agent",
            "FooBot",
            "/x",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.txt"));
}

#[test]
fn check_reads_urls_from_a_file_and_resolves_user_agents() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: googlebot\nDisallow: /g/\n\nUser-agent: *\nDisallow: /\n",
    );
    write(dir.path(), "urls.txt", "/g/1\r\n/x\n\n");
    robots_audit()
        .current_dir(dir.path())
        .args([
            "check",
            "--robots",
            "robots.txt",
            "--user-agent",
            "Googlebot-Image/1.0",
            "--urls",
            "urls.txt",
        ])
        .assert()
        .code(0)
        .stdout("disallowed\t/g/1\tDisallow: /g/\t2\t-\t-\nallowed\t/x\t-\t0\t-\t-\n");
}

#[cfg(unix)]
#[test]
fn interrupted_run_leaves_no_report() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
        .current_dir(dir.path())
        .args([
            "audit",
            "-q",
            "--robots",
            "robots.txt",
            "--origin",
            "https://example.com",
            "--out",
            "out",
            "-",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, LINE.repeat(100).as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(output.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted"));
    let entries: Vec<_> = fs::read_dir(dir.path().join("out"))
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        entries.is_empty(),
        "nothing may be left in --out: {entries:?}"
    );
}

/// A `LOG` directory's files are read in natural order (`access.log`, `.1`, `.2`, `.2.gz`,
/// `.10`, `.11`), and `--include`/`--exclude` select them by name (docs/pending-cli.md).
#[test]
fn a_log_directory_in_natural_order_with_include_and_exclude() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let rotated = [
        "access.log.11",
        "access.log.2",
        "access.log",
        "access.log.10",
        "access.log.1",
    ];
    for (n, name) in rotated.iter().enumerate() {
        write(dir.path(), &format!("logs/{name}"), LINE.repeat(n + 1));
    }
    write_gz(
        dir.path(),
        "logs/access.log.2.gz",
        LINE.repeat(7).as_bytes(),
    );
    write(
        dir.path(),
        "logs/error.log",
        "[error] [client 203.0.113.9] File does not exist\n",
    );
    write(
        dir.path(),
        "logs/syslog",
        "Jan  1 10:00:00 web kernel: eth0 up\n",
    );
    let files = |args: &[&str]| {
        audit_example(dir.path())
            .args(args)
            .arg("logs")
            .assert()
            .code(0);
        read_csv(&dir.path().join("out/inputs.csv"))
            .into_iter()
            .map(|row| row["file"].trim_start_matches("logs/").to_owned())
            .collect::<Vec<_>>()
    };
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--exclude", "error.log*", "--exclude", "syslog"],
            &[
                "access.log",
                "access.log.1",
                "access.log.2",
                "access.log.2.gz",
                "access.log.10",
                "access.log.11",
            ],
        ),
        (
            &["--include", "access.log.1*"],
            &["access.log.1", "access.log.10", "access.log.11"],
        ),
        (
            &[
                "--include",
                "access.log*",
                "--exclude",
                "*.gz",
                "--exclude",
                "*.1?",
            ],
            &["access.log", "access.log.1", "access.log.2"],
        ),
    ];
    for (args, want) in cases {
        assert_eq!(files(args), want, "{args:?}");
    }
    // A file named on the command line is read whatever the globs say.
    audit_example(dir.path())
        .args(["--include", "nothing*", "logs/access.log.1"])
        .assert()
        .code(0);
    audit_example(dir.path())
        .args(["--include", "nothing*", "logs"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "holds 8 files, and --include nothing* leaves out every one",
        ));
    audit_example(dir.path())
        .args(["--exclude", "a[", "logs"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--exclude \"a[\" is not a glob"));
}

/// Every command that writes to standard output ends quietly with exit code 0 when its reader
/// has gone away (`... | head -1`), as ripgrep does.
#[test]
fn a_closed_output_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let commands: [&[&str]; 7] = [
        &["bots"],
        &["bots", "--json"],
        &[
            "check",
            "--robots",
            "robots.txt",
            "--agent",
            "FooBot",
            "/a",
            "/b",
        ],
        &[
            "explain",
            "--robots",
            "robots.txt",
            "--origin",
            "https://example.com",
            LINE.trim_end(),
        ],
        &[
            "explain",
            "--json",
            "--robots",
            "robots.txt",
            "--origin",
            "https://example.com",
            LINE.trim_end(),
        ],
        &["--generate", "man"],
        &["--generate", "complete-bash"],
    ];
    for args in commands {
        // A pipe whose reading end is closed before the command writes anything.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
            .current_dir(dir.path())
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
        assert_eq!(stderr_text(&output), "", "{args:?}");
    }
}

/// A closed standard error (`2>&1 | head -1`, a log collector that went away) ends nothing
/// early and panics nothing: each command exits with its own code, the audit and the merge
/// after committing their reports, whose summary, notes and errors had nowhere to go.
#[test]
fn a_closed_standard_error_changes_no_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    // Line 1 takes no effect: `check` names it on standard error.
    write(dir.path(), "ignored.txt", "Disallow: /x\nUser-agent: *\n");
    let browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    let ahrefs = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    write(dir.path(), "browsers.log", LINE.replace(ahrefs, browser));
    let example = ["--robots", "robots.txt", "--origin", "https://example.com"];
    let cases: [(&[&str], &[&str], i32); 9] = [
        (&["audit", "--out", "out"], &["access.log"], 0),
        // Nothing judged, and an input that cannot be read: exit 3, each said on stderr.
        (&["audit", "--out", "none"], &["browsers.log"], 3),
        (
            &["audit", "--out", "missing"],
            &["access.log", "gone.log"],
            3,
        ),
        (&["merge", "--out", "merged"], &["out"], 0),
        (&["audit", "--out", "out"], &["gone.log"], 1),
        (&["audit", "--threads", "none"], &["access.log"], 2),
        (
            &["check", "--robots", "ignored.txt", "--agent", "a"],
            &["/x"],
            0,
        ),
        (
            &["check", "--robots", "gone.txt", "--agent", "a"],
            &["/x"],
            1,
        ),
        (&["synth", "--out", "synth", "--lines", "10"], &[], 0),
    ];
    for (args, inputs, code) in cases {
        let robots: &[&str] = if args[0] == "audit" { &example } else { &[] };
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("robots-audit"))
            .current_dir(dir.path())
            .args(args)
            .args(robots)
            .args(inputs)
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(code), "{args:?} {inputs:?}");
    }
    let merged = read_csv(&dir.path().join("merged/agents.csv"));
    assert_eq!(row(&merged, "agent", "AhrefsBot")["disallowed"], "3");
    assert!(dir.path().join("none/agents.csv").exists());
}

/// The options each command's `--help` lists.
fn options_of(command: &str) -> Vec<String> {
    let help = robots_audit().args([command, "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']' || c == '=')
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .filter(|word| {
            word[2..]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .map(str::to_owned)
        .collect()
}

const COMMANDS: [&str; 8] = [
    "audit", "check", "explain", "merge", "synth", "bots", "fetch", "import",
];

/// `--generate man` is one page with a section per command, naming each of its options.
#[test]
fn the_man_page_names_every_command_and_option() {
    let output = robots_audit().args(["--generate", "man"]).output().unwrap();
    assert!(output.status.success());
    let man = String::from_utf8(output.stdout).unwrap();
    assert!(man.starts_with(".ie \\n(.g .ds Aq"), "{}", &man[..200]);
    assert!(man.contains(".TH robots-audit 1"));
    for command in COMMANDS {
        assert!(
            man.contains(&format!(".SH \"ROBOTS-AUDIT {}\"", command.to_uppercase())),
            "{command}"
        );
        let options = options_of(command);
        assert!(
            options.contains(&"--help".to_owned()),
            "{command}: {options:?}"
        );
        for option in options {
            // roff writes `-` as `\-`.
            let written = option.replace('-', "\\-");
            assert!(
                man.contains(&written),
                "{command} {option} missing from the man page"
            );
        }
    }
    assert!(options_of("audit").contains(&"--include".to_owned()));
    // The string definition at the top of the page comes once.
    assert_eq!(man.matches(".ds Aq").count(), 2);
}

/// Every option a command's `--help` lists is documented on the user guide's page of that
/// command, so that a new option cannot land without its documentation.
#[test]
fn the_user_guide_documents_every_option() {
    let pages = [
        ("audit", "audit.md"),
        ("check", "commands.md"),
        ("explain", "commands.md"),
        ("bots", "commands.md"),
        ("synth", "commands.md"),
        ("merge", "merge.md"),
        ("fetch", "robots-sources.md"),
        ("import", "robots-sources.md"),
    ];
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide");
    let mut undocumented = Vec::new();
    for (command, page) in pages {
        let text = fs::read_to_string(guide.join(page)).unwrap();
        for option in options_of(command) {
            if option == "--help" || option == "--version" {
                continue;
            }
            // The option as a whole word: `--dns` is not documented by `--dns-cache`.
            let documented = text.match_indices(&option).any(|(at, _)| {
                !text[at + option.len()..].starts_with(|c: char| c.is_ascii_lowercase() || c == '-')
            });
            if !documented {
                undocumented.push(format!("{command} {option} (docs/guide/{page})"));
            }
        }
    }
    assert!(undocumented.is_empty(), "undocumented: {undocumented:?}");
}

/// `--field`'s help names every field a mapping may name: those the error for an unknown name
/// lists.
#[test]
fn field_help_names_every_field() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let output = audit_example(dir.path())
        .args(["--format", "json", "--field", "nonsense=x", "access.log"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let error = stderr_text(&output);
    let known = error
        .split("known names: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{error}"))
        .trim_end();
    let help = robots_audit().args(["audit", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let field = help
        .lines()
        .find(|line| line.trim_start().starts_with("--field"))
        .unwrap();
    for name in known.split(", ") {
        assert!(
            field.contains(&format!(" {name},")) || field.contains(&format!(" {name})")),
            "{name} missing from: {field}"
        );
    }
}

/// `--generate complete-SHELL` writes a completion script that knows every command.
#[test]
fn shell_completions_are_generated() {
    let bash = robots_audit()
        .args(["--generate", "complete-bash"])
        .output()
        .unwrap();
    assert!(bash.status.success());
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains("complete -F _robots__audit"), "{bash}");
    for command in COMMANDS {
        assert!(
            bash.contains(&format!("robots__audit__subcmd__{command}")),
            "{command}"
        );
    }
    assert!(bash.contains("--include"));
    for shell in ["zsh", "fish", "powershell"] {
        let script = robots_audit()
            .args(["--generate", &format!("complete-{shell}")])
            .output()
            .unwrap();
        assert!(script.status.success(), "{shell}");
        assert!(
            String::from_utf8(script.stdout)
                .unwrap()
                .contains("robots-audit"),
            "{shell}"
        );
    }
    robots_audit()
        .args(["--generate", "complete-tcsh"])
        .assert()
        .code(2);
}
