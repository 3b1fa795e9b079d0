//! Logs as collectors and load balancers write them, through the command line: every prefix
//! (syslog, RFC 5424, journald, docker compose, Kubernetes CRI, docker's json-file) before
//! combined and Caddy lines is detected and stripped with `--format auto`, so that the reports
//! are the bare log's; HAProxy's `option httplog` and Envoy's default line are judged; the W3C
//! variants (runs of blanks, `cs-uri`, `#GMT-Offset`, `date-local`) are read with and without
//! `--timezone`. Real logs of the shared data folder, when it is there, behind every prefix.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;

/// A crawler of the catalog, unverified here (no range file).
const GPTBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const ROBOTS: &str = "User-agent: *\nDisallow: /private\n";
const ORIGIN: &str = "https://shop.example";

/// The night of every case: a robots.txt fetch, an allowed request and a disallowed one, one
/// second apart from 2026-11-20T01:00:00Z.
const PATHS: [&str; 3] = ["/robots.txt", "/public/a", "/private/x?y=1"];

fn combined(second: usize, path: &str) -> String {
    format!(
        "192.0.2.1 - - [20/Nov/2026:01:00:0{second} +0000] \"GET {path} HTTP/1.1\" 200 512 \"-\" \"{GPTBOT}\""
    )
}

fn caddy(second: usize, path: &str) -> String {
    format!(
        r#"{{"level":"info","ts":{}.5,"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"192.0.2.1","client_ip":"192.0.2.1","proto":"HTTP/2.0","method":"GET","host":"shop.example","uri":"{path}","headers":{{"User-Agent":["{GPTBOT}"]}},"tls":{{"resumed":false}}}},"status":200,"size":512}}"#,
        1_795_136_400 + second
    )
}

/// The pieces of `line` for a collector that cuts long lines into records: two halves (on a
/// character boundary), or the whole line. The last line of a case (the disallowed request) is
/// cut, so that `violations.csv` names the line its first record is on, as for the bare log.
fn halves(line: &str, split: bool) -> Vec<&str> {
    let mut middle = line.len() / 2;
    while !line.is_char_boundary(middle) {
        middle += 1;
    }
    if split {
        vec![&line[..middle], &line[middle..]]
    } else {
        vec![line]
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// The line of a format for the request `n` seconds into the night, for a path.
type MakeLine = fn(usize, &str) -> String;

/// How a collector writes the `n`-th line: the records it becomes.
type Wrap = fn(&str, usize) -> Vec<String>;

/// Every prefix of `docs/log-formats.md#prefixes`, as its collector writes it.
const PREFIXES: &[(&str, Wrap)] = &[
    ("RFC 3164", |line, _| {
        vec![format!("Nov 20 01:00:00 web nginx[712]: {line}")]
    }),
    ("RFC 3164 with PRI", |line, _| {
        vec![format!("<190>Nov  2 01:00:00 web nginx[712]: {line}")]
    }),
    ("RFC 5424", |line, _| {
        vec![format!(
            "<134>1 2026-11-20T01:00:00.817934+02:00 - nginx 266980 - - {line}"
        )]
    }),
    ("RFC 5424 with structured data", |line, _| {
        vec![format!(
            "<165>1 2026-11-20T01:00:00.003Z web.example nginx 7 ACCESS [meta sequenceId=\"1\"] {line}"
        )]
    }),
    ("journald short", |line, _| {
        vec![format!("Nov 20 01:00:00 web caddy[2140]: {line}")]
    }),
    ("journald short-precise", |line, _| {
        vec![format!("Nov 20 01:00:00.123456 web caddy[2140]: {line}")]
    }),
    ("docker compose", |line, _| {
        vec![format!("web-1      | {line}")]
    }),
    ("docker compose --timestamps", |line, _| {
        vec![format!(
            "shop_web_1 | 2026-11-20T01:00:00.123456789Z {line}"
        )]
    }),
    ("Kubernetes CRI", |line, n| {
        let pieces = halves(line, n == 2);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let tag = if i == last { 'F' } else { 'P' };
                format!("2026-11-20T01:00:00.{i:09}Z stdout {tag} {piece}")
            })
            .collect()
    }),
    ("docker json-file", |line, n| {
        let pieces = halves(line, n == 2);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let end = if i == last { "\n" } else { "" };
                format!(
                    r#"{{"log":{},"stream":"stdout","time":"2026-11-20T01:00:00.{i:09}Z"}}"#,
                    json_string(&format!("{piece}{end}"))
                )
            })
            .collect()
    }),
];

/// Writes `dir/robots/shop.example.txt` and `dir/access.log` (the lines, each wrapped), audits
/// it with `args`, and returns the run and its report directory.
fn audit_lines(
    dir: &Path,
    lines: &[String],
    wrap: Wrap,
    args: &[&str],
) -> (std::process::Output, PathBuf) {
    write(dir, "robots/shop.example.txt", ROBOTS);
    let text: String = lines
        .iter()
        .enumerate()
        .flat_map(|(n, line)| wrap(line, n))
        .map(|record| record + "\n")
        .collect();
    write(dir, "access.log", text);
    let output = robots_audit()
        .current_dir(dir)
        .args(["audit", "-q", "--robots", "robots", "--out", "out"])
        .args(args)
        .arg("access.log")
        .output()
        .unwrap();
    (output, dir.join("out"))
}

/// The reports a prefix cannot change: every CSV but `inputs.csv`, whose byte and line counts
/// include the prefixes (and the records a partial line was cut into).
const SAME_REPORTS: [&str; 9] = [
    "agents.csv",
    "agent_origins.csv",
    "violations.csv",
    "hourly.csv",
    "rules.csv",
    "robots.csv",
    "skipped_lines.csv",
    "unknown_agents.csv",
    "crawl_rate.csv",
];

/// A report of a prefixed log as the bare log's would read. Where the collector cut a line
/// into records (`split`), the lines after it are further down the file: the line numbers of
/// `violations.csv`'s `source` and `skipped_lines.csv`'s `line` are left out.
fn report_text(out: &Path, report: &str, split: bool) -> String {
    let text = fs::read_to_string(out.join(report)).unwrap();
    if !split {
        return text;
    }
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).unwrap();
    for record in reader.records() {
        let record = record.unwrap();
        let cells = header
            .iter()
            .zip(&record)
            .map(|(column, cell)| match (report, column) {
                ("violations.csv", "source") => {
                    cell.rsplit_once(':').map_or(cell, |(file, _)| file)
                }
                ("skipped_lines.csv", "line") => "",
                _ => cell,
            });
        writer.write_record(cells).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

/// Whether a collector cuts lines into several records (the CRI and docker's json-file).
fn splits(prefix: &str) -> bool {
    matches!(prefix, "Kubernetes CRI" | "docker json-file")
}

/// `inputs.csv`'s row without the columns that count the prefixes' bytes and records.
fn input_row(out: &Path) -> Vec<(String, String)> {
    let rows = read_csv(&out.join("inputs.csv"));
    assert_eq!(rows.len(), 1, "{rows:#?}");
    rows[0]
        .iter()
        .filter(|(column, _)| !matches!(column.as_str(), "bytes_read" | "bytes" | "lines"))
        .map(|(c, v)| (c.clone(), v.clone()))
        .collect()
}

/// The bare night's verdicts: the fetch counted, the two others judged, one violation at
/// `time` (with the fraction of a second the format logs).
fn assert_judged_night(out: &Path, format: &str, time: &str) {
    let agents = read_csv(&out.join("agents.csv"));
    let gptbot = row(&agents, "agent", "GPTBot");
    let counts = [
        "requests",
        "robots_fetches",
        "judged",
        "allowed",
        "disallowed",
    ]
    .map(|c| gptbot[c].as_str());
    assert_eq!(counts, ["3", "1", "2", "1", "1"], "{gptbot:?}");
    let violations = read_csv(&out.join("violations.csv"));
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(
        [
            violations[0]["time"].as_str(),
            violations[0]["origin"].as_str(),
            violations[0]["path"].as_str()
        ],
        [time, ORIGIN, "/private/x?y=1"]
    );
    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(
        [inputs[0]["format"].as_str(), inputs[0]["parsed"].as_str()],
        [format, "3"],
        "{inputs:#?}"
    );
}

/// Every prefix before combined and Caddy lines, with `--format auto`: the reports are the
/// bare log's, byte for byte, and `inputs.csv` names the format behind the prefix.
#[test]
fn every_prefix_before_combined_and_caddy_lines_is_detected_and_stripped() {
    let formats: [(&str, MakeLine, &str); 2] = [
        ("combined", combined, "2026-11-20T01:00:02Z"),
        ("caddy", caddy, "2026-11-20T01:00:02.5Z"),
    ];
    for (format, line, time) in formats {
        let lines: Vec<String> = PATHS.iter().enumerate().map(|(n, p)| line(n, p)).collect();
        let bare_dir = tempfile::tempdir().unwrap();
        let (output, bare) = audit_lines(
            bare_dir.path(),
            &lines,
            |line, _| vec![line.to_owned()],
            &["--origin", ORIGIN],
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
        assert_judged_night(&bare, format, time);
        for &(prefix, wrap) in PREFIXES {
            let dir = tempfile::tempdir().unwrap();
            let (output, out) = audit_lines(
                dir.path(),
                &lines,
                wrap,
                &["--origin", ORIGIN, "--format", "auto"],
            );
            let case = format!("{format} behind {prefix}");
            assert_eq!(
                output.status.code(),
                Some(0),
                "{case}: {}",
                stderr_text(&output)
            );
            for report in SAME_REPORTS {
                assert_eq!(
                    report_text(&out, report, splits(prefix)),
                    report_text(&bare, report, splits(prefix)),
                    "{case}: {report}"
                );
            }
            assert_eq!(input_row(&out), input_row(&bare), "{case}");
            // A request cut into records is on the line of the record that completes it.
            let violations = read_csv(&out.join("violations.csv"));
            let line = if splits(prefix) { 4 } else { 3 };
            assert_eq!(
                violations[0]["source"],
                format!("access.log:{line}"),
                "{case}"
            );
        }
    }
}

/// A line of each load balancer, with the paths of [`PATHS`]; `accept` is HAProxy's accept
/// date (local time, no offset).
/// A log rotated between the partial records of its last line and their continuation: the
/// record left open is read as what was joined of it, a whole line as a request and a line cut
/// short as a skipped line, never counted nowhere.
#[test]
fn a_record_left_open_where_the_log_ends_is_read_or_skipped() {
    let lines: Vec<String> = PATHS
        .iter()
        .enumerate()
        .map(|(n, path)| combined(n, path))
        .collect();
    // The last line in two partial records, the runtime's closing record in the next file.
    let whole: Wrap = |line, n| {
        let tag = if n == 2 { 'P' } else { 'F' };
        halves(line, n == 2)
            .iter()
            .map(|piece| format!("2026-11-20T01:00:00Z stdout {tag} {piece}"))
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = audit_lines(dir.path(), &lines, whole, &["--origin", ORIGIN]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    assert_judged_night(&out, "combined", "2026-11-20T01:00:02Z");
    assert_eq!(read_csv(&out.join("skipped_lines.csv")).len(), 0);
    // Only its first half written: skipped as the line cut short it is, on the file's last line.
    let half: Wrap = |line, n| {
        let tag = if n == 2 { 'P' } else { 'F' };
        let piece = halves(line, n == 2)[0];
        vec![format!("2026-11-20T01:00:00Z stdout {tag} {piece}")]
    };
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = audit_lines(dir.path(), &lines, half, &["--origin", ORIGIN]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let skipped = read_csv(&out.join("skipped_lines.csv"));
    assert_eq!(skipped.len(), 1, "{skipped:#?}");
    assert_eq!(
        [skipped[0]["line"].as_str(), skipped[0]["reason"].as_str()],
        ["3", "bad_quoting"]
    );
    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(
        ["lines", "parsed", "skipped"].map(|c| inputs[0][c].as_str()),
        ["3", "2", "1"]
    );
}

fn haproxy(second: usize, path: &str, headers: &str) -> String {
    format!(
        "192.0.2.1:51012 [20/Nov/2026:01:00:0{second}.125] www~ web/app1 0/0/1/12/13 200 512 - - ---- 3/3/1/1/0 0/0 {headers}\"GET {path} HTTP/1.1\""
    )
}

fn envoy(second: usize, path: &str) -> String {
    format!(
        "[2026-11-20T01:00:0{second}.125Z] \"GET {path} HTTP/1.1\" 200 - 0 512 12 10 \"192.0.2.1, 10.0.0.2\" \"{GPTBOT}\" \"4bf92f35-77b3-4da6-a3ce-929d0e0e4736\" \"shop.example\" \"10.1.2.3:8080\""
    )
}

/// HAProxy's `option httplog` with captured request headers (host and user-agent, in either
/// order, bare or behind syslog) and without (the user-agent from `--user-agent`, the origin
/// from `--origin`), and Envoy's default line: each judged as the combined night is. HAProxy's
/// accept date has no offset: UTC without `--timezone`, the zone's time with it.
#[test]
fn haproxy_and_envoy_lines_are_judged() {
    let captured = format!("{{shop.example|{GPTBOT}}} ");
    let reversed = format!("{{{GPTBOT}|shop.example:443}} {{nginx/1.25.3}} ");
    let syslog: Wrap = |line, _| vec![format!("<134>Nov 20 01:00:00 lb haproxy[14389]: {line}")];
    let bare: Wrap = |line, _| vec![line.to_owned()];
    type Case<'a> = (&'a str, Vec<String>, Wrap, &'a [&'a str], &'a str);
    let lines = |make: &dyn Fn(usize, &str) -> String| -> Vec<String> {
        PATHS.iter().enumerate().map(|(n, p)| make(n, p)).collect()
    };
    let cases: Vec<Case> = vec![
        (
            "haproxy, captured host and user-agent",
            lines(&|n, p| haproxy(n, p, &captured)),
            bare,
            &[],
            "haproxy",
        ),
        (
            "haproxy behind syslog, user-agent captured first, response headers too",
            lines(&|n, p| haproxy(n, p, &reversed)),
            syslog,
            &[],
            "haproxy",
        ),
        (
            "haproxy without captured headers",
            lines(&|n, p| haproxy(n, p, "")),
            bare,
            &["--user-agent", GPTBOT, "--origin", ORIGIN],
            "haproxy",
        ),
        ("envoy", lines(&envoy), bare, &[], "envoy"),
    ];
    for (case, lines, wrap, args, format) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (output, out) = audit_lines(dir.path(), &lines, wrap, args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{case}: {}",
            stderr_text(&output)
        );
        assert_judged_night(&out, format, "2026-11-20T01:00:02.125Z");
    }

    // The accept date in the zone --timezone names: 01:00 in Paris is midnight UTC in November.
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = audit_lines(
        dir.path(),
        &lines(&|n, p| haproxy(n, p, &captured)),
        bare,
        &["--timezone", "Europe/Paris"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let violations = read_csv(&out.join("violations.csv"));
    assert_eq!(violations[0]["time"], "2026-11-20T00:00:02.125Z");

    // Without captured headers nor --user-agent nothing is a bot's: exit 3, saying so.
    let dir = tempfile::tempdir().unwrap();
    let (output, _) = audit_lines(
        dir.path(),
        &lines(&|n, p| haproxy(n, p, "")),
        bare,
        &["--origin", ORIGIN],
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr_text(&output));
    assert_eq!(
        stderr_text(&output),
        "robots-audit: nothing judged: none of the 3 requests read was a bot's \
         (--all-agents judges every request)\n"
    );
}

/// Bingbot's user-agent, which any client can send as its Referer.
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";

/// HAProxy's captured values are all the client's. GPTBot, behind a frontend that captures the
/// Referer before the User-Agent, sends Bingbot's user-agent as its Referer; behind one that
/// captures X-Forwarded-For before the Host, it sends a host name as its X-Forwarded-For. The
/// guess by shape takes the night for Bingbot's, or for another origin's (unjudged); with
/// `--haproxy-captures` naming the configured order it is GPTBot's on shop.example, judged as
/// the plain night is.
#[test]
fn declared_haproxy_captures_ignore_planted_headers() {
    let bare: Wrap = |line, _| vec![line.to_owned()];
    let syslog: Wrap = |line, _| vec![format!("<134>Nov 20 01:00:00 lb haproxy[14389]: {line}")];
    let night = |headers: &str| -> Vec<String> {
        PATHS
            .iter()
            .enumerate()
            .map(|(n, path)| haproxy(n, path, headers))
            .collect()
    };
    let planted_agent = format!("{{{BINGBOT}|{GPTBOT}|shop.example}} ");
    let planted_host = format!("{{other.example|shop.example|{GPTBOT}}} {{nginx/1.25.3}} ");

    let dir = tempfile::tempdir().unwrap();
    let (output, out) = audit_lines(dir.path(), &night(&planted_agent), bare, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let agents = read_csv(&out.join("agents.csv"));
    assert_eq!(row(&agents, "agent", "Bingbot")["requests"], "3");
    assert!(agents.iter().all(|r| r["agent"] != "GPTBot"), "{agents:#?}");
    let dir = tempfile::tempdir().unwrap();
    let (output, out) = audit_lines(dir.path(), &night(&planted_host), bare, &[]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr_text(&output));
    let origins = read_csv(&out.join("agent_origins.csv"));
    assert_eq!(
        row(&origins, "agent", "GPTBot")["origin"],
        "https://other.example"
    );

    let cases: [(&str, &String, Wrap, &[&str]); 3] = [
        ("Referer,User-Agent,Host", &planted_agent, bare, &[]),
        ("x-forwarded-for,host,user-agent", &planted_host, bare, &[]),
        (
            "x-forwarded-for, host, user-agent",
            &planted_host,
            syslog,
            &["--format", "haproxy"],
        ),
    ];
    for (order, headers, wrap, more) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["--haproxy-captures", order];
        args.extend(more);
        let (output, out) = audit_lines(dir.path(), &night(headers), wrap, &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{order}: {}",
            stderr_text(&output)
        );
        assert_judged_night(&out, "haproxy", "2026-11-20T01:00:02.125Z");
        let agents = read_csv(&out.join("agents.csv"));
        assert!(
            agents.iter().all(|r| r["agent"] != "Bingbot"),
            "{agents:#?}"
        );
    }

    // `explain` reads the line as the audit does.
    let line = haproxy(2, PATHS[2], &planted_agent);
    let explained = robots_audit()
        .current_dir(dir.path())
        .args(["explain", "--json", "--robots", "robots"])
        .args(["--haproxy-captures", "referer,user-agent,host", &line])
        .output()
        .unwrap();
    assert_eq!(
        explained.status.code(),
        Some(0),
        "{}",
        stderr_text(&explained)
    );
    let json: serde_json::Value = serde_json::from_slice(&explained.stdout).unwrap();
    assert_eq!(
        [&json["agent"], &json["origin"], &json["verdict"]],
        ["GPTBot", ORIGIN, "disallowed"]
    );

    // A line of a frontend that captures two headers has no user-agent and no host by the
    // declared order: a request of the empty header, not a bot's.
    let mut lines = night(&planted_agent);
    lines[2] = haproxy(2, PATHS[2], &format!("{{shop.example|{GPTBOT}}} "));
    let dir = tempfile::tempdir().unwrap();
    let args = ["--haproxy-captures", "referer,user-agent,host"];
    let (output, out) = audit_lines(dir.path(), &lines, bare, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let agents = read_csv(&out.join("agents.csv"));
    assert_eq!(row(&agents, "agent", "GPTBot")["requests"], "2");
    let unknown = read_csv(&out.join("unknown_agents.csv"));
    assert_eq!(row(&unknown, "user_agent", "")["requests"], "1");
    assert!(read_csv(&out.join("violations.csv")).is_empty());
    assert_eq!(read_csv(&out.join("inputs.csv"))[0]["parsed"], "3");
}

/// A `--haproxy-captures` list that cannot be read by position is a usage error (exit 2, one
/// message naming the option, no report), for `audit` and `explain` alike.
#[test]
fn unreadable_haproxy_captures_are_usage_errors() {
    let bare: Wrap = |line, _| vec![line.to_owned()];
    let line = haproxy(0, "/", &format!("{{shop.example|{GPTBOT}}} "));
    let cases: [(&[&str], &str); 7] = [
        (
            &["--haproxy-captures", ""],
            "--haproxy-captures \"\": name the captured request headers",
        ),
        (
            &["--haproxy-captures", "host,,user-agent"],
            "a header name is empty",
        ),
        (
            &["--haproxy-captures", "host,user-agent,"],
            "a header name is empty",
        ),
        (
            &["--haproxy-captures", "Host,user-agent,host"],
            "host is named twice",
        ),
        (
            &["--haproxy-captures", "referer,x-forwarded-for"],
            "names neither host nor user-agent",
        ),
        (
            &["--haproxy-captures", "host user-agent"],
            "\"host user-agent\" is not a header name",
        ),
        (
            &[
                "--format",
                "combined",
                "--haproxy-captures",
                "host,user-agent",
            ],
            "--haproxy-captures names HAProxy's captured headers, which --format combined does not have",
        ),
    ];
    for (args, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (output, out) = audit_lines(dir.path(), std::slice::from_ref(&line), bare, args);
        let stderr = stderr_text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!out.exists(), "{args:?}");
        let explained = robots_audit()
            .current_dir(dir.path())
            .args(["explain", "--robots", "robots"])
            .args(args)
            .arg(&line)
            .output()
            .unwrap();
        assert_eq!(explained.status.code(), Some(2), "{args:?}");
        assert!(stderr_text(&explained).contains(want), "{args:?}");
    }
}

/// W3C logs in the variants IIS, NetScaler and Oracle Web Cache write: fields separated by runs
/// of spaces and tabs, the whole target in `cs-uri`, a `#GMT-Offset` directive for local times,
/// and IIS Advanced Logging's `date-local`/`time-local`, which have no zone: UTC without
/// `--timezone`, the zone's time with it (a `#GMT-Offset` still wins). The disallowed request's
/// time in `violations.csv` says how each was read.
#[test]
fn w3c_variants_with_and_without_a_time_zone() {
    let ua = GPTBOT.replace(' ', "+");
    let iis_fields = "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken";
    let blanks = |second: usize, path: &str| {
        let (stem, query) = path.split_once('?').unwrap_or((path, "-"));
        format!(
            "2026-11-20  01:00:0{second}\t10.0.0.1 GET   {stem} {query}\t443 - 192.0.2.1  {ua} - 200 0 0 15"
        )
    };
    let oracle = |second: usize, path: &str| {
        format!(
            "2026-11-19  17:00:0{second}   192.0.2.1   GET  {path}  200  512  \"{GPTBOT}\"  shop.example"
        )
    };
    let local = |second: usize, path: &str| {
        format!("2026-11-20 01:00:0{second} 192.0.2.1 GET {path} 200 512 {ua} shop.example")
    };
    let local_fields = "#Fields: date-local time-local c-ip cs-method cs-uri sc-status sc-bytes cs(User-Agent) cs-host";
    let file = |header: &[&str], line: &dyn Fn(usize, &str) -> String| -> Vec<String> {
        header
            .iter()
            .map(|h| (*h).to_owned())
            .chain(PATHS.iter().enumerate().map(|(n, p)| line(n, p)))
            .collect()
    };
    let software = "#Software: Microsoft Internet Information Services 10.0";
    let cases: [(&str, Vec<String>, &[&str], &str); 6] = [
        (
            "IIS, runs of spaces and tabs",
            file(&[software, "#Version: 1.0", iis_fields], &blanks),
            &["--origin", ORIGIN],
            "2026-11-20T01:00:02Z",
        ),
        (
            "IIS, runs of blanks, --timezone (date and time are UTC)",
            file(&[software, iis_fields], &blanks),
            &["--origin", ORIGIN, "--timezone", "Asia/Tokyo"],
            "2026-11-20T01:00:02Z",
        ),
        (
            "Oracle Web Cache, cs-uri and #GMT-Offset",
            file(
                &[
                    "#Fields: date time c-ip cs-method cs-uri sc-status bytes csUser-Agent csHost",
                    "#GMT-Offset: -0800",
                ],
                &oracle,
            ),
            &[],
            "2026-11-20T01:00:02Z",
        ),
        (
            "date-local without --timezone: UTC",
            file(&[local_fields], &local),
            &[],
            "2026-11-20T01:00:02Z",
        ),
        (
            "date-local with --timezone",
            file(&[local_fields], &local),
            &["--timezone", "America/New_York"],
            "2026-11-20T06:00:02Z",
        ),
        (
            "date-local with #GMT-Offset, which --timezone does not override",
            file(&[local_fields, "#GMT-Offset: +0100"], &local),
            &["--timezone", "America/New_York"],
            "2026-11-20T00:00:02Z",
        ),
    ];
    for (case, lines, args, time) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (output, out) = audit_lines(dir.path(), &lines, |l, _| vec![l.to_owned()], args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{case}: {}",
            stderr_text(&output)
        );
        let inputs = read_csv(&out.join("inputs.csv"));
        assert_eq!(
            [
                inputs[0]["format"].as_str(),
                inputs[0]["parsed"].as_str(),
                inputs[0]["skipped"].as_str()
            ],
            ["w3c", "3", "0"],
            "{case}: {inputs:#?}"
        );
        let agents = read_csv(&out.join("agents.csv"));
        let gptbot = row(&agents, "agent", "GPTBot");
        assert_eq!(
            ["robots_fetches", "allowed", "disallowed"].map(|c| gptbot[c].as_str()),
            ["1", "1", "1"],
            "{case}: {gptbot:?}"
        );
        let violations = read_csv(&out.join("violations.csv"));
        assert_eq!(
            [
                violations[0]["time"].as_str(),
                violations[0]["origin"].as_str(),
                violations[0]["path"].as_str()
            ],
            [time, ORIGIN, "/private/x?y=1"],
            "{case}"
        );
    }
}

/// The shared data folder (`ROBOTS_AUDIT_DATA`, else `../shared/data` beside the repository),
/// which is never part of the repository: `None`, with the reason printed, when it is absent.
fn shared_log(name: &str) -> Option<PathBuf> {
    let root = std::env::var_os("ROBOTS_AUDIT_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
        PathBuf::from,
    );
    let path = root.join("logs").join(name);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is absent (the third-party data is not in the repository; set \
             ROBOTS_AUDIT_DATA to its folder)",
            path.display()
        );
        None
    }
}

/// Real logs nobody on the project wrote (combined from Apache and nginx, Caddy's JSON), behind
/// every prefix, through the command line: the same reports as the bare log's.
#[test]
fn real_logs_behind_every_prefix_report_as_the_bare_logs() {
    let logs = [
        ("zanbil_shop_access_first1000.log", "https://www.zanbil.ir"),
        (
            "elastic_apache_logs_semicomplete_2015.log",
            "http://www.semicomplete.com",
        ),
        (
            "caddy_json_mirrors_tnonline.log",
            "https://mirrors.tnonline.net",
        ),
    ];
    for (name, origin) in logs {
        let Some(path) = shared_log(name) else {
            continue;
        };
        let text = fs::read(&path).unwrap();
        let lines: Vec<String> = String::from_utf8_lossy(&text)
            .lines()
            .take(2_000)
            .map(str::to_owned)
            .collect();
        let bare_dir = tempfile::tempdir().unwrap();
        let args = ["--origin", origin, "--robots", "robots.txt"];
        let robots = "User-agent: *\nDisallow: /a\nDisallow: /s\nDisallow: /images\n";
        write(bare_dir.path(), "robots.txt", robots);
        let (output, bare) = audit_lines(bare_dir.path(), &lines, |l, _| vec![l.to_owned()], &args);
        assert_reports_written(&output, name);
        let parsed: u64 = read_csv(&bare.join("inputs.csv"))[0]["parsed"]
            .parse()
            .unwrap();
        assert!(parsed * 100 >= lines.len() as u64 * 99, "{name}: {parsed}");
        for &(prefix, wrap) in PREFIXES {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "robots.txt", robots);
            let (output, out) = audit_lines(dir.path(), &lines, wrap, &args);
            let case = format!("{name} behind {prefix}");
            assert_reports_written(&output, &case);
            for report in SAME_REPORTS {
                assert!(
                    report_text(&out, report, splits(prefix))
                        == report_text(&bare, report, splits(prefix)),
                    "{case}: {report} differs"
                );
            }
            assert_eq!(input_row(&out), input_row(&bare), "{case}");
        }
    }
}

/// The real IIS log (W3C, several `#Fields:` blocks, no host): every request line read, with
/// and without `--timezone` (its `date` and `time` are UTC by definition, so the zone changes
/// nothing).
#[test]
fn a_real_iis_log_is_read_whole() {
    let Some(path) = shared_log("iis_w3c_2015-01-13.log") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    let audit = |out: &str, extra: &[&str]| {
        let output = robots_audit()
            .current_dir(dir.path())
            .args([
                "audit",
                "-q",
                "--robots",
                "robots.txt",
                "--origin",
                ORIGIN,
                "--out",
                out,
            ])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert_reports_written(&output, "audit");
        dir.path().join(out)
    };
    let utc = audit("utc", &[]);
    let inputs = read_csv(&utc.join("inputs.csv"));
    assert_eq!(
        [
            inputs[0]["format"].as_str(),
            inputs[0]["parsed"].as_str(),
            inputs[0]["skipped"].as_str()
        ],
        ["w3c", "210", "0"],
        "{inputs:#?}"
    );
    let zoned = audit("zoned", &["--timezone", "Asia/Tokyo"]);
    for report in SAME_REPORTS {
        assert!(
            fs::read(utc.join(report)).unwrap() == fs::read(zoned.join(report)).unwrap(),
            "{report} differs"
        );
    }
}

/// Audits into `dir/name/out` a one-line HAProxy night: GPTBot asking for `/private/x` on
/// shop.example at second `second`, its host and user-agent captured in that order. The audit
/// must succeed.
fn audit_night(dir: &Path, name: &str, second: usize, args: &[&str]) {
    let line = haproxy(second, "/private/x", &format!("{{shop.example|{GPTBOT}}} "));
    let bare: Wrap = |l, _| vec![l.to_owned()];
    let (output, _) = audit_lines(&dir.join(name), &[line], bare, args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
}

/// Merges the reports of the nights `names` (see [`audit_night`]) into `dir/merged`.
fn merge_nights(dir: &Path, names: &[&str]) -> std::process::Output {
    robots_audit()
        .current_dir(dir)
        .args(["merge", "-q", "--out", "merged"])
        .args(names.iter().map(|name| format!("{name}/out")))
        .output()
        .unwrap()
}

/// Audits three one-line nights (see [`audit_night`]): two with `alike`'s two spellings of one
/// setting, a third with `other`. Merging the first and the third must be refused (exit 1)
/// naming `difference`; merging the first two must succeed, into `dir/merged`.
fn merges_only_alike(alike: [&[&str]; 2], other: &[&str], difference: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    audit_night(dir.path(), "first", 1, alike[0]);
    audit_night(dir.path(), "alike", 2, alike[1]);
    audit_night(dir.path(), "other", 3, other);
    let refused = merge_nights(dir.path(), &["first", "other"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr_text(&refused));
    assert!(
        stderr_text(&refused).contains(difference),
        "{}",
        stderr_text(&refused)
    );
    let merged = merge_nights(dir.path(), &["first", "alike"]);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr_text(&merged));
    dir
}

/// `--timezone` moves the requests read in it, so reports made with different zones are not
/// merged (exit 1, naming the setting), and reports made with the same zone are.
#[test]
fn reports_read_in_different_time_zones_are_not_merged() {
    let paris: &[&str] = &["--timezone", "Europe/Paris"];
    let dir = merges_only_alike([paris, paris], &[], "timezone (\"Europe/Paris\" and null)");
    let times: Vec<String> = read_csv(&dir.path().join("merged/violations.csv"))
        .into_iter()
        .map(|row| row["time"].clone())
        .collect();
    assert_eq!(
        times,
        ["2026-11-20T00:00:01.125Z", "2026-11-20T00:00:02.125Z"]
    );
}

/// `--haproxy-captures` says which captured value is whose, so reports read with different
/// orders, or one with and one without, are not merged (exit 1, naming the setting); the same
/// order written in another case or spacing is the same setting.
#[test]
fn reports_read_with_different_capture_orders_are_not_merged() {
    let dir = merges_only_alike(
        [
            &["--haproxy-captures", "Host,User-Agent"],
            &["--haproxy-captures", "host, user-agent"],
        ],
        &[],
        "haproxy_captures (\"host,user-agent\" and null)",
    );
    assert_eq!(read_csv(&dir.path().join("merged/violations.csv")).len(), 2);
}

/// What a crawler writes into its own IIS request (a user-agent and a cookie, each with a quote
/// IIS logs as it came; a Host header with a port of its own choosing) leaves the request on the
/// origin the server answered for, judged.
#[test]
fn a_crawler_cannot_move_its_iis_request_off_its_origin() {
    let ua = GPTBOT.replace(' ', "+");
    let line = |second: usize, ua: &str, cookie: &str, host: &str| {
        format!(
            "2026-11-20 01:00:0{second} 10.0.0.1 GET /private/x - 443 - 192.0.2.1 HTTP/1.1 {ua} {cookie} - {host} 200 0 0 5120 300 15"
        )
    };
    let lines = vec![
        "#Software: Microsoft Internet Information Services 10.0".to_owned(),
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs-version cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken".to_owned(),
        line(0, &ua, "-", "shop.example"),
        // Joined with the cookie, the user-agent would shift cs-host onto sc-status.
        line(1, &format!("\"{ua}"), "a=b\"", "shop.example"),
        // A quote nothing closes would skip the line.
        line(2, &format!("\"{ua}"), "-", "shop.example"),
        // Servers route by the Host header's name alone; s-port says where the request came.
        line(3, &ua, "-", "shop.example:8443"),
        line(4, &ua, "-", "shop.example:+443"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (row, out) = the_one_agent_origin(dir.path(), &lines);
    assert_eq!(row["origin"], ORIGIN);
    assert_eq!(row["disallowed"], "5", "{row:?}");
    assert_eq!(row["unjudged"], "0", "{row:?}");
    let inputs = read_csv(&out.join("inputs.csv"));
    assert_eq!(inputs[0]["skipped"], "0", "{inputs:?}");
}

/// Audits the bare `lines` into `dir`, which must succeed with one row in `agent_origins.csv`:
/// that row, and the report directory.
fn the_one_agent_origin(dir: &Path, lines: &[String]) -> (BTreeMap<String, String>, PathBuf) {
    let (output, out) = audit_lines(dir, lines, |l, _| vec![l.to_owned()], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    let mut origins = read_csv(&out.join("agent_origins.csv"));
    assert_eq!(origins.len(), 1, "{origins:?}");
    (origins.remove(0), out)
}

/// Envoy escapes nothing: a crawler's quotes in its own user-agent neither name another host
/// nor turn it into a browser, through the command line.
#[test]
fn a_crawler_cannot_move_its_envoy_request_off_its_origin() {
    let line = |second: usize, ua: &str| {
        format!(
            "[2026-11-20T01:00:0{second}.125Z] \"GET /private/x HTTP/1.1\" 200 - 0 512 12 10 \"192.0.2.1\" \"{ua}\" \"4bf92f35\" \"shop.example\" \"10.1.2.3:8080\""
        )
    };
    let lines = vec![
        line(0, GPTBOT),
        line(1, &format!("{GPTBOT}\" \"x\" \"other.example")),
        line(2, &format!("{GPTBOT}\" \"x")),
        line(
            3,
            &format!("Mozilla/5.0 (X11)\" \"x\" \"shop.example\" \"u\" \"{GPTBOT}"),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (row, _) = the_one_agent_origin(dir.path(), &lines);
    assert_eq!(
        (row["agent"].as_str(), row["origin"].as_str()),
        ("GPTBot", ORIGIN)
    );
    assert_eq!(row["disallowed"], "4", "{row:?}");
}
