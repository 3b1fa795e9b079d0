//! `hourly.csv` (docs/contract.md, "hourly.csv"): one row per UTC hour and agent, adding up to
//! `agents.csv`, the same bytes whatever `--threads` is.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::*;

const HEADER: &str = "hour,agent,requests,robots_fetches,judged,allowed,disallowed,grace,exempt,unjudged,violations_served,spoofed,preference_conflicts";

/// The counters of `hourly.csv` that `agents.csv` has too, under the same names.
const SUMMED: &[&str] = &[
    "requests",
    "robots_fetches",
    "judged",
    "allowed",
    "disallowed",
    "grace",
    "exempt",
    "unjudged",
    "violations_served",
    "spoofed",
    "preference_conflicts",
];

/// Audits the sample night with `threads` threads into `out`.
fn audit_sample_night(out: &Path, threads: &str) {
    sample_night_audit()
        .args(["--no-html", "--threads", threads, "--out"])
        .arg(out)
        .arg("sample-data/logs")
        .assert()
        .success();
}

fn number(row: &BTreeMap<String, String>, column: &str) -> u64 {
    row[column]
        .parse()
        .unwrap_or_else(|e| panic!("{column}={:?}: {e}", row[column]))
}

#[test]
fn the_sample_nights_hours_add_up_to_agents_csv_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    audit_sample_night(&one, "1");
    audit_sample_night(&three, "3");
    let hourly_file = one.join("hourly.csv");
    assert_eq!(header(&hourly_file), HEADER);
    assert_eq!(
        std::fs::read(&hourly_file).unwrap(),
        std::fs::read(three.join("hourly.csv")).unwrap(),
        "hourly.csv depends on --threads"
    );

    let hourly = read_csv(&hourly_file);
    let agents = read_csv(&one.join("agents.csv"));
    assert!(
        hourly.len() > agents.len(),
        "the sample night spans several hours"
    );
    let keys: Vec<(String, String)> = hourly
        .iter()
        .map(|r| (r["hour"].clone(), r["agent"].clone()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        keys, sorted,
        "rows are sorted by hour, then agent, once each"
    );

    let mut sums: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
    for row in &hourly {
        let hour: jiff::Timestamp = row["hour"].parse().unwrap();
        assert_eq!(hour.as_second() % 3600, 0, "{} is not an hour", row["hour"]);
        assert!(number(row, "requests") > 0, "an hour without requests");
        assert_eq!(
            number(row, "judged"),
            number(row, "allowed")
                + number(row, "disallowed")
                + number(row, "grace")
                + number(row, "exempt")
        );
        let agent = sums.entry(row["agent"].as_str()).or_default();
        for &column in SUMMED {
            *agent.entry(column).or_default() += number(row, column);
        }
    }
    assert_eq!(
        sums.keys().copied().collect::<Vec<_>>(),
        agents
            .iter()
            .map(|r| r["agent"].as_str())
            .collect::<Vec<_>>(),
        "hourly.csv has the agents of agents.csv"
    );
    let mut compared = 0;
    for row in &agents {
        let agent = &sums[row["agent"].as_str()];
        for &column in SUMMED {
            // `preference_conflicts` is a column of agents.csv only once preferences are
            // judged; until then hourly.csv has it as 0.
            let want = row.get(column).map_or(0, |_| number(row, column));
            assert_eq!(agent[column], want, "{} {column}", row["agent"]);
            compared += 1;
        }
    }
    assert!(compared > 0);
    let disallowed: u64 = agents.iter().map(|r| number(r, "disallowed")).sum();
    assert!(disallowed > 0, "the sample night has violations to count");
    let spoofed: u64 = agents.iter().map(|r| number(r, "spoofed")).sum();
    assert!(
        spoofed > 0,
        "the sample night has spoofed requests to count"
    );
}

#[test]
fn requests_count_in_their_utc_hour() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots.txt",
        "User-agent: *\nDisallow: /private/\n",
    );
    let line = |time: &str, path: &str, status: u16, agent: &str| {
        format!("203.0.113.9 - - [{time}] \"GET {path} HTTP/1.1\" {status} 10 \"-\" \"{agent}\"\n")
    };
    let ahrefs = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    let bing = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    let log = [
        // Hour 10: a served violation, a robots fetch, and an allowed request logged at
        // 12:30 in UTC+2, which is 10:30 UTC.
        line("01/Jan/2026:10:59:59 +0000", "/private/a", 200, ahrefs),
        line("01/Jan/2026:10:59:59 +0000", "/robots.txt", 200, ahrefs),
        line("01/Jan/2026:12:30:00 +0200", "/public", 200, ahrefs),
        // Hour 11 from its first second: a violation answered 404 (not served), an allowed
        // request at its last second, and another bot's violation answered 304 (served).
        line("01/Jan/2026:11:00:00 +0000", "/private/b", 404, ahrefs),
        line("01/Jan/2026:11:59:59 +0000", "/x", 200, ahrefs),
        line("01/Jan/2026:11:00:00 +0000", "/private/c", 304, bing),
        // No time that can be read: skipped, in no hour.
        line("01/Foo/2026:11:00:00 +0000", "/private/d", 200, ahrefs),
        // Back in hour 10 after hour 11 (logs are not always in order).
        line("01/Jan/2026:10:00:00 +0000", "/private/e", 500, ahrefs),
    ]
    .concat();
    write(dir.path(), "access.log", log);
    robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "robots.txt"])
        .args(["--origin", "https://example.com", "--no-html"])
        .args(["--out", "out", "access.log"])
        .assert()
        .success();
    let out = dir.path().join("out");
    assert_eq!(
        std::fs::read_to_string(out.join("hourly.csv")).unwrap(),
        format!(
            "{HEADER}\n\
             2026-01-01T10:00:00Z,AhrefsBot,4,1,3,1,2,0,0,0,1,0,0\n\
             2026-01-01T11:00:00Z,AhrefsBot,2,0,2,1,1,0,0,0,0,0,0\n\
             2026-01-01T11:00:00Z,Bingbot,1,0,1,0,1,0,0,0,1,0,0\n"
        )
    );
    let skipped = read_csv(&out.join("skipped_lines.csv"));
    assert_eq!(row(&skipped, "line", "7")["reason"], "bad_time");
}

#[test]
fn a_run_without_requests_writes_the_header_only() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "robots.txt", "User-agent: *\nDisallow: /\n");
    write(
        dir.path(),
        "access.log",
        "203.0.113.9 - - [01/Jan/2026:10:00:00 +0000] \"GET / HTTP/1.1\" 200 10 \"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\"\n",
    );
    robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "robots.txt"])
        .args(["--origin", "https://example.com", "--no-html"])
        .args(["--out", "out", "access.log"])
        .assert()
        // Lines were read and nothing was judged: no request was a bot's.
        .code(3);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/hourly.csv")).unwrap(),
        format!("{HEADER}\n")
    );
}

/// A time in the last second before 1970 with a fraction counts in 1969's last hour and
/// minute: `jiff` keeps the fraction with the sign of the seconds, and dropping it rounded
/// towards zero, into 1970.
#[test]
fn a_fraction_of_a_second_before_1970_counts_in_1969() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "robots/example.com.txt",
        "User-agent: *\nCrawl-delay: 2\nDisallow: /private/\n",
    );
    let bing = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    write(
        dir.path(),
        "haproxy.log",
        format!(
            "192.0.2.10:51012 [31/Dec/1969:23:59:59.500] www~ web/app1 0/0/1/12/13 200 5120 - - \
             ---- 3/3/1/1/0 0/0 {{example.com|{bing}}} \"GET /x HTTP/1.1\"\n"
        ),
    );
    robots_audit()
        .current_dir(dir.path())
        .args(["audit", "-q", "--robots", "robots", "--no-html"])
        .args(["--out", "out", "haproxy.log"])
        .assert()
        .success();
    let out = dir.path().join("out");
    assert_eq!(
        std::fs::read_to_string(out.join("hourly.csv")).unwrap(),
        format!("{HEADER}\n1969-12-31T23:00:00Z,Bingbot,1,0,1,1,0,0,0,0,0,0,0\n")
    );
    let rates = read_csv(&out.join("crawl_rate.csv"));
    assert_eq!(rates.len(), 1);
    assert_eq!(rates[0]["busiest_minute"], "1969-12-31T23:59:00Z");
}
