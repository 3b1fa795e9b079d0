//! What cron sees when a night goes wrong: exit 3 and one line on standard error (even with
//! `-q`) that says why, for a forced `--format` that is not the log's, and for a log directory
//! that holds the server's other logs beside its access logs (`--exclude` leaves them out).
//! The natural order of a directory and `--include`/`--exclude` themselves are in `cli.rs`.

use std::path::Path;

use crate::common::*;

const UA: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn combined(n: usize) -> String {
    format!(
        "203.0.113.9 - - [01/Jan/2026:10:00:{:02} +0000] \"GET /p{n} HTTP/1.1\" 200 10 \"-\" \"{UA}\"\n",
        n % 60
    )
}

fn caddy(n: usize) -> String {
    format!(
        r#"{{"ts":{},"request":{{"client_ip":"203.0.113.9","method":"GET","host":"example.com","uri":"/p{n}","headers":{{"User-Agent":["{UA}"]}},"tls":{{}}}},"status":200,"size":10}}"#,
        1_767_261_600 + n
    ) + "\n"
}

fn audit(dir: &Path, args: &[&str]) -> std::process::Output {
    robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots.txt", "--origin"])
        .args(["https://example.com", "--out", "out"])
        .args(args)
        .output()
        .unwrap()
}

/// Every line skipped because `--format` names another format than the log's: the reports are
/// written, the run exits 3, and standard error holds the one line
/// `nothing judged: N of N lines REASON for --format NAME`, as `docs/guide/exit-codes.md` shows.
#[test]
fn a_forced_format_that_is_not_the_logs_exits_3_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let lines = |make: fn(usize) -> String, n: usize| (0..n).map(make).collect::<String>();
    let prefixed = |make: fn(usize) -> String, n: usize| {
        (0..n)
            .map(|i| format!("Jul  4 12:00:01 web caddy[2140]: {}", make(i)))
            .collect::<String>()
    };
    write(dir.path(), "combined.log", lines(combined, 1_473));
    write(dir.path(), "caddy.log", lines(caddy, 12));
    write(dir.path(), "journal.log", prefixed(combined, 7));
    let cases = [
        (
            "w3c",
            "combined.log",
            "1,473 of 1,473 lines no_fields_header",
        ),
        ("caddy", "combined.log", "1,473 of 1,473 lines wrong_format"),
        ("combined", "caddy.log", "12 of 12 lines wrong_format"),
        (
            "haproxy",
            "combined.log",
            "1,473 of 1,473 lines wrong_format",
        ),
        ("caddy", "journal.log", "7 of 7 lines wrong_format"),
    ];
    for (format, log, cause) in cases {
        let output = audit(dir.path(), &["--format", format, log]);
        assert_eq!(
            (output.status.code(), stderr_text(&output)),
            (
                Some(3),
                format!("robots-audit: nothing judged: {cause} for --format {format}\n")
            ),
            "--format {format} {log}"
        );
        let inputs = read_csv(&dir.path().join("out/inputs.csv"));
        assert_eq!(inputs[0]["parsed"], "0", "--format {format} {log}");
    }
    // The same logs read with the format they have are judged.
    for log in ["combined.log", "caddy.log", "journal.log"] {
        let output = audit(dir.path(), &[log]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{log}: {}",
            stderr_text(&output)
        );
    }
}

/// A log directory as `/var/log/nginx` or `/var/log` holds it: rotated access logs beside the
/// error log and syslog. Read whole, the files that are no access log are input errors (exit
/// 3, each named on standard error and in `inputs.csv`); `--exclude` leaves them out (exit 0),
/// and the access logs are read in natural order either way.
#[test]
fn other_logs_beside_the_access_logs_exit_3_unless_excluded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /p1\n");
    for (name, from) in [
        ("access.log.10", 0),
        ("access.log.2", 10),
        ("access.log", 20),
    ] {
        write(
            dir.path(),
            &format!("logs/{name}"),
            (from..from + 10).map(combined).collect::<String>(),
        );
    }
    write(
        dir.path(),
        "logs/error.log",
        "2026/01/01 10:00:00 [error] 712#712: *1 open() \"/srv/www/favicon.ico\" failed (2: No such file or directory), client: 203.0.113.9, server: example.com\n",
    );
    write(
        dir.path(),
        "logs/syslog",
        "Jan  1 10:00:00 web kernel: [    0.000000] Linux version 6.1.0\nJan  1 10:00:01 web systemd[1]: Started nginx.service.\n",
    );
    let files = |out: &Path| -> Vec<(String, String)> {
        read_csv(&out.join("inputs.csv"))
            .into_iter()
            .map(|row| (row["file"].clone(), row["error"].clone()))
            .collect()
    };

    let output = audit(dir.path(), &["logs"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr_text(&output));
    let stderr = stderr_text(&output);
    let read = files(&dir.path().join("out"));
    let names: Vec<&str> = read.iter().map(|(file, _)| file.as_str()).collect();
    assert_eq!(
        names,
        [
            "logs/access.log",
            "logs/access.log.2",
            "logs/access.log.10",
            "logs/error.log",
            "logs/syslog"
        ]
    );
    for (file, error) in &read {
        let other = !file.starts_with("logs/access.log");
        assert_eq!(!error.is_empty(), other, "{file}: {error:?}");
        if other {
            assert!(
                stderr
                    .lines()
                    .any(|l| l.contains(file.as_str()) && l.contains(error.as_str())),
                "{file} not named on standard error:\n{stderr}"
            );
        }
    }
    assert_eq!(stderr.lines().count(), 2, "{stderr}");

    let output = audit(
        dir.path(),
        &["--exclude", "error.log*", "--exclude", "syslog*", "logs"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    assert_eq!(stderr_text(&output), "");
    assert_eq!(
        files(&dir.path().join("out")),
        ["logs/access.log", "logs/access.log.2", "logs/access.log.10"]
            .map(|f| (f.to_owned(), String::new()))
    );
}

/// The other causes of "nothing judged" that version 3 added, each one line: no request was a
/// bot's, and the bots only fetched robots.txt (fetches are counted, never judged). Lines read
/// with nothing to judge are never a quiet night.
#[test]
fn nights_with_nothing_to_judge_exit_3_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let browser = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    let line = |path: &str, ua: &str| {
        format!(
            "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET {path} HTTP/1.1\" 200 10 \"-\" \"{ua}\"\n"
        )
    };
    write(dir.path(), "people.log", line("/a", browser).repeat(812));
    write(
        dir.path(),
        "fetches.log",
        line("/robots.txt?x=1", UA).repeat(5),
    );
    let cases = [
        (
            "people.log",
            "none of the 812 requests read was a bot's (--all-agents judges every request)",
        ),
        (
            "fetches.log",
            "the 5 requests of bots were all robots.txt fetches, which are never judged",
        ),
    ];
    for (log, cause) in cases {
        let output = audit(dir.path(), &[log]);
        assert_eq!(
            (output.status.code(), stderr_text(&output)),
            (Some(3), format!("robots-audit: nothing judged: {cause}\n")),
            "{log}"
        );
    }
    let output = audit(dir.path(), &["--all-agents", "people.log"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
}

/// Lines that hold no request (a W3C log of directives alone, blank lines under a named format)
/// are read, and the night judged nothing: one line says so, its verb agreeing with the count.
#[test]
fn lines_without_a_request_exit_3_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    write(
        dir.path(),
        "directives.log",
        "#Fields: date time cs-uri-stem\n",
    );
    write(dir.path(), "blank.log", "\n# rotated\n\n");
    let cases = [
        (&["directives.log"][..], "the 1 line read holds no request"),
        (
            &["--format", "combined", "blank.log"],
            "the 3 lines read hold no request",
        ),
    ];
    for (args, cause) in cases {
        let output = audit(dir.path(), args);
        assert_eq!(
            (output.status.code(), stderr_text(&output)),
            (Some(3), format!("robots-audit: nothing judged: {cause}\n")),
            "{args:?}"
        );
    }
}

/// A crawler's own fetch log whose lines all record no fetch (Heritrix `-9998`: robots.txt
/// precluded it) holds no request to the site. The line says so, and does not send the user to
/// `--all-agents`, which cannot judge what was never fetched.
#[test]
fn a_crawl_log_that_fetched_nothing_exits_3_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let precluded = "2026-01-01T10:00:00.000Z -9998 - https://example.com/private/x LREP - - \
                     #014 - - - -\n";
    write(dir.path(), "crawl.log", precluded.repeat(4));
    let crawler = [
        "--format",
        "crawl",
        "--user-agent",
        "ExampleBot/1.0 (+https://bot.example/)",
    ];
    for all_agents in [&[][..], &["--all-agents"]] {
        let output = audit(
            dir.path(),
            &[&crawler[..], all_agents, &["crawl.log"]].concat(),
        );
        assert_eq!(
            (output.status.code(), stderr_text(&output)),
            (
                Some(3),
                "robots-audit: nothing judged: the 4 lines read record no fetch (a crawler's own \
                 outcome, such as -9998, is no request to the site)\n"
                    .to_owned()
            ),
            "{all_agents:?}"
        );
    }
}
